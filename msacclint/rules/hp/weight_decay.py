"""MSA132 (MS-OPT-06, info): a literal ``weight_decay > 0`` on a flat parameter list
(``net.trainable_params()``): MindSpore's default filter skips every parameter whose name
contains 'beta' or 'gamma' (hp.01, hyper-parameters)."""

from __future__ import annotations

import libcst as cst

from msacclint.analysis.calls import UNKNOWN, argument, is_number, literal
from msacclint.rules.base import Invalid, Rule, Valid
from msacclint.rules.table import TableRuleMixin, called

#: mindspore.nn optimizers built on nn.Optimizer's default weight-decay filter
OPTIMIZERS = frozenset("mindspore.nn." + n for n in (
    "Momentum", "SGD", "Adam", "AdamWeightDecay", "AdamOffload", "LazyAdam", "Lamb", "RMSProp", "Adagrad",
    "Adadelta", "Adamax", "ASGD", "Rprop", "FTRL", "ProximalAdagrad"))
#: methods that return every parameter of a Cell as one flat list
_FLAT_LISTS = frozenset({"trainable_params", "get_parameters"})


class WeightDecayNameFilter(TableRuleMixin, Rule, entry_id="MS-OPT-06"):
    code = "MSA132"
    group = "port"
    name = "weight-decay-name-filter"
    message = "weight_decay on a flat parameter list skips parameters named *beta*/*gamma*"
    what = ("Reports a `mindspore.nn` optimizer given a literal `weight_decay > 0` together with a flat "
            "parameter list (`net.trainable_params()`, `net.get_parameters()`).")
    why = ("Without parameter groups, MindSpore decays every parameter whose name contains neither "
           "'beta' nor 'gamma': norm scales and shifts are not decayed, biases are, and a custom "
           "parameter named e.g. 'gamma_scale' silently gets no decay. PyTorch decays every "
           "parameter of the group. Regularisation therefore differs from the PyTorch reference.")
    example = """
        import mindspore as ms
        from mindspore import nn
        opt = nn.Momentum(net.trainable_params(), 0.1, 0.9, weight_decay=1e-4)  # MSA132
    """
    use_instead = """
        import mindspore as ms
        from mindspore import nn
        decay = [p for p in net.trainable_params() if p.ndim > 1]
        no_decay = [p for p in net.trainable_params() if p.ndim <= 1]
        opt = nn.Momentum([{'params': decay, 'weight_decay': 1e-4}, {'params': no_decay}], 0.1, 0.9)
    """
    versions = "The name filter is documented in the Optimizer docstring since 1.x; verified in 2.10."
    VALID = (
        Valid("""
            import mindspore as ms
            from mindspore import nn
            opt = nn.Momentum([{'params': decay, 'weight_decay': 1e-4}, {'params': rest}], 0.1, 0.9)
        """),
        Valid("""
            import mindspore as ms
            from mindspore import nn
            opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
        """),
        Valid("""
            import mindspore as ms
            from mindspore import nn
            opt = nn.Momentum(net.trainable_params(), 0.1, 0.9, weight_decay=cfg.weight_decay)
        """, note="a value from config: not guessed"),
        Valid("""
            import torch
            opt = torch.optim.SGD(model.parameters(), lr=0.1, weight_decay=1e-4)
        """),
        Valid("""
            from mindspore import mint
            opt = mint.optim.AdamW(net.trainable_params(), weight_decay=0.05)
        """),
        Valid("""
            import mindspore as ms
            from mindspore import nn
            opt = nn.Adam(group_params, 1e-3, weight_decay=1e-4)
        """, note="groups may be explicit"),
    )
    INVALID = (
        Invalid("""
            import mindspore as ms
            from mindspore import nn
            opt = nn.Momentum(net.trainable_params(), 0.1, 0.9, weight_decay=1e-4)  # MSA132
        """, note="torch SGD(model.parameters(), weight_decay=1e-4) ported as is"),
        Invalid("""
            import mindspore as ms
            from mindspore import nn
            opt = nn.AdamWeightDecay(params=net.trainable_params(), learning_rate=1e-4, weight_decay=0.05)  # MSA132
        """),
        Invalid("""
            import mindspore as ms
            from mindspore import nn
            opt = nn.Adam(filter(lambda p: p.requires_grad, net.get_parameters()), learning_rate=1e-3, weight_decay=1e-4)  # MSA132
        """),
    )

    def visit_Call(self, node: cst.Call) -> None:
        name = called(self.ctx, node)
        if name not in OPTIMIZERS:
            return
        decay = argument(node, "weight_decay", ())
        if decay is None:
            return
        value = literal(decay.value)
        if value is UNKNOWN or not is_number(value) or value <= 0:
            return
        params = argument(node, "params", ("params",))
        if params is None or not self._flat(params.value):
            return
        short = name.replace("mindspore.", "", 1)
        self.report(node, f"{short}(weight_decay={value:g}) on a flat parameter list: MindSpore skips every "
                    f"parameter whose name contains 'beta' or 'gamma' and decays biases, PyTorch decays all; "
                    f"pass parameter groups [{{'params': ..., 'weight_decay': ...}}] to make the decay set explicit")

    def _flat(self, expr: cst.BaseExpression) -> bool:
        if isinstance(expr, cst.Call):
            if isinstance(expr.func, cst.Attribute) and expr.func.attr.value in _FLAT_LISTS:
                return True
            if isinstance(expr.func, cst.Name) and expr.func.value in ("filter", "list") and len(expr.args) >= 1:
                return self._flat(expr.args[-1].value)
        return False
