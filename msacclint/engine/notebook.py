"""Jupyter notebooks (``.ipynb``): checked and fixed as the Python of their code cells.

A notebook is plain JSON (nbformat 4): ``{"cells": [{"cell_type": "code", "source": ...,
"outputs": [...]}, ...]}``. The code cells are joined, in order, into one Python text so
that an import in the first cell resolves a name used in the fifth; each cell is preceded
by a marker comment line, so that positions map back to ``(cell, line)`` and fixed text
splits back into cells.

IPython syntax that is not Python is skipped, not parsed: a line magic (``%timeit f()``),
a shell line (``!pip install x``), an assignment from either (``files = !ls``) and a help
line (``?np.mean``, ``np.mean?``) become ``pass`` at the same indentation for the analysis
and are put back verbatim when the notebook is written. A cell that starts with a cell
magic (``%%bash``, ``%%writefile``, ``%%time``) is not Python as a whole and is left out.

Positions: ``cell`` counts every cell of the notebook from 1 (markdown cells too), the way
Jupyter and VS Code number them; ``line`` counts from 1 within that cell; columns as in a
``.py`` file. A Diagnostic of a notebook carries ``cell`` (see docs/notebooks.md).

Fixing rewrites the ``source`` of the changed code cells only, in the form they had (a list
of lines or one string); outputs, execution counts, metadata and all other cells stay as
they were. The fixed Python must parse (``fix_source``) and every skipped line must come
back, or the notebook is left untouched. It is written atomically, keeping the JSON
layout of the file (indentation, ASCII escaping, trailing newline).
"""

from __future__ import annotations

import bisect
import dataclasses
import json
import os
import re
import stat
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

from msacclint.diagnostics import Diagnostic, FileFix
from msacclint.engine.atomic import replace_file
from msacclint.engine.fixes import configured_line_length, fix_file, fix_source
from msacclint.engine.runner import _bad_input, check_source
from msacclint.settings import Settings

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
    line = 1
    for index, cell in enumerate(parsed["cells"]):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        text, as_list = _cell_text(cell.get("source", ""))
        if text.lstrip().startswith("%%"):
            continue  # a cell magic: the cell is not Python
        lines = text.splitlines()
        python_lines = []
        for original in lines:
            if _IPYTHON_LINE.match(original):
                indent_text = original[:len(original) - len(original.lstrip(" \t"))]
                python_lines.append(indent_text + _SKIPPED.format(len(skipped)))
                skipped.append(original)
            else:
                python_lines.append(original)
        out.append(_MARKER.format(index) + "\n")
        line += 1
        out.extend(p + "\n" for p in python_lines)
        cells.append(Cell(index, line, len(python_lines), as_list, text.endswith("\n")))
        line += len(python_lines)
    return Notebook(parsed, cells, "".join(out), skipped, indent, ensure_ascii, final_newline)


def to_cells(nb: Notebook, diagnostics: Sequence[Diagnostic]) -> List[Diagnostic]:
    """Diagnostics of the joined text, with ``cell`` set and lines counted in that cell."""
    out = []
    for d in diagnostics:
        cell, line = nb.position(d.line)
        end_cell, end_line = nb.position(d.end_line)
        if end_cell != cell:
            end_line = line
        fixes = tuple(dataclasses.replace(f, edits=tuple(
            dataclasses.replace(e, line=nb.position(e.line)[1], end_line=nb.position(e.end_line)[1])
            for e in f.edits)) for f in d.fixes)
        out.append(dataclasses.replace(d, line=line, end_line=end_line, cell=cell, fixes=fixes))
    return out


def check_notebook(data: bytes, path: str, settings: Settings) -> List[Diagnostic]:
    """All diagnostics of a notebook file's bytes (an unreadable notebook is MSA001)."""
    try:
        nb = load(data)
    except NotebookError as exc:
        return _bad_input(path, f"{exc}; not checked", settings.codes_for(path))
    if not nb.python:
        return []
    return sorted(to_cells(nb, check_source(nb.python, path, settings)), key=Diagnostic.sort_key)


