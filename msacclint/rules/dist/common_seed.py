"""dist.01: data-parallel replicas that start from different weights (MSA601): several
devices and no common seed (none at all, or one that depends on the rank) and no parameter
broadcast."""

from __future__ import annotations

from functools import partial
from typing import List, Optional, Tuple

from msacclint.analysis.distributed import distributed, rank_dependent
from msacclint.analysis.guard_values import skipped_calls
from msacclint.analysis.training import training
from msacclint.diagnostics import Severity
from msacclint.rules.base import Invalid, Rule, Valid
from msacclint.rules.examples import model_zoo_config
from msacclint.rules.fixtures.mpwi import data_parallel_script, fill_files, page


#: a value decided elsewhere: the seed helper of src/utils.py (``{body}``) that the
#: data-parallel entry script relies on
_SEED_HELPER = {
    "src/__init__.py": "",
    "src/utils.py": """
        import random

        import numpy as np
        {imports}

        def seed_everything(seed):
            random.seed(seed)
            np.random.seed(seed)
            {body}
    """,
    "train.py": """
        import mindspore as ms
        from mindspore import nn
        from mindspore.communication import init
        from src.utils import seed_everything

        seed_everything(1)
        init(){mark}
        ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
        net = Net()
        model = ms.Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), 0.1))
        model.train(10, data)
    """,
}



_seed_helper = partial(fill_files, _SEED_HELPER, body="pass", imports="", mark="")


def _guarded_seed(seed: str, guard: str = "if config.seed and config.seed > 0:\n    ", mark: str = ""):
    """A model-zoo project whose default_config.yaml holds ``seed``, and a data-parallel entry
    script that seeds behind ``guard`` (``mark`` on its set_seed)."""
    return dict(model_zoo_config({"seed": seed}), **{"train.py": data_parallel_script(
        before=f"from src.model_utils.config import config\n{guard}ms.set_seed(config.seed){mark}")})


