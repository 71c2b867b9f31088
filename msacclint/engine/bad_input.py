"""One MSA001 per file. A file that cannot be read is met twice: by its own check (the
engine's words, at the exact place) and by the project layer when another file's answer
needs what it defines (the same problem, noting that other files do not see it). Both reach
the report, from one worker or from several, from the cache or not; they are one finding:
the most severe, named as the run names the file, at the most precise place, with the
other-files note when either had it.
Kept free of LibCST and the rules: a run the cache answers merges its results too."""

from __future__ import annotations

import os
from dataclasses import replace
from typing import Collection, Dict, Iterable, List, Tuple

from msacclint.diagnostics import UNKNOWN_TO_OTHER_FILES, Diagnostic

BAD_INPUT = "MSA001"


def with_other_files_note(message: str) -> str:
    """``message`` saying that other files do not see what the file defines (once)."""
    return message if UNKNOWN_TO_OTHER_FILES in message else f"{message}; {UNKNOWN_TO_OTHER_FILES}"


def _file(path: str) -> str:
    """The file a finding's path names (the run may name it relative, the project layer
    absolute, or the other way round)."""
    return os.path.normcase(os.path.normpath(os.path.abspath(path)))


def one_per_file(diagnostics: Iterable[Diagnostic], named: Collection[str] = ()) -> List[Diagnostic]:
    """``diagnostics`` with at most one MSA001 per file, in their order otherwise. The one
    kept is the most severe, then the one whose path is as the run names the file (one of
    ``named``), then the one at the most precise place (the file's own parse names the
    column); it carries the other-files note when any of those it stands for did."""
    found = list(diagnostics)
    by_file: Dict[str, List[Diagnostic]] = {}
    for d in found:
        if d.code == BAD_INPUT:
            by_file.setdefault(_file(d.path), []).append(d)
    if all(len(group) == 1 for group in by_file.values()):
        return found

    def preference(d: Diagnostic) -> Tuple[int, bool, int, int]:
        return d.severity.rank, d.path not in named, -d.line, -d.column

    kept: Dict[str, Diagnostic] = {}
    for where, group in by_file.items():
        best = min(group, key=preference)
        if any(UNKNOWN_TO_OTHER_FILES in d.message for d in group):
            best = replace(best, message=with_other_files_note(best.message))
        kept[where] = best
    out: List[Diagnostic] = []
    for d in found:
        if d.code != BAD_INPUT:
            out.append(d)
        else:
            one = kept.pop(_file(d.path), None)
            if one is not None:
                out.append(one)
    return out
