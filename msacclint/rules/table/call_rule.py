"""The table-driven rule family: one rule class per ``[[entry.rules]]`` of
rules/api_defaults.toml (all of ``kind = "call"``).

A call rule fires on a call to one of its ``apis`` (resolved names) when every condition
compiled from its spec holds (msacclint.rules.table.conditions); matching is a loop over
those conditions. The keys and their meaning are documented in docs/dev/table-dsl.md.
Each checklist area contributes its own table rules
(``msacclint/rules/hp/table_rules.py``: ``RULES = table_rules("hp", __name__)``).

Adding a known difference is a table entry with its examples; no code.
"""

from __future__ import annotations

import re
from typing import Any, Dict, List, Optional, Tuple, Type

import libcst as cst

from msacclint.analysis.calls import argument, literal
from msacclint.analysis.edits import append_keywords
from msacclint.analysis.imports import canonical
from msacclint.diagnostics import Applicability, Severity
from msacclint.rules.base import FixSpec, Rule
from msacclint.rules.table.conditions import CallSite, Condition, compile_conditions
from msacclint.rules.table.spec import EntrySpec, FixTemplate, ParameterGroups, RuleSpec, area_of, load_table
from msacclint.rules.table.versions import TableRuleMixin


class CallRule(TableRuleMixin, Rule):
    """Base of the generated rules; the class attributes come from the table."""

    spec: RuleSpec
    apis: frozenset = frozenset()
    signature: Tuple[str, ...] = ()
    #: per-API positional order, for APIs whose parameters sit at different positions
    signatures: Dict[str, Tuple[str, ...]] = {}
    conditions: Tuple[Condition, ...] = ()
    fix_safe: Optional[FixTemplate] = None
    fix_unsafe: Optional[FixTemplate] = None
    fix_keep: Optional[FixTemplate] = None
    #: the parameter a message quotes when nothing is missing (the first ``require``)
    quoted: Tuple[str, ...] = ()
    #: the argument that may be a list of parameter-group dicts (None when the signature lacks it)
    groups: Optional[ParameterGroups] = None

    def visit_resolved_call(self, node: cst.Call, name: str) -> None:
        """The engine hands this rule the calls of its ``apis`` (``resolved_calls``), each
        callee resolved once for all rules."""
        if name not in self.apis:
            return
        site = CallSite(self.ctx, node, name, self.signatures.get(name, self.signature), self.groups)
        for condition in self.conditions:
            if not condition.holds(site):
                return
        quoted = site.absent or list(self.quoted)
        if self.contradicted(name, quoted):
            return
        fixes = [f for f in (self.build_fix(site, spec, Applicability(kind))
                             for kind, spec in (("safe", self.fix_safe), ("unsafe", self.fix_unsafe),
                                                ("keep", self.fix_keep)) if spec)
                 if f is not None]
        short = name.replace("mindspore.", "", 1)
        message = self.format_message(short=short, missing_list=" and ".join(site.absent), **site.values)
        related = [(v.evidence.path, v.evidence.line, v.evidence.what) for v in site.evidence if v.evidence]
        severity = None
        if site.assumed:
            severity = Severity.WARNING if self.severity is Severity.ERROR else Severity.INFO
        self.report(node, message + _resolved_note(site) + self.observed_note(name, quoted) + _assumed_note(site),
                    fixes, related=related, severity=severity)

    def build_fix(self, site: CallSite, spec: FixTemplate, applicability: Applicability) -> Optional[FixSpec]:
        """``add = {stride = "{kernel_size}"}`` appends keyword arguments the call (and its
        parameter groups) lack; ``{name}`` is the source text of that argument.
        ``set = {momentum = "0.9"}`` replaces one."""
        node, signature = site.node, site.signature
        texts = {p: cst.Module([]).code_for_node(a.value)
                 for p in signature for a in [argument(node, p, signature)] if a is not None}
        for param, text in list(texts.items()):
            value = literal(cst.parse_expression(text))
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                texts["one_minus_" + param] = f"{1 - value:.6g}"
        try:
            adds = {k: v.format(**texts) for k, v in spec.add.items() if not site.given(k)}
            sets = {k: v.format(**texts) for k, v in spec.set.items()}
        except (KeyError, IndexError):
            return None
        if not adds and not sets:
            return None
        args = list(node.args)
        for param, text in sets.items():
            arg = argument(node, param, signature)
            if arg is None:
                return None
            args[args.index(arg)] = arg.with_changes(value=cst.parse_expression(text))
        new_call = node.with_changes(args=args)
        if adds:
            new_call = add_keywords(new_call, adds)
        description = spec.description.format(**texts) if spec.description else \
            ", ".join(f"{k}={v}" for k, v in {**sets, **adds}.items())
        return FixSpec(description, applicability, [(node, new_call)])

    def format_message(self, **values: Any) -> str:
        try:
            return self.message.format(**values)
        except (KeyError, IndexError):
            return self.message


class AttributeSilencedCallRule(CallRule):
    """A call rule with ``unless_attribute``: a mention of one of those attribute names
    anywhere in the file silences it (the rule reports at the end of the file)."""

    unless_attribute: frozenset = frozenset()

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._silenced = False

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value in self.unless_attribute:
            self._silenced = True

    def finish(self) -> None:
        if self._silenced:
            self.reports.clear()


