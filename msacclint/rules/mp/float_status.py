"""mp.01: the Ascend float-status clear, ordered by data dependencies only.

MSA410. The Ascend float-status protocol (``NPUAllocFloatStatus``, ``NPUClearFloatStatus``,
``NPUGetFloatStatus``) is ordered by data dependencies only (``ops.depend``): a clear
whose result the gradient computation does not depend on may run after it.
"""

from __future__ import annotations

from typing import List, Optional, Set, Tuple, Union

import libcst as cst

from msacclint.analysis.cells import CellInfo
from msacclint.analysis.flow import Event
from msacclint.analysis.loss_scale import GradScaleFlow
from msacclint.diagnostics import Severity
from msacclint.rules.base import Invalid, Valid
from msacclint.rules.examples import fill
from msacclint.rules.function_rule import FunctionRule

CLEAR_STATUS = frozenset({"mindspore.ops.NPUClearFloatStatus", "mindspore.ops.NPUClearFloatStatusV2"})

#: the 1.x model-zoo loss-scale step on Ascend: allocate, clear, gradients, read;
#: ``{order}`` is what ties the clear to the gradient computation
_FLOAT_STATUS_STEP = """
    from mindspore import nn
    from mindspore.ops import functional as F
    from mindspore.ops import operations as P
    from mindspore.ops import composite as C


    class TrainStep(nn.Cell):
        def __init__(self, network, optimizer, scale_update_cell):
            super().__init__(auto_prefix=False)
            self.network, self.optimizer = network, optimizer
            self.weights = optimizer.parameters
            self.grad = C.GradOperation(get_by_list=True, sens_param=True)
            self.alloc_status = P.NPUAllocFloatStatus()
            self.get_status = P.NPUGetFloatStatus()
            self.clear_status = P.NPUClearFloatStatus()
            self.reduce_sum = P.ReduceSum(keep_dims=False)
            self.loss_scaling_manager = scale_update_cell
            self.loss_scale = scale_update_cell.get_loss_scale()

        def construct(self, data, label):
            loss = self.network(data, label)
            scaling_sens = self.loss_scale
            init = self.alloc_status()
            init = F.depend(init, loss)
            {order}
            grads = self.grad(self.network, self.weights)(data, label, scaling_sens)
            init = F.depend(init, grads)
            get_status = self.get_status(init)
            init = F.depend(init, get_status)
            cond = self.reduce_sum(init, (0,)) > 0
            overflow = self.loss_scaling_manager(self.loss_scale, cond)
            if not overflow:
                loss = F.depend(loss, self.optimizer(grads))
            return loss, cond, scaling_sens
"""


