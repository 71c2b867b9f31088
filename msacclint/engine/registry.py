"""Finds every rule once per process.

Rules live in the sub-packages of ``msacclint.rules`` (one package per checklist area).
A module contributes the Rule subclasses it defines, and the classes listed in a module
level ``RULES`` sequence (the table-driven rules are made that way).
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from typing import Dict, FrozenSet, Iterable, List, Tuple, Type

from msacclint.rules.base import Rule


@functools.lru_cache(maxsize=1)
def all_rules() -> Tuple[Type[Rule], ...]:
    import msacclint.rules as package

    found: Dict[str, Type[Rule]] = {}
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        module = importlib.import_module(info.name)
        candidates: List[Type[Rule]] = list(getattr(module, "RULES", ()))
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, Rule) and value.__module__ == module.__name__:
                candidates.append(value)
        for rule in candidates:
            if not rule.code:
                continue  # an abstract base
            other = found.get(rule.code)
            if other is not None and other is not rule:
                raise RuntimeError(f"rule code {rule.code} is used by {other.__name__} and {rule.__name__}")
            found[rule.code] = rule
    return tuple(sorted(found.values(), key=lambda r: r.code))


@functools.lru_cache(maxsize=1)
def rules_by_code() -> Dict[str, Type[Rule]]:
    return {rule.code: rule for rule in all_rules()}


def all_codes() -> Tuple[str, ...]:
    return tuple(rules_by_code())


def default_codes() -> FrozenSet[str]:
    return frozenset(rule.code for rule in all_rules() if rule.enabled_by_default())


def matching(prefix: str, codes: Iterable[str] = ()) -> List[str]:
    """Codes selected by a selector: a full code, a prefix (``MSA1``), ``ALL``, or a
    profile (``port``: the defaults plus that profile's codes, msacclint.rules.profiles)."""
    from msacclint.rules.profiles import profile_codes

    pool = list(codes) or list(all_codes())
    if prefix.upper() == "ALL":
        return pool
    extra = profile_codes(prefix)
    if extra:
        chosen = default_codes() | frozenset(extra)
        return [c for c in pool if c in chosen]
    return [c for c in pool if c.startswith(prefix.upper())]
