"""bench/field/history_bar.py on a tiny git repository made here: each case's repository is
written at both commits, ``msacclint check <file> --select ALL --show-info`` runs once from the
case's folder (and once from the model folder alone, with no repository marker), and the
findings at the case's lines are scored twice from that run, in the default view (the groups
the field record puts there) and in every group, per half and per variant, regressions apart,
and by the group of the findings that caught each case."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import git as _git

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "bench" / "field" / "history_bar.py"

HEAD = ("import mindspore.nn as nn\nfrom src.nets.heads.config import rates\n\n\nclass Head(nn.Cell):\n"
        "    def __init__(self):\n        super().__init__()\n        self.drop = nn.Dropout(keep_prob=rates.DROP)\n")
POOL = "import mindspore.nn as nn\n\npool = nn.MaxPool2d(kernel_size=2, stride=2)\n"


@pytest.fixture
def zoo(tmp_path):
    """A model zoo: zoo/cv/proj is a model folder whose rate is set four folders down; a fix
    commit (keep_prob= -> p=) and then a commit that introduces a stride-1 pool."""
    work = tmp_path / "zoo"
    proj = work / "zoo" / "cv" / "proj"
    heads = proj / "src" / "nets" / "heads"
    (heads / "config").mkdir(parents=True)
    _git(work, "init", "-q")
    for folder in (proj / "src", proj / "src" / "nets", heads, heads / "config"):
        (folder / "__init__.py").write_text("")
    (heads / "config" / "rates.py").write_text("DROP = 0.1\n")
    (heads / "head.py").write_text(HEAD)
    (proj / "src" / "pool.py").write_text(POOL)
    (proj / "train.py").write_text("from src.nets.heads.head import Head\nfrom src.pool import pool\n\n"
                                   "head = Head()\n")
    (work / "setup.py").write_text("")
    _git(work, "add", ".")
    _git(work, "commit", "-q", "-m", "first")
    (heads / "head.py").write_text(HEAD.replace("keep_prob=rates.DROP", "p=rates.DROP"))
    _git(work, "commit", "-qam", "the rate as p=")
    (proj / "src" / "pool.py").write_text(POOL.replace("kernel_size=2, stride=2", "2"))
    _git(work, "commit", "-qam", "shorter pool")
    return work


def _cases(tmp_path, zoo):
    fix, regression = _git(zoo, "rev-parse", "HEAD^"), _git(zoo, "rev-parse", "HEAD")
    common = 'repo = "me/zoo"\nscope = "zoo/cv/proj"\nwhat = "x"\n'
    text = (f'[[case]]\nid = "fix"\nkind = "fix"\n{common}path = "zoo/cv/proj/src/nets/heads/head.py"\n'
            f'fix_commit = "{fix}"\ncode = "MSA101"\nlines_before = [8]\nlines_after = [8]\nhalf = "tuning"\n'
            f'[[case]]\nid = "regression"\nkind = "regression"\n{common}path = "zoo/cv/proj/src/pool.py"\n'
            f'fix_commit = "{regression}"\ncode = "MSA104"\nlines_before = [3]\nlines_after = [3]\n'
            f'half = "tuning"\n'
            f'[[case]]\nid = "planned"\nkind = "fix"\n{common}path = "zoo/cv/proj/src/nets/heads/head.py"\n'
            f'fix_commit = "{fix}"\ncode = "NEW"\nplanned = "api.01 (a dropout rate)"\nlines_before = [8]\n'
            f'lines_after = [8]\nhalf = "tuning"\n'
            f'[[case]]\nid = "unseen"\nkind = "fix"\n{common}path = "zoo/cv/proj/src/nets/heads/head.py"\n'
            f'fix_commit = "{fix}"\ncode = "MSA101"\nlines_before = [8]\nlines_after = [8]\nhalf = "held-out"\n')
    path = tmp_path / "cases.toml"
    path.write_text(text)
    return path


def _bar(tmp_path, *args, record=None):
    out = tmp_path / "bar.json"
    env = dict(os.environ, MSACCLINT_FIELD_RECORD=str(record)) if record else None
    done = subprocess.run([sys.executable, str(SCRIPT), *args, "--json", str(out), "--markdown",
                           str(tmp_path / "bar.md")], capture_output=True, text=True, timeout=600, env=env)
    return done, (json.loads(out.read_text()) if done.returncode == 0 else None)


def _record_without(tmp_path, code):
    """The test suite's field record with one rule's record taken out: that rule is in the
    nursery, so its findings are outside the default view."""
    record = json.loads(Path(os.environ["MSACCLINT_FIELD_RECORD"]).read_text())
    del record["rules"][code]
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    return path


def test_cases_are_checked_as_a_user_runs_msacclint(zoo, tmp_path):
    cases = _cases(tmp_path, zoo)
    # MSA104 has no field record here: its findings are in the nursery, outside the default view
    done, report = _bar(tmp_path, "--cases", str(cases), "--git", f"me/zoo={zoo / '.git'}", "--half", "tuning",
                        record=_record_without(tmp_path, "MSA104"))
    assert done.returncode == 0, done.stderr
    rows = {row["id"]: row for row in report["cases"]}
    assert set(rows) == {"fix", "regression", "planned"}  # the held-out case is not run
    fix = rows["fix"]["variants"]
    # from the model folder, the file named relative to it; the rate read four folders down
    for view in ("default view", "every group"):
        assert fix["repository"]["before"]["views"][view]["reported"] == [[8, "MSA101", "error", "correctness"]]
        assert fix["repository"]["after"]["views"][view]["reported"] == []
    assert fix["repository"]["status"] == {"default view": "caught", "every group": "caught"}
    # the model folder alone, with no marker above it: its whole tree is indexed (depth 4)
    assert fix["model folder"]["before"]["depth"] == 4
    assert fix["model folder"]["before"]["views"]["default view"]["reported"] == [[8, "MSA101", "error",
                                                                                 "correctness"]]
    assert fix["model folder"]["status"]["default view"] == "caught" and fix["model folder"]["before"]["notes"] == []
    # the nursery's rule is off by default, so this finding is there only because every rule
    # ran: found in every group, not in the default view, from the same run
    regression = rows["regression"]["variants"]["repository"]
    assert regression["status"] == {"default view": "missed", "every group": "found"}
    assert regression["after"]["views"]["every group"]["reported"] == [[3, "MSA104", "error", "nursery"]]
    assert regression["after"]["views"]["default view"]["reported"] == []
    assert regression["before"]["views"]["every group"]["reported"] == []
    planned = rows["planned"]["variants"]["repository"]
    # NEW: a miss by code; by item, an api.01 error at its line counts
    assert planned["status"]["every group"] == "no rule"
    assert planned["before"]["views"]["default view"]["item"] == [[8, "MSA101", "error", "correctness"]]
    default = report["figures"]["tuning"]["repository"]["default view"]
    every = report["figures"]["tuning"]["repository"]["every group"]
    assert (default["fixes"], default["pre_fix_reported"], default["pre_fix_reported_by_item"],
            default["fixed_quiet"]) == (2, 1, 2, 2)
    assert (default["regressions"], default["regressions_found"], default["parents_quiet"]) == (1, 0, 1)
    assert (every["regressions"], every["regressions_found"], every["parents_quiet"]) == (1, 1, 1)
    assert default["by_group"] == {"correctness": {"pre_fix_reported": 1, "regressions_found": 0}}
    assert every["by_group"] == {"correctness": {"pre_fix_reported": 1, "regressions_found": 0},
                                 "nursery": {"pre_fix_reported": 0, "regressions_found": 1}}
    assert report["msacclint"]["commit"] == _git(ROOT, "rev-parse", "HEAD")
    assert report["frozen"] is False
    text = (tmp_path / "bar.md").read_text()
    assert "| tuning | repository | default view | 2 | 1 (50.0 %) | 2 | 2 (100.0 %) | 1 | 0 | 0 | 1 | 0 |" in text
    assert "| tuning | repository | every group | 2 | 1 (50.0 %) | 2 | 2 (100.0 %) | 1 | 1 | 1 | 1 | 0 |" in text
    assert "| tuning | repository | every group | nursery | 0 | 1 |" in text
    assert "| regression | regression | MSA104 | tuning | missed / found |" in text


def test_held_out_cases_need_a_frozen_run(zoo, tmp_path):
    cases = _cases(tmp_path, zoo)
    done, _ = _bar(tmp_path, "--cases", str(cases), "--git", f"me/zoo={zoo / '.git'}", "--half", "held-out")
    assert done.returncode == 2 and "--frozen" in done.stderr
    done, _ = _bar(tmp_path, "--cases", str(cases), "--git", f"me/zoo={zoo / '.git'}", "--half", "all")
    assert done.returncode == 2


def test_a_mirror_folder_names_the_git_directories(zoo, tmp_path):
    """``--mirror`` (or $MIRROR) holds ``<owner>+<name>/repo``; a case whose mirror is absent
    is an error row, not a crash."""
    mirror = tmp_path / "mirror"
    (mirror / "me+zoo").mkdir(parents=True)
    (mirror / "me+zoo" / "repo").symlink_to(zoo / ".git")
    cases = _cases(tmp_path, zoo)
    first = cases.read_text().split("[[case]]")[1]
    cases.write_text(cases.read_text() + "[[case]]" + first.replace('id = "fix"', 'id = "elsewhere"')
                     .replace("me/zoo", "me/absent"))
    done, report = _bar(tmp_path, "--cases", str(cases), "--mirror", str(mirror), "--case", "fix",
                        "--case", "elsewhere")
    assert done.returncode == 0, done.stderr
    rows = {row["id"]: row for row in report["cases"]}
    assert rows["fix"]["variants"]["repository"]["status"]["default view"] == "caught"
    assert rows["elsewhere"]["variants"]["repository"]["status"] == {"default view": "error", "every group": "error"}
    assert report["figures"]["tuning"]["repository"]["default view"]["errors"] == 1


def test_extend_select_adds_groups_or_codes_to_the_default_view(zoo, tmp_path):
    cases = _cases(tmp_path, zoo)
    record = _record_without(tmp_path, "MSA104")
    for selector in ("nursery", "MSA104,MSA1"):
        done, report = _bar(tmp_path, "--cases", str(cases), "--git", f"me/zoo={zoo / '.git'}", "--case", "regression",
                            "--extend-select", selector, record=record)
        assert done.returncode == 0, done.stderr
        assert report["extend_select"] == selector.split(",")
        regression = report["cases"][0]["variants"]["repository"]
        # the nursery's finding is now in the default view too, as `check --extend-select` shows it
        assert regression["status"] == {"default view": "found", "every group": "found"}
        assert regression["after"]["views"]["default view"]["reported"] == [[3, "MSA104", "error", "nursery"]]
        assert f"and {', '.join(selector.split(','))}) at warning" in (tmp_path / "bar.md").read_text()
