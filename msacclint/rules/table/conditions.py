"""The conditions of a table rule, compiled from its spec.

Each condition is one question about a call that the analysis layer answers; a call rule
reports a call to one of its APIs when every condition holds, in order (cheap questions
first, as the table lists them). A new ``unless_*`` key of the table must be such a
question, reusable by any entry, never an exception for one repository's code.
"""

from __future__ import annotations

import difflib
import operator
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Dict, FrozenSet, List, Mapping, Optional, Sequence, Tuple

import libcst as cst

from msacclint.analysis import param_groups
from msacclint.analysis.calls import UNKNOWN, argument, constant, has_star_args, has_star_kwargs
from msacclint.analysis.cell_layers import next_layers
from msacclint.analysis.cells import attribute_of, calls_of_attr
from msacclint.analysis.downsampling import next_downsamples
from msacclint.analysis.global_pool import pooled_to_one
from msacclint.analysis.imports import canonical
from msacclint.analysis.loss_use import handling
from msacclint.analysis.shapes import covers_whole_map
from msacclint.analysis.statistics import ddof_cancels
from msacclint.rules.table.spec import Comparison, ParameterGroups, RuleSpec

OPS: Dict[str, Callable[[Any, Any], bool]] = {
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "==": operator.eq,
    "!=": operator.ne,
    "in": lambda a, b: a in b,
    "not in": lambda a, b: a not in b,
}


@dataclass
class CallSite:
    """One call a table rule looks at, and what its conditions learnt about it."""

    ctx: Any
    node: cst.Call
    name: str
    signature: Sequence[str]
    groups: Optional[ParameterGroups] = None
    #: parameters of ``missing`` the call does not pass
    absent: List[str] = field(default_factory=list)
    #: message placeholders: an argument's source text, ``one_minus_<arg>``
    values: Dict[str, str] = field(default_factory=dict)
    #: values the project resolved for arguments that are not literals (a constructor's
    #: parameter through its callers, its own default, a config key): msacclint.project.values
    evidence: List[Any] = field(default_factory=list)
    #: preconditions of the harm that could not be resolved and were assumed (``unknown =
    #: "assume"``): (argument as written, what is assumed); the finding is one grade lower
    assumed: List[Tuple[str, str]] = field(default_factory=list)

    def given(self, param: str) -> bool:
        """Whether the call passes ``param``, itself or in one of its parameter groups."""
        if argument(self.node, param, self.signature) is not None:
            return True
        groups = self.groups
        if groups is None or param not in groups.keys.values():
            return False
        arg = argument(self.node, groups.argument, self.signature)
        if arg is None:
            return False
        keys = param_groups.group_keys(self.ctx, self.node, arg.value)
        return any(groups.keys.get(key) == param for key in keys)


class Condition:
    """A question about a call; the rule reports only when every condition holds."""

    #: the question, as the DSL reference and a rule's docstring state it
    question: ClassVar[str] = ""

    def holds(self, site: CallSite) -> bool:
        raise NotImplementedError


@dataclass(frozen=True)
class ArgumentsMissing(Condition):
    """``missing`` / ``missing_mode``: are the parameters absent (all of them, or any)?
    A call passing ``*args``/``**kwargs`` may pass them: never reported."""

    params: Tuple[str, ...]
    mode: str = "all"
    question: ClassVar[str] = "Does the call leave these parameters at their default?"

    def holds(self, site: CallSite) -> bool:
        if has_star_kwargs(site.node) or has_star_args(site.node):
            return False
        site.absent = [p for p in self.params if not site.given(p)]
        if _misspelled(site, site.absent):
            return False  # the call raises TypeError on its first run: loud, not silent
        if self.mode == "any":
            return bool(site.absent)
        return len(site.absent) == len(self.params)


def _misspelled(site: CallSite, absent: List[str]) -> bool:
    """A keyword the API does not take that is a near spelling of an absent parameter
    (``strides=`` for ``stride``): the call fails with TypeError, nothing is defaulted."""
    known = set(site.signature)
    for arg in site.node.args:
        keyword = arg.keyword.value if arg.keyword is not None else None
        if keyword is None or keyword in known:
            continue
        if difflib.get_close_matches(keyword, absent, n=1, cutoff=0.8):
            return True
    return False


