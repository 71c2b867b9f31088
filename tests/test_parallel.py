"""Parallel checking: a pool only when it pays, the same results in the same order."""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor

import pytest

from msacclint.engine import batch, registry
from msacclint.engine.batch import PARALLEL_THRESHOLD, check_files
from msacclint.settings import Settings

FAULTY = "import mindspore.nn as nn\n\ndrop = nn.Dropout({p})\npool = nn.MaxPool2d({k})\n"


class _CountingPool(ProcessPoolExecutor):
    """The real pool, counting how often one is started."""

    started = 0

    def __init__(self, *args, **kwargs):
        type(self).started += 1
        super().__init__(*args, **kwargs)


@pytest.fixture
def counting_pool(monkeypatch):
    _CountingPool.started = 0
    monkeypatch.setattr(batch, "ProcessPoolExecutor", _CountingPool)
    return _CountingPool


def _corpus(tmp_path, count):
    paths = []
    for i in range(count):
        path = tmp_path / f"pkg{i % 3}" / f"model{i:03d}.py"
        path.parent.mkdir(exist_ok=True)
        text = FAULTY.format(p=f"0.{i % 9 + 1}", k=i % 3 + 1) if i % 4 else "import os\n"
        path.write_text(text, encoding="utf-8")
        paths.append(str(path))
    return paths


def _settings(tmp_path):
    return Settings(enabled=frozenset(registry.all_codes()), root=str(tmp_path))


def test_few_files_run_in_process(tmp_path, counting_pool):
    paths = _corpus(tmp_path, PARALLEL_THRESHOLD - 1)
    found = check_files(paths, _settings(tmp_path), jobs=4, use_cache=False)
    assert found and counting_pool.started == 0


def test_many_files_use_the_pool_and_match_one_job(tmp_path, counting_pool):
    paths = _corpus(tmp_path, 60)
    settings = _settings(tmp_path)
    serial = check_files(paths, settings, jobs=1, use_cache=False)
    assert counting_pool.started == 0
    parallel = check_files(list(reversed(paths)), settings, jobs=2, use_cache=False)
    assert counting_pool.started == 1
    assert parallel == serial
    assert [d.sort_key() for d in parallel] == sorted(d.sort_key() for d in parallel)


def test_a_warm_run_starts_no_pool(tmp_path, counting_pool):
    paths = _corpus(tmp_path, 40)
    settings = _settings(tmp_path)
    cold = check_files(paths, settings, jobs=2)
    assert counting_pool.started == 1
    assert check_files(paths, settings, jobs=2) == cold
    assert counting_pool.started == 1
    # one changed file: checked in-process, the rest from the cache
    with open(paths[1], "a", encoding="utf-8") as handle:
        handle.write("more = nn.Dropout(0.2)\n")
    again = check_files(paths, settings, jobs=2)
    assert counting_pool.started == 1
    assert len(again) == len(cold) + 1


def test_cli_output_is_the_same_with_one_or_two_jobs(tmp_path, run_cli):
    _corpus(tmp_path, 24)
    one = run_cli("check", "--no-cache", "--select", "ALL", "--jobs", "1", ".")
    two = run_cli("check", "--no-cache", "--select", "ALL", "--jobs", "2", ".")
    assert one.returncode == two.returncode == 1
    assert one.stdout == two.stdout and one.stdout.count("MSA1") >= 24
