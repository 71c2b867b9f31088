"""The walk over the code of a file that runs, and what guards it (for msacclint.analysis.raising).

Each node is visited with a ``State``: where it runs (``"module"`` or the ``__qualname__`` of
the innermost function whose body runs it), whether it is conditional there (under
``if``/``try``/``while``/``for``/``match``, a conditional expression, the right side of
``and``/``or`` or a comprehension, or after a statement that may return, raise or exit), the
exceptions the enclosing ``try`` statements (and ``contextlib.suppress``) catch, and the
scopes whose local names hide the file's imports. Branches under a version or
``TYPE_CHECKING`` test are code for other releases and are not visited; a handler of
ImportError/AttributeError/Exception holds a fallback for releases where its body failed and
is visited as catching everything.
"""

from __future__ import annotations

import re
from typing import Any, Dict, FrozenSet, Iterable, List, NamedTuple, Optional, Sequence, Set, Tuple, Union, cast

import libcst as cst

from msacclint.analysis.context import FileContext
from msacclint.analysis.imports import dotted, imported_names
from msacclint.analysis.walk import descendants, reversed_children

_TYPES = {"ModuleNotFoundError": ("ImportError", "Exception", "BaseException"),
          "ImportError": ("Exception", "BaseException"),
          "AttributeError": ("Exception", "BaseException"),
          "TypeError": ("Exception", "BaseException"),
          "ValueError": ("Exception", "BaseException"),
          "KeyError": ("LookupError", "Exception", "BaseException")}

#: exception classes whose place in the hierarchy is known: a handler of only these catches
#: an exception when it names it or one of its bases, nothing else
_BUILTIN_EXCEPTIONS = frozenset({
    "BaseException", "Exception", "ArithmeticError", "AssertionError", "AttributeError", "BufferError",
    "EOFError", "FloatingPointError", "GeneratorExit", "ImportError", "IndexError", "KeyError",
    "KeyboardInterrupt", "LookupError", "MemoryError", "ModuleNotFoundError", "NameError",
    "NotImplementedError", "OSError", "IOError", "OverflowError", "RecursionError", "RuntimeError",
    "StopIteration", "SyntaxError", "SystemError", "SystemExit", "TypeError", "UnicodeError",
    "UnicodeDecodeError", "UnicodeEncodeError", "ValueError", "ZeroDivisionError", "FileNotFoundError",
    "PermissionError", "TimeoutError", "ConnectionError", "Warning", "UserWarning", "DeprecationWarning",
})

#: a handler of one of these holds a fallback for releases where its try body fails
_FALLBACK = frozenset({"ImportError", "ModuleNotFoundError", "AttributeError", "Exception", "BaseException"})

#: a handler list that catches everything (bare ``except:``, or types msacclint cannot read)
ANY = frozenset({"*"})


def catches(caught: FrozenSet[str], exception: str) -> bool:
    if "*" in caught:
        return True
    return exception in caught or any(base in caught for base in _TYPES.get(exception, ("Exception", "BaseException")))


class State(NamedTuple):
    where: str
    #: the qualname prefix of definitions made here ("Net.", "build.<locals>.")
    prefix: str
    conditional: bool
    #: exception names the enclosing try statements of this body catch
    caught: FrozenSet[str]
    #: the enclosing scopes whose local names hide the file's imports (functions, lambdas,
    #: comprehensions; a class body for its own statements only)
    scopes: Tuple[cst.CSTNode, ...]


def _dotted(node: cst.CSTNode) -> Optional[str]:
    """``a.b.c`` for a Name/Attribute chain, else None (imports.dotted, with exact type
    tests: LibCST's classes are ABCs, and isinstance on them is slow in a hot loop)."""
    parts = []
    while type(node) is cst.Attribute:
        parts.append(node.attr.value)
        node = node.value
    if type(node) is cst.Name:
        parts.append(node.value)
        return ".".join(reversed(parts))
    return None


