"""MSA402 (mp.04, warning): a gradient penalty computed from gradients that still carry the
loss scale.

It asks msacclint.analysis.loss_scale where the gradients in the penalty came from; any step of
unknown meaning between production and use (an unscale, a helper) makes the answer "unknown"
and the rule silent.
"""

from __future__ import annotations

from typing import Optional, Union

import libcst as cst

from msacclint.analysis.cells import CellInfo
from msacclint.analysis.flow import expr_facts
from msacclint.analysis.loss_scale import GradScaleFlow, cell_scales_loss
from msacclint.diagnostics import Severity
from msacclint.rules.base import Invalid, Valid
from msacclint.rules.examples import fill
from msacclint.rules.function_rule import FunctionRule

_NORM_WORDS = ("norm", "square", "pow", "l2_loss")


def _is_norm_like(node: cst.CSTNode) -> bool:
    facts = expr_facts(node)
    return facts.has_power or any(w in name.lower() for name in facts.call_names for w in _NORM_WORDS)


#: a gradient penalty inside a loss-scaled forward function: the gradients of
#: ``scaled_loss_fn`` (which returns ``{scaled}``), then ``{penalty}``, added as ``{term}``
_PENALTY = """
    import mindspore as ms
    from mindspore import ops
    from mindspore.amp import StaticLossScaler

    loss_scaler = StaticLossScaler(1024.0)

    def scaled_loss_fn(data, label):
        return {scaled}

    param_grad_fn = ms.grad(scaled_loss_fn, None, net.trainable_params())

    def forward_fn(data, label):
        grads = param_grad_fn(data, label)
        {penalty}
        loss = loss_fn(net(data), label) + {term}
        return loss_scaler.scale(loss)
"""


def _penalty(penalty: str, scaled: str = "loss_scaler.scale(loss_fn(net(data), label))",
             term: str = "0.1 * penalty") -> str:
    return fill(_PENALTY, scaled=scaled, penalty=penalty, term=term)


class PenaltyFromScaledGradients(FunctionRule):
    code = "MSA402"
    about_the_run = True
    name = "penalty-from-scaled-gradients"
    checklist = "mp.04"
    severity = Severity.WARNING
    group = "suspicious"
    message = "a gradient penalty is computed from gradients that still carry the loss scale"
    what = ("Reports a gradient norm or square (`ops.norm`, `ops.square`, `** 2`, ...) computed from "
            "gradients of a loss-scaled forward function (one that returns `loss_scaler.scale(loss)`, or a "
            "scale-sensitivity gradient call) with no unscale in between, when the result is added to a loss "
            "or assigned to a name that says penalty.")
    why = ("The gradients are multiplied by the loss scale, so the penalty is scale² times too large (and "
           "changes whenever a dynamic scale changes): the penalty term swamps the task loss. PyTorch's AMP "
           "recipe for gradient penalties divides the scaled gradients by the scale first; a port that "
           "skips that step trains a different objective without any error.")
    example = """
        grads = param_grad_fn(data, label)          # of loss_scaler.scale(loss)
        penalty = ops.sqrt(sum(ops.sum(g ** 2) for g in grads))
    """
    use_instead = """
        grads = loss_scaler.unscale(param_grad_fn(data, label))
        penalty = ops.sqrt(sum(ops.sum(g ** 2) for g in grads))
    """
    fix_safety = "No automatic fix: insert the unscale by hand."
    versions = "All MindSpore versions with mindspore.amp loss scalers (2.0+)."
    VALID = (
        Valid(_penalty("""
            grads = loss_scaler.unscale(grads)
            penalty = ops.sqrt(sum([ops.sum(g ** 2) for g in grads]))
        """), note="unscaled first"),
        Valid(_penalty("penalty = ops.sqrt(sum([ops.sum(g ** 2) for g in grads]))",
                       scaled="loss_fn(net(data), label)"), note="gradients of an unscaled loss"),
        Valid(_penalty("""
            grads = ops.clip_by_global_norm(loss_scaler.unscale(grads), 1.0)
            penalty = 0.0
        """), note="no penalty from gradients"),
        Valid("""
            import torch
            grads = torch.autograd.grad(scaler.scale(loss), params, create_graph=True)
            penalty = sum(g.pow(2).sum() for g in grads).sqrt()
        """, note="PyTorch"),
    )
    INVALID = (
        Invalid(_penalty("penalty = ops.sqrt(sum([ops.sum(g ** 2) for g in grads]))  # MSA402"),
                note="torch AMP gradient-penalty recipe ported without the unscale"),
        Invalid(_penalty("""
            gp = 0.0
            for g in grads:
                gp = gp + ops.norm(g)  # MSA402
        """, term="gp")),
    )

    def check_function(self, func: Union[cst.FunctionDef, cst.Module], owner: Optional[CellInfo]) -> None:
        analysis = GradScaleFlow(self.ctx, func, self.attr_callee(owner), scales_loss=cell_scales_loss(self.ctx, owner))
        flow_ = analysis.flow
        for name, definitions in flow_.defs.items():
            for d in definitions:
                if isinstance(d.node, cst.For):
                    continue
                if not _is_norm_like(d.value):
                    continue
                grads = next((g for g in sorted(set(flow_.names_in(d.value)))
                              if g != name and analysis.scaled_at(g, d.order) is not None), None)
                if grads is None:
                    continue
                if self._is_penalty(flow_, name, d):
                    self.report(d.node, f"`{name}` is computed from `{grads}`, gradients that still carry the "
                                f"loss scale; unscale them (loss_scaler.unscale) before the penalty")

    @staticmethod
    def _is_penalty(flow_, name: str, d) -> bool:
        lowered = name.lower()
        if "penalty" in lowered or lowered in ("gp", "grad_penalty", "gradient_penalty"):
            return True
        for other, definitions in flow_.defs.items():
            if "loss" not in other.lower():
                continue
            for later in definitions:
                if later.order > d.order and isinstance(later.value, cst.BinaryOperation) \
                        and name in flow_.names_in(later.value):
                    return True
        return False
