"""Round 12's field run and its scoring (issues 35-39): msacclint on the 40 repositories appended to
the shared field list, as a user runs it on a clone, and the tables the issues ask for.

    python bench/field/round12.py run --role held-out --mirror $MIRROR --out $FIELD/round12 --frozen
    python bench/field/round12.py sheet $FIELD/round12/findings.json --seed 20261201 > sheet.toml
    python bench/field/round12.py score $FIELD/round12/findings.json VERDICTS.toml --sheet sheet.toml

``run``: for each repository of bench/field/round12/split.toml with the role, its tree at the
pinned commit is written to ``--out`` (a clone's root marker added) and ``msacclint check .`` runs
from that root with every rule and grade (``--select ALL --show-info``: one run gives the default
view and everything outside it; each finding's JSON ``group`` says which), no cache; the findings
of the listed files are kept. A held-out run needs ``--frozen`` (it records the msacclint commit and
refuses a work tree with changes).

``sheet``: what the readers read, as TOML verdict entries, each with the section it is read for:
``default`` (the default view, what ``msacclint check .`` shows: a finding of a group of the default
view at error or warning, the tool's own notes MSA001/MSA002 aside: every error and ``--warnings``
warnings drawn with the seed), ``lowered`` (a finding of a rule of the default view below its rule's
own grade for reach or an assumed precondition, outside the default view: all of them, up to
``--lowered``, drawn with the seed beyond that), ``cannot-run`` (every finding of the default view's
rules graded cannot run that no other section reads, and every other finding graded cannot run, of any
rule: issue 39's re-reading covers them all), ``outside`` (``--outside N``: every error outside the default
view and N of its warnings drawn with the seed; not part of any headline, read so that the next field
record knows the rules the default view leaves out).

``score``: per section, findings read and each verdict (true / dormant / broken / latent / loud /
false / unsure); the headline is the share of the default view judged true; of the findings read in
code that does not run (dormant or broken), how many the tool lowered with the right reason; per
rule, the default view's verdicts.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
from collections import Counter, defaultdict
from typing import Dict, List, Optional, Sequence

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))

import round11  # noqa: E402

from msacclint.data import tomllib  # noqa: E402
from msacclint.engine import registry  # noqa: E402
from msacclint.rules.groups import DEFAULT_GROUPS  # noqa: E402

SPLIT = os.path.join(HERE, "round12", "split.toml")
VERDICTS = ("true", "dormant", "broken", "latent", "loud", "false", "unsure")
SHOWN = ("error", "warning")
TOOL_NOTES = ("MSA001", "MSA002")


def run(args: argparse.Namespace) -> int:
    round11.SPLIT = SPLIT
    round11.CHECK_ARGS = ("--select", "ALL", "--show-info")
    return round11.run(args)


def _own(code: str) -> str:
    return registry.declared(code)[1]


def section(d: dict) -> Optional[str]:
    """The section of the sheet a finding is read for (None: not read)."""
    if d["code"] in TOOL_NOTES:
        return None
    in_default_rule = registry.group_of(d["code"]) in DEFAULT_GROUPS
    if d.get("group") in DEFAULT_GROUPS and d["severity"] in SHOWN:
        return "default"
    if in_default_rule and d.get("reach") == "cannot-run":
        return "cannot-run"
    if in_default_rule and ["error", "warning", "info"].index(d["severity"]) > ["error", "warning", "info"].index(
            _own(d["code"])):
        return "lowered"
    return None


def pick(findings: List[dict], warnings: int, lowered: int, seed: int, outside: int = 0) -> List[dict]:
    chosen: List[dict] = []
    by_section: Dict[str, List[dict]] = defaultdict(list)
    for d in findings:
        kind = section(d)
        if kind is not None:
            by_section[kind].append(d)
    key = lambda d: (d["at"], d["code"])  # noqa: E731
    errors = sorted((d for d in by_section["default"] if d["severity"] == "error"), key=key)
    pool = sorted((d for d in by_section["default"] if d["severity"] == "warning"), key=key)
    drawn = pool if len(pool) <= warnings else random.Random(seed).sample(pool, warnings)
    for d in errors:
        chosen.append(dict(d, _section="default", _sampled=False))
    for d in sorted(drawn, key=key):
        chosen.append(dict(d, _section="default", _sampled=True))
    low = sorted(by_section["lowered"], key=key)
    low = low if len(low) <= lowered else sorted(random.Random(seed + 1).sample(low, lowered), key=key)
    chosen += [dict(d, _section="lowered", _sampled=len(by_section["lowered"]) > lowered) for d in low]
    # every cannot-run finding of the default view's rules is read (issue 39): those the default
    # view's draw left out too
    taken = {key(d) for d in chosen}
    blocked = by_section["cannot-run"] + [d for d in pool if d.get("reach") == "cannot-run" and key(d) not in taken]
    # and every other finding graded cannot run, of any rule (issue 39 re-reads every one)
    taken |= {key(d) for d in blocked}
    blocked += [d for d in findings if d.get("reach") == "cannot-run" and d["code"] not in TOOL_NOTES
                and key(d) not in taken]
    chosen += [dict(d, _section="cannot-run", _sampled=False) for d in sorted(blocked, key=key)]
    # outside the default view (not in the headline): every error and ``outside`` warnings drawn
    # with the seed, read so that the next field record knows the rules the default view leaves out
    if not outside:
        return chosen
    taken = {key(d) for d in chosen}
    rest = [d for d in findings if key(d) not in taken and d["code"] not in TOOL_NOTES and d["severity"] in SHOWN
            and section(d) is None]
    errors_out = sorted((d for d in rest if d["severity"] == "error"), key=key)
    warn_out = sorted((d for d in rest if d["severity"] == "warning"), key=key)
    drawn_out = warn_out if len(warn_out) <= outside else random.Random(seed + 2).sample(warn_out, outside)
    chosen += [dict(d, _section="outside", _sampled=False) for d in errors_out]
    chosen += [dict(d, _section="outside", _sampled=True) for d in sorted(drawn_out, key=key)]
    return chosen


def sheet(args: argparse.Namespace) -> int:
    with open(args.report, encoding="utf-8") as handle:
        report = json.load(handle)
    out = sys.stdout
    for d in pick(report["findings"], args.warnings, args.lowered, args.seed, args.outside):
        out.write("[[verdict]]\n")
        for key in ("at", "code", "severity", "message"):
            out.write(f"{key} = {json.dumps(d[key], ensure_ascii=False)}\n")
        if d.get("cell") is not None:
            out.write(f"cell = {d['cell']}\n")
        out.write(f"section = \"{d['_section']}\"\n")
        out.write(f"sampled = {'true' if d.get('_sampled') else 'false'}\n")
        out.write('verdict = ""\nruns_via = ""\nwhy = ""\n\n')
    return 0


def _pct(n: int, of: int) -> str:
    return f"{n} ({100 * n / of:.0f} %)" if of else str(n)


def score(args: argparse.Namespace) -> int:
    with open(args.report, encoding="utf-8") as handle:
        report = json.load(handle)
    by_at = {(d["at"], d["code"]): d for d in report["findings"]}
    sections: Dict[str, Counter] = defaultdict(Counter)
    per_rule: Dict[str, Counter] = defaultdict(Counter)
    outside_rule: Dict[str, Counter] = defaultdict(Counter)
    errors_claim = Counter()
    notes: Dict[str, Counter] = defaultdict(Counter)
    lowering = Counter()
    for path in args.verdicts:
        with open(path, "rb") as handle:
            entries = tomllib.load(handle).get("verdict", [])
        for v in entries:
            d = by_at.get((v["at"], v["code"]))
            verdict = v.get("verdict", "")
            if d is None or verdict not in VERDICTS:
                continue
            name = v.get("section") or section(d) or "other"
            tier = f"{name}: {d['severity']}s" if name in ("default", "outside") else name
            for key in dict.fromkeys((tier, name)):
                sections[key][verdict] += 1
                sections[key]["read"] += 1
            if name == "default":
                per_rule[d["code"]][verdict] += 1
                per_rule[d["code"]]["read"] += 1
            if name == "outside":
                outside_rule[d["code"]][verdict] += 1
                outside_rule[d["code"]]["read"] += 1
            if name == "default" and d["severity"] == "error":
                errors_claim["read"] += 1
                errors_claim["right" if verdict not in ("false", "unsure") else verdict] += 1
            if name in ("lowered", "cannot-run"):  # the readers' word on the tool's stated reason
                notes[name][str(v.get("note_right", "")).strip().lower() or "not said"] += 1
            if d.get("reach") == "cannot-run":  # issue 39's re-reading, whatever section read it
                sections["graded cannot run"][verdict] += 1
                sections["graded cannot run"]["read"] += 1
            if verdict in ("dormant", "broken"):
                lowering["read"] += 1
                right = (verdict == "dormant" and d.get("reach") == "dormant") or \
                    (verdict == "broken" and d.get("reach") == "cannot-run")
                lowering["right reason" if right else ("lowered, other reason" if d.get("reach") in
                                                       ("dormant", "cannot-run") else "kept")] += 1
    head = "| {} | read | " + " | ".join(VERDICTS) + " |"
    rule = "|---|---:|" + "---:|" * len(VERDICTS)
    out = [head.format("section"), rule]
    for name in ("default", "default: errors", "default: warnings", "lowered", "cannot-run", "graded cannot run",
                 "outside", "outside: errors", "outside: warnings", "other"):
        c = sections.get(name)
        if c:
            out.append(f"| {name} | {c['read']} | " + " | ".join(_pct(c[v], c["read"]) for v in VERDICTS) + " |")
    if lowering["read"]:
        out.append("")
        out.append(f"Findings read in code that does not run (dormant or broken verdicts): {lowering['read']}; "
                   f"lowered with the right reason: {_pct(lowering['right reason'], lowering['read'])}; lowered "
                   f"for another reason: {lowering['lowered, other reason']}; kept at their grade: {lowering['kept']}.")
    for name in ("lowered", "cannot-run"):
        if notes.get(name):
            out.append("")
            out.append(f"The tool's stated reason, in the readers' words ({name}): "
                       + ", ".join(f"{k} {n}" for k, n in notes[name].most_common()) + ".")
    if errors_claim["read"]:
        out.append("")
        out.append(f"Errors of the default view whose claim holds (any verdict but false or unsure): "
                   f"{_pct(errors_claim['right'], errors_claim['read'])}.")
    for title, table in (("rule (default view)", per_rule), ("rule (outside the default view)", outside_rule)):
        if not table:
            continue
        out += ["", head.format(title), rule]
        for code in sorted(table):
            c = table[code]
            out.append(f"| {code} | {c['read']} | " + " | ".join(str(c[v]) for v in VERDICTS) + " |")
    print("\n".join(out))
    return 0


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run")
    r.add_argument("--role", choices=("tuning", "held-out"), required=True)
    r.add_argument("--mirror", default=os.environ.get("MIRROR"), required=os.environ.get("MIRROR") is None)
    r.add_argument("--out", required=True)
    r.add_argument("--repo", action="append", default=[])
    r.add_argument("--jobs", type=int, default=2)
    r.add_argument("--frozen", action="store_true")
    s = sub.add_parser("sheet")
    s.add_argument("report")
    s.add_argument("--seed", type=int, required=True)
    s.add_argument("--warnings", type=int, default=60)
    s.add_argument("--lowered", type=int, default=60)
    s.add_argument("--outside", type=int, default=0,
                   help="warnings outside the default view drawn for the next field record (every error is read)")
    c = sub.add_parser("score")
    c.add_argument("report")
    c.add_argument("verdicts", nargs="+")
    args = parser.parse_args(argv)
    return {"run": run, "sheet": sheet, "score": score}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
