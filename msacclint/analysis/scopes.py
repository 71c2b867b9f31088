"""Which function holds which node, and what a name stands for there.

``scopes(ctx)`` builds, once per file, the flow (``msacclint.analysis.flow``) of the
module's top level and of every function, the enclosing function of every nested
``def`` and the class of every method. Rules and the other analysis modules ask:
- ``owner(node)``: the flow whose events hold a call or assignment node;
- ``resolve(flow, name, before)``: the assignment a name refers to at that point,
  looking in the function, then the enclosing functions, then the module; ``None`` when
  it is a parameter or unknown (callers then stay silent);
- ``functions_named(name)`` and ``callers(name)``: functions of the file by name and
  the call events that call them by name.
"""

from __future__ import annotations

import re
from typing import Dict, List, Optional, Set, Tuple, Union

import libcst as cst

from msacclint.analysis.context import FileContext, Question
from msacclint.analysis.flow import Definition, Event, FunctionFlow, flow
from msacclint.analysis.walk import walk

Scope = Union[cst.FunctionDef, cst.Module]

TRAIN_WORDS = frozenset({"train", "training", "trainer", "finetune", "fit"})
EVAL_WORDS = frozenset({"eval", "evaluate", "evaluation", "val", "valid", "validate", "validation",
                        "test", "testing", "infer", "inference", "predict", "prediction", "dev"})


def words(name: Optional[str]) -> Set[str]:
    """``create_train_dataset`` -> {create, train, dataset}; ``evalNet`` -> {eval, net}."""
    if not name:
        return set()
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name)
    return {w for w in re.split(r"[^A-Za-z0-9]+|(?<=[a-z])(?=[0-9])", spaced.lower()) if w}


def says_train(name: Optional[str]) -> bool:
    return bool(words(name) & TRAIN_WORDS)


def says_eval(name: Optional[str]) -> bool:
    return bool(words(name) & EVAL_WORDS)


class _Nesting(cst.CSTVisitor):
    def __init__(self) -> None:
        self.stack: List[cst.CSTNode] = []
        self.parent: Dict[cst.FunctionDef, Optional[cst.FunctionDef]] = {}
        self.cls: Dict[cst.FunctionDef, Optional[cst.ClassDef]] = {}
        self.functions: List[cst.FunctionDef] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        parent = next((n for n in reversed(self.stack) if isinstance(n, cst.FunctionDef)), None)
        self.parent[node] = parent
        self.cls[node] = self.stack[-1] if self.stack and isinstance(self.stack[-1], cst.ClassDef) else None
        self.functions.append(node)
        self.stack.append(node)

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.stack.pop()

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.stack.append(node)

    def leave_ClassDef(self, node: cst.ClassDef) -> None:
        self.stack.pop()

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> bool:
        return False  # no defs in there (lambdas are not functions here)


