"""wi.01 / wi.02: where the weights come from.

MSA505 a hidden layer's weight initialised to zeros; MSA506 load_param_into_net /
load_checkpoint(path, net) whose "not loaded" lists are thrown away (MS-CKPT-01).
"""

from __future__ import annotations

import re
from typing import List, Optional, Set

import libcst as cst

from msacclint.engine.walk import walk

from msacclint.analysis.calls import argument, literal
from msacclint.analysis.cells import CellInfo, cells
from msacclint.analysis.flow import flow
from msacclint.analysis.scopes import says_eval, says_train
from msacclint.analysis.training import training
from msacclint.diagnostics import Severity
from msacclint.engine.rule import Invalid, Rule, Valid
from msacclint.rules.function_rule import InFunctionRule

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
_HDR = "import mindspore.nn as nn\nfrom mindspore.common.initializer import initializer, Zero\n\n"


def _code(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)


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


class ZeroWeightInit(Rule):
    code = "MSA505"
    name = "zero-weight-init"
    checklist = "wi.01"
    severity = Severity.ERROR
    message = "a hidden layer's weight is initialised to zeros"
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
    example = (_HDR + "class MLP(nn.Cell):\n    def __init__(self):\n        super().__init__()\n"
               "        self.fc1 = nn.Dense(784, 256, weight_init='zeros')\n        self.relu = nn.ReLU()\n"
               "        self.fc2 = nn.Dense(256, 10)\n\n    def construct(self, x):\n"
               "        return self.fc2(self.relu(self.fc1(x)))\n")
    use_instead = example.replace("weight_init='zeros'", "weight_init='he_uniform'")
    fix_safety = "No automatic fix: choose an initializer."
    versions = "All versions."
    VALID = (
        Valid(use_instead, note="idiomatic"),
        Valid(example.replace("nn.Dense(784, 256, weight_init='zeros')", "nn.Dense(784, 256, bias_init='zeros')"),
              note="a zero bias"),
        Valid(_HDR + "class Classifier(nn.Cell):\n    def __init__(self):\n        super().__init__()\n"
              "        self.backbone = nn.Dense(784, 256)\n        self.head = nn.Dense(256, 10, weight_init='zeros')\n\n"
              "    def construct(self, x):\n        return self.head(self.backbone(x))\n",
              note="a zero-initialised head (the last layer) still learns"),
        Valid(_HDR + "class LoRA(nn.Cell):\n    def __init__(self):\n        super().__init__()\n"
              "        self.base = nn.Dense(64, 64)\n        self.lora_a = nn.Dense(64, 4, has_bias=False)\n"
              "        self.lora_b = nn.Dense(4, 64, weight_init=Zero(), has_bias=False)\n\n"
              "    def construct(self, x):\n        return self.base(x) + self.lora_b(self.lora_a(x))\n",
              note="LoRA's B matrix starts at zero on purpose"),
        Valid("import torch.nn as nn\nfc = nn.Linear(4, 4)\nnn.init.zeros_(fc.weight)\n", note="PyTorch"),
        Valid(_HDR + "layer = nn.Dense(4, 4, weight_init='zeros')\n", note="position unknown"),
    )
    INVALID = (
        Invalid(example, line=7),
        Invalid(_HDR + "class MLP(nn.Cell):\n    def __init__(self):\n        super().__init__()\n"
                "        self.fc1 = nn.Dense(784, 256)\n        self.fc2 = nn.Dense(256, 10)\n"
                "        self.fc1.weight.set_data(initializer('zeros', self.fc1.weight.shape))\n\n"
                "    def construct(self, x):\n        x = self.fc1(x)\n        return self.fc2(x)\n", line=9,
                note="torch's nn.init.zeros_(self.fc1.weight) ported with set_data"),
        Invalid(_HDR + "net = nn.SequentialCell([nn.Conv2d(3, 16, 3, weight_init=Zero()), nn.ReLU(),\n"
                "                         nn.Conv2d(16, 16, 3)])\n", line=4),
    )

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        info = cells(self.ctx).by_node.get(node)
        if info is None:
            return
        for name, attr in info.attrs.items():
            if zero_weight_layer(self.ctx, attr.value) and feeds_weight_layer(info, name):
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
        if attr is not None and attr.callee in WEIGHT_LAYERS and feeds_weight_layer(info, attr.name):
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


