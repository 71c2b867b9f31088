"""The progress indicator of long runs: the real command line with its stderr on a
pseudo-terminal (it appears there, and never on stdout) or on a pipe (it does not appear)."""

import fcntl
import json
import os
import pty
import struct
import subprocess
import sys
import termios
import threading
from pathlib import Path

import pytest

from msacclint import api

ROOT = Path(__file__).resolve().parent.parent
#: enough work for the run to outlast the indicator's delay (msacclint.frontends.progress.DELAY)
#: on a fast machine too: every file (three training scripts in one) is checked, with no
#: cache, in one process
FILES = 40


@pytest.fixture
def tree(tmp_path):
    source = "\n".join((ROOT / "examples" / name).read_text(encoding="utf-8")
                       for name in ("train.py", "train_custom_loop.py", "train_mixed_precision.py"))
    for i in range(FILES):
        (tmp_path / f"train_{i:02d}.py").write_text(source, encoding="utf-8")
    return tmp_path


def _run(args, cwd, stderr_on_terminal):
    """stdout on a pipe; stderr on a pseudo-terminal (80 columns) or on a pipe."""
    command = [sys.executable, "-m", "msacclint", *args]
    if not stderr_on_terminal:
        done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=300)
        return done.returncode, done.stdout, done.stderr
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    chunks = []

    def drain():
        while True:
            try:
                data = os.read(leader, 4096)
            except OSError:  # the terminal closed (Linux: EIO once the child's end is gone)
                return
            if not data:
                return
            chunks.append(data)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, stderr=follower, stdin=subprocess.DEVNULL)
        os.close(follower)
        stdout, _ = process.communicate(timeout=300)
        reader.join(timeout=30)
    finally:
        os.close(leader)
    return process.returncode, stdout.decode("utf-8"), b"".join(chunks).decode("utf-8", "replace")


ARGS = ["check", "--no-cache", "--jobs", "1", "--select", "ALL"]


def test_indicator_on_a_terminal_goes_to_stderr_only(tree):
    """With --format json the findings on stdout stay parseable JSON."""
    code, stdout, stderr = _run([*ARGS, "--format", "json", "."], tree, stderr_on_terminal=True)
    assert code == 1
    # tqdm's bar: the description, a count of the files and the unit
    assert "msacclint:" in stderr and f"/{FILES} [" in stderr and "file/s" in stderr, stderr
    # the bar is erased at the end and the summary line follows on its own
    assert stderr.rstrip().splitlines()[-1].startswith("Found "), stderr
    assert "file/s" not in stdout and "\r" not in stdout
    findings = json.loads(stdout)
    assert {f["path"] for f in findings} == {f"train_{i:02d}.py" for i in range(FILES)}


def test_no_indicator_when_stderr_is_a_pipe(tree):
    code, stdout, stderr = _run([*ARGS, "."], tree, stderr_on_terminal=False)
    assert code == 1
    assert stderr.startswith("Found ") and stderr.count("\n") == 1, stderr
    assert "file/s" not in stderr + stdout and "\r" not in stderr


def test_quiet_draws_nothing_on_a_terminal(tree):
    code, stdout, stderr = _run([*ARGS, "--quiet", "."], tree, stderr_on_terminal=True)
    assert code == 1
    assert stderr == "", stderr
    assert "train_00.py:" in stdout


def test_report_draws_the_indicator_too(tree):
    code, stdout, stderr = _run(["report", "--no-cache", "."], tree, stderr_on_terminal=True)
    assert code == 0
    assert f"/{FILES} [" in stderr, stderr
    assert "file/s" not in stdout and stdout.startswith("#")


def test_library_callback_counts_every_file(tree):
    """The callback of LintOptions.progress is told (done, total), cached files at once."""
    seen = []
    options = api.LintOptions(jobs=1, progress=lambda done, total: seen.append((done, total)))
    run = api.lint_paths([str(tree)], options)
    assert len(run.files) == FILES
    assert seen[0] == (0, FILES) and seen[-1] == (FILES, FILES)
    assert [done for done, _ in seen] == sorted(done for done, _ in seen)
    # a warm run: everything comes from the cache, counted at once
    seen.clear()
    api.lint_paths([str(tree)], options)
    assert seen == [(FILES, FILES)]


def test_parallel_run_reports_progress_too(tree):
    seen = []
    api.lint_paths([str(tree)], api.LintOptions(jobs=2, use_cache=False,
                                                progress=lambda done, total: seen.append((done, total))))
    assert seen[0] == (0, FILES) and seen[-1] == (FILES, FILES)
    assert len(seen) > 2  # told as the workers' chunks come back, not only at the end


def test_fix_runs_erase_the_indicator_before_their_summary(tree):
    """--diff (like --fix) checks every file first: the indicator shows during that check and
    is gone before the diff's summary line, which stays on the terminal."""
    code, stdout, stderr = _run([*ARGS, "--diff", "--unsafe-fixes", "."], tree, stderr_on_terminal=True)
    assert code == 1
    assert f"/{FILES} [" in stderr, stderr
    assert stderr.rstrip().splitlines()[-1].startswith("Would fix "), stderr
    assert stdout.startswith("--- a/") and "file/s" not in stdout