def _resolved_note(site: CallSite) -> str:
    """Where the project found a value the message quotes by its name (``momentum``: 0.1,
    the default every caller leaves)."""
    if not site.evidence:
        return ""
    shown = sorted({f"{v.value!r} at {v.evidence.where()}" if v.evidence else f"{v.value!r}, the default"
                    for v in site.evidence})
    return f" (the value is {', '.join(shown[:3])})"


def _assumed_note(site: CallSite) -> str:
    """What the finding assumed because the analysis could not read it (one grade lower)."""
    if not site.assumed:
        return ""
    parts = "; ".join(f"assumed that {what}: {arg} could not be resolved" if what else
                      f"assumed: {arg} could not be resolved" for arg, what in site.assumed)
    return f" (warning: {parts})"


def called(ctx, call: cst.Call) -> Optional[str]:
    """The resolved name a call calls; None for ``f(...)(...)``, whose outer call is a
    call of the object ``f(...)`` returns (``ops.ResizeBilinear(size)(x)``), not of ``f``."""
    if isinstance(call.func, cst.Call):
        return None
    return ctx.resolve(call.func)


def add_keywords(call: cst.Call, adds: Dict[str, str]) -> cst.Call:
    """``call`` with ``name=text`` keyword arguments appended, following its layout."""
    return append_keywords(call, list(adds.items()))


def _placeholders(text: str) -> str:
    """``stride={kernel_size}`` as a reader sees it on the rule page: ``stride=<kernel_size>``
    (``{one_minus_momentum}`` becomes ``<1 - momentum>``)."""
    text = re.sub(r"\{one_minus_(\w+)\}", r"<1 - \1>", text)
    return re.sub(r"\{(\w+)\}", r"<\1>", text)


def _fix_safety(spec: RuleSpec) -> str:
    if spec.fix_safety:
        return spec.fix_safety
    titles = {"safe": "Safe fix", "unsafe": "Unsafe fix",
              "keep": "Keep this behaviour (not a fix; `--add-explicit` only)"}
    return " ".join(
        f"{titles[kind]}: "
        f"{_placeholders(s.description or ', '.join(f'{k}={v}' for k, v in {**s.set, **s.add}.items()))}."
        for kind, s in (("safe", spec.fix_safe), ("unsafe", spec.fix_unsafe), ("keep", spec.fix_keep)) if s)


def _use_instead(spec: RuleSpec) -> str:
    """The corrected form of the page's example: stated, else the first invalid example
    after its fix."""
    if spec.use_instead:
        return spec.use_instead
    first = spec.invalid[0] if spec.invalid else None
    if first is not None and (first.fixed or first.unsafe_fixed):
        return first.fixed or first.unsafe_fixed or ""
    return ""


def make_rule(entry: EntrySpec, spec: RuleSpec, module: str = __name__) -> Type[Rule]:
    """A Rule class for one ``[[entry.rules]]`` of the table, defined in ``module``."""
    signature = tuple(spec.signature)
    signatures = {canonical(api): tuple(params) for api, params in spec.signatures.items()}
    groups = load_table().parameter_groups
    if groups is not None and groups.argument not in signature \
            and not any(groups.argument in s for s in signatures.values()):
        groups = None
    attrs: Dict[str, Any] = dict(
        spec=spec,
        code=spec.code,
        name=spec.name,
        checklist=spec.checklist or entry.checklist,
        severity=Severity(spec.severity or entry.severity),
        group=spec.group,
        message=spec.message,
        entry_id=entry.id,
        since=spec.since if spec.since is not None else entry.since,
        until=spec.until if spec.until is not None else entry.until,
        what=spec.what or ("Reports " + entry.flag.rstrip(".") + "." if entry.flag else ""),
        why=spec.why or entry.consequence,
        example=spec.example or (spec.invalid[0].code if spec.invalid else ""),
        use_instead=_use_instead(spec),
        versions=spec.versions or entry.version_notes,
        fix_safety=_fix_safety(spec),
        evidence=spec.evidence,
        about_the_run=spec.about_the_run,
        references=tuple(spec.references),
        VALID=tuple(spec.valid),
        INVALID=tuple(spec.invalid),
        apis=frozenset(canonical(a) for a in spec.apis),
        resolved_calls=frozenset(canonical(a) for a in spec.apis),
        signature=signature,
        signatures=signatures,
        conditions=compile_conditions(spec),
        fix_safe=spec.fix_safe,
        fix_unsafe=spec.fix_unsafe,
        fix_keep=spec.fix_keep,
        quoted=tuple(c.arg for c in spec.require[:1]),
        groups=groups,
        __module__=module,
        __doc__=f"{spec.code} ({spec.name}): table entry {entry.id}.",
    )
    base: Type[CallRule] = CallRule
    if spec.unless_attribute:
        base = AttributeSilencedCallRule
        attrs["unless_attribute"] = frozenset(spec.unless_attribute)
    class_name = "".join(part.capitalize() for part in spec.name.split("-"))
    return type(class_name, (base,), attrs)


def table_specs() -> List[Tuple[EntrySpec, RuleSpec]]:
    return list(load_table().rules())


def spec_for(code: str) -> Optional[Tuple[EntrySpec, RuleSpec]]:
    for item, spec in load_table().rules():
        if spec.code == code:
            return item, spec
    return None


def table_rules(area: str, module: str) -> Tuple[Type[Rule], ...]:
    """The rules of the table whose checklist area is ``area``, as classes of ``module``
    (an area's ``table_rules.py``: ``RULES = table_rules("hp", __name__)``)."""
    return tuple(make_rule(item, spec, module) for item, spec in load_table().rules() if area_of(item, spec) == area)