class FloatStatusClearUnordered(FunctionRule):
    code = "MSA410"
    about_the_run = True
    name = "float-status-clear-unordered"
    checklist = "mp.01"
    severity = Severity.WARNING
    group = "suspicious"
    message = "the float status is cleared without being ordered before the gradient computation"
    evidence = ("The clear is a resolved `NPUClearFloatStatus`/`NPUClearFloatStatusV2` call of the step, the "
                "gradient computation that follows it is a `GradOperation` or `value_and_grad` call, and no argument "
                "of that call depends on the clear's result through the step's assignments (`F.depend`). A warning: "
                "whether the graph runs the clear late is up to the scheduler.")
    what = ("Reports the float-status clear of a hand-written loss-scale step (Ascend's "
            "`NPUAllocFloatStatus`/`NPUClearFloatStatus`/`NPUGetFloatStatus` protocol) when the gradient "
            "computation after it does not depend on the clear's result: its result is discarded, or tied only to "
            "the loss, or to something the gradient call does not read.")
    why = ("In graph mode operations run in data-dependency order, not in the order they are written. A clear "
           "that nothing downstream of it needs before the backward pass may be scheduled after it, wiping the "
           "overflow flags the backward pass set: the overflow check then passes, and an overflowed step is "
           "applied (or the dynamic scale is never lowered). The model-zoo steps tie the clear to the "
           "sensitivity with `scaling_sens = F.depend(scaling_sens, clear_status)` for this reason.")
    example = """
        init = self.alloc_status()
        clear_status = self.clear_status(init)
        grads = self.grad(self.network, weights)(data, label, scaling_sens)
        loss = F.depend(loss, clear_status)   # tied to the loss only
    """
    use_instead = """
        init = self.alloc_status()
        clear_status = self.clear_status(init)
        scaling_sens = F.depend(scaling_sens, clear_status)
        grads = self.grad(self.network, weights)(data, label, scaling_sens)
    """
    fix_safety = "No automatic fix: which input to tie the clear to is the step's choice."
    versions = ("The float-status primitives are Ascend-only and were superseded in 2.x by "
                "`TrainOneStepWithLossScaleCell.start_overflow_check`, which does the ordering itself.")
    VALID = (
        Valid(fill(_FLOAT_STATUS_STEP, order="""
            clear_status = self.clear_status(init)
            scaling_sens = F.depend(scaling_sens, clear_status)
        """), note="the model-zoo order: the sensitivity depends on the clear"),
        Valid(fill(_FLOAT_STATUS_STEP, order="""
            clear_status = self.clear_status(init)
            data = F.depend(data, clear_status)
        """), note="an input of the gradient call depends on it"),
        Valid(fill(_FLOAT_STATUS_STEP, order="""
            clear_status = self.clear_status(init)
            sens = F.depend(scaling_sens, clear_status)
            scaling_sens = F.cast(sens, F.dtype(loss))
        """), note="through a second assignment"),
        Valid("""
            from mindspore import nn, ops

            class TrainStep(nn.TrainOneStepWithLossScaleCell):
                def construct(self, *inputs):
                    loss = self.network(*inputs)
                    status, scaling_sens = self.start_overflow_check(loss, self.scale_sense)
                    grads = self.grad(self.network, self.weights)(*inputs, scaling_sens)
                    cond = self.get_overflow_status(status, grads)
                    if not self.process_loss_scale(cond):
                        loss = ops.depend(loss, self.optimizer(grads))
                    return loss
        """, note="2.x: start_overflow_check orders the clear itself"),
    )
    INVALID = (
        Invalid(fill(_FLOAT_STATUS_STEP, order="""
            clear_status = self.clear_status(init)  # MSA410
            loss = F.depend(loss, clear_status)
        """), note="tied to the loss only, which the gradient call does not read"),
        Invalid(fill(_FLOAT_STATUS_STEP, order="self.clear_status(init)  # MSA410"),
                note="the result discarded: nothing orders the clear"),
    )

    def check_function(self, func: Union[cst.FunctionDef, cst.Module], owner: Optional[CellInfo]) -> None:
        if isinstance(func, cst.Module) or "ClearFloatStatus" not in self.ctx.source:
            return
        analysis = GradScaleFlow(self.ctx, func, self.attr_callee(owner))
        events = analysis.flow.calls()
        for event in events:
            if analysis.callee(event.node.func) not in CLEAR_STATUS:
                continue
            grad = next((e for e in events if e.order > event.order and analysis.is_grad_call(e.node)), None)
            if grad is None:
                continue
            result = _assigned_name(analysis, event)
            if result is not None and _depends_on(analysis, grad, result):
                continue
            self.report(event.node, "the float status is cleared here, but the gradient computation after it "
                        "does not depend on the clear: in graph mode the clear can "
                        "run after the backward pass and wipe its overflow flags, so an overflowed step is applied; "
                        "tie it in with `scaling_sens = F.depend(scaling_sens, <clear result>)` before the gradient "
                        "call")


def _assigned_name(analysis: GradScaleFlow, event: Event[cst.Call]) -> Optional[str]:
    """The name the clear's result is assigned to (``clear_status = self.clear_status(init)``)."""
    for name, defs in analysis.flow.defs.items():
        for d in defs:
            if d.value is event.node and d.index is None:
                return name
    return None


def _depends_on(analysis: GradScaleFlow, grad: Event[cst.Call], result: str) -> bool:
    """Whether an argument of the gradient call reads ``result`` through the assignments
    before it (three levels deep)."""
    frontier = [(n, grad.order) for arg in grad.node.args for n in analysis.flow.names_in(arg.value)]
    seen: Set[Tuple[str, int]] = set()
    for _ in range(4):
        following: List[Tuple[str, int]] = []
        for name, before in frontier:
            if name == result:
                return True
            if (name, before) in seen:
                continue
            seen.add((name, before))
            for d in analysis.flow.chain(name, before):
                following.extend((n, d.order) for n in analysis.flow.names_in(d.value))
        frontier = following
    return False
