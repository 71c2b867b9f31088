"""Files whose training data are made up in the file itself.

A parity test, a benchmark or a demo feeds its network arrays it generates (``np.random``,
``np.zeros``, ``ops.ones``...). How such a run is set up (the data order, the sharding, the
optimizer's defaults, the loss reduction, the seeds, the gradient reduction) cannot cost
accuracy: there is no accuracy to lose. ``made_up_data(ctx)`` returns the generator that shows
it (``"numpy.random.random"``) when

- the file builds at least one dataset, and every dataset it builds is a ``GeneratorDataset``
  or ``NumpySlicesDataset`` whose source is made of generated arrays: a generator call, a
  literal, a local name assigned one of those, a list/tuple/dict of them, a slice or a method
  result of one (``.astype``, ``.reshape``), ``Tensor(...)`` of one, or a call of any class or function given at
  least one of them and no string (``TestData(data_size=n, input_data=x, label_data=y)``) that
  does not read files itself (``analysis.source_files``: a class of the file or of the project
  over image files, given a permutation of indices, serves real data);
- or the file builds no dataset and every call of its training steps (``grad_fn(inputs,
  labels)``, the step bound to a name) passes made-up tensors only;

and None otherwise: a dataset class that reads files, a source or an argument it cannot
follow. Rules about the set-up of a training run (``Rule.about_the_run``) are lowered
to info in such a file by the engine, with the reason in the message.
"""

from __future__ import annotations

from typing import Optional, Tuple

import libcst as cst

from msacclint.analysis.calls import literal
from msacclint.analysis.context import FileContext, Question
from msacclint.analysis.datasets import datasets
from msacclint.analysis.flow import FunctionFlow
from msacclint.analysis.scopes import scopes, string_value
from msacclint.analysis.source_files import reads_files
from msacclint.analysis.training import training

#: datasets whose data come from Python objects, not files
_IN_MEMORY = {"mindspore.dataset.GeneratorDataset": ("source",), "mindspore.dataset.NumpySlicesDataset": ("data",)}
#: array constructors that make data up (resolved names)
_CONSTANT = frozenset({"zeros", "ones", "full", "empty", "arange", "linspace", "zeros_like", "ones_like",
                       "full_like", "eye", "rand", "randn", "randint", "uniform", "normal", "standard_normal"})
_ROOTS = ("numpy.", "mindspore.ops.", "mindspore.mint.", "mindspore.numpy.")
_WRAPPERS = frozenset({"mindspore.Tensor", "mindspore.tensor", "numpy.array", "numpy.asarray"})
_SAVE, _LOAD = "numpy.save", "numpy.load"


def _generator(name: Optional[str]) -> bool:
    if name is None:
        return False
    if name.startswith("numpy.random."):
        return True
    return any(name.startswith(root) and name[len(root):] in _CONSTANT for root in _ROOTS)


