"""The finer dormant note: a branch of a function that no call a run reaches switches on.

Whether a finding's code runs at all — its definition, its module, the method holding it,
the entry point that reaches it — is the reach graph's answer (msacclint.project.reach,
graded in msacclint.engine.grading). This module adds one note the function's own flow
decides: a finding in a branch (an ``if`` or a conditional expression) that a parameter of
its top-level class (its ``__init__``) or function switches on — ``if has_dropout:``, ``if
final_drop > 0:``, ``if drop_prob is not None:``, ``elif mode == 'sl1':``, or the same on
``self.use_bn`` set from the parameter — is dormant when every call of that class or
function in code a run that trains or evaluates reaches keeps the switch off (by the
parameter's default, a literal, or a constant or config value the project layer resolves;
``ProjectIndex.switch_values``, which reads only such calls at every level it follows the
value through). When the name is used any other way (passed as a value,
``functools.partial``, a registry, a wrapper that forwards ``**kwargs``), callers cannot all
be seen and the finding stays as it is. A run without the project layer (``--no-project``, a
lone file outside any project) leaves findings as they are.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Tuple, Union

import libcst as cst

from msacclint.analysis.calls import UNKNOWN, literal, parameter_slots
from msacclint.analysis.cells import attributes_from_parameters
from msacclint.analysis.context import FileContext
from msacclint.analysis.scopes import scopes
from msacclint.analysis.source import python_ast
from msacclint.analysis.switches import switch
from msacclint.diagnostics import Severity
from msacclint.project.index import UNSET

Definition = Union[cst.ClassDef, cst.FunctionDef]


def candidates(ctx: FileContext) -> List[Definition]:
    """The module's top-level classes and functions that a decorator does not register and,
    in a module pytest collects, that pytest does not call itself (``test*``/``Test*``)."""
    from msacclint.analysis.pytest_files import pytest_test

    found = [stmt for stmt in ctx.module.body
             if isinstance(stmt, (cst.ClassDef, cst.FunctionDef)) and not stmt.decorators]
    if any(stmt.name.value.lower().startswith("test") for stmt in found) and pytest_test(ctx) is not None:
        # (asked only then: answering it walks the file)
        found = [stmt for stmt in found if not stmt.name.value.lower().startswith("test")]
    return found


def line_ranges(ctx: FileContext, definitions: Sequence[Definition]) -> Dict[int, Tuple[int, int]]:
    """id(definition) -> (first line, last line), from Python's own parser (far cheaper than
    LibCST positions for whole classes): top-level classes and functions matched by name and
    order. Empty when the text does not parse there (LibCST-only syntax): no definition is
    then called dormant."""
    import ast

    try:
        tree = python_ast(ctx.source)
    except (SyntaxError, ValueError):
        return {}
    spans: Dict[str, List[Tuple[int, int]]] = {}
    for node in tree.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            spans.setdefault(node.name, []).append((node.lineno, node.end_lineno or node.lineno))
    taken: Dict[str, int] = {}
    out: Dict[int, Tuple[int, int]] = {}
    for stmt in ctx.module.body:
        if not isinstance(stmt, (cst.ClassDef, cst.FunctionDef)):
            continue
        name = stmt.name.value
        index = taken.get(name, 0)
        taken[name] = index + 1
        if any(stmt is d for d in definitions) and index < len(spans.get(name, ())):
            out[id(stmt)] = spans[name][index]
    return out


def enclosing(line: int, definitions: Sequence[Definition],
              ranges: Dict[int, Tuple[int, int]]) -> Optional[Definition]:
    for definition in definitions:
        where = ranges.get(id(definition))
        if where is not None and where[0] <= line <= where[1]:
            return definition
    return None


def adjust(severity: Severity, message: str, note: Optional[str]) -> Tuple[Severity, str]:
    """A finding in dormant code carries the note, one level lower: an error becomes a
    warning, a warning info (a review item: nothing runs it today)."""
    if note is None or severity is Severity.INFO:
        return severity, message
    lowered = Severity.WARNING if severity is Severity.ERROR else Severity.INFO
    return lowered, message.rstrip() + note


def switched_off_note(ctx: FileContext, definition: Definition, node: cst.CSTNode) -> Optional[str]:
    """The note to add when ``node`` runs only under a switch that no call in the project
    turns on (see the module's docstring), else None. The switches are the guards the
    function's flow recorded for ``node`` (``if`` statements and conditional expressions);
    ``self.x`` reads the parameter ``__init__`` assigned it from."""
    project = ctx.project
    function = _init_of(definition) if isinstance(definition, cst.ClassDef) else definition
    if project is None or function is None:
        return None
    sc = scopes(ctx)
    owner = sc.owner(node)
    if owner is None or owner.root is not function or node not in owner.order_of:
        return None
    event = owner.events[owner.order_of[node]]
    slots = parameter_slots(function)
    attributes = attributes_from_parameters(ctx, definition, slots) if isinstance(definition, cst.ClassDef) else {}
    for test, branch in event.guards:
        if not branch:  # the else of ``if not has_dropout``
            if not (isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not)):
                continue
            test = test.expression
        elif isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            continue  # the body of ``if not has_dropout`` (not followed yet)
        found = switch(test)
        if found is None:
            continue
        param, is_on = found[0], found[1]
        param = attributes.get(param, param)  # ``if self.use_bn:`` after ``self.use_bn = use_bn``
        if param not in slots:
            continue
        position, default = slots[param]
        values = project.switch_values(ctx.path, definition.name.value, param, position)
        if values is None:
            continue
        fallback = literal(default) if default is not None else UNKNOWN
        plain = [fallback if v.value is UNSET else v.value for v in values]
        if any(v is UNKNOWN or is_on(v) is not False for v in plain):
            continue
        kind = "class" if isinstance(definition, cst.ClassDef) else "function"
        when = f"`{param}` is {found[2]!r}" if len(found) > 2 else f"`{param}` turns it on"
        read = sorted({v.evidence.where() for v in values if v.evidence is not None})
        source = f"; the values passed were read at {', '.join(read[:3])}" if read else ""
        return (f" (dormant: built only when {when}, and no call of the {kind} `{definition.name.value}` that a "
                f"training or evaluating run reaches does so{source}; it matters once one does)")
    return None


def _init_of(cls: cst.ClassDef) -> Optional[cst.FunctionDef]:
    for stmt in cls.body.body:
        if isinstance(stmt, cst.FunctionDef) and stmt.name.value == "__init__":
            return stmt
    return None
