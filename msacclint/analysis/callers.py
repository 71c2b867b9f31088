"""What a function's parameter receives from its callers.

``argument_values(ctx, func, param)``: for a function or method of this file, the
expressions its call sites pass for ``param`` (the parameter's default where a call leaves
it out), or None when the callers cannot all be read (no call site in the file, a
``*args``/``**kwargs`` call, a function that escapes as a value). ``__init__`` is called
through its class (``Block(1 - drop_rate)``); a method through ``self.<name>(...)``.

This is the one place that resolves call sites; the project layer can answer the same
question across files later, behind the same function.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, List, Optional, Set, Tuple

import libcst as cst

from msacclint.analysis.cells import cells
from msacclint.analysis.context import FileContext, Question
from msacclint.analysis.walk import walk

if TYPE_CHECKING:
    from msacclint.analysis.cells import CellInfo


class _Calls(cst.CSTVisitor):
    def __init__(self) -> None:
        #: plain name -> calls ``name(...)``; "self.<m>" -> calls ``self.m(...)``
        self.calls: Dict[str, List[cst.Call]] = {}
        #: names read other than as the callee of a call (passed around as values)
        self.escaped: Set[str] = set()
        self._callees: Set[int] = set()

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Name):
            self.calls.setdefault(func.value, []).append(node)
            self._callees.add(id(func))
        elif isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self":
            self.calls.setdefault("self." + func.attr.value, []).append(node)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._callees.add(id(node.name))

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._callees.add(id(node.name))

    def visit_Param(self, node: cst.Param) -> None:
        self._callees.add(id(node.name))

    def visit_Name(self, node: cst.Name) -> None:
        if id(node) not in self._callees:
            self.escaped.add(node.value)


def _build(ctx: FileContext) -> _Calls:
    calls = _Calls()
    walk(ctx.module, calls)
    return calls


_CALLS: Question[_Calls] = Question("callers.calls", _build)


def _index(ctx: FileContext) -> _Calls:
    return ctx.ask(_CALLS)


def _owner_class(ctx: FileContext, func: cst.FunctionDef) -> Optional[str]:
    for info in cells(ctx).classes.values():
        if info.methods.get(func.name.value) is func:
            return info.name
    return None


def argument_values(ctx: FileContext, func: Optional[cst.CSTNode], param: str) -> Optional[List[cst.BaseExpression]]:
    """The values ``param`` of ``func`` receives at its call sites in this file, or None."""
    if not isinstance(func, cst.FunctionDef):
        return None
    params = func.params
    if isinstance(params.star_arg, cst.Param) or params.star_kwarg is not None:
        return None
    positional = [p.name.value for p in (*params.posonly_params, *params.params)]
    every = {p.name.value: p for p in (*params.posonly_params, *params.params, *params.kwonly_params)}
    if param not in every:
        return None
    owner = _owner_class(ctx, func)
    if owner is not None:
        positional = positional[1:]  # self
        key = owner if func.name.value == "__init__" else "self." + func.name.value
    else:
        key = func.name.value
    index = _index(ctx)
    name = key.split(".")[-1]
    if name in index.escaped and owner is None or (owner is not None and func.name.value == "__init__"
                                                   and owner in index.escaped):
        return None  # passed around as a value: callers elsewhere
    sites = index.calls.get(key, [])
    if not sites:
        return None
    values: List[cst.BaseExpression] = []
    for call in sites:
        if any(a.star for a in call.args):
            return None
        found = next((a.value for a in call.args if a.keyword is not None and a.keyword.value == param), None)
        if found is None:
            plain = [a.value for a in call.args if a.keyword is None]
            where = positional.index(param) if param in positional else None
            if where is not None and where < len(plain):
                found = plain[where]
        if found is None:
            found = every[param].default
        if found is None:
            return None
        values.append(found)
    return values


def classes_handed_to(ctx: FileContext, info: CellInfo, attr: str) -> Optional[List[Tuple[str, str, int]]]:
    """What every call of the file's class ``info`` in the project passes for the ``__init__``
    parameter that ``self.<attr>`` is set from (``self.network = network``), as the project
    layer's ``argument_classes`` answers it: (file, callee as written there, line of the call).
    None without the project layer, without an ``__init__`` that sets ``self.<attr>`` straight
    from a parameter, or when some caller passes anything unresolved."""
    import os

    from msacclint.analysis.cells import attributes_from_parameters

    init = info.methods.get("__init__")
    if ctx.project is None or init is None:
        return None
    params = [p.name.value for p in (*init.params.posonly_params, *init.params.params, *init.params.kwonly_params)]
    param = attributes_from_parameters(ctx, info.node, params).get(f"self.{attr}")
    if param is None:
        return None
    handed: Optional[List[Tuple[str, str, int]]] = ctx.project.argument_classes(
        os.path.abspath(ctx.path), info.name, param)
    return handed
