"""Installing msacclint from what exists (a checkout, a VCS URL, a wheel built from it) and
what ``msacclint --version`` then says about where it came from (msacclint/install_info.py,
read from the installed distribution's PEP 610 ``direct_url.json``).

Each install is real: pip into a fresh virtualenv, from a temporary clone of this checkout
(``--no-deps``: only msacclint's own metadata is under test, and ``install_info`` needs
nothing else). The pinned-``rev`` pre-commit config runs the real pre-commit against a
commit that the temporary clone really has.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from msacclint import install_info

ROOT = Path(__file__).resolve().parents[1]


def _run(*args, cwd=None, env=None, timeout=600):
    result = subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True,
                            timeout=timeout)
    assert result.returncode == 0, f"{args}:\n{result.stdout}\n{result.stderr}"
    return result.stdout


@pytest.fixture(scope="module")
def clone(tmp_path_factory):
    """A clone of this checkout's HEAD (what a user gets from the repository URL)."""
    if subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--git-dir"], capture_output=True).returncode:
        pytest.fail(f"{ROOT} is not a git checkout")
    folder = tmp_path_factory.mktemp("clone") / "msacclint"
    _run("git", "clone", "-q", "--no-hardlinks", str(ROOT), folder)
    commit = _run("git", "-C", folder, "rev-parse", "HEAD").strip()
    return folder, commit


def _venv(folder):
    _run(sys.executable, "-m", "venv", folder)
    return folder / ("Scripts" if os.name == "nt" else "bin") / "python"


def _clean_env():
    env = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    env.pop("VIRTUAL_ENV", None)
    env.pop("PYTHONPATH", None)
    return env


def _version(python, cwd):
    # run outside any source tree, so the installed copy is the one imported
    return _run(python, "-m", "msacclint.install_info", cwd=cwd, env=_clean_env()).strip()


# -- the PEP 610 records, as pip writes them -------------------------------------------------

def test_each_kind_of_direct_url_is_described():
    vcs = {"url": "https://example.invalid/org/msacclint.git",
           "vcs_info": {"vcs": "git", "commit_id": "0123abcd" * 5, "requested_revision": "main"}}
    assert install_info.describe_direct_url(vcs) == \
        "git+https://example.invalid/org/msacclint.git at commit " + "0123abcd" * 5 + " (requested main)"
    wheel = {"url": "file:///dist/msacclint-0.1.0-py3-none-any.whl", "archive_info": {}}
    assert install_info.describe_direct_url(wheel) == "wheel /dist/msacclint-0.1.0-py3-none-any.whl"
    editable = {"url": "file:///src/my%20msacclint", "dir_info": {"editable": True}}
    assert install_info.describe_direct_url(editable, look_up_git=False) == "editable checkout /src/my msacclint"
    folder = {"url": "file:///src/msacclint", "dir_info": {}}
    assert install_info.describe_direct_url(folder, look_up_git=False) == "local folder /src/msacclint"


# -- real installs into fresh virtualenvs -----------------------------------------------------

def test_version_names_the_wheel_it_was_installed_from(clone, tmp_path):
    folder, _ = clone
    wheels = tmp_path / "dist"
    python = _venv(tmp_path / "venv")
    _run(python, "-m", "pip", "wheel", "-q", "--no-deps", "-w", wheels, folder, env=_clean_env())
    [wheel] = wheels.glob("msacclint-*.whl")
    _run(python, "-m", "pip", "install", "-q", "--no-deps", wheel, env=_clean_env())
    assert _version(python, tmp_path) == f"msacclint 0.1.0 from wheel {wheel}"


def test_version_names_the_vcs_url_and_commit(clone, tmp_path):
    folder, commit = clone
    python = _venv(tmp_path / "venv")
    url = folder.as_uri()
    _run(python, "-m", "pip", "install", "-q", "--no-deps", f"git+{url}@{commit}", env=_clean_env())
    assert _version(python, tmp_path) == f"msacclint 0.1.0 from git+{url} at commit {commit}"
    # the hint for an optional extra names the same URL, never a package index
    hint = _run(python, "-c", "from msacclint import install_info; print(install_info.extra_hint('lsp'))",
                cwd=tmp_path, env=_clean_env()).strip()
    assert hint == f"pip install 'msacclint[lsp] @ git+{url}'"


def test_version_names_the_editable_checkout_and_its_commit(clone, tmp_path):
    folder, commit = clone
    python = _venv(tmp_path / "venv")
    _run(python, "-m", "pip", "install", "-q", "--no-deps", "-e", folder, env=_clean_env())
    assert _version(python, tmp_path) == f"msacclint 0.1.0 from editable checkout {folder}, commit {commit[:12]}"
    record = json.loads(next((tmp_path / "venv").glob("lib*/python*/site-packages/msacclint-*.dist-info/"
                                                     "direct_url.json")).read_text())
    assert record["dir_info"] == {"editable": True}
    hint = _run(python, "-c", "from msacclint import install_info; print(install_info.extra_hint('probe'))",
                cwd=tmp_path, env=_clean_env()).strip()
    assert hint == f"pip install -e '{folder}[probe]'"


def test_repository_url_of_a_vcs_install_over_https():
    from msacclint.install_info import _path_of  # noqa: F401  (the module under test loads)

    data = {"url": "https://example.invalid/org/msacclint.git", "vcs_info": {"vcs": "git", "commit_id": "0" * 40}}
    original = install_info._direct_url
    install_info._direct_url = lambda: data
    try:
        assert install_info.repository_url() == "https://example.invalid/org/msacclint"
        assert install_info.extra_hint("lsp") == \
            "pip install 'msacclint[lsp] @ git+https://example.invalid/org/msacclint.git'"
    finally:
        install_info._direct_url = original


def test_cli_version_prints_where_it_was_installed_from():
    """``msacclint --version`` through the real command line of the test environment."""
    result = subprocess.run([sys.executable, "-m", "msacclint", "--version"], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == install_info.version_line()
    assert result.stdout.startswith("msacclint 0.1.0 from ")


# -- pre-commit with a rev the repository really has -------------------------------------------

@pytest.mark.slow
def test_a_config_pinning_a_real_commit_runs_the_hook(clone, tmp_path):
    """The README's pre-commit snippet, filled in the way it says: the repository (here the
    temporary clone) and the commit of that checkout (`git rev-parse HEAD`)."""
    folder, commit = clone
    project = tmp_path / "project"
    project.mkdir()
    _run("git", "init", "-q", cwd=project)
    (project / "net.py").write_text("import mindspore.nn as nn\n\npool = nn.MaxPool2d(2)\n")
    (project / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {folder}\n    rev: {commit}\n    hooks:\n      - id: msacclint\n")
    _run("git", "add", ".", cwd=project)
    env = {**_clean_env(), "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"), "PRE_COMMIT_COLOR": "never"}
    result = subprocess.run([sys.executable, "-m", "pre_commit", "run", "--all-files"], cwd=project, env=env,
                            capture_output=True, text=True, timeout=900)
    output = result.stdout + result.stderr
    assert result.returncode == 1, output
    assert "net.py:3:8: error: MSA104 [api.01]" in output, output
