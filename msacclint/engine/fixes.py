"""Applying fixes to a file's text.

Edits of different diagnostics that overlap are not applied together: the first one
(in file order) wins and the rest wait for the next pass, as in ruff. The caller loops
until nothing changes (``fix_source``). The result is only returned when it parses.
"""

from __future__ import annotations

import re
from typing import Callable, List, Sequence, Tuple

import libcst as cst

from msacclint.diagnostics import Diagnostic

MAX_PASSES = 10


def _offsets(text: str) -> List[int]:
    """Where lines start; a line ends at \\n, \\r\\n or a lone \\r, as LibCST counts them."""
    return [0] + [m.end() for m in re.finditer(r"\r\n?|\n", text)]


def _index(starts: List[int], line: int, column: int) -> int:
    return starts[line - 1] + column - 1




def apply_once(text: str, diagnostics: Sequence[Diagnostic], unsafe: bool,
               explicit: bool = False) -> Tuple[str, int]:
    """Text with the non-overlapping fixes applied, and how many were applied.
    ``explicit`` applies the KEEP edits instead (``--add-explicit``), see ``Diagnostic.fix_for``."""
    starts = _offsets(text)
    chosen: List[Tuple[int, int, str]] = []
    applied = 0
    for d in sorted(diagnostics, key=Diagnostic.sort_key):
        fix = d.fix_for(unsafe, explicit)
        if fix is None or not fix.edits:
            continue
        spans = [(_index(starts, e.line, e.column), _index(starts, e.end_line, e.end_column), e.text)
                 for e in fix.edits]
        if any(s < ce and cs < e for s, e, _ in spans for cs, ce, _ in chosen):
            continue
        chosen.extend(spans)
        applied += 1
    for start, end, new in sorted(chosen, reverse=True):
        text = text[:start] + new + text[end:]
    return text, applied


def fix_source(text: str, check: Callable[[str], Sequence[Diagnostic]], unsafe: bool = False,
               explicit: bool = False) -> Tuple[str, int]:
    """Apply fixes until none is left; returns the new text (only if it parses) and the
    number of fixes applied. ``check`` maps text to diagnostics. ``explicit`` applies the
    KEEP edits of ``--add-explicit`` instead of fixes."""
    total = 0
    for _ in range(MAX_PASSES):
        new, applied = apply_once(text, check(text), unsafe, explicit)
        if not applied or new == text:
            break
        try:
            cst.parse_module(new)
        except Exception:
            break  # never hand back text that does not parse
        text, total = new, total + applied
    return text, total
