"""MSA305 (dp.01, MS-VIS-01): Normalize with [0, 1]-scale mean on a uint8 pipeline."""

from __future__ import annotations

from typing import Optional, Tuple

import libcst as cst

from msacclint.analysis.calls import argument, has_star_kwargs, is_number, literal
from msacclint.analysis.scopes import scopes
from msacclint.analysis.transforms import is_py_transform, rescales, uint8_source, vision_calls
from msacclint.diagnostics import Severity
from msacclint.rules.base import Invalid, Rule, Valid


def _literal_values(ctx, call: cst.Call, name: str, position: int) -> Optional[Tuple[float, ...]]:
    arg = argument(call, name, ("mean", "std", "is_hwc")[: position + 1])
    if arg is None:
        return None
    expr = arg.value
    if isinstance(expr, cst.Name):
        fl = scopes(ctx).owner(call)
        found = scopes(ctx).resolve(fl, expr.value, fl.order(call)) if fl is not None else None
        if found is None:
            return None
        expr = found[1].value
    value = literal(expr)
    if isinstance(value, tuple) and value and all(is_number(v) for v in value):
        return value
    return None


class NormalizeOnPixelScale(Rule):
    code = "MSA305"
    name = "normalize-mean-on-wrong-scale"
    checklist = "dp.01"
    severity = Severity.ERROR
    group = "correctness"
    evidence = ('Resolved in the file: the images are uint8 (Decode or a Cifar/Mnist reader), the Normalize mean '
                'values are literals at most 1, and nothing rescales (no Rescale, ToTensor or 255 anywhere in the '
                'file).')
    uses_facts = True
    message = "vision.Normalize with [0, 1]-scale mean/std on a uint8 image pipeline"
    what = ("Reports `vision.Normalize(mean, std)` whose mean values are all at most 1 (the torchvision "
            "convention for inputs already in [0, 1]) in a file whose images are uint8 (Decode, Cifar/Mnist) "
            "and that never rescales them (no Rescale, ToTensor or 255 anywhere).")
    why = ("`vision.Normalize` has no implicit /255 (MS-VIS-01, verified on 2.10): torchvision's ImageNet "
           "mean/std on raw pixels give inputs around +560 instead of around 0. The network still trains, "
           "badly, and pretrained weights are useless.")
    example = """
        import mindspore.dataset as ds
        import mindspore.dataset.vision as vision
        trans = [vision.Decode(), vision.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225]), vision.HWC2CHW()]  # MSA305
    """
    use_instead = """
        import mindspore.dataset as ds
        import mindspore.dataset.vision as vision
        trans = [vision.Decode(), vision.Normalize(mean=[0.485 * 255, 0.456 * 255, 0.406 * 255], std=[0.229 * 255, 0.224 * 255, 0.225 * 255]), vision.HWC2CHW()]
    """
    fix_safety = "No automatic fix: Rescale(1/255) before it and mean*255 are both right; the choice is the user's."
    versions = "All MindSpore 1.x (c_transforms) and 2.x releases."
    references = ("rules/api_defaults.toml, entry MS-VIS-01",)
    VALID = (
        Valid("""
            import mindspore.dataset as ds
            import mindspore.dataset.vision as vision
            trans = [vision.Decode(), vision.Normalize(mean=[0.485 * 255, 0.456 * 255, 0.406 * 255], std=[0.229 * 255, 0.224 * 255, 0.225 * 255]), vision.HWC2CHW()]
        """, note="idiomatic: mean and std on the 0-255 scale"),
        Valid("""
            import mindspore.dataset as ds
            import mindspore.dataset.vision as vision
            trans = [vision.Decode(), vision.Rescale(1.0 / 255.0, 0.0), vision.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225]), vision.HWC2CHW()]
        """, note="rescaled first"),
        Valid("""
            import mindspore.dataset as ds
            import mindspore.dataset.vision as vision
            trans = [vision.Decode(to_pil=True), vision.ToTensor(), vision.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225], is_hwc=False)]
        """),
        Valid("""
            import mindspore
            import torchvision.transforms as T
            trans = T.Compose([T.ToTensor(), T.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])])
        """, note="torchvision"),
        Valid("""
            import mindspore.dataset as ds
            import mindspore.dataset.vision as vision
            trans = [vision.Decode(), vision.Normalize(mean=cfg.mean, std=cfg.std)]
        """, note="unknown values"),
    )
    INVALID = (
        Invalid("""
            import mindspore.dataset as ds
            import mindspore.dataset.vision as vision
            trans = [vision.Decode(), vision.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225]), vision.HWC2CHW()]  # MSA305
        """, note="torchvision's mean/std ported as is"),
        Invalid("""
            import mindspore.dataset as ds
            import mindspore.dataset.vision as vision
            MEAN = [0.4914, 0.4822, 0.4465]
            STD = [0.247, 0.243, 0.261]
            def create_dataset(path):
                data = ds.Cifar10Dataset(path)
                return data.map(operations=[vision.Normalize(MEAN, STD), vision.HWC2CHW()], input_columns='image')  # MSA305
        """),
    )

    def finish(self) -> None:
        calls = [c for c in vision_calls(self.ctx, "Normalize") if not is_py_transform(self.ctx, c)]
        if not calls or rescales(self.ctx) or not uint8_source(self.ctx):
            return
        for call in calls:
            if has_star_kwargs(call):
                continue
            mean = _literal_values(self.ctx, call, "mean", 0)
            if mean is None or max(mean) > 1 or max(mean) <= 0:
                continue
            self.report(call, f"vision.Normalize(mean={list(mean)}) on uint8 pixels (0-255): Normalize does not divide "
                        f"by 255, so inputs end up in the hundreds; multiply mean and std by 255 or Rescale(1/255) first")
