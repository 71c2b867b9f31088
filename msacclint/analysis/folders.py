"""Folders no walk enters, and a folder's entries in a stable order: one place for
discovery and the project listing."""

import os
from typing import List

#: folders a walk never enters (besides hidden ones and virtualenvs)
SKIPPED_FOLDERS = frozenset({
    "__pycache__", "node_modules", "site-packages", "build", "dist", "venv", "env",
    ".msacclint_cache",
})


def skipped(entry: "os.DirEntry[str]") -> bool:
    """Whether a walk passes over the folder ``entry``: hidden, listed above, an egg-info
    or a virtualenv."""
    name = entry.name
    if name.startswith(".") or name in SKIPPED_FOLDERS or name.endswith(".egg-info"):
        return True
    return os.path.exists(os.path.join(entry.path, "pyvenv.cfg"))


def entries(folder: str) -> List["os.DirEntry[str]"]:
    """The entries of ``folder`` by name; none when it cannot be read."""
    try:
        return sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return []
