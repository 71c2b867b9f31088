"""A file's summary: the few facts other files ask about, small and picklable.

The summary is gathered by ``SummaryCollector`` (visit/leave callbacks per node type). For
a file the engine checks, it rides along in the engine's one traversal (a collector, see
``ProjectIndex.summary_collector``) with its line numbers left as placeholders, filled in
from Python's own parser only when another file's question needs the summary
(``SummaryCollector.finalize``). A file the run does not check, or one whose summary is
needed before its own check, is summarised on its own by ``summarize`` (a read-only walk).
Expressions are kept as small tuples (``Expr``), never as CST nodes:

- ``("lit", value)``: a literal (number, string, bool, None, tuple of those);
- ``("param", name)``: a parameter of the enclosing function;
- ``("name", dotted)``: a name or attribute chain as written (``cfg.drop_rate``);
- ``("key", dotted, key)``: ``cfg["key"]`` / ``cfg.get("key", ...)``;
- ``("minus1", expr)``: ``1 - expr``;
- ``("call", dotted)``: the result of a call;
- ``("?",)``: anything else.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, is_dataclass
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

import libcst as cst

from msacclint.analysis.calls import UNKNOWN, literal
from msacclint.analysis.imports import canonical, dotted
from msacclint.analysis.walk import Traversal, iter_children, visitor_names

#: bump when the shape of a summary changes: cached summaries of another format are ignored
FORMAT = 9

Expr = Tuple[Any, ...]
UNKNOWN_EXPR: Expr = ("?",)

#: parameters that select between a training and an evaluation pipeline
SELECTOR_NAMES = frozenset({"training", "is_training", "is_train", "train", "do_train", "mode", "split",
                            "usage", "phase", "train_mode"})
#: constructors whose keyword arguments (or dict argument) are a configuration
CONFIG_FACTORIES = frozenset({"dict", "EasyDict", "edict", "Namespace", "SimpleNamespace", "ConfigDict",
                              "AttrDict", "Config"})
#: selector values that choose evaluation (``training=False``, ``split="test"``)
EVAL_SELECTIONS = ("eval", "val", "valid", "test")

# -- files a call writes or only mentions, which are not config files the code reads ---------------
#: calls that write the file their arguments name (``open(..., "w")`` is decided by its mode)
WRITERS = frozenset({"dump", "safe_dump", "dump_all", "safe_dump_all", "to_yaml", "to_json", "to_csv", "to_file",
                     "to_pickle", "makedirs", "mkdir", "touch", "savefig", "export"})
#: calls that read their first argument and write the others (``shutil.copy(src, dst)``)
COPIERS = frozenset({"copy", "copy2", "copyfile", "copytree", "move", "rename", "replace", "symlink"})
#: modules whose ``open(path, mode)`` takes the mode second, as the built-in does
OPENERS = frozenset({"io", "codecs", "gzip", "bz2", "lzma", "tarfile"})
#: calls whose string arguments are messages, not files (``logger.info("saved hyp.yaml")``)
MESSAGES = frozenset({"print", "info", "warning", "warn", "debug", "error", "critical", "exception", "log",
                      "echo", "write_summary"})


def writes(node: cst.Call) -> Optional[Tuple[cst.BaseExpression, ...]]:
    """The parts of a call that name files it writes (its arguments, or, for a method such as
    ``Path(d, "hyp.yaml").write_text(...)``, also its receiver); None when it writes none:
    ``open(..., "w"/"a"/"x")``, ``save*``, ``write*``, ``yaml.dump``, ``makedirs``, the
    destination of ``shutil.copy``..."""
    func = node.func
    tail = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
    receiver = (func.value,) if isinstance(func, cst.Attribute) else ()
    values = tuple(a.value for a in node.args)
    if tail == "open":
        mode = next((a.value for a in node.args if a.keyword is not None and a.keyword.value == "mode"), None)
        positional = [a.value for a in node.args if a.keyword is None and not a.star]
        if mode is None:  # open(path, mode), io.open, gzip.open...; a path's method: Path(...).open(mode)
            module = isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and \
                func.value.value in OPENERS
            index = 0 if receiver and not module else 1
            mode = positional[index] if len(positional) > index else None
        text = _literal(mode) if mode is not None else None
        return values + receiver if isinstance(text, str) and any(c in text for c in "wax") else None
    if tail in COPIERS:
        return values[1:]
    if tail in WRITERS or tail.startswith(("save", "write", "dump_")):
        return values + receiver
    return None


def _subtree(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """``node`` and every node under it (read-only: analysis.walk.iter_children)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(iter_children(current))


