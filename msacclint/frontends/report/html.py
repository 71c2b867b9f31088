"""The checklist report as one self-contained HTML page: inline CSS, no scripts, no
external resources, so it can be attached to an issue or opened offline."""

from __future__ import annotations

import re
from html import escape as _escape
from typing import List

from msacclint.diagnostics import grade_counts
from msacclint.report import BY_HAND, NO_PROBLEM, NOT_APPLICABLE, PARTLY_CHECKED, PROBLEM, Report


def escape(text: str) -> str:
    """HTML-escaped text with `backticked` spans shown as code."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", _escape(str(text)))


_CLASS = {PROBLEM: "problem", NO_PROBLEM: "ok", PARTLY_CHECKED: "partial", NOT_APPLICABLE: "na", BY_HAND: "manual"}

_CSS = """
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1f2328;
       max-width: 1100px; margin: 2rem auto; padding: 0 1rem; background: #fff; }
h1 { font-size: 1.6rem; margin-bottom: .3rem; }
h2 { font-size: 1.2rem; margin-top: 2rem; border-bottom: 1px solid #d0d7de; padding-bottom: .2rem; }
dl.meta { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; margin: 1rem 0; }
dl.meta dt { font-weight: 600; color: #57606a; }
dl.meta dd { margin: 0; }
.summary { display: flex; gap: .6rem; flex-wrap: wrap; margin: 1rem 0; }
.summary span { padding: .3rem .7rem; border-radius: 1rem; font-weight: 600; }
table { border-collapse: collapse; width: 100%; table-layout: fixed; }
col.id { width: 4.5rem; } col.title { width: 30%; } col.conclusion { width: 9.5rem; }
th, td { text-align: left; vertical-align: top; padding: .45rem .6rem; border-bottom: 1px solid #d0d7de; }
th { background: #f6f8fa; font-size: .85rem; text-transform: uppercase; letter-spacing: .03em; color: #57606a; }
td { overflow-wrap: anywhere; }
td.id { white-space: nowrap; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; }
.badge { display: inline-block; white-space: nowrap; padding: .1rem .55rem; border-radius: .8rem;
         font-size: .85rem; font-weight: 600; }
.problem { background: #ffebe9; color: #a40e26; }
.ok { background: #dafbe1; color: #116329; }
.na { background: #eaeef2; color: #57606a; }
.manual { background: #fff8c5; color: #7d4e00; }
.partial { background: #ddf4ff; color: #0a3069; }
.grade { display: inline-block; min-width: 4.2rem; font-size: .8rem; font-weight: 600; text-transform: uppercase; }
.grade.error { color: #a40e26; } .grade.warning { color: #7d4e00; } .grade.info { color: #57606a; }
.counts { display: block; margin-top: .25rem; font-size: .85rem; color: #57606a; }
.suggested { border-left: 4px solid #0969da; padding: .4rem .8rem; background: #f6f8fa; }
ul.findings { margin: 0; padding-left: 1.1rem; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: .85em;
       background: #f6f8fa; padding: .05rem .3rem; border-radius: .3rem; }
.also { color: #57606a; margin-top: .3rem; }
details { margin-top: 2rem; }
"""


def html_page(report: Report) -> str:
    counts = report.counts()
    parts: List[str] = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        "<title>MindSpore accuracy checklist (msacclint)</title>",
        f"<style>{_CSS}</style></head><body>",
        "<h1>MindSpore accuracy checklist</h1>",
        "<p>Filled in by msacclint from the code; items marked <em>Check by hand</em> need a person.</p>",
        '<dl class="meta">',
        f"<dt>msacclint</dt><dd>{escape(report.msacclint_version)}</dd>",
        f"<dt>MindSpore</dt><dd>{escape(report.mindspore_version)}</dd>",
        f"<dt>Generated</dt><dd>{escape(report.generated)}</dd>",
        f"<dt>Files read</dt><dd>{len(report.files)}</dd>",
        f"<dt>Findings</dt><dd>{escape(report.grade_line())}</dd>",
        "</dl>",
        '<div class="summary">' + "".join(
            f'<span class="{_CLASS[c]}">{n} {escape(c)}</span>' for c, n in counts.items()) + "</div>",
    ]
    if report.suggestion:
        parts.append(f'<p class="suggested">Suggested: {escape(report.suggestion)}</p>')
    for area, title in report.areas.items():
        items = [i for i in report.items if i.area == area]
        if not items:
            continue
        parts.append(f'<h2 id="{escape(area)}">{escape(title)} <small>({escape(area)}.*)</small></h2>')
        parts.append('<table><colgroup><col class="id"><col class="title"><col class="conclusion"><col></colgroup>'
                     "<thead><tr><th>Id</th><th>Item</th><th>Conclusion</th>"
                     "<th>Evidence / what to do</th></tr></thead><tbody>")
        for item in items:
            if item.findings:
                evidence = '<ul class="findings">' + "".join(
                    f'<li><span class="grade {d.severity.value}">{d.severity.value}</span> '
                    f"<code>{escape(d.place)}</code> {escape(d.code)} {escape(d.message)}</li>"
                    for d in item.findings) + "</ul>"
            else:
                evidence = escape(item.detail)
            if item.also_check:
                evidence += f'<div class="also">Also check by hand: {escape(item.also_check)}</div>'
            counts = f'<span class="counts">{escape(grade_counts(item.grades()))}</span>' if item.findings else ""
            parts.append(
                f'<tr id="{escape(item.id)}"><td class="id">{escape(item.id)}</td><td>{escape(item.title)}</td>'
                f'<td><span class="badge {_CLASS[item.conclusion]}">{escape(item.conclusion)}</span>{counts}</td>'
                f"<td>{evidence}</td></tr>")
        parts.append("</tbody></table>")
    parts.append("<details><summary>Files read</summary><ul>")
    parts += [f"<li><code>{escape(path)}</code></li>" for path in report.files]
    parts.append("</ul></details></body></html>\n")
    return "\n".join(parts)
