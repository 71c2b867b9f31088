"""``msacclint lsp`` driven end to end by a real LSP client (pytest-lsp) over stdio."""

import subprocess
import sys

import pytest
from helpers import graded_script
from lsprotocol import types
from pytest_lsp import LanguageClient

SOURCE = """\
import mindspore.nn as nn

pool = nn.MaxPool2d(2)  # as in the reference
drop = nn.Dropout(0.1)
"""


async def _open(client, path, text, version=1):
    uri = path.as_uri()
    path.write_text(text)
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=uri, language_id="python", version=version, text=text)))
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    return uri


def _apply(text, edits):
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(p):
        return starts[p.line] + p.character

    for edit in sorted(edits, key=lambda e: offset(e.range.start), reverse=True):
        text = text[:offset(edit.range.start)] + edit.new_text + text[offset(edit.range.end):]
    return text


@pytest.mark.asyncio(loop_scope="module")
async def test_open_publishes_diagnostics_with_lsp_ranges(client: LanguageClient, workspace):
    tmp_path = workspace
    uri = await _open(client, tmp_path / "open.py", SOURCE)
    found = sorted(client.diagnostics[uri], key=lambda d: d.range.start.line)
    assert [d.code for d in found] == ["MSA104", "MSA101"]
    pool, drop = found
    # `nn.MaxPool2d(2)` on the third line: 0-based line 2, characters 7..22
    assert (pool.range.start.line, pool.range.start.character) == (2, 7)
    assert (pool.range.end.line, pool.range.end.character) == (2, 22)
    assert pool.severity == types.DiagnosticSeverity.Error and pool.source == "msacclint"
    assert "[api.01]" in pool.message
    assert (drop.range.start.line, drop.range.start.character, drop.range.end.character) == (3, 7, 22)


@pytest.mark.asyncio(loop_scope="module")
async def test_change_updates_the_diagnostics(client: LanguageClient, workspace):
    tmp_path = workspace
    uri = await _open(client, tmp_path / "change.py", SOURCE)
    assert len(client.diagnostics[uri]) == 2
    # replace "(2)" on line 2 by "(2, stride=2)"
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[types.TextDocumentContentChangePartial(
            range=types.Range(start=types.Position(line=2, character=19), end=types.Position(line=2, character=22)),
            text="(2, stride=2)")]))
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert [d.code for d in client.diagnostics[uri]] == ["MSA101"]
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=3),
        content_changes=[types.TextDocumentContentChangeWholeDocument(
            text="import mindspore.nn as nn\nx = '\U0001F600'; drop = nn.Dropout(0.1)\n")]))
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    (only,) = client.diagnostics[uri]
    # the emoji is one code point but two UTF-16 units: the call starts at UTF-16 character 17
    assert (only.code, only.range.start.line, only.range.start.character) == ("MSA101", 1, 17)


@pytest.mark.asyncio(loop_scope="module")
async def test_save_publishes_and_config_is_respected(client: LanguageClient, workspace):
    tmp_path = workspace
    text = "import mindspore.nn as nn\nbn = nn.BatchNorm2d(64, momentum=0.1)\n"
    project = tmp_path / "configured"
    project.mkdir()
    (project / "pyproject.toml").write_text("[tool.msacclint]\nignore = [\"MSA107\"]\n")
    uri = await _open(client, project / "bn.py", text)
    assert list(client.diagnostics[uri]) == []  # MSA107 is ignored by the workspace's pyproject.toml
    (project / "pyproject.toml").write_text("[tool.msacclint]\nignore = []\n")
    client.text_document_did_save(types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri)))
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert [d.code for d in client.diagnostics[uri]] == ["MSA107"]


