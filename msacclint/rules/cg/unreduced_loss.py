"""MSA502 (cg.04, MS-LOSS-03): an element-wise (unreduced) loss handed to autodiff or a
training wrapper. Only explicit values are judged; MSA140/MSA141 (table rules) own the
"argument left to its default" findings.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from msacclint.analysis.calls import argument, literal
from msacclint.analysis.cells import CellInfo, cell_of_call, self_attr
from msacclint.analysis.flow import flow
from msacclint.analysis.loss_scale import GRAD_FUNCTIONS, defined_value, model_argument, module_functions
from msacclint.analysis.losses import loss_options, unreduced_return
from msacclint.diagnostics import Severity
from msacclint.rules.base import Invalid, Valid
from msacclint.rules.examples import fill
from msacclint.rules.fixtures.nets import cell
from msacclint.rules.function_rule import FunctionRule

TRAIN_CELLS = frozenset({"mindspore.nn.TrainOneStepCell", "mindspore.nn.TrainOneStepWithLossScaleCell"})


def _net_with_loss(construct: str, marker: str = "") -> str:
    """An example: a NetWithLoss Cell of a per-sample MSE loss, its forward ``construct``,
    trained by ``TrainOneStepCell`` (``marker``: the comment on that line)."""
    return fill("""
        import mindspore as ms
        from mindspore import nn, ops
        {net}
        train = nn.TrainOneStepCell(NetWithLoss(net), opt){marker}
    """, net=cell("NetWithLoss", init="""
        self.net = net
        self.loss = nn.MSELoss(reduction='none')
    """, construct=construct, params="net", args="x, y", tight=True), marker=marker)


class UnreducedLoss(FunctionRule):
    code = "MSA502"
    about_the_run = True
    name = "unreduced-loss-to-autodiff"
    checklist = "cg.04"
    severity = Severity.WARNING
    group = "suspicious"
    message = "an element-wise loss is differentiated: gradients are summed over the batch"
    what = ("Reports an unreduced loss handed to training: `Model(net, loss_fn=L)` or `nn.WithLossCell(net, L)` "
            "fed to `TrainOneStepCell`/`Model` with `L` built with an explicit `reduction='none'`; "
            "`value_and_grad`/`grad` of a function of the file, and `TrainOneStepCell`/`Model` of a Cell of "
            "the file, whose every return is such a loss, `ops.square`/`ops.abs` or `** 2` with no reduction "
            "after it. Defaults left unsaid are the table rules' findings (MSA140, MSA141).")
    why = ("MindSpore differentiates a non-scalar output with a sensitivity of ones: the gradient of the "
           "sum of the per-sample losses (verified on 2.10: 8 times larger for a batch of 8). The effective "
           "learning rate then grows with the batch size. PyTorch refuses (`grad can be implicitly created "
           "only for scalar outputs`), so ports never had to think about it.")
    example = """
        import mindspore as ms
        from mindspore import nn, ops
        def forward_fn(x, y):
            return ops.square(net(x) - y)
        grad_fn = ms.value_and_grad(forward_fn, None, opt.parameters)  # MSA502
    """
    use_instead = """
        import mindspore as ms
        from mindspore import nn, ops
        def forward_fn(x, y):
            return ops.square(net(x) - y).mean()
        grad_fn = ms.value_and_grad(forward_fn, None, opt.parameters)
    """
    fix_safety = "No automatic fix."
    versions = "Autodiff semantics unchanged from 1.x to 2.10."
    VALID = (
        Valid("""
            import mindspore as ms
            from mindspore import nn, ops
            def forward_fn(x, y):
                return ops.square(net(x) - y).mean()
            grad_fn = ms.value_and_grad(forward_fn, None, opt.parameters)
        """, note="idiomatic"),
        Valid("""
            import mindspore as ms
            from mindspore import nn, ops
            loss = nn.MSELoss(reduction='mean')
            model = ms.Model(net, loss_fn=loss, optimizer=opt)
        """),
        Valid("""
            import mindspore as ms
            from mindspore import nn, ops
            def forward_fn(x, y):
                loss = loss_fn(net(x), y)
                return loss
            grad_fn = ms.value_and_grad(forward_fn, None, opt.parameters)
        """, note="a loss the file does not show"),
        Valid(_net_with_loss("return self.loss(self.net(x), y).mean()"), note="reduced in construct"),
        Valid("""
            import mindspore as ms
            from mindspore import nn, ops
            loss = nn.MSELoss(reduction='none')
            per_sample = loss(net(x), y)
        """, note="per-sample losses for analysis, not differentiated"),
        Valid("""
            import torch
            loss = torch.nn.MSELoss(reduction='none')(out, y)
            loss.mean().backward()
        """, note="PyTorch"),
    )
    INVALID = (
        Invalid("""
            import mindspore as ms
            from mindspore import nn, ops
            def forward_fn(x, y):
                return ops.square(net(x) - y)
            grad_fn = ms.value_and_grad(forward_fn, None, opt.parameters)  # MSA502
        """, note="torch's ((out - y) ** 2) ported without the final .mean()"),
        Invalid("""
            import mindspore as ms
            from mindspore import nn, ops
            loss = nn.MSELoss(reduction='none')
            model = ms.Model(net, loss_fn=loss, optimizer=opt)  # MSA502
        """),
        Invalid(_net_with_loss("return self.loss(self.net(x), y)", marker="  # MSA502")),
        Invalid("""
            import mindspore as ms
            from mindspore import nn, ops
            def forward_fn(x, y):
                diff = net(x) - y
                loss = diff ** 2
                return loss, diff
            grad_fn = ms.value_and_grad(forward_fn, None, opt.parameters, has_aux=True)  # MSA502
        """),
    )

    def visit_Call(self, node: cst.Call) -> None:
        callee = self.ctx.resolve(node.func)
        scope = self.scope
        before = flow(self.ctx, scope).order(node) if scope is not None else None
        positional = [a.value for a in node.args if a.keyword is None and not a.star]
        what = None
        if callee == "mindspore.Model":
            loss = model_argument(node, "loss_fn")
            if loss is not None and literal(loss) is not None:
                if self._none_loss(scope, loss, before):
                    what = "the loss_fn is built with reduction='none'"
            elif self._unreduced_network(scope, model_argument(node, "network"), before):
                what = "the network returns an element-wise loss"
        elif callee in TRAIN_CELLS and positional:
            if self._unreduced_network(scope, positional[0], before):
                what = "the network returns an element-wise loss"
        elif callee in GRAD_FUNCTIONS and positional:
            fn = positional[0]
            target = self._function(fn)
            if target is not None:
                builder = lambda e: defined_value(self.ctx, target, e)  # noqa: E731
                if unreduced_return(self.ctx, target, builder) is not None:
                    what = f"{target.name.value} returns an element-wise loss"
            elif self._unreduced_network(scope, fn, before):
                what = "the network returns an element-wise loss"
        if what:
            self.report(node, f"{what}: MindSpore differentiates its sum, so gradients grow with the batch "
                        f"size; reduce it (.mean() or reduction='mean')")

    def _function(self, expr: cst.BaseExpression) -> Optional[cst.FunctionDef]:
        if not isinstance(expr, cst.Name):
            return None
        if self.scope is not None:
            body = self.scope.body.body if isinstance(self.scope.body, cst.IndentedBlock) else ()
            for stmt in body:
                if isinstance(stmt, cst.FunctionDef) and stmt.name.value == expr.value:
                    return stmt
        return module_functions(self.ctx).get(expr.value)

    def _none_loss(self, scope, expr, before) -> bool:
        options = loss_options(self.ctx, defined_value(self.ctx, scope, expr, before))
        return options is not None and options.reduction == "none"

    def _unreduced_network(self, scope, expr, before) -> bool:
        value = defined_value(self.ctx, scope, expr, before)
        if not isinstance(value, cst.Call):
            return False
        if self.ctx.resolve(value.func) == "mindspore.nn.WithLossCell":
            loss = argument(value, "loss_fn", ("backbone", "loss_fn"))
            return loss is not None and self._none_loss(scope, loss.value, before)
        info = cell_of_call(self.ctx, value)
        if info is None or info.construct is None:
            return False
        return unreduced_return(self.ctx, info.construct, _attr_builder(info)) is not None


def _attr_builder(info: CellInfo):
    def build(expr: cst.BaseExpression) -> Optional[cst.BaseExpression]:
        attr = self_attr(expr)
        if attr is not None and attr in info.attrs:
            return info.attrs[attr].value
        return None
    return build
