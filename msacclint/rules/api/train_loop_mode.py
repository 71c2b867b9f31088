"""MSA201 (api.02, MS-MODE-01, error): a hand-written training loop whose network never gets
``set_train()``."""

from __future__ import annotations

from typing import Dict, Optional

import libcst as cst

from msacclint.analysis.train_modes import mode_evidence
from msacclint.analysis.training import set_train_mode, training
from msacclint.diagnostics import Severity
from msacclint.rules.base import Invalid, Rule, Valid
from msacclint.rules.examples import fill, notebook
from msacclint.rules.fixtures.api import (
    CONTAINER_CELLS,
    NET_WITH_RATE,
    NET_WITHOUT_MODE_LAYERS,
    SAMPLED_LOOP,
    TRAIN_AND_EVAL,
    TRAIN_SCRIPT,
    TRAINER,
    TRAINER_USER,
    container_loop,
    mode_net,
    train_function,
)
from msacclint.rules.fixtures.split_functions import split_functions

#: a module holding one Cell: ``{layers}`` built in its ``__init__``
_CELL_MODULE = """
    import mindspore.nn as nn
    {imports}

    class {cls}(nn.Cell):
        def __init__(self{params}):
            super().__init__()
            {layers}
"""


def _cell(cls: str, params: str, layers: str, imports: str = "") -> str:
    return fill(_CELL_MODULE, cls=cls, params=params, layers=layers, imports=imports)


def _scripted(modules: Dict[str, str], set_train: str = "", mark: str = "") -> Dict[str, str]:
    """The modules of src/ and the TRAIN_SCRIPT that trains their Net (after ``set_train``)."""
    return {"src/__init__.py": "", **modules, "train.py": fill(TRAIN_SCRIPT, set_train=set_train, mark=mark)}


