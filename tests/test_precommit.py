"""The pre-commit hook, run for real with `pre-commit try-repo` on a temporary git repository.

try-repo clones this repository at HEAD (plus a shadow commit of uncommitted changes to
tracked files, so commit or `git add` new files first) and installs it into a fresh hook
environment of its own on every call; this also checks that the package installs from a
clean checkout. PRE_COMMIT_HOME points at a temporary folder so nothing of the user's
pre-commit cache is touched.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import CLEAN, FAULTY, graded_script

ROOT = Path(__file__).resolve().parents[1]


def git(repo, *args):
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout


@pytest.fixture
def target(tmp_path):
    if subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--git-dir"], capture_output=True).returncode:
        pytest.fail(f"{ROOT} is not a git checkout: pre-commit try-repo needs one")
    repo = tmp_path / "target"
    repo.mkdir()
    git(repo, "init", "-q")
    return repo


def try_repo(repo, home, hook="msacclint"):
    env = {**os.environ, "PRE_COMMIT_HOME": str(home), "PRE_COMMIT_COLOR": "never"}
    env.pop("VIRTUAL_ENV", None)
    return subprocess.run([sys.executable, "-m", "pre_commit", "try-repo", str(ROOT), hook,
                           "--all-files", "--verbose"],
                          cwd=repo, env=env, capture_output=True, text=True, timeout=900)


def test_hook_fails_on_the_faulty_file_and_passes_on_the_clean_one(target, tmp_path):
    home = tmp_path / "pre-commit-home"
    (target / "models").mkdir()
    (target / "models" / "faulty.py").write_text(FAULTY)
    (target / "clean.py").write_text(CLEAN)
    git(target, "add", ".")
    result = try_repo(target, home)
    output = result.stdout + result.stderr
    assert result.returncode == 1, output
    assert "- hook id: msacclint" in output and "Failed" in output
    assert "models/faulty.py:7:21: error: MSA104 [api.01]" in output
    assert "models/faulty.py:11:22: error: MSA101 [api.01]" in output
    assert "clean.py:" not in output.replace("models/faulty.py", "")
    # one process for all the files (require_serial): the summary is printed once, counting both
    summaries = [line for line in output.splitlines() if line.startswith(("Found ", "All checks passed"))]
    assert summaries == ["Found 3 errors in 1 of 2 files checked (3 with a fix: --fix, or --fix --unsafe-fixes)."], output

    git(target, "rm", "-q", "-f", "models/faulty.py")
    clean = try_repo(target, home)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert "Passed" in clean.stdout
    # --verbose shows the hook's output on success: the clean run says what it checked, once
    assert clean.stdout.count("All checks passed (1 file checked).") == 1, clean.stdout


def test_hooks_are_declared():
    import yaml

    hooks = {hook["id"]: hook for hook in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}
    assert set(hooks) == {"msacclint", "msacclint-fix"}
    assert hooks["msacclint"]["entry"] == "msacclint check"
    assert hooks["msacclint-fix"]["entry"] == "msacclint check --fix"
    for hook in hooks.values():
        assert hook["language"] == "python" and hook["types"] == ["python"]
    assert hooks["msacclint-fix"]["require_serial"] is True  # two fixers must not write one file


#: errors in nothing that runs: an MSA301 warning in main(); build_head's MSA101 error and
#: build_loader's MSA301 warning lowered one grade each (nothing calls them: dormant)
WARNINGS_ONLY = graded_script(pool_stride=True)


@pytest.mark.slow
def test_the_hook_fails_on_the_grade_the_project_configures(target, tmp_path):
    """docs/grades.md: the hook runs `msacclint check`, so `fail-on` in the repository's
    [tool.msacclint] applies to it; `args: [--fail-on=error]` does the same for the hook alone
    (that config pins this checkout's HEAD commit, as a user's pins a commit they have)."""
    home = tmp_path / "pre-commit-home"
    (target / "train.py").write_text(WARNINGS_ONLY)
    git(target, "add", ".")
    default = try_repo(target, home)
    assert default.returncode == 1, default.stdout + default.stderr  # warnings fail by default
    assert "train.py:15:12: warning: MSA301 [dp.03]" in default.stdout
    assert "train.py:10:" not in default.stdout and "1 note not shown (--show-info)" in default.stdout

    (target / "pyproject.toml").write_text('[tool.msacclint]\nfail-on = "error"\n')
    git(target, "add", ".")
    errors_only = try_repo(target, home)
    output = errors_only.stdout + errors_only.stderr
    assert errors_only.returncode == 0 and "Passed" in output, output
    # the warnings are still printed (--verbose shows a passing hook's output)
    assert "train.py:6:12: warning: MSA101 [api.01]" in output and "train.py:15:12: warning: MSA301" in output
    assert "Found 2 warnings in 1 of 1 file checked" in output
    assert "None fails the run (fail-on = error)." in output

    (target / "models").mkdir()
    (target / "models" / "faulty.py").write_text(FAULTY)
    git(target, "add", ".")
    failed = try_repo(target, home)
    assert failed.returncode == 1 and "models/faulty.py:7:21: error: MSA104" in failed.stdout, failed.stdout

    # the hook's own arguments, in a config pinned to a commit this repository has
    git(target, "rm", "-q", "-f", "pyproject.toml")
    commit = git(ROOT, "rev-parse", "HEAD").strip()
    (target / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {ROOT}\n    rev: {commit}\n    hooks:\n      - id: msacclint\n"
        "        args: [--fail-on=error]\n")
    git(target, "rm", "-q", "-f", "models/faulty.py")
    git(target, "add", ".")
    env = {**os.environ, "PRE_COMMIT_HOME": str(home), "PRE_COMMIT_COLOR": "never"}
    env.pop("VIRTUAL_ENV", None)
    pinned = subprocess.run([sys.executable, "-m", "pre_commit", "run", "--all-files", "--verbose"], cwd=target,
                            env=env, capture_output=True, text=True, timeout=900)
    output = pinned.stdout + pinned.stderr
    assert pinned.returncode == 0 and "Passed" in output, output
    assert "train.py:15:12: warning: MSA301" in output and "None fails the run (fail-on = error)." in output


#: a 1.x port: ms.ms_function is gone in 2.x (MSA004, the upgrade group)
LEGACY = "import mindspore as ms\n\n\n@ms.ms_function\ndef step(x):\n    return x\n"


@pytest.mark.slow
def test_the_hook_runs_the_groups_the_project_selects(target, tmp_path):
    """docs/groups.md: a group is one selection away in pre-commit too: the repository's
    [tool.msacclint], or the hook's own `args: [--extend-select, upgrade]`."""
    home = tmp_path / "pre-commit-home"
    (target / "step.py").write_text(LEGACY)
    git(target, "add", ".")
    default = try_repo(target, home)
    assert default.returncode == 0 and "MSA004" not in default.stdout, default.stdout + default.stderr

    (target / "pyproject.toml").write_text('[tool.msacclint]\nextend-select = ["upgrade"]\n')
    git(target, "add", ".")
    configured = try_repo(target, home)
    output = configured.stdout + configured.stderr
    assert configured.returncode == 1 and "step.py:4:2: warning: MSA004 [tool.04]" in output, output
    assert "Upgrade from no declared release to MindSpore" in output and "ms.jit" in output

    git(target, "rm", "-q", "-f", "pyproject.toml")
    commit = git(ROOT, "rev-parse", "HEAD").strip()
    (target / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {ROOT}\n    rev: {commit}\n    hooks:\n      - id: msacclint\n"
        "        args: [--extend-select, upgrade]\n")
    git(target, "add", ".")
    env = {**os.environ, "PRE_COMMIT_HOME": str(home), "PRE_COMMIT_COLOR": "never"}
    env.pop("VIRTUAL_ENV", None)
    pinned = subprocess.run([sys.executable, "-m", "pre_commit", "run", "--all-files", "--verbose"], cwd=target,
                            env=env, capture_output=True, text=True, timeout=900)
    output = pinned.stdout + pinned.stderr
    assert pinned.returncode == 1 and "step.py:4:2: warning: MSA004" in output, output
