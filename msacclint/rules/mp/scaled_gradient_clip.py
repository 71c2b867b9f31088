"""MSA401 (mp.03, error): gradients clipped while still multiplied by the loss scale.

It asks msacclint.analysis.loss_scale where the gradients at the clip came from; any step of
unknown meaning between production and use (an unscale, a ``_grad_scale`` hyper_map, a helper)
makes the answer "unknown" and the rule silent.
"""

from __future__ import annotations

from typing import Optional, Union

import libcst as cst

from msacclint.analysis.cells import CellInfo
from msacclint.analysis.loss_scale import GradScaleFlow, cell_scales_loss
from msacclint.diagnostics import Severity
from msacclint.rules.base import Invalid, Valid
from msacclint.rules.examples import dedent, fill
from msacclint.rules.function_rule import FunctionRule

#: the model zoo's loss-scale training step: gradients computed with the scale sensitivity;
#: ``{grads}`` is what the step does with them before the overflow check
_SCALED_STEP = """
    import mindspore as ms
    from mindspore import nn, ops
    import mindspore.ops.functional as F
    from mindspore.ops import composite as C

    _grad_scale = C.MultitypeFuncGraph('grad_scale')

    @_grad_scale.register('Tensor', 'Tensor')
    def tensor_grad_scale(scale, grad):
        return grad * ops.reciprocal(scale)


    class TrainStep({base}):
        def construct(self, *inputs):
            weights = self.weights
            loss = self.network(*inputs)
            scaling_sens = self.scale_sense
            status, scaling_sens = self.start_overflow_check(loss, scaling_sens)
            {grads}
"""
#: the rest of a full loss-scale step after ``{grads}``
_OVERFLOW_CHECK = """
    cond = self.get_overflow_status(status, grads)
    overflow = self.process_loss_scale(cond)
    if not overflow:
        loss = F.depend(loss, self.optimizer(grads))
    return loss, cond, scaling_sens
"""


def _scaled_step(grads: str) -> str:
    """A TrainOneStepWithLossScaleCell step: the scaled gradients, then ``grads`` (what it
    does with them), then the overflow check and the update."""
    return fill(_SCALED_STEP, base="nn.TrainOneStepWithLossScaleCell", grads=(
        "scaling_sens_filled = ops.ones_like(loss) * F.cast(scaling_sens, F.dtype(loss))\n"
        "grads = self.grad(self.network, weights)(*inputs, scaling_sens_filled)\n"
        + dedent(grads) + dedent(_OVERFLOW_CHECK)))


#: a functional loop with a mindspore.amp loss scaler; the forward function returns
#: ``{returned}`` and ``{step}`` is what happens between the gradients and the update
_SCALER_LOOP = """
    import mindspore as ms
    from mindspore import ops
    from mindspore.amp import DynamicLossScaler

    loss_scaler = DynamicLossScaler(scale_value=2**16, scale_factor=2, scale_window=50)

    def forward_fn(data, label):
        logits = net(data)
        loss = loss_fn(logits, label)
        return {returned}, logits

    grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True)

    {loop}
"""


def _scaler_loop(step: str, returned: str = "loss_scaler.scale(loss)") -> str:
    return fill(_SCALER_LOOP, returned=returned, loop=fill("""
        def train_step(data, label):
            (loss, _), grads = grad_fn(data, label)
            {step}
            optimizer(grads)
            return loss
    """, step=step))


