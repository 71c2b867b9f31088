"""Datasets of a file, and whether each one is a training or an evaluation dataset.

``datasets(ctx)`` lists every ``mindspore.dataset.*Dataset(...)`` construction
(``Build``: the call, its flow, the name it is bound to). ``role(build)`` decides from the
code whether it is a training dataset:
- evaluation evidence (any of it wins): the bound name, the function's name, the
  arguments (``usage="test"``, ``args.eval_path``, ``is_training=False``), or an ``if``
  branch that says eval (``if not do_train``, the ``else`` of ``if is_training``), also at
  the places that call the function which builds it;
- training evidence: it flows into ``Model.train``/a hand-written training loop (also
  when returned and used so by a caller in the file), sits under ``if do_train``, says
  ``usage="train"``, or the function's name says train; the file's name (``train.py``)
  counts only when nothing anywhere says eval.
A dataset only read into Python data (its items copied into lists or arrays) while
another dataset of the file is the training one is re-wrapped, not trained on: unknown.
``TRAIN``/``EVAL``/``None`` (unknown: rules stay silent). ``shuffled_later(build)``: the
building function or a function calling it calls ``.shuffle(...)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Iterable, List, Optional, Set

import libcst as cst

from msacclint.analysis.calls import literal
from msacclint.analysis.context import FileContext, Question
from msacclint.analysis.dataset_reads import only_read_into_python
from msacclint.analysis.facts import facts
from msacclint.analysis.flow import Event, FunctionFlow
from msacclint.analysis.scopes import Scopes, names_in, says_eval, says_train, scopes
from msacclint.analysis.training import training
from msacclint.analysis.walk import walk

TRAIN = "train"
EVAL = "eval"
_FLAG_KEYWORDS = ("training", "is_training", "do_train", "is_train", "train")


def is_dataset_class(callee: Optional[str]) -> bool:
    if not callee or not callee.startswith("mindspore.dataset."):
        return False
    last = callee.rsplit(".", 1)[-1]
    return last.endswith("Dataset") and last[:1].isupper() and callee.count(".") == 2


@dataclass
class Build:
    call: cst.Call
    flow: FunctionFlow
    callee: str
    name: Optional[str]


class Datasets:
    def __init__(self, ctx: FileContext) -> None:
        self.ctx = ctx
        self.builds: List[Build] = []
        self._only_read: Dict[cst.Call, bool] = {}
        if not any(is_dataset_class(name) for name in facts(ctx).calls):
            return
        self.scopes = scopes(ctx)
        for fl in self.scopes.flows:
            for e in fl.calls():
                if e.callee is not None and is_dataset_class(e.callee):
                    self.builds.append(Build(e.node, fl, e.callee, _bound_name(fl, e.node, self.scopes)))

    # -- role -----------------------------------------------------------------------
    def role(self, build: Build) -> Optional[str]:
        """TRAIN, EVAL or None (unknown). A dataset that is only read into Python data
        (analysis.dataset_reads) while another dataset of the file is the training one is
        not trained on itself, whatever its words say: unknown."""
        found = self._role(build)
        if found == TRAIN and self.only_read(build) and any(
                other is not build and self._role(other) == TRAIN and not self.only_read(other)
                for other in self.builds):
            return None
        return found

    def only_read(self, build: Build) -> bool:
        """Every use of the dataset copies its items into Python (lists, numpy arrays)."""
        if build.call not in self._only_read:
            self._only_read[build.call] = only_read_into_python(self.scopes, build.flow, build.call)
        return self._only_read[build.call]

    def _role(self, build: Build) -> Optional[str]:
        evidence: Set[str] = set()
        self._local_evidence(build.flow, build.call, build.name, evidence)
        self._use_evidence(build.flow, build.name, build.call, evidence, depth=0)
        if EVAL in evidence:
            return EVAL
        if TRAIN in evidence:
            return TRAIN
        if "file" in evidence:
            return TRAIN
        if self.ignored_selector(build) is not None:
            return TRAIN
        if self.split_loop(build) is not None:
            return TRAIN
        return None

    def split_loop(self, build: Build) -> Optional[str]:
        """The training split, when the dataset is built once per split in a loop (``for mode
        in splits: datasets.append(GeneratorDataset(Source(path, mode), shuffle=False))``)
        whose splits include one that says train: the loop variable reaches the construction,
        and the values it takes (a literal list, or a list filled from a parameter whose default
        lists the splits, as a loader's ``split=('train', 'test')``) include a training one. The
        same construction then builds the training pipeline. None otherwise."""
        event = self.scopes.event(build.call)
        for loop in reversed(event.loops if event is not None else ()):
            if not isinstance(loop, cst.For) or not isinstance(loop.target, cst.Name) \
                    or loop.target.value not in names_in(build.call):
                continue
            splits = _strings(self.scopes, build.flow, loop.iter, 0)
            found = next((value for value in sorted(splits) if says_train(value) and not says_eval(value)), None)
            if found is not None:
                return found
        return self._split_parameter(build, event)

    def _split_parameter(self, build: Build, event: Optional[Event[cst.CSTNode]]) -> Optional[str]:
        """A parameter of the building function that reaches the construction, with no branch
        on it around the build, for which a call passes a split that says train (in this file,
        or, for a top-level function, anywhere in the project: a caller looping over
        ``("train", "val")``): the builder is called per split."""
        root = build.flow.root
        if not isinstance(root, cst.FunctionDef) or self.scopes.method_of.get(root) is not None:
            return None
        from msacclint.analysis.callers import argument_values

        guarded: Set[str] = set()
        for test, _ in (event.guards if event is not None else ()):
            guarded |= names_in(test)
        used = names_in(build.call)
        positional = list(root.params.params)
        for param in positional + list(root.params.kwonly_params):
            name = param.name.value
            if name not in used or name in guarded or build.flow.defs.get(name):
                continue
            values = [literal(v) for v in argument_values(self.ctx, root, name) or ()]
            project = getattr(self.ctx, "project", None)
            if project is not None and self.scopes.parent.get(root) is None:
                import os

                position = positional.index(param) if param in positional else -1
                found = project.switch_values(os.path.abspath(self.ctx.path), root.name.value, name, position)
                values += [v.value for v in found or ()]
            split = next((v for v in values if isinstance(v, str) and says_train(v) and not says_eval(v)), None)
            if split is not None:
                return split
        return None

    def ignored_selector(self, build: Build) -> Optional[str]:
        """The train/eval selector of the function that builds the dataset, when this build
        ignores it: a parameter named as a training flag (``training``, ``is_training``, ...)
        that an ``if`` of the function tests, whose default is True or for which some call in
        the project passes True, while no branch around this build tests it. The same dataset
        is then built for the training pipeline as for the evaluation one."""
        root = build.flow.root
        if not isinstance(root, cst.FunctionDef):
            return None
        event = self.scopes.event(build.call)
        guarded: Set[str] = set()
        for test, _ in (event.guards if event is not None else ()):
            guarded |= names_in(test)
        tested = _tested_names(root)
        params = list(root.params.params) + list(root.params.kwonly_params)
        for position, param in enumerate(params):
            name = param.name.value
            if name not in _FLAG_KEYWORDS or name in guarded or name not in tested:
                continue
            if param.default is not None and literal(param.default) is True:
                return name
            if self._passed_true(root, name, position if param in root.params.params else -1):
                return name
        return None

    def _passed_true(self, function: cst.FunctionDef, param: str, position: int) -> bool:
        """Some call of the (top-level) function passes True for ``param``: in this file
        (``callers.argument_values``), or anywhere in the project when the project layer is
        there (``switch_values``)."""
        from msacclint.analysis.callers import argument_values

        if any(literal(value) is True for value in argument_values(self.ctx, function, param) or ()):
            return True
        project = getattr(self.ctx, "project", None)
        if project is None or self.scopes.method_of.get(function) is not None:
            return False
        import os

        values = project.switch_values(os.path.abspath(self.ctx.path), function.name.value, param, position)
        return any(v.value is True for v in values or ())

    def training_use(self, build: Build) -> bool:
        """Some use of the dataset is a training use: for a function that returns it, at
        least one call site says train and nothing on that path says eval (a function used
        for both the training and the evaluation set counts)."""
        fl = build.flow
        own: Set[str] = set()
        self._local_evidence(fl, build.call, build.name, own)
        if EVAL in own:
            return False
        if not isinstance(fl.root, cst.FunctionDef) or not self.scopes.callers(fl.root):
            return self.role(build) == TRAIN
        derived = self._derived(fl, build.name, build.call)
        if not any(names_in(r) & derived or self.scopes.within(fl, r, build.call) for r in _returns(fl.root)):
            return self.role(build) == TRAIN
        for caller, e in self.scopes.callers(fl.root):
            path = set(own)
            bound = _bound_name(caller, e.node, self.scopes)
            self._local_evidence(caller, e.node, bound, path)
            self._use_evidence(caller, bound, e.node, path, depth=1)
            if TRAIN in path and EVAL not in path:
                return True
        return False

    def _local_evidence(self, fl: FunctionFlow, call: cst.Call, name: Optional[str], out: Set[str]) -> None:
        """What the call's own words, the bound name, the function and the guards say."""
        if name is not None:
            _add_words(name, out)
        if isinstance(fl.root, cst.FunctionDef):
            _add_words(fl.root.name.value, out)
        for arg in call.args:
            if arg.keyword is not None and arg.keyword.value in _FLAG_KEYWORDS:
                value = literal(arg.value)
                if value is True:
                    out.add(TRAIN)
                elif value is False:
                    out.add(EVAL)
                continue
            for word in _words_of(arg.value):
                _add_words(word, out)
        event = self.scopes.event(call)
        for test, branch in (event.guards if event is not None else ()):
            said = _guard_says(test, branch)
            if said:
                out.add(said)
        if not isinstance(fl.root, cst.FunctionDef) or self.scopes.method_of.get(fl.root) is None:
            if says_train(self.scopes.function_name(self.scopes.module_flow)):
                out.add("file")

    def _use_evidence(self, fl: FunctionFlow, name: Optional[str], expr: cst.CSTNode, out: Set[str],
                      depth: int) -> None:
        """Where the dataset goes: Model.train, a training loop, or back to callers."""
        info = training(self.ctx)
        derived = self._derived(fl, name, expr)
        step_names = {s.name for s in info.steps if s.name} | info.step_functions

        def mentions(node: cst.CSTNode) -> bool:
            return bool(names_in(node) & derived) or (expr is not None and self.scopes.within(fl, node, expr))

        for e in fl.calls():
            call = e.node
            func = call.func
            if isinstance(func, cst.Attribute) and func.attr.value == "train" \
                    and any(mentions(a.value) for a in call.args):
                out.add(TRAIN)
            if isinstance(func, cst.Name) and func.value in step_names and any(mentions(a.value) for a in call.args):
                out.add(TRAIN)
            if e.loops and isinstance(func, cst.Name) and func.value in step_names:
                loop = e.loops[0]
                if isinstance(loop, cst.For) and mentions(loop.iter):
                    out.add(TRAIN)
            if isinstance(func, cst.Attribute) and func.attr.value in ("eval", "predict") \
                    and any(mentions(a.value) for a in call.args):
                out.add(EVAL)
        if depth >= 2 or not isinstance(fl.root, cst.FunctionDef):
            return
        if not any(mentions(r) for r in _returns(fl.root)):
            return
        for caller, e in self.scopes.callers(fl.root):
            bound = _bound_name(caller, e.node, self.scopes)
            self._local_evidence(caller, e.node, bound, out)
            self._use_evidence(caller, bound, e.node, out, depth + 1)

    def _derived(self, fl: FunctionFlow, name: Optional[str], expr: cst.CSTNode) -> Set[str]:
        """Names whose value comes from ``name`` (``ds = ds.batch(32)``, ``it = ds.create_...``)."""
        derived: Set[str] = {name} if name else set()
        for _ in range(4):
            before = len(derived)
            for target, defs in fl.defs.items():
                for d in defs:
                    if isinstance(d.node, cst.For):
                        continue
                    if names_in(d.value) & derived or d.value is expr:
                        derived.add(target)
            if len(derived) == before:
                break
        return derived

    # -- shuffling ------------------------------------------------------------------
    def shuffled_later(self, build: Build) -> bool:
        flows = [build.flow]
        if isinstance(build.flow.root, cst.FunctionDef):
            flows += [caller for caller, _ in self.scopes.callers(build.flow.root)]
            flows += [c for f in flows[1:] if isinstance(f.root, cst.FunctionDef)
                      for c, _ in self.scopes.callers(f.root)]
        return any(fl.method_calls("shuffle") for fl in flows)


def _strings(sc: Scopes, fl: FunctionFlow, expr: cst.BaseExpression, depth: int) -> Set[str]:
    """The strings ``expr`` may hold or list, as far as the function's own code says: a
    literal string or tuple/list of them; a parameter's literal default; a local name's
    assignments, the values appended to it (``modes.append(split)``) and, for a loop
    variable, what its loop iterates over."""
    value = literal(expr)
    if isinstance(value, str):
        return {value}
    if isinstance(value, (tuple, list)):
        return {v for v in value if isinstance(v, str)}
    if depth > 4:
        return set()
    out: Set[str] = set()
    if isinstance(expr, cst.IfExp):
        return _strings(sc, fl, expr.body, depth + 1) | _strings(sc, fl, expr.orelse, depth + 1)
    if isinstance(expr, (cst.List, cst.Tuple)):
        for element in expr.elements:
            out |= _strings(sc, fl, element.value, depth + 1)
        return out
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value in ("list", "tuple") \
            and len(expr.args) == 1:
        return _strings(sc, fl, expr.args[0].value, depth + 1)
    if not isinstance(expr, cst.Name):
        return set()
    for definition in fl.defs.get(expr.value, ()):
        if definition.index is None:
            out |= _strings(sc, fl, definition.value, depth + 1)
    for e in fl.method_calls("append", expr.value) + fl.method_calls("extend", expr.value):
        if e.node.args:
            out |= _strings(sc, fl, e.node.args[0].value, depth + 1)
    if isinstance(fl.root, cst.FunctionDef) and not fl.defs.get(expr.value):
        for param in (*fl.root.params.params, *fl.root.params.kwonly_params):
            if param.name.value == expr.value and param.default is not None:
                out |= _strings(sc, fl, param.default, depth + 1)
    return out


def _bound_name(fl: FunctionFlow, call: cst.Call, sc: Optional[Scopes] = None) -> Optional[str]:
    for defs in fl.defs.values():
        for d in defs:
            if d.value is call and d.index is None:
                return d.name
    # ``ds = ds_class(...).map(...)`` style: the name whose value holds the call
    for defs in fl.defs.values():
        for d in defs:
            if d.index is None and not isinstance(d.node, cst.For) and sc is not None and sc.within(fl, d.value, call):
                return d.name
    return None


def _add_words(name: str, out: Set[str]) -> None:
    if says_eval(name):
        out.add(EVAL)
    elif says_train(name):
        out.add(TRAIN)


def _words_of(node: cst.CSTNode) -> Iterable[str]:
    """Names, attribute names and string literals mentioned in an argument."""
    out: List[str] = []

    class Words(cst.CSTVisitor):
        def visit_Name(self, n: cst.Name) -> None:
            out.append(n.value)

        def visit_SimpleString(self, n: cst.SimpleString) -> None:
            value = literal(n)
            if isinstance(value, str) and len(value) < 40:
                out.append(value)

    walk(node, Words())
    return out


def _guard_says(test: cst.BaseExpression, branch: bool) -> Optional[str]:
    """What an if-branch says: ``if do_train:`` body -> train; its else -> eval."""
    positive = branch
    while isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        test = test.expression
        positive = not positive
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        if isinstance(test.comparisons[0].operator, (cst.NotEqual, cst.IsNot, cst.NotIn)):
            positive = not positive
    if not isinstance(test, (cst.Name, cst.Attribute, cst.Comparison, cst.Subscript)):
        return None
    words = list(_words_of(test))
    train = any(says_train(w) for w in words)
    evaluation = any(says_eval(w) for w in words)
    if train == evaluation:
        return None
    if train:
        return TRAIN if positive else EVAL
    return EVAL if positive else TRAIN


def _tested_names(function: cst.FunctionDef) -> Set[str]:
    """Names an ``if`` statement or a conditional expression of the function tests."""
    found: Set[str] = set()

    class Tests(cst.CSTVisitor):
        def visit_If(self, node: cst.If) -> None:
            found.update(names_in(node.test))

        def visit_IfExp(self, node: cst.IfExp) -> None:
            found.update(names_in(node.test))

    walk(function.body, Tests())
    return found


def _returns(function: cst.FunctionDef) -> List[cst.CSTNode]:
    found: List[cst.CSTNode] = []

    class Returns(cst.CSTVisitor):
        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return node is function

        def visit_ClassDef(self, node: cst.ClassDef) -> bool:
            return False

        def visit_Return(self, node: cst.Return) -> None:
            if node.value is not None:
                found.append(node.value)

    walk(function, Returns())
    return found


DATASETS: Question[Datasets] = Question("datasets", Datasets)


def datasets(ctx: FileContext) -> Datasets:
    return ctx.ask(DATASETS)
