"""MindSpore version strings, compared without packaging (kept out of the core install)."""

from __future__ import annotations

import re
from typing import Optional, Tuple


def parse(version: str) -> Tuple[int, ...]:
    """``"2.7.1.post1"`` -> (2, 7, 1); ``"2.10"`` -> (2, 10)."""
    parts = []
    for piece in version.strip().split("."):
        match = re.match(r"\d+", piece)
        if not match:
            break
        parts.append(int(match.group()))
    return tuple(parts)


def in_range(version: Optional[str], since: Optional[str], until: Optional[str]) -> bool:
    """Whether ``version`` lies in [since, until). An unknown version is in every range:
    without knowing the target, the rule keeps its word."""
    if not version:
        return True
    v = parse(version)
    if since and _pad(v) < _pad(parse(since)):
        return False
    if until and _pad(v) >= _pad(parse(until)):
        return False
    return True


def _pad(v: Tuple[int, ...]) -> Tuple[int, ...]:
    return v + (0,) * (4 - len(v))
