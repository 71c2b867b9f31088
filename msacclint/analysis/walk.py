"""A read-only walk over a LibCST tree, and the one traversal that serves every rule.

LibCST's ``node.visit(visitor)`` is a transforming visit: it rebuilds and re-validates
every node it leaves, even when nothing changes, and ``node.children`` does the same to
list them. Analysis never changes the tree, so msacclint walks it read-only: the child
fields of each node class are read in the order LibCST itself visits them (taken once per
class from LibCST's own ``_visit_and_replace_children``), so visitors see nodes in the
same, lexical order as with ``visit``. Trivia — whitespace, comments, brackets, commas,
operators — are not walked unless a visitor asks for one of those classes.

Two ways in:

- ``walk(node, visitor)``: a drop-in for ``node.visit(visitor)`` for read-only visitors
  (``visit_X`` returning False skips the children, ``leave_X`` is called either way).
- ``Traversal``: the engine's single walk over a module. Any number of participants
  (rules, the analysis layer's collectors, the project layer's summary collector) register
  ``visit_X``/``leave_X`` methods; the traversal indexes them by node class once and calls
  them in registration order. Return values are ignored: a participant cannot prune the
  walk for the others.

A ``Collector`` is anything with ``visit_<NodeClass>``/``leave_<NodeClass>`` methods (see
``Collector`` below and docs/dev/architecture.md).
"""

from __future__ import annotations

import inspect
import re
import typing
import weakref
from typing import (
    Any,
    Callable,
    Dict,
    Iterable,
    Iterator,
    List,
    Mapping,
    Optional,
    Protocol,
    Sequence,
    Tuple,
    Type,
    TypeVar,
    runtime_checkable,
)

import libcst as cst

NodeCallback = Callable[[cst.CSTNode], Any]
N = TypeVar("N", bound=cst.CSTNode)

#: the deepest tree the engine walks (LibCST's recursive visit failed about here under the
#: engine's recursion limit of 3,000 frames, and recursive analyses still would)
MAX_DEPTH = 750

#: node classes that are layout, not meaning: never walked unless a visitor wants them
TRIVIA: Tuple[type, ...] = (
    cst.BaseParenthesizableWhitespace, cst.EmptyLine, cst.TrailingWhitespace, cst.Newline,
    cst.Comment, cst.LeftParen, cst.RightParen, cst.LeftSquareBracket, cst.RightSquareBracket,
    cst.LeftCurlyBrace, cst.RightCurlyBrace, cst.Comma, cst.Semicolon, cst.Colon, cst.Dot,
    cst.AssignEqual, cst.BaseBinaryOp, cst.BaseBooleanOp, cst.BaseCompOp, cst.BaseUnaryOp,
    cst.BaseAugOp, cst.ImportStar, cst.ParamStar, cst.ParamSlash, cst.Asynchronous,
)

_FIELD = re.compile(r"visit_\w+\(\s*self,\s*\"(\w+)\"")


def _all_subclasses(cls: type) -> List[type]:
    out: List[type] = []
    todo: List[type] = [cls]
    while todo:
        subs: List[type] = type.__subclasses__(todo.pop())
        for sub in subs:
            if sub not in out:
                out.append(sub)
                todo.append(sub)
    return out


_TRIVIA_CLASSES = frozenset(c for base in TRIVIA for c in (base, *_all_subclasses(base)))
_TRIVIA_CLASS_NAMES = frozenset(c.__name__ for c in _TRIVIA_CLASSES)
#: every node class LibCST defines: the walks test ``type(x) in`` this set before falling
#: back to ``isinstance`` (CSTNode is an ABC: each isinstance check goes through ABCMeta)
_NODE_CLASSES = frozenset(_all_subclasses(cst.CSTNode))
_fields_cache: Dict[type, Tuple[str, ...]] = {}


