"""The result cache: what invalidates an entry, and what a damaged cache does (nothing bad)."""

from __future__ import annotations

import json
import multiprocessing
import os
from pathlib import Path

import pytest
from helpers import result_entries

from msacclint.engine import cache as cache_module
from msacclint.engine import registry
from msacclint.engine.batch import check_files
from msacclint.engine.cache import FOLDER, Cache, settings_key
from msacclint.settings import Settings

FAULTY = "import mindspore.nn as nn\n\ndrop = nn.Dropout(0.1)\npool = nn.MaxPool2d(2)\n"


def _settings(root, **kw) -> Settings:
    kw.setdefault("enabled", frozenset(registry.default_codes()))
    return Settings(root=str(root), **kw)


def _files(tmp_path, count=3):
    paths = []
    for i in range(count):
        path = tmp_path / f"model{i}.py"
        path.write_text(FAULTY, encoding="utf-8")
        paths.append(str(path))
    return paths


def _entries(root: Path):
    return result_entries(root / FOLDER)


def _codes(found):
    return sorted((Path(d.path).name, d.code) for d in found)


def test_entries_and_gitignore_are_written(tmp_path):
    paths = _files(tmp_path)
    check_files(paths, _settings(tmp_path), jobs=1)
    assert (tmp_path / FOLDER / ".gitignore").read_text().splitlines()[-1] == "*"
    assert len(_entries(tmp_path)) == 3
    for entry in _entries(tmp_path):
        assert json.loads(entry.read_text())["format"] == cache_module.FORMAT


def test_a_hit_is_served_without_checking_again(tmp_path):
    paths = _files(tmp_path, 1)
    settings = _settings(tmp_path)
    first = check_files(paths, settings, jobs=1)
    (entry,) = _entries(tmp_path)
    stored = json.loads(entry.read_text())
    stored["diagnostics"][0]["message"] = "served from the cache"
    entry.write_text(json.dumps(stored))
    again = check_files(paths, settings, jobs=1)
    assert again[0].message == "served from the cache"
    assert [d.code for d in again] == [d.code for d in first]


def test_changed_content_is_checked_again(tmp_path):
    (path,) = _files(tmp_path, 1)
    settings = _settings(tmp_path)
    assert len(check_files([path], settings, jobs=1)) == 2
    Path(path).write_text("import mindspore.nn as nn\n\ndrop = nn.Dropout(p=0.1)\n", encoding="utf-8")
    assert check_files([path], settings, jobs=1) == []


@pytest.mark.parametrize("change", [
    {"enabled": frozenset({"MSA101"})},                       # rule selection
    {"per_file_ignores": (("model*.py", ("MSA1",)),)},         # configuration
    {"mindspore_version": "2.2.0"},                            # configuration
])
def test_selection_or_configuration_change_invalidates(tmp_path, change):
    paths = _files(tmp_path, 2)
    before = _settings(tmp_path)
    after = _settings(tmp_path, **change)
    assert settings_key(before) != settings_key(after)
    warm = check_files(paths, before, jobs=1)
    fresh = check_files(paths, after, jobs=1, use_cache=False)
    assert check_files(paths, after, jobs=1) == fresh
    assert check_files(paths, before, jobs=1) == warm  # and the old entries still serve the old settings


def test_probe_snapshot_content_is_part_of_the_key(tmp_path):
    snapshot = tmp_path / "defaults.json"
    snapshot.write_text("{}")
    settings = _settings(tmp_path, defaults=str(snapshot))
    first = settings_key(settings)
    snapshot.write_text('{"mindspore": "2.10.0"}')
    assert settings_key(settings) != first


