"""Why a finding about how a training run is set up cannot cost accuracy here, if it cannot.

The engine asks this for every finding of a rule that judges a run's set-up
(``Rule.about_the_run``: data order, sharding, optimizer defaults, loss reduction, seeds,
gradient reduction, loss scaling) and lowers such a finding to info, with the answer in its
message, when

- the file trains on arrays it generates itself (``analysis.synthetic``): a parity test or
  a benchmark has no accuracy to lose;
- the finding is about an optimizer that takes no step in its file
  (``idle_optimizer`` below): an evaluation script that copied the set-up;
- pytest runs the file as tests (``analysis.pytest_files``): a test keeps no model.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from msacclint.analysis.calls import argument
from msacclint.analysis.context import FileContext, Question
from msacclint.analysis.facts import facts
from msacclint.analysis.local_uses import local_uses
from msacclint.analysis.pytest_files import pytest_test
from msacclint.analysis.scopes import scopes
from msacclint.analysis.synthetic import made_up_data
from msacclint.analysis.training import MODEL, is_mindspore_optimizer, training


def set_up_cannot_matter(ctx: FileContext, node: cst.CSTNode) -> Optional[str]:
    """The reason, as a clause for the message, or None."""
    made_up = made_up_data(ctx)
    if made_up is not None:
        return (f"this file trains on arrays it generates itself ({made_up}), so how the run is set up cannot "
                "cost accuracy; it matters once real data are fed")
    idle = idle_optimizer(ctx, node)
    if idle is not None:
        return idle
    test = pytest_test(ctx)
    if test is not None:
        return (f"pytest runs this file as tests ({test}): a training run in a test exercises the code and keeps "
                "no model, so how it is set up cannot cost accuracy")
    return None


def idle_optimizer(ctx: FileContext, call: cst.CSTNode) -> Optional[str]:
    """Why the MindSpore optimizer that ``call`` builds takes no step in this file, or None.

    It takes none when the file trains nothing (no hand-written step, no ``.train(`` call: an
    evaluation or export script that copied the training set-up) and the optimizer goes only
    into a ``mindspore.Model`` (or nowhere), and is not returned. A Model handed on to other
    code could still be trained there: the answer says so, for a finding lowered to info."""
    if not isinstance(call, cst.Call) or not is_mindspore_optimizer(ctx.resolve(call.func)):
        return None
    if training(ctx).trains or ctx.ask(_ANY_TRAIN_CALL):
        return None
    fl = scopes(ctx).owner(call)
    if fl is None:
        return None
    why = ("this file never trains (no Model.train, no training step) and the optimizer only goes into a Model; "
           "a Model handed to other code could still be trained there")
    bound = [d.name for ds in fl.defs.values() for d in ds
             if d.value is call and d.index is None and isinstance(d.node, cst.Assign)]
    if not bound:  # built inline: only as a Model's optimizer argument
        models = [e.node for e in fl.calls() if e.callee == MODEL]
        return why if any(_optimizer_slot(model, call) for model in models) else None
    for use in local_uses(ctx, fl.root, bound[0]):
        if use.kind == "assigned":
            continue
        if use.kind == "argument" and use.callee == MODEL and (use.keyword == "optimizer" or use.position == 2):
            continue
        return None  # returned, stepped, handed to other code
    return why


def _optimizer_slot(model: cst.Call, value: cst.BaseExpression) -> bool:
    """``value`` is the optimizer argument of ``Model(network, loss_fn, optimizer, ...)``."""
    found = argument(model, "optimizer", ("network", "loss_fn", "optimizer"))
    return found is not None and found.value is value


_ANY_TRAIN_CALL: Question[bool] = Question(
    "any_train_call", lambda ctx: bool(facts(ctx).method_calls("train")) or bool(facts(ctx).method_calls("fit")))
