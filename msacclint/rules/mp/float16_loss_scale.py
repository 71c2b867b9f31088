"""mp.02: float16 training with no loss scaling anywhere in the file (MSA404)."""

from __future__ import annotations

from functools import partial
from typing import List, Tuple

import libcst as cst

from msacclint.analysis.calls import has_star_kwargs
from msacclint.analysis.facts import facts
from msacclint.analysis.loss_scale import GRAD_FUNCTIONS, file_has_loss_scaling
from msacclint.analysis.training import training
from msacclint.diagnostics import Severity
from msacclint.rules.base import Invalid, Valid
from msacclint.rules.examples import fill
from msacclint.rules.fixtures.mpwi import page
from msacclint.rules.function_rule import FunctionRule
from msacclint.rules.mp.amp_calls import AUTO_MP, BUILD_TRAIN, MODEL, amp_level, o3_unguarded


def _on_self(node: cst.BaseExpression) -> bool:
    """``self.x...`` or a deep path (``net.a.b.matmul``): a per-layer cast, not the network.
    ``net`` and ``net.backbone`` count as the network."""
    depth = 0
    while isinstance(node, (cst.Attribute, cst.Subscript)):
        node = node.value
        depth += 1
    return not isinstance(node, cst.Name) or node.value == "self" or depth > 1


def _constructor_network(init: cst.FunctionDef, owner, node: cst.BaseExpression) -> bool:
    """``backbone`` or ``self.backbone`` (given ``self.backbone = backbone``) where ``backbone``
    is a parameter of ``__init__``: the network the Cell wraps, not a layer it builds."""
    params = {p.name.value for p in (*init.params.posonly_params, *init.params.params, *init.params.kwonly_params)}
    params.discard("self")
    if isinstance(node, cst.Name):
        return node.value in params
    if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self":
        attr = owner.attrs.get(node.attr.value)
        return attr is not None and isinstance(attr.value, cst.Name) and attr.value.value in params
    return False


TRAINING_APIS = GRAD_FUNCTIONS | {"mindspore.ops.GradOperation", "mindspore.nn.TrainOneStepCell", BUILD_TRAIN}


def _preset_scales(ctx) -> bool:
    """A Model/build_train_network at O2 (whose preset adds dynamic loss scaling)."""
    for name in (MODEL, BUILD_TRAIN):
        for call in facts(ctx).called(name):
            if amp_level(call, name) == "O2":
                return True
    return False


#: a loss cell that casts its backbone to float16 (``{mark}``: the marker of a finding
#: there), and what else the file holds (``{rest}``)
_FLOAT16_LOSS_CELL = """
    import mindspore as ms
    from mindspore import nn
    from mindspore.train import Model

    class NetWithLoss(nn.Cell):
        def __init__(self, backbone, loss_fn):
            super().__init__()
            self.backbone = backbone.to_float(ms.float16){mark}
            self.loss_fn = loss_fn

        def construct(self, x, y):
            return self.loss_fn(self.backbone(x), y)

    {rest}
"""


_float16_loss_cell = partial(fill, _FLOAT16_LOSS_CELL, mark="")


def _trained_by(model: str) -> str:
    """A ``main`` that trains the loss cell with the ``model`` it builds."""
    return fill("""
        def main(ds):
            train_net = NetWithLoss(resnet50(), nn.CrossEntropyLoss())
            opt = nn.SGD(train_net.trainable_params(), 0.1, 0.9)
            {model}
            model.train(10, ds)
    """, model=model)


#: a functional training loop; ``{cast}`` is what the script does to the network first
_FUNCTIONAL_LOOP = """
    import mindspore as ms
    from mindspore import nn

    {cast}
    grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters)
    for data, label in dataset:
        loss, grads = grad_fn(data, label)
        optimizer(grads)
"""