def selects_evaluation(keyword: Optional[str], value: Any) -> bool:
    """A selector keyword given a value that chooses evaluation."""
    return keyword in SELECTOR_NAMES and (value is False or (isinstance(value, str) and value in EVAL_SELECTIONS))


@dataclass
class Call:
    """A call as a summary keeps it: callee as written, its arguments, its line."""

    callee: str
    args: Tuple[Expr, ...] = ()
    kwargs: Dict[str, Expr] = field(default_factory=dict)
    line: int = 0
    #: the attribute it is assigned to (``self.drop = nn.Dropout(...)``), if any
    attr: Optional[str] = None
    #: the qualified name of the function it is made in ("" at module level)
    scope: str = ""

    def argument(self, name: str, position: int) -> Optional[Expr]:
        """What the call passes for the parameter ``name`` (by keyword, or at ``position``
        among the positional arguments; -1 for keyword-only), or None when it leaves it out."""
        if name in self.kwargs:
            return self.kwargs[name]
        if 0 <= position < len(self.args):
            return self.args[position]
        return None


@dataclass
class FunctionSummary:
    name: str  # qualified within the module: "build", "Net.__init__"
    line: int
    params: Tuple[Tuple[str, Optional[Expr]], ...] = ()
    returns: List[Expr] = field(default_factory=list)
    #: calls made in the body (callee as written), for call-site binding and "what it builds"
    calls: List[Call] = field(default_factory=list)
    #: a train/eval selector: (parameter, its default) when the function has one
    selector: Optional[Tuple[str, Optional[Expr]]] = None
    #: the function calls mindspore.dataset (a dataset builder)
    builds_dataset: bool = False
    #: ``self.x`` attributes a method returns (getters): name -> attribute
    returns_attr: Optional[str] = None
    #: random augmentations (``vision.Random*``) it builds: (name, line)
    random_ops: List[Tuple[str, int]] = field(default_factory=list)
    #: local NAME = Callee(...) assignments: name -> the callee as written, "?" for any other
    #: assigned value (several entries: several alternatives)
    builds: Dict[str, List[str]] = field(default_factory=dict)
    #: the name of its ``**kwargs`` parameter, if it has one (keywords its callers pass may
    #: be forwarded through it: ``Net(**kwargs)``)
    var_keyword: Optional[str] = None


@dataclass
class ClassSummary:
    name: str
    line: int
    bases: Tuple[str, ...] = ()
    params: Tuple[Tuple[str, Optional[Expr]], ...] = ()
    #: every call in the class's methods (the layers it builds are the ones in __init__)
    calls: List[Call] = field(default_factory=list)
    reads_training: bool = False
    #: functional dropout/batch_norm in a method: mode-dependent behaviour outside sub-cells
    functional_mode: bool = False
    #: ``self.attr = <expr>`` in __init__ (getters return these)
    attrs: Dict[str, Expr] = field(default_factory=dict)
    methods: Tuple[str, ...] = ()
    #: ``self.<name>`` attributes a method branches on (``if self.is_training:``, ``a if
    #: not self.flag else b``): the class's own mode flags
    tested: Tuple[str, ...] = ()