_EXIT_CALLS = frozenset({"sys.exit", "exit", "quit", "os._exit"})
_COMPOUND = (cst.If, cst.For, cst.While, cst.Try, cst.TryStar, cst.With, cst.Match)
_COMPOUND_TYPES = frozenset(_COMPOUND)


def _exits(node: cst.CSTNode, memo: Dict[int, bool]) -> bool:
    """Whether a statement may leave the body it is in (return, raise, sys.exit()), not
    counting nested definitions (memoised per statement: blocks nest)."""
    key = id(node)
    known = memo.get(key)
    if known is not None:
        return known
    found = False
    kind = type(node)
    if kind is cst.SimpleStatementLine or kind is cst.SimpleStatementSuite:
        for small in node.body:  # type: ignore[attr-defined]
            small_kind = type(small)
            if small_kind is cst.Return or small_kind is cst.Raise or (small_kind is cst.Expr and type(
                    small.value) is cst.Call and _dotted(small.value.func) in _EXIT_CALLS):
                found = True
                break
    elif kind in _COMPOUND_TYPES:
        found = any(_exits(stmt, memo) for block in blocks(node) for stmt in block)
    memo[key] = found
    return found


def _names_in(target: Optional[cst.CSTNode]) -> Set[str]:
    """The names a target binds (``a``, ``a, (b, *c)``; not ``x.a`` or ``x[a]``)."""
    if target is None:
        return set()
    if isinstance(target, cst.Name):
        return {target.value}
    if isinstance(target, (cst.Tuple, cst.List)):
        found: Set[str] = set()
        for element in target.elements:
            found |= _names_in(element.value)
        return found
    if isinstance(target, cst.StarredElement):
        return _names_in(target.value)
    return set()


def _bound_names(node: cst.CSTNode) -> Set[str]:
    """The names a function, lambda or comprehension binds in its own scope: parameters,
    assignment, loop, ``with`` and ``except`` targets, imports, nested definitions, ``global``
    and ``nonlocal`` (statements only, not nested scopes; a walrus is not read)."""
    names: Set[str] = set()
    if isinstance(node, (cst.FunctionDef, cst.Lambda)):
        params = node.params
        for param in (*params.posonly_params, *params.params, *params.kwonly_params):
            names.add(param.name.value)
        for star in (params.star_arg, params.star_kwarg):
            if isinstance(star, cst.Param):
                names.add(star.name.value)
        if isinstance(node, cst.FunctionDef):
            _statement_names(getattr(node.body, "body", ()), names)
        return names
    comp: Optional[cst.CompFor] = getattr(node, "for_in", None)
    while comp is not None:
        names |= _names_in(comp.target)
        comp = comp.inner_for_in
    return names


def _statement_names(body: Sequence[cst.CSTNode], names: Set[str]) -> None:
    for stmt in body:
        kind = type(stmt)
        if kind is cst.SimpleStatementLine:
            for small in stmt.body:  # type: ignore[attr-defined]
                small_kind = type(small)
                if small_kind is cst.Assign:
                    for target in small.targets:
                        names |= _names_in(target.target)
                elif small_kind is cst.AnnAssign or small_kind is cst.AugAssign:
                    names |= _names_in(small.target)
                elif small_kind is cst.Import or small_kind is cst.ImportFrom:
                    names |= _import_bound(small)
                elif small_kind is cst.Global or small_kind is cst.Nonlocal:
                    names.update(n.name.value for n in small.names)
        elif kind is cst.FunctionDef or kind is cst.ClassDef:
            names.add(stmt.name.value)  # type: ignore[attr-defined]
        elif isinstance(stmt, _COMPOUND):
            if isinstance(stmt, cst.For):
                names |= _names_in(stmt.target)
            elif isinstance(stmt, cst.With):
                for item in stmt.items:
                    if item.asname is not None:
                        names |= _names_in(item.asname.name)
            for handler in getattr(stmt, "handlers", ()):
                if handler.name is not None:
                    names |= _names_in(handler.name.name)
            for inner in blocks(stmt):
                _statement_names(inner, names)


