"""MSA131 (MS-OPT-05, warning): ``nn.Momentum(..., use_nesterov=True)`` in a file that
sets the device target to "CPU" literally: the 2.10 CPU kernel ignores Nesterov."""

from __future__ import annotations

from typing import List

import libcst as cst

from msacclint.analysis.calls import argument, literal
from msacclint.diagnostics import Severity
from msacclint.engine.rule import Invalid, Rule, Valid
from msacclint.rules.table import TableRuleMixin, called

MOMENTUM = "mindspore.nn.Momentum"
_MOMENTUM_SIGNATURE = ("params", "learning_rate", "momentum", "weight_decay", "loss_scale", "use_nesterov")
_CONTEXT_CALLS = frozenset({"mindspore.set_context", "mindspore.context.set_context"})
_SET_DEVICE = "mindspore.set_device"


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
