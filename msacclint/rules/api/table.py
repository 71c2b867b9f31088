"""The table-driven rule family: one rule per ``kind = "call"`` entry of
rules/api_defaults.toml.

A call rule fires on a call to one of ``apis`` (resolved names) when
- every argument in ``missing`` is absent (``missing_mode = "all"``, the default), or
  any of them is (``missing_mode = "any"``), and
- every ``require`` condition holds: ``{arg, op, value, unknown, absent}`` compares the
  argument's literal value with ``value`` (ops: < <= > >= == != in); ``unknown`` says
  what a non-literal value does ("skip" or "flag"), ``absent`` what a missing one does.
  A tuple of numbers compared with a number is compared by its largest element
  (``kernel_size=(1, 3)`` counts as > 1, ``(1, 1)`` as == 1). With ``value_arg`` the
  comparison is against another argument's literal (``value`` when that one is absent;
  a non-literal one counts as ``unknown``).
``unless_handled`` (missing parameter -> "onehot_labels" | "reduced") silences a loss
built as a sub-cell whose ``construct`` feeds it one-hot labels / reduces its output, so
that the default is what the code needs (analysis.loss_use).
``unless_attribute`` lists attribute names whose mention anywhere in the file silences
the rule (``cell.embedding_table.set_data(...)`` re-initialises what the call left at its
default); such rules report at the end of the file.
``unless_feeds`` lists layers (resolved names) whose taking the output silences the rule:
a pool whose output goes straight into Flatten/Reshape/Dense is a global pool, and a
wrong output size there fails loudly at the Dense, not silently (analysis.cells).
``unless_next_downsamples`` silences a pool whose output goes into a layer that downsamples
itself (stride > 1): a stride-1 smoothing pool in front of a strided layer is what such a
block means (analysis.downsampling).
``unless_called_with`` (conditions, as in ``unless``) silences a layer built as a sub-cell
when every call of it in the class passes arguments that hold them
(``self.up(x, scale_factor=2, align_corners=True)`` for ``nn.ResizeBilinear``, whose
sampling options are given per call).
``unless`` is a list of condition groups (same vocabulary as ``require``, plus
``op = "given"``): a call for which every condition of one group holds is not reported
(``use_batch_statistics=False`` together with hand-set ``moving_mean_init`` is a
deliberately frozen BatchNorm, not a mode mistake).
A call that passes ``**kwargs`` is never reported for a missing argument.
``signatures`` (api -> parameter names) overrides ``signature`` for APIs whose
positional order differs (Conv2d vs Dense); a fix's ``add`` skips arguments the call
already passes.
The table's top-level ``[parameter_groups]`` (``argument``, ``keys``: group-dict key ->
parameter) applies to every rule whose signature names that argument: when it is a
literal list of group dicts (directly or via a local name), a parameter that any group
sets counts as given, for ``missing``, ``op = "given"`` and a fix's ``add``
(analysis.param_groups).

Adding a known difference is a table entry with its examples; no code.
"""

from __future__ import annotations

import operator
from typing import Any, Dict, List, Optional, Sequence, Tuple, Type

import libcst as cst

from msacclint.analysis.edits import append_keywords
from msacclint.analysis.calls import UNKNOWN, argument, constant, has_star_args, has_star_kwargs, literal
from msacclint.analysis import param_groups
from msacclint.analysis.imports import canonical
from msacclint.data import api_defaults
from msacclint.diagnostics import Applicability, Severity
from msacclint.engine.rule import FixSpec, Invalid, Rule, Valid
from msacclint.rules.api.versions import TableRuleMixin

_OPS = {
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "==": operator.eq,
    "!=": operator.ne,
    "in": lambda a, b: a in b,
}


