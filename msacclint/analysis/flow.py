"""Per-function def-use chains: the order of calls and assignments along one function
(or a module's top-level code), and where a name's value came from, following
reassignments such as ``grads = f(grads)``.

``FunctionFlow(node, imports)`` walks one function body once (not into nested functions
or classes) and records, in source order:
- ``events``: every call and every assignment, with its loop depth and the ``if`` tests
  that guard it;
- ``defs``: name -> the assignments to it, in order.
Questions rules ask: ``chain(name, before)`` (the values a name took, newest first,
following ``x = g(x)``), ``calls_to(*qualnames)``, ``method_calls(method, receiver)``,
``before(a, b)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, FrozenSet, Generic, List, Optional, Tuple, TypeVar, Union, cast

import libcst as cst

from msacclint.analysis.context import FileContext, Question
from msacclint.analysis.imports import ImportTable, dotted
from msacclint.analysis.walk import OwnScope, descendants, walk

#: the node type of an event (``Event[cst.Call]`` for the events of calls)
N = TypeVar("N", bound=cst.CSTNode, covariant=True)


@dataclass
class Event(Generic[N]):
    order: int
    node: N
    #: resolved callee for calls (None when unknown or not a call)
    callee: Optional[str] = None
    loop_depth: int = 0
    #: the test expressions of the enclosing if/elif branches (innermost last), with
    #: True for the body and False for the else part
    guards: Tuple[Tuple[cst.BaseExpression, bool], ...] = ()
    #: the enclosing for/while statements, outermost first
    loops: Tuple[cst.CSTNode, ...] = ()


@dataclass
class Definition:
    order: int
    name: str
    #: the assigned expression; NOTE for an augmented assignment (``x += 1``) this is the
    #: AugAssign statement itself (see ``leave_AugAssign``)
    value: cst.BaseExpression
    node: cst.CSTNode
    #: the position of this name in a tuple target (``loss, grads = f()`` -> 1), else None
    index: Optional[int] = None


def target_names(target: cst.BaseExpression) -> List[Tuple[str, Optional[int]]]:
    if isinstance(target, cst.Name):
        return [(target.value, None)]
    if isinstance(target, (cst.Tuple, cst.List)):
        out: List[Tuple[str, Optional[int]]] = []
        for i, element in enumerate(target.elements):
            if isinstance(element.value, cst.Name):
                out.append((element.value.value, i))
        return out
    return []


class FunctionFlow(OwnScope):
    def __init__(self, node: Union[cst.FunctionDef, cst.Module], imports: ImportTable) -> None:
        super().__init__()
        self.root = node
        self.imports = imports
        self.events: List[Event[cst.CSTNode]] = []
        self.defs: Dict[str, List[Definition]] = {}
        self.order_of: Dict[cst.CSTNode, int] = {}
        self._loop = 0
        self._guards: List[Tuple[cst.BaseExpression, bool]] = []
        self._loops: List[cst.CSTNode] = []
        body = node.body
        if isinstance(body, cst.BaseSuite):
            walk(body, self)
        else:
            for stmt in body:
                walk(stmt, self)
    # -- walking ----------------------------------------------------------------------
    def _add(self, node: cst.CSTNode, callee: Optional[str] = None) -> int:
        order = len(self.events)
        self.events.append(Event(order, node, callee, self._loop, tuple(self._guards), tuple(self._loops)))
        self.order_of[node] = order
        return order

    def visit_For(self, node: cst.For) -> bool:
        walk(node.iter, self)
        for name, index in target_names(node.target):
            self.defs.setdefault(name, []).append(Definition(len(self.events), name, node.iter, node, index))
        self._loop_body(node)
        return False

    def visit_While(self, node: cst.While) -> bool:
        walk(node.test, self)
        self._loop_body(node)
        return False

    def _loop_body(self, node: Union[cst.For, cst.While]) -> None:
        """A loop's body walked as inside the loop, then its ``else`` as after it."""
        self._loop += 1
        self._loops.append(node)
        walk(node.body, self)
        self._loop -= 1
        self._loops.pop()
        if node.orelse is not None:
            walk(node.orelse, self)

    def visit_If(self, node: cst.If) -> bool:
        walk(node.test, self)
        self._guards.append((node.test, True))
        walk(node.body, self)
        self._guards.pop()
        if node.orelse is not None:
            self._guards.append((node.test, False))
            walk(node.orelse, self)
            self._guards.pop()
        return False

    def visit_IfExp(self, node: cst.IfExp) -> bool:
        """``a if test else b``: each side guarded by the test, as an ``if`` statement's are."""
        walk(node.test, self)
        self._guards.append((node.test, True))
        walk(node.body, self)
        self._guards.pop()
        self._guards.append((node.test, False))
        walk(node.orelse, self)
        self._guards.pop()
        return False

    def leave_Call(self, node: cst.Call) -> None:
        # leave: arguments are evaluated before the call, so inner calls come first
        self._add(node, self.imports.resolve(node.func))

    def leave_Assign(self, node: cst.Assign) -> None:
        order = self._add(node)
        for target in node.targets:
            for name, index in target_names(target.target):
                self.defs.setdefault(name, []).append(Definition(order, name, node.value, node, index))

    def leave_AugAssign(self, node: cst.AugAssign) -> None:
        order = self._add(node)
        for name, index in target_names(node.target):
            # kept as it always was: the AugAssign statement stands for the value (its
            # target and operand both feed it); callers only look for names and calls in it
            value = cast(cst.BaseExpression, node)
            self.defs.setdefault(name, []).append(Definition(order, name, value, node, index))

    def leave_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is None:
            return
        order = self._add(node)
        for name, index in target_names(node.target):
            self.defs.setdefault(name, []).append(Definition(order, name, node.value, node, index))

    # -- questions ------------------------------------------------------------------
    def order(self, node: cst.CSTNode) -> Optional[int]:
        return self.order_of.get(node)

    def definition(self, name: str, before: Optional[int] = None) -> Optional[Definition]:
        """The newest assignment to ``name`` before the given order (or at all)."""
        found = None
        for d in self.defs.get(name, ()):
            if before is None or d.order < before:
                found = d
        return found

    def chain(self, name: str, before: Optional[int] = None, limit: int = 50) -> List[Definition]:
        """The values ``name`` took before ``before``, newest first: ``grads = clip(grads)``
        after ``loss, grads = grad_fn(x)`` gives [clip(...), grad_fn(x)]."""
        out: List[Definition] = []
        current = self.definition(name, before)
        while current is not None and len(out) < limit:
            out.append(current)
            if not _mentions(current.value, name):
                break
            current = self.definition(name, current.order)
        return out

    def calls_to(self, *qualnames: str) -> List[Event[cst.Call]]:
        wanted = set(qualnames)
        # only a call's event carries a callee
        return [cast("Event[cst.Call]", e) for e in self.events if e.callee in wanted]

    def calls(self) -> List[Event[cst.Call]]:
        return [cast("Event[cst.Call]", e) for e in self.events if isinstance(e.node, cst.Call)]

    def method_calls(self, method: str, receiver: Optional[str] = None) -> List[Event[cst.Call]]:
        out: List[Event[cst.Call]] = []
        for e in self.events:
            node = e.node
            if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == method:
                if receiver is None or dotted(node.func.value) == receiver:
                    out.append(cast("Event[cst.Call]", e))
        return out

    def names_in(self, expr: cst.CSTNode) -> List[str]:
        return _names(expr)