class TrainLoopWithoutSetTrain(Rule):
    code = "MSA201"
    about_the_run = True
    name = "train-loop-without-set-train"
    checklist = "api.02"
    severity = Severity.ERROR
    group = "correctness"
    evidence = ('The training step and the network it trains are resolved in the file (a '
                'value_and_grad/grad/GradOperation step or a TrainOneStep cell called in a loop), and no '
                '`set_train()`/`set_train(True)` is called on any cell of the file; `Model.train` and networks of the '
                'file that visibly hold no BatchNorm or Dropout (classes, or containers of written-out layers) are left '
                'alone. A network handed to a class of the '
                'file (`Trainer(network)`, kept as `self.network`) is an error when some call in the project hands '
                'it a class holding Dropout, BatchNorm or a `self.training` read (named in the message); info '
                'when the networks it is handed cannot all be resolved; silent when all are known and none has one. '
                'A `set_train(False)` on the network inside the loop before the training step (sampling in '
                'inference mode, then training on the samples) is a choice: info, at that call.')
    uses_facts = True
    message = "hand-written training loop, but the network is never put in training mode with set_train()"
    what = ("Reports a hand-written training loop — a step built with `value_and_grad`/`grad`/"
            "`GradOperation`, or a `TrainOneStepCell`/`TrainOneStepWithLossScaleCell` (or a step Cell of "
            "the file) called by hand in a loop — when the network it trains can be identified and the "
            "file never calls `set_train()`/`set_train(True)` on any cell. Not reported when the network's "
            "class is in the file and visibly holds no BatchNorm or Dropout, nor when the network is a "
            "`SequentialCell`/`CellList` (a list, its arguments, or an `OrderedDict` of named layers) whose layers "
            "are written out and none of which depends on the mode; nor for files that train through "
            "`Model.train`: it sets the mode itself. The network may also be handed to a "
            "class of the file: a `Trainer` whose `__init__` keeps its `network` parameter as `self.network` "
            "and whose method trains it, or a top-level function of another file (`train(network, ...)`) that trains its "
            "`network` parameter; what the project passes for that parameter decides, and a caller that puts it in "
            "training mode before handing it over settles it. A `set_train()` "
            "counts only where it can run before or during the training loop: one in a module-level function "
            "(an `eval()` that switches training mode back on at its end) that the loop's function does not "
            "call and that no function on the way to the loop calls before it does not.")
    why = ("A new MindSpore Cell starts in inference mode (`training=False`, verified on 2.10; a "
           "PyTorch Module starts in training mode). A loop that never calls `set_train()` trains "
           "with Dropout switched off and BatchNorm normalising with its initial moving statistics, "
           "which are never updated: the loss still falls, but evaluation with the untouched "
           "statistics is poor.")
    example = """
        grad_fn = ms.value_and_grad(forward, None, opt.parameters)
        for x, y in dataset.create_tuple_iterator():
            loss, grads = grad_fn(x, y)
            opt(grads)
    """
    use_instead = """
        grad_fn = ms.value_and_grad(forward, None, opt.parameters)
        net.set_train()
        for x, y in dataset.create_tuple_iterator():
            loss, grads = grad_fn(x, y)
            opt(grads)
    """
    fix_safety = "No automatic fix: where the call belongs (before the loop, per epoch after evaluation) is a choice."
    versions = "All MindSpore 1.x and 2.x releases (Cell.training defaults to False)."
    references = ("rules/api_defaults.toml, entry MS-MODE-01",)
    VALID = (
        Valid(mode_net(train_function(set_train="net.set_train()")), note="idiomatic"),
        Valid(mode_net("""
            net = Net()
            model = ms.Model(net, nn.CrossEntropyLoss(), nn.SGD(net.trainable_params()))
            model.train(10, dataset)
        """), note="Model.train sets the mode"),
        Valid(mode_net("""
            def build():
                net = Net()
                step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params()))
                step.set_train()
                return step
            def train(ds):
                step = build()
                for x, y in ds:
                    step(x, y)
        """), note="set_train on the step cell, in another function"),
        Valid(mode_net("""
            def train(net, dataset, opt):
                grad_fn = ms.value_and_grad(lambda x, y: net(x).sum(), None, opt.parameters)
                for x, y in dataset:
                    grad_fn(x, y)
        """), note="the network is a parameter: set elsewhere"),
        Valid("""
            import torch
            net = Net()
            opt = torch.optim.SGD(net.parameters(), lr=0.1)
            for x, y in loader:
                loss = net(x).sum()
                loss.backward()
                opt.step()
        """, note="PyTorch starts in train mode"),
        Valid(mode_net("""
            class Step(nn.TrainOneStepCell):
                def __init__(self, net, opt):
                    super().__init__(net, opt)
                    self.set_train()
            net = nn.WithLossCell(Net(), nn.MSELoss())
            step = Step(net, nn.SGD(net.trainable_params()))
            for x, y in ds:
                step(x, y)
        """), note="the wrapper puts itself in training mode"),
        Valid(fill("""
            import mindspore as ms
            from mindspore import nn
            class Mlp(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.body = nn.SequentialCell(nn.Dense(4, 8), nn.ReLU(), nn.Dense(8, 2))
                def construct(self, x):
                    return self.body(x)
            {train}
        """, train=train_function(net="Mlp")), note="no BatchNorm or Dropout: the mode changes nothing"),
        Valid(container_loop(net="nn.SequentialCell([nn.Dense(2, 16), nn.Tanh(), nn.Dense(16, 1)])", mark=""),
              note="a container of visible layers, none of which depends on the mode (a course's regression MLP)"),
        Valid(container_loop(net='nn.SequentialCell(OrderedDict([("fc1", nn.Dense(2, 16)), ("act", nn.ReLU()), '
                                       '("fc2", nn.Dense(16, 1))]))', mark="").replace(
            "import mindspore as ms\n", "from collections import OrderedDict\nimport mindspore as ms\n"),
              note="the same as an OrderedDict of named layers"),
        Valid(container_loop(net="nn.SequentialCell([nn.Dense(2, 16), nn.ReLU(), nn.Dropout(p=0.0), "
                                       "nn.Dense(16, 1)])", mark=""),
              note="a Dropout that drops nothing"),
    )
    VALID = VALID + (
        Valid(files=_scripted({"src/model.py": fill(NET_WITH_RATE, rate="0.1")}, set_train="net.set_train()"),
              note="multi-file: set_train() in the entry script"),
        Valid(files={**_scripted({"src/model.py": fill(NET_WITH_RATE, rate="0.1"), "src/adapter.py": """
                  def train_mode(obj):
                      \"\"\"torch's model.train(), written for MindSpore\"\"\"
                      return obj.set_train()
                  """}, set_train="from src.adapter import train_mode\ntrain_mode(net)")},
              note="multi-file: a project helper of another file (a port's adapter for model.train()) calls "
                   "set_train() on the network it is handed"),
        Valid(files=_scripted({"src/model.py": fill(NET_WITH_RATE, rate="0.0")}),
              note="look-alike, multi-file: the Dropout's rate is 0.0 at the only construction"),
        Valid(files=_scripted({"src/model.py": _cell("Net", "", "self.bn = nn.BatchNorm2d(8, use_batch_statistics=True)")}),
              note="multi-file: batch statistics only"),
        Valid(files={"src/__init__.py": "", "src/model.py": fill(NET_WITH_RATE, rate="0.1"),
                     "src/trainer.py": fill(TRAINER, set_train="self.network.set_train()", mark=""),
                     "train.py": TRAINER_USER},
              note="idiomatic: the Trainer puts the network it is handed in training mode"),
        Valid(files={"src/__init__.py": "", "src/model.py": NET_WITHOUT_MODE_LAYERS,
                     "src/trainer.py": fill(TRAINER, set_train="", mark=""), "train.py": TRAINER_USER},
              note="the nearest look-alike: every network the project hands the Trainer has no Dropout or BatchNorm"),
        Valid("""
            import torch

            class Trainer:
                def __init__(self, network, optimizer):
                    self.network = network
                    self.optimizer = optimizer

                def run(self, loader):
                    for x, y in loader:
                        loss = torch.nn.functional.cross_entropy(self.network(x), y)
                        loss.backward()
                        self.optimizer.step()
        """, note="a PyTorch Trainer: modules start in training mode"),
        Valid(files=split_functions(trainer="network.set_train()"),
              note="multi-file, idiomatic: the trainer function of src/ puts the network it is handed in training mode"),
        Valid(files=split_functions(caller="net.set_train()"),
              note="multi-file: the entry script puts the network in training mode before handing it to train()"),
        Valid(files=split_functions(layers="self.act = nn.ReLU()", uses="self.act(self.fc(x))"),
              note="multi-file look-alike: the network handed to train() has no BatchNorm or Dropout"),
        Valid(fill(TRAIN_AND_EVAL, main="evaluate()\ntrain()", mark=""),
              note="the nearest look-alike: the evaluation, which ends in set_train(True), runs before training"),
    )
    INVALID = (
        Invalid(mode_net(train_function(mark="  # MSA201")), note="a PyTorch loop ported as is (torch Modules start in train mode)"),
        Invalid(mode_net("""
            net = Net()
            opt = nn.Momentum(net.trainable_params(), 0.01, 0.9)
            train_net = nn.TrainOneStepCell(nn.WithLossCell(net, nn.CrossEntropyLoss()), opt)
            for epoch in range(10):
                for x, y in ds.create_tuple_iterator():
                    train_net(x, y)  # MSA201
        """)),
        Invalid(mode_net("""
            net = Net()
            opt = nn.Adam(net.trainable_params())
            def forward(x, y):
                return nn.MSELoss()(net(x), y)
            grad_fn = ms.value_and_grad(forward, None, opt.parameters)
            def train_step(x, y):
                loss, grads = grad_fn(x, y)
                opt(grads)
                return loss
            for x, y in ds:
                train_step(x, y)  # MSA201
            net.set_train(False)
        """), note="only set_train(False) in the file"),
        Invalid("""
            import mindspore as ms
            from mindspore import nn
            from mindcv.models import create_model
            net = create_model('resnet50', num_classes=10)
            opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
            loss_fn = nn.CrossEntropyLoss()
            def forward(x, y):
                return loss_fn(net(x), y)
            grad_fn = ms.value_and_grad(forward, None, opt.parameters)
            for x, y in ds:
                grad_fn(x, y)  # MSA201
        """, note="a network from a model factory: its BatchNorm cannot be seen, the mistake still can"),
        Invalid(files=_scripted({"src/model.py": fill(NET_WITH_RATE, rate="0.1")}, mark="  # MSA201"),
                note="the network's class, with its Dropout, is in src/model.py (multi-file)"),
        Invalid(files=_scripted({
            "src/blocks.py": _cell("ConvBn", ", c", "self.conv = nn.Conv2d(c, c, 3)\nself.bn = nn.BatchNorm2d(c)"),
            "src/model.py": _cell("Net", "", "self.body = ConvBn(8)", imports="from .blocks import ConvBn"),
        }, mark="  # MSA201"), note="multi-file: bn in a block of a third file"),
        Invalid(files={"src/__init__.py": "", "src/model.py": fill(NET_WITH_RATE, rate="0.1"),
                       "src/trainer.py": fill(TRAINER, set_train="", mark="  # MSA201"),
                       "train.py": TRAINER_USER},
                note="multi-file: a Trainer handed the network; the one the project hands it has a Dropout",
                message_contains="train.py:"),
        Invalid(files=split_functions(step_mark="  # MSA201"), message_contains="(train's `network`: a Net at",
                note="multi-file: the network is handed to a trainer function of another file (train(net, ...)), and "
                     "neither it nor the entry script puts it in training mode"),
        Invalid(files={"src/__init__.py": "", "src/trainer.py": fill(TRAINER, set_train="", mark="  # MSA201")},
                note="a library Trainer nothing in the project calls: reported at info, the network is unknown",
                message_contains="could not resolve"),
        Invalid(fill(TRAIN_AND_EVAL, main='if mode == "train":\n    train()\nelse:\n    evaluate()',
                     mark="  # MSA201"),
                note="the only set_train(True) is at the end of an evaluation that the training run never calls"),
        Invalid(files={**_scripted({"src/model.py": fill(NET_WITH_RATE, rate="0.1"), "src/adapter.py": """
                    def describe(obj):
                        print(obj)
                        return obj.trainable_params()
                    """}, set_train="from src.adapter import describe\ndescribe(net)", mark="  # MSA201")},
                note="multi-file look-alike: the network is handed to a project helper that does not put it in "
                     "training mode"),
        Invalid(SAMPLED_LOOP.format(before="net.set_train(False)  # MSA201", after="", mark=""),
                severity=Severity.INFO,
                message_contains="trained in inference mode",
                note="set_train(False) before each step (policy-gradient sampling): a choice, reported at info"),
        Invalid(container_loop(net="nn.SequentialCell([nn.Dense(2, 16), nn.ReLU(), nn.Dropout(p=0.2), "
                                         "nn.Dense(16, 1)])", mark="  # MSA201"),
                note="the look-alike: the container holds a Dropout, so the mode matters"),
        Invalid(container_loop(net="nn.SequentialCell(nn.Conv2d(1, 8, 3), nn.BatchNorm2d(8), nn.ReLU())",
                     mark="  # MSA201"),
                note="a BatchNorm among the container's layers (given as arguments)"),
        Invalid(files={"regression.ipynb": notebook(
            CONTAINER_CELLS[0], "md: A small network, trained by hand.",
            fill(CONTAINER_CELLS[1], net="nn.SequentialCell([nn.Dense(2, 16), nn.ReLU(), nn.Dropout(p=0.2), "
                                        "nn.Dense(16, 1)])"),
            CONTAINER_CELLS[2], fill(CONTAINER_CELLS[3], mark="  # MSA201"),
        )}, note="the same in a notebook: the network of one cell, the loop of another"),
        Invalid(SAMPLED_LOOP.format(before="", after="net.set_train(False)", mark="  # MSA201"),
                note="the nearest look-alike: an end-of-epoch evaluation's set_train(False) after the step, and "
                     "nothing switches training mode on: an error"),
    )

    def finish(self) -> None:
        info = training(self.ctx)
        if not info.loops or info.uses_model_train or info.enables_before_training():
            return
        for step in info.steps:
            if step.network is None and step.handed is not None and info.runs_in_loop(step):
                self._handed(step.handed, next(e for _, e in info.loops))
                return
            if step.network is None or not info.runs_in_loop(step):
                continue
            state = info.mode_cells_state(step.network)
            if state is False:
                continue  # no BatchNorm or Dropout anywhere in it: the mode changes nothing
            if info.helper_enables(step.network.name) is not None:
                continue  # a project helper it is handed to calls set_train() on it
            loop = next(e for _, e in info.loops)
            name = step.network.name
            evidence = list(mode_evidence(self.ctx).values())[:1]
            if state is None and self.ctx.project is not None:
                # the project layer was asked and could not tell: say so, at info level
                self.report(loop.node, f"`{name}` is trained by a hand-written loop and never put in training "
                            f"mode with set_train(); msacclint could not resolve whether its class holds Dropout, "
                            f"BatchNorm or reads self.training (defined outside the repository or built by a "
                            f"factory): if it does, call {name}.set_train() before the loop",
                            severity=Severity.INFO)
                return
            chosen = _switched_off_before_step(info, name)
            if chosen is not None:
                self.report(chosen, f"`{name}` is trained in inference mode: set_train(False) runs in the training "
                            f"loop before each training step, and nothing switches training mode back on, so Dropout "
                            f"is off and BatchNorm statistics are not updated while it trains. If that is the intent "
                            f"(a policy-gradient ratio computed in the mode the samples were drawn in), leave it; "
                            f"otherwise call {name}.set_train(True) before the training step",
                            severity=Severity.INFO)
                return
            where = ""
            if evidence:
                where = f" ({evidence[0].what} at {evidence[0].where()})"
            self.report(loop.node, f"`{name}` is trained by a hand-written loop but never put in "
                        f"training mode: call {name}.set_train() before the loop (a new Cell starts "
                        f"in inference mode, so Dropout is off and BatchNorm statistics are never updated){where}",
                        related=[(e.path, e.line, e.what) for e in evidence])
            return


    def _handed(self, handed, loop) -> None:
        """The trained network is handed to a class of the file (``Trainer(network)``): decided
        by what the project passes for that parameter."""
        import os

        project = self.ctx.project
        name = handed.shown
        path = os.path.abspath(self.ctx.path)
        if project is not None and project.switched_on_by_callers(path, handed.cls, handed.param):
            return  # a caller puts the network in training mode before handing it over
        built = project.argument_classes(path, handed.cls, handed.param) if project is not None else None
        states = [(where, callee, line, project.mode_dependence(where, callee)) for where, callee, line in built or ()]
        for where, callee, line, (state, evidence) in states:
            if state:
                shown = f"{project.display(where)}:{line}"
                because = f" ({evidence.what} at {evidence.where()})" if evidence is not None else ""
                self.report(loop.node, f"`{name}` ({handed.cls}'s `{handed.param}`: a {callee} at {shown}, not put in "
                            f"training mode there either) is "
                            f"trained by a hand-written loop but never put in training mode: call "
                            f"{name}.set_train() before the loop (a new Cell starts in inference mode, so Dropout "
                            f"is off and BatchNorm statistics are never updated){because}",
                            related=[(project.display(where), line, f"{callee}(...) handed to {handed.cls}")] +
                            ([(evidence.path, evidence.line, evidence.what)] if evidence is not None else []))
                return
        if states and all(state is False for *_, (state, _e) in states):
            return  # every network the project hands it is known and none has a mode-dependent layer
        if handed.kind == "function" and not states:
            return  # a function's network parameter that nothing in the project is seen to fill: set elsewhere
        self.report(loop.node, f"`{name}` is handed to {handed.cls} as `{handed.param}` and trained by a hand-written "
                    f"loop that never puts it in training mode with set_train(); msacclint could not resolve every "
                    f"network it is given (callers outside the project or not resolved): if one holds Dropout, "
                    f"BatchNorm or reads self.training, call {name}.set_train() before the loop",
                    severity=Severity.INFO)


def _switched_off_before_step(info, name: str) -> Optional[cst.Call]:
    """A ``<name>.set_train(False)`` inside a training loop that runs before the training
    step of the same iteration (``for batch in data: net.set_train(False); sample...;
    grad_fn(...)``): the network is trained in inference mode by an explicit choice, not by
    an omission. One that follows the step (an evaluation at the end of the epoch) is not."""
    for fl, step_call in info.loops:
        for switch in fl.method_calls("set_train", name):
            if set_train_mode(switch.node) is not False or not switch.loops or switch.order >= step_call.order:
                continue
            if switch.loops[-1] in step_call.loops:
                return switch.node
    return None
