"""The data files in rules/ (shipped inside the wheel as msacclint/data)."""

from __future__ import annotations

import functools
import sys
from pathlib import Path
from typing import Any, Dict

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python < 3.11
    import tomli as tomllib


def data_dir() -> Path:
    """msacclint/data in an installed wheel; the repository's rules/ in a checkout."""
    here = Path(__file__).resolve().parent
    installed = here / "data"
    if installed.is_dir():
        return installed
    return here.parent / "rules"


@functools.cache
def load_toml(name: str) -> Dict[str, Any]:
    with open(data_dir() / name, "rb") as handle:
        return tomllib.load(handle)


def api_defaults() -> Dict[str, Any]:
    return load_toml("api_defaults.toml")


def checklist() -> Dict[str, Any]:
    return load_toml("checklist.toml")


@functools.lru_cache(maxsize=1)
def checklist_ids() -> frozenset:
    return frozenset(item["id"] for item in checklist()["item"])


def entry(entry_id: str) -> Dict[str, Any]:
    for item in api_defaults()["entry"]:
        if item["id"] == entry_id:
            return item
    raise KeyError(entry_id)
