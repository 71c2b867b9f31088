"""The Markdown section of a field evaluation report (see eval.py)."""

from __future__ import annotations

from typing import List


def _table(header: List[str], rows: List[List[object]]) -> List[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in rows:
        out.append("| " + " | ".join(str(c).replace("|", "\\|").replace("\n", " ") for c in row) + " |")
    return out + [""]


def _pct(value) -> str:
    return "n/a" if value is None else f"{100 * value:.1f} %"


def markdown(report: dict) -> str:
    lines = [f"## Field evaluation (msacclint {report['msacclint_version']}, "
             f"MindSpore version assumed: {report.get('mindspore_version') or 'unknown'})", ""]
    if report.get("frozen"):
        frozen = report["frozen"]
        lines += [f"Frozen run: msacclint commit {frozen['commit']} (version {frozen['version']}), "
                  f"history half: {frozen.get('half', 'all')}.", ""]
    if report["sources"]:
        lines += _sources(report)
        lines += _rules(report)
        lines += _crashes(report)
    if "triage" in report:
        report["triage"]["_counts"] = {code: stats["count"]
                                       for code, stats in report["selections"]["all"]["per_rule"].items()}
        lines += _triage(report["triage"])
    if "history" in report:
        lines += _history(report["history"], report["history_figures"])
    if report.get("samples"):
        lines += _samples(report)
    return "\n".join(lines) + "\n"


def _sources(report: dict) -> List[str]:
    rows = [[s["repo"], s["commit"][:12], s["subdir"] or "(all)", s["files"], len(s["unreadable"]),
             s["mindspore_files"], f"{s['seconds']:.1f}"] for s in report["sources"]]
    rows.append(["total", "", "", sum(s["files"] for s in report["sources"]),
                 sum(len(s["unreadable"]) for s in report["sources"]), report["mindspore_files"],
                 f"{sum(s['seconds'] for s in report['sources']):.1f}"])
    return ["### Sources", ""] + _table(
        ["repository", "commit", "folder", ".py files", "unreadable (blob absent)", "mention mindspore",
         "seconds (2 runs)"], rows)


def _rules(report: dict) -> List[str]:
    every = report["selections"]["all"]
    lines = ["### Findings per rule", "",
             f"Per 1,000 files = per 1,000 .py files read ({report['files']}).", ""]
    rows = []
    for code, meta in report["rules"].items():
        stats = every["per_rule"][code]
        by_repo = ", ".join(f"{r.split('/')[-1]} {n}" for r, n in sorted(stats["by_repo"].items()))
        rows.append([code, meta["name"], meta["severity"], "on" if meta["default"] else "off",
                     stats["count"], stats["per_1000_files"], by_repo])
    lines += _table(["code", "name", "severity", "default", "findings", "per 1,000 files", "by repository"], rows)
    sev_rows = [[name, report["selections"][name]["total"]] +
                [report["selections"][name]["by_severity"].get(s, 0) for s in ("error", "warning", "info")]
                for name in ("all", "default")]
    lines += ["Counts by severity:", ""]
    lines += _table(["selection", "total", "error", "warning", "info"], sev_rows)
    consistent = report["default_selection_consistent"]
    lines += [f"Default selection run separately on {report['default_run_files']} of {report['files']} files; "
              f"there it equals the ALL run restricted to default codes: "
              f"{'yes' if consistent else 'NO: ' + ', '.join(report['inconsistent_files'])}.", ""]
    return lines


def _crashes(report: dict) -> List[str]:
    crashes = report["crashes"]
    lines = ["### Crashes", "", f"{len(crashes)} (MSA001 unreadable/unparsable file, MSA002 rule "
             f"crash, exception escaping the engine) over {report['files']} files read.", ""]
    if crashes:
        lines += _table(["kind", "location", "message"], [[c["kind"], c["at"], c["message"]] for c in crashes])
    return lines


def _triage(triage: dict) -> List[str]:
    lines = ["### Triage figures", ""]
    rows = []
    for severity, f in triage["figures"].items():
        rows.append([severity, f["findings"], f["triaged"], f["true"], f["false"], f["unsure"],
                     _pct(f["precision"]), _pct(f["true_share_of_triaged"])])
    lines += _table(["severity", "findings", "triaged", "true", "false alarm", "unsure",
                     "true / (true + false)", "true / triaged"], rows)
    per_rule = {}
    for v in triage["verdicts"]:
        per_rule.setdefault(v["code"], []).append(v["verdict"])
    report_counts = triage.get("_counts", {})
    rows = []
    for code in sorted(per_rule):
        got = per_rule[code]
        rows.append([code, report_counts.get(code, ""), len(got), got.count("true"), got.count("false"),
                     got.count("unsure")])
    if rows:
        lines += ["Verdicts per rule:", ""]
        lines += _table(["code", "findings", "triaged", "true", "false alarm", "unsure"], rows)
    if triage.get("by_role"):
        lines += ["Precision per rule, tuning and held-out repositories (bench/field/protocol.toml):", ""]
        role_rows = []
        for code, roles in triage["by_role"].items():
            for role, f in roles.items():
                role_rows.append([code, role, f["true"], f["false"], f["unsure"], _pct(f["precision"])])
        lines += _table(["code", "repositories", "true", "false alarm", "unsure", "true / (true + false)"],
                        role_rows)
    if triage["untriaged_errors"]:
        lines += ["Error-level findings without a verdict: " + "; ".join(triage["untriaged_errors"]), ""]
    if triage["stale"]:
        lines += ["Verdicts whose finding this run no longer produces: " +
                  "; ".join(f"{s['at']} {s['code']}" for s in triage["stale"]), ""]
    if triage["silenced"]:
        lines += ["#### Findings silenced by rule fixes made during the evaluation", ""]
        lines += _table(["code", "location", "verdict", "why", "fix"],
                        [[e["code"], e["at"], e["verdict"], e.get("why", ""), e["fixed"]]
                         for e in sorted(triage["silenced"], key=lambda e: (e["code"], e["at"]))])
    for problem in triage["problems"]:
        lines.append(f"- triage file problem: {problem}")
    lines += ["#### Verdicts", ""]
    rows = [[v["code"], v["severity"], v["at"], v["verdict"], v.get("why", "")] for v in
            sorted(triage["verdicts"], key=lambda v: (v["severity"], v["code"], v["at"]))]
    return lines + _table(["code", "severity", "location", "verdict", "why"], rows)


def _history(rows: List[dict], figures: dict) -> List[str]:
    lines = ["### Historical fixes", "",
             f"{figures['pre_fix_reported']} of {figures['cases']} pre-fix versions reported "
             f"({_pct(figures['pre_fix_share'])}); fixed versions reported: {figures['fixed_reported']}.", ""]
    if figures.get("halves"):
        lines += _table(["half", "cases", "pre-fix reported", "share", "fixed versions quiet", "caught"],
                        [[half, f["cases"], f["pre_fix_reported"], _pct(f["pre_fix_share"]), f["fixed_quiet"],
                          f["caught"]] for half, f in figures["halves"].items()])
    table = []
    for r in rows:
        where = r["path"] if r.get("scope") is None else f"{r['path']} (project: {r['scope'] or '/'})"
        table.append([r.get("id") or "", f"{r['repo']}@{(r.get('fix_commit') or '')[:12]}", where,
                      r["code"] + (f" ({', '.join(r['reported_by'])})"
                                   if r.get("reported_by") and r["reported_by"] != [r["code"]] else ""),
                      r["status"] + (f" (needs {r['planned']})" if r.get("planned") else ""),
                      ",".join(map(str, r.get("pre_lines") or [])) or "-",
                      ",".join(map(str, r.get("post_lines") or [])) or "-", r.get("what") or ""])
    return lines + _table(["case", "fix commit", "path", "code", "status", "pre-fix lines reported",
                           "fixed lines reported", "what"], table)


def _samples(report: dict) -> List[str]:
    lines = ["### Sampled findings", ""]
    for code, picked in report["samples"].items():
        meta = report["rules"][code]
        lines.append(f"- **{code}** {meta['name']} ({meta['severity']}):")
        for item in picked:
            lines.append(f"  - `{item['at']}` {item['message']}")
    return lines + [""]
