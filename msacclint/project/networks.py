"""What a network contains: whether a class behaves differently in training mode, which
MindSpore layers a class or function builds, whether a class is a Cell, whether a file trains.
A mixin of ``ProjectIndex`` (msacclint.project.index).
"""

from __future__ import annotations

import os
from typing import List, Optional, Set, Tuple

from msacclint.project.callers import all_calls, test_module
from msacclint.project.summary import ClassSummary, Expr, FileSummary, FunctionSummary
from msacclint.project.values import Evidence

#: modules that never build a Cell (calls into them leave a class's mode-dependence known)
NEUTRAL_MODULES = frozenset({"numpy", "math", "os", "sys", "logging", "copy", "functools", "collections",
                             "typing", "itertools", "re", "json", "random", "warnings", "builtins", "time",
                             "operator", "abc", "dataclasses", "inspect", "pathlib", "enum", "scipy"})

BUILTINS = frozenset(dir(__import__("builtins")))

#: calls that make a file a training script (``ProjectIndex.trains``)
TRAINING_CALLS = frozenset({"mindspore.value_and_grad", "mindspore.grad", "mindspore.ops.value_and_grad",
                            "mindspore.ops.GradOperation", "mindspore.nn.TrainOneStepCell",
                            "mindspore.nn.TrainOneStepWithLossScaleCell"})

DROPOUTS = ("mindspore.nn.Dropout", "mindspore.nn.Dropout1d", "mindspore.nn.Dropout2d", "mindspore.nn.Dropout3d",
            "mindspore.mint.nn.Dropout")

BATCH_NORMS = ("mindspore.nn.BatchNorm1d", "mindspore.nn.BatchNorm2d", "mindspore.nn.BatchNorm3d",
               "mindspore.nn.SyncBatchNorm", "mindspore.mint.nn.BatchNorm1d", "mindspore.mint.nn.BatchNorm2d",
               "mindspore.mint.nn.BatchNorm3d", "mindspore.nn.Conv2dBnAct", "mindspore.nn.DenseBnAct")


