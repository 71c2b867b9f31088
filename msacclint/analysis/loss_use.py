"""How a Cell uses a loss it builds in ``__init__``: one-hot labels? reduced output?

For ``self.ce = nn.SoftmaxCrossEntropyWithLogits()`` in a Cell's ``__init__``, the calls
``self.ce(logits, labels)`` in that Cell's ``construct`` answer two questions:
- ``onehot_labels``: the labels argument is a one-hot op's result (``ops.OneHot()(...)``,
  ``ops.one_hot(...)``, ``self.onehot(...)`` with ``self.onehot = ops.OneHot()``), directly
  or through a local name assigned from one; or the labels are reshaped to the very shape
  the logits are reshaped to (``ce(reshape(logits, (-1, c)), reshape(label, (-1, c)))``, a
  dense mask with a class axis, as segmentation losses pass it);
- ``reduced``: the loss output reaches a reduction (``ReduceMean``/``ReduceSum``/
  ``ops.mean``/``ops.sum`` as a call or a ``self.<op>``, or ``.mean()``/``.sum()``) in
  ``construct``, directly or through local names (``x = out * mask; s = self.sum(x)``).
This is the model-zoo idiom (label smoothing, masked detection and segmentation losses) in
which a loss's defaults — ``sparse=False``, ``reduction='none'`` — are exactly right.
``handling(ctx, call)`` is None when the call is not such a sub-cell; an answer is False
when it cannot be shown.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Set

import libcst as cst

from msacclint.analysis.cells import CellInfo, cells, inherited_attr, self_attr
from msacclint.analysis.context import FileContext
from msacclint.analysis.flow import flow
from msacclint.analysis.walk import walk

_REDUCTIONS = frozenset({"ReduceMean", "ReduceSum", "mean", "sum", "reduce_mean", "reduce_sum"})
_ONEHOTS = frozenset({"OneHot", "one_hot"})


def _last(qualname: Optional[str]) -> Optional[str]:
    if not qualname or not qualname.startswith("mindspore."):
        return None
    return qualname.rsplit(".", 1)[-1]


def _op_name(ctx: FileContext, info: CellInfo, call: cst.Call) -> Optional[str]:
    """The last part of the MindSpore op a call runs: ``ops.ReduceSum()(x)``,
    ``ops.reduce_sum(x)``, ``self.sum(x)`` with ``self.sum = ops.ReduceSum()``."""
    func = call.func
    attr = self_attr(func)
    if attr is not None:
        held = inherited_attr(ctx, info, attr)
        if held is None and _framework_loss(ctx, info):
            return _LOSS_BASE_OPS.get(attr)
        return _last(held.callee) if held is not None else None
    if isinstance(func, cst.Call):  # P.ReduceSum(False)(x)
        return _last(ctx.resolve(func.func))
    return _last(ctx.resolve(func))


#: what MindSpore's LossBase/_Loss.__init__ sets on self (nn/loss/loss.py): reducers, and
#: get_loss, which applies the base's reduction ('mean' unless the subclass passes another)
_LOSS_BASES = frozenset({"mindspore.nn.LossBase", "mindspore.nn._Loss"})
_LOSS_BASE_OPS = {"reduce_mean": "ReduceMean", "reduce_sum": "ReduceSum", "get_loss": "reduce_mean"}


def _framework_loss(ctx: FileContext, info: CellInfo, depth: int = 0) -> bool:
    """The class derives, directly or through classes of the file, from MindSpore's loss
    base, and does not ask it for reduction='none'."""
    if depth > 3 or "'none'" in cst.Module([]).code_for_node(info.node) \
            or '"none"' in cst.Module([]).code_for_node(info.node):
        return False
    for base, node in zip(info.bases, info.node.bases):
        if base in _LOSS_BASES:
            return True
        parent = cells(ctx).classes.get(node.value.value) if isinstance(node.value, cst.Name) else None
        if parent is not None and parent is not info and _framework_loss(ctx, parent, depth + 1):
            return True
    return False


def _is_reduction(ctx: FileContext, info: CellInfo, call: cst.Call) -> bool:
    if _op_name(ctx, info, call) in _REDUCTIONS:
        return True
    func = call.func
    return (isinstance(func, cst.Attribute) and func.attr.value in ("mean", "sum")
            and self_attr(func) is None)


def _is_onehot(ctx: FileContext, info: CellInfo, expr: cst.BaseExpression) -> bool:
    return isinstance(expr, cst.Call) and _op_name(ctx, info, expr) in _ONEHOTS


def _mentions(expr: cst.CSTNode, names: Set[str], nodes: Set[int]) -> bool:
    found = []

    class Finder(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            if id(node) in nodes or (isinstance(node, cst.Name) and node.value in names):
                found.append(node)
                return False
            return not found

    walk(expr, Finder())
    return bool(found)


def _contains_onehot(ctx: FileContext, info: CellInfo, expr: cst.CSTNode) -> bool:
    found = []

    class Finder(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> bool:
            if _is_onehot(ctx, info, node):
                found.append(node)
            return not found

    walk(expr, Finder())
    return bool(found)


def _reshape_target(ctx: FileContext, info: CellInfo, expr: cst.BaseExpression) -> Optional[str]:
    """The code of the shape a reshape call gives its tensor (``ops.reshape(x, s)``,
    ``self.reshape(x, s)`` with ``self.reshape = ops.Reshape()``, ``x.reshape(s)``/``x.view(s)``)."""
    if not isinstance(expr, cst.Call):
        return None
    positional = [a.value for a in expr.args if a.keyword is None and not a.star]
    if _op_name(ctx, info, expr) in ("Reshape", "reshape") and len(positional) == 2:
        shape = positional[1]
    elif isinstance(expr.func, cst.Attribute) and expr.func.attr.value in ("reshape", "view") \
            and self_attr(expr.func) is None and _op_name(ctx, info, expr) is None and len(positional) == 1:
        shape = positional[0]
    else:
        return None
    return cst.Module([]).code_for_node(shape)


def _dense_like_logits(ctx: FileContext, info: CellInfo, use: cst.Call, labels: cst.BaseExpression) -> bool:
    positional = [a.value for a in use.args if a.keyword is None and not a.star]
    if not positional:
        return False
    shape = _reshape_target(ctx, info, labels)
    return shape is not None and shape == _reshape_target(ctx, info, positional[0])


def _labels(call: cst.Call) -> Optional[cst.BaseExpression]:
    positional = [a for a in call.args if a.keyword is None and not a.star]
    if len(positional) >= 2:
        return positional[1].value
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value in ("labels", "label", "target"):
            return arg.value
    return None


def handling(ctx: FileContext, call: cst.Call) -> Optional[Dict[str, bool]]:
    """{"onehot_labels": ..., "reduced": ...} for a loss built as ``self.x = <call>`` in a
    Cell's ``__init__`` and called in its ``construct``; None otherwise."""
    for info in cells(ctx).classes.values():
        for attr in info.attrs.values():
            if attr.value is call:
                return _handling(ctx, info, attr.name)
    return None


