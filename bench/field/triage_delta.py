"""What became of triaged findings in a later run: for each verdict of a triage file, the
finding's severity in the run the triage was made on and in a later run (``gone`` when the
later run no longer reports it at that place), counted by verdict and listed per rule.

    python bench/field/triage_delta.py BEFORE.json AFTER.json --triage bench/field/heldout_triage_round3.toml

BEFORE and AFTER are ``--json`` reports of bench/field/eval.py. Once rules were changed after
looking at a triage, its repositories are tuning data: this shows what the change did to
the findings that were read, not a precision on unseen code.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from typing import Dict, Optional, Sequence, Tuple

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


def severities(report: str) -> Dict[Tuple[str, str], str]:
    with open(report, encoding="utf-8") as handle:
        findings = json.load(handle)["findings"]
    out: Dict[Tuple[str, str], str] = {}
    for f in findings:
        out.setdefault((f["at"], f["code"]), f["severity"])
    return out


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--triage", required=True)
    args = parser.parse_args(argv)
    with open(args.triage, "rb") as handle:
        verdicts = tomllib.load(handle)["verdict"]
    before, after = severities(args.before), severities(args.after)
    total: Counter = Counter()
    per_rule: Dict[str, Counter] = defaultdict(Counter)
    for v in verdicts:
        key = (v["at"], v["code"])
        move = (before.get(key, "?"), v["verdict"], after.get(key, "gone"))
        total[move] += 1
        if move[0] != move[2]:
            per_rule[v["code"]][move] += 1
    print("| before | verdict | after | findings |\n|---|---|---|---:|")
    for (was, verdict, now), n in sorted(total.items()):
        print(f"| {was} | {verdict} | {now} | {n} |")
    print("\nchanged, per rule:")
    for code, moves in sorted(per_rule.items()):
        print(f"- {code}: " + ", ".join(f"{n} {verdict} {was} -> {now}" for (was, verdict, now), n in sorted(moves.items())))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
