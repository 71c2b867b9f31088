"""mp.01: mixed-precision levels that put more in float16 than the reference did.

- MSA406 (mp.01): ``amp_level="O2"`` with ``keep_batchnorm_fp32=False`` on a GPU target:
  BatchNorm too runs in float16.
- MSA407 (mp.01, info): ``amp_level`` "O2"/"O3" in a file ported from PyTorch (it converts
  or loads PyTorch weights): ``torch.autocast`` keeps softmax, log, exp, norms and losses
  in float32; O2 keeps only BatchNorm and LayerNorm, O3 nothing.
"""

from __future__ import annotations

from typing import Iterator, Optional, Tuple

import libcst as cst

from msacclint.analysis.calls import argument, constant
from msacclint.analysis.facts import facts
from msacclint.analysis.port import port_evidence
from msacclint.diagnostics import Severity
from msacclint.rules.base import Invalid, Rule, Valid

#: API -> (name of the level argument, positional signature)
_MODEL_SIG = ("network", "loss_fn", "optimizer", "metrics", "eval_network", "eval_indexes", "amp_level", "boost_level")
AMP_APIS = {
    # canonical names (msacclint.analysis.imports.canonical folds mindspore.train/amp aliases)
    "mindspore.Model": ("amp_level", _MODEL_SIG),
    "mindspore.build_train_network": ("level", ("network", "optimizer", "loss_fn", "level", "boost_level")),
    "mindspore.auto_mixed_precision": ("amp_level", ("network", "amp_level", "dtype")),
}


def _code(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)


def amp_calls(ctx) -> Iterator[Tuple[cst.Call, str, cst.Arg]]:
    """(call, API, level argument) of every AMP entry point given a literal level."""
    f = facts(ctx)
    for api, (param, signature) in AMP_APIS.items():
        for call in f.called(api):
            arg = argument(call, param, signature)
            if arg is not None and isinstance(constant(ctx, arg.value), str):
                yield call, api, arg


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
    name = "amp-o2-batchnorm-float16-gpu"
    checklist = "mp.01"
    severity = Severity.WARNING
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
        for call, _api, level in amp_calls(self.ctx):
            if constant(self.ctx, level.value) != "O2":
                continue
            keep = argument(call, "keep_batchnorm_fp32", ())
            if keep is not None and constant(self.ctx, keep.value) is False:
                self.report(call)


class AmpLevelInPort(Rule):
    code = "MSA407"
    name = "amp-o2-o3-in-port"
    checklist = "mp.01"
    severity = Severity.INFO
    uses_facts = True
    message = "O2/O3 mixed precision in a PyTorch port: torch.autocast kept softmax, log, exp, norms and losses in float32"
    what = ("Reports `amp_level`/`level` 'O2' or 'O3' given to `Model`, `amp.build_train_network` or "
            "`amp.auto_mixed_precision` in a file that converts or loads PyTorch weights (it imports torch or "
            "a `*_torch`/`convert*` module, or loads a `.pth` checkpoint). A review item, on in the port "
            "profile."
            " Field check (docs/evaluation/field.md, issue 14 rules): no finding on the four tuning repositories of bench/field/protocol.toml (6,045 files), so its precision is not measured yet.")
    why = ("A PyTorch script under `torch.autocast` runs matrix products in float16 but keeps softmax, exp, "
           "log, the norms and the losses in float32. MindSpore's O2 casts everything except BatchNorm and "
           "LayerNorm to float16 (2.10: `amp.get_black_list()` is BatchNorm1d/2d/3d and LayerNorm) and O3 "
           "casts everything: attention softmax and in-network losses then overflow or underflow. 'O1' "
           "(a white list of matmul/conv-type operators) or 'auto' (2.4+) is the autocast analogue.")
    example = """
    import mindspore as ms
    from convert_torch import load_torch_weights
    load_torch_weights(net, "vit_b16.pth")
    model = ms.Model(net, loss, opt, amp_level="O3")  # MSA407
    """
    use_instead = """
    import mindspore as ms
    from convert_torch import load_torch_weights
    load_torch_weights(net, "vit_b16.pth")
    model = ms.Model(net, loss, opt, amp_level="O1")
    """
    fix_safety = "No automatic fix."
    versions = "O1 white list from 1.x; 'auto' from 2.4; the O2 black list checked on 2.10."
    VALID = (
        Valid(use_instead, note="O1: the autocast analogue"),
        Valid("""
            import mindspore as ms
            model = ms.Model(net, loss, opt, amp_level="O2")
            """, note="MindSpore-native code"),
        Valid("""
            import torch
            import mindspore as ms
            model = ms.Model(net, loss, opt, amp_level="O0")
            """, note="float32"),
        Valid("""
            import torch
            import mindspore
            with torch.autocast("cuda"):
                out = model(x)
            """, note="PyTorch itself"),
    )
    INVALID = (
        Invalid(example, note="a ViT port with O3"),
        Invalid("""
            import torch
            import mindspore as ms
            from mindspore import amp
            state = torch.load("bert.pt")
            net = amp.auto_mixed_precision(net, "O2")  # MSA407
            """),
    )

    def finish(self) -> None:
        if port_evidence(self.ctx) is None:
            return
        for call, _api, level in amp_calls(self.ctx):
            value = constant(self.ctx, level.value)
            if value in ("O2", "O3"):
                self.report(call, f"amp level {value} in a file that converts or loads PyTorch weights: "
                            + ("O3 casts every operator to float16" if value == "O3" else
                               "O2 keeps only BatchNorm and LayerNorm in float32")
                            + ", while torch.autocast kept softmax, exp, log, the norms and the losses in "
                            "float32; use 'O1' (or 'auto' on 2.4+) to match autocast")
