"""A rule's page, made from the rule's own metadata: printed by ``msacclint rule CODE``
and written to docs/rules/CODE.md (``python -m msacclint.frontends.rule_page docs/rules``)."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Dict, List, Type

from msacclint import api
from msacclint.data import checklist
from msacclint.diagnostics import LOUD_CODES

if TYPE_CHECKING:
    from msacclint.rules.base import Rule


def _lowered(rule) -> str:
    """What the engine does to this rule's findings in code that does not run or cannot cost
    accuracy (msacclint/engine/runner.py)."""
    out = []
    # the reach graph applies to every rule (msacclint/project/reach.py, engine/grading.py)
    lower = {"error": "a warning", "warning": "info", "info": "info"}[rule.severity.value]
    if rule.code in LOUD_CODES:
        out.append("- In code no run of the repository reaches (a class no script builds, a function or method "
                   f"nothing calls, a module nothing imports), a finding is {lower} and says it is dormant, naming "
                   "what the repository runs instead. This rule's failure is loud, so any run counts, a model "
                   "module's own demo block too. The finding keeps the trail from the entry point that reaches it "
                   "otherwise (JSON `trail`, SARIF code flow, the editor's hover). A repository without entry "
                   "points, and an installable package's public names, count as reached.")
    else:
        out.append("- In code no run of the repository that trains, evaluates or exports reaches (a class no "
                   "script builds, a function or method nothing calls, a module nothing imports, a model only its "
                   "module's own demo block builds, a model or branch no shipped config, default or command line "
                   "selects, a module a computed import's name cannot be), a finding is "
                   f"{lower} and says it is dormant, naming what the repository runs instead, or the run or the "
                   "value that would reach it. The finding keeps the trail from the entry point that reaches it "
                   "otherwise (JSON `trail`, SARIF code flow, the editor's hover). A repository without entry "
                   "points or whose runs never train, and an installable package's public names, count as "
                   "reached.")
    out.append("- In code that cannot run (its module's import raises first, its class's constructor raises, "
               "a statement before it raises on every supported MindSpore release), a finding is info and names "
               "the statement that raises.")
    if rule.severity.value in ("error", "warning"):
        out.append(f"- In a branch that every call a training run reaches switches off (`if has_dropout:` with "
                   f"every such caller passing False), a finding is {lower} that says it is dormant.")
    if rule.code != "MSA503":
        out.append("- On a layer that a Cell builds in `__init__` and never uses, a finding is info and says so.")
    if getattr(rule, "about_the_run", False):
        out.append("- This rule judges how a training run is set up. In a file whose training data are arrays it "
                   "generates itself (every dataset built from `np.random`/`np.zeros`/`ops.ones`..., or, without a "
                   "dataset, training steps fed only such tensors: a parity test, a benchmark), its findings are "
                   "info and say so: the set-up of such a run cannot cost accuracy.")
        out.append("- The same holds in a module that pytest collects as tests (`test_*.py` or `*_test.py` with "
                   "`test*` functions): a training run in a test keeps no model, so its findings are info and say "
                   "so.")
        out.append("- A finding on an optimizer built in a file that trains nothing (no `.train(`, no training "
                   "step), which only goes into a `Model` and is not returned, is info and says so: an evaluation "
                   "or export script that copied the training set-up.")
    return "\n".join(out) if out else "- Never."


#: every page says where the grades, and what to show or fail on, are explained
GRADES_NOTE = ("The grade a finding ends with is on its line (`error:`, `warning:`, `info:`). What makes an error, "
               "what lowers one, which grades are shown and which fail a run or a commit: "
               "[docs/grades.md](../grades.md).")


def _checklist_title(item_id: str) -> str:
    for item in checklist()["item"]:
        if item["id"] == item_id:
            return item["title"]
    return ""


_COLUMNS = (("true", "true"), ("claim_true", "claim right¹"), ("dormant", "dormant"), ("broken", "broken"),
            ("latent", "latent"), ("loud", "loud"), ("false", "false"), ("unsure", "unsure"))


def field_record_section(rule: Type[Rule]) -> str:
    """The rule's field record: the findings readers judged, by the grade the current tool gives them."""
    meta = api.field_record_meta()
    record = api.field_record(rule.code)
    group = api.group_of(rule)
    lines: List[str] = []
    standing = _standing_line(rule, group)
    if standing:
        lines.append(standing + "\n")
    rows = [(grade, record[grade]) for grade in ("error", "warning", "info", "gone") if record[grade].read]
    if not rows:
        lines.append("No finding of this rule has been judged in a field round yet.")
    else:
        lines.append("| grade now | read | " + " | ".join(title for _k, title in _COLUMNS) + " |")
        lines.append("|---|---:|" + "---:|" * len(_COLUMNS))
        for grade, cell in rows:
            shown = "no longer reported" if grade == "gone" else grade
            lines.append(f"| {shown} | {cell.read} | " + " | ".join(str(getattr(cell, k)) for k, _t in _COLUMNS) + " |")
        lines.append("")
        lines.append("¹ rounds 1-10 judged the claim alone (true / false / unsure), not whether the code runs.")
    rounds = meta.get("rounds") or {}
    if rounds:
        named = ", ".join(f"{name} ({info['split']})" for name, info in rounds.items())  # type: ignore[union-attr]
        lines.append("")
        lines.append(f"Every finding readers judged in the field rounds ({named}), re-checked with msacclint at "
                     f"`{str(meta.get('measured_at') or 'unknown')[:12]}` and counted at the grade it gets now "
                     "(`bench/field/field_record.py`; verdicts in `bench/field/`; "
                     "[docs/groups.md](../groups.md)).")
    return "\n".join(lines) + "\n"


