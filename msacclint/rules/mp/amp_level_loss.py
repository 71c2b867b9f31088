"""mp.01: Model(amp_level="O2"/"O3") given a network that computes its own loss, and O3
without loss_scale_manager/keep_batchnorm_fp32 (MSA405, MS-AMP-01)."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from msacclint.analysis.calls import argument, has_star_kwargs, literal
from msacclint.analysis.cells import cell_of_call
from msacclint.analysis.flow import flow
from msacclint.analysis.loss_scale import defined_value, model_argument
from msacclint.diagnostics import Severity
from msacclint.rules.base import Invalid, Valid
from msacclint.rules.examples import fill
from msacclint.rules.fixtures.mpwi import page
from msacclint.rules.fixtures.nets import cell, module
from msacclint.rules.function_rule import FunctionRule
from msacclint.rules.mp.amp_calls import BUILD_TRAIN, BUILD_TRAIN_SIGNATURE, MODEL, amp_level, o3_unguarded

LOSS_FUNCTIONS = frozenset({
    "mindspore.ops.cross_entropy", "mindspore.ops.binary_cross_entropy", "mindspore.ops.binary_cross_entropy_with_logits",
    "mindspore.ops.mse_loss", "mindspore.ops.nll_loss", "mindspore.ops.l1_loss", "mindspore.ops.smooth_l1_loss",
    "mindspore.ops.kl_div",
})


#: a network that computes its own loss (``{rest}``: what the file does with it)
_NET_WITH_LOSS = module("""
    import mindspore as ms
    from mindspore import nn
""", cell("NetWithLoss", init="""
    self.backbone = backbone
    self.loss = nn.CrossEntropyLoss()
