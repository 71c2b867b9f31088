"""Everything the command line prints: the formats of ``msacclint check`` (text, json,
sarif, github), the ``--statistics`` counts, the closing summaries of a check and of a
fix run, and ``--diff``'s unified diffs. One module, so that what users read is written
in one place.

The JSON and SARIF shapes are contracts (docs/contracts.md): keys are only ever added.
Every format but JSON shows the findings the run's grades show (``show``); JSON is the
record of the run and keeps every grade (docs/grades.md).
"""

from __future__ import annotations

import difflib
import json
import os
import sys
from pathlib import PurePath
from typing import IO, Any, Callable, Dict, Iterable, List, Optional, Sequence
from urllib.parse import quote

from msacclint import __version__, api, install_info
from msacclint.diagnostics import Diagnostic, Reach, Related, Severity, grade_counts, plural
from msacclint.upgrade import text as upgrade_render

# -- colour ---------------------------------------------------------------------------------------
#: the SGR code of each grade's word on a terminal, as compilers colour them
_GRADE_COLOUR = {Severity.ERROR: "1;31", Severity.WARNING: "1;33", Severity.INFO: "1;36"}
_BOLD, _RESET = "\x1b[1m", "\x1b[0m"


def wants_colour(stream: IO[Any]) -> bool:
    """Colour the text format on ``stream``? Never when ``NO_COLOR`` is set (no-color.org),
    always when ``FORCE_COLOR`` is (and is not ``0``), else only on a terminal that is not
    ``TERM=dumb``: a pipe or a file gets plain text."""
    if os.environ.get("NO_COLOR"):
        return False
    force = os.environ.get("FORCE_COLOR")
    if force and force != "0":
        return _windows_console_ready()
    isatty = getattr(stream, "isatty", None)
    if not (isatty is not None and isatty()) or os.environ.get("TERM") == "dumb":
        return False
    return _windows_console_ready()


def _windows_console_ready() -> bool:
    """On Windows a console shows escape sequences once they are switched on: colorama
    (installed with tqdm there) does it; without it, no colour."""
    if sys.platform != "win32":
        return True
    try:
        import colorama
    except ImportError:
        return False
    colorama.just_fix_windows_console()
    return True


def _paint(text: str, sgr: str, colour: bool) -> str:
    return f"\x1b[{sgr}m{text}{_RESET}" if colour else text


# -- the formats ----------------------------------------------------------------------------------
def _position(d: Diagnostic) -> str:
    """``path:line:col`` (``path:cell N:line:col`` in a notebook, as ruff prints it)."""
    cell = f"cell {d.cell}:" if d.cell is not None else ""
    return f"{d.path}:{cell}{d.line}:{d.column}"


def text_line(d: Diagnostic, colour: bool = False) -> str:
    """``path:line:col: error: MSA104 [api.01] message``, the shape compilers print (the
    position in bold and the grade in its colour on a terminal)."""
    position = f"{_BOLD}{_position(d)}:{_RESET}" if colour else f"{_position(d)}:"
    grade = _paint(f"{d.severity.value}:", _GRADE_COLOUR[d.severity], colour)
    return f"{position} {grade} {d.code} [{d.checklist}] {d.message}\n"


def text(diagnostics: Sequence[Diagnostic], colour: bool = False) -> str:
    return "".join(text_line(d, colour) for d in diagnostics)


def json_format(diagnostics: Sequence[Diagnostic]) -> str:
    return json.dumps([d.to_json() for d in diagnostics], indent=2) + "\n"


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
            "properties": {"checklist": rule.checklist, "group": api.group_of(rule),
                           "tags": [rule.checklist, "accuracy", api.group_of(rule)]},
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
            "properties": {"checklist": d.checklist, **({"cell": d.cell} if d.cell is not None else {}),
                           **({"reach": d.reach.value} if d.reach is not None else {}),
                           **({"group": d.group, "tags": [d.group]} if d.group else {})},
        })
        if d.related:
            results[-1]["relatedLocations"] = [{
                "id": number,
                "physicalLocation": _physical(r),
                "message": {"text": r.message or "evidence"},
                **_cell(r),
            } for number, r in enumerate(d.related, 1)]
        if d.trail:
            results[-1]["codeFlows"] = [_code_flow(d)]
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


