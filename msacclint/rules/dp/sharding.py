"""MSA307 (dp.05): a data-parallel script builds a training dataset without
``num_shards``/``shard_id`` (or with only one of them)."""

from __future__ import annotations

import os

import libcst as cst

from msacclint.analysis.calls import argument, has_star_kwargs, literal, parameter_slots
from msacclint.analysis.datasets import EVAL, datasets
from msacclint.analysis.distributed import distributed
from msacclint.analysis.imports import dotted
from msacclint.analysis.scopes import names_in, says_eval, says_train, scopes
from msacclint.analysis.training import training
from msacclint.analysis.walk import descendants
from msacclint.diagnostics import Severity
from msacclint.rules.base import Invalid, Rule, Valid
from msacclint.rules.examples import fill
from msacclint.rules.fixtures.dp import (
    DATA_PARALLEL_ENTRY,
    PLAIN_BUILDER,
    SHARDED_BUILDER,
    TWO_LAUNCH_PATHS,
    generator_case,
    loaders,
    optional_shards_case,
    sharding_case,
)

_DIST_WORDS = ("distribut", "rank", "device_num", "group_size", "shard", "parallel", "world", "multi", "device_id")

#: (indented as the rule page shows it) a data-parallel training script whose dataset is not sharded, and the same sharded
_NOT_SHARDED = """
        import mindspore as ms
        import mindspore.dataset as ds
        from mindspore.communication import init, get_rank, get_group_size
        init()
        ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
        data = ds.ImageFolderDataset(train_dir, shuffle=True)  # MSA307
        model.train(90, data)
"""
_SHARDED = """
        import mindspore as ms
        import mindspore.dataset as ds
        from mindspore.communication import init, get_rank, get_group_size
        init()
        ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
        data = ds.ImageFolderDataset(train_dir, shuffle=True, num_shards=get_group_size(), shard_id=get_rank())
        model.train(90, data)
"""


