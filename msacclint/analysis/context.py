"""Everything a rule may ask about the file it is checking."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Generic, Optional, Tuple, TypeVar

import libcst as cst

from msacclint.analysis.imports import ImportTable
from msacclint.settings import Settings

T = TypeVar("T")


class Question(Generic[T]):
    """A per-file analysis, answered once per file and memoised on the FileContext:
    ``CELLS = Question("cells", lambda ctx: CellMap(ctx.module, ctx.imports))`` at module
    level, asked as ``ctx.ask(CELLS)`` (typed: the answer has the compute function's type).
    The question object itself is the memo key; ``name`` only names it in reprs."""

    __slots__ = ("name", "compute")

    def __init__(self, name: str, compute: Callable[[FileContext], T]) -> None:
        self.name = name
        self.compute = compute

    def __repr__(self) -> str:
        return f"Question({self.name!r})"


@dataclass
class FileContext:
    path: str
    source: str
    module: cst.Module
    imports: ImportTable
    settings: Settings
    #: shared per-file analysis results, computed once on first use (see msacclint.analysis)
    facts: Dict[object, Any] = field(default_factory=dict)
    #: the repository's project index (msacclint.project.ProjectIndex) when the run has
    #: one; rules ask it what other files define (None: one file alone)
    project: Any = None
    #: the extra collectors that joined the engine's traversal, by name
    #: (``msacclint.engine.runner.register_collector``)
    collected: Dict[str, Any] = field(default_factory=dict)
    #: resolved callee of every call seen, by node identity (``callee``)
    _callees: Dict[int, Tuple[cst.Call, Optional[str]]] = field(default_factory=dict, repr=False)

    def callee(self, call: cst.Call) -> Optional[str]:
        """The canonical qualified name of a call's callee, resolved once per call node
        (the traversal resolves every call; rules and analyses read it from here)."""
        hit = self._callees.get(id(call))
        if hit is not None and hit[0] is call:
            return hit[1]
        name = self.imports.resolve(call.func)
        self._callees[id(call)] = (call, name)
        return name

    def resolve(self, node: cst.BaseExpression) -> Optional[str]:
        """Canonical qualified name of a Name/Attribute chain (or of a Call's callee)."""
        if isinstance(node, cst.Call):
            return self.callee(node)
        return self.imports.resolve(node)

    @property
    def mindspore_version(self) -> Optional[str]:
        return self.settings.mindspore_version

    def ask(self, question: Question[T]) -> T:
        """The answer to a per-file question, computed on first use."""
        try:
            answer: T = self.facts[question]
        except KeyError:
            answer = self.facts[question] = question.compute(self)
        return answer