@pytest.mark.asyncio(loop_scope="module")
async def test_code_actions_fix_the_finding(client: LanguageClient, workspace):
    tmp_path = workspace
    uri = await _open(client, tmp_path / "action.py", SOURCE)
    pool = next(d for d in client.diagnostics[uri] if d.code == "MSA104")
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), range=pool.range,
        context=types.CodeActionContext(diagnostics=[pool], only=[types.CodeActionKind.QuickFix])))
    titles = [a.title for a in actions]
    # stride=1 only writes out the reported bug: offered last, as "not a fix", never preferred
    assert titles == ["MSA104: stride=2, as in PyTorch (unsafe fix)",
                      "MSA104: keep this behaviour, written out: stride=1 "
                      "(not a fix: keeps the current behaviour)"], titles
    assert all(a.kind == types.CodeActionKind.QuickFix for a in actions)
    assert not any(a.is_preferred for a in actions)
    new_text = _apply(SOURCE, actions[0].edit.changes[uri])
    assert "pool = nn.MaxPool2d(2, stride=2)  # as in the reference\n" in new_text
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=new_text)]))
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert [d.code for d in client.diagnostics[uri]] == ["MSA101"]


@pytest.mark.asyncio(loop_scope="module")
async def test_fix_all_applies_the_safe_fixes(client: LanguageClient, workspace):
    project = workspace / "fixall"
    project.mkdir()
    # MSA102's safe fix (the upgrade group, switched on here); MSA104 has none (stride=1 is KEEP)
    (project / "pyproject.toml").write_text('[tool.msacclint]\nextend-select = ["upgrade"]\n', encoding="utf-8")
    source = SOURCE + "keep = nn.Dropout(0.8)\n"
    uri = await _open(client, project / "fixall.py", source)
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=0)),
        context=types.CodeActionContext(diagnostics=[], only=[types.CodeActionKind.SourceFixAll])))
    (fix_all,) = actions
    assert fix_all.title == "msacclint: apply all safe fixes (1)"
    assert _apply(source, fix_all.edit.changes[uri]) == source.replace("Dropout(0.8)", "Dropout(p=0.2)")
    # a minimal edit: only the changed line is replaced, not the whole document
    (edit,) = fix_all.edit.changes[uri]
    assert (edit.range.start.line, edit.range.start.character, edit.range.end.line, edit.range.end.character) \
        == (4, 0, 5, 0)
    assert edit.new_text == "keep = nn.Dropout(p=0.2)\n"


@pytest.mark.asyncio(loop_scope="module")
async def test_typing_is_analysed_once_the_typing_pauses(client: LanguageClient, workspace):
    """A keystroke per didChange (incremental: one character inserted each time): the
    server analyses once after the last one (DEBOUNCE), not once per keystroke."""
    import asyncio

    uri = await _open(client, workspace / "typing.py", "import mindspore.nn as nn\n\n")
    assert list(client.diagnostics[uri]) == []
    typed = "drop = nn.Dropout(0.1)"
    for i, char in enumerate(typed):
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2 + i),
            content_changes=[types.TextDocumentContentChangePartial(
                range=types.Range(start=types.Position(line=2, character=i), end=types.Position(line=2, character=i)),
                text=char)]))
    published = await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    # the first diagnostics after the burst are those of the last version, with the finding
    assert published.uri == uri and published.version == 1 + len(typed)
    assert [d.code for d in published.diagnostics] == ["MSA101"]
    with pytest.raises(asyncio.TimeoutError):  # and no analysis of an intermediate version follows
        await asyncio.wait_for(client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS), 1.5)


@pytest.mark.asyncio(loop_scope="module")
async def test_hover_shows_the_rule_page(client: LanguageClient, workspace):
    tmp_path = workspace
    uri = await _open(client, tmp_path / "hover.py", SOURCE)
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=3, character=12)))
    assert hover.contents.kind == types.MarkupKind.Markdown
    # what the hover says about reach comes first (a lone file: its code is reachable), then the page
    assert hover.contents.value.startswith("**MSA101 (error)**: this code runs:")
    assert "\n# MSA101: dropout-wrong-probability" in hover.contents.value
    assert "## Why is this bad?" in hover.contents.value
    nothing = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=0, character=3)))
    assert nothing is None


