"""MSA408 (mp.01, warning): ``auto_mixed_precision(net, 'O3')`` on a network that builds a
BatchNorm, with no ``to_float`` afterwards: BatchNorm runs in float16."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from msacclint.analysis.calls import UNKNOWN, argument, constant
from msacclint.diagnostics import Severity
from msacclint.rules.base import Invalid, Valid
from msacclint.rules.examples import fill
from msacclint.rules.function_rule import InFunctionRule
from msacclint.rules.mp.amp_calls import AUTO_MP

#: a project whose network builds its BatchNorm through a helper returning the class
_NORM_HELPER = """
    import mindspore.nn as nn

    def get_bn():
        return nn.BatchNorm2d

    class Seg(nn.Cell):
        def __init__(self):
            super().__init__()
            norm = get_bn()
            self.conv = nn.Conv2d(3, 8, 3)
            self.bn = norm(8)

        def construct(self, x):
            return self.bn(self.conv(x))
"""
_ENTRY = """
    import argparse
    import mindspore as ms
    from src.seg import Seg

    parser = argparse.ArgumentParser()
    parser.add_argument("--amp_level", default="{level}")
    args = parser.parse_args()
    network = Seg()
    ms.amp.auto_mixed_precision(network, args.amp_level){mark}
"""


class O3CastsBatchNorm(InFunctionRule):
    code = "MSA408"
    about_the_run = True
    name = "auto-mixed-precision-o3-batchnorm"
    checklist = "mp.01"
    severity = Severity.WARNING
    group = "suspicious"
    message = "auto_mixed_precision(net, 'O3') casts the network's BatchNorm to float16 as well"
    what = ("Reports `amp.auto_mixed_precision(net, 'O3')` when the level is 'O3' (a literal, or every value "
            "the project gives the name passed: a config key, an argparse default), `net` was built in the same "
            "function (or at module level) by a class that builds a BatchNorm (in the file or, with the project "
            "layer, anywhere in the repository, through its sub-cells), and no `.to_float(...)` call follows in "
            "that function. The message names the BatchNorm it found. Written from a history case (HRNet-OCR's "
            "training script, fixed by casting every BatchNorm back to float32).")
    why = ("O3 casts every cell to float16. `Model` and `build_train_network` take `keep_batchnorm_fp32` to "
           "keep BatchNorm in float32; `auto_mixed_precision` has no such argument, so BatchNorm's statistics "
           "and normalisation run in float16 (variance overflow and rounding), and the moving statistics "
           "evaluation uses drift. 'O2' keeps BatchNorm in float32; with O3, cast the BatchNorm cells back "
           "with `cell.to_float(mindspore.float32)`.")
    example = """
        import mindspore as ms
        from mindspore import nn

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.conv = nn.Conv2d(3, 16, 3)
                self.bn = nn.BatchNorm2d(16)

            def construct(self, x):
                return self.bn(self.conv(x))

        def main():
            network = Net()
            ms.amp.auto_mixed_precision(network, "O3")  # MSA408
    """
    use_instead = """
        def main():
            network = Net()
            ms.amp.auto_mixed_precision(network, "O2")
    """
    fix_safety = "No automatic fix."
    versions = "Every 2.x version: auto_mixed_precision(network, amp_level, dtype) has no keep_batchnorm_fp32."
    VALID = (
        Valid(example.replace('"O3")  # MSA408', '"O2")'), note="O2 keeps BatchNorm in float32"),
        Valid(example.replace("  # MSA408", "") + """
            for _, cell in network.cells_and_names():
                if isinstance(cell, nn.BatchNorm2d):
                    cell.to_float(ms.float32)
        """, note="the BatchNorm cells cast back after the call"),
        Valid(example.replace("  # MSA408", "").replace("self.bn = nn.BatchNorm2d(16)", "self.bn = nn.ReLU()"),
              note="a network without BatchNorm"),
        Valid("""
            import mindspore as ms
            def main(network):
                ms.amp.auto_mixed_precision(network, "O3")
        """, note="a network the rule cannot see"),
        Valid(files={"src/__init__.py": "", "src/seg.py": _NORM_HELPER,
                     "train.py": fill(_ENTRY, level="O2", mark="")},
              note="the level's default is O2"),
        Valid("""
            import torch
            from torch import nn
            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.bn = nn.BatchNorm2d(16)
            network = Net().half()
        """, note="PyTorch"),
    )
    INVALID = (
        Invalid(example, note="the level written as a literal"),
        Invalid(example.replace('ms.amp.auto_mixed_precision(network, "O3")  # MSA408', """\
