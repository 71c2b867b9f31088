"""The history bar: each history case checked out as its users have it, msacclint run from its folder.

    MIRROR=<folder of mirrors> python bench/field/history_bar.py \
        --cases bench/field/history_cases_11.toml --half tuning --json bar.json --markdown bar.md

A mirror is ``$MIRROR/<owner>+<name>/repo`` (a bare git directory; ``--git OWNER/NAME=GITDIR``
names one elsewhere). For every case of the case files (``kind`` "fix" or "regression") and
both of its commits (the parent of ``fix_commit``, or the case's ``before``, and
``fix_commit``), the bar

1. writes the repository's tree at that commit to a temporary folder (every file git holds
   there up to 2 MB; a blob missing from a partial mirror is left out) with a ``.git`` folder
   at its top, as a clone has ("repository");
2. runs ``python -m msacclint check <the changed file> --format json --no-cache --exit-zero``
   FROM the case's ``scope`` folder, the file named relative to it, as a user runs it, the
   project found from the file, with every rule selected (``--select ALL --show-info``): one
   run per case version, scored twice below;
3. runs the same with the scope folder alone ("model folder"), moved to a temporary folder
   with no repository marker above it (for an empty scope, the repository without the
   markers at its top: ``.git``, ``pyproject.toml``, ``setup.py``, ``setup.cfg``); the depth
   of the folder's own tree is recorded;
4. scores the findings of the case's rule at the case's lines (a finding whose span covers
   one of them) twice, from the same run: in the **default view** (a finding whose JSON
   ``group`` is one the default view shows, correctness, suspicious or tool, at warning or
   error: what ``msacclint check`` shows with no selection, since a finding's group follows
   the field record) and in **every group** (any group, at warning or error). An info finding
   is recorded but counts in neither.

A fix is caught when its pre-fix version is reported at ``lines_before`` and its fixed version
is quiet at ``lines_after``; a regression is found when the commit that introduced it is
reported at ``lines_after`` (and its parent should be quiet at ``lines_before``). A case whose
``code`` is NEW had no rule when it was mined: by code it is a miss. The "by item" figures
count a case as reported when a warning or error of its checklist item is at its lines: the
item of its rule, or the one its ``planned`` text starts with (another rule of the same item
reporting the problem: a ``shuffle=False`` dataset coded as the generator rule). Figures are
given per half, per variant and per view, fixes and regressions apart, and by group: the group
of the findings that caught a fix or found a regression (a case caught by findings of two
groups counts under both).

``--extend-select nursery`` (groups or codes, comma-separated, repeatable) widens the default view
as ``msacclint check --extend-select`` does: its findings of those groups or codes count there
too, and the selection is handed on to every check the bar runs.

Held-out cases are never run before the rules are frozen: ``--half held-out`` (or ``all``)
needs ``--frozen``, which records the msacclint commit the bar runs and refuses to run when
``msacclint/`` has uncommitted changes. The msacclint run is the one next to this script (its
folder is put first on ``PYTHONPATH``), whatever is installed.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from typing import Dict, List, Optional, Sequence, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, ROOT)  # the msacclint next to this script, whatever is installed

from eval import write_report  # noqa: E402
from sources import SourceError, git  # noqa: E402

from msacclint.data import tomllib  # noqa: E402
from msacclint.engine import registry  # noqa: E402

HALVES = ("tuning", "held-out")
VARIANTS = ("repository", "model folder")
#: what marks a repository's top (msacclint.project.listing.ROOT_MARKERS)
MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", ".git")
#: files larger than this are not written into a checkout (weights, archives)
FILE_LIMIT = 2_000_000
#: seconds one msacclint run may take
RUN_TIMEOUT = 1800
REPORTED = ("error", "warning")
#: the groups ``msacclint check`` shows with no selection (docs/groups.md)
DEFAULT_GROUPS = ("correctness", "suspicious", "tool")
#: the two readings of one run: which findings count as reported
VIEWS = ("default view", "every group")
_ITEM = re.compile(r"^\s*([a-z]+\.\d\d)\b")


# ---------------------------------------------------------------- cases

def load_cases(paths: Sequence[str], half: str, only: Sequence[str] = ()) -> List[dict]:
    out = []
    for path in paths:
        with open(path, "rb") as handle:
            for case in tomllib.load(handle).get("case", []):
                if half != "all" and case.get("half") != half:
                    continue
                if only and case.get("id") not in only:
                    continue
                out.append(dict(case, source=os.path.basename(path)))
    return out


def _item_of(code: str) -> Optional[str]:
    """The checklist item of a rule code (the "by item" figures count any rule of it)."""
    rule = next((r for r in registry.all_rules() if r.code == code), None)
    return rule.checklist if rule is not None else None


def planned_item(case: dict) -> Optional[str]:
    """The checklist item a NEW case's ``planned`` text starts with (``"api.01 (dropout...)"``)."""
    found = _ITEM.match(case.get("planned") or "")
    return found.group(1) if found else None