class DatasetNotSharded(Rule):
    code = "MSA307"
    about_the_run = True
    name = "dataset-not-sharded"
    checklist = "dp.05"
    severity = Severity.WARNING
    group = "suspicious"
    uses_facts = True
    message = "data-parallel training, but the dataset is not sharded (num_shards/shard_id)"
    what = ("In a file that calls `communication.init()` and sets a data-parallel context (not semi-auto/auto "
            "parallel, not `full_batch=True`, which slice the batch their own way), reports a "
            "dataset constructor without `num_shards` and `shard_id`, or with only one of them. Not "
            "reported for datasets that say eval, that get a `sampler=` (e.g. DistributedSampler), or "
            "that sit under a branch on the distribution setup (`if rank_size > 1`, `if run_distribute`). "
            "With the project layer, a dataset builder of another file (`src/dataset.py`) is reported at its "
            "constructor when an entry script that calls `init()`, sets DATA_PARALLEL and trains calls it "
            "without telling it the rank; the entry script is the related location. Also reported there: a "
            "builder that shards by its own parameters (`num_shards=device_num, shard_id=rank_id`) called "
            "under DATA_PARALLEL with the device count but not the rank, so the rank parameter keeps its "
            "literal default (0) on every device. And, in the data-parallel training script, a call of a "
            "project builder whose `num_shards` comes from one of its parameters with a default of None or 1 "
            "(sharding made optional by a library) that leaves that parameter out: reported at the call, with "
            "the builder's constructor as related location; a call whose result is named for evaluation, or "
            "that passes an evaluation selector, is not reported. Also a training dataset given "
            "`num_shards=name` where `name` starts as None and is given a value only in a branch that a path "
            "calling `init()` does not take (shard settings for one launch path, e.g. ModelArts, and none for "
            "the local distributed one): the message names the branch. And a loader (a function, or a class's "
            "`__new__`/`__init__`/`__call__`) that takes `**kwargs`, only pops from them, and builds a dataset "
            "without them or any sharding, while another loader of the same folder passes the caller's keyword "
            "arguments (or `num_shards`) to its dataset (named as related location).")
    why = ("Without sharding every device reads the whole dataset in the same order: an epoch is N "
           "times longer than intended with the same samples in each global batch, and the data-parallel "
           "gradient average gains nothing (checklist dp.05).")
    example = _NOT_SHARDED
    use_instead = _SHARDED
    fix_safety = "No automatic fix."
    versions = "All MindSpore 1.x and 2.x releases."
    VALID = (
        Valid(_SHARDED, note="idiomatic"),
        Valid("""
            import mindspore as ms
            import mindspore.dataset as ds
            from mindspore.communication import init, get_rank, get_group_size
            init()
            ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
            def create_dataset(path, rank_size=1, rank_id=0):
                if rank_size == 1:
                    return ds.Cifar10Dataset(path, shuffle=True)
                return ds.Cifar10Dataset(path, shuffle=True, num_shards=rank_size, shard_id=rank_id)
        """, note="the single-device branch"),
        Valid("""
            import mindspore as ms
            import mindspore.dataset as ds
            from mindspore.communication import init, get_rank, get_group_size
            init()
            ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
            eval_ds = ds.ImageFolderDataset(val_dir, shuffle=False)
            model.eval(eval_ds)
        """, note="every device may evaluate everything"),
        Valid("""
            import mindspore as ms
            import mindspore.dataset as ds
            data = ds.ImageFolderDataset(train_dir, shuffle=True)
        """, note="single device"),
        Valid("""
            import mindspore as ms
            import mindspore.dataset as ds
            from mindspore.communication import init, get_rank, get_group_size
            init()
            ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.SEMI_AUTO_PARALLEL, gradients_mean=True)
            data = ds.MnistDataset(path)
        """, note="semi-auto parallel splits the batch by the sharding strategy"),
        Valid("""
            import mindspore as ms
            import mindspore.dataset as ds
            from mindspore.communication import init, get_rank, get_group_size
            init()
            ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
            sampler = ds.DistributedSampler(get_group_size(), get_rank(), shuffle=True)
            data = ds.ImageFolderDataset(train_dir, sampler=sampler)
        """, note="a distributed sampler"),
        Valid("""
            import mindspore
            import torch.distributed as dist
            from torch.utils.data import DataLoader
            dist.init_process_group('nccl')
            loader = DataLoader(train_set, shuffle=True)
        """, note="PyTorch"),
        Valid("""
            import mindspore as ms
            import mindspore.dataset as ds
            from mindspore.communication import init, get_rank, get_group_size
            init()
            ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
            gallery = ds.ImageFolderDataset(gallery_dir, shuffle=False)
            net.set_train(False)
            features = [net(image) for image, _ in gallery.create_tuple_iterator()]
        """, path="extract_features.py", note="a distributed feature-extraction script: nothing is trained"),
        Valid(files={
            "src/__init__.py": "",
            "src/dataset.py": """
                import mindspore.dataset as ds
                from mindspore.communication import get_rank, get_group_size

                def create_dataset(path, batch_size=32):
                    data = ds.ImageFolderDataset(path, shuffle=True, num_shards=get_group_size(), shard_id=get_rank())
                    return data.batch(batch_size)
            """,
            "train.py": fill(DATA_PARALLEL_ENTRY, args='"/data/train", 32'),
        }, note="multi-file: correct"),
        Valid(files={
            "src/__init__.py": "",
            "src/dataset.py": """
                import mindspore.dataset as ds

                def create_dataset(path, batch_size=32, rank_size=1):
                    data = ds.ImageFolderDataset(path, shuffle=True)
                    return data.batch(batch_size)
            """,
            "train.py": fill(DATA_PARALLEL_ENTRY, args='"/data/train", 32, rank_size=get_group_size()'),
        }, note="multi-file: lookalike builder told the rank"),
        Valid(files=optional_shards_case(", device_num=device_num, rank_id=rank_id"),
              note="multi-file: the same builder told the device count and the rank"),
        Valid(files=sharding_case("device_num=get_group_size(), rank_id=get_rank()"),
              note="multi-file: a builder that shards by its parameters, told both"),
        Valid(files=sharding_case("get_group_size(), get_rank()"), note="multi-file: the same, by position"),
        Valid(files=sharding_case("device_num=1"),
              note="multi-file: one shard asked for (shard 0 of 1 is the whole set)"),
        Valid(files=sharding_case("device_num=get_group_size()", builder=SHARDED_BUILDER.replace(
            "rank_id=0):", "rank_id=None):\n        rank_id = get_rank() if rank_id is None else rank_id").replace(
            "import mindspore.dataset as ds", "import mindspore.dataset as ds\n    from mindspore.communication import get_rank")),
              note="multi-file: the builder finds the rank itself when it is not given"),
        Valid(fill(TWO_LAUNCH_PATHS, local="num_shards, shard_id = get_group_size(), get_rank()", mark=""),
              note="the nearest look-alike: both launch paths give the shard settings"),
        Valid(files=loaders("GeneratorDataset(source, column_names, **kwargs)",
                             "GeneratorDataset(source, column_names, **kwargs)"),
              note="the nearest look-alike: every loader passes the caller's keyword arguments on"),
        Valid(files=generator_case("ImageList(cfg.data_path, order)",
                                   shards=", num_shards=get_group_size(), shard_id=get_rank()"),
              note="multi-file, idiomatic: the GeneratorDataset over the project's image files is sharded"),
        Valid(files=loaders("GeneratorDataset(source, column_names)", "GeneratorDataset(source, column_names)"),
              note="no loader of the folder takes sharding through its keyword arguments: nothing to drop"),
    )
    INVALID = (
        Invalid(_NOT_SHARDED, note="torch DDP ports shard with a DistributedSampler, often forgotten"),
        Invalid("""
            import mindspore as ms
            import mindspore.dataset as ds
            from mindspore.communication import init, get_rank, get_group_size
            init()
            ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
            data = ds.MindDataset(train_file, num_shards=get_group_size())  # MSA307
        """, message_contains="only num_shards"),
        Invalid(files={
            "src/__init__.py": "",
            "src/dataset.py": PLAIN_BUILDER,
            "train.py": fill(DATA_PARALLEL_ENTRY, args='"/data/train", 32'),
        }, note="multi-file: the entry script trains under DATA_PARALLEL; reported at the builder's constructor, where the shards belong"),
        Invalid(files={
            "src/__init__.py": "",
            "src/dataset.py": PLAIN_BUILDER,
            "train.py": """
                import mindspore as ms
                from mindspore import nn
                from mindspore.communication import init
                from src.dataset import create_dataset

                def main(distribute):
                    if distribute:
                        init()
                        mode = ms.ParallelMode.DATA_PARALLEL
                    else:
                        mode = ms.ParallelMode.STAND_ALONE
                    ms.set_auto_parallel_context(parallel_mode=mode, gradients_mean=True)
                    data = create_dataset("/data/train", 32)
                    model = ms.Model(net, nn.CrossEntropyLoss(), nn.Momentum(net.trainable_params(), 0.1, 0.9))
                    model.train(90, data)
            """,
        }, note="multi-file: the entry script's parallel mode is a name assigned DATA_PARALLEL in one branch"),
        Invalid(files=optional_shards_case("", mark="  # MSA307"),
                note="multi-file: a library builder whose sharding is optional, called for training without "
                     "it (mindpose's tools/train.py, fixed in 4781e26b)"),
        Invalid(files=sharding_case("device_num=get_group_size()", mark="  # MSA307"),
                message_contains="shard_id=rank_id keeps its default 0",
                note="multi-file: the builder is told the device count but not the rank, so every device "
                     "reads shard 0 (mindspore-ai/models posenet, fixed in d5b4a551)"),
        Invalid(files={"train.py": """
            import mindspore as ms
            import mindspore.dataset as ds
            from mindspore.communication import init, get_group_size
            def create_dataset(path, device_num=1, rank_id=0):
                return ds.Cifar10Dataset(path, shuffle=True, num_shards=device_num, shard_id=rank_id)  # MSA307
            init()
            ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
            data = create_dataset(data_dir, device_num=get_group_size())
            model.train(90, data)
        """}, note="the same in one file (the project layer finds the call)"),
        Invalid(files=generator_case("ImageList(cfg.data_path, order)", mark="  # MSA307"), severity=Severity.WARNING,
                note="multi-file: a GeneratorDataset over a project class that reads image files, given a permutation "
                     "drawn with np.random: real data, not arrays the script makes up"),
        Invalid(files=generator_case("RandomArrays(50000, order)", mark="  # MSA307"), severity=Severity.INFO,
                message_contains="arrays it generates itself",
                note="the look-alike: the project class holds arrays it generates (a benchmark): no accuracy to lose"),
        Invalid(fill(TWO_LAUNCH_PATHS, local="pass", mark="  # MSA307"),
                note="the shard settings are given on one launch path (ModelArts); the local distributed path "
                     "calls init() and leaves them None", message_contains="starts as None"),
        Invalid(files=loaders("GeneratorDataset(source, column_names)  # MSA307",
                               "GeneratorDataset(source, column_names, **kwargs)"),
                note="multi-file: a loader that swallows the keyword arguments its siblings pass on to their "
                     "dataset", message_contains="loaders/coco_loader.py"),
    )

    def finish(self) -> None:
        dist = distributed(self.ctx)
        if self.ctx.project is not None:
            self._shard_left_at_default()
            self._loader_drops_options()
        if not dist.init_calls and self.ctx.project is not None:
            self._built_by_data_parallel_entry()
        if not dist.init_calls or not dist.data_parallel or dist.full_batch:
            return  # (semi-)auto parallel and full_batch slice the data their own way
        trains = training(self.ctx)
        if self.ctx.project is not None and trains.trains:
            self._builder_called_unsharded()
        info = datasets(self.ctx)
        sc = scopes(self.ctx)
        for build in info.builds:
            call = build.call
            if has_star_kwargs(call) or argument(call, "sampler", ()) is not None:
                continue
            shards_arg = argument(call, "num_shards", ())
            shards = shards_arg is not None
            shard_id = argument(call, "shard_id", ()) is not None
            if shards and shard_id:
                path = _none_where_distributed(build.flow, call, shards_arg.value, dist.init_calls)
                if path is not None and info.role(build) == EVAL and not info.training_use(build):
                    path = None  # distributed evaluation: every device may score the whole set
                if path is not None:
                    name, test, branch = path
                    shown = cst.Module([]).code_for_node(test)
                    self.report(call, f"`{name}` starts as None and only the branch `if {shown}:` "
                                f"({'true' if branch else 'false'}) gives it a value, but init() also runs where that "
                                f"test is {'false' if branch else 'true'}: on that path the dataset gets "
                                f"num_shards=None and every device reads all samples")
                continue
            if shards != shard_id:
                given = "num_shards" if shards else "shard_id"
                self.report(call, f"dataset gets only {given}: pass num_shards and shard_id together")
                continue
            event = sc.event(call)
            if event is not None and any(_says_distribution(t) for t, _ in event.guards):
                continue
            if info.role(build) == EVAL and not info.training_use(build):
                continue
            if not (trains.uses_model_train or trains.steps or info.training_use(build)):
                continue  # distributed evaluation: every device may score the whole set
            self.report(call, "data-parallel training, but this dataset has no num_shards/shard_id: every device "
                        "reads all samples in the same order")

    def _loader_drops_options(self) -> None:
        """A loader (a function, or a class's ``__new__``/``__init__``) that takes ``**kwargs``
        and builds a MindSpore dataset without them or any sharding, while the other loaders
        of its folder pass the caller's keyword arguments (or num_shards) to their dataset:
        the sharding a caller hands this one is dropped."""
        info = datasets(self.ctx)
        sc = scopes(self.ctx)
        reported = set()
        for build in info.builds:
            fn = build.flow.root
            if not isinstance(fn, cst.FunctionDef) or fn.params.star_kwarg is None or id(fn) in reported:
                continue
            method = sc.method_of.get(fn) is not None
            if method and fn.name.value not in ("__new__", "__init__", "__call__"):
                continue
            call = build.call
            if has_star_kwargs(call) or any(argument(call, k, ()) is not None
                                            for k in ("num_shards", "shard_id", "sampler")):
                continue
            kw = fn.params.star_kwarg.name.value
            if not _only_popped(build.flow, kw):
                continue
            sibling = self.ctx.project.sibling_dataset_forwarding(self.ctx.path)
            if sibling is None:
                continue
            reported.add(id(fn))
            self.report(call, f"{fn.name.value}() takes **{kw} but builds this dataset without them: the "
                        f"num_shards/shard_id a caller hands it are dropped, so under data parallelism every "
                        f"device reads all samples; the other loaders of this folder pass them on "
                        f"({sibling.path}:{sibling.line}) - pass **{kw} (or num_shards/shard_id) to the dataset",
                        related=[(sibling.path, sibling.line, sibling.what)])

    def _built_by_data_parallel_entry(self) -> None:
        """A dataset builder of this file that never shards, called by an entry script of the
        project that calls init(), sets DATA_PARALLEL and trains: reported here, at the
        dataset constructor that needs num_shards/shard_id, with the entry script as related
        location."""
        from msacclint.project.summary import selects_evaluation

        project = self.ctx.project
        path = os.path.abspath(self.ctx.path)
        info = datasets(self.ctx)
        sc = scopes(self.ctx)
        for build, call, fn in self._builds_in_functions():
            if any(argument(call, k, ()) is not None for k in ("sampler", "num_shards", "shard_id")):
                continue
            if any(_says_dist_name(p) for p in sc.params(build.flow)) or info.role(build) == EVAL:
                continue
            event = sc.event(call)
            if event is not None and any(_says_distribution(t) for t, _ in event.guards):
                continue
            for site, site_summary, site_call, mode_line in project.data_parallel_builders(path, fn.name.value):
                if not project.trains(site_summary):
                    continue
                if any(v[0] == "lit" and selects_evaluation(k, v[1]) for k, v in site_call.kwargs.items()) or \
                        "**" in site_call.kwargs or \
                        any(_says_dist_name(k) for k in site_call.kwargs) or \
                        any(e[0] in ("name", "param") and _says_dist_name(e[1]) for e in site_call.args):
                    continue
                shown = project.display(site)
                self.report(call, f"{shown} trains under DATA_PARALLEL (init() and the parallel context, line "
                            f"{mode_line}) on {fn.name.value}() (line {site_call.line}), and this dataset has no "
                            "num_shards/shard_id: every device reads all samples in the same order",
                            related=[(shown, mode_line, "set_auto_parallel_context(parallel_mode=DATA_PARALLEL)"),
                                     (shown, site_call.line, f"{site_call.callee}(...)")])
                break


    def _builder_called_unsharded(self) -> None:
        """In a data-parallel training script: a call of a project function that builds a
        dataset with ``num_shards=<its parameter>`` whose default is None or 1, leaving that
        parameter (and the shard id) out, so the builder shards nothing and every device
        reads the whole set. Reported at the call, the builder's constructor as related
        location. A call that says evaluation (its result's name, a selector) is not reported."""
        from msacclint.project.summary import selects_evaluation

        project = self.ctx.project
        sc = scopes(self.ctx)
        for call in (n for n in descendants(self.ctx.module) if isinstance(n, cst.Call)):
            name = dotted(call.func)
            found = project.resolve_from(self.ctx, name) if name else None
            if found is None or found[0] != "function" or has_star_kwargs(call):
                continue
            _kind, where, fn = found
            summary = project.summary(where)
            if summary is None:
                continue
            count = self._count_parameter(project, summary, fn)
            if count is None:
                continue
            param, constructor = count
            names = tuple(p for p, _ in fn.params)
            if argument(call, param, names) is not None:
                continue
            if any(arg.keyword is not None and selects_evaluation(arg.keyword.value, literal(arg.value))
                   for arg in call.args):
                continue
            fl = sc.owner(call)
            assigned = [d.name for defs in (fl.defs.values() if fl is not None else ()) for d in defs
                        if d.value is call]
            if any(says_eval(n) and not says_train(n) for n in assigned):
                continue
            shown = project.display(where)
            self.report(call, f"data-parallel training, but {name}() is called without {param}: its dataset gets "
                        f"num_shards={param}, which keeps its default {_shown_default(fn, param)}, so every device "
                        f"reads all samples; pass {param} and the rank",
                        related=[(shown, constructor.line, f"{constructor.callee}(..., num_shards={param})")])

    @staticmethod
    def _count_parameter(project, summary, fn):
        """(parameter, dataset constructor) when the function builds a mindspore.dataset
        source with ``num_shards`` set from one of its parameters whose default is None or 1."""
        defaults = dict(fn.params)
        for built in fn.calls:
            if not project.qualified(summary, built.callee).startswith("mindspore.dataset."):
                continue
            shards = built.kwargs.get("num_shards")
            if shards is None or tuple(shards)[:1] != ("param",) or shards[1] not in defaults:
                continue
            default = defaults[shards[1]]
            if default is not None and tuple(default) in (("lit", None), ("lit", 1)):
                return shards[1], built
        return None

    def _builds_in_functions(self):
        """(build, its constructor call, the function it is made in) for each dataset built
        inside a function (a builder) without ``**kwargs``."""
        for build in datasets(self.ctx).builds:
            call, fn = build.call, build.flow.root
            if isinstance(fn, cst.FunctionDef) and not has_star_kwargs(call):
                yield build, call, fn

    def _shard_left_at_default(self) -> None:
        """A builder that shards by its parameters (``num_shards=device_num,
        shard_id=rank_id``), called under DATA_PARALLEL with the shard count but not the rank:
        ``rank_id`` keeps its literal default on every device, which then reads the same
        shard. Reported at the constructor, with the call as related location."""
        project = self.ctx.project
        path = os.path.abspath(self.ctx.path)
        sc = scopes(self.ctx)
        for build, call, fn in self._builds_in_functions():
            shard_arg, count_arg = argument(call, "shard_id", ()), argument(call, "num_shards", ())
            if shard_arg is None or count_arg is None:
                continue
            shard_arg, count_arg = shard_arg.value, count_arg.value
            if not isinstance(shard_arg, cst.Name) or not isinstance(count_arg, cst.Name):
                continue
            params = parameter_slots(fn)
            rank, count = shard_arg.value, count_arg.value
            if rank not in params or count not in params or rank == count:
                continue
            default = params[rank][1]
            if not isinstance(default, cst.Integer) or sc.resolve(build.flow, rank) is not None:
                continue  # no literal default, or the builder sets it itself (rank_id = get_rank())
            for site, site_summary, site_call, mode_line in project.data_parallel_calls(path, fn.name.value):
                if not project.trains(site_summary):
                    continue
                if "*" in site_call.kwargs or "**" in site_call.kwargs:
                    continue  # *args/**kwargs may pass anything
                if site_call.argument(rank, params[rank][0]) is not None:
                    continue
                given = site_call.argument(count, params[count][0])
                if given is None or given == ("lit", 1):
                    continue  # one shard: the whole dataset on every device is another finding
                shown = project.display(site)
                self.report(call, f"{shown} calls {fn.name.value}() under DATA_PARALLEL (line {site_call.line}) "
                            f"with {count} but not {rank}: shard_id={rank} keeps its default "
                            f"{default.value} on every device, so all devices read the same shard; pass "
                            f"{rank}=get_rank()",
                            related=[(shown, site_call.line, f"{site_call.callee}(...) without {rank}"),
                                     (shown, mode_line, "set_auto_parallel_context(parallel_mode=DATA_PARALLEL)")])
                break


