"""Round 12's held-out split: the 40 repositories appended to the shared field list on 2026-12-01.

    MIRROR=<folder of fetched mirrors> python bench/field/split_round12.py [bench/field/field_repos.tsv]

Run once, before any rule, grade or group changed in round 12; its output is committed with it:
``bench/field/round12/split.toml`` (each repository's role and why) and, for each held-out
repository, ``bench/field/round12/<owner>+<name>.txt`` (the files a held-out run keeps).

How the roles are decided, without running msacclint on anything:
- every repository listed before the 2026-12-01 block was run in round 11 (held-out or tuning):
  all of them are tuning now;
- the new repositories are joined into groups when two of them share 10 or more byte-identical
  MindSpore files (so one copy is never on each side); a group is held out when the first 32 bits
  of sha256("<seed>:<sorted members>") fall below 0.75 (three in four: the earlier rounds left
  plenty of tuning data, and a held-out figure needs volume);
- a held-out repository's file list is its ``.py`` files and notebooks that mention ``mindspore``,
  minus every file byte-identical to a file of a tuning repository: the earlier rows of the list,
  the new tuning ones, and every other mirror present under $MIRROR (the older permitted
  repositories of docs/evaluation and protocol.toml), at its HEAD and at the commits recorded for it.
Fix-history cases mined from a repository take its role (bench/field/history_cases_12.toml).
"""

from __future__ import annotations

import collections
import hashlib
import os
import re
import subprocess
import sys
from typing import Dict, List, Set

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from split_round11 import GROUP_SHARED_FILES, MINDSPORE, File, git_dir  # noqa: E402

SEED = 20261201
HELD_OUT_SHARE = 0.75
NEW_BLOCK = "# Added 2026-12-01"
COMMIT = re.compile(r'commit = "([0-9a-f]{40})"')


def read_list(tsv: str):
    earlier: Dict[str, str] = {}
    new: Dict[str, str] = {}
    into = earlier
    with open(tsv, encoding="utf-8") as handle:
        for line in handle:
            if line.startswith(NEW_BLOCK):
                into = new
            if line.startswith("#") or line.startswith("repo\t") or not line.strip():
                continue
            row = line.rstrip("\n").split("\t")
            into[row[0]] = row[1]
    return earlier, new


def files_at(gd: str, commit: str) -> List[File]:
    """The .py files and notebooks at a commit: path, blob sha, whether it mentions mindspore.
    Read with ``ls-tree -z``: round 11's reader lost paths git quotes (non-ASCII names)."""
    listing = subprocess.run(["git", f"--git-dir={gd}", "ls-tree", "-r", "-z", commit],
                             capture_output=True, check=True).stdout.decode("utf-8", errors="surrogateescape")
    wanted = []
    for entry in listing.split("\0"):
        if not entry:
            continue
        meta, path = entry.split("\t", 1)
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


def blob_shas(gd: str, rev: str) -> Set[str]:
    done = subprocess.run(["git", f"--git-dir={gd}", "ls-tree", "-r", "-z", rev], capture_output=True)
    if done.returncode != 0:
        return set()
    entries = [e for e in done.stdout.decode("utf-8", errors="surrogateescape").split("\0") if e]
    return {e.split("\t", 1)[0].split()[2] for e in entries if e.split("\t", 1)[1].endswith((".py", ".ipynb"))}


