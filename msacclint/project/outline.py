"""A file's outline: its definitions, what each scope names, and whether it is a script.

The reach graph (msacclint.project.reach) links outlines: a scope that runs makes the
definitions it names run. An outline is read with Python's own parser (a small fraction
of a LibCST parse), for any Python file of the project, and cached as JSON by content.

Scopes are keyed by qualified name within the module: ``""`` is the module's own code (what
runs on import), ``"__main__"`` the ``if __name__ == "__main__":`` block (what runs when the
file is run), ``"Net"`` a class body (its bases and class attributes), ``"Net.construct"``
a method, ``"build.inner"`` a nested function. What a scope names:

- ``refs``: names and attribute chains it reads, as written (``models.resnet18``), with
  their lines (not the classes an ``isinstance``/``issubclass`` test names: a test builds
  nothing); the names a nested definition reads are its own; an attribute of something
  that is not a name is ``().attr`` (``Trainer(net).run``), of ``super()`` ``super.attr``;
- ``strings``: identifier-like string literals (``getattr(m, "Net")``, a registry key);
- ``imports``: modules it imports (relative imports resolved), with whether the import is
  guarded (inside ``try``, ``if`` or a function of its own: it may not run, or may fail
  quietly);
- ``dynamic``: the literal prefix of a module name it loads at run time
  (``importlib.import_module("models." + name)`` gives ``"models."``), ``""`` when nothing
  of the name is known (``__import__(name)``); ``EVAL`` for ``eval``/``exec`` of computed
  text, which may name anything the file binds;
- ``computed``: the parts of each module name it loads at run time, literal and computed
  (``f"models.{name}_net"``: the literal ``models.``, the value of ``name``, the literal
  ``_net``), with the values a local name is assigned in the scope where they are literals;
- ``guards``: the lines of the scope that run only when a test of one value holds (``if
  config.net_name == "resnet18":``, ``if use_deconv:``, and their ``else``), for the reach
  graph to drop a hop that no supplied value takes;
- ``work``: the calls that may train, evaluate or export (``model.train``, ``value_and_grad``,
  an optimizer, ``load_checkpoint``), as written: what tells a run that trains from a main
  block that builds a network and prints a shape.

A string compared with a value (``if name == "resnet18":``) is not a name the scope uses
(the branch's own code is); a name imported in several places (``from src.resnet import
resnet18 as resnet`` under one test, ``... resnet50 as resnet`` under another) keeps every
alternative, with its line (``alternatives``).

Decorators and default values are evaluated where the definition is, so they belong to the
enclosing scope; a class's bases belong to the class itself (a base matters when the class
is used, not when it is defined).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

from msacclint.analysis.source import python_ast
from msacclint.project.outline_parts import name_parts, negated, strings_of, tests_of, works
from msacclint.project.summary import ast_dotted as _dotted
from msacclint.project.summary import resolve_relative

#: bump when the shape of an outline changes: cached outlines of another format are ignored
FORMAT = 4
#: the ``dynamic`` entry of ``eval``/``exec`` of computed text
EVAL = "\x01eval"

#: module-level calls that set a module up rather than make it a script
_SET_UP = re.compile(r"^(?:sys\.path\.\w+|warnings\.\w+|logging\.\w+|os\.environ\.\w+|\w*logger\.\w+|"
                     r"\w*[Rr]egist\w*|\w+\.register\w*|set_seed|\w+\.set_seed|\w+\.seed|"
                     r"\w+\.set_context|set_context|\w+\.set_printoptions|matplotlib\.use|plt\.\w+|"
                     r"\w+\.update|\w+\.append|\w+\.extend|\w+\.add\w*|\w+\.setdefault|print|__all__\.\w+)$")
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*$")
#: decorators that neither register a definition nor run it
PLAIN_DECORATORS = frozenset({
    "staticmethod", "classmethod", "property", "abstractmethod", "abc.abstractmethod", "functools.wraps",
    "wraps", "functools.lru_cache", "lru_cache", "functools.cache", "cache", "dataclass", "dataclasses.dataclass",
    "jit", "ms.jit", "mindspore.jit", "ms_function", "mindspore.ms_function", "ms.ms_function", "constexpr",
    "ops.constexpr", "mindspore.ops.constexpr", "primitive_attr", "prim_attr_register", "ms_class", "ms.ms_class",
    "jit_class", "ms.jit_class", "torch.no_grad", "no_grad", "overload", "typing.overload", "unique", "enum.unique",
    "total_ordering", "functools.total_ordering", "cached_property", "functools.cached_property",
    "contextmanager", "contextlib.contextmanager", "pytest.fixture", "fixture",
})


@dataclass
class Scope:
    refs: List[Tuple[str, int]] = field(default_factory=list)
    strings: List[Tuple[str, int]] = field(default_factory=list)
    imports: List[Tuple[str, int, bool]] = field(default_factory=list)
    dynamic: List[Tuple[str, int]] = field(default_factory=list)
    #: (line, parts) of each computed module name: ("lit", text), ("hole", dotted or "") or
    #: ("vals", (literal, ...)) for a local name the scope assigns only literals
    computed: List[Tuple[int, Tuple[Tuple[str, Any], ...]]] = field(default_factory=list)
    #: (first line, last line, subject, op, value): those lines run only when ``subject op value``
    guards: List[Tuple[int, int, str, str, Any]] = field(default_factory=list)
    #: (callee as written, line) of calls that may train, evaluate or export
    work: List[Tuple[str, int]] = field(default_factory=list)

    def guards_at(self, line: int) -> List[Tuple[str, str, Any]]:
        """The tests that must hold for ``line`` of the scope to run."""
        return [(subject, op, value) for first, last, subject, op, value in self.guards if first <= line <= last]


@dataclass
class Definition:
    kind: str            #: "class" or "function"
    line: int            #: the line of ``class``/``def``
    end: int             #: its last line
    decorators: Tuple[str, ...] = ()
    #: the qualified name of the enclosing definition ("" at module level)
    parent: str = ""
    #: a class's bases, as written
    bases: Tuple[str, ...] = ()


@dataclass
class Outline:
    module: str
    is_package: bool = False
    defs: Dict[str, Definition] = field(default_factory=dict)
    scopes: Dict[str, Scope] = field(default_factory=dict)
    #: the file has an ``if __name__ == "__main__":`` block
    main: bool = False
    #: the module's own code does work beyond defining things (a script without a main block):
    #: the line of its first such statement, else 0
    script: int = 0
    #: module-level ``name = callee(...)`` assignments: (callee as written, line); one that
    #: builds a class or calls a function of the project makes the file a script
    top_calls: List[Tuple[str, int]] = field(default_factory=list)
    #: name -> qualified name of everything the file imports, anywhere in it (the last import)
    bindings: Dict[str, str] = field(default_factory=dict)
    #: name -> (qualified name, line, scope) of each import, for a name imported more than once
    #: to different things
    alternatives: Dict[str, List[Tuple[str, int, str]]] = field(default_factory=dict)
    #: the file could not be parsed: nothing is known of it
    broken: Optional[str] = None

    def enclosing(self, line: int) -> str:
        """The innermost definition holding ``line`` ("" for module code, "__main__" for the
        main block)."""
        best = ""
        best_span = None
        for qual, d in self.defs.items():
            if d.line <= line <= d.end:
                span = d.end - d.line
                if best_span is None or span < best_span:
                    best, best_span = qual, span
        if not best and self.main_lines and self.main_lines[0] <= line <= self.main_lines[1]:
            return "__main__"
        return best

    #: (first, last) line of the main block, when there is one
    main_lines: Tuple[int, int] = (0, 0)


def _is_main_test(test: ast.AST) -> bool:
    if not isinstance(test, ast.Compare) or len(test.ops) != 1 or not isinstance(test.ops[0], ast.Eq):
        return False
    sides = [test.left, test.comparators[0]]
    names = [s for s in sides if isinstance(s, ast.Name) and s.id == "__name__"]
    texts = [s for s in sides if isinstance(s, ast.Constant) and s.value == "__main__"]
    return bool(names) and bool(texts)


class _Reader(ast.NodeVisitor):
    def __init__(self, outline: Outline) -> None:
        self.outline = outline
        self.stack: List[str] = [""]
        self.guard = 0   # inside try / if / a function body: an import there may not run
        #: scope -> name -> the literal strings it is assigned (None: something else too)
        self.assigned: Dict[str, Dict[str, Optional[List[str]]]] = {}
        #: name -> (qualified name, line, scope) of every import binding it
        self.imported: Dict[str, List[Tuple[str, int, str]]] = {}

    # -- scopes -------------------------------------------------------------------------------
    def scope(self) -> Scope:
        key = self.stack[-1]
        found = self.outline.scopes.get(key)
        if found is None:
            found = self.outline.scopes[key] = Scope()
        return found

    def _definition(self, node: Any, kind: str) -> str:
        parent = self.stack[-1] if self.stack[-1] not in ("", "__main__") else ""
        qual = f"{parent}.{node.name}" if parent else node.name
        decorators = tuple(d for d in (_dotted(x.func if isinstance(x, ast.Call) else x)
                                       for x in node.decorator_list) if d)
        bases = tuple(b for b in (_dotted(x) for x in getattr(node, "bases", ())) if b)
        self.outline.defs[qual] = Definition(kind, node.lineno, node.end_lineno or node.lineno, decorators, parent,
                                             bases)
        for decorator in node.decorator_list:
            self.visit(decorator)
        return qual

    def visit_FunctionDef(self, node: Any) -> None:
        qual = self._definition(node, "function")
        self.stack.append(qual)
        self.scope()
        # a default is evaluated with the ``def`` but used when the function is called
        for default in [*node.args.defaults, *[d for d in node.args.kw_defaults if d is not None]]:
            self.visit(default)
        self.guard += 1
        body = node.body
        if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant) \
                and isinstance(body[0].value.value, str):
            body = body[1:]  # the docstring
        for stmt in body:
            self.visit(stmt)
        self.guard -= 1
        self.stack.pop()

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        qual = self._definition(node, "class")
        self.stack.append(qual)
        self.scope()
        for base in [*node.bases, *[k.value for k in node.keywords]]:
            self.visit(base)
        self.guard += 1
        body = node.body
        if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant):
            body = body[1:]
        for stmt in body:
            self.visit(stmt)
        self.guard -= 1
        self.stack.pop()

    # -- guards -------------------------------------------------------------------------------
    def visit_If(self, node: ast.If) -> None:
        if self.stack == [""] and _is_main_test(node.test):
            self.outline.main = True
            self.outline.main_lines = (node.lineno, node.end_lineno or node.lineno)
            self.stack.append("__main__")
            self.scope()
            for stmt in node.body:
                self.visit(stmt)
            self.stack.pop()
            for stmt in node.orelse:
                self.visit(stmt)
            return
        self.visit(node.test)
        tests = tests_of(node.test)
        scope = self.scope()
        for body, conds in ((node.body, tests), (node.orelse, [negated(t) for t in tests] if len(tests) == 1 else [])):
            if body:
                last = max(getattr(stmt, "end_lineno", None) or stmt.lineno for stmt in body)
                scope.guards.extend((body[0].lineno, last, subject, op, value)
                                    for subject, op, value in conds if op)
        self.guard += 1
        for stmt in [*node.body, *node.orelse]:
            self.visit(stmt)
        self.guard -= 1

    def visit_Try(self, node: Any) -> None:
        self.guard += 1
        self.generic_visit(node)
        self.guard -= 1

    visit_TryStar = visit_Try

    # -- what a scope names ---------------------------------------------------------------------
    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Load):
            self.scope().refs.append((node.id, node.lineno))

    def visit_Attribute(self, node: ast.Attribute) -> None:
        name = _dotted(node)
        if name is not None and isinstance(node.ctx, ast.Load):
            self.scope().refs.append((name, node.lineno))
            return
        if isinstance(node.ctx, ast.Load):
            if isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Name) and \
                    node.value.func.id == "super":
                self.scope().refs.append((f"super.{node.attr}", node.lineno))  # ``super().m(...)``
            else:  # ``Trainer(net).run(ds)``, ``self.layers[0].head(x)``: a method of some object
                self.scope().refs.append((f"().{node.attr}", node.lineno))
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        if isinstance(node.value, str) and len(node.value) <= 120 and _IDENTIFIER.match(node.value):
            self.scope().strings.append((node.value, node.lineno))

    def visit_Compare(self, node: ast.Compare) -> None:
        # ``name == "resnet18"`` tests a value: the literal names nothing the scope uses
        for side in [node.left, *node.comparators]:
            items = side.elts if isinstance(side, (ast.Tuple, ast.List, ast.Set)) else [side]
            for item in items:
                if not isinstance(item, ast.Constant):
                    self.visit(item)

    # -- the literal values of local names (for computed module names) ---------------------------
    def _assign(self, target: ast.AST, values: Optional[List[str]]) -> None:
        if isinstance(target, ast.Name):
            names = self.assigned.setdefault(self.stack[-1], {})
            known = names.get(target.id, [])
            names[target.id] = None if known is None or values is None else known + values

    def visit_Assign(self, node: ast.Assign) -> None:
        for target in node.targets:
            self._assign(target, strings_of(node.value))
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self._assign(node.target, strings_of(node.value))
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self._assign(node.target, None)
        self.generic_visit(node)

    def visit_For(self, node: Any) -> None:
        items = node.iter.elts if isinstance(node.iter, (ast.Tuple, ast.List, ast.Set)) else None
        values = [v for item in items for v in (strings_of(item) or [None])] if items is not None else None
        self._assign(node.target, None if values is None or None in values else values)
        self.generic_visit(node)

    visit_AsyncFor = visit_For

    def visit_Call(self, node: ast.Call) -> None:
        callee = _dotted(node.func)
        if callee in ("importlib.import_module", "import_module", "__import__") and node.args:
            self.scope().dynamic.append((_literal_prefix(node.args[0]), node.lineno))
            parts = name_parts(node.args[0])
            package = node.args[1] if len(node.args) > 1 and callee != "__import__" else \
                next((k.value for k in node.keywords if k.arg == "package"), None)
            if parts and parts[0][0] == "lit" and str(parts[0][1]).startswith(".") and package is not None:
                parts = name_parts(package) + parts  # a relative name: the package's below it
            self.scope().computed.append((node.lineno, parts))
        if callee is not None and works(node, callee):
            self.scope().work.append((callee, node.lineno))
        elif callee in ("exec", "eval") and node.args and not isinstance(node.args[0], ast.Constant):
            self.scope().dynamic.append((EVAL, node.lineno))
        elif callee == "getattr" and len(node.args) >= 2 and not isinstance(node.args[1], ast.Constant):
            owner = _dotted(node.args[0])
            if owner is not None:  # any name of it may be looked up
                self.scope().refs.append((owner + ".*", node.lineno))
        if callee in ("isinstance", "issubclass") and len(node.args) == 2:
            # ``isinstance(cell, Bottleneck)`` tests a class: it builds nothing and runs no code of it
            self.visit(node.args[0])
            return
        if callee is not None and self._says_only(callee):
            # a string given to print, a logger or a MindSpore API names a file or a message,
            # never a definition to build
            self.visit(node.func)
            for arg in node.args:
                if not isinstance(arg, ast.Constant):
                    self.visit(arg)
            for keyword in node.keywords:
                if not isinstance(keyword.value, ast.Constant):
                    self.visit(keyword.value)
            return
        self.generic_visit(node)

    def _says_only(self, callee: str) -> bool:
        head = callee.split(".")[0]
        if callee == "print" or head in ("logging", "logger", "log", "LOGGER", "_logger"):
            return True
        bound = self.outline.bindings.get(head, "")
        return bound == "mindspore" or bound.startswith("mindspore.")

    # -- imports ------------------------------------------------------------------------------
    def visit_Import(self, node: ast.Import) -> None:
        guarded = self.guard > 0
        for alias in node.names:
            self.scope().imports.append((alias.name, node.lineno, guarded))
            if alias.asname:
                self.outline.bindings[alias.asname] = alias.name
                self._imported(alias.asname, alias.name, node.lineno)
            else:
                head = alias.name.split(".")[0]
                self.outline.bindings.setdefault(head, head)

    def _imported(self, name: str, qualified: str, line: int) -> None:
        self.imported.setdefault(name, []).append((qualified, line, self.stack[-1]))

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        guarded = self.guard > 0
        if node.level:
            module = resolve_relative(self.outline.module, self.outline.is_package, node.level, node.module)
        else:
            module = node.module
        if module is None:
            return
        for alias in node.names:
            if alias.name == "*":
                self.scope().imports.append((module, node.lineno, guarded))
                self.outline.bindings.setdefault("*" + module, module)
                continue
            # ``from pkg import sub`` may import the module pkg.sub: both are recorded
            self.scope().imports.append((f"{module}.{alias.name}", node.lineno, guarded))
            self.outline.bindings[alias.asname or alias.name] = f"{module}.{alias.name}"
            self._imported(alias.asname or alias.name, f"{module}.{alias.name}", node.lineno)

    def finish(self) -> None:
        """What is known once the whole file is read: the literal values of the local names
        a computed module name is built from, the names imported to several things."""
        for key, scope in self.outline.scopes.items():
            names = self.assigned.get(key, {})
            scope.computed = [(line, tuple(("vals", tuple(names[p[1]])) if p[0] == "hole" and names.get(p[1])
                                           else p for p in parts)) for line, parts in scope.computed]
        for name, found in self.imported.items():
            if len({qualified for qualified, _line, _scope in found}) > 1:
                self.outline.alternatives[name] = found


def _literal_prefix(node: ast.AST) -> str:
    """The known start of a module name built at run time ("" when nothing is known;
    the whole name when it is a literal)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value + "\0"   # a complete literal name
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _literal_prefix(node.left).rstrip("\0")
    if isinstance(node, ast.JoinedStr) and node.values and isinstance(node.values[0], ast.Constant):
        return str(node.values[0].value)
    return ""


