"""Benchmark msacclint against the LibCST floor, flake8, TorchFix and Fixit on the same files.

    python bench/speed/run.py [CORPUS...] [--files N] [--sample N] [--jobs N] [--write docs/evaluation/performance.md]

Without CORPUS, two corpora are generated (bench/speed/make_corpus.py): N MindSpore files, and N
files of which 80 % never mention mindspore. Every command is a fresh process run on the
same file list, timed by wall clock (interpreter start-up included, as a user sees it);
peak RSS is that of the largest process of the command's tree (os.wait4). The slow
baselines (parse + QualifiedNameProvider, TorchFix, Fixit) run on the first ``--sample``
files of a corpus, which is enough for a rate. TorchFix and Fixit are looked up on PATH or
in the virtualenvs named by --torchfix / --fixit (default .bench-venvs/torchfix and
.bench-venvs/fixit under the current folder); when absent the row shows the line that installs them.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

from msacclint.engine.discovery import discover  # noqa: E402

PY = sys.executable
#: flake8 with every plugin but msacclint's: the baseline the plugin's cost is measured on
FLAKE8_WITHOUT_MSACCLINT = (
    "import sys, flake8.plugins.finder as f; f.BANNED_PLUGINS['msacclint'] = 'never';"
    "from flake8.main.cli import main; sys.argv[0] = 'flake8'; main()"
)
INSTALL = {
    "torchfix": "python -m venv .bench-venvs/torchfix && .bench-venvs/torchfix/bin/pip install torch==2.13.0 torchfix",
    "fixit": "python -m venv .bench-venvs/fixit && .bench-venvs/fixit/bin/pip install fixit",
}


@dataclass
class Row:
    corpus: str
    name: str
    files: int
    seconds: Optional[float]
    rss_mb: Optional[float]
    command: str
    note: str = ""
    returncode: int = 0
    #: user + system CPU seconds of the command and every process it waited for
    cpu: Optional[float] = None

    @property
    def rate(self) -> Optional[float]:
        return self.files / self.seconds if self.seconds else None

    @property
    def cpu_rate(self) -> Optional[float]:
        return self.files / self.cpu if self.cpu else None


@dataclass
class Corpus:
    name: str
    root: Path
    files: List[str]
    mentions: int = 0
    rows: Dict[str, Row] = field(default_factory=dict)


def timed(argv: Sequence[str], cwd: Path, env: Optional[dict] = None, timeout: float = 3600):
    """(seconds, peak RSS in MB, return code) of one command, its output discarded."""
    start = time.perf_counter()
    proc = subprocess.Popen(list(argv), cwd=str(cwd), stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, env=env)
    deadline = start + timeout
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.perf_counter() > deadline:
            proc.kill()
            pid, status, usage = os.wait4(proc.pid, 0)
            break
        time.sleep(0.005)
    seconds = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode("utf-8", "replace") if proc.stderr else ""
    if proc.stderr:
        proc.stderr.close()
    return seconds, usage.ru_maxrss / 1024, proc.returncode, err, usage.ru_utime + usage.ru_stime


def tool(name: str, venv: Optional[str]) -> Optional[str]:
    if venv:
        candidate = Path(venv) / "bin" / name
        if candidate.exists():
            return str(candidate)
    return shutil.which(name)


def load_corpus(path: Path) -> Corpus:
    files = discover([str(path)])
    rel = [os.path.relpath(f, path) for f in files]
    mentions = 0
    for f in files:
        try:
            if b"mindspore" in Path(f).read_bytes():
                mentions += 1
        except OSError:
            pass
    return Corpus(path.name, path, rel, mentions)


def write_list(paths: Sequence[str], folder: Path, name: str) -> Path:
    listing = folder / name
    listing.write_text("\n".join(paths) + "\n", encoding="utf-8")
    return listing


def measure(corpus: Corpus, args, work: Path) -> None:
    files = corpus.files
    sample = files[: args.sample]
    all_list = write_list([str(corpus.root / f) for f in files], work, f"{corpus.name}.all")
    sample_list = write_list([str(corpus.root / f) for f in sample], work, f"{corpus.name}.sample")
    config = work / "pyproject.toml"  # an empty configuration, so that the cache lives in `work`
    config.write_text("[tool.msacclint]\n", encoding="utf-8")
    jobs = args.jobs or os.cpu_count() or 1
    ms = [PY, "-m", "msacclint", "check", "--select", "ALL", "--exit-zero", "--config", str(config)]

    def run(key: str, name: str, argv: List[str], count: int, note: str = "", cwd: Path = corpus.root,
            shown: Optional[str] = None) -> Row:
        seconds, rss, code, err, cpu = timed(argv, cwd)
        if code not in (0, 1):
            note = (note + "; " if note else "") + f"exit {code}: {err.strip().splitlines()[-1:] or ''}"
        row = Row(corpus.name, name, count, seconds, rss, shown or " ".join(_short(a) for a in argv), note, code, cpu)
        corpus.rows[key] = row
        print(f"  {name:<44} {count:>6} files {seconds:8.2f} s {row.rate or 0:9.1f} files/s "
              f"cpu {cpu:8.2f} s {row.cpu_rate or 0:9.1f} files/cpu-s {rss:7.0f} MB {note}", flush=True)
        return row

    print(f"{corpus.name}: {len(files)} files, {corpus.mentions} mention mindspore", flush=True)
    run("parse", "LibCST parse only (1 process)", [PY, str(HERE / "floor.py"), "parse", str(all_list)], len(files))
    if args.quick:
        _run_list(run, "jobs1", "msacclint check --jobs 1 --no-cache", ms + ["--jobs", "1", "--no-cache"], files)
        _run_list(run, "jobsN", f"msacclint check --jobs {jobs} --no-cache", ms + ["--jobs", str(jobs), "--no-cache"],
                  files)
        return
    run("qualified", "LibCST parse + QualifiedNameProvider (1 process)",
        [PY, str(HERE / "floor.py"), "qualified", str(sample_list)], len(sample),
        note=f"first {len(sample)} files")
    cache = work / ".msacclint_cache"
    _run_list(run, "jobs1", "msacclint check --jobs 1 --no-cache", ms + ["--jobs", "1", "--no-cache"], files)
    _run_list(run, "jobsN", f"msacclint check --jobs {jobs} --no-cache",
                                     ms + ["--jobs", str(jobs), "--no-cache"], files)
    shutil.rmtree(cache, ignore_errors=True)
    _run_list(run, "cold", f"msacclint check --jobs {jobs}, empty cache",
                                    ms + ["--jobs", str(jobs)], files)
    _run_list(run, "warm", f"msacclint check --jobs {jobs}, warm cache (unchanged)",
                                    ms + ["--jobs", str(jobs)], files)
    shutil.rmtree(cache, ignore_errors=True)
    flake = [PY, "-m", "flake8", "--jobs", "1", "--isolated"]
    plain = [PY, "-c", FLAKE8_WITHOUT_MSACCLINT, "--jobs", "1", "--isolated"]
    _run_list(run, "flake8_plain", "flake8 --select F, without msacclint (-j 1)",
                                            plain + ["--select", "F"], files)
    _run_list(run, "flake8_msa", "flake8 --select MSA (-j 1)",
                                          flake + ["--select", "MSA"], files)
    _run_list(run, "sample", f"msacclint check --jobs {jobs} --no-cache (sample)",
                                      ms + ["--jobs", str(jobs), "--no-cache"], sample)
    torchfix = tool("torchfix", args.torchfix)
    if torchfix:
        _run_list(run, "torchfix", "TorchFix --select ALL (sample)",
                                            [torchfix, "--select", "ALL"], sample)
    else:
        corpus.rows["torchfix"] = Row(corpus.name, "TorchFix (not installed)", 0, None, None, INSTALL["torchfix"])
    fixit = tool("fixit", args.fixit)
    if fixit:
        _run_list(run, "fixit", "Fixit lint, default rules (sample)", [fixit, "lint"], sample)
    else:
        corpus.rows["fixit"] = Row(corpus.name, "Fixit (not installed)", 0, None, None, INSTALL["fixit"])


def _run_list(run, key: str, name: str, argv: List[str], files: List[str]) -> Row:
    """Run a command with the corpus's files (relative to the corpus) as arguments."""
    shown = " ".join(_short(a) for a in argv) + " FILES"
    return run(key, name, argv + list(files), len(files), shown=shown)


