"""MSA304 (dp.01, info): images are decoded but never normalised or rescaled."""

from __future__ import annotations

import libcst as cst

from msacclint.analysis.calls import argument, literal
from msacclint.analysis.facts import facts
from msacclint.analysis.transforms import rescales, vision_calls
from msacclint.diagnostics import Severity
from msacclint.rules.base import Invalid, Rule, Valid


class DecodedNotNormalised(Rule):
    code = "MSA304"
    name = "decoded-images-not-normalised"
    checklist = "dp.01"
    severity = Severity.INFO
    group = "review"
    uses_facts = True
    message = "images are decoded but never normalised or rescaled"
    what = ("Reports `vision.Decode()` (or a dataset read with `decode=True`) in a file that never "
            "normalises or rescales images: no Normalize, NormalizePad, Rescale or ToTensor, and no 255 "
            "anywhere. Silent when the operations come from another module.")
    why = "Raw 0-255 inputs slow or stop convergence and do not match pretrained weights (checklist dp.01)."
    example = """
        import mindspore.dataset as ds
        import mindspore.dataset.vision as vision
        trans = [vision.Decode(), vision.Resize(224), vision.HWC2CHW()]  # MSA304
    """
    use_instead = """
        import mindspore.dataset as ds
        import mindspore.dataset.vision as vision
        trans = [vision.Decode(), vision.Resize(224), vision.Normalize(mean=[0.485 * 255, 0.456 * 255, 0.406 * 255], std=[0.229 * 255, 0.224 * 255, 0.225 * 255]), vision.HWC2CHW()]
    """
    fix_safety = "No automatic fix."
    versions = "All MindSpore releases."
    VALID = (
        Valid("""
            import mindspore.dataset as ds
            import mindspore.dataset.vision as vision
            trans = [vision.Decode(), vision.Resize(224), vision.Normalize(mean=[0.485 * 255, 0.456 * 255, 0.406 * 255], std=[0.229 * 255, 0.224 * 255, 0.225 * 255]), vision.HWC2CHW()]
        """, note="idiomatic"),
        Valid("""
            import mindspore.dataset as ds
            import mindspore.dataset.vision as vision
            trans = [vision.Decode(), vision.Rescale(1.0 / 255.0, 0.0), vision.HWC2CHW()]
        """),
        Valid("""
            import mindspore.dataset as ds
            import mindspore.dataset.vision as vision
            from .transforms import build_transforms
            data = data.map(operations=[vision.Decode()] + build_transforms(cfg))
        """, note="another module"),
        Valid("""
            import mindspore
            import torchvision.transforms as T
            trans = T.Compose([T.Resize(224), T.ToTensor()])
        """, note="torchvision"),
    )
    INVALID = (
        Invalid("""
            import mindspore.dataset as ds
            import mindspore.dataset.vision as vision
            trans = [vision.Decode(), vision.Resize(224), vision.HWC2CHW()]  # MSA304
        """, note="ToTensor dropped in the port"),
        Invalid("""
            import mindspore.dataset as ds
            import mindspore.dataset.vision as vision
            data = ds.ImageFolderDataset(path, decode=True)  # MSA304
            data = data.map(operations=[vision.Resize(224)])
        """),
    )

    def finish(self) -> None:
        decodes = vision_calls(self.ctx, "Decode") or "decode" in self.ctx.source
        if not decodes or rescales(self.ctx) or vision_calls(self.ctx, "Normalize") or _imports_relative_or_local(self.ctx):
            return
        for call in vision_calls(self.ctx, "Decode"):
            self.report(call, "images are decoded but never normalised or rescaled: add Normalize (mean/std on the "
                        "0-255 scale) or Rescale(1/255)")
            return
        for callee, calls in facts(self.ctx).calls.items():
            if callee.startswith("mindspore.dataset.") and callee.endswith("Dataset"):
                for call in calls:
                    decode = argument(call, "decode", ())
                    if decode is not None and literal(decode.value) is True:
                        self.report(call, "images are decoded but never normalised or rescaled")
                        return


def _imports_relative_or_local(ctx) -> bool:
    """The file takes operations from its own project (relative or non-mindspore imports of
    names that look like transforms): they may normalise."""
    for module in ctx.module.body:
        if isinstance(module, cst.SimpleStatementLine):
            for small in module.body:
                if isinstance(small, cst.ImportFrom) and (small.relative or not _is_library(small)):
                    return True
    return False


def _is_library(node: cst.ImportFrom) -> bool:
    from msacclint.analysis.imports import dotted

    name = dotted(node.module) if node.module is not None else ""
    return (name or "").split(".")[0] in ("mindspore", "numpy", "os", "sys", "math", "argparse", "time",
                                           "random", "typing", "torch", "torchvision", "PIL", "cv2")