def _script_line(tree: ast.Module) -> int:
    """The first top-level statement that does work when the file runs (a call that is not
    set-up, a loop, a ``with``), outside the main block; 0 when there is none."""
    for stmt in tree.body:
        if isinstance(stmt, (ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith)):
            return stmt.lineno
        value = stmt.value if isinstance(stmt, (ast.Expr, ast.Assign, ast.AnnAssign)) else None
        if isinstance(value, ast.Call):
            callee = _dotted(value.func) or ""
            if isinstance(stmt, ast.Expr) and not _SET_UP.match(callee):
                return stmt.lineno
            if callee.endswith("parse_args") or callee.endswith(".train") or callee.endswith(".fit"):
                return stmt.lineno
    return 0


def read(text: str, module: str, is_package: bool) -> Outline:
    """The outline of one file's source ``text`` (imported as ``module``)."""
    outline = Outline(module=module, is_package=is_package)
    try:
        tree = python_ast(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        outline.broken = f"{type(exc).__name__}: {getattr(exc, 'msg', exc)}"
        return outline
    outline.scopes[""] = Scope()
    reader = _Reader(outline)
    body = tree.body
    if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant):
        body = body[1:]
    try:
        for stmt in body:
            reader.visit(stmt)
    except RecursionError:
        outline.broken = "nested too deeply"
        return outline
    reader.finish()
    outline.script = _script_line(tree)
    for stmt in tree.body:
        value = stmt.value if isinstance(stmt, (ast.Assign, ast.AnnAssign)) else None
        if isinstance(value, ast.Call):
            callee = _dotted(value.func)
            if callee is not None:
                outline.top_calls.append((callee, stmt.lineno))
    return outline


