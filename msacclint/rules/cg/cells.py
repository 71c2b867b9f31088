"""cg.03 / cg.02: what a network trains.

MSA503 a sub-cell built in ``__init__`` that nothing in the file ever uses (its weights are
created, saved and optimised but never contribute); MSA504 (info) frozen parameters and
``stop_gradient`` on a layer's output, listed for review.
"""

from __future__ import annotations

import re
from typing import Optional

import libcst as cst

from msacclint.analysis.calls import literal
from msacclint.analysis.cells import CellInfo, cells
from msacclint.analysis.flow import flow
from msacclint.diagnostics import Severity
from msacclint.engine.rule import Invalid, Rule, Valid
from msacclint.rules.function_rule import FunctionRule

CELL = "mindspore.nn.Cell"
#: nn.* layers that own parameters (an unused activation, pooling or softmax is dead code
#: that cannot change what is trained, so it is not reported)
_PARAMETERISED = re.compile(r"^(Dense|BiDense|Conv\w*|BatchNorm\w*|LayerNorm|GroupNorm|InstanceNorm\w*|Embedding\w*|"
                            r"LSTM\w*|GRU\w*|RNN\w*|MultiheadAttention|Transformer\w*|PReLU)$")
#: ways a class reaches its children without naming them
_DYNAMIC = re.compile(r"\b(getattr|setattr|cells|name_cells|cells_and_names|insert_child_to_cell|__dict__|_cells|"
                      r"vars)\b")
_HDR = "import mindspore.nn as nn\n\n"


def _is_layer_call(ctx, info: CellInfo, callee: Optional[str], value: cst.BaseExpression) -> bool:
    if callee is not None and callee.startswith("mindspore.nn."):
        return bool(_PARAMETERISED.match(callee.rsplit(".", 1)[-1]))
    if isinstance(value, cst.Call) and isinstance(value.func, cst.Name):
        other = cells(ctx).classes.get(value.func.value)
        return (other is not None and other is not info and CELL in other.bases
                and any(_owns_parameters(ctx, other, name) for name in other.attrs))
    return False


def _code(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)