def _standing_line(rule: Type[Rule], group: str) -> str:
    if rule.group in ("correctness", "suspicious"):
        own = api.field_record(rule.code)[rule.severity.value]
        if group == rule.group:
            few = (f" A rule that rarely fires: it stands on fewer than {api.BAR.reads} reads because every one was "
                   "judged true.") if own.read < api.BAR.reads else ""
            return (f"In the default view: its {rule.severity.value}s were judged true in {own.judged_true} of "
                    f"{own.read} field reads, which meets the bar ({api.BAR.reads} read and "
                    f"{round(api.BAR.true_share * 100)} % true, or {api.BAR.few_reads} read and all true).{few}")
        return (f"In the nursery (declared {rule.group}): its {rule.severity.value}s were judged true in "
                f"{own.judged_true} of {own.read} field reads, short of the bar ({api.BAR.reads} read and "
                f"{round(api.BAR.true_share * 100)} % true, or {api.BAR.few_reads} read and all true). It runs "
                "with `--extend-select nursery` or its code.")
    return ""


def render(rule: Type[Rule]) -> str:
    on = "on by default" if rule.enabled_by_default() else "off by default (opt in with --extend-select)"
    group = api.group_of(rule)
    declared = f" (declared {rule.group})" if group != rule.group else ""
    parts: List[str] = [
        f"# {rule.code}: {rule.name}\n",
        f"Checklist **{rule.checklist}** ({_checklist_title(rule.checklist)}) · "
        f"severity **{rule.severity.value}** ([grades](../grades.md)) · group **{group}**{declared} "
        f"([groups](../groups.md)) · {on}\n",
    ]
    entry_id = getattr(rule, "entry_id", "")
    if entry_id:
        parts.append(f"Table entry: `{entry_id}` in rules/api_defaults.toml.\n")
    parts.append("## What it does\n\n" + (rule.what or rule.message).strip() + "\n")
    parts.append("## Why is this bad?\n\n" + rule.why.strip() + "\n")
    if rule.example:
        parts.append("## Example\n\n```python\n" + rule.example.rstrip() + "\n```\n")
    if rule.use_instead:
        parts.append("## Use instead\n\n```python\n" + rule.use_instead.rstrip() + "\n```\n")
    if rule.evidence:
        title = "What makes it an error" if rule.severity.value == "error" else "Evidence"
        parts.append(f"## {title}\n\n" + rule.evidence.strip() + "\n")
    parts.append("## When it is lowered\n\n" + _lowered(rule) + "\n\n" + GRADES_NOTE + "\n")
    if rule.fix_safety:
        parts.append("## Fix safety\n\n" + rule.fix_safety.strip() + "\n")
    versions = rule.versions.strip()
    since, until = getattr(rule, "since", None), getattr(rule, "until", None)
    if since or until:
        bounds = (f"Applies to MindSpore {'>= ' + since if since else ''}{', ' if since and until else ''}"
                  f"{'< ' + until if until else ''}.")
        versions = (bounds + " " + versions).strip()
    if versions:
        parts.append("## Versions\n\n" + versions + "\n")
    parts.append("## Field record\n\n" + field_record_section(rule))
    if rule.references:
        parts.append("## References\n\n" + "".join(f"- {reference(r)}\n" for r in rule.references))
    return "\n".join(parts)


