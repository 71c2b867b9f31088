"""tool.03: suggest the ``port`` group where a file converts or loads PyTorch weights.

- MSA003 (tool.03, info, off by default): one finding per file that shows it is part of a
  port from PyTorch, while the port group's rules are not selected.
"""

from __future__ import annotations

from msacclint.analysis.port import torch_weights
from msacclint.diagnostics import Severity
from msacclint.rules.base import Invalid, Rule, Valid
from msacclint.rules.profiles import PORT


class PortProfileSuggested(Rule):
    code = "MSA003"
    name = "port-profile-suggested"
    checklist = "tool.03"
    severity = Severity.INFO
    group = "port"
    message = ("this file converts or loads PyTorch weights: run with `--extend-select port` (extend-select = [\"port\"]) to "
               "check the defaults that differ from PyTorch")
    what = ("Reports, once per file that imports MindSpore, the first call that loads PyTorch weights - a "
            "resolved PyTorch checkpoint reader (`torch.load`, `load_state_dict_from_url`, safetensors' torch "
            "loaders), `load_checkpoint` of a literal `.pth`/`.pt` path, or a call into a conversion module "
            "(`*_torch`, `torch2*`, `*2ms`, `pth2*`, or `convert*` in a file that names torch) - when the `port` "
            "group's rules are not all selected. A torch import alone (a test comparing outputs) is not "
            "enough, and file names are never read. Off by default like every info finding (any finding fails a "
            "pre-commit or CI run); `msacclint check` and `msacclint report` suggest the group once per run "
            "from the same evidence (msacclint.analysis.port.torch_weights). Field check on the four tuning "
            "repositories (docs/evaluation/field.md, issue 14 rules): 54 findings, 54 true (every file converts "
            "or loads PyTorch weights for MindSpore) after two families were resolved - 20 calls of a "
            "MindSpore-to-PyTorch conversion (`ms2pt`) and a checkpoint read into a PyTorch module "
            "(`load_state_dict(torch.load(...))`).")
    why = ("Several MindSpore defaults are deliberate in MindSpore-native code but wrong for a network that "
           "receives PyTorch weights: LayerNorm epsilon (1e-7 vs 1e-5), GELU's tanh approximation, Softmax "
           "and L2Normalize axes, Embedding and initializer sigmas, Conv pad_mode 'same', weight decay on "
           "every parameter, ops.CTCLoss's blank, the trained padding row of Embedding, O2/O3 mixed "
           "precision. Those rules are off by default to stay quiet on native code; `--extend-select port` turns them on.")
    example = """
    import torch
    import mindspore as ms
    params = torch.load("resnet50.pth")  # MSA003
    """
    use_instead = """
    # pyproject.toml: [tool.msacclint] extend-select = ["port"]
    import mindspore as ms
    ms.load_checkpoint("resnet50.ckpt", net)
    """
    fix_safety = "No fix: select the group in the configuration or on the command line."
    versions = "All releases."
    VALID = (
        Valid(use_instead, note="native code"),
        Valid("""
            import mindspore as ms
            from mindspore import nn
            from src.model import convert_channels
            """, note="a helper named convert_*, not a conversion module"),
        Valid("""
            import torch
            model = torch.load("resnet50.pth")
            """, note="PyTorch alone (not a MindSpore file)"),
        Valid("""
            import numpy as np
            import torch
            import mindspore as ms
            expected = torch.nn.functional.gelu(torch.tensor(x)).numpy()
            np.testing.assert_allclose(ms.ops.gelu(ms.Tensor(x)).asnumpy(), expected, rtol=1e-5)
            """, note="torch imported to compare outputs, no weights loaded"),
        Valid("""
            import torch
            import mindspore as ms
            from tools.convert_utils import ms2pt
            ref = TorchNet()
            ref.load_state_dict(torch.load("ref.pth"))
            torch.save(ms2pt(ms.load_checkpoint("net.ckpt")), "net.pth")
            """, note="weights read into a PyTorch module, and a conversion to PyTorch"),
    )
    INVALID = (
        Invalid(example, note="a conversion script"),
        Invalid("""
            import mindspore as ms
            from utils.convert_torch import pth_to_ckpt
            ms.load_param_into_net(net, pth_to_ckpt("vit.pth"))  # MSA003
            """, note="a conversion module"),
        Invalid("""
            import mindspore as ms
            ms.load_checkpoint("weights/resnet50_torch.pth", net)  # MSA003
            """, note="a PyTorch checkpoint given to load_checkpoint"),
    )

    def finish(self) -> None:
        enabled = self.ctx.settings.enabled
        if all(code in enabled for code in PORT if code != self.code):
            return
        found = torch_weights(self.ctx)
        if found is not None:
            node, what = found
            self.report(node, f"this file {what}: run with `--extend-select port` (extend-select = [\"port\"]) to check the "
                        "defaults that differ from PyTorch")
