"""Does a sub-cell end a residual branch?

``ends_residual(ctx, info, attr, weighted)`` answers, for ``self.<attr>`` of a Cell, whether
its output, before it passes through another layer with weights, is added to a tensor that
does not come from it: the zero-initialised last layer of a residual branch, in any
spelling —

    x = self.conv3(h); x += skip            (augmented add)
    x = skip + self.conv3(h)                 (either operand)
    act = act + self.transition(act)         (the block input itself)
    return ops.add(identity, self.bn(self.conv3(h)))   (functional add, past a norm)

The walk follows local names in ``construct`` and in the methods it calls on ``self``
(a helper whose return value carries the output carries it at the call site). A value that
went through a layer with weights (``weighted(attr)`` is True, e.g. a Dense or Conv) no
longer counts as the sub-cell's own output: ``h = self.zero(x); x = x + self.fc(h)`` is a
zero layer feeding a hidden layer, not the end of a branch.
"""

from __future__ import annotations

from typing import Callable, Set

import libcst as cst

from msacclint.analysis.cells import CellInfo, self_attr
from msacclint.analysis.context import FileContext
from msacclint.analysis.liveness import forward_methods
from msacclint.analysis.taint import SubCellTaint

_ADD_TAILS = frozenset({"add", "Add", "TensorAdd"})


def _is_number(node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.UnaryOperation):
        node = node.expression
    return isinstance(node, (cst.Integer, cst.Float))


class _Walk(SubCellTaint):
    def __init__(self, ctx: FileContext, info: CellInfo, attr: str, weighted: Callable[[str], bool],
                 carrying_methods: Set[str]) -> None:
        super().__init__(ctx, info, attr)
        self.weighted = weighted
        self.carrying_methods = carrying_methods
        self.residual = False
        self.returns_taint = False

    # -- does an expression carry the sub-cell's output (not past a weight layer)? ----
    def carries(self, expr: cst.CSTNode) -> bool:
        if isinstance(expr, cst.Name):
            return expr.value in self.tainted
        if isinstance(expr, cst.Call):
            name = self_attr(expr.func)
            if name == self.attr or name in self.carrying_methods:
                return True
            if name is not None and self.weighted(name):
                return False  # the value went through another layer with weights
            return any(self.carries(a.value) for a in expr.args) or \
                (isinstance(expr.func, cst.Attribute) and self_attr(expr.func) is None
                 and self.carries(expr.func.value))  # h.reshape(...), h.astype(...)
        if isinstance(expr, (cst.Lambda, cst.FunctionDef)):
            return False
        return any(self.carries(child) for child in expr.children if isinstance(child, cst.BaseExpression)
                   or isinstance(child, (cst.Arg, cst.Element, cst.Index, cst.SubscriptElement, cst.Slice)))

    def _joins(self, a: cst.BaseExpression, b: cst.BaseExpression) -> bool:
        """One operand carries the output, the other is a tensor that does not."""
        ca, cb = self.carries(a), self.carries(b)
        if ca == cb:
            return False
        other = b if ca else a
        return not _is_number(other)

    # -- walking ------------------------------------------------------------------------
    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        if isinstance(node.operator, cst.Add) and self._joins(node.left, node.right):
            self.residual = True

    def visit_Call(self, node: cst.Call) -> None:
        positional = [a.value for a in node.args if a.keyword is None and not a.star]
        if len(positional) != 2:
            return
        func = node.func.func if isinstance(node.func, cst.Call) else node.func  # P.Add()(a, b)
        name = self_attr(func)
        if name is not None:
            attr = self.info.attrs.get(name)
            callee = attr.callee if attr is not None else None
        else:
            callee = self.ctx.resolve(func)
        if callee and callee.startswith("mindspore.") and callee.rsplit(".", 1)[-1] in _ADD_TAILS \
                and self._joins(positional[0], positional[1]):
            self.residual = True

    def leave_AugAssign(self, node: cst.AugAssign) -> None:
        if not isinstance(node.target, cst.Name):
            return
        if isinstance(node.operator, cst.AddAssign) and self._joins(node.target, node.value):
            self.residual = True
            return
        if self.carries(node.value):
            self.tainted.add(node.target.value)

    def visit_Return(self, node: cst.Return) -> None:
        if node.value is not None and self.carries(node.value):
            self.returns_taint = True


def ends_residual(ctx: FileContext, info: CellInfo, attr: str, weighted: Callable[[str], bool]) -> bool:
    """Whether ``self.<attr>``'s output is added to a tensor that does not come from it
    before it passes another layer with weights (see the module docstring)."""
    methods = forward_methods(info)
    carrying: Set[str] = set()
    for _ in range(3):  # helpers that return the output, up to three levels
        before = set(carrying)
        for name, fn in methods.items():
            walk = _Walk(ctx, info, attr, weighted, carrying)
            fn.body.visit(walk)
            if walk.residual:
                return True
            if walk.returns_taint:
                carrying.add(name)
        if carrying == before:
            break
    return False