class ClipScaledGradients(FunctionRule):
    code = "MSA401"
    about_the_run = True
    name = "clip-scaled-gradients"
    checklist = "mp.03"
    severity = Severity.ERROR
    group = "correctness"
    evidence = ('The data flow is resolved along one function: the clipped gradients come from a step computed with a '
                'loss-scale sensitivity (or from a forward function that returns the scaled loss) with nothing but '
                'gradient reduction in between; any unscale step, or a helper it cannot read, keeps it silent.')
    message = "gradients are clipped while still multiplied by the loss scale"
    what = ("Reports gradient clipping (`ops.clip_by_global_norm`, `ops.clip_by_value`, `ops.clip_by_norm`, "
            "`nn.ClipByNorm`, a `hyper_map(F.partial(clip_grad, ...), grads)`) applied to gradients that "
            "still carry the loss scale: gradients of a `TrainOneStepWithLossScaleCell`-style step computed "
            "with a scale sensitivity, or of a `value_and_grad` forward function that returns "
            "`loss_scaler.scale(loss)`, with nothing between them and the clip but gradient reduction. "
            "Any unscale step before the clip (`loss_scaler.unscale(grads)`, a `_grad_scale` hyper_map, a "
            "division, a helper the linter cannot read) keeps it silent.")
    why = ("Scaled gradients are the true gradients times the loss scale (often 2**16 or more). Clipping "
           "them to a global norm of 1.0 then unscaling shrinks every update by the scale factor: the "
           "network barely trains, and with a dynamic scale the effective learning rate changes whenever "
           "the scale does. This is the mistake PyTorch users avoid with `scaler.unscale_(optimizer)` "
           "before `clip_grad_norm_`; MindSpore has no such reminder.")
    example = """
        (loss, _), grads = grad_fn(data, label)
        grads = ops.clip_by_global_norm(grads, 1.0)   # still scaled
        grads = loss_scaler.unscale(grads)
    """
    use_instead = """
        (loss, _), grads = grad_fn(data, label)
        grads = loss_scaler.unscale(grads)
        grads = ops.clip_by_global_norm(grads, 1.0)
    """
    fix_safety = "No automatic fix: moving the clip changes which value is clipped; reorder it by hand."
    versions = "All MindSpore versions: loss scaling has always been explicit."
    VALID = (
        Valid(_scaled_step("""
            grads = self.hyper_map(F.partial(_grad_scale, scaling_sens), grads)
            grads = ops.clip_by_global_norm(grads, 1.0)
        """), note="model-zoo order: unscale, then clip"),
        Valid(_scaler_loop("""
            grads = loss_scaler.unscale(grads)
            grads = ops.clip_by_global_norm(grads, 1.0)
        """), note="functional loop, unscale then clip"),
        Valid(fill(_SCALED_STEP, base="nn.TrainOneStepCell", grads="""
            grads = self.grad(self.network, weights)(*inputs, self.sens)
            grads = ops.clip_by_global_norm(grads, 1.0)
            return loss
        """), note="sens of 1.0: nothing is scaled"),
        Valid(_scaled_step("""
            grads = self.down_scale_grads(scaling_sens, grads)
            grads = ops.clip_by_global_norm(grads, 1.0)
        """), note="an unscale helper the linter cannot read: silent"),
        Valid(_scaler_loop("grads = ops.clip_by_global_norm(grads, 1.0)", returned="loss"), note="no loss scaling"),
        Valid("""
            import torch
            scaler.scale(loss).backward()
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        """, note="PyTorch"),
        Valid(_scaled_step("""
            grads = self.grad_reducer(grads)
            grads = self.hyper_map(F.partial(_grad_scale, scaling_sens), grads)
            grads = self.hyper_map(F.partial(clip_grad, 1, 1.0), grads)
        """), note="BERT-style: reduce, unscale, then clip with a hyper_map"),
        Valid("""
            from mindspore import nn, ops

            class StepWithSense(nn.Cell):
                def __init__(self, network, optimizer):
                    super().__init__()
                    self.network, self.optimizer = network, optimizer
                    self.grad = ops.GradOperation(get_by_list=True, sens_param=True)

                def construct(self, *inputs):
                    grads = self.grad(self.network, self.optimizer.parameters)(*inputs, self.scale_sense)
                    grads = ops.clip_by_global_norm(grads, 0.1)
                    return self.optimizer(grads)
        """, note="a sens that is an upstream gradient (DETR-style), no overflow check: not a loss scale"),
        Valid("""
            from mindspore import ops

            def attend(score_map, softmax_scale, low):
                attention = ops.Softmax(axis=1)(score_map * softmax_scale)
                return ops.clip_by_value(attention, low, attention.max())
        """, note="clipping something that is not a gradient"),
    )
    INVALID = (
        Invalid(_scaler_loop("""
            grads = ops.clip_by_global_norm(grads, 1.0)  # MSA401
            grads = loss_scaler.unscale(grads)
        """), note="a port of torch's scaler.scale(loss).backward(); clip_grad_norm_ without unscale_"),
        Invalid(_scaled_step("""
            grads = ops.clip_by_global_norm(grads, 1.0)  # MSA401
            grads = self.hyper_map(F.partial(_grad_scale, scaling_sens), grads)
        """)),
        Invalid(fill(_SCALER_LOOP, returned="loss_scaler.scale(loss)", loop="""
            for data, label in dataset:
                (loss, _), grads = grad_fn(data, label)
                grads = ops.clip_by_value(grads, -1.0, 1.0)  # MSA401
                optimizer(loss_scaler.unscale(grads))
        """), note="a script's top-level loop"),
        Invalid(_scaled_step("""
            grads = self.grad_reducer(grads)
            grads = self.hyper_map(F.partial(clip_grad, 1, 1.0), grads)  # MSA401
            grads = self.hyper_map(F.partial(_grad_scale, scaling_sens), grads)
        """)),
    )

    def check_function(self, func: Union[cst.FunctionDef, cst.Module], owner: Optional[CellInfo]) -> None:
        analysis = GradScaleFlow(self.ctx, func, self.attr_callee(owner), scales_loss=cell_scales_loss(self.ctx, owner))
        for event, name in analysis.clip_calls():
            scaled = analysis.scaled_at(name, event.order)
            if scaled is None:
                continue
            how = ("computed with the loss-scale sensitivity" if scaled.reason == "sens"
                   else "of a forward function that returns loss_scaler.scale(loss)")
            self.report(event.node, f"`{name}` is clipped while still multiplied by the loss scale (gradients "
                        f"{how}); unscale them first, then clip")
