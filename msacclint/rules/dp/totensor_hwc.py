"""MSA306 (dp.01, MS-VIS-02, info): ToTensor then Normalize without is_hwc=False."""

from __future__ import annotations

import libcst as cst

from msacclint.analysis.calls import argument, has_star_kwargs
from msacclint.analysis.transforms import is_py_transform, vision_calls, vision_name
from msacclint.analysis.walk import walk
from msacclint.diagnostics import Applicability, Severity
from msacclint.rules.base import FixSpec, Invalid, Rule, Valid


class ToTensorThenNormalizeHwc(Rule):
    code = "MSA306"
    name = "totensor-then-normalize-hwc"
    checklist = "dp.01"
    severity = Severity.INFO
    group = "review"
    uses_facts = True
    message = "vision.Normalize after vision.ToTensor without is_hwc=False"
    what = ("Reports `vision.Normalize(...)` placed after `vision.ToTensor()` in the same list of operations "
            "without `is_hwc=False`.")
    why = ("ToTensor outputs CHW while Normalize assumes HWC by default (MS-VIS-02): it raises for most "
           "images, and for images whose width equals the channel count it silently normalises the wrong axis.")
    example = """
        import mindspore.dataset as ds
        import mindspore.dataset.vision as vision
        trans = [vision.Decode(to_pil=True), vision.ToTensor(), vision.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])]  # MSA306
    """
    use_instead = """
        import mindspore.dataset as ds
        import mindspore.dataset.vision as vision
        trans = [vision.Decode(to_pil=True), vision.ToTensor(), vision.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225], is_hwc=False)]
    """
    fix_safety = "Unsafe: adds `is_hwc=False`, which changes which axis is normalised (to the intended one)."
    versions = "MindSpore 2.x vision API (is_hwc since 1.8)."
    references = ("rules/api_defaults.toml, entry MS-VIS-02",)
    VALID = (
        Valid("""
            import mindspore.dataset as ds
            import mindspore.dataset.vision as vision
            trans = [vision.Decode(to_pil=True), vision.ToTensor(), vision.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225], is_hwc=False)]
        """, note="idiomatic"),
        Valid("""
            import mindspore.dataset as ds
            import mindspore.dataset.vision as vision
            trans = [vision.Decode(), vision.Normalize(mean=[0.485 * 255, 0.456 * 255, 0.406 * 255], std=[0.229 * 255, 0.224 * 255, 0.225 * 255]), vision.HWC2CHW()]
        """, note="Normalize before HWC2CHW"),
        Valid("""
            import mindspore
            import torchvision.transforms as T
            trans = T.Compose([T.ToTensor(), T.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])])
        """, note="torchvision"),
        Valid("""
            import mindspore.dataset.vision.py_transforms as P
            trans = [P.Decode(), P.ToTensor(), P.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])]
        """, note="1.x py_transforms work on CHW"),
    )
    INVALID = (
        Invalid("""
            import mindspore.dataset as ds
            import mindspore.dataset.vision as vision
            trans = [vision.Decode(to_pil=True), vision.ToTensor(), vision.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])]  # MSA306
        """, unsafe_fixed="""
            import mindspore.dataset as ds
            import mindspore.dataset.vision as vision
            trans = [vision.Decode(to_pil=True), vision.ToTensor(), vision.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225], is_hwc=False)]
        """, note="the torchvision order"),
        Invalid("""
            from mindspore.dataset.vision import ToTensor, Normalize
            from mindspore.dataset.transforms import Compose
            trans = Compose([ToTensor(), Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])])  # MSA306
        """),
    )

    def finish(self) -> None:
        for call in vision_calls(self.ctx, "Normalize"):
            if is_py_transform(self.ctx, call) or argument(call, "is_hwc", ("mean", "std", "is_hwc")) is not None:
                continue
            if has_star_kwargs(call) or not self._after_to_tensor(call):
                continue
            new_arg = cst.Arg(value=cst.Name("False"), keyword=cst.Name("is_hwc"),
                              equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                                    whitespace_after=cst.SimpleWhitespace("")))
            args = list(call.args)
            if args:
                args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
            self.report(call, "vision.Normalize after ToTensor (CHW output) without is_hwc=False: Normalize assumes HWC",
                        FixSpec("add is_hwc=False", Applicability.UNSAFE, [(call, call.with_changes(args=args + [new_arg]))]))

    def _after_to_tensor(self, call: cst.Call) -> bool:
        for seq in _sequences(self.ctx.module):
            elements = [e.value for e in seq.elements]
            if call not in elements:
                continue
            before = elements[: elements.index(call)]
            return any(isinstance(e, cst.Call) and vision_name(self.ctx.resolve(e.func)) == "ToTensor"
                       and not is_py_transform(self.ctx, e) for e in before)
        return False


def _sequences(module: cst.Module):
    found = []

    class Lists(cst.CSTVisitor):
        def visit_List(self, node: cst.List) -> None:
            found.append(node)

        def visit_Tuple(self, node: cst.Tuple) -> None:
            found.append(node)

    walk(module, Lists())
    return found
