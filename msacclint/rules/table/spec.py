"""rules/api_defaults.toml as a validated spec.

Every table, ``[[entry]]``, ``[[entry.rules]]``, condition and fix template parses into a
frozen dataclass. A key the dataclass does not know is an error that names the entry and
the key (``MS-POOL-01 / MSA104: unknown key 'unles_feeds'``), so a misspelled key fails
when the rules load instead of being silently ignored. The reference of every key is
docs/dev/table-dsl.md.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass, field
from typing import Any, Dict, Mapping, Optional, Tuple, Type, TypeVar, Union

from msacclint.data import api_defaults
from msacclint.rules.base import Invalid, Valid

#: comparison operators of a condition (``op = "given"`` only asks whether it is passed)
OPERATORS = ("<", "<=", ">", ">=", "==", "!=", "in", "not in")
#: what a condition does with a value it cannot read / an argument that is not passed
VERDICTS = ("skip", "flag", "assume")
#: what makes a loss's default right (msacclint.analysis.loss_use.handling)
HANDLINGS = ("onehot_labels", "reduced")


class TableError(ValueError):
    """A malformed rules/api_defaults.toml; the message names the entry and the key."""


T = TypeVar("T")


def _build(cls: Type[T], raw: Any, where: str, **overrides: Any) -> T:
    """``cls(**raw)``, refusing keys ``cls`` does not declare and naming the missing ones."""
    if not isinstance(raw, Mapping):
        raise TableError(f"{where}: expected a table, got {type(raw).__name__}")
    known = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    unknown = sorted(set(raw) - known)
    if unknown:
        raise TableError(f"{where}: unknown key {unknown[0]!r} (known keys: {', '.join(sorted(known))})")
    values = dict(raw)
    values.update(overrides)
    required = [f.name for f in dataclasses.fields(cls)  # type: ignore[arg-type]
                if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING  # type: ignore[misc]
                and f.name not in values]
    if required:
        raise TableError(f"{where}: missing key {required[0]!r}")
    try:
        return cls(**values)
    except (TypeError, ValueError) as error:
        raise TableError(f"{where}: {error}") from None


@dataclass(frozen=True)
class Comparison:
    """One argument condition: ``{arg, op, value}`` (or ``value_arg``: another argument's
    literal, ``value`` when that one is absent). ``unknown``/``absent`` say whether a value
    the analysis cannot read / an argument not passed lets the call be reported."""

    arg: str
    op: str
    value: Any = None
    value_arg: Optional[str] = None
    unknown: str = "skip"
    absent: str = "skip"
    #: with ``unknown = "assume"``: what the harm assumes when the value cannot be read, as the
    #: message says it ("the moving statistics are updated"); the finding is one grade lower
    assumption: str = ""

    def __post_init__(self) -> None:
        if self.op not in OPERATORS + ("given",):
            raise ValueError(f"unknown op {self.op!r} (one of {', '.join(OPERATORS)}, given)")
        for name in ("unknown", "absent"):
            if getattr(self, name) not in VERDICTS:
                raise ValueError(f"{name} = {getattr(self, name)!r} (one of {', '.join(VERDICTS)})")


@dataclass(frozen=True)
class FixTemplate:
    """``add``: keyword arguments appended when the call lacks them; ``set``: arguments
    replaced. ``{name}`` is the source text of that argument, ``{one_minus_name}`` 1 - its
    number."""

    description: str = ""
    add: Mapping[str, str] = field(default_factory=dict)
    set: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ParameterGroups:
    """The top-level ``[parameter_groups]``: the argument that may be a literal list of
    group dicts, and group key -> the parameter it sets."""

    argument: str
    keys: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class RuleSpec:
    """One ``[[entry.rules]]``: a lint code made from its entry. Metadata left empty is
    taken from the entry (checklist, severity, since/until, why, versions)."""

    code: str
    name: str
    kind: str
    apis: Tuple[str, ...]
    message: str
    signature: Tuple[str, ...] = ()
    signatures: Mapping[str, Tuple[str, ...]] = field(default_factory=dict)
    missing: Tuple[str, ...] = ()
    missing_mode: str = "all"
    require: Tuple[Comparison, ...] = ()
    unless: Tuple[Tuple[Comparison, ...], ...] = ()
    unless_attribute: Tuple[str, ...] = ()
    unless_handled: Mapping[str, str] = field(default_factory=dict)
    unless_feeds: Tuple[str, ...] = ()
    unless_next_downsamples: bool = False
    unless_global_use: bool = False
    unless_ddof_cancels: bool = False
    unless_called_with: Tuple[Comparison, ...] = ()
    fix_safe: Optional[FixTemplate] = None
    fix_unsafe: Optional[FixTemplate] = None
    #: an edit that only writes out today's behaviour: not a fix (--add-explicit)
    fix_keep: Optional[FixTemplate] = None
    checklist: Optional[str] = None
    severity: Optional[str] = None
    group: str = "nursery"
    since: Optional[str] = None
    until: Optional[str] = None
    what: str = ""
    why: str = ""
    example: str = ""
    use_instead: str = ""
    versions: str = ""
    fix_safety: str = ""
    evidence: str = ""
    #: Rule.about_the_run: lowered to info in a file that trains on made-up data
    about_the_run: bool = False
    references: Tuple[str, ...] = ()
    valid: Tuple[Valid, ...] = ()
    invalid: Tuple[Invalid, ...] = ()

    def __post_init__(self) -> None:
        if self.kind != "call":
            raise ValueError(f"kind = {self.kind!r}: only 'call' rules are generated from the table")
        if self.missing_mode not in ("all", "any"):
            raise ValueError(f"missing_mode = {self.missing_mode!r} (one of all, any)")
        for parameter, handling in self.unless_handled.items():
            if parameter not in self.missing:
                raise ValueError(f"unless_handled names {parameter!r}, which is not in missing")
            if handling not in HANDLINGS:
                raise ValueError(f"unless_handled: {handling!r} (one of {', '.join(HANDLINGS)})")
        for cond in self.require + self.unless_called_with:
            if cond.op == "given":
                raise ValueError(f"op = 'given' is for unless groups, not for {cond.arg!r} here")
        for api in self.signatures:
            if api not in self.apis:
                raise ValueError(f"signatures names {api!r}, which is not in apis")


@dataclass(frozen=True)
class EntrySpec:
    """One ``[[entry]]``: a known MindSpore / PyTorch difference."""

    id: str
    api: str
    parameter: str
    mindspore_default: str
    torch_equivalent: str
    torch_default: str
    consequence: str
    checklist: str
    severity: str
    status: str
    version_notes: str = ""
    flag: str = ""
    accept: str = ""
    since: Optional[str] = None
    until: Optional[str] = None
    rules: Tuple[RuleSpec, ...] = ()


@dataclass(frozen=True)
class TableSpec:
    schema: int
    verified_on: Mapping[str, str]
    entries: Tuple[EntrySpec, ...]
    parameter_groups: Optional[ParameterGroups] = None

    def entry(self, entry_id: str) -> EntrySpec:
        for item in self.entries:
            if item.id == entry_id:
                return item
        raise KeyError(entry_id)

    def rules(self) -> Tuple[Tuple[EntrySpec, RuleSpec], ...]:
        return tuple((item, rule) for item in self.entries for rule in item.rules)


def area_of(item: EntrySpec, rule: RuleSpec) -> str:
    """The checklist area a table rule belongs to (``hp`` for hp.01)."""
    return (rule.checklist or item.checklist).split(".")[0]


def _comparisons(raw: Any, where: str) -> Tuple[Comparison, ...]:
    return tuple(_build(Comparison, c, f"{where}, condition {i + 1}") for i, c in enumerate(raw))


def _example(cls: Union[Type[Valid], Type[Invalid]], raw: Any, where: str) -> Any:
    if isinstance(raw, str) and cls is Valid:
        return Valid(raw)
    return _build(cls, raw, where)


def parse_rule(raw: Mapping[str, Any], entry_id: str) -> RuleSpec:
    where = f"{entry_id} / {raw.get('code', '[[entry.rules]]')}"
    fields: Dict[str, Any] = {}
    for key, value in raw.items():
        if key in ("apis", "signature", "missing", "unless_attribute", "unless_feeds", "references"):
            value = tuple(value)
        elif key == "signatures":
            value = {api: tuple(params) for api, params in value.items()}
        elif key in ("require", "unless_called_with"):
            value = _comparisons(value, f"{where}, {key}")
        elif key == "unless":
            value = tuple(_comparisons(group, f"{where}, unless group {i + 1}") for i, group in enumerate(value))
        elif key in ("fix_safe", "fix_unsafe", "fix_keep"):
            value = _build(FixTemplate, value, f"{where}, {key}")
        elif key == "valid":
            value = tuple(_example(Valid, v, f"{where}, valid example {i + 1}") for i, v in enumerate(value))
        elif key == "invalid":
            value = tuple(_example(Invalid, v, f"{where}, invalid example {i + 1}") for i, v in enumerate(value))
        fields[key] = value
    return _build(RuleSpec, fields, where)


def parse_entry(raw: Mapping[str, Any]) -> EntrySpec:
    entry_id = raw.get("id", "[[entry]]") if isinstance(raw, Mapping) else "[[entry]]"
    rules = tuple(parse_rule(r, entry_id) for r in raw.get("rules", ())) if isinstance(raw, Mapping) else ()
    return _build(EntrySpec, {k: v for k, v in raw.items() if k != "rules"}, entry_id, rules=rules)


def parse_table(raw: Mapping[str, Any]) -> TableSpec:
    """The whole table; duplicate entry ids and rule codes are errors too."""
    entries = tuple(parse_entry(e) for e in raw.get("entry", ()))
    groups = raw.get("parameter_groups")
    spec = _build(TableSpec, {k: v for k, v in raw.items() if k not in ("entry", "parameter_groups")},
                  "rules/api_defaults.toml", entries=entries,
                  parameter_groups=_build(ParameterGroups, groups, "[parameter_groups]") if groups else None)
    seen: Dict[str, str] = {}
    for item in entries:
        if item.id in seen:
            raise TableError(f"{item.id}: entry id used twice")
        seen[item.id] = item.id
    codes: Dict[str, str] = {}
    for item, rule in spec.rules():
        if rule.code in codes:
            raise TableError(f"{item.id} / {rule.code}: code already used by {codes[rule.code]}")
        codes[rule.code] = item.id
    return spec


@functools.lru_cache(maxsize=1)
def load_table() -> TableSpec:
    """The shipped table, parsed once per process."""
    return parse_table(api_defaults())
