"""What MSA108 and MSA110 (MS-CONV-02, MS-CONV-04: convolutions ported with PyTorch's defaults in
mind) know of convolution calls and the layers around them: the conv signatures, which layers keep
a bias's shift or normalise it away, which activations and losses a conv's output may go into,
a transposed conv whose size differs from PyTorch's, and the two fixes (keep, or PyTorch's)."""

from __future__ import annotations

from typing import Dict, Optional, Sequence, Tuple

import libcst as cst

from msacclint.analysis.calls import argument, has_star_args, has_star_kwargs, literal
from msacclint.analysis.cells import SHAPE_METHODS
from msacclint.diagnostics import Applicability
from msacclint.rules.base import FixSpec
from msacclint.rules.table import add_keywords, called

_CONV = ("in_channels", "out_channels", "kernel_size", "stride", "pad_mode", "padding", "dilation", "group")
#: positional order of the MindSpore 2.10 signatures (verified with inspect.signature)
SIGNATURES: Dict[str, Tuple[str, ...]] = {
    "mindspore.nn.Conv1d": _CONV + ("has_bias", "weight_init", "bias_init", "dtype"),
    "mindspore.nn.Conv2d": _CONV + ("has_bias", "weight_init", "bias_init", "data_format", "dtype"),
    "mindspore.nn.Conv3d": _CONV + ("has_bias", "weight_init", "bias_init", "data_format", "dtype"),
    "mindspore.nn.Conv1dTranspose": _CONV + ("has_bias", "weight_init", "bias_init", "dtype"),
    "mindspore.nn.Conv2dTranspose": _CONV[:6] + ("output_padding", "dilation", "group", "has_bias",
                                                 "weight_init", "bias_init", "dtype"),
    "mindspore.nn.Conv3dTranspose": _CONV + ("output_padding", "has_bias", "weight_init", "bias_init",
                                             "data_format", "dtype"),
}
TRANSPOSED = frozenset(name for name in SIGNATURES if name.endswith("Transpose"))

#: layers after which a lost conv bias matters (resolved names under mindspore.nn.)
_ACTIVATIONS = ("ReLU", "ReLU6", "LeakyReLU", "GELU", "SiLU", "Sigmoid", "Tanh", "HSwish", "HSigmoid",
                "PReLU", "ELU", "CELU", "SeLU", "Mish", "Softplus", "Softsign", "Hardtanh", "Softmax",
                "LogSoftmax")
#: layers that carry a per-channel shift through to what follows (a later norm absorbs it)
_SHIFT_PRESERVING = ("MaxPool", "AvgPool", "AdaptiveAvgPool", "AdaptiveMaxPool", "Dropout", "Flatten",
                     "Upsample")
DENSE = "mindspore.nn.Dense"
#: functional activations (last name under mindspore.ops / mindspore.mint / mint.nn.functional)
_ACTIVATION_FUNCTIONS = frozenset({
    "relu", "relu6", "gelu", "silu", "sigmoid", "tanh", "elu", "leaky_relu", "mish", "softplus",
    "hardswish", "hswish", "hardsigmoid", "hsigmoid", "softsign", "hardtanh", "selu", "celu",
    "softmax", "log_softmax", "prelu"})
_FUNCTION_ROOTS = ("mindspore.ops.", "mindspore.mint.nn.functional.", "mindspore.mint.")


def activation_function(name: Optional[str]) -> Optional[str]:
    """``ops.gelu`` for ``mindspore.ops.gelu`` and the other functional activations of
    MindSpore's ops/mint namespaces; None for any other function."""
    if name is None:
        return None
    for root in _FUNCTION_ROOTS:
        if name.startswith(root) and name[len(root):] in _ACTIVATION_FUNCTIONS:
            return name.replace("mindspore.", "", 1)
    return None


def is_norm(name: Optional[str]) -> bool:
    return name is not None and name.startswith("mindspore.") and "Norm" in name.rsplit(".", 1)[-1]


def nn_member(name: Optional[str]) -> Optional[str]:
    if name is None or not name.startswith("mindspore.nn.") or "." in name[len("mindspore.nn."):]:
        return None
    return name[len("mindspore.nn."):]


def has_bias_given(call: cst.Call, name: str) -> Optional[bool]:
    """Whether a conv/Dense call has a bias; None when it cannot be told."""
    if has_star_kwargs(call) or has_star_args(call):
        return None
    signature = SIGNATURES.get(name, ("in_channels", "out_channels", "weight_init", "bias_init", "has_bias"))
    arg = argument(call, "has_bias", signature)
    if arg is None:
        return name == DENSE
    value = literal(arg.value)
    return value if isinstance(value, bool) else None