@dataclass
class FileSummary:
    path: str
    module: str
    #: name -> qualified name it was imported as (relative imports resolved)
    imports: Dict[str, str] = field(default_factory=dict)
    classes: Dict[str, ClassSummary] = field(default_factory=dict)
    functions: Dict[str, FunctionSummary] = field(default_factory=dict)
    #: module-level NAME = value (every assignment kept: several are alternatives)
    constants: Dict[str, List[Tuple[Expr, int]]] = field(default_factory=dict)
    #: dict / EasyDict / namespace configs: name -> key -> (value, line)
    configs: Dict[str, Dict[str, Tuple[Expr, int]]] = field(default_factory=dict)
    #: argparse: dest -> (default, line)
    arguments: Dict[str, Tuple[Expr, int]] = field(default_factory=dict)
    #: lines of a call of mindspore.communication.init()
    init_lines: List[int] = field(default_factory=list)
    #: set_auto_parallel_context(parallel_mode=...): (value, line)
    parallel_modes: List[Tuple[Expr, int]] = field(default_factory=list)
    #: calls made at module level (outside any def/class)
    calls: List[Call] = field(default_factory=list)
    #: every bare name the file mentions (cheap "is it used" answers)
    names: frozenset = frozenset()
    #: yaml/json files the code opens by a literal name: (name, line)
    config_files: List[Tuple[str, int]] = field(default_factory=list)
    #: module-level NAME = Callee(...) assignments, as ``FunctionSummary.builds``
    builds: Dict[str, List[str]] = field(default_factory=dict)
    #: MindSpore names the module replaces at module level (``nn.Conv1d = Conv1d``,
    #: ``Tensor.masked_fill = _masked_fill``): (qualified name, line)
    patches: List[Tuple[str, int]] = field(default_factory=list)


def resolve_relative(module: str, is_package: bool, level: int, target: Optional[str]) -> Optional[str]:
    """``from ..a import b`` inside ``module`` -> the absolute module name; None if it
    climbs above the top package."""
    parts = module.split(".") if module else []
    if not is_package:
        parts = parts[:-1]
    if level > 1:
        if level - 1 > len(parts):
            return None
        parts = parts[: len(parts) - (level - 1)]
    if target:
        parts = parts + target.split(".")
    return ".".join(parts) if parts else None


def signature(node: cst.FunctionDef) -> Tuple[Tuple[str, Optional[Expr]], ...]:
    """(name, default) of a function's parameters, defaults as expressions."""
    out = []
    p = node.params
    for param in (*p.posonly_params, *p.params, *p.kwonly_params):
        default = None
        if param.default is not None:
            value = _literal(param.default)
            default = ("lit", value) if value is not UNKNOWN else \
                (("name", dotted(param.default)) if dotted(param.default) else UNKNOWN_EXPR)
        out.append((param.name.value, default))
    return tuple(out)


def line_table(text: str) -> Optional[Dict[Tuple[str, ...], List[int]]]:
    """Lines of the nodes a summary records, from Python's own parser (a fraction of the
    cost of LibCST's PositionProvider): key -> lines in source order, for classes
    ("C", name), functions ("F", name), calls ("K", dotted callee) and assignments ("A",).
    The collector visits the same nodes in the same (pre-)order and takes them in turn."""
    import ast

    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    found: List[Tuple[int, int, int, int, Tuple[str, ...]]] = []
    for node in ast.walk(tree):
        key: Optional[Tuple[str, ...]] = None
        if isinstance(node, ast.ClassDef):
            key = ("C", node.name)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            key = ("F", node.name)
        elif isinstance(node, ast.Call):
            name = _ast_dotted(node.func)
            if name is not None:
                key = ("K", name)
        elif isinstance(node, ast.Assign):
            key = ("A",)
        if key is not None:
            line = node.lineno  # a decorated def: the line of `def`, as LibCST's PositionProvider says
            found.append((node.lineno, node.col_offset, -(node.end_lineno or 0), -(node.end_col_offset or 0), key,
                          line))
    found.sort(key=lambda item: item[:4])
    table: Dict[Tuple[str, ...], List[int]] = {}
    for *_, key, line in found:
        table.setdefault(key, []).append(line)
    return table


def _ast_dotted(node) -> Optional[str]:
    import ast

    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def _literal(node: cst.BaseExpression) -> Any:
    """``literal`` (msacclint.analysis.calls), without Python's compiler for the plain
    numbers and strings a summary meets most (LibCST's ``evaluated_value`` compiles each)."""
    kind = type(node)
    if kind is cst.Integer:
        return int(node.value, 0)  # type: ignore[attr-defined]
    if kind is cst.Float:
        return float(node.value)  # type: ignore[attr-defined]
    if kind is cst.SimpleString:
        text = node.value  # type: ignore[attr-defined]
        if text[:1] in _QUOTES and BACKSLASH not in text and CR not in text:
            if len(text) >= 6 and text[:3] in _TRIPLE_QUOTES:
                return text[3:-3]
            return text[1:-1]
    return literal(node)