def _short(arg: str) -> str:
    if arg == PY:
        return "python"
    if arg.startswith("import sys, flake8"):
        return "'<flake8 with msacclint's entry point banned>'"
    if "/" in arg and os.path.exists(arg):
        return os.path.basename(arg)
    return arg


def ratio(a: Optional[float], b: Optional[float]) -> Optional[float]:
    return a / b if a and b else None


def targets(corpora: List[Corpus]) -> List[tuple]:
    """(target, corpus, measured, goal, met) for every target that a corpus can show."""
    out = []
    for c in corpora:
        r = dict(c.rows)
        for key in ("jobs1", "jobsN", "cold", "warm", "torchfix", "fixit", "flake8_msa", "flake8_plain", "sample"):
            r.setdefault(key, Row(c.name, key, 0, None, None, ""))
        mostly_ms = c.mentions >= 0.5 * len(c.files)
        if mostly_ms:
            v = ratio(r["jobs1"].cpu_rate, r["parse"].cpu_rate)
            out.append(("one job vs bare parse (MindSpore files)", c.name, v, 0.5, v is not None and v >= 0.5))
        if len(c.files) >= 1000:
            v = ratio(r["jobsN"].rate, r["jobs1"].rate)
            out.append(("all cores vs one job (1,000+ files)", c.name, v, 1.7, v is not None and v >= 1.7))
        if c.mentions <= 0.25 * len(c.files):
            v = ratio(r["jobs1"].cpu_rate, r["parse"].cpu_rate)
            out.append(("one job vs bare parse, ~80 % files without mindspore", c.name, v, 2.5,
                        v is not None and v >= 2.5))
        if r["warm"].seconds:
            v = ratio(r["cold"].cpu, r["warm"].cpu)
            out.append(("warm re-run vs cold (with cache)", c.name, v, 20, v is not None and v >= 20))
        for key, label in (("torchfix", "TorchFix"), ("fixit", "Fixit")):
            if r[key].seconds:
                v = ratio(r["sample"].cpu_rate, r[key].cpu_rate)
                out.append((f"msacclint vs {label} (same sample, all cores each)", c.name, v, 5,
                            v is not None and v >= 5))
        if r["flake8_msa"].seconds and r["flake8_plain"].seconds:
            extra = r["flake8_msa"].cpu - r["flake8_plain"].cpu
            v = ratio(extra, r["parse"].cpu)
            out.append(("flake8 plugin's added time / bare parse time", c.name, v, 1.0, v is not None and v <= 1.0))
        if len(c.files) >= 5000:
            peak = max(r[k].rss_mb or 0 for k in ("jobs1", "jobsN", "cold", "warm"))
            out.append(("peak RSS of a run, MB (5,000+ files)", c.name, peak, 300, peak < 300))
    return out


