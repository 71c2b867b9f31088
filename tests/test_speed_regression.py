"""Speed regression check (slow; .ci/run passes --runslow): msacclint's rate relative to a
bare LibCST parse, both in CPU time in the same process, must not fall more than the
recorded tolerance below the figure in bench/speed/recorded.json. A ratio, not a time:
the machine's speed cancels out."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RECORDED = json.loads((ROOT / "bench" / "speed" / "recorded.json").read_text(encoding="utf-8"))


@pytest.mark.slow
def test_ratio_to_bare_parse_holds(tmp_path):
    corpus = tmp_path / "corpus"
    spec = RECORDED["corpus"]
    subprocess.run([sys.executable, str(ROOT / "bench" / "speed" / "make_corpus.py"), str(corpus),
                    "--files", str(spec["files"]), "--plain-share", str(spec["plain_share"]),
                    "--seed", str(spec["seed"])], check=True, capture_output=True, timeout=600)
    out = tmp_path / "profile.json"
    subprocess.run([sys.executable, str(ROOT / "bench" / "speed" / "profile.py"), str(corpus),
                    "--no-stages", "--json", str(out)], check=True, capture_output=True, timeout=1800)
    measured = json.loads(out.read_text(encoding="utf-8"))["corpus"]
    assert measured["files"] == spec["files"]
    assert measured["diagnostics"] > 0  # the rules ran and found the corpus's planted mistakes
    floor = RECORDED["ratio"] * (1 - RECORDED["tolerance"])
    assert measured["ratio"] >= floor, (
        f"msacclint now checks at {measured['ratio']:.3f}x a bare parse, below {floor:.3f} "
        f"(recorded {RECORDED['ratio']} - {RECORDED['tolerance']:.0%}); see bench/speed/profile.py's stage profile")
