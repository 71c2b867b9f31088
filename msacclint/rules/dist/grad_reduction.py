"""dist.02: a hand-written distributed training step without gradient reduction (MSA602)."""

from __future__ import annotations

from functools import partial
from typing import List, Optional, Tuple

import libcst as cst

from msacclint.analysis.calls import parameter_slots
from msacclint.analysis.distributed import distributed
from msacclint.analysis.facts import facts
from msacclint.analysis.grad_updates import class_applies_optimizer, optimizers_applied
from msacclint.analysis.training import is_mindspore_optimizer, training
from msacclint.diagnostics import Severity
from msacclint.rules.base import Invalid, Rule, Valid
from msacclint.rules.examples import fill
from msacclint.rules.fixtures.mpwi import data_parallel_script, page
from msacclint.rules.fixtures.nets import cell, module

#: what takes gradients in a step Cell (qualified as the project layer resolves them)
GRAD_STEP_BUILDERS = frozenset({"mindspore.value_and_grad", "mindspore.grad", "mindspore.ops.value_and_grad",
                                "mindspore.ops.grad", "mindspore.ops.GradOperation",
                                "mindspore.ops.composite.GradOperation"})


#: multi-file examples: a step Cell of src/ that takes gradients itself (it keeps the optimizer
#: as ``self.{optimizer}``; ``{methods}`` apply it), and an entry script that builds it under
#: DATA_PARALLEL
_STEP_CELL = """
    import mindspore.nn as nn
    import mindspore.ops as ops

    class TrainStep(nn.Cell):
        def __init__(self, network, {optimizer}):
            super().__init__(auto_prefix=False)
            self.network = network
            self.{optimizer} = {optimizer}
            {weights}
            self.grad = ops.GradOperation(get_by_list=True)  # MSA602

        {methods}
"""
_BARE_STEP = fill(_STEP_CELL, optimizer="optimizer", weights="self.weights = optimizer.parameters", methods="""
    def construct(self, x, y):
        loss = self.network(x, y)
        grads = self.grad(self.network, self.weights)(x, y)
        self.optimizer(grads)
        return loss
""")
_STEP_ENTRY = """
    import mindspore as ms
    from mindspore import nn
    from mindspore.communication import init
    from src.step import TrainStep

    ms.set_seed(1)
    init()
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
    net = nn.WithLossCell(Net(), nn.MSELoss())
    step = TrainStep(net, nn.SGD(net.trainable_params(), 0.1))
    for x, y in data:
        step(x, y)
"""



#: a trainer class of src/ (not a Cell) whose ``fit`` builds its optimizer and a value_and_grad
#: step itself (``{reducer}`` after it, the optimizer given ``{grads}``), and an entry script
#: that builds it under DATA_PARALLEL
_TRAINER_CLASS = """
    import mindspore as ms
    from mindspore import nn
    {imports}

    class Trainer:
        def __init__(self, network, loss_fn, lr, epochs):
            self.network = network
            self.loss_fn = loss_fn
            self.lr = lr
            self.epochs = epochs

        def forward(self, x, y):
            return self.loss_fn(self.network(x), y)

        def fit(self, dataset):
            optimizer = {optimizer}(self.network.trainable_params(), self.lr)
            grad_fn = ms.value_and_grad(self.forward, None, optimizer.parameters){mark}
            {reducer}
            self.network.set_train()
            for _ in range(self.epochs):
                for x, y in dataset.create_tuple_iterator():
                    loss, grads = grad_fn(x, y)
                    optimizer({grads})
"""
_TRAINER_ENTRY = """
    import mindspore as ms
    from mindspore import nn
    from mindspore.communication import init
    from src.trainer import Trainer

    def main(data):
        ms.set_seed(1)
        init()
        ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
        trainer = Trainer(Net(), nn.CrossEntropyLoss(), 0.001, 10)
        trainer.fit(data)
"""


def _trainer_case(mark: str = "", reducer: str = "", grads: str = "grads", optimizer: str = "nn.Adam",
                  imports: str = ""):
    return {"src/__init__.py": "", "train.py": _TRAINER_ENTRY,
            "src/trainer.py": fill(_TRAINER_CLASS, mark=mark, reducer=reducer, grads=grads, optimizer=optimizer,
                                   imports=imports)}


_MODE_BY_BRANCH = """
    import mindspore as ms
    from mindspore import nn
    from mindspore.communication import init, get_group_size
    from mindspore.context import ParallelMode

    def main(cfg):
        if cfg.is_distributed:
            init()
            parallel_mode = ParallelMode.DATA_PARALLEL
        else:
            parallel_mode = ParallelMode.STAND_ALONE
        ms.set_auto_parallel_context(parallel_mode=parallel_mode, gradients_mean=True)
        net = Net()
        opt = nn.Adam(net.trainable_params())
        {step}
"""


