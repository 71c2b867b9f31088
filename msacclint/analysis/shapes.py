"""Spatial sizes along a network, where they can be decided from the code.

A pool at the end of a network often covers the whole feature map: ResNet-50's
``nn.AvgPool2d(7)`` meets a 7x7 map when the images are 224x224 (224 -> conv1 /2 -> 112 ->
max pool /2 -> 56 -> 28 -> 14 -> 7), and a 7x7 kernel over a 7x7 map has one window,
whatever the stride. Whether a pool is such a global pool is decided here by following the
spatial size (height, width) from a known input size through the layers in front of it.

- **The input size** (``input_size``): the size the file's image pipeline produces (the
  last of ``Resize((h, w))``, ``CenterCrop``, ``RandomCrop``, ``RandomResizedCrop``,
  ``RandomCropDecodeResize`` of ``mindspore.dataset``, their sizes read as literals, module
  constants or, with the project layer, config values such as ``cfg.image_size``), or the
  last two dimensions of a dummy input (``ops.ones((1, 3, 224, 224))``,
  ``np.random.randn(1, 3, 224, 224)``) handed to a network or to ``export``. Every such
  size in the file must agree; otherwise the size is unknown.
- **Through the layers**: the ``construct`` of the Cell holding the pool is read statement
  by statement from its input: convolutions and pools change the size by their kernel,
  stride, padding and pad mode (MindSpore's defaults: ``Conv2d`` pads 'same', pools are
  'valid'), layers that keep the size (norms, activations, dropout) keep it, a
  ``SequentialCell`` of visible layers applies them in turn, a Cell class of the file is
  read the same way with its constructor's parameters bound to what the caller passes, and
  a sum of two branches keeps their common size. A Cell built inside another is given the
  size at its call there.
- **Unknown stays unknown**: a layer or a value that cannot be read (a helper that builds
  layers in a loop, a reshape, a resize, a size from the command line) makes the size
  unknown from there on, and nothing is concluded.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Tuple

import libcst as cst

from msacclint.analysis.calls import UNKNOWN, argument
from msacclint.analysis.cells import CellInfo, attribute_of, cells, self_attr
from msacclint.analysis.containers import CONTAINERS, elements
from msacclint.analysis.context import FileContext, Question
from msacclint.analysis.layer_sizes import (
    MINT_POOL_SIGNATURE,
    POOL_SIGNATURE,
    Bound,
    Size,
    conv_size,
    is_int,
    pair,
    pool_size,
    value_of,
)

#: dataset operations that set the image size, and whether an int size sets both sides
#: (Resize(256) scales the shorter side to 256 and keeps the aspect ratio: no size)
_SIZE_OPS = {"Resize": False, "CenterCrop": True, "RandomCrop": True, "RandomResizedCrop": True,
             "RandomCropDecodeResize": True}
#: array constructors whose shape (a tuple, or the positional dimensions) makes a dummy input
_ARRAYS = frozenset({
    "numpy.ones", "numpy.zeros", "numpy.empty", "numpy.full", "numpy.random.randn", "numpy.random.rand",
    "numpy.random.random", "numpy.random.normal", "numpy.random.uniform", "numpy.random.standard_normal",
    "mindspore.ops.ones", "mindspore.ops.zeros", "mindspore.ops.randn", "mindspore.ops.rand",
    "mindspore.ops.standard_normal", "mindspore.numpy.ones", "mindspore.numpy.zeros", "mindspore.numpy.randn",
    "mindspore.mint.ones", "mindspore.mint.zeros", "mindspore.mint.randn", "mindspore.mint.rand",
})
#: where the shape is among the arguments of those constructors
_SHAPE_PARAMETER = {"numpy.random.normal": ("loc", "scale", "size"), "numpy.random.uniform": ("low", "high", "size"),
                    "numpy.full": ("shape", "fill_value")}
_EXPORT = frozenset({"mindspore.export", "mindspore.train.serialization.export"})

#: layers (and primitives) that keep the spatial size of their input
KEEPS_SIZE = frozenset("mindspore.nn." + name for name in (
    "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "SyncBatchNorm", "GroupNorm", "InstanceNorm2d", "LayerNorm",
    "ReLU", "ReLU6", "LeakyReLU", "PReLU", "GELU", "SiLU", "Sigmoid", "Tanh", "HSwish", "HSigmoid", "Mish", "ELU",
    "Softmax", "Dropout", "Dropout2d", "Identity")) | frozenset("mindspore.mint.nn." + name for name in (
        "BatchNorm2d", "GroupNorm", "ReLU", "GELU", "SiLU", "Sigmoid", "Tanh", "Dropout", "Identity")) | frozenset(
    "mindspore.ops." + name for name in ("ReLU", "ReLU6", "Sigmoid", "Tanh", "GeLU", "HSwish", "Softmax", "Mish",
                                         "relu", "relu6", "sigmoid", "tanh", "gelu", "silu", "hardswish", "mish",
                                         "leaky_relu", "dropout", "softmax")) | frozenset(
    "mindspore.mint.nn.functional." + name for name in ("relu", "gelu", "silu", "sigmoid", "dropout"))
_CONVS = frozenset({"mindspore.nn.Conv2d", "mindspore.mint.nn.Conv2d"})
_POOLS = frozenset({"mindspore.nn.MaxPool2d", "mindspore.nn.AvgPool2d", "mindspore.mint.nn.MaxPool2d",
                    "mindspore.mint.nn.AvgPool2d"})
#: how deep Cells inside Cells are followed
_DEPTH = 6


# -- the input size ------------------------------------------------------------------------------
def input_size(ctx: FileContext) -> Optional[Size]:
    """The spatial size of the images the file's networks are given, when every source in the
    file says the same (see the module's docstring); None otherwise."""
    return ctx.ask(_INPUT_SIZE)


def _input_size(ctx: FileContext) -> Optional[Size]:
    from msacclint.analysis.facts import facts

    found: List[Size] = []
    crops = False
    #: Resize(256) scales the shorter side and keeps the aspect ratio: a size only when a crop
    #: of the file then sets both sides
    aspect_kept = False
    for call in facts(ctx).in_order:
        callee = ctx.callee(call) or ""
        last = callee.rsplit(".", 1)[-1]
        if callee.startswith("mindspore.dataset.") and last in _SIZE_OPS:
            arg = argument(call, "size", ("size",))
            if arg is None:
                continue
            value = value_of(ctx, arg.value, {})
            size = pair(value, square=True)
            if size is None:
                return None  # a size the pipeline sets that cannot be read
            if _SIZE_OPS[last] or not is_int(value):
                crops = crops or _SIZE_OPS[last]
                found.append(size)
            else:
                aspect_kept = True
        elif callee in _ARRAYS and _fed_to_network(ctx, call):
            shape = _dummy_shape(ctx, call, callee)
            if shape is not None and len(shape) == 4:
                found.append((shape[2], shape[3]))
    if aspect_kept and not crops:
        return None
    sizes = set(found)
    return sizes.pop() if len(sizes) == 1 else None


_INPUT_SIZE: Question[Optional[Size]] = Question("shapes.input_size", _input_size)


def _dummy_shape(ctx: FileContext, call: cst.Call, callee: str) -> Optional[Tuple[int, ...]]:
    parameters = _SHAPE_PARAMETER.get(callee, ("shape",))
    name = "size" if "size" in parameters else "shape"
    arg = argument(call, name, parameters)
    if arg is not None:
        value = value_of(ctx, arg.value, {})
        shape = value if isinstance(value, tuple) else None
    elif callee.endswith(("randn", ".rand")) and call.args and all(a.keyword is None for a in call.args):
        shape = tuple(value_of(ctx, a.value, {}) for a in call.args)
    else:
        shape = None
    if shape is None or not all(is_int(v) for v in shape):
        return None
    return tuple(int(v) for v in shape)


def _fed_to_network(ctx: FileContext, call: cst.Call) -> bool:
    """The array made by ``call`` (directly, through ``Tensor(...)``, or through the name it
    is assigned to) is given to ``export`` or to a call of an object the file built (``net(x)``)."""
    from msacclint.analysis.scopes import scopes

    fl = scopes(ctx).owner(call)
    if fl is None:
        return False
    names = {d.name for ds in fl.defs.values() for d in ds if d.index is None and _holds(d.value, call)}
    for event in fl.calls():
        node = event.node
        if not any(_holds(a.value, call) or (isinstance(a.value, cst.Name) and a.value.value in names)
                   for a in node.args):
            continue
        callee = ctx.callee(node)
        if callee in _EXPORT:
            return True
        if isinstance(node.func, cst.Name) and callee is None:
            found = scopes(ctx).resolve(fl, node.func.value, event.order)
            if found is not None and isinstance(found[1].value, cst.Call) and \
                    not (ctx.callee(found[1].value) or "").startswith(("numpy.", "mindspore.ops", "mindspore.dataset")):
                return True
    return False


def _holds(value: Optional[cst.BaseExpression], call: cst.Call) -> bool:
    """``value`` is ``call`` or a ``Tensor(call, ...)``/``call.astype(...)`` around it."""
    while value is not None:
        if value is call:
            return True
        if isinstance(value, cst.Call) and value.args and value.args[0].keyword is None:
            value = value.args[0].value if not isinstance(value.func, cst.Attribute) or \
                value.func.value is not call else value.func.value
        elif isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute):
            value = value.func.value
        else:
            return False
    return False


