"""Findings in code that nothing runs.

An error says the code computes something wrong. When the finding sits inside a top-level
class or function that nothing else in the project refers to (no import, call, subclass,
registry string or config value names it), the wrong computation does not happen today:
the finding is kept, said to be dormant, and lowered to a warning. The answer comes from
the project index (``ProjectIndex.referrers``), so a run without the project layer
(``--no-project``, a lone file outside any project) leaves findings as they are.

Decorated definitions are never called dormant: a decorator may register them.

A finding is also dormant when it sits in a branch (an ``if`` or a conditional expression)
that a parameter of its top-level class (its ``__init__``) or function switches on —
``if has_dropout:``, ``if final_drop > 0:``, ``if drop_prob is not None:``, ``elif mode ==
'sl1':``, or the same on
``self.use_bn`` set from the parameter — and every call of that class or function in the
project keeps the switch off (by the parameter's default, a literal, or a constant or config
value the project layer resolves). When the name is used any other way (passed as a value,
``functools.partial``, a registry, a wrapper that forwards ``**kwargs``), callers cannot all
be seen and the finding stays as it is.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import libcst as cst
from libcst.metadata import CodeRange

from msacclint.analysis.calls import UNKNOWN, literal
from msacclint.diagnostics import Severity
from msacclint.project.index import UNSET, ProjectIndex

Definition = Union[cst.ClassDef, cst.FunctionDef]


def candidates(module: cst.Module) -> List[Definition]:
    """The module's top-level classes and functions that a decorator does not register."""
    return [stmt for stmt in module.body
            if isinstance(stmt, (cst.ClassDef, cst.FunctionDef)) and not stmt.decorators]


def enclosing(line: int, definitions: Sequence[Definition],
              positions: Dict[cst.CSTNode, CodeRange]) -> Optional[Definition]:
    for definition in definitions:
        where = positions.get(definition)
        if where is not None and where.start.line <= line <= where.end.line:
            return definition
    return None


def dormant_note(project: ProjectIndex, path: str, definition: Definition) -> Optional[str]:
    """The note to add when nothing in the project refers to ``definition``, else None."""
    name = definition.name.value
    if project.referrers(path, name) is not None:
        return None
    kind = "class" if isinstance(definition, cst.ClassDef) else "function"
    return (f" (dormant: nothing else in the project's Python or config files refers to the {kind} "
            f"`{name}`, so this does not run today; it matters once `{name}` is used)")


def adjust(severity: Severity, message: str, note: Optional[str]) -> Tuple[Severity, str]:
    """An error in dormant code becomes a warning carrying the note."""
    if note is None or severity is not Severity.ERROR:
        return severity, message
    return Severity.WARNING, message.rstrip() + note


def switched_off_note(project: ProjectIndex, path: str, definition: Definition,
                      node: cst.CSTNode) -> Optional[str]:
    """The note to add when ``node`` is built only under a switch that no call in the
    project turns on (see the module's docstring), else None."""
    function = _init_of(definition) if isinstance(definition, cst.ClassDef) else definition
    if function is None:
        return None
    chain = _path_to(function.body, node)
    if chain is None:
        return None
    names = _parameters(function)
    attributes = _attributes_from_parameters(function, names)
    for holder, child in zip(chain, chain[1:]):
        if not isinstance(holder, (cst.If, cst.IfExp)):
            continue
        if child is holder.body:
            switch = _switch(holder.test)
        elif child is holder.orelse and isinstance(holder.test, cst.UnaryOperation) and \
                isinstance(holder.test.operator, cst.Not):  # the else of ``if not has_dropout``
            switch = _switch(holder.test.expression)
        else:
            continue
        if switch is None:
            continue
        param, is_on = switch[0], switch[1]
        param = attributes.get(param, param)  # ``if self.use_bn:`` after ``self.use_bn = use_bn``
        if param not in names:
            continue
        position, default = names[param]
        fallback = literal(default) if default is not None else UNKNOWN
        values = project.switch_values(path, definition.name.value, param, position)
        if values is None:
            continue
        values = [fallback if v is UNSET else v for v in values]
        if any(v is UNKNOWN or is_on(v) for v in values):
            continue
        kind = "class" if isinstance(definition, cst.ClassDef) else "function"
        when = f"`{param}` is {switch[2]!r}" if len(switch) > 2 else f"`{param}` turns it on"
        return (f" (dormant: built only when {when}, and no call of the {kind} "
                f"`{definition.name.value}` in the project does so; it matters once one does)")
    return None


