"""Rule examples as they are written in a rule's module: dedented source in which an
expected finding is marked by a trailing comment naming its code.

    Invalid('''
        import mindspore.nn as nn
        drop = nn.Dropout(0.1)  # MSA101
    ''')

A marker comment starts with one or more codes (``# MSA101``, ``# MSA101 MSA104``), and
may go on after a colon or a dash with a note (``# MSA101: a drop rate as keep_prob``).
A comment that merely mentions a code (``# noqa: MSA101``) is not a marker. Several files
are given as ``files={"src/model.py": '''...''', "train.py": '''...'''}``; the expected
findings are then (path, line, code) triples over all of them.
"""

from __future__ import annotations

import io
import json
import re
import textwrap
import tokenize
from typing import Dict, FrozenSet, Mapping, Tuple

#: (path, line, code)
Expected = Tuple[str, int, str]

_MARKER = re.compile(r"#\s*((?:MSA\d{3})(?:[\s,]+MSA\d{3})*)\s*(?:$|[:\u2014-])")
_CODE = re.compile(r"MSA\d{3}")


def dedent(source: str) -> str:
    """The example's text as a file holds it: common indentation removed, the newline
    right after an opening triple quote dropped, exactly one newline at the end."""
    if not source:
        return source
    text = textwrap.dedent(source)
    if text.startswith("\n"):
        text = text[1:]
    return text.rstrip() + "\n"


_SLOT_LINE = re.compile(r"^([ \t]*)\{(\w+)\}[ \t]*$")


def fill(template: str, **slots: str) -> str:
    """An example built from a snippet its module shares among examples: ``template``
    (dedented) with each ``{name}`` of ``slots`` filled in. A slot alone on its line takes a
    block (dedented, then indented like the slot, several lines possible); a slot inside a
    line takes one line of text. Braces that name no slot (a dict, an f-string) stay::

        _STEP = '''
            def train_step(data, label):
                grads = grad_fn(data, label)
                {clip}
                optimizer(grads)
        '''
        Invalid(fill(_STEP, clip="grads = ops.clip_by_global_norm(grads, 1.0)  # MSA401"))

    The rule's page and the harness see the filled-in text."""
    lines = []
    for line in dedent(template).splitlines():
        block = _SLOT_LINE.match(line)
        if block is not None and block.group(2) in slots:
            indent = block.group(1)
            lines.extend(indent + part if part.strip() else ""
                         for part in dedent(slots[block.group(2)]).splitlines())
            continue
        for name, value in slots.items():
            line = line.replace("{" + name + "}", value)
        lines.append(line)
    return "\n".join(lines) + "\n"


def markers(source: str) -> FrozenSet[Tuple[int, str]]:
    """(line, code) of every marker comment in ``source``."""
    found = set()
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return frozenset(_scan_lines(source))
    for token in tokens:
        if token.type != tokenize.COMMENT:
            continue
        match = _MARKER.match(token.string)
        if match:
            for code in _CODE.findall(match.group(1)):
                found.add((token.start[0], code))
    return frozenset(found)


def _scan_lines(source: str):
    """Markers of a source that does not tokenize (an example of bad input): the last
    '#' of each line."""
    for number, line in enumerate(source.splitlines(), 1):
        at = line.rfind("#")
        if at >= 0:
            match = _MARKER.match(line[at:])
            if match:
                for code in _CODE.findall(match.group(1)):
                    yield number, code


def expected(files: Mapping[str, str]) -> FrozenSet[Expected]:
    """(path, line, code) of every marker over the files of an example; in a notebook the
    path names the cell (``demo.ipynb:cell 2``) and the line counts within it."""
    out = set()
    for path, text in files.items():
        if path.endswith(NOTEBOOK):
            for number, cell in enumerate(json.loads(text)["cells"], 1):
                if cell["cell_type"] == "code":
                    out.update((f"{path}:cell {number}", line, code) for line, code in markers("".join(cell["source"])))
        else:
            out.update((path, line, code) for line, code in markers(text))
    return frozenset(out)


NOTEBOOK = ".ipynb"


def notebook(*cells: str) -> str:
    """The text of a Jupyter notebook (nbformat 4) whose cells are ``cells``, each dedented: a
    code cell, or a markdown cell when it starts with ``"md: "``. For an example of code as a
    notebook runs it (``files={"demo.ipynb": notebook(...)}``); a marker on a line of a code
    cell expects a finding at that cell and line."""
    out = []
    for text in cells:
        if text.startswith("md: "):
            out.append({"cell_type": "markdown", "metadata": {}, "source": text[4:]})
            continue
        source = dedent(text)
        out.append({"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
                    "source": source.rstrip("\n").splitlines(keepends=True)})
    data = {"cells": out, "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3"}},
            "nbformat": 4, "nbformat_minor": 5}
    return json.dumps(data, indent=1) + "\n"


def strip_markers(source: str) -> str:
    """``source`` without its marker comments (``x = f()  # MSA101`` -> ``x = f()``;
    ``# MSA101: a note`` -> ``# a note``): what an example's ``fixed`` text is compared
    with after the fix, since a fix keeps the comments of the lines it rewrites."""
    lines = source.split("\n")
    for line, _ in sorted(markers(source)):
        text = lines[line - 1]
        at = text.rfind("#")
        match = _MARKER.match(text[at:]) if at >= 0 else None
        if match is None:
            continue
        rest = text[at + match.end():].strip()
        lines[line - 1] = text[:at] + "# " + rest if rest else text[:at].rstrip()
    return "\n".join(lines)


#: the model-zoo configuration loader: ``src/model_utils/config.py`` reads
#: ``default_config.yaml`` two folders up and exposes it as ``config``
_CONFIG_LOADER = """
    import os
    import yaml

    def get_config():
        here = os.path.dirname(os.path.abspath(__file__))
        with open(os.path.join(here, "../../default_config.yaml")) as f:
            return yaml.safe_load(f)

    config = get_config()
"""


def model_zoo_config(values: Mapping[str, str]) -> Dict[str, str]:
    """The files of a model-zoo project whose ``default_config.yaml`` holds ``values`` (key ->
    YAML text), read by ``from src.model_utils.config import config``: for multi-file examples."""
    yaml = "batch_size: 32\n" + "".join(f"{k}: {v}\n" for k, v in values.items())
    return {"default_config.yaml": yaml, "src/__init__.py": "", "src/model_utils/__init__.py": "",
            "src/model_utils/config.py": fill(_CONFIG_LOADER)}