def _import_bound(node: Union[cst.Import, cst.ImportFrom]) -> Set[str]:
    names: Set[str] = set()
    if isinstance(node, cst.Import):
        for alias in node.names:
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                names.add(alias.asname.name.value)
            else:
                full = dotted(alias.name)
                if full:
                    names.add(full.split(".")[0])
    elif not isinstance(node.names, cst.ImportStar):
        names.update(bound for bound, _ in imported_names(node))
    return names


def blocks(stmt: cst.CSTNode) -> List[Sequence[cst.CSTNode]]:
    out: List[Sequence[cst.CSTNode]] = []
    for attr in ("body", "orelse", "finalbody"):
        part = getattr(stmt, attr, None)
        if part is None:
            continue
        if isinstance(part, cst.If):
            out.extend(blocks(part))
            continue
        if isinstance(part, (cst.Else, cst.Finally)):
            part = part.body
        if isinstance(part, cst.IndentedBlock):
            out.append(part.body)
    for handler in getattr(stmt, "handlers", ()):
        if isinstance(handler.body, cst.IndentedBlock):
            out.append(handler.body.body)
    return out


def compound_targets(stmt: cst.CSTNode) -> Set[str]:
    names: Set[str] = set()
    if isinstance(stmt, cst.For):
        names.update(n.value for n in descendants(stmt.target) if isinstance(n, cst.Name))
    elif isinstance(stmt, cst.With):
        for item in stmt.items:
            if item.asname is not None:
                names.update(n.value for n in descendants(item.asname.name) if isinstance(n, cst.Name))
    for handler in getattr(stmt, "handlers", ()):
        if handler.name is not None and isinstance(handler.name.name, cst.Name):
            names.add(handler.name.name.value)
    return names


def _mentions_version(test: cst.BaseExpression) -> bool:
    for node in descendants(test):
        if isinstance(node, cst.Name) and ("version" in node.value.lower() or node.value == "TYPE_CHECKING"):
            return True
        if isinstance(node, cst.Attribute) and ("version" in node.attr.value.lower()
                                                or node.attr.value == "TYPE_CHECKING"):
            return True
    return False


def _handler_types(handler: Union[cst.ExceptHandler, cst.ExceptStarHandler]) -> FrozenSet[str]:
    if handler.type is None:
        return ANY
    items = handler.type.elements if isinstance(handler.type, cst.Tuple) else [handler.type]
    names: Set[str] = set()
    for item in items:
        value = item.value if isinstance(item, cst.Element) else item
        name = dotted(value) if isinstance(value, (cst.Name, cst.Attribute)) else None
        short = name.rsplit(".", 1)[-1] if name else None
        if short is None or short not in _BUILTIN_EXCEPTIONS:
            return ANY  # a class msacclint cannot place: it may catch anything
        names.add(short)
    return frozenset(names)


def _suppressed(item: cst.WithItem) -> FrozenSet[str]:
    """The exceptions ``with contextlib.suppress(...)`` swallows."""
    call = item.item
    if isinstance(call, cst.Call) and (dotted(call.func) or "").rsplit(".", 1)[-1] == "suppress":
        names: Set[str] = set()
        for arg in call.args:
            name = dotted(arg.value) if isinstance(arg.value, (cst.Name, cst.Attribute)) else None
            short = name.rsplit(".", 1)[-1] if name else None
            if short is None or short not in _BUILTIN_EXCEPTIONS:
                return ANY
            names.add(short)
        return frozenset(names)
    return frozenset()


def _params(params: cst.Parameters) -> List[cst.Param]:
    found = list(params.posonly_params) + list(params.params) + list(params.kwonly_params)
    return [p for p in found if p.default is not None]


def _class_names(node: cst.ClassDef) -> Set[str]:
    """Names the class body binds directly (its methods do not see them)."""
    names: Set[str] = set()
    _statement_names(getattr(node.body, "body", ()), names)
    return names


