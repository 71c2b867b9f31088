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

from typing import FrozenSet, List, Optional, Set

import libcst as cst

from msacclint.analysis.calls import literal
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
