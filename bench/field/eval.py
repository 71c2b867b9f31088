"""Field evaluation: msacclint over real repositories, per rule, with triage and history.

    python bench/field/eval.py \
        --source mindspore-lab/mindcv=$MIRROR/mindspore-lab+mindcv/repo \
        --source mindspore-ai/models=$MIRROR/mindspore-ai+models/repo@HEAD:official \
        --history bench/field/history_cases.toml --triage bench/field/triage.toml \
        --json field.json --markdown field.md

Every .py file of every source is checked twice through the engine API
(``check_source``): with every rule selected (``ALL``) and with the default selection.
Written per rule: findings per 1,000 files, counts by severity, crashes (MSA001, MSA002
and any exception escaping the engine), a sample of findings located as
``repo@commit:path:line``; with --triage, the verdicts recorded for findings and the
precision per severity; with --history, whether each historical fix's pre-fix version
is reported and its fixed version is not. No repository content is stored: the JSON
holds locations and messages only.

History cases with a ``scope`` (bench/field/history_cases_2.toml) are checked project-wide:
the scope folder of the repository is written at the pre-fix and at the fixed commit to a
temporary directory and ``msacclint check`` runs over that folder as a user runs it (the
normal batch path, so whole-project analysis sees every file of the project). ``--half``
restricts the cases to the tuning or the held-out half; figures are given per half.
With ``--protocol`` the triage precision is also split per rule into the tuning and the
held-out repositories of bench/field/protocol.toml. ``--frozen`` records the msacclint
commit a frozen (held-out) run used and refuses to run from a work tree with changes.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
import traceback
from collections import Counter, defaultdict
from multiprocessing import Pool
from typing import Dict, List, Optional, Sequence, Tuple

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from sources import Source, SourceError, blobs, file_at, git, git_dir_of, parse_spec, python_files, read_files  # noqa: E402

from msacclint import __version__  # noqa: E402
from msacclint.data import tomllib  # noqa: E402
from msacclint.engine import registry  # noqa: E402
from msacclint.engine.runner import check_source  # noqa: E402
from msacclint.settings import Settings  # noqa: E402

CRASH_CODES = ("MSA001", "MSA002")
SELECTIONS = ("all", "default")


def selection_settings(version: Optional[str]) -> Dict[str, Settings]:
    return {
        "all": Settings(enabled=frozenset(registry.all_codes()), mindspore_version=version),
        "default": Settings(enabled=frozenset(registry.default_codes()), mindspore_version=version),
    }


# ---------------------------------------------------------------- checking files

_SETTINGS: Dict[str, Settings] = {}


_EVERY = [1]


def _init_worker(version: Optional[str], default_every: int = 1) -> None:
    _SETTINGS.update(selection_settings(version))
    _EVERY[0] = max(default_every, 1)


def _check_one(item: Tuple[int, str, bytes]) -> dict:
    index, path, data = item
    out = {"path": path, "mindspore": b"mindspore" in data, "seconds": 0.0, "exception": None,
           "default_checked": index % _EVERY[0] == 0}
    started = time.perf_counter()
    for name, settings in _SETTINGS.items():
        if name == "default" and not out["default_checked"]:
            default_codes = settings.enabled  # derived from the ALL run, checked on every Nth file
            out[name] = [d for d in out["all"] if d["code"] in default_codes]
            continue
        try:
            out[name] = [d.to_json() for d in check_source(data, path, settings)]
        except Exception as exc:  # the engine must never raise; record it as a crash
            out[name] = []
            out["exception"] = f"{type(exc).__name__}: {exc} | {traceback.format_exc(limit=-2).strip()}"
    out["seconds"] = time.perf_counter() - started
    return out


def check_source_files(source: Source, version: Optional[str], jobs: int, default_every: int = 1) -> dict:
    """Every .py file of a source, checked under both selections."""
    paths = python_files(source)
    items, unreadable = [], []
    for path, data, problem in read_files(source, paths):
        if data is None:
            unreadable.append({"path": path, "problem": problem})
        else:
            items.append((len(items), path, data))
    started = time.perf_counter()
    if jobs > 1 and len(items) > 32:
        with Pool(jobs, initializer=_init_worker, initargs=(version, default_every)) as pool:
            results = pool.map(_check_one, items, chunksize=8)
    else:
        _init_worker(version, default_every)
        results = [_check_one(item) for item in items]
    return {"source": source, "results": results, "unreadable": unreadable,
            "seconds": time.perf_counter() - started}


def check_project_tree(source: Source, version: Optional[str], jobs: int) -> dict:
    """The source checked as a user checks a clone: its files written to a folder marked as
    a repository, and ``msacclint check`` run on it with every rule and the project layer
    (each file sees the rest of the repository). The same result shape as
    ``check_source_files``; the default selection is the ALL run restricted to default codes."""
    from msacclint.engine.discovery import discover

    default_codes = registry.default_codes()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="msacclint-field-") as tmp:
        if source.is_git:
            write_project(source.path, source.commit, source.subdir, tmp)
            folder = tmp
            os.makedirs(os.path.join(tmp, ".git"), exist_ok=True)  # a clone's root marker
        else:
            folder = source.path
        target = source.subdir.strip("/") or "."
        if not os.path.isdir(os.path.join(folder, target)):
            return {"source": source, "results": [], "unreadable": [], "seconds": 0.0}
        found = run_msacclint_on(folder, target, version, jobs)
        here = os.getcwd()
        try:
            os.chdir(folder)
            checked = discover([target])
        finally:
            os.chdir(here)
        by_path: Dict[str, List[dict]] = defaultdict(list)
        for diag in found:
            by_path[os.path.normpath(diag["path"])].append(diag)
        results = []
        for path in checked:
            key = os.path.normpath(path)
            try:
                with open(os.path.join(folder, path), "rb") as handle:
                    mentions = b"mindspore" in handle.read()
            except OSError:
                mentions = False
            diags = by_path.pop(key, [])
            results.append({"path": key, "mindspore": mentions, "seconds": 0.0, "exception": None,
                            "default_checked": True, "all": diags,
                            "default": [d for d in diags if d["code"] in default_codes]})
        for key, diags in sorted(by_path.items()):  # a finding in a file discover did not list
            results.append({"path": key, "mindspore": True, "seconds": 0.0, "exception": None,
                            "default_checked": True, "all": diags,
                            "default": [d for d in diags if d["code"] in default_codes]})
    return {"source": source, "results": results, "unreadable": [], "seconds": time.perf_counter() - started}


def only_listed(results: List[dict], listing: str) -> List[dict]:
    """The results of the files named in ``listing`` (paths relative to the repository; a
    source's SUBDIR is part of them)."""
    with open(listing, encoding="utf-8") as handle:
        wanted = {os.path.normpath(line.strip()) for line in handle if line.strip()}
    return [r for r in results if os.path.normpath(r["path"]) in wanted]


# ---------------------------------------------------------------- aggregation

def aggregate(runs: List[dict], sample_size: int, seed: int) -> dict:
    rules = {r.code: {"name": r.name, "severity": r.severity.value, "default": r.enabled_by_default()}
             for r in registry.all_rules()}
    files = sum(len(run["results"]) for run in runs)
    ms_files = sum(sum(1 for r in run["results"] if r["mindspore"]) for run in runs)
    findings: Dict[str, List[dict]] = {s: [] for s in SELECTIONS}
    crashes, inconsistent = [], []
    sources = []
    default_codes = registry.default_codes()
    for run in runs:
        src: Source = run["source"]
        sources.append({"repo": src.repo, "commit": src.commit, "subdir": src.subdir,
                        "files": len(run["results"]) + len(run["unreadable"]),
                        "files_read": len(run["results"]),
                        "mindspore_files": sum(1 for r in run["results"] if r["mindspore"]),
                        "unreadable": run["unreadable"], "seconds": round(run["seconds"], 2),
                        "slowest": sorted(((round(r["seconds"], 3), r["path"]) for r in run["results"]),
                                          reverse=True)[:3]})
        for result in run["results"]:
            if result["exception"]:
                crashes.append({"kind": "exception", "at": src.location(result["path"], 1),
                                "message": result["exception"]})
            for selection in SELECTIONS:
                for diag in result[selection]:
                    diag = dict(diag, repo=src.repo, commit=src.commit,
                                at=src.location(diag["path"], diag["line"]))
                    findings[selection].append(diag)
                    if selection == "all" and diag["code"] in CRASH_CODES:
                        crashes.append({"kind": diag["code"], "at": diag["at"], "message": diag["message"]})
            expected = sorted(_key(d) for d in result["all"] if d["code"] in default_codes)
            if expected != sorted(_key(d) for d in result["default"]):
                inconsistent.append(src.location(result["path"], 1))
    summary = {}
    for selection in SELECTIONS:
        per_rule = {}
        by_code = defaultdict(list)
        for diag in findings[selection]:
            by_code[diag["code"]].append(diag)
        for code, meta in rules.items():
            if selection == "default" and not meta["default"]:
                continue
            found = by_code.get(code, [])
            per_rule[code] = {
                "count": len(found),
                "per_1000_files": round(1000 * len(found) / files, 2) if files else 0.0,
                "per_1000_mindspore_files": round(1000 * len(found) / ms_files, 2) if ms_files else 0.0,
                "by_repo": dict(Counter(d["repo"] for d in found)),
            }
        summary[selection] = {"per_rule": per_rule,
                              "by_severity": dict(Counter(d["severity"] for d in findings[selection])),
                              "total": len(findings[selection])}
    rng = random.Random(seed)
    samples = {}
    for code in rules:
        found = [d for d in findings["all"] if d["code"] == code]
        if found:
            picked = found if len(found) <= sample_size else rng.sample(found, sample_size)
            samples[code] = [{"at": d["at"], "message": d["message"]} for d in sorted(picked, key=lambda d: d["at"])]
    return {"msacclint_version": __version__, "rules": rules, "files": files,
            "mindspore_files": ms_files, "sources": sources, "selections": summary,
            "default_selection_consistent": not inconsistent, "inconsistent_files": inconsistent[:20],
            "default_run_files": sum(sum(1 for r in run["results"] if r["default_checked"]) for run in runs),
            "crashes": crashes, "samples": samples, "findings": findings["all"]}


def _key(diag: dict) -> Tuple:
    return (diag["code"], diag["line"], diag["column"], diag["message"])


# ---------------------------------------------------------------- triage verdicts

VERDICTS = ("true", "false", "unsure")


def load_toml(path: str) -> dict:
    with open(path, "rb") as handle:
        return tomllib.load(handle)


def score_triage(report: dict, triage_path: str) -> dict:
    """Match recorded verdicts to the findings of this run; precision per severity."""
    verdicts = load_toml(triage_path).get("verdict", [])
    by_key = {(d["at"], d["code"]): d for d in report["findings"]}
    matched, stale, silenced, problems = [], [], [], []
    for entry in verdicts:
        if entry.get("verdict") not in VERDICTS:
            problems.append(f"{entry.get('at')}: verdict must be one of {VERDICTS}")
            continue
        diag = by_key.get((entry["at"], entry["code"]))
        if diag is None:
            (silenced if entry.get("fixed") else stale).append(entry)
            continue
        matched.append(dict(entry, severity=diag["severity"], message=diag["message"]))
    figures = {}
    for severity in ("error", "warning", "info"):
        rows = [m for m in matched if m["severity"] == severity]
        total = sum(1 for d in report["findings"] if d["severity"] == severity and d["code"] not in CRASH_CODES)
        count = Counter(m["verdict"] for m in rows)
        decided = count["true"] + count["false"]
        figures[severity] = {
            "findings": total, "triaged": len(rows), "true": count["true"], "false": count["false"],
            "unsure": count["unsure"],
            "precision": round(count["true"] / decided, 3) if decided else None,
            "true_share_of_triaged": round(count["true"] / len(rows), 3) if rows else None,
        }
    triaged_keys = {(m["at"], m["code"]) for m in matched}
    untriaged_errors = [d["at"] + " " + d["code"] for d in report["findings"]
                        if d["severity"] == "error" and d["code"] not in CRASH_CODES
                        and (d["at"], d["code"]) not in triaged_keys]
    return {"verdicts": matched, "stale": stale, "silenced": silenced, "problems": problems, "figures": figures,
            "untriaged_errors": untriaged_errors}


# ---------------------------------------------------------------- history cases

HALVES = ("tuning", "held-out")


def check_history(cases_path: str, git_dirs: Dict[str, str], version: Optional[str], half: str = "all",
                  jobs: int = 1, only: Sequence[str] = ()) -> List[dict]:
    """For each recorded fix: is the pre-fix version reported, and the fixed one silent?

    A case names the problem by ``code`` (one rule) or by ``checklist`` (any rule of that
    checklist item, for problems whose rule code was not settled when the case was found).
    A case with ``scope`` is checked over its whole project folder (see ``project_hits``);
    one without is checked as a single file. ``half`` keeps only the cases of one half. A fix
    that renamed the file or its folder gives the pre-fix names as ``path_before`` and
    ``scope_before``."""
    settings = selection_settings(version)["all"]
    known_codes = set(registry.all_codes())
    known_items = {r.checklist for r in registry.all_rules()}
    out = []
    for case in load_toml(cases_path).get("case", []):
        if half != "all" and case.get("half") != half:
            continue
        if only and case.get("id") not in only:
            continue
        row = {k: case.get(k) for k in ("id", "repo", "path", "fix_commit", "what", "rule_needed", "planned",
                                        "scope", "half")}
        row["code"] = case.get("code") or case.get("checklist")
        git_dir = git_dirs.get(case["repo"])
        before_rev = case.get("before", case["fix_commit"] + "^")
        path_before = case.get("path_before", case["path"])
        if git_dir is None:
            out.append(dict(row, status="skipped", note="repository not among the sources"))
            continue
        before = file_at(git_dir, before_rev, path_before)
        after = file_at(git_dir, case["fix_commit"], case["path"])
        if before is None or after is None:
            out.append(dict(row, status="skipped", note="file missing at one of the commits"))
            continue
        wanted = _matcher(case)
        if case.get("scope") is not None:
            pre = project_hits(git_dir, before_rev, case.get("scope_before", case["scope"]), path_before, wanted,
                               case.get("lines_before"), version, jobs)
            post = project_hits(git_dir, case["fix_commit"], case["scope"], case["path"], wanted,
                                case.get("lines_after"), version, jobs)
        else:
            pre = _hits(before, path_before, settings, wanted, case.get("lines_before"))
            post = _hits(after, case["path"], settings, wanted, case.get("lines_after"))
        if ("code" in case and case["code"] not in known_codes) or \
                ("code" not in case and case.get("checklist") not in known_items):
            status = "no rule"
        elif pre and not post:
            status = "caught"
        elif not pre:
            status = "missed"
        else:
            status = "fixed version reported"
        reported_by = sorted({code for _, code in pre})
        out.append(dict(row, before=before_rev, status=status, reported_by=reported_by,
                        pre_lines=sorted({line for line, _ in pre}), post_lines=sorted({line for line, _ in post})))
    return out


class _Wanted:
    """A case's code (or checklist item) as a predicate on Diagnostic objects and JSON dicts."""

    def __init__(self, case: dict):
        self.code = case.get("code")
        self.checklist = None if "code" in case else case.get("checklist")

    def __call__(self, diag) -> bool:
        get = diag.get if isinstance(diag, dict) else lambda k: getattr(diag, k)
        if self.code is not None:
            return get("code") == self.code
        return get("checklist") == self.checklist


def _matcher(case: dict) -> _Wanted:
    return _Wanted(case)


def _hits(data: bytes, path: str, settings: Settings, wanted, lines: Optional[Sequence[int]]) -> List[Tuple[int, str]]:
    found = [(d.line, d.code) for d in check_source(data, path, settings) if wanted(d)]
    return sorted((line, code) for line, code in found if not lines or line in lines)


#: files larger than this are not written into a project copy (weights, archives)
PROJECT_FILE_LIMIT = 2_000_000


def write_project(git_dir: str, rev: str, scope: str, into: str) -> int:
    """Write the files of ``scope`` (a folder of the repository, "" = all of it) at ``rev``
    under ``into``, keeping repository-relative paths. Returns the number of files."""
    args = ["ls-tree", "-r", "-z", "-l", "--full-tree", rev]
    if scope:
        args += ["--", scope.strip("/")]
    entries = []
    for entry in git(git_dir, *args).decode("utf-8", errors="surrogateescape").split("\0"):
        if not entry:
            continue
        meta, _, name = entry.partition("\t")
        mode, kind, _sha, size = meta.split()
        if kind == "blob" and mode != "120000" and size.isdigit() and int(size) <= PROJECT_FILE_LIMIT:
            entries.append(name)
    written = 0
    for name, data in blobs(git_dir, [f"{rev}:{n}" for n in entries]):
        if data is None:
            continue
        target = os.path.join(into, name.split(":", 1)[1])
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as handle:
            handle.write(data)
        written += 1
    return written


def run_msacclint_on(folder: str, target: str, version: Optional[str], jobs: int) -> List[dict]:
    """``msacclint check TARGET --select ALL --format json`` run in FOLDER, as a user runs it."""
    command = [sys.executable, "-m", "msacclint", "check", target, "--select", "ALL", "--format", "json",
               "--no-cache", "--exit-zero", "--jobs", str(max(jobs, 1))]
    if version:
        command += ["--mindspore-version", version]
    done = subprocess.run(command, cwd=folder, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"msacclint check failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
    return json.loads(done.stdout or "[]")


def project_hits(git_dir: str, rev: str, scope: str, path: str, wanted, lines: Optional[Sequence[int]],
                 version: Optional[str], jobs: int) -> List[Tuple[int, str]]:
    """Findings of the case's code in ``path`` when msacclint checks the whole scope folder."""
    with tempfile.TemporaryDirectory(prefix="msacclint-history-") as tmp:
        write_project(git_dir, rev, scope, tmp)
        # a clone's root marker, as check_project_tree writes: without it the folder is an
        # unmarked one, which the project layer indexes only two levels deep, and a scope such
        # as official/cv/OCRNet would be checked with no project facts at all
        os.makedirs(os.path.join(tmp, ".git"), exist_ok=True)
        target = scope.strip("/") or "."
        if not os.path.isdir(os.path.join(tmp, target)):
            return []
        found = run_msacclint_on(tmp, target, version, jobs)
    wanted_path = os.path.normpath(path)
    return sorted((d["line"], d["code"]) for d in found
                  if os.path.normpath(d["path"]) == wanted_path and wanted(d) and (not lines or d["line"] in lines))


def history_figures(rows: List[dict]) -> dict:
    """Overall figures, and the same per half when the cases carry one."""
    figures = _figures(rows)
    halves = {}
    for half in HALVES:
        part = [r for r in rows if r.get("half") == half]
        if part:
            halves[half] = _figures(part)
    if halves:
        figures["halves"] = halves
    return figures


def _figures(rows: List[dict]) -> dict:
    scored = [r for r in rows if r["status"] in ("caught", "missed", "fixed version reported", "no rule")]
    reported = sum(1 for r in scored if r.get("pre_lines"))
    fixed_reported = sum(1 for r in scored if r.get("post_lines"))
    caught = sum(1 for r in scored if r["status"] == "caught")
    return {"cases": len(scored), "pre_fix_reported": reported, "fixed_reported": fixed_reported,
            "pre_fix_share": round(reported / len(scored), 3) if scored else None,
            "fixed_quiet": len(scored) - fixed_reported, "caught": caught,
            "by_code": dict(sorted(Counter(r["code"] for r in scored).items()))}


# ---------------------------------------------------------------- protocol: roles and frozen runs

def load_roles(protocol_path: str) -> Dict[str, str]:
    """Repository -> role ("tuning" / "held-out") from bench/field/protocol.toml."""
    return {r["name"]: r["role"] for r in load_toml(protocol_path).get("repo", [])}


def precision_by_role(triage: dict, roles: Dict[str, str]) -> dict:
    """Triage precision per rule, split into the tuning and the held-out repositories
    (repositories the protocol does not list are counted as "other")."""
    table: Dict[str, Dict[str, Counter]] = defaultdict(lambda: defaultdict(Counter))
    for verdict in triage.get("verdicts", []):
        repo = verdict["at"].split("@", 1)[0]
        role = roles.get(repo, "other")
        table[verdict["code"]][role][verdict["verdict"]] += 1
    out = {}
    for code in sorted(table):
        out[code] = {}
        for role, count in sorted(table[code].items()):
            decided = count["true"] + count["false"]
            out[code][role] = {"true": count["true"], "false": count["false"], "unsure": count["unsure"],
                               "precision": round(count["true"] / decided, 3) if decided else None}
    return out


def msacclint_commit() -> dict:
    """The msacclint commit this run uses, and whether its work tree has changes."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

    def run(*args: str) -> str:
        done = subprocess.run(["git", "-C", root, *args], capture_output=True, text=True, check=False)
        return done.stdout.strip() if done.returncode == 0 else ""

    commit = run("rev-parse", "HEAD")
    status = run("status", "--porcelain", "--untracked-files=no", "--", "msacclint")
    return {"commit": commit or "unknown", "dirty": bool(status), "version": __version__}


# ---------------------------------------------------------------- main

def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", action="append", default=[], metavar="OWNER/NAME=PATH[@REV][:SUBDIR]",
                        help="a repository to evaluate (repeatable)")
    parser.add_argument("--git", action="append", default=[], metavar="OWNER/NAME=GITDIR",
                        help="a git directory for history cases of a repository not given as --source")
    parser.add_argument("--history", metavar="TOML", help="historical fixes to check (bench/field/history_cases.toml)")
    parser.add_argument("--triage", metavar="TOML", help="recorded verdicts (bench/field/triage.toml)")
    parser.add_argument("--rescore", metavar="JSON",
                        help="do not check anything: read a previous --json report and redo the triage "
                             "(and history) scoring and the Markdown, e.g. after adding verdicts")
    parser.add_argument("--json", metavar="FILE", help="write the full report as JSON here")
    parser.add_argument("--markdown", metavar="FILE", help="write the Markdown section here (default: stdout)")
    parser.add_argument("--sample", type=int, default=12, help="findings sampled per rule (default 12)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--jobs", "-j", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--default-every", type=int, default=1, metavar="N",
                        help="run the default selection separately on every Nth file only (default 1: all); "
                             "on the others it is taken from the ALL run, restricted to default codes")
    parser.add_argument("--mindspore-version", default=None,
                        help="the MindSpore version rules assume (default: unknown, every rule keeps its word)")
    parser.add_argument("--half", choices=("tuning", "held-out", "all"), default="all",
                        help="history cases of one half only (default: all); never run held-out cases "
                             "before the rules are frozen")
    parser.add_argument("--case", action="append", default=[], metavar="ID",
                        help="history cases with this id only (repeatable; still restricted by --half)")
    parser.add_argument("--protocol", metavar="TOML",
                        help="bench/field/protocol.toml: split the triage precision per rule into "
                             "tuning and held-out repositories")
    parser.add_argument("--frozen", action="store_true",
                        help="a frozen (held-out) run: record the msacclint commit used; refuse to run "
                             "when msacclint/ has uncommitted changes")
    parser.add_argument("--project", action="store_true",
                        help="check each source as a user checks a clone (msacclint check on the written tree, "
                             "project layer included) instead of file by file")
    parser.add_argument("--only-files", action="append", default=[], metavar="LIST",
                        help="with --project: keep the findings of the files named in LIST (one "
                             "repository-relative path a line; bench/field/fresh_corpus.py), one LIST per "
                             "--source in order; the project layer still reads the whole tree")
    args = parser.parse_args(argv)
    if args.only_files and (not args.project or len(args.only_files) != len(args.source)):
        parser.error("--only-files needs --project and one LIST per --source")
    if not args.source and not args.history and not args.rescore:
        parser.error("give at least one --source")
    try:
        sources = [parse_spec(spec) for spec in args.source]
    except SourceError as exc:
        print(f"field_eval: {exc}", file=sys.stderr)
        return 2
    frozen = msacclint_commit() if args.frozen else None
    if frozen is not None and frozen["dirty"]:
        print("field_eval: --frozen: msacclint/ has uncommitted changes; commit them first", file=sys.stderr)
        return 2
    if args.rescore:
        with open(args.rescore, encoding="utf-8") as handle:
            report = json.load(handle)
    else:
        if args.project:
            runs = [check_project_tree(src, args.mindspore_version, args.jobs) for src in sources]
            for run, listing in zip(runs, args.only_files):
                run["results"] = only_listed(run["results"], listing)
        else:
            runs = [check_source_files(src, args.mindspore_version, args.jobs, args.default_every)
                    for src in sources]
        report = aggregate(runs, args.sample, args.seed)
        report["mindspore_version"] = args.mindspore_version
    report["project_layer"] = bool(args.project)
    if frozen is not None:
        report["frozen"] = dict(frozen, half=args.half, history=args.history)
    if args.triage:
        report["triage"] = score_triage(report, args.triage)
        if args.protocol:
            report["triage"]["by_role"] = precision_by_role(report["triage"], load_roles(args.protocol))
    if args.history:
        git_dirs = {s.repo: git_dir_of(s.path) for s in sources if git_dir_of(s.path)}
        git_dirs.update(dict(spec.split("=", 1) for spec in args.git))
        report["history"] = check_history(args.history, git_dirs, args.mindspore_version, args.half, args.jobs,
                                          args.case)
        report["history_half"] = args.half
        report["history_figures"] = history_figures(report["history"])
    from report import markdown

    write_report(report, markdown(report), args.json, args.markdown)
    return 0


def write_report(report: dict, text: str, json_path: Optional[str], markdown_path: Optional[str]) -> None:
    """The report as JSON (when asked) and its Markdown to a file or to standard output."""
    if json_path:
        with open(json_path, "w", encoding="utf-8") as handle:
            json.dump(report, handle, indent=1, sort_keys=True)
    if markdown_path:
        with open(markdown_path, "w", encoding="utf-8") as handle:
            handle.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    sys.exit(main())
