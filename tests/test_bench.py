"""The benchmark harness runs end to end on a tiny corpus (no timings are asserted)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_make_corpus_writes_both_kinds(tmp_path):
    sys.path.insert(0, str(ROOT / "bench" / "speed"))
    try:
        from make_corpus import write_corpus
    finally:
        sys.path.remove(str(ROOT / "bench" / "speed"))
    write_corpus(tmp_path, 10, 0.8, seed=1)
    files = sorted(tmp_path.rglob("*.py"))
    assert len(files) == 10
    texts = [f.read_text() for f in files]
    assert sum("mindspore" in t for t in texts) == 2
    for text in texts:
        compile(text, "generated", "exec")


def test_run_prints_and_writes_the_table(tmp_path):
    corpus = tmp_path / "corpus"
    subprocess.run([sys.executable, str(ROOT / "bench" / "speed" / "make_corpus.py"), str(corpus), "--files", "4",
                    "--plain-share", "0.5"], check=True, capture_output=True, timeout=120)
    out = tmp_path / "performance.md"
    result = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "speed" / "run.py"), str(corpus), "--sample", "2", "--write", str(out),
         "--torchfix", str(tmp_path / "none"), "--fixit", str(tmp_path / "none")],
        capture_output=True, text=True, timeout=600, env={"PATH": "/usr/bin:/bin"})
    assert result.returncode == 0, result.stderr
    table = out.read_text()
    for row in ("LibCST parse only", "QualifiedNameProvider", "msacclint check --jobs 1 --no-cache",
                "warm cache", "flake8 --select MSA", "flake8 --select F, without msacclint"):
        assert row in table, row
    # absent tools show how to install them
    assert "pip install torch==2.13.0 torchfix" in table and "pip install fixit" in table
    assert "| target |" in table and "warm re-run vs cold" in table
    for line in table.splitlines():
        if line.startswith("| corpus |") and "msacclint" in line:
            assert "exit" not in line, line  # every command ran cleanly