class ReplicasUnseeded(Rule):
    code = "MSA601"
    about_the_run = True
    name = "distributed-without-common-seed"
    checklist = "dist.01"
    severity = Severity.WARNING
    group = "suspicious"
    uses_facts = True
    message = "distributed training without a common seed: replicas start from different weights"
    what = ("In a file that calls `communication.init()`, sets a data-parallel context and trains "
            "(`Model.train`, a hand-written step, or a cell built from a MindSpore optimizer and called in a "
            "loop: a step cell imported from another file), "
            "reports the missing `mindspore.set_seed` (no call at all, nor a seed helper; a seed helper that is a "
            "function of the project is read there, and one that seeds only `random`/`numpy` counts as none; a seed "
            "behind a test that the value the repository ships fails, `if config.seed and ...:` with `seed: 0` in "
            "the shipped config or `if args.seed:` with an argparse default of 0, counts as none and is reported "
            "at the seed, naming the value), or a "
            "`set_seed`/seed helper given a value that depends on the rank, when the parallel context does "
            "not set `parameter_broadcast`.")
    why = ("Each device initialises its own copy of the network. Without the same seed the replicas "
           "start from different weights; data-parallel averaging of gradients then updates different "
           "models with the same step, and the result is worse than a single-device run. MindSpore's "
           "own model repositories fixed exactly this more than once.")
    example = page(data_parallel_script(mark="  # MSA601"))
    use_instead = page(data_parallel_script(before="ms.set_seed(1)"))
    fix_safety = "No automatic fix."
    versions = "All MindSpore 1.x and 2.x releases."
    VALID = (
        Valid(files=_seed_helper(body="ms.set_seed(seed)", imports="import mindspore as ms"),
              note="multi-file: the project's seed helper seeds MindSpore too"),
        Valid(files=dict(_seed_helper(body="set_global_seed(seed)", imports="from src.seeds import set_global_seed"),
                         **{"src/seeds.py": "import mindspore\n\n\ndef set_global_seed(seed):\n"
                                            "    mindspore.set_seed(seed)\n"}),
              note="multi-file look-alike: the helper seeds MindSpore through another helper of the project"),
        Valid(data_parallel_script(before="ms.set_seed(1)"), note="idiomatic"),
        Valid(files=_guarded_seed("0", guard=""),
              note="multi-file: the shipped config's seed 0, set unconditionally (a seed of 0 is a seed)"),
        Valid(files=_guarded_seed("42"),
              note="multi-file look-alike: the same guard, and the shipped config's seed passes it"),
        Valid(data_parallel_script(context="parameter_broadcast=True"), note="weights broadcast from rank 0"),
        Valid(data_parallel_script(before="from src.utils import seed_everything\nseed_everything(1)"),
              note="a project's seed helper"),
        Valid(files={
            "src/__init__.py": "",
            "src/unet_parts.py": """
                import mindspore as ms
                from mindspore import nn
                ms.set_seed(1212)

                class DoubleConv(nn.Cell):
                    pass
            """,
            "train.py": """
                import mindspore as ms
                from mindspore.communication import init
                from src.unet_parts import DoubleConv
                init()
                ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
                net = DoubleConv()
                model = ms.Model(net, loss, opt)
                model.train(90, data)
            """}, note="a module the script imports seeds on import"),
        Valid(data_parallel_script(before="ms.set_seed(1)", single_device=True), note="single device"),
        Valid(data_parallel_script(run="""
            ms.load_checkpoint(path, net)
            model = ms.Model(net, loss, metrics={'acc'})
            model.eval(data)
        """), note="distributed evaluation of a loaded checkpoint"),
        Valid("""
            import mindspore
            import torch.distributed as dist
            dist.init_process_group('nccl')
            model = torch.nn.parallel.DistributedDataParallel(net)
        """, note="PyTorch DDP broadcasts itself"),
        Valid("""
            import mindspore as ms
            from mindspore import nn
            from mindspore.communication import init, get_rank
            def seed_all(seed=42, rank=0):
                ms.set_seed(seed + rank)

            init()
            ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
            net = Net()
            model = ms.Model(net, loss, opt)
            model.train(90, data)
        """, note="a utility module: what the helper's callers pass for rank is not in this file"),
        Valid("""
            import mindspore as ms
            from mindspore.communication import init
            from mindspore.context import ParallelMode

            def main(args):
                init()
                mode = ParallelMode.SEMI_AUTO_PARALLEL
                ms.set_auto_parallel_context(parallel_mode=mode)
                net = Net()
                model = ms.Model(net, loss, opt)
                model.train(args.epochs, data)
        """, note="the nearest look-alike: semi-auto parallel slices the parameters, no replicas"),
        Valid("""
            import mindspore as ms
            from mindspore.communication import init

            def init_env(device_num):
                if device_num > 1:
                    init()
                    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)

            def do_eval(eval_net, dataset, metric):
                eval_net.set_train(False)
                for data in dataset.create_dict_iterator():
                    metric.update(eval_net(data["lr"]), data["hr"])
                eval_net.set_train(True)
                return metric.eval()
        """, path="src/utils.py",
              note="the nearest look-alike: a shared helper module that sets up the context and evaluates; it "
                   "switches training mode back on, but trains nothing (the entry script seeds)"),
    )
    INVALID = (
        Invalid(files=_seed_helper(mark="  # MSA601"), message_contains="seeds random/numpy, not MindSpore",
                note="multi-file: the entry script's only seed is a helper of src/ that seeds random and numpy"),
        Invalid(files={
            "src/__init__.py": "",
            "src/unet_parts.py": """
                import mindspore as ms
                from mindspore import nn

                class DoubleConv(nn.Cell):
                    pass

                if __name__ == "__main__":
                    ms.set_seed(1212)
            """,
            "train.py": """
                import mindspore as ms
                from mindspore.communication import init
                from src.unet_parts import DoubleConv
                init()  # MSA601
                ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
                net = DoubleConv()
                model = ms.Model(net, loss, opt)
                model.train(90, data)
            """}, note="the imported module seeds only when run as a script, not on import"),
        Invalid(data_parallel_script(mark="  # MSA601"), note="torch DDP broadcasts rank 0's weights; MindSpore does not"),
        Invalid(files=_guarded_seed("0", mark="  # MSA601"), message_contains="default_config.yaml:2): no seed is set",
                note="multi-file: the seed is set only when `config.seed and ...` holds, and the shipped config holds "
                     "seed 0"),
        Invalid(files={"train.py": data_parallel_script(before="import argparse\nparser = argparse.ArgumentParser()\n"
                                            "parser.add_argument('--seed', type=int, default=0)\n"
                                            "args = parser.parse_args()\nif args.seed:\n"
                                            "    ms.set_seed(args.seed)  # MSA601")},
                message_contains="args.seed = 0",
                note="`if args.seed:` skips the argparse default 0"),
        Invalid(data_parallel_script(after_init="rank = get_rank()\nms.set_seed(1 + rank)  # MSA601"),
                message_contains="rank"),
        Invalid(data_parallel_script(before="import os",
                                     after_init="ms.set_seed(args.seed + int(os.environ['RANK_ID']))  # MSA601"),
                message_contains="rank"),
        Invalid("""
            import mindspore as ms
            from mindspore.communication import init
            from mindspore.context import ParallelMode

            def main(args):
                init()  # MSA601
                mode = ParallelMode.DATA_PARALLEL
                ms.set_auto_parallel_context(parallel_mode=mode, gradients_mean=True)
                net = Net()
                model = ms.Model(net, loss, opt)
                model.train(args.epochs, data)
        """, note="the parallel mode held in a variable first"),
        Invalid("""
            import mindspore as ms
            from mindspore.communication import init
            from src.steps import TrainOneStepG

            ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
            init()  # MSA601
            generator = get_generator()
            train_g = TrainOneStepG(GeneratorLoss(generator), ms.nn.Adam(generator.trainable_params()))
            train_g.set_train()
            for data in loader:
                train_g(data["hr"], data["lr"])
        """, note="the training step is a cell of another file, built from an optimizer and called in a loop"),
    )

    def finish(self) -> None:
        dist = distributed(self.ctx)
        if not dist.init_calls or dist.parameter_broadcast or dist.parallel_mode != "data":
            return  # replicas exist in data parallel; (semi-)auto and manual parallel slice parameters
        info = training(self.ctx)
        if not (info.uses_model_train or info.steps or info.runs_imported_step()):
            return  # evaluation or inference on several devices loads its weights
        # a seed behind a branch the shipped values never take (``if config.seed and ...`` with
        # ``seed: 0`` in the config) does not run
        skipped = skipped_calls(self.ctx, dist.set_seed_calls + dist.seed_helpers)
        set_seeds = [c for c in dist.set_seed_calls if id(c) not in skipped]
        helpers = [c for c in dist.seed_helpers if id(c) not in skipped]
        rank_seeds = [c for c in set_seeds + helpers if any(rank_dependent(self.ctx, a.value, c) for a in c.args)]
        plain_seeds = [c for c in set_seeds + helpers if c not in rank_seeds]
        if rank_seeds and not plain_seeds:
            self.report(rank_seeds[0], "the seed depends on the rank, so every replica starts from different weights; "
                        "seed the network with the same value on every device (or set parameter_broadcast=True)")
        elif not set_seeds and not self._seeded_on_import():
            found = self._helpers_seeding_elsewhere(helpers)
            if found is None:
                return  # a seed helper whose effect is not known
            guarded = [c for c in dist.set_seed_calls + dist.seed_helpers if id(c) in skipped]
            if guarded and not helpers:
                self._report_skipped(guarded[0], skipped[id(guarded[0])])
                return
            note = "" if not found else (
                f" ({', '.join(f'{name}() at {where}' for name, where in found[:2])} seeds random/numpy, not "
                "MindSpore: seed it there with mindspore.set_seed)")
            self.report(dist.init_calls[0], "distributed training without mindspore.set_seed: every replica initialises "
                        "different weights; call ms.set_seed(<same value>) before building the network" + note)

    def _report_skipped(self, call, skip) -> None:
        """The only seed sits behind a test that the values the project gives skip."""
        from msacclint.analysis.imports import dotted

        when = "the value" if len(skip.values) == 1 else "the values"
        related = []
        for what, value, where in skip.values:
            path, _, line = where.rpartition(":")
            if path and line.isdigit():
                related.append((path, int(line), f"{what} = {value!r}"))
        self.report(call, f"{dotted(call.func) or 'the seed'}() runs only when `{skip.test}` is "
                    f"{'true' if skip.branch else 'false'}, and it is not for {when} the repository ships, "
                    f"{skip.said()}: no seed is set then, "
                    "so every replica initialises different weights in distributed training; seed unconditionally "
                    "(a seed of 0 is a seed too), or set parameter_broadcast=True", related=related)

    def _helpers_seeding_elsewhere(self, calls) -> Optional[List[Tuple[str, str]]]:
        """A value decided elsewhere: the seed helpers this file calls, read in the project
        (``seed_everything(1)`` of ``src/utils.py``). [] when there are none; the helpers, as
        (name, where), when each is a function of the project that seeds nothing of MindSpore
        (``ProjectIndex.seeds_mindspore``); None when one may seed MindSpore or is unknown."""
        import os

        from msacclint.analysis.imports import dotted

        if not calls:
            return []
        project = self.ctx.project
        if project is None:
            return None
        out = []
        for call in calls:
            name = dotted(call.func)
            found = project.resolve_from(self.ctx, name) if name is not None else None
            if found is None and name is not None and "." not in name:
                found = project.lookup(os.path.abspath(self.ctx.path), name)
            summary = project.summary(found[1]) if found is not None and found[0] == "function" else None
            if summary is None or project.seeds_mindspore(summary, found[2].calls) is not False:
                return None
            out.append((name, f"{project.display(found[1])}:{found[2].line}"))
        return out

    def _seeded_on_import(self) -> bool:
        """A project module the file imports calls mindspore.set_seed at module level: it
        runs on import, before the network is built."""
        import os

        project = self.ctx.project
        return project is not None and project.imported_module_calls(
            os.path.abspath(self.ctx.path), ("mindspore.set_seed",)) is not None