class NetworkQueries:
    """A mixin of ProjectIndex: see the module's docstring."""

    def is_cell(self, path: str, cls: ClassSummary, depth: int = 0) -> bool:
        """Whether the class ``cls`` of ``path`` derives from a ``mindspore.nn`` class, through
        its bases in any file of the project."""
        summary = self.summary(path)
        if summary is None or depth > 5:
            return False
        for base in cls.bases:
            if self.qualified(summary, base).startswith("mindspore.nn."):
                return True
            found = self.lookup(path, base)
            if found is not None and found[0] == "class" and self.is_cell(found[1], found[2], depth + 1):
                return True
        return False

    def mode_dependence(self, path: str, name: str) -> Tuple[Optional[bool], Optional[Evidence]]:
        """Whether the class ``name`` (as written in ``path``) behaves differently in
        training mode: True with the evidence (a Dropout with a non-zero rate, a
        BatchNorm using moving statistics, code reading ``self.training``), False when
        every layer it builds is known and none is, None when it cannot be told."""
        found = self.resolve_class(path, name)
        if found is None:
            return None, None
        return self._class_mode(found[0], found[1], set())

    def mode_dependence_from(self, ctx, name: str) -> Tuple[Optional[bool], Optional[Evidence]]:
        target = self.resolve_from(ctx, name)
        if target is None or target[0] != "class":
            return None, None
        return self._class_mode(target[1], target[2], set())

    def builds_layer(self, path: str, name: str, wanted: Tuple[str, ...],
                     seen: Optional[Set[Tuple[str, str]]] = None) -> Optional[Evidence]:
        """Where the class or function ``name`` (as written in ``path``) builds one of the
        MindSpore layers ``wanted`` (qualified names), itself, through its bases or through
        the project's classes and functions it calls; None when none is found (which does
        not prove there is none)."""
        seen = set() if seen is None else seen
        found = self.lookup(path, name)
        if found is None or found[0] not in ("class", "function") or (found[1], name) in seen:
            return None
        kind, where, item = found
        seen.add((where, name))
        summary = self.summary(where)
        if summary is None:
            return None
        for call in item.calls:
            qualified = self.qualified(summary, call.callee)
            if qualified in wanted:
                return Evidence(self.display(where), call.line, qualified.rsplit(".", 1)[-1])
            head = call.callee.split(".")[0]
            if head != "self" and not qualified.startswith("mindspore.") and \
                    (head in summary.imports or head in summary.classes or head in summary.functions):
                inner = self.builds_layer(where, call.callee, wanted, seen)
                if inner is not None:
                    return inner
        for returned in getattr(item, "returns", ()):   # ``def get_bn(): return nn.BatchNorm2d``
            if returned[0] == "name" and self.qualified(summary, returned[1]) in wanted:
                return Evidence(self.display(where), item.line, f"{returned[1]} (returned by {name})")
        for base in getattr(item, "bases", ()):
            if not self.qualified(summary, base).startswith("mindspore."):
                inner = self.builds_layer(where, base, wanted, seen)
                if inner is not None:
                    return inner
        return None

    def _enter(self, path: str, name: str, seen: Set[Tuple[str, str]]):
        """(the summary of ``path``, None) to go on with the class or function ``name``;
        (None, its answer) when it was met before on the way (no evidence: False) or its
        file cannot be read (unknown: None)."""
        key = (path, name)
        if key in seen:
            return None, (False, None)
        seen.add(key)
        summary = self.summary(path)
        return (summary, None) if summary is not None else (None, (None, None))

    def _calls_mode(self, path: str, summary: FileSummary, calls, cls: Optional[ClassSummary], seen,
                    unknown: bool):
        """The mode-dependence of a body's calls: True at the first that is, else None when
        one (or ``unknown``) cannot be told, else False."""
        for call in calls:
            state, evidence = self._call_mode(path, summary, call, cls, seen)
            if state:
                return True, evidence
            unknown = unknown or state is None
        return (None if unknown else False), None

    def _class_mode(self, path: str, cls: ClassSummary, seen: Set[Tuple[str, str]]):
        summary, answer = self._enter(path, cls.name, seen)
        if summary is None:
            return answer
        if cls.reads_training:
            return True, Evidence(self.display(path), cls.line, f"{cls.name} reads self.training")
        unknown = cls.functional_mode
        for base in cls.bases:
            qualified = self.qualified(summary, base)
            if qualified.startswith("mindspore."):
                continue
            state, evidence = self._callee_mode(path, summary, base, seen)
            if state:
                return True, evidence
            unknown = unknown or state is None
        return self._calls_mode(path, summary, cls.calls, cls, seen, unknown)

    def _callee_mode(self, path: str, summary: FileSummary, name: str, seen):
        found = self.lookup(path, name)
        if found is None:
            return None, None
        kind, where, item = found
        if kind == "class":
            return self._class_mode(where, item, seen)
        if kind == "function":
            return self._function_mode(where, item, seen)
        return None, None

    def _function_mode(self, path: str, func: FunctionSummary, seen):
        summary, answer = self._enter(path, func.name, seen)
        if summary is None:
            return answer
        return self._calls_mode(path, summary, func.calls, None, seen, False)

    def _call_mode(self, path: str, summary: FileSummary, call, cls: Optional[ClassSummary], seen):
        callee = call.callee
        head = callee.split(".")[0]
        if head == "self":
            if cls is not None and callee.count(".") == 1 and callee[5:] in cls.methods:
                return False, None  # the class's own method: its calls are in cls.calls already
            return False, None  # a call of a sub-cell or attribute built elsewhere in the class
        qualified = self.qualified(summary, callee)
        if qualified.startswith("mindspore."):
            return self._mindspore_layer(path, qualified, call, cls)
        if head in BUILTINS and head not in summary.imports and head not in summary.classes \
                and head not in summary.functions:
            return False, None
        root_module = qualified.split(".")[0]
        if root_module in NEUTRAL_MODULES:
            return False, None
        if head not in summary.imports and head not in summary.classes and head not in summary.functions:
            # a local variable, a parameter or a method of another object: not a layer this
            # class builds by name (its own construction is seen where it was built)
            return (False, None) if "." in callee else (None, None)
        return self._callee_mode(path, summary, callee, seen)

    def _mindspore_layer(self, path: str, qualified: str, call, cls: Optional[ClassSummary]):
        where = Evidence(self.display(path), call.line, "")
        short = qualified.rsplit(".", 1)[-1]
        if qualified in DROPOUTS:
            rate = self._dropout_rate(path, call, cls)
            if rate is None:
                return None, None
            if rate == 0:
                return False, None
            return True, Evidence(where.path, where.line, f"{short} with drop rate {rate:g}")
        if qualified in BATCH_NORMS:
            if qualified.endswith("BnAct") and not self._is_true(call.kwargs.get("has_bn")):
                return False, None
            stats = call.kwargs.get("use_batch_statistics")
            if stats is not None and stats[0] == "lit" and stats[1] is True:
                return False, None
            return True, Evidence(where.path, where.line, f"{short} using moving statistics")
        return False, None

    @staticmethod
    def _is_true(expr: Optional[Expr]) -> bool:
        return expr is not None and expr[0] == "lit" and expr[1] is True

    def _dropout_rate(self, path: str, call, cls: Optional[ClassSummary]) -> Optional[float]:
        """The drop rate of a Dropout layer when its argument resolves to one number."""
        if "p" in call.kwargs:
            expr, keep = call.kwargs["p"], False
        elif "keep_prob" in call.kwargs:
            expr, keep = call.kwargs["keep_prob"], True
        elif call.args:
            expr, keep = call.args[0], True
        else:
            return 0.5  # nn.Dropout() drops half
        values = self.values(path, expr, cls=cls)
        numbers = {v.value for v in values or () if isinstance(v.value, (int, float)) and not isinstance(v.value, bool)}
        if not values or len(numbers) != len(values):
            return None
        rates = {round(1 - n if keep else n, 10) for n in numbers}
        if rates == {0}:
            return 0.0
        nonzero = [r for r in rates if r != 0]
        return max(nonzero) if nonzero else None

    def handed_to(self, path: str, cls: ClassSummary, param: str,
                  signatures) -> List[Tuple[str, str, Evidence]]:
        """The MindSpore APIs whose parameter the constructor parameter ``param`` of the project
        class ``cls`` (of ``path``) is handed to unchanged in ``__init__``, directly or through
        ``self.<attr> = param``: (API, its parameter, where). ``signatures`` (a probe
        snapshot's API -> parameters) maps a positional argument to its parameter. A class is
        what it does with its parameters, whatever its name: a project ``Dropout`` whose
        ``keep_prob`` goes to ``ops.Dropout(keep_prob)`` takes a keep probability."""
        summary = self.summary(path)
        if summary is None:
            return []
        same = {("param", param)} | {("name", f"self.{attr}") for attr, value in cls.attrs.items()
                                     if tuple(value) == ("param", param)}
        out: List[Tuple[str, str, Evidence]] = []
        for call in cls.calls:
            if not call.scope.endswith("__init__"):
                continue
            qualified = self.qualified(summary, call.callee)
            if not qualified.startswith("mindspore."):
                continue
            order = list(signatures.get(qualified, ()))
            where = Evidence(self.display(path), call.line, f"{call.callee}(...)")
            for index, arg in enumerate(call.args):
                if tuple(arg) in same and index < len(order):
                    out.append((qualified, order[index], where))
            for keyword, arg in call.kwargs.items():
                if tuple(arg) in same and keyword not in ("*", "**"):
                    out.append((qualified, keyword, where))
        return out

    def random_draw_from(self, ctx, name: str) -> Optional[Tuple[str, Evidence]]:
        """For a class imported into the checked file that is a callable transform (it defines
        ``__call__``): where its methods draw a random number (``random.*`` or
        ``numpy.random.*``, seeding aside), as (class name, Evidence); None otherwise."""
        target = self.resolve_from(ctx, name)
        if target is None or target[0] != "class" or "__call__" not in target[2].methods:
            return None
        where, cls = target[1], target[2]
        summary = self.summary(where)
        if summary is None:
            return None
        for call in cls.calls:
            qualified = self.qualified(summary, call.callee)
            if (qualified.startswith("random.") or qualified.startswith("numpy.random.")) and \
                    not qualified.endswith(".seed"):
                return cls.name, Evidence(self.display(where), call.line, f"{call.callee}(...)")
        return None

    def sibling_dataset_forwarding(self, path: str) -> Optional[Evidence]:
        """A MindSpore dataset constructed in another file of the same folder with the
        caller's keyword arguments passed on (``**kwargs``) or with ``num_shards``: how the
        loaders of that folder take their sharding. None when there is no such call."""
        folder = os.path.dirname(os.path.abspath(path))
        for other in sorted(self.files):
            if other == os.path.abspath(path) or os.path.dirname(other) != folder:
                continue
            summary = self.summary(other)
            if summary is None:
                continue
            for _cls, _func, call in all_calls(summary):
                qualified = self.qualified(summary, call.callee)
                last = qualified.rsplit(".", 1)[-1]
                if not qualified.startswith("mindspore.dataset.") or not last.endswith("Dataset"):
                    continue
                if "**" in call.kwargs or "num_shards" in call.kwargs:
                    return Evidence(self.display(other), call.line, f"{call.callee}(...) given the sharding")
        return None

    def trained_with(self, path: str, summary: FileSummary, func: Optional[FunctionSummary],
                     expr: Expr) -> Optional[Evidence]:
        """Where the object a calling function holds in ``expr`` (``net``, or a parameter of the
        function: a trainer function handing its network on) is trained, seen from that
        function of ``path``: its file trains (``trains``), it calls ``net.set_train()``,
        or it hands the same object to a MindSpore training cell or to a class or function of
        the project whose file trains (``Trainer(net, ...)`` with a training loop). None when
        nothing shows it."""
        if expr[0] not in ("name", "param") or _switches_off(summary):
            return None  # (a file that switches a network to inference mode may do it before evaluating)
        if self.trains(summary):
            return Evidence(self.display(path), func.line if func is not None else 1, "trains")
        if expr[0] == "param":
            return None  # a parameter handed on: trained where it comes from, if anywhere
        for call in func.calls if func is not None else summary.calls:
            if call.callee == f"{expr[1]}.set_train" and (not call.args or tuple(call.args[0]) == ("lit", True)):
                return Evidence(self.display(path), call.line, f"{call.callee}()")
            if tuple(expr) not in [tuple(a) for a in call.args] + [tuple(a) for a in call.kwargs.values()]:
                continue
            if self.qualified(summary, call.callee) in TRAINING_CALLS:
                return Evidence(self.display(path), call.line, f"{call.callee}(...)")
            found = self.lookup(path, call.callee)
            if found is None or found[0] not in ("class", "function") or found[1] == path:
                continue
            other = self.summary(found[1])
            if other is not None and self.trains(other, methods=True) and not _switches_off(other) \
                    and not test_module(found[1], other):
                return Evidence(self.display(path), call.line, f"{call.callee}(...), which trains it")
        return None

    def helper_sets_train(self, ctx, call, name: str) -> Optional[Evidence]:
        """Where a project function that ``call`` (written in the checked file) hands ``name``
        to puts its argument in training mode: ``x2ms_train(model)`` whose body runs
        ``obj.set_train()`` on the parameter it binds, also through one more helper it hands the
        parameter on to. None when the callee is not a function of another file of the project,
        or it does not."""
        from msacclint.analysis.imports import dotted

        callee = dotted(call.func)
        if callee is None:
            return None
        found = self.resolve_from(ctx, callee)
        if found is None or found[0] != "function":
            return None
        path, func = found[1], found[2]
        params = [p for p, _ in func.params]
        for index, arg in enumerate(a for a in call.args if not a.star):
            written = dotted(arg.value)
            if written != name:
                continue
            param = arg.keyword.value if arg.keyword is not None else (params[index] if index < len(params) else None)
            if param is None:
                continue
            where = self._sets_train_on(path, func, param, 0)
            if where is not None:
                return where
        return None

    def _sets_train_on(self, path: str, func: FunctionSummary, param: str, depth: int) -> Optional[Evidence]:
        for inner in func.calls:
            if inner.callee == f"{param}.set_train" and (not inner.args or tuple(inner.args[0]) == ("lit", True)):
                return Evidence(self.display(path), inner.line, f"{func.name}() calls {param}.set_train()")
            if depth >= 1 or ("param", param) not in [tuple(a) for a in inner.args]:
                continue
            found = self.lookup(path, inner.callee)
            if found is None or found[0] != "function":
                continue
            params = [p for p, _ in found[2].params]
            index = [tuple(a) for a in inner.args].index(("param", param))
            if index < len(params):
                deeper = self._sets_train_on(found[1], found[2], params[index], depth + 1)
                if deeper is not None:
                    return deeper
        return None

    def callable_parameter(self, path: str, target: str, param: str) -> Optional[Tuple[str, int]]:
        """Where the class or function ``target`` of ``path`` is defined, and the position a call
        passes ``param`` at (``self``/``cls`` left out; -1 when it is not a parameter by
        position): what a search of its call sites for that argument needs. None when
        ``target`` is not a class or function of the project."""
        found = self.lookup(path, target)
        if found is None or found[0] not in ("class", "function"):
            return None
        names = [name for name, _ in found[2].params]
        if names and names[0] in ("self", "cls"):
            names = names[1:]
        return found[1], names.index(param) if param in names else -1

    def switched_on_by_callers(self, path: str, target: str, param: str) -> Optional[bool]:
        """Whether a call of the class or function ``target`` of ``path`` hands it, for
        ``param``, a network the calling function (or module) puts in training mode
        (``net.set_train()`` ... ``train(net, ...)``): True when one does, False when every
        call is seen and none does, None when nothing calls it."""
        found = self.callable_parameter(path, target, param)
        if found is None:
            return None
        defined, position = found
        seen = False
        for _site, summary, call, _cls, func in self.call_sites(defined, target):
            seen = True
            expr = call.argument(param, position)
            if expr is None or expr[0] not in ("name", "param"):
                continue
            for other in func.calls if func is not None else summary.calls:
                if other.callee == f"{expr[1]}.set_train" and (not other.args or tuple(other.args[0]) == ("lit", True)):
                    return True
        return False if seen else None

    def trains(self, summary: FileSummary, methods: bool = False) -> bool:
        """The file trains: Model.train, a TrainOneStepCell, a gradient function, or a network
        put in training mode (``net.set_train()``, a hand-written loop); with ``methods``, in
        the methods of its classes too (a Trainer class)."""
        calls = summary.calls + [c for f in summary.functions.values() for c in f.calls]
        if methods:
            calls += [c for cls in summary.classes.values() for c in cls.calls]
        for call in calls:
            if call.callee.endswith(".train") or self.qualified(summary, call.callee) in TRAINING_CALLS:
                return True
            if call.callee.endswith(".set_train") and (not call.args or call.args[0] == ("lit", True)):
                return True
        return False


def _switches_off(summary: FileSummary) -> bool:
    """The file calls ``<cell>.set_train(False)`` somewhere."""
    calls = summary.calls + [c for f in summary.functions.values() for c in f.calls] + \
        [c for cls in summary.classes.values() for c in cls.calls]
    return any(call.callee.endswith(".set_train") and call.args and tuple(call.args[0]) == ("lit", False)
               for call in calls)
