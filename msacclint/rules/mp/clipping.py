"""mp.03 / mp.04: gradients used while still multiplied by the loss scale.

MSA401 clipping of scaled gradients, MSA402 a gradient penalty computed from them. Both
ask msacclint.analysis.loss_scale where the gradients at the point of use came from;
any step of unknown meaning between production and use (an unscale, a ``_grad_scale``
hyper_map, a helper) makes the answer "unknown" and the rules silent.
"""

from __future__ import annotations

from typing import Optional, Union

import libcst as cst


from msacclint.analysis.cells import CellInfo
from msacclint.analysis.flow import expr_facts
from msacclint.analysis.loss_scale import GradScaleFlow, cell_scales_loss
from msacclint.diagnostics import Severity
from msacclint.engine.rule import Invalid, Valid
from msacclint.rules.function_rule import FunctionRule

_CELL_HDR = ("import mindspore as ms\nfrom mindspore import nn, ops\nimport mindspore.ops.functional as F\n"
             "from mindspore.ops import composite as C\n\n"
             "_grad_scale = C.MultitypeFuncGraph('grad_scale')\n\n"
             "@_grad_scale.register('Tensor', 'Tensor')\n"
             "def tensor_grad_scale(scale, grad):\n"
             "    return grad * ops.reciprocal(scale)\n\n\n"
             "class TrainStep(nn.TrainOneStepWithLossScaleCell):\n"
             "    def construct(self, *inputs):\n"
             "        weights = self.weights\n"
             "        loss = self.network(*inputs)\n"
             "        scaling_sens = self.scale_sense\n"
             "        status, scaling_sens = self.start_overflow_check(loss, scaling_sens)\n"
             "        scaling_sens_filled = ops.ones_like(loss) * F.cast(scaling_sens, F.dtype(loss))\n"
             "        grads = self.grad(self.network, weights)(*inputs, scaling_sens_filled)\n")
_CELL_TAIL = ("        cond = self.get_overflow_status(status, grads)\n"
              "        overflow = self.process_loss_scale(cond)\n"
              "        if not overflow:\n"
              "            loss = F.depend(loss, self.optimizer(grads))\n"
              "        return loss, cond, scaling_sens\n")
_UNSCALE = "        grads = self.hyper_map(F.partial(_grad_scale, scaling_sens), grads)\n"
_CLIP = "        grads = ops.clip_by_global_norm(grads, 1.0)\n"
# line of the clip when it directly follows the gradient line of _CELL_HDR
_CLIP_LINE = _CELL_HDR.count("\n") + 1

_FUNC_HDR = ("import mindspore as ms\nfrom mindspore import ops\nfrom mindspore.amp import DynamicLossScaler\n\n"
             "loss_scaler = DynamicLossScaler(scale_value=2**16, scale_factor=2, scale_window=50)\n\n"
             "def forward_fn(data, label):\n"
             "    logits = net(data)\n"
             "    loss = loss_fn(logits, label)\n"
             "    return loss_scaler.scale(loss), logits\n\n"
             "grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True)\n\n"
             "def train_step(data, label):\n"
             "    (loss, _), grads = grad_fn(data, label)\n")
_FUNC_TAIL = "    optimizer(grads)\n    return loss\n"


