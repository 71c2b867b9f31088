"""Warm against cold: ``msacclint check --jobs 1`` on a corpus with an empty cache, then again
on the unchanged files, in pairs, CPU time of each process (user + system, ``os.wait4``).

    python bench/speed/warm.py CORPUS [--pairs 3] [--change FILE]

The cache folder of the corpus is removed before each cold run. Printed: each pair, and the
least cold over the least warm (issue 17's target: at least 20). The command is the
``msacclint`` of this interpreter's environment, run in CORPUS as a user runs it.

``--change FILE`` (a path relative to CORPUS): before each warm run a comment line is
appended to FILE, so the warm run re-checks that file (and what depends on it) and reads
the rest from the cache, as after an edit; the file is restored after the pair. Issue 13's
and 32's target for that run: at most 1 s.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import List, Optional, Sequence, Tuple


def cpu_of(args: List[str], cwd: str) -> Tuple[float, int]:
    """CPU seconds of a fresh process (and its children) and its exit status."""
    cpu, status, _ = timed(args, cwd)
    return cpu, status


def timed(args: List[str], cwd: str) -> Tuple[float, int, float]:
    """CPU seconds, exit status and wall seconds of a fresh process."""
    start = time.perf_counter()
    process = subprocess.Popen(args, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    return usage.ru_utime + usage.ru_stime, os.waitstatus_to_exitcode(status), time.perf_counter() - start


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus")
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--change", help="a file of CORPUS (relative path) edited before each warm run")
    args = parser.parse_args(argv)
    corpus = str(Path(args.corpus).resolve())
    command = [sys.executable, "-m", "msacclint", "check", "--jobs", "1", "--quiet", "."]
    changed = Path(corpus, args.change) if args.change else None
    original = changed.read_bytes() if changed is not None else None
    colds, warms, walls = [], [], []
    for i in range(args.pairs):
        shutil.rmtree(os.path.join(corpus, ".msacclint_cache"), ignore_errors=True)
        cold, status_cold = cpu_of(command, corpus)
        try:
            if changed is not None and original is not None:
                changed.write_bytes(original + b"\n# edited by bench/speed/warm.py\n")
            warm, status_warm, wall = timed(command, corpus)
        finally:
            if changed is not None and original is not None:
                changed.write_bytes(original)
        if status_cold != status_warm and changed is None:
            print(f"pair {i + 1}: exit {status_cold} cold but {status_warm} warm", file=sys.stderr)
            return 2
        colds.append(cold)
        warms.append(warm)
        walls.append(wall)
        print(f"pair {i + 1}: cold {cold:.2f} CPU-s, warm {warm:.3f} CPU-s ({wall:.3f} s wall), {cold / warm:.1f}x")
    if changed is not None:
        print(f"warm with {args.change} changed: least {min(warms):.3f} CPU-s, {min(walls):.3f} s wall "
              "(target: at most 1 s)")
    print(f"least cold / least warm: {min(colds):.2f} / {min(warms):.3f} = {min(colds) / min(warms):.1f}x "
          "(target: at least 20, with no file changed)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
