"""``# noqa`` and ``# noqa: MSA101,MSA2`` on the line a finding starts on, as flake8 reads it."""

from __future__ import annotations

import re
from typing import Dict, FrozenSet, Iterable, List, Optional

from msacclint.diagnostics import Diagnostic

# Read: "noqa", "NOQA", "noqa:MSA101", "noqa: MSA101, MSA2" after a hash (codes separated by
# commas or spaces). A bare noqa comment (or one whose codes cannot be read) silences
# everything.
_NOQA = re.compile(r"#\s*noqa(?P<sep>:\s*(?P<codes>[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*))?", re.I)

ALL = frozenset({"*"})


def directives(source: str, lines: Iterable[int]) -> Dict[int, FrozenSet[str]]:
    """The noqa codes on each of the given 1-based lines that carries a directive."""
    wanted = set(lines)
    if not wanted or "noqa" not in source.lower():
        return {}
    text_lines = source.splitlines()
    found: Dict[int, FrozenSet[str]] = {}
    for number in wanted:
        if 0 < number <= len(text_lines):
            codes = parse(text_lines[number - 1])
            if codes is not None:
                found[number] = codes
    return found


def parse(line: str) -> Optional[FrozenSet[str]]:
    match = _NOQA.search(line)
    if match is None:
        return None
    if not match.group("codes"):
        return ALL
    return frozenset(c.upper() for c in re.split(r"[,\s]+", match.group("codes").strip()) if c)


def suppressed(diagnostic: Diagnostic, table: Dict[int, FrozenSet[str]]) -> bool:
    codes = table.get(diagnostic.line)
    if codes is None:
        return False
    return codes is ALL or any(diagnostic.code.startswith(c) for c in codes)


def filter_noqa(source: str, diagnostics: List[Diagnostic]) -> List[Diagnostic]:
    table = directives(source, (d.line for d in diagnostics))
    if not table:
        return diagnostics
    return [d for d in diagnostics if not suppressed(d, table)]
