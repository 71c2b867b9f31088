"""Output formats of ``msacclint check``: text, json, sarif, github.

The JSON and SARIF shapes are contracts (docs/contracts.md): keys are only ever added.
"""

from __future__ import annotations

import json
import os
from pathlib import PurePath
from typing import Callable, Dict, Iterable, List, Sequence

from msacclint import __version__
from msacclint.diagnostics import Diagnostic, Severity

INFORMATION_URI = "https://pypi.org/project/msacclint/"


def text(diagnostics: Sequence[Diagnostic]) -> str:
    return "".join(f"{d.path}:{d.line}:{d.column}: {d.code} [{d.checklist}] {d.message}\n"
                   for d in diagnostics)


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
        props = ",".join([
            f"file={_escape_property(d.path)}", f"line={d.line}", f"col={d.column}",
            f"endLine={d.end_line}", f"endColumn={d.end_column}", f"title={d.code}",
        ])
        lines.append(f"::{_GITHUB_LEVEL[d.severity]} {props}::{_escape_data(f'[{d.checklist}] {d.message}')}\n")
    return "".join(lines)


_SARIF_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def sarif(diagnostics: Sequence[Diagnostic]) -> str:
    from msacclint.engine.registry import rules_by_code

    codes = sorted({d.code for d in diagnostics} | set())
    catalogue = rules_by_code()
    rule_index = {code: i for i, code in enumerate(codes)}
    rules = []
    for code in codes:
        rule = catalogue[code]
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
            "properties": {"checklist": d.checklist},
        })
        if d.related:
            results[-1]["relatedLocations"] = [{
                "id": number,
                "physicalLocation": {
                    "artifactLocation": {"uri": _uri(r.path), "uriBaseId": "%SRCROOT%"},
                    "region": {"startLine": r.line},
                },
                "message": {"text": r.message or "evidence"},
            } for number, r in enumerate(d.related, 1)]
    log = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "msacclint",
                "version": __version__,
                "semanticVersion": __version__,
                "informationUri": INFORMATION_URI,
                "rules": rules,
            }},
            "columnKind": "unicodeCodePoints",
            "originalUriBaseIds": {"%SRCROOT%": {"uri": PurePath(os.getcwd()).as_uri() + "/"}},
            "results": results,
        }],
    }
    return json.dumps(log, indent=2) + "\n"


def _uri(path: str) -> str:
    posix = PurePath(path).as_posix()
    if os.path.isabs(path):
        try:
            posix = PurePath(os.path.relpath(path)).as_posix()
        except ValueError:
            return PurePath(path).as_uri()
    return "/".join(_quote(part) for part in posix.split("/"))


def _quote(part: str) -> str:
    from urllib.parse import quote

    return quote(part, safe="._-~")


FORMATS: Dict[str, Callable[[Sequence[Diagnostic]], str]] = {
    "text": text,
    "json": json_format,
    "sarif": sarif,
    "github": github,
}


def statistics(diagnostics: Iterable[Diagnostic]) -> str:
    counts: Dict[str, List] = {}
    for d in diagnostics:
        entry = counts.setdefault(d.code, [0, d.checklist, d.severity.value])
        entry[0] += 1
    lines = [f"{n:>5}  {code}  [{checklist}] {severity}\n"
             for code, (n, checklist, severity) in sorted(counts.items(), key=lambda kv: (-kv[1][0], kv[0]))]
    return "".join(lines)
