"""No finding changes: the diagnostics of a whole tree, written or compared.

    python bench/speed/findings.py write CORPUS OUT.jsonl     # record (before a change)
    python bench/speed/findings.py diff CORPUS OLD.jsonl      # compare (after it); exit 1 on any change

CORPUS is a folder (every file msacclint's discovery finds in it, every rule on, info
rules included, no cache, one process). A line per diagnostic: path relative to CORPUS,
line, column, end, code, severity, message and fixes, so that a changed message or a
moved span counts as a change too. The speed work checks mindcv at the commit pinned in
docs/evaluation/field.md and the model-zoo corpus of bench/speed/zoo_files.txt with it.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import List

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

from msacclint.engine.batch import check_files  # noqa: E402
from msacclint.engine.discovery import discover  # noqa: E402
from msacclint.engine.registry import all_rules  # noqa: E402
from msacclint.settings import Settings  # noqa: E402


def lines(corpus: str) -> List[str]:
    root = os.path.abspath(corpus)
    settings = Settings(enabled=frozenset(r.code for r in all_rules()))
    found = check_files(discover([root]), settings, jobs=1, use_cache=False)
    out = []
    for d in found:
        record = d.to_cache()
        record["path"] = os.path.relpath(d.path, root)
        # notes and trails name files of the corpus by absolute path: keep them relative to it
        out.append(json.dumps(record, sort_keys=True, default=str).replace(root + os.sep, ""))
    return sorted(out)


def main(argv: List[str]) -> int:
    mode, corpus, data = argv
    now = lines(corpus)
    if mode == "write":
        Path(data).write_text("".join(line + "\n" for line in now), encoding="utf-8")
        print(f"{len(now)} diagnostics written to {data}")
        return 0
    old = Path(data).read_text(encoding="utf-8").splitlines()
    gone = sorted(set(old) - set(now))
    new = sorted(set(now) - set(old))
    for line in gone:
        print("- " + line)
    for line in new:
        print("+ " + line)
    print(f"{len(old)} recorded, {len(now)} now: {len(gone)} gone, {len(new)} new")
    return 1 if gone or new else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