ms.amp.auto_mixed_precision(network, "O3")  # MSA408
            loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True).to_float(ms.float32)"""),
                note="a new loss cell cast to float32 is not the network's BatchNorm"),
        Invalid(files={"src/__init__.py": "", "src/seg.py": _NORM_HELPER,
                       "train.py": fill(_ENTRY, level="O3", mark="  # MSA408")},
                note="the level from an argparse default, the BatchNorm class from a helper in src/"),
        Invalid(example.replace("class Net(nn.Cell):", "class Body(nn.Cell):").replace("        def main():", """\
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.body = Body()

            def construct(self, x):
                return self.body(x)

        def main():"""), note="the BatchNorm in a sub-cell"),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if self.ctx.resolve(node.func) != AUTO_MP:
            return
        level = self._level(node)
        if level is None:
            return
        network = argument(node, "network", ("network", "amp_level", "dtype"))
        if network is None or not isinstance(network.value, cst.Name):
            return
        built = self._built_by(network.value)
        if built is None or self._cast_back_after(node):
            return
        where = self._batch_norm(built)
        if where is None:
            return
        self.report(node, f"auto_mixed_precision(..., 'O3'){level} casts every cell of `{network.value.value}` to "
                    f"float16, its {where} included (auto_mixed_precision has no keep_batchnorm_fp32): BatchNorm "
                    "statistics then run in float16; use 'O2', or cast the BatchNorm cells back with "
                    "to_float(mindspore.float32) after this call")

    def _level(self, call: cst.Call) -> Optional[str]:
        """"" for a literal 'O3', " (the level read at FILE:LINE)" for one the project resolves
        to 'O3' in every alternative; None otherwise."""

        from msacclint.analysis.imports import dotted

        arg = argument(call, "amp_level", ("network", "amp_level", "dtype"))
        if arg is None:
            return None
        value = constant(self.ctx, arg.value)
        if value is not UNKNOWN:
            return "" if value == "O3" else None
        name, project = dotted(arg.value), self.ctx.project
        if name is None or project is None:
            return None
        values = project.values_seen_from(self.ctx, name)
        if not values or any(v.value != "O3" for v in values):
            return None
        shown = next((v.evidence for v in values if v.evidence is not None), None)
        return f" (the level, from {shown.path}:{shown.line})" if shown is not None else ""

    def _built_by(self, name: cst.Name) -> Optional[str]:
        """The class (as written) whose call built ``name`` in this function or at module level."""
        from msacclint.analysis.loss_scale import defined_value

        value = defined_value(self.ctx, self.scope, name)
        if not isinstance(value, cst.Call) or not isinstance(value.func, (cst.Name, cst.Attribute)):
            return None
        return cst.Module([]).code_for_node(value.func)

    def _cast_back_after(self, call: cst.Call) -> bool:
        """A ``.to_float(...)`` call after this one in the same function (or module, at top
        level), on anything but a cell built in the same expression (``Loss().to_float(...)``
        casts that new cell, not the network's BatchNorm)."""
        from msacclint.analysis.walk import descendants

        scope = self.scope if self.scope is not None else self.ctx.module
        after = False
        for node in descendants(scope):
            if node is call:
                after = True
            elif after and isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and \
                    node.func.attr.value == "to_float" and not isinstance(node.func.value, cst.Call):
                return True
        return False

    def _batch_norm(self, cls: str) -> Optional[str]:
        """``the BatchNorm2d at FILE:LINE`` when the class builds one."""
        import os

        from msacclint.analysis.cells import layer_built
        from msacclint.project.index import BATCH_NORMS

        project = self.ctx.project
        if project is not None:
            found = project.builds_layer(os.path.abspath(self.ctx.path), cls, BATCH_NORMS)
            return f"{found.what} at {found.path}:{found.line}" if found is not None else None
        found_here = layer_built(self.ctx, cls, BATCH_NORMS)
        if found_here is None:
            return None
        layer, attr, owner = found_here
        return f"{layer.rsplit('.', 1)[-1]} (self.{attr} of {owner})"