# -- storage (JSON, never pickle) --------------------------------------------------------------
def to_json(outline: Outline) -> Dict[str, Any]:
    return {
        "format": FORMAT, "module": outline.module, "is_package": outline.is_package,
        "defs": {q: [d.kind, d.line, d.end, list(d.decorators), d.parent, list(d.bases)]
                 for q, d in outline.defs.items()},
        "scopes": {q: [s.refs, s.strings, s.imports, s.dynamic, s.computed, s.guards, s.work]
                   for q, s in outline.scopes.items()},
        "main": outline.main, "main_lines": list(outline.main_lines), "script": outline.script,
        "bindings": outline.bindings, "broken": outline.broken, "top_calls": outline.top_calls,
        "alternatives": outline.alternatives,
    }


def from_json(data: Dict[str, Any]) -> Outline:
    if data.get("format") != FORMAT:
        raise ValueError("another outline format")
    outline = Outline(module=data["module"], is_package=bool(data["is_package"]), main=bool(data["main"]),
                      script=int(data["script"]), bindings=dict(data["bindings"]), broken=data["broken"])
    outline.main_lines = (int(data["main_lines"][0]), int(data["main_lines"][1]))
    outline.top_calls = [(c, int(n)) for c, n in data["top_calls"]]
    outline.defs = {q: Definition(k, int(a), int(b), tuple(dec), parent, tuple(bases))
                    for q, (k, a, b, dec, parent, bases) in data["defs"].items()}
    outline.scopes = {q: Scope([(r, int(n)) for r, n in refs], [(s, int(n)) for s, n in strings],
                               [(m, int(n), bool(g)) for m, n, g in imports], [(p, int(n)) for p, n in dynamic],
                               [(int(n), tuple((kind, _tuple(v)) for kind, v in parts)) for n, parts in computed],
                               [(int(a), int(b), subject, op, _tuple(v)) for a, b, subject, op, v in guards],
                               [(c, int(n)) for c, n in work])
                      for q, (refs, strings, imports, dynamic, computed, guards, work) in data["scopes"].items()}
    outline.alternatives = {name: [(q, int(n), scope) for q, n, scope in found]
                            for name, found in data["alternatives"].items()}
    return outline


def _tuple(value: Any) -> Any:
    """JSON gives lists back: the literal tuples of guards and values are tuples again."""
    return tuple(_tuple(v) for v in value) if isinstance(value, list) else value
