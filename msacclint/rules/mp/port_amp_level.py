"""MSA407 (mp.01, info): ``amp_level`` "O2"/"O3" in a file ported from PyTorch (it converts
or loads PyTorch weights): ``torch.autocast`` keeps softmax, log, exp, norms and losses in
float32; O2 keeps only BatchNorm and LayerNorm, O3 nothing."""

from __future__ import annotations

from msacclint.analysis.calls import constant
from msacclint.analysis.port import port_evidence
from msacclint.diagnostics import Severity
from msacclint.rules.base import Invalid, Rule, Valid
from msacclint.rules.mp.amp_calls import calls_with_level


class AmpLevelInPort(Rule):
    code = "MSA407"
    name = "amp-o2-o3-in-port"
    checklist = "mp.01"
    severity = Severity.INFO
    group = "port"
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
        for call, _api, level in calls_with_level(self.ctx):
            value = constant(self.ctx, level.value)
            if value in ("O2", "O3"):
                self.report(call, f"amp level {value} in a file that converts or loads PyTorch weights: "
                            + ("O3 casts every operator to float16" if value == "O3" else
                               "O2 keeps only BatchNorm and LayerNorm in float32")
                            + ", while torch.autocast kept softmax, exp, log, the norms and the losses in "
                            "float32; use 'O1' (or 'auto' on 2.4+) to match autocast")
