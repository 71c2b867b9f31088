"""Stage profile and ratio to a bare parse, in CPU time, in one process.

    python bench/speed/profile.py CORPUS [CORPUS...] [--json OUT] [--no-stages] [--no-project]
                                  [--repeat N] [--both]

For each corpus (a folder; msacclint's discovery picks the files): a bare
``libcst.parse_module`` loop over the files, then ``check_source`` on the same bytes with
every default rule on and no cache, both timed by ``time.process_time`` (user + system
of this process). The ratio is parse CPU / check CPU: 1.0 would be a linter as fast as
the parse alone. Then, unless ``--no-stages``, a second checking pass with timers around
each stage (no cProfile): parse, the traversal itself, every rule's own visitor and
finish methods, every analysis question (each public function of msacclint.analysis,
its own time without the questions it asks in turn), positions. The stage pass pays for
its timers, so the ratio comes from the first, untimed pass.
"""

from __future__ import annotations

import argparse
import functools
import inspect
import json
import os
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

import libcst as cst  # noqa: E402

from msacclint.engine.discovery import discover  # noqa: E402
from msacclint.engine.registry import all_rules, default_codes  # noqa: E402
from msacclint.settings import Settings  # noqa: E402


def load(corpus: str) -> List[Tuple[str, bytes]]:
    out = []
    for path in discover([os.path.abspath(corpus)]):
        with open(path, "rb") as handle:
            out.append((path, handle.read()))
    return out


def bare_parse(files: List[Tuple[str, bytes]]) -> float:
    start = time.process_time()
    for _, data in files:
        try:
            cst.parse_module(data)
        except Exception:
            pass
    return time.process_time() - start


def check_all(files: List[Tuple[str, bytes]], settings: Settings,
              corpus: Optional[str] = None) -> Tuple[float, int]:
    """``corpus``: the project layer included - a fresh, uncached ProjectIndex of that
    folder, built inside the timed span (its summaries are made on first use)."""
    from msacclint.engine.runner import check_source
    from msacclint.project.index import load_index

    count = 0
    start = time.process_time()
    project = load_index(corpus) if corpus is not None else None
    if project is not None:  # as the engine's batch does: these files are checked in this run
        project.pending = {os.path.normpath(path) for path, _ in files}
    for path, data in files:
        if project is not None:
            project.begin()
            project.prime(path, data)
        count += len(check_source(data, path, settings, project))
        if project is not None:
            project.checked(path)
    return time.process_time() - start, count


def whole_run(corpus: str) -> float:
    """The CPU time of a run as ``msacclint check --jobs 1 --no-cache CORPUS`` makes it, in
    this process: the files found, checked with the project layer, and what the run adds
    after the checks (the ``port`` profile suggestion). ``check_all`` times the engine
    alone; this catches work a front end adds around it."""
    from msacclint import api

    start = time.process_time()
    run = api.lint_paths([corpus], api.LintOptions(jobs=1, use_cache=False))
    api.port_suggestion_for(run)
    return time.process_time() - start