def child_fields(cls: type) -> Tuple[str, ...]:
    """The fields of a node class that hold child nodes, in LibCST's visiting order."""
    found = _fields_cache.get(cls)
    if found is None:
        names = _fields_from_code(cls)
        if not names:
            names = _fields_from_source(cls)
        if not names:  # no source (a compiled LibCST): dataclass order
            names = [f for f in getattr(cls, "__dataclass_fields__", {})]
        found = tuple(names)
        _fields_cache[cls] = found
    return found


def _fields_from_code(cls: type) -> List[str]:
    """The field names ``_visit_and_replace_children`` passes to ``visit_*``, read from its
    compiled constants (string constants that name a field, in order of first use): the
    same order as its source text (tests/test_walk.py compares the two on every node
    class), without reading and tokenizing LibCST's source files in every process."""
    method = getattr(cls, "_visit_and_replace_children", None)
    code = getattr(method, "__code__", None)
    fields = getattr(cls, "__dataclass_fields__", None)
    if code is None or not fields:
        return []
    return list(dict.fromkeys(c for c in code.co_consts if isinstance(c, str) and c in fields))


def _fields_from_source(cls: type) -> List[str]:
    """The same, from the method's source text."""
    try:
        source = inspect.getsource(cls._visit_and_replace_children)  # type: ignore[attr-defined]
    except (OSError, TypeError, AttributeError):
        return []
    return list(dict.fromkeys(_FIELD.findall(source)))


def _node_types(hint: Any) -> List[type]:
    origin = typing.get_origin(hint)
    if origin is None:
        return [hint] if isinstance(hint, type) and issubclass(hint, cst.CSTNode) else []
    out: List[type] = []
    for arg in typing.get_args(hint):
        out.extend(_node_types(arg))
    return out


_meaning_cache: Dict[type, Tuple[Tuple[str, bool], ...]] = {}


def meaning_fields(cls: type) -> Tuple[Tuple[str, bool], ...]:
    """The child fields of a node class that can hold a non-trivia node, in visiting order,
    each with whether a trivia node may also appear in it (then each value is checked).
    Read once per class from the dataclass's annotations."""
    found = _meaning_cache.get(cls)
    if found is None:
        try:
            hints = typing.get_type_hints(cls)
        except Exception:  # an annotation that does not resolve: check every value
            hints = {}
        out = []
        for name in child_fields(cls):
            types = _node_types(hints[name]) if name in hints else [cst.CSTNode]
            if not types:
                continue  # holds no node (a string, a sentinel)
            if all(issubclass(t, TRIVIA) for t in types):
                continue
            mixed = any(issubclass(t, TRIVIA) or issubclass(cst.Comma, t) for t in types)
            out.append((name, mixed))
        found = tuple(out)
        _meaning_cache[cls] = found
    return found


def _reversed_children(node: cst.CSTNode) -> List[cst.CSTNode]:
    """The non-trivia child nodes of ``node``, last first: the order a stack pushes them
    so that they are popped in lexical order."""
    out: List[cst.CSTNode] = []
    push = out.append
    cls = type(node)
    fields = _meaning_cache.get(cls)
    if fields is None:
        fields = meaning_fields(cls)
    for name, mixed in reversed(fields):
        value = getattr(node, name)
        if value is None:
            continue
        if isinstance(value, cst.CSTNode):
            if not mixed or type(value) not in _TRIVIA_CLASSES:
                push(value)
        elif isinstance(value, (tuple, list)):
            for item in reversed(value):
                if isinstance(item, cst.CSTNode) and (not mixed or type(item) not in _TRIVIA_CLASSES):
                    push(item)
    return out


def reversed_children(node: cst.CSTNode) -> List[cst.CSTNode]:
    """The non-trivia child nodes of ``node``, last first: what a walk with its own stack
    pushes to pop them in lexical order (analysis/raising.py)."""
    return _reversed_children(node)


