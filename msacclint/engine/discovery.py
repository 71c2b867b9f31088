"""Which files a run checks.

Folders are walked for ``.py`` files and ``.ipynb`` notebooks, without following symbolic links
inside them (no loops; a folder
named on the command line is walked even when it is a link); hidden folders,
virtualenvs, build output and caches are skipped. ``exclude`` patterns (gitignore
style, relative to the configuration's folder) apply to walked files and to files named
on the command line alike, so pre-commit, which names files, honours them too.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Iterator, List, Sequence

from msacclint.analysis.folders import entries, skipped

if TYPE_CHECKING:
    import pathspec

#: what a walk of a folder checks: Python files and Jupyter notebooks
#: (msacclint/engine/notebook.py); ``exclude = ["*.ipynb"]`` leaves notebooks out
SUFFIXES = (".py", ".ipynb")


class MissingPath(Exception):
    """A path named on the command line does not exist."""


def _walk(folder: str) -> Iterator[str]:
    for entry in entries(folder):
        try:
            if entry.is_dir(follow_symlinks=False):
                if not skipped(entry):
                    yield from _walk(entry.path)
            elif entry.name.endswith(SUFFIXES):
                yield entry.path
        except OSError:
            continue


def discover(paths: Sequence[str], exclude: Iterable[str] = (), root: str = ".") -> List[str]:
    """Files to check, in a stable order, each once. Raises MissingPath for a path
    that does not exist (checked before anything runs)."""
    for path in paths:
        if not os.path.lexists(path):
            raise MissingPath(path)
    spec = None
    if exclude:
        import pathspec  # only when there are patterns: its import costs more than a small run

        spec = pathspec.GitIgnoreSpec.from_lines(list(exclude))
    root_path = Path(root).resolve()
    found: List[str] = []
    seen = set()
    for path in paths:
        if os.path.isdir(path):  # a folder named by the user is walked even through a link
            candidates = list(_walk(path))
        else:
            candidates = [path]  # a file named explicitly is checked whatever its suffix
        for candidate in candidates:
            key = os.path.normpath(candidate)
            if key in seen:
                continue
            seen.add(key)
            if spec is not None and _excluded(spec, candidate, root_path):
                continue
            found.append(_display(candidate))
    return found


def _excluded(spec: pathspec.PathSpec[Any], path: str, root: Path) -> bool:
    absolute = Path(path).resolve()
    try:
        relative = absolute.relative_to(root).as_posix()
    except ValueError:
        relative = Path(os.path.normpath(path)).as_posix()
    return spec.match_file(relative)


def _display(path: str) -> str:
    normal = os.path.normpath(path)
    return normal[2:] if normal.startswith("./") else normal