_QUOTES = ("'", '"')
_TRIPLE_QUOTES = (3 * "'", 3 * '"')
BACKSLASH, CR = chr(92), chr(13)
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


class _Line:
    """A line number not known yet: the ``ordinal``-th node of kind ``key`` in source order
    (``line_table``); replaced by the line when the summary is finalised."""

    __slots__ = ("key", "ordinal")

    def __init__(self, key: Tuple[str, ...], ordinal: int) -> None:
        self.key = key
        self.ordinal = ordinal


def _fill_lines(value: Any, table: Optional[Dict[Tuple[str, ...], List[int]]]) -> Any:
    """``value`` with every ``_Line`` in it replaced by its line (0 when unknown)."""
    if isinstance(value, _Line):
        lines = table.get(value.key, ()) if table is not None else ()
        return lines[value.ordinal] if value.ordinal < len(lines) else 0
    if isinstance(value, list):
        return [_fill_lines(v, table) for v in value]
    if isinstance(value, tuple):
        return tuple(_fill_lines(v, table) for v in value)
    if isinstance(value, dict):
        return {k: _fill_lines(v, table) for k, v in value.items()}
    if is_dataclass(value) and not isinstance(value, type):
        for f in fields(value):
            setattr(value, f.name, _fill_lines(getattr(value, f.name), table))
    return value


#: the sentinel ``lines`` value of a collector whose lines are filled in later
DEFERRED: Dict[Tuple[str, ...], List[int]] = {}


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
            return _Line(key, index)  # type: ignore[return-value]  # an int once finalised
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
            if self._functions and value in self._param_names[-1]:
                return ("param", value)
            return ("name", value)
        if kind is cst.Attribute:
            name = _dotted(node)
            return ("name", name) if name else UNKNOWN_EXPR
        if kind is not cst.Call and kind is not cst.Subscript:
            value = _literal(node)
            if value is not UNKNOWN:
                return ("lit", value)
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Subtract) \
                and _literal(node.left) in (1, 1.0) and _literal(node.left) is not UNKNOWN:
            return ("minus1", self.expr(node.right))
        if isinstance(node, cst.Subscript) and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
            key = _literal(node.slice[0].slice.value)
            base = dotted(node.value)
            if isinstance(key, str) and base:
                return ("key", base, key)
        if isinstance(node, cst.Call):
            if isinstance(node.func, cst.Attribute) and node.func.attr.value == "get" and node.args:
                key = _literal(node.args[0].value)
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


    # -- imports ------------------------------------------------------------------
    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            full = dotted(alias.name)
            if full is None:
                continue
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                self.summary.imports[alias.asname.name.value] = full
            else:
                head = full.split(".")[0]
                self.summary.imports.setdefault(head, head)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        target = dotted(node.module) if node.module is not None else None
        if node.relative:
            module = resolve_relative(self.summary.module, self.is_package, len(node.relative), target)
        else:
            module = target
        if module is None or isinstance(node.names, cst.ImportStar):
            if module is not None:
                self.summary.imports.setdefault("*" + module, module)
            return
        for alias in node.names:
            name = dotted(alias.name)
            if name is None:
                continue
            bound = alias.asname.name.value if alias.asname is not None and isinstance(alias.asname.name, cst.Name) \
                else name
            self.summary.imports[bound] = f"{module}.{name}"

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

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
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
        self._scope.append(node.name.value)
        self.summary.functions[qual] = info
        cls = self._owner()
        if cls is not None:
            cls.methods = cls.methods + (node.name.value,)
            if node.name.value == "__init__":
                cls.params = tuple(p for p in info.params if p[0] != "self")

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        info = self._functions.pop()
        self._held.pop()
        self._only_written(self._file_names.pop(), self._file_uses.pop())
        self._param_names.pop()
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
        if len(node.targets) != 1:
            return
        target = node.targets[0].target
        if isinstance(target, cst.Name) and isinstance(node.value, cst.Call):
            self._assigned[id(node.value)] = target.value
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
                    key = _literal(element.key)
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
                for inner in _subtree(part):
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
            _fill_lines(summary, line_table(text))
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


