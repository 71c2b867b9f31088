"""Whether the branches around a call let it run, given the values the project gives what they
test: ``if config.seed and ...: ms.set_seed(config.seed)`` never seeds with the shipped config's
``seed: 0``; ``if args.seed:`` never runs with an argparse default of 0 or None.

``skipped_by_guard(ctx, call)`` reads each branch test around the call (the call's own
function, innermost last) as Python would evaluate it — names and attribute chains
(``config.seed``, ``args.seed``, a parameter) by the values the project layer resolves for them
at the call (``ProjectIndex.values_at``: constants, configs, config files, argparse defaults,
what the callers pass), ``not``, ``and``/``or``, one comparison with a literal — in three-valued
logic, so a part it cannot read (a call, an unresolved name) is unknown and decides nothing.
It returns a ``Skip`` for the first test that is false on the call's path for some combination of
known values (``always``: for every one), with the values that make it so; None otherwise.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple

import libcst as cst

from msacclint.analysis.calls import UNKNOWN, literal
from msacclint.analysis.context import FileContext
from msacclint.analysis.scopes import scopes
from msacclint.analysis.source import code_of

#: combinations of the tested values read at most (several leaves with several values each)
MAX_COMBINATIONS = 64


@dataclass(frozen=True)
class Skip:
    #: the test, as written, and the branch the call sits in (True: its body)
    test: str
    branch: bool
    #: (what is tested, the value, where the value was written: "path:line" or "")
    values: Tuple[Tuple[str, Any, str], ...]
    #: the call is skipped for every combination of the values the project gives
    always: bool

    def said(self) -> str:
        """The values that skip the call, as a clause: ``config.seed = 0 (default_config.yaml:4)``."""
        return ", ".join(f"{what} = {value!r}" + (f" ({where})" if where else "") for what, value, where in self.values)


def skipped_by_guard(ctx: FileContext, call: cst.Call) -> Optional[Skip]:
    project = ctx.project
    event = scopes(ctx).event(call)
    if project is None or event is None:
        return None
    for test, branch in event.guards:
        leaves = _leaves(test)
        if not leaves or len(leaves) > 3:
            continue
        known: Dict[str, List[Tuple[Any, str]]] = {}
        for text, node in leaves.items():
            values = project.values_at(ctx, node, call)
            if values:
                known[text] = [(v.value, v.evidence.where() if v.evidence is not None else "") for v in values]
        if not known:
            continue
        names = sorted(known)
        combos = list(itertools.islice(itertools.product(*(known[n] for n in names)), MAX_COMBINATIONS))
        failing = []
        for combo in combos:
            binding = {name: value for name, (value, _where) in zip(names, combo)}
            held = _truth(test, binding)
            if held is not None and held is not branch:
                failing.append(tuple((name, value, where) for name, (value, where) in zip(names, combo)
                                     if _decides(test, name, binding, branch)))
        if failing:
            shown = next((f for f in failing if f), failing[0])
            return Skip(code_of(test), branch, shown, len(failing) == len(combos))
    return None


def _leaves(test: cst.BaseExpression) -> Dict[str, cst.BaseExpression]:
    """The names and attribute chains a test reads as values (not called, not compared with
    each other), by their code."""
    out: Dict[str, cst.BaseExpression] = {}

    def visit(node: cst.BaseExpression) -> None:
        if isinstance(node, cst.BooleanOperation):
            visit(node.left)
            visit(node.right)
        elif isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
            visit(node.expression)
        elif isinstance(node, cst.Comparison) and len(node.comparisons) == 1:
            visit(node.left)
        elif isinstance(node, (cst.Name, cst.Attribute)) and not _constant_name(node):
            out[code_of(node)] = node

    visit(test)
    return out


def _constant_name(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value in ("True", "False", "None")


def _truth(test: cst.BaseExpression, binding: Dict[str, Any]) -> Optional[bool]:
    """The test's truth for one binding of its leaves; None when it cannot be told."""
    if isinstance(test, cst.BooleanOperation):
        left, right = _truth(test.left, binding), _truth(test.right, binding)
        if isinstance(test.operator, cst.And):
            return False if False in (left, right) else (None if None in (left, right) else True)
        return True if True in (left, right) else (None if None in (left, right) else False)
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = _truth(test.expression, binding)
        return None if inner is None else not inner
    value = _value(test, binding)
    if value is not UNKNOWN:
        try:
            return bool(value)
        except Exception:  # noqa: BLE001 - an object whose truth raises: unknown
            return None
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        left = _value(test.left, binding)
        right = literal(test.comparisons[0].comparator)
        if left is UNKNOWN or right is UNKNOWN:
            return None
        return _compare(test.comparisons[0].operator, left, right)
    return None


def _value(node: cst.BaseExpression, binding: Dict[str, Any]) -> Any:
    if isinstance(node, (cst.Name, cst.Attribute)) and not _constant_name(node):
        text = code_of(node)
        return binding[text] if text in binding else UNKNOWN
    return literal(node)


def _compare(op: cst.BaseCompOp, left: Any, right: Any) -> Optional[bool]:
    try:
        if isinstance(op, cst.Is):
            return left is right if right is None or isinstance(right, bool) else bool(left == right)
        if isinstance(op, cst.IsNot):
            return left is not right if right is None or isinstance(right, bool) else bool(left != right)
        if isinstance(op, cst.Equal):
            return bool(left == right)
        if isinstance(op, cst.NotEqual):
            return bool(left != right)
        if isinstance(op, cst.GreaterThan):
            return bool(left > right)
        if isinstance(op, cst.GreaterThanEqual):
            return bool(left >= right)
        if isinstance(op, cst.LessThan):
            return bool(left < right)
        if isinstance(op, cst.LessThanEqual):
            return bool(left <= right)
        if isinstance(op, cst.In):
            return left in right
        if isinstance(op, cst.NotIn):
            return left not in right
    except TypeError:
        return None
    return None


def _decides(test: cst.BaseExpression, name: str, binding: Dict[str, Any], branch: bool) -> bool:
    """Whether the value bound to ``name`` decides the outcome (with it unknown, the test would
    not be known to fail): the values a message names."""
    without = {k: v for k, v in binding.items() if k != name}
    held = _truth(test, without)
    return held is None or held is branch


def skipped_calls(ctx: FileContext, calls: Sequence[cst.Call]) -> Dict[int, Skip]:
    """``skipped_by_guard`` for each call, by the call's id, for those a guard skips."""
    out: Dict[int, Skip] = {}
    for call in calls:
        found = skipped_by_guard(ctx, call)
        if found is not None:
            out[id(call)] = found
    return out
