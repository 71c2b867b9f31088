"""A notebook is analysed like the module its code cells make: every rule's examples (VALID and
INVALID) also run as a notebook whose code cells are the example's source split at its
blank-line boundaries between top-level statements, with a markdown cell in front, and must
give the same codes at the same places with the same severities.

The one difference a notebook has on purpose: the last bare expression of a cell is shown by
Jupyter, not thrown away, so a rule that reports a discarded result
(``Rule.reports_discarded_results``) stays quiet there; the expectation is adjusted for exactly
those places, and the adjustment is asserted.

Single-file examples are checked as the rule-example harness checks them (the file alone);
several files are checked together as a repository, the entry files (those no other file of
the example names) written as notebooks.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Set, Tuple

import pytest
from helpers import check_tree, settings

from msacclint.engine import registry
from msacclint.engine.notebook import check_notebook
from msacclint.engine.runner import check_source
from msacclint.project import outline

CASES = [(r.code, kind, i, ex) for r in registry.all_rules() if r.code not in ("MSA001", "MSA002")
         for kind, group in (("valid", r.VALID), ("invalid", r.INVALID)) for i, ex in enumerate(group)]


@dataclass
class Split:
    """An example's source as notebook cells: the cells, and where each line went."""

    cells: List[str]
    #: line of the source -> (cell number counted over all cells, line in that cell)
    where: Dict[int, Tuple[int, int]]
    #: lines of the source that hold the last bare expression of a cell (no trailing ';')
    displayed: Set[int]


def split_cells(source: str, first_cell: int = 2) -> Split:
    """Cut ``source`` at the blank lines that lie between two top-level statements; the
    blank lines themselves are left out. ``first_cell``: the number of the first code cell
    (a markdown cell comes first)."""
    lines = source.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    tree = ast.parse(source)
    starts = {min([s.lineno] + [d.lineno for d in getattr(s, "decorator_list", [])]) for s in tree.body}
    ends = {s.end_lineno for s in tree.body}
    chunks: List[List[int]] = [[]]
    for number in range(1, len(lines) + 1):
        blank = not lines[number - 1].strip()
        if blank:
            following = next((n for n in range(number + 1, len(lines) + 1) if lines[n - 1].strip()), None)
            previous = max((e for e in ends if e < number), default=0)
            inside = any(s < number for s in starts if s > previous)
            if following in starts and not inside and chunks[-1]:
                chunks.append([])
            continue
        chunks[-1].append(number)
    chunks = [c for c in chunks if c]
    where: Dict[int, Tuple[int, int]] = {}
    cells: List[str] = []
    displayed: Set[int] = set()
    for index, chunk in enumerate(chunks):
        first, last = chunk[0], chunk[-1]
        text = "\n".join(lines[first - 1:last])
        cells.append(text + "\n")
        for number in range(first, last + 1):
            where[number] = (first_cell + index, number - first + 1)
        body = ast.parse(text).body
        if body and isinstance(body[-1], ast.Expr) and not text.rstrip().endswith(";"):
            displayed.update(range(body[-1].lineno + first - 1, body[-1].end_lineno + first))
    return Split(cells, where, displayed)