class CallRule(TableRuleMixin, Rule):
    """Base of the generated rules; the class attributes come from the table."""

    apis: frozenset = frozenset()
    signature: Tuple[str, ...] = ()
    #: per-API positional order, for APIs whose parameters sit at different positions
    signatures: Dict[str, Tuple[str, ...]] = {}
    missing: Tuple[str, ...] = ()
    missing_mode: str = "all"
    require: Tuple[Dict[str, Any], ...] = ()
    fix_safe: Optional[Dict[str, Any]] = None
    fix_unsafe: Optional[Dict[str, Any]] = None
    unless_attribute: frozenset = frozenset()
    #: missing parameter -> what makes its default right when the call is a loss sub-cell
    #: (analysis.loss_use: "onehot_labels" or "reduced"); all missing ones handled -> silent
    unless_handled: Dict[str, str] = {}
    unless_feeds: frozenset = frozenset()
    unless_next_downsamples: bool = False
    unless_called_with: Tuple[Dict[str, Any], ...] = ()
    unless: Tuple[Tuple[Dict[str, Any], ...], ...] = ()
    #: the argument that may be a list of parameter-group dicts, and group key -> parameter
    #: it sets (from the table's [parameter_groups]; empty when the signature lacks it)
    group_argument: str = ""
    group_keys: Dict[str, str] = {}

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._silenced = False

    def get_visitors(self) -> Dict[str, Any]:
        # the engine hands this rule its calls (resolved_calls = apis); attributes are
        # only watched when a name in them silences the rule
        return {"visit_Attribute": self.visit_Attribute} if self.unless_attribute else {}

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if self.unless_attribute and node.attr.value in self.unless_attribute:
            self._silenced = True

    def finish(self) -> None:
        if self._silenced:
            self.reports.clear()

    def _called_with(self, node: cst.Call) -> bool:
        from msacclint.analysis.cells import attribute_of, calls_of_attr

        where = attribute_of(self.ctx, node)
        if where is None or where[2] is not None:
            return False
        uses = calls_of_attr(where[0], where[1])
        return bool(uses) and all(_holds(self.ctx, use, cond, ()) for use in uses for cond in self.unless_called_with)

    def visit_Call(self, node: cst.Call) -> None:
        name = called(self.ctx, node)
        if name is not None:
            self.visit_resolved_call(node, name)

    def visit_resolved_call(self, node: cst.Call, name: str) -> None:
        if name not in self.apis:
            return
        signature = self.signatures.get(name, self.signature)
        values: Dict[str, Any] = {}
        absent: List[str] = []
        if self.missing:
            if has_star_kwargs(node) or has_star_args(node):
                return
            absent = [p for p in self.missing if not self.given(node, p, signature)]
            if self.missing_mode == "any" and not absent:
                return
            if self.missing_mode == "all" and len(absent) != len(self.missing):
                return
            if self.unless_handled and absent and all(p in self.unless_handled for p in absent):
                from msacclint.analysis.loss_use import handling

                handled = handling(self.ctx, node)
                if handled is not None and all(handled[self.unless_handled[p]] for p in absent):
                    return
        if any(all(self.given(node, cond["arg"], signature) if cond["op"] == "given" else _holds(self.ctx, node, cond, signature)
                   for cond in group) for group in self.unless):
            return
        if self.unless_feeds:
            from msacclint.analysis.cells import next_layers

            following = next_layers(self.ctx, node)
            if following and any(layer in self.unless_feeds for layer in following):
                return
        if self.unless_called_with and self._called_with(node):
            return
        if self.unless_next_downsamples:
            from msacclint.analysis.downsampling import next_downsamples

            if next_downsamples(self.ctx, node):
                return
        for cond in self.require:
            arg = argument(node, cond["arg"], signature)
            if arg is None:
                if has_star_kwargs(node) or cond.get("absent", "skip") == "skip":
                    return
                continue
            against = cond["value"]
            if "value_arg" in cond:
                other = argument(node, cond["value_arg"], signature)
                against = constant(self.ctx, other.value) if other is not None else cond["value"]
                if against is UNKNOWN:
                    if cond.get("unknown", "skip") == "skip":
                        return
                    continue
            value = _comparable(constant(self.ctx, arg.value), against)
            against = _comparable(against, value)
            values[cond["arg"]] = cst.Module([]).code_for_node(arg.value)
            if value is UNKNOWN or (isinstance(value, bool) and not isinstance(against, (bool, list))):
                if cond.get("unknown", "skip") == "skip":
                    return
                continue
            try:
                if not _OPS[cond["op"]](value, against):
                    return
            except TypeError:
                return
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                values["one_minus_" + cond["arg"]] = _round(1 - value)
        short = name.replace("mindspore.", "", 1)
        fixes = [f for f in (self.build_fix(node, spec, Applicability(kind), signature)
                             for kind, spec in (("safe", self.fix_safe), ("unsafe", self.fix_unsafe)) if spec)
                 if f is not None]
        quoted = absent or [c["arg"] for c in self.require[:1]]
        if self.contradicted(name, quoted):
            return
        message = self.format_message(short=short, missing_list=" and ".join(absent), **values)
        self.report(node, message + self.observed_note(name, quoted), fixes)

    def build_fix(self, node: cst.Call, spec: Dict[str, Any], applicability: Applicability,
                  signature: Optional[Sequence[str]] = None) -> Optional[FixSpec]:
        """``add = {stride = "{kernel_size}"}`` appends keyword arguments; ``{name}`` is
        the source text of that argument. ``set = {momentum = "0.9"}`` replaces one."""
        signature = self.signature if signature is None else signature
        texts = {p: cst.Module([]).code_for_node(a.value)
                 for p in signature for a in [argument(node, p, signature)] if a is not None}
        for param, text in list(texts.items()):
            value = literal(cst.parse_expression(text))
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                texts["one_minus_" + param] = _round(1 - value)
        try:
            adds = {k: v.format(**texts) for k, v in spec.get("add", {}).items()
                    if not self.given(node, k, signature)}
            sets = {k: v.format(**texts) for k, v in spec.get("set", {}).items()}
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
        description = spec.get("description", "").format(**texts) if spec.get("description") else \
            ", ".join(f"{k}={v}" for k, v in {**sets, **adds}.items())
        return FixSpec(description, applicability, [(node, new_call)])

    def given(self, node: cst.Call, param: str, signature: Sequence[str]) -> bool:
        """Whether the call passes ``param``, itself or in one of its parameter groups."""
        if argument(node, param, signature) is not None:
            return True
        if not self.group_keys or param not in self.group_keys.values():
            return False
        groups = argument(node, self.group_argument, signature)
        if groups is None:
            return False
        keys = param_groups.group_keys(self.ctx, node, groups.value)
        return any(self.group_keys.get(key) == param for key in keys)

    def format_message(self, **values: Any) -> str:
        try:
            return self.message.format(**values)
        except (KeyError, IndexError):
            return self.message


