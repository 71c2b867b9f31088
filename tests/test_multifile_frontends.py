"""Every multi-file example of every rule (``files={...}`` in VALID/INVALID), run through
each front end: ``msacclint check folder``, ``msacclint check one.py`` for each file (the
pre-commit shape: the project root is found from the file), flake8 as a subprocess, and the
editor server driven by a real LSP client. Each must find exactly the marked (path, line, code)
of the example's rule - the same answer everywhere. A notebook of an example (``demo.ipynb``,
its findings keyed ``demo.ipynb:cell N``) is checked by the command line and, as a notebook
document, by the editor; flake8 does not read notebooks.
"""

import json
import subprocess
import sys

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from msacclint.engine import registry
from msacclint.rules import examples

CASES = [(rule.code, kind, i, ex)
         for rule in registry.all_rules()
         for kind, group in (("valid", rule.VALID), ("invalid", rule.INVALID))
         for i, ex in enumerate(group) if ex.files]
IDS = [f"{code}-{kind}-{i}" for code, kind, i, _ in CASES]


def test_there_are_multi_file_examples():
    assert {kind for _, kind, _, _ in CASES} == {"valid", "invalid"}, IDS


#: the examples mark their findings at every grade: each front end is asked to show them all
SHOW_ALL = "[tool.msacclint]\nselect = [\"ALL\"]\nshow = [\"error\", \"warning\", \"info\"]\n"


def _write(root, example):
    root.mkdir(parents=True, exist_ok=True)
    if "pyproject.toml" not in example.sources:
        (root / "pyproject.toml").write_text(SHOW_ALL)  # one repository: its root
    for relative, text in example.sources.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return sorted(p for p in example.sources if p.endswith((".py", ".ipynb")))


def _place(path, cell):
    """How an example's marker names a finding's file: with its cell in a notebook."""
    return path if cell is None else f"{path}:cell {cell}"


def _expected(example, code):
    return {e for e in examples.expected(example.sources) if e[2] == code}


@pytest.mark.parametrize("code,kind,index,example", CASES, ids=IDS)
def test_cli_folder_and_single_files(code, kind, index, example, tmp_path, msacclint):
    python_files = _write(tmp_path, example)
    expected = _expected(example, code)
    assert (kind == "invalid") == bool(expected), "an INVALID example marks its findings, a VALID one none"

    def found(*paths, cache=False):
        run = msacclint("check", *(() if cache else ("--no-cache",)), "--select", code, "--format", "json", *paths)
        return {(_place(d["path"], d.get("cell")), d["line"], d["code"]) for d in json.loads(run.stdout)}

    assert found(".") == expected
    for relative in python_files:
        mine = {e for e in expected if e[0] == relative or e[0].startswith(relative + ":cell ")}
        assert found(relative) == mine, relative
        for _ in ("cold", "warm"):  # the index built, then read from the cache
            assert found(relative, cache=True) == mine, relative


@pytest.mark.parametrize("code,kind,index,example", CASES, ids=IDS)
def test_flake8(code, kind, index, example, tmp_path):
    python_files = [p for p in _write(tmp_path, example) if p.endswith(".py")]
    if not python_files:
        return  # notebooks only: flake8 reads Python files
    run = subprocess.run([sys.executable, "-m", "flake8", "--select", code, "--msacclint-show=error,warning,info",
                          *python_files],
                         cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert run.returncode in (0, 1), run.stderr
    found = set()
    for line in run.stdout.splitlines():
        path, number, _column, rest = line.split(":", 3)
        found.add((path.removeprefix("./"), int(number), rest.split()[0]))
    assert found == {e for e in _expected(example, code) if ".ipynb" not in e[0]}, run.stdout + run.stderr


# -- the editor server: one for the module, each example in its own folder ------------------
@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize("code,kind,index,example", CASES, ids=IDS)
async def test_lsp(code, kind, index, example, client: LanguageClient, workspace):
    root = workspace / f"{code}-{kind}-{index}"
    python_files = _write(root, example)
    found = set()
    for relative in python_files:
        path = root / relative
        if relative.endswith(".ipynb"):
            found |= await _open_notebook(client, path, relative, code)
            continue
        uri = path.as_uri()
        client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
            uri=uri, language_id="python", version=1, text=path.read_text(encoding="utf-8"))))
        await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        found |= {(relative, d.range.start.line + 1, d.code) for d in client.diagnostics.get(uri, ())
                  if d.code == code}
    assert found == _expected(example, code)


async def _open_notebook(client, path, relative, code):
    """Open a notebook as the editor does (a notebook document and a text document per cell)
    and collect the rule's findings per cell, once every code cell has been published."""
    import asyncio

    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    uris = [f"vscode-notebook-cell:{path.as_posix()}#C{n}" for n in range(len(cells))]
    code_cell = types.NotebookCellKind.Code
    kinds = [code_cell if c["cell_type"] == "code" else types.NotebookCellKind.Markup for c in cells]
    client.notebook_document_did_open(types.DidOpenNotebookDocumentParams(
        notebook_document=types.NotebookDocument(
            uri=path.as_uri(), notebook_type="jupyter-notebook", version=1,
            cells=[types.NotebookCell(kind=kind, document=uri) for kind, uri in zip(kinds, uris)]),
        cell_text_documents=[types.TextDocumentItem(uri=uri, language_id="python", version=1,
                                                    text="".join(cell["source"]))
                             for cell, uri in zip(cells, uris)]))
    wanted = [uri for uri, kind in zip(uris, kinds) if kind == code_cell]
    for _ in range(600):
        if all(uri in client.diagnostics for uri in wanted):
            break
        await asyncio.sleep(0.1)
    return {(f"{relative}:cell {n}", d.range.start.line + 1, d.code)
            for n, uri in enumerate(uris, 1) for d in client.diagnostics.get(uri, ()) if d.code == code}
