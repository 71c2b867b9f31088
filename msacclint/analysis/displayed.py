"""Which expression statements of a notebook Jupyter displays.

In a notebook the value of a code cell's last statement, when that statement is a bare
expression at the cell's top level, is not thrown away: IPython shows it under the cell
(``sub(a - b)`` at the end of a scratch cell prints the difference). A trailing semicolon
(``x.clamp(0, 1);``) suppresses the display, and so the value is discarded after all.

The engine checks a notebook as the joined Python of its code cells, each cell preceded by a
marker comment line (``# msacclint:cell:N``, msacclint.analysis.notebook_text). LibCST keeps
comments: the marker of a cell is among the leading lines of the first top-level statement
of that cell (the module header for the first cell). So the last top-level statement of a
cell is the one followed by a statement that a marker leads, or the module's last statement.

``displayed(ctx, node)``: rules that report a discarded result (a call whose value is the
point, used as a statement) ask it and stay quiet on what Jupyter shows.
"""

from __future__ import annotations

from typing import FrozenSet, Set

import libcst as cst

from msacclint.analysis.context import FileContext, Question
from msacclint.analysis.notebook_text import is_cell_marker, is_notebook


def _starts_cell(statement: cst.BaseStatement) -> bool:
    leading = getattr(statement, "leading_lines", ())
    return any(line.comment is not None and is_cell_marker(line.comment.value) for line in leading)


def _last_expressions(ctx: FileContext) -> FrozenSet[int]:
    """ids of the ``cst.Expr`` nodes (and of their values) that end a cell without a semicolon."""
    if not is_notebook(ctx.path):
        return frozenset()
    body = ctx.module.body
    out: Set[int] = set()
    for i, statement in enumerate(body):
        last_of_cell = i + 1 == len(body) or _starts_cell(body[i + 1])
        if not last_of_cell or not isinstance(statement, cst.SimpleStatementLine) or not statement.body:
            continue
        small = statement.body[-1]
        if isinstance(small, cst.Expr) and not isinstance(small.semicolon, cst.Semicolon):
            out.update((id(small), id(small.value)))
    return frozenset(out)


_DISPLAYED: Question[FrozenSet[int]] = Question("displayed", _last_expressions)


def displayed(ctx: FileContext, node: cst.CSTNode) -> bool:
    """Whether ``node`` (an expression statement, or the expression it holds) is the last
    statement of a notebook cell, whose value Jupyter shows: its result is used."""
    return id(node) in ctx.ask(_DISPLAYED)
