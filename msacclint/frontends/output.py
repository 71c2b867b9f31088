"""Everything the command line prints: the formats of ``msacclint check`` (text, json,
sarif, github), the ``--statistics`` counts, the closing summaries of a check and of a
fix run, and ``--diff``'s unified diffs. One module, so that what users read is written
in one place.

The JSON and SARIF shapes are contracts (docs/contracts.md): keys are only ever added.
"""

from __future__ import annotations

import difflib
import json
import os
import sys
from pathlib import PurePath
from typing import Callable, Dict, Iterable, List, Optional, Sequence
from urllib.parse import quote

from msacclint import __version__, api, install_info
from msacclint.diagnostics import Diagnostic, Severity


def _position(d: Diagnostic) -> str:
    """``path:line:col`` (``path:cell N:line:col`` in a notebook, as ruff prints it)."""
    cell = f"cell {d.cell}:" if d.cell is not None else ""
    return f"{d.path}:{cell}{d.line}:{d.column}"


def text(diagnostics: Sequence[Diagnostic]) -> str:
    return "".join(f"{_position(d)}: {d.code} [{d.checklist}] {d.message}\n" for d in diagnostics)


def json_format(diagnostics: Sequence[Diagnostic]) -> str:
    return json.dumps([_json_finding(d) for d in diagnostics], indent=2) + "\n"


def _json_finding(d: Diagnostic) -> Dict[str, object]:
    """A finding's JSON object; ``related`` (evidence in other places) only when there is some."""
    data: Dict[str, object] = d.to_json()
    if d.related:
        data["related"] = [{"path": r.path, "line": r.line, "message": r.message or "evidence",
                            **({"cell": r.cell} if r.cell is not None else {})} for r in d.related]
    return data


_GITHUB_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def _escape_data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(value: str) -> str:
    return _escape_data(value).replace(":", "%3A").replace(",", "%2C")


def github(diagnostics: Sequence[Diagnostic]) -> str:
    lines = []
    for d in diagnostics:
        if d.cell is not None:
            # GitHub places a line of an .ipynb file on the raw JSON, where a cell's line does
            # not lie: the annotation names the file only and says the cell and line in its text
            props = ",".join([f"file={_escape_property(d.path)}", f"title={d.code}"])
            where = f"cell {d.cell}, line {d.line}, column {d.column}: "
            lines.append(f"::{_GITHUB_LEVEL[d.severity]} {props}::"
                         f"{_escape_data(f'{where}[{d.checklist}] {d.message}')}\n")
            continue
        props = ",".join([
            f"file={_escape_property(d.path)}", f"line={d.line}", f"col={d.column}",
            f"endLine={d.end_line}", f"endColumn={d.end_column}", f"title={d.code}",
        ])
        lines.append(f"::{_GITHUB_LEVEL[d.severity]} {props}::{_escape_data(f'[{d.checklist}] {d.message}')}\n")
    return "".join(lines)


_SARIF_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def sarif(diagnostics: Sequence[Diagnostic]) -> str:
    codes = sorted({d.code for d in diagnostics})
    rule_index = {code: i for i, code in enumerate(codes)}
    rules = []
    for code in codes:
        rule = api.rule(code)
        assert rule is not None, code
        rules.append({
            "id": code,
            "name": rule.name,
            "shortDescription": {"text": rule.message or rule.name},
            "fullDescription": {"text": (rule.what or rule.message or rule.name).strip()},
            "help": {"text": (rule.why or rule.message).strip()},
            "defaultConfiguration": {"level": _SARIF_LEVEL[rule.severity]},
            "properties": {"checklist": rule.checklist, "tags": [rule.checklist, "accuracy"]},
        })
    results = []
    for d in diagnostics:
        results.append({
            "ruleId": d.code,
            "ruleIndex": rule_index[d.code],
            "level": _SARIF_LEVEL[d.severity],
            "message": {"text": f"[{d.checklist}] {d.message}"},
            "locations": [{
                "physicalLocation": {
                    "artifactLocation": {"uri": _uri(d.path), "uriBaseId": "%SRCROOT%"},
                    "region": {
                        "startLine": d.line,
                        "startColumn": d.column,
                        "endLine": d.end_line,
                        "endColumn": d.end_column,
                    },
                }
            }],
            # in a notebook the region's lines count within cell N (docs/notebooks.md)
            "properties": {"checklist": d.checklist, **({"cell": d.cell} if d.cell is not None else {})},
        })
        if d.related:
            results[-1]["relatedLocations"] = [{
                "id": number,
                "physicalLocation": {
                    "artifactLocation": {"uri": _uri(r.path), "uriBaseId": "%SRCROOT%"},
                    "region": {"startLine": r.line},
                },
                "message": {"text": r.message or "evidence"},
                **({"properties": {"cell": r.cell}} if r.cell is not None else {}),
            } for number, r in enumerate(d.related, 1)]
    log = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "msacclint",
                "version": __version__,
                "semanticVersion": __version__,
                **_information_uri(),
                "rules": rules,
            }},
            "columnKind": "unicodeCodePoints",
            "originalUriBaseIds": {"%SRCROOT%": {"uri": PurePath(os.getcwd()).as_uri() + "/"}},
            "results": results,
        }],
    }
    return json.dumps(log, indent=2) + "\n"


