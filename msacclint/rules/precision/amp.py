"""mp.01 / mp.02: float16 training and its loss scale.

MSA403 FixedLossScaleManager(x, drop_overflow_update=False) with an optimizer of the same
Model whose loss_scale is not x (MS-LS-01); MSA404 float16 training with no loss scaling
anywhere in the file; MSA405 Model(amp_level="O2"/"O3") given a network that computes its
own loss, and O3 without loss_scale_manager/keep_batchnorm_fp32 (MS-AMP-01).
"""

from __future__ import annotations

from typing import List, Optional, Tuple

import libcst as cst

from msacclint.analysis.calls import UNKNOWN, argument, has_star_kwargs, literal
from msacclint.analysis.cells import cells
from msacclint.analysis.facts import facts
from msacclint.analysis.flow import flow
from msacclint.analysis.loss_scale import GRAD_FUNCTIONS, defined_value, file_has_loss_scaling, model_argument
from msacclint.diagnostics import Severity
from msacclint.engine.rule import Invalid, Valid
from msacclint.rules.precision._scope import FunctionRule

MODEL = "mindspore.Model"
BUILD_TRAIN = "mindspore.build_train_network"
AUTO_MP = "mindspore.auto_mixed_precision"
FIXED_MANAGER = "mindspore.FixedLossScaleManager"
#: optimizers whose signature has loss_scale, with their parameter order
OPTIMIZER_SIGNATURES = {
    "mindspore.nn.Momentum": ("params", "learning_rate", "momentum", "weight_decay", "loss_scale"),
    "mindspore.nn.SGD": ("params", "learning_rate", "momentum", "dampening", "weight_decay", "nesterov",
                         "loss_scale"),
    "mindspore.nn.Adam": ("params", "learning_rate", "beta1", "beta2", "eps", "use_locking", "use_nesterov",
                          "weight_decay", "loss_scale"),
    "mindspore.nn.LazyAdam": ("params", "learning_rate", "beta1", "beta2", "eps", "use_locking", "use_nesterov",
                              "weight_decay", "loss_scale"),
    "mindspore.nn.RMSProp": ("params", "learning_rate", "decay", "momentum", "epsilon", "use_locking", "centered",
                             "loss_scale"),
    "mindspore.nn.Adagrad": ("params", "accum", "learning_rate", "update_slots", "loss_scale"),
}
LOSS_FUNCTIONS = frozenset({
    "mindspore.ops.cross_entropy", "mindspore.ops.binary_cross_entropy", "mindspore.ops.binary_cross_entropy_with_logits",
    "mindspore.ops.mse_loss", "mindspore.ops.nll_loss", "mindspore.ops.l1_loss", "mindspore.ops.smooth_l1_loss",
    "mindspore.ops.kl_div",
})
BUILD_TRAIN_SIGNATURE = ("network", "optimizer", "loss_fn", "level")
_CODE = lambda node: cst.Module([]).code_for_node(node)  # noqa: E731


def amp_level(call: cst.Call, callee: str) -> Optional[str]:
    """The literal amp level of a Model / build_train_network / auto_mixed_precision call."""
    if callee == MODEL:
        value = model_argument(call, "amp_level")
    elif callee == BUILD_TRAIN:
        arg = argument(call, "level", BUILD_TRAIN_SIGNATURE)
        value = arg.value if arg is not None else None
    elif callee == AUTO_MP:
        arg = argument(call, "amp_level", ("network", "amp_level"))
        value = arg.value if arg is not None else None
    else:
        return None
    if value is None:
        return "O0"
    level = literal(value)
    return level if isinstance(level, str) else None


def _keyword(call: cst.Call, name: str) -> Optional[cst.Arg]:
    return next((a for a in call.args if a.keyword is not None and a.keyword.value == name), None)


