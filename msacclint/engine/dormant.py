"""Findings in code that nothing runs.

An error says the code computes something wrong. When the finding sits inside a top-level
class or function that nothing else in the project refers to (no import, call, subclass,
registry string or config value names it), the wrong computation does not happen today:
the finding is kept, said to be dormant, and lowered to a warning. The answer comes from
the project index (``ProjectIndex.referrers``), so a run without the project layer
(``--no-project``, a lone file outside any project) leaves findings as they are.

Decorated definitions are never called dormant: a decorator may register them.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Tuple, Union

import libcst as cst
from libcst.metadata import CodeRange

from msacclint.diagnostics import Severity
from msacclint.project.index import ProjectIndex

Definition = Union[cst.ClassDef, cst.FunctionDef]


def candidates(module: cst.Module) -> List[Definition]:
    """The module's top-level classes and functions that a decorator does not register."""
    return [stmt for stmt in module.body
            if isinstance(stmt, (cst.ClassDef, cst.FunctionDef)) and not stmt.decorators]


def enclosing(line: int, definitions: Sequence[Definition],
              positions: Dict[cst.CSTNode, CodeRange]) -> Optional[Definition]:
    for definition in definitions:
        where = positions.get(definition)
        if where is not None and where.start.line <= line <= where.end.line:
            return definition
    return None


def dormant_note(project: ProjectIndex, path: str, definition: Definition) -> Optional[str]:
    """The note to add when nothing in the project refers to ``definition``, else None."""
    name = definition.name.value
    if project.referrers(path, name) is not None:
        return None
    kind = "class" if isinstance(definition, cst.ClassDef) else "function"
    return (f" (dormant: nothing else in the project's Python or config files refers to the {kind} "
            f"`{name}`, so this does not run today; it matters once `{name}` is used)")


def adjust(severity: Severity, message: str, note: Optional[str]) -> Tuple[Severity, str]:
    """An error in dormant code becomes a warning carrying the note."""
    if note is None or severity is not Severity.ERROR:
        return severity, message
    return Severity.WARNING, message.rstrip() + note
