"""Finds every rule once per process, and answers which codes exist without importing them.

Rules live in the sub-packages of ``msacclint.rules`` (one package per checklist area).
A module contributes the Rule subclasses it defines, and the classes listed in a module
level ``RULES`` sequence (the table-driven rules are made that way).

Selecting codes (``select``, ``ignore``, the defaults) needs only each rule's code, its
declared group and its severity (whether it is on by default follows from those and the field
record, msacclint/rules/groups.py). Those are also kept in ``rule_index.json`` beside the rule
table, with a digest of the sources they were read from, so that a run answered from the
cache reads that file instead of importing every rule module and LibCST with them. When
the digest does not match (a rule was edited and the file not rewritten) the rules are
imported as before; ``python -m msacclint.engine.registry`` rewrites the file and a test
keeps it current.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import json
import pkgutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Dict, FrozenSet, Iterable, List, Optional, Tuple, Type

from msacclint.data import data_dir
from msacclint.rules import groups as groups_

if TYPE_CHECKING:
    from msacclint.rules.base import Rule

INDEX_NAME = "rule_index.json"


@functools.lru_cache(maxsize=1)
def all_rules() -> Tuple[Type[Rule], ...]:
    import msacclint.rules as package
    from msacclint.rules.base import Rule

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


def sources_digest() -> str:
    """A digest of everything a rule's code and default state are read from: the rule
    modules and the data files (the table rules are built from rules/*.toml)."""
    import msacclint.rules as package

    digest = hashlib.sha256()
    folders = [(Path(p), "*.py") for p in package.__path__] + [(data_dir(), "*.toml")]
    for folder, pattern in folders:
        for path in sorted(folder.rglob(pattern)):
            if "__pycache__" in path.parts:
                continue
            digest.update(path.relative_to(folder).as_posix().encode() + b"\0")
            digest.update(path.read_bytes())
            digest.update(b"\0")
    return digest.hexdigest()


def index_content() -> Dict[str, object]:
    """What ``rule_index.json`` holds, read from the imported rules."""
    rules = all_rules()
    return {
        "about": "Written by `python -m msacclint.engine.registry`; read by a run that needs no rule "
                 "module (see msacclint/engine/registry.py). Do not edit.",
        "digest": sources_digest(),
        "codes": [rule.code for rule in rules],
        "groups": {rule.code: rule.group for rule in rules},
        "severities": {rule.code: rule.severity.value for rule in rules},
    }


#: code -> (declared group, severity)
Declared = Dict[str, Tuple[str, str]]


def read_index(path: Optional[Path] = None) -> Optional[Tuple[Tuple[str, ...], Declared]]:
    """(every code, each code's declared group and severity) from the index file; None when it
    is missing, unreadable, or written from other sources than today's."""
    try:
        data = json.loads((path or data_dir() / INDEX_NAME).read_text(encoding="utf-8"))
        if data.get("digest") != sources_digest():
            return None
        codes = tuple(str(c) for c in data["codes"])
        declared = {c: (str(data["groups"][c]), str(data["severities"][c])) for c in codes}
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return codes, declared


@functools.lru_cache(maxsize=1)
def _codes() -> Tuple[Tuple[str, ...], Declared]:
    # once the rules are loaded (a run that checks files), ask them
    index = None if "msacclint.rules.base" in sys.modules else read_index()
    if index is not None:
        return index
    rules = all_rules()
    return tuple(r.code for r in rules), {r.code: (r.group, r.severity.value) for r in rules}


def all_codes() -> Tuple[str, ...]:
    return _codes()[0]


def declared(code: str) -> Tuple[str, str]:
    """A code's declared group and its rule's severity."""
    return _codes()[1].get(code, ("nursery", "warning"))


def group_of(code: str) -> str:
    """The group a rule is in today (its field record decides for the proven groups)."""
    group, severity = declared(code)
    return groups_.effective(code, group, severity)


def finding_group(code: str, grade: str, reach: Optional[str] = None) -> str:
    """The group a finding of ``code`` at ``grade`` belongs to (msacclint/rules/groups.py)."""
    group, severity = declared(code)
    return groups_.of_finding(code, group, severity, grade, reach)


@functools.lru_cache(maxsize=1)
def default_codes() -> FrozenSet[str]:
    return frozenset(c for c in all_codes() if group_of(c) in groups_.DEFAULT_GROUPS)


def group_codes(name: str) -> List[str]:
    """The codes of a group today; for ``nursery`` also the rules of proven groups that are in it."""
    return [c for c in all_codes() if group_of(c) == name]


def matching(prefix: str, codes: Iterable[str] = ()) -> List[str]:
    """Codes selected by a selector: a full code, a prefix (``MSA1``), ``ALL``, or a group
    name (``upgrade``: the rules of that group, msacclint/rules/groups.py)."""
    pool = list(codes) or list(all_codes())
    if prefix.upper() == "ALL":
        return pool
    name = prefix.strip().lower()
    if name in groups_.GROUPS:
        chosen = set(group_codes(name))
        return [c for c in pool if c in chosen]
    return [c for c in pool if c.startswith(prefix.upper())]


def write_index(path: Optional[Path] = None) -> Path:
    target = path or (data_dir() / INDEX_NAME)
    target.write_text(json.dumps(index_content(), indent=1) + "\n", encoding="utf-8")
    return target


if __name__ == "__main__":
    print(f"wrote {write_index()}")