# ---------------------------------------------------------------- a checkout

def checkout(git_dir: str, rev: str, into: str) -> int:
    """Write the repository's tree at ``rev`` under ``into`` (files up to FILE_LIMIT, symlinks
    and blobs missing from the mirror left out). Returns the number of files written."""
    entries = []
    listing = git(git_dir, "ls-tree", "-r", "-z", "-l", "--full-tree", rev)
    for entry in listing.decode("utf-8", errors="surrogateescape").split("\0"):
        if not entry:
            continue
        meta, _, name = entry.partition("\t")
        mode, kind, sha, size = meta.split()
        if kind == "blob" and mode != "120000" and size.isdigit() and int(size) <= FILE_LIMIT:
            entries.append((sha, name))
    written = 0
    # one cat-file process, read as a stream: a model zoo's tree does not sit in memory at once
    with subprocess.Popen(["git", f"--git-dir={git_dir}", "cat-file", "--batch"], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        for sha, name in entries:
            proc.stdin.write(sha.encode() + b"\n")
            proc.stdin.flush()
            header = proc.stdout.readline().split()
            if len(header) != 3 or header[1] != b"blob":
                continue  # "<sha> missing": absent in a partial mirror
            data = proc.stdout.read(int(header[2]))
            proc.stdout.read(1)
            target = os.path.join(into, name)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "wb") as handle:
                handle.write(data)
            written += 1
        proc.stdin.close()
    return written


def marker_above(folder: str) -> Optional[str]:
    """A repository marker in ``folder``'s ancestors (the model-folder variant must have none)."""
    current = os.path.dirname(os.path.abspath(folder))
    while True:
        for marker in MARKERS:
            if os.path.exists(os.path.join(current, marker)):
                return os.path.join(current, marker)
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def tree_depth(folder: str) -> int:
    """How many folders deep the deepest Python file of ``folder`` lies (0: at its top)."""
    deepest = 0
    for current, dirs, files in os.walk(folder):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        if any(f.endswith(".py") for f in files):
            rel = os.path.relpath(current, folder)
            deepest = max(deepest, 0 if rel == "." else rel.count(os.sep) + 1)
    return deepest


