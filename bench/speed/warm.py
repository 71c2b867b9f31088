"""Warm against cold: ``msacclint check --jobs 1`` on a corpus with an empty cache, then again
on the unchanged files, in pairs, CPU time of each process (user + system, ``os.wait4``).

    python bench/speed/warm.py CORPUS [--pairs 3]

The cache folder of the corpus is removed before each cold run. Printed: each pair, and the
least cold over the least warm (issue 17's target: at least 20). The command is the
``msacclint`` of this interpreter's environment, run in CORPUS as a user runs it.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import List, Optional, Sequence, Tuple


def cpu_of(args: List[str], cwd: str) -> Tuple[float, int]:
    """CPU seconds of a fresh process (and its children) and its exit status."""
    process = subprocess.Popen(args, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    return usage.ru_utime + usage.ru_stime, os.waitstatus_to_exitcode(status)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus")
    parser.add_argument("--pairs", type=int, default=3)
    args = parser.parse_args(argv)
    corpus = str(Path(args.corpus).resolve())
    command = [sys.executable, "-m", "msacclint", "check", "--jobs", "1", "--quiet", "."]
    colds, warms = [], []
    for i in range(args.pairs):
        shutil.rmtree(os.path.join(corpus, ".msacclint_cache"), ignore_errors=True)
        cold, status_cold = cpu_of(command, corpus)
        warm, status_warm = cpu_of(command, corpus)
        if status_cold != status_warm:
            print(f"pair {i + 1}: exit {status_cold} cold but {status_warm} warm", file=sys.stderr)
            return 2
        colds.append(cold)
        warms.append(warm)
        print(f"pair {i + 1}: cold {cold:.2f} CPU-s, warm {warm:.3f} CPU-s, {cold / warm:.1f}x")
    print(f"least cold / least warm: {min(colds):.2f} / {min(warms):.3f} = {min(colds) / min(warms):.1f}x "
          "(target: at least 20)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
