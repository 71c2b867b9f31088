"""Results of unchanged files, kept between runs in ``.msacclint_cache``.

One small JSON file per (settings, path, content) key, written atomically (temporary
file + rename), so two runs at once cannot corrupt it; a file that cannot be read or
does not look like ours is ignored and rewritten. The folder holds a ``.gitignore``
with ``*`` so it never shows up in ``git status``, as ruff's cache does.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from pathlib import Path
from typing import Any, Dict, FrozenSet, List, Optional, Tuple

from msacclint import __version__
from msacclint.data import data_dir
from msacclint.diagnostics import Diagnostic, FileResult
from msacclint.engine.atomic import replace_file
from msacclint.project.listing import LISTING, listing_digest
from msacclint.settings import Settings

FOLDER = ".msacclint_cache"
FORMAT = 3


@functools.lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """The msacclint version plus the size and mtime of every module and data file (the
    tables and the API surface), so that an edited rule, table or surface (a development
    install, a patched site-packages) never reuses results computed by the old code. About a
    hundred stat calls, once a run."""
    digest = hashlib.sha256(__version__.encode())
    package = Path(__file__).resolve().parents[1]
    # the API surface (MSA004's names and signatures) is data a finding depends on, too
    for folder, suffix in ((package, "*.py"), (data_dir(), "*.toml"), (data_dir() / "api_surface", "*.json")):
        for path in sorted(folder.rglob(suffix)):
            try:
                stat = path.stat()
            except OSError:
                continue
            digest.update(f"{path.relative_to(folder)}:{stat.st_size}:{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def settings_key(settings: Settings) -> str:
    """Everything besides a file's path and content that decides its diagnostics: the
    settings (selection, per-file ignores, version, ...), the code, and the content of a
    probe snapshot the messages quote."""
    digest = hashlib.sha256(settings.cache_key().encode())
    digest.update(code_fingerprint().encode())
    if settings.defaults:
        try:
            digest.update(Path(settings.defaults).read_bytes())
        except OSError:
            digest.update(b"unreadable")
    return digest.hexdigest()


class Cache:
    def __init__(self, root: str, settings_key: str) -> None:
        self.folder = Path(root) / FOLDER / f"v{__version__}-{settings_key[:12]}-{code_fingerprint()[:8]}"
        self.ready = False
        #: digests of the files (and listings) cached answers depend on, read once a run:
        #: the files of one project are the dependencies of most of its answers
        self._digests: Dict[str, str] = {}

    @classmethod
    def for_settings(cls, settings: Settings) -> Cache:
        return cls(settings.root, settings_key(settings))

    def _prepare(self) -> bool:
        if self.ready:
            return True
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            ignore = self.folder.parent / ".gitignore"
            if not ignore.exists():
                _atomic_write(ignore, "# Created by msacclint.\n*\n")
            self.ready = True
        except OSError:
            return False
        return True

    @staticmethod
    def key(path: str, data: bytes) -> str:
        digest = hashlib.sha256()
        digest.update(os.path.normpath(path).encode("utf-8", "surrogateescape"))
        digest.update(b"\0")
        digest.update(data)
        return digest.hexdigest()

    def get(self, key: str) -> Optional[List[Diagnostic]]:
        found = self.get_result(key)
        return None if found is None else found.diagnostics

    def get_result(self, key: str, need_uses: bool = False) -> Optional[FileResult]:
        """The stored result; None when there is none, or when ``need_uses`` and the stored
        one was computed without the file's names (a plain ``check`` run)."""
        try:
            with open(self.folder / key[:2] / key, encoding="utf-8") as handle:
                stored = json.load(handle)
            if stored.get("format") != FORMAT or stored.get("key") != key:
                return None
            if not self._dependencies_unchanged(stored.get("deps") or {}):
                return None  # a file the project layer read for this one has changed
            uses = stored.get("uses")
            if need_uses and not isinstance(uses, list):
                return None
            weights = stored.get("torch_weights")
            return FileResult([Diagnostic.from_cache(d) for d in stored["diagnostics"]],
                              frozenset(uses) if isinstance(uses, list) else None,
                              (int(weights[0]), str(weights[1])) if weights else None)
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None

    def put(self, key: str, diagnostics: List[Diagnostic], uses: Optional[FrozenSet[str]] = None,
            deps: Optional[Dict[str, str]] = None, torch_weights: Optional[Tuple[int, str]] = None) -> None:
        """``uses``: the names the file uses (the report); ``deps``: path -> content hash of
        the other files the result depends on (the project layer); ``torch_weights``: where
        the file loads PyTorch weights (``FileResult.torch_weights``)."""
        if not self._prepare():
            return
        payload: Dict[str, Any] = {"format": FORMAT, "key": key, "diagnostics": [d.to_cache() for d in diagnostics],
                                   "deps": deps or {}}
        if uses is not None:
            payload["uses"] = sorted(uses)
        if torch_weights is not None:
            payload["torch_weights"] = list(torch_weights)
        try:
            target = self.folder / key[:2]
            target.mkdir(exist_ok=True)
            _atomic_write(target / key, json.dumps(payload))
        except OSError:
            pass  # a cache that cannot be written only costs time

    def _dependencies_unchanged(self, deps: Dict[str, str]) -> bool:
        for path, digest in deps.items():
            if self._digest(path) != digest:
                return False
        return True

    def _digest(self, path: str) -> str:
        """Today's digest of a dependency: a file's content, or a project's listing."""
        known = self._digests.get(path)
        if known is None:
            if path.startswith(LISTING):  # which files the project holds
                known = listing_digest(path[len(LISTING):])
            else:
                try:
                    with open(path, "rb") as handle:
                        known = hashlib.sha256(handle.read()).hexdigest()
                except OSError:
                    known = ""
            self._digests[path] = known
        return known

    # -- objects of the project layer (file summaries), by content hash -------------
    def load_object(self, kind: str, key: str) -> Any:
        """A JSON object this cache stored under ``kind`` (a file summary); None when absent
        or unreadable. JSON, not pickle: a cache folder may come with a repository."""
        try:
            with open(self.folder / kind / key[:2] / key, encoding="utf-8") as handle:
                stored = json.load(handle)
            return stored["value"] if stored.get("key") == key else None
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None

    def store_object(self, kind: str, key: str, value: Any) -> None:
        if not self._prepare():
            return
        try:
            target = self.folder / kind / key[:2]
            target.mkdir(parents=True, exist_ok=True)
            _atomic_write(target / key, json.dumps({"key": key, "value": value}))
        except (OSError, TypeError, ValueError):
            pass


def _atomic_write(path: Path, text: str) -> None:
    replace_file(str(path), text.encode("utf-8"))
