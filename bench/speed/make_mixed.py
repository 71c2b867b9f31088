"""Build the mixed corpus: model folders of seven MindSpore repositories in one folder.

    MIRROR=<folder of fetched mirrors> python bench/speed/make_mixed.py OUT
        [--repos bench/field/field_repos.tsv] [--mirror DIR] [--count 7] [--files 299] [--seed 0]

Issue 30's corpus: the Python files of model folders from several unrelated repositories,
checked as one folder, so that the project layer links across code that never imports
each other and the rules meet the words of many code bases at once.

- **Repositories.** The rows of the field list (``field_repos.tsv``: owner/name, pinned commit,
  counts, notes) whose mirror ``$MIRROR/<owner>+<name>/repo`` (a bare git directory, or a
  folder with ``.git``) holds the pinned commit and that have at least ``--min-unique``
  MindSpore files of their own (the "unique ms files" of the notes). mindcv and the models
  repository are left out: they are the benchmark corpora already. ``--count`` of them are
  taken in an order drawn with ``random.Random(seed)`` from the eligible rows (in file order):
  a repository whose model folders hold fewer files than its share is passed over.
- **Model folders.** A model file imports mindspore and defines a class deriving from
  ``Cell`` (``nn.Cell``, ``Cell``, ``ms.nn.Cell``). Its folder is a model folder; when the
  folder is a package of the model's code (``src``, ``models``, ``nets`` and the like), the
  folder above it, where ``train.py`` and ``eval.py`` sit, is the model folder instead. A model
  folder brings every ``.py`` file below it (training scripts, utils), except tests,
  vendored ``site-packages`` and files byte-identical to one already taken.
- **Drawing.** Each repository gets an equal share of ``--files`` (what is left of a share
  passes to the next repository); its model folders are shuffled with the same
  generator and taken whole while they fit in the share; a folder larger than what is
  left of the share is cut to fit, model files first, in path order.
- **Output.** ``OUT/<owner>+<name>/<path in the repository>`` and ``OUT/MANIFEST.tsv`` (repository,
  commit, path, blob). OUT is emptied first. Deterministic: the same list, mirrors and
  seed give the same files.

Files are read from git objects (``git ls-tree``, ``git cat-file --batch``) at the pinned
commit; no work tree is needed.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import posixpath
import random
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

HERE = Path(__file__).resolve().parent
DEFAULT_LIST = HERE.parent / "field" / "field_repos.tsv"  # the field list, committed
SKIPPED = ("mindspore-lab/mindcv", "mindspore-ai/models", "mindspore-lab/models")
PACKAGE_FOLDERS = {"src", "model", "models", "net", "nets", "network", "networks", "backbone",
                   "backbones", "modeling", "modules", "module", "layers", "arch", "archs"}
TEST_PARTS = {"test", "tests", "testing", "ut", "st", "site-packages", "third_party", "__pycache__"}
IMPORTS_MINDSPORE = re.compile(rb"^\s*(?:import|from)\s+mindspore\b", re.M)
DEFINES_CELL = re.compile(rb"^\s*class\s+\w+\s*\([^)]*\bCell\s*[,)]", re.M)
UNIQUE = re.compile(r"unique ms files (\d+)")


@dataclass(frozen=True)
class Row:
    repo: str
    commit: str
    unique: int


@dataclass
class Folder:
    root: str
    files: List[str] = field(default_factory=list)
    models: List[str] = field(default_factory=list)


def read_list(path: Path) -> List[Row]:
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#") or line.startswith("repo\t"):
            continue
        parts = line.split("\t")
        found = UNIQUE.search(parts[-1]) if len(parts) > 5 else None
        rows.append(Row(parts[0], parts[1], int(found.group(1)) if found else 0))
    return rows


def git_dir(mirror: str, repo: str) -> Optional[str]:
    base = os.path.join(mirror, repo.replace("/", "+"), "repo")
    for candidate in (base, os.path.join(base, ".git")):
        if os.path.isfile(os.path.join(candidate, "HEAD")) and os.path.isdir(os.path.join(candidate, "objects")):
            return candidate
    return None


def git(gd: str, *args: str, input: Optional[bytes] = None) -> bytes:
    done = subprocess.run(["git", f"--git-dir={gd}", *args], input=input, capture_output=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {done.stderr.decode(errors='replace').strip()}")
    return done.stdout


def has_commit(gd: str, commit: str) -> bool:
    try:
        git(gd, "cat-file", "-e", f"{commit}^{{commit}}")
    except RuntimeError:
        return False
    return True


def python_blobs(gd: str, commit: str) -> Dict[str, str]:
    """Path -> blob of every ``.py`` file at the commit (regular files only)."""
    out = {}
    for entry in git(gd, "ls-tree", "-r", "-z", commit).split(b"\0"):
        if not entry:
            continue
        meta, _, path = entry.partition(b"\t")
        mode, kind, blob = meta.split()
        name = path.decode("utf-8", errors="replace")
        if kind == b"blob" and mode in (b"100644", b"100755") and name.endswith(".py"):
            out[name] = blob.decode()
    return out


def read_blobs(gd: str, blobs: Iterable[str]) -> Dict[str, bytes]:
    wanted = sorted(set(blobs))
    raw = git(gd, "cat-file", "--batch", input="".join(b + "\n" for b in wanted).encode())
    out, at = {}, 0
    for blob in wanted:
        end = raw.index(b"\n", at)
        header = raw[at:end].split()
        at = end + 1
        if len(header) < 3 or header[1] != b"blob":  # missing from a partial mirror
            continue
        size = int(header[2])
        out[blob] = raw[at:at + size]
        at += size + 1
    return out


def is_model(data: bytes) -> bool:
    return bool(IMPORTS_MINDSPORE.search(data)) and bool(DEFINES_CELL.search(data))


def skipped_path(path: str) -> bool:
    parts = path.split("/")
    return any(p.lower() in TEST_PARTS for p in parts[:-1]) or parts[-1].startswith("test_")


def model_folders(paths: Dict[str, str], data: Dict[str, bytes]) -> List[Folder]:
    """The model folders of one repository, each with its ``.py`` files below it."""
    roots = set()
    for path in paths:
        if skipped_path(path) or not is_model(data.get(paths[path], b"")):
            continue
        folder = posixpath.dirname(path)
        if posixpath.basename(folder).lower() in PACKAGE_FOLDERS:
            folder = posixpath.dirname(folder)
        roots.add(folder)
    # a folder inside another model folder belongs to the outer one
    outer = sorted(r for r in roots if not any(r != o and (o == "" or r.startswith(o + "/")) for o in roots))
    folders = {r: Folder(r) for r in outer}
    for path in sorted(paths):
        if skipped_path(path):
            continue
        for root in outer:
            if root == "" or path.startswith(root + "/"):
                folders[root].files.append(path)
                if is_model(data.get(paths[path], b"")):
                    folders[root].models.append(path)
                break
    return [f for f in folders.values() if f.models]


def draw(rows: Sequence[Row], mirror: str, count: int, files: int, seed: int, min_unique: int,
         ) -> List[Tuple[Row, str, List[Tuple[str, str, bytes]]]]:
    rng = random.Random(seed)
    eligible = []
    for row in rows:
        if row.repo in SKIPPED or row.unique < min_unique:
            continue
        gd = git_dir(mirror, row.repo)
        if gd is not None and has_commit(gd, row.commit):
            eligible.append((row, gd))
    if len(eligible) < count:
        raise SystemExit(f"only {len(eligible)} repositories are eligible (mirrors under {mirror}); {count} wanted")
    rng.shuffle(eligible)
    seen: set = set()
    picked = []
    left = files
    for row, gd in eligible:
        if len(picked) == count:
            break
        share = left // (count - len(picked))
        paths = python_blobs(gd, row.commit)
        data = read_blobs(gd, paths.values())
        folders = model_folders(paths, data)
        if len({hashlib.sha1(data[paths[p]]).hexdigest() for f in folders for p in f.files
                if paths[p] in data} - seen) < share:
            continue  # too few model files for a share: the next repository in the draw
        rng.shuffle(folders)
        taken: List[Tuple[str, str, bytes]] = []
        for folder in folders:
            room = share - len(taken)
            if room <= 0:
                break
            fresh = []
            for path in folder.models + [p for p in folder.files if p not in folder.models]:
                content = data.get(paths[path])
                digest = hashlib.sha1(content).hexdigest() if content is not None else None
                if content is None or digest in seen or any(digest == d for *_, d in fresh):
                    continue
                fresh.append((path, paths[path], content, digest))
            for path, blob, content, digest in fresh[:room]:
                seen.add(digest)
                taken.append((path, blob, content))
        left -= len(taken)
        picked.append((row, gd, taken))
    if len(picked) < count:
        raise SystemExit(f"only {len(picked)} repositories have enough model files; {count} wanted")
    return picked


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--repos", type=Path, default=DEFAULT_LIST, help="the field list (TSV)")
    parser.add_argument("--mirror", default=os.environ.get("MIRROR"), help="default: $MIRROR")
    parser.add_argument("--count", type=int, default=7, help="repositories")
    parser.add_argument("--files", type=int, default=299)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--min-unique", type=int, default=40,
                        help="least number of MindSpore files a repository has of its own")
    args = parser.parse_args(argv)
    if not args.mirror:
        parser.error("give --mirror or set MIRROR")
    picked = draw(read_list(args.repos.resolve()), args.mirror, args.count, args.files, args.seed, args.min_unique)
    if args.out.exists():
        shutil.rmtree(args.out)
    args.out.mkdir(parents=True)
    manifest = ["repo\tcommit\tpath\tblob"]
    total = 0
    for row, _, taken in picked:
        folder = args.out / row.repo.replace("/", "+")
        for path, blob, content in taken:
            target = folder / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(content)
            manifest.append(f"{row.repo}\t{row.commit}\t{path}\t{blob}")
        total += len(taken)
        print(f"{row.repo}@{row.commit[:12]}: {len(taken)} files")
    (args.out / "MANIFEST.tsv").write_text("\n".join(manifest) + "\n", encoding="utf-8")
    print(f"wrote {total} files from {len(picked)} repositories to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
