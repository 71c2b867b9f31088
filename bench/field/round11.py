"""Round 11's field run and its scoring (issues 31 and 32): msacclint on repositories of the
shared field list as a user runs it on a clone, and the reach table of the readers' verdicts.

    python bench/field/round11.py run --role held-out --mirror $MIRROR --out $FIELD/round11 [--frozen]
    python bench/field/round11.py sheet $FIELD/round11/findings.json --seed 20261128 > sheet.toml
    python bench/field/round11.py score $FIELD/round11/findings.json VERDICTS.toml [...]

``run``: for each repository of bench/field/round11/split.toml with the role, its tree at the
pinned commit is written to ``--out`` (a clone's root marker added), ``msacclint check .``
runs from that root with the default selection and no cache (every file of the tree is the
project), and the findings of the files the split lists are kept, with their grade, reach and
trail. A held-out run needs ``--frozen``: it records the msacclint commit and refuses a work
tree with changes.

``sheet``: what the readers read, as TOML verdict entries: every error; every finding the
reach graph lowered from an error (dormant or cannot run: to check the lowering); every
error-level finding in a notebook; and warnings drawn with the seed (``--warnings``, 60).

``score``: the table the issue asks for: per tier, findings read, claim right (true + dormant
+ broken + latent), in code that runs (true), dormant, broken, latent, false, unsure; and of
the findings read in code that does not run (dormant/broken verdicts), how many the tool
lowered with the right reason (dormant -> reach "dormant"; broken -> reach "cannot-run").
Verdicts: true (the code runs and the claim holds), dormant (the claim holds, nothing reaches
the code), broken (the claim holds, the code cannot run), latent (holds only for other
inputs), false (the claim is wrong), unsure.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from collections import Counter, defaultdict
from typing import Dict, List, Optional, Sequence

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))

from eval import msacclint_commit, write_project  # noqa: E402

from msacclint.data import tomllib  # noqa: E402
from msacclint.engine import registry  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(HERE))
SPLIT = os.path.join(HERE, "round11", "split.toml")
VERDICTS = ("true", "dormant", "broken", "latent", "false", "unsure")
#: what ``run`` adds to ``msacclint check . --format json``: round 11 ran the default selection
#: with every grade; round 12 (round12.py) selects every rule too
CHECK_ARGS: Sequence[str] = ("--show-info",)


def repositories(role: str) -> List[dict]:
    with open(SPLIT, "rb") as handle:
        return [r for r in tomllib.load(handle)["repo"] if r["role"] == role]


def git_dir(mirror: str, name: str) -> str:
    base = os.path.join(mirror, name.replace("/", "+"), "repo")
    return os.path.join(base, ".git") if os.path.isdir(os.path.join(base, ".git")) else base


def run(args: argparse.Namespace) -> int:
    frozen = msacclint_commit() if args.frozen else None
    if args.role == "held-out" and frozen is None:
        print("round11: a held-out run needs --frozen", file=sys.stderr)
        return 2
    if frozen is not None and frozen["dirty"]:
        print("round11: --frozen: msacclint/ has uncommitted changes; commit them first", file=sys.stderr)
        return 2
    os.makedirs(args.out, exist_ok=True)
    findings: List[dict] = []
    per_repo = {}
    for repo in repositories(args.role):
        if args.repo and repo["name"] not in args.repo:
            continue
        tree = os.path.join(args.out, repo["name"].replace("/", "+"))
        if not os.path.isdir(tree):
            write_project(git_dir(args.mirror, repo["name"]), repo["commit"], "", tree)
            os.makedirs(os.path.join(tree, ".git"), exist_ok=True)  # a clone's root marker
        listed = None
        if repo.get("files"):
            with open(os.path.join(os.path.dirname(os.path.dirname(HERE)), repo["files"]), encoding="utf-8") as f:
                listed = {line.strip() for line in f if line.strip()}
        started = time.perf_counter()
        # this checkout's msacclint, whatever is installed (the tree is the working folder)
        env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
        done = subprocess.run([sys.executable, "-m", "msacclint", "check", ".", "--format", "json", "--no-cache",
                               "--exit-zero", *CHECK_ARGS, "--jobs", str(args.jobs)], cwd=tree,
                              capture_output=True, text=True, check=False, env=env)
        if done.returncode != 0:
            print(f"round11: {repo['name']}: msacclint exited {done.returncode}: {done.stderr[-2000:]}",
                  file=sys.stderr)
            return 1
        found = json.loads(done.stdout or "[]")
        kept = [d for d in found if listed is None or os.path.normpath(d["path"]) in listed]
        for d in kept:
            d["repo"] = repo["name"]
            d["at"] = f"{repo['name']}@{repo['commit'][:12]}:{d['path']}:{d['line']}"
        findings.extend(kept)
        per_repo[repo["name"]] = {"findings": len(kept), "all_findings": len(found),
                                  "seconds": round(time.perf_counter() - started, 1)}
        print(f"{repo['name']}: {len(kept)} findings kept of {len(found)}", file=sys.stderr)
    with open(os.path.join(args.out, "findings.json"), "w", encoding="utf-8") as handle:
        json.dump({"role": args.role, "msacclint": frozen, "repositories": per_repo, "findings": findings},
                  handle, indent=1)
    return 0


def _rule_severity() -> Dict[str, str]:
    return {r.code: r.severity.value for r in registry.all_rules()}


def pick(findings: List[dict], warnings: int, seed: int) -> List[dict]:
    base = _rule_severity()
    chosen = []
    for d in findings:
        if d["code"] in ("MSA001", "MSA002"):
            continue
        lowered = d.get("reach") in ("dormant", "cannot-run") and base.get(d["code"]) == "error"
        notebook = d["path"].endswith(".ipynb") and (d["severity"] == "error" or lowered)
        if d["severity"] == "error" or lowered or notebook:
            chosen.append(d)
    pool = sorted((d for d in findings if d["severity"] == "warning" and d not in chosen),
                  key=lambda d: (d["at"], d["code"]))
    drawn = pool if len(pool) <= warnings else random.Random(seed).sample(pool, warnings)
    for d in drawn:
        d["_sampled"] = True
    return sorted(chosen, key=lambda d: (d["at"], d["code"])) + sorted(drawn, key=lambda d: (d["at"], d["code"]))


def sheet(args: argparse.Namespace) -> int:
    with open(args.report, encoding="utf-8") as handle:
        report = json.load(handle)
    out = sys.stdout
    for d in pick(report["findings"], args.warnings, args.seed):
        out.write("[[verdict]]\n")
        for key in ("at", "code", "severity", "message"):
            out.write(f"{key} = {json.dumps(d[key], ensure_ascii=False)}\n")
        if d.get("cell") is not None:
            out.write(f"cell = {d['cell']}\n")
        out.write(f"sampled = {'true' if d.get('_sampled') else 'false'}\n")
        out.write('verdict = ""\nwhy = ""\n\n')
    return 0


def score(args: argparse.Namespace) -> int:
    with open(args.report, encoding="utf-8") as handle:
        report = json.load(handle)
    by_at = {(d["at"], d["code"]): d for d in report["findings"]}
    base = _rule_severity()
    rows: Dict[str, Counter] = defaultdict(Counter)
    lowering = Counter()
    sampled = set()
    if args.sheet:
        with open(args.sheet, "rb") as handle:
            sampled = {(e["at"], e["code"]) for e in tomllib.load(handle).get("verdict", []) if e.get("sampled")}
    for path in args.verdicts:
        with open(path, "rb") as handle:
            for v in tomllib.load(handle).get("verdict", []):
                d = by_at.get((v["at"], v["code"]))
                if d is None or v.get("verdict") not in VERDICTS:
                    continue
                verdict = v["verdict"]
                tier = "notebook errors" if d["path"].endswith(".ipynb") and d["severity"] == "error" else (
                    "errors" if d["severity"] == "error" else
                    "lowered from error" if base.get(d["code"]) == "error" and d.get("reach") in ("dormant", "cannot-run")
                    else "warnings (sample)" if v.get("sampled") or (v["at"], v["code"]) in sampled else "other")
                rows[tier][verdict] += 1
                rows[tier]["read"] += 1
                if verdict in ("dormant", "broken"):
                    lowering["read"] += 1
                    right = (verdict == "dormant" and d.get("reach") == "dormant") or \
                        (verdict == "broken" and d.get("reach") == "cannot-run")
                    lowering["right reason" if right else ("lowered, other reason" if d.get("reach") in
                                                           ("dormant", "cannot-run") else "kept")] += 1
    out = ["| tier | read | claim right | in code that runs | dormant | broken | latent | false | unsure |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for tier in ("errors", "lowered from error", "warnings (sample)", "notebook errors", "other"):
        c = rows.get(tier)
        if not c:
            continue
        n = c["read"]
        right = c["true"] + c["dormant"] + c["broken"] + c["latent"]
        decided = n - c["unsure"]
        out.append(f"| {tier} | {n} | {right} ({100 * right / decided:.0f} %) | {c['true']} "
                   f"({100 * c['true'] / decided:.0f} %) | {c['dormant']} | {c['broken']} | {c['latent']} | "
                   f"{c['false']} | {c['unsure']} |" if decided else f"| {tier} | {n} | - | - | - | - | - | - | {n} |")
    if lowering["read"]:
        out.append("")
        out.append(f"Findings read in code that does not run (dormant or broken verdicts): {lowering['read']}; "
                   f"lowered with the right reason: {lowering['right reason']} "
                   f"({100 * lowering['right reason'] / lowering['read']:.0f} %); lowered for another reason: "
                   f"{lowering['lowered, other reason']}; kept at their grade: {lowering['kept']}.")
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
    c = sub.add_parser("score")
    c.add_argument("report")
    c.add_argument("verdicts", nargs="+")
    c.add_argument("--sheet", help="the sheet the verdicts answer (which warnings were drawn)")
    args = parser.parse_args(argv)
    return {"run": run, "sheet": sheet, "score": score}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
