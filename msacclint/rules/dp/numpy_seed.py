"""MSA308 (dp.03, MS-SEED-01, info): ``np.random.seed``/``random.seed`` but no ``ms.set_seed``."""

from __future__ import annotations

from msacclint.analysis.distributed import distributed
from msacclint.analysis.scopes import says_train, scopes
from msacclint.analysis.training import training
from msacclint.diagnostics import Severity
from msacclint.rules.base import Invalid, Rule, Valid

#: (indented as the rule page shows it) a training script that seeds numpy only, and the same seeding MindSpore
_NUMPY_SEED_ONLY = """
        import numpy as np
        import mindspore as ms
        np.random.seed(1)  # MSA308
        model = ms.Model(net, loss, opt)
        model.train(10, data)
"""
_MINDSPORE_SEED = """
        import numpy as np
        import mindspore as ms
        ms.set_seed(1)
        model = ms.Model(net, loss, opt)
        model.train(10, data)
"""


class NumpySeedWithoutMindSporeSeed(Rule):
    code = "MSA308"
    name = "numpy-seed-without-set-seed"
    checklist = "dp.03"
    severity = Severity.INFO
    group = "review"
    uses_facts = True
    message = "np.random.seed/random.seed without mindspore.set_seed"
    what = ("Reports `np.random.seed(...)`/`random.seed(...)` at the top level or in the main/training "
            "function of a training script (Model.train or a hand-written step) that never calls "
            "`mindspore.set_seed` (nor a seed helper of its own). Seeds inside data workers or numpy "
            "initialisers are their own business and not reported.")
    why = ("`np.random.seed` does not seed MindSpore's initializers, random ops or dataset shuffling; "
           "`mindspore.set_seed` seeds all of them and numpy (MS-SEED-01). A port that keeps only the numpy "
           "seed is not reproducible, and run-to-run differences get blamed on the model.")
    example = _NUMPY_SEED_ONLY
    use_instead = _MINDSPORE_SEED
    fix_safety = "No automatic fix."
    versions = "All MindSpore 1.x and 2.x releases (the dataset coupling observed on 2.10)."
    references = ("rules/api_defaults.toml, entry MS-SEED-01",)
    VALID = (
        Valid(_MINDSPORE_SEED, note="idiomatic"),
        Valid("""
            import numpy as np
            import mindspore as ms
            np.random.seed(1)
            ms.set_seed(1)
            model.train(1, d)
            x = ms.Model(n)
        """),
        Valid("""
            import numpy as np
            import mindspore as ms
            def worker_init(i):
                np.random.seed(i)
            model = ms.Model(net, loss, opt)
            model.train(10, data)
        """, note="a data worker seeds numpy for itself"),
        Valid("""
            import numpy as np
            import mindspore as ms
            from src.utils import set_seed
            np.random.seed(1)
            set_seed(1)
        """, note="a project's seed helper"),
        Valid("""
            import numpy as np
            import torch
            import mindspore
            np.random.seed(1)
            torch.manual_seed(1)
        """, note="PyTorch code next to MindSpore code"),
    )
    INVALID = (
        Invalid(_NUMPY_SEED_ONLY, note="the PyTorch habit minus torch.manual_seed"),
        Invalid("""
            import random
            import mindspore as ms
            from mindspore import nn
            def main():
                random.seed(0)  # MSA308
                step = nn.TrainOneStepCell(nn.WithLossCell(Net(), loss), opt)
        """),
    )

    def finish(self) -> None:
        dist = distributed(self.ctx)
        if dist.set_seed_calls or dist.seed_helpers or not dist.py_seed_calls:
            return
        if "torch" in self.ctx.imports.bindings.values() or "manual_seed" in self.ctx.source:
            return
        info = training(self.ctx)
        if not (info.uses_model_train or info.steps):
            return  # data workers and numpy initialisers seed numpy for themselves
        sc = scopes(self.ctx)
        for call in dist.py_seed_calls:
            fl = sc.owner(call)
            where = sc.function_name(fl) if fl is not None and fl is not sc.module_flow else None
            if where is None or where in ("main", "run", "setup") or says_train(where):
                self.report(call, "np.random.seed/random.seed does not seed MindSpore: call "
                    "mindspore.set_seed(...) to seed initializers, random ops and the dataset pipeline")
                return
