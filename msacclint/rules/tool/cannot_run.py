"""tool.04: code that cannot run on any supported MindSpore release.

- MSA004 (tool.04, warning, on by default): a MindSpore name, module, keyword, positional
  argument or argument combination that raises on every release considered, and an import of
  a module the project itself does not have (msacclint.analysis.raising).
"""

from __future__ import annotations

from msacclint.analysis import api_surface
from msacclint.analysis.raising import upgrade_depends_on_listing, upgrade_failures
from msacclint.diagnostics import Severity
from msacclint.project.listing import LISTING, paths_digest
from msacclint.rules.base import Invalid, Rule, Valid
from msacclint.rules.examples import dedent
from msacclint.rules.fixtures.reach import demo_block


class CannotRun(Rule):
    code = "MSA004"
    name = "cannot-run"
    checklist = "tool.04"
    severity = Severity.WARNING
    group = "upgrade"
    message = "this raises on every supported MindSpore release"
    what = dedent("""
        Reports code that raises on every supported MindSpore release (2.7 to the newest the
        shipped API surface knows), where it is written, saying which releases raise and what
        MindSpore calls the thing instead:

        - a MindSpore name that does not exist: an attribute of a resolved `mindspore` module in
          any expression that runs (calls, base classes, decorators, default values; annotations
          are not read), e.g. `nn.Module`, `nn.Sequential`, `ms.ms_function`;
        - an import of a MindSpore module or name that does not exist
          (`from mindspore.nn import Module`; `import mindspore.dataset.vision.c_transforms` when
          the configured release is 2.8 or newer);
        - a keyword a MindSpore callable does not accept (`nn.Conv1d(..., bias=False)`,
          `nn.ReLU(inplace=True)`), and more positional arguments than it takes
          (`nn.LeakyReLU(0.2, True)`): only for callables on which the probe saw an unknown
          keyword, or one positional argument too many, raise TypeError; an API that takes
          `**kwargs` or `*args` is never reported for them;
        - an argument combination the constructor rejects, from rules/api_surface/rejected.toml,
          on the releases where the probe saw it raise: a convolution or pooling `padding` other
          than 0 with `pad_mode` 'same' or 'valid' (the convolutions' default is 'same', the
          poolings' 'valid'), a 2-D convolution padding of two values, a `pad_mode` such as
          'zeros', `nn.Dropout(keep_prob=0)` / `keep_prob=1` (an int) / `p=1`, an int `p` of
          `nn.Dropout2d`, a BatchNorm momentum outside [0, 1];
        - an import of a module of the project that is not there: the top-level package is a
          folder of the project with `__init__.py`, at the project's root, in `src/` or beside the
          script that imports it, and neither `sub.py` nor `sub/` exists in any folder of that name
          (a relative import likewise). A folder of that name deeper in the tree (a vendored
          `third_party/vllm/`) is not taken for the package the import finds. A third-party package is never
          reported, nor a module whose name the build files mention (.gitignore, setup.py,
          setup.cfg, pyproject.toml, Makefile: a generated `_version.py`) or a protobuf module.

        Names are resolved through the file's imports against the API surface the probe read
        from each release's wheel (rules/api_surface/mindspore-cpu.json), where the name is
        reachable from (a name MindSpore re-exports is found where it is re-exported). With a
        configured `mindspore-version` (or an installed MindSpore) only that release is decided,
        and a name it lacks is reported even when other releases have it ("on MindSpore 2.10.0
        (present in 2.7)"); without one, a name present on some supported releases is not reported.
        A configured release whose line the surface does not know (2.6, 2.11) gets no MindSpore
        finding at all. Not reported: code inside a `try` whose handlers catch the exception, in
        an `except ImportError`/`AttributeError`/`Exception` handler (the fallback for releases where
        the `try` failed), under an `if`/`while` or conditional expression whose test reads a
        version or `TYPE_CHECKING` (and after `if <version>: return ...`), in a function or class
        that only such version-dependent branches name,
        a name the file asks `hasattr`/`getattr`/`setattr` about, a name the file or the
        project assigns to a MindSpore module (`nn.Module = nn.Cell`), a name a function or class
        binds locally, a module-level name bound in two ways, names under modules the probe did
        not walk (`mindspore.nn.layer.basic.Dense`) and attributes of classes.
        """)
    why = dedent("""
        Code that raises at import or at construction cannot train anything, and everything
        after it cannot run: the rest of the constructor, the module whose import raises, every
        network only that code builds. Ported code often carries such lines in files the port
        never ran (a PyTorch `nn.Sequential`, a `bias=False` copied from `torch.nn.Conv1d`, a
        `padding=3` that MindSpore only accepts with `pad_mode='pad'`). The error itself is loud
        once the line runs; the value of this finding is in knowing before: the findings of the
        other rules in code that cannot run describe code nobody has run, and a port is not
        finished while it has such lines.
        """)
    example = dedent("""
        import mindspore.nn as nn


        class Block(nn.Module):  # MSA004
            def __init__(self):
                super().__init__()
                self.conv = nn.Conv1d(64, 64, 3, bias=False)  # MSA004
                self.pad = nn.Conv2d(3, 64, 7, stride=2, padding=3)  # MSA004
                self.act = nn.LeakyReLU(0.2, True)  # MSA004
        """)
    use_instead = dedent("""
        import mindspore.nn as nn


        class Block(nn.Cell):
            def __init__(self):
                super().__init__()
                self.conv = nn.Conv1d(64, 64, 3, has_bias=False)
                self.pad = nn.Conv2d(3, 64, 7, stride=2, pad_mode="pad", padding=3)
                self.act = nn.LeakyReLU(0.2)
        """)
    evidence = dedent("""
        The API surface the probe recorded from every supported release's CPU wheel
        (`msacclint probe --api-surface`; docs/probe.md): each walked module's names, each
        callable's parameters, whether an unknown keyword or an extra positional argument was
        seen to raise TypeError, and which argument combinations were seen to raise. A finding
        is made only when every release considered raises.

        Severity is warning, not error: the failure is loud (an AttributeError, TypeError,
        ValueError or ImportError the first time the line runs), not a silent accuracy loss. What
        the finding adds is telling, before anything runs, that the code around it cannot run.
        """)
    fix_safety = "No automatic fix: the MindSpore spelling in the message is a different API with its own defaults."
    versions = dedent("""
        Decided per release from rules/api_surface/mindspore-cpu.json: MindSpore 2.7.0, 2.7.1,
        2.7.1.post1, 2.7.2, 2.8.0, 2.9.0 and 2.10.0 on CPU. Names present on some of them only
        (`mint.nn.CosineEmbeddingLoss` came in 2.8, `mindspore.dataset.vision.c_transforms` is gone
        after 2.7) are reported only when the configured release lacks them. Every rejected
        argument combination of rules/api_surface/rejected.toml was seen to raise on every one of
        these releases.
        """)
    references = ("rules/api_surface/rejected.toml", "rules/api_surface/spellings.toml", "docs/probe.md")

    VALID = (
        Valid(use_instead, note="the MindSpore spellings"),
        Valid("""
            import torch
            import torch.nn as nn
            import mindspore as ms


            class Reference(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(4, 4, bias=False)
                    self.act = nn.LeakyReLU(0.2, True)
            """, note="PyTorch's nn.Module, nn.Linear and LeakyReLU(inplace) in a file that also imports MindSpore"),
        Valid("""
            import mindspore as ms
            from tensorflow import keras

            model = keras.Sequential([keras.layers.Dense(4, use_bias=False)])
            layer = keras.layers.Conv2D(8, 3, padding="same")
            """, note="Keras classes of the same names"),
        Valid(files={
            "src/nn.py": """
                import mindspore
                Module = mindspore.nn.Cell
                """,
            "src/__init__.py": "",
            "train.py": """
                import mindspore as ms
                from src import nn

                net = nn.Module()
                """,
        }, note="the project's own nn module"),
        Valid("""
            import mindspore.nn as nn

            Linear = nn.Linear if hasattr(nn, "Linear") else nn.Dense
            try:
                from mindspore.nn import Module
            except ImportError:
                Module = nn.Cell
            if ms_version < (2, 3):
                step = ms.ms_function(step)
            """, note="guarded by hasattr, try/except ImportError and a version check"),
        Valid("""
            import mindspore as ms
            import mindspore.nn as nn

            model = ms.Model(net, loss_fn=loss, optimizer=opt, metrics={"acc"}, keep_batchnorm_fp32=False)
            opt = nn.Adam(params, learning_rate=1e-3, use_lazy=False)
            """, note="APIs that take **kwargs accept any keyword"),
        Valid("""
            import mindspore.nn as nn

            conv = nn.Conv2d(3, 64, 7, stride=2, pad_mode="pad", padding=3)
            same = nn.Conv2d(3, 64, 3, pad_mode="same", padding=0)
            pool = nn.MaxPool2d(kernel_size=3, stride=2, pad_mode="pad", padding=1)
            drop = nn.Dropout(p=0.0)
            keep = nn.Dropout(keep_prob=1.0)
            width = nn.Conv2d(3, 64, 3, padding=pad, pad_mode=mode)
            """, note="combinations MindSpore accepts, and values that are not literals"),
        Valid("""
            from mindspore import mint

            loss = mint.nn.CosineEmbeddingLoss(margin=0.5)
            """, note="a name the newest release has (the upgrade target), with no release configured"),
        Valid("""
            import mindspore.nn as nn
            from mindspore import ops


            def build(ops, nn):
                layers = nn.Sequential()
                return ops.concat(layers.out)
            """, note="parameters named like the imports"),
        Valid(files={
            "models/__init__.py": "",
            "models/resnet.py": "import mindspore.nn as nn\n",
            "train.py": """
                import mindspore as ms
                import numpy.linalg
                from models.resnet import resnet50
                from mmcv.runner import load_checkpoint
                """,
        }, note="project modules that exist, and third-party packages"),
    )
    INVALID = (
        Invalid(example, message_contains="MindSpore's name is nn.Cell"),
        Invalid("""
            import mindspore as ms
            import mindspore.nn as nn
            from mindspore.nn import ModuleList  # MSA004


            @ms.ms_function  # MSA004
            def train_step(x):
                return x


            layers = nn.Sequential(nn.Dense(4, 4), nn.ReLU(inplace=True))  # MSA004 MSA004
            drop = nn.Dropout(keep_prob=0)  # MSA004
            fc = nn.Dropout(p=1.0)  # MSA004
            pool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)  # MSA004
            """, note="a decorator that raises at import, a missing import, keywords and combinations"),
        Invalid("""
            import mindspore.dataset.vision.c_transforms as C  # MSA004
            import mindspore.nn as nn

            fc = nn.Linear(4, 4)
            """, mindspore_version="2.10.0", message_contains="(present in 2.7)",
            note="the configured release lacks a module older releases have"),
        Invalid("""
            import mindspore.dataset.vision.c_transforms as C  # MSA004
            import mindspore.nn as nn

            resize = C.Resize(224)
            """, message_contains="on MindSpore 2.10.0 (present in 2.7)",
            note="no release configured: what fails on the move to the newest release (the upgrade target)"),
        Invalid("""
            import mindspore as ms


            @ms.ms_function  # MSA004
            def step(x):
                return x
            """, mindspore_version="1.8.1", message_contains="the project targets MindSpore 1.8.1: this fails once "
                                                               "it moves to 2.10.0",
            note="a 1.x project: nothing fails today on a release the surface knows; the move to 2.x is the report"),
        Invalid("""
            from mindspore import mint

            loss = mint.nn.CosineEmbeddingLoss(margin=0.5)  # MSA004
            """, mindspore_version="2.7.2", message_contains="on MindSpore 2.7.2 (present in 2.8–2.10)",
            note="a class the configured release does not have yet"),
        Invalid(files={
            "src/__init__.py": "",
            "src/model.py": "import mindspore.nn as nn\n",
            "train.py": """
                import mindspore as ms
                from src.model import Net
                from src.utils.lr import cosine_lr  # MSA004
                import src.dataset  # MSA004
                """,
        }, message_contains="the project has no module src.utils", note="modules the project does not have"),
        Invalid(files=demo_block("nn.BatchNorm1d(8, bias=False)  # MSA004"), severity=Severity.WARNING,
                note="multi-file: only the model module's own demo block builds the layer, and that run trains "
                     "nothing; a rejected keyword fails whatever runs it, so the demo counts (a training default "
                     "in the same place would be dormant)"),
    )

    def finish(self) -> None:
        moving = self._moving()
        for found in upgrade_failures(self.ctx):
            self.report(found.node, found.message + moving)
        if upgrade_depends_on_listing(self.ctx):
            _depend_on_listing(self.ctx.project)

    def _moving(self) -> str:
        """What the finding is about when the project targets a release the API surface does not
        know (a 1.x pin): the move from it."""
        version = self.ctx.mindspore_version
        surface = api_surface.surface()
        if not version or surface is None or surface.release_for(version) is not None:
            return ""
        return f" (the project targets MindSpore {version}: this fails once it moves to {surface.versions[-1]})"


def _depend_on_listing(project: object) -> None:
    """Record, for the cache, that this file's findings depend on which files the project
    holds: a module created after a run that reported it missing must clear the finding.
    (The project index records the same dependency for its own answers that read the
    listing; it has no public call for it, so its record is written the way it writes it.)"""
    used = getattr(project, "_used", None)
    files, configs = getattr(project, "files", None), getattr(getattr(project, "configs", None), "paths", ())
    if isinstance(used, dict) and files is not None:
        used[LISTING + project.root] = paths_digest(list(files) + list(configs))  # type: ignore[attr-defined]
