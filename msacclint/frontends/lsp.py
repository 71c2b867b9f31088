"""Run the editor server (Language Server Protocol over stdin/stdout).

``msacclint lsp`` publishes the same diagnostics as ``msacclint check`` (the grades its
``show`` names; error, warning and info become the editor's Error, Warning and Information,
and a finding in code that does not run is tagged Unnecessary, which editors fade) when a
Python file is opened, changed or saved (changes arrive incrementally and are analysed once
the typing pauses for DEBOUNCE seconds: twenty quick keystrokes cost one analysis),
offers every fix as a code action (and all safe ones
at once as ``source.fixAll``), and shows a rule's page on hover over its finding. Jupyter
notebooks are synchronised as notebook documents (LSP 3.17): the notebook is checked as
``check`` checks a ``.ipynb`` file, with its repository, and each code cell gets its own
diagnostics, quick fixes and hover pages (the safe fixes of a whole notebook are ``check
--fix``'s). The
nearest ``pyproject.toml`` with ``[tool.msacclint]`` above each file configures it, as
for the command line. Needs the optional extra ``lsp`` (``pip install -e '<checkout>[lsp]'``, or
``pip install 'msacclint[lsp] @ git+<URL>'``).
"""

from __future__ import annotations

import argparse
import asyncio
import difflib
import json
import os
import sys
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

from msacclint import __version__, api, install_info
from msacclint.diagnostics import Applicability, Diagnostic, Edit, Fix, Severity
from msacclint.frontends.rule_page import render


def install_hint() -> str:
    """How to add the ``lsp`` extra to this install, in the form it was installed."""
    return install_info.extra_hint("lsp")
#: how a quick fix's title names its applicability; a KEEP edit is not a fix (docs/fixes.md)
_KIND = {Applicability.SAFE: "safe fix", Applicability.UNSAFE: "unsafe fix",
         Applicability.KEEP: "not a fix: keeps the current behaviour"}
SOURCE = "msacclint"
#: seconds without a change before a changed document is analysed again
DEBOUNCE = 0.3
FIX_ALL_KIND = "source.fixAll.msacclint"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.description = ("Run msacclint as a language server on stdin/stdout, for editors: diagnostics, "
                          "quick fixes and rule pages on hover. Needs the lsp extra: " + install_hint() + ".")


def run(args: argparse.Namespace) -> int:
    try:
        import lsprotocol  # noqa: F401
        import pygls  # noqa: F401
    except ImportError:
        print(f"msacclint: error: the editor server needs pygls: {install_hint()}", file=sys.stderr)
        return 2
    build_server().start_io()
    return 0


# -- what does not depend on pygls: settings per file, positions ----------------------------
class SettingsCache:
    """Settings and grades per configuration file, re-read when that file changes."""

    def __init__(self) -> None:
        self._by_config: Dict[Tuple[Optional[str], float], Any] = {}

    def for_path(self, path: str) -> Tuple[api.Settings, api.Grades]:
        pyproject = api.config_file_for(path)
        try:
            stamp = os.stat(pyproject).st_mtime if pyproject else 0.0
        except OSError:
            stamp = 0.0
        key = (str(pyproject) if pyproject else None, stamp)
        if key not in self._by_config:
            self._by_config.clear()
            self._by_config[key] = api.configuration_for_file(path, pyproject)
        return self._by_config[key]


def reach_section(d: Diagnostic) -> str:
    """What the hover says about whether the finding's code runs: the trail from the entry
    point (file:line of each hop), or why it does not run."""
    if d.reach is None:
        return ""
    lines = [f"**{d.code} ({d.severity.value})**: "]
    if d.reach.value == "runs":
        lines[0] += "this code runs:"
    elif d.reach.value == "dormant":
        lines[0] += "nothing the repository runs reaches this code (dormant); the message says what runs instead."
    else:
        lines[0] += "this code cannot run:"
    lines.extend(f"{n}. `{hop.place}` {hop.message}" for n, hop in enumerate(d.trail, 1))
    return "\n".join(lines) + "\n\n---\n\n"


def relative_path(path: str, root: str) -> str:
    """``path`` relative to the configuration's folder when inside it, as exclude patterns
    are matched on the command line."""
    try:
        return Path(path).resolve().relative_to(Path(root).resolve()).as_posix()
    except ValueError:
        return path


def is_excluded(path: str, settings) -> bool:
    if not settings.exclude:
        return False
    import pathspec

    spec = pathspec.GitIgnoreSpec.from_lines(list(settings.exclude))
    return spec.match_file(relative_path(path, settings.root))


