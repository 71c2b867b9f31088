"""Image pipeline facts: which vision operations a file uses, in which order, and which
of them are reachable when a pipeline function is not training.

- ``vision_calls(ctx, *short_names)``: calls of ``mindspore.dataset.vision.<Name>`` (also
  through c_transforms/py_transforms/transforms); ``is_py_transform(ctx, call)`` tells the
  PIL-based py_transforms (which work on CHW) from the others;
- ``uint8_source(ctx)``: the file decodes images (``vision.Decode`` not to PIL,
  ``decode=True``) or reads a dataset that yields uint8 images (Cifar10/Cifar100/Mnist);
- ``rescales(ctx)``: the file rescales somewhere (Rescale, ToTensor, a literal 255);
- ``mode_flags(fl)`` and ``runs_when_not_training(fl, call)``: for a pipeline function
  with a train/eval flag parameter, whether an operation also runs on the other branch.
"""

from __future__ import annotations

import re
from typing import List, Optional, Set

import libcst as cst

from msacclint.analysis.calls import literal
from msacclint.analysis.context import FileContext, Question
from msacclint.analysis.facts import facts
from msacclint.analysis.flow import FunctionFlow
from msacclint.analysis.imports import dotted
from msacclint.analysis.scopes import Scopes, names_in, says_eval, says_train, scopes
from msacclint.analysis.walk import walk

VISION = ("mindspore.dataset.vision.", "mindspore.dataset.transforms.")
UINT8_DATASETS = frozenset({"mindspore.dataset.Cifar10Dataset", "mindspore.dataset.Cifar100Dataset",
                            "mindspore.dataset.MnistDataset", "mindspore.dataset.FashionMnistDataset"})
_FLAG_EXPRESSIONS = (cst.Name, cst.Comparison, cst.BooleanOperation, cst.UnaryOperation)
_FLAG_NAMES = frozenset({"usage", "split", "mode", "phase", "stage"})


def vision_name(callee: Optional[str]) -> Optional[str]:
    """``mindspore.dataset.vision.RandomCrop`` -> ``RandomCrop``; None for other callees."""
    if not callee:
        return None
    for prefix in VISION:
        if callee.startswith(prefix) and "." not in callee[len(prefix):]:
            return callee[len(prefix):]
    return None


def vision_calls(ctx: FileContext, *short_names: str) -> List[cst.Call]:
    wanted = set(short_names)
    out: List[cst.Call] = []
    for callee, calls in facts(ctx).calls.items():
        if vision_name(callee) in wanted:
            out.extend(calls)
    return out


def is_py_transform(ctx: FileContext, call: cst.Call) -> bool:
    """The raw import path says py_transforms (PIL based; Normalize works on CHW there)."""
    name = dotted(call.func)
    if name is None:
        return False
    head, _, rest = name.partition(".")
    bound = ctx.imports.bindings.get(head, "")
    return "py_transforms" in f"{bound}.{rest}"


def uint8_source(ctx: FileContext) -> bool:
    for call in vision_calls(ctx, "Decode"):
        to_pil = next((a for a in call.args if a.keyword is not None and a.keyword.value in ("to_pil", "rgb")), None)
        if (to_pil is None or literal(to_pil.value) is False) and not is_py_transform(ctx, call):
            return True
    f = facts(ctx)
    if any(f.calls.get(name) for name in UINT8_DATASETS):
        return True
    for callee, calls in f.calls.items():
        if callee.startswith("mindspore.dataset.") and callee.endswith("Dataset"):
            for call in calls:
                if any(a.keyword is not None and a.keyword.value == "decode" and literal(a.value) is True
                       for a in call.args):
                    return True
    return False


_HAS_255 = Question("has_255", lambda ctx: _has_255(ctx.source))


def rescales(ctx: FileContext) -> bool:
    if vision_calls(ctx, "Rescale", "ToTensor", "NormalizePad", "ToType"):
        return True
    return ctx.ask(_HAS_255)


_PIXEL_SCALE = re.compile(r"(?<![\w.])25[56](?:\.0*)?(?![\w.])")


def _has_255(source: str) -> bool:
    """A number 255 (or 255.0, 256) in the code, comments aside: the file scales pixels itself."""
    return any(_PIXEL_SCALE.search(line.split("#", 1)[0]) for line in source.splitlines())