class Stages:
    """Exclusive CPU time per stage: a stage's time excludes the stages it calls."""

    def __init__(self) -> None:
        self.own: Dict[str, float] = defaultdict(float)
        self.calls: Dict[str, int] = defaultdict(int)
        self.stack: List[List[float]] = []

    def wrap(self, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        clock = time.process_time
        own, calls, stack = self.own, self.calls, self.stack

        @functools.wraps(fn)
        def timed(*args: Any, **kwargs: Any) -> Any:
            frame = [0.0]
            stack.append(frame)
            start = clock()
            try:
                return fn(*args, **kwargs)
            finally:
                spent = clock() - start
                stack.pop()
                own[name] += spent - frame[0]
                calls[name] += 1
                if stack:
                    stack[-1][0] += spent

        timed._stage_wrapped = True  # type: ignore[attr-defined]
        return timed


def _replace_everywhere(original: Any, replacement: Any) -> None:
    """Point every msacclint module's reference to ``original`` at ``replacement``."""
    for name, module in list(sys.modules.items()):
        if not name.startswith("msacclint") or module is None:
            continue
        for attr, value in list(vars(module).items()):
            if value is original:
                setattr(module, attr, replacement)


def instrument(stages: Stages) -> None:
    import importlib
    import pkgutil

    import msacclint.analysis as analysis
    from msacclint.engine import runner

    for info in pkgutil.iter_modules(analysis.__path__):
        importlib.import_module(f"msacclint.analysis.{info.name}")
    for rule in all_rules():
        importlib.import_module(rule.__module__)
    # analysis questions: public functions and public methods of public classes
    for info in pkgutil.iter_modules(analysis.__path__):
        module = sys.modules[f"msacclint.analysis.{info.name}"]
        for attr, value in list(vars(module).items()):
            if attr.startswith("_") or getattr(value, "__module__", None) != module.__name__:
                continue
            if inspect.isfunction(value):
                _replace_everywhere(value, stages.wrap(f"analysis {info.name}.{attr}", value))
            elif inspect.isclass(value):
                for meth, func in list(vars(value).items()):
                    if inspect.isfunction(func) and (not meth.startswith("_") or meth == "__init__"):
                        setattr(value, meth, stages.wrap(f"analysis {info.name}.{attr}.{meth}", func))
    # rules: their own visitor methods, applies_to and finish; a base class shared by a
    # family of rules (the table's CallRule) is one stage named after the class
    users: Dict[type, List[type]] = defaultdict(list)
    for rule in all_rules():
        for cls in rule.__mro__:
            if cls.__module__.startswith("msacclint.engine") or cls is object:
                break
            users[cls].append(rule)
    for cls, rules in users.items():
        label = f"rule {rules[0].code} {cls.__name__}" if len(rules) == 1 else f"rule family {cls.__name__} ({len(rules)} rules)"
        for meth, func in list(vars(cls).items()):
            if meth.startswith(("visit_", "leave_", "on_")) or meth in ("finish", "__init__", "get_visitors"):
                if inspect.isfunction(func):
                    setattr(cls, meth, stages.wrap(label, func))
    runner._parse = stages.wrap("parse", runner._parse)  # the engine reads it by this name
    runner._to_diagnostics = stages.wrap("positions and diagnostics", runner._to_diagnostics)
    runner.run_rules = stages.wrap("traversal (engine's own)", runner.run_rules)
    # the project layer: summaries made on their own, the parse they need, the deferred
    # lines of the summaries collected in the traversal
    from msacclint.project import index as project_index
    try:  # the collector has its own module since round 11; older trees keep it in summary
        from msacclint.project import collect as project_summary
    except ImportError:
        from msacclint.project import summary as project_summary

    project_index.ProjectIndex._build = stages.wrap("project summary on its own (walk)",
                                                    project_index.ProjectIndex._build)
    project_index.parse = stages.wrap("parse", project_index.parse)
    project_summary.line_table = stages.wrap("project summary lines (ast)", project_summary.line_table)
    project_index.ProjectIndex.summary = stages.wrap("project summary lookup/cache", project_index.ProjectIndex.summary)
    for meth in ("visit_Call", "visit_Assign", "visit_ClassDef", "visit_FunctionDef", "visit_Return",
                 "visit_Attribute", "visit_Import", "visit_ImportFrom", "leave_FunctionDef", "leave_ClassDef"):
        setattr(project_summary.SummaryCollector, meth, stages.wrap(
            "project summary collector", getattr(project_summary.SummaryCollector, meth)))
    if hasattr(runner, "ImportTable"):
        runner.ImportTable.from_module = classmethod(stages.wrap(
            "analysis imports.ImportTable.from_module", runner.ImportTable.from_module.__func__))


def main(argv: List[str]) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("corpus", nargs="+")
    parser.add_argument("--json")
    parser.add_argument("--no-stages", action="store_true")
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--repeat", type=int, default=1,
                        help="measure parse and check this many times, alternately; keep the least of each")
    parser.add_argument("--both", action="store_true",
                        help="also time the per-file check (no project layer) in the same rounds")
    parser.add_argument("--no-project", action="store_true",
                        help="per-file checks only (no cross-file project layer)")
    parser.add_argument("--run", action="store_true",
                        help="also time a whole run as `msacclint check --jobs 1 --no-cache` makes it")
    args = parser.parse_args(argv)
    settings = Settings(enabled=default_codes())
    results: Dict[str, Any] = {}
    loaded = {c: load(c) for c in args.corpus}
    for corpus, files in loaded.items():
        check_all(files[:3], settings)  # imports and lazy tables, not part of the figure
        parse = check = per_file = run = float("inf")
        for _ in range(args.repeat):  # alternated, the least of each: other jobs' load evens out
            parse = min(parse, bare_parse(files))
            spent, found = check_all(files, settings, None if args.no_project else corpus)
            check = min(check, spent)
            if args.both:
                per_file = min(per_file, check_all(files, settings, None)[0])
            if args.run:
                run = min(run, whole_run(corpus))
        name = os.path.basename(os.path.abspath(corpus))
        results[name] = {"files": len(files), "parse_cpu": round(parse, 3), "check_cpu": round(check, 3),
                         "ratio": round(parse / check, 3), "diagnostics": found}
        print(f"{name}: {len(files)} files; bare parse {parse:.2f} CPU-s, check {check:.2f} CPU-s; "
              f"rate {parse / check:.2f}x a bare parse; {found} diagnostics", flush=True)
        if args.both:
            results[name].update(per_file_cpu=round(per_file, 3), per_file_ratio=round(parse / per_file, 3),
                                 project_cost=round(check / per_file, 3))
            print(f"{name}: per file (no project layer) {per_file:.2f} CPU-s, rate {parse / per_file:.2f}x a bare "
                  f"parse; with the project layer {check / per_file:.2f}x the per-file time", flush=True)
        if args.run:
            results[name].update(run_cpu=round(run, 3), run_ratio=round(parse / run, 3))
            print(f"{name}: whole run (msacclint check's work, in process) {run:.2f} CPU-s, rate {parse / run:.2f}x "
                  f"a bare parse", flush=True)
    if not args.no_stages:
        stages = Stages()
        instrument(stages)
        for corpus, files in loaded.items():
            stages.own.clear()
            stages.calls.clear()
            start = time.process_time()
            check_all(files, settings, None if args.no_project else corpus)
            total = time.process_time() - start
            name = os.path.basename(os.path.abspath(corpus))
            rows = sorted(stages.own.items(), key=lambda kv: -kv[1])
            print(f"\nstage profile of {name} (CPU-s, own time; total {total:.2f} with timers)")
            for stage, spent in rows[: args.top]:
                print(f"  {spent:8.2f}  {100 * spent / total:5.1f} %  {stages.calls[stage]:>8} calls  {stage}")
            rest = sum(s for _, s in rows[args.top:])
            print(f"  {rest:8.2f}  {100 * rest / total:5.1f} %  (the other {max(len(rows) - args.top, 0)} stages)")
            results[name]["stages"] = {k: [round(v, 4), stages.calls[k]] for k, v in rows}
            results[name]["stage_total"] = round(total, 3)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.setrecursionlimit(3000)
    raise SystemExit(main(sys.argv[1:]))