def recorded_commits(here: str) -> Dict[str, Set[str]]:
    """Commits the committed protocol files name for a repository (name = ... then commit = ...)."""
    named: Dict[str, Set[str]] = collections.defaultdict(set)
    for name in ("protocol.toml", os.path.join("round11", "split.toml")):
        current = None
        with open(os.path.join(here, name), encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("name = "):
                    current = line.split('"')[1]
                found = COMMIT.search(line)
                if found and current:
                    named[current].add(found.group(1))
                if line.startswith("field_commit = ") and current:
                    named[current].add(line.split('"')[1])
    return named


def main(argv: List[str]) -> int:
    # the field list, committed beside this script (bench/field/field_repos.tsv) unless named
    tsv = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "field_repos.tsv")
    mirror = os.environ["MIRROR"]
    here = os.path.dirname(os.path.abspath(__file__))
    out_dir = os.path.join(here, "round12")
    os.makedirs(out_dir, exist_ok=True)
    earlier, new = read_list(tsv)
    files: Dict[str, List[File]] = {repo: files_at(git_dir(mirror, repo), commit) for repo, commit in new.items()}

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
    parent = {repo: repo for repo in new}

    def root(repo: str) -> str:
        while parent[repo] != repo:
            repo = parent[repo]
        return repo

    for (a, b), count in shared.items():
        if count >= GROUP_SHARED_FILES:
            parent[root(a)] = root(b)
    groups: Dict[str, List[str]] = collections.defaultdict(list)
    for repo in new:
        groups[root(repo)].append(repo)
    role: Dict[str, str] = {}
    why: Dict[str, str] = {}
    for members in groups.values():
        key = ",".join(sorted(members))
        draw = int(hashlib.sha256(f"{SEED}:{key}".encode()).hexdigest()[:8], 16) / 2**32
        for member in members:
            role[member] = "held-out" if draw < HELD_OUT_SHARE else "tuning"
            why[member] = f"group [{key}] drew {draw:.4f}"

    # every blob a tuning repository holds: the new tuning ones, the earlier rows, every other mirror
    tuning_blobs: Set[str] = {sha for repo, listed in files.items() if role[repo] == "tuning" for _p, sha, _m in listed}
    recorded = recorded_commits(here)
    others = 0
    for entry in sorted(os.listdir(mirror)):
        name = entry.replace("+", "/", 1)
        if name in new or not os.path.isdir(os.path.join(mirror, entry, "repo")):
            continue
        gd = git_dir(mirror, name)
        revs = {"HEAD", *recorded.get(name, ()), *([earlier[name]] if name in earlier else [])}
        for rev in sorted(revs):
            tuning_blobs |= blob_shas(gd, rev)
        others += 1
    missing_earlier = sorted(set(earlier) - {e.replace("+", "/", 1) for e in os.listdir(mirror)})

    lines = [
        "# Round 12 split of the 40 repositories appended to the shared field list on 2026-12-01",
        f"# (bench/field/split_round12.py), fixed before any rule, grade or group changed in round 12. seed = {SEED}.",
        f"# Files byte-identical to a file of {others} tuning mirrors (every earlier row of the list, the older",
        "# permitted repositories) or of a new tuning repository are left out of the held-out lists.",
    ]
    if missing_earlier:
        lines.append(f"# Earlier rows without a mirror here (their files not deduplicated): {', '.join(missing_earlier)}")
    lines.append("")
    for repo in sorted(new, key=lambda r: (role[r], r)):
        listed = files[repo]
        ms_py = [f for f in listed if f[2] and f[0].endswith(".py")]
        ms_nb = [f for f in listed if f[2] and f[0].endswith(".ipynb")]
        lines += ["[[repo]]", f'name = "{repo}"', f'commit = "{new[repo]}"', f'role = "{role[repo]}"',
                  f"mindspore_py = {len(ms_py)}", f"mindspore_notebooks = {len(ms_nb)}", f'why = "{why[repo]}"']
        if role[repo] == "held-out":
            kept = sorted(p for p, sha, _m in ms_py + ms_nb if sha not in tuning_blobs)
            name = repo.replace("/", "+") + ".txt"
            with open(os.path.join(out_dir, name), "w", encoding="utf-8") as handle:
                handle.write("".join(p + "\n" for p in kept))
            lines += [f'files = "bench/field/round12/{name}"', f"kept = {len(kept)}"]
        lines.append("")
    with open(os.path.join(out_dir, "split.toml"), "w", encoding="utf-8") as handle:
        handle.write("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
