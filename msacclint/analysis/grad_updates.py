"""Where the gradients of a hand-written step go: the optimizer a ``value_and_grad``/``grad``
step's gradients are handed to, and whether a class of the file (a step Cell or a trainer
class) updates parameters with an optimizer.

- ``optimizers_applied(ctx, step)``: what the gradients of a bound gradient step are handed
  to (``optimizer(grads)``), each as the resolved class it was built from (None when not
  resolved); empty when no such call is found;
- ``class_applies_optimizer(ctx, info)``: whether a class applies an optimizer — through an
  attribute ``__init__`` sets from a MindSpore optimizer it builds, TrainOneStepCell's own
  ``self.optimizer``, an attribute set from a constructor parameter named for an optimizer
  (that parameter's name is returned: what the callers pass decides), or a gradient step in
  one of its methods whose gradients go to a MindSpore optimizer that method builds (a
  trainer's ``fit()`` building its optimizer and ``value_and_grad`` step locally).
"""

from __future__ import annotations

from typing import List, Optional, Tuple

import libcst as cst

from msacclint.analysis.calls import argument, parameter_slots
from msacclint.analysis.cells import CellInfo, attr_handed_on, calls_of_attr
from msacclint.analysis.context import FileContext
from msacclint.analysis.flow import FunctionFlow
from msacclint.analysis.scopes import Scopes, scopes
from msacclint.analysis.train_steps import Step
from msacclint.analysis.training import is_mindspore_optimizer, training

#: step Cells whose ``__init__`` keeps the optimizer as ``self.optimizer``
OPTIMIZER_BASES = ("mindspore.nn.TrainOneStepCell", "mindspore.nn.TrainOneStepWithLossScaleCell",
                   "mindspore.nn.wrap.cell_wrapper.TrainOneStepCell",
                   "mindspore.nn.wrap.loss_scale.TrainOneStepWithLossScaleCell")


def optimizers_applied(ctx: FileContext, step: Step) -> List[Optional[str]]:
    """What the gradients of a value_and_grad/grad step are handed to (``optimizer(grads)``):
    the resolved class each such object was built from, None for one not resolved (a
    parameter without a resolvable caller, an attribute). Empty when no such call is found."""
    if step.name is None:
        return []
    sc = scopes(ctx)
    out: List[Optional[str]] = []
    for fl in sc.flows:
        grads = set()
        for name, defs in fl.defs.items():
            for d in defs:
                if isinstance(d.value, cst.Call) and isinstance(d.value.func, cst.Name) and \
                        d.value.func.value == step.name and (d.index is None or d.index > 0):
                    grads.add(name)
        if not grads:
            continue
        for e in fl.calls():
            call = e.node
            if e.callee is not None or not any(isinstance(a.value, cst.Name) and a.value.value in grads
                                               for a in call.args):
                continue
            out.append(_built_from(ctx, sc, fl, call.func, e.order))
    return out


def _built_from(ctx: FileContext, sc: Scopes, fl: FunctionFlow, expr: cst.BaseExpression, before: Optional[int],
                depth: int = 0) -> Optional[str]:
    if not isinstance(expr, cst.Name) or depth > 3:
        return None
    found = sc.resolve(fl, expr.value, before)
    if found is not None:
        value = found[1].value
        return ctx.resolve(value.func) if isinstance(value, cst.Call) else None
    root = fl.root
    if not isinstance(root, cst.FunctionDef) or expr.value not in sc.params(fl):
        return None
    position = sc.params(fl).index(expr.value)
    answers = set()
    for caller_fl, event in sc.callers(root):
        arg = argument(event.node, expr.value, tuple(sc.params(fl)[:position + 1]))
        answers.add(_built_from(ctx, sc, caller_fl, arg.value, event.order, depth + 1) if arg is not None else None)
    return answers.pop() if len(answers) == 1 else None


def class_applies_optimizer(ctx: FileContext, info: CellInfo) -> Tuple[bool, Optional[str]]:
    """Whether the class updates parameters with an optimizer (see the module's docstring),
    and the constructor parameter the optimizer comes from when that decides it."""
    init = info.methods.get("__init__")
    params = set(parameter_slots(init)) if init is not None else set()
    resolved = {"optimizer"} if any(b in OPTIMIZER_BASES for b in info.bases if b) else set()
    by_param = {}
    for attr, value in info.assigned:
        if isinstance(value, cst.Call) and is_mindspore_optimizer(ctx.resolve(value.func)):
            resolved.add(attr)
        elif isinstance(value, cst.Name) and value.value in params and \
                ("optim" in value.value.lower() or value.value.lower() == "opt"):
            by_param[attr] = value.value

    def used(attr: str) -> bool:
        return bool(calls_of_attr(info, attr)) or attr_handed_on(info, attr)

    if any(used(attr) for attr in resolved):
        return True, None
    for attr, param in by_param.items():
        if used(attr):
            return True, param
    return bool(_method_steps_update(ctx, info)), None


def _method_steps_update(ctx: FileContext, info: CellInfo) -> List[Step]:
    """The gradient steps of the class's methods whose gradients all go to MindSpore
    optimizers (built in the method, or followed to what builds them in the file)."""
    sc = scopes(ctx)
    out = []
    for step in training(ctx).steps:
        if step.kind not in ("grad", "gradop") or sc.class_of(step.flow) is not info.node:
            continue
        applied = optimizers_applied(ctx, step)
        if applied and all(is_mindspore_optimizer(q) for q in applied):
            out.append(step)
    return out