def o3_unguarded(call: cst.Call, callee: str) -> bool:
    """O3 (float16 BatchNorm, no loss scaling) without loss_scale_manager nor
    keep_batchnorm_fp32: the MS-AMP-01 finding of MSA405."""
    return (amp_level(call, callee) == "O3" and not has_star_kwargs(call)
            and _keyword(call, "loss_scale_manager") is None and _keyword(call, "keep_batchnorm_fp32") is None)


_LS_HDR = "import mindspore as ms\nfrom mindspore import nn\nfrom mindspore.train import Model, FixedLossScaleManager\n\n"


class FixedLossScaleMismatch(FunctionRule):
    code = "MSA403"
    name = "fixed-loss-scale-optimizer-mismatch"
    checklist = "mp.02"
    severity = Severity.ERROR
    message = ("FixedLossScaleManager(drop_overflow_update=False) needs the optimizer's loss_scale set to the "
               "same value")
    what = ("Reports `Model(..., optimizer=opt, loss_scale_manager=FixedLossScaleManager(x, "
            "drop_overflow_update=False))` when `opt` is a MindSpore optimizer whose `loss_scale` (1.0 when "
            "not given) is not x. Values from config objects are compared as written: "
            "`loss_scale=config.loss_scale` on both sides is fine; anything the linter cannot compare "
            "keeps it silent.")
    why = ("With drop_overflow_update=False the manager scales the loss by x and leaves the division to "
           "the optimizer's own loss_scale. Left at 1.0, every update is x times too large (verified on "
           "2.10: a weight that should move to 0.98 jumps to -1.56 with x=128): divergence or NaN.")
    example = ("manager = FixedLossScaleManager(1024, drop_overflow_update=False)\n"
               "opt = nn.Momentum(net.trainable_params(), 0.01, 0.9)\n"
               "model = Model(net, loss, opt, loss_scale_manager=manager)\n")
    use_instead = ("manager = FixedLossScaleManager(1024, drop_overflow_update=False)\n"
                   "opt = nn.Momentum(net.trainable_params(), 0.01, 0.9, loss_scale=1024)\n"
                   "model = Model(net, loss, opt, loss_scale_manager=manager)\n")
    fix_safety = "No automatic fix."
    versions = "Documented in the FixedLossScaleManager docstring since 1.x; verified on 2.10."
    VALID = (
        Valid(_LS_HDR + "manager = FixedLossScaleManager(1024, drop_overflow_update=False)\n"
              "opt = nn.Momentum(net.trainable_params(), 0.01, 0.9, loss_scale=1024)\n"
              "model = Model(net, loss, opt, loss_scale_manager=manager)\n", note="idiomatic"),
        Valid(_LS_HDR + "def main(config):\n"
              "    manager = FixedLossScaleManager(config.loss_scale, drop_overflow_update=False)\n"
              "    opt = nn.Momentum(net.trainable_params(), 0.01, 0.9, loss_scale=config.loss_scale)\n"
              "    model = Model(net, loss, optimizer=opt, loss_scale_manager=manager)\n", note="model-zoo form"),
        Valid(_LS_HDR + "manager = FixedLossScaleManager(1024)\nopt = nn.Momentum(net.trainable_params(), 0.01, 0.9)\n"
              "model = Model(net, loss, opt, loss_scale_manager=manager)\n",
              note="drop_overflow_update=True: the manager unscales itself"),
        Valid(_LS_HDR + "manager = ms.DynamicLossScaleManager(2**16)\nopt = nn.Momentum(net.trainable_params(), 0.01, 0.9)\n"
              "model = Model(net, loss, opt, loss_scale_manager=manager)\n"),
        Valid(_LS_HDR + "manager = FixedLossScaleManager(1024, drop_overflow_update=False)\n"
              "opt = create_optimizer(net, loss_scale=1024)\n"
              "model = Model(net, loss, opt, loss_scale_manager=manager)\n", note="optimizer the linter cannot see"),
        Valid(_LS_HDR + "def main(flag):\n    manager = FixedLossScaleManager(128, drop_overflow_update=False)\n"
              "    if flag:\n        opt = nn.Momentum(params, 0.01, 0.9, loss_scale=128)\n"
              "    else:\n        opt = nn.Momentum(params, 0.01, 0.9, 0.0, 128)\n"
              "    model = Model(net, loss, opt, loss_scale_manager=manager)\n", note="two definitions: silent"),
    )
    INVALID = (
        Invalid(_LS_HDR + "manager = FixedLossScaleManager(1024, drop_overflow_update=False)\n"
                "opt = nn.Momentum(net.trainable_params(), 0.01, 0.9)\n"
                "model = Model(net, loss, opt, loss_scale_manager=manager)\n", line=7,
                note="a port of torch's GradScaler, which unscales by itself"),
        Invalid(_LS_HDR + "def train(config):\n    opt = nn.SGD(net.trainable_params(), 0.1, loss_scale=128)\n"
                "    model = Model(net, loss_fn=loss, optimizer=opt,\n"
                "                  loss_scale_manager=FixedLossScaleManager(1024, drop_overflow_update=False))\n",
                line=7),
        Invalid(_LS_HDR + "def train(config):\n"
                "    manager = FixedLossScaleManager(config.loss_scale, drop_overflow_update=False)\n"
                "    opt = nn.Adam(net.trainable_params(), 1e-3)\n"
                "    model = Model(net, loss, opt, loss_scale_manager=manager)\n", line=8),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if self.ctx.resolve(node.func) != MODEL or has_star_kwargs(node):
            return
        scope = self.scope
        before = flow(self.ctx, scope).order(node) if scope is not None else None
        manager_arg = _keyword(node, "loss_scale_manager")
        manager = defined_value(self.ctx, scope, manager_arg.value if manager_arg else None, before)
        if not isinstance(manager, cst.Call) or self.ctx.resolve(manager.func) != FIXED_MANAGER \
                or has_star_kwargs(manager):
            return
        signature = ("loss_scale", "drop_overflow_update")
        drop = argument(manager, "drop_overflow_update", signature)
        if drop is None or literal(drop.value) is not False:
            return
        scale_arg = argument(manager, "loss_scale", signature)
        optimizer = defined_value(self.ctx, scope, model_argument(node, "optimizer"), before)
        if not isinstance(optimizer, cst.Call) or has_star_kwargs(optimizer):
            return
        opt_name = self.ctx.resolve(optimizer.func)
        if opt_name not in OPTIMIZER_SIGNATURES:
            return
        opt_arg = argument(optimizer, "loss_scale", OPTIMIZER_SIGNATURES[opt_name])
        verdict = _compare(scale_arg.value if scale_arg else None, opt_arg.value if opt_arg else None)
        if verdict is None:
            return
        x = _CODE(scale_arg.value) if scale_arg else "128.0"
        y = _CODE(opt_arg.value) if opt_arg else "1.0 (default)"
        self.report(node, f"FixedLossScaleManager({x}, drop_overflow_update=False) scales the loss by {x}, but "
                    f"the optimizer {opt_name.rsplit('.', 1)[-1]} divides by loss_scale={y}: updates are "
                    f"{x}/{y.split(' ')[0]} times too large; give the optimizer loss_scale={x}")


def _compare(manager: Optional[cst.BaseExpression], optimizer: Optional[cst.BaseExpression]) -> Optional[bool]:
    """True when they certainly differ, None when equal or undecidable."""
    x = 128.0 if manager is None else literal(manager)
    y = 1.0 if optimizer is None else literal(optimizer)
    if x is not UNKNOWN and y is not UNKNOWN:
        return True if (isinstance(x, (int, float)) and isinstance(y, (int, float)) and float(x) != float(y)) \
            else None
    if manager is not None and optimizer is not None and _CODE(manager) == _CODE(optimizer):
        return None
    if x is UNKNOWN and optimizer is None:
        return True  # a manager value against an optimizer left at 1.0
    return None
