"""Applying fixes to a file's text.

Edits of different diagnostics that overlap are not applied together: the first one
(in file order) wins and the rest wait for the next pass, as in ruff. The caller loops
until nothing changes (``fix_source``). The result is only returned when it parses.
"""

from __future__ import annotations

import os
import re
from typing import Callable, List, Optional, Sequence, Tuple

import libcst as cst

from msacclint.analysis.edits import detected_line_length, wrap_long_insertion
from msacclint.diagnostics import Diagnostic

MAX_PASSES = 10


def _offsets(text: str) -> List[int]:
    """Where lines start; a line ends at \\n, \\r\\n or a lone \\r, as LibCST counts them."""
    return [0] + [m.end() for m in re.finditer(r"\r\n?|\n", text)]


def _index(starts: List[int], line: int, column: int) -> int:
    return starts[line - 1] + column - 1




def configured_line_length(path: str) -> Optional[int]:
    """``line-length`` of the nearest pyproject.toml above ``path``: ``[tool.msacclint]``,
    else ``[tool.ruff]``, else ``[tool.black]``; None when none of them sets it."""
    try:
        import tomllib  # type: ignore[import-not-found]
    except ImportError:  # Python < 3.11
        import tomli as tomllib  # type: ignore[no-redef]
    folder = os.path.dirname(os.path.abspath(path))
    while True:
        candidate = os.path.join(folder, "pyproject.toml")
        if os.path.isfile(candidate):
            try:
                with open(candidate, "rb") as handle:
                    tool = tomllib.load(handle).get("tool", {})
            except (OSError, ValueError):
                return None
            for table in ("msacclint", "ruff", "black"):
                value = tool.get(table, {}).get("line-length") if isinstance(tool.get(table), dict) else None
                if isinstance(value, int) and value > 0:
                    return value
            return None
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def apply_once(text: str, diagnostics: Sequence[Diagnostic], unsafe: bool,
               explicit: bool = False, line_length: Optional[int] = None) -> Tuple[str, int]:
    """Text with the non-overlapping fixes applied, and how many were applied.
    ``explicit`` applies the KEEP edits instead (``--add-explicit``), see ``Diagnostic.fix_for``.
    A keyword appended to a one-line call goes on a new line when the line would pass
    ``line_length`` (None: the length the file seems to keep, ``detected_line_length``)."""
    limit = line_length if line_length is not None else detected_line_length(text)
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
    original = text
    for start, end, new in sorted(chosen, reverse=True):
        text = text[:start] + wrap_long_insertion(original, start, end, new, limit) + text[end:]
    return text, applied


def fix_source(text: str, check: Callable[[str], Sequence[Diagnostic]], unsafe: bool = False,
               explicit: bool = False, line_length: Optional[int] = None) -> Tuple[str, int]:
    """Apply fixes until none is left; returns the new text (only if it parses) and the
    number of fixes applied. ``check`` maps text to diagnostics. ``explicit`` applies the
    KEEP edits of ``--add-explicit`` instead of fixes. ``line_length``: see ``apply_once``
    (detected once, from the text before any fix, when not given)."""
    if line_length is None:
        line_length = detected_line_length(text)
    total = 0
    for _ in range(MAX_PASSES):
        new, applied = apply_once(text, check(text), unsafe, explicit, line_length)
        if not applied or new == text:
            break
        try:
            cst.parse_module(new)
        except Exception:
            break  # never hand back text that does not parse
        text, total = new, total + applied
    return text, total
