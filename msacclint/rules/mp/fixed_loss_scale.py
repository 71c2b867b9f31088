"""mp.02: a fixed loss scale and the optimizer's loss_scale.

MSA403 FixedLossScaleManager(x, drop_overflow_update=False) with an optimizer of the same
Model whose loss_scale is not x (MS-LS-01), and an optimizer's loss_scale other than 1 that
nothing multiplies the loss by, or that nn.TrainOneStepWithLossScaleCell divides by again.
"""

from __future__ import annotations

from functools import partial
from typing import Any, Optional, Tuple

import libcst as cst

from msacclint.analysis.calls import UNKNOWN, argument, has_star_kwargs, literal
from msacclint.analysis.flow import flow
from msacclint.analysis.loss_scale import defined_value, model_argument
from msacclint.analysis.source import code_of
from msacclint.diagnostics import Severity
from msacclint.project.values import Value
from msacclint.rules.base import Invalid, Valid
from msacclint.rules.examples import model_zoo_config
from msacclint.rules.fixtures.mpwi import fill_files
from msacclint.rules.function_rule import FunctionRule
from msacclint.rules.mp.amp_calls import MODEL, amp_level, keyword

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


_split_scale = partial(fill_files, _SPLIT_SCALE, drop="False", scale="", mark="")

#: optimizers that divide a constant factor of the gradients out of their step
ADAPTIVE = frozenset({"mindspore.nn.Adam", "mindspore.nn.LazyAdam", "mindspore.nn.RMSProp", "mindspore.nn.Adagrad"})


class FixedLossScaleMismatch(FunctionRule):
    code = "MSA403"
    about_the_run = True
    name = "fixed-loss-scale-optimizer-mismatch"
    checklist = "mp.02"
    severity = Severity.ERROR
    group = "correctness"
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
        manager_arg = keyword(node, "loss_scale_manager")
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
        x = code_of(scale_arg.value) if scale_arg else "128.0"
        y = code_of(opt_arg.value) if opt_arg else "1.0 (its default)"
        short, effect = _unscaled_effect(opt_name, x)
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
        short, effect = _unscaled_effect(opt_name, f"{scale:g}")
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
        shown = code_of(opt_arg.value) + (f" = {value:g}{where}" if where or literal(opt_arg.value) is UNKNOWN else "")
        effect = (f"{short} divides the factor out of its step, but weight_decay is added to the unscaled gradient "
                  f"divided by {value:g}, so the decay is {value:g} times stronger than configured"
                  if opt_name in ADAPTIVE else f"every update is {value:g} times too small")
        self.report(opt_arg, f"{short} is given loss_scale={shown} and divides every gradient by it, but this Model has "
                    f"no loss_scale_manager, so the loss is never multiplied by it: {effect}; pass "
                    f"loss_scale_manager=FixedLossScaleManager({code_of(opt_arg.value)}, drop_overflow_update=False) "
                    f"or leave the optimizer's loss_scale at 1" + (
                        f" (assumed: {code_of(opt_arg.value)} could not be resolved through the imports, so the "
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
        self.report(opt_arg, f"{short} is given loss_scale={code_of(opt_arg.value)}{where}, but it trains through "
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


def _unscaled_effect(opt_name: str, scale: str) -> Tuple[str, str]:
    """The optimizer's short name, and what a loss scaled by ``scale`` and never divided out
    does to its updates."""
    short = opt_name.rsplit(".", 1)[-1]
    effect = (f"{short} divides the factor out of its step, but adds weight_decay to the scaled gradient, so "
              f"the decay is {scale} times weaker than configured" if opt_name in ADAPTIVE
              else "every update is off by that ratio")
    return short, effect


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
