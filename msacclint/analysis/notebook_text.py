"""A Jupyter notebook (``.ipynb``) read as the Python of its code cells.

Shared by the engine (which checks and fixes notebooks: msacclint.engine.notebook) and the
project layer (a notebook is an entry point of its repository and imports its modules). The
code cells are joined, in order, into one Python text, each preceded by a marker comment
line, so positions map back to ``(cell, line)``; IPython lines that are not Python (line
magics, shell lines, help lines) become ``pass`` at the same indentation, and a cell that
starts with a cell magic is left out. A code cell that is not Python on its own (a shell
command typed without ``!``, a half-written line) fails alone when Jupyter runs it, and the
other cells still run: its lines are skipped like IPython lines and the cell is listed in
``Notebook.broken`` (the engine reports it), so the rest of the notebook is read. See
msacclint.engine.notebook for the details.
"""

from __future__ import annotations

import ast
import bisect
import json
import re
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

SUFFIX = ".ipynb"
#: the comment line in front of each code cell in the joined Python text
_MARKER = "# msacclint:cell:{}"
_MARKER_RE = re.compile(r"^# msacclint:cell:(\d+)$")
#: what a skipped IPython line becomes for the analysis; {} is its index among skipped lines
_SKIPPED = "pass  # msacclint:ipython:{}"
_SKIPPED_RE = re.compile(r"^([ \t]*)pass  # msacclint:ipython:(\d+)$")
_IPYTHON_LINE = re.compile(
    r"""^[ \t]*(?:
        [%!?]                                   # %magic, !shell, ?help
      | [A-Za-z_][\w.]*(?:[ \t]*,[ \t]*[A-Za-z_][\w.]*)*[ \t]*=[ \t]*[%!]   # x = !ls, x = %who_ls
      | [A-Za-z_][\w.]*\?\??[ \t]*$           # np.mean?, np.mean??
    )""", re.VERBOSE)


class NotebookError(ValueError):
    """The file is not a notebook msacclint can read."""


def is_notebook(path: str) -> bool:
    return path.endswith(SUFFIX)


def is_cell_marker(comment: str) -> bool:
    """The comment is the marker line the joined text has in front of a code cell."""
    return _MARKER_RE.match(comment) is not None


@dataclass
class Cell:
    index: int            #: 0-based position in the notebook's cell list
    start: int            #: 1-based line of the joined text where the cell's first line is
    lines: int            #: how many lines the cell has in the joined text
    as_list: bool         #: ``source`` was a list of lines (else one string)
    trailing_newline: bool  #: the cell's text ended with a newline


@dataclass
class Notebook:
    data: Dict[str, Any]
    cells: List[Cell]
    #: the joined Python text the engine checks
    python: str
    #: the original text of each skipped IPython line
    skipped: List[str] = field(default_factory=list)
    #: JSON layout to write the notebook back in
    indent: Optional[int] = 1
    ensure_ascii: bool = False
    final_newline: bool = True
    #: code cells that are not Python on their own, left out of the analysis:
    #: (0-based cell index, line in the cell, column, Python's message)
    broken: List[Tuple[int, int, int, str]] = field(default_factory=list)

    def position(self, line: int) -> Tuple[int, int]:
        """(1-based cell number, 1-based line in that cell) of a line of the joined text."""
        if not self.cells:
            return 1, max(line, 1)
        starts = [c.start for c in self.cells]
        i = max(bisect.bisect_right(starts, line) - 1, 0)
        cell = self.cells[i]
        return cell.index + 1, min(max(line - cell.start + 1, 1), max(cell.lines, 1))


def _cell_text(source: Any) -> Tuple[str, bool]:
    if isinstance(source, list):
        if not all(isinstance(part, str) for part in source):
            raise NotebookError("a cell's source is not text")
        return "".join(source), True
    if isinstance(source, str):
        return source, False
    raise NotebookError("a cell's source is not text")


def _layout(raw: str) -> Tuple[Optional[int], bool, bool]:
    match = re.match(r"\{\r?\n([ \t]+)\"", raw)
    indent = len(match.group(1)) if match else None
    ensure_ascii = not any(ord(ch) > 127 for ch in raw) and "\\u" in raw
    return indent, ensure_ascii, raw.endswith("\n")


def load(data: bytes) -> Notebook:
    """The notebook in ``data`` and the Python text of its code cells."""
    try:
        raw = data.decode("utf-8-sig")
        parsed = json.loads(raw)
    except UnicodeDecodeError as exc:
        raise NotebookError(f"notebook is not valid UTF-8 (byte {exc.start})") from None
    except ValueError as exc:
        raise NotebookError(f"notebook is not valid JSON ({exc})") from None
    if not isinstance(parsed, dict) or not isinstance(parsed.get("cells"), list):
        raise NotebookError("not a Jupyter notebook (no list of cells; nbformat 4 is read)")
    indent, ensure_ascii, final_newline = _layout(raw)
    out: List[str] = []
    cells: List[Cell] = []
    skipped: List[str] = []
    broken: List[Tuple[int, int, int, str]] = []
    line = 1
    for index, cell in enumerate(parsed["cells"]):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        text, as_list = _cell_text(cell.get("source", ""))
        if text.lstrip().startswith("%%"):
            continue  # a cell magic: the cell is not Python
        lines = text.splitlines()
        python_lines = []
        ipython: List[str] = []
        for original in lines:
            if _IPYTHON_LINE.match(original):
                indent_text = original[:len(original) - len(original.lstrip(" \t"))]
                python_lines.append(indent_text + _SKIPPED.format(len(skipped) + len(ipython)))
                ipython.append(original)
            else:
                python_lines.append(original)
        problem = _syntax_error("\n".join(python_lines))
        if problem is not None:
            broken.append((index, *problem))
            python_lines = [_SKIPPED.format(len(skipped) + i) for i in range(len(lines))]
            ipython = list(lines)
        skipped.extend(ipython)
        out.append(_MARKER.format(index) + "\n")
        line += 1
        out.extend(p + "\n" for p in python_lines)
        cells.append(Cell(index, line, len(python_lines), as_list, text.endswith("\n")))
        line += len(python_lines)
    return Notebook(parsed, cells, "".join(out), skipped, indent, ensure_ascii, final_newline, broken)


def _syntax_error(text: str) -> Optional[Tuple[int, int, str]]:
    """(line, column, message) of the syntax error of one cell's Python, None when it parses."""
    try:
        ast.parse(text)
    except SyntaxError as exc:
        return exc.lineno or 1, exc.offset or 1, exc.msg
    except (ValueError, RecursionError, MemoryError):
        return None  # the parse of the whole text reports what is wrong
    return None