class Float16WithoutLossScale(FunctionRule):
    code = "MSA404"
    about_the_run = True
    name = "float16-without-loss-scale"
    checklist = "mp.02"
    severity = Severity.WARNING
    group = "suspicious"
    uses_facts = True
    message = "float16 training with no loss scaling anywhere in the file"
    what = ("Reports the float16 casts of a file that trains (`value_and_grad`/`grad`/`GradOperation`, "
            "`TrainOneStepCell`, `build_train_network` or `Model.train`) when nothing in the file scales the "
            "loss: `net.to_float(mstype.float16)`, the network a Cell of the file is given cast in its "
            "`__init__` (`self.backbone = backbone.to_float(mstype.float16)`) when the file trains that Cell "
            "(a loss cell trained elsewhere may be scaled there), `auto_mixed_precision(net, 'O2'/'O3')`, and "
            "`Model`/`build_train_network` at O3 with `keep_batchnorm_fp32` (without it, MSA405 reports the "
            "call). `Model(amp_level='O2')` is never reported: its preset adds a DynamicLossScaleManager. Any "
            "loss-scale API, `loss_scale`/`scale_sense` argument or name in the file keeps it silent.")
    why = ("float16 cannot represent gradients below about 6e-8; without a loss scale the small ones "
           "flush to zero and training stalls or diverges silently. PyTorch users get the scale from "
           "`GradScaler`; `auto_mixed_precision` and `to_float` only cast, they never scale.")
    example = page(fill(_FUNCTIONAL_LOOP, cast="net = ms.amp.auto_mixed_precision(net, 'O2')  # MSA404"))
    use_instead = page(fill(_FUNCTIONAL_LOOP, cast="""
        net = ms.amp.auto_mixed_precision(net, 'O2')
        loss_scaler = ms.amp.DynamicLossScaler(2**16, 2, 1000)
        # forward_fn returns loss_scaler.scale(loss); the step unscales the gradients
    """))
    fix_safety = "No automatic fix."
    versions = "All MindSpore versions; the O2/O3 presets are read from 2.10's amp._config_level."
    VALID = (
        Valid(fill(_FUNCTIONAL_LOOP, cast="""
            net = ms.amp.auto_mixed_precision(net, 'O2')
            loss_scaler = ms.amp.DynamicLossScaler(1024, 2, 1000)
        """), note="idiomatic functional AMP"),
        Valid("""
            import mindspore as ms
            from mindspore import nn

            net.to_float(ms.float16)
            model = ms.Model(net, loss, opt, amp_level='O2')
            model.train(10, ds)
        """, note="O2's preset scales the loss"),
        Valid(fill(_FUNCTIONAL_LOOP, cast="net.to_float(ms.float32)"), note="float32"),
        Valid("""
            import mindspore as ms
            from mindspore import nn

            net.to_float(ms.float16)
            model = ms.Model(net)
            model.predict(x)
        """, note="inference only"),
        Valid("""
            import torch
            model = model.half()
            with torch.autocast('cuda'):
                loss = model(x)
        """, note="PyTorch"),
        Valid(fill(_FUNCTIONAL_LOOP, cast="net = ms.amp.auto_mixed_precision(net, 'O1')"), note="O1 keeps fp32 weights"),
        Valid(fill(_FUNCTIONAL_LOOP, cast="""
            class Head(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.dense = nn.Dense(8, 8)
                    self.dense.to_float(ms.float16)
        """), note="one layer cast inside a Cell: an op-level choice, not float16 training"),
        Valid(fill(_FUNCTIONAL_LOOP, cast="net.encoder.cell.matmul.to_float(ms.float16)"), note="one operation deep inside the network"),
        Valid(_float16_loss_cell(rest=_trained_by("""
            manager = ms.FixedLossScaleManager(1024)
            model = Model(train_net, optimizer=opt, loss_scale_manager=manager)
        """)), note="the loss cell's backbone in float16, trained with a loss scale manager"),
        Valid(_float16_loss_cell(rest=_trained_by("""
            model = Model(train_net, optimizer=opt,
                          loss_scale_manager=ms.DynamicLossScaleManager(2**16, 2, 1000))
        """)), note="DynamicLossScaleManager"),
        Valid(_float16_loss_cell(rest="""
            class TrainStep(nn.Cell):
                def __init__(self, network, optimizer):
                    super().__init__()
                    self.network = network
                    self.optimizer = optimizer
                    self.grad = ms.ops.GradOperation(get_by_list=True)
        """), note="a loss cell module that casts the backbone but is trained by another file, which may scale"),
        Valid("""
            import mindspore as ms
            from mindspore import nn

            class Head(nn.Cell):
                def __init__(self, channels):
                    super().__init__()
                    self.dense = nn.Dense(channels, 8).to_float(ms.float16)

                def construct(self, x):
                    return self.dense(x)

            net = Head(8)
            train_net = nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt)
        """, note="a layer the Cell builds itself, cast in a trained Cell: an op-level choice"),
    )
    INVALID = (
        Invalid(fill(_FUNCTIONAL_LOOP, cast="net = ms.amp.auto_mixed_precision(net, 'O2')  # MSA404"), note="torch.autocast ported without a GradScaler"),
        Invalid("""
            import mindspore as ms
            from mindspore import nn

            from mindspore import dtype as mstype
            net.to_float(mstype.float16)  # MSA404
            train_net = nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt)
        """),
        Invalid("""
            import mindspore as ms
            from mindspore import nn

            model = ms.Model(net, loss, opt, amp_level='O3', keep_batchnorm_fp32=True)  # MSA404
            model.train(10, ds)
        """),
        Invalid(_float16_loss_cell(rest=_trained_by("model = Model(train_net, optimizer=opt)"), mark="  # MSA404"),
                note="model.half() in a loss wrapper ported without the GradScaler"),
        Invalid("""
            import mindspore as ms
            from mindspore import nn

            class WithLoss(nn.Cell):
                def __init__(self, network, criterion):
                    super().__init__()
                    self.network = network
                    self.network.to_float(ms.float16)  # MSA404
                    self.criterion = criterion

                def construct(self, x, y):
                    return self.criterion(self.network(x), y)

            train_net = nn.TrainOneStepCell(WithLoss(build_net(), nn.MSELoss()), opt)
        """, note="the wrapped network cast through its attribute, trained by TrainOneStepCell"),
    )

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self.casts: List[cst.Call] = []
        #: casts of the network a Cell is given (``backbone.to_float(...)`` in ``__init__``),
        #: with the name of that Cell: float16 training only when this file trains the Cell
        self.wrapped_casts: List[Tuple[cst.Call, str]] = []

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value == "to_float" and node.args:
            if self.ctx.resolve(node.args[0].value) != "mindspore.float16":
                return
            if not self._classes:
                # a whole network cast by the script
                if not _on_self(func.value):
                    self.casts.append(node)
                return
            # inside a Cell: ``self.dense.to_float(...)`` is a per-layer (O1-style) choice, but
            # the network handed to the Cell's constructor is the whole backbone
            owner = self._classes[-1]
            if owner is not None and self.scope is not None and self.scope is owner.methods.get("__init__") \
                    and _constructor_network(self.scope, owner, func.value):
                self.wrapped_casts.append((node, owner.name))
            return
        callee = self.ctx.resolve(func)
        if callee == AUTO_MP and amp_level(node, callee) in ("O2", "O3"):
            self.casts.append(node)
        elif callee in (MODEL, BUILD_TRAIN) and amp_level(node, callee) == "O3" \
                and not o3_unguarded(node, callee) and not has_star_kwargs(node):
            self.casts.append(node)

    def finish(self) -> None:
        if not (self.casts or self.wrapped_casts) or file_has_loss_scaling(self.ctx) or _preset_scales(self.ctx):
            return
        found = facts(self.ctx)
        trains = found.calls_any(*TRAINING_APIS) or (found.calls_any(MODEL) and bool(found.method_calls("train")))
        if not trains:
            return
        casts = list(self.casts)
        if self.wrapped_casts:
            trained = training(self.ctx).trained_classes()
            casts += [call for call, owner in self.wrapped_casts if owner in trained]
        for call in casts:
            self.report(call, "float16 training with no loss scaling anywhere in this file: small gradients "
                        "underflow to zero; add a loss scaler (DynamicLossScaler / a LossScaleManager) or "
                        "use Model(amp_level='O2'), whose preset scales the loss")

