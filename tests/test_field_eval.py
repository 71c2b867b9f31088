"""bench/field/eval.py on a tiny generated repository: sources, per-rule figures, crashes,
triage matching and the history check, run for real as the user runs it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import git as _git

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "bench" / "field" / "eval.py"

BUGGY = ("import mindspore.nn as nn\n\nclass Head(nn.Cell):\n    def __init__(self):\n        super().__init__()\n"
         "        self.drop = nn.Dropout(0.1)\n")
FIXED = BUGGY.replace("nn.Dropout(0.1)", "nn.Dropout(p=0.1)")
CLEAN = "import mindspore.nn as nn\n\npool = nn.MaxPool2d(kernel_size=2, stride=2)\n"
POOL = "import mindspore.nn as nn\n\npool = nn.MaxPool2d(2)\n"


@pytest.fixture
def repo(tmp_path):
    work = tmp_path / "work"
    (work / "models").mkdir(parents=True)
    _git(work, "init", "-q")
    (work / "models" / "head.py").write_text(BUGGY)
    (work / "models" / "clean.py").write_text(CLEAN)
    (work / "models" / "broken.py").write_text("import mindspore\ndef f(:\n")
    (work / "readme.txt").write_text("not python\n")
    _git(work, "add", ".")
    _git(work, "commit", "-q", "-m", "first")
    (work / "models" / "head.py").write_text(FIXED)
    (work / "models" / "pool.py").write_text(POOL)
    _git(work, "add", ".")
    _git(work, "commit", "-q", "-m", "use p= for the drop rate")
    return work


def _run(tmp_path, *args):
    out = tmp_path / "report.json"
    md = tmp_path / "report.md"
    done = subprocess.run([sys.executable, str(SCRIPT), *args, "--json", str(out), "--markdown", str(md),
                           "-j", "1"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(out.read_text()), md.read_text()


def test_git_source_at_a_commit_with_history_and_triage(repo, tmp_path):
    fix = _git(repo, "rev-parse", "HEAD")
    first = _git(repo, "rev-parse", "HEAD^")
    cases = tmp_path / "cases.toml"
    cases.write_text(f'[[case]]\nid = "t1"\nrepo = "me/tiny"\npath = "models/head.py"\n'
                     f'fix_commit = "{fix}"\ncode = "MSA101"\nwhat = "drop rate as keep_prob"\n'
                     f'[[case]]\nid = "t2"\nrepo = "me/tiny"\npath = "models/head.py"\n'
                     f'fix_commit = "{fix}"\ncode = "MSA999"\nwhat = "a rule nobody wrote"\n')
    triage = tmp_path / "triage.toml"
    triage.write_text(f'[[verdict]]\nat = "me/tiny@{first[:12]}:models/head.py:6"\ncode = "MSA101"\n'
                      f'verdict = "true"\nwhy = "0.1 is a drop rate"\n'
                      f'[[verdict]]\nat = "me/tiny@{first[:12]}:models/gone.py:1"\ncode = "MSA101"\n'
                      f'verdict = "false"\nwhy = "stale"\n'
                      f'[[verdict]]\nat = "me/tiny@{first[:12]}:models/old.py:3"\ncode = "MSA104"\n'
                      f'verdict = "false"\nwhy = "was wrong"\nfixed = "rule fixed"\n')
    # the bare git directory, read at the first commit: the working tree is never used
    report, md = _run(tmp_path, "--source", f"me/tiny={repo / '.git'}@{first}:models",
                      "--history", str(cases), "--triage", str(triage))
    source = report["sources"][0]
    assert (source["commit"], source["subdir"], source["files"]) == (first, "models", 3)
    all_rules = report["selections"]["all"]["per_rule"]
    assert all_rules["MSA101"]["count"] == 1
    assert all_rules["MSA101"]["per_1000_files"] == pytest.approx(1000 / 3, abs=0.01)
    assert all_rules["MSA104"]["count"] == 0  # pool.py only exists at the later commit
    assert report["selections"]["all"]["by_severity"]["error"] == 2  # MSA101 + MSA001
    assert "MSA103" not in report["selections"]["default"]["per_rule"]  # off by default
    assert report["default_selection_consistent"] is True
    assert [c["kind"] for c in report["crashes"]] == ["MSA001"]
    assert report["crashes"][0]["at"] == f"me/tiny@{first[:12]}:models/broken.py:2"
    assert report["samples"]["MSA101"][0]["at"] == f"me/tiny@{first[:12]}:models/head.py:6"

    figures = report["triage"]["figures"]["error"]
    assert (figures["findings"], figures["triaged"], figures["true"], figures["precision"]) == (1, 1, 1, 1.0)
    assert [s["at"] for s in report["triage"]["stale"]] == [f"me/tiny@{first[:12]}:models/gone.py:1"]
    assert [s["fixed"] for s in report["triage"]["silenced"]] == ["rule fixed"]

    cases_out = {c["id"]: c for c in report["history"]}
    assert cases_out["t1"]["status"] == "caught"
    assert (cases_out["t1"]["pre_lines"], cases_out["t1"]["post_lines"]) == ([6], [])
    assert cases_out["t2"]["status"] == "no rule"
    assert report["history_figures"] == {"cases": 2, "pre_fix_reported": 1, "fixed_reported": 0,
                                         "pre_fix_share": 0.5, "fixed_quiet": 2, "caught": 1,
                                         "by_code": {"MSA101": 1, "MSA999": 1}}
    assert "| MSA101 | dropout-wrong-probability | error | on | 1 |" in md
    assert f"me/tiny@{first[:12]}:models/head.py:6" in md


def test_checkout_folder_source(repo, tmp_path):
    head = _git(repo, "rev-parse", "HEAD")
    report, md = _run(tmp_path, "--source", f"me/tiny={repo}")
    source = report["sources"][0]
    assert source["commit"] == head  # taken from the checkout
    assert source["files"] == 4
    codes = sorted(f["code"] for f in report["findings"])
    assert codes == ["MSA001", "MSA104"]
    assert f"me/tiny@{head[:12]}:models/pool.py:3" in md


def test_bad_source_is_a_usage_error(tmp_path):
    done = subprocess.run([sys.executable, str(SCRIPT), "--source", f"x/y={tmp_path / 'nope'}"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "is not a folder" in done.stderr


def test_rescore_reuses_a_report_with_new_verdicts(repo, tmp_path):
    head = _git(repo, "rev-parse", "HEAD")
    first, _ = _run(tmp_path, "--source", f"me/tiny={repo / '.git'}")
    assert "triage" not in first
    triage = tmp_path / "later.toml"
    triage.write_text(f'[[verdict]]\nat = "me/tiny@{head[:12]}:models/pool.py:3"\ncode = "MSA104"\n'
                      f'verdict = "true"\nwhy = "stride 1 where 2 was meant"\n')
    again, md = _run(tmp_path, "--rescore", str(tmp_path / "report.json"), "--triage", str(triage))
    assert again["findings"] == first["findings"]  # nothing re-checked
    assert again["triage"]["figures"]["error"]["true"] == 1
    assert "stride 1 where 2 was meant" in md


# ---------------------------------------------------------------- project-scoped history cases (round 2)

MODEL = ("import mindspore.nn as nn\n\nclass Head(nn.Cell):\n    def __init__(self, rate):\n"
         "        super().__init__()\n        self.drop = nn.Dropout(rate)\n")
TRAIN = "from src.model import Head\n\nhead = Head(0.1)\nprint(head)\n"


@pytest.fixture
def project(tmp_path):
    """A repository holding a project folder (proj/) and a file outside it."""
    work = tmp_path / "project"
    (work / "proj" / "src").mkdir(parents=True)
    _git(work, "init", "-q")
    (work / "proj" / "src" / "model.py").write_text(MODEL.replace("nn.Dropout(rate)", "nn.Dropout(0.2)"))
    (work / "proj" / "src" / "__init__.py").write_text("")
    (work / "proj" / "train.py").write_text(TRAIN)
    (work / "proj" / "config.yaml").write_text("rate: 0.1\n")
    (work / "other.py").write_text(BUGGY)
    _git(work, "add", ".")
    _git(work, "commit", "-q", "-m", "first")
    (work / "proj" / "src" / "model.py").write_text(MODEL.replace("nn.Dropout(rate)", "nn.Dropout(p=0.2)"))
    _git(work, "add", ".")
    _git(work, "commit", "-q", "-m", "drop rate as p=")
    return work


def _cases(tmp_path, fix, *entries):
    path = tmp_path / "cases2.toml"
    text = ""
    for case_id, half, scope in entries:
        text += (f'[[case]]\nid = "{case_id}"\nrepo = "me/proj"\npath = "proj/src/model.py"\n'
                 f'fix_commit = "{fix}"\ncode = "MSA101"\nscope = "{scope}"\nhalf = "{half}"\n'
                 f'what = "rate as keep_prob"\n')
    text += (f'[[case]]\nid = "planned"\nrepo = "me/proj"\npath = "proj/src/model.py"\nfix_commit = "{fix}"\n'
             f'code = "NEW"\nplanned = "dist.02 gradients_mean"\nscope = "proj"\nhalf = "tuning"\nwhat = "x"\n')
    path.write_text(text)
    return path


def test_scoped_cases_run_msacclint_over_the_project_folder(project, tmp_path):
    fix = _git(project, "rev-parse", "HEAD")
    cases = _cases(tmp_path, fix, ("p1", "tuning", "proj"), ("p2", "held-out", "proj"), ("whole", "tuning", ""))
    report, md = _run(tmp_path, "--git", f"me/proj={project / '.git'}", "--history", str(cases), "--half", "all")
    rows = {r["id"]: r for r in report["history"]}
    assert (rows["p1"]["status"], rows["p1"]["pre_lines"], rows["p1"]["post_lines"]) == ("caught", [6], [])
    assert rows["whole"]["status"] == "caught"  # scope "" = the whole repository
    assert rows["planned"]["status"] == "no rule" and rows["planned"]["planned"] == "dist.02 gradients_mean"
    halves = report["history_figures"]["halves"]
    assert halves["tuning"]["cases"] == 3 and halves["tuning"]["pre_fix_reported"] == 2
    assert halves["held-out"] == {"cases": 1, "pre_fix_reported": 1, "fixed_reported": 0, "pre_fix_share": 1.0,
                                  "fixed_quiet": 1, "caught": 1, "by_code": {"MSA101": 1}}
    assert "proj/src/model.py (project: proj)" in md
    assert "| held-out | 1 | 1 | 100.0 % | 1 | 1 |" in md
    assert "needs dist.02 gradients_mean" in md


def test_project_copy_holds_the_scope_at_the_commit(project, tmp_path):
    sys.path.insert(0, str(SCRIPT.parent))
    try:
        import eval as field_eval  # bench/field/eval.py
    finally:
        sys.path.pop(0)
    first = _git(project, "rev-parse", "HEAD^")
    into = tmp_path / "copy"
    into.mkdir()
    assert field_eval.write_project(str(project / ".git"), first, "proj", str(into)) == 4
    assert sorted(p.relative_to(into).as_posix() for p in into.rglob("*") if p.is_file()) == \
        ["proj/config.yaml", "proj/src/__init__.py", "proj/src/model.py", "proj/train.py"]
    assert "nn.Dropout(0.2)" in (into / "proj" / "src" / "model.py").read_text()  # the pre-fix version
    found = field_eval.run_msacclint_on(str(into), "proj", None, 1)
    assert [(d["path"], d["line"], d["code"]) for d in found if d["code"] == "MSA101"] == \
        [("proj/src/model.py", 6, "MSA101")]


def test_half_selects_cases_and_frozen_records_the_commit(project, tmp_path):
    fix = _git(project, "rev-parse", "HEAD")
    cases = _cases(tmp_path, fix, ("p1", "tuning", "proj"), ("p2", "held-out", "proj"))
    report, md = _run(tmp_path, "--git", f"me/proj={project / '.git'}", "--history", str(cases),
                      "--half", "tuning", "--frozen")
    assert sorted(r["id"] for r in report["history"]) == ["p1", "planned"]
    assert set(report["history_figures"]["halves"]) == {"tuning"}
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True,
                          check=True).stdout.strip()
    assert report["frozen"]["commit"] == head and report["frozen"]["half"] == "tuning"
    assert f"Frozen run: msacclint commit {head}" in md
    only, _ = _run(tmp_path, "--git", f"me/proj={project / '.git'}", "--history", str(cases), "--case", "p2")
    assert [(r["id"], r["half"], r["status"]) for r in only["history"]] == [("p2", "held-out", "caught")]
    assert "frozen" not in only


def test_precision_per_rule_split_by_protocol_roles(repo, tmp_path):
    first = _git(repo, "rev-parse", "HEAD^")
    protocol = tmp_path / "protocol.toml"
    protocol.write_text('seed = 1\n[[repo]]\nname = "me/tiny"\nrole = "tuning"\n'
                        '[[repo]]\nname = "me/held"\nrole = "held-out"\n')
    triage = tmp_path / "triage.toml"
    triage.write_text(f'[[verdict]]\nat = "me/tiny@{first[:12]}:models/head.py:6"\ncode = "MSA101"\n'
                      f'verdict = "true"\nwhy = "rate"\n'
                      f'[[verdict]]\nat = "me/held@{first[:12]}:models/head.py:6"\ncode = "MSA101"\n'
                      f'verdict = "false"\nwhy = "keep"\n')
    report, md = _run(tmp_path, "--source", f"me/tiny={repo / '.git'}@{first}",
                      "--source", f"me/held={repo / '.git'}@{first}", "--triage", str(triage),
                      "--protocol", str(protocol))
    by_role = report["triage"]["by_role"]["MSA101"]
    assert by_role["tuning"] == {"true": 1, "false": 0, "unsure": 0, "precision": 1.0}
    assert by_role["held-out"] == {"true": 0, "false": 1, "unsure": 0, "precision": 0.0}
    assert "other" not in by_role
    assert "| MSA101 | tuning | 1 | 0 | 0 | 100.0 % |" in md


def test_history_cases_halves_follow_the_seeded_hash():
    """Every history case of rounds 2 and later is in the half its id hashes to (never chosen,
    never moved), names one problem (a rule code, a checklist item, or NEW with the planned
    rule) and a 40-digit fix commit; ids are unique across the rounds."""
    import hashlib

    import tomllib

    protocol = tomllib.loads((ROOT / "bench" / "field" / "protocol.toml").read_text())
    seed = protocol["seed"]
    # round 11: a case of the shared list takes its repository's role; one of an older
    # repository the half its id hashes to with the round's seed
    roles = {r["name"]: r["role"] for r in tomllib.loads((ROOT / protocol["round11"]["split"]).read_text())["repo"]}
    # round 12: likewise with its own split and seed, the held-out half the odd hashes
    roles12 = {r["name"]: r["role"] for r in tomllib.loads((ROOT / protocol["round12"]["split"]).read_text())["repo"]}
    cases = [(path.name, case) for path in sorted((ROOT / "bench" / "field").glob("history_cases_*.toml"))
             for case in tomllib.loads(path.read_text())["case"]]
    assert len(cases) >= 64 + 60
    ids = [case["id"] for _, case in cases]
    assert len(ids) == len(set(ids))
    for name, case in cases:
        if name == "history_cases_11.toml":
            if case["repo"] in roles:
                assert case["half"] == roles[case["repo"]], case["id"]
                continue
            digest = int(hashlib.sha256(f"{protocol['round11']['seed']}:{case['id']}".encode()).hexdigest(), 16)
        elif name == "history_cases_12.toml":
            if case["repo"] in roles12:
                assert case["half"] == roles12[case["repo"]], case["id"]
            else:
                digest = int(hashlib.sha256(f"{protocol['round12']['seed']}:{case['id']}".encode()).hexdigest(), 16)
                assert case["half"] == ("held-out" if digest % 2 == 1 else "tuning"), case["id"]
            assert case["family"] in ("ignored-setting", "param-groups", "eval-differs", "precision-init",
                                      "one-step", "classic", "other"), case["id"]
            assert len(case["fix_commit"]) == 40 and case["what"] and "scope" in case, case["id"]
            continue
        else:
            digest = int(hashlib.sha256(f"{seed}:{case['id']}".encode()).hexdigest(), 16)
        assert case["half"] == ("tuning" if digest % 2 == 0 else "held-out"), case["id"]
        assert len(case["fix_commit"]) == 40 and int(case["fix_commit"], 16) >= 0, case["id"]
        assert "scope" in case and case["what"], case["id"]
        if case.get("code") == "NEW":
            assert case.get("planned"), case["id"]
        else:
            assert case.get("code") or case.get("checklist"), case["id"]


def test_triage_sheet_takes_every_error_and_a_seeded_sample_of_warnings():
    import importlib.util
    import os

    path = os.path.join(os.path.dirname(__file__), "..", "bench", "field", "triage_sheet.py")
    spec = importlib.util.spec_from_file_location("triage_sheet", path)
    sheet = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sheet)
    findings = [{"at": f"r@c:f.py:{i}", "code": "MSA101", "severity": "error"} for i in range(5)]
    findings += [{"at": f"r@c:g.py:{i}", "code": "MSA301", "severity": "warning"} for i in range(100)]
    findings += [{"at": "r@c:h.py:1", "code": "MSA001", "severity": "error"}]
    first = sheet.pick(findings, 60, 20261123)
    assert [d for d in first if d["severity"] == "error"] == findings[:5]  # crash codes left out
    assert sum(d["severity"] == "warning" for d in first) == 60
    assert first == sheet.pick(list(reversed(findings)), 60, 20261123)  # same seed, same sheet
    assert first != sheet.pick(findings, 60, 1)


def _fresh_corpus():
    """bench/field/fresh_corpus.py as a module (bench/ is not a package)."""
    sys.path.insert(0, str(SCRIPT.parent))
    try:
        import fresh_corpus
    finally:
        sys.path.remove(str(SCRIPT.parent))
    return fresh_corpus


def test_fresh_corpus_lists_files_gone_by_the_field_commit_and_eval_keeps_only_them(tmp_path):
    """A file deleted before the field run's commit is fresh; a renamed one is not (its text
    was read under the new name); a listed run keeps the listed files' findings only, while
    the project layer still sees the whole old tree."""
    work = tmp_path / "repo"
    (work / "old").mkdir(parents=True)
    _git(work, "init", "-q")
    (work / "old" / "head.py").write_text(BUGGY)
    (work / "old" / "moved.py").write_text(BUGGY + "\n# a file long enough to be found again after a rename\n")
    (work / "kept.py").write_text(POOL)
    _git(work, "add", ".")
    _git(work, "commit", "-q", "-m", "old")
    old = _git(work, "rev-parse", "HEAD")
    _git(work, "rm", "-q", "old/head.py")
    _git(work, "mv", "old/moved.py", "renamed.py")
    _git(work, "commit", "-q", "-m", "new")
    new = _git(work, "rev-parse", "HEAD")
    fresh_corpus = _fresh_corpus()
    assert fresh_corpus.gone_files(str(work / ".git"), old, new) == ["old/head.py"]
    assert fresh_corpus.within("a/b/c.py", {"a/b"}) and not fresh_corpus.within("a/bc/d.py", {"a/b"})
    listing = tmp_path / "list.txt"
    listing.write_text("old/head.py\n")
    report, _ = _run(tmp_path, "--source", f"t/r={work / '.git'}@{old}", "--project", "--only-files", str(listing))
    assert report["sources"][0]["files"] == 1
    assert {(d["path"], d["code"]) for d in report["findings"]} == {("old/head.py", "MSA101")}


def test_fresh_corpus_leaves_out_moved_copies_of_an_earlier_round_s_files(tmp_path):
    """A file an earlier round listed, moved to another folder before a later old commit,
    is not fresh again; a different file is."""
    work = tmp_path / "repo"
    (work / "a").mkdir(parents=True)
    _git(work, "init", "-q")
    body = "".join(f"line_{i} = {i}\n" for i in range(40))
    (work / "a" / "model.py").write_text(body)
    _git(work, "add", ".")
    _git(work, "commit", "-q", "-m", "first")
    first = _git(work, "rev-parse", "HEAD")
    (work / "B").mkdir()
    _git(work, "mv", "a/model.py", "B/model.py")
    (work / "B" / "model.py").write_text(body + "extra = 1\n")
    (work / "B" / "other.py").write_text("".join(f"other_{i} = {i}\n" for i in range(40)))
    _git(work, "add", ".")
    _git(work, "commit", "-q", "-m", "moved")
    second = _git(work, "rev-parse", "HEAD")
    fresh_corpus = _fresh_corpus()
    kept = fresh_corpus.unlike_earlier(str(work / ".git"), second, ["B/model.py", "B/other.py"],
                                       [(first, "a/model.py")])
    assert kept == ["B/other.py"]


def test_a_deep_scope_is_checked_as_a_clone_with_the_project_layer(tmp_path):
    """A case whose project folder lies three levels down (official/cv/proj, the model zoos'
    layout) is checked with its cross-file facts: the copy is marked as a clone's root, as
    check_project_tree marks it (an unmarked folder is indexed only two levels deep)."""
    work = tmp_path / "zoo"
    src = work / "official" / "cv" / "proj" / "src"
    src.mkdir(parents=True)
    _git(work, "init", "-q")
    (src / "__init__.py").write_text("")
    (src / "config.py").write_text("RATE = 0.1\n")
    model = ("import mindspore.nn as nn\nfrom src import config\n\n\nclass Net(nn.Cell):\n"
             "    def __init__(self):\n        super().__init__()\n        self.drop = nn.Dropout(keep_prob=config.RATE)\n")
    (src / "model.py").write_text(model)
    (work / "official" / "cv" / "proj" / "train.py").write_text("from src.model import Net\n\nnet = Net()\n")
    _git(work, "add", ".")
    _git(work, "commit", "-q", "-m", "first")
    (src / "model.py").write_text(model.replace("keep_prob=config.RATE", "p=config.RATE"))
    _git(work, "add", ".")
    _git(work, "commit", "-q", "-m", "the rate as p=")
    fix = _git(work, "rev-parse", "HEAD")
    cases = tmp_path / "deep.toml"
    cases.write_text(f'[[case]]\nid = "deep"\nrepo = "me/zoo"\npath = "official/cv/proj/src/model.py"\n'
                     f'fix_commit = "{fix}"\ncode = "MSA101"\nscope = "official/cv/proj"\nhalf = "tuning"\n'
                     f'what = "a config rate as keep_prob"\n')
    report, _ = _run(tmp_path, "--git", f"me/zoo={work / '.git'}", "--history", str(cases))
    row = report["history"][0]
    assert (row["status"], row["pre_lines"], row["post_lines"]) == ("caught", [8], [])


def test_round12_sheet_reads_the_default_view_the_lowered_and_the_cannot_run(tmp_path, shipped_record):
    """bench/field/round12.py: every error of the default view, a seeded sample of its warnings, the
    findings of its rules lowered below their own grade, and every cannot-run one."""
    import importlib
    import json as json_
    import sys as sys_
    from collections import Counter

    sys_.path.insert(0, str(ROOT / "bench" / "field"))
    round12 = importlib.import_module("round12")
    from msacclint.engine import registry

    default_error = next(c for c in registry.all_codes() if registry.group_of(c) == "correctness")
    default_warning = next(c for c in registry.all_codes() if registry.group_of(c) == "suspicious")
    nursery = next(c for c in registry.all_codes() if registry.group_of(c) == "nursery")

    def finding(i, code, severity, group, reach="runs"):
        return {"at": f"r@c:f{i}.py:{i}", "code": code, "severity": severity, "group": group, "reach": reach,
                "path": f"f{i}.py", "message": "m"}

    findings = [finding(0, default_error, "error", "correctness"),
                *[finding(i, default_warning, "warning", "suspicious") for i in range(1, 80)],
                finding(90, default_error, "warning", "nursery", "dormant"),
                finding(91, default_error, "warning", "correctness", "cannot-run"),
                finding(92, nursery, "error", "nursery"),
                finding(93, "MSA001", "error", "tool")]
    report = tmp_path / "findings.json"
    report.write_text(json_.dumps({"findings": findings}))
    picked = round12.pick(findings, 60, 60, 20261201)
    kinds = Counter(d["_section"] for d in picked)
    blocked = [d for d in picked if d["reach"] == "cannot-run"]
    assert kinds["default"] == 61 and kinds["lowered"] == 1 and len(blocked) == 1  # read once, in one section
    assert picked == round12.pick(findings, 60, 60, 20261201)  # seeded
    assert all(d["code"] not in ("MSA001", nursery) for d in picked)
    # --outside: every error outside the default view and a seeded draw of its warnings, apart;
    # a finding of any rule graded cannot run is read in the cannot-run section
    wider = findings + [finding(94, nursery, "warning", "nursery"), finding(95, nursery, "warning", "nursery"),
                        finding(96, nursery, "warning", "nursery", "cannot-run")]
    more = round12.pick(wider, 60, 60, 20261201, outside=1)
    outside = [d for d in more if d["_section"] == "outside"]
    assert [d["code"] for d in outside if d["severity"] == "error"] == [nursery] and len(outside) == 2
    assert any(d["at"] == "r@c:f96.py:96" and d["_section"] == "cannot-run" for d in more)
    verdicts = tmp_path / "verdicts.toml"
    verdicts.write_text("".join(f'[[verdict]]\nat = "{d["at"]}"\ncode = "{d["code"]}"\nsection = "{d["_section"]}"\n'
                                f'verdict = "{"true" if i % 2 else "false"}"\n\n' for i, d in enumerate(picked)))
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "field" / "round12.py"), "score", str(report),
                           str(verdicts)], capture_output=True, text=True, check=True)
    assert "| default | 61 | 30 (49 %) |" in done.stdout, done.stdout
