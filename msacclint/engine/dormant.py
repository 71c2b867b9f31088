"""Findings in code that nothing runs.

An error says the code computes something wrong. When the finding sits inside a top-level
class or function that nothing else in the project refers to (no import, call, subclass,
registry string or config value names it), the wrong computation does not happen today:
the finding is kept, said to be dormant, and lowered one level (an error to a warning, a
warning to info). The answer comes from
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

from typing import Dict, Iterator, List, Optional, Sequence, Tuple, Union

import libcst as cst

from msacclint.analysis.calls import UNKNOWN, literal, parameter_slots
from msacclint.analysis.cells import attributes_from_parameters
from msacclint.analysis.context import FileContext
from msacclint.analysis.scopes import scopes
from msacclint.analysis.switches import switch
from msacclint.diagnostics import Severity
from msacclint.project.index import UNSET, ProjectIndex

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
        tree = ast.parse(ctx.source)
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


def dormant_note(project: ProjectIndex, path: str, definition: Definition) -> Optional[str]:
    """The note to add when nothing in the project refers to ``definition``, else None."""
    name = definition.name.value
    if project.referrers(path, name) is not None:
        return None
    kind = "class" if isinstance(definition, cst.ClassDef) else "function"
    return (f" (dormant: nothing else in the project's Python or config files refers to the {kind} "
            f"`{name}`, so this does not run today; it matters once `{name}` is used)")


#: methods MindSpore calls by name on a Cell: never dormant for want of a caller
FRAMEWORK_METHODS = frozenset({"construct", "bprop", "shard"})


def method_note(ctx: FileContext, definition: Definition, node: cst.CSTNode) -> Optional[str]:
    """The note for ``node`` inside a method of the Cell class ``definition`` that nothing in
    the project calls: its name is written nowhere but in its own ``def`` (no ``self.m``, no
    ``obj.m``, no string, no config), the method is not one MindSpore calls itself, is not
    decorated, and every base of the class is a ``mindspore.nn`` class or a class of the file
    (a framework base such as a Callback or a Metric calls its hooks by name)."""
    project = ctx.project
    if project is None or not isinstance(definition, cst.ClassDef):
        return None
    sc = scopes(ctx)
    owner = sc.owner(node)
    method = owner.root if owner is not None else None
    while isinstance(method, cst.FunctionDef) and sc.parent.get(method) is not None:
        method = sc.parent.get(method)  # a nested function runs when its method does
    if not isinstance(method, cst.FunctionDef) or sc.method_of.get(method) is not definition:
        return None
    name = method.name.value
    if name in FRAMEWORK_METHODS or name.startswith("__") or method.decorators:
        return None
    local = {stmt.name.value for stmt in ctx.module.body if isinstance(stmt, cst.ClassDef)}
    for base in definition.bases:
        resolved = ctx.imports.resolve(base.value) or ""
        written = cst.Module([]).code_for_node(base.value)
        if written not in local and not resolved.startswith("mindspore.nn."):
            return None
    if project.referrers(ctx.path, name) is not None:
        return None
    return (f" (dormant: nothing in the project calls the method `{definition.name.value}.{name}` or names it, so "
            f"this does not run today; it matters once it is called)")


#: top-level statements a module that only defines things may hold
_DEFINING = (cst.ClassDef, cst.FunctionDef, cst.Import, cst.ImportFrom, cst.Assign, cst.AnnAssign, cst.Expr)


def module_note(ctx: FileContext) -> Optional[str]:
    """The note for every finding of a module that only defines things (imports, classes,
    functions, constants; no ``if __name__ == "__main__"`` and no top-level call) when no
    other file of the project, Python or config, writes its name or the name of anything it
    defines: nothing imports it or picks a class of it by name, so nothing in it runs."""
    import os

    project = ctx.project
    stem = os.path.splitext(os.path.basename(ctx.path))[0]
    if project is None or stem == "__init__" or not stem.isidentifier():
        return None
    for stmt in ctx.module.body:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if not isinstance(small, _DEFINING):
                    return None
                if isinstance(small, cst.Expr) and not isinstance(small.value, (cst.SimpleString,
                                                                                 cst.ConcatenatedString)):
                    return None  # a top-level call: the module does something when run
                if isinstance(small, (cst.Assign, cst.AnnAssign)) and _calls_something(small):
                    return None
        elif not isinstance(stmt, _DEFINING):
            return None  # an if/try/for at top level (``if __name__ == "__main__":``)
    names = [stem] + [stmt.name.value for stmt in ctx.module.body if isinstance(stmt, (cst.ClassDef, cst.FunctionDef))]
    if any(project.referrers(ctx.path, name, own=False) is not None for name in names):
        return None
    return (f" (dormant: no other file of the project imports or names the module `{stem}` or anything it defines, "
            f"so nothing in it runs today; it matters once it is imported)")


def _calls_something(stmt: Union[cst.Assign, cst.AnnAssign]) -> bool:
    """An assignment whose value calls something other than a plain constructor of data
    (``parser.parse_args()`` runs code; ``logging.getLogger(__name__)`` counts too)."""
    value = stmt.value
    return value is not None and any(isinstance(n, cst.Call) for n in _walk_nodes(value))


def _walk_nodes(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    yield node
    for child in node.children:
        yield from _walk_nodes(child)


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
        return (f" (dormant: built only when {when}, and no call of the {kind} "
                f"`{definition.name.value}` in the project does so{source}; it matters once one does)")
    return None


def _init_of(cls: cst.ClassDef) -> Optional[cst.FunctionDef]:
    for stmt in cls.body.body:
        if isinstance(stmt, cst.FunctionDef) and stmt.name.value == "__init__":
            return stmt
    return None
