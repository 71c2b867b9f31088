"""Applying fixes to a file's text.

Edits of different diagnostics that overlap are not applied together: the first one
(in file order) wins and the rest wait for the next pass, as in ruff. The caller loops
until nothing changes (``fix_source``). The result is only returned when it parses.
"""

from __future__ import annotations

import ast
import os
import re
import stat
import sys
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import libcst as cst

from msacclint.analysis.edits import detected_line_length, wrap_long_insertion
from msacclint.analysis.source import read_source
from msacclint.diagnostics import Diagnostic, FileFix
from msacclint.engine.atomic import replace_file
from msacclint.engine.runner import check_source
from msacclint.settings import Settings

MAX_PASSES = 10


def _offsets(text: str) -> List[int]:
    """Where lines start; a line ends at \\n, \\r\\n or a lone \\r, as LibCST counts them."""
    return [0] + [m.end() for m in re.finditer(r"\r\n?|\n", text)]


def _index(starts: List[int], line: int, column: int) -> int:
    return starts[line - 1] + column - 1




def configured_line_length(path: str) -> Optional[int]:
    """``line-length`` of the nearest pyproject.toml above ``path``: ``[tool.msacclint]``,
    else ``[tool.ruff]``, else ``[tool.black]``; None when none of them sets it."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # tomli is a dependency on Python < 3.11 only: absent where mypy runs on a newer one
        import tomli as tomllib  # type: ignore[import-not-found, unused-ignore]
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


# -- one file on disk ---------------------------------------------------------------------------
# A file is only written when its fixed text parses (LibCST, and ``ast`` when the original
# compiled), atomically (a temporary file in the same folder, then ``os.replace``, keeping
# the file's mode), in its own encoding (a UTF-8 BOM, or a PEP 263 coding line) and with
# its line endings as they were. A file that did not parse, or could not be read or
# decoded, is never touched.


def _compiles(text: str) -> bool:
    try:
        ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def _parses(text: str) -> bool:
    try:
        cst.parse_module(text)
    except Exception:
        return False
    return True


def fix_text(text: str, path: str, settings: Settings, unsafe: bool,
             explicit: bool = False) -> Tuple[str, int, List[Diagnostic]]:
    """The fixed text, how many fixes were applied, and what the engine still finds in
    the result. The text is returned unchanged when the fixes would break it.
    ``explicit`` applies the KEEP edits of ``--add-explicit`` instead of fixes."""
    seen: Dict[str, List[Diagnostic]] = {}

    def check(candidate: str) -> List[Diagnostic]:
        if candidate not in seen:
            seen.clear()  # only the latest text is asked for again
            seen[candidate] = check_source(candidate, path, settings)
        return seen[candidate]

    fixed, applied = fix_source(text, check, unsafe=unsafe, explicit=explicit,
                                line_length=configured_line_length(path))
    if applied and fixed != text:
        # fix_source only hands back text LibCST parses; also insist that Python itself
        # still compiles it when it compiled before.
        if not _parses(fixed) or (_compiles(text) and not _compiles(fixed)):
            return text, 0, check(text)
    return fixed, applied, check(fixed)


def fix_file(path: str, settings: Settings, unsafe: bool, explicit: bool = False) -> Optional[FileFix]:
    """Fix one file in memory; None when it cannot be read, decoded or parsed (such a
    file is left alone; ``check`` reports why)."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    text, encoding, problem = read_source(data)
    if problem is not None or not _parses(text):
        return None
    fixed, applied, remaining = fix_text(text, path, settings, unsafe, explicit)
    try:
        fixed.encode(encoding)
    except UnicodeEncodeError:  # a fix brought in a character the file's encoding cannot hold
        return None
    return FileFix(path, text, fixed, applied, encoding, remaining)


def write_fixed(result: FileFix) -> None:
    """Replace the file's content with the fixed text, in its own encoding, atomically,
    keeping its permission bits. A symbolic link stays a link: its target is replaced."""
    path = os.path.realpath(result.path)
    replace_file(path, result.fixed.encode(result.encoding), mode=stat.S_IMODE(os.stat(path).st_mode),
                 durable=True)
