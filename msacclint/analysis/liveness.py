"""Where code runs: is a call made while a Cell computes its forward pass?

``forward_methods(info)``: ``construct`` and the methods it calls on ``self``,
transitively (never ``__init__``). ``built_in_forward(ctx, node)``: the innermost function
around ``node`` is one of those, so a layer built there is a fresh Cell on every call,
created in inference mode (``Cell.training`` starts False and only ``set_train`` on an
ancestor changes it; a Cell built during the forward pass has no ancestor).
"""

from __future__ import annotations

from typing import Dict, Optional, Set

import libcst as cst

from msacclint.analysis.cells import CellInfo, cells, self_attr
from msacclint.analysis.context import FileContext, Question
from msacclint.analysis.walk import walk


def forward_methods(info: CellInfo) -> Dict[str, cst.FunctionDef]:
    """``construct`` and the methods it calls on self, transitively."""
    found: Dict[str, cst.FunctionDef] = {}
    pending = ["construct"]
    while pending:
        name = pending.pop()
        if name in found or name not in info.methods or name == "__init__":
            continue
        found[name] = info.methods[name]

        class Calls(cst.CSTVisitor):
            def visit_Attribute(self, node: cst.Attribute) -> None:
                attr = self_attr(node)
                if attr is not None and attr in info.methods:
                    pending.append(attr)

        walk(found[name].body, Calls())
    return found


def _forward_functions(ctx: FileContext) -> Dict[cst.FunctionDef, CellInfo]:
    table: Dict[cst.FunctionDef, CellInfo] = {}
    for info in cells(ctx).classes.values():
        for fn in forward_methods(info).values():
            table[fn] = info
    return table


_FORWARD: Question[Dict[cst.FunctionDef, CellInfo]] = Question("liveness.forward", _forward_functions)


def forward_owner(ctx: FileContext, func: Optional[cst.CSTNode]) -> Optional[CellInfo]:
    """The Cell whose forward pass ``func`` (a FunctionDef) belongs to, else None."""
    if not isinstance(func, cst.FunctionDef):
        return None
    return ctx.ask(_FORWARD).get(func)


def assigned_to_self(ctx: FileContext, func: cst.FunctionDef) -> Set[int]:
    """ids of the values of ``self.x = ...`` statements in ``func``."""
    found: Set[int] = set()

    class Finder(cst.CSTVisitor):
        def visit_Assign(self, node: cst.Assign) -> None:
            if any(self_attr(t.target) is not None for t in node.targets):
                found.add(id(node.value))

    func.body.visit(Finder())
    return found
