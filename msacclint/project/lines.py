"""Line numbers of a summary, from Python's own parser.

A summary gathered in the engine's one traversal has no positions (LibCST's
PositionProvider costs more than the whole collection); its nodes take a placeholder
(``Line``: the n-th node of a kind in source order) that ``fill_lines`` replaces from
``line_table``, only when another file's question needs the summary.
"""

from __future__ import annotations

from dataclasses import fields, is_dataclass
from typing import Any, Dict, List, Optional, Tuple

from msacclint.analysis.source import python_ast
from msacclint.project.summary import ast_dotted


def line_table(text: str) -> Optional[Dict[Tuple[str, ...], List[int]]]:
    """Lines of the nodes a summary records, from Python's own parser (a fraction of the
    cost of LibCST's PositionProvider): key -> lines in source order, for classes
    ("C", name), functions ("F", name), calls ("K", dotted callee) and assignments ("A",).
    The collector visits the same nodes in the same (pre-)order and takes them in turn."""
    import ast

    try:
        tree = python_ast(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    found: List[Tuple[int, int, int, int, Tuple[str, ...]]] = []
    for node in ast.walk(tree):
        key: Optional[Tuple[str, ...]] = None
        if isinstance(node, ast.ClassDef):
            key = ("C", node.name)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            key = ("F", node.name)
        elif isinstance(node, ast.Call):
            name = ast_dotted(node.func)
            if name is not None:
                key = ("K", name)
        elif isinstance(node, ast.Assign):
            key = ("A",)
        if key is not None:
            line = node.lineno  # a decorated def: the line of `def`, as LibCST's PositionProvider says
            found.append((node.lineno, node.col_offset, -(node.end_lineno or 0), -(node.end_col_offset or 0), key,
                          line))
    found.sort(key=lambda item: item[:4])
    table: Dict[Tuple[str, ...], List[int]] = {}
    for *_, key, line in found:
        table.setdefault(key, []).append(line)
    return table


class Line:
    """A line number not known yet: the ``ordinal``-th node of kind ``key`` in source order
    (``line_table``); replaced by the line when the summary is finalised."""

    __slots__ = ("key", "ordinal")

    def __init__(self, key: Tuple[str, ...], ordinal: int) -> None:
        self.key = key
        self.ordinal = ordinal


def fill_lines(value: Any, table: Optional[Dict[Tuple[str, ...], List[int]]]) -> Any:
    """``value`` with every ``Line`` in it replaced by its line (0 when unknown)."""
    if isinstance(value, Line):
        lines = table.get(value.key, ()) if table is not None else ()
        return lines[value.ordinal] if value.ordinal < len(lines) else 0
    if isinstance(value, list):
        return [fill_lines(v, table) for v in value]
    if isinstance(value, tuple):
        return tuple(fill_lines(v, table) for v in value)
    if isinstance(value, dict):
        return {k: fill_lines(v, table) for k, v in value.items()}
    if is_dataclass(value) and not isinstance(value, type):
        for f in fields(value):
            setattr(value, f.name, fill_lines(getattr(value, f.name), table))
    return value


#: the sentinel ``lines`` value of a collector whose lines are filled in later
DEFERRED: Dict[Tuple[str, ...], List[int]] = {}
