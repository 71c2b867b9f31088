"""Optimizer facts that need more than one call site.

- MSA131 (MS-OPT-05, warning): ``nn.Momentum(..., use_nesterov=True)`` in a file that
  sets the device target to "CPU" literally: the 2.10 CPU kernel ignores Nesterov.
- MSA132 (MS-OPT-06, info): a literal ``weight_decay > 0`` on a flat parameter list
  (``net.trainable_params()``): MindSpore's default filter skips every parameter whose
  name contains 'beta' or 'gamma'.
"""

from __future__ import annotations

from typing import List

import libcst as cst

from msacclint.analysis.calls import UNKNOWN, argument, is_number, literal
from msacclint.diagnostics import Severity
from msacclint.rules.api.table import called
from msacclint.rules.api.versions import TableRuleMixin
from msacclint.rules.base import Invalid, Rule, Valid

MOMENTUM = "mindspore.nn.Momentum"
_MOMENTUM_SIGNATURE = ("params", "learning_rate", "momentum", "weight_decay", "loss_scale", "use_nesterov")
_CONTEXT_CALLS = frozenset({"mindspore.set_context", "mindspore.context.set_context"})
_SET_DEVICE = "mindspore.set_device"

#: mindspore.nn optimizers built on nn.Optimizer's default weight-decay filter
OPTIMIZERS = frozenset("mindspore.nn." + n for n in (
    "Momentum", "SGD", "Adam", "AdamWeightDecay", "AdamOffload", "LazyAdam", "Lamb", "RMSProp", "Adagrad",
    "Adadelta", "Adamax", "ASGD", "Rprop", "FTRL", "ProximalAdagrad"))
#: methods that return every parameter of a Cell as one flat list
_FLAT_LISTS = frozenset({"trainable_params", "get_parameters"})

_HDR = "import mindspore as ms\nfrom mindspore import nn\n"


def device_target(ctx, call: cst.Call):
    """The literal device a set_context(device_target=...)/set_device(...) call picks, else None."""
    name = called(ctx, call)
    if name in _CONTEXT_CALLS:
        arg = argument(call, "device_target", ())
    elif name == _SET_DEVICE:
        arg = argument(call, "device_target", ("device_target", "device_id"))
    else:
        return None
    if arg is None:
        return None
    value = literal(arg.value)
    return value if isinstance(value, str) else None


class MomentumNesterovCpu(TableRuleMixin, Rule):
    code = "MSA131"
    name = "momentum-nesterov-cpu"
    checklist = "api.01"
    severity = Severity.WARNING
    entry_id = "MS-OPT-05"
    message = "nn.Momentum(use_nesterov=True) trains without Nesterov on the CPU backend"
    what = ("Reports `nn.Momentum(..., use_nesterov=True)` in a file that sets the device target "
            "to \"CPU\" literally (`set_context(device_target=\"CPU\")` or `set_device(\"CPU\")`).")
    why = ("On the MindSpore 2.10 CPU backend nn.Momentum with use_nesterov=True produced exactly the "
           "plain-momentum trajectory (0.95 instead of 0.905 after one step), while nn.SGD(nesterov=True) "
           "is correct. Ascend and GPU kernels were not checked, so only CPU-targeted files are reported.")
    example = _HDR + "ms.set_context(device_target='CPU')\nopt = nn.Momentum(params, 0.1, 0.9, use_nesterov=True)\n"
    use_instead = _HDR + "ms.set_context(device_target='CPU')\nopt = nn.SGD(params, 0.1, momentum=0.9, nesterov=True)\n"
    versions = "Observed on 2.10.0, CPU backend only."
    VALID = (
        Valid(_HDR + "ms.set_context(device_target='CPU')\nopt = nn.SGD(params, 0.1, momentum=0.9, nesterov=True)\n"),
        Valid(_HDR + "ms.set_context(device_target='Ascend')\nopt = nn.Momentum(params, 0.1, 0.9, use_nesterov=True)\n"),
        Valid(_HDR + "ms.set_context(device_target=args.device)\nopt = nn.Momentum(params, 0.1, 0.9, use_nesterov=True)\n",
              note="device not literal: not decided"),
        Valid("import torch\nopt = torch.optim.SGD(params, lr=0.1, momentum=0.9, nesterov=True)\n"),
        Valid(_HDR + "ms.set_device('CPU')\nopt = nn.Momentum(params, 0.1, 0.9)\n"),
        Valid("from mindspore import mint\nimport mindspore as ms\nms.set_device('CPU')\n"
              "opt = mint.optim.SGD(params, lr=0.1, momentum=0.9, nesterov=True)\n"),
    )
    INVALID = (
        Invalid(_HDR + "ms.set_context(device_target='CPU')\nopt = nn.Momentum(params, 0.1, 0.9, use_nesterov=True)\n",
                line=4, note="torch SGD(nesterov=True) ported to the Momentum optimizer"),
        Invalid("from mindspore import context, nn\nopt = nn.Momentum(net.trainable_params(), learning_rate=0.01, "
                "momentum=0.9, use_nesterov=True)\ncontext.set_context(mode=context.GRAPH_MODE, device_target=\"CPU\")\n",
                line=2),
        Invalid(_HDR + "ms.set_device(\"CPU\")\nopt = nn.Momentum(params, lr, 0.9, 0.0, 1.0, True)\n", line=4),
    )

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._nesterov: List[cst.Call] = []
        self._cpu = False

    def visit_Call(self, node: cst.Call) -> None:
        if device_target(self.ctx, node) == "CPU":
            self._cpu = True
            return
        if called(self.ctx, node) != MOMENTUM:
            return
        arg = argument(node, "use_nesterov", _MOMENTUM_SIGNATURE)
        if arg is not None and literal(arg.value) is True:
            self._nesterov.append(node)

    def finish(self) -> None:
        if not self._cpu:
            return
        for call in self._nesterov:
            self.report(call, "nn.Momentum(use_nesterov=True) silently trains WITHOUT Nesterov on the MindSpore "
                        "CPU backend this file targets; use nn.SGD(params, learning_rate, momentum=..., "
                        "nesterov=True) instead")