def _split(nb: Notebook, python: str) -> Optional[Dict[int, str]]:
    """The text of each code cell (by notebook index) in fixed joined text, IPython lines
    restored; None when the markers or skipped lines did not all survive."""
    texts: Dict[int, List[str]] = {}
    current: Optional[int] = None
    restored = 0
    for line in python.splitlines():
        marker = _MARKER_RE.match(line)
        if marker:
            current = int(marker.group(1))
            texts[current] = []
            continue
        if current is None:
            return None
        skipped = _SKIPPED_RE.match(line)
        if skipped:
            index = int(skipped.group(2))
            if index >= len(nb.skipped):
                return None
            line = nb.skipped[index]
            restored += 1
        texts[current].append(line)
    if restored != len(nb.skipped) or sorted(texts) != sorted(c.index for c in nb.cells):
        return None
    out = {}
    for cell in nb.cells:
        lines = texts[cell.index]
        text = "\n".join(lines)
        if lines and cell.trailing_newline:
            text += "\n"
        out[cell.index] = text
    return out


def dumps(nb: Notebook) -> str:
    text = json.dumps(nb.data, indent=nb.indent, ensure_ascii=nb.ensure_ascii)
    return text + ("\n" if nb.final_newline else "")


@dataclass
class NotebookFix:
    path: str
    original: bytes
    fixed: bytes
    applied: int
    remaining: List[Diagnostic]

    @property
    def changed(self) -> bool:
        return self.applied > 0 and self.fixed != self.original


def fix_notebook(path: str, settings: Settings, unsafe: bool, explicit: bool = False) -> Optional[NotebookFix]:
    """The notebook with its fixes applied, in memory; None when it cannot be read or its
    Python does not parse (such a notebook is left alone; ``check`` reports why)."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
        nb = load(data)
    except (OSError, NotebookError):
        return None
    seen: Dict[str, List[Diagnostic]] = {}

    def check(candidate: str) -> List[Diagnostic]:
        if candidate not in seen:
            seen.clear()
            seen[candidate] = check_source(candidate, path, settings)
        return seen[candidate]

    if any(d.code == "MSA001" for d in check(nb.python)):
        return None
    python, applied = fix_source(nb.python, check, unsafe=unsafe, explicit=explicit,
                                 line_length=configured_line_length(path))
    cells = _split(nb, python) if applied else None
    if not applied or cells is None:
        return NotebookFix(path, data, data, 0, to_cells(nb, check(nb.python)))
    for cell in nb.cells:
        new = cells[cell.index]
        old, _ = _cell_text(nb.data["cells"][cell.index].get("source", ""))
        if new == old:
            continue
        nb.data["cells"][cell.index]["source"] = new.splitlines(keepends=True) if cell.as_list else new
    fixed = dumps(nb).encode("utf-8")
    after = load(fixed)  # what was written must read back as the same Python
    remaining = to_cells(after, check_source(after.python, path, settings))
    if after.python != python:
        return NotebookFix(path, data, data, 0, to_cells(nb, check(nb.python)))
    return NotebookFix(path, data, fixed, applied, remaining)


def fix_path(path: str, settings: Settings, unsafe: bool, explicit: bool = False) -> Optional[FileFix]:
    """A file fixed in memory, Python source or notebook; None when it cannot be read,
    decoded or parsed. A notebook's code cells are fixed in place and its FileFix holds
    the notebook's JSON text, written back like any file."""
    if not is_notebook(path):
        return fix_file(path, settings, unsafe, explicit)
    fixed = fix_notebook(path, settings, unsafe, explicit)
    if fixed is None:
        return None
    return FileFix(path, fixed.original.decode("utf-8"), fixed.fixed.decode("utf-8"), fixed.applied, "utf-8",
                   fixed.remaining)


def write(result: NotebookFix) -> None:
    """Replace the notebook atomically, keeping its permission bits."""
    mode = stat.S_IMODE(os.stat(result.path).st_mode)
    replace_file(os.path.realpath(result.path), result.fixed, mode=mode, durable=True)


def fix_notebooks(paths: Sequence[str], settings: Settings, unsafe: bool, explicit: bool = False,
                  write_files: bool = True) -> List[NotebookFix]:
    """Fix and (unless ``write_files`` is false) write each notebook that changes."""
    out = []
    for path in paths:
        result = fix_notebook(path, settings, unsafe, explicit)
        if result is not None and result.changed:
            if write_files:
                write(result)
            out.append(result)
    return out


__all__ = ["Notebook", "NotebookError", "NotebookFix", "check_notebook", "fix_notebook", "fix_notebooks", "fix_path",
           "is_notebook", "load", "to_cells", "write"]

