"""msacclint.api, the one way in: typed frozen options, runs over paths, fixes, the report
(whose names come from the engine's traversal and its cache), one text for flake8 and
the editor."""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

import pytest

from msacclint import api
from msacclint.engine.cache import FOLDER
from msacclint.report import NOT_APPLICABLE, PROBLEM

FAULTY = "import mindspore.nn as nn\n\ndrop = nn.Dropout(0.1)\npool = nn.MaxPool2d(2)\n"
DATASET = "import mindspore.dataset as ds\n\ndata = ds.MnistDataset('x')\n"


@pytest.fixture
def tree(tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text("[tool.msacclint]\n", encoding="utf-8")
    (tmp_path / "model.py").write_text(FAULTY, encoding="utf-8")
    (tmp_path / "data.py").write_text(DATASET, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _entries(root: Path):
    """The cached results (not the project layer's cached objects: summaries, outlines)."""
    return [json.loads(p.read_text()) for p in (root / FOLDER).rglob("*")
            if p.is_file() and p.name != ".gitignore" and not {"summary", "outline"} & set(p.parts)]


def test_options_are_frozen_and_typed():
    options = api.LintOptions(select=["MSA1"], jobs=1)
    assert options.select == ("MSA1",)  # sequences become tuples
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.jobs = 2  # type: ignore[misc]
    fix = api.FixOptions(unsafe=True, write=False)
    assert isinstance(fix, api.LintOptions) and fix.use_cache


def test_lint_paths_finds_and_sorts(tree):
    run = api.lint_paths(["."], api.LintOptions(use_cache=False))
    assert run.files == ("data.py", "model.py")
    assert [(d.path, d.line, d.code) for d in run.diagnostics] == [("model.py", 3, "MSA101"), ("model.py", 4, "MSA104")]
    assert run.config_file == tree / "pyproject.toml"
    assert run.fixable == sum(1 for d in run.diagnostics if d.fix is not None)


def test_usage_errors_are_config_errors(tree):
    with pytest.raises(api.ConfigError, match="path does not exist"):
        api.lint_paths(["missing.py"])
    with pytest.raises(api.ConfigError, match="at least 1"):
        api.lint_paths(["."], api.LintOptions(jobs=0))
    with pytest.raises(api.ConfigError, match="unknown rule code"):
        api.lint_paths(["."], api.LintOptions(select=("MSA9999",)))


def test_fix_paths_writes_only_when_asked(tree):
    before = (tree / "model.py").read_text()
    dry = api.fix_paths(["."], api.FixOptions(unsafe=True, write=False, use_cache=False))
    assert (tree / "model.py").read_text() == before and not dry.written
    assert [f.path for f in dry.fixes] == ["model.py"] and dry.applied >= 1
    real = api.fix_paths(["."], api.FixOptions(unsafe=True, use_cache=False))
    assert (tree / "model.py").read_text() == dry.fixes[0].fixed != before
    assert real.applied == dry.applied and real.remaining == dry.remaining


def test_report_reads_the_names_from_the_engine_cache(tree):
    """The report's names come with the cached results: a warm report uses the cached
    names (changed here by hand to prove it) instead of parsing the file again."""
    plain = api.lint_paths(["."])  # a check run caches results without the names
    assert all("uses" not in e for e in _entries(tree))
    report = api.build_report(["."])
    assert all(isinstance(e.get("uses"), list) for e in _entries(tree))
    (dp,) = [i for i in report.items if i.id == "dp.03"]
    assert dp.conclusion != NOT_APPLICABLE
    # the data file's cached names no longer mention a dataset: the warm report believes them
    for path in (tree / FOLDER).rglob("*"):
        if path.is_file() and path.name != ".gitignore" and not {"summary", "outline"} & set(path.parts):
            entry = json.loads(path.read_text())
            entry["uses"] = [u for u in entry["uses"] if not u.startswith("mindspore.dataset")]
            path.write_text(json.dumps(entry))
    warm = api.build_report(["."])
    (dp,) = [i for i in warm.items if i.id == "dp.03"]
    assert dp.conclusion == NOT_APPLICABLE
    (api01,) = [i for i in warm.items if i.id == "api.01"]
    assert api01.conclusion == PROBLEM and len(api01.findings) == len(plain.diagnostics)
    # and a later check run is served by the report's entries
    assert api.lint_paths(["."]).diagnostics == plain.diagnostics


def test_lint_text_and_fix_text_for_editors_and_flake8(tree):
    settings, config = api.settings_for_file(str(tree / "model.py"))
    assert config == api.config_file_for(str(tree / "model.py")) == tree / "pyproject.toml"
    found = api.lint_text(FAULTY, "model.py", settings)
    assert [d.code for d in found] == ["MSA101", "MSA104"]
    fixed, applied = api.fix_text(FAULTY, "model.py", settings, unsafe=True)
    assert applied and fixed != FAULTY and "MSA101" not in {d.code for d in api.lint_text(fixed, "model.py", settings)}
    plain = api.settings_without_config(mindspore_version="2.7.0", honour_noqa=False)
    assert plain.mindspore_version == "2.7.0" and not plain.honour_noqa
    with pytest.raises(api.ConfigError):
        api.settings_without_config(mindspore_version="two")
    assert api.is_version("2.10.0") and not api.is_version("latest")


def test_rules_catalogue():
    codes = [r.code for r in api.rules()]
    assert codes == sorted(codes) and "MSA101" in codes
    assert api.rule("msa101") is api.rule("MSA101") and api.rule("MSA9999") is None


def test_no_front_end_drives_the_engine_itself():
    """Every front end imports msacclint.api, none imports the engine (the import-linter
    contract checks the whole graph; this names the modules a reader expects)."""
    frontends = Path(api.__file__).parent / "frontends"
    for name in ("cli.py", "flake8_plugin.py", "lsp.py", "report/__init__.py"):
        text = (frontends / name).read_text(encoding="utf-8")
        assert "from msacclint import" in text and "api" in text, name
        assert "msacclint.engine" not in text, name
    assert os.path.exists(frontends / "output.py")
