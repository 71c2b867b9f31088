"""MSA301 (dp.03): a training dataset built with ``shuffle=False`` (or a sequential sampler)
and never ``.shuffle()``d afterwards."""

from __future__ import annotations

from typing import Dict

import libcst as cst

from msacclint.analysis.calls import argument, has_star_kwargs, literal
from msacclint.analysis.datasets import TRAIN, datasets
from msacclint.analysis.scopes import scopes
from msacclint.diagnostics import Applicability, Severity
from msacclint.rules.base import FixSpec, Invalid, Rule, Valid
from msacclint.rules.dp.iterable_sources import iterable_source
from msacclint.rules.examples import fill

SEQUENTIAL = "mindspore.dataset.SequentialSampler"


def _sampler_keeps_order(ctx, fl, expr: cst.BaseExpression, order) -> bool:
    if isinstance(expr, cst.Name):
        found = scopes(ctx).resolve(fl, expr.value, order)
        if found is None:
            return False
        expr = found[1].value
    if not isinstance(expr, cst.Call):
        return False
    callee = ctx.resolve(expr.func) or ""
    if callee == SEQUENTIAL:
        return True
    if callee.startswith("mindspore.dataset.") and callee.endswith("Sampler"):
        arg = argument(expr, "shuffle", ())
        return arg is not None and literal(arg.value) is False
    return False


#: a model-zoo dataset builder: ``training`` picks the augmentation; the one-device branch
#: builds ``{single}``
_SELECTOR_BUILDER = """
    import mindspore.dataset as ds
    import mindspore.dataset.vision as vision

    def create_dataset(path, device_num=1, training={default}):
        if device_num > 1:
            data = ds.Cifar10Dataset(path, num_shards=device_num, shard_id=get_rank(), shuffle=True)
        else:
            {single}
        ops = [vision.RandomCrop((32, 32), (4, 4, 4, 4))] if training else []
        data = data.map(ops + [vision.Rescale(1 / 255.0, 0.0)], input_columns="image")
        return data.batch(32)
"""


#: a builder of src/ called once per split by the entry script, in a loop
_PER_SPLIT_BUILDER = """
    import os

    import mindspore.dataset as ds


    def build_dataset(root, split, batch_size=32):
        data = ds.ImageFolderDataset(os.path.join(root, split), {shuffle}){mark}
        return data.batch(batch_size)
"""
_PER_SPLIT_TRAIN = """
    from mindspore import Model
    from src.dataset import build_dataset


    def main(root, net, loss, opt):
        loaders = {}
        for split in {splits}:
            loaders[split] = build_dataset(root, split)
        model = Model(net, loss, opt, metrics={"acc"})
        {use}
"""


def _per_split(shuffle: str, splits: str = '("train", "val")', use: str = 'model.train(10, loaders["train"])',
               mark: str = "") -> Dict[str, str]:
    return {"src/__init__.py": "", "src/dataset.py": fill(_PER_SPLIT_BUILDER, shuffle=shuffle, mark=mark),
            "train.py": fill(_PER_SPLIT_TRAIN, splits=splits, use=use)}


#: a loader a registry builds from the YAML configs (``type: CaptionLoader``); the
#: training branch passes the loader's own ``shuffle``
_REGISTERED_LOADER = """
    import mindspore.dataset as ds
    from src.registry import register


    @register
    class CaptionLoader:
        def __new__(cls, root, stage="train", shuffle={default}):
            source = CaptionSource(root, stage)
            if stage == "train":
                return ds.GeneratorDataset(source, ["image", "text"], shuffle=shuffle){mark}
            return ds.GeneratorDataset(source, ["image", "text"], shuffle=False)
"""


def _registered(default: str, train_yaml: str, mark: str = "") -> Dict[str, str]:
    """The loader, its registry, a training config and an evaluation config that build it."""
    return {"src/__init__.py": "",
            "src/registry.py": "LOADERS = {}\n\n\ndef register(cls):\n    LOADERS[cls.__name__] = cls\n"
                               "    return cls\n",
            "src/loader.py": fill(_REGISTERED_LOADER, default=default, mark=mark),
            "configs/pretrain.yaml": "train_dataset:\n  data_loader:\n    type: CaptionLoader\n"
                                     f"    root: /data/captions\n    stage: train\n{train_yaml}",
            "configs/retrieval.yaml": "eval_dataset:\n  data_loader:\n    type: CaptionLoader\n"
                                      "    root: /data/flickr\n    stage: eval\n    shuffle: False\n"}


