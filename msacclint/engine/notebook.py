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
magic (``%%bash``, ``%%writefile``, ``%%time``) is not Python as a whole and is left out; a
code cell that is not Python on its own is left out too and reported as one MSA001 warning
per notebook (Jupyter runs the other cells, and they are checked; such a notebook is never
fixed).

A notebook is checked as the module its code cells make (``analyse_notebook``): the same
engine call as a ``.py`` file, with the project index, so it gets every analysis a module
gets; the project layer reads it through the same joined text (msacclint.analysis.notebook_text).

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

import dataclasses
import json
import os
import re
import stat
from dataclasses import dataclass
from typing import Dict, FrozenSet, List, Optional, Sequence, Tuple

from msacclint.analysis.notebook_text import (
    _MARKER_RE,
    _SKIPPED_RE,
    Notebook,
    NotebookError,
    _cell_text,
    is_notebook,
    load,
)
from msacclint.diagnostics import Diagnostic, FileFix, FileResult, Related, Severity
from msacclint.engine.atomic import replace_file
from msacclint.engine.fixes import configured_line_length, fix_file, fix_source
from msacclint.engine.runner import _bad_input, analyse_source, check_source
from msacclint.project.index import ProjectIndex
from msacclint.settings import Settings


def to_cells(nb: Notebook, diagnostics: Sequence[Diagnostic], path: Optional[str] = None) -> List[Diagnostic]:
    """Diagnostics of the joined text, with ``cell`` set and lines counted in that cell. With
    ``path`` (the notebook's), related locations in the notebook and the places the messages
    name in it (``tutorial.ipynb:57``) are mapped to their cells too."""
    own = (os.path.normcase(os.path.abspath(path)), nb) if path is not None else None
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
    return cell_references(out, own) if own is not None else out


def analyse_notebook(data: bytes, path: str, settings: Settings,
                     project: Optional[ProjectIndex] = None) -> FileResult:
    """A notebook file's bytes checked as the module its code cells make: the same engine
    call as a ``.py`` file (``analyse_source``, with the project index, the names it uses
    and where it loads PyTorch weights), positions mapped back to cells. A notebook that
    cannot be read is MSA001."""
    nothing: Optional[FrozenSet[str]] = frozenset() if settings.collect_uses else None
    try:
        nb = load(data)
    except NotebookError as exc:
        return FileResult(_bad_input(path, f"{exc}; not checked", settings.codes_for(path)), nothing)
    broken = _broken_cells(nb, path, settings)
    if not nb.python:
        return FileResult(broken, nothing)
    found = analyse_source(nb.python, path, settings, project=project)
    weights = found.torch_weights
    if weights is not None:
        cell, line = nb.position(weights[0])
        weights = (line, f"{weights[1]}, cell {cell}")
    return FileResult(sorted(to_cells(nb, found.diagnostics, path) + broken, key=Diagnostic.sort_key), found.uses,
                      weights)


def _broken_cells(nb: Notebook, path: str, settings: Settings) -> List[Diagnostic]:
    """One MSA001 for the code cells that are not Python on their own, at the first of them: a
    warning, since Jupyter runs the other cells and msacclint checks them (a module with a
    syntax error runs nothing and is an error)."""
    if not nb.broken:
        return []
    index, line, column, message = nb.broken[0]
    others = [str(i + 1) for i, *_ in nb.broken[1:]]
    also = "" if not others else f"; so is cell {others[0]}" if len(others) == 1 else \
        f"; so are cells {', '.join(others)}"
    text = (f"syntax error, cell not checked: {message} (the cell fails when Jupyter runs it{also}); the other "
            f"cells are checked")
    return [dataclasses.replace(d, cell=index + 1, severity=Severity.WARNING)
            for d in _bad_input(path, text, settings.codes_for(path), line, column)]


def check_notebook(data: bytes, path: str, settings: Settings,
                   project: Optional[ProjectIndex] = None) -> List[Diagnostic]:
    """All diagnostics of a notebook file's bytes (an unreadable notebook is MSA001)."""
    return analyse_notebook(data, path, settings, project).diagnostics


#: a place in a notebook as a message names it: ``path.ipynb:LINE`` (a line of the joined text)
_REFERENCE = re.compile(r"(?P<path>[^\s:`'\"(),\[\]]+\.ipynb):(?P<line>\d+)\b")
#: notebooks read to map references to them: path -> (mtime, size, notebook or None)
_READ: Dict[str, Tuple[float, int, Optional[Notebook]]] = {}


def _other_notebook(path: str) -> Optional[Notebook]:
    try:
        info = os.stat(path)
    except OSError:
        return None
    known = _READ.get(path)
    if known is not None and known[:2] == (info.st_mtime, info.st_size):
        return known[2]
    try:
        with open(path, "rb") as handle:
            nb: Optional[Notebook] = load(handle.read())
    except (OSError, NotebookError):
        nb = None
    if len(_READ) > 64:
        _READ.clear()
    _READ[path] = (info.st_mtime, info.st_size, nb)
    return nb


def cell_references(diagnostics: Sequence[Diagnostic],
                    own: Optional[Tuple[str, Notebook]] = None) -> List[Diagnostic]:
    """``diagnostics`` with every place in a notebook that they name (a related location, a
    hop of the trail, ``demo.ipynb:57`` in the message) given as its cell and the line in
    that cell: the project layer counts a notebook's lines in the joined text of its code
    cells. ``own``: (normalised absolute path, notebook) of the notebook being checked, whose
    text may be newer than the file (an editor buffer)."""

    def notebook_at(shown: str) -> Optional[Notebook]:
        absolute = os.path.normcase(os.path.abspath(shown))
        if own is not None and absolute == own[0]:
            return own[1]
        return _other_notebook(absolute)

    def mapped(r: Related) -> Related:
        if r.cell is not None or not is_notebook(r.path):
            return r
        nb = notebook_at(r.path)
        if nb is None:
            return r
        cell, line = nb.position(r.line)
        return dataclasses.replace(r, line=line, cell=cell)

    def in_message(match: re.Match[str]) -> str:
        nb = notebook_at(match.group("path"))
        if nb is None:
            return match.group(0)
        cell, line = nb.position(int(match.group("line")))
        return f"{match.group('path')}:cell {cell}:{line}"

    out = []
    for d in diagnostics:
        if ".ipynb" not in d.message and not any(is_notebook(r.path) for r in d.related + d.trail):
            out.append(d)
            continue
        out.append(dataclasses.replace(d, message=_REFERENCE.sub(in_message, d.message),
                                       related=tuple(mapped(r) for r in d.related),
                                       trail=tuple(mapped(r) for r in d.trail)))
    return out


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
    if nb.broken:
        return None  # a cell that is not Python: the notebook is left as it is (``check`` says why)
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


__all__ = ["Notebook", "NotebookError", "NotebookFix", "analyse_notebook", "cell_references", "check_notebook",
           "fix_notebook", "fix_notebooks", "fix_path", "is_notebook", "load", "to_cells", "write"]

