"""What a file says about its losses and labels.

- ``loss_options``: the literal ``sparse``/``reduction`` of a built-in loss construction;
- ``dataset_label_kind``: "int" when the file's dataset pipeline casts the label column to
  an integer type, "onehot" when it one-hot encodes it (None when both or neither);
- ``label_kind``: the same for a label expression inside one function (``ops.cast(y,
  ms.int32)``, ``y.astype(ms.int32)``, ``ops.one_hot(...)``);
- ``unreduced_return``: whether a function returns an element-wise loss (a loss built with
  ``reduction='none'``, ``ops.square``/``ops.abs``/``** 2``) with no reduction after it.
Everything answers None when it cannot be decided.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional, Union

import libcst as cst

from msacclint.analysis.calls import argument, literal
from msacclint.analysis.context import FileContext, Question
from msacclint.analysis.facts import facts
from msacclint.analysis.flow import FunctionFlow, flow
from msacclint.analysis.walk import own_nodes

INT_TYPES = frozenset("mindspore." + t for t in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                                                 "uint64")) | frozenset("numpy." + t for t in ("int8", "int16",
                                                                                               "int32", "int64"))
TYPECAST = "mindspore.dataset.transforms.TypeCast"
ONEHOT_OPS = frozenset({"mindspore.dataset.transforms.OneHot", "mindspore.ops.one_hot", "mindspore.ops.OneHot",
                        "mindspore.nn.OneHot"})
SOFTMAX_CE = "mindspore.nn.SoftmaxCrossEntropyWithLogits"
ELEMENTWISE = frozenset({"mindspore.ops.square", "mindspore.ops.abs", "mindspore.ops.Square", "mindspore.ops.Abs"})


@dataclass
class LossOptions:
    api: str
    #: literal value, or UNKNOWN when not literal, or None when not given
    sparse: object
    reduction: object


def is_builtin_loss(name: Optional[str]) -> bool:
    return name is not None and (name == SOFTMAX_CE or (name.startswith("mindspore.nn.") and name.endswith("Loss")))


def loss_options(ctx: FileContext, call: cst.BaseExpression) -> Optional[LossOptions]:
    if not isinstance(call, cst.Call):
        return None
    api = ctx.resolve(call.func)
    if api is None or not is_builtin_loss(api):
        return None
    if api == SOFTMAX_CE:
        sparse = argument(call, "sparse", ("sparse", "reduction"))
        reduction = argument(call, "reduction", ("sparse", "reduction"))
    else:
        sparse = None
        reduction = next((a for a in call.args if a.keyword is not None and a.keyword.value == "reduction"), None)
    return LossOptions(api, None if sparse is None else literal(sparse.value),
                       None if reduction is None else literal(reduction.value))


def _int_dtype(ctx: FileContext, node: cst.BaseExpression) -> bool:
    return ctx.resolve(node) in INT_TYPES


def _is_typecast_int(ctx: FileContext, expr: cst.BaseExpression) -> Optional[bool]:
    """True: TypeCast to int; False: OneHot; None: neither."""
    if isinstance(expr, cst.Name):
        d = flow(ctx, ctx.module).definition(expr.value)
        if d is None or len(flow(ctx, ctx.module).defs.get(expr.value, ())) != 1:
            return None
        expr = d.value
    if not isinstance(expr, cst.Call):
        return None
    callee = ctx.resolve(expr.func)
    if callee == TYPECAST and expr.args and _int_dtype(ctx, expr.args[0].value):
        return True
    if callee in ONEHOT_OPS:
        return False
    return None


def _dataset_label_kind(ctx: FileContext) -> Optional[str]:
    kinds = set()
    for call in facts(ctx).method_calls("map"):
        columns = next((a.value for a in call.args if a.keyword and a.keyword.value == "input_columns"), None)
        ops_ = next((a.value for a in call.args if a.keyword and a.keyword.value == "operations"), None)
        if columns is None or ops_ is None:
            continue
        value = literal(columns)
        names = (value,) if isinstance(value, str) else value if isinstance(value, tuple) else ()
        if not any(isinstance(n, str) and "label" in n.lower() for n in names):
            continue
        items = [e.value for e in ops_.elements] if isinstance(ops_, (cst.List, cst.Tuple)) else [ops_]
        for item in items:
            verdict = _is_typecast_int(ctx, item)
            if verdict is not None:
                kinds.add("int" if verdict else "onehot")
    return kinds.pop() if len(kinds) == 1 else None


_LABEL_KIND = Question("dataset_label_kind", _dataset_label_kind)


def dataset_label_kind(ctx: FileContext) -> Optional[str]:
    """"int" / "onehot" from ``.map(operations=..., input_columns="label")`` calls."""
    return ctx.ask(_LABEL_KIND)


def label_kind(ctx: FileContext, scope: Union[cst.FunctionDef, cst.Module], expr: cst.BaseExpression,
               before: Optional[int]) -> Optional[str]:
    """"int" / "onehot" for a label expression in one function."""
    if isinstance(expr, cst.Name):
        chain = flow(ctx, scope).chain(expr.value, before)
        if not chain:
            return None
        expr = chain[0].value
    if not isinstance(expr, cst.Call):
        return None
    callee = ctx.resolve(expr.func)
    if callee in ONEHOT_OPS or (isinstance(expr.func, cst.Call) and ctx.resolve(expr.func.func) in ONEHOT_OPS):
        return "onehot"
    if callee == "mindspore.ops.cast" and len(expr.args) >= 2 and _int_dtype(ctx, expr.args[1].value):
        return "int"
    if isinstance(expr.func, cst.Call) and ctx.resolve(expr.func.func) == "mindspore.ops.Cast" \
            and len(expr.args) >= 2 and _int_dtype(ctx, expr.args[1].value):
        return "int"
    if isinstance(expr.func, cst.Attribute) and expr.func.attr.value == "astype" and expr.args \
            and _int_dtype(ctx, expr.args[0].value):
        return "int"
    return None


#: resolves ``self.<attr>`` / a Name used as a loss to the expression that built it
Builder = Callable[[cst.BaseExpression], Optional[cst.BaseExpression]]


def unreduced_return(ctx: FileContext, func: cst.FunctionDef, builder: Builder) -> Optional[cst.CSTNode]:
    """The return statement of ``func`` that gives an element-wise loss, when every
    return does (None otherwise, or when undecidable)."""
    returns = own_nodes(func, cst.Return)
    if not returns:
        return None
    fn_flow = flow(ctx, func)
    for ret in returns:
        value = ret.value
        if isinstance(value, cst.Tuple) and value.elements:
            value = value.elements[0].value
        if value is None or not _elementwise(ctx, fn_flow, value, builder, fn_flow.order(ret) or None):
            return None
    return returns[0]


def _elementwise(ctx: FileContext, fn_flow: FunctionFlow, value: cst.BaseExpression, builder: Builder,
                 before: Optional[int],
                 depth: int = 0) -> bool:
    if isinstance(value, cst.Name) and depth < 5:
        defs = fn_flow.defs.get(value.value, ())
        if len(defs) != 1 or defs[0].index is not None:
            return False
        return _elementwise(ctx, fn_flow, defs[0].value, builder, None, depth + 1)
    if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, cst.Power):
        return bool(literal(value.right) == 2)
    if not isinstance(value, cst.Call):
        return False
    if ctx.resolve(value.func) in ELEMENTWISE:
        return True
    built = builder(value.func)
    options = loss_options(ctx, built) if built is not None else None
    return options is not None and options.reduction == "none"
