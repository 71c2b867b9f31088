"""mp.01 / mp.02: float16 training and its loss scale.

MSA403 FixedLossScaleManager(x, drop_overflow_update=False) with an optimizer of the same
Model whose loss_scale is not x (MS-LS-01); MSA404 float16 training with no loss scaling
anywhere in the file; MSA405 Model(amp_level="O2"/"O3") given a network that computes its
own loss, and O3 without loss_scale_manager/keep_batchnorm_fp32 (MS-AMP-01).
"""

from __future__ import annotations

from typing import Any, List, Optional, Tuple

import libcst as cst

from msacclint.analysis.calls import UNKNOWN, argument, has_star_kwargs, literal
from msacclint.analysis.cells import cell_of_call
from msacclint.analysis.facts import facts
from msacclint.analysis.flow import flow
from msacclint.analysis.loss_scale import GRAD_FUNCTIONS, defined_value, file_has_loss_scaling, model_argument
from msacclint.analysis.training import training
from msacclint.diagnostics import Severity
from msacclint.project.values import Value
from msacclint.rules.base import Invalid, Valid
from msacclint.rules.examples import fill, model_zoo_config
from msacclint.rules.function_rule import FunctionRule

MODEL = "mindspore.Model"
BUILD_TRAIN = "mindspore.build_train_network"
AUTO_MP = "mindspore.auto_mixed_precision"
FIXED_MANAGER = "mindspore.FixedLossScaleManager"
LOSS_SCALE_STEP = "mindspore.nn.TrainOneStepWithLossScaleCell"
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
#: a model-zoo train.py whose optimizer's loss_scale is the configured one ({mark}: the
#: marker of a finding on the optimizer)
_SCALED_OPTIMIZER = """import mindspore as ms
from mindspore import nn
from src.model_utils.config import config


def train(net, loss, dataset):
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9, loss_scale=config.loss_scale){mark}
    model = ms.Model(net, loss_fn=loss, optimizer=opt)
    model.train(90, dataset)
"""
BUILD_TRAIN_SIGNATURE = ("network", "optimizer", "loss_fn", "level")
_CODE = lambda node: cst.Module([]).code_for_node(node)  # noqa: E731


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


ADAPTIVE = frozenset({"mindspore.nn.Adam", "mindspore.nn.LazyAdam", "mindspore.nn.RMSProp", "mindspore.nn.Adagrad"})


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


#: a loss scale fixed in one function of src/ and the optimizer built in another
_SPLIT_SCALE = {
    "src/__init__.py": "",
    "src/scale.py": """
        from mindspore.amp import FixedLossScaleManager

        def get_loss_scale_manager(cfg):
            return FixedLossScaleManager(1024, drop_overflow_update={drop})
    """,
    "src/optim.py": """
        import mindspore.nn as nn

        def build_optimizer(net, lr, loss_scale=1.0):
            return nn.Momentum(net.trainable_params(), lr, 0.9, loss_scale=loss_scale)
    """,
    "train.py": """
        from mindspore import Model
        from src.optim import build_optimizer
        from src.scale import get_loss_scale_manager

        def main(cfg, net, loss, data):
            manager = get_loss_scale_manager(cfg)
            opt = build_optimizer(net, 0.1{scale})
            model = Model(net, loss, opt, loss_scale_manager=manager){mark}
            model.train(10, data)

        if __name__ == "__main__":
            main(None, None, None, None)
    """,
}


def _split_scale(drop: str = "False", scale: str = "", mark: str = "") -> dict:
    return {path: fill(text, drop=drop, scale=scale, mark=mark) for path, text in _SPLIT_SCALE.items()}