def called(ctx, call: cst.Call) -> Optional[str]:
    """The resolved name a call calls; None for ``f(...)(...)``, whose outer call is a
    call of the object ``f(...)`` returns (``ops.ResizeBilinear(size)(x)``), not of ``f``."""
    if isinstance(call.func, cst.Call):
        return None
    return ctx.resolve(call.func)


def add_keywords(call: cst.Call, adds: Dict[str, str]) -> cst.Call:
    """``call`` with ``name=text`` keyword arguments appended, following its layout."""
    return append_keywords(call, list(adds.items()))


def _comparable(value: Any, against: Any) -> Any:
    """A tuple of numbers compared with a number stands for its largest element."""
    if (isinstance(value, tuple) and value and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)
            and isinstance(against, (int, float)) and not isinstance(against, bool)):
        return max(value)
    return value


def _holds(ctx, call: cst.Call, cond: Dict[str, Any], signature: Sequence[str]) -> bool:
    """One ``unless`` condition: the argument is given and, unless ``op`` is "given", its
    literal value compares true with ``value``."""
    arg = argument(call, cond["arg"], signature)
    if arg is None:
        return False
    if cond["op"] == "given":
        return True
    value = constant(ctx, arg.value)
    if value is UNKNOWN:
        return False
    try:
        return bool(_OPS[cond["op"]](value, cond["value"]))
    except TypeError:
        return False


def _placeholders(text: str) -> str:
    """``stride={kernel_size}`` as a reader sees it on the rule page: ``stride=<kernel_size>``
    (``{one_minus_momentum}`` becomes ``<1 - momentum>``)."""
    import re

    text = re.sub(r"\{one_minus_(\w+)\}", r"<1 - \1>", text)
    return re.sub(r"\{(\w+)\}", r"<\1>", text)


def _round(value: float) -> str:
    return f"{value:.6g}"


def _examples(spec: Dict[str, Any]) -> Tuple[Sequence[Valid], Sequence[Invalid]]:
    valid = [Valid(v) if isinstance(v, str) else Valid(**v) for v in spec.get("valid", ())]
    invalid = [Invalid(**i) for i in spec.get("invalid", ())]
    return valid, invalid


