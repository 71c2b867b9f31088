"""cg.02 / cg.03: which sub-cells of a Cell own parameters. Shared by MSA503
(unused_sub_cell) and MSA504 (frozen_parameters)."""

from __future__ import annotations

import re

import libcst as cst

from msacclint.analysis.cells import CellInfo, cells

#: nn.* layers that own parameters (an unused activation, pooling or softmax is dead code
#: that cannot change what is trained, so it is not reported)
PARAMETERISED = re.compile(r"^(Dense|BiDense|Conv\w*|BatchNorm\w*|LayerNorm|GroupNorm|InstanceNorm\w*|Embedding\w*|"
                           r"LSTM\w*|GRU\w*|RNN\w*|MultiheadAttention|Transformer\w*|PReLU)$")


def owns_parameters(ctx, owner: CellInfo, attr: str, depth: int = 0) -> bool:
    """Whether ``self.<attr>`` is a sub-cell with parameters: a parameterised nn layer, or a
    Cell class of the file that builds one (or a Parameter) in its __init__."""
    built = owner.attrs.get(attr)
    if built is None:
        return False
    if built.callee is not None and built.callee.startswith("mindspore.nn."):
        return bool(PARAMETERISED.match(built.callee.rsplit(".", 1)[-1]))
    if built.callee in ("mindspore.Parameter",):
        return True
    if depth < 3 and isinstance(built.value, cst.Call) and isinstance(built.value.func, cst.Name):
        other = cells(ctx).classes.get(built.value.func.value)
        if other is not None and other is not owner:
            return any(owns_parameters(ctx, other, name, depth + 1) for name in other.attrs)
    return False