class UnusedSubCell(Rule):
    code = "MSA503"
    name = "unused-sub-cell"
    checklist = "cg.03"
    severity = Severity.WARNING
    message = "a sub-cell is built in __init__ and never used"
    what = ("Reports `self.x = nn.Layer(...)` (a MindSpore layer that owns parameters — Dense, Conv, norms, "
            "Embedding, RNNs, attention — or a Cell class of the file) in the "
            "`__init__` of an `nn.Cell` subclass that defines `construct`, when the name `x` appears nowhere "
            "else in the file: not in `construct` nor the methods it calls, not in another method, not in a "
            "string, not through another object. Classes that reach their children dynamically (`getattr`, "
            "`cells()`, `name_cells`, `insert_child_to_cell`, ...) and classes that other classes of the file "
            "extend are skipped.")
    why = ("A layer that is built but never called still owns parameters: they are initialised, saved in "
           "checkpoints, counted and passed to the optimizer (weight decay included), but the network output "
           "never depends on them. Usually a block was meant to be in the forward pass (a forgotten "
           "`self.bn`, a projection that a port skipped), and the model silently trains without it.")
    example = (_HDR + "class Block(nn.Cell):\n    def __init__(self):\n        super().__init__()\n"
               "        self.conv = nn.Conv2d(3, 16, 3)\n        self.bn = nn.BatchNorm2d(16)\n"
               "        self.relu = nn.ReLU()\n\n    def construct(self, x):\n        return self.relu(self.conv(x))\n")
    use_instead = example.replace("self.relu(self.conv(x))", "self.relu(self.bn(self.conv(x)))")
    fix_safety = "No automatic fix: either call the layer or delete it."
    versions = "All versions."
    VALID = (
        Valid(use_instead, note="idiomatic"),
        Valid(_HDR + "class Net(nn.Cell):\n    def __init__(self):\n        super().__init__()\n"
              "        self.features = nn.Dense(4, 4)\n        self.head = nn.Dense(4, 2)\n\n"
              "    def forward_head(self, x):\n        return self.head(x)\n\n"
              "    def construct(self, x):\n        return self.forward_head(self.features(x))\n",
              note="used in a method construct calls"),
        Valid(_HDR + "class Net(nn.Cell):\n    def __init__(self):\n        super().__init__()\n"
              "        self.body = nn.Dense(4, 4)\n        self.aux_head = nn.Dense(4, 2)\n\n"
              "    def construct(self, x):\n        return self.body(x)\n\n"
              "net = Net()\naux = net.aux_head(net.body(x))\n", note="used from outside the class"),
        Valid(_HDR + "class Net(nn.Cell):\n    def __init__(self):\n        super().__init__()\n"
              "        self.layer1 = nn.Dense(4, 4)\n        self.layer2 = nn.Dense(4, 4)\n\n"
              "    def construct(self, x):\n        for name in ('layer1', 'layer2'):\n"
              "            x = getattr(self, name)(x)\n        return x\n", note="reached with getattr"),
        Valid("import torch.nn as nn\n\nclass Block(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
              "        self.bn = nn.BatchNorm2d(16)\n\n    def forward(self, x):\n        return x\n", note="PyTorch"),
        Valid(_HDR + "class Base(nn.Cell):\n    def __init__(self):\n        super().__init__()\n"
              "        self.norm = nn.LayerNorm((4,))\n\n    def construct(self, x):\n        return x\n\n"
              "class Child(Base):\n    def construct(self, x):\n        return x\n", note="a base class of the file"),
        Valid(_HDR + "class Net(nn.Cell):\n    def __init__(self):\n        super().__init__()\n"
              "        self.loss = nn.CrossEntropyLoss()\n\n    def construct(self, x):\n        return x\n",
              note="a loss kept for the training script"),
        Valid(_HDR + "class Attention(nn.Cell):\n    def __init__(self):\n        super().__init__()\n"
              "        self.proj = nn.Dense(8, 8)\n        self.softmax = nn.Softmax(axis=-1)\n\n"
              "    def construct(self, x):\n        return nn.Softmax(axis=-1)(self.proj(x))\n",
              note="an unused layer without parameters is dead code, not a training problem"),
        Valid("import mindspore.nn as nn\nfrom mindspore import ops\n\nclass Mod(nn.Cell):\n    def __init__(self):\n"
              "        super().__init__()\n        self.floor_div = ops.FloorDiv()\n\n    def construct(self, a, b):\n"
              "        return a - b * self.floor_div(a, b)\n\nclass BeamSearch(nn.Cell):\n    def __init__(self):\n"
              "        super().__init__()\n        self.mod = Mod()\n\n    def construct(self, x):\n        return x\n",
              note="a Cell of the file that wraps ops primitives owns no parameters"),
    )
    INVALID = (
        Invalid(example, line=7),
        Invalid(_HDR + "class Block(nn.Cell):\n    def __init__(self):\n        super().__init__()\n"
                "        self.conv1 = nn.Conv2d(16, 16, 3)\n        self.bn1 = nn.BatchNorm2d(16)\n"
                "        self.conv2 = nn.Conv2d(16, 16, 3)\n        self.bn2 = nn.BatchNorm2d(16)\n\n"
                "    def construct(self, x):\n        x = self.bn1(self.conv1(x))\n"
                "        return self.bn1(self.conv2(x))\n", line=9,
                note="a torch block ported by copy-paste: bn1 reused, bn2 never called"),
        Invalid(_HDR + "class Head(nn.Cell):\n    def __init__(self):\n        super().__init__()\n"
                "        self.fc = nn.Dense(8, 2)\n\n    def construct(self, x):\n        return self.fc(x)\n\n"
                "class Net(nn.Cell):\n    def __init__(self):\n        super().__init__()\n        self.head = Head()\n"
                "        self.aux = Head()\n\n    def construct(self, x):\n        return self.head(x)\n", line=15,
                note="a Cell of the file that owns parameters, built and never called"),
    )

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        info = cells(self.ctx).by_node.get(node)
        if info is None or info.construct is None or not info.bases or any(b != CELL for b in info.bases):
            return
        if any(node.name.value == _base_name(b.value) for c in cells(self.ctx).classes.values()
               for b in c.node.bases):
            return
        if _trivial(info.construct):
            return
        source = self.ctx.source
        # the class's text is part of the file's, so an attribute named more often in the
        # file than it is assigned in the whole file is used: only the others need the
        # class's own text (rebuilt by code generation, which costs)
        candidates = []
        for name, attr in info.attrs.items():
            if not _is_layer_call(self.ctx, info, attr.callee, attr.value):
                continue
            mentions = len(re.findall(r"\b%s\b" % re.escape(name), source))
            if mentions <= len(re.findall(_ASSIGNED % re.escape(name), source)):
                candidates.append((name, attr, mentions))
        if not candidates:
            return
        class_text = _code(node)
        if _DYNAMIC.search(class_text):
            return
        for name, attr, mentions in candidates:
            assignments = len(re.findall(_ASSIGNED % re.escape(name), class_text))
            if mentions <= assignments:
                self.report(attr.assign, f"self.{name} ({_code(attr.value.func) if isinstance(attr.value, cst.Call) else 'a Cell'}) "
                            f"is built in __init__ but never used: its parameters are trained and saved without "
                            f"ever affecting the output; call it in construct or remove it")


_ASSIGNED = r"\bself\.%s\s*(?::[^=\n]*)?=(?!=)"


def _base_name(node: cst.BaseExpression) -> Optional[str]:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return node.attr.value
    return None


def _trivial(func: cst.FunctionDef) -> bool:
    body = func.body.body if isinstance(func.body, cst.IndentedBlock) else ()
    for stmt in body:
        if isinstance(stmt, cst.SimpleStatementLine) and all(
                isinstance(s, (cst.Pass, cst.Raise)) or (isinstance(s, cst.Expr) and isinstance(s.value, (cst.SimpleString, cst.Ellipsis)))
                for s in stmt.body):
            continue
        return False
    return True


