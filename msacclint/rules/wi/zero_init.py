"""wi.01: a hidden layer's weight initialised to zeros (MSA505)."""

from __future__ import annotations

from functools import partial
from typing import List, Optional, Set

import libcst as cst

from msacclint.analysis.calls import argument, literal
from msacclint.analysis.cells import CellInfo, cells
from msacclint.analysis.residual import ends_residual
from msacclint.analysis.walk import walk
from msacclint.diagnostics import Severity
from msacclint.rules.base import Invalid, Rule, Valid
from msacclint.rules.examples import fill
from msacclint.rules.fixtures.mpwi import page
from msacclint.rules.fixtures.nets import cell, module

ZERO_INIT = "mindspore.common.initializer.Zero"
INITIALIZER = "mindspore.common.initializer.initializer"
#: layer -> parameter order up to its weight argument
WEIGHT_LAYERS = {
    "mindspore.nn.Dense": ("in_channels", "out_channels", "weight_init"),
    "mindspore.nn.Embedding": ("vocab_size", "embedding_size", "use_one_hot", "embedding_table"),
}
for _conv in ("Conv1d", "Conv2d", "Conv3d", "Conv1dTranspose", "Conv2dTranspose", "Conv3dTranspose"):
    WEIGHT_LAYERS["mindspore.nn." + _conv] = ()  # weight_init is far down the signature: keyword only
WEIGHT_NAMES = ("weight", "embedding_table")


def is_zero_init(ctx, node: cst.BaseExpression) -> bool:
    value = literal(node)
    if isinstance(value, str):
        return value.lower() in ("zeros", "zero")
    return isinstance(node, cst.Call) and ctx.resolve(node.func) == ZERO_INIT


def zero_weight_layer(ctx, call: cst.BaseExpression) -> bool:
    """``nn.Dense(.., weight_init='zeros')``, ``nn.Conv2d(.., weight_init=Zero())``, ..."""
    if not isinstance(call, cst.Call):
        return False
    api = ctx.resolve(call.func)
    if api not in WEIGHT_LAYERS:
        return False
    name = "embedding_table" if api.endswith("Embedding") else "weight_init"
    arg = argument(call, name, WEIGHT_LAYERS[api])
    return arg is not None and is_zero_init(ctx, arg.value)


def hidden_layer(ctx, info: CellInfo, attr: str) -> bool:
    """``self.<attr>``'s output reaches another weight layer in construct and is not the
    end of a residual branch (added to a tensor that does not come from it first)."""
    if not feeds_weight_layer(info, attr):
        return False
    weighted = lambda name: name in info.attrs and info.attrs[name].callee in WEIGHT_LAYERS  # noqa: E731
    return not ends_residual(ctx, info, attr, weighted)


def feeds_weight_layer(info: CellInfo, attr: str) -> bool:
    """Whether the output of ``self.<attr>`` reaches another Dense/Conv/Embedding in construct."""
    seen: Set[str] = set()
    pending = list(info.consumers(attr))
    while pending:
        other = pending.pop()
        if other in seen:
            continue
        seen.add(other)
        target = info.attrs.get(other)
        if target is not None and target.callee in WEIGHT_LAYERS:
            return True
        pending.extend(info.consumers(other))
    return False


#: the imports of most examples
_INITIALIZERS = """
    import mindspore.nn as nn
    from mindspore.common.initializer import initializer, Zero
"""
#: a two-layer perceptron whose first layer is ``{fc1}``
_MLP = """
    import mindspore.nn as nn
    from mindspore.common.initializer import initializer, Zero

    class MLP(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = {fc1}
            self.relu = nn.ReLU()
            self.fc2 = nn.Dense(256, 10)

        def construct(self, x):
            return self.fc2(self.relu(self.fc1(x)))
"""
_mlp = partial(fill, _MLP)
_ZERO_FC1 = "nn.Dense(784, 256, weight_init='zeros')  # MSA505"
_HE_FC1 = "nn.Dense(784, 256, weight_init='he_uniform')"
#: a block whose first layer starts at zero, then a second of ``{out}`` units
_ZERO_FC1_BLOCK = """
    import mindspore.nn as nn

    class Block(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Dense(64, 64, weight_init='zeros')  # MSA505
            self.fc2 = nn.Dense(64, {out})

        def construct(self, x):
            {construct}
"""


