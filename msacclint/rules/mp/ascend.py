"""MS-AMP-02: an Ascend-targeted script that never chooses the operator precision mode.

MSA135 (info) reports the ``set_context(device_target="Ascend")``/``set_device("Ascend")``
call of a file in which ``precision_mode`` appears nowhere (no keyword, no
``ascend_config`` key, no ``op_precision.precision_mode(...)`` call). It stays silent when
the device is not a literal, or when ``set_context`` receives ``**kwargs`` or a
non-literal ``ascend_config`` (the mode may be in there). The decision is per file: a
project that sets the mode in another module is reported here too, which is one reason
the rule is an info review item, off by default.
"""

from __future__ import annotations

from typing import List

import libcst as cst

from msacclint.analysis.calls import argument, has_star_kwargs
from msacclint.rules.api.optimizers import device_target
from msacclint.rules.base import Invalid, Rule, Valid
from msacclint.rules.table import TableRuleMixin

_KEY = "precision_mode"


class AscendPrecisionModeUnset(TableRuleMixin, Rule, entry_id="MS-AMP-02"):
    code = "MSA135"
    group = "review"
    name = "ascend-precision-mode-unset"
    message = "Ascend target without an explicit precision_mode: matrix ops may run in fp16"
    what = ("Reports the call that sets the device target to \"Ascend\" literally in a file that never "
            "mentions `precision_mode`.")
    why = ("MindSpore documents 'allow_fp32_to_fp16' as the default operator precision mode of the "
           "Atlas training series: convolutions and matmuls run in fp16 even at amp_level 'O0', so an "
           "'fp32' port of a PyTorch model meets loss-scale and overflow problems without any AMP "
           "code. (Documentation only, not verified on hardware.)")
    example = """
        import mindspore as ms
        ms.set_context(device_target='Ascend')  # MSA135
    """
    use_instead = """
        import mindspore as ms
        ms.set_context(device_target='Ascend', ascend_config={'precision_mode': 'must_keep_origin_dtype'})
    """
    versions = "precision_mode documented from 2.5 to master; the default depends on the chip."
    VALID = (
        Valid("""
            import mindspore as ms
            ms.set_context(device_target='Ascend', ascend_config={'precision_mode': 'force_fp32'})
        """),
        Valid("""
            import mindspore as ms
            ms.set_device('Ascend')
            ms.device_context.ascend.op_precision.precision_mode('must_keep_origin_dtype')
        """),
        Valid("""
            import mindspore as ms
            ms.set_context(device_target='CPU')
        """),
        Valid("""
            import mindspore as ms
            ms.set_context(device_target=args.device_target)
        """, note="not literal: not decided"),
        Valid("""
            import mindspore as ms
            ms.set_context(device_target='Ascend', ascend_config=cfg.ascend_config)
        """, note="the mode may be in the config"),
        Valid("""
            import torch
            device = torch.device('cuda')
        """),
    )
    INVALID = (
        Invalid("""
            import mindspore as ms
            ms.set_context(mode=ms.GRAPH_MODE, device_target='Ascend')  # MSA135
        """, note="a CUDA fp32 script ported to Ascend"),
        Invalid("""
            from mindspore import context
            context.set_context(device_target="Ascend", device_id=0)  # MSA135
        """),
        Invalid("""
            import mindspore as ms
            ms.set_device('Ascend', 0)  # MSA135
        """),
    )

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._targets: List[cst.Call] = []
        self._mentioned = False

    def visit_Call(self, node: cst.Call) -> None:
        if device_target(self.ctx, node) != "Ascend":
            return
        if has_star_kwargs(node):
            self._mentioned = True
            return
        config = argument(node, "ascend_config", ())
        if config is not None and not isinstance(config.value, cst.Dict):
            self._mentioned = True  # a config object: cannot tell
            return
        self._targets.append(node)

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None and node.keyword.value == _KEY:
            self._mentioned = True

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value == _KEY:
            self._mentioned = True

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        if _KEY in node.value:
            self._mentioned = True

    def finish(self) -> None:
        if self._mentioned or not self._targets:
            return
        self.report(self._targets[0], "this file targets Ascend but never sets precision_mode: on the Atlas "
                    "training series the default 'allow_fp32_to_fp16' runs convs/matmuls in fp16 even without "
                    "AMP; set ascend_config={'precision_mode': 'must_keep_origin_dtype'} (or 'force_fp32') "
                    "when fp32 parity with a PyTorch reference matters")
