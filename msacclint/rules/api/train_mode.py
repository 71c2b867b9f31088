"""api.02: the network's train/eval mode in hand-written loops (MS-MODE-01).

- MSA201 (error): a hand-written training loop whose network never gets ``set_train()``.
- MSA202 (warning): an evaluation loop that calls a network holding BatchNorm/Dropout
  while it may still be in training mode.
"""

from __future__ import annotations

from typing import Dict, Optional

import libcst as cst

from msacclint.analysis.cells import cells, self_attr
from msacclint.analysis.scopes import says_eval, scopes
from msacclint.analysis.train_modes import holds_mode_cells, mode_evidence
from msacclint.analysis.training import training
from msacclint.diagnostics import Severity
from msacclint.rules.base import Invalid, Rule, Valid
from msacclint.rules.examples import fill, notebook

#: MSA201's multi-file examples: a network in src/model.py and the entry script training it
_NET_WITH_RATE = """
    import mindspore.nn as nn

    class Net(nn.Cell):
        def __init__(self, rate={rate}):
            super().__init__()
            self.fc = nn.Dense(4, 2)
            self.drop = nn.Dropout(p=rate)

        def construct(self, x):
            return self.drop(self.fc(x))
"""
_TRAIN_SCRIPT = """
    import mindspore as ms
    from mindspore import nn
    from src.model import Net

    net = Net()
    opt = nn.Adam(net.trainable_params())
    def forward(x, y):
        return nn.MSELoss()(net(x), y)
    grad_fn = ms.value_and_grad(forward, None, opt.parameters)
    {set_train}
    for x, y in ds:
        grad_fn(x, y){mark}
"""

#: a Trainer class handed the network it trains ({set_train}: a line of its __init__;
#: {mark}: the marker of a finding on the loop's step call)
_TRAINER = """
    import mindspore as ms
    from mindspore import nn

    class Trainer:
        def __init__(self, network, optimizer, epochs=10):
            self.network = network
            self.optimizer = optimizer
            self.epochs = epochs
            {set_train}

        def run(self, dataset):
            net = self.network
            loss_fn = nn.CrossEntropyLoss()

            def forward_fn(x, y):
                return loss_fn(net(x), y)

            grad_fn = ms.value_and_grad(forward_fn, None, self.optimizer.parameters)
            for _ in range(self.epochs):
                for x, y in dataset.create_tuple_iterator():
                    loss, grads = grad_fn(x, y){mark}
                    self.optimizer(grads)
"""
_NET_WITHOUT_MODE_LAYERS = """
    import mindspore.nn as nn

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(4, 2)

        def construct(self, x):
            return self.fc(x)
"""
_TRAINER_USER = """
    from mindspore import nn
    from src.model import Net
    from src.trainer import Trainer

    net = Net()
    Trainer(net, nn.Adam(net.trainable_params())).run(ds)
"""

#: a script with a train() loop and an eval() that puts the network back in training mode
#: at its end; {main}: how the script runs them; {mark}: the marker on the step call
_TRAIN_AND_EVAL = """
    import mindspore as ms
    from mindspore import nn

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(4, 2)
            self.bn = nn.BatchNorm1d(2)

        def construct(self, x):
            return self.bn(self.fc(x))

    class WithLoss(nn.Cell):
        def __init__(self, backbone, loss_fn):
            super().__init__()
            self.backbone = backbone
            self.loss_fn = loss_fn

        def construct(self, x, y):
            return self.loss_fn(self.backbone(x), y)

    model = Net()
    train_net = nn.TrainOneStepCell(WithLoss(model, nn.MSELoss()), nn.Adam(model.trainable_params()))

    def train():
        for x, y in train_ds.create_tuple_iterator():
            train_net(x, y){mark}
        # evaluate() after every epoch was too slow: run it on its own

    def evaluate():
        model.set_train(False)
        for x, y in test_ds.create_tuple_iterator():
            model(x)
        model.set_train(True)

    {main}
"""

#: an evaluation callback ({before}/{after}: the mode lines around the evaluation)
_EVAL_CALLBACK = """
    from mindspore.train import Callback

    class EvalCallBack(Callback):
        def __init__(self, net, dataset):
            self.network = net
            self.dataset = dataset
            self.best = 0.0

        def epoch_end(self, run_context):
            {before}
            score = self.inference()
            {after}
            self.best = max(self.best, score)

        def inference(self):
            scores = []
            for data in self.dataset.create_dict_iterator():
                scores.append(float(self.network(data["img"]).mean()))
            return sum(scores) / len(scores)
"""


#: train.py of a multi-file example: a network whose ``{layers}`` are used as ``{uses}``,
#: handed to src/callback.py's EvalCallBack
_HANDED_TO_CALLBACK = """
from mindspore import nn
from src.callback import EvalCallBack


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 8)
        {layers}

    def construct(self, x):
        x = self.fc(x)
        return {uses}


net = Net()
callback = EvalCallBack(net, eval_ds)
"""


#: a loop that samples with the network, then trains on the samples ({before}: a line before
#: the sampling, {after}: a line after the training step)
_SAMPLED_LOOP = """
import mindspore as ms
from mindspore import nn


class Policy(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 2)
        self.drop = nn.Dropout(p=0.1)

    def construct(self, x):
        return self.drop(self.fc(x))


net = Policy()
opt = nn.Adam(net.trainable_params())
grad_fn = ms.value_and_grad(lambda x, a: -(net(x) * a).sum(), None, opt.parameters)
for x in ds:
    {before}
    advantage = net(x).argmax(1)
    loss, grads = grad_fn(x, advantage){mark}
    opt(grads)
    {after}
"""


