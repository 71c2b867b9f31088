"""Probe snapshots (``msacclint probe --write``): the defaults observed on a MindSpore
release and backend, which messages quote ("in MindSpore 2.10.0 on CPU, MaxPool2d's
stride defaults to 1").

A snapshot is read once per path and modification time. The ones made on every release
this msacclint was verified on ship in rules/snapshots/; ``check`` picks the one for the
configured or installed version when no ``--defaults`` is given.
"""

from __future__ import annotations

import functools
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, Optional, Tuple

from msacclint.analysis.versions import parse
from msacclint.data import data_dir


class SnapshotError(Exception):
    """The file is not a probe snapshot."""


@dataclass(frozen=True)
class Snapshot:
    mindspore: str
    backend: str
    date: str = ""
    #: api -> parameter -> observed default (plain JSON value, "<required>" without one)
    defaults: Dict[str, Dict[str, Any]] = field(default_factory=dict, hash=False, compare=False)

    def default(self, api: str, parameter: str) -> Any:
        """The observed default, or KeyError when the snapshot does not have it."""
        return self.defaults[api][parameter]

    def where(self) -> str:
        return f"in MindSpore {self.mindspore} on {self.backend}"

    def describe(self, api: str, parameter: str) -> Optional[str]:
        """"in MindSpore 2.10.0 on CPU, MaxPool2d's stride defaults to 1", or None."""
        try:
            value = self.default(api, parameter)
        except KeyError:
            return None
        short = api.rsplit(".", 1)[-1]
        if value == "<required>":
            return f"{self.where()}, {short}'s {parameter} has no default"
        return f"{self.where()}, {short}'s {parameter} defaults to {_show(value)}"

    def first_parameter(self, api: str) -> Optional[str]:
        params = list(self.defaults.get(api, ()))
        return params[0] if params else None


def _show(value: Any) -> str:
    if isinstance(value, str) and "." in value and value[:1].isupper():
        return value  # an enum, e.g. Shuffle.GLOBAL
    return repr(value)


def load(path: str) -> Snapshot:
    try:
        stamp = os.stat(path).st_mtime_ns
    except OSError as exc:
        raise SnapshotError(f"{path}: cannot be read: {exc.strerror}") from None
    return _load(str(path), stamp)


@functools.lru_cache(maxsize=16)
def _load(path: str, stamp: int) -> Snapshot:
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError) as exc:
        raise SnapshotError(f"{path}: not a probe snapshot: {exc}") from None
    if not isinstance(data, dict) or data.get("kind") != "msacclint-probe-snapshot" \
            or not isinstance(data.get("defaults"), dict):
        raise SnapshotError(f"{path}: not a probe snapshot (write one with `msacclint probe --write PATH`)")
    return Snapshot(mindspore=str(data.get("mindspore", "?")), backend=str(data.get("backend", "?")),
                    date=str(data.get("date", "")), defaults=data["defaults"])


def for_settings(settings: Any) -> Optional[Snapshot]:
    """The snapshot a run quotes, or None; an unreadable one quotes nothing (config
    already refused a missing file)."""
    path = getattr(settings, "defaults", None)
    if not path:
        return None
    try:
        return load(path)
    except SnapshotError:
        return None


def snapshots_dir() -> Path:
    return data_dir() / "snapshots"


@functools.cache
def shipped(version: Optional[str], backend: str = "CPU") -> Optional[Path]:
    """The shipped snapshot of exactly this release (2.10 == 2.10.0), or None."""
    if not version:
        return None
    wanted = _release(version)
    folder = snapshots_dir()
    if not folder.is_dir():
        return None
    for candidate in sorted(folder.glob(f"mindspore-*-{backend.lower()}.json")):
        name = candidate.name[len("mindspore-"):-len(f"-{backend.lower()}.json")]
        if _release(name) == wanted:
            return candidate
    return None


def _release(version: str) -> Tuple[Any, ...]:
    """2.7.1.post1 is its own release (it ships different wheels); 2.10 == 2.10.0."""
    numbers = parse(version)
    numbers = numbers + (0,) * (3 - len(numbers))
    return numbers + (("post" + version.split("post", 1)[1],) if "post" in version else ())


def signatures_for(settings: Any) -> Dict[str, Dict[str, Any]]:
    """The MindSpore parameters (in order, with their defaults) of the APIs a snapshot
    observed: the run's snapshot, else the newest shipped one (what the rules' signatures
    assume when the version is unknown). Empty when none can be read."""
    found = for_settings(settings)
    if found is None:
        found = _newest_shipped()
    return found.defaults if found is not None else {}


@functools.cache
def _newest_shipped() -> Optional[Snapshot]:
    folder = snapshots_dir()
    if not folder.is_dir():
        return None
    candidates = [(_release(p.name[len("mindspore-"):-len("-cpu.json")]), p)
                  for p in folder.glob("mindspore-*-cpu.json")]
    if not candidates:
        return None
    try:
        return load(str(max(candidates)[1]))
    except SnapshotError:
        return None
