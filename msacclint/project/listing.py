"""Which files a project holds: its root, and the listing of its Python and config files.

Kept apart from the index (and free of LibCST) because a run answered from the cache
needs it too: a cached answer that depended on which files exist is checked against
today's listing.
"""

from __future__ import annotations

import hashlib
import os
from collections import deque
from typing import Iterable, List, Optional, Tuple

from msacclint.analysis.folders import entries, skipped

ROOT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", ".git")
#: a repository larger than this is indexed in part: the files nearest its top
MAX_FILES = 50_000
#: a folder without pyproject.toml/setup.py/setup.cfg/.git (a model folder downloaded without
#: its repository) is indexed whole, nearest its top first, up to this many Python files and
#: this many folders (a loose folder, a downloads folder, is not walked end to end)
UNMARKED_MAX_FILES = 5_000
UNMARKED_MAX_FOLDERS = 20_000
#: Python files are ``.py`` modules and ``.ipynb`` notebooks (read as the Python of their
#: code cells: msacclint.analysis.notebook_text)
#: config files the project layer reads (msacclint.project.configs parses them)
CONFIG_SUFFIXES = (".yaml", ".yml", ".json")


def find_project_root(path: str, fallback: Optional[str] = None) -> str:
    """The folder holding pyproject.toml, setup.py, setup.cfg or .git, walking up from
    ``path``. When none is found (a model folder downloaded without its repository):
    ``fallback`` when ``path`` lies inside it (the folder a run was pointed at, the
    working folder of flake8 or the editor), so that ``train.py`` and the ``src/`` it
    imports from share one project; else the path's own folder."""
    start = os.path.abspath(path)
    folder = start if os.path.isdir(start) else os.path.dirname(start)
    current = folder
    while True:
        if any(os.path.exists(os.path.join(current, m)) for m in ROOT_MARKERS):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent
    if fallback is not None:
        top = os.path.abspath(fallback)
        # never a whole home folder or file system (flake8 started from ~ on a stray file)
        broad = top == os.path.dirname(top) or top == os.path.abspath(os.path.expanduser("~"))
        if not broad and (folder == top or folder.startswith(top.rstrip(os.sep) + os.sep)):
            return top
    return folder


def _walk(root: str, limit: int, max_folders: Optional[int] = None) -> Tuple[List[str], List[str], bool]:
    """The Python and config files under ``root``, breadth-first (a cut keeps the files
    nearest the top), at most ``limit`` Python files from at most ``max_folders`` folders;
    whether something was left out."""
    py: List[str] = []
    other: List[str] = []
    truncated = False
    queue = deque([root])
    folders = 0
    while queue:
        folder = queue.popleft()
        if max_folders is not None and folders >= max_folders:
            truncated = True
            break
        folders += 1
        for entry in entries(folder):
            try:
                if entry.is_dir(follow_symlinks=False):
                    if not skipped(entry):
                        queue.append(entry.path)
                elif entry.name.endswith((".py", ".ipynb")):
                    if len(py) >= limit:
                        truncated = True
                        continue
                    py.append(entry.path)
                elif entry.name.endswith(CONFIG_SUFFIXES):
                    other.append(entry.path)
            except OSError:
                continue
    return py, other, truncated


def marked(root: str) -> bool:
    """Whether ``root`` holds a repository marker (pyproject.toml, setup.py, setup.cfg, .git)."""
    return any(os.path.exists(os.path.join(root, m)) for m in ROOT_MARKERS)


def listing(root: str) -> Tuple[List[str], List[str], Optional[str]]:
    """The Python files and the config files of the project at ``root``, and, when the
    listing was cut short, what was left out (a note the run shows)."""
    if marked(root):
        py, other, truncated = _walk(root, MAX_FILES)
        cut = (f"the repository holds more than {MAX_FILES:,} Python files: the project layer indexes the "
               f"{MAX_FILES:,} nearest its top only, and facts in the others are unknown to every rule") \
            if truncated else None
        return py, other, cut
    # no repository marker: a model folder without its repository, or a loose folder
    py, other, truncated = _walk(root, UNMARKED_MAX_FILES, UNMARKED_MAX_FOLDERS)
    cut = (f"this folder has no repository marker ({', '.join(ROOT_MARKERS)}) and holds more than "
           f"{UNMARKED_MAX_FILES:,} Python files or {UNMARKED_MAX_FOLDERS:,} folders: the project layer indexes "
           f"the {len(py):,} nearest its top only, and facts in the others are unknown to every rule; run "
           "msacclint from the project's own folder, or mark its top with a pyproject.toml") if truncated else None
    return py, other, cut


#: a dependency on which files a project holds (not on their text): ``LISTING + root``
LISTING = "listing:"


def paths_digest(paths: Iterable[str]) -> str:
    return hashlib.sha256("\0".join(sorted(os.path.normpath(os.path.abspath(p)) for p in paths))
                          .encode("utf-8", "surrogateescape")).hexdigest()


def listing_digest(root: str) -> str:
    """The digest ``ProjectIndex.referrers`` records for an answer that a new or removed
    file could change (the cache compares it to today's listing)."""
    py, other, _ = listing(os.path.abspath(root))
    return paths_digest(list(py) + list(other))


