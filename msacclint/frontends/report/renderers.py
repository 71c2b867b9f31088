"""The checklist report's renderers: Markdown (to paste into an issue), JSON (the
contract of docs/contracts.md) and HTML (one self-contained page, in html.py). Each takes
the model msacclint.report.Report and returns text."""

from __future__ import annotations

import json
from typing import Callable, Dict, List

from msacclint.diagnostics import Diagnostic, grade_counts
from msacclint.frontends.report.html import html_page
from msacclint.report import BY_HAND, PARTLY_CHECKED, PROBLEM, Report

#: conclusions that need a person, shown in bold
NEEDS_A_PERSON = (PROBLEM, PARTLY_CHECKED, BY_HAND)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def finding_line(d: Diagnostic) -> str:
    return f"{d.place}: {d.severity.value} {d.code} {d.message}"


def upgrade_markdown(report: Report) -> List[str]:
    """The upgrade section: what fails or changes meaning on the move, by cause."""
    up = report.upgrade
    assert up is not None
    out = [f"## Upgrade from {up.source} to MindSpore {up.target}", ""]
    if not up.causes:
        return out + ["Nothing the upgrade group checks fails or changes meaning.", ""]
    out += ["| Cause | Places | Write instead |", "|---|---|---|"]
    for cause in up.causes:
        error = f" ({cause.error})" if cause.error else ""
        places = ", ".join(f"`{_cell(p)}`" for p in cause.places[:10]) + \
            (f" and {len(cause.places) - 10} more" if len(cause.places) > 10 else "")
        out.append(f"| {cause.code} {_cell(cause.what)}{error} | {places} | {_cell(cause.instead) or '-'} |")
    return out + [""]


def markdown(report: Report) -> str:
    counts = report.counts()
    out = ["# MindSpore accuracy checklist, filled in by msacclint", ""]
    out.append(f"- msacclint: {report.msacclint_version}")
    out.append(f"- MindSpore: {report.mindspore_version}")
    out.append(f"- Generated: {report.generated}")
    out.append(f"- Files read: {len(report.files)}")
    out.append("- Summary: " + " · ".join(f"{n} {c}" for c, n in counts.items()))
    out.append(f"- Findings: {report.grade_line()}")
    if report.suggestion:
        out.append(f"- Suggested: {report.suggestion}")
    out.append("")
    if report.upgrade is not None:
        out += upgrade_markdown(report)
    for area, title in report.areas.items():
        items = [i for i in report.items if i.area == area]
        if not items:
            continue
        out += [f"## {title} ({area}.*)", "", "| Item | Conclusion | Evidence / what to do |", "|---|---|---|"]
        for item in items:
            if item.findings:
                evidence = "<br>".join(f"`{_cell(d.place)}` {d.severity.value} {d.code} {_cell(d.message)}"
                                       for d in item.findings)
            else:
                evidence = _cell(item.detail)
            if item.also_check:
                evidence += "<br>Also check by hand: " + _cell(item.also_check)
            mark = "**" + item.conclusion + "**" if item.conclusion in NEEDS_A_PERSON else item.conclusion
            if item.findings:  # the finding's count by grade: "**Problem found** (2 errors, 1 warning)"
                mark += f" ({grade_counts(item.grades())})"
            out.append(f"| {item.id} {_cell(item.title)} | {mark} | {evidence} |")
        out.append("")
    out += ["<details><summary>Files read</summary>", ""]
    out += [f"- `{path}`" for path in report.files] or ["- (none)"]
    out += ["", "</details>", ""]
    return "\n".join(out)


def summary_markdown(report: Report, full_name: str, limit: int) -> str:
    """The report in one GitHub comment (at most ``limit`` characters): the header, each
    item's conclusion with its number of findings and the files that have the most, and a
    pointer to the full report ``full_name`` (attach it to the comment, or link it)."""
    counts = report.counts()
    head = ["# MindSpore accuracy checklist, filled in by msacclint (summary)", "",
            f"- msacclint: {report.msacclint_version}", f"- MindSpore: {report.mindspore_version}",
            f"- Generated: {report.generated}", f"- Files read: {len(report.files)}",
            "- Summary: " + " · ".join(f"{n} {c}" for c, n in counts.items()),
            f"- Findings: {report.grade_line()}",
            f"- Full report, every finding with its place: `{full_name}` (attached or linked)"]
    if report.suggestion:
        head.append(f"- Suggested: {report.suggestion}")
    head.append("")
    rows = ["| Item | Conclusion | Findings | Files with the most findings |", "|---|---|---|---|"]
    for item in report.items:
        per_file: Dict[str, int] = {}
        for d in item.findings:
            per_file[d.path] = per_file.get(d.path, 0) + 1
        top = sorted(per_file.items(), key=lambda kv: (-kv[1], kv[0]))[:3]
        files = ", ".join(f"`{_cell(p)}` ({n})" for p, n in top) + (" ..." if len(per_file) > 3 else "")
        mark = "**" + item.conclusion + "**" if item.conclusion in NEEDS_A_PERSON else item.conclusion
        rows.append(f"| {item.id} {_cell(item.title)} | {mark} | {grade_counts(item.grades())} | {files} |")
    tail = ["", f"The evidence and what to do for each item are in `{full_name}`.", ""]
    text = "\n".join(head + rows + tail)
    while len(text) > limit and len(rows) > 2:  # a checklist this long does not exist; stay within the limit anyway
        rows.pop()
        text = "\n".join(head + rows + ["| ... | | | |"] + tail)
    return text


def json_text(report: Report) -> str:
    return json.dumps(report.to_json(), indent=2) + "\n"


#: --format value -> renderer
RENDERERS: Dict[str, Callable[[Report], str]] = {
    "md": markdown,
    "json": json_text,
    "html": html_page,
}


def render(report: Report, fmt: str) -> str:
    return RENDERERS[fmt](report)
