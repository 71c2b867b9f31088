"""The field record: every finding readers judged in a field round, as the current msacclint grades it.

    MIRROR=<folder of mirrors> python bench/field/field_record.py run --work $FIELD/record [--pypi DIR]
    python bench/field/field_record.py write
    python bench/field/field_record.py kept     # earlier true verdicts the default view still shows

``run`` reads every committed verdict file (``VERDICT_FILES``: the tuning and held-out rounds,
kept apart), writes each judged repository at the judged commit to ``--work`` (a clone's root
marker added), runs this checkout's ``msacclint check`` on the judged files from that root with
every rule selected (``--select ALL --show-info``: every group, every grade), and matches each
verdict to the finding the current tool gives at the same file, line (and notebook cell) and
code. It writes ``bench/field/record/judged.jsonl`` (one line per verdict: where, the round, its
split, the readers' verdict, and the current grade, reach and group, or ``null`` when the current
tool no longer reports it) and then does what ``write`` does.

``write`` aggregates ``judged.jsonl`` into ``rules/field_record.json``, the data the rule pages,
``msacclint rules`` and the default view read (msacclint/rules/groups.py): per rule and per
current grade, how many findings were read and how many of them each verdict. Nothing in it is
typed by hand; ``tests/test_field_record.py`` recomputes it from ``judged.jsonl``.

Verdict vocabularies: from round 11 on, readers gave true / dormant / broken / latent / loud /
false / unsure (``vocabulary = "reach"``). Earlier rounds judged the claim alone: true / false /
unsure (``vocabulary = "claim"``), where "true" means the claim holds, whether or not the code
runs; the record keeps those apart as ``claim_true`` so a page can say which is which.
A source that cannot be had here (no mirror, a commit the mirror lacks) is listed in the record
as skipped, with why; its verdicts do not count.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import zipfile
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, ROOT)

from eval import msacclint_commit, write_project  # noqa: E402

from msacclint.data import tomllib  # noqa: E402

JUDGED = os.path.join(HERE, "record", "judged.jsonl")
RECORD = os.path.join(ROOT, "rules", "field_record.json")

#: (file, round, split, vocabulary, commits of a [[finding]] file's repositories)
VERDICT_FILES: Tuple[Tuple[str, str, str, str, Dict[str, str]], ...] = (
    ("triage.toml", "round 1", "tuning", "claim", {}),
    ("triage_round2.toml", "round 2", "tuning", "claim", {}),
    ("heldout_triage.toml", "round 2 held-out", "held-out", "claim", {}),
    ("heldout_triage_round3.toml", "round 3", "held-out", "claim", {}),
    ("heldout_triage_round4.toml", "round 4", "held-out", "claim", {}),
    ("heldout_triage_round5.toml", "round 5", "held-out", "claim", {}),
    ("heldout_triage_round6.toml", "round 6", "held-out", "claim", {}),
    ("heldout_triage_round7.toml", "round 7", "held-out", "claim", {}),
    ("issue14_triage.toml", "round 9 (issue 14)", "tuning", "claim", {
        "mindspore-lab/models": "f109833b1b0dbb15b0c3a11c039bde3245637c1e",
        "mindspore-courses/competition": "0ad8b8713ad666be6f2a265250da5e90a82b7062",
        "mindspore-ai/course": "cbfaa090acad5728f3a2db41d8fda2300e8c72f9",
    }),
    ("triage_round10_labmodels.toml", "round 10", "tuning", "claim",
     {"mindspore-lab/models": "f109833b1b0dbb15b0c3a11c039bde3245637c1e"}),
    ("triage_round10_labmodels_warnings.toml", "round 10", "tuning", "claim",
     {"mindspore-lab/models": "f109833b1b0dbb15b0c3a11c039bde3245637c1e"}),
    ("round11/heldout_verdicts.toml", "round 11", "held-out", "reach", {}),
    ("round12/heldout_verdicts.toml", "round 12", "held-out", "reach", {}),
)
#: later rounds append their verdict files here

VERDICTS = ("true", "claim_true", "dormant", "broken", "latent", "loud", "false", "unsure")
GRADES = ("error", "warning", "info", "gone")
PYPI_COMMIT = "pypi-0.5.0"


# ------------------------------------------------------------------ the verdicts

def read_verdicts() -> List[dict]:
    rows: List[dict] = []
    for name, label, split, vocabulary, commits in VERDICT_FILES:
        with open(os.path.join(HERE, name), "rb") as handle:
            data = tomllib.load(handle)
        for entry in data.get("verdict", []) + data.get("finding", []):
            if "at" in entry:
                where, _, rest = entry["at"].partition("@")
                commit, _, place = rest.partition(":")
                path, _, line = place.rpartition(":")
                repo = where
            else:
                repo, path, line = entry["repo"], entry["path"], str(entry["line"])
                commit = commits[repo]
            verdict = entry.get("verdict", "").strip().lower()
            if not verdict:
                continue
            if vocabulary == "claim" and verdict == "true":
                verdict = "claim_true"
            rows.append({"source": name, "round": label, "split": split, "vocabulary": vocabulary,
                         "repo": repo, "commit": commit, "path": path, "line": int(line),
                         "cell": entry.get("cell"), "code": entry["code"], "verdict": verdict})
    return rows


# ------------------------------------------------------------------ running the current tool

def git_dir(mirror: str, repo: str) -> str:
    base = os.path.join(mirror, repo.replace("/", "+"), "repo")
    return os.path.join(base, ".git") if os.path.isdir(os.path.join(base, ".git")) else base


def full_commit(gd: str, prefix: str) -> Optional[str]:
    done = subprocess.run(["git", f"--git-dir={gd}", "rev-parse", "--verify", "-q", prefix + "^{commit}"],
                          capture_output=True, text=True)
    return done.stdout.strip() if done.returncode == 0 else None


def prepare_tree(args: argparse.Namespace, repo: str, commit: str) -> Tuple[Optional[str], str]:
    """The folder holding ``repo`` at ``commit`` (written once), or (None, why not)."""
    tree = os.path.join(args.work, f"{repo.replace('/', '+')}@{commit[:12]}")
    if os.path.isdir(tree):
        return tree, ""
    if commit == PYPI_COMMIT:
        wheels = [w for w in os.listdir(args.pypi or ".") if w.startswith(repo.split("/")[1] + "-0.5.0")] \
            if args.pypi else []
        if not wheels:
            return None, "the PyPI wheel mindone-0.5.0 was not given (--pypi)"
        with zipfile.ZipFile(os.path.join(args.pypi, wheels[0])) as wheel:
            wheel.extractall(tree)
    else:
        gd = git_dir(args.mirror, repo)
        if not os.path.isdir(gd):
            return None, "no mirror of the repository"
        full = full_commit(gd, commit)
        if full is None:
            return None, f"the mirror lacks commit {commit}"
        os.makedirs(tree + ".part", exist_ok=True)
        write_project(gd, full, "", tree + ".part")
        os.rename(tree + ".part", tree)
    os.makedirs(os.path.join(tree, ".git"), exist_ok=True)  # a clone's root marker
    return tree, ""


def check(tree: str, paths: Sequence[str]) -> List[dict]:
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    present = sorted(p for p in set(paths) if os.path.isfile(os.path.join(tree, p)))
    found: List[dict] = []
    for start in range(0, len(present), 400):
        done = subprocess.run([sys.executable, "-m", "msacclint", "check", *present[start:start + 400],
                               "--select", "ALL", "--show-info", "--format", "json", "--no-cache", "--exit-zero",
                               "--jobs", "1"], cwd=tree, capture_output=True, text=True, env=env, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"msacclint check in {tree} exited {done.returncode}: {done.stderr[-2000:]}")
        found.extend(json.loads(done.stdout or "[]"))
    return found


def match(rows: List[dict], found: List[dict]) -> None:
    by_place: Dict[Tuple[str, Optional[int], int, str], List[dict]] = defaultdict(list)
    for d in found:
        by_place[os.path.normpath(d["path"]), d.get("cell"), d["line"], d["code"]].append(d)
    rank = {"error": 0, "warning": 1, "info": 2}
    for row in rows:
        hits = by_place.get((os.path.normpath(row["path"]), row["cell"], row["line"], row["code"]), [])
        if not hits:
            row["now"] = None
            continue
        best = min(hits, key=lambda d: rank[d["severity"]])
        row["now"] = {"grade": best["severity"], "reach": best.get("reach"), "group": best.get("group")}


def run(args: argparse.Namespace) -> int:
    tool = msacclint_commit()
    rows = read_verdicts()
    pairs: Dict[Tuple[str, str], List[dict]] = defaultdict(list)
    for row in rows:
        pairs[row["repo"], row["commit"]].append(row)
    os.makedirs(args.work, exist_ok=True)
    skipped: List[dict] = []

    def one(key: Tuple[str, str]) -> None:
        repo, commit = key
        tree, why = prepare_tree(args, repo, commit)
        if tree is None:
            skipped.append({"repo": repo, "commit": commit, "verdicts": len(pairs[key]), "why": why})
            for row in pairs[key]:
                row["now"] = "skipped"
            return
        match(pairs[key], check(tree, [r["path"] for r in pairs[key]]))
        print(f"field_record: {repo}@{commit[:12]}: {len(pairs[key])} verdicts", file=sys.stderr)

    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        list(pool.map(one, sorted(pairs, key=lambda k: -len(pairs[k]))))
    os.makedirs(os.path.dirname(JUDGED), exist_ok=True)
    with open(JUDGED, "w", encoding="utf-8") as handle:
        handle.write(json.dumps({"msacclint": tool["commit"], "dirty": tool["dirty"],
                                 "skipped": sorted(skipped, key=lambda s: (s["repo"], s["commit"]))}) + "\n")
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    return write(args)


# ------------------------------------------------------------------ the record

def read_judged(path: str = JUDGED) -> Tuple[dict, List[dict]]:
    with open(path, encoding="utf-8") as handle:
        lines = [json.loads(line) for line in handle if line.strip()]
    return lines[0], lines[1:]


def _empty() -> Dict[str, int]:
    return {v: 0 for v in ("read", *VERDICTS)}


def aggregate(header: dict, rows: Iterable[dict]) -> dict:
    """The record: per rule, per current grade ("gone" when the tool no longer reports it),
    per split (tuning, held-out) and in all: reads and verdict counts; and the rounds."""
    rules: Dict[str, dict] = {}
    rounds: Dict[str, dict] = {}
    for row in rows:
        if row.get("now") == "skipped":
            continue
        grade = row["now"]["grade"] if row.get("now") else "gone"
        rule = rules.setdefault(row["code"], {"all": {}, "tuning": {}, "held-out": {}})
        for part in ("all", row["split"]):
            cell = rule[part].setdefault(grade, _empty())
            cell["read"] += 1
            cell[row["verdict"]] += 1
        info = rounds.setdefault(row["round"], {"split": row["split"], "vocabulary": row["vocabulary"],
                                                "files": set(), "read": 0})
        info["files"].add(row["source"])
        info["read"] += 1
    ordered_rules = {}
    for code in sorted(rules):
        ordered_rules[code] = {part: {g: rules[code][part][g] for g in GRADES if g in rules[code][part]}
                               for part in ("all", "tuning", "held-out")}
    return {
        "about": "Written by `python bench/field/field_record.py write` from bench/field/record/judged.jsonl; "
                 "read by msacclint/rules/groups.py. Do not edit.",
        "measured_at": header["msacclint"],
        "rounds": {name: {"split": r["split"], "vocabulary": r["vocabulary"], "files": sorted(r["files"]),
                          "read": r["read"]} for name, r in sorted(rounds.items(), key=lambda kv: _round_key(kv[0]))},
        "skipped": header.get("skipped", []),
        "rules": ordered_rules,
    }


def _round_key(name: str) -> Tuple[int, str]:
    digits = "".join(ch for ch in name.split()[1] if ch.isdigit()) if " " in name else ""
    return (int(digits) if digits else 0, name)


def record_text(record: dict) -> str:
    return json.dumps(record, indent=1, ensure_ascii=False) + "\n"


def write(args: argparse.Namespace) -> int:
    header, rows = read_judged()
    with open(RECORD, "w", encoding="utf-8") as handle:
        handle.write(record_text(aggregate(header, rows)))
    print(f"field_record: wrote {os.path.relpath(RECORD, ROOT)} ({len(rows)} verdicts)", file=sys.stderr)
    return 0


def kept(args: argparse.Namespace) -> int:
    """Of the findings readers judged true in earlier rounds (the claim held; from round 11 on, also
    in code that runs), how many the current tool still shows in the default view: a grade of
    ``msacclint check .`` (error or warning) and a group of the default view, by the record now
    written. Prints the count and, per rule, the ones the default view no longer shows and why."""
    from msacclint.engine import registry
    from msacclint.rules.groups import DEFAULT_GROUPS

    _, rows = read_judged()
    for verdict, label in (("true", "judged true (a silent cost in code that runs, round 11 on)"),
                           ("claim_true", "judged right (the claim alone, rounds 1-10)")):
        shown = Counter()
        lost: Dict[str, Counter] = defaultdict(Counter)
        for row in rows:
            if row.get("verdict") != verdict or row.get("now") == "skipped":
                continue
            now = row.get("now")
            if now is None:
                reason = "no longer reported"
            elif now["grade"] not in ("error", "warning"):
                reason = f"{now['grade']} ({now.get('reach') or 'grade'})"
            else:
                group = registry.finding_group(row["code"], now["grade"], now.get("reach"))
                reason = "" if group in DEFAULT_GROUPS else f"group {group}"
            shown["read"] += 1
            if reason:
                lost[row["code"]][reason] += 1
            else:
                shown["shown"] += 1
        print(f"{label}: {shown['read']}; in the default view now: {shown['shown']}")
        for code in sorted(lost):
            print(f"  {code}: " + ", ".join(f"{n} {why}" for why, n in lost[code].most_common()))
    return 0


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run")
    r.add_argument("--mirror", default=os.environ.get("MIRROR"), required=os.environ.get("MIRROR") is None)
    r.add_argument("--work", required=True, help="a scratch folder for the judged trees")
    r.add_argument("--pypi", help="a folder holding wheels the verdicts name (mindone-0.5.0)")
    r.add_argument("--jobs", type=int, default=2)
    sub.add_parser("write")
    sub.add_parser("kept", help="earlier true verdicts the default view still shows")
    args = parser.parse_args(argv)
    return {"run": run, "write": write, "kept": kept}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
