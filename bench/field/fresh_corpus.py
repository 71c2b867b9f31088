"""Held-out code inside the permitted repositories: the files msacclint has never been run on.

Every permitted repository has been run and read at its pinned commit (bench/field/protocol.toml
and docs/evaluation/field.md), so none is fresh any more as a whole. Their history still holds
code nobody ran msacclint on: files that existed at an older commit and are gone at the commit
the field runs used (deleted, or rewritten beyond recognition). This script lists them, for one
repository at one older commit:

- a Python file of the old commit counts when ``git diff -M40%`` from that commit to the field
  run's commit calls it deleted: no file of the newer tree is a rename of it at 40 % similarity
  or more, so no field run read its text;
- files under the ``scope`` of any historical case of the same repository
  (bench/field/history_cases*.toml) are left out: msacclint ran on those folders' history.

    python bench/field/fresh_corpus.py OWNER/NAME=GITDIR OLD_COMMIT FIELD_COMMIT > list.txt

The lists of a round are committed (bench/field/fresh/) before msacclint runs on any of them;
bench/field/eval.py --only-files LIST keeps the findings in those files (the project layer
still reads the whole tree at the old commit, as a user's clone would).
"""

from __future__ import annotations

import argparse
import glob
import os
import subprocess
import sys
from typing import List, Optional, Sequence, Set

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.9/3.10
    import tomli as tomllib

HERE = os.path.dirname(os.path.abspath(__file__))


def history_scopes(repo: str, folder: str = HERE) -> Set[str]:
    """The project folders of every historical case of ``repo`` ("" = the whole repository)."""
    scopes: Set[str] = set()
    for path in sorted(glob.glob(os.path.join(folder, "history_cases*.toml"))):
        with open(path, "rb") as handle:
            for case in tomllib.load(handle).get("case", []):
                if case.get("repo") == repo:
                    scopes.add(case.get("scope", os.path.dirname(case.get("path", ""))).strip("/"))
    return scopes


def gone_files(git_dir: str, old: str, new: str) -> List[str]:
    """Python files of ``old`` that ``git diff -M40%`` reports deleted by ``new``."""
    done = subprocess.run(["git", f"--git-dir={git_dir}", "diff", "--name-status", "-M40%", "-l20000",
                           old, new, "--", "*.py"], capture_output=True, text=True, check=True)
    found = []
    for line in done.stdout.splitlines():
        status, _, rest = line.partition("\t")
        if status == "D":
            found.append(rest)
    return sorted(found)


def within(path: str, scopes: Set[str]) -> bool:
    return any(scope == "" or path == scope or path.startswith(scope + "/") for scope in scopes)


def corpus(repo: str, git_dir: str, old: str, new: str) -> List[str]:
    scopes = history_scopes(repo)
    return [path for path in gone_files(git_dir, old, new) if not within(path, scopes)]


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source", metavar="OWNER/NAME=GITDIR")
    parser.add_argument("old", help="the older commit whose files are listed")
    parser.add_argument("new", help="the commit the field runs used")
    args = parser.parse_args(argv)
    repo, _, git_dir = args.source.partition("=")
    for path in corpus(repo, git_dir, args.old, args.new):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