""", construct="return self.loss(self.backbone(x), y)", params="backbone", args="x, y")) + "\n{rest}\n"


class AmpLevelLossInNetwork(FunctionRule):
    code = "MSA405"
    about_the_run = True
    name = "amp-level-loss-in-float16"
    checklist = "mp.01"
    severity = Severity.WARNING
    group = "suspicious"
    message = "Model(amp_level='O2'/'O3') casts a network that computes its own loss: the loss runs in float16"
    what = ("Reports a training `Model(net, amp_level='O2'/'O3')` (its `.train()` is called in the same "
            "function; evaluation-only Models are skipped) and `build_train_network` without `loss_fn` when "
            "`net` visibly contains its loss: an `nn.WithLossCell`, or a Cell of the file that calls a "
            "MindSpore loss in `construct`. Also reports `amp_level='O3'` with neither `loss_scale_manager` "
            "nor `keep_batchnorm_fp32` (MS-AMP-01). Networks the linter cannot see keep it silent.")
    why = ("O2/O3 cast the whole network to float16, not an op list as torch.autocast does. Given "
           "`loss_fn=`, Model adds the loss after casting the output back to float32; a loss inside the "
           "network is computed in float16 instead (softmax/log of large logits overflow, small losses "
           "round). O3 also runs BatchNorm in float16 and adds no loss scaling at all.")
    example = page(fill(_NET_WITH_LOSS, rest="model = ms.Model(NetWithLoss(net), optimizer=opt, amp_level='O2')"))
    use_instead = """
        model = ms.Model(net, loss_fn=nn.CrossEntropyLoss(), optimizer=opt, amp_level='O2')
    """
    fix_safety = "No automatic fix."
    versions = "Same O2/O3 presets in 1.x and 2.10 (read from amp._config_level)."
    VALID = (
        Valid(fill(_NET_WITH_LOSS, rest="""
            model = ms.Model(net, loss_fn=nn.CrossEntropyLoss(), optimizer=opt, amp_level='O2')
        """), note="idiomatic: loss_fn given"),
        Valid(fill(_NET_WITH_LOSS, rest="""
            model = ms.Model(NetWithLoss(net), optimizer=opt)
            model.train(5, ds)
        """), note="O0"),
        Valid("""
            import mindspore as ms
            model = ms.Model(net, loss, opt, metrics={'acc'}, amp_level='O3')
            acc = model.eval(ds)
        """, note="an evaluation-only Model"),
        Valid(fill(_NET_WITH_LOSS, rest="""
            model = ms.Model(build_net(), optimizer=opt, amp_level='O2')
            model.train(5, ds)
        """), note="a network the linter cannot see"),
        Valid(fill(_NET_WITH_LOSS, rest="""
            model = ms.Model(net, loss, opt, amp_level='O3', keep_batchnorm_fp32=False,
                             loss_scale_manager=ms.FixedLossScaleManager(1024, False))
        """), note="O3 with explicit choices"),
        Valid("""
            import torch
            with torch.autocast('cuda'):
                loss = net_with_loss(x, y)
        """, note="PyTorch"),
    )
    INVALID = (
        Invalid(fill(_NET_WITH_LOSS, rest="""
            model = ms.Model(NetWithLoss(net), optimizer=opt, amp_level='O2')  # MSA405
            model.train(5, ds)
        """)),
        Invalid("""
            import mindspore as ms
            from mindspore import nn
            net_with_loss = nn.WithLossCell(net, nn.CrossEntropyLoss())
            model = ms.Model(net_with_loss, optimizer=opt, amp_level='O3', keep_batchnorm_fp32=False)  # MSA405
            model.train(5, ds)
        """, note="a torch-style 'model computes its loss' port"),
        Invalid("""
            import mindspore as ms
            def main(ds):
                model = ms.Model(net, loss, opt, amp_level='O3')  # MSA405
                model.train(5, ds)
        """, message_contains="O3"),
    )

    def visit_Call(self, node: cst.Call) -> None:
        callee = self.ctx.resolve(node.func)
        if callee not in (MODEL, BUILD_TRAIN) or has_star_kwargs(node):
            return
        level = amp_level(node, callee)
        if level not in ("O2", "O3") or (callee == MODEL and not self._trains(node)):
            return
        problems = []
        if self._loss_inside(node, callee):
            problems.append(f"amp_level='{level}' casts the whole network to float16 and this network computes "
                            f"its own loss, which then runs in float16; pass the loss as loss_fn= instead")
        if o3_unguarded(node, callee):
            problems.append("amp_level='O3' also runs BatchNorm in float16 and adds no loss scaling; use 'O2', "
                            "or pass keep_batchnorm_fp32= and loss_scale_manager= explicitly")
        if problems:
            self.report(node, "; ".join(problems))

    def _trains(self, call: cst.Call) -> bool:
        """The Model is assigned to a name whose ``.train(...)`` is called in the same scope
        (an evaluation-only Model neither scales a loss nor trains BatchNorm)."""
        scope = self.scope if self.scope is not None else self.ctx.module
        fl = flow(self.ctx, scope)
        for name, definitions in fl.defs.items():
            if any(d.value is call for d in definitions):
                return bool(fl.method_calls("train", receiver=name))
        return False

    def _loss_inside(self, call: cst.Call, callee: str) -> bool:
        if callee == MODEL:
            loss = model_argument(call, "loss_fn")
            network = model_argument(call, "network")
        else:
            arg = argument(call, "loss_fn", BUILD_TRAIN_SIGNATURE)
            loss = arg.value if arg else None
            arg = argument(call, "network", BUILD_TRAIN_SIGNATURE)
            network = arg.value if arg else None
        if loss is not None and literal(loss) is not None:
            return False
        scope = self.scope
        before = flow(self.ctx, scope).order(call) if scope is not None else None
        value = defined_value(self.ctx, scope, network, before)
        if not isinstance(value, cst.Call):
            return False
        if self.ctx.resolve(value.func) == "mindspore.nn.WithLossCell":
            return True
        info = cell_of_call(self.ctx, value)
        return info is not None and _computes_loss(self.ctx, info)


def _is_loss(name: Optional[str]) -> bool:
    if not name:
        return False
    if name in LOSS_FUNCTIONS or name == "mindspore.nn.SoftmaxCrossEntropyWithLogits":
        return True
    return name.startswith("mindspore.nn.") and name.endswith("Loss")


def _computes_loss(ctx, info) -> bool:
    if "mindspore.nn.WithLossCell" in info.bases:
        return True
    if any(_is_loss(a.callee) and name in info.used_in_construct for name, a in info.attrs.items()):
        return True
    construct = info.construct
    if construct is None:
        return False
    return any(_is_loss(e.callee) for e in flow(ctx, construct).calls())
