"""Is a pool's output reduced to one value per channel by what the Cell does with it?

``pooled_to_one(ctx, call)``: for a pool built as a sub-cell (``self.pool = nn.AvgPool2d(7)``),
follow its output through ``construct`` (and the methods construct calls on self): local
names, tensor methods and ops that keep the values (reshape/view/flatten, concatenation
with other branches by ``ops.concat``/``ops.cat``/``ops.stack``/``mint.cat``, dropout and
activation sub-cells). It answers True when the output

- reaches a ``Dense`` sub-cell (a Dense has a fixed input size: a pooled map that is not
  1x1 changes that size, and the call fails), or
- is squeezed (``x.squeeze(2)``, ``ops.squeeze(x)``, an ``ops.Squeeze`` sub-cell):
  MindSpore raises on squeezing an axis whose size is not 1.

Either way the kernel covers the whole map (a global pool), where stride 1 and stride
kernel_size give the same single window. The walk stops at any other sub-cell (a Conv
takes any spatial size) and at resizes (``interpolate``, ``resize``), which set a new size.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from msacclint.analysis.cell_layers import PASS_THROUGH, RESHAPE_OPS, layer_of
from msacclint.analysis.cells import CellInfo, attribute_of, self_attr
from msacclint.analysis.context import FileContext
from msacclint.analysis.liveness import forward_methods
from msacclint.analysis.taint import SubCellTaint

DENSE = "mindspore.nn.Dense"
_SQUEEZES = frozenset({"squeeze", "Squeeze"})
_RESIZES = ("interpolate", "resize", "Resize", "upsample", "Upsample", "adaptive", "Adaptive")
_KEEPS = PASS_THROUGH | RESHAPE_OPS | frozenset({"mindspore.nn.Flatten", "mindspore.nn.Dropout1d",
                                                 "mindspore.nn.Dropout2d", "mindspore.nn.Dropout3d",
                                                 "mindspore.nn.Tanh", "mindspore.nn.SiLU", "mindspore.nn.LeakyReLU",
                                                 "mindspore.nn.ReLU6", "mindspore.nn.Softmax"})


class _Walk(SubCellTaint):
    def __init__(self, ctx: FileContext, info: CellInfo, attr: str) -> None:
        super().__init__(ctx, info, attr)
        self.global_use = False

    def _layer(self, name: str) -> Optional[str]:
        attr = self.info.attrs.get(name)
        return layer_of(self.ctx, attr) if attr is not None else None

    def carries(self, expr: cst.CSTNode) -> bool:
        if isinstance(expr, cst.Name):
            return expr.value in self.tainted
        if isinstance(expr, cst.Call):
            name = self_attr(expr.func)
            if name == self.attr:
                return True
            if name is not None:
                return self._layer(name) in _KEEPS and any(self.carries(a.value) for a in expr.args)
            func = expr.func.func if isinstance(expr.func, cst.Call) else expr.func
            tail = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) \
                else ""
            if any(r in tail for r in _RESIZES):
                return False
            if isinstance(expr.func, cst.Attribute) and self.carries(expr.func.value):
                return True  # x.view(n, -1), x.reshape(...)
            return any(self.carries(a.value) for a in expr.args)
        if isinstance(expr, (cst.Lambda, cst.FunctionDef)):
            return False
        return any(self.carries(child) for child in expr.children
                   if isinstance(child, (cst.BaseExpression, cst.Element, cst.Arg)))

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_Call(self, node: cst.Call) -> None:
        if self.global_use:
            return
        first = node.args[0].value if node.args else None
        name = self_attr(node.func)
        if name is not None and first is not None:
            layer = self._layer(name)
            if (layer == DENSE or layer in ("mindspore.ops.Squeeze",)) and self.carries(first):
                self.global_use = True
            return
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in _SQUEEZES:
            functional = first is not None and self.ctx.resolve(func) is not None  # ops.squeeze(x)
            if self.carries(func.value) or (functional and first is not None and self.carries(first)):
                self.global_use = True


def pooled_to_one(ctx: FileContext, call: cst.Call) -> bool:
    """Whether the sub-cell built by ``call`` has its output squeezed or fed to a Dense
    (past reshapes, concatenation and shape-keeping layers) in its Cell's forward pass."""
    where = attribute_of(ctx, call)
    if where is None or where[2] is not None:
        return False
    info, name, _ = where
    for fn in forward_methods(info).values():
        walk = _Walk(ctx, info, name)
        fn.body.visit(walk)
        if walk.global_use:
            return True
    return False
