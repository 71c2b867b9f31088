"""The runtime probe, run for real against the installed MindSpore (``pip install
'.[probe]'``; .ci/run installs it). Skipped only when MindSpore is not installed."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

from msacclint.data import api_defaults

ROOT = Path(__file__).resolve().parents[1]

pytestmark = [
    pytest.mark.probe,
    pytest.mark.skipif(importlib.util.find_spec("mindspore") is None,
                       reason="MindSpore is not installed (pip install '.[probe]')"),
]


def msacclint(*args, cwd):
    return subprocess.run([sys.executable, "-m", "msacclint", *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, timeout=240)


@pytest.fixture(scope="module")
def probed(tmp_path_factory):
    """One real probe run on CPU with --write: (completed process, json report, snapshot, folder)."""
    folder = tmp_path_factory.mktemp("probe")
    done = msacclint("probe", "--format", "json", "--write", "snap.json", cwd=folder)
    report = json.loads(done.stdout) if done.stdout.strip().startswith("{") else None
    snapshot = json.loads((folder / "snap.json").read_text()) if (folder / "snap.json").is_file() else None
    return done, report, snapshot, folder


def test_every_shipped_check_agrees_on_the_installed_mindspore(probed):
    done, report, _, _ = probed
    assert report is not None, done.stderr
    bad = [r for r in report["rows"] if r["status"] not in ("agree", "skipped")]
    assert bad == [], bad
    assert done.returncode == 0
    skipped = {r["entry"] for r in report["rows"] if r["status"] == "skipped"}
    assert skipped <= {"MS-IN-01", "MS-AMP-02"}  # the CPU backend cannot run these
    assert report["header"]["mindspore"] == version("mindspore")
    assert report["header"]["backend"] == "CPU"
    assert {"api", "parameter", "expected", "observed", "status", "detail"} <= set(report["rows"][0])


def test_every_table_entry_is_probed(probed):
    _, report, _, _ = probed
    probed_entries = {r["entry"] for r in report["rows"] if r["status"] == "agree"}
    for item in api_defaults()["entry"]:
        if item["id"] != "MS-AMP-02":  # Ascend hardware only
            assert item["id"] in probed_entries, item["id"]


def test_behavioural_checks_ran(probed):
    _, report, _, _ = probed
    observed = {(r["entry"], r["parameter"]): r["observed"] for r in report["rows"]}
    assert observed[("MS-POOL-01", "output shape of MaxPool2d(2) on 1x1x8x8")] == [1, 1, 7, 7]
    assert abs(observed[("MS-DROP-01", "share zeroed by Dropout(0.1) in training")] - 0.9) <= 0.02
    assert observed[("MS-CONV-02", "parameters of Conv2d(3, 8, 3)")] == ["weight"]
    assert observed[("MS-CONV-01", "output shape of Conv2d(3, 8, 3) on 1x3x8x8")] == [1, 8, 8, 8]


def test_the_probe_writes_only_the_snapshot(probed):
    done, _, snapshot, folder = probed
    assert sorted(p.name for p in folder.iterdir()) == ["snap.json"]
    assert snapshot["kind"] == "msacclint-probe-snapshot"
    assert snapshot["mindspore"] == version("mindspore") and snapshot["backend"] == "CPU"
    assert snapshot["date"]
    assert snapshot["defaults"]["mindspore.nn.MaxPool2d"]["stride"] == 1


def test_a_wrong_default_in_the_table_differs_for_exactly_that_entry(tmp_path):
    text = (ROOT / "rules" / "probe.toml").read_text()
    wrong = text.replace('api = "mindspore.nn.LayerNorm"\nparameter = "epsilon"\nexpected = "1e-07"',
                         'api = "mindspore.nn.LayerNorm"\nparameter = "epsilon"\nexpected = "1e-05"')
    assert wrong != text
    (tmp_path / "probe.toml").write_text(wrong)
    done = msacclint("probe", "--format", "json", "--table", "probe.toml", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    rows = json.loads(done.stdout)["rows"]
    differs = [r for r in rows if r["status"] != "agree" and r["status"] != "skipped"]
    assert [(r["entry"], r["parameter"], r["status"]) for r in differs] == [("MS-LN-01", "epsilon", "differs")]
    assert differs[0]["expected"] == "1e-05" and differs[0]["observed"] == 1e-07


def test_write_then_check_defaults_quotes_the_observed_value(probed):
    _, _, _, folder = probed
    (folder / "net.py").write_text("import mindspore.nn as nn\npool = nn.MaxPool2d(2)\n")
    try:
        done = msacclint("check", "net.py", "--no-cache", "--select", "MSA104", "--defaults", "snap.json", cwd=folder)
    finally:
        (folder / "net.py").unlink()
    assert done.returncode == 1
    assert f"(in MindSpore {version('mindspore')} on CPU, MaxPool2d's stride defaults to 1)" in done.stdout


@pytest.mark.parametrize("backend", ["GPU", "Ascend"])
def test_an_unavailable_backend_is_a_clear_error(tmp_path, backend):
    (tmp_path / "mindspore.py").write_text("open('USER_CODE_RAN', 'w').close()\n")
    done = msacclint("probe", "--backend", backend, cwd=tmp_path)
    assert done.returncode == 2
    assert f"backend {backend} is not available" in done.stderr
    assert done.stdout == ""
    assert not (tmp_path / "USER_CODE_RAN").exists()  # the probe never imports the user's files
