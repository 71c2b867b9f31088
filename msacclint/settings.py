"""The resolved settings of one run: which codes are on, for which files.

Settings are plain, picklable values so that worker processes receive them as they are.
Reading pyproject.toml and the command line into Settings is msacclint.config's job.
This module sits at the bottom of the layers (it imports nothing of msacclint): the
engine, the rules and the analysis layer's FileContext all read it.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import os
from dataclasses import asdict, dataclass
from typing import FrozenSet, Optional, Set, Tuple


@dataclass(frozen=True)
class Settings:
    #: the codes that run
    enabled: FrozenSet[str] = frozenset()
    #: (glob, codes) pairs: codes switched off for files matching the glob
    per_file_ignores: Tuple[Tuple[str, Tuple[str, ...]], ...] = ()
    #: glob patterns (gitignore style) of paths never checked
    exclude: Tuple[str, ...] = ()
    #: the MindSpore version the code targets ("2.10.0"); None = unknown
    mindspore_version: Optional[str] = None
    #: where that version comes from, for the summary: "--mindspore-version", "pyproject.toml",
    #: "requirements.txt:3: mindspore==2.10.0" (the project's declaration), "installed"
    mindspore_source: str = ""
    #: the release an upgrade is checked against (the upgrade group): None = the newest the
    #: API surface knows
    upgrade_to: Optional[str] = None
    #: path of a probe snapshot (msacclint probe --write)
    defaults: Optional[str] = None
    #: the folder relative paths and globs are taken from
    root: str = "."
    #: the standalone CLI honours noqa comments; under flake8, flake8 does it itself
    honour_noqa: bool = True
    #: also collect what each file uses (msacclint.analysis.uses) in the same traversal:
    #: the checklist report asks for it. Not part of the cache key: a cached result
    #: without the names is simply not used when they are wanted.
    collect_uses: bool = False

    def codes_for(self, path: str) -> FrozenSet[str]:
        """Enabled codes minus the per-file ignores that match ``path``."""
        if not self.per_file_ignores:
            return self.enabled
        # globs are relative to the configuration's folder, whatever the current folder
        names = {path.replace("\\", "/"), _relative_to(path, self.root)}
        off: Set[str] = set()
        for pattern, codes in self.per_file_ignores:
            if any(_glob_match(name, pattern) for name in names):
                off.update(codes)
        if not off:
            return self.enabled
        return frozenset(c for c in self.enabled if not any(c.startswith(o) for o in off))

    def cache_key(self) -> str:
        data = asdict(self)
        del data["collect_uses"]
        del data["mindspore_source"]
        data["enabled"] = sorted(self.enabled)
        if self.defaults:  # a re-written probe snapshot changes the messages
            try:
                stat = os.stat(self.defaults)
                data["defaults_stamp"] = [stat.st_mtime_ns, stat.st_size]
            except OSError:
                pass
        return hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()


def _relative_to(path: str, root: str) -> str:
    relative = os.path.relpath(os.path.abspath(path), os.path.abspath(root))
    return relative.replace(os.sep, "/")


def _glob_match(path: str, pattern: str) -> bool:
    pattern = pattern.replace("\\", "/")
    if fnmatch.fnmatch(path, pattern):
        return True
    # a pattern without a slash matches the file name anywhere, as in flake8 and ruff
    if "/" not in pattern:
        return fnmatch.fnmatch(path.rsplit("/", 1)[-1], pattern)
    return fnmatch.fnmatch(path, "*/" + pattern.lstrip("/"))