#: a network written as a container of layers, trained by a hand-written loop ({layers}: its
#: layers; {mark}: the marker on the loop's step call)
_CONTAINER_LOOP = """
    import mindspore as ms
    from mindspore import nn

    net = {net}
    loss_fn = nn.MSELoss()
    opt = nn.SGD(net.trainable_params(), learning_rate=0.01)

    def forward(x, y):
        return loss_fn(net(x), y)

    grad_fn = ms.value_and_grad(forward, None, opt.parameters)
    for x, y in dataset.create_tuple_iterator():
        loss, grads = grad_fn(x, y){mark}
        opt(grads)
"""


class TrainLoopWithoutSetTrain(Rule):
    code = "MSA201"
    about_the_run = True
    name = "train-loop-without-set-train"
    checklist = "api.02"
    severity = Severity.ERROR
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
            "and whose method trains it; what the project passes for that parameter decides. A `set_train()` "
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
        Valid("""
            import mindspore as ms
            from mindspore import nn
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Dense(4, 2)
                    self.bn = nn.BatchNorm1d(2)
                    self.drop = nn.Dropout(p=0.1)

                def construct(self, x):
                    return self.drop(self.bn(self.fc(x)))

            def train(dataset):
                net = Net()
                loss_fn = nn.CrossEntropyLoss()
                opt = nn.SGD(net.trainable_params(), learning_rate=0.01)
                def forward(x, y):
                    return loss_fn(net(x), y)
                grad_fn = ms.value_and_grad(forward, None, opt.parameters)
                net.set_train()
                for x, y in dataset.create_tuple_iterator():
                    loss, grads = grad_fn(x, y)
                    opt(grads)
        """, note="idiomatic"),
        Valid("""
            import mindspore as ms
            from mindspore import nn
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Dense(4, 2)
                    self.bn = nn.BatchNorm1d(2)
                    self.drop = nn.Dropout(p=0.1)

                def construct(self, x):
                    return self.drop(self.bn(self.fc(x)))

            net = Net()
            model = ms.Model(net, nn.CrossEntropyLoss(), nn.SGD(net.trainable_params()))
            model.train(10, dataset)
        """, note="Model.train sets the mode"),
        Valid("""
            import mindspore as ms
            from mindspore import nn
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Dense(4, 2)
                    self.bn = nn.BatchNorm1d(2)
                    self.drop = nn.Dropout(p=0.1)

                def construct(self, x):
                    return self.drop(self.bn(self.fc(x)))

            def build():
                net = Net()
                step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params()))
                step.set_train()
                return step
            def train(ds):
                step = build()
                for x, y in ds:
                    step(x, y)
        """, note="set_train on the step cell, in another function"),
        Valid("""
            import mindspore as ms
            from mindspore import nn
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Dense(4, 2)
                    self.bn = nn.BatchNorm1d(2)
                    self.drop = nn.Dropout(p=0.1)

                def construct(self, x):
                    return self.drop(self.bn(self.fc(x)))

            def train(net, dataset, opt):
                grad_fn = ms.value_and_grad(lambda x, y: net(x).sum(), None, opt.parameters)
                for x, y in dataset:
                    grad_fn(x, y)
        """, note="the network is a parameter: set elsewhere"),
        Valid("""
            import torch
            net = Net()
            opt = torch.optim.SGD(net.parameters(), lr=0.1)
            for x, y in loader:
                loss = net(x).sum()
                loss.backward()
                opt.step()
        """, note="PyTorch starts in train mode"),
        Valid("""
            import mindspore as ms
            from mindspore import nn
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Dense(4, 2)
                    self.bn = nn.BatchNorm1d(2)
                    self.drop = nn.Dropout(p=0.1)

                def construct(self, x):
                    return self.drop(self.bn(self.fc(x)))

            class Step(nn.TrainOneStepCell):
                def __init__(self, net, opt):
                    super().__init__(net, opt)
                    self.set_train()
            net = nn.WithLossCell(Net(), nn.MSELoss())
            step = Step(net, nn.SGD(net.trainable_params()))
            for x, y in ds:
                step(x, y)
        """, note="the wrapper puts itself in training mode"),
        Valid("""
            import mindspore as ms
            from mindspore import nn
            class Mlp(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.body = nn.SequentialCell(nn.Dense(4, 8), nn.ReLU(), nn.Dense(8, 2))
                def construct(self, x):
                    return self.body(x)
            def train(dataset):
                net = Mlp()
                loss_fn = nn.CrossEntropyLoss()
                opt = nn.SGD(net.trainable_params(), learning_rate=0.01)
                def forward(x, y):
                    return loss_fn(net(x), y)
                grad_fn = ms.value_and_grad(forward, None, opt.parameters)
                for x, y in dataset.create_tuple_iterator():
                    loss, grads = grad_fn(x, y)
                    opt(grads)
        """, note="no BatchNorm or Dropout: the mode changes nothing"),
        Valid(fill(_CONTAINER_LOOP, net="nn.SequentialCell([nn.Dense(2, 16), nn.Tanh(), nn.Dense(16, 1)])", mark=""),
              note="a container of visible layers, none of which depends on the mode (a course's regression MLP)"),
        Valid(fill(_CONTAINER_LOOP, net='nn.SequentialCell(OrderedDict([("fc1", nn.Dense(2, 16)), ("act", nn.ReLU()), '
                                       '("fc2", nn.Dense(16, 1))]))', mark="").replace(
            "import mindspore as ms\n", "from collections import OrderedDict\nimport mindspore as ms\n"),
              note="the same as an OrderedDict of named layers"),
        Valid(fill(_CONTAINER_LOOP, net="nn.SequentialCell([nn.Dense(2, 16), nn.ReLU(), nn.Dropout(p=0.0), "
                                       "nn.Dense(16, 1)])", mark=""),
              note="a Dropout that drops nothing"),
    )
    VALID = VALID + (
        Valid(files={"src/__init__.py": "", "src/model.py": fill(_NET_WITH_RATE, rate="0.1"),
                     "train.py": fill(_TRAIN_SCRIPT, set_train="net.set_train()", mark="")},
              note="multi-file: set_train() in the entry script"),
        Valid(files={"src/__init__.py": "", "src/model.py": fill(_NET_WITH_RATE, rate="0.0"),
                     "train.py": fill(_TRAIN_SCRIPT, set_train="", mark="")},
              note="look-alike, multi-file: the Dropout's rate is 0.0 at the only construction"),
        Valid(files={
            "src/__init__.py": "",
            "src/model.py": """
                import mindspore.nn as nn

                class Net(nn.Cell):
                    def __init__(self):
                        super().__init__()
                        self.bn = nn.BatchNorm2d(8, use_batch_statistics=True)
            """,
            "train.py": fill(_TRAIN_SCRIPT, set_train="", mark=""),
        }, note="multi-file: batch statistics only"),
        Valid(files={"src/__init__.py": "", "src/model.py": fill(_NET_WITH_RATE, rate="0.1"),
                     "src/trainer.py": fill(_TRAINER, set_train="self.network.set_train()", mark=""),
                     "train.py": _TRAINER_USER},
              note="idiomatic: the Trainer puts the network it is handed in training mode"),
        Valid(files={"src/__init__.py": "", "src/model.py": _NET_WITHOUT_MODE_LAYERS,
                     "src/trainer.py": fill(_TRAINER, set_train="", mark=""), "train.py": _TRAINER_USER},
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
        Valid(fill(_TRAIN_AND_EVAL, main="evaluate()\ntrain()", mark=""),
              note="the nearest look-alike: the evaluation, which ends in set_train(True), runs before training"),
    )
    INVALID = (
        Invalid("""
            import mindspore as ms
            from mindspore import nn
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Dense(4, 2)
                    self.bn = nn.BatchNorm1d(2)
                    self.drop = nn.Dropout(p=0.1)

                def construct(self, x):
                    return self.drop(self.bn(self.fc(x)))

            def train(dataset):
                net = Net()
                loss_fn = nn.CrossEntropyLoss()
                opt = nn.SGD(net.trainable_params(), learning_rate=0.01)
                def forward(x, y):
                    return loss_fn(net(x), y)
                grad_fn = ms.value_and_grad(forward, None, opt.parameters)
                for x, y in dataset.create_tuple_iterator():
                    loss, grads = grad_fn(x, y)  # MSA201
                    opt(grads)
        """, note="a PyTorch loop ported as is (torch Modules start in train mode)"),
        Invalid("""
            import mindspore as ms
            from mindspore import nn
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Dense(4, 2)
                    self.bn = nn.BatchNorm1d(2)
                    self.drop = nn.Dropout(p=0.1)

                def construct(self, x):
                    return self.drop(self.bn(self.fc(x)))

            net = Net()
            opt = nn.Momentum(net.trainable_params(), 0.01, 0.9)
            train_net = nn.TrainOneStepCell(nn.WithLossCell(net, nn.CrossEntropyLoss()), opt)
            for epoch in range(10):
                for x, y in ds.create_tuple_iterator():
                    train_net(x, y)  # MSA201
        """),
        Invalid("""
            import mindspore as ms
            from mindspore import nn
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Dense(4, 2)
                    self.bn = nn.BatchNorm1d(2)
                    self.drop = nn.Dropout(p=0.1)

                def construct(self, x):
                    return self.drop(self.bn(self.fc(x)))

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
        """, note="only set_train(False) in the file"),
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
        Invalid(files={"src/__init__.py": "", "src/model.py": fill(_NET_WITH_RATE, rate="0.1"),
                       "train.py": fill(_TRAIN_SCRIPT, set_train="", mark="  # MSA201")},
                note="the network's class, with its Dropout, is in src/model.py (multi-file)"),
        Invalid(files={
            "src/__init__.py": "",
            "src/blocks.py": """
                import mindspore.nn as nn

                class ConvBn(nn.Cell):
                    def __init__(self, c):
                        super().__init__()
                        self.conv = nn.Conv2d(c, c, 3)
                        self.bn = nn.BatchNorm2d(c)
            """,
            "src/model.py": """
                import mindspore.nn as nn
                from .blocks import ConvBn

                class Net(nn.Cell):
                    def __init__(self):
                        super().__init__()
                        self.body = ConvBn(8)
            """,
            "train.py": fill(_TRAIN_SCRIPT, set_train="", mark="  # MSA201"),
        }, note="multi-file: bn in a block of a third file"),
        Invalid(files={"src/__init__.py": "", "src/model.py": fill(_NET_WITH_RATE, rate="0.1"),
                       "src/trainer.py": fill(_TRAINER, set_train="", mark="  # MSA201"),
                       "train.py": _TRAINER_USER},
                note="multi-file: a Trainer handed the network; the one the project hands it has a Dropout",
                message_contains="train.py:"),
        Invalid(files={"src/__init__.py": "", "src/trainer.py": fill(_TRAINER, set_train="", mark="  # MSA201")},
                note="a library Trainer nothing in the project calls: reported at info, the network is unknown",
                message_contains="could not resolve"),
        Invalid(fill(_TRAIN_AND_EVAL, main='if mode == "train":\n    train()\nelse:\n    evaluate()',
                     mark="  # MSA201"),
                note="the only set_train(True) is at the end of an evaluation that the training run never calls"),
        Invalid(_SAMPLED_LOOP.format(before="net.set_train(False)  # MSA201", after="", mark=""),
                severity=Severity.INFO,
                message_contains="trained in inference mode",
                note="set_train(False) before each step (policy-gradient sampling): a choice, reported at info"),
        Invalid(fill(_CONTAINER_LOOP, net="nn.SequentialCell([nn.Dense(2, 16), nn.ReLU(), nn.Dropout(p=0.2), "
                                         "nn.Dense(16, 1)])", mark="  # MSA201"),
                note="the look-alike: the container holds a Dropout, so the mode matters"),
        Invalid(fill(_CONTAINER_LOOP, net="nn.SequentialCell(nn.Conv2d(1, 8, 3), nn.BatchNorm2d(8), nn.ReLU())",
                     mark="  # MSA201"),
                note="a BatchNorm among the container's layers (given as arguments)"),
        Invalid(files={"regression.ipynb": notebook(
            """
            import mindspore as ms
            from mindspore import nn
            """,
            "md: A small network, trained by hand.",
            """
            net = nn.SequentialCell([nn.Dense(2, 16), nn.ReLU(), nn.Dropout(p=0.2), nn.Dense(16, 1)])
            loss_fn = nn.MSELoss()
            opt = nn.SGD(net.trainable_params(), learning_rate=0.01)
            """,
            """
            def forward(x, y):
                return loss_fn(net(x), y)

            grad_fn = ms.value_and_grad(forward, None, opt.parameters)
            """,
            """
            for x, y in dataset.create_tuple_iterator():
                loss, grads = grad_fn(x, y)  # MSA201
                opt(grads)
            """,
        )}, note="the same in a notebook: the network of one cell, the loop of another"),
        Invalid(_SAMPLED_LOOP.format(before="", after="net.set_train(False)", mark="  # MSA201"),
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
        name = f"self.{handed.attr}"
        built = project.argument_classes(os.path.abspath(self.ctx.path), handed.cls, handed.param) \
            if project is not None else None
        states = [(where, callee, line, project.mode_dependence(where, callee)) for where, callee, line in built or ()]
        for where, callee, line, (state, evidence) in states:
            if state:
                shown = f"{project.display(where)}:{line}"
                because = f" ({evidence.what} at {evidence.where()})" if evidence is not None else ""
                self.report(loop.node, f"`{name}` ({handed.cls}'s `{handed.param}`, a {callee} at {shown}) is "
                            f"trained by a hand-written loop but never put in training mode: call "
                            f"{name}.set_train() before the loop (a new Cell starts in inference mode, so Dropout "
                            f"is off and BatchNorm statistics are never updated){because}",
                            related=[(project.display(where), line, f"{callee}(...) handed to {handed.cls}")] +
                            ([(evidence.path, evidence.line, evidence.what)] if evidence is not None else []))
                return
        if states and all(state is False for *_, (state, _e) in states):
            return  # every network the project hands it is known and none has a mode-dependent layer
        self.report(loop.node, f"`{name}` is handed to {handed.cls} as `{handed.param}` and trained by a hand-written "
                    f"loop that never puts it in training mode with set_train(); msacclint could not resolve every "
                    f"network it is given (callers outside the project or not resolved): if one holds Dropout, "
                    f"BatchNorm or reads self.training, call {name}.set_train() before the loop",
                    severity=Severity.INFO)


#: a loop split across files: an evaluator of src/ (``{mode}``: what it does before its loop),
#: a trainer of src/ (``{switch}``: how it leaves the mode), the network of src/model.py
#: (``{layers}``), and the entry script handing the same network to both
_SPLIT_LOOP = {
    "src/__init__.py": "",
    "src/model.py": """
        import mindspore.nn as nn

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc = nn.Dense(16, 10)
                {layers}

            def construct(self, x):
                return {uses}
    """,
    "src/evaluator.py": """
        from mindspore import ops

        class Evaluator:
            def __init__(self, network, dataset):
                self.network = network
                self.dataset = dataset

            def evaluate(self):
                {mode}
                correct = 0
                for x, y in self.dataset.create_tuple_iterator():
                    logits = self.network(x){mark}
                    correct += int((ops.argmax(logits, 1) == y).sum())
                return correct
    """,
    "src/trainer.py": """
        import mindspore.nn as nn

        class Trainer:
            def __init__(self, network, loss_fn, optimizer):
                self.network = network
                self.step = nn.TrainOneStepCell(nn.WithLossCell(network, loss_fn), optimizer)

            def fit(self, dataset, epochs, evaluator):
                self.step.set_train()
                for _ in range(epochs):
                    for x, y in dataset.create_tuple_iterator():
                        self.step(x, y)
                    {switch}
                    print(evaluator.evaluate())
    """,
    "train.py": """
        import mindspore.nn as nn
        from src.evaluator import Evaluator
        from src.model import Net
        from src.trainer import Trainer

        def main(train_ds, val_ds):
            net = Net()
            opt = nn.Momentum(net.trainable_params(), 0.01, 0.9)
            trainer = Trainer(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"), opt)
            evaluator = Evaluator(net, val_ds)
            trainer.fit(train_ds, 10, evaluator)

        if __name__ == "__main__":
            main(None, None)
    """,
}


def _split_loop(mode: str = "pass", switch: str = "pass", mark: str = "",
                layers: str = "self.bn = nn.BatchNorm1d(10)", uses: str = "self.bn(self.fc(x))") -> Dict[str, str]:
    return {path: fill(text, mode=mode, switch=switch, mark=mark, layers=layers, uses=uses)
            for path, text in _SPLIT_LOOP.items()}


class EvalLoopInTrainingMode(Rule):
    code = "MSA202"
    about_the_run = True
    name = "eval-loop-in-training-mode"
    checklist = "api.02"
    severity = Severity.WARNING
    uses_facts = True
    message = "evaluation loop calls a network with BatchNorm/Dropout without set_train(False)"
    what = ("Reports a loop that calls a network whose class (in this file) holds BatchNorm or Dropout "
            "cells, or a `SequentialCell`/`CellList` of written-out layers among which is one, when the loop evaluates — it sits in a function named evaluate/eval/validate/test/"
            "infer/predict, or it follows the training loop in the same function after `set_train(True)` — "
            "and the file never calls `set_train(False)` on that network. `Model.eval`/`Model.predict` "
            "switch the mode themselves and are not reported. Also a `set_train(True)` followed in the same "
            "function, with no `set_train(False)` on the same cell between, by a call of a function or method "
            "of the file named for evaluation that loops over data calling a network it holds, runs no training "
            "step and sets no mode itself (a callback's `epoch_end` switching training mode on before its "
            "`inference()`). And a loop split across files: an evaluation function or method that sets no mode "
            "and loops calling a network it is handed (a parameter, or `self.<attr>` from a constructor "
            "parameter), when a call of the project hands it a network class holding BatchNorm/Dropout and "
            "trains that same object (the handing file trains, or hands it to a trainer class or function of "
            "a file that trains), with no `set_train(False)` in the handing or the training file.")
    why = ("After `set_train(True)` a network stays in training mode until told otherwise. An "
           "evaluation loop then normalises every batch with its own statistics (and updates the "
           "moving averages with evaluation data) and applies Dropout: the metric is noisy and lower "
           "than the model's real accuracy.")
    example = """
        def evaluate(net, ds):
            for x, y in ds:
                logits = net(x)
    """
    use_instead = """
        def evaluate(net, ds):
            net.set_train(False)
            for x, y in ds:
                logits = net(x)
    """
    fix_safety = "No automatic fix."
    versions = "All MindSpore 1.x and 2.x releases."
    references = ("rules/api_defaults.toml, entry MS-MODE-01",)
    VALID = (
        Valid(files=_split_loop(mode="self.network.set_train(False)"),
              note="multi-file: the evaluator switches the network it is handed to inference first"),
        Valid(files=_split_loop(switch="trainer_net = self.network\n    trainer_net.set_train(False)"),
              note="multi-file look-alike: the trainer switches the network to inference before evaluating"),
        Valid(files=_split_loop(layers="self.act = nn.ReLU()", uses="self.act(self.fc(x))"),
              note="multi-file look-alike: the network handed to the evaluator has no BatchNorm or Dropout"),
        Valid("""
            import mindspore as ms
            from mindspore import nn
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Dense(4, 2)
                    self.bn = nn.BatchNorm1d(2)
                    self.drop = nn.Dropout(p=0.1)

                def construct(self, x):
                    return self.drop(self.bn(self.fc(x)))

            def evaluate(net, ds):
                net.set_train(False)
                for x, y in ds:
                    net(x)
            def main():
                net = Net()
                net.set_train()
                evaluate(net, ds)
        """, note="idiomatic"),
        Valid("""
            import mindspore as ms
            from mindspore import nn
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Dense(4, 2)
                    self.bn = nn.BatchNorm1d(2)
                    self.drop = nn.Dropout(p=0.1)

                def construct(self, x):
                    return self.drop(self.bn(self.fc(x)))

            def main():
                net = Net()
                net.set_train()
                model = ms.Model(net)
                model.eval(ds)
        """, note="Model.eval sets the mode"),
        Valid("""
            import mindspore as ms
            from mindspore import nn
            class Head(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Dense(4, 2)
                def construct(self, x):
                    return self.fc(x)
            def evaluate(net, ds):
                for x, y in ds:
                    net(x)
            def main():
                net = Head()
                net.set_train()
                evaluate(net, ds)
        """, note="no BatchNorm or Dropout: the mode changes nothing"),
        Valid("""
            import mindspore as ms
            from mindspore import nn
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Dense(4, 2)
                    self.bn = nn.BatchNorm1d(2)
                    self.drop = nn.Dropout(p=0.1)

                def construct(self, x):
                    return self.drop(self.bn(self.fc(x)))

            def predict(path, ds):
                net = Net()
                ms.load_checkpoint(path, net)
                for x in ds:
                    net(x)
        """, note="a new Cell is already in inference mode"),
        Valid("""
            import torch
            import mindspore
            class Net(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.bn = torch.nn.BatchNorm1d(2)
            def evaluate(net, ds):
                net.eval()
                for x in ds:
                    net(x)
            def main():
                net = Net()
                net.train()
                evaluate(net, ds)
        """, note="PyTorch"),
        Valid(fill(_EVAL_CALLBACK, before="self.network.set_train(False)", after="self.network.set_train(True)"),
              note="the nearest look-alike: inference mode for the evaluation, training mode back after it"),
        Valid(files={
            "src/callback.py": fill(_EVAL_CALLBACK, before="self.network.set_train(True)", after="pass"),
            "train.py": _HANDED_TO_CALLBACK.format(layers="self.fc2 = nn.Dense(8, 2)", uses="self.fc2(x)"),
        }, note="multi-file: the only network the project hands the callback has no BatchNorm or Dropout"),
    )
    INVALID = (
        Invalid("""
            import mindspore as ms
            from mindspore import nn
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Dense(4, 2)
                    self.bn = nn.BatchNorm1d(2)
                    self.drop = nn.Dropout(p=0.1)

                def construct(self, x):
                    return self.drop(self.bn(self.fc(x)))

            def evaluate(net, ds):
                correct = 0
                for x, y in ds:
                    correct += (net(x).argmax(1) == y).sum()  # MSA202
                return correct
            def main():
                net = Net()
                net.set_train()
                evaluate(net, ds)
        """, note="a PyTorch port that dropped net.eval()"),
        Invalid("""
            import mindspore as ms
            from mindspore import nn
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Dense(4, 2)
                    self.bn = nn.BatchNorm1d(2)
                    self.drop = nn.Dropout(p=0.1)

                def construct(self, x):
                    return self.drop(self.bn(self.fc(x)))

            def main(ds, test_ds, opt):
                net = Net()
                net.set_train(True)
                grad_fn = ms.value_and_grad(lambda x, y: net(x).sum(), None, opt.parameters)
                for x, y in ds:
                    grad_fn(x, y)
                for x, y in test_ds:
                    out = net(x)  # MSA202
        """),
        Invalid("""
            import mindspore as ms
            from mindspore import nn

            def main(ds, test_ds):
                net = nn.SequentialCell(nn.Conv2d(1, 8, 3), nn.BatchNorm2d(8), nn.ReLU(), nn.Flatten(),
                                        nn.Dense(8 * 28 * 28, 10))
                opt = nn.SGD(net.trainable_params(), learning_rate=0.01)
                net.set_train(True)
                grad_fn = ms.value_and_grad(lambda x, y: net(x).sum(), None, opt.parameters)
                for x, y in ds:
                    grad_fn(x, y)
                for x, y in test_ds:
                    out = net(x)  # MSA202
        """, note="a container network whose layers include a BatchNorm"),
        Invalid(fill(_EVAL_CALLBACK, before="self.network.set_train(True)  # MSA202", after="pass"),
                note="a callback switches training mode on right before its evaluation"),
        Invalid(files={
            "src/callback.py": fill(_EVAL_CALLBACK, before="self.network.set_train(True)  # MSA202", after="pass"),
            "train.py": _HANDED_TO_CALLBACK.format(layers="self.bn = nn.BatchNorm1d(8)", uses="self.bn(x)"),
        }, note="multi-file: the project hands the callback a network with a BatchNorm"),
        Invalid(files=_split_loop(mark="  # MSA202"), message_contains="(Trainer(...), which trains it)",
                note="multi-file: a loop split across files: the trainer of src/ puts the network in training mode, "
                     "the evaluator of another file runs it without switching it to inference"),
    )

    def finish(self) -> None:
        info = training(self.ctx)
        if not info.enables_training_mode():
            if self.ctx.project is not None:
                self._handed_network_evaluated()
            return
        self._switched_on_before_evaluating()
        sc = scopes(self.ctx)
        step_names = {s.name for s in info.steps if s.name} | info.step_functions
        for fl in sc.flows:
            eval_named = says_eval(sc.function_name(fl)) if isinstance(fl.root, cst.FunctionDef) else False
            enabled_at = min((e.order for e in fl.method_calls("set_train") if _enables(e.node)), default=None)
            training_loop_at = min((e.order for e in fl.calls() if e.loop_depth and isinstance(e.node.func, cst.Name)
                                    and e.node.func.value in step_names), default=None)
            for e in fl.calls():
                func = e.node.func
                if not e.loop_depth or not isinstance(func, cst.Name):
                    continue
                if not eval_named:
                    if enabled_at is None or training_loop_at is None or e.order <= training_loop_at:
                        continue
                    if _loop_calls_step(fl, e, step_names):
                        continue
                if info.disables_training_mode(func.value) or info.disables_training_mode(None):
                    return
                if not self._holds_mode_cells(fl, func.value, e.order):
                    continue
                if eval_named and not self._trained_before(fl, func.value):
                    continue
                self.report(e.node, f"`{func.value}` holds BatchNorm/Dropout and may still be in training mode here: "
                            f"call {func.value}.set_train(False) before evaluating")
                return

    def _handed_network_evaluated(self) -> None:
        """A loop split across files: an evaluation function or method of this file (named for
        evaluation, setting no mode itself, running no training step) loops over data calling a
        network it is handed (a parameter of a top-level function, or ``self.<attr>`` set from a
        constructor parameter), the project hands it a network class holding BatchNorm/Dropout,
        and the file that hands it trains (``set_train()``, a training step, ``Model.train``):
        the trainer there leaves the network in training mode, and this evaluation runs in it."""
        import os

        sc = scopes(self.ctx)
        path = os.path.abspath(self.ctx.path)
        for fl in sc.flows:
            function = fl.root if isinstance(fl.root, cst.FunctionDef) else None
            if function is None or not says_eval(function.name.value) or fl.method_calls("set_train"):
                continue
            owner = sc.method_of.get(function)
            for e in fl.calls():
                if not e.loop_depth:
                    continue
                func = e.node.func
                target = param = None
                if owner is None and isinstance(func, cst.Name) and func.value in sc.params(fl) \
                        and sc.parent.get(function) is None:
                    target, param = function.name.value, func.value
                elif owner is not None and self_attr(func) is not None and owner in cells(self.ctx).by_node:
                    target, param = owner.name.value, _constructor_parameter(self.ctx, owner, self_attr(func))
                if target is None or param is None:
                    continue
                found = self._trained_mode_network(path, target, param)
                if found is None:
                    continue
                evidence, handing, trainer = found
                shown = _code(func)
                self.report(e.node, f"`{shown}` holds BatchNorm/Dropout ({evidence.what} at {evidence.where()}), is "
                            f"handed here at {handing.where()} and trained at {trainer.where()} ({trainer.what}): it "
                            f"is still in training mode when this evaluation runs; call {shown}.set_train(False) "
                            f"before evaluating (and set_train(True) after it)",
                            related=[(evidence.path, evidence.line, evidence.what),
                                     (handing.path, handing.line, handing.what),
                                     (trainer.path, trainer.line, trainer.what)])
                break

    def _trained_mode_network(self, path: str, target: str, param: str):
        """(where a network handed to ``target``'s ``param`` depends on the mode, the call that
        hands it, where the caller trains it) for the first call of the project that hands ``target`` a
        network (a name built from a class of the project) holding BatchNorm/Dropout and trains
        that same object (``ProjectIndex.trained_with``); None otherwise."""
        project = self.ctx.project
        found = project.lookup(path, target)
        if found is None or found[0] not in ("class", "function"):
            return None
        names = [name for name, _ in found[2].params]
        if names and names[0] in ("self", "cls"):
            names = names[1:]
        position = names.index(param) if param in names else -1
        for site, summary, call, _cls, func in project.call_sites(found[1], target):
            expr = call.argument(param, position)
            built = project.names_built(summary, func, expr) if expr is not None else None
            for callee in built or ():
                state, evidence = project.mode_dependence(site, callee)
                if not state or evidence is None:
                    continue
                trainer = project.trained_with(site, summary, func, expr)
                if trainer is not None:
                    from msacclint.project.values import Evidence

                    return evidence, Evidence(project.display(site), call.line, f"{call.callee}(...)"), trainer
        return None

    def _switched_on_before_evaluating(self) -> None:
        """``x.set_train(True)`` (or ``set_train()``) followed in the same function, with no
        ``set_train(False)`` between, by a call of a function or method of the file that is
        named for evaluation, loops over data calling a network, runs no training step and
        sets no mode itself: that evaluation runs in training mode."""
        sc = scopes(self.ctx)
        info = training(self.ctx)
        step_names = {s.name for s in info.steps if s.name} | info.step_functions
        for fl in sc.flows:
            switches = sorted(((e.order, _enables(e.node), e) for e in fl.method_calls("set_train")),
                              key=lambda t: t[0])
            for order, enables, switch in switches:
                if not enables:
                    continue
                receiver = _code(switch.node.func)
                later_off = min((o for o, on, other in switches if o > order and not on
                                 and _code(other.node.func) == receiver), default=None)
                for e in fl.calls():
                    if e.order <= order or (later_off is not None and e.order > later_off):
                        continue
                    target = self._evaluation_called(e.node, step_names)
                    if target is not None and self._receiver_state(fl, switch) is False:
                        break  # every layer of the switched network is known and none depends on the mode
                    if target is not None:
                        cell = receiver[:-len(".set_train")]
                        self.report(switch.node, f"{cell}.set_train(True) puts it in training mode, and {target}() "
                                    f"then evaluates with no set_train(False) between: any BatchNorm in it uses batch "
                                    f"statistics (and updates its moving ones with evaluation data) and any Dropout "
                                    f"drops; call set_train(False) before evaluating and set_train(True) after it")
                        return

    def _receiver_state(self, fl, switch) -> Optional[bool]:
        """Whether the cell a ``set_train(True)`` switches holds a mode-dependent layer: a
        network built in the file (``info.mode_cells_state``), or ``self.<attr>`` set in
        ``__init__`` from a parameter, by what every caller in the project hands it. None
        when it cannot be told."""
        obj = switch.node.func.value
        if isinstance(obj, cst.Name):
            net = training(self.ctx).object_at(fl, obj, switch.order)
            return training(self.ctx).mode_cells_state(net) if net is not None else None
        from msacclint.analysis.callers import classes_handed_to

        attr = self_attr(obj)
        owner = scopes(self.ctx).method_of.get(fl.root) if isinstance(fl.root, cst.FunctionDef) else None
        info = cells(self.ctx).by_node.get(owner) if owner is not None else None
        project = self.ctx.project
        if attr is None or info is None or project is None:
            return None
        built = classes_handed_to(self.ctx, info, attr)
        states = [project.mode_dependence(where, callee)[0] for where, callee, _line in built or ()]
        if states and all(state is False for state in states):
            return False
        return True if any(states) else None

    def _evaluation_called(self, call: cst.Call, step_names) -> Optional[str]:
        """The name of the file's evaluation function or method this call runs, or None."""
        func = call.func
        if isinstance(func, cst.Name):
            name = func.value
            function = scopes(self.ctx).module_function(name)
        elif self_attr(func) is not None:
            name = self_attr(func)
            function = next((f for f in scopes(self.ctx).functions_named(name)
                             if scopes(self.ctx).method_of.get(f) is not None), None)
        else:
            return None
        if function is None or not says_eval(name):
            return None
        from msacclint.analysis.flow import flow as flow_of

        body = flow_of(self.ctx, function)
        if body.method_calls("set_train"):
            return None
        owner = scopes(self.ctx).method_of.get(function)
        held = {n for n, _ in cells(self.ctx).by_node[owner].assigned} if owner in cells(self.ctx).by_node else set()
        loops_call_network = any(e.loop_depth and _calls_held(e.node, held) for e in body.calls())
        runs_step = any(isinstance(e.node.func, cst.Name) and e.node.func.value in step_names for e in body.calls())
        return name if loops_call_network and not runs_step else None

    def _holds_mode_cells(self, fl, name: str, order: int) -> bool:
        info = training(self.ctx)
        net = info.object_at(fl, cst.Name(name), order)
        if net is not None:
            return info.holds_mode_cells(net)
        classes = self._classes_passed_as(fl, name)
        return bool(classes) and all(holds_mode_cells(self.ctx, c) for c in classes)

    def _classes_passed_as(self, fl, param: str):
        """For a parameter: the classes of the objects the file's callers pass for it."""
        sc = scopes(self.ctx)
        if not isinstance(fl.root, cst.FunctionDef) or param not in sc.params(fl):
            return []
        position = sc.params(fl).index(param)
        out = []
        for caller, e in sc.callers(fl.root):
            args = [a for a in e.node.args if a.keyword is None and not a.star]
            arg = next((a for a in e.node.args if a.keyword is not None and a.keyword.value == param), None)
            if arg is None and position < len(args):
                arg = args[position]
            net = training(self.ctx).object_at(caller, arg.value, e.order) if arg is not None else None
            if net is None or not isinstance(net.definition.value.func, cst.Name):
                return []
            out.append(net.definition.value.func.value)
        return out

    def _trained_before(self, fl, name: str) -> bool:
        """An eval function's network was put in training mode by the file: the network is a
        parameter (its callers may have trained it), or set_train(True) runs in the function."""
        sc = scopes(self.ctx)
        if name in sc.params(fl):
            return True
        return any(_enables(e.node) for e in fl.method_calls("set_train"))


def _constructor_parameter(ctx, owner: cst.ClassDef, attr: str) -> Optional[str]:
    """The ``__init__`` parameter ``self.<attr>`` is set from (``self.network = network``)."""
    from msacclint.analysis.cells import attributes_from_parameters

    info = cells(ctx).by_node.get(owner)
    init = info.methods.get("__init__") if info is not None else None
    if init is None:
        return None
    params = [p.name.value for p in (*init.params.posonly_params, *init.params.params, *init.params.kwonly_params)]
    found: Optional[str] = attributes_from_parameters(ctx, owner, params).get(f"self.{attr}")
    return found


def _switched_off_before_step(info, name: str) -> Optional[cst.Call]:
    """A ``<name>.set_train(False)`` inside a training loop that runs before the training
    step of the same iteration (``for batch in data: net.set_train(False); sample...;
    grad_fn(...)``): the network is trained in inference mode by an explicit choice, not by
    an omission. One that follows the step (an evaluation at the end of the epoch) is not."""
    for fl, step_call in info.loops:
        for switch in fl.method_calls("set_train", name):
            if _enables(switch.node) or not switch.loops or switch.order >= step_call.order:
                continue
            if switch.loops[-1] in step_call.loops:
                return switch.node
    return None


def _calls_held(call: cst.Call, held) -> bool:
    """``self.<attr>(...)`` for an attribute the class's ``__init__`` sets (a network it holds)."""
    return self_attr(call.func) in held


def _code(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)


def _enables(call: cst.Call) -> bool:
    from msacclint.analysis.training import set_train_mode

    return set_train_mode(call) is not False


def _loop_calls_step(fl, event, step_names) -> bool:
    """Whether the loops around ``event`` also run a training step (then it is a training loop)."""
    if not event.loops:
        return False
    outer = event.loops[-1]
    for other in fl.calls():
        if outer in other.loops and isinstance(other.node.func, cst.Name) and other.node.func.value in step_names:
            return True
    return False