def versions() -> Dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    out = {"python": platform.python_version()}
    for name in ("msacclint", "libcst", "flake8", "pyflakes"):
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = "not installed"
    return out


def tool_version(path: Optional[str], package: str) -> str:
    if not path:
        return "not installed"
    python = Path(path).parent / "python"
    try:
        code = f"from importlib.metadata import version; print(version({package!r}))"
        return subprocess.run([str(python), "-c", code],
                              capture_output=True, text=True, timeout=60).stdout.strip() or "?"
    except (OSError, subprocess.SubprocessError):
        return "?"


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        load = "?"
    return f"{platform.system()} {platform.release()}, {os.cpu_count()} cores ({cpu}), load average at start {load}"


def _fmt(v: Optional[float], digits: int = 1) -> str:
    return "–" if v is None else f"{v:,.{digits}f}"


def render(corpora: List[Corpus], args, started: str, info: Dict[str, str]) -> str:
    lines = ["| corpus | command | files | wall s | files/s | CPU s | files/CPU-s | × bare parse (CPU) | peak RSS MB |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for c in corpora:
        parse = c.rows["parse"].cpu_rate
        for row in c.rows.values():
            name = row.name + (f" ({row.note})" if row.note else "")
            lines.append(f"| {c.name} | {name} | {row.files} | {_fmt(row.seconds, 2)} | {_fmt(row.rate)} | "
                         f"{_fmt(row.cpu, 2)} | {_fmt(row.cpu_rate)} | {_fmt(ratio(row.cpu_rate, parse), 2)} | "
                         f"{_fmt(row.rss_mb, 0)} |")
    lines += ["", "| target | corpus | measured | goal | met |", "|---|---|---:|---:|---|"]
    for name, corpus, value, goal, met in targets(corpora):
        bound = '≤' if 'added' in name or 'RSS' in name else '≥'
        lines.append(f"| {name} | {corpus} | {_fmt(value, 2)} | {bound} {goal} | "
                     f"{'yes' if met else '**no**'} |")
    lines += ["", "Commands (run in the corpus folder; FILES is the corpus's file list as msacclint discovers it):", ""]
    seen = set()
    for c in corpora:
        for row in c.rows.values():
            if row.command not in seen:
                seen.add(row.command)
                lines.append(f"- {row.name}: `{row.command}`")
    lines += ["", f"Run {started} on {machine()}.",
              "Versions: " + ", ".join(f"{k} {v}" for k, v in info.items()) + "."]
    for c in corpora:
        lines.append(f"Corpus {c.name}: {len(c.files)} files, {c.mentions} mention mindspore ({c.root}).")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpora", nargs="*", type=Path, help="folders to measure (default: generated corpora)")
    parser.add_argument("--files", type=int, default=1000, help="size of each generated corpus")
    parser.add_argument("--sample", type=int, default=150, help="files for the slow baselines")
    parser.add_argument("--jobs", type=int, default=None, help="'all cores' (default: os.cpu_count())")
    parser.add_argument("--quick", action="store_true",
                        help="only the parse floor and msacclint with one and all jobs "
                             "(e.g. for peak RSS on a big corpus)")
    parser.add_argument("--torchfix", default=".bench-venvs/torchfix", help="virtualenv holding torchfix")
    parser.add_argument("--fixit", default=".bench-venvs/fixit", help="virtualenv holding fixit")
    parser.add_argument("--write", type=Path, default=None, metavar="MARKDOWN",
                        help="also write the table to this file (e.g. docs/evaluation/performance.md's table part)")
    args = parser.parse_args(argv)
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    with tempfile.TemporaryDirectory(prefix="msacclint-bench-") as tmp:
        work = Path(tmp)
        roots = list(args.corpora)
        if not roots:
            from make_corpus import write_corpus  # bench/ is on sys.path when run as a script

            for name, share in (("generated-mindspore", 0.0), ("generated-80pc-plain", 0.8)):
                write_corpus(work / "corpora" / name, args.files, share)
                roots.append(work / "corpora" / name)
        corpora = []
        for root in roots:
            corpus = load_corpus(root.resolve())
            measure(corpus, args, work)
            corpora.append(corpus)
    info = versions()
    info["torchfix"] = tool_version(tool("torchfix", args.torchfix), "torchfix")
    info["fixit"] = tool_version(tool("fixit", args.fixit), "fixit")
    table = render(corpora, args, started, info)
    print()
    print(table)
    if args.write:
        args.write.parent.mkdir(parents=True, exist_ok=True)
        args.write.write_text(table, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
