"""A file's summary: the few facts other files ask about, small and picklable, and their
storage as JSON.

The summary is gathered by ``SummaryCollector`` (msacclint.project.collect). Expressions
are kept as small tuples (``Expr``), never as CST nodes:

- ``("lit", value)``: a literal (number, string, bool, None, tuple of those);
- ``("param", name)``: a parameter of the enclosing function;
- ``("name", dotted)``: a name or attribute chain as written (``cfg.drop_rate``);
- ``("key", dotted, key)``: ``cfg["key"]`` / ``cfg.get("key", ...)``;
- ``("minus1", expr)``: ``1 - expr``;
- ``("call", dotted)``: the result of a call;
- ``("alt", (expr, ...))``: one of these, in turn: a loop variable over a literal list or
  tuple (``for split in ("train", "val"): build(root, split)``);
- ``("?",)``: anything else.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, is_dataclass
from typing import Any, Dict, List, Optional, Tuple

import libcst as cst

from msacclint.analysis.calls import UNKNOWN, literal
from msacclint.analysis.imports import dotted

#: bump when the shape of a summary changes: cached summaries of another format are ignored
FORMAT = 11

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


def quick_literal(node: cst.BaseExpression) -> Any:
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
    #: what each replaced name is assigned, as written (``"Conv1d"``, ``"injection.Conv1d"``;
    #: "?" for anything but a name)
    patch_values: Dict[str, str] = field(default_factory=dict)
    #: the order a module's own code binds its names, for an import cycle that finds the module
    #: half run (``GraphQueries.lookup``): module-level name (``"*module"`` for a star import)
    #: -> the ordinal of the first statement binding it; a class counts once its body has run
    bound_at: Dict[str, int] = field(default_factory=dict)
    #: module-level imports (class bodies included, function bodies not: those run later):
    #: module imported (each ``from m import x``: ``m`` and ``m.x``, which may be a module)
    #: -> the ordinal of its first import statement, counted with ``bound_at``
    imports_at: Dict[str, int] = field(default_factory=dict)


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
            value = quick_literal(param.default)
            default = ("lit", value) if value is not UNKNOWN else \
                (("name", dotted(param.default)) if dotted(param.default) else UNKNOWN_EXPR)
        out.append((param.name.value, default))
    return tuple(out)


def ast_dotted(node) -> Optional[str]:
    """``a.b.c`` of an ``ast`` Name/Attribute chain, else None."""
    import ast

    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


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
        patches=[(n, line) for n, line in data["patches"]], patch_values=dict(data["patch_values"]),
        builds={k: list(v) for k, v in data["builds"].items()},
        bound_at={k: int(v) for k, v in data["bound_at"].items()},
        imports_at={k: int(v) for k, v in data["imports_at"].items()})
