"""Rule groups and the default view through the real front ends: every rule declares a known
group, a group is one selection away in the CLI, pyproject.toml, flake8 and the editor, and a
finding at a grade its rule's field record does not support waits in the nursery."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from msacclint import api
from msacclint.rules.groups import DEFAULT_GROUPS, GROUPS, PROVEN

#: a BatchNorm with PyTorch's momentum in a class the entry script builds, and the same layer
#: in a class nothing builds (a dormant finding: one grade lower, a warning)
MODEL = """\
import mindspore.nn as nn


class Used(nn.Cell):
    def __init__(self):
        super().__init__()
        self.bn = nn.BatchNorm2d(8, momentum=0.1)

    def construct(self, x):
        return self.bn(x)


class Unused(nn.Cell):
    def __init__(self):
        super().__init__()
        self.bn = nn.BatchNorm2d(8, momentum=0.1)

    def construct(self, x):
        return self.bn(x)
"""
#: an unchecked checkpoint load (MSA506, the review group): the rule's own first example
LOAD_FILES = api.rule("MSA506").INVALID[0].sources

TRAIN = "from src.model import Used\n\nif __name__ == '__main__':\n    net = Used()\n    net.set_train()\n"


def test_every_rule_declares_a_known_group():
    for rule in api.rules():
        assert rule.group in GROUPS, (rule.code, rule.group)
        if rule.group in PROVEN:
            assert rule.severity.value == ("error" if rule.group == "correctness" else "warning"), rule.code
    assert set(DEFAULT_GROUPS) == {"correctness", "suspicious", "tool"}
    assert {r.code for r in api.rules() if r.group == "upgrade"} >= {"MSA004", "MSA102", "MSA103"}
    assert "MSA506" in {r.code for r in api.rules() if r.group == "review"}


@pytest.fixture
def project(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "__init__.py").write_text("")
    (tmp_path / "src" / "model.py").write_text(MODEL)
    (tmp_path / "train.py").write_text(TRAIN)
    # a field record that supports MSA107's errors and not its warnings
    record = {"measured_at": "test", "rounds": {}, "skipped": [],
              "rules": {"MSA107": {"all": {"error": {"read": 12, "true": 12}, "warning": {"read": 10, "false": 10}}}}}
    (tmp_path / "record.json").write_text(json.dumps(record))
    return tmp_path


def _cli(project, *args):
    env = {**os.environ, "MSACCLINT_FIELD_RECORD": str(project / "record.json")}
    return subprocess.run([sys.executable, "-m", "msacclint", "check", "--no-cache", *args], cwd=project, env=env,
                          capture_output=True, text=True, timeout=300)


def test_a_grade_the_record_does_not_support_waits_in_the_nursery(project):
    shown = _cli(project, ".")
    lines = [line for line in shown.stdout.splitlines() if "MSA107" in line]
    assert len(lines) == 1 and lines[0].startswith("src/model.py:7:19: error: MSA107"), shown.stdout
    assert "1 finding outside the groups shown (nursery 1: --extend-select nursery)." in shown.stderr
    everything = _cli(project, "--extend-select", "nursery", ".")
    assert "src/model.py:16:19: warning: MSA107" in everything.stdout and "dormant" in everything.stdout
    named = _cli(project, "--select", "MSA107", ".")  # a code named as such is shown at any group
    assert "src/model.py:16:19: warning: MSA107" in named.stdout
    data = json.loads(_cli(project, "--format", "json", ".").stdout)  # JSON keeps every finding, with its group
    assert sorted((d["line"], d["group"]) for d in data if d["code"] == "MSA107") == [(7, "correctness"),
                                                                                    (16, "nursery")]


def test_a_rule_whose_record_misses_the_bar_is_off_by_default(project):
    (project / "record.json").write_text(json.dumps({"rules": {}}))
    result = _cli(project, ".")
    assert "MSA107" not in result.stdout
    rules = subprocess.run([sys.executable, "-m", "msacclint", "rules"], capture_output=True, text=True, timeout=300,
                           env={**os.environ, "MSACCLINT_FIELD_RECORD": str(project / "record.json")})
    row = next(line.split() for line in rules.stdout.splitlines() if line.startswith("MSA107"))
    assert row[3:5] == ["nursery", "off"]
    assert "MSA107" in _cli(project, "--extend-select", "nursery", ".").stdout


def test_groups_in_pyproject(project):
    for relative, text in LOAD_FILES.items():
        (project / relative).write_text(text)
    assert "MSA506" not in _cli(project, ".").stdout
    (project / "pyproject.toml").write_text('[tool.msacclint]\nextend-select = ["review"]\n')
    assert "MSA506" in _cli(project, ".").stdout
    (project / "pyproject.toml").write_text('[tool.msacclint]\nselect = ["review"]\n')
    alone = _cli(project, ".")
    assert "MSA506" in alone.stdout and "MSA107" not in alone.stdout


@pytest.mark.asyncio(loop_scope="module")
async def test_the_editor_reads_the_groups_of_the_project(client: LanguageClient, workspace):
    project = workspace / "groups"
    project.mkdir()
    (project / "pyproject.toml").write_text('[tool.msacclint]\nextend-select = ["review"]\n')
    for relative, text in LOAD_FILES.items():
        (project / relative).parent.mkdir(parents=True, exist_ok=True)
        (project / relative).write_text(text)
    path = project / "src" / "base_trainer.py"
    text = LOAD_FILES["src/base_trainer.py"]
    uri = path.as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=uri, language_id="python", version=1, text=text)))
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert [d.code for d in client.diagnostics[uri]] == ["MSA506"]
