"""dp.02/dp.03: augmentation drawn in forked dataset workers that share one random state.

- MSA309 (dp.03): ``GeneratorDataset(source, num_parallel_workers=N>1)`` with Python
  multiprocessing (the default) whose source class draws from NumPy's or Python's global
  random state in ``__getitem__``: the forked workers start from the same state and
  repeat each other's draws.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Set

import libcst as cst

from msacclint.analysis.calls import UNKNOWN, argument, constant, has_star_kwargs, literal, parameter_slots
from msacclint.analysis.cells import attributes_from_parameters
from msacclint.analysis.facts import facts
from msacclint.analysis.scopes import says_eval, says_train, scopes
from msacclint.analysis.switches import switch
from msacclint.diagnostics import Severity
from msacclint.project.index import UNSET
from msacclint.rules.base import Invalid, Rule, Valid
from msacclint.rules.examples import dedent, fill

GENERATOR = "mindspore.dataset.GeneratorDataset"
_SIGNATURE = ("source", "column_names", "column_types", "schema", "num_samples", "num_parallel_workers", "shuffle",
              "sampler", "num_shards", "shard_id", "python_multiprocessing", "max_rowsize")
_ACCESS = ("__getitem__", "__next__", "__iter__")
_NOT_DRAWS = (".seed", ".RandomState", ".default_rng", ".Generator", ".get_state", ".set_state", ".SeedSequence")


def _is_global_draw(name: Optional[str]) -> bool:
    return bool(name) and (name.startswith("numpy.random.") or name.startswith("random.")) \
        and not name.endswith(_NOT_DRAWS)


class _Body(cst.CSTVisitor):
    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self.draws: List[cst.Call] = []
        self.reseeds = False
        self.self_calls: Set[str] = set()

    def visit_Call(self, node: cst.Call) -> None:
        name = self.ctx.resolve(node.func)
        if _is_global_draw(name):
            self.draws.append(node)
        elif name and name.endswith((".seed",)) and (name.startswith("numpy.random") or name.startswith("random")):
            self.reseeds = True
        func = node.func
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self":
            self.self_calls.add(func.attr.value)


def _assigned_names(sc, call: cst.Call) -> List[str]:
    """The names the dataset is assigned to (``val_loader = GeneratorDataset(...)``)."""
    fl = sc.owner(call)
    if fl is None:
        return []
    return [d.name for defs in fl.defs.values() for d in defs if d.value is call]


def _source_names(call: cst.Call) -> List[str]:
    source = argument(call, "source", _SIGNATURE)
    return [source.value.value] if source is not None and isinstance(source.value, cst.Name) else []


def _methods(cls: cst.ClassDef) -> dict:
    return {s.name.value: s for s in cls.body.body if isinstance(s, cst.FunctionDef)}


_FORKING_BUILDER = """
    import numpy as np
    import mindspore.dataset as ds

    class Poses:
        def __getitem__(self, i):
            return self.augment(self.images[i]), self.labels[i]

        def augment(self, img):
            return np.rot90(img, np.random.randint(4))

    def create_dataset(batch_size, multiprocessing=True, workers=8):
        data = ds.GeneratorDataset(Poses(), ["image", "label"],{mark}
                                   num_parallel_workers=workers,
                                   python_multiprocessing=multiprocessing)
        return data.batch(batch_size)
"""


def _forking_case(args: str, mark: str = "") -> Dict[str, str]:
    """A builder whose multiprocessing is a parameter, and an entry script calling it with ``args``."""
    return {"src/__init__.py": "", "src/dataset.py": fill(_FORKING_BUILDER, mark=mark),
            "train.py": f"from src.dataset import create_dataset\n\ntrain_set = create_dataset({args})\n"}


_MODE_BUILDER = """
    import numpy as np
    import mindspore.dataset as ds

    class Poses:
        def __init__(self, mode="train"):
            self.mode = mode

        def __getitem__(self, i):
            img = self.images[i]
            if self.mode in ("val", "eval"):
                return img, self.labels[i]
            return np.rot90(img, np.random.randint(4)), self.labels[i]

    def create_dataset(mode="val"):
        return ds.GeneratorDataset(Poses(mode=mode), ["image", "label"], num_parallel_workers=8){mark}
