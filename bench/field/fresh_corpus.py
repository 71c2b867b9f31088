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
  (bench/field/history_cases*.toml) are left out: msacclint ran on those folders' history;
- with ``--earlier COMMIT:LIST`` (an earlier round's list), files whose distinct lines are
  60 % or more those of an earlier round's file are left out: a folder renamed between two
  old commits would otherwise be fresh twice (rounds 5 and 6 had such copies of round 4's).

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
from typing import List, Optional, Sequence, Set, Tuple

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


def _lines(git_dir: str, commit: str, paths: Sequence[str]) -> List[Set[bytes]]:
    """The set of stripped, non-blank lines of each file at ``commit`` (missing: empty)."""
    request = b"".join(f"{commit}:{p}\n".encode() for p in paths)
    done = subprocess.run(["git", f"--git-dir={git_dir}", "cat-file", "--batch"], input=request,
                          capture_output=True, check=True)
    out, data, at = [], done.stdout, 0
    for _ in paths:
        end = data.index(b"\n", at)
        header = data[at:end].split()
        at = end + 1
        if len(header) < 3 or header[1] != b"blob":
            out.append(set())
            continue
        size = int(header[2])
        out.append({line.strip() for line in data[at:at + size].splitlines() if line.strip()})
        at += size + 1
    return out


def similar(a: Set[bytes], b: Set[bytes]) -> float:
    """Share of the smaller file's distinct lines that the other holds too."""
    if not a or not b:
        return 0.0
    return len(a & b) / min(len(a), len(b))


def unlike_earlier(git_dir: str, commit: str, paths: Sequence[str],
                   earlier: Sequence[Tuple[str, str]], threshold: float = 0.6) -> List[str]:
    """``paths`` (at ``commit``) minus those whose lines are, at ``threshold`` or more, those
    of a file an earlier round listed (``earlier``: (commit, path) of the same repository): a
    folder renamed between two old commits is then not fresh twice."""
    if not earlier:
        return list(paths)
    seen: List[Set[bytes]] = []
    by_commit: dict = {}
    for old_commit, path in earlier:
        by_commit.setdefault(old_commit, []).append(path)
    for old_commit, old_paths in by_commit.items():
        seen.extend(_lines(git_dir, old_commit, old_paths))
    mine = _lines(git_dir, commit, paths)
    return [p for p, lines in zip(paths, mine) if all(similar(lines, other) < threshold for other in seen)]


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source", metavar="OWNER/NAME=GITDIR")
    parser.add_argument("old", help="the older commit whose files are listed")
    parser.add_argument("new", help="the commit the field runs used")
    parser.add_argument("--earlier", action="append", default=[], metavar="COMMIT:LIST",
                        help="a list an earlier round took at COMMIT: files whose lines are 60 %% or more "
                             "those of one of them are left out (repeatable)")
    args = parser.parse_args(argv)
    repo, _, git_dir = args.source.partition("=")
    earlier = []
    for spec in args.earlier:
        commit, _, listing = spec.partition(":")
        with open(listing, encoding="utf-8") as handle:
            earlier.extend((commit, line.strip()) for line in handle if line.strip())
    for path in unlike_earlier(git_dir, args.old, corpus(repo, git_dir, args.old, args.new), earlier):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
