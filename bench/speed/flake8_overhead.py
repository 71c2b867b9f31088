"""The flake8 plugin's cost against its parts, in CPU time (user + system of each process).

    python bench/speed/flake8_overhead.py CORPUS

Three fresh processes on the same files, one job each, no msacclint cache: plain
``flake8 --select F`` with msacclint's entry point banned, a standalone
``msacclint check --no-cache``, and ``flake8 --select F,MSA`` with the plugin (its cache
switched off by MSACCLINT_NO_CACHE, so that every file is checked). Target (issue 17):
the plugin run costs no more than the other two together + 10 %.

Then the plugin with its cache (issue 15): the corpus's ``.msacclint_cache`` is removed,
one run fills it, and a second run over the unchanged files reads it; the warm run's
overhead over plain flake8 is what a user pays on every run after the first.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1]))

from run import FLAKE8_WITHOUT_MSACCLINT, PY, timed  # noqa: E402

from msacclint.engine.discovery import discover  # noqa: E402


def main(argv) -> int:
    corpus = Path(argv[0]).resolve()
    files = [os.path.relpath(f, corpus) for f in discover([str(corpus)])]
    env = dict(os.environ, MSACCLINT_NO_CACHE="1")
    rows = {}
    for key, argv_ in (
        ("flake8 --select F (no msacclint)", [PY, "-c", FLAKE8_WITHOUT_MSACCLINT, "--jobs", "1", "--isolated", "--select", "F"]),
        ("msacclint check --jobs 1 --no-cache", [PY, "-m", "msacclint", "check", "--jobs", "1", "--no-cache", "--exit-zero"]),
        ("flake8 --select F,MSA (plugin, no cache)", [PY, "-m", "flake8", "--jobs", "1", "--isolated", "--select", "F,MSA"]),
    ):
        seconds, rss, code, err, cpu = timed(argv_ + files, corpus, env=env)
        rows[key] = cpu
        print(f"{key:<44} {len(files)} files  CPU {cpu:7.2f} s  (exit {code})", flush=True)
    parts = rows["flake8 --select F (no msacclint)"] + rows["msacclint check --jobs 1 --no-cache"]
    plugin = rows["flake8 --select F,MSA (plugin, no cache)"]
    print(f"plugin / (flake8 F + msacclint) = {plugin / parts:.2f} (target <= 1.10)")

    shutil.rmtree(corpus / ".msacclint_cache", ignore_errors=True)
    cached_env = {k: v for k, v in os.environ.items() if k != "MSACCLINT_NO_CACHE"}
    with_cache = [PY, "-m", "flake8", "--jobs", "1", "--isolated", "--select", "F,MSA"]
    for key in ("flake8 --select F,MSA (plugin, cold cache)", "flake8 --select F,MSA (plugin, warm cache)"):
        seconds, rss, code, err, cpu = timed(with_cache + files, corpus, env=cached_env)
        rows[key] = cpu
        print(f"{key:<44} {len(files)} files  CPU {cpu:7.2f} s  (exit {code})", flush=True)
    shutil.rmtree(corpus / ".msacclint_cache", ignore_errors=True)
    plain = rows["flake8 --select F (no msacclint)"]
    warm = rows["flake8 --select F,MSA (plugin, warm cache)"]
    print(f"plugin, warm cache / flake8 F alone = {warm / plain:.2f} (+{warm - plain:.2f} s CPU); "
          f"plugin, no cache / flake8 F alone = {plugin / plain:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
