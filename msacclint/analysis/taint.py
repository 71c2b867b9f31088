"""A walk over a Cell's forward pass that follows which local names carry the output of
one of its sub-cells (``self.<attr>``): the part the global-pooling and the residual
analyses share. Each says in ``carries`` which expressions pass the output on."""

from __future__ import annotations

from typing import Set

import libcst as cst

from msacclint.analysis.cells import CellInfo
from msacclint.analysis.context import FileContext


class SubCellTaint(cst.CSTVisitor):
    def __init__(self, ctx: FileContext, info: CellInfo, attr: str) -> None:
        self.ctx = ctx
        self.info = info
        self.attr = attr
        #: local names that hold the sub-cell's output now
        self.tainted: Set[str] = set()

    def carries(self, expr: cst.CSTNode) -> bool:
        """Whether ``expr`` passes the sub-cell's output on."""
        raise NotImplementedError

    def leave_Assign(self, node: cst.Assign) -> None:
        """``a = ...`` / ``a, b = ...`` taint or clear the names assigned."""
        carried = self.carries(node.value)
        for target in node.targets:
            names = [target.target] if isinstance(target.target, cst.Name) else [
                e.value for e in getattr(target.target, "elements", ()) if isinstance(e.value, cst.Name)]
            for name in names:
                (self.tainted.add if carried else self.tainted.discard)(name.value)
