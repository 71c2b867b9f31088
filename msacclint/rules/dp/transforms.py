"""dp.01/dp.02: image preprocessing.

- MSA303 (dp.02): a Random* augmentation that also runs when the pipeline is not training.
- MSA304 (dp.01, info): images are decoded but never normalised or rescaled.
- MSA305 (dp.01, MS-VIS-01): Normalize with [0, 1]-scale mean on a uint8 pipeline.
- MSA306 (dp.01, MS-VIS-02, info): ToTensor then Normalize without is_hwc=False.
"""

from __future__ import annotations

from typing import Optional, Tuple

import libcst as cst

from msacclint.analysis.calls import argument, has_star_kwargs, is_number, literal
from msacclint.analysis.facts import facts
from msacclint.analysis.scopes import says_eval, scopes
from msacclint.analysis.transforms import (
    is_py_transform,
    rescales,
    runs_when_not_training,
    uint8_source,
    vision_calls,
    vision_name,
)
from msacclint.analysis.walk import walk
from msacclint.diagnostics import Applicability, Severity
from msacclint.rules.base import FixSpec, Invalid, Rule, Valid
from msacclint.rules.examples import fill

#: a project's own temporal transform ({draw}: how it picks the clip start)
_CLIP_TRANSFORM = """
    import random

    class TemporalCrop:
        def __init__(self, size):
            self.size = size

        def __call__(self, frames):
            begin = {draw}
            return frames[begin:begin + self.size]
"""
_EVAL_SCRIPT = """
    import mindspore as ms
    from src.transforms import TemporalCrop

    def main(config, net):
        temporal = TemporalCrop(config.duration){mark}
        data = build_video_dataset(config.val_path, temporal_transform=temporal)
        return ms.Model(net).eval(data)
"""


def _clip_case(draw: str, script: str = "eval.py", mark: str = "") -> dict:
    return {"src/__init__.py": "", "src/transforms.py": fill(_CLIP_TRANSFORM, draw=draw),
            script: fill(_EVAL_SCRIPT, mark=mark)}