# -- train/eval flags ------------------------------------------------------------------
def mode_flags(ctx: FileContext, fl: FunctionFlow) -> Set[str]:
    """Parameters of a pipeline function that say train/eval, and names computed from them."""
    sc = scopes(ctx)
    flags = {p for p in sc.params(fl) if says_train(p) or says_eval(p) or p in _FLAG_NAMES}
    if not flags:
        return flags
    for _ in range(3):
        for name, defs in fl.defs.items():
            if any(names_in(d.value) & flags for d in defs if isinstance(d.value, _FLAG_EXPRESSIONS)):
                flags.add(name)
    return flags


def _mentions_flag(node: cst.CSTNode, flags: Set[str]) -> bool:
    return bool(names_in(node) & flags)


def runs_when_not_training(ctx: FileContext, fl: FunctionFlow, call: cst.Call) -> bool:
    """For an operation of a pipeline function with a flag: it is built outside every branch
    on the flag, and the list holding it reaches a ``.map(...)`` that is not chosen by the
    flag either. False whenever any of that is unclear."""
    flags = mode_flags(ctx, fl)
    if not flags or not isinstance(fl.root, cst.FunctionDef):
        return False
    sc = scopes(ctx)
    event = sc.event(call)
    if event is None or any(_mentions_flag(t, flags) for t, _ in event.guards):
        return False
    if _in_flag_ifexp(sc, fl, call, flags) or _early_flag_exit(sc, fl, call, flags):
        return False
    holders: Set[str] = set()
    for name, defs in fl.defs.items():
        for d in defs:
            if not isinstance(d.node, cst.For) and sc.within(fl, d.value, call):
                holders.add(name)
    for e in fl.method_calls("append") + fl.method_calls("extend") + fl.method_calls("insert"):
        if any(sc.within(fl, a.value, call) for a in e.node.args):
            func = e.node.func  # an Attribute: ``method_calls`` picks ``<receiver>.<method>(...)``
            receiver = func.value if isinstance(func, cst.Attribute) else None
            if isinstance(receiver, cst.Name):
                holders.add(receiver.value)
    for _ in range(3):
        for name, defs in fl.defs.items():
            for d in defs:
                if isinstance(d.node, cst.For) or not (names_in(d.value) & holders):
                    continue
                if _mentions_flag(d.value, flags) or any(_mentions_flag(t, flags) for t, _ in
                                                         fl.events[d.order].guards if d.order < len(fl.events)):
                    return False  # chosen by the flag
                holders.add(name)
    for e in fl.method_calls("map"):
        if any(_mentions_flag(t, flags) for t, _ in e.guards):
            continue
        if any(sc.within(fl, a.value, call) or names_in(a.value) & holders for a in e.node.args):
            return not _mentions_flag(e.node, flags)
    return False


def _in_flag_ifexp(sc: Scopes, fl: FunctionFlow, call: cst.Call, flags: Set[str]) -> bool:
    """The call sits in ``a if do_train else b``."""
    parents = sc.parents(fl)
    node = parents.get(call)
    while node is not None and not isinstance(node, cst.BaseStatement):
        if isinstance(node, cst.IfExp) and _mentions_flag(node.test, flags):
            return True
        node = parents.get(node)
    return False


def _early_flag_exit(sc: Scopes, fl: FunctionFlow, call: cst.Call, flags: Set[str]) -> bool:
    """``if not do_train: return eval_pipeline`` before the statement holding the call."""
    function = fl.root
    body = function.body.body if isinstance(function.body, cst.IndentedBlock) else ()
    for stmt in body:
        if sc.within(fl, stmt, call):
            return False
        if isinstance(stmt, cst.If) and _mentions_flag(stmt.test, flags) and _exits(stmt):
            return True
    return False


def _exits(stmt: cst.If) -> bool:
    found: List[cst.CSTNode] = []

    class Exits(cst.CSTVisitor):
        def visit_Return(self, node: cst.Return) -> None:
            found.append(node)

        def visit_Raise(self, node: cst.Raise) -> None:
            found.append(node)

    walk(stmt.body, Exits())
    return bool(found)