class GuardedWalk:
    """Visits every node of a file that runs, with its State (where it runs, whether
    unconditionally, what the enclosing try statements catch, which scopes hide the imports):
    a subclass decides what raises in ``_import``, ``_call`` and ``_chain`` (a dotted name).
    Code for other releases only (under a version or TYPE_CHECKING test) is not visited; the
    names such branches mention are counted for ``version_only``."""

    def __init__(self, ctx: FileContext) -> None:
        self.ctx = ctx
        self._exit_memo: Dict[int, bool] = {}
        #: name -> how often version-dependent branches mention it
        self._versioned: Dict[str, int] = {}
        self._scope_names: Dict[int, FrozenSet[str]] = {}
        self._handlers = self._table()

    def walk(self) -> None:
        start = State("module", "", False, frozenset(), ())
        stack: List[Tuple[cst.CSTNode, State]] = []
        self._push_block(stack, self.ctx.module.body, start)
        handlers = self._handlers
        generic = self._generic
        while stack:
            node, state = stack.pop()
            handlers.get(type(node), generic)(node, state, stack)

    def version_only(self, where: str) -> bool:
        """Whether a definition running this is named only in version-dependent branches
        (``if ms.__version__ < "2.0": norm = norm_old``, or after ``if version: return new``):
        it is for other releases."""
        for name in where.split("."):
            if name not in self._versioned:
                continue
            everywhere = len(re.findall(r"\b" + re.escape(name) + r"\b", self.ctx.source))
            if everywhere <= self._versioned[name] + 1:  # its own def, and the version branches
                return True
        return False

    # -- what a subclass checks ------------------------------------------------------------
    def _import(self, node: Union[cst.Import, cst.ImportFrom], st: State) -> None:
        return None

    def _call(self, node: cst.Call, st: State, stack: List[Tuple[cst.CSTNode, State]]) -> None:
        self._push(stack, [node.func] + [a.value for a in node.args], st)

    def _chain(self, node: cst.BaseExpression, name: str, st: State) -> None:
        return None

    # -- traversal -------------------------------------------------------------------------
    def _push_block(self, stack: List[Tuple[cst.CSTNode, State]], body: Sequence[cst.CSTNode], state: State) -> None:
        items: List[Tuple[cst.CSTNode, State]] = []
        memo = self._exit_memo
        after_version_exit = False
        for stmt in body:
            items.append((stmt, state))
            if after_version_exit:
                self._version_branch(stmt)  # the else branch of ``if version: return ...``
            elif type(stmt) is cst.If and _mentions_version(stmt.test) and _exits(stmt, memo):
                after_version_exit = True
            if not state.conditional and _exits(stmt, memo):
                state = state._replace(conditional=True)
        stack.extend(reversed(items))

    @staticmethod
    def _push(stack: List[Tuple[cst.CSTNode, State]], nodes: Iterable[Optional[cst.CSTNode]], state: State) -> None:
        for n in reversed(list(nodes)):
            if n is not None:
                stack.append((n, state))

    def _suite(self, stack: List[Tuple[cst.CSTNode, State]], suite: Optional[cst.CSTNode], state: State) -> None:
        if suite is None:
            return
        kind = type(suite)
        if kind is cst.Else or kind is cst.Finally:
            suite = suite.body  # type: ignore[attr-defined]
            kind = type(suite)
        if kind is cst.IndentedBlock or kind is cst.SimpleStatementSuite:
            self._push_block(stack, suite.body, state)  # type: ignore[union-attr]

    def _table(self) -> Dict[type, Any]:
        def nothing(node: Any, st: State, stack: Any) -> None:
            return None

        def statements(node: Any, st: State, stack: Any) -> None:
            self._push_block(stack, node.body, st)

        def imports(node: Any, st: State, stack: Any) -> None:
            self._import(node, st)

        def value(node: Any, st: State, stack: Any) -> None:
            self._push(stack, [node.value], st)

        table: Dict[type, Any] = {
            cst.SimpleStatementLine: statements, cst.SimpleStatementSuite: statements,
            cst.Import: imports, cst.ImportFrom: imports,
            cst.Assign: value, cst.AnnAssign: value, cst.AugAssign: value,
            cst.Del: nothing, cst.Global: nothing, cst.Nonlocal: nothing, cst.Pass: nothing, cst.Break: nothing,
            cst.Continue: nothing, cst.Annotation: nothing,
            cst.If: self._if, cst.For: self._for, cst.While: self._while, cst.Try: self._try,
            cst.TryStar: self._try, cst.With: self._with, cst.Match: self._match,
            cst.FunctionDef: self._function, cst.ClassDef: self._class, cst.Lambda: self._lambda,
            cst.BooleanOperation: self._boolean, cst.IfExp: self._ifexp,
            cst.ListComp: self._comprehension, cst.SetComp: self._comprehension,
            cst.GeneratorExp: self._comprehension, cst.DictComp: self._comprehension,
            cst.Call: self._call, cst.Attribute: self._name, cst.Name: self._name,
            cst.CompFor: self._compfor,
        }
        return table

    def _generic(self, node: cst.CSTNode, st: State, stack: List[Tuple[cst.CSTNode, State]]) -> None:
        for child in reversed_children(node):
            stack.append((child, st))

    def _version_branch(self, node: cst.CSTNode) -> None:
        """Count the names a version-dependent branch mentions (``run`` drops findings in
        definitions that only such branches use)."""
        for each in descendants(node):
            if type(each) is cst.Name:
                value = each.value
                self._versioned[value] = self._versioned.get(value, 0) + 1

    def _if(self, node: cst.If, st: State, stack: List[Tuple[cst.CSTNode, State]]) -> None:
        if _mentions_version(node.test):
            self._version_branch(node)
            return  # code for some releases only: a version or TYPE_CHECKING test
        cond = st._replace(conditional=True)
        orelse = node.orelse
        if isinstance(orelse, cst.If):
            stack.append((orelse, cond))
        else:
            self._suite(stack, orelse, cond)
        self._suite(stack, node.body, cond)
        stack.append((node.test, st))

    def _for(self, node: Union[cst.For], st: State, stack: List[Tuple[cst.CSTNode, State]]) -> None:
        cond = st._replace(conditional=True)
        self._suite(stack, node.orelse, cond)
        self._suite(stack, node.body, cond)
        stack.append((node.iter, st))

    def _while(self, node: cst.While, st: State, stack: List[Tuple[cst.CSTNode, State]]) -> None:
        if _mentions_version(node.test):
            self._version_branch(node)
            return
        cond = st._replace(conditional=True)
        self._suite(stack, node.orelse, cond)
        self._suite(stack, node.body, cond)
        stack.append((node.test, st))

    def _try(self, node: Union[cst.Try, cst.TryStar], st: State, stack: List[Tuple[cst.CSTNode, State]]) -> None:
        cond = st._replace(conditional=True)
        caught: FrozenSet[str] = st.caught
        handlers: Sequence[Union[cst.ExceptHandler, cst.ExceptStarHandler]] = node.handlers
        for handler in handlers:
            caught = caught | _handler_types(handler)
        self._suite(stack, node.finalbody, cond)
        self._suite(stack, node.orelse, cond)
        for each in reversed(handlers):
            # ``except ImportError:`` (or AttributeError, Exception) holds the fallback for releases
            # where the body failed: it runs only there, so nothing in it is decided
            types = _handler_types(each)
            fallback = "*" in types or bool(types & _FALLBACK)
            self._suite(stack, each.body, cond._replace(caught=ANY) if fallback else cond)
            if each.type is not None:
                stack.append((each.type, cond))
        self._suite(stack, node.body, cond._replace(caught=caught))

    def _with(self, node: cst.With, st: State, stack: List[Tuple[cst.CSTNode, State]]) -> None:
        caught = st.caught
        for item in node.items:
            caught = caught | _suppressed(item)
        self._suite(stack, node.body, st._replace(caught=caught))
        self._push(stack, [item.item for item in node.items], st)

    def _match(self, node: cst.Match, st: State, stack: List[Tuple[cst.CSTNode, State]]) -> None:
        cond = st._replace(conditional=True)
        for case in reversed(node.cases):
            self._suite(stack, case.body, cond)
        stack.append((node.subject, st))

    def _boolean(self, node: cst.BooleanOperation, st: State, stack: List[Tuple[cst.CSTNode, State]]) -> None:
        stack.append((node.right, st._replace(conditional=True)))
        stack.append((node.left, st))

    def _ifexp(self, node: cst.IfExp, st: State, stack: List[Tuple[cst.CSTNode, State]]) -> None:
        if _mentions_version(node.test):
            self._version_branch(node)
            return
        self._push(stack, [node.body, node.orelse], st._replace(conditional=True))
        stack.append((node.test, st))

    def _comprehension(self, node: Union[cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp], st: State,
                       stack: List[Tuple[cst.CSTNode, State]]) -> None:
        comp = node.for_in
        inner = State(st.where, st.prefix, True, st.caught, st.scopes + (node,))
        rest: List[Optional[cst.CSTNode]] = list(comp.ifs)
        rest.append(comp.inner_for_in)
        if isinstance(node, cst.DictComp):
            rest.extend([node.key, node.value])
        else:
            rest.append(node.elt)
        self._push(stack, rest, inner)
        stack.append((comp.iter, st))

    def _compfor(self, node: cst.CompFor, st: State, stack: List[Tuple[cst.CSTNode, State]]) -> None:
        self._push(stack, [node.iter, *node.ifs, node.inner_for_in], st)  # not the target: it is bound

    def _name(self, node: Union[cst.Attribute, cst.Name], st: State, stack: List[Tuple[cst.CSTNode, State]]) -> None:
        if type(node) is cst.Name:
            return  # a bare name: what an import binds is checked at the import
        name = _dotted(node)
        if name is None:  # (f(x)).attr: the value is evaluated
            stack.append((cast(cst.Attribute, node).value, st))
            return
        self._chain(node, name, st)

    def _function(self, node: cst.FunctionDef, st: State, stack: List[Tuple[cst.CSTNode, State]]) -> None:
        qualname = st.prefix + node.name.value
        scopes = tuple(s for s in st.scopes if not isinstance(s, cst.ClassDef)) + (node,)
        self._suite(stack, node.body, State(qualname, qualname + ".<locals>.", False, frozenset(), scopes))
        # decorators and default values run where the definition runs
        runs: List[Optional[cst.CSTNode]] = [d.decorator for d in node.decorators]
        runs.extend(p.default for p in _params(node.params))
        self._push(stack, runs, st)

    def _class(self, node: cst.ClassDef, st: State, stack: List[Tuple[cst.CSTNode, State]]) -> None:
        qualname = st.prefix + node.name.value
        self._suite(stack, node.body, st._replace(prefix=qualname + ".", scopes=st.scopes + (node,)))
        self._push(stack, [d.decorator for d in node.decorators] + [a.value for a in node.bases]
                   + [k.value for k in node.keywords], st)

    def _lambda(self, node: cst.Lambda, st: State, stack: List[Tuple[cst.CSTNode, State]]) -> None:
        qualname = st.prefix + "<lambda>"
        scopes = tuple(s for s in st.scopes if not isinstance(s, cst.ClassDef)) + (node,)
        stack.append((node.body, State(qualname, qualname + ".<locals>.", False, frozenset(), scopes)))
        self._push(stack, [p.default for p in _params(node.params)], st)

    def _local(self, head: str, st: State) -> bool:
        """Whether an enclosing scope binds ``head`` itself (a parameter or local variable
        named like an import)."""
        for scope in st.scopes:
            names = self._scope_names.get(id(scope))
            if names is None:
                names = self._scope_names[id(scope)] = frozenset(
                    _class_names(scope) if isinstance(scope, cst.ClassDef) else _bound_names(scope))
            if head in names:
                return True
        return False