#: MindSpore's loss functions taking logits first
LOSS_FUNCTIONS = frozenset("mindspore." + n for n in (
    "ops.cross_entropy", "ops.binary_cross_entropy_with_logits", "ops.nll_loss", "ops.mse_loss", "ops.l1_loss",
    "ops.smooth_l1_loss", "mint.nn.functional.cross_entropy", "mint.nn.functional.binary_cross_entropy_with_logits",
    "mint.nn.functional.mse_loss", "mint.nn.functional.l1_loss"))
#: functions that resample or rearrange a map (a per-channel shift passes through)
_SHIFT_FUNCTIONS = frozenset("mindspore." + n for n in (
    "ops.interpolate", "ops.ResizeBilinearV2", "ops.reshape", "ops.transpose", "ops.flatten", "ops.squeeze",
    "ops.expand_dims", "mint.nn.functional.interpolate"))


def builds(value: cst.BaseExpression, name: str) -> bool:
    """``Head(...)`` of the class ``name``, also as the built side of ``Head(...) if flag else None``."""
    if isinstance(value, cst.IfExp):
        return builds(value.body, name) or builds(value.orelse, name)
    return isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value == name


def keeps_shift(ctx, value: cst.BaseExpression, held) -> bool:
    """``ops.interpolate(logits, ...)`` or ``logits.view(...)`` of a held name."""
    if not isinstance(value, cst.Call) or not value.args:
        return False
    func = value.func
    if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value in held:
        return func.attr.value in SHAPE_METHODS
    first = value.args[0].value
    return isinstance(first, cst.Name) and first.value in held and ctx.resolve(func) in _SHIFT_FUNCTIONS


def step_kind(name: Optional[str], call: Optional[cst.BaseExpression]) -> str:
    """What a layer after a bias-less conv does with the missing bias: "act" (it matters:
    report), "through" (a shift passes on to the next layer: look further) or "stop"
    (a norm absorbs it, a biased linear layer can compensate, or the layer is unknown)."""
    member = nn_member(name)
    if member is None or "Norm" in member:
        return "stop"
    if member in _ACTIVATIONS:
        return "act"
    if member.startswith(_SHIFT_PRESERVING):
        return "through"
    if name in SIGNATURES or name == DENSE:
        if not isinstance(call, cst.Call):
            return "stop"
        return "through" if has_bias_given(call, name) is False else "stop"
    return "stop"


def conv_name(ctx, call: cst.BaseExpression) -> Optional[str]:
    if not isinstance(call, cst.Call):
        return None
    name = called(ctx, call)
    return name if name in SIGNATURES else None


def given(call: cst.Call, param: str, name: str) -> bool:
    return argument(call, param, SIGNATURES[name]) is not None


def bias_left_default(call: cst.Call, name: str) -> bool:
    if has_star_kwargs(call) or has_star_args(call):
        return False
    return not given(call, "has_bias", name)


def sizes(value) -> Optional[Tuple[int, ...]]:
    if isinstance(value, int) and not isinstance(value, bool):
        return (value,)
    if isinstance(value, tuple) and value and all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        return value
    return None


def transpose_size_differs(call: cst.Call, name: str) -> bool:
    """A transposed conv left at pad_mode/has_bias defaults whose output size differs
    from PyTorch's (kernel != stride, both literal)."""
    if name not in TRANSPOSED or has_star_kwargs(call) or has_star_args(call):
        return False
    signature = SIGNATURES[name]
    if given(call, "pad_mode", name) or given(call, "has_bias", name) or given(call, "padding", name):
        return False
    kernel_arg = argument(call, "kernel_size", signature)
    stride_arg = argument(call, "stride", signature)
    if kernel_arg is None:
        return False
    kernel = sizes(literal(kernel_arg.value))
    stride = sizes(literal(stride_arg.value)) if stride_arg is not None else (1,)
    if kernel is None or stride is None:
        return False
    if len(kernel) == 1 and len(stride) > 1:
        kernel = kernel * len(stride)
    if len(stride) == 1 and len(kernel) > 1:
        stride = stride * len(kernel)
    return kernel != stride


def conv_fixes(call: cst.Call, safe: Dict[str, str], unsafe: Dict[str, str]) -> Sequence[FixSpec]:
    describe = lambda adds: ", ".join(f"{k}={v}" for k, v in adds.items())  # noqa: E731
    return (FixSpec("keep this behaviour, written out: " + describe(safe), Applicability.KEEP,
                    [(call, add_keywords(call, safe))]),
            FixSpec(describe(unsafe) + ", as in PyTorch", Applicability.UNSAFE,
                    [(call, add_keywords(call, unsafe))]))