def _init_of(cls: cst.ClassDef) -> Optional[cst.FunctionDef]:
    for stmt in cls.body.body:
        if isinstance(stmt, cst.FunctionDef) and stmt.name.value == "__init__":
            return stmt
    return None


def _path_to(root: cst.CSTNode, target: cst.CSTNode) -> Optional[List[cst.CSTNode]]:
    """The nodes from ``root`` down to ``target`` (both included), or None."""
    if root is target:
        return [root]
    for child in root.children:
        found = _path_to(child, target)
        if found is not None:
            return [root] + found
    return None


def _parameters(function: cst.FunctionDef) -> Dict[str, Tuple[int, Optional[cst.BaseExpression]]]:
    """name -> (position among the call's arguments, default); keyword-only: -1. A method's
    ``self`` is not an argument."""
    p = function.params
    positional = [param for param in (*p.posonly_params, *p.params)]
    if positional and positional[0].name.value in ("self", "cls"):
        positional = positional[1:]
    out = {param.name.value: (i, param.default) for i, param in enumerate(positional)}
    out.update({param.name.value: (-1, param.default) for param in p.kwonly_params})
    return out


def _attributes_from_parameters(function: cst.FunctionDef,
                                 names: Dict[str, Tuple[int, Optional[cst.BaseExpression]]]) -> Dict[str, str]:
    """``self.x`` -> parameter for the attributes ``__init__`` sets, once, straight from a
    parameter (``self.use_bn = use_bn``) at the top level of its body."""
    found: Dict[str, List[str]] = {}
    for stmt in function.body.body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            if isinstance(small, (cst.Assign, cst.AugAssign, cst.AnnAssign)):
                targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else [small.target]
                for target in targets:
                    name = _switch_name(target)
                    if name is not None and name.startswith("self."):
                        value = getattr(small, "value", None)
                        kept = value.value if isinstance(small, cst.Assign) and isinstance(value, cst.Name) and \
                            value.value in names else "?"
                        found.setdefault(name, []).append(kept)
    return {name: params[0] for name, params in found.items() if len(params) == 1 and params[0] != "?"}


def _switch_name(node: cst.BaseExpression) -> Optional[str]:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self":
        return f"self.{node.attr.value}"
    return None


def _switch(test: cst.BaseExpression) -> Optional[Tuple[Any, ...]]:
    """(parameter or ``self.x``, when the branch runs for a value[, the value it selects]) for ``if p``, ``if p > 0``,
    ``if p != 0``, ``if p is not None``, ``if p == 'name'``; None for any other test."""
    name = _switch_name(test)
    if name is not None:
        return name, bool
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        name = _switch_name(test.left)
        if name is None:
            return None
        target = test.comparisons[0]
        op, right = target.operator, literal(target.comparator)
        if isinstance(op, cst.IsNot) and right is None:
            return name, lambda v: v is not None
        if isinstance(op, (cst.GreaterThan, cst.NotEqual)) and right == 0 and not isinstance(right, bool):
            greater = isinstance(op, cst.GreaterThan)
            return name, (lambda v: (v > 0 if greater else v != 0) if _number(v) else True)
        if isinstance(op, cst.Equal) and isinstance(right, (str, int)) and not isinstance(right, bool):
            return name, (lambda v: v == right), right  # a mode selector: ``if mode == 'sl1':``
    return None


def _number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)
