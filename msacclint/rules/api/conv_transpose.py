"""MSA110 (MS-CONV-04, warning): ``nn.Conv*Transpose`` without ``pad_mode`` and ``has_bias`` whose
kernel size differs from its stride: MindSpore's 'same' gives ``in * stride``, PyTorch's
padding=0 gives ``(in - 1) * stride + kernel``."""

from __future__ import annotations

import libcst as cst

from msacclint.rules.api.conv_layers import conv_fixes, conv_name, transpose_size_differs
from msacclint.rules.base import Invalid, Rule, Valid
from msacclint.rules.table import TableRuleMixin


class ConvTransposeDefaults(TableRuleMixin, Rule, entry_id="MS-CONV-04"):
    code = "MSA110"
    group = "port"
    name = "conv-transpose-defaults"
    message = "Conv*Transpose without pad_mode and has_bias: output size and bias differ from PyTorch's"
    what = ("Reports `nn.Conv1dTranspose/Conv2dTranspose/Conv3dTranspose` calls that give neither "
            "`pad_mode`, `padding` nor `has_bias` and whose literal kernel size differs from the stride.")
    why = ("MindSpore's defaults are pad_mode='same' (output = in * stride) and no bias; PyTorch's "
           "ConvTranspose2d has padding=0 (output = (in - 1) * stride + kernel) and a bias. A decoder "
           "or generator ported as is produces a different size (8x8 instead of 10x10 for k=4, s=2 "
           "on 4x4) without bias; silent when a crop or resize aligns the sizes afterwards.")
    example = """
        import mindspore.nn as nn
        up = nn.Conv2dTranspose(64, 32, 4, 2)  # MSA110
    """
    use_instead = """
        import mindspore.nn as nn
        up = nn.Conv2dTranspose(64, 32, 4, 2, pad_mode='pad', padding=1, has_bias=True)
    """
    fix_safety = ("Unsafe fix: `pad_mode='pad', has_bias=True`, PyTorch's geometry (padding 0) and bias. "
                  "Keep this behaviour (not a fix; `--add-explicit` only): `pad_mode='same', has_bias=False`.")
    versions = "Defaults unchanged from 1.x to 2.10."
    VALID = (
        Valid("""
            import mindspore.nn as nn
            up = nn.Conv2dTranspose(64, 32, 4, 2, pad_mode='pad', padding=1, has_bias=True)
        """),
        Valid("""
            import mindspore.nn as nn
            up = nn.Conv2dTranspose(64, 32, 2, 2)
        """, note="kernel == stride: same size as PyTorch"),
        Valid("""
            import mindspore.nn as nn
            up = nn.Conv2dTranspose(64, 32, 4, 2, has_bias=True)
        """, note="an explicit choice"),
        Valid("""
            import torch.nn as nn
            up = nn.ConvTranspose2d(64, 32, 4, 2)
        """),
        Valid("""
            from mindspore import mint
            up = mint.nn.ConvTranspose2d(64, 32, 4, 2)
        """),
        Valid("""
            import mindspore.nn as nn
            up = nn.Conv2dTranspose(64, 32, cfg.kernel, cfg.stride)
        """, note="values not guessed"),
    )
    INVALID = (
        Invalid("""
            import mindspore.nn as nn
            up = nn.Conv2dTranspose(64, 32, 4, 2)  # MSA110
        """, explicit_fixed="""
            import mindspore.nn as nn
            up = nn.Conv2dTranspose(64, 32, 4, 2, pad_mode='same', has_bias=False)
        """, unsafe_fixed="""
            import mindspore.nn as nn
            up = nn.Conv2dTranspose(64, 32, 4, 2, pad_mode='pad', has_bias=True)
        """, note="ConvTranspose2d(64, 32, 4, 2) ported by renaming"),
        Invalid("""
            from mindspore import nn
            class Gen(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.up = nn.Conv1dTranspose(16, 8, kernel_size=3, stride=2)  # MSA110
        """),
        Invalid("""
            import mindspore.nn as nn
            up = nn.Conv3dTranspose(8, 8, kernel_size=(3, 3, 3))  # MSA110
        """),
    )

    def visit_Call(self, node: cst.Call) -> None:
        name = conv_name(self.ctx, node)
        if name is None or not transpose_size_differs(node, name):
            return
        short = name.replace("mindspore.", "", 1)
        self.report(node, f"{short} without pad_mode and has_bias: MindSpore pads 'same' (output = in * stride) "
                    f"and adds no bias, PyTorch's ConvTranspose has padding=0 (output = (in - 1) * stride + "
                    f"kernel) and a bias; write pad_mode='pad', padding=..., has_bias=True to match a PyTorch "
                    f"reference, or state the MindSpore defaults explicitly",
                    conv_fixes(node, {"pad_mode": "'same'", "has_bias": "False"},
                           {"pad_mode": "'pad'", "has_bias": "True"}))
