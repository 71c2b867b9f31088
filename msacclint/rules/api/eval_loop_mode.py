"""MSA202 (api.02, MS-MODE-01, warning): an evaluation loop that calls a network holding
BatchNorm/Dropout while it may still be in training mode."""

from __future__ import annotations

from typing import Dict, Optional

import libcst as cst

from msacclint.analysis.cells import cells, self_attr
from msacclint.analysis.scopes import says_eval, scopes
from msacclint.analysis.source import code_of as _code
from msacclint.analysis.train_modes import holds_mode_cells
from msacclint.analysis.training import training
from msacclint.diagnostics import Severity
from msacclint.rules.base import Invalid, Rule, Valid
from msacclint.rules.examples import fill
from msacclint.rules.fixtures.api import EVAL_CALLBACK, HANDED_TO_CALLBACK, mode_net, split_loop
from msacclint.rules.fixtures.nets import cell
from msacclint.rules.fixtures.split_functions import split_functions

#: ``evaluate`` loops over the data calling the network (after ``{mode}``); ``main`` builds a
#: ``{cls}``, switches training mode on and evaluates it
_EVALUATED_AFTER_TRAINING = """
    def evaluate(net, ds):
        {mode}
        for x, y in ds:
            net(x)
    def main():
        net = {cls}()
        net.set_train()
        evaluate(net, ds)
"""

#: training mode on, a training loop, then a loop over the test data calling the network
_TRAINED_THEN_TESTED = """
    net.set_train(True)
    grad_fn = ms.value_and_grad(lambda x, y: net(x).sum(), None, opt.parameters)
    for x, y in ds:
        grad_fn(x, y)
    for x, y in test_ds:
        out = net(x)  # MSA202
"""


def _handed_to_callback(mark: str, layers: str, uses: str) -> Dict[str, str]:
    """An entry script handing its Net (``layers``, used as ``uses``) to an EvalCallBack of src/
    that switches training mode on right before evaluating (the line ending with ``mark``)."""
    return {"src/callback.py": fill(EVAL_CALLBACK, before="self.network.set_train(True)" + mark, after="pass"),
            "train.py": HANDED_TO_CALLBACK.format(layers=layers, uses=uses)}


class EvalLoopInTrainingMode(Rule):
    code = "MSA202"
    about_the_run = True
    name = "eval-loop-in-training-mode"
    checklist = "api.02"
    severity = Severity.WARNING
    group = "suspicious"
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
            "parameter), when a call of the project hands it a network class holding BatchNorm/Dropout (directly, or "
            "through a trainer function's own parameter, followed to what its callers pass) and "
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
        Valid(files=split_loop(mode="self.network.set_train(False)"),
              note="multi-file: the evaluator switches the network it is handed to inference first"),
        Valid(files=split_loop(switch="trainer_net = self.network\n    trainer_net.set_train(False)"),
              note="multi-file look-alike: the trainer switches the network to inference before evaluating"),
        Valid(files=split_loop(layers="self.act = nn.ReLU()", uses="self.act(self.fc(x))"),
              note="multi-file look-alike: the network handed to the evaluator has no BatchNorm or Dropout"),
        Valid(mode_net(fill(_EVALUATED_AFTER_TRAINING, mode="net.set_train(False)", cls="Net")), note="idiomatic"),
        Valid(files=split_functions(trainer="network.set_train()", evaluator="network.set_train(False)"),
              note="multi-file: the evaluator function switches the network it is handed to inference first"),
        Valid(files=split_functions(trainer="network.set_train()", layers="self.act = nn.ReLU()",
                                    uses="self.act(self.fc(x))"),
              note="multi-file look-alike: the network the trainer function hands on has no BatchNorm or Dropout"),
        Valid(mode_net("""
            def main():
                net = Net()
                net.set_train()
                model = ms.Model(net)
                model.eval(ds)
        """), note="Model.eval sets the mode"),
        Valid(fill("""
            import mindspore as ms
            from mindspore import nn
            {head}
            {loop}
        """, head=cell("Head", init="self.fc = nn.Dense(4, 2)", construct="return self.fc(x)", tight=True), loop=fill(_EVALUATED_AFTER_TRAINING, mode="", cls="Head")), note="no BatchNorm or Dropout: the mode changes nothing"),
        Valid(mode_net("""
            def predict(path, ds):
                net = Net()
                ms.load_checkpoint(path, net)
                for x in ds:
                    net(x)
        """), note="a new Cell is already in inference mode"),
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
        Valid(fill(EVAL_CALLBACK, before="self.network.set_train(False)", after="self.network.set_train(True)"),
              note="the nearest look-alike: inference mode for the evaluation, training mode back after it"),
        Valid(files=_handed_to_callback("", layers="self.fc2 = nn.Dense(8, 2)", uses="self.fc2(x)"), note="multi-file: the only network the project hands the callback has no BatchNorm or Dropout"),
    )
    INVALID = (
        Invalid(mode_net("""
            def evaluate(net, ds):
                correct = 0
                for x, y in ds:
                    correct += (net(x).argmax(1) == y).sum()  # MSA202
                return correct
            def main():
                net = Net()
                net.set_train()
                evaluate(net, ds)
        """), note="a PyTorch port that dropped net.eval()"),
        Invalid(mode_net(fill("""
            def main(ds, test_ds, opt):
                net = Net()
                {loops}
        """, loops=_TRAINED_THEN_TESTED))),
        Invalid(fill("""
            import mindspore as ms
            from mindspore import nn

            def main(ds, test_ds):
                net = nn.SequentialCell(nn.Conv2d(1, 8, 3), nn.BatchNorm2d(8), nn.ReLU(), nn.Flatten(),
                                        nn.Dense(8 * 28 * 28, 10))
                opt = nn.SGD(net.trainable_params(), learning_rate=0.01)
                {loops}
        """, loops=_TRAINED_THEN_TESTED), note="a container network whose layers include a BatchNorm"),
        Invalid(fill(EVAL_CALLBACK, before="self.network.set_train(True)  # MSA202", after="pass"),
                note="a callback switches training mode on right before its evaluation"),
        Invalid(files=_handed_to_callback("  # MSA202", layers="self.bn = nn.BatchNorm1d(8)", uses="self.bn(x)"),
                note="multi-file: the project hands the callback a network with a BatchNorm"),
        Invalid(files=split_functions(trainer="network.set_train()", eval_mark="  # MSA202"),
                message_contains="handed here at",
                note="multi-file: a trainer function of src/ trains the network it is handed and hands it on to an "
                     "evaluator function of another file, which runs it without switching it to inference"),
        Invalid(files=split_loop(mark="  # MSA202"), message_contains="(Trainer(...), which trains it)",
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
        found = project.callable_parameter(path, target, param)
        if found is None:
            return None
        defined, position = found
        for site, summary, call, _cls, func in project.call_sites(defined, target):
            expr = call.argument(param, position)
            built = project.classes_at(site, summary, func, expr) if expr is not None else None
            for where, callee, _line in built or ():
                state, evidence = project.mode_dependence(where, callee)
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


def _calls_held(call: cst.Call, held) -> bool:
    """``self.<attr>(...)`` for an attribute the class's ``__init__`` sets (a network it holds)."""
    return self_attr(call.func) in held


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
