"""Does the layer that takes a sub-cell's output downsample?

A pool left at MindSpore's stride 1 whose output goes straight into a layer that
downsamples itself (a convolution or pool with stride 2) is a smoothing pool in front of
a strided layer (YOLOv9's ADown/AConv, anti-aliased downsampling): stride 1 is what the
block means, since with PyTorch's stride = kernel_size the block would downsample twice.

``next_downsamples(ctx, call)`` answers it for ``self.pool = nn.AvgPool2d(2)``:
- the consumers are found as in ``cell_layers.next_layers`` (past Dropout/activations), and in
  ``construct`` also past channel splits of the output (``x1, x2 = x.chunk(2, 1)``,
  ``ops.split(x, ...)``): each piece keeps the spatial size;
- a consumer downsamples when its stride is a literal above 1, for MindSpore's
  convolutions and pools, or for a Cell class of the same file that builds one from a
  parameter of its ``__init__`` (``ConvNormAct(c1, c2, 3, 2)`` with ``s`` passed on as
  the Conv2d's stride), read through the call's arguments and the parameter defaults.
Unknown strides count as "does not downsample": the rule stays as it was.
"""

from __future__ import annotations

from typing import Dict, Iterable, List, Optional, Set

import libcst as cst

from msacclint.analysis.calls import UNKNOWN, argument, literal
from msacclint.analysis.cell_layers import PASS_THROUGH, consumers_past_pass_through
from msacclint.analysis.cells import CellInfo, attribute_of, cell_of_call, self_attr
from msacclint.analysis.context import FileContext

#: strided layers and the position of ``stride`` in their signature
_STRIDE_AT = {
    **{f"mindspore.nn.Conv{d}d": 3 for d in (1, 2, 3)},
    **{f"mindspore.nn.{kind}Pool{d}d": 1 for kind in ("Max", "Avg") for d in (1, 2, 3)},
}
#: tensor methods / ops functions that cut a tensor into pieces along channels
_SPLITS = frozenset({"chunk", "split", "tensor_split"})


def next_downsamples(ctx: FileContext, call: cst.Call) -> bool:
    where = attribute_of(ctx, call)
    if where is None:
        return False
    info, name, index = where
    if index is not None:
        following = info.attrs[name].element_nodes[index + 1:]
        callees = info.attrs[name].elements[index + 1:]
        while following and callees[0] in PASS_THROUGH:
            following, callees = following[1:], callees[1:]
        return bool(following) and _downsamples(ctx, following[0])
    consumers = set(consumers_past_pass_through(info, name)) | _consumers_past_splits(ctx, info, name)
    return any(_downsamples(ctx, info.attrs[attr].value) for attr in consumers if attr in info.attrs)


def _split_of(call: cst.Call) -> Optional[str]:
    """The name a split-like call cuts up (``x.chunk(2, 1)``, ``ops.split(x, ...)``)."""
    func = call.func
    if not isinstance(func, cst.Attribute) or func.attr.value not in _SPLITS:
        return None
    if isinstance(func.value, cst.Name) and func.value.value != "ops":
        return func.value.value
    first = call.args[0].value if call.args and call.args[0].keyword is None else None
    return first.value if isinstance(first, cst.Name) else None


def _consumers_past_splits(ctx: FileContext, info: CellInfo, name: str) -> Set[str]:
    """In ``construct``: ``x = self.<name>(x)``, then the ``self.<attr>(v)`` calls whose
    ``v`` is ``x`` or a piece split from it."""
    from msacclint.analysis.flow import flow

    if info.construct is None:
        return set()
    fl = flow(ctx, info.construct)
    held: Set[str] = set()
    found: Set[str] = set()
    for event in fl.events:
        node = event.node
        if isinstance(node, cst.Call):
            attr = self_attr(node.func)
            first = node.args[0].value if node.args else None
            if attr is not None and attr != name and isinstance(first, cst.Name) and first.value in held:
                found.add(attr)
        elif isinstance(node, cst.Assign):
            targets = _target_names(node)
            value = node.value
            if isinstance(value, cst.Call) and self_attr(value.func) == name:
                held.update(targets)
            elif isinstance(value, cst.Call) and _split_of(value) in held:
                held.update(targets)
            else:
                held.difference_update(targets)
    return found


def _target_names(node: cst.Assign) -> List[str]:
    out: List[str] = []
    for target in node.targets:
        expr = target.target
        items = expr.elements if isinstance(expr, (cst.Tuple, cst.List)) else [cst.Element(expr)]
        out.extend(e.value.value for e in items if isinstance(e.value, cst.Name))
    return out


def _downsamples(ctx: FileContext, value: cst.BaseExpression, depth: int = 0) -> bool:
    if not isinstance(value, cst.Call):
        return False
    return any(s > 1 for s in _strides(ctx, value, {}, depth))


def _strides(ctx: FileContext, call: cst.Call, bound: Dict[str, cst.BaseExpression], depth: int) -> Iterable[int]:
    """Literal strides of the strided layers ``call`` builds. ``bound`` maps the names of
    the enclosing ``__init__``'s parameters to what the caller passed."""
    callee = ctx.imports.resolve(call.func)
    if callee in _STRIDE_AT:
        signature = _signature(callee)
        arg = argument(call, "stride", signature)
        if arg is not None:
            value = arg.value
            if isinstance(value, cst.Name) and value.value in bound:
                value = bound[value.value]
            yield from _numbers(literal(value))
        return
    local = cell_of_call(ctx, call)
    if local is None or depth > 1 or "__init__" not in local.methods:
        return
    inner = _bind(local.methods["__init__"], call, bound)
    for _, built in local.assigned:
        if isinstance(built, cst.Call):
            yield from _strides(ctx, built, inner, depth + 1)


def _signature(callee: str) -> List[str]:
    if ".Conv" in callee:
        return ["in_channels", "out_channels", "kernel_size", "stride"]
    return ["kernel_size", "stride"]


def _numbers(value: object) -> Iterable[int]:
    if value is UNKNOWN:
        return
    for v in value if isinstance(value, tuple) else (value,):
        if isinstance(v, int) and not isinstance(v, bool):
            yield v


def _bind(init: cst.FunctionDef, call: cst.Call, outer: Dict[str, cst.BaseExpression]) -> Dict[str, cst.BaseExpression]:
    """``__init__``'s parameter names -> the expressions ``call`` passes (or the defaults);
    names the caller itself received are replaced by what its caller passed."""
    params = [p for p in init.params.params][1:]  # without self
    names = [p.name.value for p in params]
    bound: Dict[str, cst.BaseExpression] = {p.name.value: p.default for p in params if p.default is not None}
    for p in init.params.kwonly_params:
        if p.default is not None:
            bound[p.name.value] = p.default
    for name in names + [p.name.value for p in init.params.kwonly_params]:
        arg = argument(call, name, names)
        if arg is not None:
            bound[name] = arg.value
    return {k: outer.get(v.value, v) if isinstance(v, cst.Name) else v for k, v in bound.items()}