class ZeroWeightInit(Rule):
    code = "MSA505"
    name = "zero-weight-init"
    checklist = "wi.01"
    severity = Severity.ERROR
    group = "correctness"
    message = "a hidden layer's weight is initialised to zeros"
    evidence = ("The layer's position is resolved in its Cell: its weight is a literal zero initializer, its output "
                'reaches another Dense/Conv/Embedding in `construct` (or it is not the last weight layer of a '
                'SequentialCell), and it is not the end of a residual branch (its output is not added to a tensor '
                'that does not come from it before another weight layer). A layer whose use is unknown is not '
                'reported.')
    what = ("Reports a Dense/Conv/Embedding weight initialised to zeros (`weight_init='zeros'`/`'zero'`, "
            "`Zero()`, or `.weight.set_data(initializer('zeros', ...))`) when the layer is hidden: in "
            "`construct` its output reaches another Dense/Conv/Embedding of the Cell, or it is not the last "
            "weight layer of an `nn.SequentialCell`. A zero-initialised last layer or residual branch (a "
            "classifier head, LoRA's B matrix, a ControlNet zero convolution) is a deliberate technique and "
            "is never reported; neither are biases, BatchNorm's beta or layers whose position is unknown.")
    why = ("A zero weight in a hidden layer gives every unit of the layer the same output and the same "
           "gradient, and behind a ReLU no gradient at all: the layer and everything before it never learn. "
           "PyTorch ports that translate `nn.init.zeros_` meant for a bias or a head onto a hidden weight "
           "train a network that stays constant without any error.")
    example = page(_mlp(fc1=_ZERO_FC1))
    use_instead = page(_mlp(fc1=_HE_FC1))
    fix_safety = "No automatic fix: choose an initializer."
    versions = "All versions."
    VALID = (
        Valid(_mlp(fc1=_HE_FC1), note="idiomatic"),
        Valid(_mlp(fc1="nn.Dense(784, 256, bias_init='zeros')"), note="a zero bias"),
        Valid(module(_INITIALIZERS, cell("Classifier", init="""
            self.backbone = nn.Dense(784, 256)
            self.head = nn.Dense(256, 10, weight_init='zeros')
        """, construct="return self.head(self.backbone(x))")), note="a zero-initialised head (the last layer) still learns"),
        Valid(module(_INITIALIZERS, cell("LoRA", init="""
            self.base = nn.Dense(64, 64)
            self.lora_a = nn.Dense(64, 4, has_bias=False)
            self.lora_b = nn.Dense(4, 64, weight_init=Zero(), has_bias=False)
        """, construct="return self.base(x) + self.lora_b(self.lora_a(x))")), note="LoRA's B matrix starts at zero on purpose"),
        Valid(module("import mindspore.nn as nn", cell("Block", init="""
            self.fc1 = nn.Dense(64, 64)
            self.relu = nn.ReLU()
            self.fc2 = nn.Dense(64, 64, weight_init='zeros')
            self.head = nn.Dense(64, 10)
        """, construct="""
            skip = x
            x = self.fc2(self.relu(self.fc1(x)))
            x += skip
            return self.head(x)
        """)), note="zero-init residual: the branch's last layer, then x += skip"),
        Valid(module("import mindspore.nn as nn", cell("Block", init="""
            self.conv1 = nn.Conv2d(64, 64, 3)
            self.conv2 = nn.Conv2d(64, 64, 3, weight_init='zeros')
            self.bn2 = nn.BatchNorm2d(64)
            self.conv3 = nn.Conv2d(64, 64, 3)
        """, construct="""
            out = self.bn2(self.conv2(self.conv1(x)))
            x = x + out
            return self.conv3(x)
        """)), note="x = skip + f(x), past a BatchNorm (no weights of a Dense/Conv)"),
        Valid(module("""
            import mindspore.nn as nn
            from mindspore.common.initializer import Zero
        """, cell("Trunk", init="""
            self.transition = nn.Dense(64, 64, weight_init=Zero())
            self.out = nn.Dense(64, 64)
        """, methods="""
            def _update(self, act):
                return self.transition(act)
        """, args="act", construct="""
            for _ in range(4):
                act = act + self._update(act)
            return self.out(act)
        """)), note="act = act + self.transition(act), repeated, through a helper method"),
        Valid(module("""
            import mindspore.nn as nn
            import mindspore.ops as ops
        """, cell("Block", init="""
            self.proj = nn.Dense(64, 64, weight_init='zeros')
            self.head = nn.Dense(64, 10)
        """, args="x, skip", construct="""
            x = self.proj(x)
            x = ops.add(skip, x)
            return self.head(x)
        """)), note="ops.add with a skip tensor"),
        Valid("""
            import torch.nn as nn
            fc = nn.Linear(4, 4)
            nn.init.zeros_(fc.weight)
        """, note="PyTorch"),
        Valid("""
            import mindspore.nn as nn
            from mindspore.common.initializer import initializer, Zero

            layer = nn.Dense(4, 4, weight_init='zeros')
        """, note="position unknown"),
    )
    INVALID = (
        Invalid(_mlp(fc1=_ZERO_FC1)),
        Invalid(module(_INITIALIZERS, cell("MLP", init="""
            self.fc1 = nn.Dense(784, 256)
            self.fc2 = nn.Dense(256, 10)
            self.fc1.weight.set_data(initializer('zeros', self.fc1.weight.shape))  # MSA505
        """, construct="""
            x = self.fc1(x)
            return self.fc2(x)
        """)), note="torch's nn.init.zeros_(self.fc1.weight) ported with set_data"),
        Invalid(fill(_ZERO_FC1_BLOCK, out="64", construct="""
            h = self.fc1(x)
            h = self.fc2(h)
            x += h
            return x
        """), note="the zero layer is not the last of the branch: fc2 takes its output before the add"),
        Invalid(fill(_ZERO_FC1_BLOCK, out="10", construct="""
            x = self.fc1(x)
            x += 1
            return self.fc2(x)
        """), note="adding a constant is no skip connection"),
        Invalid("""
            import mindspore.nn as nn
            from mindspore.common.initializer import initializer, Zero

            net = nn.SequentialCell([nn.Conv2d(3, 16, 3, weight_init=Zero()), nn.ReLU(),  # MSA505
                                     nn.Conv2d(16, 16, 3)])
        """),
    )

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        info = cells(self.ctx).by_node.get(node)
        if info is None:
            return
        for name, attr in info.attrs.items():
            if zero_weight_layer(self.ctx, attr.value) and hidden_layer(self.ctx, info, name):
                self.report(attr.value, f"self.{name}'s weight is initialised to zeros and its output feeds "
                            f"further layers: the layer cannot break symmetry (and behind a ReLU gets no "
                            f"gradient); use a random initializer")

    def visit_Call(self, node: cst.Call) -> None:
        api = self.ctx.resolve(node.func)
        if api in ("mindspore.nn.SequentialCell", "mindspore.nn.CellList") and node.args:
            self._sequence(node)
            return
        # self.<attr>.weight.set_data(initializer('zeros', ...))
        func = node.func
        if not (isinstance(func, cst.Attribute) and func.attr.value == "set_data" and node.args):
            return
        holder = func.value
        if not (isinstance(holder, cst.Attribute) and holder.attr.value in WEIGHT_NAMES):
            return
        layer = holder.value
        if not (isinstance(layer, cst.Attribute) and isinstance(layer.value, cst.Name) and layer.value.value == "self"):
            return
        init = node.args[0].value
        if not (isinstance(init, cst.Call) and self.ctx.resolve(init.func) == INITIALIZER and init.args
                and is_zero_init(self.ctx, init.args[0].value)):
            return
        info = _owner(self.ctx, node)
        attr = info.attrs.get(layer.attr.value) if info is not None else None
        if attr is not None and attr.callee in WEIGHT_LAYERS and hidden_layer(self.ctx, info, attr.name):
            self.report(node, f"self.{attr.name}.{holder.attr.value} is set to zeros and its output feeds further "
                        f"layers: the layer cannot break symmetry (and behind a ReLU gets no gradient)")

    def _sequence(self, node: cst.Call) -> None:
        first = node.args[0].value
        items: List[cst.BaseExpression] = ([e.value for e in first.elements] if isinstance(first, (cst.List, cst.Tuple))
                                           else [a.value for a in node.args if a.keyword is None and not a.star])
        weighted = [i for i, e in enumerate(items) if isinstance(e, cst.Call) and self.ctx.resolve(e.func) in WEIGHT_LAYERS]
        for i in weighted[:-1]:
            if zero_weight_layer(self.ctx, items[i]):
                self.report(items[i], "this layer's weight is initialised to zeros and later layers of the "
                            "SequentialCell depend on it: it cannot break symmetry; use a random initializer")


def _owner(ctx, node: cst.CSTNode) -> Optional[CellInfo]:
    for info in cells(ctx).classes.values():
        init = info.methods.get("__init__")
        if init is not None and _contains(init, node):
            return info
    return None


def _contains(root: cst.CSTNode, target: cst.CSTNode) -> bool:
    found = []

    class Finder(cst.CSTVisitor):
        def on_visit(self, n: cst.CSTNode) -> bool:
            if n is target:
                found.append(n)
            return not found

    walk(root, Finder())
    return bool(found)