def iter_children(node: cst.CSTNode, trivia: bool = False) -> Iterator[cst.CSTNode]:
    """The child nodes of ``node`` in lexical order, without rebuilding anything."""
    if not trivia:
        yield from reversed(_reversed_children(node))
        return
    for name in child_fields(type(node)):
        value = getattr(node, name, None)
        if isinstance(value, cst.CSTNode):
            yield value
        elif isinstance(value, (tuple, list)):
            for item in value:
                if isinstance(item, cst.CSTNode):
                    yield item


def parent_links(root: cst.CSTNode, wanted: Iterable[int], trivia: bool = False) -> Dict[int, cst.CSTNode]:
    """The parent of each node under ``root``, keyed by the child's id, recorded in lexical
    order and only as far as the last node whose id is in ``wanted`` (trivia nodes too when
    ``trivia``)."""
    left = set(wanted)
    left.discard(id(root))
    parents: Dict[int, cst.CSTNode] = {}
    stack: List[cst.CSTNode] = [root]
    pop, push = stack.pop, stack.append
    while stack and left:
        current = pop()
        children = list(iter_children(current, trivia=True))[::-1] if trivia else _reversed_children(current)
        for child in children:
            key = id(child)
            parents[key] = current
            push(child)
            left.discard(key)
    return parents


