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


def test_only_public_libcst_names_are_used():
    """Issue 16: LibCST's private modules and methods (``libcst._nodes``, ``node._codegen``,
    position-recording code generator states) change without notice between releases."""
    import ast

    found = []
    for path in sorted((ROOT / "msacclint").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("libcst"):
                modules = [node.module] + [node.module + "." + a.name for a in node.names]
            elif isinstance(node, ast.Import):
                modules = [a.name for a in node.names if a.name.startswith("libcst")]
            else:
                # walk.py reads the order in which LibCST visits a node class's fields off
                # ``_visit_and_replace_children`` (introspection, with a fallback; see
                # docs/dev/architecture.md); nothing calls a private method
                if isinstance(node, ast.Attribute) and node.attr in ("_codegen", "_codegen_impl") or (
                        isinstance(node, ast.Attribute) and node.attr == "_visit_and_replace_children"
                        and path.name != "walk.py"):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno} .{node.attr}")
                continue
            for module in modules:
                if any(part.startswith("_") for part in module.split(".")[1:]) or \
                        module.endswith(("CodegenState", ".position_provider")):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno} {module}")
    assert not found, found


#: the most lines a module of the package may hold: past it, a reader cannot find a rule's
#: logic among its examples or a question among the others (issue 30)
MODULE_LINES = 600


def test_no_module_of_the_package_is_over_600_lines():
    crowded = {str(path.relative_to(ROOT)): n for path in (ROOT / "msacclint").rglob("*.py")
               if (n := len(path.read_text(encoding="utf-8").splitlines())) > MODULE_LINES}
    assert crowded == {}