def notebook_json(cells: List[str], markdown: str = "# The example, as a notebook") -> str:
    out = [{"cell_type": "markdown", "metadata": {}, "source": markdown}]
    out += [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
             "source": text.splitlines(keepends=True)} for text in cells]
    return json.dumps({"cells": out, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1) + "\n"


def _entries(files: Dict[str, str]) -> List[str]:
    """The scripts of an example (a main block, or top-level code that does work) that no
    other file names by module stem: what a notebook can be. A module another file imports
    cannot be a notebook, and a module that only defines things is a library as a ``.py``
    file but an entry point (that runs nothing) as a notebook."""
    out = []
    for path in files:
        if not path.endswith(".py") or path.endswith("__init__.py"):
            continue
        stem = Path(path).stem
        named = any(re.search(rf"\b{re.escape(stem)}\b", text) for other, text in files.items() if other != path)
        shape = outline.read(files[path], stem, False)
        if not named and (shape.main or shape.script):
            out.append(path)
    return out


def _pytest_module(path: str) -> bool:
    """pytest collects ``test_*.py``/``*_test.py`` modules (their findings are lowered), never
    notebooks: such an example has no notebook twin."""
    stem = Path(path).stem
    return path.endswith(".py") and (stem.startswith("test_") or stem.endswith("_test"))


def _notebook_path(path: str) -> str:
    return path[:-3] + ".ipynb"


def _discarding_codes() -> Set[str]:
    return {r.code for r in registry.all_rules() if r.reports_discarded_results}


def _expected(module_found, splits: Dict[str, Split]):
    """(path, cell, line, code, severity) the notebook form must give: the module's findings,
    moved to their cells, without the discarded results that a cell displays."""
    expected = set()
    dropped = set()
    for path, _cell, line, code, severity in module_found:
        split = splits.get(path)
        if split is None:
            expected.add((path, None, line, code, severity))
            continue
        new_cell, new_line = split.where[line]
        key = (_notebook_path(path), new_cell, new_line, code, severity)
        if code in _discarding_codes() and line in split.displayed:
            dropped.add(key)
        else:
            expected.add(key)
    return expected, dropped


def _found(diagnostics, code: str):
    return {(d.path, d.cell, d.line, d.code, d.severity.value) for d in diagnostics if d.code == code}


@pytest.mark.parametrize("code,kind,index,example", CASES, ids=[f"{c}-{k}-{i}" for c, k, i, _ in CASES])
def test_an_example_gives_the_same_findings_as_a_notebook(code, kind, index, example, tmp_path):
    version = example.mindspore_version
    if any(_pytest_module(path) for path in example.sources):
        pytest.skip("a pytest module: notebooks are not collected as tests")
    if not example.files:
        try:
            split = split_cells(example.code)
        except SyntaxError:
            pytest.skip("an example of a file that does not parse: no cells to split")
        s = settings([code], mindspore_version=version)
        module = _found(check_source(example.code, example.path, s), code)
        notebook_path = _notebook_path(example.path) if example.path.endswith(".py") else example.path + ".ipynb"
        notebook = _found(check_notebook(notebook_json(split.cells).encode(), notebook_path, s), code)
        expected, dropped = _expected(module, {example.path: split})
        expected = {(notebook_path, *rest[1:]) for rest in expected}
        dropped = {(notebook_path, *rest[1:]) for rest in dropped}
        assert notebook == expected, (
            f"{code} {kind} example {index}: as a module {sorted(module)}, as a notebook {sorted(notebook)}")
        assert not (notebook & dropped)
        if not _entries({example.path: example.code}):
            return  # a module that only defines things is a library, a notebook an entry point
        # a script: the same again with the project layer (reach, grades) over a repository
        # that holds it
        for name in ("module", "notebook"):
            (tmp_path / name).mkdir()
        module = _found(check_tree(tmp_path / "module", {example.path: example.code}, [code],
                                   mindspore_version=version), code)
        notebook = _found(check_tree(tmp_path / "notebook", {notebook_path: notebook_json(split.cells)}, [code],
                                     mindspore_version=version), code)
        expected, dropped = _expected(module, {example.path: split})
    else:
        files = dict(example.sources)
        (tmp_path / "module").mkdir()
        (tmp_path / "notebook").mkdir()
        module = _found(check_tree(tmp_path / "module", files, [code], mindspore_version=version), code)
        splits = {}
        as_notebooks = {}
        for path in _entries(files):
            try:
                splits[path] = split_cells(files[path])
            except SyntaxError:
                continue
            as_notebooks[_notebook_path(path)] = notebook_json(splits[path].cells)
        if not splits:
            pytest.skip("no file of the example is a script that no other file imports: none is a notebook")
        written = {p: t for p, t in files.items() if p not in splits}
        written.update(as_notebooks)
        notebook = _found(check_tree(tmp_path / "notebook", written, [code], mindspore_version=version), code)
        expected, dropped = _expected(module, splits)
    assert notebook == expected, (
        f"{code} {kind} example {index}: as a module {sorted(module)}, as a notebook {sorted(notebook)}")
    assert not (notebook & dropped)


# -- the splitting itself ----------------------------------------------------------------------------
def test_cells_are_cut_between_top_level_statements_only():
    source = ("import mindspore.nn as nn\n\n\nclass Net(nn.Cell):\n    def __init__(self):\n        pass\n\n"
              "    def construct(self, x):\n        return x\n\n@decorate\ndef f(\n\n    a):\n    return a\n\n"
              "x = (1,\n\n     2)\nf(x)\n")
    split = split_cells(source)
    assert split.cells == ["import mindspore.nn as nn\n",
                           "class Net(nn.Cell):\n    def __init__(self):\n        pass\n\n"
                           "    def construct(self, x):\n        return x\n",
                           "@decorate\ndef f(\n\n    a):\n    return a\n",
                           "x = (1,\n\n     2)\nf(x)\n"]
    assert split.where[4] == (3, 1) and split.where[11] == (4, 1) and split.where[20] == (5, 4)
    assert split.displayed == {20}


def test_the_harness_sees_what_a_cell_displays():
    """The adjustment is needed: MSA146's finding on a scratch cell's last line is gone in the
    notebook and kept where a statement follows it in the cell."""
    source = ("import mindspore as ms\n\nx = ms.Tensor([1.0])\nx.clamp(0, 1)\n\nx.clamp(0, 1)\ny = 2\n")
    split = split_cells(source)
    s = settings(["MSA146"])
    module = _found(check_source(source, "scratch.py", s), "MSA146")
    notebook = _found(check_notebook(notebook_json(split.cells).encode(), "scratch.ipynb", s), "MSA146")
    assert {line for _, _, line, _, _ in module} == {4, 6}
    assert notebook == {("scratch.ipynb", 4, 1, "MSA146", "error")}
    expected, dropped = _expected(module, {"scratch.py": split})
    assert expected == notebook
    assert dropped == {("scratch.ipynb", 3, 2, "MSA146", "error")}
