"""Gathering a file's summary (msacclint.project.summary) in one walk.

For a file the engine checks, the collector rides along in the engine's one traversal
(``ProjectIndex.summary_collector``) with its line numbers left as placeholders, filled in
from Python's own parser only when another file's question needs the summary
(``SummaryCollector.finalize``). A file the run does not check, or one whose summary is
needed before its own check, is summarised on its own by ``summarize`` (a read-only walk).
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Tuple

import libcst as cst

from msacclint.analysis.calls import UNKNOWN
from msacclint.analysis.imports import canonical, dotted
from msacclint.analysis.walk import Traversal, visitor_names
from msacclint.project.lines import DEFERRED, Line, fill_lines, line_table
from msacclint.project.outputs import MESSAGES, subtree, writes
from msacclint.project.summary import (
    CONFIG_FACTORIES,
    SELECTOR_NAMES,
    UNKNOWN_EXPR,
    Call,
    ClassSummary,
    Expr,
    FileSummary,
    FunctionSummary,
    quick_literal,
    resolve_relative,
    signature,
)

_ASSIGN_KEY: Tuple[str, ...] = ("A",)
#: the names ``literal`` reads as values
_CONSTANT_NAMES = {"True": True, "False": False, "None": None}


def _dotted(node: cst.BaseExpression) -> Optional[str]:
    """``dotted`` by exact class (Name and Attribute have no subclasses)."""
    parts = []
    while type(node) is cst.Attribute:
        parts.append(node.attr.value)  # type: ignore[attr-defined]
        node = node.value  # type: ignore[attr-defined]
    if type(node) is cst.Name:
        if not parts:
            return node.value  # type: ignore[attr-defined, no-any-return]
        parts.append(node.value)  # type: ignore[attr-defined]
        return ".".join(reversed(parts))
    return None


class SummaryCollector(cst.BatchableCSTVisitor):
    """Gathers a FileSummary in one walk. Line numbers come from ``lines`` (see
    ``line_table``) when given, else they are 0; with ``lines=DEFERRED`` they are
    placeholders until ``finalize(text)``."""

    def __init__(self, path: str, module: str, is_package: bool = False,
                 lines: Optional[Dict[Tuple[str, ...], List[int]]] = None) -> None:
        super().__init__()
        self.summary = FileSummary(path=path, module=module)
        self._lines = lines
        self._deferred = lines is DEFERRED
        self._taken: Dict[Tuple[str, ...], int] = {}
        self.is_package = is_package
        self._classes: List[ClassSummary] = []
        self._functions: List[FunctionSummary] = []
        #: the parameter names of each function on ``_functions``
        self._param_names: List[frozenset] = []
        #: per scope (module, then each function): name -> the plain values assigned to it
        #: (attribute chains, literals; both sides of a conditional expression), so that a
        #: ``parallel_mode=mode`` reads every mode the name may hold
        self._held: List[Dict[str, List[Expr]]] = [{}]
        #: per function on ``_functions``: a local name -> the literals assigned to it so far, or
        #: None once anything else is (so ``bn_training = False`` passed on reads as False)
        self._local_literals: List[Dict[str, Optional[List[Expr]]]] = []
        self._qualified_memo: Dict[str, str] = {}
        self._callee_hint: Tuple[Optional[cst.CSTNode], Optional[str]] = (None, None)
        self._scope: List[str] = []
        self._names: set = set()
        self._positions = True
        self._seen: set = set()
        #: calls whose string arguments are files written or messages, never config files read,
        #: and the arguments (nodes) that name a file a call writes
        self._not_read: set = set()
        self._written_parts: set = set()
        #: a call assigned to a name (``path = os.path.join(d, "x.yaml")``): id -> the name
        self._assigned: Dict[int, str] = {}
        #: per scope (module, then each function): name -> the config_files entries it holds,
        #: and the names used as a file written ("w") or otherwise ("r")
        self._file_names: List[Dict[str, List[Tuple[str, Any]]]] = [{}]
        self._file_uses: List[Dict[str, set]] = [{}]
        #: loop variables of the enclosing ``for`` statements over a literal list or tuple:
        #: name -> the values it takes (an argument naming one is each of them in turn)
        self._loop_values: List[Tuple[str, Expr]] = []
        #: the statements binding module-level names so far (``FileSummary.bound_at``)
        self._order = 0

    # -- helpers ------------------------------------------------------------------
    def _line(self, node: cst.CSTNode) -> int:
        if self._lines is None:
            return 0
        kind = type(node)
        if kind is cst.ClassDef:
            key: Tuple[str, ...] = ("C", node.name.value)  # type: ignore[attr-defined]
        elif kind is cst.FunctionDef:
            key = ("F", node.name.value)  # type: ignore[attr-defined]
        elif kind is cst.Call:
            hint = self._callee_hint  # the call ``_call`` is recording: its callee is known
            name = hint[1] if hint[0] is node else _dotted(node.func)  # type: ignore[attr-defined]
            if name is None:
                return 0
            key = ("K", name)
        elif kind is cst.Assign:
            key = _ASSIGN_KEY
        else:
            return 0
        index = self._taken.get(key, 0)
        self._taken[key] = index + 1
        if self._deferred:
            return Line(key, index)  # type: ignore[return-value]  # an int once finalised
        lines = self._lines.get(key, ())
        return lines[index] if index < len(lines) else 0

    def _params(self) -> Tuple[str, ...]:
        return tuple(p for p, _ in self._functions[-1].params) if self._functions else ()

    def expr(self, node: cst.BaseExpression) -> Expr:
        kind = type(node)
        # the common cases first, by exact class (LibCST's isinstance checks go through
        # ABCMeta): a name, an attribute chain, a call are never literals
        if kind is cst.Name:
            value = node.value  # type: ignore[attr-defined]
            if value in _CONSTANT_NAMES:
                return ("lit", _CONSTANT_NAMES[value])
            for name, taken in reversed(self._loop_values):
                if name == value:
                    return taken
            if self._functions and value in self._param_names[-1]:
                return ("param", value)
            if self._local_literals:
                held = self._local_literals[-1].get(value)
                if held:
                    distinct = list(dict.fromkeys(held))
                    return distinct[0] if len(distinct) == 1 else ("alt", tuple(distinct))
            return ("name", value)
        if kind is cst.Attribute:
            name = _dotted(node)
            return ("name", name) if name else UNKNOWN_EXPR
        if kind is not cst.Call and kind is not cst.Subscript:
            value = quick_literal(node)
            if value is not UNKNOWN:
                return ("lit", value)
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Subtract) \
                and quick_literal(node.left) in (1, 1.0) and quick_literal(node.left) is not UNKNOWN:
            return ("minus1", self.expr(node.right))
        if isinstance(node, cst.Subscript) and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
            key = quick_literal(node.slice[0].slice.value)
            base = dotted(node.value)
            if isinstance(key, str) and base:
                return ("key", base, key)
        if isinstance(node, cst.Call):
            if isinstance(node.func, cst.Attribute) and node.func.attr.value == "get" and node.args:
                key = quick_literal(node.args[0].value)
                base = dotted(node.func.value)
                if isinstance(key, str) and base:
                    return ("key", base, key)
            if isinstance(node.func, cst.Name) and node.func.value in ("float", "int") and len(node.args) == 1:
                return self.expr(node.args[0].value)
            name = dotted(node.func)
            if name:
                return ("call", name)
        return UNKNOWN_EXPR

    def _signature(self, node: cst.FunctionDef) -> Tuple[Tuple[str, Optional[Expr]], ...]:
        return signature(node)


    # -- the order of module-level bindings ------------------------------------------
    def _statement(self) -> Optional[int]:
        """The ordinal of a statement of the module's own code that binds or imports (None
        inside a function: it runs when called, not when the module is imported)."""
        if self._functions:
            return None
        self._order += 1
        return self._order

    def _bound(self, name: str, ordinal: Optional[int]) -> None:
        if ordinal is not None and not self._classes:
            self.summary.bound_at.setdefault(name, ordinal)

    def _imported(self, module: str, ordinal: Optional[int]) -> None:
        if ordinal is not None:
            self.summary.imports_at.setdefault(module, ordinal)

    # -- imports ------------------------------------------------------------------
    def visit_Import(self, node: cst.Import) -> None:
        at = self._statement()
        for alias in node.names:
            full = dotted(alias.name)
            if full is None:
                continue
            self._imported(full, at)
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                self.summary.imports[alias.asname.name.value] = full
                self._bound(alias.asname.name.value, at)
            else:
                head = full.split(".")[0]
                self.summary.imports.setdefault(head, head)
                self._bound(head, at)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        at = self._statement()
        target = dotted(node.module) if node.module is not None else None
        if node.relative:
            module = resolve_relative(self.summary.module, self.is_package, len(node.relative), target)
        else:
            module = target
        if module is None or isinstance(node.names, cst.ImportStar):
            if module is not None:
                self.summary.imports.setdefault("*" + module, module)
                self._imported(module, at)
                self._bound("*" + module, at)
            return
        self._imported(module, at)
        for alias in node.names:
            name = dotted(alias.name)
            if name is None:
                continue
            bound = alias.asname.name.value if alias.asname is not None and isinstance(alias.asname.name, cst.Name) \
                else name
            self.summary.imports[bound] = f"{module}.{name}"
            self._imported(f"{module}.{name}", at)
            self._bound(bound, at)

    # -- definitions --------------------------------------------------------------
    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        bases = tuple(d for d in (dotted(b.value) for b in node.bases) if d)
        qual = ".".join(self._scope + [node.name.value])
        info = ClassSummary(name=qual, line=self._line(node), bases=bases)
        self._classes.append(info)
        self._scope.append(node.name.value)
        if not self._functions:
            self.summary.classes[qual] = info

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self._classes.pop()
        self._scope.pop()
        self._bound(original_node.name.value, self._statement())  # bound once its body has run

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._bound(node.name.value, self._statement())
        qual = ".".join(self._scope + [node.name.value])
        info = FunctionSummary(name=qual, line=self._line(node), params=self._signature(node))
        star = node.params.star_kwarg
        if star is not None:
            info.var_keyword = star.name.value
        for name, default in info.params:
            if name in SELECTOR_NAMES:
                info.selector = (name, default)
                break
        self._functions.append(info)
        self._held.append({})
        self._file_names.append({})
        self._file_uses.append({})
        self._param_names.append(frozenset(p for p, _ in info.params))
        self._local_literals.append({})
        self._scope.append(node.name.value)
        self.summary.functions[qual] = info
        cls = self._owner()
        if cls is not None:
            cls.methods = cls.methods + (node.name.value,)
            if node.name.value == "__init__":
                cls.params = tuple(p for p in info.params if p[0] != "self")
            elif node.name.value == "__new__" and "__init__" not in cls.methods:
                # a constructor written as __new__ (a loader that returns a dataset)
                cls.params = tuple(p for p in info.params if p[0] != "cls")

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        info = self._functions.pop()
        self._held.pop()
        self._only_written(self._file_names.pop(), self._file_uses.pop())
        self._param_names.pop()
        self._local_literals.pop()
        self._scope.pop()
        if len(info.returns) == 1 and info.returns[0][0] == "name" and info.returns[0][1].startswith("self."):
            info.returns_attr = info.returns[0][1][5:]

    def _owner(self) -> Optional[ClassSummary]:
        """The class whose method is being visited (the innermost def's direct class)."""
        if not self._classes or not self._functions:
            return None
        # the function is a method when the scope right above it is the class
        if len(self._scope) >= 2 and self._scope[-2] == self._classes[-1].name.split(".")[-1]:
            return self._classes[-1]
        return None

    def visit_Return(self, node: cst.Return) -> None:
        if self._functions and node.value is not None:
            self._functions[-1].returns.append(self.expr(node.value))

    # -- values -------------------------------------------------------------------
    def _patched_name(self, target: cst.BaseExpression) -> Optional[str]:
        """``nn.Conv1d`` assigned at module level, ``nn`` imported from mindspore: the
        qualified MindSpore name it replaces."""
        if not isinstance(target, cst.Attribute):
            return None
        name = dotted(target)
        if name is None:
            return None
        head, _, rest = name.partition(".")
        bound = self.summary.imports.get(head)
        if bound is None or not (bound == "mindspore" or bound.startswith("mindspore.")):
            return None
        return canonical(f"{bound}.{rest}")

    def visit_Assign(self, node: cst.Assign) -> None:
        line = self._line(node)  # taken for every assignment: the table counts them all
        if not self._functions and not self._classes:
            at = self._statement()
            for each in node.targets:
                if isinstance(each.target, cst.Name):
                    self._bound(each.target.value, at)
        if len(node.targets) != 1:
            return
        target = node.targets[0].target
        if isinstance(target, cst.Name) and isinstance(node.value, cst.Call):
            self._assigned[id(node.value)] = target.value
        if self._local_literals:
            self._local_literal(target, node.value)
        if isinstance(target, cst.Name) and (self._functions or not self._classes):
            alternatives = [node.value.body, node.value.orelse] if isinstance(node.value, cst.IfExp) else [node.value]
            self._held[-1].setdefault(target.value, []).extend(
                e for e in (self.expr(a) for a in alternatives) if e[0] in ("name", "lit"))
            callee = dotted(node.value.func) if isinstance(node.value, cst.Call) else None
            builds = self._functions[-1].builds if self._functions else self.summary.builds
            builds.setdefault(target.value, []).append(callee or "?")
        if not self._functions and not self._classes:
            patched = self._patched_name(target)
            if patched is not None:
                self.summary.patches.append((patched, line))
                self.summary.patch_values[patched] = _dotted(node.value) or "?"
            if isinstance(target, cst.Name):
                self._module_value(target.value, node.value, line)
            elif isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) \
                    and target.value.value in self.summary.configs:
                self.summary.configs[target.value.value][target.attr.value] = (self.expr(node.value), line)
            elif isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name) \
                    and target.value.value in self.summary.configs:
                key = self.expr(node.targets[0].target)
                if key[0] == "key":
                    self.summary.configs[target.value.value][key[2]] = (self.expr(node.value), line)
            return
        owner = self._owner()
        if owner is not None and isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) \
                and target.value.value == "self" and self._scope[-1] == "__init__":
            owner.attrs[target.attr.value] = self.expr(node.value)
            if isinstance(node.value, cst.Call):
                self._call(node.value, attr=target.attr.value)

    def _local_literal(self, target: cst.BaseExpression, value: Optional[cst.BaseExpression]) -> None:
        """Record what a function assigns to a local name: a literal, or anything else (None)."""
        held = self._local_literals[-1]
        names = [target] if isinstance(target, cst.Name) else \
            [n for n in (e.value for e in getattr(target, "elements", ())) if isinstance(n, cst.Name)]
        for name in names:
            found = quick_literal(value) if value is not None and name is target else UNKNOWN
            if found is UNKNOWN or held.get(name.value, []) is None:
                held[name.value] = None
            else:
                held.setdefault(name.value, []).append(("lit", found))  # type: ignore[union-attr]

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if self._local_literals:
            self._local_literal(node.target, None)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if self._local_literals:
            self._local_literal(node.target, node.value)

    def _module_value(self, name: str, value: cst.BaseExpression, line: int) -> None:
        self.summary.constants.setdefault(name, []).append((self.expr(value), line))
        config = self._config(value, line)
        if config is not None:
            self.summary.configs[name] = config

    def _config(self, value: cst.BaseExpression, line: int) -> Optional[Dict[str, Tuple[Expr, int]]]:
        if isinstance(value, cst.Dict):
            out = {}
            for element in value.elements:
                if isinstance(element, cst.DictElement):
                    key = quick_literal(element.key)
                    if isinstance(key, str):
                        out[key] = (self.expr(element.value), line)
            return out
        if isinstance(value, cst.Call):
            name = dotted(value.func) or ""
            if name.split(".")[-1] not in CONFIG_FACTORIES:
                return None
            out = {}
            for arg in value.args:
                if arg.keyword is not None:
                    out[arg.keyword.value] = (self.expr(arg.value), line)
                elif not arg.star:
                    inner = self._config(arg.value, line)
                    if inner:
                        out.update(inner)
            return out
        return None

    def visit_Call(self, node: cst.Call) -> None:
        self._file_arguments(node)
        self._call(node)

    def _file_arguments(self, node: cst.Call) -> None:
        """Which string literals of this call and the calls inside it may name a config file
        the code reads: not the ones a call writes (``open(os.path.join(d, "hyp.yaml"), "w")``)
        or prints. A name holding a path counts as written when only calls that write use it."""
        if id(node) in self._not_read:
            return
        written = writes(node)
        func = node.func
        tail = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
        uses = self._file_uses[-1]
        if tail in MESSAGES:
            self._not_read.add(id(node))
            return
        if written is not None:
            for part in written:
                self._written_parts.add(id(part))
                for inner in subtree(part):
                    if isinstance(inner, cst.Call):
                        self._not_read.add(id(inner))
                    elif isinstance(inner, cst.Name):
                        uses.setdefault(inner.value, set()).add("w")
            return
        for part in [a.value for a in node.args] + ([func.value] if isinstance(func, cst.Attribute) else []):
            if isinstance(part, cst.Name):
                uses.setdefault(part.value, set()).add("r")

    def _only_written(self, held: Dict[str, List[Tuple[str, Any]]], uses: Dict[str, set]) -> None:
        """Drop the config file entries a name holds when every call that uses the name writes."""
        dropped = [id(entry) for name, entries in held.items() if uses.get(name) == {"w"} for entry in entries]
        if dropped:
            self.summary.config_files = [e for e in self.summary.config_files if id(e) not in dropped]

    def _call(self, node: cst.Call, attr: Optional[str] = None) -> None:
        name = _dotted(node.func)
        if name is None:
            return
        if id(node) in self._seen:
            return  # ``self.x = Call(...)`` was recorded by visit_Assign, which runs first
        self._seen.add(id(node))
        owner_calls = self._target_calls()
        self._callee_hint = (node, name)
        line = self._line(node)
        args = tuple(self.expr(a.value) for a in node.args if a.keyword is None and not a.star)
        kwargs = {a.keyword.value: self.expr(a.value) for a in node.args if a.keyword is not None}
        for a in node.args:
            if a.star:  # *args / **kwargs: the call may pass anything; a name unpacked with
                # ** is kept: it may be the caller's own **kwargs, forwarded
                kwargs[a.star] = ("name", a.value.value) if a.star == "**" and isinstance(a.value, cst.Name) \
                    else UNKNOWN_EXPR
        call = Call(callee=name, args=args, kwargs=kwargs, line=line, attr=attr,
                    scope=self._functions[-1].name if self._functions else "")
        owner_calls.append(call)
        tail = name.split(".")[-1]
        qualified = self._qualified(name)
        if self._classes and self._functions and self._owner() is not None:
            if tail in ("dropout", "batch_norm", "dropout1d", "dropout2d", "dropout3d"):
                self._owner().functional_mode = True
        if tail == "add_argument" and args and args[0][0] == "lit" and isinstance(args[0][1], str):
            dest = kwargs.get("dest")
            names = [a[1] for a in args if a[0] == "lit" and isinstance(a[1], str)]
            long = next((n for n in names if n.startswith("--")), names[0])
            key = dest[1] if dest and dest[0] == "lit" else long.lstrip("-").replace("-", "_")
            self.summary.arguments[key] = (kwargs.get("default", ("lit", None)), line)
        if qualified in ("mindspore.communication.init",):
            self.summary.init_lines.append(line)
        if tail == "set_auto_parallel_context" and "parallel_mode" in kwargs:
            mode = kwargs["parallel_mode"]
            held = self._held[-1].get(mode[1], []) if mode[0] == "name" else []
            for value in held or [mode]:  # a name: every mode assigned to it in this scope
                self.summary.parallel_modes.append((value, line))
        if qualified.startswith("mindspore.dataset.") and self._functions:
            self._functions[-1].builds_dataset = True
            if tail.startswith("Random"):
                self._functions[-1].random_ops.append((tail, line))
        if args and id(node) not in self._not_read:
            # a config file named by a literal: open("x.yaml"), os.path.join(here, "../cfg.yaml");
            # not one a call writes or a message mentions (_file_arguments)
            positional = [a.value for a in node.args if a.keyword is None and not a.star]
            for value, part in zip(args, positional):
                if value[0] == "lit" and isinstance(value[1], str) and value[1].endswith((".yaml", ".yml", ".json")) \
                        and id(part) not in self._written_parts:
                    entry = (value[1], line)
                    self.summary.config_files.append(entry)
                    holder = self._assigned.get(id(node))
                    if holder is not None:
                        self._file_names[-1].setdefault(holder, []).append(entry)

    def _target_calls(self) -> List[Call]:
        if self._functions:
            owner = self._owner()
            if owner is not None:
                return owner.calls
            return self._functions[-1].calls
        if self._classes:
            return self._classes[-1].calls
        return self.summary.calls

    def _qualified(self, name: str) -> str:
        head, _, rest = name.partition(".")
        bound = self.summary.imports.get(head)
        if bound is None:
            return name
        full = f"{bound}.{rest}" if rest else bound
        found = self._qualified_memo.get(full)
        if found is None:
            found = self._qualified_memo[full] = canonical(full)
        return found

    def visit_For(self, node: cst.For) -> None:
        if isinstance(node.target, cst.Name) and isinstance(node.iter, (cst.List, cst.Tuple)) and node.iter.elements:
            items = tuple(self.expr(e.value) for e in node.iter.elements if isinstance(e, cst.Element))
            if all(item[0] == "lit" for item in items):
                self._loop_values.append((node.target.value, ("alt", items)))
                return
        # any other loop: its variable reads as a name, as any name does (shadowing an outer one)
        name = node.target.value if isinstance(node.target, cst.Name) else ""
        self._loop_values.append((name, ("name", name)))

    def leave_For(self, original_node: cst.For) -> None:
        self._loop_values.pop()

    def visit_If(self, node: cst.If) -> None:
        self._tested(node.test)

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self._tested(node.test)

    def _tested(self, test: cst.BaseExpression) -> None:
        """A branch on ``self.<name>`` (or ``not self.<name>``) inside a method."""
        while isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            test = test.expression
        owner = self._owner()
        if owner is not None and isinstance(test, cst.Attribute) and isinstance(test.value, cst.Name) \
                and test.value.value == "self" and test.attr.value not in owner.tested:
            owner.tested = owner.tested + (test.attr.value,)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value == "training" and isinstance(node.value, cst.Name) and node.value.value == "self":
            for cls in self._classes[-1:]:
                cls.reads_training = True

    def finish(self) -> FileSummary:
        self.summary.names = frozenset(self._names)
        if len(self._file_names) == 1:  # the module's own names (once: finish may be called again)
            self._only_written(self._file_names[0], self._file_uses[0])
            self._file_names[0] = {}
        # methods record their calls in the class too; a function's own calls stay on it
        return self.summary

    # -- the engine's collector protocol (msacclint.analysis.walk.Collector) -------------
    def visitors(self) -> Dict[str, Callable[[cst.CSTNode], Any]]:
        return {name: getattr(self, name) for name in visitor_names(type(self))}

    def done(self) -> None:
        if self.on_done is not None:
            self.on_done(self)

    #: called with the collector when the engine's traversal is over
    on_done: Optional[Callable[[SummaryCollector], None]] = None

    def finalize(self, text: str) -> FileSummary:
        """The summary with its deferred line numbers filled in from ``text``."""
        summary = self.finish()
        if self._deferred:
            fill_lines(summary, line_table(text))
            self._deferred = False
        return summary


def summarize(module: cst.Module, path: str, module_name: str, is_package: bool = False,
              text: Optional[str] = None) -> FileSummary:
    """The summary of a parsed module (``text``: its source, for line numbers), by a
    read-only walk of its own: for files the engine's traversal does not collect (not
    checked in this run, or needed before their own check)."""
    collector = SummaryCollector(path, module_name, is_package, line_table(text) if text is not None else None)
    traversal = Traversal()
    traversal.add(collector.visitors())
    traversal.run(module)
    return collector.finish()
