"""The checklist report's renderers: Markdown (to paste into an issue), JSON (the
contract of docs/contracts.md) and HTML (one self-contained page, in html.py). Each takes
the model msacclint.report.Report and returns text."""

from __future__ import annotations

import json
from typing import Callable, Dict

from msacclint.diagnostics import Diagnostic
from msacclint.frontends.report.html import html_page
from msacclint.report import BY_HAND, PROBLEM, Report


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def finding_line(d: Diagnostic) -> str:
    return f"{d.path}:{d.line}: {d.code} {d.message}"


def markdown(report: Report) -> str:
    counts = report.counts()
    out = ["# MindSpore accuracy checklist, filled in by msacclint", ""]
    out.append(f"- msacclint: {report.msacclint_version}")
    out.append(f"- MindSpore: {report.mindspore_version}")
    out.append(f"- Generated: {report.generated}")
    out.append(f"- Files read: {len(report.files)}")
    out.append("- Summary: " + " · ".join(f"{n} {c}" for c, n in counts.items()))
    out.append("")
    for area, title in report.areas.items():
        items = [i for i in report.items if i.area == area]
        if not items:
            continue
        out += [f"## {title} ({area}.*)", "", "| Item | Conclusion | Evidence / what to do |", "|---|---|---|"]
        for item in items:
            if item.findings:
                evidence = "<br>".join(f"`{_cell(d.path)}:{d.line}` {d.code} {_cell(d.message)}" for d in item.findings)
            else:
                evidence = _cell(item.detail)
                if item.also_check:
                    evidence += "<br>Also check by hand: " + _cell(item.also_check)
            mark = "**" + item.conclusion + "**" if item.conclusion in (PROBLEM, BY_HAND) else item.conclusion
            out.append(f"| {item.id} {_cell(item.title)} | {mark} | {evidence} |")
        out.append("")
    out += ["<details><summary>Files read</summary>", ""]
    out += [f"- `{path}`" for path in report.files] or ["- (none)"]
    out += ["", "</details>", ""]
    return "\n".join(out)


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
