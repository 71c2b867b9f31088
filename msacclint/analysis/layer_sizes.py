"""The spatial size after one convolution or pool, and the values its arguments hold (for
msacclint.analysis.shapes, which follows sizes along a network).

A MindSpore ``Conv2d`` pads 'same' unless told otherwise, its pools are 'valid'; ``mint``'s
layers take the padding itself (``padding='same'`` or numbers). A value is a literal, a module
constant, a parameter the enclosing Cell's caller bound, or, with the project layer, the one
value a dotted name holds (``cfg.image_size``).
"""

from __future__ import annotations

import math
from typing import Any, Callable, Dict, Optional, Tuple

import libcst as cst

from msacclint.analysis.calls import UNKNOWN, argument, constant
from msacclint.analysis.context import FileContext
from msacclint.analysis.imports import dotted

#: (height, width)
Size = Tuple[int, int]
#: the parameters of the enclosing Cell's ``__init__`` -> the values its caller passes
Bound = Dict[str, Any]

_CONV_SIGNATURE = ("in_channels", "out_channels", "kernel_size", "stride", "pad_mode", "padding", "dilation")
_MINT_CONV_SIGNATURE = ("in_channels", "out_channels", "kernel_size", "stride", "padding", "dilation")
POOL_SIGNATURE = ("kernel_size", "stride", "pad_mode", "data_format")
MINT_POOL_SIGNATURE = ("kernel_size", "stride", "padding")


# -- values ---------------------------------------------------------------------------------------
def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def pair(value: Any, square: bool = True) -> Optional[Size]:
    """(h, w) of an int (``square``: both sides) or a pair of ints."""
    if is_int(value) and square:
        return value, value
    if isinstance(value, tuple) and len(value) == 2 and all(is_int(v) for v in value):
        return value[0], value[1]
    return None


def value_of(ctx: FileContext, node: Optional[cst.BaseExpression], bound: Bound) -> Any:
    """A literal, a module constant, a parameter the caller bound, or (with the project
    layer) the one value a dotted name holds: a number, a string, a tuple; UNKNOWN else."""
    if node is None:
        return UNKNOWN
    if isinstance(node, cst.Name) and node.value in bound:
        return bound[node.value]
    if isinstance(node, (cst.Tuple, cst.List)):
        items = tuple(value_of(ctx, e.value, bound) for e in node.elements)
        return UNKNOWN if any(v is UNKNOWN for v in items) else items
    value = constant(ctx, node)
    if value is not UNKNOWN:
        return value
    name = dotted(node)
    project = ctx.project
    if name is None or project is None:
        return UNKNOWN
    values = project.values_seen_from(ctx, name)
    if not values or len({repr(v.value) for v in values}) != 1:
        return UNKNOWN
    return _tuple(values[0].value)


def _tuple(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value


# -- layers ---------------------------------------------------------------------------------------
def _out(size: int, kernel: int, stride: int, before: int, after: int, dilation: int = 1,
         ceil: bool = False) -> Optional[int]:
    span = size + before + after - dilation * (kernel - 1) - 1
    if span < 0 or stride < 1:
        return None
    return (math.ceil if ceil else math.floor)(span / stride) + 1


def conv_size(ctx: FileContext, call: cst.Call, callee: str, size: Size, bound: Bound) -> Optional[Size]:
    mint = callee.startswith("mindspore.mint.")
    signature = _MINT_CONV_SIGNATURE if mint else _CONV_SIGNATURE
    read = _reader(ctx, call, signature, bound)
    kernel, stride, dilation = pair(read("kernel_size", UNKNOWN)), pair(read("stride", 1)), pair(read("dilation", 1))
    padding = read("padding", 0)
    mode = padding if mint and isinstance(padding, str) else "pad" if mint else read("pad_mode", "same")
    if kernel is None or stride is None or dilation is None or not isinstance(mode, str):
        return None
    return _sliding(size, kernel, stride, mode, padding, dilation)


def _pads(padding: Any) -> Optional[Tuple[int, int, int, int]]:
    """(top, bottom, left, right) of an int, a (vertical, horizontal) pair or a 4-tuple."""
    if is_int(padding):
        return padding, padding, padding, padding
    if isinstance(padding, tuple) and all(is_int(p) for p in padding):
        if len(padding) == 2:
            return padding[0], padding[0], padding[1], padding[1]
        if len(padding) == 4:
            return padding[0], padding[1], padding[2], padding[3]
    return None


def pool_size(ctx: FileContext, call: cst.Call, callee: str, size: Size, bound: Bound) -> Optional[Size]:
    mint = callee.startswith("mindspore.mint.")
    signature = MINT_POOL_SIGNATURE if mint else POOL_SIGNATURE
    read = _reader(ctx, call, signature, bound)
    kernel = pair(read("kernel_size", UNKNOWN if mint else 1))
    stride_value = read("stride", None if mint else 1)
    stride = kernel if stride_value is None else pair(stride_value)
    mode = "pad" if mint else read("pad_mode", "valid")
    padding, ceil = read("padding", 0), read("ceil_mode", False)
    if kernel is None or stride is None or not isinstance(mode, str) or not isinstance(ceil, bool):
        return None
    return _sliding(size, kernel, stride, mode, padding, (1, 1), ceil)


def _reader(ctx: FileContext, call: cst.Call, signature: Tuple[str, ...], bound: Bound) -> Callable[[str, Any], Any]:
    """Reads an argument of ``call`` by name (or position in ``signature``): its value, or the
    default when it is not given."""

    def read(name: str, default: Any) -> Any:
        arg = argument(call, name, signature)
        return default if arg is None else value_of(ctx, arg.value, bound)

    return read


def _sliding(size: Size, kernel: Size, stride: Size, mode: str, padding: Any, dilation: Size,
             ceil: bool = False) -> Optional[Size]:
    """The size after a window of ``kernel`` slides over ``size`` (a convolution or a pool)."""
    mode = mode.lower()
    if mode == "same":
        return math.ceil(size[0] / stride[0]), math.ceil(size[1] / stride[1])
    pads = (0, 0, 0, 0) if mode == "valid" else _pads(padding)
    if pads is None:
        return None
    h = _out(size[0], kernel[0], stride[0], pads[0], pads[1], dilation[0], ceil)
    w = _out(size[1], kernel[1], stride[1], pads[2], pads[3], dilation[1], ceil)
    return (h, w) if h is not None and w is not None else None