_PENALTY_CELL = module("""
    import mindspore.nn as nn
    import mindspore.ops as ops
""", cell("GradientPenalty", init="""
    self.critic = critic
    self.grad = ops.GradOperation()
""", construct="""
    slopes = self.grad(self.critic)(mixed)
    return ((ops.norm(slopes, dim=1) - 1) ** 2).mean()
""", params="critic", args="mixed"))
_PENALTY_ENTRY = """
    import mindspore as ms
    from mindspore import nn
    from mindspore.communication import init
    from src.penalty import GradientPenalty

    ms.set_seed(1)
    init()
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
    penalty = GradientPenalty(critic)
    step = nn.TrainOneStepCell(nn.WithLossCell(critic, loss_with_penalty(penalty)), opt)
    for x, y in data:
        step(x, y)
"""


#: the optimizer handed to a helper method that applies it (GAN step cells)
_HELPER_STEP = fill(_STEP_CELL, optimizer="optimizer_d", weights="", methods="""
    def update(self, x, y, optimizer):
        grads = self.grad(self.network, optimizer.parameters)(x, y)
        optimizer(grads)

    def construct(self, x, y):
        self.update(x, y, self.optimizer_d)
        return self.network(x, y)
""")


#: a functional training step: ``{setup}`` after the imports (init(), the parallel context),
#: ``{mark}`` on the gradient function, ``{reducer}`` after it, ``{apply}`` the update
_GRAD_STEP = """
    import mindspore as ms
    from mindspore import nn
    from mindspore.communication import init, get_rank
    {setup}
    net = Net()
    opt = nn.SGD(net.trainable_params())
    grad_fn = ms.value_and_grad(forward, None, opt.parameters){mark}
    {reducer}
    def train_step(x, y):
        loss, grads = grad_fn(x, y)
        {apply}
    {after}
"""
_REDUCER = "reducer = nn.DistributedGradReducer(opt.parameters)"
_DATA_PARALLEL = "ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)"


_grad_step = partial(fill, _GRAD_STEP, setup="", mark="", reducer="", apply="opt(grads)", after="")