def kernel_of(ctx: FileContext, call: cst.Call, bound: Optional[Bound] = None) -> Optional[Size]:
    """The (h, w) kernel of a MindSpore pool, when it can be read."""
    callee = ctx.callee(call) or ""
    signature = MINT_POOL_SIGNATURE if callee.startswith("mindspore.mint.") else POOL_SIGNATURE
    arg = argument(call, "kernel_size", signature)
    if arg is None:
        return None
    return pair(value_of(ctx, arg.value, bound if bound is not None else _bound_of(ctx, call)))


def _layer(ctx: FileContext, built: cst.BaseExpression, size: Optional[Size], bound: Bound,
           depth: int) -> Optional[Size]:
    """The size after the layer that ``built`` (an expression of ``__init__``) makes."""
    if size is None or depth > _DEPTH or not isinstance(built, cst.Call):
        return None
    callee = ctx.callee(built)
    if callee in KEEPS_SIZE:
        return size
    if callee in _CONVS:
        return conv_size(ctx, built, callee, size, bound)
    if callee in _POOLS:
        return pool_size(ctx, built, callee, size, bound)
    if callee in CONTAINERS:
        layers = elements(built, ctx.resolve)
        for layer in layers or ():
            size = _layer(ctx, layer, size, bound, depth + 1)
        return size if layers is not None else None
    if isinstance(built.func, cst.Name) and built.func.value in cells(ctx).classes:
        info = cells(ctx).classes[built.func.value]
        return _through_class(ctx, info, size, _bind(ctx, info, built, bound), depth + 1)
    return None