def test_msacclint_version_and_code_are_part_of_the_key(tmp_path, monkeypatch):
    settings = _settings(tmp_path)
    before = settings_key(settings)
    monkeypatch.setattr(cache_module, "__version__", "999.0")
    cache_module.code_fingerprint.cache_clear()
    try:
        assert settings_key(settings) != before
        assert "v999.0-" in str(Cache.for_settings(settings).folder)
    finally:
        monkeypatch.undo()
        cache_module.code_fingerprint.cache_clear()
    assert settings_key(settings) == before


@pytest.mark.parametrize("damage", [
    b"{not json",
    b"",
    b"\xff\xfe\x00garbage",
    b"[1, 2, 3]",
    b'{"format": 1, "key": "someone else\'s", "diagnostics": []}',
    b'{"format": 1, "key": "KEY", "diagnostics": [{"code": 5}]}',
    b'{"format": 0, "key": "KEY", "diagnostics": []}',
])
def test_corrupted_or_foreign_entry_is_ignored_and_rewritten(tmp_path, damage):
    paths = _files(tmp_path, 2)
    settings = _settings(tmp_path)
    expected = check_files(paths, settings, jobs=1, use_cache=False)
    check_files(paths, settings, jobs=1)
    for entry in _entries(tmp_path):
        entry.write_bytes(damage.replace(b"KEY", entry.name.encode()))
    assert check_files(paths, settings, jobs=1) == expected
    for entry in _entries(tmp_path):
        stored = json.loads(entry.read_text())
        assert stored["key"] == entry.name and stored["format"] == cache_module.FORMAT


def test_cache_folder_that_cannot_be_made_is_not_fatal(tmp_path):
    paths = _files(tmp_path, 2)
    (tmp_path / FOLDER).write_text("a file where the folder should be")
    settings = _settings(tmp_path)
    assert _codes(check_files(paths, settings, jobs=1)) == _codes(check_files(paths, settings, jobs=1, use_cache=False))
    assert (tmp_path / FOLDER).is_file()


def test_no_cache_leaves_nothing_behind(tmp_path):
    paths = _files(tmp_path, 2)
    check_files(paths, _settings(tmp_path), jobs=1, use_cache=False)
    assert not (tmp_path / FOLDER).exists()


def _hammer(args):
    root, key, rounds = args
    cache = Cache(root, "concurrent")
    from msacclint.diagnostics import Diagnostic, Severity

    for i in range(rounds):
        diag = Diagnostic("MSA101", "api.01", Severity.ERROR, f"f{i}.py", 1, 1, 1, 2, "x" * (i % 50))
        cache.put(key, [diag] * (i % 7))
        cache.get(key)
    return True


def test_concurrent_writers_never_leave_a_broken_entry(tmp_path):
    key = "ab" + "0" * 62
    with multiprocessing.get_context("fork").Pool(4) as pool:
        assert all(pool.map(_hammer, [(str(tmp_path), key, 300)] * 4))
    cache = Cache(str(tmp_path), "concurrent")
    assert cache.get(key) is not None
    leftovers = [p.name for p in (tmp_path / FOLDER).rglob(".tmp-*")]
    assert leftovers == []


def test_two_cli_runs_at_once_agree_with_a_cold_run(tmp_path, run_cli):
    import subprocess
    import sys

    for i in range(20):
        (tmp_path / f"m{i:02d}.py").write_text(FAULTY.replace("0.1", f"0.{i % 4 + 1}"), encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text("[tool.msacclint]\n")
    cold = run_cli("check", "--no-cache", ".")
    argv = [sys.executable, "-m", "msacclint", "check", "--jobs", "2", "."]
    runs = [subprocess.Popen(argv, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for _ in range(2)]
    outputs = [r.communicate(timeout=300)[0] for r in runs]
    assert outputs == [cold.stdout, cold.stdout]
    warm = run_cli("check", ".")
    assert warm.stdout == cold.stdout
    for entry in _entries(tmp_path):
        json.loads(entry.read_text())
    assert len(_entries(tmp_path)) == 20
    assert os.path.exists(tmp_path / FOLDER / ".gitignore")
