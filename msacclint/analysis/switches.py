"""Branch tests read as switches: ``if p:``, ``if p > 0:``, ``if p is not None:``,
``if mode == 'val':``, ``if self.mode in ('val', 'eval'):``, ``if not self.training:``.

``switch(test)`` names the switch (a parameter, or ``self.x``) and gives a predicate that
says, for one value of it, whether the test is true: True, False, or None when the value
cannot be judged (a comparison with a number that is not one). Callers decide what an
unknown means for them (the dormant check keeps the error, MSA309 keeps the finding).
"""

from __future__ import annotations

from typing import Any, Callable, List, Optional, Sequence, Tuple

import libcst as cst

from msacclint.analysis.calls import UNKNOWN, is_number, literal
from msacclint.analysis.cells import self_attr

Predicate = Callable[[Any], Optional[bool]]


def switch_name(node: cst.BaseExpression) -> Optional[str]:
    """A parameter name, or ``self.x``, as a test reads it."""
    if isinstance(node, cst.Name):
        return node.value
    attr = self_attr(node)
    return f"self.{attr}" if attr is not None else None


def code_of(node: cst.BaseExpression) -> Optional[str]:
    """A name, attribute or subscript, as its code (``config.dropout_p``, ``cfg["rate"]``)."""
    if isinstance(node, (cst.Name, cst.Attribute, cst.Subscript)):
        return cst.Module([]).code_for_node(node)
    return None


def switch(test: cst.BaseExpression,
           name_of: Callable[[cst.BaseExpression], Optional[str]] = switch_name) -> Optional[Tuple[Any, ...]]:
    """(the switch, its predicate[, the value an ``==`` test selects]) for the tests listed in
    the module docstring; None for any other test. ``name_of`` names what a test switches on
    (a parameter or ``self.x`` by default; ``code_of`` for any expression)."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = switch(test.expression, name_of)
        if inner is None:
            return None
        holds = inner[1]
        return inner[0], (lambda v: None if holds(v) is None else not holds(v))
    name = name_of(test)
    if name is not None:
        return name, bool
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1):
        return None
    name = name_of(test.left)
    if name is None:
        return None
    target = test.comparisons[0]
    op, right = target.operator, literal(target.comparator)
    if right is UNKNOWN:
        return None
    if isinstance(op, cst.IsNot) and right is None:
        return name, lambda v: v is not None
    if isinstance(op, (cst.GreaterThan, cst.NotEqual)) and right == 0 and not isinstance(right, bool):
        greater = isinstance(op, cst.GreaterThan)
        return name, (lambda v: (v > 0 if greater else v != 0) if is_number(v) else None)
    if isinstance(op, cst.Equal) and isinstance(right, (str, int)) and not isinstance(right, bool):
        return name, (lambda v: v == right), right  # a mode selector: ``if mode == 'sl1':``
    if isinstance(op, (cst.In, cst.NotIn)) and isinstance(right, (tuple, list, frozenset, set)):
        inside = isinstance(op, cst.In)
        return name, (lambda v: _member(v, right, inside))
    return None


def _member(value: Any, options: Any, inside: bool) -> Optional[bool]:
    try:
        return (value in options) if inside else (value not in options)
    except TypeError:  # an unhashable value against a set
        return None


def let_through(guards: Sequence[Tuple[cst.BaseExpression, bool]], subject: cst.BaseExpression,
                values: List[Any], value_of: Callable[[Any], Any] = lambda v: v) -> List[Any]:
    """The ``values`` of ``subject`` that the branches ``guards`` (an event's, innermost last)
    let through: under ``if config.dropout_p:`` a 0 never arrives, under its ``else`` only a
    0 does, under ``if rate > 0:`` only positive rates. A test on something else, or one whose
    answer for a value is unknown, lets it through."""
    text = code_of(subject)
    if text is None:
        return values
    for test, branch in guards:
        found = switch(test, code_of)
        if found is None or found[0] != text:
            continue
        holds = found[1]
        values = [v for v in values if holds(value_of(v)) is not (not branch)]
    return values