@dataclass(frozen=True)
class DefaultsNotHandledByLoss(Condition):
    """``unless_handled``: a loss built as a sub-cell whose ``construct`` feeds it one-hot
    labels / reduces its output needs the default (msacclint.analysis.loss_use)."""

    handled: Mapping[str, str]
    question: ClassVar[str] = "Does the loss's use in construct make the missing defaults right?"

    def holds(self, site: CallSite) -> bool:
        if not site.absent or not all(p in self.handled for p in site.absent):
            return True
        found = handling(site.ctx, site.node)
        return found is None or not all(found[self.handled[p]] for p in site.absent)


def _compares(site: CallSite, call: cst.Call, cond: Comparison) -> bool:
    """The argument is given and, unless ``op`` is "given", its literal value compares
    true with ``value``."""
    arg = argument(call, cond.arg, site.signature)
    if arg is None:
        return cond.op == "given" and site.given(cond.arg)
    if cond.op == "given":
        return True
    value = constant(site.ctx, arg.value)
    if value is UNKNOWN:
        return False
    try:
        return bool(OPS[cond.op](value, cond.value))
    except TypeError:
        return False


@dataclass(frozen=True)
class NoGroupHolds(Condition):
    """``unless``: no group of conditions holds entirely (a deliberate combination)."""

    groups: Tuple[Tuple[Comparison, ...], ...]
    question: ClassVar[str] = "Do the arguments form one of the deliberate combinations?"

    def holds(self, site: CallSite) -> bool:
        return not any(all(_compares(site, site.node, c) for c in group) for group in self.groups)


@dataclass(frozen=True)
class OutputNotFedTo(Condition):
    """``unless_feeds``: the layer's output does not go straight into one of these layers
    (a pool feeding Flatten/Dense is a global pool; msacclint.analysis.cells)."""

    layers: FrozenSet[str]
    question: ClassVar[str] = "Which layers take this layer's output?"

    def holds(self, site: CallSite) -> bool:
        following = next_layers(site.ctx, site.node)
        return not (following and any(layer in self.layers for layer in following))


@dataclass(frozen=True)
class NotAlwaysCalledWith(Condition):
    """``unless_called_with``: a layer built as a sub-cell is not called, at every call in
    its class, with arguments that hold these conditions (per-call sampling options)."""

    conditions: Tuple[Comparison, ...]
    question: ClassVar[str] = "How is this sub-cell called in its class?"

    def holds(self, site: CallSite) -> bool:
        where = attribute_of(site.ctx, site.node)
        if where is None or where[2] is not None:
            return True
        uses = calls_of_attr(where[0], where[1])
        plain = CallSite(site.ctx, site.node, site.name, ())
        return not (uses and all(_compares(plain, use, c) for use in uses for c in self.conditions))


@dataclass(frozen=True)
class NotReducedToOne(Condition):
    """``unless_global_use``: the pool does not cover the whole feature map. It does when its
    output is, further on in ``construct``, squeezed or fed to a Dense (past reshapes and
    concatenation with other branches: msacclint.analysis.global_pool), or when its kernel
    equals the spatial size of the map it is given, followed from a known input size through
    the layers in front of it (msacclint.analysis.shapes)."""

    question: ClassVar[str] = ("Is the output squeezed or fed to a Dense, past reshapes and concatenation, or does "
                               "the kernel equal the size of the map it is given?")

    def holds(self, site: CallSite) -> bool:
        return not pooled_to_one(site.ctx, site.node) and not covers_whole_map(site.ctx, site.node)


@dataclass(frozen=True)
class DdofMatters(Condition):
    """``unless_ddof_cancels``: the estimator's factor does not cancel where the result is used
    (a ratio of two estimates, a normaliser applied and inverted; msacclint.analysis.statistics)."""

    question: ClassVar[str] = "Does the estimate's ddof factor cancel (a ratio, a normaliser inverted)?"

    def holds(self, site: CallSite) -> bool:
        return not ddof_cancels(site.ctx, site.node)


@dataclass(frozen=True)
class NextLayerDoesNotDownsample(Condition):
    """``unless_next_downsamples``: the layer's output does not go into a layer that
    downsamples itself (msacclint.analysis.downsampling)."""

    question: ClassVar[str] = "Does the next layer downsample (stride > 1)?"

    def holds(self, site: CallSite) -> bool:
        return not next_downsamples(site.ctx, site.node)