#: what a finding's codeFlow (its trail) says, by reach
_TRAIL_TITLE = {
    Reach.RUNS: "how an entry point of the repository reaches this code",
    Reach.DORMANT: "how far the repository's entry points get: nothing they run reaches this code",
    Reach.CANNOT_RUN: "what stops this code from starting",
    None: "the way to this code",
}


def _physical(r: Related) -> Dict[str, Any]:
    return {"artifactLocation": {"uri": _uri(r.path), "uriBaseId": "%SRCROOT%"}, "region": {"startLine": r.line}}


def _cell(r: Related) -> Dict[str, Any]:
    """A place in a notebook: its cell, as a location's properties (its line counts in that cell)."""
    return {"properties": {"cell": r.cell}} if r.cell is not None else {}


def _code_flow(d: Diagnostic) -> Dict[str, Any]:
    """The trail as a SARIF codeFlow: one thread, one step per hop from the entry point, then
    the finding itself (code scanning shows it as the finding's path)."""
    steps = [{"location": {"physicalLocation": _physical(r), "message": {"text": r.message or "step"}, **_cell(r)}}
             for r in d.trail]
    here = Related(d.path, d.line, cell=d.cell)
    steps.append({"location": {"physicalLocation": _physical(here), "message": {"text": f"{d.code}: the finding"},
                               **_cell(here)}})
    return {"message": {"text": _TRAIL_TITLE[d.reach]}, "threadFlows": [{"locations": steps}]}


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
    """One row per code found: count, code, rule name, checklist id, the most severe grade
    among them, how many have a fix, and the count of each grade; most frequent first."""
    counts: Dict[str, Dict[str, Any]] = {}
    for d in diagnostics:
        rule = api.rule(d.code)
        row = counts.setdefault(d.code, {"count": 0, "code": d.code, "name": rule.name if rule else "",
                                         "checklist": d.checklist, "severity": d.severity.value, "fixable": 0,
                                         "grades": {g.value: 0 for g in Severity}})
        row["count"] += 1
        row["grades"][d.severity.value] += 1
        if Severity(row["severity"]).rank > d.severity.rank:
            row["severity"] = d.severity.value
        if d.fix is not None:
            row["fixable"] += 1
    return sorted(counts.values(), key=lambda r: (-int(r["count"]), str(r["code"])))


def statistics(diagnostics: Iterable[Diagnostic]) -> str:
    """``--statistics`` as text: count, code, rule name, checklist id, the count by grade."""
    rows = statistics_rows(diagnostics)
    width = max((len(str(r["name"])) for r in rows), default=0)
    out = []
    for r in rows:
        by_grade = grade_counts({Severity(g): n for g, n in r["grades"].items()})  # type: ignore[attr-defined]
        fixable = f"  ({r['fixable']} fixable)" if r["fixable"] else ""
        out.append(f"{r['count']:>5}  {r['code']}  {str(r['name']).ljust(width)}  [{r['checklist']}] {by_grade}"
                   f"{fixable}\n")
    return "".join(out)


