"""Optimizer parameter groups: which options a ``params`` list of group dicts sets.

MindSpore optimizers accept, instead of a list of parameters, a list of dicts
``[{'params': decay, 'weight_decay': 0.01}, {'params': rest}]`` whose keys
('weight_decay', 'lr', 'grad_centralization', 'order_params') set that option for the
group. ``group_keys(ctx, call, value)`` reads those keys from a literal list or tuple of
dicts (``{...}`` or ``dict(...)``), given directly or through a local name assigned
before the call in the same function or at module level (followed with
``analysis.scopes``). Anything else (a list built by ``append``, a parameter, a call)
gives the empty set: the option then counts as not given, as before.
"""

from __future__ import annotations

from typing import Any, FrozenSet, List, Optional, Set, Tuple

import libcst as cst

from msacclint.analysis.calls import UNKNOWN, constant, literal
from msacclint.analysis.context import FileContext


def group_keys(ctx: FileContext, call: cst.Call, value: cst.BaseExpression) -> FrozenSet[str]:
    """The keys set by any group dict of ``value`` (the argument ``call`` passes as its
    parameter list); empty when ``value`` is not a literal list of group dicts."""
    groups = _literal_groups(value)
    if groups is None and isinstance(value, cst.Name):
        groups = _literal_groups(_assigned_value(ctx, call, value.value))
    if not groups:
        return frozenset()
    keys: Set[str] = set()
    for group in groups:
        keys |= _dict_keys(group)
    return frozenset(keys)


def _literal_groups(value: Optional[cst.BaseExpression]) -> Optional[List[cst.BaseExpression]]:
    if not isinstance(value, (cst.List, cst.Tuple)):
        return None
    return [e.value for e in value.elements if isinstance(e, cst.Element)]


def _dict_keys(group: cst.BaseExpression) -> Set[str]:
    keys: Set[str] = set()
    if isinstance(group, cst.Dict):
        for element in group.elements:
            if isinstance(element, cst.DictElement):
                key = literal(element.key)
                if isinstance(key, str):
                    keys.add(key)
    elif isinstance(group, cst.Call) and isinstance(group.func, cst.Name) and group.func.value == "dict":
        keys.update(arg.keyword.value for arg in group.args if arg.keyword is not None)
    return keys


def _assigned_value(ctx: FileContext, call: cst.Call, name: str) -> Optional[cst.BaseExpression]:
    """The value of the newest plain assignment ``name = ...`` before ``call``."""
    from msacclint.analysis.scopes import scopes

    sc = scopes(ctx)
    fl = sc.owner(call)
    if fl is None:
        return None
    found = sc.resolve(fl, name, fl.order(call))
    if found is None:
        return None
    definition = found[1]
    if definition.index is not None or not isinstance(definition.node, (cst.Assign, cst.AnnAssign)):
        return None
    return definition.value


def literal_groups(ctx: FileContext, call: cst.Call, value: cst.BaseExpression) -> Optional[List[cst.BaseExpression]]:
    """The group expressions of ``value`` (a literal list of groups, directly or through the
    newest assignment of a local name before ``call``); None when it is not such a list."""
    groups = _literal_groups(value)
    if groups is None and isinstance(value, cst.Name):
        groups = _literal_groups(_assigned_value(ctx, call, value.value))
    return groups


def group_entries(group: cst.BaseExpression) -> Optional[List[Tuple[str, cst.BaseExpression]]]:
    """(key, value) of a group dict in written order, repeated keys kept; None when the group
    is not a literal dict (or unpacks another mapping: its keys are not known)."""
    entries: List[Tuple[str, cst.BaseExpression]] = []
    if isinstance(group, cst.Dict):
        for element in group.elements:
            if not isinstance(element, cst.DictElement):
                return None
            key = literal(element.key)
            if not isinstance(key, str):
                return None
            entries.append((key, element.value))
        return entries
    if isinstance(group, cst.Call) and isinstance(group.func, cst.Name) and group.func.value == "dict":
        for arg in group.args:
            if arg.keyword is None:
                return None
            entries.append((arg.keyword.value, arg.value))
        return entries
    return None


#: pieces of a parameter's name that mark it as one conventionally left without weight decay
NO_DECAY_MARKERS = ("bias", "beta", "gamma", "bn", "norm")


def _marker(value: Any) -> bool:
    return isinstance(value, str) and any(m in value.lower() for m in NO_DECAY_MARKERS)


def selects_no_decay(ctx: FileContext, call: cst.Call, value: cst.BaseExpression) -> Optional[bool]:
    """Whether the parameter list ``value`` (a comprehension or ``filter`` over parameters,
    directly or through a local name assigned before ``call``) keeps exactly the parameters
    named as biases or norm scales/shifts, or of one dimension: True; the other ones (the
    test negated): False; None when the selection cannot be read."""
    if isinstance(value, cst.Name):
        assigned = _assigned_value(ctx, call, value.value)
        if assigned is None:
            return None
        if isinstance(assigned, cst.List) and not assigned.elements:
            return _appended_selection(ctx, call, value.value)
        value = assigned
    if isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value == "list" \
            and len(value.args) == 1:
        value = value.args[0].value
    test: Optional[cst.BaseExpression] = None
    if isinstance(value, (cst.ListComp, cst.GeneratorExp)):
        ifs = value.for_in.ifs
        if value.for_in.inner_for_in is not None or len(ifs) != 1:
            return None
        test = ifs[0].test
    elif isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value == "filter" \
            and value.args and isinstance(value.args[0].value, cst.Lambda):
        test = value.args[0].value.body
    if test is None:
        return None
    return _polarity(ctx, call, test)