LOAD_INTO_NET = "mindspore.load_param_into_net"
LOAD_CHECKPOINT = "mindspore.load_checkpoint"
_LOAD_HDR = "import mindspore as ms\n\n"
_TRAINS = "model = ms.Model(net, loss_fn, opt)\nmodel.train(1, ds)\n"


class UncheckedCheckpointLoad(InFunctionRule):
    code = "MSA506"
    name = "unchecked-checkpoint-load"
    checklist = "wi.02"
    severity = Severity.WARNING
    message = "the parameters that were not loaded are never checked"
    uses_facts = True
    what = ("Reports, in a file that trains (a hand-written training step or `Model.train`), "
            "`load_param_into_net(net, params)` whose result is discarded (a bare statement, `_`, or "
            "names never read again in the function), and `load_checkpoint(path, net)` with a network, which "
            "loads into it and drops those lists itself. `strict_load=True` does not make either safe. "
            "Evaluation and export scripts, and loads inside a function named for evaluation (`do_eval`, "
            "`predict`) of a script that also trains, are left alone: the checklist item is about the pretrained "
            "weights a training run starts from, and there an incomplete load costs a whole run.")
    why = ("In MindSpore 2.10 `load_param_into_net` never raises on missing or unexpected names, whatever "
           "`strict_load` says (verified; MS-CKPT-01): it returns `(param_not_load, ckpt_not_load)` and logs a "
           "warning. A checkpoint converted from PyTorch with a wrong name mapping (gamma/beta vs weight/bias, "
           "moving_mean vs running_mean, a missing 'backbone.' prefix) 'loads' and the model silently trains or "
           "evaluates from random weights. PyTorch's `load_state_dict` raises by default.")
    example = (_LOAD_HDR + "param_dict = ms.load_checkpoint('resnet50.ckpt')\nms.load_param_into_net(net, param_dict)\n"
               "model = ms.Model(net, loss_fn, optimizer)\nmodel.train(90, train_dataset)\n")
    use_instead = (_LOAD_HDR + "param_dict = ms.load_checkpoint('resnet50.ckpt')\n"
                   "param_not_load, ckpt_not_load = ms.load_param_into_net(net, param_dict)\n"
                   "assert not param_not_load, param_not_load\n")
    fix_safety = "No automatic fix: what to do with unloaded parameters depends on the script."
    versions = "2.x returns (param_not_load, ckpt_not_load); verified on 2.10."
    VALID = (
        Valid(use_instead, note="idiomatic"),
        Valid(_LOAD_HDR + "def load(net, path):\n    not_loaded, _ = ms.load_param_into_net(net, ms.load_checkpoint(path))\n"
              "    if not_loaded:\n        print('not loaded:', not_loaded)\n", note="reported to the user"),
        Valid(_LOAD_HDR + "def load(net, path):\n    return ms.load_param_into_net(net, ms.load_checkpoint(path))\n",
              note="returned to the caller"),
        Valid(_LOAD_HDR + "param_dict = ms.load_checkpoint('resnet50.ckpt')\n", note="no network given"),
        Valid(_LOAD_HDR + "ms.load_param_into_net(net, ms.load_checkpoint(args.ckpt))\nmodel = ms.Model(net)\n"
              "print(model.eval(eval_dataset))\n", note="an evaluation script: no training starts from it"),
        Valid("import torch\nmodel.load_state_dict(torch.load('model.pt'))\n", note="PyTorch raises by default"),
        Valid(_LOAD_HDR + "def swap_in_ema(net):\n    ema = {}\n    for p in net.get_parameters():\n"
              "        ema[p.name[4:]] = p.data\n    ms.load_param_into_net(net, ema)\n",
              note="a dict built here from the network's own names"),
    )
    VALID = VALID + (
        Valid(_LOAD_HDR + "def do_eval(path):\n    net = Net()\n    ms.load_param_into_net(net, ms.load_checkpoint(path))\n"
              "    return ms.Model(net).eval(eval_ds)\n" + _TRAINS,
              note="the evaluation half of a train-and-evaluate script loads the checkpoint it just saved"),
        Valid(_LOAD_HDR + "def frozen_to_air(net, ckpt, path):\n    ms.load_param_into_net(net, ms.load_checkpoint(ckpt))\n"
              "    ms.export(net, example_input, file_name=path, file_format='AIR')\n" + _TRAINS,
              note="an export helper of a training script"),
    )
    INVALID = (
        Invalid(example, line=4),
        Invalid(_LOAD_HDR + "ms.load_param_into_net(net, ms.load_checkpoint(path), strict_load=True)\n" + _TRAINS, line=3,
                note="torch's load_state_dict(strict=True) ported: strict_load does not raise"),
        Invalid(_LOAD_HDR + "def load(net, path):\n    ms.load_checkpoint(path, net)\n" + _TRAINS, line=4),
        Invalid(_LOAD_HDR + "def load(net, path):\n    missing, unexpected = ms.load_param_into_net(net, ms.load_checkpoint(path))\n"
                "    return net\n" + _TRAINS, line=4),
    )

    def _in_evaluation(self) -> bool:
        """The load sits in a function named for evaluation (``do_eval``, ``predict``) and
        not for training, or in one that exports (``mindspore.export``): it loads what is
        evaluated or exported, not what a training run starts from."""
        names = [f.name.value for f in self._functions]
        if self._functions and flow(self.ctx, self._functions[-1]).calls_to("mindspore.export"):
            return True  # an export helper: it exports what it loads
        return any(says_eval(n) for n in names) and not any(says_train(n) for n in names)

    def visit_Call(self, node: cst.Call) -> None:
        if self.ctx.resolve(node.func) != LOAD_CHECKPOINT or self._in_evaluation():
            return
        net = argument(node, "net", ("ckpt_file_name", "net"))
        if net is not None and literal(net.value) is not None:
            self.report(node, "load_checkpoint(path, net) loads into the network and drops the list of parameters "
                        "that were not loaded (it never raises, whatever strict_load says); load the dict, then "
                        "check what ms.load_param_into_net(net, param_dict) returns")

    def visit_Expr(self, node: cst.Expr) -> None:
        if self._is_load(node.value) and not self._in_evaluation():
            self._report(node.value)

    def visit_Assign(self, node: cst.Assign) -> None:
        if not self._is_load(node.value) or self._in_evaluation():
            return
        names = []
        for target in node.targets:
            t = target.target
            elements = [e.value for e in t.elements] if isinstance(t, (cst.Tuple, cst.List)) else [t]
            for element in elements:
                if not isinstance(element, cst.Name):
                    return  # stored somewhere: assume it is looked at
                names.append(element.value)
        scope_text = _code(self._functions[-1]) if self._functions else self.ctx.source
        for name in names:
            if name != "_" and len(re.findall(r"\b%s\b" % re.escape(name), scope_text)) > 1:
                return
        self._report(node.value)

    def _is_load(self, value: cst.BaseExpression) -> bool:
        if not (isinstance(value, cst.Call) and self.ctx.resolve(value.func) == LOAD_INTO_NET):
            return False
        params = argument(value, "parameter_dict", ("net", "parameter_dict"))
        return params is None or not self._built_here(params.value)

    def _built_here(self, expr: cst.BaseExpression) -> bool:
        """A dict filled in this function (``d = {}`` / ``dict()`` / a comprehension), e.g. from
        the network's own parameters: its names match by construction."""
        if not isinstance(expr, cst.Name) or not self._functions:
            return isinstance(expr, (cst.Dict, cst.DictComp))
        scope = self._functions[-1]
        fl = flow(self.ctx, scope)
        d = fl.definition(expr.value)
        value = d.value if d is not None else None
        return isinstance(value, (cst.Dict, cst.DictComp)) or (
            isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value == "dict")

    def finish(self) -> None:
        if self.reports and not training(self.ctx).trains:
            self.reports.clear()

    def _report(self, call: cst.Call) -> None:
        self.report(call, "load_param_into_net never raises on missing or unexpected names (strict_load "
                    "included): check the returned param_not_load list, e.g. `param_not_load, _ = "
                    "ms.load_param_into_net(...)` then `assert not param_not_load`")