"""


def _poses_case(callers: str, mark: str = "") -> Dict[str, str]:
    """A dataset whose __getitem__ returns before drawing in evaluation modes, built by
    ``callers`` (statements of a script that imports the builder)."""
    return {"src/__init__.py": "", "src/dataset.py": fill(_MODE_BUILDER, mark=mark),
            "run.py": "from src.dataset import create_dataset\n\n" + dedent(callers)}


def _ends_in_return(statement: cst.If) -> bool:
    body = statement.body
    last = body.body[-1] if isinstance(body, cst.IndentedBlock) and body.body else None
    if isinstance(body, cst.SimpleStatementSuite):
        last = body
    return isinstance(last, (cst.SimpleStatementLine, cst.SimpleStatementSuite)) and \
        isinstance(last.body[-1], cst.Return)


class WorkersRepeatDraws(Rule):
    code = "MSA309"
    about_the_run = True
    name = "generator-workers-share-random-state"
    checklist = "dp.03"
    severity = Severity.WARNING
    group = "suspicious"
    uses_facts = True
    message = "GeneratorDataset worker processes draw from one copied NumPy/random state: augmentation repeats"
    what = ("Reports `GeneratorDataset(source, num_parallel_workers=N)` with N larger than 1 (or not a literal) and "
            "`python_multiprocessing` not False (left out, True, or a parameter of the builder that some caller "
            "in the project passes as True or leaves at a default of True), when `source` is an instance of a class of the file whose "
            "`__getitem__` (or `__next__`/`__iter__`, or a `self.` method they call) draws from `numpy.random` "
            "or Python's `random` module without reseeding there. A dataset built for evaluation (in the "
            "else-branch of a training test, in a function named for evaluation, assigned to or built from a "
            "name that says evaluation: `val_loader`, `eval_set`) is not reported, nor one whose `__getitem__` "
            "returns before any draw under a test of an attribute `__init__` sets from a parameter "
            "(`if self.mode in ('val', 'eval'): return ...`) when every value the construction passes for it, "
            "resolved through the builder's parameters and its callers, makes that test true. Field check (every finding "
            "on the four tuning repositories, read in context, 2026-11-26): 92 of 93 true, but 90 of them are "
            "45 copies of one LPCNet loader; by distinct code site 4 of 5 true. The false one is a validation "
            "dataset built through a mode argument whose `__getitem__` returns before its only draw; the same "
            "reading found the training dataset of that project (20-48 workers, NumPy augmentation) not reported.")
    why = ("With Python multiprocessing (the default) the workers are forked from the main process and keep "
           "its NumPy and `random` state: each worker draws the same sequence, so random crops, flips and "
           "noise repeat across workers (checked on 2.10: 2 workers, 16 draws, 8 distinct values in identical "
           "pairs; with threads 16 distinct). PyTorch's DataLoader seeds every worker's `random` and torch "
           "generators differently (and NumPy's since PyTorch 1.9), which ported code relies on. The "
           "effective variety of the augmentation is divided by the worker count.")
    example = """
    import numpy as np
    import mindspore.dataset as ds

    class Pairs:
        def __getitem__(self, i):
            img = self.images[i]
            if np.random.rand() < 0.5:
                img = img[:, ::-1]
            return img, self.labels[i]

        def __len__(self):
            return len(self.images)

    data = ds.GeneratorDataset(Pairs(), ["image", "label"], num_parallel_workers=8)  # MSA309
    """
    use_instead = """
    import mindspore.dataset as ds
    import mindspore.dataset.vision as vision

    class Pairs:
        def __getitem__(self, i):
            return self.images[i], self.labels[i]

        def __len__(self):
            return len(self.images)

    data = ds.GeneratorDataset(Pairs(), ["image", "label"], num_parallel_workers=8)
    data = data.map([vision.RandomHorizontalFlip()], "image", num_parallel_workers=8)
    """
    fix_safety = "No automatic fix."
    versions = "MindSpore 1.x and 2.x (python_multiprocessing=True is the default; checked on 2.10)."
    VALID = (
        Valid(use_instead, note="idiomatic: the pipeline's own random ops"),
        Valid(example.replace("num_parallel_workers=8)  # MSA309", "num_parallel_workers=1)"),
              note="one worker"),
        Valid(example.replace("num_parallel_workers=8)  # MSA309",
                              "num_parallel_workers=8, python_multiprocessing=False)"),
              note="threads share one state and draw different numbers"),
        Valid("""
            import numpy as np
            import mindspore.dataset as ds

            class Pairs:
                def __getitem__(self, i):
                    rng = np.random.default_rng(i + self.epoch * 100003)
                    img = self.images[i]
                    if rng.random() < 0.5:
                        img = img[:, ::-1]
                    return img, self.labels[i]

            data = ds.GeneratorDataset(Pairs(), ["image", "label"], num_parallel_workers=8)
            """, note="a generator seeded per sample"),
        Valid("""
            import numpy as np
            import torch
            import mindspore

            class Pairs(torch.utils.data.Dataset):
                def __getitem__(self, i):
                    return self.images[i] * np.random.rand(), self.labels[i]

            loader = torch.utils.data.DataLoader(Pairs(), num_workers=8)
            """, note="a PyTorch DataLoader"),
        Valid("""
            import random
            import mindspore.dataset as ds

            class Coco:
                def __getitem__(self, i):
                    if self.is_training and random.random() < 0.5:
                        return self.mosaic(i)
                    return self.load(i)

            def create_dataset(is_training):
                source = Coco(is_training)
                if is_training:
                    data = ds.GeneratorDataset(source, ["image"], num_parallel_workers=1)
                else:
                    data = ds.GeneratorDataset(source, ["image"], num_parallel_workers=8)
                return data
            """, note="the evaluation dataset, in the else-branch of a training test"),
        Valid(files=_forking_case(args="32, multiprocessing=False"),
              note="multi-file lookalike: every caller turns multiprocessing off (worker threads share one state)"),
        Valid(files=_poses_case(callers="""
                val_set = create_dataset()
                test_set = create_dataset(mode="eval")
            """), note="multi-file: every caller builds it in a mode whose __getitem__ returns before the draw"),
    )
    INVALID = (
        Invalid(example, note="augmentation drawn with NumPy in __getitem__"),
        Invalid("""
            import random
            import mindspore.dataset as ds

            class Crops:
                def __getitem__(self, i):
                    return self._crop(self.images[i]), self.labels[i]

                def _crop(self, img):
                    x = random.randint(0, 32)
                    return img[x:x + 224]

            source = Crops()
            data = ds.GeneratorDataset(source, column_names=["image", "label"],  # MSA309
                                       num_parallel_workers=args.workers, shuffle=True)
            """, note="through a helper method and a local name"),
        Invalid(files=_forking_case(args="32", mark="  # MSA309"),
                note="multi-file: multiprocessing from a builder parameter whose default the caller keeps"),
        Invalid(files=_poses_case(mark="  # MSA309", callers="""
                val_set = create_dataset()
                train_set = create_dataset(mode="train")
            """), note="multi-file lookalike: one caller builds the training mode, which draws"),
    )

    def finish(self) -> None:
        f = facts(self.ctx)
        calls = f.called(GENERATOR)
        if not calls:
            return
        classes = {s.name.value: s for s in self.ctx.module.body if isinstance(s, cst.ClassDef)}
        sc = None
        for call in calls:
            if has_star_kwargs(call):
                continue
            workers = argument(call, "num_parallel_workers", _SIGNATURE)
            if workers is None:
                continue
            value = constant(self.ctx, workers.value)
            if value is not UNKNOWN and (not isinstance(value, int) or value <= 1):
                continue
            multiprocessing = argument(call, "python_multiprocessing", _SIGNATURE)
            sc = sc or scopes(self.ctx)
            if multiprocessing is not None and not self._may_fork(sc, call, multiprocessing.value):
                continue
            source = argument(call, "source", _SIGNATURE)
            if source is None:
                continue
            if self._evaluation(sc, call):
                continue
            made = source.value
            if isinstance(made, cst.Name):
                sc = sc or scopes(self.ctx)
                fl = sc.owner(call)
                found = sc.resolve(fl, made.value, fl.order_of.get(call)) if fl is not None else None
                if found is None or found[1].index is not None:
                    continue
                made = found[1].value
            if not (isinstance(made, cst.Call) and isinstance(made.func, cst.Name) and made.func.value in classes):
                continue
            draws = self._draws(classes[made.func.value])
            if draws and self._returns_before_drawing(sc, call, classes[made.func.value], made):
                continue
            if draws:
                self.report(call, f"{made.func.value} draws with the global NumPy/random state in __getitem__ "
                            f"and {cst.Module([]).code_for_node(workers.value)} worker processes are forked "
                            "with the same state: the workers repeat each other's random draws; use the "
                            "pipeline's random ops in .map(), a generator seeded per sample, or "
                            "python_multiprocessing=False")

    def _may_fork(self, sc, call: cst.Call, value: cst.BaseExpression) -> bool:
        """``python_multiprocessing=value`` is True for some build: a literal True, or a
        parameter of the enclosing top-level function whose callers (with the project
        layer, across files) pass True or leave a default of True."""
        found = constant(self.ctx, value)
        if found is not UNKNOWN or not isinstance(value, cst.Name):
            return found is True
        fl = sc.owner(call)
        function = fl.root if fl is not None else None
        if not isinstance(function, cst.FunctionDef) or function not in self.ctx.module.body:
            return False
        slots = parameter_slots(function)
        if value.value not in slots:
            return False
        position, default = slots[value.value]
        by_default = default is not None and literal(default) is True
        project = self.ctx.project
        values = project.switch_values(self.ctx.path, function.name.value, value.value, position) \
            if project is not None else None
        if values is None:  # callers not all seen: the default decides
            return by_default
        return any(v.value is True or (v.value is UNSET and by_default) for v in values)

    @staticmethod
    def _evaluation(sc, call: cst.Call) -> bool:
        """The dataset is built for evaluation: in the else-branch of a training test
        (``if is_training: ... else: GeneratorDataset(...)``), in the branch of an
        evaluation test, or in a function named for evaluation."""
        event = sc.event(call)
        if event is None:
            return False
        for name in _assigned_names(sc, call) + _source_names(call):
            if says_eval(name) and not says_train(name):
                return True
        for test, branch in event.guards:
            text = cst.Module([]).code_for_node(test)
            if (says_train(text) and not branch) or (says_eval(text) and branch and not says_train(text)):
                return True
        fl = sc.owner(call)
        return fl is not None and says_eval(sc.function_name(fl)) and not says_train(sc.function_name(fl))

    def _draws(self, cls: cst.ClassDef, start: Optional[Sequence[cst.CSTNode]] = None) -> List[cst.Call]:
        """The global-state draws of the access methods (or of the ``start`` statements) and
        of the ``self.`` methods they call, transitively; none when one of them reseeds."""
        methods = _methods(cls)
        seen: Set[str] = set()
        draws: List[cst.Call] = []
        todo: List[str] = []
        if start is None:
            todo = [m for m in _ACCESS if m in methods]
        else:
            body = _Body(self.ctx)
            for node in start:
                node.visit(body)
            draws.extend(body.draws)
            todo = [n for n in body.self_calls if n in methods]
        while todo:
            name = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            body = _Body(self.ctx)
            methods[name].body.visit(body)
            if body.reseeds:
                return []
            draws.extend(body.draws)
            todo.extend(n for n in body.self_calls if n in methods and n not in seen)
        return draws

    def _returns_before_drawing(self, sc, call: cst.Call, cls: cst.ClassDef, made: cst.Call) -> bool:
        """``__getitem__`` returns, before any draw, under a test of an attribute that
        ``__init__`` sets from a parameter (``if self.mode in ['eval', 'val']: return ...``),
        and every value the construction ``made`` passes for that parameter (through the
        builder's own parameters and its callers) makes the test true: a dataset built for
        evaluation, decided from the values, not from names."""
        methods = _methods(cls)
        access, init = methods.get("__getitem__"), methods.get("__init__")
        if access is None or init is None or not isinstance(access.body, cst.IndentedBlock):
            return False
        statements = list(access.body.body)
        attributes = attributes_from_parameters(self.ctx, cls, parameter_slots(init))
        for index, statement in enumerate(statements):
            if not (isinstance(statement, cst.If) and statement.orelse is None and _ends_in_return(statement)):
                continue
            found = switch(statement.test)
            if found is None or found[0] not in attributes:
                continue
            if self._draws(cls, statements[:index] + [statement.test]):
                return False
            values = self._constructed_values(sc, call, init, made, attributes[found[0]])
            return values is not None and all(found[1](v) is True for v in values)
        return False

    def _constructed_values(self, sc, call: cst.Call, init: cst.FunctionDef, made: cst.Call,
                            param: str) -> Optional[List[object]]:
        """The values the construction ``made`` gives ``__init__``'s parameter ``param``: a
        literal, the default it leaves, or a parameter of the enclosing top-level function whose
        values the project's callers resolve. None when any value is unknown."""
        slots = parameter_slots(init)
        if param not in slots:
            return None
        names = tuple(n for n, (pos, _) in sorted(slots.items(), key=lambda item: item[1][0]) if pos >= 0)
        position, default = slots[param]
        passed = argument(made, param, names)
        if passed is None:
            value = literal(default) if default is not None else UNKNOWN
            return None if value is UNKNOWN else [value]
        value = constant(self.ctx, passed.value)
        if value is not UNKNOWN:
            return [value]
        fl = sc.owner(call)
        function = fl.root if fl is not None else None
        project = self.ctx.project
        if project is None or not isinstance(passed.value, cst.Name) or not isinstance(function, cst.FunctionDef) \
                or function not in self.ctx.module.body:
            return None
        outer = parameter_slots(function)
        if passed.value.value not in outer:
            return None
        outer_position, outer_default = outer[passed.value.value]
        found = project.switch_values(self.ctx.path, function.name.value, passed.value.value, outer_position)
        fallback = literal(outer_default) if outer_default is not None else UNKNOWN
        if found is None:
            return None
        values = [fallback if v.value is UNSET else v.value for v in found]
        return None if any(v is UNKNOWN for v in values) else values