def test_without_pygls_the_command_says_what_to_install(tmp_path):
    # a site-packages directory without pygls: hide it with a sitecustomize that blocks the import
    (tmp_path / "sitecustomize.py").write_text(
        "import sys\n"
        "class _Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('pygls', 'lsprotocol'):\n"
        "            raise ImportError('blocked: ' + name)\n"
        "sys.meta_path.insert(0, _Block())\n")
    import os

    env = {**os.environ, "PYTHONPATH": str(tmp_path) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    result = subprocess.run([sys.executable, "-m", "msacclint", "lsp"], env=env, capture_output=True, text=True,
                            timeout=120, stdin=subprocess.DEVNULL)
    assert result.returncode == 2
    from msacclint import install_info

    # the hint names this install's own source (here the editable checkout), never a package index
    assert install_info.extra_hint("lsp") in result.stderr and "[lsp]" in result.stderr


@pytest.mark.asyncio(loop_scope="module")
async def test_a_broken_configuration_is_shown_once_and_nothing_published(client: LanguageClient, workspace):
    project = workspace / "broken-config"
    project.mkdir()
    (project / "pyproject.toml").write_text("[tool.msacclint]\nselect = [\"NOPE999\"]\n")
    uri = await _open(client, project / "net.py", SOURCE)
    assert list(client.diagnostics[uri]) == []
    errors = [m for m in client.messages if "NOPE999" in m.message]
    assert len(errors) == 1 and errors[0].type == types.MessageType.Error


@pytest.mark.asyncio(loop_scope="module")
async def test_the_editor_sees_the_project(client: LanguageClient, workspace):
    """The server links the open file to the rest of its repository: the trained network's
    class is in src/model.py; saving that file changes what the entry script is told."""
    project = workspace / "repo"
    (project / "src").mkdir(parents=True)
    (project / "pyproject.toml").write_text("")
    (project / "src" / "__init__.py").write_text("")
    model = project / "src" / "model.py"
    model.write_text("import mindspore.nn as nn\n\nclass Net(nn.Cell):\n    def __init__(self):\n"
                     "        super().__init__()\n        self.drop = nn.Dropout(p=0.0)\n")
    train = ("import mindspore as ms\nfrom mindspore import nn\nfrom src.model import Net\n\nnet = Net()\n"
             "opt = nn.Adam(net.trainable_params())\ndef forward(x, y):\n    return nn.MSELoss()(net(x), y)\n"
             "grad_fn = ms.value_and_grad(forward, None, opt.parameters)\nfor x, y in ds:\n    grad_fn(x, y)\n")
    (project / "train.py").write_text(train)
    uri = await _open(client, project / "train.py", train)
    assert [d.code for d in client.diagnostics[uri]] == []  # Dropout(p=0.0): the mode changes nothing
    model.write_text(model.read_text().replace("p=0.0", "p=0.1"))
    model_uri = await _open(client, model, model.read_text())
    client.text_document_did_save(types.DidSaveTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=model_uri)))
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=train + "\n")]))
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    (found,) = client.diagnostics[uri]
    assert found.code == "MSA201" and "src/model.py:6" in found.message, found.message


GRADED = graded_script()


@pytest.mark.asyncio(loop_scope="module")
async def test_grades_become_severities_and_dormant_findings_are_faded(client: LanguageClient, workspace):
    """error/warning/info -> Error/Warning/Information; a finding in code nothing calls
    (build_head, build_loader: dormant, lowered one grade) carries the Unnecessary tag; the
    grades shown are the project's `show`, as for `msacclint check`."""
    project = workspace / "graded"
    project.mkdir()
    (project / "pyproject.toml").write_text('[tool.msacclint]\nshow = ["error", "warning", "info"]\n')
    uri = await _open(client, project / "train.py", GRADED)
    found = {(d.range.start.line + 1, d.code): d for d in client.diagnostics[uri]}
    S, Tag = types.DiagnosticSeverity, types.DiagnosticTag
    assert {key: (d.severity, list(d.tags or [])) for key, d in found.items()} == {
        (6, "MSA101"): (S.Warning, [Tag.Unnecessary]),      # an error, lowered: dormant
        (10, "MSA301"): (S.Information, [Tag.Unnecessary]),  # a warning, lowered: dormant
        (14, "MSA104"): (S.Error, []),
        (15, "MSA301"): (S.Warning, []),
    }
    assert "dormant" in found[(10, "MSA301")].message
    # the default grades leave the note out, as the command line does
    (project / "pyproject.toml").write_text("[tool.msacclint]\n")
    client.text_document_did_save(types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri)))
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert sorted((d.range.start.line + 1, d.code) for d in client.diagnostics[uri]) == [
        (6, "MSA101"), (14, "MSA104"), (15, "MSA301")]


