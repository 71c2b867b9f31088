"""wi.01 / wi.02: where the weights come from.

MSA505 a hidden layer's weight initialised to zeros; MSA506 load_param_into_net /
load_checkpoint(path, net) whose "not loaded" lists are thrown away (MS-CKPT-01).
"""

from __future__ import annotations

import re
from typing import Dict, List, Optional, Set, Tuple

import libcst as cst

from msacclint.analysis.calls import argument, literal
from msacclint.analysis.cells import CellInfo, cells
from msacclint.analysis.displayed import displayed
from msacclint.analysis.flow import flow
from msacclint.analysis.local_uses import local_uses
from msacclint.analysis.residual import ends_residual
from msacclint.analysis.scopes import says_eval, says_train
from msacclint.analysis.training import training
from msacclint.analysis.walk import walk
from msacclint.diagnostics import Severity
from msacclint.rules.base import Invalid, Rule, Valid
from msacclint.rules.examples import fill, notebook
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


class ZeroWeightInit(Rule):
    code = "MSA505"
    name = "zero-weight-init"
    checklist = "wi.01"
    severity = Severity.ERROR
    evidence = ("The layer's position is resolved in its Cell: its weight is a literal zero initializer, its output "
                'reaches another Dense/Conv/Embedding in `construct` (or it is not the last weight layer of a '
                'SequentialCell), and it is not the end of a residual branch (its output is not added to a tensor '
                'that does not come from it before another weight layer). A layer whose use is unknown is not '
                'reported.')
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
    example = """
        import mindspore.nn as nn
        from mindspore.common.initializer import initializer, Zero

        class MLP(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc1 = nn.Dense(784, 256, weight_init='zeros')  # MSA505
                self.relu = nn.ReLU()
                self.fc2 = nn.Dense(256, 10)

            def construct(self, x):
                return self.fc2(self.relu(self.fc1(x)))
    """
    use_instead = """
        import mindspore.nn as nn
        from mindspore.common.initializer import initializer, Zero

        class MLP(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc1 = nn.Dense(784, 256, weight_init='he_uniform')
                self.relu = nn.ReLU()
                self.fc2 = nn.Dense(256, 10)

            def construct(self, x):
                return self.fc2(self.relu(self.fc1(x)))
    """
    fix_safety = "No automatic fix: choose an initializer."
    versions = "All versions."
    VALID = (
        Valid("""
            import mindspore.nn as nn
            from mindspore.common.initializer import initializer, Zero

            class MLP(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.fc1 = nn.Dense(784, 256, weight_init='he_uniform')
                    self.relu = nn.ReLU()
                    self.fc2 = nn.Dense(256, 10)

                def construct(self, x):
                    return self.fc2(self.relu(self.fc1(x)))
        """, note="idiomatic"),
        Valid("""
            import mindspore.nn as nn
            from mindspore.common.initializer import initializer, Zero

            class MLP(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.fc1 = nn.Dense(784, 256, bias_init='zeros')
                    self.relu = nn.ReLU()
                    self.fc2 = nn.Dense(256, 10)

                def construct(self, x):
                    return self.fc2(self.relu(self.fc1(x)))
        """, note="a zero bias"),
        Valid("""
            import mindspore.nn as nn
            from mindspore.common.initializer import initializer, Zero

            class Classifier(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.backbone = nn.Dense(784, 256)
                    self.head = nn.Dense(256, 10, weight_init='zeros')

                def construct(self, x):
                    return self.head(self.backbone(x))
        """, note="a zero-initialised head (the last layer) still learns"),
        Valid("""
            import mindspore.nn as nn
            from mindspore.common.initializer import initializer, Zero

            class LoRA(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.base = nn.Dense(64, 64)
                    self.lora_a = nn.Dense(64, 4, has_bias=False)
                    self.lora_b = nn.Dense(4, 64, weight_init=Zero(), has_bias=False)

                def construct(self, x):
                    return self.base(x) + self.lora_b(self.lora_a(x))
        """, note="LoRA's B matrix starts at zero on purpose"),
        Valid("""
            import mindspore.nn as nn

            class Block(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.fc1 = nn.Dense(64, 64)
                    self.relu = nn.ReLU()
                    self.fc2 = nn.Dense(64, 64, weight_init='zeros')
                    self.head = nn.Dense(64, 10)

                def construct(self, x):
                    skip = x
                    x = self.fc2(self.relu(self.fc1(x)))
                    x += skip
                    return self.head(x)
        """, note="zero-init residual: the branch's last layer, then x += skip"),
        Valid("""
            import mindspore.nn as nn

            class Block(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.conv1 = nn.Conv2d(64, 64, 3)
                    self.conv2 = nn.Conv2d(64, 64, 3, weight_init='zeros')
                    self.bn2 = nn.BatchNorm2d(64)
                    self.conv3 = nn.Conv2d(64, 64, 3)

                def construct(self, x):
                    out = self.bn2(self.conv2(self.conv1(x)))
                    x = x + out
                    return self.conv3(x)
        """, note="x = skip + f(x), past a BatchNorm (no weights of a Dense/Conv)"),
        Valid("""
            import mindspore.nn as nn
            from mindspore.common.initializer import Zero

            class Trunk(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.transition = nn.Dense(64, 64, weight_init=Zero())
                    self.out = nn.Dense(64, 64)

                def _update(self, act):
                    return self.transition(act)

                def construct(self, act):
                    for _ in range(4):
                        act = act + self._update(act)
                    return self.out(act)
        """, note="act = act + self.transition(act), repeated, through a helper method"),
        Valid("""
            import mindspore.nn as nn
            import mindspore.ops as ops

            class Block(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.proj = nn.Dense(64, 64, weight_init='zeros')
                    self.head = nn.Dense(64, 10)

                def construct(self, x, skip):
                    x = self.proj(x)
                    x = ops.add(skip, x)
                    return self.head(x)
        """, note="ops.add with a skip tensor"),
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
        Invalid("""
            import mindspore.nn as nn
            from mindspore.common.initializer import initializer, Zero

            class MLP(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.fc1 = nn.Dense(784, 256, weight_init='zeros')  # MSA505
                    self.relu = nn.ReLU()
                    self.fc2 = nn.Dense(256, 10)

                def construct(self, x):
                    return self.fc2(self.relu(self.fc1(x)))
        """),
        Invalid("""
            import mindspore.nn as nn
            from mindspore.common.initializer import initializer, Zero

            class MLP(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.fc1 = nn.Dense(784, 256)
                    self.fc2 = nn.Dense(256, 10)
                    self.fc1.weight.set_data(initializer('zeros', self.fc1.weight.shape))  # MSA505

                def construct(self, x):
                    x = self.fc1(x)
                    return self.fc2(x)
        """, note="torch's nn.init.zeros_(self.fc1.weight) ported with set_data"),
        Invalid("""
            import mindspore.nn as nn

            class Block(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.fc1 = nn.Dense(64, 64, weight_init='zeros')  # MSA505
                    self.fc2 = nn.Dense(64, 64)

                def construct(self, x):
                    h = self.fc1(x)
                    h = self.fc2(h)
                    x += h
                    return x
        """, note="the zero layer is not the last of the branch: fc2 takes its output before the add"),
        Invalid("""
            import mindspore.nn as nn

            class Block(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.fc1 = nn.Dense(64, 64, weight_init='zeros')  # MSA505
                    self.fc2 = nn.Dense(64, 10)

                def construct(self, x):
                    x = self.fc1(x)
                    x += 1
                    return self.fc2(x)
        """, note="adding a constant is no skip connection"),
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


def _path_shape(expr: cst.BaseExpression) -> Optional[str]:
    """What identifies a checkpoint path across functions: a string literal's value, an
    f-string's text with every replacement field as ``{}``, or the code of a ``self.<attr>``;
    None for anything else (a bare name may hold any path its callers pass)."""
    if isinstance(expr, cst.SimpleString):
        value = expr.evaluated_value
        return f"'{value}'" if isinstance(value, str) else None
    if isinstance(expr, cst.FormattedString):
        parts = [p.value if isinstance(p, cst.FormattedStringText) else "{}" for p in expr.parts]
        text = "".join(parts)
        return f"f'{text}'" if text.strip("{}/") else None
    if isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name) and expr.value.value == "self":
        return _code(expr)
    return None


