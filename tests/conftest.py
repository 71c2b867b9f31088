import os
import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

ROOT = Path(__file__).resolve().parents[1]

# The front-end tests see a fixed default view: every rule of a proven group in it, at error and
# warning (tests/data/field_record_all_proven.json), whatever the shipped field record says
# today. Tests of the shipped record and of what it puts in the default view ask for the
# `shipped_record` fixture. Set before msacclint is imported, and inherited by subprocesses.
FIXTURE_RECORD = ROOT / "tests" / "data" / "field_record_all_proven.json"
os.environ["MSACCLINT_FIELD_RECORD"] = str(FIXTURE_RECORD)
# Nor does the MindSpore installed beside the suite (.ci/run installs one for the probe's tests)
# decide what the other tests check against: no version is known unless a test gives one.
os.environ["MSACCLINT_INSTALLED_MINDSPORE"] = "none"


def _forget_record():
    from msacclint.engine import registry
    from msacclint.rules import groups

    groups.record.cache_clear()
    registry.default_codes.cache_clear()


@pytest.fixture
def shipped_record(monkeypatch):
    """The field record msacclint ships (rules/field_record.json), here and in subprocesses."""
    monkeypatch.delenv("MSACCLINT_FIELD_RECORD")
    _forget_record()
    yield
    monkeypatch.setenv("MSACCLINT_FIELD_RECORD", str(FIXTURE_RECORD))
    _forget_record()


def pytest_addoption(parser):
    parser.addoption("--runslow", action="store_true", default=False, help="run slow tests")


def pytest_collection_modifyitems(config, items):
    if config.getoption("--runslow"):
        return
    skip = pytest.mark.skip(reason="slow: run with --runslow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def root():
    return ROOT


@pytest.fixture
def run_cli(tmp_path):
    """Run the real `python -m msacclint` in a subprocess."""
    import subprocess

    def run(*args, cwd=None, input=None):
        return subprocess.run([sys.executable, "-m", "msacclint", *map(str, args)], cwd=cwd or tmp_path,
                              capture_output=True, text=True, input=input, timeout=300)

    return run


@pytest.fixture
def write(tmp_path):
    """write("a/b.py", text) -> the path, folders created, under tmp_path."""

    def put(relative, text):
        path = tmp_path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path

    return put


@pytest.fixture
def msacclint(tmp_path, monkeypatch, capsys):
    """The command line run in this process (the entry point itself is exercised as a
    subprocess by the tests that use ``run_cli``): much faster for many small runs."""
    from types import SimpleNamespace

    from msacclint.frontends.cli import main

    monkeypatch.chdir(tmp_path)

    def run(*args):
        code = main([str(a) for a in args])
        out, err = capsys.readouterr()
        return SimpleNamespace(returncode=code, stdout=out, stderr=err)

    return run


# -- the editor server as the LSP tests drive it (test_lsp.py, test_multifile_frontends.py) --
@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    """A folder of the test module's own: the editor's workspace."""
    return tmp_path_factory.mktemp("workspace")


# ``msacclint lsp`` started by pytest-lsp over stdio, once per test module that asks for it:
# starting it is most of the cost
@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "msacclint", "lsp"]),
                    scope="module")
async def client(lsp_client: LanguageClient, workspace):
    params = types.InitializeParams(capabilities=client_capabilities("visual-studio-code"),
                                    root_uri=workspace.as_uri(),
                                    workspace_folders=[types.WorkspaceFolder(uri=workspace.as_uri(), name="w")])
    await lsp_client.initialize_session(params)
    yield
    await lsp_client.shutdown_session()
