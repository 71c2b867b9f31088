"""MSA406 (mp.01, warning): ``amp_level="O2"`` with ``keep_batchnorm_fp32=False`` on a GPU
target: BatchNorm too runs in float16."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from msacclint.analysis.calls import argument, constant
from msacclint.analysis.facts import facts
from msacclint.diagnostics import Severity
from msacclint.rules.base import Invalid, Rule, Valid
from msacclint.rules.mp.amp_calls import calls_with_level


def _gpu_target(ctx) -> Optional[cst.Call]:
    f = facts(ctx)
    for name, calls in f.calls.items():
        if name.startswith("mindspore") and name.endswith("set_context"):
            for call in calls:
                target = argument(call, "device_target", ())
                if target is not None and constant(ctx, target.value) == "GPU":
                    return call
    return None


class O2BatchNormFloat16OnGpu(Rule):
    code = "MSA406"
    about_the_run = True
    name = "amp-o2-batchnorm-float16-gpu"
    checklist = "mp.01"
    severity = Severity.WARNING
    group = "suspicious"
    uses_facts = True
    message = "amp_level='O2' with keep_batchnorm_fp32=False runs BatchNorm in float16 on GPU"
    what = ("Reports `Model(..., amp_level='O2', keep_batchnorm_fp32=False)` and "
            "`amp.build_train_network(..., level='O2', keep_batchnorm_fp32=False)` in a file that sets "
            "`device_target='GPU'`."
            " Field check (docs/evaluation/field.md, issue 14 rules): no finding on the four tuning repositories of bench/field/protocol.toml (6,045 files), so its precision is not measured yet.")
    why = ("O2 casts the network to float16 and keeps BatchNorm in float32 only while `keep_batchnorm_fp32` is "
           "True (its default for O2). With False, BatchNorm's statistics are accumulated in float16 on GPU: "
           "the variance of activations beyond a few hundred loses precision or overflows, and the moving "
           "statistics used in evaluation drift. On Ascend the setting is a documented performance choice; "
           "on GPU it is the usual cause of an evaluation accuracy far below training's.")
    example = """
    import mindspore as ms
    ms.set_context(device_target="GPU")
    model = ms.Model(net, loss, opt, amp_level="O2", keep_batchnorm_fp32=False)  # MSA406
    """
    use_instead = """
    import mindspore as ms
    ms.set_context(device_target="GPU")
    model = ms.Model(net, loss, opt, amp_level="O2")
    """
    fix_safety = "No automatic fix."
    versions = "MindSpore 1.x and 2.x (Model's keep_batchnorm_fp32 keyword)."
    VALID = (
        Valid(use_instead, note="idiomatic: O2 keeps BatchNorm in float32"),
        Valid("""
            import mindspore as ms
            ms.set_context(device_target="Ascend")
            model = ms.Model(net, loss, opt, amp_level="O2", keep_batchnorm_fp32=False)
            """, note="Ascend: a documented choice"),
        Valid("""
            import mindspore as ms
            model = ms.Model(net, loss, opt, amp_level="O2", keep_batchnorm_fp32=False)
            """, note="target not known in this file"),
        Valid("""
            import mindspore as ms
            import keras
            ms.set_context(device_target="GPU")
            model = keras.Model(inputs, outputs)
            """, note="another framework's Model"),
    )
    INVALID = (
        Invalid(example, note="float16 BatchNorm on GPU"),
        Invalid("""
            from mindspore import context
            from mindspore.amp import build_train_network
            context.set_context(mode=context.GRAPH_MODE, device_target="GPU")
            net = build_train_network(net, opt, loss, level="O2", keep_batchnorm_fp32=False)  # MSA406
            """),
    )

    def finish(self) -> None:
        if _gpu_target(self.ctx) is None:
            return
        for call, _api, level in calls_with_level(self.ctx):
            if constant(self.ctx, level.value) != "O2":
                continue
            keep = argument(call, "keep_batchnorm_fp32", ())
            if keep is not None and constant(self.ctx, keep.value) is False:
                self.report(call)
