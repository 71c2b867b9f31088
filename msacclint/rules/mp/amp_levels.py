"""mp.01: mixed-precision levels that put more in float16 than the reference did.

- MSA406 (mp.01): ``amp_level="O2"`` with ``keep_batchnorm_fp32=False`` on a GPU target:
  BatchNorm too runs in float16.
- MSA408 (mp.01, warning): ``auto_mixed_precision(net, 'O3')`` on a network that builds a
  BatchNorm, with no ``to_float`` afterwards: BatchNorm runs in float16.
- MSA407 (mp.01, info): ``amp_level`` "O2"/"O3" in a file ported from PyTorch (it converts
  or loads PyTorch weights): ``torch.autocast`` keeps softmax, log, exp, norms and losses
  in float32; O2 keeps only BatchNorm and LayerNorm, O3 nothing.
"""

from __future__ import annotations

from typing import Iterator, Optional, Tuple

import libcst as cst

from msacclint.analysis.calls import UNKNOWN, argument, constant
from msacclint.analysis.facts import facts
from msacclint.analysis.port import port_evidence
from msacclint.diagnostics import Severity
from msacclint.rules.base import Invalid, Rule, Valid
from msacclint.rules.examples import fill
from msacclint.rules.function_rule import InFunctionRule

#: API -> (name of the level argument, positional signature)
_MODEL_SIG = ("network", "loss_fn", "optimizer", "metrics", "eval_network", "eval_indexes", "amp_level", "boost_level")
AMP_APIS = {
    # canonical names (msacclint.analysis.imports.canonical folds mindspore.train/amp aliases)
    "mindspore.Model": ("amp_level", _MODEL_SIG),
    "mindspore.build_train_network": ("level", ("network", "optimizer", "loss_fn", "level", "boost_level")),
    "mindspore.auto_mixed_precision": ("amp_level", ("network", "amp_level", "dtype")),
}


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
    about_the_run = True
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


_AUTO_MP = "mindspore.auto_mixed_precision"

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
        if self.ctx.resolve(node.func) != _AUTO_MP:
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
