"""Does a std/var's estimator (ddof) matter where its result is used?

``ddof_cancels(ctx, call)`` is True when the sqrt(n / (n - ddof)) factor between the
population and the sample estimate drops out of what the function computes:

- a ratio of two estimates of the same kind over the same axes
  (``ops.std(a, axis=1) / ops.std(b, axis=1)``, also through names assigned once);
- a normaliser applied and inverted with the same statistic: the result, assigned to a
  name, divides a value and multiplies one again in the same function
  (``y = (x - m) / s`` ... ``out = y * s + m``).
"""

from __future__ import annotations

from typing import List, Optional

import libcst as cst

from msacclint.analysis.context import FileContext
from msacclint.analysis.scopes import scopes
from msacclint.analysis.source import code_of as _code


def _options(call: cst.Call) -> List[str]:
    """Every argument after the data, as text (axis, keepdims, ...)."""
    return [_code(a) for a in call.args[1:]]


class _Ops(cst.CSTVisitor):
    def __init__(self) -> None:
        self.divisions: List[cst.BinaryOperation] = []
        self.divisors: List[str] = []
        self.factors: List[str] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        if isinstance(node.operator, cst.Divide):
            self.divisions.append(node)
            if isinstance(node.right, cst.Name):
                self.divisors.append(node.right.value)
        elif isinstance(node.operator, cst.Multiply):
            for side in (node.left, node.right):
                if isinstance(side, cst.Name):
                    self.factors.append(side.value)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if isinstance(node.value, cst.Name):
            if isinstance(node.operator, cst.DivideAssign):
                self.divisors.append(node.value.value)
            elif isinstance(node.operator, cst.MultiplyAssign):
                self.factors.append(node.value.value)


def ddof_cancels(ctx: FileContext, call: cst.Call) -> bool:
    api = ctx.resolve(call.func)
    fl = scopes(ctx).owner(call)
    if api is None or fl is None:
        return False
    body = fl.root.body if isinstance(fl.root, cst.FunctionDef) else fl.root
    ops = _Ops()
    body.visit(ops)
    # a name that holds the estimate (assigned once in the function)
    holder: Optional[str] = None
    for name, defs in fl.defs.items():
        if len(defs) == 1 and defs[0].value is call and defs[0].index is None:
            holder = name

    def estimate(expr: cst.BaseExpression) -> Optional[cst.Call]:
        if isinstance(expr, cst.Call) and ctx.resolve(expr.func) == api:
            return expr
        if isinstance(expr, cst.Name):
            defs = fl.defs.get(expr.value, [])
            if len(defs) == 1 and isinstance(defs[0].value, cst.Call) and ctx.resolve(defs[0].value.func) == api:
                return defs[0].value
        return None

    for division in ops.divisions:
        left, right = estimate(division.left), estimate(division.right)
        if left is not None and right is not None and call in (left, right) \
                and _options(left) == _options(right):
            return True  # a ratio: the factor divides out
    return holder is not None and holder in ops.divisors and holder in ops.factors
