"""`mypy --strict` on the engine modules that are clean so far (the walker and the typed
FileContext); the list grows as the rest of msacclint/engine and msacclint/analysis is
typed. Runs the real mypy as a subprocess."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
STRICT_CLEAN = ["msacclint/analysis/walk.py", "msacclint/analysis/context.py"]


@pytest.mark.slow
def test_strict_modules_stay_clean():
    pytest.importorskip("mypy")
    result = subprocess.run([sys.executable, "-m", "mypy", "--strict", *STRICT_CLEAN], cwd=ROOT,
                            capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Success" in result.stdout