class Scopes:
    def __init__(self, ctx: FileContext) -> None:
        self.ctx = ctx
        _NAMES.clear()  # a new file: the previous file's nodes need not stay alive
        nesting = _Nesting()
        walk(ctx.module, nesting)
        self.parent = nesting.parent
        self.method_of = nesting.cls
        self.functions = nesting.functions
        self.module_flow = flow(ctx, ctx.module)
        self.flows: List[FunctionFlow] = [self.module_flow] + [flow(ctx, f) for f in self.functions]
        self._owner: Dict[cst.CSTNode, FunctionFlow] = {}
        for fl in self.flows:
            for node in fl.order_of:
                self._owner[node] = fl
        self._parents: Dict[cst.CSTNode, Dict[cst.CSTNode, cst.CSTNode]] = {}
        self.by_name: Dict[str, List[cst.FunctionDef]] = {}
        for f in self.functions:
            self.by_name.setdefault(f.name.value, []).append(f)

    # -- where things are ------------------------------------------------------------
    def owner(self, node: cst.CSTNode) -> Optional[FunctionFlow]:
        return self._owner.get(node)

    def event(self, node: cst.CSTNode) -> Optional[Event[cst.CSTNode]]:
        fl = self.owner(node)
        if fl is None:
            return None
        return fl.events[fl.order_of[node]]

    def function_name(self, fl: FunctionFlow) -> str:
        if isinstance(fl.root, cst.FunctionDef):
            return fl.root.name.value
        return self.ctx.path.replace("\\", "/").rsplit("/", 1)[-1].rsplit(".", 1)[0]

    def enclosing(self, fl: FunctionFlow) -> List[FunctionFlow]:
        """The flow itself, its enclosing functions' flows, then the module's."""
        out = [fl]
        node = fl.root
        while isinstance(node, cst.FunctionDef):
            parent = self.parent.get(node)
            if parent is None:
                break
            out.append(flow(self.ctx, parent))
            node = parent
        if fl is not self.module_flow:
            out.append(self.module_flow)
        return out

    def class_of(self, fl: Optional[FunctionFlow]) -> Optional[cst.ClassDef]:
        """The class whose method holds the flow, directly or through nested functions."""
        function = fl.root if fl is not None and isinstance(fl.root, cst.FunctionDef) else None
        while function is not None and self.method_of.get(function) is None:
            function = self.parent.get(function)
        return self.method_of.get(function) if function is not None else None

    def params(self, fl: FunctionFlow) -> List[str]:
        if not isinstance(fl.root, cst.FunctionDef):
            return []
        p = fl.root.params
        return [x.name.value for x in (*p.posonly_params, *p.params, *p.kwonly_params)]

    # -- what a name is -------------------------------------------------------------
    def resolve(self, fl: FunctionFlow, name: str, before: Optional[int] = None
                ) -> Optional[Tuple[FunctionFlow, Definition]]:
        """The assignment ``name`` refers to; None for parameters and unknown names."""
        for i, scope in enumerate(self.enclosing(fl)):
            found = scope.definition(name, before if i == 0 else None)
            if found is not None:
                return scope, found
            if name in self.params(scope):
                return None
        return None

    def assignment_at(self, name: str, at: cst.CSTNode) -> Optional[Definition]:
        """The assignment of the whole value of ``name`` (not an unpacked part) that the
        name refers to at the node ``at``; None when ``at`` is in no function's flow, for
        parameters, unknown names and unpacking."""
        fl = self.owner(at)
        if fl is None:
            return None
        found = self.resolve(fl, name, fl.order_of.get(at))
        if found is None or found[1].index is not None:
            return None
        return found[1]

    def functions_named(self, name: str) -> List[cst.FunctionDef]:
        return self.by_name.get(name, [])

    def callers(self, function: cst.FunctionDef) -> List[Tuple[FunctionFlow, Event[cst.Call]]]:
        """Call events ``name(...)`` anywhere in the file that call this function by name."""
        name = function.name.value
        out: List[Tuple[FunctionFlow, Event[cst.Call]]] = []
        for fl in self.flows:
            for e in fl.calls():
                if isinstance(e.node.func, cst.Name) and e.node.func.value == name:
                    out.append((fl, e))
        return out

    def parents(self, fl: FunctionFlow) -> Dict[cst.CSTNode, cst.CSTNode]:
        """Child -> parent for the code of one flow, recorded on first use."""
        parents = self._parents.get(fl.root)
        if parents is None:
            parents = self._parents[fl.root] = _parents(fl.root)
        return parents

    def within(self, fl: FunctionFlow, outer: cst.CSTNode, inner: cst.CSTNode) -> bool:
        """Whether ``inner`` is ``outer`` or inside it, both in the code of flow ``fl``
        (parents are recorded once per flow, on first use)."""
        parents = self.parents(fl)
        node: Optional[cst.CSTNode] = inner
        while node is not None:
            if node is outer:
                return True
            node = parents.get(node)
        return False

    def module_function(self, name: str) -> Optional[cst.FunctionDef]:
        """A function of that name that is not a method (module level or nested)."""
        for f in self.functions_named(name):
            if self.method_of.get(f) is None:
                return f
        return None


def _parents(root: cst.CSTNode) -> Dict[cst.CSTNode, cst.CSTNode]:
    parents: Dict[cst.CSTNode, cst.CSTNode] = {}
    stack: List[cst.CSTNode] = []

    class Parents(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            if stack:
                parents[node] = stack[-1]
            if isinstance(node, (cst.FunctionDef, cst.ClassDef)) and node is not root:
                return False
            stack.append(node)
            return True

        def on_leave(self, original_node: cst.CSTNode) -> None:
            if stack and stack[-1] is original_node:
                stack.pop()

    walk(root, Parents())
    return parents


SCOPES: Question[Scopes] = Question("scopes", Scopes)


def string_value(ctx: FileContext, fl: Optional[FunctionFlow], expr: cst.BaseExpression,
                 before: Optional[int] = None) -> Optional[str]:
    """The string ``expr`` holds: a literal; a name whose assignment seen from ``fl`` (its
    own, the newest before ``before``, or an enclosing function's or the module's) is one; a
    parameter of ``fl``'s function with a literal string default. None otherwise."""
    from msacclint.analysis.calls import literal, parameter_slots

    value = literal(expr)
    if isinstance(value, str):
        return value
    if not isinstance(expr, cst.Name) or fl is None:
        return None
    found = scopes(ctx).resolve(fl, expr.value, before)
    if found is not None:
        value = literal(found[1].value) if found[1].index is None else None
        return value if isinstance(value, str) else None
    if isinstance(fl.root, cst.FunctionDef):
        slot = parameter_slots(fl.root).get(expr.value)
        value = literal(slot[1]) if slot is not None and slot[1] is not None else None
        return value if isinstance(value, str) else None
    return None


def scopes(ctx: FileContext) -> Scopes:
    return ctx.ask(SCOPES)


_NAMES: Dict[int, Tuple[cst.CSTNode, Set[str]]] = {}


def names_in(node: cst.CSTNode) -> Set[str]:
    """Every Name in an expression (memoised: the rules ask about the same nodes often)."""
    cached = _NAMES.get(id(node))
    if cached is not None and cached[0] is node:
        return cached[1]
    found: Set[str] = set()

    class Names(cst.CSTVisitor):
        def visit_Name(self, n: cst.Name) -> None:
            found.add(n.value)

    walk(node, Names())
    if len(_NAMES) > 50000:
        _NAMES.clear()
    _NAMES[id(node)] = (node, found)
    return found