def _bind(ctx: FileContext, info: CellInfo, call: cst.Call, outer: Bound) -> Bound:
    """The class's ``__init__`` parameters -> the values ``call`` passes (or the defaults)."""
    init = info.methods.get("__init__")
    if init is None:
        return {}
    params = [p for p in init.params.params][1:]
    names = [p.name.value for p in params]
    out: Bound = {}
    for p in params + list(init.params.kwonly_params):
        arg = argument(call, p.name.value, names)
        given = arg.value if arg is not None else p.default
        out[p.name.value] = value_of(ctx, given, outer) if given is not None else UNKNOWN
    return out


def _bound_of(ctx: FileContext, call: cst.Call) -> Bound:
    """For a layer built in a class's ``__init__``: the class's parameters as the one call of
    the class in the file binds them (or their defaults when it is never called here)."""
    where = attribute_of(ctx, call)
    if where is None:
        return {}
    info = where[0]
    sites = _constructions(ctx, info.name)
    if len(sites) > 1:
        return {}
    if sites:
        return _bind(ctx, info, sites[0], {})
    init = info.methods.get("__init__")
    if init is None:
        return {}
    return {p.name.value: value_of(ctx, p.default, {}) if p.default is not None else UNKNOWN
            for p in [*init.params.params[1:], *init.params.kwonly_params]}


def _constructions(ctx: FileContext, name: str) -> List[cst.Call]:
    from msacclint.analysis.facts import facts

    return [c for c in facts(ctx).in_order if isinstance(c.func, cst.Name) and c.func.value == name]


