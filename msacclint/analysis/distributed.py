"""Distributed-training facts of a file: ``communication.init()``, the parallel context,
gradient reduction and seeds.

``distributed(ctx)``:
- ``init_calls``: ``mindspore.communication.init()`` calls;
- ``parallel_mode``: "data" when ``set_auto_parallel_context(parallel_mode=...)`` says
  data parallel, "auto" for semi-auto/auto/hybrid parallel or an ``AutoParallel(...)``
  wrapper (the framework then slices data and reduces gradients its own way),
  "stand_alone" when it says so, "unknown" when the value cannot be read, None when the
  file never sets it; ``full_batch``: the context says every device loads the full batch;
- ``parameter_broadcast``: the context is given ``parameter_broadcast`` (not literally False);
- ``reduces_gradients``: the file builds ``DistributedGradReducer`` or all-reduces by hand;
- ``set_seed_calls``: ``mindspore.set_seed(...)`` calls; ``seed_helpers``: other calls whose
  name says seed (``set_seed`` from a utils module, ``seed_everything``) — their effect is
  unknown, so seed rules stay silent when there are any.
"""

from __future__ import annotations

from typing import Dict, List, Optional

import libcst as cst

from msacclint.analysis.calls import argument, literal
from msacclint.analysis.context import FileContext, Question
from msacclint.analysis.facts import FileFacts, facts
from msacclint.analysis.scopes import scopes
from msacclint.analysis.source import code_of as _code
from msacclint.analysis.walk import walk

INIT = "mindspore.communication.init"
SET_SEED = "mindspore.set_seed"
PY_SEEDS = frozenset({"numpy.random.seed", "random.seed"})
REDUCERS = ("DistributedGradReducer", "AllReduce", "all_reduce")


class Distributed:
    def __init__(self, ctx: FileContext) -> None:
        f = facts(ctx)
        self.ctx = ctx
        self.init_calls: List[cst.Call] = f.called(INIT)
        contexts = [c for name, calls in f.calls.items() if name.startswith("mindspore.")
                    and name.endswith(".set_auto_parallel_context") for c in calls]
        self.parallel_mode: Optional[str] = None
        self.parameter_broadcast = False
        self.full_batch = False
        for call in contexts:
            mode = argument(call, "parallel_mode", ())
            if mode is not None:
                # every value the name may hold here: ``DATA_PARALLEL if distributed else
                # STAND_ALONE`` in two branches is data-parallel wherever there are replicas
                text = " ".join(_code(v) for v in _assigned_all(ctx, call, mode.value)).lower()
                if "data_parallel" in text and "auto" not in text and "hybrid" not in text:
                    self.parallel_mode = self.parallel_mode if self.parallel_mode == "auto" else "data"
                elif "stand_alone" in text:
                    self.parallel_mode = self.parallel_mode or "stand_alone"
                elif "auto" in text or "hybrid" in text:
                    self.parallel_mode = "auto"
                elif "data_parallel" in text:
                    self.parallel_mode = self.parallel_mode if self.parallel_mode == "auto" else "data"
                else:
                    self.parallel_mode = "unknown"
            full = argument(call, "full_batch", ())
            if full is not None and literal(full.value) is not False:
                self.full_batch = True
            if any(a.star == "**" for a in call.args):
                self.parallel_mode = "unknown"
                self.parameter_broadcast = True
            broadcast = argument(call, "parameter_broadcast", ())
            if broadcast is not None and literal(broadcast.value) is not False:
                self.parameter_broadcast = True
        if any(name.rsplit(".", 1)[-1] == "AutoParallel" for name in f.calls) or f.unresolved.get("AutoParallel"):
            self.parallel_mode = "auto"
        self.reduces_gradients = _reduces_gradients(ctx, f)
        self.set_seed_calls: List[cst.Call] = f.called(SET_SEED)
        self.py_seed_calls: List[cst.Call] = f.called(*PY_SEEDS)
        self.seed_helpers: List[cst.Call] = []
        for name, calls in f.calls.items():
            if name in PY_SEEDS or name == SET_SEED:
                continue
            if "seed" in name.rsplit(".", 1)[-1].lower():
                self.seed_helpers.extend(calls)
        self.seed_helpers.extend(plain_name_calls(ctx, "seed"))

    @property
    def data_parallel(self) -> bool:
        return self.parallel_mode == "data"