@pytest.mark.asyncio(loop_scope="module")
async def test_per_file_ignores_match_from_the_configuration_folder(client: LanguageClient, workspace):
    """The server's own folder is not the project's: the engine still sees the file where it
    is (per-file-ignores relative to the configuration, project answers from its files)."""
    project = workspace / "ignoring"
    (project / "scripts").mkdir(parents=True)
    (project / "pyproject.toml").write_text('[tool.msacclint.per-file-ignores]\n"scripts/*" = ["MSA104"]\n')
    ignored = await _open(client, project / "scripts" / "pool.py", SOURCE)
    assert [d.code for d in client.diagnostics[ignored]] == ["MSA101"]
    kept = await _open(client, project / "pool.py", SOURCE)
    assert sorted(d.code for d in client.diagnostics[kept]) == ["MSA101", "MSA104"]


RESNET_BLOCKS = """\
import mindspore.nn as nn


class BasicBlock(nn.Cell):
    def __init__(self, c):
        super().__init__()
        self.bn = nn.BatchNorm2d(c, momentum=0.1)


class Bottleneck(nn.Cell):
    def __init__(self, c):
        super().__init__()
        self.bn = nn.BatchNorm2d(c, momentum=0.1)


def resnet18():
    return BasicBlock(64)
"""


@pytest.mark.asyncio(loop_scope="module")
async def test_hover_shows_how_an_entry_point_reaches_the_finding(client: LanguageClient, workspace):
    """The reach graph in the editor: the finding train.py reaches shows its trail on hover;
    the block nothing builds is a faded warning whose hover says it is dormant."""
    project = workspace / "reaching"
    (project / "src").mkdir(parents=True)
    (project / ".git").mkdir()
    (project / "src" / "__init__.py").write_text("")
    (project / "train.py").write_text("from src.blocks import resnet18\n\nif __name__ == '__main__':\n    resnet18()\n")
    uri = await _open(client, project / "src" / "blocks.py", RESNET_BLOCKS)
    found = {d.range.start.line + 1: d for d in client.diagnostics[uri]}
    assert found[7].severity == types.DiagnosticSeverity.Error and not found[7].tags
    assert found[13].severity == types.DiagnosticSeverity.Warning
    assert list(found[13].tags) == [types.DiagnosticTag.Unnecessary]
    reached = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=6, character=20)))
    text = reached.contents.value
    assert "this code runs:" in text and "train.py:3`" in text and "resnet18" in text
    assert "# MSA107" in text  # the rule's page follows
    dormant = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=12, character=20)))
    assert "nothing the repository runs reaches this code (dormant)" in dormant.contents.value


# -- notebooks: synchronised as notebook documents, each code cell gets its findings --------------
def _cell_uri(path, n):
    return f"vscode-notebook-cell:{path.as_posix()}#C{n}"


async def _published(client, uris, ready=lambda found: True, seconds=60):
    """Wait until each of ``uris`` has diagnostics published that ``ready`` accepts (one
    notebook analysis publishes every code cell at once)."""
    import asyncio

    for _ in range(int(seconds * 10)):
        if all(uri in client.diagnostics and ready(client.diagnostics[uri]) for uri in uris):
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"not published: {uris}, have {dict(client.diagnostics)}")