def descendants(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """``node`` and every non-trivia node under it, in lexical (pre-)order."""
    stack: List[cst.CSTNode] = [node]
    pop, push = stack.pop, stack.append
    cache = _meaning_cache
    trivia_classes, node_classes = _TRIVIA_CLASSES, _NODE_CLASSES
    while stack:
        current = pop()
        yield current
        cls = type(current)
        fields = cache.get(cls)
        if fields is None:
            fields = meaning_fields(cls)
        for name, mixed in reversed(fields):
            value = getattr(current, name)
            if value is None:
                continue
            kind = type(value)
            if kind in node_classes or (kind is not tuple and kind is not list and isinstance(value, cst.CSTNode)):
                if not mixed or kind not in trivia_classes:
                    push(value)
            elif kind is tuple or kind is list or isinstance(value, (tuple, list)):
                for item in reversed(value):
                    if (type(item) in node_classes or isinstance(item, cst.CSTNode)) and \
                            (not mixed or type(item) not in trivia_classes):
                        push(item)


def own_nodes(function: cst.FunctionDef, kind: Type[N]) -> List[N]:
    """The ``kind`` nodes of ``function`` in lexical order, not those of the functions
    defined inside it (its returns, its yields)."""
    found: List[N] = []
    stack: List[cst.CSTNode] = [function]
    while stack:
        current = stack.pop()
        if isinstance(current, kind):
            found.append(current)
        if current is function or not isinstance(current, cst.FunctionDef):
            stack.extend(_reversed_children(current))
    return found


def _wants_trivia(names: Iterable[str]) -> bool:
    for name in names:
        kind = name.split("_", 1)[1] if "_" in name else ""
        if kind in _TRIVIA_CLASS_NAMES:
            return True
    return False


class _Plan:
    """What a visitor class defines, read from its own classes (not LibCST's no-op stubs)."""

    __slots__ = ("generic", "trivia", "names", "by_class")

    def __init__(self, cls: type) -> None:
        names: typing.Set[str] = set()
        for klass in cls.__mro__:
            if klass is object or klass.__module__.startswith("libcst"):
                continue
            names.update(n for n in vars(klass) if n.startswith(("visit_", "leave_", "on_")))
        self.generic = "on_visit" in names or "on_leave" in names
        self.trivia = _wants_trivia(names)
        self.names = frozenset(names)
        self.by_class: Dict[type, Tuple[Optional[str], Optional[str]]] = {}

    def methods(self, node_cls: type) -> Tuple[Optional[str], Optional[str]]:
        found = self.by_class.get(node_cls)
        if found is None:
            visit, leave = "visit_" + node_cls.__name__, "leave_" + node_cls.__name__
            found = (visit if visit in self.names else None, leave if leave in self.names else None)
            self.by_class[node_cls] = found
        return found


_plans: weakref.WeakKeyDictionary[type, _Plan] = weakref.WeakKeyDictionary()


def _plan(cls: type) -> _Plan:
    plan = _plans.get(cls)
    if plan is None:
        plan = _Plan(cls)
        _plans[cls] = plan
    return plan


def walk(node: cst.CSTNode, visitor: Any) -> None:
    """Read-only ``node.visit(visitor)``: ``visit_X`` returning False skips the children,
    ``leave_X`` (called with the node only) follows either way. A visitor that overrides
    ``on_visit``/``on_leave`` gets those called for every (non-trivia) node instead."""
    plan = _plan(type(visitor))
    generic, trivia = plan.generic, plan.trivia
    on_visit = getattr(visitor, "on_visit", None) if "on_visit" in plan.names else None
    on_leave = getattr(visitor, "on_leave", None) if "on_leave" in plan.names else None
    #: node class -> (visit, leave) bound methods of this visitor, looked up once per walk
    bound: Dict[type, Tuple[Optional[NodeCallback], Optional[NodeCallback]]] = {}
    stack: List[Tuple[cst.CSTNode, bool]] = [(node, False)]
    pop, push = stack.pop, stack.append
    cache, trivia_classes, node_classes = _meaning_cache, _TRIVIA_CLASSES, _NODE_CLASSES
    # an explicit stack: deep expressions (long string concatenations, chained operators)
    # do not touch Python's recursion limit
    while stack:
        current, leaving = pop()
        cls = type(current)
        if generic:
            enter, leave = on_visit, on_leave
        else:
            pair = bound.get(cls)
            if pair is None:
                visit_name, leave_name = plan.methods(cls)
                pair = bound[cls] = (getattr(visitor, visit_name) if visit_name else None,
                                     getattr(visitor, leave_name) if leave_name else None)
            enter, leave = pair
        if leaving:
            if leave is not None:
                leave(current)
            continue
        if enter is not None and enter(current) is False:
            push((current, True))
            continue
        push((current, True))
        if trivia:
            for child in reversed(list(iter_children(current, True))):
                push((child, False))
            continue
        # iter_children(current), inlined and pushed in reverse (the walk's inner loop)
        fields = cache.get(cls)
        if fields is None:
            fields = meaning_fields(cls)
        for name, mixed in reversed(fields):
            value = getattr(current, name)
            if value is None:
                continue
            kind = type(value)
            if kind in node_classes or (kind is not tuple and kind is not list and isinstance(value, cst.CSTNode)):
                if not mixed or kind not in trivia_classes:
                    push((value, False))
            elif kind is tuple or kind is list or isinstance(value, (tuple, list)):
                for item in reversed(value):
                    if (type(item) in node_classes or isinstance(item, cst.CSTNode)) and \
                            (not mixed or type(item) not in trivia_classes):
                        push((item, False))


class OwnScope(cst.CSTVisitor):
    """A visitor of one body's own code: the functions, classes and lambdas defined in it
    are not entered (their code runs elsewhere, or not at all)."""

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False


def _method(visitor: Any, name: str) -> Optional[NodeCallback]:
    func = getattr(visitor, name, None)
    if func is None or getattr(func, "_is_no_op", False):
        return None
    return func  # type: ignore[no-any-return]


@runtime_checkable
class Collector(Protocol):
    """A read-only participant of the engine's traversal.

    Define ``visit_<NodeClass>(node)`` and/or ``leave_<NodeClass>(node)`` methods (LibCST
    class names: ``visit_Call``, ``leave_ClassDef``, ...). ``visitors()`` returns them by
    name; the base implementation below finds them on the class. Return values are ignored;
    the tree must not be changed. ``done()`` runs once after the walk."""

    def visitors(self) -> Dict[str, NodeCallback]: ...

    def done(self) -> None: ...


class BaseCollector:
    """Convenience base for collectors: ``visitors()`` from the class's method names."""

    def visitors(self) -> Dict[str, NodeCallback]:
        return {name: getattr(self, name) for name in visitor_names(type(self))}

    def done(self) -> None:
        return None


_names_cache: Dict[type, Tuple[str, ...]] = {}


def visitor_names(cls: type) -> Tuple[str, ...]:
    """The ``visit_X``/``leave_X`` methods a class defines (no-op stubs excluded)."""
    found = _names_cache.get(cls)
    if found is None:
        names = []
        for name in dir(cls):
            if name.startswith(("visit_", "leave_")):
                func = getattr(cls, name)
                if callable(func) and not getattr(func, "_is_no_op", False):
                    names.append(name)
        found = tuple(names)
        _names_cache[cls] = found
    return found


class Traversal:
    """One read-only walk over a module dispatching to many participants' visitors."""

    def __init__(self) -> None:
        self._visit: Dict[str, List[NodeCallback]] = {}
        self._leave: Dict[str, List[NodeCallback]] = {}
        self._trivia = False

    def add(self, visitors: Mapping[str, NodeCallback]) -> None:
        """Register ``{"visit_Call": f, "leave_ClassDef": g, ...}``."""
        for name, func in visitors.items():
            kind, _, cls = name.partition("_")
            table = self._visit if kind == "visit" else self._leave if kind == "leave" else None
            if table is None or not cls:
                continue
            if "_" in cls:  # visit_Call_func-style attribute hooks are not supported
                raise ValueError(f"unsupported visitor {name}: attribute hooks are not dispatched")
            table.setdefault(cls, []).append(func)
            if cls in _TRIVIA_CLASS_NAMES:
                self._trivia = True

    def run(self, module: cst.CSTNode) -> None:
        visit_by_class: Dict[type, Sequence[NodeCallback]] = {}
        leave_by_class: Dict[type, Sequence[NodeCallback]] = {}
        visit_names, leave_names = self._visit, self._leave
        trivia = self._trivia
        trivia_classes, node_classes = _TRIVIA_CLASSES, _NODE_CLASSES
        none: Sequence[NodeCallback] = ()
        stack: List[Tuple[cst.CSTNode, bool]] = [(module, False)]
        pop, push = stack.pop, stack.append
        depth = 0
        while stack:
            current, leaving = pop()
            cls = type(current)
            if leaving:
                depth -= 1
                callbacks = leave_by_class.get(cls)
                if callbacks is None:
                    callbacks = leave_by_class[cls] = leave_names.get(cls.__name__, none)
                for callback in callbacks:
                    callback(current)
                continue
            callbacks = visit_by_class.get(cls)
            if callbacks is None:
                callbacks = visit_by_class[cls] = visit_names.get(cls.__name__, none)
            for callback in callbacks:
                callback(current)
            depth += 1
            if depth > MAX_DEPTH:
                # the analyses and the fixes still recurse per level: a tree this deep is
                # reported as not checked, as LibCST's own visit would have failed on it
                raise RecursionError(f"syntax tree deeper than {MAX_DEPTH} nodes")
            push((current, True))
            if trivia:
                for child in reversed(list(iter_children(current, True))):
                    push((child, False))
                continue
            fields = _meaning_cache.get(cls)
            if fields is None:
                fields = meaning_fields(cls)
            for name, mixed in reversed(fields):
                value = getattr(current, name)
                if value is None:
                    continue
                kind = type(value)
                if kind in node_classes or \
                        (kind is not tuple and kind is not list and isinstance(value, cst.CSTNode)):
                    if not mixed or kind not in trivia_classes:
                        push((value, False))
                elif kind is tuple or kind is list or isinstance(value, (tuple, list)):
                    for item in reversed(value):
                        if (type(item) in node_classes or isinstance(item, cst.CSTNode)) and \
                                (not mixed or type(item) not in trivia_classes):
                            push((item, False))