def _only_popped(fl, name: str) -> bool:
    """Every use of ``name`` in the function is a ``name.pop(...)``/``name.get(...)`` (or it
    is not used at all): the keyword arguments go nowhere."""
    from msacclint.analysis.walk import descendants

    uses = sum(1 for node in descendants(fl.root.body) if isinstance(node, cst.Name) and node.value == name)
    popped = sum(len(fl.method_calls(m, receiver=name)) for m in ("pop", "get", "setdefault"))
    return uses == popped


def _none_where_distributed(fl, call: cst.Call, value: cst.BaseExpression, init_calls):
    """``num_shards=name`` where ``name`` is set to None first and given a value only in
    branches that a path calling ``init()`` does not take (the else of the branch, or the
    other branch of the same test): (name, the test of the branch that sets it, which way),
    or None. Definitions and calls are read in the dataset's own function."""
    if not isinstance(value, cst.Name):
        return None
    order = fl.order(call)
    defs = [d for d in fl.defs.get(value.value, ()) if order is None or d.order < order]
    nones = [d for d in defs if d.index is None and isinstance(d.value, cst.Name) and d.value.value == "None"]
    if not nones:
        return None
    first = min(d.order for d in nones)
    others = [d for d in defs if d.order > first and d not in nones]
    if not others or any(not fl.events[d.order].guards for d in others):
        return None
    inits = set(map(id, init_calls))
    for e in fl.calls():
        if id(e.node) not in inits or e.order < first or (order is not None and e.order > order):
            continue
        taken = {(id(test), branch) for test, branch in e.guards}
        split = [next(((test, branch) for test, branch in fl.events[d.order].guards
                       if (id(test), not branch) in taken), None) for d in others]
        if all(split):
            test, branch = split[0]  # type: ignore[misc]
            return value.value, test, branch
    return None


def _shown_default(fn, param: str) -> str:
    default = dict(fn.params).get(param)
    return repr(default[1]) if default is not None and default[0] == "lit" else "value"


def _says_dist_name(name: str) -> bool:
    lowered = name.lower().replace("num_parallel_workers", "")  # the datasets' worker count
    return any(w in lowered for w in _DIST_WORDS)


def _says_distribution(test: cst.CSTNode) -> bool:
    text = cst.Module([]).code_for_node(test).lower()
    return any(w in text for w in _DIST_WORDS) or bool(names_in(test) & {"distribute", "is_distributed"})