@pytest.mark.asyncio(loop_scope="module")
async def test_a_notebook_is_checked_as_the_module_its_cells_make(client: LanguageClient, workspace):
    """A notebook opened as a notebook document: the cells are read in order as one module (an
    import of the first resolves a name of the third), with the repository (the network's class
    is in src/model.py), and each finding is published on its cell, at its line there; a quick
    fix edits the cell; markdown cells count in the order but get nothing."""
    project = workspace / "nbrepo"
    (project / "src").mkdir(parents=True)
    (project / "pyproject.toml").write_text("")
    (project / "src" / "__init__.py").write_text("")
    (project / "src" / "model.py").write_text(
        "import mindspore.nn as nn\n\nclass Net(nn.Cell):\n    def __init__(self):\n"
        "        super().__init__()\n        self.drop = nn.Dropout(p=0.1)\n")
    path = project / "train.ipynb"
    path.write_text("{}")  # the file exists; its cells come from the editor
    cells = [
        (types.NotebookCellKind.Code, "import mindspore as ms\nfrom mindspore import nn\nfrom src.model import Net\n"),
        (types.NotebookCellKind.Markup, "# The network"),
        (types.NotebookCellKind.Code, "net = Net()\nopt = nn.Adam(net.trainable_params())\n"
                                      "drop = nn.Dropout(0.1)\n"),
        (types.NotebookCellKind.Code, "def forward(x, y):\n    return nn.MSELoss()(net(x), y)\n"
                                      "grad_fn = ms.value_and_grad(forward, None, opt.parameters)\n"),
        (types.NotebookCellKind.Code, "for x, y in ds:\n    grad_fn(x, y)\n"),
    ]
    uris = [_cell_uri(path, n) for n in range(len(cells))]
    client.notebook_document_did_open(types.DidOpenNotebookDocumentParams(
        notebook_document=types.NotebookDocument(
            uri=path.as_uri(), notebook_type="jupyter-notebook", version=1,
            cells=[types.NotebookCell(kind=kind, document=uri) for (kind, _), uri in zip(cells, uris)]),
        cell_text_documents=[types.TextDocumentItem(uri=uri, language_id="python" if kind == 2 else "markdown",
                                                    version=1, text=text)
                             for (kind, text), uri in zip(cells, uris)]))
    await _published(client, [uris[0], uris[2], uris[3], uris[4]])
    assert [d.code for d in client.diagnostics[uris[0]]] == []
    assert uris[1] not in client.diagnostics
    (drop,) = client.diagnostics[uris[2]]
    assert drop.code == "MSA101" and (drop.range.start.line, drop.range.start.character) == (2, 7)
    (loop,) = client.diagnostics[uris[4]]
    assert loop.code == "MSA201" and loop.range.start.line == 1, loop
    assert "src/model.py:6" in loop.message, loop.message
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uris[2]), range=drop.range,
        context=types.CodeActionContext(diagnostics=[drop])))
    fix = next(a for a in actions if a.title.startswith("MSA101"))
    (edit,) = fix.edit.changes[uris[2]]  # an edit of the cell, at the cell's line
    assert _apply(cells[2][1], [edit]).splitlines()[2] == "drop = nn.Dropout(p=0.1)", fix.title
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uris[4]), position=loop.range.start))
    assert hover is not None and "MSA201" in hover.contents.value

    # set_train() typed into the network's cell: the loop's cell is told at once
    client.notebook_document_did_change(types.DidChangeNotebookDocumentParams(
        notebook_document=types.VersionedNotebookDocumentIdentifier(uri=path.as_uri(), version=2),
        change=types.NotebookDocumentChangeEvent(cells=types.NotebookDocumentCellChanges(text_content=[
            types.NotebookDocumentCellContentChanges(
                document=types.VersionedTextDocumentIdentifier(uri=uris[2], version=2),
                changes=[types.TextDocumentContentChangeWholeDocument(text=cells[2][1] + "net.set_train()\n")])]))))
    await _published(client, [uris[4]], lambda found: not found)
    assert [d.code for d in client.diagnostics[uris[4]]] == []
    assert [d.code for d in client.diagnostics[uris[2]]] == ["MSA101"]
