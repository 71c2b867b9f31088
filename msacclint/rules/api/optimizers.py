"""MSA131 (MS-OPT-05, warning): ``nn.Momentum(..., use_nesterov=True)`` in a file that
sets the device target to "CPU" literally: the 2.10 CPU kernel ignores Nesterov."""

from __future__ import annotations

from typing import List

import libcst as cst

from msacclint.analysis.calls import argument, literal
from msacclint.rules.base import Invalid, Rule, Valid
from msacclint.rules.table import TableRuleMixin, called

MOMENTUM = "mindspore.nn.Momentum"
_MOMENTUM_SIGNATURE = ("params", "learning_rate", "momentum", "weight_decay", "loss_scale", "use_nesterov")
_CONTEXT_CALLS = frozenset({"mindspore.set_context", "mindspore.context.set_context"})
_SET_DEVICE = "mindspore.set_device"


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


class MomentumNesterovCpu(TableRuleMixin, Rule, entry_id="MS-OPT-05"):
    code = "MSA131"
    group = "suspicious"
    name = "momentum-nesterov-cpu"
    message = "nn.Momentum(use_nesterov=True) trains without Nesterov on the CPU backend"
    what = ("Reports `nn.Momentum(..., use_nesterov=True)` in a file that sets the device target "
            "to \"CPU\" literally (`set_context(device_target=\"CPU\")` or `set_device(\"CPU\")`).")
    why = ("On the MindSpore 2.10 CPU backend nn.Momentum with use_nesterov=True produced exactly the "
           "plain-momentum trajectory (0.95 instead of 0.905 after one step), while nn.SGD(nesterov=True) "
           "is correct. Ascend and GPU kernels were not checked, so only CPU-targeted files are reported.")
    example = """
        import mindspore as ms
        from mindspore import nn
        ms.set_context(device_target='CPU')
        opt = nn.Momentum(params, 0.1, 0.9, use_nesterov=True)  # MSA131
    """
    use_instead = """
        import mindspore as ms
        from mindspore import nn
        ms.set_context(device_target='CPU')
        opt = nn.SGD(params, 0.1, momentum=0.9, nesterov=True)
    """
    versions = "Observed on 2.10.0, CPU backend only."
    VALID = (
        Valid("""
            import mindspore as ms
            from mindspore import nn
            ms.set_context(device_target='CPU')
            opt = nn.SGD(params, 0.1, momentum=0.9, nesterov=True)
        """),
        Valid("""
            import mindspore as ms
            from mindspore import nn
            ms.set_context(device_target='Ascend')
            opt = nn.Momentum(params, 0.1, 0.9, use_nesterov=True)
        """),
        Valid("""
            import mindspore as ms
            from mindspore import nn
            ms.set_context(device_target=args.device)
            opt = nn.Momentum(params, 0.1, 0.9, use_nesterov=True)
        """, note="device not literal: not decided"),
        Valid("""
            import torch
            opt = torch.optim.SGD(params, lr=0.1, momentum=0.9, nesterov=True)
        """),
        Valid("""
            import mindspore as ms
            from mindspore import nn
            ms.set_device('CPU')
            opt = nn.Momentum(params, 0.1, 0.9)
        """),
        Valid("""
            from mindspore import mint
            import mindspore as ms
            ms.set_device('CPU')
            opt = mint.optim.SGD(params, lr=0.1, momentum=0.9, nesterov=True)
        """),
    )
    INVALID = (
        Invalid("""
            import mindspore as ms
            from mindspore import nn
            ms.set_context(device_target='CPU')
            opt = nn.Momentum(params, 0.1, 0.9, use_nesterov=True)  # MSA131
        """, note="torch SGD(nesterov=True) ported to the Momentum optimizer"),
        Invalid("""
            from mindspore import context, nn
            opt = nn.Momentum(net.trainable_params(), learning_rate=0.01, momentum=0.9, use_nesterov=True)  # MSA131
            context.set_context(mode=context.GRAPH_MODE, device_target="CPU")
        """),
        Invalid("""
            import mindspore as ms
            from mindspore import nn
            ms.set_device("CPU")
            opt = nn.Momentum(params, lr, 0.9, 0.0, 1.0, True)  # MSA131
        """),
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