class ClipScaledGradients(FunctionRule):
    code = "MSA401"
    name = "clip-scaled-gradients"
    checklist = "mp.03"
    severity = Severity.ERROR
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
    example = ("(loss, _), grads = grad_fn(data, label)\n"
               "grads = ops.clip_by_global_norm(grads, 1.0)   # still scaled\n"
               "grads = loss_scaler.unscale(grads)\n")
    use_instead = ("(loss, _), grads = grad_fn(data, label)\n"
                   "grads = loss_scaler.unscale(grads)\n"
                   "grads = ops.clip_by_global_norm(grads, 1.0)\n")
    fix_safety = "No automatic fix: moving the clip changes which value is clipped; reorder it by hand."
    versions = "All MindSpore versions: loss scaling has always been explicit."
    VALID = (
        Valid(_CELL_HDR + _UNSCALE + _CLIP + _CELL_TAIL, note="model-zoo order: unscale, then clip"),
        Valid(_FUNC_HDR + "    grads = loss_scaler.unscale(grads)\n    grads = ops.clip_by_global_norm(grads, 1.0)\n"
              + _FUNC_TAIL, note="functional loop, unscale then clip"),
        Valid(_CELL_HDR.replace("TrainOneStepWithLossScaleCell", "TrainOneStepCell")
              .replace("scaling_sens_filled)", "self.sens)").replace(
                  "        scaling_sens_filled = ops.ones_like(loss) * F.cast(scaling_sens, F.dtype(loss))\n", "")
              + _CLIP + "        return loss\n", note="sens of 1.0: nothing is scaled"),
        Valid(_CELL_HDR + "        grads = self.down_scale_grads(scaling_sens, grads)\n" + _CLIP + _CELL_TAIL,
              note="an unscale helper the linter cannot read: silent"),
        Valid(_FUNC_HDR.replace("loss_scaler.scale(loss)", "loss") + _CLIP.replace("        ", "    ")
              + _FUNC_TAIL, note="no loss scaling"),
        Valid("import torch\nscaler.scale(loss).backward()\nscaler.unscale_(optimizer)\n"
              "torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n", note="PyTorch"),
        Valid(_CELL_HDR + "        grads = self.grad_reducer(grads)\n" + _UNSCALE
              + "        grads = self.hyper_map(F.partial(clip_grad, 1, 1.0), grads)\n" + _CELL_TAIL,
              note="BERT-style: reduce, unscale, then clip with a hyper_map"),
        Valid("from mindspore import nn, ops\n\nclass StepWithSense(nn.Cell):\n"
              "    def __init__(self, network, optimizer):\n        super().__init__()\n"
              "        self.network, self.optimizer = network, optimizer\n"
              "        self.grad = ops.GradOperation(get_by_list=True, sens_param=True)\n\n"
              "    def construct(self, *inputs):\n"
              "        grads = self.grad(self.network, self.optimizer.parameters)(*inputs, self.scale_sense)\n"
              "        grads = ops.clip_by_global_norm(grads, 0.1)\n        return self.optimizer(grads)\n",
              note="a sens that is an upstream gradient (DETR-style), no overflow check: not a loss scale"),
        Valid("from mindspore import ops\n\ndef attend(score_map, softmax_scale, low):\n"
              "    attention = ops.Softmax(axis=1)(score_map * softmax_scale)\n"
              "    return ops.clip_by_value(attention, low, attention.max())\n",
              note="clipping something that is not a gradient"),
    )
    INVALID = (
        Invalid(_FUNC_HDR + "    grads = ops.clip_by_global_norm(grads, 1.0)\n    grads = loss_scaler.unscale(grads)\n"
                + _FUNC_TAIL, line=_FUNC_HDR.count("\n") + 1,
                note="a port of torch's scaler.scale(loss).backward(); clip_grad_norm_ without unscale_"),
        Invalid(_CELL_HDR + _CLIP + _UNSCALE + _CELL_TAIL, line=_CLIP_LINE),
        Invalid(_FUNC_HDR.split("def train_step")[0] + "for data, label in dataset:\n"
                "    (loss, _), grads = grad_fn(data, label)\n"
                "    grads = ops.clip_by_value(grads, -1.0, 1.0)\n"
                "    optimizer(loss_scaler.unscale(grads))\n",
                line=_FUNC_HDR.split("def train_step")[0].count("\n") + 3, note="a script's top-level loop"),
        Invalid(_CELL_HDR + "        grads = self.grad_reducer(grads)\n"
                "        grads = self.hyper_map(F.partial(clip_grad, 1, 1.0), grads)\n" + _UNSCALE + _CELL_TAIL,
                line=_CLIP_LINE + 1),
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


_NORM_WORDS = ("norm", "square", "pow", "l2_loss")
_PENALTY_HDR = ("import mindspore as ms\nfrom mindspore import ops\nfrom mindspore.amp import StaticLossScaler\n\n"
                "loss_scaler = StaticLossScaler(1024.0)\n\n"
                "def scaled_loss_fn(data, label):\n"
                "    return loss_scaler.scale(loss_fn(net(data), label))\n\n"
                "param_grad_fn = ms.grad(scaled_loss_fn, None, net.trainable_params())\n\n"
                "def forward_fn(data, label):\n"
                "    grads = param_grad_fn(data, label)\n")
_PENALTY_TAIL = ("    loss = loss_fn(net(data), label) + 0.1 * penalty\n"
                 "    return loss_scaler.scale(loss)\n")


def _is_norm_like(node: cst.CSTNode) -> bool:
    facts = expr_facts(node)
    return facts.has_power or any(w in name.lower() for name in facts.call_names for w in _NORM_WORDS)


class PenaltyFromScaledGradients(FunctionRule):
    code = "MSA402"
    name = "penalty-from-scaled-gradients"
    checklist = "mp.04"
    severity = Severity.WARNING
    message = "a gradient penalty is computed from gradients that still carry the loss scale"
    what = ("Reports a gradient norm or square (`ops.norm`, `ops.square`, `** 2`, ...) computed from "
            "gradients of a loss-scaled forward function (one that returns `loss_scaler.scale(loss)`, or a "
            "scale-sensitivity gradient call) with no unscale in between, when the result is added to a loss "
            "or assigned to a name that says penalty.")
    why = ("The gradients are multiplied by the loss scale, so the penalty is scale² times too large (and "
           "changes whenever a dynamic scale changes): the penalty term swamps the task loss. PyTorch's AMP "
           "recipe for gradient penalties divides the scaled gradients by the scale first; a port that "
           "skips that step trains a different objective without any error.")
    example = ("grads = param_grad_fn(data, label)          # of loss_scaler.scale(loss)\n"
               "penalty = ops.sqrt(sum(ops.sum(g ** 2) for g in grads))\n")
    use_instead = ("grads = loss_scaler.unscale(param_grad_fn(data, label))\n"
                   "penalty = ops.sqrt(sum(ops.sum(g ** 2) for g in grads))\n")
    fix_safety = "No automatic fix: insert the unscale by hand."
    versions = "All MindSpore versions with mindspore.amp loss scalers (2.0+)."
    VALID = (
        Valid(_PENALTY_HDR + "    grads = loss_scaler.unscale(grads)\n"
              "    penalty = ops.sqrt(sum([ops.sum(g ** 2) for g in grads]))\n" + _PENALTY_TAIL,
              note="unscaled first"),
        Valid(_PENALTY_HDR.replace("loss_scaler.scale(loss_fn(net(data), label))", "loss_fn(net(data), label)")
              + "    penalty = ops.sqrt(sum([ops.sum(g ** 2) for g in grads]))\n" + _PENALTY_TAIL,
              note="gradients of an unscaled loss"),
        Valid(_PENALTY_HDR + "    grads = ops.clip_by_global_norm(loss_scaler.unscale(grads), 1.0)\n"
              + "    penalty = 0.0\n" + _PENALTY_TAIL, note="no penalty from gradients"),
        Valid("import torch\ngrads = torch.autograd.grad(scaler.scale(loss), params, create_graph=True)\n"
              "penalty = sum(g.pow(2).sum() for g in grads).sqrt()\n", note="PyTorch"),
    )
    INVALID = (
        Invalid(_PENALTY_HDR + "    penalty = ops.sqrt(sum([ops.sum(g ** 2) for g in grads]))\n" + _PENALTY_TAIL,
                line=_PENALTY_HDR.count("\n") + 1, note="torch AMP gradient-penalty recipe ported without the unscale"),
        Invalid(_PENALTY_HDR + "    gp = 0.0\n    for g in grads:\n        gp = gp + ops.norm(g)\n"
                "    loss = loss_fn(net(data), label) + gp\n    return loss_scaler.scale(loss)\n"),
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
