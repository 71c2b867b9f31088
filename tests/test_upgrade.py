"""The upgrade group and its report: what fails or changes meaning on a move from the MindSpore a
project declares to another release, by cause, through the real command line, flake8, the report
and the editor server; and every replacement it suggests exists in the API surface."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from msacclint.analysis import api_surface
from msacclint.data import load_toml

LEGACY = """\
import mindspore as ms
import mindspore.dataset.transforms.vision.c_transforms as C
import mindspore.dataset.transforms.vision.py_transforms as P
from mindspore import nn
from mindspore.ops import operations as ops


@ms.ms_function
def step(x):
    return x


resize = ops.ResizeBilinear((10, 10))
conv = nn.Conv2d(3, 8, 3, padding=1)
"""


@pytest.fixture
def legacy(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "requirements.txt").write_text("mindspore-gpu==1.8.1\nnumpy\n", encoding="utf-8")
    (tmp_path / "data.py").write_text(LEGACY, encoding="utf-8")
    return tmp_path


def test_select_upgrade_lists_the_move_by_cause_with_the_spelling_to_use(legacy, run_cli):
    result = run_cli("check", "--select", "upgrade", "--no-cache", ".", cwd=legacy)
    assert result.returncode == 1, result.stderr
    report = result.stderr[result.stderr.index("Upgrade from"):result.stderr.index("Found ")]
    head, *causes = report.strip().splitlines()
    assert head == ("Upgrade from MindSpore 1.8.1 (requirements.txt:1: mindspore-gpu==1.8.1) to MindSpore 2.10.0: "
                    "6 places fail or change meaning, by cause:")
    # one cause for the two imports of the 1.x module, the 2.x module to import instead
    assert causes[0] == ("  MSA004 MindSpore has no module mindspore.dataset.transforms.vision (ModuleNotFoundError); "
                         "use mindspore.dataset.vision: data.py:2, data.py:3")
    assert any("ms.ms_function does not exist" in c and "ms.jit" in c for c in causes)
    assert any("ops.ResizeBilinear does not exist" in c and "ResizeBilinearV2" in c for c in causes)
    assert "the project targets MindSpore 1.8.1: this fails once it moves to 2.10.0" in result.stdout
    assert "Checked against MindSpore 1.8.1 (requirements.txt:1: mindspore-gpu==1.8.1)" in result.stderr


def test_the_default_view_does_not_run_the_upgrade_group(legacy, run_cli):
    result = run_cli("check", "--no-cache", ".", cwd=legacy)
    assert "MSA004" not in result.stdout and "Upgrade from" not in result.stderr


def test_upgrade_to_chooses_the_release_checked(legacy, run_cli):
    result = run_cli("check", "--select", "MSA004", "--upgrade-to", "2.7.2", "--no-cache", ".", cwd=legacy)
    # c_transforms' 1.x path is gone everywhere; the 2.7 line still has nothing called ms_function
    assert "to MindSpore 2.7.2:" in result.stderr and "on MindSpore 2.7.2" in result.stdout
    bad = run_cli("check", "--select", "upgrade", "--upgrade-to", "banana", ".", cwd=legacy)
    assert bad.returncode == 2 and "upgrade-to" in bad.stderr


def test_the_group_is_in_json_and_sarif(legacy, run_cli):
    data = json.loads(run_cli("check", "--select", "upgrade", "--format", "json", "--no-cache", ".",
                              cwd=legacy).stdout)
    assert data and {d["group"] for d in data} == {"upgrade"}
    sarif = json.loads(run_cli("check", "--select", "upgrade", "--format", "sarif", "--no-cache", ".",
                               cwd=legacy).stdout)
    results = sarif["runs"][0]["results"]
    assert results and all(r["properties"]["group"] == "upgrade" and "upgrade" in r["properties"]["tags"]
                           for r in results)
    assert all(r["properties"]["group"] == "upgrade" for r in sarif["runs"][0]["tool"]["driver"]["rules"])


def test_the_report_has_an_upgrade_section(legacy, run_cli):
    md = run_cli("report", "--select", "upgrade", "--no-cache", ".", cwd=legacy).stdout
    assert "## Upgrade from MindSpore 1.8.1 (requirements.txt:1: mindspore-gpu==1.8.1) to MindSpore 2.10.0" in md
    assert "| MSA004 MindSpore has no module mindspore.dataset.transforms.vision (ModuleNotFoundError) | " \
           "`data.py:2`, `data.py:3` | use mindspore.dataset.vision |" in md
    data = json.loads(run_cli("report", "--select", "upgrade", "--format", "json", "--no-cache", ".",
                              cwd=legacy).stdout)
    assert data["upgrade"]["to"] == "2.10.0" and data["upgrade"]["places"] == 6


def test_flake8_reports_the_group_it_is_asked_for(legacy):
    run = [sys.executable, "-m", "flake8", "--select", "MSA", "data.py"]
    plain = subprocess.run(run, cwd=legacy, capture_output=True, text=True, timeout=300)
    assert "MSA004" not in plain.stdout
    grouped = subprocess.run(run + ["--msacclint-groups", "upgrade"], cwd=legacy, capture_output=True, text=True,
                             timeout=300)
    assert "data.py:2:8: MSA004 [warning] [tool.04]" in grouped.stdout, grouped.stdout + grouped.stderr
    bad = subprocess.run(run + ["--msacclint-groups", "nonsense"], cwd=legacy, capture_output=True, text=True,
                         timeout=300)
    assert bad.returncode != 0 and "unknown group 'nonsense'" in bad.stdout + bad.stderr


# -- the suggestions are names the surface has ---------------------------------------------------
SURFACE = api_surface.surface()


@pytest.mark.skipif(SURFACE is None, reason="no API surface shipped")
def test_every_module_spelling_is_importable_on_every_release():
    for item in load_toml("api_surface/spellings.toml").get("module", ()):
        for candidate in item["mindspore"]:
            assert all(SURFACE.module_exists(candidate, v) is True for v in SURFACE.versions), candidate
        for old in item["modules"]:
            assert api_surface.suggest_module(SURFACE, old, SURFACE.versions) in item["mindspore"], old


@pytest.mark.skipif(SURFACE is None, reason="no API surface shipped")
def test_every_name_spelling_exists_on_the_newest_release():
    newest = SURFACE.versions[-1]
    for item in load_toml("api_surface/spellings.toml").get("name", ()):
        found = [c for c in item["mindspore"] for m in item["modules"]
                 if SURFACE.find(c if c.startswith("mindspore") else f"{m}.{c}", newest).state == api_surface.PRESENT]
        assert found, item


@pytest.mark.skipif(SURFACE is None, reason="no API surface shipped")
def test_a_module_suggestion_is_never_a_mere_attribute():
    # mindspore.dataset.transforms has an attribute `vision`, which is no module to import
    assert api_surface.suggest_module(SURFACE, "mindspore.dataset.transforms.vision", SURFACE.versions) == \
        "mindspore.dataset.vision"
    for version in SURFACE.versions:
        assert SURFACE.module_exists("mindspore.dataset.transforms.vision", version) is not True
