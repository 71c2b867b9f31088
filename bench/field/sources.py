"""Where the evaluated Python files come from: a git directory at a commit, or a checkout.

A source is named ``OWNER/NAME=PATH[@REV][:SUBDIR]``:
- PATH is a git directory (bare, as ``fetch`` leaves it under $MIRROR/…/repo, or a
  checkout's ``.git``) or a plain folder (a checkout or an unpacked archive);
- REV is the commit to read from a git directory (default HEAD); for a folder it is the
  commit the folder holds, recorded as given (default: ``git rev-parse HEAD`` in the
  folder when it is a git work tree, else "unknown");
- SUBDIR restricts the run to one folder of the repository (e.g. ``official``).

Files are read from git objects directly (``git cat-file --batch``), so no work tree is
needed; a blob missing from a partial mirror is counted as unreadable, not as a crash.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from typing import Iterator, List, Optional, Tuple


class SourceError(Exception):
    """A source spec that cannot be used (bad path, unknown commit)."""


@dataclass(frozen=True)
class Source:
    repo: str
    path: str
    commit: str
    subdir: str = ""
    is_git: bool = False

    @property
    def label(self) -> str:
        return f"{self.repo}@{self.commit[:12]}"

    def location(self, path: str, line: int) -> str:
        return f"{self.label}:{path}:{line}"


def git(git_dir: str, *args: str, input: Optional[bytes] = None) -> bytes:
    done = subprocess.run(["git", f"--git-dir={git_dir}", *args], input=input,
                          capture_output=True, check=False)
    if done.returncode != 0:
        raise SourceError(f"git {' '.join(args)} in {git_dir}: {done.stderr.decode(errors='replace').strip()}")
    return done.stdout


def is_git_dir(path: str) -> bool:
    return os.path.isfile(os.path.join(path, "HEAD")) and os.path.isdir(os.path.join(path, "objects"))


def git_dir_of(path: str) -> Optional[str]:
    """The git directory behind a path: the path itself, or its ``.git``."""
    if is_git_dir(path):
        return path
    dot_git = os.path.join(path, ".git")
    if os.path.isdir(dot_git) and is_git_dir(dot_git):
        return dot_git
    return None


def parse_spec(spec: str) -> Source:
    if "=" not in spec:
        raise SourceError(f"source {spec!r}: expected OWNER/NAME=PATH[@REV][:SUBDIR]")
    repo, rest = spec.split("=", 1)
    subdir = ""
    if ":" in rest and not os.path.exists(rest):
        rest, subdir = rest.split(":", 1)
        subdir = subdir.strip("/")
    path, _, rev = rest.partition("@")
    if not os.path.isdir(path):
        raise SourceError(f"source {repo}: {path} is not a folder")
    git_dir = git_dir_of(path)
    if is_git_dir(path):
        commit = git(path, "rev-parse", "--verify", f"{rev or 'HEAD'}^{{commit}}").decode().strip()
        return Source(repo.strip(), path, commit, subdir, is_git=True)
    if rev:
        commit = rev
    elif git_dir is not None:
        commit = git(git_dir, "rev-parse", "HEAD").decode().strip()
    else:
        commit = "unknown"
    return Source(repo.strip(), path, commit, subdir, is_git=False)


def python_files(source: Source) -> List[str]:
    """Repository-relative paths of the .py files the source holds, sorted."""
    if source.is_git:
        args = ["ls-tree", "-r", "-z", "--full-tree", source.commit]
        if source.subdir:
            args += ["--", source.subdir]
        out = git(source.path, *args).decode("utf-8", errors="surrogateescape")
        paths = []
        for entry in out.split("\0"):
            if not entry:
                continue
            meta, _, name = entry.partition("\t")
            mode, kind, _sha = meta.split()
            if kind == "blob" and mode != "120000" and name.endswith(".py"):
                paths.append(name)
        return sorted(paths)
    base = os.path.join(source.path, source.subdir) if source.subdir else source.path
    found = []
    for folder, dirs, files in os.walk(base):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in files:
            full = os.path.join(folder, name)
            if name.endswith(".py") and not os.path.islink(full):
                found.append(os.path.relpath(full, source.path).replace(os.sep, "/"))
    return sorted(found)


def read_files(source: Source, paths: List[str]) -> Iterator[Tuple[str, Optional[bytes], Optional[str]]]:
    """(path, data, problem) per path; data is None when the file cannot be read."""
    if not source.is_git:
        for path in paths:
            try:
                with open(os.path.join(source.path, path), "rb") as handle:
                    yield path, handle.read(), None
            except OSError as exc:
                yield path, None, f"cannot be read: {exc.strerror or exc}"
        return
    for path, data in blobs(source.path, [f"{source.commit}:{p}" for p in paths]):
        yield path.split(":", 1)[1], data, None if data is not None else "blob missing from the mirror"


def blobs(git_dir: str, names: List[str]) -> Iterator[Tuple[str, Optional[bytes]]]:
    """Contents of ``REV:PATH`` objects via one ``git cat-file --batch`` process."""
    if not names:
        return
    request = "".join(n + "\n" for n in names).encode("utf-8", errors="surrogateescape")
    out = git(git_dir, "cat-file", "--batch", input=request)
    at = 0
    for name in names:
        end = out.index(b"\n", at)
        header = out[at:end].decode(errors="replace").split()
        at = end + 1
        if len(header) == 3 and header[1] == "blob":
            size = int(header[2])
            yield name, out[at:at + size]
            at += size + 1
        else:  # "<name> missing" (absent in a partial mirror) or not a blob
            yield name, None


def file_at(git_dir: str, rev: str, path: str) -> Optional[bytes]:
    """One file's bytes at a revision, None when it does not exist there."""
    for _, data in blobs(git_dir, [f"{rev}:{path}"]):
        return data
    return None