# -- through a construct ---------------------------------------------------------------------------
class _Reader:
    """Reads a ``construct`` statement by statement, keeping the size of each local name;
    stops at ``target`` (a ``self.<attr>`` call or the sub-cell whose input is asked for)."""

    def __init__(self, ctx: FileContext, info: CellInfo, bound: Bound, depth: int,
                 target: Optional[str] = None) -> None:
        self.ctx, self.info, self.bound, self.depth, self.target = ctx, info, bound, depth, target
        #: the size of the target's input, once met (None inside: met, not known)
        self.at_target: List[Optional[Size]] = []
        self.returned: List[Optional[Size]] = []

    def run(self, fn: cst.FunctionDef, size: Size) -> None:
        params = [p.name.value for p in fn.params.params]
        if len(params) < 2:
            return
        env: Dict[str, Optional[Size]] = {params[1]: size}
        self._block(fn.body, env)

    def _block(self, body: cst.BaseSuite, env: Dict[str, Optional[Size]]) -> None:
        statements: Sequence[cst.CSTNode] = body.body if isinstance(body, cst.IndentedBlock) else [body]
        for statement in statements:
            self._statement(statement, env)

    def _statement(self, statement: cst.CSTNode, env: Dict[str, Optional[Size]]) -> None:
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                self._small(small, env)
        elif isinstance(statement, cst.SimpleStatementSuite):
            for small in statement.body:
                self._small(small, env)
        elif isinstance(statement, cst.If):
            self._size(statement.test, env)
            branches = [dict(env), dict(env)]
            self._block(statement.body, branches[0])
            if statement.orelse is not None:
                orelse = statement.orelse
                if isinstance(orelse, cst.Else):
                    self._block(orelse.body, branches[1])
                else:
                    self._statement(orelse, branches[1])
            for name in set(branches[0]) | set(branches[1]):
                first, second = branches[0].get(name), branches[1].get(name)
                env[name] = first if first == second else None
        else:  # loops, with, try: whatever they assign is unknown after them
            for name in _assigned_in(statement):
                env[name] = None
            for node in _calls_in(statement):
                if self._is_target(node):
                    self.at_target.append(None)

    def _small(self, small: cst.CSTNode, env: Dict[str, Optional[Size]]) -> None:
        if isinstance(small, cst.Assign):
            size = self._size(small.value, env)
            for target in small.targets:
                if isinstance(target.target, cst.Name):
                    env[target.target.value] = size
                else:
                    for name in _names(target.target):
                        env[name] = None
        elif isinstance(small, cst.AugAssign) and isinstance(small.target, cst.Name):
            other = self._size(small.value, env)
            env[small.target.value] = _joined(env.get(small.target.value), other)
        elif isinstance(small, cst.AnnAssign) and small.value is not None and isinstance(small.target, cst.Name):
            env[small.target.value] = self._size(small.value, env)
        elif isinstance(small, cst.Return):
            self.returned.append(self._size(small.value, env) if small.value is not None else None)
        elif isinstance(small, cst.Expr):
            self._size(small.value, env)

    def _is_target(self, node: cst.Call) -> bool:
        return self.target is not None and self_attr(node.func) == self.target

    def _size(self, expr: cst.BaseExpression, env: Dict[str, Optional[Size]]) -> Optional[Size]:
        if isinstance(expr, cst.Name):
            return env.get(expr.value)
        if isinstance(expr, cst.BinaryOperation):
            return _joined(self._size(expr.left, env), self._size(expr.right, env))
        if not isinstance(expr, cst.Call):
            for node in _calls_in(expr):  # a target met inside something not followed
                self._size(node, env)
            return None
        first = expr.args[0].value if expr.args and expr.args[0].keyword is None else None
        inputs = [self._size(a.value, env) for a in expr.args]
        given = inputs[0] if first is not None else None
        attr = self_attr(expr.func)
        if attr is not None:
            if attr == self.target:
                self.at_target.append(given)
            built = self.info.attrs.get(attr)
            if built is None:
                return None
            return _layer(self.ctx, built.value, given, self.bound, self.depth)
        callee = self.ctx.callee(expr)
        if callee in KEEPS_SIZE:
            return given
        if isinstance(expr.func, cst.Attribute) and not inputs:
            self._size(expr.func.value, env)
        return None


def _joined(first: Optional[Size], second: Optional[Size]) -> Optional[Size]:
    """The size of an elementwise result of two tensors (a residual sum): their common size;
    a side whose size is unknown (a scalar, a bias) leaves the other's."""
    if first is None:
        return second
    if second is None or first == second:
        return first
    return None


def _names(node: cst.BaseExpression) -> List[str]:
    if isinstance(node, cst.Name):
        return [node.value]
    if isinstance(node, (cst.Tuple, cst.List)):
        return [n for e in node.elements for n in _names(e.value)]
    return []


def _assigned_in(node: cst.CSTNode) -> List[str]:
    from msacclint.analysis.walk import descendants

    out: List[str] = []
    for child in descendants(node):
        if isinstance(child, cst.AssignTarget):
            out.extend(_names(child.target))
        elif isinstance(child, (cst.AugAssign, cst.AnnAssign)):
            out.extend(_names(child.target))
        elif isinstance(child, (cst.For, cst.CompFor)):
            out.extend(_names(child.target))
    return out


