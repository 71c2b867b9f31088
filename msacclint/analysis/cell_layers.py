"""Which layer a Cell's attribute holds, and the layers that take its output in ``construct``
(built on the per-Cell map of msacclint.analysis.cells).

- ``layer_of``/``entry_layer``: the MindSpore layer an attribute holds, through Cells of the
  file and containers (the first layer of a ``SequentialCell``, a Cell class's own entry);
- ``next_layers``: the layers that consume a layer's output, looking past shape-preserving
  layers (``PASS_THROUGH``: Dropout, activations) and reshapes that keep the values apart.
"""

from __future__ import annotations

from typing import List, Optional

import libcst as cst

from msacclint.analysis.cells import Attr, CellInfo, attribute_of, cells, self_attr
from msacclint.analysis.context import FileContext
from msacclint.analysis.imports import ImportTable

#: layers that leave the shape alone: the question "what takes the output" looks past them
PASS_THROUGH = frozenset({"mindspore.nn.Dropout", "mindspore.nn.Identity", "mindspore.nn.ReLU",
                          "mindspore.nn.GELU", "mindspore.nn.Sigmoid"})


def consumers_past_pass_through(info: CellInfo, name: str) -> List[str]:
    """The attrs whose calls take ``self.<name>``'s output in ``construct``, looking past
    shape-preserving layers (Dropout, activations), in name order."""
    found: List[str] = []
    seen, pending = {name}, [name]
    while pending:
        for consumer in sorted(info.consumers(pending.pop())):
            callee = info.attrs[consumer].callee if consumer in info.attrs else None
            if callee in PASS_THROUGH and consumer not in seen:
                seen.add(consumer)
                pending.append(consumer)
            elif consumer not in found:
                found.append(consumer)
    return found


def next_layers(ctx: FileContext, call: cst.Call) -> Optional[List[Optional[str]]]:
    """Resolved callees of the layers that take this sub-cell's output in ``construct``
    (or the next element of its SequentialCell), looking past shape-preserving layers such
    as Dropout; None when the call is not a sub-cell."""
    where = attribute_of(ctx, call)
    if where is None:
        return None
    info, name, index = where
    if index is not None:
        elements = info.attrs[name].elements
        following = elements[index + 1:]
        while following and following[0] in PASS_THROUGH:
            following = following[1:]
        return following[:1]
    found: List[Optional[str]] = [layer_of(ctx, info.attrs[c]) if c in info.attrs else None
                                  for c in consumers_past_pass_through(info, name)]
    if not found and info.construct is not None:
        found = _through_reshapes(ctx, info, name)
    return found


def layer_of(ctx: FileContext, attr: Attr, depth: int = 0) -> Optional[str]:
    """What a sub-cell is as a layer: its resolved callee, or for a Cell class of this file
    the layer its ``construct`` first hands its input to."""
    if attr.callee is None and isinstance(attr.value, cst.Call) and isinstance(attr.value.func, cst.Name):
        return entry_layer(ctx, attr.value.func.value, depth)
    return attr.callee


def entry_layer(ctx: FileContext, class_name: str, depth: int = 0) -> Optional[str]:
    """For a Cell class of this file, the layer its ``construct`` first hands its input to
    (``Head: x = self.reshape(x, (n, -1)); return self.fc(x)`` -> ``mindspore.ops.Reshape``),
    so that a head written as a class answers "what takes the output" like the layers it
    starts with; None when that cannot be told."""
    if ctx.imports.bindings.get(class_name) != f"{ImportTable.LOCAL}.{class_name}" or depth > 2:
        return None
    info = cells(ctx).classes.get(class_name)
    construct = info.construct if info is not None else None
    if info is None or construct is None:
        return None
    params = [p.name.value for p in construct.params.params]
    if len(params) < 2:
        return None
    from msacclint.analysis.flow import flow

    for event in flow(ctx, construct).events:
        node = event.node
        if not isinstance(node, cst.Call) or not node.args or not isinstance(node.args[0].value, cst.Name) \
                or node.args[0].value.value != params[1]:
            continue
        if _reshaped(ctx, node) is not None:
            return "mindspore.ops.Reshape"
        attr = self_attr(node.func)
        if attr is not None and attr in info.attrs:
            return layer_of(ctx, info.attrs[attr], depth + 1)
        return None
    return None