def make_rule(entry: Dict[str, Any], spec: Dict[str, Any], base: Type[Rule] = CallRule) -> Type[Rule]:
    """A Rule class for one ``[[entry.rules]]`` spec of the table."""
    valid, invalid = _examples(spec)
    attrs: Dict[str, Any] = dict(
        code=spec["code"],
        name=spec["name"],
        checklist=spec.get("checklist", entry["checklist"]),
        severity=Severity(spec.get("severity", entry["severity"])),
        message=spec.get("message", ""),
        entry_id=entry["id"],
        since=spec.get("since", entry.get("since")),
        until=spec.get("until", entry.get("until")),
        what=spec.get("what", "Reports " + entry["flag"].rstrip(".") + "." if entry.get("flag") else ""),
        why=spec.get("why", entry["consequence"]),
        example=spec.get("example", invalid[0].code if invalid else ""),
        use_instead=spec.get("use_instead", valid[0].code if valid else ""),
        versions=spec.get("versions", entry.get("version_notes", "")),
        fix_safety=spec.get("fix_safety", ""),
        references=tuple(spec.get("references", ())),
        VALID=tuple(valid),
        INVALID=tuple(invalid),
        __module__=__name__,
        __doc__=f"{spec['code']} ({spec['name']}): table entry {entry['id']}.",
    )
    if "default" in spec:
        attrs["default_enabled"] = spec["default"]
    if base is CallRule:
        attrs.update(
            apis=frozenset(canonical(a) for a in spec["apis"]),
            resolved_calls=frozenset(canonical(a) for a in spec["apis"]),
            signature=tuple(spec.get("signature", ())),
            signatures={canonical(api): tuple(params) for api, params in spec.get("signatures", {}).items()},
            missing=tuple(spec.get("missing", ())),
            missing_mode=spec.get("missing_mode", "all"),
            require=tuple(spec.get("require", ())),
            fix_safe=spec.get("fix_safe"),
            fix_unsafe=spec.get("fix_unsafe"),
            unless_attribute=frozenset(spec.get("unless_attribute", ())),
            unless_handled=dict(spec.get("unless_handled", {})),
            unless_feeds=frozenset(canonical(a) for a in spec.get("unless_feeds", ())),
            unless_next_downsamples=bool(spec.get("unless_next_downsamples", False)),
            unless_called_with=tuple(spec.get("unless_called_with", ())),
            unless=tuple(tuple(group) for group in spec.get("unless", ())),
        )
        attrs.update(_parameter_groups(attrs["signature"], attrs["signatures"]))
        if not spec.get("fix_safety") and (spec.get("fix_safe") or spec.get("fix_unsafe")):
            attrs["fix_safety"] = " ".join(
                f"{kind.capitalize()} fix: {_placeholders(s.get('description') or ', '.join(f'{k}={v}' for k, v in {**s.get('set', {}), **s.get('add', {})}.items()))}."
                for kind, s in (("safe", spec.get("fix_safe")), ("unsafe", spec.get("fix_unsafe"))) if s)
    class_name = "".join(part.capitalize() for part in spec["name"].split("-"))
    return type(class_name, (base,), attrs)


def _parameter_groups(signature: Sequence[str], signatures: Dict[str, Sequence[str]]) -> Dict[str, Any]:
    """The table's [parameter_groups] for a rule whose signature names its argument."""
    groups = api_defaults().get("parameter_groups")
    if not groups:
        return {}
    argument_name = groups["argument"]
    if argument_name not in signature and not any(argument_name in s for s in signatures.values()):
        return {}
    return {"group_argument": argument_name, "group_keys": dict(groups["keys"])}


def table_specs(kind: str) -> List[Tuple[Dict[str, Any], Dict[str, Any]]]:
    return [(entry, spec) for entry in api_defaults()["entry"]
            for spec in entry.get("rules", ()) if spec.get("kind") == kind]


def spec_for(code: str) -> Optional[Tuple[Dict[str, Any], Dict[str, Any]]]:
    for entry in api_defaults()["entry"]:
        for spec in entry.get("rules", ()):
            if spec["code"] == code:
                return entry, spec
    return None


RULES = tuple(make_rule(entry, spec) for entry, spec in table_specs("call"))