def _information_uri() -> Dict[str, str]:
    """SARIF's ``informationUri``: the repository this copy was installed from (a VCS
    install over http(s)), else the README of the checkout it runs from as a file URI;
    left out when neither is known. No package index is named: none is published."""
    url = install_info.repository_url()
    if url:
        return {"informationUri": url}
    readme = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "README.md")
    if os.path.isfile(readme):
        return {"informationUri": PurePath(readme).as_uri()}
    return {}


def _uri(path: str) -> str:
    posix = PurePath(path).as_posix()
    if os.path.isabs(path):
        try:
            posix = PurePath(os.path.relpath(path)).as_posix()
        except ValueError:
            return PurePath(path).as_uri()
    return "/".join(_quote(part) for part in posix.split("/"))


def _quote(part: str) -> str:
    return quote(part, safe="._-~")


FORMATS: Dict[str, Callable[[Sequence[Diagnostic]], str]] = {
    "text": text,
    "json": json_format,
    "sarif": sarif,
    "github": github,
}


def statistics_rows(diagnostics: Iterable[Diagnostic]) -> List[Dict[str, object]]:
    """One row per code found: count, code, rule name, checklist id, severity, how many have
    a fix; most frequent first."""
    counts: Dict[str, Dict[str, object]] = {}
    for d in diagnostics:
        rule = api.rule(d.code)
        row = counts.setdefault(d.code, {"count": 0, "code": d.code, "name": rule.name if rule else "",
                                         "checklist": d.checklist, "severity": d.severity.value, "fixable": 0})
        row["count"] = int(row["count"]) + 1  # type: ignore[call-overload]
        if d.fix is not None:
            row["fixable"] = int(row["fixable"]) + 1  # type: ignore[call-overload]
    return sorted(counts.values(), key=lambda r: (-int(r["count"]), str(r["code"])))  # type: ignore[call-overload]


def statistics(diagnostics: Iterable[Diagnostic]) -> str:
    """``--statistics`` as text: count, code, rule name, checklist id, severity."""
    rows = statistics_rows(diagnostics)
    width = max((len(str(r["name"])) for r in rows), default=0)
    return "".join(f"{r['count']:>5}  {r['code']}  {str(r['name']).ljust(width)}  [{r['checklist']}] {r['severity']}"
                   f"{'  (' + str(r['fixable']) + ' fixable)' if r['fixable'] else ''}\n" for r in rows)


# -- around the findings ------------------------------------------------------------------------
def emit(diagnostics: Sequence[Diagnostic], fmt: str = "text", output_file: Optional[str] = None,
         with_statistics: bool = False) -> None:
    """Print (or write to ``output_file``) the findings in the chosen format, then the
    --statistics counts. With ``--format json --statistics`` the JSON itself becomes
    ``{"diagnostics": [...], "statistics": [...]}`` (without --statistics it stays the list
    of docs/contracts.md)."""
    if with_statistics and fmt == "json":
        output = json.dumps({"diagnostics": [d.to_json() for d in diagnostics],
                             "statistics": statistics_rows(diagnostics)}, indent=2) + "\n"
        with_statistics = False
    else:
        output = FORMATS[fmt](diagnostics)
    if output_file:
        with open(output_file, "w", encoding="utf-8") as handle:
            handle.write(output)
    else:
        sys.stdout.write(output)
    if with_statistics:
        # machine-readable output on stdout stays parseable: the counts go to stderr then
        to_stderr = fmt != "text" and not output_file
        (sys.stderr if to_stderr else sys.stdout).write(statistics(diagnostics))


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def check_summary(found: int, files_with_findings: int, files_checked: int, fixable: int) -> str:
    """The line every check ends with on stderr (clean runs too, as ruff does)::

        All checks passed (12 files checked).
        Found 3 problems in 2 of 12 files checked (1 with a fix: --fix, or --fix --unsafe-fixes).
    """
    if not found:
        return f"All checks passed ({plural(files_checked, 'file')} checked)."
    note = f"Found {plural(found, 'problem')} in {files_with_findings} of {plural(files_checked, 'file')} checked"
    if fixable:
        note += f" ({fixable} with a fix: --fix, or --fix --unsafe-fixes)"
    return note + "."


def fix_summary(fixed: int, files_changed: int, remaining: Sequence[Diagnostic], unsafe: bool) -> str:
    """The line a ``--fix`` run ends with on stderr."""
    found = fixed + len(remaining)
    if not found:
        return "All checks passed."
    if fixed:
        text = (f"Found {plural(found, 'problem')} ({fixed} fixed in {plural(files_changed, 'file')}, "
                f"{len(remaining)} remaining).")
    else:
        text = f"Found {plural(found, 'problem')} (no fix applied)."

    if not unsafe:
        hidden = sum(1 for d in remaining if d.fix_for(True) is not None)
        if hidden:
            text += f" {hidden} more {'fix' if hidden == 1 else 'fixes'} available with --unsafe-fixes."
    return text


def diff_summary(fixed: int, files_changed: int) -> str:
    """The line a ``--diff`` run ends with on stderr."""
    if not fixed:
        return "No fixes available."
    return f"Would fix {plural(fixed, 'problem')} in {plural(files_changed, 'file')}."


def unified_diff(result: api.FileFix) -> str:
    """The change of one file as a unified diff (``a/path`` -> ``b/path``)."""
    name = result.path.replace(os.sep, "/")
    lines = difflib.unified_diff(result.original.splitlines(keepends=True), result.fixed.splitlines(keepends=True),
                                 fromfile=f"a/{name}", tofile=f"b/{name}")
    out = []
    for line in lines:
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)