def _path_name(ctx, expr: cst.BaseExpression, owner) -> Optional[str]:
    """The file name of a checkpoint path: a string (``scopes.string_value``), or a
    ``"...-%s_732.ckpt" % epochs`` format (also held by a name) with each field filled in with 1."""
    from msacclint.analysis.scopes import scopes, string_value

    text = string_value(ctx, owner, expr)
    if text is None and isinstance(expr, cst.Name) and owner is not None:
        found = scopes(ctx).resolve(owner, expr.value)   # a module-level ``PATH = "...%s..." % n``
        if found is not None and found[1].index is None:
            expr = found[1].value
    if text is None and isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Modulo):
        template = literal(expr.left)
        if isinstance(template, str):
            text = re.sub(r"%[-+ 0#]*\d*(?:\.\d+)?[sdif]", "1", template)
    return text.replace("\\", "/").rsplit("/", 1)[-1] if text is not None else None


def _checkpoint_prefixes(ctx) -> List[str]:
    """The ``prefix`` of every ModelCheckpoint callback of the file, where it resolves to a string."""
    from msacclint.analysis.facts import facts
    from msacclint.analysis.scopes import scopes, string_value

    out = []
    sc = scopes(ctx)
    for name, calls in facts(ctx).calls.items():
        if not (name.startswith("mindspore.") and name.endswith(".ModelCheckpoint")):
            continue
        for call in calls:
            prefix = argument(call, "prefix", ("prefix", "directory", "config"))
            value = string_value(ctx, sc.owner(call), prefix.value) if prefix is not None else "CKP"
            if value:
                out.append(value)
    return out


