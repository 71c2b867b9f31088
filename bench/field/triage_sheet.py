"""A triage sheet for one run of bench/field/eval.py: every error-level finding and a seeded
random sample of warnings, as TOML verdict entries to fill in (verdict = "true" / "false" /
"unsure", why = what the code does). The held-out protocol (bench/field/protocol.toml) asks
for every error and at least 60 warnings, drawn with the protocol's seed.

    python bench/field/triage_sheet.py REPORT.json --warnings 60 --seed 20261123 > sheet.toml
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from typing import List, Optional, Sequence

CRASH_CODES = ("MSA001", "MSA002")


def pick(findings: List[dict], warnings: int, seed: int) -> List[dict]:
    """Every error (crash codes aside), then ``warnings`` warnings drawn with ``seed`` from
    all warnings sorted by location (all of them when there are fewer)."""
    errors = sorted((d for d in findings if d["severity"] == "error" and d["code"] not in CRASH_CODES),
                    key=lambda d: (d["at"], d["code"]))
    pool = sorted((d for d in findings if d["severity"] == "warning"), key=lambda d: (d["at"], d["code"]))
    drawn = pool if len(pool) <= warnings else random.Random(seed).sample(pool, warnings)
    return errors + sorted(drawn, key=lambda d: (d["at"], d["code"]))


def _quote(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("report", help="the --json report of bench/field/eval.py")
    parser.add_argument("--warnings", type=int, default=60)
    parser.add_argument("--seed", type=int, required=True)
    args = parser.parse_args(argv)
    with open(args.report, encoding="utf-8") as handle:
        report = json.load(handle)
    out = sys.stdout
    for diag in pick(report["findings"], args.warnings, args.seed):
        out.write("[[verdict]]\n")
        out.write(f"at = {_quote(diag['at'])}\n")
        out.write(f"code = {_quote(diag['code'])}\n")
        out.write(f"severity = {_quote(diag['severity'])}\n")
        out.write(f"message = {_quote(diag['message'])}\n")
        out.write('verdict = ""\nwhy = ""\n\n')
    return 0


if __name__ == "__main__":
    sys.exit(main())