def _handling(ctx: FileContext, info: CellInfo, name: str) -> Optional[Dict[str, bool]]:
    construct = info.construct
    if construct is None:
        return None
    fl = flow(ctx, construct)
    uses: List[cst.Call] = [e.node for e in fl.calls() if self_attr(e.node.func) == name]
    if not uses:
        return None
    onehot = True
    for use in uses:
        labels = _labels(use)
        if labels is None:
            onehot = False
        elif not _is_onehot(ctx, info, labels) and not _dense_like_logits(ctx, info, use, labels):
            order = fl.order(use)
            defs = [d for d in fl.defs.get(labels.value, ()) if order is None or d.order < order] \
                if isinstance(labels, cst.Name) else []
            if not any(_contains_onehot(ctx, info, d.value) for d in defs):
                onehot = False
    holders: Set[str] = set()
    outputs = {id(u) for u in uses}
    reduced = False
    for event in fl.events:
        node = event.node
        if isinstance(node, cst.Call):
            if _is_reduction(ctx, info, node) and any(_mentions(a.value, holders, outputs) for a in node.args) \
                    or (_is_reduction(ctx, info, node) and isinstance(node.func, cst.Attribute)
                        and self_attr(node.func) is None and _mentions(node.func.value, holders, outputs)):
                reduced = True
        elif isinstance(node, cst.Assign) and _mentions(node.value, holders, outputs):
            for target in node.targets:
                if isinstance(target.target, cst.Name):
                    holders.add(target.target.value)
    return {"onehot_labels": onehot, "reduced": reduced}
