"""The command outputs shown in README.md and docs/*.md, produced by running the commands.

A console block is generated when the line before it is a marker:

    <!-- docs-example: msacclint check examples/ | head=9 -->
    ```console
    $ msacclint check examples/
    ...the output...
    ```

The command after ``docs-example:`` (``msacclint ...`` or ``flake8 ...``) is run from the
repository root as ``python -m msacclint ...``; the block becomes ``$ <command>`` and its output (stdout,
then stderr). Options after ``|``: ``head=N`` keeps the first N lines of output, then a line
``...`` and the last line (the summary); ``cut=W`` shortens longer lines to W characters
ending in `` ...``.

    python tests/docs_examples.py --check   # exit 1 and name the stale blocks
    python tests/docs_examples.py --write   # rewrite them

tests/test_docs_examples.py runs ``--check``.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Tuple

ROOT = Path(__file__).resolve().parents[1]
MARKER = re.compile(r"^<!-- docs-example: (?P<command>[^|]+?)(?: \| (?P<options>[^>]*?))? -->\n"
                    r"```console\n(?P<body>.*?)```\n", re.MULTILINE | re.DOTALL)


def documents() -> List[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def _options(text: str) -> Dict[str, int]:
    out = {}
    for part in (text or "").split():
        key, _, value = part.partition("=")
        out[key] = int(value)
    return out


def run(command: str) -> str:
    words = shlex.split(command)
    assert words[0] in ("msacclint", "flake8"), f"docs examples run msacclint or flake8, not {words[0]}"
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200"}
    env.pop("FORCE_COLOR", None)
    env.pop("MSACCLINT_FIELD_RECORD", None)  # the docs show the shipped field record's default view
    # The outputs are shown as on the README's machine, which has no MindSpore: an installed
    # one would make the messages quote its shipped probe snapshot. The command runs with
    # msacclint's look-up of the installed release answering "none".
    bootstrap = ("import runpy, sys, msacclint.config as c; c.installed_mindspore = lambda: None; "
                 f"sys.argv = {[words[0], *words[1:]]!r}; runpy.run_module({words[0]!r}, run_name='__main__')")
    result = subprocess.run([sys.executable, "-c", bootstrap], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=300)
    return result.stdout + result.stderr


def render(command: str, options: Dict[str, int]) -> str:
    lines = run(command).splitlines()
    head = options.get("head")
    if head is not None and len(lines) > head + 1:
        lines = lines[:head] + ["..."] + lines[-1:]
    cut = options.get("cut")
    if cut:
        lines = [line if len(line) <= cut else line[:cut - 4].rstrip() + " ..." for line in lines]
    return "".join(line + "\n" for line in [f"$ {command}", *lines])


def regenerate(text: str) -> Tuple[str, List[str]]:
    """The document with every marked block regenerated, and the commands whose block changed."""
    stale: List[str] = []

    def replace(match: re.Match[str]) -> str:
        command = match.group("command").strip()
        body = render(command, _options(match.group("options")))
        if body != match.group("body"):
            stale.append(command)
        return match.group(0)[:match.start("body") - match.start(0)] + body + "```\n"

    return MARKER.sub(replace, text), stale


def main(argv: List[str]) -> int:
    if argv not in (["--check"], ["--write"]):
        print(__doc__)
        return 2
    problems = 0
    for path in documents():
        text = path.read_text(encoding="utf-8")
        new, stale = regenerate(text)
        for command in stale:
            problems += 1
            print(f"{path.relative_to(ROOT)}: the output of `{command}` is stale", file=sys.stderr)
        if argv == ["--write"] and new != text:
            path.write_text(new, encoding="utf-8")
    if argv == ["--check"] and problems:
        print("regenerate with: python tests/docs_examples.py --write", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