def _reduces_gradients(ctx: FileContext, f: FileFacts) -> bool:
    """The file all-reduces gradients: an AllReduce/all_reduce call, or a
    DistributedGradReducer that is called. A reducer bound to a name (``grad_reducer =
    ...``) or to a Cell attribute (``self.grad_reducer = ...``) counts only when that name
    or attribute is called somewhere in the file; one built any other way (an argument, a
    returned value) is assumed to be used."""
    from msacclint.analysis.cells import cells

    if any(name.rsplit(".", 1)[-1] in ("AllReduce", "all_reduce") for name in f.calls) or any(
            f.methods.get(name) for name in ("all_reduce", "AllReduce")):
        return True
    reducers = [c for name, calls in f.calls.items() if name.rsplit(".", 1)[-1] == "DistributedGradReducer"
                for c in calls]
    if not reducers:
        # spelled so that the imports do not resolve it (a star import): assume it is used
        return bool(f.unresolved.get("DistributedGradReducer") or f.methods.get("DistributedGradReducer"))
    names: Dict[int, str] = {}
    sc = scopes(ctx)
    for fl in sc.flows:
        for name, defs in fl.defs.items():
            for d in defs:
                if d.index is None and isinstance(d.value, cst.Call):
                    names[id(d.value)] = name
    attrs: Dict[int, str] = {id(value): attr for info in cells(ctx).classes.values()
                             for attr, value in info.assigned if isinstance(value, cst.Call)}
    for call in reducers:
        if id(call) in attrs:
            if f.methods.get(attrs[id(call)]):
                return True
        elif id(call) in names:
            name = names[id(call)]
            if any(isinstance(e.node.func, cst.Name) and e.node.func.value == name
                   for fl in sc.flows for e in fl.calls()):
                return True
        else:
            return True
    return False


def _assigned(ctx: FileContext, call: cst.Call, value: cst.BaseExpression) -> cst.BaseExpression:
    """``mode = ParallelMode.DATA_PARALLEL`` ... ``parallel_mode=mode``: the value a plain name
    was last assigned before the call (in its function or an enclosing scope), else itself."""
    if not isinstance(value, cst.Name):
        return value
    sc = scopes(ctx)
    fl = sc.owner(call)
    if fl is None:
        return value
    found = sc.resolve(fl, value.value, fl.order_of.get(call))
    if found is None or not isinstance(found[1].value, cst.BaseExpression) or found[1].index is not None:
        return value
    return found[1].value


def _assigned_all(ctx: FileContext, call: cst.Call, value: cst.BaseExpression) -> List[cst.BaseExpression]:
    """Every value a plain name may hold at ``call``: its assignments earlier in the same
    function (each branch of an ``if``), else the one ``_assigned`` finds, else itself."""
    if not isinstance(value, cst.Name):
        return [value]
    sc = scopes(ctx)
    fl = sc.owner(call)
    before = fl.order_of.get(call) if fl is not None else None
    if fl is not None and before is not None:
        defs = [d for d in fl.defs.get(value.value, ()) if d.order < before and d.index is None
                and isinstance(d.value, cst.BaseExpression)]
        if len(defs) > 1:
            return [d.value for d in defs]
    return [_assigned(ctx, call, value)]


def plain_name_calls(ctx: FileContext, word: str) -> List[cst.Call]:
    """Calls of functions that do not resolve from the imports (local helpers, methods)
    whose name contains ``word``."""
    return [c for name, calls in facts(ctx).unresolved.items() if word in name.lower() for c in calls]


_RANK_WORDS = ("rank", "device_id")
_RANK_CALLS = frozenset({"get_rank", "get_local_rank", "get_rank_id", "get_device_id"})


def _says_rank(name: str) -> bool:
    return any(w in name.lower() for w in _RANK_WORDS)


def rank_dependent(ctx: FileContext, expr: cst.BaseExpression, call: cst.CSTNode, depth: int = 0) -> bool:
    """Whether a value (a seed argument of ``call``) depends on the device's rank: it calls
    ``get_rank()``/``get_local_rank()``, reads ``RANK``/``DEVICE_ID`` from the environment,
    reads an attribute named for the rank (``args.rank_id``, set from the rank at run time),
    or uses a local name assigned from one of those. A parameter of the enclosing function
    (``def set_seed(seed, rank=0)``) is not: what its callers pass is unknown."""
    from msacclint.analysis.scopes import scopes

    found: List[cst.CSTNode] = []

    class Finder(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            func = node.func
            tail = (func.attr.value if isinstance(func, cst.Attribute)
                    else func.value if isinstance(func, cst.Name) else "")
            if tail in _RANK_CALLS or (tail in ("getenv", "get") and _says_rank(_code(node))):
                found.append(node)

        def visit_Subscript(self, node: cst.Subscript) -> None:
            if "environ" in _code(node.value) and _says_rank(_code(node)):
                found.append(node)

        def visit_Attribute(self, node: cst.Attribute) -> bool:
            if _says_rank(node.attr.value):
                found.append(node)
            return False  # ``args.rank_id``: the receiver is not a local name to follow

        def visit_Name(self, node: cst.Name) -> None:
            if found or depth > 3 or not _says_rank(node.value):
                return
            sc = scopes(ctx)
            fl = sc.owner(call)
            if fl is None:
                return
            before = fl.order_of.get(call)
            for i, scope in enumerate(sc.enclosing(fl)):  # any assignment it may hold (if/else both count)
                defs = [d for d in scope.defs.get(node.value, ()) if i or before is None or d.order < before]
                if any(rank_dependent(ctx, d.value, d.node, depth + 1) for d in defs):
                    found.append(node)
                    return
                if defs or node.value in sc.params(scope):
                    return

    walk(expr, Finder())
    return bool(found)


DISTRIBUTED: Question[Distributed] = Question("distributed", Distributed)


def distributed(ctx: FileContext) -> Distributed:
    return ctx.ask(DISTRIBUTED)
