"""Round 11's held-out split of the repositories in the field list (bench/field/field_repos.tsv).

    MIRROR=<folder of fetched mirrors> python bench/field/split_round11.py [bench/field/field_repos.tsv]

Run once, before any rule changed in round 11; its output is committed with it:
``bench/field/round11/split.toml`` (each repository's role and why) and, for each held-out
repository, ``bench/field/round11/<owner>+<name>.txt`` (the files a held-out run keeps).

How the roles are decided, without running msacclint on anything:
- fixed as tuning, for a stated reason: an aggregator that vendors the MindSpore framework
  and two model suites (too large to read whole), and repositories whose MindSpore files are
  mostly byte-for-byte copies of model-zoo networks that earlier rounds tuned on;
- the others are joined into groups when two of them share 10 or more byte-identical
  MindSpore files (so one copy is never on each side), and each group is held out when the
  first 32 bits of sha256("<seed>:<sorted members>") fall in the lower half;
- a held-out repository's file list is its ``.py`` files and notebooks that mention
  ``mindspore``, minus every file byte-identical to a file of a tuning repository of the list.
Fix-history cases mined from a repository take its role.

A mirror is ``$MIRROR/<owner>+<name>/repo`` (a bare git directory, or a folder with ``.git``).
"""

from __future__ import annotations

import collections
import hashlib
import os
import re
import subprocess
import sys
from typing import Dict, List, Tuple

SEED = 20261128
GROUP_SHARED_FILES = 10
FIXED_TUNING = {
    "yangyucheng000/code1": "vendors the MindSpore framework, mindcv and mindformers; 3,600 MindSpore files",
    "MindSpore-paper-code-3/code9": "814 of 865 MindSpore files are copies of other repositories' networks",
    "2023-MindSpore-4/Code6": "461 of 489 MindSpore files are copies of other repositories' networks",
    "2024-MindSpore-1/Code7": "283 of 339 MindSpore files are copies of other repositories' networks",
    "2024-MindSpore-1/Code6": "266 of 289 MindSpore files are copies of other repositories' networks",
}
MINDSPORE = re.compile(rb"\bmindspore\b")
File = Tuple[str, str, bool]  # path, blob sha, mentions mindspore


def git_dir(mirror: str, repo: str) -> str:
    base = os.path.join(mirror, repo.replace("/", "+"), "repo")
    dot = os.path.join(base, ".git")
    return dot if os.path.isdir(dot) else base


def files_at(gd: str, commit: str) -> List[File]:
    listing = subprocess.run(["git", f"--git-dir={gd}", "ls-tree", "-r", commit],
                             capture_output=True, text=True, check=True).stdout
    wanted = []
    for line in listing.splitlines():
        meta, path = line.split("\t", 1)
        _mode, kind, sha = meta.split()
        if kind == "blob" and path.endswith((".py", ".ipynb")):
            wanted.append((path, sha))
    batch = subprocess.run(["git", f"--git-dir={gd}", "cat-file", "--batch"], check=True,
                           input="".join(sha + "\n" for _, sha in wanted).encode(), capture_output=True).stdout
    out: List[File] = []
    at = 0
    for path, sha in wanted:
        end = batch.index(b"\n", at)
        header = batch[at:end].split()
        if header[1] == b"missing":
            at = end + 1
            out.append((path, sha, False))
            continue
        size = int(header[2])
        body = batch[end + 1:end + 1 + size]
        at = end + 1 + size + 1
        out.append((path, sha, bool(MINDSPORE.search(body))))
    return out


def main(argv: List[str]) -> int:
    # the field list, committed beside this script (bench/field/field_repos.tsv) unless named
    tsv = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "field_repos.tsv")
    mirror = os.environ["MIRROR"]
    here = os.path.dirname(os.path.abspath(__file__))
    out_dir = os.path.join(here, "round11")
    rows = [line.rstrip("\n").split("\t") for line in open(tsv, encoding="utf-8") if not line.startswith("#")]
    repos = {row[0]: row[1] for row in rows[1:]}
    files: Dict[str, List[File]] = {repo: files_at(git_dir(mirror, repo), commit) for repo, commit in repos.items()}

    holders: Dict[str, set] = collections.defaultdict(set)
    for repo, listed in files.items():
        for _path, sha, ms in listed:
            if ms:
                holders[sha].add(repo)
    shared: collections.Counter = collections.Counter()
    for owners in holders.values():
        ordered = sorted(owners)
        for i, a in enumerate(ordered):
            for b in ordered[i + 1:]:
                shared[a, b] += 1
    parent = {repo: repo for repo in repos}

    def root(repo: str) -> str:
        while parent[repo] != repo:
            repo = parent[repo]
        return repo

    for (a, b), count in shared.items():
        if count >= GROUP_SHARED_FILES and a not in FIXED_TUNING and b not in FIXED_TUNING:
            parent[root(a)] = root(b)
    groups: Dict[str, List[str]] = collections.defaultdict(list)
    for repo in repos:
        if repo not in FIXED_TUNING:
            groups[root(repo)].append(repo)
    role: Dict[str, str] = {}
    why: Dict[str, str] = dict(FIXED_TUNING)
    for members in groups.values():
        key = ",".join(sorted(members))
        draw = int(hashlib.sha256(f"{SEED}:{key}".encode()).hexdigest()[:8], 16) / 2**32
        for member in members:
            role[member] = "held-out" if draw < 0.5 else "tuning"
            why[member] = f"group [{key}] drew {draw:.4f}"
    for repo in FIXED_TUNING:
        role[repo] = "tuning"

    tuning_blobs = {sha for repo, listed in files.items() if role[repo] == "tuning" for _p, sha, _m in listed}
    lines = [
        "# Round 11 split of the shared field list (bench/field/split_round11.py), fixed before any",
        f"# rule changed in round 11. seed = {SEED}.",
        "",
    ]
    for repo in sorted(repos, key=lambda r: (role[r], r)):
        listed = files[repo]
        ms_py = [f for f in listed if f[2] and f[0].endswith(".py")]
        ms_nb = [f for f in listed if f[2] and f[0].endswith(".ipynb")]
        lines += ["[[repo]]", f'name = "{repo}"', f'commit = "{repos[repo]}"', f'role = "{role[repo]}"',
                  f"mindspore_py = {len(ms_py)}", f"mindspore_notebooks = {len(ms_nb)}", f'why = "{why[repo]}"']
        if role[repo] == "held-out":
            kept = sorted(p for p, sha, _m in ms_py + ms_nb if sha not in tuning_blobs)
            name = repo.replace("/", "+") + ".txt"
            with open(os.path.join(out_dir, name), "w", encoding="utf-8") as handle:
                handle.write("".join(p + "\n" for p in kept))
            lines += [f'files = "bench/field/round11/{name}"', f"kept = {len(kept)}"]
        lines.append("")
    with open(os.path.join(out_dir, "split.toml"), "w", encoding="utf-8") as handle:
        handle.write("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
