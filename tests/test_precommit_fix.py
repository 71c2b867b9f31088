"""The ``msacclint-fix`` pre-commit hook, run by the real pre-commit against a fresh git
repository (``pre-commit try-repo`` installs this checkout into its own virtualenv)."""

import os
import shutil
import subprocess
import sys

import pytest
from conftest import ROOT

PRE_COMMIT = [sys.executable, "-m", "pre_commit"]


def _git(cwd, *args):
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True)


@pytest.fixture
def user_repo(tmp_path):
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    if subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--git-dir"], capture_output=True).returncode:
        pytest.skip("not a git checkout: pre-commit try-repo needs one")
    repo = tmp_path / "project"
    repo.mkdir()
    _git(repo, "init", "-q")
    _git(repo, "config", "user.email", "dev@example.invalid")
    _git(repo, "config", "user.name", "dev")
    (repo / "net.py").write_text("import mindspore.nn as nn\n\ndrop = nn.Dropout(0.8)  # as in the reference\n")
    (repo / "clean.py").write_text("import mindspore.nn as nn\n\npool = nn.MaxPool2d(2, stride=2)\n")
    # the behaviour-preserving rewrite of a positional keep_prob (MSA102) belongs to the upgrade
    # group, which this project selects beside the default view
    (repo / "pyproject.toml").write_text('[tool.msacclint]\nextend-select = ["upgrade"]\n')
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "port")
    return repo


@pytest.mark.slow
def test_msacclint_fix_hook_fixes_the_file_and_fails_the_commit(user_repo, tmp_path):
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"), "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    env.pop("VIRTUAL_ENV", None)

    def try_repo():
        return subprocess.run([*PRE_COMMIT, "try-repo", str(ROOT), "msacclint-fix", "--all-files"],
                              cwd=user_repo, env=env, capture_output=True, text=True, timeout=900)

    first = try_repo()
    assert first.returncode == 1, first.stdout + first.stderr
    assert "files were modified by this hook" in first.stdout
    assert "1 fixed in 1 file" in first.stdout
    assert (user_repo / "net.py").read_text() == \
        "import mindspore.nn as nn\n\ndrop = nn.Dropout(p=0.2)  # as in the reference\n"
    assert (user_repo / "clean.py").read_text() == "import mindspore.nn as nn\n\npool = nn.MaxPool2d(2, stride=2)\n"

    # once the fix is committed, the hook passes
    _git(user_repo, "commit", "-qam", "msacclint --fix")
    second = try_repo()
    assert second.returncode == 0, second.stdout + second.stderr
    assert "Passed" in second.stdout