class StepWithoutGradReduction(Rule):
    code = "MSA602"
    about_the_run = True
    name = "distributed-step-without-grad-reducer"
    checklist = "dist.02"
    severity = Severity.ERROR
    group = "correctness"
    evidence = ('Resolved in the file: `communication.init()` is called, a hand-written training step is built, and '
                'the file calls no gradient reducer and all-reduces nothing; with no parallel mode any hand-written '
                'step counts, under DATA_PARALLEL a `value_and_grad`/`grad`/`GradOperation` step (TrainOneStepCell '
                'and Model reduce by themselves) whose gradients go to an optimizer resolved to a MindSpore class (not resolved: '
                'a warning that says so; an optimizer of another library, which may reduce by itself, is not reported); '
                'semi-auto/auto parallel is never reported. A step Cell of another file is reported when an entry '
                'script builds it after init() under DATA_PARALLEL and the Cell applies an optimizer: one it builds, '
                'TrainOneStepCell\'s, or one its callers pass that resolves to a MindSpore optimizer (a parameter '
                'named for an optimizer whose value is not resolved: a warning that says so), or a trainer class whose method '
                'hands the gradients of a step it builds to a MindSpore optimizer built there. Gradients that reach no '
                'optimizer (a gradient penalty, an inner loop) are not reported.')
    uses_facts = True
    message = "hand-written distributed training step without gradient all-reduce"
    what = ("In a file that calls `communication.init()`, reports a hand-written training step "
            "(`value_and_grad`/`grad`/`GradOperation`, a TrainOneStep cell called by hand) when the file "
            "calls no `DistributedGradReducer` (one built and never called does not count) and all-reduces "
            "nothing itself. Under `set_auto_parallel_context(parallel_mode=DATA_PARALLEL)` only "
            "`value_and_grad`/`grad`/`GradOperation` steps are reported: the context makes `nn.TrainOneStepCell` "
            "and `Model` build their own reducer, nothing else. Semi-auto/auto parallel and an "
            "`AutoParallel(...)` wrapper are never reported. With the project layer, a step Cell of another "
            "file that takes gradients itself and never reduces them is reported in its own file when an entry "
            "script that calls `init()` under DATA_PARALLEL builds it; the same for a trainer class (not a Cell) whose "
            "method builds a `value_and_grad`/`GradOperation` step and hands its gradients to a MindSpore "
            "optimizer it builds there."
            " Field check: no finding on the four tuning repositories; on the held-out run of issue 12 "
            "8 of its 18 errors were true (docs/evaluation/field.md), before the changes that followed that triage.")
    why = ("Without an all-reduce of the gradients each device follows only its own shard of the data: "
           "N independent models that never agree, and the checkpoint saved by rank 0 has seen 1/N of the "
           "data (checklist dist.02).")
    example = page(_grad_step(setup="init()", mark="  # MSA602"))
    use_instead = page(_grad_step(setup="init()", reducer=_REDUCER, apply="opt(reducer(grads))"))
    fix_safety = "No automatic fix."
    versions = "All MindSpore 1.x and 2.x releases."
    VALID = (
        Valid("""
            import mindspore as ms
            from mindspore.communication import init
            init()
            net = Net()
            grad_fn = ms.grad(forward, grad_position=0)
            saliency = grad_fn(images, labels)
        """, note="gradients of the inputs only (no weights): nothing is trained"),
        Valid(_grad_step(setup="init()", reducer=_REDUCER, apply="opt(reducer(grads))"), note="idiomatic"),
        Valid(data_parallel_script(run="""
            opt = nn.SGD(net.trainable_params())
            step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt)
            for x, y in data:
                step(x, y)
        """), note="data-parallel context with TrainOneStepCell, which builds its own reducer"),
        Valid(data_parallel_script(), note="Model.train"),
        Valid(_grad_step(), note="single device"),
        Valid(_grad_step(setup="init()", after="""
            from mindspore.parallel.auto_parallel import AutoParallel
            train_step = AutoParallel(train_step, parallel_mode='semi_auto')
        """), note="the 2.x AutoParallel wrapper"),
        Valid("""
            import mindspore
            import torch.distributed as dist
            dist.init_process_group('nccl')
            loss.backward()
            opt.step()
        """, note="PyTorch"),
        Valid(files={
        "src/__init__.py": "",
        "src/step.py": """
            import mindspore.nn as nn
            import mindspore.ops as ops

            class TrainStep(nn.TrainOneStepCell):
                def __init__(self, network, optimizer):
                    super().__init__(network, optimizer)
                    self.grad = ops.GradOperation(get_by_list=True)

                def construct(self, x, y):
                    loss = self.network(x, y)
                    grads = self.grad(self.network, self.weights)(x, y)
                    grads = self.grad_reducer(grads)
                    self.optimizer(grads)
                    return loss
        """,
        "train.py": _STEP_ENTRY,
        }, note="the step Cell of another file reduces with TrainOneStepCell's grad_reducer"),
        Valid("""
            import mindspore as ms
            from mindspore import nn
            from mindspore.communication import init, GlobalComm
            from mindformers import AdamWeightDecayZeRO2
            ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL)
            init()

            def train(net, loss, opt, dataset):
                grad_fn = ms.value_and_grad(nn.WithLossCell(net, loss), None, opt.parameters)
                for x, y in dataset:
                    loss_value, grads = grad_fn(x, y)
                    opt(grads)

            net = Net()
            opt = AdamWeightDecayZeRO2(net.get_parameters(), use_parallel=True, opt_parallel_group=GlobalComm.WORLD_COMM_GROUP)
            train(net, nn.MSELoss(), opt, data)
        """, note="the nearest look-alike: a ZeRO optimizer of another library, which reduces the gradients itself"),
        Valid(fill(_MODE_BY_BRANCH, step="""
            train_net = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt)
            for x, y in data:
                train_net(x, y)
        """), note="the parallel mode held in a name assigned in two branches: data-parallel wherever there are "
                   "replicas, and nn.TrainOneStepCell reduces there"),
        Valid(files=_trainer_case(reducer="reducer = nn.DistributedGradReducer(optimizer.parameters)",
                                  grads="reducer(grads)"),
              note="multi-file, idiomatic: the trainer class reduces the gradients of the step it builds"),
        Valid(files=_trainer_case(optimizer="AdamWeightDecayZeRO2", imports="from mindformers import AdamWeightDecayZeRO2"),
              note="multi-file look-alike: the trainer's optimizer is a ZeRO optimizer of another library, which "
                   "reduces the gradients itself"),
        Valid(files={"src/__init__.py": "", "src/penalty.py": _PENALTY_CELL, "train.py": _PENALTY_ENTRY},
              note="multi-file look-alike: a Cell that takes gradients for a WGAN-GP penalty term, which no "
                   "optimizer applies (the update is TrainOneStepCell's, which reduces)"),
    )
    INVALID = (
        Invalid(files={"src/__init__.py": "", "src/step.py": _BARE_STEP,
                       "train.py": _STEP_ENTRY.replace("nn.SGD(net.trainable_params(), 0.1)", "build_optimizer(cfg, net)")},
                severity=Severity.WARNING, message_contains="assumed: the `optimizer` it is given is an optimizer",
                note="multi-file: what the caller passes as the optimizer is not resolved: a warning that says so"),
        Invalid(files=_trainer_case(mark="  # MSA602"), message_contains="before the optimizer takes them",
                note="multi-file: a trainer class (not a Cell) whose fit() builds its optimizer and a value_and_grad "
                     "step itself, under the entry script's DATA_PARALLEL"),
        Invalid(files={"src/__init__.py": "", "src/step.py": _HELPER_STEP, "train.py": _STEP_ENTRY},
                note="multi-file: the optimizer is handed to a helper method that applies it (GAN step cells)"),
        Invalid(fill(_MODE_BY_BRANCH, step="""
            grad_fn = ms.value_and_grad(nn.WithLossCell(net, nn.MSELoss()), None, opt.parameters)  # MSA602
            for x, y in data:
                loss, grads = grad_fn(x, y)
                opt(grads)
        """), message_contains="under DATA_PARALLEL",
                note="the same context with a hand-written step: not reduced on the distributed path"),
        Invalid(files={
        "src/__init__.py": "",
        "src/step.py": _BARE_STEP,
        "src/trainer.py": """
            import mindspore.nn as nn
            from src.step import TrainStep

            class Trainer:
                def __init__(self, net, epochs):
                    self.net = net
                    self.epochs = epochs

                def fit(self, data):
                    step = TrainStep(self.net, nn.Adam(self.net.trainable_params()))
                    for _ in range(self.epochs):
                        for x, y in data:
                            step(x, y)
        """,
        "train.py": """
            import mindspore as ms
            from mindspore.communication import init
            from src.trainer import Trainer

            ms.set_seed(1)
            init()
            ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
            Trainer(Net(), 10).fit(data)
        """,
        }, note="the step Cell is built by a Trainer class of src/ that the entry script builds"),
        Invalid(files={
        "src/__init__.py": "",
        "src/step.py": _BARE_STEP,
        "train.py": _STEP_ENTRY,
        }, severity=Severity.ERROR,
            note="a hand-written step Cell in src/ under the entry script's DATA_PARALLEL, given nn.SGD: reported where "
                 "the reducer belongs"),
        Invalid(_grad_step(setup="init()", mark="  # MSA602"), note="a DDP script ported without DDP's all-reduce"),
        Invalid(_grad_step(setup=f"init()\n{_DATA_PARALLEL}", mark="  # MSA602"),
                note="the context alone: a value_and_grad step is not all-reduced by it"),
        Invalid(_grad_step(setup="init()\nms.set_auto_parallel_context(parallel_mode='data_parallel', gradients_mean=True)",
                           mark="  # MSA602", reducer=f"grad_{_REDUCER}"), note="a reducer built and never called"),
        Invalid("""
            import mindspore as ms
            from mindspore import nn
            from mindspore.communication import init, get_rank
            init()
            net = nn.WithLossCell(Net(), loss)
            step = nn.TrainOneStepCell(net, nn.Momentum(net.trainable_params(), 0.1, 0.9))  # MSA602
            for x, y in data:
                step(x, y)
        """),
    )

    def finish(self) -> None:
        dist = distributed(self.ctx)
        if not dist.init_calls and self.ctx.project is not None and not dist.reduces_gradients:
            self._step_cells_built_under_data_parallel()
        if not dist.init_calls or dist.reduces_gradients or dist.parallel_mode in ("auto", "unknown"):
            return
        # gradients of the inputs only (weights left out) train no parameter: not a training step
        steps = [s for s in training(self.ctx).steps if training(self.ctx).takes_parameter_gradients(s) is not False]
        if dist.parallel_mode == "data":
            # the data-parallel context all-reduces inside nn.TrainOneStepCell / Model only
            steps = [s for s in steps if s.kind in ("grad", "gradop")]
            for step in steps:
                applied = optimizers_applied(self.ctx, step)
                if applied and any(not q.startswith("mindspore.") for q in applied if q):
                    continue  # an optimizer of another library may reduce (ZeRO-style) on its own
                text = ("hand-written gradient step under DATA_PARALLEL: the parallel context all-reduces gradients "
                        "only inside nn.TrainOneStepCell and Model, not in a value_and_grad/grad step, so each "
                        "device applies its own gradients; pass them through "
                        "nn.DistributedGradReducer(optimizer.parameters) before the optimizer")
                if applied and all(applied):
                    self.report(step.node, text)
                else:
                    self.report(step.node, text + " (assumed: the optimizer the gradients go to was not resolved to "
                                "a MindSpore optimizer, which never reduces them itself)", severity=Severity.WARNING)
                return
            return
        if steps:
            self.report(steps[0].node, "hand-written training step in a distributed script, but no "
                        "DistributedGradReducer and no data-parallel context: each device trains on its own "
                        "gradients")

    def _step_cells_built_under_data_parallel(self) -> None:
        """A step Cell of this file takes gradients itself (GradOperation, value_and_grad,
        grad) and never reduces them, and an entry script of the project that calls init()
        and sets DATA_PARALLEL builds it: reported here, where the reducer belongs, with the
        entry script as related location."""
        import os

        from msacclint.analysis.cells import cells

        if not any(name in GRAD_STEP_BUILDERS for name in facts(self.ctx).calls):
            return
        project = self.ctx.project
        path = os.path.abspath(self.ctx.path)
        for name, info in cells(self.ctx).classes.items():
            node, reduces = _gradients_in(self.ctx, info.node)
            if node is None or reduces:
                continue
            applies, param = class_applies_optimizer(self.ctx, info)
            if not applies:
                continue  # gradients that never reach an optimizer (a penalty term, an inner loop)
            for site, _summary, call, mode_line in project.data_parallel_builders(path, name):
                shown = project.display(site)
                message = (f"{name} takes gradients itself and never all-reduces them, and {shown} builds it "
                           f"(directly or through what it builds) (line {call.line}) after init() under DATA_PARALLEL "
                           f"(line {mode_line}): the parallel context reduces only inside nn.TrainOneStepCell and "
                           "Model, so each device applies its own gradients; apply nn.DistributedGradReducer to "
                           + ("them in construct" if "construct" in info.methods else
                              "them before the optimizer takes them"))
                severity = None
                if param is not None and not _passes_optimizer(project, path, name, info, param):
                    message += (f" (assumed: the `{param}` it is given is an optimizer; what the caller passes "
                                "was not resolved to a MindSpore optimizer)")
                    severity = Severity.WARNING
                self.report(node, message, severity=severity,
                            related=[(shown, mode_line, "set_auto_parallel_context(parallel_mode=DATA_PARALLEL)"),
                                     (shown, call.line, f"{call.callee}(...)")])
                break