LOAD_INTO_NET = "mindspore.load_param_into_net"
LOAD_CHECKPOINT = "mindspore.load_checkpoint"
SAVE_CHECKPOINT = "mindspore.save_checkpoint"


#: a script that trains with a ModelCheckpoint callback and resumes from a checkpoint file
_OWN_CHECKPOINT = """
    import mindspore as ms
    from mindspore.train.callback import CheckpointConfig, ModelCheckpoint


    def train(net, loss, opt, data, epochs=2, prefix="lenet"):
        ckpt = ModelCheckpoint(prefix=prefix, config=CheckpointConfig(save_checkpoint_steps=1875))
        ms.Model(net, loss, opt).train(epochs, data, callbacks=[ckpt])


    def resume(net, loss, opt, data, epochs=2):
        param_dict = ms.load_checkpoint({path})
        ms.load_param_into_net(net, param_dict){mark}
        ms.Model(net, loss, opt).train(epochs, data)
"""


#: a class that saves checkpoints to ``{saved_to}`` and loads ``{loaded_from}`` back in
#: another method, in a training script
_SAVE_AND_LOAD = """
import mindspore as ms


class EarlyStopper:
    def __init__(self, out='ckpt', save_path='best.ckpt'):
        self.out, self.save_path = out, save_path
        self.best, self.best_epoch = None, 0

    def step(self, model, score, epoch):
        if self.best is None or score > self.best:
            self.best, self.best_epoch = score, epoch
            ms.save_checkpoint(model, {saved_to})

    def restore(self, model):
        ms.load_param_into_net(model, ms.load_checkpoint({loaded_from})){mark}


stopper = EarlyStopper()
model = ms.Model(net, loss_fn, opt)
for epoch in range(10):
    model.train(1, ds)
    stopper.step(net, evaluate(net), epoch)
stopper.restore(net)
"""