class RandomAugmentationInEval(Rule):
    code = "MSA303"
    name = "random-augmentation-in-eval"
    checklist = "dp.02"
    severity = Severity.WARNING
    uses_facts = True
    message = "random augmentation also runs when the pipeline is not training"
    what = ("In a pipeline function with a train/eval parameter (`do_train`, `is_training`, `usage`, "
            "`mode`, ...), reports a `vision.Random*`/`transforms.Random*` operation that is built outside "
            "every branch on that parameter and reaches a `.map(...)` that the parameter does not choose "
            "either: evaluation data then goes through the random augmentation too. Also, in code that only "
            "evaluates (a function named for evaluation, or a script so named, in a file that trains nothing; "
            "pytest modules aside), a `Random*` operation, and a callable transform class of the project "
            "whose methods draw from `random`/`numpy.random` (the draw is quoted with its file and line).")
    why = ("Evaluation must see the same deterministic preprocessing every time (checklist dp.02). Random "
           "crops, flips or colour jitter in the eval pipeline make the metric noisy and systematically "
           "lower, and the difference from the reference goes unexplained.")
    example = """
        import mindspore.dataset as ds
        import mindspore.dataset.vision as vision
        def create_dataset(path, do_train):
            data = ds.ImageFolderDataset(path, shuffle=do_train)
            trans = [vision.Decode(), vision.RandomCrop(224), vision.HWC2CHW()]  # MSA303
            return data.map(operations=trans, input_columns='image')
    """
    use_instead = """
        import mindspore.dataset as ds
        import mindspore.dataset.vision as vision
        def create_dataset(path, do_train):
            data = ds.ImageFolderDataset(path, shuffle=do_train)
            if do_train:
                trans = [vision.Decode(), vision.RandomCrop(224), vision.HWC2CHW()]
            else:
                trans = [vision.Decode(), vision.CenterCrop(224), vision.HWC2CHW()]
            return data.map(operations=trans, input_columns='image')
    """
    fix_safety = "No automatic fix: the deterministic replacement (CenterCrop for RandomCrop, nothing for a flip) is a choice."
    versions = "All MindSpore 1.x and 2.x releases."
    VALID = (
        Valid("""
            import mindspore.dataset as ds
            import mindspore.dataset.vision as vision
            def create_dataset(path, do_train):
                data = ds.ImageFolderDataset(path, shuffle=do_train)
                if do_train:
                    trans = [vision.Decode(), vision.RandomCrop(224), vision.HWC2CHW()]
                else:
                    trans = [vision.Decode(), vision.CenterCrop(224), vision.HWC2CHW()]
                return data.map(operations=trans, input_columns='image')
        """, note="idiomatic"),
        Valid("""
            import mindspore.dataset as ds
            import mindspore.dataset.vision as vision
            def create_dataset(path, do_train):
                data = ds.ImageFolderDataset(path)
                train_trans = [vision.Decode(), vision.RandomHorizontalFlip()]
                eval_trans = [vision.Decode()]
                trans = train_trans if do_train else eval_trans
                return data.map(operations=trans)
        """, note="chosen by the flag"),
        Valid("""
            import mindspore.dataset as ds
            import mindspore.dataset.vision as vision
            def create_dataset(path, is_training=True):
                data = ds.ImageFolderDataset(path)
                if not is_training:
                    return data.map(operations=[vision.Decode()])
                return data.map(operations=[vision.Decode(), vision.RandomResizedCrop(224)])
        """, note="early return"),
        Valid("""
            import mindspore.dataset as ds
            import mindspore.dataset.vision as vision
            def train_pipeline(path):
                data = ds.ImageFolderDataset(path)
                return data.map(operations=[vision.Decode(), vision.RandomCrop(224)])
        """, note="no flag: a training-only function"),
        Valid("""
            import mindspore
            import torchvision.transforms as T
            def build(train):
                return T.Compose([T.RandomCrop(224), T.ToTensor()])
        """, note="torchvision"),
        Valid(files={
            "src/__init__.py": "",
            "src/dataset.py": """
                import mindspore.dataset as ds
                import mindspore.dataset.vision as vision

                def create_dataset(path, batch_size=32, do_train=True):
                    data = ds.ImageFolderDataset(path, shuffle=do_train)
                    if do_train:
                        trans = [vision.Decode(), vision.RandomCrop(224)]
                    else:
                        trans = [vision.Decode(), vision.CenterCrop(224)]
                    return data.map(operations=trans, input_columns="image").batch(batch_size)
            """,
            "eval.py": """
                import mindspore as ms
                from src.dataset import create_dataset

                def evaluate(net):
                    data = create_dataset("/data/val", 32, do_train=False)
                    return ms.Model(net).eval(data)
            """,
        }, note="multi-file: correct"),
        Valid(files={
            "src/__init__.py": "",
            "src/dataset.py": """
                import mindspore.dataset as ds
                import mindspore.dataset.vision as vision

                def create_dataset(path, batch_size=32, do_train=False):
                    data = ds.ImageFolderDataset(path, shuffle=do_train)
                    if do_train:
                        trans = [vision.Decode(), vision.RandomCrop(224)]
                    else:
                        trans = [vision.Decode(), vision.CenterCrop(224)]
                    return data.map(operations=trans, input_columns="image").batch(batch_size)
            """,
            "eval.py": """
                import mindspore as ms
                from src.dataset import create_dataset

                def evaluate(net):
                    data = create_dataset("/data/val", 32)
                    return ms.Model(net).eval(data)
            """,
        }, note="multi-file: lookalike eval default"),
        Valid(files=_clip_case("max(0, (len(frames) - self.size) // 2)"),
              note="the nearest look-alike: the project's clip transform takes the centre clip"),
        Valid(files=_clip_case("random.randint(0, max(0, len(frames) - self.size))", script="src/pipeline.py"),
              note="the random clip transform built outside evaluation code"),
        Valid("""
            import mindspore.dataset.vision as vision

            def test_random_crop_shape():
                out = vision.RandomCrop(8)(image)
                assert out.shape == (8, 8, 3)
        """, path="tests/test_vision.py", note="a pytest module testing the operation itself"),
    )
    INVALID = (
        Invalid("""
            import mindspore.dataset as ds
            import mindspore.dataset.vision as vision
            def create_dataset(path, do_train):
                data = ds.ImageFolderDataset(path, shuffle=do_train)
                trans = [vision.Decode(), vision.RandomCrop(224), vision.HWC2CHW()]  # MSA303
                return data.map(operations=trans, input_columns='image')
        """, note="a torchvision Compose ported without its train/eval split"),
        Invalid("""
            import mindspore.dataset as ds
            import mindspore.dataset.vision as vision
            def create_dataset(path, usage='train'):
                data = ds.Cifar10Dataset(path, usage=usage)
                ops = [vision.RandomCrop(32, padding=4)]  # MSA303
                if usage == 'train':
                    ops.append(vision.RandomHorizontalFlip())
                ops += [vision.Rescale(1 / 255, 0), vision.HWC2CHW()]
                return data.map(operations=ops, input_columns='image')
        """),
        Invalid(files={
            "src/__init__.py": "",
            "src/dataset.py": """
                import mindspore.dataset as ds
                import mindspore.dataset.vision as vision

                def create_dataset(path, batch_size=32, do_train=True):
                    data = ds.ImageFolderDataset(path, shuffle=do_train)
                    if do_train:
                        trans = [vision.Decode(), vision.RandomCrop(224)]
                    else:
                        trans = [vision.Decode(), vision.CenterCrop(224)]
                    return data.map(operations=trans, input_columns="image").batch(batch_size)
            """,
            "eval.py": """
                import mindspore as ms
                from src.dataset import create_dataset

                def evaluate(net):
                    data = create_dataset("/data/val", 32)  # MSA303
                    return ms.Model(net).eval(data)
            """,
        }, note="multi-file: bug"),
        Invalid(files=_clip_case("random.randint(0, max(0, len(frames) - self.size))", mark="  # MSA303"),
                note="multi-file: the project's own clip transform draws a random start, built by an evaluation "
                     "script", message_contains="src/transforms.py"),
        Invalid("""
            import mindspore as ms
            import mindspore.dataset.vision as vision

            def evaluate(net, path):
                data = ms.dataset.ImageFolderDataset(path)
                data = data.map([vision.Decode(), vision.RandomResizedCrop(224)], input_columns="image")  # MSA303
                return ms.Model(net).eval(data)
        """, note="an evaluation function with no train/eval flag builds a Random* operation"),
    )

    def finish(self) -> None:
        sc = scopes(self.ctx)
        for callee, calls in facts(self.ctx).calls.items():
            name = vision_name(callee)
            if not name or not name.startswith("Random"):
                continue
            for call in calls:
                fl = sc.owner(call)
                if fl is not None and runs_when_not_training(self.ctx, fl, call):
                    self.report(call, f"{name} also runs when this pipeline is not training: evaluation data gets "
                                f"random augmentation; build it only in the training branch")
                elif fl is not None and self._evaluation_only(sc, fl):
                    self.report(call, f"{name} is built by {self._where(sc, fl)}, which only evaluates: evaluation "
                                f"data gets random augmentation; use the deterministic counterpart")
        if self.ctx.project is not None:
            self._builders_left_in_training_mode(sc)
            self._project_random_transforms(sc)

    def _evaluation_only(self, sc, fl) -> bool:
        """The code around the call only evaluates: a function named for evaluation (or a
        script whose name says so) in a file that trains nothing, outside any pipeline function
        with a train/eval flag, and not a pytest module."""
        from msacclint.analysis.pytest_files import pytest_test
        from msacclint.analysis.training import training
        from msacclint.analysis.transforms import mode_flags

        if mode_flags(self.ctx, fl) or training(self.ctx).trains or pytest_test(self.ctx) is not None:
            return False
        return any(says_eval(sc.function_name(f)) for f in sc.enclosing(fl))

    def _where(self, sc, fl) -> str:
        import os

        named = next((f for f in sc.enclosing(fl) if says_eval(sc.function_name(f))), fl)
        if isinstance(named.root, cst.FunctionDef):
            return f"{named.root.name.value}()"
        return os.path.basename(self.ctx.path)

    def _project_random_transforms(self, sc) -> None:
        """A callable transform class of the project that draws random numbers in its methods,
        built where the code only evaluates (an eval script's validation transforms)."""
        from msacclint.analysis.imports import dotted

        for callee, calls in facts(self.ctx).calls.items():
            if callee.startswith("mindspore."):
                continue
            for call in calls:
                name = dotted(call.func)
                fl = sc.owner(call)
                if name is None or fl is None or not self._evaluation_only(sc, fl):
                    continue
                found = self.ctx.project.random_draw_from(self.ctx, name)
                if found is None:
                    continue
                cls, evidence = found
                self.report(call, f"{cls} draws a random number ({evidence.what} at {evidence.where()}) each time it "
                            f"runs, and it is built by {self._where(sc, fl)}, which only evaluates: every evaluation "
                            f"sees a different sample of the data; use a deterministic transform",
                            related=[(evidence.path, evidence.line, evidence.what)])

    def _builders_left_in_training_mode(self, sc) -> None:
        """An evaluation function (or an evaluation script's top level) calls a dataset
        builder of the project without its train/eval parameter, whose default selects
        the training pipeline with its random augmentation."""
        from msacclint.analysis.imports import dotted

        file_facts = facts(self.ctx)
        candidates = [c for callee, calls in file_facts.calls.items() if not callee.startswith("mindspore.")
                      for c in calls]
        for call in candidates:
            fl = sc.owner(call)
            if fl is None or not any(says_eval(sc.function_name(f)) for f in sc.enclosing(fl)):
                continue
            name = dotted(call.func)
            found = self.ctx.project.resolve_from(self.ctx, name) if name else None
            if found is None or found[0] != "function":
                continue
            where, builder = found[1], found[2]
            if builder.selector is None or not builder.random_ops:
                continue
            param, default = builder.selector
            if default is None or default[0] != "lit" or not _training_value(default[1]):
                continue
            names = [p for p, _ in builder.params]
            index = names.index(param)
            if any(a.keyword is not None and a.keyword.value == param for a in call.args) or has_star_kwargs(call) \
                    or any(a.star for a in call.args):
                continue
            if sum(1 for a in call.args if a.keyword is None) > index:
                continue
            shown = self.ctx.project.display(where)
            op, op_line = builder.random_ops[0]
            self.report(call, f"{name}() is called for evaluation without `{param}`, whose default "
                        f"{default[1]!r} ({shown}:{builder.line}) builds the training pipeline: evaluation data "
                        f"gets {op} ({shown}:{op_line}); pass {_eval_value(param, default[1])}",
                        related=[(shown, builder.line, f"{name}({param}={default[1]!r})"),
                                 (shown, op_line, op)])


def _training_value(value) -> bool:
    return value is True or (isinstance(value, str) and value.lower() in ("train", "training"))


def _eval_value(param: str, value) -> str:
    if value is True:
        return f"{param}=False"
    return f"{param}= its evaluation value"


class DecodedNotNormalised(Rule):
    code = "MSA304"
    name = "decoded-images-not-normalised"
    checklist = "dp.01"
    severity = Severity.INFO
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


class ToTensorThenNormalizeHwc(Rule):
    code = "MSA306"
    name = "totensor-then-normalize-hwc"
    checklist = "dp.01"
    severity = Severity.INFO
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