@dataclass(frozen=True)
class ArgumentCompares(Condition):
    """``require``: the argument's literal value compares true (``unknown``/``absent`` say
    what an unreadable value / a missing argument does). A tuple of numbers compared with
    a number stands for its largest element."""

    cond: Comparison
    question: ClassVar[str] = "What literal value does this argument have?"

    def holds(self, site: CallSite) -> bool:
        cond, node = self.cond, site.node
        arg = argument(node, cond.arg, site.signature)
        if arg is None:
            return not (has_star_kwargs(node) or cond.absent == "skip")
        against = cond.value
        if cond.value_arg is not None:
            other = argument(node, cond.value_arg, site.signature)
            against = constant(site.ctx, other.value) if other is not None else cond.value
            if against is UNKNOWN:
                return _unknown(site, cond, other.value if other is not None else None)
        value = constant(site.ctx, arg.value)
        site.values[cond.arg] = cst.Module([]).code_for_node(arg.value)
        if value is UNKNOWN and cond.value_arg is None:
            value = _resolved(site, arg.value, cond, against)
        value = comparable(value, against)
        against = comparable(against, value)
        if value is UNKNOWN or (isinstance(value, bool) and not isinstance(against, (bool, list))):
            return _unknown(site, cond, arg.value) if value is UNKNOWN else cond.unknown == "flag"
        try:
            if not OPS[cond.op](value, against):
                return False
        except TypeError:
            return False
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            site.values["one_minus_" + cond.arg] = f"{1 - value:.6g}"
        return True


def _unknown(site: CallSite, cond: Comparison, expr: Optional[cst.BaseExpression]) -> bool:
    """What a value the analysis cannot read does: skip the call, flag it, or flag it one grade
    lower with the precondition it assumes (``unknown = "assume"``)."""
    if cond.unknown == "assume":
        text = cst.Module([]).code_for_node(expr) if expr is not None else cond.arg
        entry = (f"{cond.arg}={text}" if text != cond.arg else cond.arg, cond.assumption)
        if entry not in site.assumed:
            site.assumed.append(entry)
        return True
    return cond.unknown == "flag"


def _resolved(site: CallSite, expr: cst.BaseExpression, cond: Comparison, against: Any) -> Any:
    """The value of an argument that is not a literal, resolved by the project
    (``ProjectIndex.values_at``: a parameter through every caller, a default, a config key):
    the first value that compares true when every alternative is known, its evidence kept
    for the message; else the first value (the condition then fails), or UNKNOWN."""
    project = site.ctx.project
    if project is None:
        return UNKNOWN
    values = project.values_at(site.ctx, expr, site.node)
    if not values or any(v.value is UNKNOWN for v in values):
        return UNKNOWN
    for found in values:
        value = comparable(found.value, against)
        try:
            if not (isinstance(value, bool) and not isinstance(against, (bool, list))) and \
                    OPS[cond.op](value, comparable(against, value)):
                site.evidence.append(found)
                return found.value
        except TypeError:
            continue
    return values[0].value


def comparable(value: Any, against: Any) -> Any:
    """A tuple of numbers compared with a number stands for its largest element."""
    if (isinstance(value, tuple) and value and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)
            and isinstance(against, (int, float)) and not isinstance(against, bool)):
        return max(value)
    return value


def compile_conditions(spec: RuleSpec) -> Tuple[Condition, ...]:
    """The rule's conditions in the order they are asked."""
    conditions: List[Condition] = []
    if spec.missing:
        conditions.append(ArgumentsMissing(spec.missing, spec.missing_mode))
        if spec.unless_handled:
            conditions.append(DefaultsNotHandledByLoss(dict(spec.unless_handled)))
    if spec.unless:
        conditions.append(NoGroupHolds(spec.unless))
    if spec.unless_feeds:
        conditions.append(OutputNotFedTo(frozenset(canonical(a) for a in spec.unless_feeds)))
    if spec.unless_called_with:
        conditions.append(NotAlwaysCalledWith(spec.unless_called_with))
    if spec.unless_ddof_cancels:
        conditions.append(DdofMatters())
    if spec.unless_global_use:
        conditions.append(NotReducedToOne())
    if spec.unless_next_downsamples:
        conditions.append(NextLayerDoesNotDownsample())
    conditions.extend(ArgumentCompares(cond) for cond in spec.require)
    return tuple(conditions)