def _passes_optimizer(project, path: str, name: str, info, param: str) -> bool:
    """Every place in the project that builds the step Cell ``name`` passes a MindSpore
    optimizer for ``param``: a constructor call, or a name assigned from one, that resolves
    to it (at least one such place)."""
    init = info.methods.get("__init__")
    if init is None:
        return False
    position = parameter_slots(init).get(param, (-1, None))[0]
    sites = 0
    for _site, summary, call, _cls, func in project.call_sites(path, name):
        sites += 1
        expr = call.argument(param, position)
        if expr is not None and expr[0] == "call":
            callees = [expr[1]]
        elif expr is not None and expr[0] == "name":
            callees = (func.builds.get(expr[1]) if func is not None else None) or summary.builds.get(expr[1]) or []
        else:
            return False
        if not callees or not all(is_mindspore_optimizer(project.qualified(summary, c)) for c in callees):
            return False
    return sites > 0


def _gradients_in(ctx, node: cst.ClassDef) -> Tuple[Optional[cst.Call], bool]:
    """The first GradOperation/value_and_grad/grad call of a class, and whether the class
    reduces gradients (a DistributedGradReducer/AllReduce, or TrainOneStepCell's grad_reducer)."""
    from msacclint.analysis.walk import walk

    found: List[cst.Call] = []
    reduces: List[bool] = []

    class Finder(cst.CSTVisitor):
        def visit_Call(self, call: cst.Call) -> None:
            resolved = ctx.resolve(call.func) or ""
            if not found and resolved in GRAD_STEP_BUILDERS:
                found.append(call)
            tail = resolved.rsplit(".", 1)[-1] if resolved else (
                call.func.attr.value if isinstance(call.func, cst.Attribute) else "")
            if tail in ("DistributedGradReducer", "AllReduce", "all_reduce", "grad_reducer"):
                reduces.append(True)

    walk(node, Finder())
    return (found[0] if found else None), bool(reduces)


def _name(node: cst.BaseExpression) -> str:
    from msacclint.analysis.imports import dotted

    return dotted(node) or ""