def _polarity(ctx: FileContext, call: cst.Call, test: cst.BaseExpression) -> Optional[bool]:
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        negated = _polarity(ctx, call, test.expression)
        return None if negated is None else not negated
    if isinstance(test, cst.BooleanOperation):
        left, right = _polarity(ctx, call, test.left), _polarity(ctx, call, test.right)
        if left is None or right is None:
            return None
        if isinstance(test.operator, cst.Or) and left and right:
            return True
        if isinstance(test.operator, cst.And) and not left and not right:
            return False
        return None
    if isinstance(test, cst.Call) and isinstance(test.func, cst.Name) and test.func.value == "any" \
            and len(test.args) == 1 and isinstance(test.args[0].value, cst.GeneratorExp):
        gen = test.args[0].value
        if gen.for_in.ifs or gen.for_in.inner_for_in is not None or not isinstance(gen.for_in.target, cst.Name):
            return None
        markers = _string_list(ctx, call, gen.for_in.iter)
        if not markers or not any(_marker(m) for m in markers):
            return None
        inner = gen.elt
        if isinstance(inner, cst.Comparison) and len(inner.comparisons) == 1 and \
                isinstance(inner.left, cst.Name) and inner.left.value == gen.for_in.target.value:
            tested = inner.comparisons[0].operator
            if isinstance(tested, cst.In):
                return True
            if isinstance(tested, cst.NotIn):
                return False
        if isinstance(inner, cst.Call) and isinstance(inner.func, cst.Attribute) and \
                inner.func.attr.value in ("endswith", "startswith") and len(inner.args) == 1 and \
                isinstance(inner.args[0].value, cst.Name) and inner.args[0].value.value == gen.for_in.target.value:
            return True
        return None
    if isinstance(test, cst.Call) and isinstance(test.func, cst.Attribute) and \
            test.func.attr.value in ("endswith", "startswith") and len(test.args) == 1:
        value = literal(test.args[0].value)
        values = value if isinstance(value, tuple) else (value,)
        return True if values and all(_marker(v) for v in values) else None
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        op = test.comparisons[0].operator
        compared = test.comparisons[0].comparator
        if isinstance(op, (cst.In, cst.NotIn)) and _marker(literal(test.left)):
            return isinstance(op, cst.In)
        if _dimension(test.left):
            bound = literal(compared)
            if not isinstance(bound, int) or isinstance(bound, bool):
                return None
            if isinstance(op, cst.Equal) and bound == 1:
                return True
            if isinstance(op, cst.LessThanEqual) and bound == 1:
                return True
            if isinstance(op, cst.LessThan) and bound == 2:
                return True
            if isinstance(op, cst.GreaterThan) and bound == 1:
                return False
            if isinstance(op, cst.GreaterThanEqual) and bound == 2:
                return False
    return None


def _dimension(node: cst.BaseExpression) -> bool:
    """``p.ndim``, ``len(p.shape)``, ``p.dim()``."""
    if isinstance(node, cst.Attribute) and node.attr.value == "ndim":
        return True
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "len" and \
            len(node.args) == 1 and isinstance(node.args[0].value, cst.Attribute) and \
            node.args[0].value.attr.value == "shape":
        return True
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "dim"


def _string_list(ctx: FileContext, call: cst.Call, node: cst.BaseExpression) -> Optional[Tuple[str, ...]]:
    value = literal(node)
    if value is UNKNOWN and isinstance(node, cst.Name):
        assigned = _assigned_value(ctx, call, node.value)
        if assigned is None:
            value = constant(ctx, node)
        else:
            value = literal(assigned)
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        return tuple(value)
    return None


def _appended_selection(ctx: FileContext, call: cst.Call, name: str) -> Optional[bool]:
    """``selects_no_decay`` of a list built by ``name.append(p)`` in the function of ``call``:
    each append's innermost ``if`` that tests the parameter decides (its body: the test, its
    ``else``: the test negated); the appends must agree."""
    from msacclint.analysis.scopes import scopes
    from msacclint.analysis.walk import descendants, parent_links

    fl = scopes(ctx).owner(call)
    if fl is None:
        return None
    root = fl.root
    appends = [n for n in descendants(root) if isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute)
               and isinstance(n.func.value, cst.Name) and n.func.value.value == name
               and n.func.attr.value in ("append", "extend", "insert")]
    if not appends:
        return None
    parents = parent_links(root, {id(a) for a in appends})
    answers: Set[bool] = set()
    for append in appends:
        answer: Optional[bool] = None
        child: cst.CSTNode = append
        parent = parents.get(id(child))
        while parent is not None and answer is None:
            if isinstance(parent, cst.If):
                polarity = _polarity(ctx, call, parent.test)
                if polarity is not None and child is parent.body:
                    answer = polarity
                elif polarity is not None and child is parent.orelse:
                    answer = not polarity
            child, parent = parent, parents.get(id(parent))
        if answer is None:
            return None
        answers.add(answer)
    return answers.pop() if len(answers) == 1 else None
