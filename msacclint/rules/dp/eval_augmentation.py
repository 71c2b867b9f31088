"""MSA303 (dp.02): a Random* augmentation that also runs when the pipeline is not training."""

from __future__ import annotations

import libcst as cst

from msacclint.analysis.calls import has_star_kwargs
from msacclint.analysis.facts import facts
from msacclint.analysis.scopes import says_eval, scopes
from msacclint.analysis.transforms import runs_when_not_training, vision_name
from msacclint.diagnostics import Severity
from msacclint.rules.base import Invalid, Rule, Valid
from msacclint.rules.fixtures.dp import clip_case, eval_split_case

#: (indented as the rule page shows it) a pipeline whose random crop runs for evaluation too, and the same split on the flag
_RANDOM_IN_EVAL = """
        import mindspore.dataset as ds
        import mindspore.dataset.vision as vision
        def create_dataset(path, do_train):
            data = ds.ImageFolderDataset(path, shuffle=do_train)
            trans = [vision.Decode(), vision.RandomCrop(224), vision.HWC2CHW()]  # MSA303
            return data.map(operations=trans, input_columns='image')
"""
_SPLIT_ON_FLAG = """
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


class RandomAugmentationInEval(Rule):
    code = "MSA303"
    name = "random-augmentation-in-eval"
    checklist = "dp.02"
    severity = Severity.WARNING
    group = "suspicious"
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
    example = _RANDOM_IN_EVAL
    use_instead = _SPLIT_ON_FLAG
    fix_safety = "No automatic fix: the deterministic replacement (CenterCrop for RandomCrop, nothing for a flip) is a choice."
    versions = "All MindSpore 1.x and 2.x releases."
    VALID = (
        Valid(_SPLIT_ON_FLAG, note="idiomatic"),
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
            **eval_split_case('True', '"/data/val", 32, do_train=False'),
        }, note="multi-file: correct"),
        Valid(files={
            "src/__init__.py": "",
            **eval_split_case('False', '"/data/val", 32'),
        }, note="multi-file: lookalike eval default"),
        Valid(files=clip_case("max(0, (len(frames) - self.size) // 2)"),
              note="the nearest look-alike: the project's clip transform takes the centre clip"),
        Valid(files=clip_case("random.randint(0, max(0, len(frames) - self.size))", script="src/pipeline.py"),
              note="the random clip transform built outside evaluation code"),
        Valid("""
            import mindspore.dataset.vision as vision

            def test_random_crop_shape():
                out = vision.RandomCrop(8)(image)
                assert out.shape == (8, 8, 3)
        """, path="tests/test_vision.py", note="a pytest module testing the operation itself"),
    )
    INVALID = (
        Invalid(_RANDOM_IN_EVAL, note="a torchvision Compose ported without its train/eval split"),
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
            **eval_split_case('True', '"/data/val", 32', mark='  # MSA303'),
        }, note="multi-file: bug"),
        Invalid(files=clip_case("random.randint(0, max(0, len(frames) - self.size))", mark="  # MSA303"),
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