_FREEZE_HDR = "import mindspore as ms\nfrom mindspore import nn, ops\n\n"


class FrozenParameters(FunctionRule):
    code = "MSA504"
    name = "frozen-parameters"
    checklist = "cg.02"
    severity = Severity.INFO
    message = "parameters are frozen here; check that this is intended"
    what = ("Lists, for review, `<param>.requires_grad = False` assignments and `ops.stop_gradient` applied to "
            "the output of a layer of the Cell (`ops.stop_gradient(self.backbone(x))`, or a variable holding it). "
            "Off by default (info).")
    why = ("Freezing is often intended (fine-tuning a head, a teacher network), but a freeze left over from an "
           "experiment or applied to the wrong parameter list makes part of the network silently stop learning; "
           "`stop_gradient` on a layer's output also cuts every layer before it.")
    example = _FREEZE_HDR + "for param in net.get_parameters():\n    param.requires_grad = False\n"
    use_instead = "# intended freezes stay; add `# noqa: MSA504` once reviewed\n"
    fix_safety = "No fix: a review item."
    versions = "All versions."
    VALID = (
        Valid(_FREEZE_HDR + "for param in net.trainable_params():\n    param.requires_grad = True\n", note="unfreeze"),
        Valid(_FREEZE_HDR + "class Net(nn.Cell):\n    def construct(self, x):\n"
              "        mask = ops.stop_gradient(ops.ones_like(x))\n        return x * mask\n",
              note="stop_gradient on a constant, not on a layer's output"),
        Valid("import torch\nfor p in model.parameters():\n    p.requires_grad_(False)\n", note="PyTorch"),
        Valid(_FREEZE_HDR + "flag = param.requires_grad == False\n", note="a comparison"),
        Valid(_FREEZE_HDR + "class Loss(nn.Cell):\n    def construct(self, x):\n"
              "        targets = ops.stop_gradient(self.assign_targets(x))\n        return targets\n",
              note="stop_gradient on a helper method's output, not a layer with parameters"),
    )
    INVALID = (
        Invalid(_FREEZE_HDR + "for param in net.backbone.get_parameters():\n    param.requires_grad = False\n",
                line=5, note="torch's p.requires_grad = False loop, ported as is"),
        Invalid(_FREEZE_HDR + "class Student(nn.Cell):\n    def __init__(self):\n        super().__init__()\n"
                "        self.backbone = nn.Dense(8, 8)\n        self.head = nn.Dense(8, 2)\n\n"
                "    def construct(self, x):\n"
                "        feats = self.backbone(x)\n        feats = ops.stop_gradient(feats)\n"
                "        return self.head(feats)\n", line=12),
    )

    def visit_Assign(self, node: cst.Assign) -> None:
        if literal(node.value) is not False:
            return
        for target in node.targets:
            t = target.target
            if isinstance(t, cst.Attribute) and t.attr.value == "requires_grad":
                self.report(node, f"{_code(t.value)}.requires_grad = False freezes these parameters; check that "
                            f"this is intended")

    def visit_Call(self, node: cst.Call) -> None:
        if self.ctx.resolve(node.func) != "mindspore.ops.stop_gradient" or not node.args:
            return
        arg = node.args[0].value
        scope = self.scope
        if isinstance(arg, cst.Name) and scope is not None:
            fl = flow(self.ctx, scope)
            d = fl.definition(arg.value, fl.order(node))
            arg = d.value if d is not None else arg
        owner = self._classes[-1] if self._classes else None
        if isinstance(arg, cst.Call) and _self_layer(arg.func) and owner is not None \
                and _owns_parameters(self.ctx, owner, arg.func.attr.value):
            self.report(node, f"ops.stop_gradient on the output of {_code(arg.func)} stops training of that layer "
                        f"and everything before it; check that this is intended")


def _owns_parameters(ctx, owner: CellInfo, attr: str, depth: int = 0) -> bool:
    """Whether ``self.<attr>`` is a sub-cell with parameters: a parameterised nn layer, or a
    Cell class of the file that builds one (or a Parameter) in its __init__."""
    built = owner.attrs.get(attr)
    if built is None:
        return False
    if built.callee is not None and built.callee.startswith("mindspore.nn."):
        return bool(_PARAMETERISED.match(built.callee.rsplit(".", 1)[-1]))
    if built.callee in ("mindspore.Parameter",):
        return True
    if depth < 3 and isinstance(built.value, cst.Call) and isinstance(built.value.func, cst.Name):
        other = cells(ctx).classes.get(built.value.func.value)
        if other is not None and other is not owner:
            return any(_owns_parameters(ctx, other, name, depth + 1) for name in other.attrs)
    return False


def _self_layer(func: cst.BaseExpression) -> bool:
    return isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self"