@dataclass(frozen=True)
class ExprFacts:
    """What one walk over an expression finds: its Names (in order, and as a set), the
    last names of the callees it calls, and whether it raises something to a power."""

    node: cst.CSTNode
    names: Tuple[str, ...]
    name_set: FrozenSet[str]
    call_names: Tuple[str, ...]
    has_power: bool


_EXPR: Dict[int, ExprFacts] = {}


def expr_facts(expr: cst.CSTNode) -> ExprFacts:
    """The ExprFacts of ``expr``, walked once per node (memoised: the chains and the rules
    ask about the same expressions many times)."""
    hit = _EXPR.get(id(expr))
    if hit is not None and hit.node is expr:
        return hit
    names: List[str] = []
    calls: List[str] = []
    power = False
    # a direct scan (no visitor dispatch): this runs on every assigned value of a file
    for node in descendants(expr):
        kind = type(node)
        if kind is cst.Name:
            names.append(node.value)  # type: ignore[attr-defined]
        elif kind is cst.Call:
            func = node.func  # type: ignore[attr-defined]
            calls.append(func.attr.value if isinstance(func, cst.Attribute)
                         else func.value if isinstance(func, cst.Name) else "")
        elif kind is cst.BinaryOperation and type(node.operator) is cst.Power:  # type: ignore[attr-defined]
            power = True
    if len(_EXPR) > 50000:
        _EXPR.clear()
    facts = ExprFacts(expr, tuple(names), frozenset(names), tuple(calls), power)
    _EXPR[id(expr)] = facts
    return facts


def _named(expr: cst.CSTNode) -> Tuple[cst.CSTNode, Tuple[str, ...], FrozenSet[str]]:
    facts = expr_facts(expr)
    return facts.node, facts.names, facts.name_set


def _names(expr: cst.CSTNode) -> List[str]:
    return list(_named(expr)[1])


def _mentions(expr: cst.CSTNode, name: str) -> bool:
    return name in _named(expr)[2]


#: the flows computed so far, by function (or module) node
_FLOWS: Question[Dict[Union[cst.FunctionDef, cst.Module], FunctionFlow]] = Question("flows", lambda ctx: {})


def flow(ctx: FileContext, node: Union[cst.FunctionDef, cst.Module]) -> FunctionFlow:
    """The flow of one function (or the module's top level), computed once per file."""
    table = ctx.ask(_FLOWS)
    if node not in table:
        table[node] = FunctionFlow(node, ctx.imports)
    return table[node]
