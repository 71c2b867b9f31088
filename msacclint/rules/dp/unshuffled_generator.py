"""MSA302 (dp.03, MS-DS-02): ``GeneratorDataset`` over a Python generator (no random access,
so it cannot shuffle) in training code, never ``.shuffle()``d."""

from __future__ import annotations

from msacclint.analysis.calls import has_star_kwargs
from msacclint.analysis.datasets import TRAIN, datasets
from msacclint.diagnostics import Severity
from msacclint.rules.base import Invalid, Rule, Valid
from msacclint.rules.dp.iterable_sources import iterable_source


class GeneratorDatasetNotShuffled(Rule):
    code = "MSA302"
    about_the_run = True
    name = "generator-dataset-not-shuffled"
    checklist = "dp.03"
    severity = Severity.WARNING
    group = "suspicious"
    uses_facts = True
    message = "training GeneratorDataset over a Python generator is never shuffled"
    what = ("Reports `GeneratorDataset(source)` where source is a Python generator (a generator "
            "function of this file, a generator expression, or a class with `__iter__` but no "
            "`__getitem__`), used for training (as in MSA301) and never `.shuffle()`d. A generator of "
            "made-up data (no parameters, loops only over `range()`, indexes nothing) is not reported.")
    why = ("A generator has no random access, so GeneratorDataset cannot shuffle it (verified on "
           "2.10: order = generator order, whatever `shuffle` says). Training then sees the file order "
           "every epoch (MS-DS-02).")
    example = """
        import mindspore as ms
        import mindspore.dataset as ds
        def samples():
            for path in files:
                yield load(path)
        train_ds = ds.GeneratorDataset(samples(), ['image', 'label'])  # MSA302
        model.train(10, train_ds)
    """
    use_instead = """
        import mindspore as ms
        import mindspore.dataset as ds
        def samples():
            for path in files:
                yield load(path)
        train_ds = ds.GeneratorDataset(samples(), ['image', 'label']).shuffle(buffer_size=len(files))
        model.train(10, train_ds)
    """
    fix_safety = "No automatic fix: the buffer size is a choice (at least the dataset size for a full shuffle)."
    versions = "All MindSpore 1.x and 2.x releases."
    references = ("rules/api_defaults.toml, entry MS-DS-02",)
    VALID = (
        Valid("""
            import mindspore as ms
            import mindspore.dataset as ds
            def samples():
                for path in files:
                    yield load(path)
            train_ds = ds.GeneratorDataset(samples(), ['image', 'label'])
            train_ds = train_ds.shuffle(buffer_size=50000)
            model.train(10, train_ds)
        """, note="idiomatic"),
        Valid("""
            import mindspore as ms
            import mindspore.dataset as ds
            class Source:
                def __getitem__(self, i):
                    return load(files[i])
                def __len__(self):
                    return len(files)
            train_ds = ds.GeneratorDataset(Source(), ['image', 'label'], shuffle=True)
            model.train(10, train_ds)
        """, note="a random-access source shuffles itself"),
        Valid("""
            import mindspore as ms
            import mindspore.dataset as ds
            def samples():
                for path in files:
                    yield load(path)
            eval_ds = ds.GeneratorDataset(samples(), ['image', 'label'])
            model.eval(eval_ds)
        """, note="evaluation"),
        Valid("""
            import mindspore as ms
            import mindspore.dataset as ds
            import numpy as np
            def fake():
                for _ in range(8):
                    yield np.ones((2, 2)), np.ones(2)
            train_ds = ds.GeneratorDataset(fake(), ['x', 'y'])
            model.train(1, train_ds)
        """, note="synthetic data: order means nothing"),
        Valid("""
            import mindspore
            from torch.utils.data import DataLoader
            def samples():
                for path in files:
                    yield load(path)
            train_loader = DataLoader(samples(), batch_size=32)
        """, note="PyTorch"),
    )
    INVALID = (
        Invalid("""
            import mindspore as ms
            import mindspore.dataset as ds
            def samples():
                for path in files:
                    yield load(path)
            train_ds = ds.GeneratorDataset(samples(), ['image', 'label'])  # MSA302
            model.train(10, train_ds)
        """),
        Invalid("""
            import mindspore as ms
            import mindspore.dataset as ds
            class Stream:
                def __iter__(self):
                    return iter(records)
            def train(net):
                data = ds.GeneratorDataset(Stream(), ['x', 'y'])  # MSA302
                model.train(1, data)
        """, note="an IterableDataset ported as is"),
    )

    def finish(self) -> None:
        info = datasets(self.ctx)
        for build in info.builds:
            if has_star_kwargs(build.call) or iterable_source(self.ctx, build) is None:
                continue
            if info.role(build) != TRAIN or info.shuffled_later(build):
                continue
            self.report(build.call, "training GeneratorDataset over a Python generator: it cannot shuffle (no random "
                        "access) and is never .shuffle()d, so every epoch sees the generator's order")