_SHARED_TABLE = re.compile(r"^shared/api_defaults\.md\s+(MS-[A-Z]+-\d+)(.*)$")
_REPO_AT_COMMIT = re.compile(r"^([\w.-]+/[\w.-]+)@([0-9a-f]{7,40}):(\S+)(.*)$")


def reference(text: str) -> str:
    """A rule's reference as its page shows it: never a path outside this repository.
    The design notes' defaults table (``shared/api_defaults.md ID``) is cited by its entry in
    the shipped ``rules/api_defaults.toml``; a file of another public repository at a commit
    (``owner/name@commit:path``) becomes a link to it."""
    match = _SHARED_TABLE.match(text)
    if match:
        return f"`rules/api_defaults.toml`, entry `{match.group(1)}`{match.group(2)}"
    match = _REPO_AT_COMMIT.match(text)
    if match:
        repo, commit, path, rest = match.groups()
        return f"[{repo} `{path}` at {commit}](https://github.com/{repo}/blob/{commit}/{path}){rest}"
    return text


def write_all(folder: Path) -> List[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for rule in api.rules():
        path = folder / f"{rule.code}.md"
        path.write_text(render(rule), encoding="utf-8")
        written.append(path)
    index = folder / "README.md"
    index.write_text(render_index(), encoding="utf-8")
    written.append(index)
    return written


def render_index() -> str:
    areas = checklist()["areas"]
    lines = ["# Rules\n",
             "Generated from the rules' own metadata (`python -m msacclint.frontends.rule_page docs/rules`).\n",
             "Codes are stable (configurations name them); a rule lives in the package of its checklist area, "
             "`msacclint/rules/<area>/`, whatever its code's range: the table below maps each code to its area "
             "and module. Rules generated from rules/api_defaults.toml live in their area's `table_rules` module "
             "(docs/dev/table-dsl.md).\n"]
    by_area: Dict[str, List[Type[Rule]]] = {}
    for rule in api.rules():
        by_area.setdefault(rule.checklist.split(".")[0], []).append(rule)
    for area, title in areas.items():
        rules = by_area.get(area)
        if not rules:
            continue
        lines.append(f"## {title} ({area}.*)\n")
        lines.append("| code | name | checklist | severity | group | default | field record | module |")
        lines.append("|---|---|---|---|---|---|---|---|")
        for rule in rules:
            own = api.field_record(rule.code)[rule.severity.value]
            on = "on" if rule.enabled_by_default() else "off"
            lines.append(f"| [{rule.code}]({rule.code}.md) | {rule.name} | {rule.checklist} | "
                         f"{rule.severity.value} | {api.group_of(rule)} | {on} | "
                         f"{f'{own.judged_true}/{own.read} true' if own.read else '-'} | "
                         f"`{rule.__module__.replace('msacclint.rules.', '')}` |")
        lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    for p in write_all(Path(sys.argv[1] if len(sys.argv) > 1 else "docs/rules")):
        print(p)