class _MadeUp:
    def __init__(self, ctx: FileContext) -> None:
        self.ctx = ctx
        self.scopes = scopes(ctx)
        self.evidence: Optional[str] = None

    def data(self) -> Optional[str]:
        builds = datasets(self.ctx).builds
        if not builds:
            return self._steps_fed()
        for build in builds:
            params = _IN_MEMORY.get(build.callee)
            if params is None:
                return None
            source = _source(build.call, params[0])
            if source is None or not self.made_up(source, build.flow, 0, build.flow.order(build.call)):
                return None
        return self.evidence

    def _steps_fed(self) -> Optional[str]:
        """A file that builds no dataset: every call of its training steps (bound to a name:
        ``grad_fn = value_and_grad(...)`` ... ``grad_fn(inputs, labels)``) passes made-up
        tensors only."""
        steps = training(self.ctx).steps
        if not steps or any(step.name is None for step in steps):
            return None
        names = {step.name for step in steps}
        calls = [(fl, e.node) for fl in self.scopes.flows for e in fl.calls()
                 if isinstance(e.node.func, cst.Name) and e.node.func.value in names]
        if not calls:
            return None
        for fl, call in calls:
            if not call.args or any(a.star or not self.made_up(a.value, fl, 0, fl.order(call)) for a in call.args):
                return None
        return self.evidence

    def made_up(self, expr: cst.BaseExpression, fl: FunctionFlow, depth: int, before: Optional[int]) -> bool:
        if depth > 12:
            return False
        if isinstance(expr, (cst.Integer, cst.Float)):
            return True
        if isinstance(expr, cst.UnaryOperation):
            return self.made_up(expr.expression, fl, depth + 1, before)
        if isinstance(expr, cst.BinaryOperation):  # ``(1 - np.tril(np.ones(...))) * -1e4``
            return self.made_up(expr.left, fl, depth + 1, before) and self.made_up(expr.right, fl, depth + 1, before)
        if isinstance(expr, (cst.List, cst.Tuple)):
            items = [e.value for e in expr.elements if isinstance(e, cst.Element)]
            return bool(items) and all(self.made_up(i, fl, depth + 1, before) for i in items)
        if isinstance(expr, cst.Dict):
            values = [e.value for e in expr.elements if isinstance(e, cst.DictElement)]
            return bool(values) and all(self.made_up(v, fl, depth + 1, before) for v in values)
        if isinstance(expr, cst.Name) and expr.value in ("True", "False", "None"):
            return True  # a flag beside the arrays (a string may be a path: not accepted)
        if isinstance(expr, cst.Name):
            found = self.scopes.resolve(fl, expr.value, before)
            if found is None or found[1].index is not None or isinstance(found[1].node, cst.For):
                return False
            return self.made_up(found[1].value, found[0], depth + 1, found[1].order)
        if isinstance(expr, cst.Subscript):
            entry = self._entry(expr, fl, before)
            if entry is not None:  # ``input_and_loss['input']``: the entry the key picks
                return self.made_up(entry[0], entry[1], depth + 1, None)
            return self.made_up(expr.value, fl, depth + 1, before)  # a slice of a made-up array
        if isinstance(expr, cst.Call):
            return self._made_up_call(expr, fl, depth, before)
        return False

    def _made_up_call(self, call: cst.Call, fl: FunctionFlow, depth: int, before: Optional[int]) -> bool:
        func = call.func
        callee = self.ctx.callee(call)
        if _generator(callee):
            self.evidence = self.evidence or callee
            return True
        if callee == _LOAD:
            saved = self._saved(call, fl)
            return saved is not None and self.made_up(saved[0], saved[1], depth + 1, None)
        args = [a.value for a in call.args]
        if callee in _WRAPPERS:
            return bool(args) and self.made_up(args[0], fl, depth + 1, before)
        if isinstance(func, cst.Attribute) and callee is None and self.made_up(func.value, fl, depth + 1, before):
            return True  # a method of a made-up array (``.astype``, ``.reshape``, ``.repeat``)
        if isinstance(func, (cst.Name, cst.Attribute)) and args and not any(a.star for a in call.args):
            # a class or function given made-up arrays and no string (a string may be a path
            # it reads): ``TestData(data_size=args.size, input_data=x, label_data=y)``; one that
            # reads files itself (a dataset class over image files given a permutation of
            # indices) serves real data
            if reads_files(self.ctx, func):
                return False
            arrays = 0
            for arg in args:
                if isinstance(arg, (cst.Integer, cst.Float)) or (
                        isinstance(arg, cst.Name) and arg.value in ("True", "False", "None")):
                    continue   # a size or a flag
                if self.made_up(arg, fl, depth + 1, before):
                    arrays += 1
                elif not isinstance(arg, cst.Attribute):
                    return False   # a name or an expression that is not made up: maybe real data
            return arrays > 0
        return False

    # -- arrays this file saves and loads back (``np.save(path, data)`` ... ``np.load(path)``) --
    def _saved(self, load: cst.Call, fl: FunctionFlow) -> Optional[Tuple[cst.BaseExpression, FunctionFlow]]:
        """What ``np.save`` wrote to the file that ``load`` reads back, with the saving function."""
        if not load.args:
            return None
        path = string_value(self.ctx, fl, load.args[0].value, fl.order(load))
        if path is None:
            return None
        found = None
        for save_fl in self.scopes.flows:
            for event in save_fl.calls_to(_SAVE):
                args = [a for a in event.node.args if a.keyword is None and not a.star]
                if len(args) < 2 or string_value(self.ctx, save_fl, args[0].value, event.order) != path:
                    continue
                if found is not None:
                    return None  # saved in two places: which one is read back is not known
                found = (args[1].value, save_fl, event.order)
        if found is None:
            return None
        value, save_fl, order = found
        if isinstance(value, cst.Name):
            resolved = self.scopes.resolve(save_fl, value.value, order)
            if resolved is None or resolved[1].index is not None:
                return None
            return resolved[1].value, resolved[0]
        return value, save_fl

    def _entry(self, expr: cst.Subscript, fl: FunctionFlow, before: Optional[int]
               ) -> Optional[Tuple[cst.BaseExpression, FunctionFlow]]:
        """``data['input']`` where ``data`` is a dict literal this file saved with ``np.save``
        and loaded back (``np.load(path, allow_pickle=True).tolist()``): the entry of that key."""
        if len(expr.slice) != 1 or not isinstance(expr.slice[0].slice, cst.Index):
            return None
        key = literal(expr.slice[0].slice.value)
        if not isinstance(key, str):
            return None
        base: cst.BaseExpression = expr.value
        for _ in range(6):
            if isinstance(base, cst.Name):
                found = self.scopes.resolve(fl, base.value, before)
                if found is None or found[1].index is not None:
                    return None
                fl, before, base = found[0], found[1].order, found[1].value
            elif isinstance(base, cst.Call) and isinstance(base.func, cst.Attribute) and \
                    base.func.attr.value in ("tolist", "item") and not base.args:
                base = base.func.value
            elif isinstance(base, cst.Call) and self.ctx.callee(base) == _LOAD:
                saved = self._saved(base, fl)
                if saved is None or not isinstance(saved[0], cst.Dict):
                    return None
                for element in saved[0].elements:
                    if isinstance(element, cst.DictElement) and literal(element.key) == key:
                        return element.value, saved[1]
                return None
            else:
                return None
        return None


def _source(call: cst.Call, keyword: str) -> Optional[cst.BaseExpression]:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == keyword:
            return arg.value
    first = call.args[0] if call.args else None
    if first is not None and first.keyword is None and not first.star:
        return first.value
    return None


MADE_UP: Question[Optional[str]] = Question("made_up_data", lambda ctx: _MadeUp(ctx).data())


def made_up_data(ctx: FileContext) -> Optional[str]:
    """The generator whose arrays every dataset of the file is built from, or None."""
    return ctx.ask(MADE_UP)