def _calls_in(node: cst.CSTNode) -> List[cst.Call]:
    from msacclint.analysis.walk import descendants

    return [child for child in descendants(node) if isinstance(child, cst.Call)]


def _through_class(ctx: FileContext, info: CellInfo, size: Size, bound: Bound, depth: int) -> Optional[Size]:
    """The size a Cell class of the file returns for an input of ``size``."""
    construct = info.construct
    if construct is None or depth > _DEPTH:
        return None
    reader = _Reader(ctx, info, bound, depth)
    reader.run(construct, size)
    sizes = set(reader.returned)
    return sizes.pop() if len(sizes) == 1 else None


# -- the question a rule asks ----------------------------------------------------------------------
def _class_input(ctx: FileContext, info: CellInfo, depth: int = 0) -> Optional[Tuple[Size, Bound]]:
    """The size of the input the Cell class is given, and its bound parameters: the file's
    input size for a network the file builds outside any Cell, the size at its call for a
    Cell built as a sub-cell of another class of the file."""
    size = input_size(ctx)
    if size is None or depth > _DEPTH:
        return None
    sites = _constructions(ctx, info.name)
    if not sites:
        return None
    outer = [attribute_of(ctx, site) for site in sites]
    if all(o is None for o in outer):  # built in a function or at module level: fed the data
        return (size, _bind(ctx, info, sites[0], {})) if len(sites) == 1 else (size, {})
    if len(sites) != 1 or outer[0] is None:
        return None
    parent, attr, index = outer[0]
    if index is not None:
        return None
    at = input_of(ctx, parent, attr, depth + 1)
    return (at, _bind(ctx, info, sites[0], at_bound(ctx, parent, depth + 1))) if at is not None else None


def at_bound(ctx: FileContext, info: CellInfo, depth: int) -> Bound:
    given = _class_input(ctx, info, depth)
    return given[1] if given is not None else {}


def input_of(ctx: FileContext, info: CellInfo, attr: str, depth: int = 0) -> Optional[Size]:
    """The spatial size of the input ``construct`` hands to ``self.<attr>`` (one value for
    every call of it), or None."""
    given = _class_input(ctx, info, depth)
    if given is None or info.construct is None:
        return None
    size, bound = given
    reader = _Reader(ctx, info, bound, depth, target=attr)
    reader.run(info.construct, size)
    sizes = set(reader.at_target)
    return sizes.pop() if len(sizes) == 1 else None


def map_size_at(ctx: FileContext, call: cst.Call) -> Optional[Size]:
    """The spatial size of the feature map that the layer built by ``call`` is given: a
    sub-cell of a Cell class (``self.pool = nn.AvgPool2d(7)``), an element of a
    ``SequentialCell`` attribute, or an element of a ``SequentialCell`` the file builds as
    its network. None when it cannot be decided."""
    where = attribute_of(ctx, call)
    if where is not None:
        info, attr, index = where
        size = input_of(ctx, info, attr)
        if index is None or size is None:
            return size
        bound = at_bound(ctx, info, 0)
        for layer in info.attrs[attr].element_nodes[:index]:
            size = _layer(ctx, layer, size, bound, 1)
        return size
    return _in_container(ctx, call)


def _in_container(ctx: FileContext, call: cst.Call) -> Optional[Size]:
    """``call`` is a layer of a SequentialCell built outside any Cell (a network written as a
    container, in a script or a notebook): the size after the layers in front of it."""
    from msacclint.analysis.facts import facts

    size = input_size(ctx)
    if size is None:
        return None
    for container in facts(ctx).in_order:
        if ctx.callee(container) not in CONTAINERS or attribute_of(ctx, container) is not None:
            continue
        layers = elements(container, ctx.resolve)
        if layers is None or not any(layer is call for layer in layers):
            continue
        for layer in layers:
            if layer is call:
                return size
            size = _layer(ctx, layer, size, {}, 1)
    return None


def covers_whole_map(ctx: FileContext, call: cst.Call) -> bool:
    """The pool built by ``call`` has a kernel as large as the feature map it is given (a
    global pool: one window, whatever the stride)."""
    kernel = kernel_of(ctx, call)
    if kernel is None:
        return False
    size = map_size_at(ctx, call)
    return size is not None and size == kernel