#: a trainer base class whose resume loads a checkpoint, and the subclass of another file
#: that holds the training step (``{step}``)
_SPLIT_TRAINER = {
    "src/__init__.py": "",
    "src/base_trainer.py": """
        import mindspore as ms

        class BaseTrainer:
            def __init__(self, network, optimizer):
                self.network = network
                self.optimizer = optimizer

            def load_checkpoint(self, path):
                params = ms.load_checkpoint(path)
                {load}
    """,
    "src/trainer.py": """
        import mindspore as ms
        from src.base_trainer import BaseTrainer

        class Trainer(BaseTrainer):
            def run(self, dataset, resume):
                self.load_checkpoint(resume)
                {step}
    """,
}


def _split_trainer(load: str, step: str = "self.fit(dataset)\nself.network.set_train()") -> dict:
    return {path: fill(text, load=load, step=step) for path, text in _SPLIT_TRAINER.items()}


class UncheckedCheckpointLoad(InFunctionRule):
    code = "MSA506"
    reports_discarded_results = True
    about_the_run = True
    name = "unchecked-checkpoint-load"
    checklist = "wi.02"
    severity = Severity.WARNING
    message = "the parameters that were not loaded are never checked"
    uses_facts = True
    what = ("Reports, in a file that trains (a hand-written training step or `Model.train`) or in a class or "
            "function that a file of the project which trains extends or calls (a trainer base class whose "
            "subclass in another file holds the training step), "
            "`load_param_into_net(net, params)` whose result is discarded (a bare statement, `_`, or "
            "names never read again in the function), and `load_checkpoint(path, net)` with a network, which "
            "loads into it and drops those lists itself. `strict_load=True` does not make either safe. "
            "Evaluation and export scripts, and loads inside a function named for evaluation (`do_eval`, "
            "`predict`) of a script that also trains, and loads into a network that the function only hands to "
            "`mindspore.export` (a training script writing an AIR file of its last checkpoint), and loads of a file "
            "that the file's own `ModelCheckpoint` writes (`<prefix>-<epoch>_<step>.ckpt`: a resume demo, an "
            "evaluation after training; the names match by construction), and loads of a path the file itself writes with "
            "`save_checkpoint` (the same `self.<attr>`, a literal, or an f-string of the same shape: an early "
            "stopper's best weights), are left alone: the checklist item is about the pretrained "
            "weights a training run starts from, and there an incomplete load costs a whole run. In a notebook, "
            "a bare `load_param_into_net(...)` that is a code cell's last statement is not discarded: Jupyter "
            "shows the lists under the cell.")
    why = ("In MindSpore 2.10 `load_param_into_net` never raises on missing or unexpected names, whatever "
           "`strict_load` says (verified; MS-CKPT-01): it returns `(param_not_load, ckpt_not_load)` and logs a "
           "warning. A checkpoint converted from PyTorch with a wrong name mapping (gamma/beta vs weight/bias, "
           "moving_mean vs running_mean, a missing 'backbone.' prefix) 'loads' and the model silently trains or "
           "evaluates from random weights. PyTorch's `load_state_dict` raises by default.")
    example = """
        import mindspore as ms

        param_dict = ms.load_checkpoint('resnet50.ckpt')
        ms.load_param_into_net(net, param_dict)  # MSA506
        model = ms.Model(net, loss_fn, optimizer)
        model.train(90, train_dataset)
    """
    use_instead = """
        import mindspore as ms

        param_dict = ms.load_checkpoint('resnet50.ckpt')
        param_not_load, ckpt_not_load = ms.load_param_into_net(net, param_dict)
        assert not param_not_load, param_not_load
    """
    fix_safety = "No automatic fix: what to do with unloaded parameters depends on the script."
    versions = "2.x returns (param_not_load, ckpt_not_load); verified on 2.10."
    VALID = (
        Valid(files=_split_trainer("missing, _ = ms.load_param_into_net(self.network, params)\nassert not missing"),
              note="multi-file: the trainer base class checks what was not loaded"),
        Valid(files=_split_trainer("ms.load_param_into_net(self.network, params)",
                                   step="self.network.set_train(False)\nreturn self.evaluate(dataset)"),
              note="multi-file look-alike: the only subclass evaluates; nothing in the project trains"),
        Valid("""
            import mindspore as ms

            param_dict = ms.load_checkpoint('resnet50.ckpt')
            param_not_load, ckpt_not_load = ms.load_param_into_net(net, param_dict)
            assert not param_not_load, param_not_load
        """, note="idiomatic"),
        Valid("""
            import mindspore as ms

            def load(net, path):
                not_loaded, _ = ms.load_param_into_net(net, ms.load_checkpoint(path))
                if not_loaded:
                    print('not loaded:', not_loaded)
        """, note="reported to the user"),
        Valid("""
            import mindspore as ms

            def load(net, path):
                return ms.load_param_into_net(net, ms.load_checkpoint(path))
        """, note="returned to the caller"),
        Valid("""
            import mindspore as ms

            param_dict = ms.load_checkpoint('resnet50.ckpt')
        """, note="no network given"),
        Valid(files={"finetune.ipynb": notebook(
            """
            import mindspore as ms
            param_dict = ms.load_checkpoint('resnet50.ckpt')
            """,
            "md: The parameters that did not load are listed under the next cell.",
            "ms.load_param_into_net(net, param_dict)",
            """
            model = ms.Model(net, loss_fn, optimizer)
            model.train(90, train_dataset)
            """,
        )}, note="a notebook cell's last expression: Jupyter shows the list of parameters that were not loaded"),
        Valid("""
            import mindspore as ms

            ms.load_param_into_net(net, ms.load_checkpoint(args.ckpt))
            model = ms.Model(net)
            print(model.eval(eval_dataset))
        """, note="an evaluation script: no training starts from it"),
        Valid("""
            import torch
            model.load_state_dict(torch.load('model.pt'))
        """, note="PyTorch raises by default"),
        Valid("""
            import mindspore as ms

            def swap_in_ema(net):
                ema = {}
                for p in net.get_parameters():
                    ema[p.name[4:]] = p.data
                ms.load_param_into_net(net, ema)
        """, note="a dict built here from the network's own names"),
        Valid("""
            import mindspore as ms

            def do_eval(path):
                net = Net()
                ms.load_param_into_net(net, ms.load_checkpoint(path))
                return ms.Model(net).eval(eval_ds)
            model = ms.Model(net, loss_fn, opt)
            model.train(1, ds)
        """, note="the evaluation half of a train-and-evaluate script loads the checkpoint it just saved"),
        Valid("""
            import mindspore as ms

            def frozen_to_air(net, ckpt, path):
                ms.load_param_into_net(net, ms.load_checkpoint(ckpt))
                ms.export(net, example_input, file_name=path, file_format='AIR')
            model = ms.Model(net, loss_fn, opt)
            model.train(1, ds)
        """, note="an export helper of a training script"),
        Valid("""
            import mindspore as ms

            class Trainer:
                def fit(self, epochs):
                    best = float('inf')
                    for epoch in range(epochs):
                        loss = self.train_net(self.x, self.y)
                        if loss < best:
                            best = loss
                            ms.save_checkpoint(self.model, 'best_model.ckpt')
                    param_dict = ms.load_checkpoint('best_model.ckpt')
                    ms.load_param_into_net(self.model, param_dict)
            model = ms.Model(net, loss_fn, opt)
            model.train(1, ds)
        """, note="early stopping reloads the best weights this function saved from the same network"),
    )
    VALID = VALID + (
        Valid("""
            import glob
            import numpy as np
            import mindspore as ms

            model = ms.Model(net, loss_fn, opt)
            model.train(90, train_dataset)
            last = sorted(glob.glob('./ckpt/*.ckpt'))[-1]
            export_net = ResNet50(num_classes=1000)
            ms.load_param_into_net(export_net, ms.load_checkpoint(last))
            ms.export(export_net, ms.Tensor(np.zeros([1, 3, 224, 224], np.float32)), file_name='resnet50',
                      file_format='MINDIR')
        """, note="after training, the run's own last checkpoint is loaded into a network that is only exported"),
        Valid(_OWN_CHECKPOINT.format(path="'lenet-2_1875.ckpt'", mark=""),
              note="a resume demo reads back the file its own ModelCheckpoint(prefix='lenet') writes"),
        Valid(_OWN_CHECKPOINT.format(path="'./lenet-%s_1875.ckpt' % epochs", mark=""),
              note="the same file name built with a format"),
        Valid(_SAVE_AND_LOAD.format(saved_to="self.save_path", loaded_from="self.save_path", mark=""),
              note="an early stopper reloads the path it saves the best weights to, in another method"),
        Valid(_SAVE_AND_LOAD.format(saved_to="f'{self.out}/best_{epoch}.ckpt'",
                                    loaded_from="f'{self.out}/best_{self.best_epoch}.ckpt'", mark=""),
              note="an f-string of the same shape"),
    )
    INVALID = (
        Invalid(files=_split_trainer("ms.load_param_into_net(self.network, params)  # MSA506"),
                message_contains="extends BaseTrainer and trains",
                note="multi-file: a loop split across files: the load sits in a trainer base class, the training "
                     "step in its subclass of another file"),
        Invalid(_SAVE_AND_LOAD.format(saved_to="self.save_path", loaded_from="self.pretrained",
                                      mark="  # MSA506"),
                note="the nearest look-alike: the class also saves checkpoints, but loads another file"),
        Invalid(_OWN_CHECKPOINT.format(path="'resnet50_imagenet-90_5004.ckpt'", mark="  # MSA506"),
                note="the nearest look-alike: a checkpoint of another run (not this file's prefix)"),
        Invalid("""
            import numpy as np
            import mindspore as ms

            net = ResNet50(num_classes=1000)
            ms.load_param_into_net(net, ms.load_checkpoint('pretrained.ckpt'))  # MSA506
            ms.export(net, ms.Tensor(np.zeros([1, 3, 224, 224], np.float32)), file_name='init', file_format='MINDIR')
            model = ms.Model(net, loss_fn, opt)
            model.train(90, train_dataset)
        """, note="the nearest look-alike: the network loaded into is exported and then trained"),
        Invalid("""
            import mindspore as ms

            param_dict = ms.load_checkpoint('resnet50.ckpt')
            ms.load_param_into_net(net, param_dict)  # MSA506
            model = ms.Model(net, loss_fn, optimizer)
            model.train(90, train_dataset)
        """),
        Invalid(files={"finetune.ipynb": notebook(
            """
            import mindspore as ms
            param_dict = ms.load_checkpoint('resnet50.ckpt')
            ms.load_param_into_net(net, param_dict)  # MSA506
            model = ms.Model(net, loss_fn, optimizer)
            """,
            "model.train(90, train_dataset)",
        )}, note="in a notebook, the load is not the cell's last statement: the list is thrown away"),
        Invalid("""
            import mindspore as ms

            ms.load_param_into_net(net, ms.load_checkpoint(path), strict_load=True)  # MSA506
            model = ms.Model(net, loss_fn, opt)
            model.train(1, ds)
        """, note="torch's load_state_dict(strict=True) ported: strict_load does not raise"),
        Invalid("""
            import mindspore as ms

            def load(net, path):
                ms.load_checkpoint(path, net)  # MSA506
            model = ms.Model(net, loss_fn, opt)
            model.train(1, ds)
        """),
        Invalid("""
            import mindspore as ms

            class Trainer:
                def fit(self, epochs, pretrained):
                    for epoch in range(epochs):
                        loss = self.train_net(self.x, self.y)
                        ms.save_checkpoint(self.model, 'last.ckpt')
                    param_dict = ms.load_checkpoint(pretrained)
                    ms.load_param_into_net(self.model, param_dict)  # MSA506
            model = ms.Model(net, loss_fn, opt)
            model.train(1, ds)
        """, note="the nearest look-alike: the file loaded is not the one this function saved"),
        Invalid("""
            import mindspore as ms

            def load(net, path):
                missing, unexpected = ms.load_param_into_net(net, ms.load_checkpoint(path))  # MSA506
                return net
            model = ms.Model(net, loss_fn, opt)
            model.train(1, ds)
        """),
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
        path = argument(node, "ckpt_file_name", ("ckpt_file_name", "net"))
        if path is not None and self._own_checkpoint(path.value, node):
            return
        if net is not None and literal(net.value) is not None:
            self.report(node, "load_checkpoint(path, net) loads into the network and drops the list of parameters "
                        "that were not loaded (it never raises, whatever strict_load says); load the dict, then "
                        "check what ms.load_param_into_net(net, param_dict) returns")

    def visit_Expr(self, node: cst.Expr) -> None:
        # the last expression of a notebook cell is not dropped: Jupyter shows the list
        if self._is_load(node.value) and not self._in_evaluation() and not displayed(self.ctx, node):
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
            if name != "_" and len(re.findall(r"\b" + re.escape(name) + r"\b", scope_text)) > 1:
                return
        self._report(node.value)

    def _is_load(self, value: cst.BaseExpression) -> bool:
        if not (isinstance(value, cst.Call) and self.ctx.resolve(value.func) == LOAD_INTO_NET):
            return False
        params = argument(value, "parameter_dict", ("net", "parameter_dict"))
        if params is not None and self._reloads_own_save(value, params.value):
            return False
        if self._only_exported(value):
            return False
        if params is not None and self._loads_own_checkpoint(value, params.value):
            return False
        if params is not None and self._reads_file_saves(value, params.value):
            return False
        return params is None or not self._built_here(params.value)

    def _reloads_own_save(self, load: cst.Call, params: cst.BaseExpression) -> bool:
        """The dict is read back from a file that this function saved from the same network
        earlier (``save_checkpoint(self.model, 'best.ckpt')`` on a validation improvement, then
        ``load_param_into_net(self.model, load_checkpoint('best.ckpt'))`` after the loop): the
        names match by construction."""
        net = argument(load, "net", ("net", "parameter_dict"))
        if net is None or not self._functions:
            return False
        fl = flow(self.ctx, self._functions[-1])
        source = params
        if isinstance(params, cst.Name):
            found = fl.definition(params.value, fl.order(load))
            source = found.value if found is not None else params
        if not (isinstance(source, cst.Call) and self.ctx.resolve(source.func) == LOAD_CHECKPOINT):
            return False
        path = argument(source, "ckpt_file_name", ("ckpt_file_name",))
        if path is None:
            return False
        before = fl.order(load)
        for event in fl.calls_to(SAVE_CHECKPOINT):
            if before is not None and event.order >= before:
                continue
            saved = argument(event.node, "save_obj", ("save_obj", "ckpt_file_name"))
            saved_to = argument(event.node, "ckpt_file_name", ("save_obj", "ckpt_file_name"))
            if saved is not None and saved_to is not None and saved.value.deep_equals(net.value) and \
                    saved_to.value.deep_equals(path.value):
                return True
        return False

    def _loaded_path(self, load: cst.Call, params: cst.BaseExpression
                     ) -> Optional[Tuple[cst.BaseExpression, cst.Call]]:
        """(the path, the ``load_checkpoint`` call) the dict of a load comes from, directly
        or through the name it was assigned to in this function; None otherwise."""
        source = params
        if isinstance(params, cst.Name):
            fl = flow(self.ctx, self._functions[-1]) if self._functions else flow(self.ctx, self.ctx.module)
            found = fl.definition(params.value, fl.order(load))
            source = found.value if found is not None else params
        if not (isinstance(source, cst.Call) and self.ctx.resolve(source.func) == LOAD_CHECKPOINT):
            return None
        path = argument(source, "ckpt_file_name", ("ckpt_file_name",))
        return (path.value, source) if path is not None else None

    def _loads_own_checkpoint(self, load: cst.Call, params: cst.BaseExpression) -> bool:
        """The dict comes from ``load_checkpoint(path)`` of a file this file's ModelCheckpoint writes."""
        loaded = self._loaded_path(load, params)
        return loaded is not None and self._own_checkpoint(*loaded)

    def _reads_file_saves(self, load: cst.Call, params: cst.BaseExpression) -> bool:
        """The dict is read from a path this file also writes with ``save_checkpoint``: the
        same path expression (``self.save_path`` of an early stopper, a literal such as
        ``'best_cls.ckpt'``) or an f-string of the same shape (``f"{out}/generator_{e}.ckpt"``),
        in any function of the file. A bare parameter (``path``) does not count: its callers
        may pass any file."""
        from msacclint.analysis.facts import facts

        loaded = self._loaded_path(load, params)
        shape = _path_shape(loaded[0]) if loaded is not None else None
        if shape is None:
            return False
        for save in facts(self.ctx).called(SAVE_CHECKPOINT):
            saved_to = argument(save, "ckpt_file_name", ("save_obj", "ckpt_file_name"))
            if saved_to is not None and _path_shape(saved_to.value) == shape:
                return True
        return False

    def _only_exported(self, load: cst.Call) -> bool:
        """The network loaded into is only exported (``mindspore.export(export_net, x, ...)``)
        and nothing else in its function uses it: it loads what is exported (a training script
        that writes an AIR file of its own last checkpoint), not what a run starts from."""
        net = argument(load, "net", ("net", "parameter_dict"))
        if net is None or not isinstance(net.value, cst.Name):
            return False
        uses = local_uses(self.ctx, self._functions[-1] if self._functions else self.ctx.module, net.value.value)
        exported = [u for u in uses if u.kind == "argument" and u.callee == "mindspore.export" and u.position == 0]
        return bool(exported) and all(
            u.kind == "assigned" or u in exported
            or (u.kind == "argument" and u.callee == LOAD_INTO_NET and u.position == 0)
            or (u.kind == "receiver" and u.callee == "set_train" and u.call is not None and u.call.args
                and literal(u.call.args[0].value) is False)
            for u in uses)

    def _own_checkpoint(self, path: cst.BaseExpression, at: cst.CSTNode) -> bool:
        """The file read is one that this file's own ModelCheckpoint writes: its name is
        ``<prefix>[_N]-<epoch>_<step>.ckpt`` for the prefix of one of its callbacks (a resume
        demo, or the evaluation after training, reads back what the run saved: the names match
        by construction)."""
        from msacclint.analysis.scopes import scopes

        name = _path_name(self.ctx, path, scopes(self.ctx).owner(at))
        if name is None:
            return False
        return any(re.fullmatch(re.escape(prefix) + r"(_\d+)?-\d+_\d+\.ckpt", name)
                   for prefix in _checkpoint_prefixes(self.ctx))

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

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._classes: List[cst.ClassDef] = []
        #: id of a reported node -> the top-level class or function holding it
        self._owners: Dict[int, str] = {}

    def finish(self) -> None:
        if not self.reports or training(self.ctx).trains:
            return
        # a loop split across files: a load in a trainer base class or a helper that a file of
        # the project which trains extends or calls (the training step lives there)
        kept = []
        for report in self.reports:
            owner = self._owners.get(id(report.node))
            used = self._trained_by(owner) if owner is not None else None
            if used is not None:
                report.message = report.message.rstrip() + (f" (this file trains nothing, but {owner} is used "
                                                             f"for training: {used.what}, {used.where()})")
                report.related = report.related + ((used.path, used.line, used.what),)
                kept.append(report)
        self.reports[:] = kept

    def _trained_by(self, owner: str):
        import os

        if self.ctx.project is None:
            return None
        return self.ctx.project.trained_by(os.path.abspath(self.ctx.path), owner)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._classes.append(node)

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self._classes.pop()

    def report(self, node, message=None, fix=None, severity=None, related=()) -> None:
        super().report(node, message, fix, severity, related)
        top = self._classes[0].name.value if self._classes else (
            self._functions[0].name.value if self._functions else None)
        if top is not None:
            self._owners[id(node)] = top

    def _report(self, call: cst.Call) -> None:
        self.report(call, "load_param_into_net never raises on missing or unexpected names (strict_load "
                    "included): check the returned param_not_load list, e.g. `param_not_load, _ = "
                    "ms.load_param_into_net(...)` then `assert not param_not_load`")
