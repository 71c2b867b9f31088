"""The layers and the no-cycle rule of docs/dev/architecture.md, checked by the tool made
for it (import-linter, configured in pyproject.toml's [tool.importlinter]), run as a user
runs it; and the tree is clean under the project's ruff configuration."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT


def _tool(name):
    found = shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)
    if found is None:
        pytest.fail(f"{name} is not installed: pip install '.[test]'")
    return found


def test_import_contracts_are_kept():
    result = subprocess.run([_tool("lint-imports"), "--no-cache"], cwd=ROOT, capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "3 kept, 0 broken" in result.stdout, result.stdout


def test_the_layers_contract_catches_an_upward_import(tmp_path):
    """The contract really fails on an upward import (analysis importing the engine): a
    copy of the package with one such import added breaks it."""
    copy = tmp_path / "tree"
    shutil.copytree(ROOT / "msacclint", copy / "msacclint", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", copy / "pyproject.toml")
    names = copy / "msacclint" / "analysis" / "names.py"
    names.write_text(names.read_text() + "\nfrom msacclint.engine import registry  # upward\n")
    result = subprocess.run([_tool("lint-imports"), "--no-cache"], cwd=copy, capture_output=True, text=True,
                            timeout=300, env={"PYTHONPATH": str(copy), "PATH": "/usr/bin:/bin"})
    assert result.returncode != 0
    assert "msacclint.analysis is not allowed to import msacclint.engine" in result.stdout, result.stdout


def test_ruff_is_clean():
    result = subprocess.run([_tool("ruff"), "check", "--no-cache", "."], cwd=ROOT, capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
