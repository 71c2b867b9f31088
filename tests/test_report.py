"""``msacclint report``: the filled-in checklist, through the real command line; the HTML
page rendered by headless Chromium as a person would open it."""

import json
import os
import re
import shutil
import subprocess
import sys

import pytest
from conftest import ROOT
from helpers import graded_script, result_entries

from msacclint import __version__, coverage
from msacclint.data import checklist
from msacclint.engine.runner import analyse_source
from msacclint.report import (
    BY_HAND,
    CONCLUSIONS,
    NO_PROBLEM,
    NOT_APPLICABLE,
    PARTLY_CHECKED,
    PROBLEM,
    conclude,
    snapshot_version,
)
from msacclint.settings import Settings

ITEM_IDS = [item["id"] for item in checklist()["item"]]


def _row(markdown, item_id):
    (row,) = [line for line in markdown.splitlines() if line.startswith(f"| {item_id} ")]
    return row


@pytest.fixture(scope="module")
def example_markdown():
    result = subprocess.run([sys.executable, "-m", "msacclint", "report", "examples/train.py", "--no-cache"], cwd=ROOT,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_markdown_report_on_examples_reads_as_a_filled_checklist(example_markdown):
    md = example_markdown
    assert md.startswith("# MindSpore accuracy checklist")
    assert f"- msacclint: {__version__}" in md
    assert "- MindSpore: " in md and "- Files read: 1" in md and "`examples/train.py`" in md
    for item_id in ITEM_IDS:  # every item, once, with a conclusion
        row = _row(md, item_id)
        # a conclusion, and after "Problem found" its findings counted by grade
        assert any(f"| {c} |" in row or f"| **{c}** |" in row or re.search(rf"\| \*\*{c}\*\* \(\d+ \w+.*?\) \|", row)
                   for c in CONCLUSIONS), row
    api = _row(md, "api.01")
    assert "| **Problem found** (3 errors) |" in api
    assert "`examples/train.py:15` error MSA104" in api and "`examples/train.py:20` error MSA101" in api
    assert "MSA108" not in api  # a Conv2d without has_bias: the port group, not the default view
    assert "| **Problem found** (1 warning) |" in _row(md, "dp.03")
    assert "**Check by hand**" in _row(md, "ds.04") and "checksums" in _row(md, "ds.04")
    assert "**Check by hand**" in _row(md, "hp.03")  # no rule decides it
    # partly decidable: the rule that ran is named, and what is left is still asked for
    # (never "No problem" alone: the coverage verdict says what the rules do not check)
    hp02 = _row(md, "hp.02")
    assert f"**{PARTLY_CHECKED}**" in hp02 and "No problem" not in hp02
    assert "MSA137, MSA138 ran and found nothing; not checked: the epoch count against the reference" in hp02
    assert "Check by hand: Compare the number of epochs" in hp02
    for item in coverage.coverage():  # every partly decidable item of this run, likewise
        if item.decidable == "partial":
            assert "| No problem |" not in _row(md, item.id), item.id
    assert "| N/A |" in _row(md, "mp.01") and "mixed precision" in _row(md, "mp.01")
    assert "| N/A |" in _row(md, "dist.01")
    assert "| No problem |" in _row(md, "tool.01") and "MSA001" in _row(md, "tool.01")


def test_json_report(tmp_path, msacclint):
    (tmp_path / "train.py").write_text("import mindspore.nn as nn\npool = nn.MaxPool2d(2)\n")
    out = tmp_path / "report.json"
    result = msacclint("report", ".", "--format", "json", "-o", out, "--no-cache")
    assert result.returncode == 0, result.stderr
    assert "report written to" in result.stderr
    data = json.loads(out.read_text())
    assert data["msacclint_version"] == __version__ and data["files"] == ["train.py"]
    assert [i["id"] for i in data["items"]] == ITEM_IDS
    assert sum(data["summary"].values()) == len(ITEM_IDS)
    api = next(i for i in data["items"] if i["id"] == "api.01")
    assert api["conclusion"] == PROBLEM and api["findings"][0]["code"] == "MSA104"


GRADED = graded_script(head=False)


def test_each_item_counts_its_findings_by_grade(tmp_path, msacclint):
    """build_loader is never called: its MSA301 is dormant, a note, which the default grades
    leave out of the report (counted, not listed) and --show-info puts in."""
    (tmp_path / "setup.py").write_text("")
    (tmp_path / "train.py").write_text(GRADED)
    md = msacclint("report", ".", "--no-cache").stdout
    assert "- Findings: 1 error, 1 warning (1 note not shown)" in md
    dp03 = _row(md, "dp.03")
    assert "| **Problem found** (1 warning) |" in dp03 and "`train.py:11` warning MSA301" in dp03
    assert "train.py:6" not in dp03
    assert "| **Problem found** (1 error) |" in _row(md, "api.01")
    with_notes = msacclint("report", ".", "--show-info", "--no-cache").stdout
    assert "- Findings: 1 error, 1 warning, 1 note" in with_notes
    dp03 = _row(with_notes, "dp.03")
    assert "| **Problem found** (1 warning, 1 note) |" in dp03 and "`train.py:6` info MSA301" in dp03

    data = json.loads(msacclint("report", ".", "--format", "json", "--no-cache").stdout)
    assert data["grades"] == {"error": 1, "warning": 1, "info": 0}
    assert data["not_shown"] == {"error": 0, "warning": 0, "info": 1}
    dp03 = next(i for i in data["items"] if i["id"] == "dp.03")
    assert dp03["grades"] == {"error": 0, "warning": 1, "info": 0}
    assert dp03["not_shown"] == {"error": 0, "warning": 0, "info": 1}
    assert [(f["line"], f["severity"], f["reach"]) for f in dp03["findings"]] == [(11, "warning", "runs")]
    # the configured grades apply too
    (tmp_path / "pyproject.toml").write_text('[tool.msacclint]\nshow = ["error"]\n')
    only_errors = json.loads(msacclint("report", ".", "--format", "json", "--no-cache").stdout)
    assert only_errors["grades"] == {"error": 1, "warning": 0, "info": 0}
    assert only_errors["not_shown"] == {"error": 0, "warning": 1, "info": 1}
    dp03 = next(i for i in only_errors["items"] if i["id"] == "dp.03")
    assert dp03["findings"] == [] and "1 warning, 1 note not shown" in dp03["detail"]


def test_switched_off_rules_leave_the_item_to_a_person(tmp_path, msacclint):
    (tmp_path / "train.py").write_text("import mindspore.nn as nn\nbn = nn.BatchNorm2d(64)\n")
    md = msacclint("report", ".", "--ignore", "MSA119,MSA001", "--no-cache").stdout
    assert "**Check by hand**" in _row(md, "tool.01") and "switched off" in _row(md, "tool.01")


def test_a_file_that_does_not_parse_is_a_problem_of_tool01(tmp_path, msacclint):
    (tmp_path / "broken.py").write_text("import mindspore\nx = (\n")
    md = msacclint("report", ".", "--no-cache").stdout
    assert "**Problem found**" in _row(md, "tool.01") and "`broken.py:" in _row(md, "tool.01")


def uses_of(code):
    """What the engine's traversal collects for the report (no rule needs to run)."""
    uses = analyse_source(code, "train.py", Settings(collect_uses=True)).uses
    assert uses is not None
    return uses


@pytest.mark.parametrize("code,item,applies", [
    ("import mindspore.nn as nn\nx = nn.Dense(2, 2)\n", "mp.01", False),
    ("from mindspore import amp\nnet = amp.auto_mixed_precision(net, 'O2')\n", "mp.01", True),
    ("import mindspore as ms\nmodel = ms.Model(net, loss, opt, amp_level='O2')\n", "mp.02", True),
    ("import mindspore as ms\nx = ms.Tensor(1, ms.float16)\n", "mp.01", True),
    ("from mindspore import amp\nnet = amp.auto_mixed_precision(net, 'O2')\n", "mp.03", False),
    ("from mindspore.amp import DynamicLossScaler\ns = DynamicLossScaler(1024, 2, 1000)\n", "mp.03", True),
    ("from mindspore.communication import init\ninit()\n", "dist.01", True),
    ("import mindspore.nn as nn\nx = nn.Dense(2, 2)\n", "dist.02", False),
    ("import mindspore.dataset as ds\nd = ds.MnistDataset('x')\n", "dp.03", True),
    ("import mindspore.nn as nn\nx = nn.Dense(2, 2)\n", "dp.03", False),
    ("import mindspore as ms\nms.load_checkpoint('a.ckpt')\n", "wi.02", True),
    ("import numpy as np\nimport mindspore\n", "wi.02", False),
])
def test_not_applicable_is_decided_from_what_the_code_uses(code, item, applies):
    items = [i for i in checklist()["item"] if i["id"] == item]
    (result,) = conclude(items, [], uses_of(code), frozenset(), {})
    assert (result.conclusion != NOT_APPLICABLE) == applies, (result.conclusion, result.detail)


def test_torch_code_is_not_applicable_at_all():
    assert uses_of("import torch\nx = torch.nn.Dropout(0.1)\n") == frozenset()
    (result,) = conclude([checklist()["item"][0]], [], frozenset(), frozenset(), {})
    assert result.conclusion == NOT_APPLICABLE


def test_snapshot_version_is_read_from_a_probe_snapshot(tmp_path):
    path = tmp_path / "snap.json"
    path.write_text(json.dumps({"mindspore_version": "2.10.0", "entries": []}))
    assert snapshot_version(str(path)) == "2.10.0"
    path.write_text(json.dumps({"environment": {"mindspore": "2.9.1"}}))
    assert snapshot_version(str(path)) == "2.9.1"
    path.write_text("not json")
    assert snapshot_version(str(path)) is None


# -- the HTML page, as a browser shows it ---------------------------------------------------------
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


def _chromium(profile, *args):
    return subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", f"--user-data-dir={profile}", *args],
        capture_output=True, text=True, timeout=180)


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (.ci/run installs it)")
def test_html_report_renders_in_headless_chromium(tmp_path):
    page = tmp_path / "report.html"
    result = subprocess.run([sys.executable, "-m", "msacclint", "report", "examples/train.py",
                             "-o", str(page), "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    html = page.read_text(encoding="utf-8")
    # HTML chosen from the extension; one self-contained page: nothing fetched from anywhere
    assert not re.search(r"<(script|link|img|iframe)\b", html, re.I)
    assert "http://" not in html and "https://" not in html and "url(" not in html

    dom = _chromium(tmp_path / "profile-dom", "--dump-dom", page.as_uri())
    assert dom.returncode == 0, dom.stderr[-2000:]
    text = re.sub(r"<[^>]+>", "", dom.stdout)
    for conclusion in (PROBLEM, NO_PROBLEM, NOT_APPLICABLE, BY_HAND):
        assert conclusion in text
    assert "examples/train.py:15" in text and "MSA104" in text
    assert re.search(r"ds\.04\s*the dataset in the training environment", text)
    # each finding with its grade, each item with its count by grade, the page with its total
    assert re.search(r"error\s*examples/train\.py:15\s*MSA104", text)
    assert re.search(r"error\s*examples/train\.py:20\s*MSA101", text)
    assert re.search(r"Problem found\s*3 errors", text)
    assert re.search(r"Findings\s*4 errors, 2 warnings", text)  # MSA108 is a port rule: not in the view

    shot = tmp_path / "report.png"
    render = _chromium(tmp_path / "profile-shot", "--window-size=1200,2000", "--hide-scrollbars",
                       f"--screenshot={shot}", page.as_uri())
    assert render.returncode == 0, render.stderr[-2000:]
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert (width, height) == (1200, 2000)
    # a blank page of that size compresses to a few kilobytes; text, tables and badges do not
    assert len(data) > 60_000, len(data)
    keep = os.environ.get("MSACCLINT_KEEP_SCREENSHOT")
    if keep:
        shutil.copy(shot, keep)


# -- the format from -o, the cache, the comment-sized summary -------------------------------------

def _report(cwd, *args):
    result = subprocess.run([sys.executable, "-m", "msacclint", "report", *map(str, args)], cwd=cwd,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    return result


@pytest.mark.parametrize("name, start", [("out.html", "<!DOCTYPE html>"), ("out.json", "{"),
                                         ("out.md", "# MindSpore accuracy checklist")])
def test_format_follows_the_output_extension(tmp_path, name, start):
    (tmp_path / "train.py").write_text("import mindspore.nn as nn\npool = nn.MaxPool2d(2)\n")
    _report(tmp_path, ".", "-o", name, "--no-cache")
    assert (tmp_path / name).read_text(encoding="utf-8").startswith(start)
    # --format still wins over the extension
    _report(tmp_path, ".", "-o", name, "--format", "md", "--no-cache")
    assert (tmp_path / name).read_text(encoding="utf-8").startswith("# MindSpore accuracy checklist")


def test_report_reads_the_engine_cache(tmp_path):
    """The cache entry a first report wrote is what the second report shows: its message,
    altered on disk, appears in the report (the file was not analysed again)."""
    (tmp_path / "train.py").write_text("import mindspore.nn as nn\npool = nn.MaxPool2d(2)\n")
    first = _report(tmp_path, "train.py").stdout
    assert "MSA104 nn.MaxPool2d" in first
    entries = result_entries(tmp_path / ".msacclint_cache")
    assert entries
    for entry in entries:
        data = json.loads(entry.read_text())
        for d in data["diagnostics"]:
            d["message"] = "MESSAGE READ FROM THE CACHE"
        entry.write_text(json.dumps(data))
    md = _report(tmp_path, "train.py").stdout
    assert "MSA104 MESSAGE READ FROM THE CACHE" in md
    # and --no-cache analyses afresh
    assert "MESSAGE READ FROM THE CACHE" not in _report(tmp_path, "train.py", "--no-cache").stdout


def test_long_markdown_becomes_a_summary_with_the_full_report_beside_it(tmp_path):
    for i in range(70):
        (tmp_path / f"model_{i:02d}.py").write_text(
            "import mindspore.nn as nn\n" + "".join(f"pool{j} = nn.MaxPool2d({j + 2})\n" for j in range(8)))
    result = _report(tmp_path, ".", "-o", "report.md", "--no-cache")
    summary = (tmp_path / "report.md").read_text(encoding="utf-8")
    full = (tmp_path / "report.full.md").read_text(encoding="utf-8")
    assert len(full) > 65_536 and len(summary) <= 65_536
    assert "report.full.md" in summary and "report.full.md" in result.stderr
    assert "| api.01 " in summary and "| 560 errors |" in summary  # every finding counted in the summary
    assert full.count("MSA104") >= 560  # and each one placed in the full report
    # a small report stays whole unless --summary is asked for
    (tmp_path / "small").mkdir()
    (tmp_path / "small" / "t.py").write_text("import mindspore.nn as nn\npool = nn.MaxPool2d(2)\n")
    whole = _report(tmp_path / "small", ".", "--no-cache").stdout
    assert "`./t.py:2` error MSA104" in whole or "`t.py:2` error MSA104" in whole
    asked = _report(tmp_path / "small", ".", "--summary", "--no-cache")
    assert asked.stdout.startswith("# MindSpore accuracy checklist, filled in by msacclint (summary)")
    assert (tmp_path / "small" / "msacclint-report.full.md").is_file()


# ---------------------------------------------------------------- the port profile suggestion
PORTED = """\
import torch
import mindspore as ms
from mindspore import nn

net = nn.SequentialCell([nn.Dense(4, 4), nn.LayerNorm((4,))])
state = torch.load("bert_base.pth")
"""
CONVERTED = """\
import mindspore as ms
from tools.pth2ms import convert_state_dict

params = convert_state_dict("vit_b16.pth")
ms.load_param_into_net(net, params)
"""
COMPARED = """\
import numpy as np
import torch
import mindspore as ms

expected = torch.nn.functional.gelu(torch.tensor([1.0])).numpy()
np.testing.assert_allclose(ms.ops.gelu(ms.Tensor([1.0])).asnumpy(), expected, rtol=1e-5)
"""


def _port_tree(tmp_path):
    (tmp_path / "convert_bert_weights.py").write_text("import mindspore.nn as nn\nnet = nn.Dense(2, 3)\n")
    (tmp_path / "train.py").write_text(PORTED)
    (tmp_path / "finetune.py").write_text(CONVERTED)
    (tmp_path / "test_gelu.py").write_text(COMPARED)


def test_report_suggests_the_port_profile_once_from_resolved_calls(tmp_path):
    _port_tree(tmp_path)
    md = _report(tmp_path, ".", "--no-cache").stdout
    suggested = [line for line in md.splitlines() if line.startswith("- Suggested:")]
    assert len(suggested) == 1, suggested  # once per run, not per file
    assert "2 files load PyTorch weights" in suggested[0] and "--extend-select port" in suggested[0]
    assert "finetune.py:4 calls tools.pth2ms.convert_state_dict, a conversion of PyTorch weights" in suggested[0]
    row = _row(md, "tool.03")
    assert "**Problem found**" in row and "train.py:6" in row and "finetune.py:4" in row
    # a name that says conversion is no evidence, nor torch imported to compare outputs
    assert "convert_bert_weights.py" not in row and "test_gelu.py" not in row
    data = json.loads(_report(tmp_path, ".", "--format", "json", "--no-cache").stdout)
    assert data["port_profile"]["suggested"] is True
    assert sorted((f["path"].split("/")[-1], f["line"]) for f in data["port_profile"]["files"]) == [
        ("finetune.py", 4), ("train.py", 6)]
    # under the profile there is nothing to suggest
    selected = _report(tmp_path, ".", "--select", "port", "--no-cache").stdout
    assert "- Suggested:" not in selected and "**Problem found**" not in _row(selected, "tool.03")


def test_check_suggests_the_port_profile_once_per_run(tmp_path, msacclint):
    _port_tree(tmp_path)
    result = msacclint("check", ".", "--no-cache")
    lines = [line for line in result.stderr.splitlines() if line.startswith("Suggested:")]
    assert len(lines) == 1 and "2 files load PyTorch weights" in lines[0] and "--extend-select port" in lines[0]
    assert "MSA003" not in result.stdout  # a sentence at the end of the run, not a finding per file
    # each file's check records it, and the cache keeps it: a warm run suggests the same
    cold = msacclint("check", ".")
    warm = msacclint("check", ".")
    assert [line for line in warm.stderr.splitlines() if line.startswith("Suggested:")] == lines
    assert [line for line in cold.stderr.splitlines() if line.startswith("Suggested:")] == lines
    assert (tmp_path / ".msacclint_cache").is_dir()
    quiet = msacclint("check", ".", "--select", "port", "--no-cache")
    assert "Suggested:" not in quiet.stderr
    native = tmp_path / "native"
    native.mkdir()
    (native / "net.py").write_text("import mindspore.nn as nn\nnet = nn.Dense(2, 3)\n")
    assert "Suggested:" not in msacclint("check", str(native), "--no-cache").stderr