def build_server():
    """The pygls server with msacclint's features registered."""
    from lsprotocol import types
    from pygls.lsp.server import LanguageServer
    from pygls.uris import to_fs_path

    notebooks = types.NotebookDocumentSyncOptions(notebook_selector=[types.NotebookDocumentFilterWithCells(
        notebook="jupyter-notebook", cells=[types.NotebookCellLanguage(language="python")])], save=True)
    server = LanguageServer("msacclint", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
                            notebook_document_sync=notebooks)
    settings_cache = SettingsCache()
    #: uri -> (document version, text, engine path, settings, diagnostics)
    results: Dict[str, Tuple[Optional[int], str, str, Any, List[Diagnostic]]] = {}
    #: cell uri -> (cell version, cell text, the findings in that cell), from its notebook's last analysis
    cell_results: Dict[str, Tuple[Optional[int], str, List[Diagnostic]]] = {}
    shown_errors: set = set()
    severity = {Severity.ERROR: types.DiagnosticSeverity.Error, Severity.WARNING: types.DiagnosticSeverity.Warning,
                Severity.INFO: types.DiagnosticSeverity.Information}

    def analyse(uri: str):
        doc = server.workspace.get_text_document(uri)
        if server.workspace.get_notebook_document(cell_uri=uri) is not None:
            # a notebook's cell: what the notebook's analysis found in it (no fix-all: settings None)
            cell = cell_results.get(uri)
            if cell is None or cell[:2] != (doc.version, doc.source):
                notebook = server.workspace.get_notebook_document(cell_uri=uri)
                analyse_notebook(notebook.uri)
                cell = cell_results.get(uri, (doc.version, doc.source, []))
            return doc, (doc.version, doc.source, doc.path or "", None, cell[2])
        cached = results.get(uri)
        text = doc.source
        if cached is not None and cached[0] == doc.version and cached[1] == text:
            return doc, cached
        path = doc.path or "untitled.py"
        try:
            settings, grades = settings_cache.for_path(path)
        except api.ConfigError as exc:
            if str(exc) not in shown_errors:  # once per problem, not on every keystroke
                shown_errors.add(str(exc))
                server.window_show_message(types.ShowMessageParams(type=types.MessageType.Error,
                                                                   message=f"msacclint: {exc}"))
            results[uri] = (doc.version, text, path, None, [])
            return doc, results[uri]
        # the engine is given the file's own path, as the command line gives it a path that
        # opens from the current folder: the project layer looks files up by it, and
        # per-file-ignores match it relative to the configuration's folder (Settings.codes_for)
        engine_path = path
        found = [] if is_excluded(path, settings) else api.lint_text(text, engine_path, settings, project=True,
                                                                     disk_path=doc.path)
        # the editor shows what `msacclint check` shows: the grades of the file's `show`
        results[uri] = (doc.version, text, engine_path, settings, list(api.graded(found, grades).shown))
        return doc, results[uri]

    def analyse_notebook(notebook_uri: str) -> Dict[str, List[Diagnostic]]:
        """Check a notebook document as the module its code cells make (``api.lint_notebook``);
        cell uri -> its findings, for every code cell (kept in ``cell_results``)."""
        notebook = server.workspace.get_notebook_document(notebook_uri=notebook_uri)
        if notebook is None:
            return {}
        path = to_fs_path(notebook.uri) or "untitled.ipynb"
        cells = []
        by_cell: Dict[str, List[Diagnostic]] = {}
        texts: Dict[str, Tuple[Optional[int], str]] = {}
        for cell in notebook.cells:
            doc = server.workspace.get_text_document(cell.document)
            code = cell.kind == types.NotebookCellKind.Code
            cells.append({"cell_type": "code" if code else "markdown", "metadata": {}, "source": doc.source,
                          **({"outputs": [], "execution_count": None} if code else {})})
            if code:
                by_cell[cell.document] = []
                texts[cell.document] = (doc.version, doc.source)
        try:
            settings, grades = settings_cache.for_path(path)
        except api.ConfigError as exc:
            if str(exc) not in shown_errors:
                shown_errors.add(str(exc))
                server.window_show_message(types.ShowMessageParams(type=types.MessageType.Error,
                                                                   message=f"msacclint: {exc}"))
            settings = grades = None
        if settings is not None and not is_excluded(path, settings):
            data = json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
            found = api.lint_notebook(data, path, settings, project=True,
                                      disk_path=path if os.path.exists(path) else None)
            # as for a file: what `msacclint check` shows, by the grades of the notebook's `show`
            for d in api.graded(found, grades).shown:
                if d.cell is not None and 0 < d.cell <= len(notebook.cells):
                    by_cell.setdefault(notebook.cells[d.cell - 1].document, []).append(d)
        for uri, found in by_cell.items():
            version, text = texts.get(uri, (None, ""))
            cell_results[uri] = (version, text, found)
        return by_cell

    def publish_notebook(notebook_uri: str) -> None:
        for uri, found in analyse_notebook(notebook_uri).items():
            doc = server.workspace.get_text_document(uri)
            server.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
                uri=uri, version=doc.version, diagnostics=[to_lsp(doc, d) for d in found]))

    def position(doc, line: int, column: int) -> types.Position:
        """1-based line and code-point column -> LSP position in the client's units."""
        return doc.position_to_client_units(types.Position(line=max(line - 1, 0), character=max(column - 1, 0)))

    def lsp_range(doc, line: int, column: int, end_line: int, end_column: int) -> types.Range:
        return types.Range(start=position(doc, line, column), end=position(doc, end_line, end_column))

    def to_lsp(doc, d: Diagnostic) -> types.Diagnostic:
        return types.Diagnostic(
            range=lsp_range(doc, d.line, d.column, d.end_line, d.end_column),
            message=f"{d.message} [{d.checklist}]",
            severity=severity[d.severity],
            # dormant or cannot run: the editor fades the range
            tags=[types.DiagnosticTag.Unnecessary] if d.unnecessary else None,
            code=d.code,
            source=SOURCE,
            data={"fixes": [f.applicability.value for f in d.fixes]},
        )

    def publish(uri: str) -> None:
        doc, (_, _, _, _, found) = analyse(uri)
        server.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
            uri=uri, version=doc.version, diagnostics=[to_lsp(doc, d) for d in found]))

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls, params: types.DidOpenTextDocumentParams) -> None:
        publish(params.text_document.uri)

    #: uri -> the timer of its pending analysis (reset by each change)
    pending: Dict[str, asyncio.TimerHandle] = {}

    def cancel_pending(uri: str) -> None:
        handle = pending.pop(uri, None)
        if handle is not None:
            handle.cancel()

    def publish_later(uri: str, publish_one: Callable[[str], None], is_open: Callable[[str], bool]) -> None:
        """``publish_one(uri)`` once no change came for DEBOUNCE seconds, unless the document
        was closed meanwhile (nothing to show)."""
        cancel_pending(uri)
        pending[uri] = asyncio.get_running_loop().call_later(DEBOUNCE, publish_if_open, uri, publish_one, is_open)

    def publish_if_open(uri: str, publish_one: Callable[[str], None], is_open: Callable[[str], bool]) -> None:
        pending.pop(uri, None)
        if is_open(uri):
            publish_one(uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls, params: types.DidChangeTextDocumentParams) -> None:
        # the workspace has already applied the (incremental) change; the analysis waits
        # until no change came for DEBOUNCE seconds
        publish_later(params.text_document.uri, publish, lambda uri: uri in server.workspace.text_documents)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE, types.SaveOptions(include_text=False))
    def did_save(ls, params: types.DidSaveTextDocumentParams) -> None:
        cancel_pending(params.text_document.uri)
        results.pop(params.text_document.uri, None)  # the configuration may have changed too
        doc = server.workspace.get_text_document(params.text_document.uri)
        if doc.path:
            api.file_saved(doc.path)
        publish(params.text_document.uri)
        if doc.path:
            # what this file defines may change the findings of the other open files: they
            # are analysed again on their next change (not republished here: one save must
            # not flood the client)
            for uri in list(results):
                if uri != params.text_document.uri:
                    results.pop(uri, None)
            cell_results.clear()

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_OPEN)
    def notebook_did_open(ls, params: types.DidOpenNotebookDocumentParams) -> None:
        publish_notebook(params.notebook_document.uri)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_CHANGE)
    def notebook_did_change(ls, params: types.DidChangeNotebookDocumentParams) -> None:
        publish_later(params.notebook_document.uri, publish_notebook,
                      lambda uri: server.workspace.get_notebook_document(notebook_uri=uri) is not None)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_SAVE)
    def notebook_did_save(ls, params: types.DidSaveNotebookDocumentParams) -> None:
        uri = params.notebook_document.uri
        cancel_pending(uri)
        path = to_fs_path(uri)
        if path:
            api.file_saved(path)
        publish_notebook(uri)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_CLOSE)
    def notebook_did_close(ls, params: types.DidCloseNotebookDocumentParams) -> None:
        cancel_pending(params.notebook_document.uri)
        for cell in params.cell_text_documents:
            cell_results.pop(cell.uri, None)
            server.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=cell.uri, diagnostics=[]))

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls, params: types.DidCloseTextDocumentParams) -> None:
        cancel_pending(params.text_document.uri)
        results.pop(params.text_document.uri, None)
        server.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=params.text_document.uri,
                                                                               diagnostics=[]))

    def overlaps(doc, d: Diagnostic, wanted: types.Range) -> bool:
        r = lsp_range(doc, d.line, d.column, d.end_line, d.end_column)
        return (r.start.line, r.start.character) <= (wanted.end.line, wanted.end.character) and \
            (wanted.start.line, wanted.start.character) <= (r.end.line, r.end.character)

    def text_edit(doc, edit: Edit) -> types.TextEdit:
        return types.TextEdit(range=lsp_range(doc, edit.line, edit.column, edit.end_line, edit.end_column),
                              new_text=edit.text)

    def quick_fix(uri: str, doc, d: Diagnostic, fix: Fix) -> types.CodeAction:
        safe = fix.applicability is Applicability.SAFE
        return types.CodeAction(
            title=f"{d.code}: {fix.description} ({_KIND[fix.applicability]})",
            kind=types.CodeActionKind.QuickFix,
            diagnostics=[to_lsp(doc, d)],
            is_preferred=safe,
            edit=types.WorkspaceEdit(changes={uri: [text_edit(doc, e) for e in fix.edits]}),
        )

    def minimal_edits(doc, text: str, fixed: str) -> List[types.TextEdit]:
        """The change from ``text`` to ``fixed`` as one edit per run of changed lines (the
        editor keeps its marks, folds and undo steps elsewhere in the file)."""
        old, new = text.splitlines(keepends=True), fixed.splitlines(keepends=True)
        end = doc.client_position_at_offset(len(text)) if text else types.Position(line=0, character=0)

        def line_start(i: int) -> types.Position:
            return types.Position(line=i, character=0) if i < len(old) else end

        edits = []
        for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
            if op != "equal":
                edits.append(types.TextEdit(range=types.Range(start=line_start(i1), end=line_start(i2)),
                                            new_text="".join(new[j1:j2])))
        return edits

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(
        code_action_kinds=[types.CodeActionKind.QuickFix, types.CodeActionKind.SourceFixAll, FIX_ALL_KIND]))
    def code_action(ls, params: types.CodeActionParams) -> List[types.CodeAction]:
        uri = params.text_document.uri
        doc, (_, text, engine_path, settings, found) = analyse(uri)
        only = params.context.only
        actions: List[types.CodeAction] = []
        if not only or any(k == types.CodeActionKind.QuickFix or str(k).startswith("quickfix") for k in only):
            for d in found:
                if overlaps(doc, d, params.range):
                    actions.extend(quick_fix(uri, doc, d, fix) for fix in d.fixes if fix.edits)
        wants_fix_all = not only or any(str(getattr(k, "value", k)).startswith("source") for k in only)
        if settings is not None and wants_fix_all and any(d.fix_for(False) for d in found):
            fixed, applied = api.fix_text(text, engine_path, settings, unsafe=False)
            if applied and fixed != text:
                actions.append(types.CodeAction(
                    title=f"msacclint: apply all safe fixes ({applied})",
                    kind=FIX_ALL_KIND,
                    edit=types.WorkspaceEdit(changes={uri: minimal_edits(doc, text, fixed)}),
                ))
        return actions

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(ls, params: types.HoverParams) -> Optional[types.Hover]:
        doc, (_, _, _, _, found) = analyse(params.text_document.uri)
        at = types.Range(start=params.position, end=params.position)
        pages: List[str] = []
        shown = set()
        for d in found:
            rule = api.rule(d.code)
            if rule is None or d.code in shown or not overlaps(doc, d, at):
                continue
            shown.add(d.code)
            pages.append(reach_section(d) + render(rule))
        if not pages:
            return None
        return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown,
                                                        value="\n---\n\n".join(pages)))

    return server


if __name__ == "__main__":  # pragma: no cover
    sys.exit(run(argparse.Namespace()))
