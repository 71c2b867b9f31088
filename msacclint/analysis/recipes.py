"""The YAML/JSON recipes a file loads itself, and whether the loaded mapping stays in view.

``recipes(ctx)`` lists each ``N = yaml.safe_load(open('cfg.yaml'))`` (also ``yaml.load``,
``yaml.full_load``, ``json.load``, the file opened in a ``with open('cfg.yaml') as f:``) as a
``Recipe(call, name, bound, escapes)``: the load call, the file name as written, the name the
mapping is bound to, and whether that mapping goes where its keys may be read unnamed
(``**cfg``, stored, returned, handed to a call other than ``print`` or a function of the file;
reads by a literal key or an attribute keep it in view: ``analysis.options.NamespaceUses``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional

import libcst as cst

from msacclint.analysis.calls import literal
from msacclint.analysis.context import FileContext, Question
from msacclint.analysis.options import NamespaceUses
from msacclint.analysis.walk import descendants

LOADERS = frozenset({"yaml.safe_load", "yaml.load", "yaml.full_load", "yaml.unsafe_load", "json.load"})


@dataclass(frozen=True)
class Recipe:
    call: cst.Call
    name: str
    bound: str
    escapes: bool


def _opened(node: cst.BaseExpression, handles: Dict[str, str]) -> Optional[str]:
    """The literal file name ``node`` opens: ``open('x.yaml')`` or a handle of a ``with``."""
    if isinstance(node, cst.Name):
        return handles.get(node.value)
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "open" and node.args:
        value = literal(node.args[0].value)
        return value if isinstance(value, str) and value.endswith((".yaml", ".yml", ".json")) else None
    return None


def _recipes(ctx: FileContext) -> List[Recipe]:
    module = ctx.module
    handles: Dict[str, str] = {}
    for node in descendants(module):
        if isinstance(node, cst.With):
            for item in node.items:
                opened = _opened(item.item, {})
                if opened and item.asname is not None and isinstance(item.asname.name, cst.Name):
                    handles[item.asname.name.value] = opened
    functions = {s.name.value: s for s in module.body if isinstance(s, cst.FunctionDef)}
    found: List[Recipe] = []
    for node in descendants(module):
        if not isinstance(node, cst.Assign) or not isinstance(node.value, cst.Call):
            continue
        call = node.value
        if ctx.callee(call) not in LOADERS or not call.args:
            continue
        opened = _opened(call.args[0].value, handles)
        if opened is None or len(node.targets) != 1 or not isinstance(node.targets[0].target, cst.Name):
            continue
        bound = node.targets[0].target.value
        escapes = NamespaceUses(ctx, functions, keyed=True).escapes(module, bound)
        found.append(Recipe(call, opened, bound, escapes))
    return found


RECIPES: Question[List[Recipe]] = Question("recipes", _recipes)


def recipes(ctx: FileContext) -> List[Recipe]:
    return ctx.ask(RECIPES)
