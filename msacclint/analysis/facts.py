"""Per-file facts gathered in the engine's one traversal.

Rules that decide on the whole file (``finish``) set ``uses_facts = True``; the engine
then runs a FileFacts collector in the same traversal as the rules, so the facts cost
no extra pass. Outside the engine, ``facts(ctx)`` computes them on demand.

Collected: every call with its resolved callee (``calls["mindspore.communication.init"]``),
method calls by method name (``methods["set_train"]``), every call in source order
(``in_order``), and the function definitions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, List, Optional

import libcst as cst

from msacclint.analysis.walk import BaseCollector, Traversal

if TYPE_CHECKING:
    from msacclint.analysis.context import FileContext


class FileFacts(BaseCollector):
    def __init__(self, ctx: FileContext) -> None:
        self.ctx = ctx
        self.calls: Dict[str, List[cst.Call]] = {}
        self.methods: Dict[str, List[cst.Call]] = {}
        self.functions: List[cst.FunctionDef] = []
        #: calls whose callee does not resolve from the imports (local or unknown
        #: functions, methods), by the callee's last name: ``unresolved["set_seed"]``
        self.unresolved: Dict[str, List[cst.Call]] = {}
        #: every call, in the order the traversal met them (lexical order)
        self.in_order: List[cst.Call] = []
        self._index: Optional[Dict[int, int]] = None
        self.complete = False

    def visit_Call(self, node: cst.Call) -> None:
        self.in_order.append(node)
        name = self.ctx.callee(node)
        if name is not None:
            self.calls.setdefault(name, []).append(node)
        elif isinstance(node.func, cst.Name):
            self.unresolved.setdefault(node.func.value, []).append(node)
        elif isinstance(node.func, cst.Attribute):
            self.unresolved.setdefault(node.func.attr.value, []).append(node)
        if isinstance(node.func, cst.Attribute):
            self.methods.setdefault(node.func.attr.value, []).append(node)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.functions.append(node)

    def done(self) -> None:
        self.complete = True

    # -- queries ------------------------------------------------------------------
    def called(self, *names: str) -> List[cst.Call]:
        """The calls of any of ``names``, in source order (whatever order the names come in:
        callers pass frozensets, whose order changes with the hash seed)."""
        out: List[cst.Call] = []
        for name in names:
            out.extend(self.calls.get(name, ()))
        if len(names) > 1 and len(out) > 1:
            if self._index is None:
                self._index = {id(node): i for i, node in enumerate(self.in_order)}
            index = self._index
            out.sort(key=lambda node: index.get(id(node), 0))
        return out

    def calls_any(self, *names: str) -> bool:
        return any(name in self.calls for name in names)

    def method_calls(self, method: str, receiver: Optional[str] = None) -> List[cst.Call]:
        found = self.methods.get(method, [])
        if receiver is None:
            return list(found)
        return [c for c in found if isinstance(c.func, cst.Attribute)
                and _receiver_name(c.func.value) == receiver]


def _receiver_name(node: cst.BaseExpression) -> Optional[str]:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return node.attr.value
    return None


def facts(ctx: FileContext) -> FileFacts:
    """The file's facts: from the engine's traversal when it ran, else computed now."""
    collected = ctx.facts.get("file")
    if not isinstance(collected, FileFacts) or not collected.complete:
        collected = FileFacts(ctx)
        traversal = Traversal()
        traversal.add(collected.visitors())
        traversal.run(ctx.module)
        collected.done()
        ctx.facts["file"] = collected
    return collected