class FixedLossScaleMismatch(FunctionRule):
    code = "MSA403"
    about_the_run = True
    name = "fixed-loss-scale-optimizer-mismatch"
    checklist = "mp.02"
    severity = Severity.ERROR
    evidence = ("Both values are resolved: the manager's scale with `drop_overflow_update=False` and the optimizer's "
                '`loss_scale` (1.0 when absent) are literals or the same expression, and they differ; a value it '
                'cannot read keeps it silent. With no manager at all: the Model\'s amp level is absent, O0 or O1 '
                '(no preset manager) and the optimizer\'s `loss_scale` is a literal or a configuration value (the '
                'project\'s YAML or module constants, quoted with file and line) other than 1 in every alternative.')
    message = ("FixedLossScaleManager(drop_overflow_update=False) needs the optimizer's loss_scale set to the "
               "same value")
    what = ("Reports `Model(..., optimizer=opt, loss_scale_manager=FixedLossScaleManager(x, "
            "drop_overflow_update=False))` when `opt` is a MindSpore optimizer whose `loss_scale` (1.0 when "
            "not given) is not x. Values from config objects are compared as written: "
            "`loss_scale=config.loss_scale` on both sides is fine; a manager value the linter cannot read "
            "(a config value may be 1) or anything else it cannot compare keeps it silent. Also reports the "
            "other direction: a `Model` with no `loss_scale_manager` (at amp level O0/O1, whose presets add "
            "none) trained with an optimizer given a `loss_scale` other than 1, read from a literal or from the "
            "project's configuration; that finding is on the optimizer's `loss_scale`. So is an optimizer given a "
            "`loss_scale` other than 1 and handed to `nn.TrainOneStepWithLossScaleCell`, which divides the "
            "gradients by its `scale_sense` itself (a second division). A configuration value "
            "whose loader the imports do not resolve is read from the YAML files next to the script, as a "
            "warning that says so. The manager and the optimizer may be built by functions of the project "
            "(`manager = get_loss_scale_manager(cfg)` returning the `FixedLossScaleManager(...)`, "
            "`opt = build_optimizer(...)` returning the optimizer): they are read where they are built, a "
            "parameter of such a function through its callers.")
    why = ("With drop_overflow_update=False the manager scales the loss by x and leaves the division to "
           "the optimizer's own loss_scale. Left at 1.0, every update is x times too large (verified on "
           "2.10: a weight that should move to 0.98 jumps to -1.56 with x=128): divergence or NaN. Adaptive "
           "optimizers (Adam, LazyAdam, RMSProp, Adagrad) divide the factor out of their step, so for them "
           "only a weight decay is affected: it is added to the scaled gradient and ends up x times weaker; "
           "without one they are not reported. The other direction is as silent: an optimizer's `loss_scale` "
           "divides every gradient by it whether or not anything multiplied the loss, so without a manager "
           "(or a hand-written scaling step) SGD/Momentum updates are that many times too small: the run "
           "looks stable and converges far slower.")
    example = """
        manager = FixedLossScaleManager(1024, drop_overflow_update=False)
        opt = nn.Momentum(net.trainable_params(), 0.01, 0.9)
        model = Model(net, loss, opt, loss_scale_manager=manager)
    """
    use_instead = """
        manager = FixedLossScaleManager(1024, drop_overflow_update=False)
        opt = nn.Momentum(net.trainable_params(), 0.01, 0.9, loss_scale=1024)
        model = Model(net, loss, opt, loss_scale_manager=manager)
    """
    fix_safety = "No automatic fix."
    versions = "Documented in the FixedLossScaleManager docstring since 1.x; verified on 2.10."
    VALID = (
        Valid(files=_split_scale(scale=", loss_scale=1024"),
              note="multi-file: the optimizer built elsewhere is given the manager's scale"),
        Valid(files=_split_scale(drop="True"),
              note="multi-file look-alike: a manager that drops overflowing steps unscales the gradients itself"),
        Valid("""
            import mindspore as ms
            from mindspore import nn
            from mindspore.train import Model, FixedLossScaleManager

            manager = FixedLossScaleManager(1024, drop_overflow_update=False)
            opt = nn.Momentum(net.trainable_params(), 0.01, 0.9, loss_scale=1024)
            model = Model(net, loss, opt, loss_scale_manager=manager)
        """, note="idiomatic"),
        Valid("""
            import mindspore as ms
            from mindspore import nn
            from mindspore.train import Model, FixedLossScaleManager

            def main(config):
                manager = FixedLossScaleManager(config.loss_scale, drop_overflow_update=False)
                opt = nn.Momentum(net.trainable_params(), 0.01, 0.9, loss_scale=config.loss_scale)
                model = Model(net, loss, optimizer=opt, loss_scale_manager=manager)
        """, note="model-zoo form"),
        Valid("""
            import mindspore as ms
            from mindspore import nn
            from mindspore.train import Model, FixedLossScaleManager

            manager = FixedLossScaleManager(1024)
            opt = nn.Momentum(net.trainable_params(), 0.01, 0.9)
            model = Model(net, loss, opt, loss_scale_manager=manager)
        """, note="drop_overflow_update=True: the manager unscales itself"),
        Valid("""
            import mindspore as ms
            from mindspore import nn
            from mindspore.train import Model, FixedLossScaleManager

            manager = ms.DynamicLossScaleManager(2**16)
            opt = nn.Momentum(net.trainable_params(), 0.01, 0.9)
            model = Model(net, loss, opt, loss_scale_manager=manager)
        """),
        Valid("""
            import mindspore as ms
            from mindspore import nn
            from mindspore.train import Model, FixedLossScaleManager

            manager = FixedLossScaleManager(1024, drop_overflow_update=False)
            opt = create_optimizer(net, loss_scale=1024)
            model = Model(net, loss, opt, loss_scale_manager=manager)
        """, note="optimizer the linter cannot see"),
        Valid("""
            import mindspore as ms
            from mindspore import nn
            from mindspore.train import Model, FixedLossScaleManager

            def main(flag):
                manager = FixedLossScaleManager(128, drop_overflow_update=False)
                if flag:
                    opt = nn.Momentum(params, 0.01, 0.9, loss_scale=128)
                else:
                    opt = nn.Momentum(params, 0.01, 0.9, 0.0, 128)
                model = Model(net, loss, opt, loss_scale_manager=manager)
        """, note="two definitions: silent"),
        Valid("""
            import mindspore as ms
            from mindspore import nn
            from mindspore.train import Model, FixedLossScaleManager

            manager = FixedLossScaleManager(1024, drop_overflow_update=False)
            opt = nn.Adam(net.trainable_params(), 1e-3)
            model = Model(net, loss, opt, loss_scale_manager=manager)
        """, note="Adam without weight decay divides the factor out of its step: the same weights"),
        Valid("""
            import mindspore as ms
            from mindspore import nn

            def build_step(net_with_loss, params):
                opt = nn.Momentum(params, 0.1, 0.9)
                manager = nn.FixedLossScaleUpdateCell(1024.0)
                return nn.TrainOneStepWithLossScaleCell(net_with_loss, opt, scale_sense=manager)
        """, note="the nearest look-alike: the step cell alone unscales"),
        Valid(files=dict(model_zoo_config({"loss_scale": "1"}), **{"train.py": _SCALED_OPTIMIZER.format(mark="")}),
              note="the nearest look-alike: the configured loss scale is 1 (the model-zoo CPU configs)"),
        Valid("""
            import mindspore as ms
            from mindspore import nn

            def train(net, loss, dataset):
                opt = nn.Momentum(net.trainable_params(), 0.1, 0.9, loss_scale=1024)
                model = ms.Model(net, loss_fn=loss, optimizer=opt, amp_level="O2")
                model.train(90, dataset)
        """, note="an O2 preset adds a dynamic loss-scale manager of its own: another question"),
        Valid("""
            import torch

            opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
            scaler = torch.cuda.amp.GradScaler()
        """, note="PyTorch: the scaler unscales by itself"),
    )
    INVALID = (
        Invalid("""
            import mindspore as ms
            from mindspore import nn
            from mindspore.train import Model, FixedLossScaleManager

            manager = FixedLossScaleManager(1024, drop_overflow_update=False)
            opt = nn.Momentum(net.trainable_params(), 0.01, 0.9)
            model = Model(net, loss, opt, loss_scale_manager=manager)  # MSA403
        """, note="a port of torch's GradScaler, which unscales by itself"),
        Invalid("""
            import mindspore as ms
            from mindspore import nn
            from mindspore.train import Model, FixedLossScaleManager

            def train(config):
                opt = nn.SGD(net.trainable_params(), 0.1, loss_scale=128)
                model = Model(net, loss_fn=loss, optimizer=opt,  # MSA403
                              loss_scale_manager=FixedLossScaleManager(1024, drop_overflow_update=False))
        """),
        Invalid("""
            import mindspore as ms
            from mindspore import nn
            from mindspore.train import Model, FixedLossScaleManager

            def train(config):
                manager = FixedLossScaleManager(256, drop_overflow_update=False)
                opt = nn.Adam(net.trainable_params(), 1e-3, weight_decay=1e-4)
                model = Model(net, loss, opt, loss_scale_manager=manager)  # MSA403
        """, message_contains="weight_decay"),
        Invalid("""
            import mindspore as ms
            from mindspore import nn

            def train(net, loss, dataset):
                opt = nn.Momentum(net.trainable_params(), 0.1, 0.9, loss_scale=1024)  # MSA403
                model = ms.Model(net, loss_fn=loss, optimizer=opt)
                model.train(90, dataset)
        """, note="the optimizer divides by a loss scale nothing multiplies", message_contains="1024 times too small"),
        Invalid("""
            import mindspore as ms
            from mindspore import nn

            def build_step(net_with_loss, params):
                opt = nn.Momentum(params, 0.1, 0.9, loss_scale=1024.0)  # MSA403
                manager = nn.FixedLossScaleUpdateCell(1024.0)
                return nn.TrainOneStepWithLossScaleCell(net_with_loss, opt, scale_sense=manager)
        """, note="the step cell unscales, and the optimizer unscales again", message_contains="second time"),
        Invalid(files=dict(model_zoo_config({"loss_scale": "1024"}), **{"train.py": _SCALED_OPTIMIZER.format(
            mark="  # MSA403")}), note="multi-file: the scale comes from default_config.yaml",
            message_contains="default_config.yaml"),
        Invalid(files=_split_scale(mark="  # MSA403"), message_contains="built by get_loss_scale_manager",
                note="multi-file: a loss scale fixed in one function of src/ and the optimizer built in another, "
                     "left at loss_scale=1"),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if self.ctx.resolve(node.func) == LOSS_SCALE_STEP and not has_star_kwargs(node):
            self._divided_twice(node)
            return
        if self.ctx.resolve(node.func) != MODEL or has_star_kwargs(node):
            return
        scope = self.scope
        before = flow(self.ctx, scope).order(node) if scope is not None else None
        manager_arg = _keyword(node, "loss_scale_manager")
        if manager_arg is None:
            self._divided_never_scaled(node, scope, before)
            return
        manager = defined_value(self.ctx, scope, manager_arg.value if manager_arg else None, before)
        if isinstance(manager, cst.Call) and self.ctx.resolve(manager.func) != FIXED_MANAGER \
                and self.ctx.project is not None:
            self._built_elsewhere(node, manager, scope, before)
            return
        if not isinstance(manager, cst.Call) or self.ctx.resolve(manager.func) != FIXED_MANAGER \
                or has_star_kwargs(manager):
            return
        signature = ("loss_scale", "drop_overflow_update")
        drop = argument(manager, "drop_overflow_update", signature)
        if drop is None or literal(drop.value) is not False:
            return
        scale_arg = argument(manager, "loss_scale", signature)
        found = self._optimizer(model_argument(node, "optimizer"), scope, before)
        if found is None:
            return
        optimizer, opt_name = found
        opt_arg = argument(optimizer, "loss_scale", OPTIMIZER_SIGNATURES[opt_name])
        verdict = _compare(scale_arg.value if scale_arg else None, opt_arg.value if opt_arg else None)
        if verdict is None:
            return
        if opt_name in ADAPTIVE and not _decays(optimizer, OPTIMIZER_SIGNATURES[opt_name]):
            return  # an adaptive step divides the factor out; only weight decay would feel it
        x = _CODE(scale_arg.value) if scale_arg else "128.0"
        y = _CODE(opt_arg.value) if opt_arg else "1.0 (its default)"
        short = opt_name.rsplit(".", 1)[-1]
        effect = (f"{short} divides the factor out of its step, but adds weight_decay to the scaled gradient, so "
                  f"the decay is {x} times weaker than configured" if opt_name in ADAPTIVE
                  else "every update is off by that ratio")
        self.report(node, f"FixedLossScaleManager({x}, drop_overflow_update=False) scales the loss by {x} and "
                    f"leaves the division to the optimizer, but {short} has loss_scale={y}: {effect}; give the "
                    f"optimizer loss_scale={x}")

    def _built_elsewhere(self, node: cst.Call, manager: cst.Call, scope, before: Optional[int]) -> None:
        """A value decided elsewhere: the loss-scale manager (and perhaps the optimizer) of this
        Model is built by a function of the project (``manager = get_loss_scale(cfg)`` returning
        ``FixedLossScaleManager(1024, drop_overflow_update=False)``); their scales are read
        where they are built (a parameter of that function through its callers) and compared."""
        project = self.ctx.project
        built = project.constructed_by(self.ctx, manager)
        if built is None or built[1] != FIXED_MANAGER or "**" in built[2].kwargs or "*" in built[2].kwargs:
            return
        where, _, construction, builder = built
        drop = construction.argument("drop_overflow_update", 1)
        drops = project.values(where, drop, func=builder) if drop is not None else None
        if not drops or any(v.value is not False for v in drops):
            return
        scale_expr = construction.argument("loss_scale", 0)
        scales = project.values(where, scale_expr, func=builder) if scale_expr is not None else [Value(128.0)]
        if not scales or len({v.value for v in scales}) != 1 or not _plain_number(scales[0].value):
            return
        scale = float(scales[0].value)
        optimizer = defined_value(self.ctx, scope, model_argument(node, "optimizer"), before)
        if not isinstance(optimizer, cst.Call):
            return
        opt_name = self.ctx.resolve(optimizer.func)
        related = [(project.display(where), construction.line, f"{construction.callee}(...) built by {builder.name}")]
        if opt_name in OPTIMIZER_SIGNATURES and not has_star_kwargs(optimizer):
            opt_arg = argument(optimizer, "loss_scale", OPTIMIZER_SIGNATURES[opt_name])
            opt_value = literal(opt_arg.value) if opt_arg is not None else 1.0
            if opt_value is UNKNOWN:
                return
            decays = _decays(optimizer, OPTIMIZER_SIGNATURES[opt_name])
        else:
            opt_built = project.constructed_by(self.ctx, optimizer)
            if opt_built is None or opt_built[1] not in OPTIMIZER_SIGNATURES or "**" in opt_built[2].kwargs:
                return
            opt_where, opt_name, opt_call, opt_builder = opt_built
            order = OPTIMIZER_SIGNATURES[opt_name]
            opt_expr = opt_call.argument("loss_scale", order.index("loss_scale"))
            found = project.values(opt_where, opt_expr, func=opt_builder) if opt_expr is not None else [Value(1.0)]
            if not found or len({v.value for v in found}) != 1:
                return
            opt_value = found[0].value
            decay_expr = opt_call.argument("weight_decay", order.index("weight_decay")) \
                if "weight_decay" in order else None
            decay = project.values(opt_where, decay_expr, func=opt_builder) if decay_expr is not None else []
            decays = bool(decay) and all(_plain_number(v.value) and v.value != 0 for v in decay)
            related.append((project.display(opt_where), opt_call.line, f"{opt_call.callee}(...) built by "
                                                                         f"{opt_builder.name}"))
        if not _plain_number(opt_value) or float(opt_value) == scale:
            return
        if opt_name in ADAPTIVE and not decays:
            return
        short = opt_name.rsplit(".", 1)[-1]
        effect = (f"{short} divides the factor out of its step, but adds weight_decay to the scaled gradient, so "
                  f"the decay is {scale:g} times weaker than configured" if opt_name in ADAPTIVE
                  else "every update is off by that ratio")
        self.report(node, f"the loss-scale manager this Model gets is FixedLossScaleManager({scale:g}, "
                    f"drop_overflow_update=False), built by {builder.name} at {project.display(where)}:"
                    f"{construction.line}: it scales the loss by {scale:g} and leaves the division to the optimizer, "
                    f"but {short} has loss_scale={opt_value:g}: {effect}; give the optimizer loss_scale={scale:g}",
                    related=related)

    def _optimizer(self, expr: Optional[cst.BaseExpression], scope,
                   before: Optional[int]) -> Optional[Tuple[cst.Call, str]]:
        """The MindSpore optimizer (the call that built it, and its qualified name) that an
        argument names, when it has a loss_scale parameter and is built once in the function
        or at module level."""
        optimizer = defined_value(self.ctx, scope, expr, before)
        if not isinstance(optimizer, cst.Call) or has_star_kwargs(optimizer):
            return None
        name = self.ctx.resolve(optimizer.func)
        return (optimizer, name) if name in OPTIMIZER_SIGNATURES else None

    def _divided_never_scaled(self, node: cst.Call, scope, before: Optional[int]) -> None:
        """A Model with no loss-scale manager (and an amp level whose preset adds none) trained
        with an optimizer given a loss_scale other than 1: the optimizer divides every gradient
        by it, but nothing multiplies the loss."""
        if amp_level(node, MODEL) not in ("O0", "O1"):
            return  # O2/O3 presets may add a manager; a level the linter cannot read: silent
        found = self._optimizer(model_argument(node, "optimizer"), scope, before)
        if found is None:
            return
        optimizer, opt_name = found
        opt_arg = argument(optimizer, "loss_scale", OPTIMIZER_SIGNATURES[opt_name])
        if opt_arg is None:
            return
        scale = self._scale_value(opt_arg.value)
        if scale is None:
            return
        value, evidence, assumed = scale
        where = f" (read at {evidence.path}:{evidence.line})" if evidence is not None else ""
        if opt_name in ADAPTIVE and not _decays(optimizer, OPTIMIZER_SIGNATURES[opt_name]):
            return  # an adaptive step divides the factor out: the same update
        short = opt_name.rsplit(".", 1)[-1]
        shown = _CODE(opt_arg.value) + (f" = {value:g}{where}" if where or literal(opt_arg.value) is UNKNOWN else "")
        effect = (f"{short} divides the factor out of its step, but weight_decay is added to the unscaled gradient "
                  f"divided by {value:g}, so the decay is {value:g} times stronger than configured"
                  if opt_name in ADAPTIVE else f"every update is {value:g} times too small")
        self.report(opt_arg, f"{short} is given loss_scale={shown} and divides every gradient by it, but this Model has "
                    f"no loss_scale_manager, so the loss is never multiplied by it: {effect}; pass "
                    f"loss_scale_manager=FixedLossScaleManager({_CODE(opt_arg.value)}, drop_overflow_update=False) "
                    f"or leave the optimizer's loss_scale at 1" + (
                        f" (assumed: {_CODE(opt_arg.value)} could not be resolved through the imports, so the "
                        f"value was read from the configuration files next to this script)" if assumed else ""),
                    severity=Severity.WARNING if assumed else None,
                    related=[(evidence.path, evidence.line, evidence.what)] if evidence is not None else ())

    def _divided_twice(self, node: cst.Call) -> None:
        """``nn.TrainOneStepWithLossScaleCell(net, opt, scale_sense)`` divides the gradients by
        its scale itself; an optimizer given a loss_scale other than 1 divides them again."""
        scope = self.scope
        before = flow(self.ctx, scope).order(node) if scope is not None else None
        arg = argument(node, "optimizer", ("network", "optimizer", "scale_sense"))
        found = self._optimizer(arg.value if arg is not None else None, scope, before)
        if found is None:
            return
        optimizer, opt_name = found
        opt_arg = argument(optimizer, "loss_scale", OPTIMIZER_SIGNATURES[opt_name])
        scale = self._scale_value(opt_arg.value) if opt_arg is not None else None
        if opt_arg is None or scale is None:
            return
        value, evidence, assumed = scale
        if opt_name in ADAPTIVE and not _decays(optimizer, OPTIMIZER_SIGNATURES[opt_name]):
            return
        short = opt_name.rsplit(".", 1)[-1]
        where = f" (read at {evidence.path}:{evidence.line})" if evidence is not None else ""
        self.report(opt_arg, f"{short} is given loss_scale={_CODE(opt_arg.value)}{where}, but it trains through "
                    f"nn.TrainOneStepWithLossScaleCell, which already divides the gradients by its scale_sense: they "
                    f"are divided by {value:g} a second time, so every update is {value:g} times too small"
                    + (" (its weight decay relatively that much stronger)" if opt_name in ADAPTIVE else "")
                    + "; leave the optimizer's loss_scale at 1",
                    severity=Severity.WARNING if assumed else None,
                    related=[(evidence.path, evidence.line, evidence.what)] if evidence is not None else ())

    def _scale_value(self, expr: cst.BaseExpression) -> Optional[Tuple[float, Any, bool]]:
        """The optimizer's loss scale when it is resolved and not 1: a literal, or a name the
        project resolves to the same number in every alternative (with where it was read);
        the last item says the value is assumed: ``config.key`` whose ``config`` the imports do
        not resolve, read from the configuration files nearest to the script."""
        import os

        from msacclint.analysis.imports import dotted

        value = literal(expr)
        if value is not UNKNOWN:
            ok = isinstance(value, (int, float)) and not isinstance(value, bool) and float(value) != 1.0
            return (float(value), None, False) if ok else None
        name, project = dotted(expr), self.ctx.project
        if name is None or project is None:
            return None
        path = os.path.abspath(self.ctx.path)
        values = project.values_seen_from(self.ctx, name)
        assumed = False
        if not values and name.count(".") == 1 and project.resolve_from(self.ctx, name) is None:
            values, assumed = project.nearby_config_values(path, name.split(".")[1]), True
        numbers = {v.value for v in values or ()}
        if not values or len(numbers) != 1:
            return None
        number = numbers.pop()
        if not isinstance(number, (int, float)) or isinstance(number, bool) or float(number) == 1.0:
            return None
        shown = next((v.evidence for v in values if v.evidence is not None), None)
        return float(number), shown, assumed


def _decays(optimizer: cst.Call, signature) -> bool:
    """The optimizer is given a literal weight decay other than 0 (a config value may be 0:
    not guessed at)."""
    if "weight_decay" not in signature:
        return False
    arg = argument(optimizer, "weight_decay", signature)
    value = literal(arg.value) if arg is not None else 0
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value != 0


def _plain_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _compare(manager: Optional[cst.BaseExpression], optimizer: Optional[cst.BaseExpression]) -> Optional[bool]:
    """True when they certainly differ, None when equal or undecidable."""
    x = 128.0 if manager is None else literal(manager)
    y = 1.0 if optimizer is None else literal(optimizer)
    if x is not UNKNOWN and y is not UNKNOWN:
        return True if (isinstance(x, (int, float)) and isinstance(y, (int, float)) and float(x) != float(y)) \
            else None
    # a value from a config object may well be 1 (model-zoo CPU configs set loss_scale: 1):
    # undecidable, so silent
    return None


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


def _float16_loss_cell(rest: str, mark: str = "") -> str:
    return fill(_FLOAT16_LOSS_CELL, rest=rest, mark=mark)


def _trained_by(model: str) -> str:
    """A ``main`` that trains the loss cell with the ``model`` it builds."""
    return fill("""
        def main(ds):
            train_net = NetWithLoss(resnet50(), nn.CrossEntropyLoss())
            opt = nn.SGD(train_net.trainable_params(), 0.1, 0.9)
            {model}
            model.train(10, ds)
    """, model=model)


class Float16WithoutLossScale(FunctionRule):
    code = "MSA404"
    about_the_run = True
    name = "float16-without-loss-scale"
    checklist = "mp.02"
    severity = Severity.WARNING
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
    example = """
        import mindspore as ms
        from mindspore import nn

        net = ms.amp.auto_mixed_precision(net, 'O2')  # MSA404
        grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters)
        for data, label in dataset:
            loss, grads = grad_fn(data, label)
            optimizer(grads)
    """
    use_instead = """
        import mindspore as ms
        from mindspore import nn

        net = ms.amp.auto_mixed_precision(net, 'O2')
        loss_scaler = ms.amp.DynamicLossScaler(2**16, 2, 1000)
        # forward_fn returns loss_scaler.scale(loss); the step unscales the gradients
        grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters)
        for data, label in dataset:
            loss, grads = grad_fn(data, label)
            optimizer(grads)
    """
    fix_safety = "No automatic fix."
    versions = "All MindSpore versions; the O2/O3 presets are read from 2.10's amp._config_level."
    VALID = (
        Valid("""
            import mindspore as ms
            from mindspore import nn

            net = ms.amp.auto_mixed_precision(net, 'O2')
            loss_scaler = ms.amp.DynamicLossScaler(1024, 2, 1000)
            grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters)
            for data, label in dataset:
                loss, grads = grad_fn(data, label)
                optimizer(grads)
        """, note="idiomatic functional AMP"),
        Valid("""
            import mindspore as ms
            from mindspore import nn

            net.to_float(ms.float16)
            model = ms.Model(net, loss, opt, amp_level='O2')
            model.train(10, ds)
        """, note="O2's preset scales the loss"),
        Valid("""
            import mindspore as ms
            from mindspore import nn

            net.to_float(ms.float32)
            grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters)
            for data, label in dataset:
                loss, grads = grad_fn(data, label)
                optimizer(grads)
        """, note="float32"),
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
        Valid("""
            import mindspore as ms
            from mindspore import nn

            net = ms.amp.auto_mixed_precision(net, 'O1')
            grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters)
            for data, label in dataset:
                loss, grads = grad_fn(data, label)
                optimizer(grads)
        """, note="O1 keeps fp32 weights"),
        Valid("""
            import mindspore as ms
            from mindspore import nn

            class Head(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.dense = nn.Dense(8, 8)
                    self.dense.to_float(ms.float16)
            grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters)
            for data, label in dataset:
                loss, grads = grad_fn(data, label)
                optimizer(grads)
        """, note="one layer cast inside a Cell: an op-level choice, not float16 training"),
        Valid("""
            import mindspore as ms
            from mindspore import nn

            net.encoder.cell.matmul.to_float(ms.float16)
            grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters)
            for data, label in dataset:
                loss, grads = grad_fn(data, label)
                optimizer(grads)
        """, note="one operation deep inside the network"),
        Valid(_float16_loss_cell(_trained_by("""
            manager = ms.FixedLossScaleManager(1024)
            model = Model(train_net, optimizer=opt, loss_scale_manager=manager)
        """)), note="the loss cell's backbone in float16, trained with a loss scale manager"),
        Valid(_float16_loss_cell(_trained_by("""
            model = Model(train_net, optimizer=opt,
                          loss_scale_manager=ms.DynamicLossScaleManager(2**16, 2, 1000))
        """)), note="DynamicLossScaleManager"),
        Valid(_float16_loss_cell("""
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
        Invalid("""
            import mindspore as ms
            from mindspore import nn

            net = ms.amp.auto_mixed_precision(net, 'O2')  # MSA404
            grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters)
            for data, label in dataset:
                loss, grads = grad_fn(data, label)
                optimizer(grads)
        """, note="torch.autocast ported without a GradScaler"),
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
        Invalid(_float16_loss_cell(_trained_by("model = Model(train_net, optimizer=opt)"), mark="  # MSA404"),
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


#: a network that computes its own loss (``{rest}``: what the file does with it)
_NET_WITH_LOSS = """
    import mindspore as ms
    from mindspore import nn

    class NetWithLoss(nn.Cell):
        def __init__(self, backbone):
            super().__init__()
            self.backbone = backbone
            self.loss = nn.CrossEntropyLoss()

        def construct(self, x, y):
            return self.loss(self.backbone(x), y)

    {rest}
"""


def _with_loss_network(rest: str) -> str:
    return fill(_NET_WITH_LOSS, rest=rest)


class AmpLevelLossInNetwork(FunctionRule):
    code = "MSA405"
    about_the_run = True
    name = "amp-level-loss-in-float16"
    checklist = "mp.01"
    severity = Severity.WARNING
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
    example = """
        import mindspore as ms
        from mindspore import nn

        class NetWithLoss(nn.Cell):
            def __init__(self, backbone):
                super().__init__()
                self.backbone = backbone
                self.loss = nn.CrossEntropyLoss()

            def construct(self, x, y):
                return self.loss(self.backbone(x), y)

        model = ms.Model(NetWithLoss(net), optimizer=opt, amp_level='O2')
    """
    use_instead = """
        model = ms.Model(net, loss_fn=nn.CrossEntropyLoss(), optimizer=opt, amp_level='O2')
    """
    fix_safety = "No automatic fix."
    versions = "Same O2/O3 presets in 1.x and 2.10 (read from amp._config_level)."
    VALID = (
        Valid(_with_loss_network("""
            model = ms.Model(net, loss_fn=nn.CrossEntropyLoss(), optimizer=opt, amp_level='O2')
        """), note="idiomatic: loss_fn given"),
        Valid(_with_loss_network("""
            model = ms.Model(NetWithLoss(net), optimizer=opt)
            model.train(5, ds)
        """), note="O0"),
        Valid("""
            import mindspore as ms
            model = ms.Model(net, loss, opt, metrics={'acc'}, amp_level='O3')
            acc = model.eval(ds)
        """, note="an evaluation-only Model"),
        Valid(_with_loss_network("""
            model = ms.Model(build_net(), optimizer=opt, amp_level='O2')
            model.train(5, ds)
        """), note="a network the linter cannot see"),
        Valid(_with_loss_network("""
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
        Invalid(_with_loss_network("""
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
