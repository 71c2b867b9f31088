"""Code that raises on every supported MindSpore release, where it is written.

``raising_calls(ctx)`` lists, once per file (a memoised question):

- a MindSpore name that does not exist (``nn.Module``, ``ms.ms_function``): an attribute of a
  resolved ``mindspore`` module the release lacks, in any expression that runs - calls,
  base classes, decorators, default values (annotations are not read: they need not run);
- an import of a MindSpore module or name that does not exist
  (``import mindspore.dataset.vision.c_transforms``, ``from mindspore.nn import Module``);
- a keyword a MindSpore callable does not accept (``nn.Conv1d(..., bias=False)``) and one
  positional argument too many (``nn.LeakyReLU(0.2, True)``): only where the probe saw the
  release raise TypeError for an unknown keyword / an extra positional of that very callable;
- an argument combination the constructor rejects (rules/api_surface/rejected.toml:
  ``nn.Conv2d(..., padding=3)`` with the default ``pad_mode='same'``), on the releases where
  the probe saw it raise;
- an import of a module of the project itself that is not there: the top-level package is a
  folder of the project (``ctx.project``) and the submodule's file is missing (never a
  third-party package).

A MindSpore finding is made for the releases considered (msacclint.analysis.api_surface.
considered: the configured ``mindspore-version`` alone, else every supported release) and
only when every one of them raises. Nothing is reported where the code guards against it:
inside a ``try`` whose handlers catch the exception (or one not known to be narrower), under
``if``/``while`` tests that read a version or ``TYPE_CHECKING``, for a name the file asks
``hasattr``/``getattr``/``setattr`` about, for a name the file or the project assigns to a
MindSpore module (``nn.Module = nn.Cell``), or through a name bound locally or bound twice.

Each ``Raising`` says where it runs: ``"module"`` when the statement runs on import (a
top-level statement, a class body, a base class, decorator or default value of a top-level
definition), else the ``__qualname__`` of the innermost function whose body runs it
(``"Net.__init__"``, ``"build"``, ``"build.<locals>.inner"``); and whether it is
unconditional there (not under ``if``/``try``/``while``/``for``/``match``, a conditional
expression, the right side of ``and``/``or`` or a comprehension, and not after a statement
that may return, raise or exit).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Any, Dict, FrozenSet, Iterable, List, NamedTuple, Optional, Sequence, Set, Tuple, Union, cast

import libcst as cst

from msacclint.analysis import api_surface as api
from msacclint.analysis.context import FileContext, Question
from msacclint.analysis.imports import dotted, imported_names
from msacclint.analysis.walk import descendants, reversed_children
from msacclint.data import load_toml

#: what raised (the ``kind`` of a Raising)
NAME, IMPORT, KEYWORD, POSITIONAL, COMBINATION, PROJECT_IMPORT = (
    "name", "import", "keyword", "positional", "combination", "project-import")


@dataclass(frozen=True)
class Raising:
    """One piece of code that raises, where it is written."""

    #: the node the finding points at: the name that does not exist, the import alias (or the
    #: module of ``from module import``), the keyword's name, the callee (too many positional
    #: arguments; a rejected combination passed by position), the keyword of the first
    #: argument of a rejected combination
    node: cst.CSTNode
    #: NAME, IMPORT, KEYWORD, POSITIONAL, COMBINATION or PROJECT_IMPORT
    kind: str
    #: what raises, as a message says it ("nn.Module does not exist in MindSpore")
    what: str
    #: the exception Python raises there
    exception: str
    #: the releases it raises on, of those considered; None: on any (a missing project module)
    versions: Optional[Tuple[str, ...]]
    #: the release text of a message ("every supported release (2.7–2.10)", "MindSpore 2.10.0
    #: (present in 2.7)")
    releases: str
    #: what to write instead (``nn.Cell``, ``has_bias=``), or None
    spelling: Optional[str]
    #: "module", or the __qualname__ of the innermost function whose body runs it
    where: str
    #: runs whenever that body runs (no branch, loop, try or early return before it)
    unconditional: bool

    @property
    def message(self) -> str:
        text = f"{self.what}: {self.exception}"
        if self.versions is not None:
            text += f" on {self.releases}"
        if self.spelling:
            text += f"; {self.spelling}"
        return text


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
_ANY = frozenset({"*"})


def catches(caught: FrozenSet[str], exception: str) -> bool:
    if "*" in caught:
        return True
    return exception in caught or any(base in caught for base in _TYPES.get(exception, ("Exception", "BaseException")))


class _State(NamedTuple):
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
        found = any(_exits(stmt, memo) for block in _blocks(node) for stmt in block)
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
            for inner in _blocks(stmt):
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


#: ``hasattr(nn, "Linear")``, ``getattr(ms, name, None)``: (function, subject, name as written)
_ASKS = re.compile(r"\b(hasattr|getattr|setattr|delattr)\s*\(\s*([A-Za-z_][\w.]*)\s*,\s*([^,)]+)")
#: ``nn.Module = nn.Cell`` at the start of a line: the dotted target
_ASSIGNED = re.compile(r"(?m)^[ \t]*([A-Za-z_][\w.]*\.[A-Za-z_]\w*)[ \t]*=[^=]")


class _Module:
    """What the whole file says once: how each module-level name is bound, which names it
    guards with hasattr/getattr/setattr, which MindSpore attributes it assigns."""

    def __init__(self, ctx: FileContext) -> None:
        self.bindings: Dict[str, Set[str]] = {}
        self._top(ctx.module.body)
        self.guarded: Set[str] = set()
        # read from the text: a walk of the whole tree for these costs more than the rest
        for _, subject, name in _ASKS.findall(ctx.source):
            name = name.strip()
            if name[:1] in "'\"" and name[-1:] == name[:1]:
                self.guarded.add(name[1:-1])
            elif (ctx.imports.bindings.get(subject.split(".")[0]) or "").startswith("mindspore"):
                self.guarded.add("*")  # getattr(nn, name): any MindSpore name of the file may be meant
        self.assigned: Set[str] = set(_ASSIGNED.findall(ctx.source))

    def _top(self, body: Sequence[cst.CSTNode]) -> None:
        for stmt in body:
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    self._small(small)
            elif isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
                self._bind(stmt.name.value, "")
            elif isinstance(stmt, (cst.If, cst.Try, cst.TryStar, cst.With, cst.For, cst.While)):
                for name in _compound_targets(stmt):
                    self._bind(name, "")
                for block in _blocks(stmt):
                    self._top(block)

    def _small(self, small: cst.BaseSmallStatement) -> None:
        if isinstance(small, cst.Import):
            for alias in small.names:
                full = dotted(alias.name)
                if full is None:
                    continue
                if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                    self._bind(alias.asname.name.value, full)
                else:
                    self._bind(full.split(".")[0], full.split(".")[0])
        elif isinstance(small, cst.ImportFrom):
            if isinstance(small.names, cst.ImportStar):
                return
            module = dotted(small.module) if small.module is not None and not small.relative else None
            for bound, name in imported_names(small):
                self._bind(bound, f"{module}.{name}" if module else "")
        elif isinstance(small, (cst.Assign, cst.AnnAssign, cst.AugAssign)):
            targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else [small.target]
            for target in targets:
                if isinstance(target, (cst.Name, cst.Tuple, cst.List, cst.StarredElement)):
                    for node in descendants(target):
                        if isinstance(node, cst.Name):
                            self._bind(node.value, "=")

    def _bind(self, name: str, target: str) -> None:
        self.bindings.setdefault(name, set()).add(target)

    def import_target(self, head: str) -> Optional[str]:
        """What an imported module-level name stands for, when one import binds it and
        nothing else does (an alias ``nn = ms.nn`` counts as the import it copies)."""
        targets = self.bindings.get(head)
        if not targets or len(targets) != 1:
            return None
        (target,) = targets
        return target or None


def _blocks(stmt: cst.CSTNode) -> List[Sequence[cst.CSTNode]]:
    out: List[Sequence[cst.CSTNode]] = []
    for attr in ("body", "orelse", "finalbody"):
        part = getattr(stmt, attr, None)
        if part is None:
            continue
        if isinstance(part, cst.If):
            out.extend(_blocks(part))
            continue
        if isinstance(part, (cst.Else, cst.Finally)):
            part = part.body
        if isinstance(part, cst.IndentedBlock):
            out.append(part.body)
    for handler in getattr(stmt, "handlers", ()):
        if isinstance(handler.body, cst.IndentedBlock):
            out.append(handler.body.body)
    return out


def _compound_targets(stmt: cst.CSTNode) -> Set[str]:
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
        return _ANY
    items = handler.type.elements if isinstance(handler.type, cst.Tuple) else [handler.type]
    names: Set[str] = set()
    for item in items:
        value = item.value if isinstance(item, cst.Element) else item
        name = dotted(value) if isinstance(value, (cst.Name, cst.Attribute)) else None
        short = name.rsplit(".", 1)[-1] if name else None
        if short is None or short not in _BUILTIN_EXCEPTIONS:
            return _ANY  # a class msacclint cannot place: it may catch anything
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
                return _ANY
            names.add(short)
        return frozenset(names)
    return frozenset()


# -- literal values of arguments -----------------------------------------------------------
_NO_VALUE = object()


def literal(node: cst.BaseExpression) -> Any:
    """The value of a literal argument (numbers, strings, True/False/None, tuples and lists
    of them, a leading minus), else _NO_VALUE."""
    if isinstance(node, cst.Integer):
        return int(node.evaluated_value)
    if isinstance(node, cst.Float):
        return float(node.evaluated_value)
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
        value = node.evaluated_value
        return value if isinstance(value, str) else _NO_VALUE
    if isinstance(node, cst.Name) and node.value in ("True", "False", "None"):
        return {"True": True, "False": False, "None": None}[node.value]
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        inner = literal(node.expression)
        if isinstance(inner, (int, float)) and not isinstance(inner, bool):
            return -inner
        return _NO_VALUE
    if isinstance(node, (cst.Tuple, cst.List)):
        values = []
        for element in node.elements:
            if not isinstance(element, cst.Element):
                return _NO_VALUE
            value = literal(element.value)
            if value is _NO_VALUE:
                return _NO_VALUE
            values.append(value)
        return tuple(values)
    return _NO_VALUE


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _interval(text: str) -> Tuple[float, float, bool, bool]:
    """"(0, 1]" -> (0, 1, low open, high closed)."""
    text = text.strip()
    low, high = text[1:-1].split(",")
    return float(low), float(high), text[0] == "(", text[-1] == ")"


def holds(condition: Dict[str, Any], value: Any) -> bool:
    """Whether one condition of rules/api_surface/rejected.toml holds for a literal value."""
    if value is _NO_VALUE:
        return False
    if condition.get("nonzero"):
        if _number(value):
            return value != 0 and isinstance(value, int)
        if condition.get("tuples") and isinstance(value, tuple):
            return any(_number(v) and v != 0 for v in value) and all(_number(v) for v in value)
        return False
    if "values" in condition:
        return value in condition["values"]
    if "not_values" in condition:
        return isinstance(value, str) and value.lower() not in [v.lower() for v in condition["not_values"]]
    if "outside" in condition:
        if not _number(value):
            return False
        low, high, low_open, high_open = _interval(condition["outside"])
        inside = (value > low if low_open else value >= low) and (value < high if high_open else value <= high)
        return not inside
    if condition.get("not_float"):
        return isinstance(value, int)  # bool included: the API's float check rejects it too
    if condition.get("sequence"):
        return isinstance(value, tuple)
    if "length_not" in condition:
        return isinstance(value, tuple) and len(value) != condition["length_not"]
    return False


def combinations() -> List[Dict[str, Any]]:
    try:
        return list(load_toml(api.REJECTED_FILE).get("combination", ()))
    except OSError:
        return []


# -- the walk -------------------------------------------------------------------------------
class _Finder:
    def __init__(self, ctx: FileContext) -> None:
        self.ctx = ctx
        self.surface = api.surface()
        self.releases: Tuple[str, ...] = api.considered(self.surface, ctx.mindspore_version) \
            if self.surface is not None else ()
        self.file = _Module(ctx)
        self.found: List[Raising] = []
        self._combinations: Dict[str, List[Dict[str, Any]]] = {}
        for combination in combinations():
            for name in combination.get("apis", ()):
                self._combinations.setdefault(name, []).append(combination)
        self._listings: Dict[str, Optional[FrozenSet[str]]] = {}
        self.listing_used = False
        self._exit_memo: Dict[int, bool] = {}
        #: name -> how often version-dependent branches mention it
        self._versioned: Dict[str, int] = {}
        self._scope_names: Dict[int, FrozenSet[str]] = {}
        self._handlers = self._table()

    # -- traversal ---------------------------------------------------------------------
    def run(self) -> List[Raising]:
        start = _State("module", "", False, frozenset(), ())
        stack: List[Tuple[cst.CSTNode, _State]] = []
        self._push_block(stack, self.ctx.module.body, start)
        handlers = self._handlers
        generic = self._generic
        while stack:
            node, state = stack.pop()
            handlers.get(type(node), generic)(node, state, stack)
        if self._versioned:
            self.found = [f for f in self.found if not self._version_only(f.where)]
        return self.found

    def _version_only(self, where: str) -> bool:
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

    def _push_block(self, stack: List[Tuple[cst.CSTNode, _State]], body: Sequence[cst.CSTNode], state: _State) -> None:
        items: List[Tuple[cst.CSTNode, _State]] = []
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
    def _push(stack: List[Tuple[cst.CSTNode, _State]], nodes: Iterable[Optional[cst.CSTNode]], state: _State) -> None:
        for n in reversed(list(nodes)):
            if n is not None:
                stack.append((n, state))

    def _suite(self, stack: List[Tuple[cst.CSTNode, _State]], suite: Optional[cst.CSTNode], state: _State) -> None:
        if suite is None:
            return
        kind = type(suite)
        if kind is cst.Else or kind is cst.Finally:
            suite = suite.body  # type: ignore[attr-defined]
            kind = type(suite)
        if kind is cst.IndentedBlock or kind is cst.SimpleStatementSuite:
            self._push_block(stack, suite.body, state)  # type: ignore[union-attr]

    def _table(self) -> Dict[type, Any]:
        def nothing(node: Any, st: _State, stack: Any) -> None:
            return None

        def statements(node: Any, st: _State, stack: Any) -> None:
            self._push_block(stack, node.body, st)

        def imports(node: Any, st: _State, stack: Any) -> None:
            self._import(node, st)

        def value(node: Any, st: _State, stack: Any) -> None:
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

    def _generic(self, node: cst.CSTNode, st: _State, stack: List[Tuple[cst.CSTNode, _State]]) -> None:
        for child in reversed_children(node):
            stack.append((child, st))

    def _version_branch(self, node: cst.CSTNode) -> None:
        """Count the names a version-dependent branch mentions (``run`` drops findings in
        definitions that only such branches use)."""
        for each in descendants(node):
            if type(each) is cst.Name:
                value = each.value
                self._versioned[value] = self._versioned.get(value, 0) + 1

    def _if(self, node: cst.If, st: _State, stack: List[Tuple[cst.CSTNode, _State]]) -> None:
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

    def _for(self, node: Union[cst.For], st: _State, stack: List[Tuple[cst.CSTNode, _State]]) -> None:
        cond = st._replace(conditional=True)
        self._suite(stack, node.orelse, cond)
        self._suite(stack, node.body, cond)
        stack.append((node.iter, st))

    def _while(self, node: cst.While, st: _State, stack: List[Tuple[cst.CSTNode, _State]]) -> None:
        if _mentions_version(node.test):
            self._version_branch(node)
            return
        cond = st._replace(conditional=True)
        self._suite(stack, node.orelse, cond)
        self._suite(stack, node.body, cond)
        stack.append((node.test, st))

    def _try(self, node: Union[cst.Try, cst.TryStar], st: _State, stack: List[Tuple[cst.CSTNode, _State]]) -> None:
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
            self._suite(stack, each.body, cond._replace(caught=_ANY) if fallback else cond)
            if each.type is not None:
                stack.append((each.type, cond))
        self._suite(stack, node.body, cond._replace(caught=caught))

    def _with(self, node: cst.With, st: _State, stack: List[Tuple[cst.CSTNode, _State]]) -> None:
        caught = st.caught
        for item in node.items:
            caught = caught | _suppressed(item)
        self._suite(stack, node.body, st._replace(caught=caught))
        self._push(stack, [item.item for item in node.items], st)

    def _match(self, node: cst.Match, st: _State, stack: List[Tuple[cst.CSTNode, _State]]) -> None:
        cond = st._replace(conditional=True)
        for case in reversed(node.cases):
            self._suite(stack, case.body, cond)
        stack.append((node.subject, st))

    def _boolean(self, node: cst.BooleanOperation, st: _State, stack: List[Tuple[cst.CSTNode, _State]]) -> None:
        stack.append((node.right, st._replace(conditional=True)))
        stack.append((node.left, st))

    def _ifexp(self, node: cst.IfExp, st: _State, stack: List[Tuple[cst.CSTNode, _State]]) -> None:
        if _mentions_version(node.test):
            self._version_branch(node)
            return
        self._push(stack, [node.body, node.orelse], st._replace(conditional=True))
        stack.append((node.test, st))

    def _comprehension(self, node: Union[cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp], st: _State,
                       stack: List[Tuple[cst.CSTNode, _State]]) -> None:
        comp = node.for_in
        inner = _State(st.where, st.prefix, True, st.caught, st.scopes + (node,))
        rest: List[Optional[cst.CSTNode]] = list(comp.ifs)
        rest.append(comp.inner_for_in)
        if isinstance(node, cst.DictComp):
            rest.extend([node.key, node.value])
        else:
            rest.append(node.elt)
        self._push(stack, rest, inner)
        stack.append((comp.iter, st))

    def _compfor(self, node: cst.CompFor, st: _State, stack: List[Tuple[cst.CSTNode, _State]]) -> None:
        self._push(stack, [node.iter, *node.ifs, node.inner_for_in], st)  # not the target: it is bound

    def _name(self, node: Union[cst.Attribute, cst.Name], st: _State, stack: List[Tuple[cst.CSTNode, _State]]) -> None:
        if type(node) is cst.Name:
            return  # a bare name: what an import binds is checked at the import
        name = _dotted(node)
        if name is None:  # (f(x)).attr: the value is evaluated
            stack.append((cast(cst.Attribute, node).value, st))
            return
        self._chain(node, name, st)

    def _function(self, node: cst.FunctionDef, st: _State, stack: List[Tuple[cst.CSTNode, _State]]) -> None:
        qualname = st.prefix + node.name.value
        scopes = tuple(s for s in st.scopes if not isinstance(s, cst.ClassDef)) + (node,)
        self._suite(stack, node.body, _State(qualname, qualname + ".<locals>.", False, frozenset(), scopes))
        # decorators and default values run where the definition runs
        runs: List[Optional[cst.CSTNode]] = [d.decorator for d in node.decorators]
        runs.extend(p.default for p in _params(node.params))
        self._push(stack, runs, st)

    def _class(self, node: cst.ClassDef, st: _State, stack: List[Tuple[cst.CSTNode, _State]]) -> None:
        qualname = st.prefix + node.name.value
        self._suite(stack, node.body, st._replace(prefix=qualname + ".", scopes=st.scopes + (node,)))
        self._push(stack, [d.decorator for d in node.decorators] + [a.value for a in node.bases]
                   + [k.value for k in node.keywords], st)

    def _lambda(self, node: cst.Lambda, st: _State, stack: List[Tuple[cst.CSTNode, _State]]) -> None:
        qualname = st.prefix + "<lambda>"
        scopes = tuple(s for s in st.scopes if not isinstance(s, cst.ClassDef)) + (node,)
        stack.append((node.body, _State(qualname, qualname + ".<locals>.", False, frozenset(), scopes)))
        self._push(stack, [p.default for p in _params(node.params)], st)

    def _local(self, head: str, st: _State) -> bool:
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

    # -- reporting -----------------------------------------------------------------------
    def _add(self, node: cst.CSTNode, st: _State, kind: str, what: str, exception: str,
             versions: Optional[Tuple[str, ...]], spelling: Optional[str], releases: str = "") -> None:
        if catches(st.caught, exception):
            return
        self.found.append(Raising(node, kind, what, exception, versions, releases, spelling, st.where,
                                  not st.conditional))

    def _releases(self, failing: Sequence[str], present: Sequence[str] = ()) -> str:
        assert self.surface is not None
        if len(self.releases) == 1:
            text = f"MindSpore {self.releases[0]}"
            others = [v for v in self.surface.versions if v not in failing and v in present]
            return text + (f" (present in {api.describe_releases(self.surface, others)})" if others else "")
        return api.releases_text(self.surface, failing, self.releases)

    # -- names ---------------------------------------------------------------------------
    def _raw(self, node: cst.BaseExpression, name: str, st: _State) -> Optional[Tuple[str, int]]:
        """The MindSpore name a chain stands for, as written (not folded to the public
        spelling), and how many of its parts the import binds; None when it is not
        MindSpore's or cannot be trusted (a local name, a name bound twice, a replaced name)."""
        head, _, rest = name.partition(".")
        target = self.file.import_target(head)
        if target is None:
            return None
        if target == "=":
            # a module-level alias: the import table resolved it (``nn = ms.nn``)
            bound = self.ctx.imports.bindings.get(head)
            if bound is None or bound.startswith(self.ctx.imports.LOCAL):
                return None
            target = bound
        if not (target == "mindspore" or target.startswith("mindspore.")):
            return None
        if self._local(head, st):
            return None
        if self.ctx.imports.resolve(node) is None:
            return None  # the project replaces this name (msacclint.project: patched)
        full = f"{target}.{rest}" if rest else target
        return full, target.count(".") + 1

    def _chain(self, node: cst.BaseExpression, name: str, st: _State) -> None:
        if self.surface is None or not self.releases or "." not in name:
            return
        raw = self._raw(node, name, st)
        if raw is None:
            return
        full, bound_depth = raw
        found = api.presence(self.surface, full, self.releases)
        if not found.nowhere or found.missing is None:
            return
        missing = found.missing
        if missing.count(".") + 1 <= bound_depth:
            return  # the import itself is missing: reported at the import
        short = missing.rsplit(".", 1)[1]
        if short in self.file.guarded or "*" in self.file.guarded or self._assigned(missing):
            return
        written = _written(name, full, missing)
        everywhere = api.presence(self.surface, full, self.surface.versions)
        spelling = api.suggest_name(self.surface, missing, self.releases)
        self._add(node, st, NAME, f"{written} does not exist in MindSpore", "AttributeError", tuple(found.absent),
                  self._spell(written, missing, spelling), self._releases(found.absent, everywhere.present))

    def _assigned(self, missing: str) -> bool:
        """The file assigns this MindSpore name itself (``nn.Module = nn.Cell``)."""
        for target in self.file.assigned:
            head, _, rest = target.partition(".")
            bound = self.file.import_target(head)
            if bound == "=":
                bound = self.ctx.imports.bindings.get(head)
            if bound and f"{bound}.{rest}" == missing:
                return True
        return False

    def _spell(self, written: str, full: str, spelling: Optional[str]) -> Optional[str]:
        if spelling is None:
            return None
        return f"MindSpore's name is {_as_written(written, full, spelling)}"

    # -- imports ---------------------------------------------------------------------------
    def _import(self, node: Union[cst.Import, cst.ImportFrom], st: _State) -> None:
        if isinstance(node, cst.Import):
            for alias in node.names:
                module = dotted(alias.name)
                if module is None:
                    continue
                if module == "mindspore" or module.startswith("mindspore."):
                    self._mindspore_module(alias, f"import {module}", module, st)
                else:
                    self._project_module(alias, module, st, f"import {module}")
            return
        if node.relative:
            self._relative(node, st)
            return
        module = dotted(node.module) if node.module is not None else None
        if module is None:
            return
        if module == "mindspore" or module.startswith("mindspore."):
            if not self._mindspore_module(node.module or node, f"from {module} import ...", module, st):
                return
            if isinstance(node.names, cst.ImportStar):
                return
            for alias in node.names:
                name = dotted(alias.name)
                if name is not None:
                    self._mindspore_name(alias, module, name, st)
        else:
            self._project_module(node.module or node, module, st, f"from {module} import ...")

    def _mindspore_module(self, node: cst.CSTNode, statement: str, module: str, st: _State) -> bool:
        """Report a MindSpore module the releases lack; True when it exists (or is unknown)."""
        if self.surface is None or not self.releases:
            return True
        states = [self.surface.module_exists(module, v) for v in self.releases]
        if not states or any(s is not False for s in states):
            return True
        first_missing = module
        parts = module.split(".")
        for cut in range(2, len(parts) + 1):
            prefix = ".".join(parts[:cut])
            if all(self.surface.module_exists(prefix, v) is False for v in self.releases):
                first_missing = prefix
                break
        if first_missing.rsplit(".", 1)[-1] in self.file.guarded:
            return False
        present = [v for v in self.surface.versions if self.surface.module_exists(module, v)]
        spelling = api.suggest_name(self.surface, first_missing, self.releases)
        self._add(node, st, IMPORT, f"`{statement}`: MindSpore has no module {first_missing}", "ModuleNotFoundError",
                  self.releases, f"use {spelling}" if spelling else None, self._releases(self.releases, present))
        return False

    def _mindspore_name(self, alias: cst.ImportAlias, module: str, name: str, st: _State) -> None:
        assert self.surface is not None
        full = f"{module}.{name}"
        found = api.presence(self.surface, full, self.releases)
        if not found.nowhere or found.missing != f"{module}.{name.split('.')[0]}":
            return
        if name in self.file.guarded:
            return
        everywhere = api.presence(self.surface, full, self.surface.versions)
        spelling = api.suggest_name(self.surface, full, self.releases)
        self._add(alias, st, IMPORT, f"`from {module} import {name}`: {module} has no {name}", "ImportError",
                  tuple(found.absent),
                  f"MindSpore's name is {_relative_to(module, spelling)}" if spelling else None,
                  self._releases(found.absent, everywhere.present))

    def _project_module(self, node: cst.CSTNode, module: str, st: _State, statement: str) -> None:
        project = self.ctx.project
        if project is None or not hasattr(project, "find_module"):
            return
        parts = module.split(".")
        if len(parts) < 2:
            return
        importer = os.path.abspath(self.ctx.path)
        top = project.find_module(parts[0], importer)
        if top is None or os.path.basename(top) != "__init__.py":
            return  # not a package of the project (third party, or a plain module)
        folder = os.path.dirname(top)
        # where the package must sit for the import to find it for sure: the project's root or
        # src/, or the folder of a script (not of a package module: that folder is on sys.path
        # only when the file runs as a script). A folder of that name deeper in the tree (a
        # vendored copy, ``third_party/vllm/``, imported as ``pkg.third_party.vllm``) may not be
        # what ``import vllm`` finds: that may be the package installed under the name.
        on_path = {os.path.normpath(project.root), os.path.normpath(os.path.join(project.root, "src"))}
        if os.path.join(os.path.dirname(importer), "__init__.py") not in project.files:
            on_path.add(os.path.dirname(importer))
        if os.path.dirname(folder) not in on_path:
            return
        missing = self._missing_below(folder, parts[1:])
        if missing is None:
            return
        if self._has_elsewhere(project, parts) or self._generated(project, parts[: missing + 2]):
            return
        absent = ".".join(parts[: missing + 2])
        shown = os.path.relpath(os.path.join(folder, *parts[1:missing + 2]), project.root).replace(os.sep, "/")
        self._add(node, st, PROJECT_IMPORT,
                  f"`{statement}`: the project has no module {absent} (no {shown}.py or {shown}/)",
                  "ModuleNotFoundError", None, None)

    def _relative(self, node: cst.ImportFrom, st: _State) -> None:
        project = self.ctx.project
        if project is None or not hasattr(project, "files"):
            return
        folder = os.path.dirname(os.path.abspath(self.ctx.path))
        if os.path.join(folder, "__init__.py") not in project.files:
            return  # a script: its relative import fails for another reason
        for _ in range(len(node.relative) - 1):
            folder = os.path.dirname(folder)
            if os.path.join(folder, "__init__.py") not in project.files:
                return
        module = dotted(node.module) if node.module is not None else None
        if module is None:
            return  # from . import name: a name of __init__.py, or a module
        parts = module.split(".")
        missing = self._missing_below(folder, parts)
        if missing is None:
            return
        if self._generated(project, parts[: missing + 1]):
            return
        dots = "." * len(node.relative)
        shown = os.path.relpath(os.path.join(folder, *parts[: missing + 1]), project.root).replace(os.sep, "/")
        self._add(node.module or node, st, PROJECT_IMPORT,
                  f"`from {dots}{module} import ...`: the package has no module {dots}"
                  f"{'.'.join(parts[: missing + 1])} (no {shown}.py or {shown}/)", "ModuleNotFoundError", None, None)

    def _listing(self, folder: str) -> Optional[FrozenSet[str]]:
        self.listing_used = True
        if folder not in self._listings:
            try:
                self._listings[folder] = frozenset(os.listdir(folder))
            except OSError:
                self._listings[folder] = None
        return self._listings[folder]

    def _missing_below(self, folder: str, parts: Sequence[str]) -> Optional[int]:
        """The index in ``parts`` of the first module missing under the package ``folder``
        (a file ``name.py``/``name.*.so``/``name.pyx``... or a folder ``name``), or None."""
        for i, part in enumerate(parts):
            names = self._listing(folder)
            if names is None:
                return None
            if part in names:
                folder = os.path.join(folder, part)
                if not os.path.isdir(folder):
                    return None
                continue
            if any(n.startswith(part + ".") for n in names):
                return None  # a module file (or an extension module): nothing below is checked
            return i
        return None

    def _has_elsewhere(self, project: Any, parts: Sequence[str]) -> bool:
        """Another folder of the project named like the package has the module (a script that
        puts another folder on sys.path)."""
        tail = os.sep + os.path.join(*parts)
        for path in project.files:
            stem = path[:-3] if path.endswith(".py") else path
            if stem.endswith(tail) or stem.endswith(tail + os.sep + "__init__") or (tail + os.sep) in path:
                return True
        return False

    def _generated(self, project: Any, parts: Sequence[str]) -> bool:
        """The module's name appears in the files that generate modules at build time
        (.gitignore, setup.py, setup.cfg, pyproject.toml: setuptools_scm's write_to, protobuf)."""
        name = parts[-1]
        if name.endswith(("_pb2", "_pb2_grpc")):
            return True
        for config in (".gitignore", "setup.py", "setup.cfg", "pyproject.toml", "Makefile"):
            try:
                with open(os.path.join(project.root, config), encoding="utf-8", errors="replace") as handle:
                    if name in handle.read():
                        return True
            except OSError:
                continue
        return False

    # -- calls -----------------------------------------------------------------------------
    def _call(self, node: cst.Call, st: _State, stack: List[Tuple[cst.CSTNode, _State]]) -> None:
        self._push(stack, [node.func] + [a.value for a in node.args], st)
        if self.surface is None or not self.releases:
            return
        name = dotted(node.func)
        if name is None:
            return
        raw = self._raw(node.func, name, st)
        if raw is None:
            return
        full = raw[0]
        entries: List[api.Entry] = []
        for version in self.releases:
            found = self.surface.find(full, version)
            if found.state != api.PRESENT or found.entry is None or not found.entry.callable:
                return
            entries.append(found.entry)
        if self._binding(node, st, name, full, entries):
            return
        self._combination(node, st, name, full, entries)

    def _binding(self, node: cst.Call, st: _State, written: str, full: str, entries: List[api.Entry]) -> bool:
        """Report keywords no release accepts and positional arguments beyond the last
        parameter; True when the call raises while binding its arguments."""
        assert self.surface is not None
        raised = False
        short = written
        for arg in node.args:
            if arg.keyword is None or arg.star:
                continue
            keyword = arg.keyword.value
            if not all(e.rejects_unknown_keywords and e.signature is not None and
                       not e.signature.accepts_keyword(keyword) for e in entries):
                continue
            if keyword in self.file.guarded:
                continue
            signature = entries[-1].signature
            assert signature is not None
            suggestion = api.suggest_keyword(keyword, signature, full)
            note = api.keyword_note(keyword, full)
            spelling = f"MindSpore spells it {suggestion}=" if suggestion else note
            accepting = [v for v in self.surface.versions if self._accepts(full, v, keyword)]
            self._add(arg.keyword, st, KEYWORD, f"{short} has no parameter {keyword}=", "TypeError", self.releases,
                      spelling, self._releases(self.releases, accepting))
            raised = True
        if any(arg.star for arg in node.args):
            return raised
        positional = [arg for arg in node.args if arg.keyword is None]
        most = [e.signature.max_positional for e in entries
                if e.rejects_extra_positionals and e.signature is not None]
        if len(most) == len(entries) and all(m is not None and len(positional) > m for m in most):
            limit = max(m for m in most if m is not None)
            signature = entries[-1].signature
            assert signature is not None
            names = ", ".join(signature.positional_names())
            takes = f"{_count(limit)} positional argument{'s' if limit != 1 else ''}" + (f" ({names})" if names else "")
            if limit == 0 and entries[-1].kind == "c" and full.startswith("mindspore.ops."):
                advice = (f"an operator class is built first and then called with its inputs: "
                          f"{short}()(...), or use the function of the same name in lower case")
            else:
                advice = "pass the others by keyword, or drop what MindSpore has no parameter for"
            self._add(node.func, st, POSITIONAL, f"{short} takes {takes}, {len(positional)} given", "TypeError",
                      self.releases, advice, self._releases(self.releases))
            raised = True
        return raised

    def _accepts(self, full: str, version: str, keyword: str) -> bool:
        assert self.surface is not None
        found = self.surface.find(full, version)
        return found.entry is not None and found.entry.signature is not None and \
            found.entry.signature.accepts_keyword(keyword)

    def _combination(self, node: cst.Call, st: _State, written: str, full: str, entries: List[api.Entry]) -> None:
        assert self.surface is not None
        canonical = self.ctx.resolve(node.func)
        wanted = self._combinations.get(full) or (self._combinations.get(canonical) if canonical else None)
        if not wanted:
            return
        api_name = full if full in self._combinations else canonical
        assert api_name is not None
        signatures = [e.signature for e in entries]
        if any(s is None for s in signatures):
            return
        positional = [arg for arg in node.args if arg.keyword is None and not arg.star]
        if any(arg.star for arg in node.args):
            return
        names_by_release = {s.positional_names()[: len(positional)] for s in signatures if s is not None}
        if len(names_by_release) != 1:
            return  # the releases fill different parameters from these positions
        (names,) = names_by_release
        given: Dict[str, cst.Arg] = {names[i]: arg for i, arg in enumerate(positional) if i < len(names)}
        given.update({arg.keyword.value: arg for arg in node.args if arg.keyword is not None})
        for combination in wanted:
            verified = set(self.surface.rejected_on(combination["id"], api_name))
            if not set(self.releases) <= verified:
                continue
            shown: Dict[str, str] = {}
            at: Optional[cst.CSTNode] = None
            for condition in combination.get("when", ()):
                parameter = condition["parameter"]
                arg = given.get(parameter)
                if arg is None:
                    if "default" not in condition:
                        break
                    value: Any = condition["default"]
                    shown[parameter] = repr(value)
                else:
                    value = literal(arg.value)
                    shown[parameter] = _code(arg.value)
                    at = at or arg.keyword
                if not holds(condition, value):
                    break
            else:
                message = combination.get("message", "")
                for parameter, text in shown.items():
                    message = message.replace("{" + parameter + "}", text)
                what, _, advice = message.partition(": ")
                self._add(at or node.func, st, COMBINATION, f"{written} rejects {what}",
                          combination.get("raises", "ValueError"), self.releases, advice or None,
                          self._releases(self.releases))
                return


