"""What a dataset source reads: whether a class or function of the project (the source a
``GeneratorDataset`` is built over) reads files — images, arrays, annotations, a folder's
listing — itself, through its bases, or through the project's functions and classes it calls.
A mixin of ``ProjectIndex`` (msacclint.project.index).
"""

from __future__ import annotations

from typing import List, Optional, Set, Tuple

from msacclint.analysis.source_files import reads_file
from msacclint.project.summary import Call, FileSummary
from msacclint.project.values import Evidence


class SourceQueries:
    """A mixin of ProjectIndex: see the module's docstring."""

    def reads_files(self, path: str, name: str) -> Optional[Evidence]:
        """Where the class or function ``name`` (as written in ``path``) reads files, or None
        when nothing shows it (followed through its bases and the project's classes and
        functions it calls, three levels)."""
        found = self.lookup(path, name)  # type: ignore[attr-defined]
        if found is None or found[0] not in ("class", "function"):
            return None
        return self._reads(found[1], found[2], found[0] == "class", set(), 0)

    def _reads(self, path: str, item, is_class: bool, seen: Set[Tuple[str, str]], depth: int) -> Optional[Evidence]:
        key = (path, item.name)
        summary: Optional[FileSummary] = self.summary(path)  # type: ignore[attr-defined]
        if summary is None or key in seen or depth > 3:
            return None
        seen.add(key)
        calls: List[Call] = list(item.calls)
        if not is_class:
            prefix = item.name + "."
            calls += [c for f in summary.functions.values() if f.name.startswith(prefix) for c in f.calls]
        for call in calls:
            if reads_file(self.qualified(summary, call.callee)):  # type: ignore[attr-defined]
                return Evidence(self.display(path), call.line, f"{call.callee}(...)")  # type: ignore[attr-defined]
        followed = [base for base in item.bases] if is_class else []
        followed += [c.callee for c in calls if not c.callee.startswith("self.")]
        for name in dict.fromkeys(followed):
            found = self.lookup(path, name)  # type: ignore[attr-defined]
            if found is None or found[0] not in ("class", "function"):
                continue
            inner = self._reads(found[1], found[2], found[0] == "class", seen, depth + 1)
            if inner is not None:
                return inner
        return None