_RESHAPES = frozenset({"reshape", "view", "flatten", "squeeze", "Reshape", "Flatten", "Squeeze"})
#: sub-cells that reshape what they are given
RESHAPE_OPS = frozenset({"mindspore.ops.Reshape", "mindspore.ops.Flatten", "mindspore.nn.Flatten",
                         "mindspore.ops.Squeeze"})


def _reshaped(ctx: FileContext, call: cst.Call) -> Optional[cst.BaseExpression]:
    """The tensor a reshape-like call reshapes (``x.view(n, -1)``, ``x.reshape(s)``,
    ``ops.reshape(x, s)``, ``reshape(x, s)``, ``P.Reshape()(x, s)``), or None."""
    func = call.func
    if self_attr(func) is not None:
        return None  # a sub-cell: what it is, its attribute's callee says
    if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.attr.value in _RESHAPES \
            and func.value.value not in ctx.imports.bindings:
        return func.value  # a method of the tensor itself
    if isinstance(func, cst.Call):  # P.Reshape()(x, shape)
        func = func.func
    tail = func.value if isinstance(func, cst.Name) else func.attr.value if isinstance(func, cst.Attribute) else None
    if tail in _RESHAPES and call.args and call.args[0].keyword is None and not call.args[0].star:
        return call.args[0].value
    return None


def _keeps_values(ctx: FileContext, info: CellInfo, call: cst.Call, var: str) -> bool:
    """``call`` reshapes ``var`` or passes it through a shape-preserving layer."""
    attr = self_attr(call.func)
    if attr is not None:  # self.drop(x), or self.reshape(x, s) with self.reshape = ops.Reshape()
        if attr not in info.attrs or not call.args or not isinstance(call.args[0].value, cst.Name) \
                or call.args[0].value.value != var:
            return False
        return info.attrs[attr].callee in PASS_THROUGH or info.attrs[attr].callee in RESHAPE_OPS
    data = _reshaped(ctx, call)
    return isinstance(data, cst.Name) and data.value == var


def _through_reshapes(ctx: FileContext, info: CellInfo, name: str) -> List[Optional[str]]:
    """In ``construct``: ``x = self.<name>(x)`` then, past reshapes of ``x`` and
    shape-preserving layers, the first ``self.<attr>(x)``: [its callee], else []."""
    from msacclint.analysis.flow import flow

    if info.construct is None:
        return []
    fl = flow(ctx, info.construct)
    var: Optional[str] = None
    start: Optional[int] = None
    for definitions in fl.defs.values():
        for d in definitions:
            if d.index is None and isinstance(d.value, cst.Call) and self_attr(d.value.func) == name:
                var, start = d.name, d.order
                break
    if var is None or start is None:
        return []
    for event in fl.events[start + 1:]:
        node = event.node
        if isinstance(node, cst.Call):
            attr = self_attr(node.func)
            first = node.args[0].value if node.args else None
            if isinstance(first, cst.Call):  # self.fc(x.view(n, -1)): the reshape inline
                first = _reshaped(ctx, first)
            if attr is not None and isinstance(first, cst.Name) and first.value == var:
                callee = layer_of(ctx, info.attrs[attr]) if attr in info.attrs else None
                if callee not in PASS_THROUGH:
                    return [callee]
        elif isinstance(node, cst.Assign) and any(isinstance(t.target, cst.Name) and t.target.value == var
                                                   for t in node.targets):
            value = node.value
            if not (isinstance(value, cst.Call) and _keeps_values(ctx, info, value, var)):
                return []
    return []