class WeightDecayNameFilter(TableRuleMixin, Rule):
    code = "MSA132"
    name = "weight-decay-name-filter"
    checklist = "hp.01"
    severity = Severity.INFO
    entry_id = "MS-OPT-06"
    message = "weight_decay on a flat parameter list skips parameters named *beta*/*gamma*"
    what = ("Reports a `mindspore.nn` optimizer given a literal `weight_decay > 0` together with a flat "
            "parameter list (`net.trainable_params()`, `net.get_parameters()`).")
    why = ("Without parameter groups, MindSpore decays every parameter whose name contains neither "
           "'beta' nor 'gamma': norm scales and shifts are not decayed, biases are, and a custom "
           "parameter named e.g. 'gamma_scale' silently gets no decay. PyTorch decays every "
           "parameter of the group. Regularisation therefore differs from the PyTorch reference.")
    example = _HDR + "opt = nn.Momentum(net.trainable_params(), 0.1, 0.9, weight_decay=1e-4)\n"
    use_instead = (_HDR + "decay = [p for p in net.trainable_params() if p.ndim > 1]\n"
                   "no_decay = [p for p in net.trainable_params() if p.ndim <= 1]\n"
                   "opt = nn.Momentum([{'params': decay, 'weight_decay': 1e-4}, {'params': no_decay}], 0.1, 0.9)\n")
    versions = "The name filter is documented in the Optimizer docstring since 1.x; verified in 2.10."
    VALID = (
        Valid(_HDR + "opt = nn.Momentum([{'params': decay, 'weight_decay': 1e-4}, {'params': rest}], 0.1, 0.9)\n"),
        Valid(_HDR + "opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)\n"),
        Valid(_HDR + "opt = nn.Momentum(net.trainable_params(), 0.1, 0.9, weight_decay=cfg.weight_decay)\n",
              note="a value from config: not guessed"),
        Valid("import torch\nopt = torch.optim.SGD(model.parameters(), lr=0.1, weight_decay=1e-4)\n"),
        Valid("from mindspore import mint\nopt = mint.optim.AdamW(net.trainable_params(), weight_decay=0.05)\n"),
        Valid(_HDR + "opt = nn.Adam(group_params, 1e-3, weight_decay=1e-4)\n", note="groups may be explicit"),
    )
    INVALID = (
        Invalid(_HDR + "opt = nn.Momentum(net.trainable_params(), 0.1, 0.9, weight_decay=1e-4)\n", line=3,
                note="torch SGD(model.parameters(), weight_decay=1e-4) ported as is"),
        Invalid(_HDR + "opt = nn.AdamWeightDecay(params=net.trainable_params(), learning_rate=1e-4, "
                "weight_decay=0.05)\n", line=3),
        Invalid(_HDR + "opt = nn.Adam(filter(lambda p: p.requires_grad, net.get_parameters()), "
                "learning_rate=1e-3, weight_decay=1e-4)\n", line=3),
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
