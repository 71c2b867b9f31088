"""MSA504 (cg.02, info): frozen parameters and ``stop_gradient`` on a layer's output, listed
for review."""

from __future__ import annotations

import libcst as cst

from msacclint.analysis.calls import literal
from msacclint.analysis.flow import flow
from msacclint.analysis.source import code_of as _code
from msacclint.diagnostics import Severity
from msacclint.rules.base import Invalid, Valid
from msacclint.rules.cg.layer_parameters import owns_parameters
from msacclint.rules.fixtures.nets import cell, module
from msacclint.rules.function_rule import FunctionRule


class FrozenParameters(FunctionRule):
    code = "MSA504"
    name = "frozen-parameters"
    checklist = "cg.02"
    severity = Severity.INFO
    group = "review"
    message = "parameters are frozen here; check that this is intended"
    what = ("Lists, for review, `<param>.requires_grad = False` assignments and `ops.stop_gradient` applied to "
            "the output of a layer of the Cell (`ops.stop_gradient(self.backbone(x))`, or a variable holding it). "
            "Off by default (info).")
    why = ("Freezing is often intended (fine-tuning a head, a teacher network), but a freeze left over from an "
           "experiment or applied to the wrong parameter list makes part of the network silently stop learning; "
           "`stop_gradient` on a layer's output also cuts every layer before it.")
    example = """
        import mindspore as ms
        from mindspore import nn, ops

        for param in net.get_parameters():
            param.requires_grad = False  # MSA504
    """
    use_instead = """
        # intended freezes stay; add `# noqa: MSA504` once reviewed
    """
    fix_safety = "No fix: a review item."
    versions = "All versions."
    VALID = (
        Valid("""
            import mindspore as ms
            from mindspore import nn, ops

            for param in net.trainable_params():
                param.requires_grad = True
        """, note="unfreeze"),
        Valid("""
            import mindspore as ms
            from mindspore import nn, ops

            class Net(nn.Cell):
                def construct(self, x):
                    mask = ops.stop_gradient(ops.ones_like(x))
                    return x * mask
        """, note="stop_gradient on a constant, not on a layer's output"),
        Valid("""
            import torch
            for p in model.parameters():
                p.requires_grad_(False)
        """, note="PyTorch"),
        Valid("""
            import mindspore as ms
            from mindspore import nn, ops

            flag = param.requires_grad == False
        """, note="a comparison"),
        Valid("""
            import mindspore as ms
            from mindspore import nn, ops

            class Loss(nn.Cell):
                def construct(self, x):
                    targets = ops.stop_gradient(self.assign_targets(x))
                    return targets
        """, note="stop_gradient on a helper method's output, not a layer with parameters"),
    )
    INVALID = (
        Invalid("""
            import mindspore as ms
            from mindspore import nn, ops

            for param in net.backbone.get_parameters():
                param.requires_grad = False  # MSA504
        """, note="torch's p.requires_grad = False loop, ported as is"),
        Invalid(module("""
            import mindspore as ms
            from mindspore import nn, ops
        """, cell("Student", init="""
            self.backbone = nn.Dense(8, 8)
            self.head = nn.Dense(8, 2)
        """, construct="""
            feats = self.backbone(x)
            feats = ops.stop_gradient(feats)  # MSA504
            return self.head(feats)
        """))),
    )

    def visit_Assign(self, node: cst.Assign) -> None:
        if literal(node.value) is not False:
            return
        for target in node.targets:
            t = target.target
            if isinstance(t, cst.Attribute) and t.attr.value == "requires_grad":
                self.report(node, f"{_code(t.value)}.requires_grad = False freezes these parameters; check that "
                            f"this is intended")

    def visit_Call(self, node: cst.Call) -> None:
        if self.ctx.resolve(node.func) != "mindspore.ops.stop_gradient" or not node.args:
            return
        arg = node.args[0].value
        scope = self.scope
        if isinstance(arg, cst.Name) and scope is not None:
            fl = flow(self.ctx, scope)
            d = fl.definition(arg.value, fl.order(node))
            arg = d.value if d is not None else arg
        owner = self._classes[-1] if self._classes else None
        if isinstance(arg, cst.Call) and _self_layer(arg.func) and owner is not None \
                and owns_parameters(self.ctx, owner, arg.func.attr.value):
            self.report(node, f"ops.stop_gradient on the output of {_code(arg.func)} stops training of that layer "
                        f"and everything before it; check that this is intended")


def _self_layer(func: cst.BaseExpression) -> bool:
    return isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self"