# -- around the findings ------------------------------------------------------------------------
def emit(graded: api.Graded, everything: Sequence[Diagnostic], fmt: str = "text",
         output_file: Optional[str] = None, with_statistics: bool = False) -> None:
    """Print (or write to ``output_file``) the findings in the chosen format, then the
    --statistics counts. Text, SARIF and GitHub show ``graded.shown``; JSON is the record
    of the run and keeps ``everything``. With ``--format json --statistics`` the JSON itself
    becomes ``{"diagnostics": [...], "statistics": [...]}`` (without --statistics it stays
    the list of docs/contracts.md). Text is coloured on a terminal (``wants_colour``)."""
    if with_statistics and fmt == "json":
        output = json.dumps({"diagnostics": [d.to_json() for d in everything],
                             "statistics": statistics_rows(everything)}, indent=2) + "\n"
        with_statistics = False
    elif fmt == "json":
        output = json_format(everything)
    elif fmt == "text":
        output = text(graded.shown, colour=not output_file and wants_colour(sys.stdout))
    else:
        output = FORMATS[fmt](graded.shown)
    if output_file:
        with open(output_file, "w", encoding="utf-8") as handle:
            handle.write(output)
    else:
        sys.stdout.write(output)
    if with_statistics:
        # machine-readable output on stdout stays parseable: the counts go to stderr then
        to_stderr = fmt != "text" and not output_file
        (sys.stderr if to_stderr else sys.stdout).write(statistics(graded.shown))


def _not_shown(hidden: Dict[Severity, int]) -> str:
    """" 2 notes not shown (--show-info)." for the findings the grades leave out ("" when none)."""
    if not hidden:
        return ""
    how = "--show-info" if set(hidden) == {Severity.INFO} else "--show, or show in [tool.msacclint]"
    return f" {grade_counts(hidden)} not shown ({how})."


def upgrade_text(report: api.Upgrade) -> str:
    """The upgrade report printed after the findings of ``--select upgrade`` (msacclint.upgrade)."""
    return upgrade_render(report) if report.causes else ""


def _outside(outside: Dict[str, int]) -> str:
    """" 2 findings outside the groups shown (nursery 2: --extend-select nursery)." for the
    findings whose group the run does not show ("" when none)."""
    if not outside:
        return ""
    total = sum(outside.values())
    parts = ", ".join(f"{group} {n}" for group, n in outside.items())
    how = ", ".join(f"--extend-select {group}" for group in outside)
    return f" {plural(total, 'finding')} outside the groups shown ({parts}: {how})."


def check_summary(graded: api.Graded, files_checked: int, fail_on: Severity) -> str:
    """The line every check ends with on stderr (clean runs too, as ruff does): the findings
    shown, by grade, and the ones left out::

        All checks passed (12 files checked).
        Found 1 error, 2 warnings in 2 of 12 files checked (1 with a fix: --fix, or --fix --unsafe-fixes).
        Found 2 warnings in 1 of 12 files checked. None fails the run (fail-on = error). 3 notes not
        shown (--show-info).
    """
    hidden = _not_shown(graded.hidden) + _outside(graded.outside)
    if not graded.shown:
        return f"All checks passed ({plural(files_checked, 'file')} checked).{hidden}"
    with_findings = len({d.path for d in graded.shown})
    fixable = sum(1 for d in graded.shown if d.fix is not None)
    note = f"Found {grade_counts(graded.counts())} in {with_findings} of {plural(files_checked, 'file')} checked"
    if fixable:
        note += f" ({fixable} with a fix: --fix, or --fix --unsafe-fixes)"
    note += "."
    if not graded.failed:
        note += f" None fails the run (fail-on = {fail_on.value})."
    return note + hidden


def fix_summary(fixed: int, files_changed: int, remaining: api.Graded, unsafe: bool) -> str:
    """The line a ``--fix`` run ends with on stderr: what was fixed (every grade: a fix
    does not depend on what is shown) and what is left, by grade."""
    left = remaining.shown
    hidden = _not_shown(remaining.hidden) + _outside(remaining.outside)
    found = fixed + len(left)
    if not found:
        return "All checks passed." + hidden
    if fixed:
        rest = grade_counts(remaining.counts()) + " remaining" if left else "none remaining"
        text = f"Found {plural(found, 'problem')} ({fixed} fixed in {plural(files_changed, 'file')}; {rest})."
    else:
        text = f"Found {grade_counts(remaining.counts())} (no fix applied)."
    if not unsafe:
        more = sum(1 for d in left if d.fix_for(True) is not None)
        if more:
            text += f" {more} more {'fix' if more == 1 else 'fixes'} available with --unsafe-fixes."
    return text + hidden


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