class TrainingDatasetNotShuffled(Rule):
    code = "MSA301"
    about_the_run = True
    name = "training-dataset-not-shuffled"
    checklist = "dp.03"
    severity = Severity.WARNING
    group = "suspicious"
    uses_facts = True
    message = "training dataset built with shuffle=False and never shuffled"
    what = ("Reports a `mindspore.dataset.*Dataset(...)` built with `shuffle=False` (or a "
            "`SequentialSampler`, or a sampler given `shuffle=False`) that the code uses for training and "
            "that is never `.shuffle()`d afterwards. Training is decided from the code: the dataset flows "
            "into `Model.train` or a hand-written training loop, sits under `if do_train`/`is_training`, "
            "says `usage=\"train\"`, or the function or file name says train. A dataset with any sign "
            "of evaluation (its name, its arguments, an `else` of `if is_training`) is never reported: "
            "`shuffle=False` is right there. Neither is a dataset whose items are only copied into "
            "Python lists or arrays while another dataset of the file is the training one (the data "
            "is re-wrapped, e.g. in a shuffled `GeneratorDataset`). A dataset builder with a train/eval "
            "selector (a `training`/`is_training` parameter that an `if` of the builder tests, defaulting to "
            "True or passed True by some call in the project) is a training builder for every dataset it "
            "builds outside the selector's branches: `shuffle=False` there holds for the training pipeline too.")
    why = ("Without shuffling every epoch sees the samples in the same order, often sorted by class "
           "or by file: batches are not representative, BatchNorm statistics are biased and "
           "convergence is slower and worse (checklist dp.03).")
    example = """
        import mindspore as ms
        import mindspore.dataset as ds
        train_ds = ds.ImageFolderDataset(train_dir, shuffle=False)  # MSA301
        model.train(10, train_ds)
    """
    use_instead = """
        import mindspore as ms
        import mindspore.dataset as ds
        train_ds = ds.ImageFolderDataset(train_dir, shuffle=True)
        model.train(10, train_ds)
    """
    fix_safety = "Unsafe: `shuffle=False` becomes `shuffle=True`, which changes the data order on purpose."
    versions = "All MindSpore 1.x and 2.x releases."
    references = ("rules/api_defaults.toml, entry MS-DS-01",)
    VALID = (
        Valid(use_instead, note="idiomatic"),
        Valid("""
            import mindspore as ms
            import mindspore.dataset as ds
            eval_ds = ds.ImageFolderDataset(val_dir, shuffle=False)
            model.eval(eval_ds)
        """, note="evaluation keeps its order"),
        Valid("""
            import mindspore as ms
            import mindspore.dataset as ds
            def create_dataset(path, do_train):
                if do_train:
                    data = ds.Cifar10Dataset(path, shuffle=True)
                else:
                    data = ds.Cifar10Dataset(path, shuffle=False)
                return data
            model.train(10, create_dataset(p, True))
        """, note="the eval branch"),
        Valid("""
            import mindspore as ms
            import mindspore.dataset as ds
            def train_loader(path):
                data = ds.MindDataset(path, shuffle=False)
                data = data.shuffle(buffer_size=10000)
                return data.batch(32)
        """, note="shuffled later"),
        Valid("""
            import mindspore as ms
            import mindspore.dataset as ds
            def create_dataset(path, training):
                return ds.ImageFolderDataset(path, shuffle=training)
        """, note="shuffle follows the flag"),
        Valid("""
            import mindspore
            from torch.utils.data import DataLoader
            train_loader = DataLoader(train_set, shuffle=False)
        """, note="PyTorch"),
        Valid("""
            import mindspore as ms
            import mindspore.dataset as ds
            def create_dataset(path, is_training):
                data = ds.ImageFolderDataset(path, shuffle=False)
                return data
            train_ds = create_dataset(p, is_training=True)
            test_ds = create_dataset(q, is_training=False)
        """, note="used for both: the role cannot be told"),
        Valid("""
            import mindspore as ms
            import mindspore.dataset as ds
            import numpy as np
            def load(path, batch_size):
                raw = ds.Cifar10Dataset(path, usage='train', shuffle=False)
                images, labels = [], []
                for row in raw.create_dict_iterator(output_numpy=True):
                    images.append(row['image'])
                    labels.append(row['label'])
                train_ds = ds.NumpySlicesDataset((np.stack(images), np.array(labels)), ['image', 'label'], shuffle=True)
                return train_ds.batch(batch_size)
            model.train(10, load(p, 32))
        """, note="read into arrays, then re-wrapped in a shuffled training dataset"),
        Valid(fill(_SELECTOR_BUILDER, default="True", single="data = ds.Cifar10Dataset(path, shuffle=training)"),
              path="src/dataset.py", note="the nearest look-alike: the single-device dataset follows the selector"),
        Valid(fill(_SELECTOR_BUILDER, default="False", single="data = ds.Cifar10Dataset(path, shuffle=False)"),
              path="src/dataset.py", note="a builder whose selector defaults to evaluation and that nothing calls with True"),
        Valid(files=_per_split('shuffle=split == "train"'),
              note="multi-file: the builder called per split shuffles the training split"),
        Valid(files=_per_split("shuffle=False", splits='("val", "test")',
                               use='print(model.eval(loaders["val"]), model.eval(loaders["test"]))'),
              note="multi-file look-alike: the builder is called per split in a loop, every split an evaluation one"),
        Valid("""
            import mindspore
            from torch.utils.data import DataLoader
            loaders = [DataLoader(SplitSet(root, split), shuffle=False) for split in ("train", "val")]
        """, note="PyTorch's DataLoader"),
        Valid(files=_registered("True", ""), note="multi-file: the loader's own default shuffles"),
        Valid(files=_registered("False", "    shuffle: True\n"),
              note="multi-file look-alike: the default reads False, but the training config passes True; the "
                   "evaluation config's False never reaches the training branch"),
    )
    INVALID = (
        Invalid("""
            import mindspore as ms
            import mindspore.dataset as ds
            train_ds = ds.ImageFolderDataset(train_dir, shuffle=False)  # MSA301
            model.train(10, train_ds)
        """, unsafe_fixed="""
            import mindspore as ms
            import mindspore.dataset as ds
            train_ds = ds.ImageFolderDataset(train_dir, shuffle=True)
            model.train(10, train_ds)
        """, note="a DataLoader(shuffle=False) habit carried over"),
        Invalid("""
            import mindspore as ms
            import mindspore.dataset as ds
            def make_dataset():
                data = ds.GeneratorDataset(list(zip(xs, ys)), ['x', 'y'], shuffle=False)  # MSA301
                return data.batch(32)
            net = Net()
            net.set_train()
            grad_fn = ms.value_and_grad(forward, None, opt.parameters)
            for x, y in make_dataset().create_tuple_iterator():
                grad_fn(x, y)
        """, note="flows into a hand-written training loop"),
        Invalid("""
            import mindspore as ms
            import mindspore.dataset as ds
            def create_dataset(path, do_train):
                if do_train:
                    data = ds.MnistDataset(path, sampler=ds.SequentialSampler())  # MSA301
                else:
                    data = ds.MnistDataset(path, shuffle=False)
                return data
        """),
        Invalid("""
            import mindspore as ms
            import mindspore.dataset as ds
            train_ds = ds.ImageFolderDataset(train_dir, shuffle=False)  # MSA301
            counts = [row['label'].asnumpy() for row in train_ds.create_dict_iterator()]
            model.train(10, train_ds)
        """, note="read into Python for statistics, but also trained on"),
        Invalid(fill(_SELECTOR_BUILDER, default="True",
                     single="data = ds.Cifar10Dataset(path, shuffle=False)  # MSA301"),
                path="src/dataset.py", note="a builder with a train/eval selector whose one-device branch ignores it",
                message_contains="`training` parameter"),
        Invalid(fill(_SELECTOR_BUILDER, default="False",
                     single="data = ds.Cifar10Dataset(path, shuffle=False)  # MSA301")
                + "\ncifar = create_dataset('/data/cifar', training=True)\n",
                path="src/dataset.py", note="the selector defaults to evaluation, but a call of the file passes True",
                message_contains="`training` parameter"),
        Invalid(files={"src/__init__.py": "",
                       "src/dataset.py": fill(_SELECTOR_BUILDER, default="False",
                                              single="data = ds.Cifar10Dataset(path, shuffle=False)  # MSA301"),
                       "run.py": "from src.dataset import create_dataset\n\n"
                                 "cifar = create_dataset('/data/cifar', training=True)\n"},
                note="multi-file: the selector defaults to evaluation; another file of the project passes True",
                message_contains="`training` parameter"),
        Invalid(files=_per_split("shuffle=False", mark="  # MSA301"),
                note="multi-file: a builder of src/ called per split in a loop of the entry script, shuffle never "
                     "set for the training split", message_contains="the 'train' split too"),
        Invalid("""
            import mindspore.dataset as ds

            def load_corpus(root, split=("train", "test")):
                modes = [split] if isinstance(split, str) else list(split)
                datasets = []
                for mode in modes:
                    datasets.append(ds.GeneratorDataset(Corpus(root, mode), ["text", "label"], shuffle=False))  # MSA301
                return datasets
        """, path="corpora/loader.py", message_contains="the 'train' split too",
                note="a library loader: every split built in one loop, the training split (the default) too"),
        Invalid(files=_registered("False", "", mark="  # MSA301"), message_contains="configs/pretrain.yaml:3",
                note="multi-file: a registry builds the loader from YAML; the training config leaves shuffle at the "
                     "loader's own default, False"),
    )

    def finish(self) -> None:
        info = datasets(self.ctx)
        for build in info.builds:
            call = build.call
            shuffle = argument(call, "shuffle", ())
            # ``**kwargs`` may pass shuffle or a sampler, unless shuffle is written out (then it
            # cannot pass shuffle, and a sampler with shuffle raises)
            if (has_star_kwargs(call) and shuffle is None) or iterable_source(self.ctx, build) is not None:
                continue
            sampler = argument(call, "sampler", ())
            order = build.flow.order(call)
            fix = None
            related: list = []
            if shuffle is not None and literal(shuffle.value) is False:
                fix = FixSpec("shuffle the training dataset: shuffle=True", Applicability.UNSAFE,
                              [(shuffle.value, cst.Name("True"))])
                what = "shuffle=False"
            elif sampler is not None and _sampler_keeps_order(self.ctx, build.flow, sampler.value, order):
                what = "a sampler that keeps the file order"
            elif shuffle is not None and self.ctx.project is not None:
                # ``shuffle=shuffle``: what every call, config or default gives the parameter
                # (alternatives that reach this branch only; one building it unshuffled is enough)
                values = self.ctx.project.values_at(self.ctx, shuffle.value, call)
                unshuffled = [v for v in values or () if v.value is False]
                if not unshuffled:
                    continue
                shown = sorted({v.evidence.where() for v in unshuffled if v.evidence})
                what = (f"shuffle={cst.Module([]).code_for_node(shuffle.value)}, False"
                        + (f" where {', '.join(shown[:3])} builds it" if shown else " (its default)"))
                related = [(v.evidence.path, v.evidence.line, v.evidence.what) for v in unshuffled if v.evidence]
            else:
                continue
            if info.role(build) != TRAIN or info.shuffled_later(build):
                continue
            selector = info.ignored_selector(build)
            split = info.split_loop(build) if selector is None else None
            why = (f" (the function's `{selector}` parameter selects the training pipeline, but this dataset is "
                   f"built the same way whatever it says)" if selector is not None else
                   f" (the same construction builds every split, the {split!r} split too)"
                   if split is not None else "")
            self.report(call, f"training dataset built with {what} and never .shuffle()d: every epoch sees the "
                        f"samples in the same order{why}", fix, related=related)