def run_msacclint(folder: str, target: str, version: Optional[str],
                  extend: Sequence[str] = ()) -> Tuple[List[dict], float]:
    """``msacclint check TARGET --format json --select ALL --show-info`` run in FOLDER as a user
    runs it (every rule, every grade: the views are read from the findings' groups); the
    msacclint next to this script, not an installed one. ``extend``: the bar's
    ``--extend-select``, handed on as the check's own."""
    command = [sys.executable, "-m", "msacclint", "check", target, "--format", "json", "--no-cache", "--exit-zero",
               "--jobs", "1", "--select", "ALL", "--show-info"]
    for selector in extend:
        command += ["--extend-select", selector]
    if version:
        command += ["--mindspore-version", version]
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    start = time.monotonic()
    done = subprocess.run(command, cwd=folder, capture_output=True, text=True, check=False, env=env,
                          timeout=RUN_TIMEOUT)
    if done.returncode != 0:
        raise RuntimeError(f"msacclint check failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
    return json.loads(done.stdout or "[]"), time.monotonic() - start


def counts(finding: dict, view: str, extend: Sequence[str] = ()) -> bool:
    """Whether a finding counts as reported in a view: warning or error, and for the default
    view a group the default view shows, or one the bar's ``--extend-select`` adds (a group
    name, or a code or code prefix: ``nursery``, ``MSA206``, ``MSA2``)."""
    if finding["severity"] not in REPORTED:
        return False
    return view != "default view" or finding.get("group") in DEFAULT_GROUPS or extended(finding, extend)


def extended(finding: dict, extend: Sequence[str]) -> bool:
    """The finding is one of the groups or codes ``--extend-select`` names."""
    code = finding.get("code") or ""
    for selector in extend:
        if selector == "ALL" or selector == finding.get("group"):
            return True
        if selector[:3] == "MSA" and code.startswith(selector):
            return True
    return False


def selectors(values: Sequence[str]) -> Tuple[str, ...]:
    """``--extend-select`` values, each a comma-separated list."""
    return tuple(part.strip() for value in values for part in value.split(",") if part.strip())


# ---------------------------------------------------------------- one side of a case

def _side(findings: List[dict], path: str, lines: Optional[Sequence[int]], case: dict,
          extend: Sequence[str] = ()) -> dict:
    """What msacclint said at the case's lines of ``path``, per view: the case's rule
    (``reported``), another rule of its checklist item (``item``) and any other finding that
    counts (``other``); the case's rule at info in ``info``. A hit is [line, code, severity,
    group]."""
    wanted_path = os.path.normpath(path)
    code = case.get("code")
    item = case.get("checklist") if not code else (planned_item(case) if code == "NEW" else _item_of(code))
    at_lines = []
    for d in findings:
        # a finding counts at a case's line when its span covers it (a call reported at its
        # first line, ``shuffle=False`` two lines down)
        span = range(d["line"], max(d["line"], d.get("end_line") or d["line"]) + 1)
        if os.path.normpath(d["path"]) == wanted_path and (not lines or any(n in span for n in lines)):
            at_lines.append(d)

    def hit(d: dict) -> list:
        return [d["line"], d["code"], d["severity"], d.get("group") or "-"]

    def own(d: dict) -> bool:
        return (d["code"] == code) if code and code != "NEW" else (not code and d.get("checklist") == item)

    views = {}
    for view in VIEWS:
        shown = [d for d in at_lines if counts(d, view, extend)]
        views[view] = {"reported": sorted(hit(d) for d in shown if own(d)),
                       "item": sorted(hit(d) for d in shown if not own(d) and item is not None
                                      and d.get("checklist") == item),
                       "other": sorted(hit(d) for d in shown if not own(d))}
    notes = sorted({d["message"] for d in findings if d["code"] == "MSA001"})
    info = sorted(hit(d) for d in at_lines if own(d) and d["severity"] not in REPORTED)
    return {"views": views, "info": info, "notes": notes}


def check_case(case: dict, git_dir: str, version: Optional[str], extend: Sequence[str] = ()) -> dict:
    """Both commits of one case, in both variants."""
    row = {k: case.get(k) for k in ("id", "kind", "repo", "path", "fix_commit", "code", "planned", "scope",
                                     "half", "cross_file", "source", "what")}
    row["kind"] = case.get("kind", "fix")
    before_rev = case.get("before", case["fix_commit"] + "^")
    sides = {"before": (before_rev, case.get("path_before", case["path"]), case.get("scope_before", case["scope"]),
                        case.get("lines_before")),
             "after": (case["fix_commit"], case["path"], case["scope"], case.get("lines_after"))}
    row["variants"] = {variant: {} for variant in VARIANTS}
    for side, (rev, path, scope, lines) in sides.items():
        scope = (scope or "").strip("/")
        with tempfile.TemporaryDirectory(prefix="msacclint-bar-") as tmp:
            repo_dir = os.path.join(tmp, "repository", case["repo"].split("/")[-1])
            os.makedirs(repo_dir)
            try:
                count = checkout(git_dir, rev, repo_dir)
            except SourceError as exc:
                for variant in VARIANTS:
                    row["variants"][variant][side] = {"rev": rev, "error": str(exc)}
                continue
            os.makedirs(os.path.join(repo_dir, ".git"), exist_ok=True)
            target = os.path.relpath(path, scope) if scope else path
            here = os.path.join(repo_dir, scope) if scope else repo_dir
            row["variants"]["repository"][side] = _run_side(here, target, path, scope, lines, case, rev, version,
                                                            extend, files=count, under=os.path.join(tmp, "repository"))
            # the model folder alone: moved out of the repository, no marker above it
            model_parent = os.path.join(tmp, "model", "a", "b")
            os.makedirs(model_parent)
            leaf = os.path.basename(here)
            model_dir = os.path.join(model_parent, leaf)
            shutil.move(here, model_dir)
            if not scope:
                for marker in MARKERS:
                    found = os.path.join(model_dir, marker)
                    if os.path.isdir(found):
                        shutil.rmtree(found)
                    elif os.path.exists(found):
                        os.remove(found)
            above = marker_above(model_dir)
            if above is not None:
                row["variants"]["model folder"][side] = {"rev": rev, "error": f"a repository marker above it: {above}"}
                continue
            row["variants"]["model folder"][side] = _run_side(model_dir, target, target, "", lines, case, rev,
                                                              version, extend, depth=tree_depth(model_dir),
                                                              under=model_parent)
    for variant in VARIANTS:
        sides = row["variants"][variant]
        sides["status"] = {view: _status(row["kind"], sides, case, view) for view in VIEWS}
    return row


def _run_side(folder: str, target: str, path: str, scope: str, lines, case: dict, rev: str,
              version: Optional[str], extend: Sequence[str] = (), under: str = "", **extra) -> dict:
    """``under``: the temporary folder the checkout lies in; a message naming a file outside
    the folder checked names it from there (by the repository's name), never by a path of
    this machine."""
    if not os.path.isfile(os.path.join(folder, target)):
        return dict(extra, rev=rev, error=f"{target} is not in the checkout")
    try:
        findings, seconds = run_msacclint(folder, target, version, extend)
    except (RuntimeError, subprocess.TimeoutExpired, ValueError) as exc:
        return dict(extra, rev=rev, error=_without(str(exc)[-2000:], under))
    shown = os.path.relpath(path, scope) if scope else path
    side = _side(findings, shown, lines, case, extend)
    side["notes"] = sorted({_without(note, under) for note in side["notes"]})
    return dict(side, rev=rev, seconds=round(seconds, 1), **extra)


def _without(text: str, under: str) -> str:
    """``text`` with the machine's temporary folder ``under`` left out of the paths it names."""
    return text.replace(under.rstrip(os.sep) + os.sep, "") if under else text


def _status(kind: str, sides: dict, case: dict, view: str) -> str:
    before, after = sides.get("before", {}), sides.get("after", {})
    if "error" in before or "error" in after:
        return "error"
    said_before, said_after = before["views"][view]["reported"], after["views"][view]["reported"]
    if kind == "regression":
        if said_after:
            return "found" if not said_before else "found, parent reported"
        return "no rule" if case.get("code") == "NEW" else "missed"
    if said_before:
        return "caught" if not said_after else "fixed version reported"
    return "no rule" if case.get("code") == "NEW" else "missed"


# ---------------------------------------------------------------- figures

def figures(rows: List[dict]) -> dict:
    """Per half (and all), per variant, per view: fixes and regressions counted apart."""
    out: Dict[str, dict] = {}
    for half in ("all",) + HALVES:
        part = [r for r in rows if half == "all" or r.get("half") == half]
        if not part:
            continue
        out[half] = {variant: {view: _figures(part, variant, view) for view in VIEWS} for variant in VARIANTS}
    return out


def _figures(rows: List[dict], variant: str, view: str) -> dict:
    def status(r):
        return r["variants"][variant]["status"][view]

    fixes = [r for r in rows if r["kind"] != "regression" and status(r) != "error"]
    regressions = [r for r in rows if r["kind"] == "regression" and status(r) != "error"]

    def side(r, name):
        return r["variants"][variant][name]["views"][view]

    pre = [r for r in fixes if side(r, "before")["reported"]]
    pre_item = sum(1 for r in fixes if side(r, "before")["reported"] or side(r, "before")["item"])
    quiet = sum(1 for r in fixes if not side(r, "after")["reported"])
    found = [r for r in regressions if side(r, "after")["reported"]]
    found_item = sum(1 for r in regressions if side(r, "after")["reported"] or side(r, "after")["item"])
    parent_quiet = sum(1 for r in regressions if not side(r, "before")["reported"])
    errors = sum(1 for r in rows if status(r) == "error")
    by_group: Dict[str, Dict[str, int]] = {}
    for key, caught, name in (("pre_fix_reported", pre, "before"), ("regressions_found", found, "after")):
        for r in caught:
            for group in sorted({h[3] for h in side(r, name)["reported"]}):
                counter = by_group.setdefault(group, {"pre_fix_reported": 0, "regressions_found": 0})
                counter[key] += 1
    return {
        "fixes": len(fixes), "pre_fix_reported": len(pre), "pre_fix_share": _share(len(pre), len(fixes)),
        "pre_fix_reported_by_item": pre_item, "fixed_quiet": quiet, "fixed_quiet_share": _share(quiet, len(fixes)),
        "regressions": len(regressions), "regressions_found": len(found), "regressions_found_by_item": found_item,
        "parents_quiet": parent_quiet, "errors": errors, "by_group": dict(sorted(by_group.items())),
        "statuses": dict(sorted(Counter(status(r) for r in rows).items())),
    }


def _share(part: int, whole: int) -> Optional[float]:
    return round(part / whole, 3) if whole else None


# ---------------------------------------------------------------- the report

def _pct(value) -> str:
    return "n/a" if value is None else f"{100 * value:.1f} %"


def markdown(report: dict) -> str:
    run = report["msacclint"]
    lines = [f"## History bar (msacclint commit {run['commit'][:12]}{' (frozen)' if report['frozen'] else ''}, "
             f"half: {report['half']})", "",
             "One run per case version with every rule selected; \"default view\": findings of the groups "
             f"shown by default ({', '.join(DEFAULT_GROUPS)}"
             f"{' and ' + ', '.join(report['extend_select']) if report.get('extend_select') else ''}) at warning "
             "or error; \"every group\": any group at warning or error.", ""]
    lines += ["| half | variant | view | fixes | pre-fix reported | by item | fixed quiet | regressions | found "
              "| by item | parents quiet | errors |", "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for half, by_variant in report["figures"].items():
        for variant, by_view in by_variant.items():
            for view, f in by_view.items():
                lines.append(f"| {half} | {variant} | {view} | {f['fixes']} | {f['pre_fix_reported']} "
                             f"({_pct(f['pre_fix_share'])}) | {f['pre_fix_reported_by_item']} | {f['fixed_quiet']} "
                             f"({_pct(f['fixed_quiet_share'])}) | {f['regressions']} | {f['regressions_found']} | "
                             f"{f['regressions_found_by_item']} | {f['parents_quiet']} | {f['errors']} |")
    lines += ["", "By group (the group of the findings that caught a fix or found a regression):", "",
              "| half | variant | view | group | pre-fix reported | regressions found |", "|---|---|---|---|---:|---:|"]
    for half, by_variant in report["figures"].items():
        for variant, by_view in by_variant.items():
            for view, f in by_view.items():
                for group, g in f["by_group"].items():
                    lines.append(f"| {half} | {variant} | {view} | {group} | {g['pre_fix_reported']} | "
                                 f"{g['regressions_found']} |")
    lines += ["", "| case | kind | code | half | repository (default / every group) | model folder (default / "
              "every group) | pre-fix / introducing lines |", "|---|---|---|---|---|---|---|"]
    for row in report["cases"]:
        shown = "reported" if row["kind"] != "regression" else "after"
        side = "before" if row["kind"] != "regression" else "after"
        where = row["variants"]["repository"].get(side, {})
        every = where.get("views", {}).get("every group", {})
        said = every.get("reported") or where.get("info") or every.get("other") or []
        statuses = [row["variants"][v]["status"] for v in VARIANTS]
        lines.append(f"| {row['id']} | {row['kind']} | {row['code']} | {row['half']} | "
                     + " | ".join(f"{s['default view']} / {s['every group']}" for s in statuses)
                     + f" | {shown}: {', '.join(f'{n}:{c}:{s}:{g}' for n, c, s, g in said) or '-'} |")
    return "\n".join(lines) + "\n"


def msacclint_commit() -> dict:
    """The msacclint commit next to this script, and whether ``msacclint/`` has changes."""
    def run(*args: str) -> str:
        done = subprocess.run(["git", "-C", ROOT, *args], capture_output=True, text=True, check=False)
        return done.stdout.strip() if done.returncode == 0 else ""

    commit = run("rev-parse", "HEAD")
    status = run("status", "--porcelain", "--untracked-files=no", "--", "msacclint")
    return {"commit": commit or "unknown", "dirty": bool(status)}


def git_dir_for(repo: str, mirror: Optional[str], named: Dict[str, str]) -> Optional[str]:
    if repo in named:
        return named[repo]
    if mirror:
        candidate = os.path.join(mirror, repo.replace("/", "+"), "repo")
        if os.path.isdir(candidate):
            return candidate
    return None


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", action="append", required=True, metavar="TOML",
                        help="history cases (repeatable): bench/field/history_cases*.toml")
    parser.add_argument("--mirror", default=os.environ.get("MIRROR"),
                        help="the folder of mirrors, <owner>+<name>/repo each (default: $MIRROR)")
    parser.add_argument("--git", action="append", default=[], metavar="OWNER/NAME=GITDIR",
                        help="the git directory of one repository (repeatable; before --mirror)")
    parser.add_argument("--half", choices=("tuning", "held-out", "all"), default="tuning",
                        help="the cases of one half (default: tuning); held-out and all need --frozen")
    parser.add_argument("--case", action="append", default=[], metavar="ID", help="this case only (repeatable)")
    parser.add_argument("--frozen", action="store_true",
                        help="record the msacclint commit; refuse to run when msacclint/ has uncommitted changes")
    parser.add_argument("--mindspore-version", default=None)
    parser.add_argument("--extend-select", action="append", default=[], metavar="GROUPS_OR_CODES",
                        help="groups or codes (comma-separated, repeatable) the default view shows besides its own "
                             "groups, handed on to every check the bar runs: nursery, review, MSA206, MSA2")
    parser.add_argument("--jobs", "-j", type=int, default=1, help="cases checked at a time (default 1)")
    parser.add_argument("--json", metavar="FILE", help="write the report as JSON here")
    parser.add_argument("--markdown", metavar="FILE", help="write the Markdown here (default: stdout)")
    args = parser.parse_args(argv)
    run = msacclint_commit()
    if args.half != "tuning" and not args.frozen:
        print("history_bar: held-out cases are run once, frozen: give --frozen", file=sys.stderr)
        return 2
    if args.frozen and run["dirty"]:
        print("history_bar: --frozen: msacclint/ has uncommitted changes; commit them first", file=sys.stderr)
        return 2
    named = dict(spec.split("=", 1) for spec in args.git)
    cases = load_cases(args.cases, args.half, args.case)
    extend = selectors(args.extend_select)

    def one(case: dict) -> dict:
        git_dir = git_dir_for(case["repo"], args.mirror, named)
        if git_dir is None:
            skipped = {"status": {view: "error" for view in VIEWS}, "before": {"error": "no mirror"},
                       "after": {"error": "no mirror"}}
            return {"id": case["id"], "kind": case.get("kind", "fix"), "half": case.get("half"),
                    "code": case.get("code"), "repo": case["repo"], "path": case["path"],
                    "variants": {v: dict(skipped) for v in VARIANTS}}
        started = time.monotonic()
        row = check_case(case, git_dir, args.mindspore_version, extend)
        said = " / ".join(f"{variant}: " + ", ".join(row["variants"][variant]["status"][view] for view in VIEWS)
                          for variant in VARIANTS)
        print(f"history_bar: {case['id']}: {said} ({time.monotonic() - started:.0f} s)", file=sys.stderr)
        return row

    with ThreadPoolExecutor(max_workers=max(args.jobs, 1)) as pool:
        rows = list(pool.map(one, cases))
    report = {"msacclint": run, "frozen": bool(args.frozen), "half": args.half, "cases_files": args.cases,
              "mindspore_version": args.mindspore_version, "extend_select": list(extend), "cases": rows, "figures": figures(rows)}
    text = markdown(report)
    write_report(report, text, args.json, args.markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