# -- storage: summaries are cached as JSON (never pickle: a cache folder may come from
# -- a repository one did not write, and unpickling runs code) ---------------------------
def _expr_in(value: Any) -> Any:
    """JSON gives lists back; expressions and literal tuples are tuples again."""
    if isinstance(value, list):
        return tuple(_expr_in(v) for v in value)
    return value


def _call_in(data: Dict[str, Any]) -> Call:
    return Call(callee=data["callee"], args=tuple(_expr_in(a) for a in data["args"]),
                kwargs={k: _expr_in(v) for k, v in data["kwargs"].items()}, line=data["line"],
                attr=data["attr"], scope=data["scope"])


def _params_in(data) -> Tuple[Tuple[str, Optional[Expr]], ...]:
    return tuple((name, _expr_in(default) if default is not None else None) for name, default in data)


def to_json(summary: FileSummary) -> Dict[str, Any]:
    """The summary as JSON-ready data (what ``dataclasses.asdict`` gives, tuples as lists:
    the same JSON text; asdict's generic deep copy costs several times more)."""
    data = _plain(summary)
    data["names"] = sorted(summary.names)
    data["format"] = FORMAT
    return data  # type: ignore[no-any-return]


_FIELD_NAMES: Dict[type, Tuple[str, ...]] = {}


def _plain(value: Any) -> Any:
    kind = type(value)
    if kind is str or kind is int or kind is float or kind is bool or value is None:
        return value
    if kind is tuple or kind is list:
        return [_plain(v) for v in value]
    if kind is dict:
        return {k: _plain(v) for k, v in value.items()}
    names = _FIELD_NAMES.get(kind)
    if names is None:
        if not is_dataclass(value):
            return value  # left to json (as asdict leaves it)
        names = _FIELD_NAMES[kind] = tuple(f.name for f in fields(value))
    return {name: _plain(getattr(value, name)) for name in names}


def from_json(data: Dict[str, Any]) -> FileSummary:
    """The summary ``to_json`` stored; raises (KeyError, TypeError, ValueError) on anything else."""
    if data.get("format") != FORMAT:
        raise ValueError("another summary format")
    classes = {}
    for name, c in data["classes"].items():
        classes[name] = ClassSummary(
            name=c["name"], line=c["line"], bases=tuple(c["bases"]), params=_params_in(c["params"]),
            calls=[_call_in(x) for x in c["calls"]], reads_training=bool(c["reads_training"]),
            functional_mode=bool(c["functional_mode"]), attrs={k: _expr_in(v) for k, v in c["attrs"].items()},
            methods=tuple(c["methods"]), tested=tuple(c["tested"]))
    functions = {}
    for name, f in data["functions"].items():
        selector = f["selector"]
        functions[name] = FunctionSummary(
            name=f["name"], line=f["line"], params=_params_in(f["params"]),
            returns=[_expr_in(r) for r in f["returns"]], calls=[_call_in(x) for x in f["calls"]],
            selector=(selector[0], _expr_in(selector[1]) if selector[1] is not None else None) if selector else None,
            builds_dataset=bool(f["builds_dataset"]), returns_attr=f["returns_attr"],
            random_ops=[(n, line) for n, line in f["random_ops"]],
            builds={k: list(v) for k, v in f["builds"].items()}, var_keyword=f["var_keyword"])
    return FileSummary(
        path=data["path"], module=data["module"], imports=dict(data["imports"]), classes=classes,
        functions=functions,
        constants={k: [(_expr_in(e), line) for e, line in v] for k, v in data["constants"].items()},
        configs={k: {kk: (_expr_in(e), line) for kk, (e, line) in v.items()} for k, v in data["configs"].items()},
        arguments={k: (_expr_in(e), line) for k, (e, line) in data["arguments"].items()},
        init_lines=list(data["init_lines"]),
        parallel_modes=[(_expr_in(e), line) for e, line in data["parallel_modes"]],
        calls=[_call_in(x) for x in data["calls"]], names=frozenset(data["names"]),
        config_files=[(n, line) for n, line in data["config_files"]],
        patches=[(n, line) for n, line in data["patches"]],
        builds={k: list(v) for k, v in data["builds"].items()})