def _params(params: cst.Parameters) -> List[cst.Param]:
    found = list(params.posonly_params) + list(params.params) + list(params.kwonly_params)
    return [p for p in found if p.default is not None]


def _class_names(node: cst.ClassDef) -> Set[str]:
    """Names the class body binds directly (its methods do not see them)."""
    names: Set[str] = set()
    _statement_names(getattr(node.body, "body", ()), names)
    return names


def _count(n: int) -> str:
    return {0: "no", 1: "one", 2: "two", 3: "three"}.get(n, str(n))


def _code(node: cst.BaseExpression) -> str:
    return cst.Module(body=()).code_for_node(node)


def _written(name: str, full: str, missing: str) -> str:
    """The missing part as the file writes it: ``nn.Module`` for mindspore.nn.Module written
    through ``nn``."""
    extra = full.count(".") - missing.count(".")
    parts = name.split(".")
    return ".".join(parts[: len(parts) - extra]) if extra > 0 else name


def _as_written(written: str, full: str, spelling: str) -> str:
    """A suggested qualified name in the file's own spelling when it is in the same module
    (``nn.Cell``), else in full (``mindspore.mint.nn.functional``)."""
    prefix_full = full.rsplit(".", 1)[0]
    prefix_written = written.rsplit(".", 1)[0] if "." in written else ""
    module, _, name = spelling.rpartition(".")
    if prefix_written and full.count(".") >= 1:
        missing_module = prefix_full
        # the name is looked up where the file wrote it: replace its last part
        if module == missing_module:
            return f"{prefix_written}.{name}"
    return spelling


def _relative_to(module: str, spelling: str) -> str:
    parent, _, name = spelling.rpartition(".")
    return name if parent == module else spelling


class _Answer(NamedTuple):
    found: List[Raising]
    #: an answer read which files the project holds (a module created later changes it)
    listing: bool


def _answer(ctx: FileContext) -> _Answer:
    finder = _Finder(ctx)
    found = finder.run()
    return _Answer(found, finder.listing_used)


RAISING: Question[_Answer] = Question("raising", _answer)


def raising_calls(ctx: FileContext) -> List[Raising]:
    """Every piece of code in the file that raises on the releases considered, in the order
    it is written (a memoised per-file question)."""
    return ctx.ask(RAISING).found


def depends_on_listing(ctx: FileContext) -> bool:
    """Whether ``raising_calls`` looked for modules of the project on disk: the answer then
    changes when a file appears or goes (a cache must record the project's listing)."""
    return ctx.ask(RAISING).listing
