"""wi.02: load_param_into_net / load_checkpoint(path, net) whose "not loaded" lists are
thrown away (MSA506, MS-CKPT-01)."""

from __future__ import annotations

import re
from functools import partial
from typing import Dict, List, Optional, Tuple

import libcst as cst

from msacclint.analysis.calls import argument, literal
from msacclint.analysis.displayed import displayed
from msacclint.analysis.flow import flow
from msacclint.analysis.local_uses import local_uses
from msacclint.analysis.scopes import says_eval, says_train
from msacclint.analysis.source import code_of
from msacclint.analysis.training import training
from msacclint.diagnostics import Severity
from msacclint.rules.base import Invalid, Valid
from msacclint.rules.examples import fill, notebook
from msacclint.rules.fixtures.mpwi import SWAP_IN_EMA, fill_files
from msacclint.rules.function_rule import InFunctionRule
from msacclint.rules.wi.checkpoint_paths import checkpoint_prefixes, path_name, path_shape

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


_split_trainer = partial(fill_files, _SPLIT_TRAINER, step="self.fit(dataset)\nself.network.set_train()")


class UncheckedCheckpointLoad(InFunctionRule):
    code = "MSA506"
    reports_discarded_results = True
    about_the_run = True
    name = "unchecked-checkpoint-load"
    checklist = "wi.02"
    severity = Severity.WARNING
    group = "review"
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
        Valid(files=_split_trainer(load="missing, _ = ms.load_param_into_net(self.network, params)\nassert not missing"),
              note="multi-file: the trainer base class checks what was not loaded"),
        Valid(files=_split_trainer(load="ms.load_param_into_net(self.network, params)",
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
        Valid(fill("""
            import mindspore as ms

            {swap}
        """, swap=SWAP_IN_EMA), note="a dict built here from the network's own names"),
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
        Invalid(files=_split_trainer(load="ms.load_param_into_net(self.network, params)  # MSA506"),
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
        scope_text = code_of(self._functions[-1]) if self._functions else self.ctx.source
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
        shape = path_shape(loaded[0]) if loaded is not None else None
        if shape is None:
            return False
        for save in facts(self.ctx).called(SAVE_CHECKPOINT):
            saved_to = argument(save, "ckpt_file_name", ("save_obj", "ckpt_file_name"))
            if saved_to is not None and path_shape(saved_to.value) == shape:
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

        name = path_name(self.ctx, path, scopes(self.ctx).owner(at))
        if name is None:
            return False
        return any(re.fullmatch(re.escape(prefix) + r"(_\d+)?-\d+_\d+\.ckpt", name)
                   for prefix in checkpoint_prefixes(self.ctx))

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
