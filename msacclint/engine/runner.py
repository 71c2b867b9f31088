"""The engine: one file's text in, its diagnostics out.

Every front end (CLI, flake8 plugin, editor server, report, --fix) calls ``check_source``.
The file is parsed once, its import table read once, and every enabled rule runs in one
batched LibCST traversal. Positions are computed only when something was found.
"""

from __future__ import annotations

import gc
import sys
import traceback
from typing import Callable, Dict, FrozenSet, Iterable, List, Mapping, Optional, Sequence, Tuple, Type, Union

import libcst as cst
from libcst.metadata import CodeRange

from msacclint.analysis.cells import never_used
from msacclint.analysis.context import FileContext
from msacclint.analysis.edits import replacement
from msacclint.analysis.facts import FileFacts
from msacclint.analysis.imports import ImportTable
from msacclint.analysis.inert_runs import set_up_cannot_matter
from msacclint.analysis.port import torch_weights
from msacclint.analysis.positions import node_positions
from msacclint.analysis.snapshot import signatures_for
from msacclint.analysis.source import MAX_SOURCE_BYTES, TOO_DEEP, decode, too_large
from msacclint.analysis.source import parse as _parse
from msacclint.analysis.uses import NameUses
from msacclint.analysis.walk import Collector, NodeCallback, Traversal
from msacclint.diagnostics import Diagnostic, Edit, FileResult, Fix, Reach, Related, Severity
from msacclint.engine import dormant, grading, noqa
from msacclint.engine.bad_input import BAD_INPUT, with_other_files_note
from msacclint.engine.registry import rules_by_code
from msacclint.project.index import ProjectIndex
from msacclint.rules.base import FixSpec, Report, Rule, visitor_names
from msacclint.settings import Settings

RULE_CRASHED = "MSA002"

#: the text a file must contain to be parsed at all
PREFILTER = "mindspore"
def check_source(source: Union[str, bytes], path: str, settings: Settings,
                 project: Optional[ProjectIndex] = None) -> List[Diagnostic]:
    """All diagnostics for one file, sorted, with ``# noqa`` applied when the settings say so.
    ``project``: the repository's ProjectIndex (msacclint.project.load_index), or None."""
    return analyse_source(source, path, settings, project).diagnostics


def analyse_source(source: Union[str, bytes], path: str, settings: Settings,
                   project: Optional[ProjectIndex] = None) -> FileResult:
    """``check_source``, plus what the file uses when the settings ask for it."""
    codes = settings.codes_for(path)
    nothing: Optional[FrozenSet[str]] = frozenset() if settings.collect_uses else None

    def unreadable(message: str, line: int = 1, column: int = 1) -> FileResult:
        # the project layer cannot read the file either: the one MSA001 says so
        # (msacclint.engine.bad_input)
        if project is not None:
            message = with_other_files_note(message)
        return FileResult(_bad_input(path, message, codes, line, column), nothing)

    if len(source) > MAX_SOURCE_BYTES:
        return unreadable(too_large(len(source)))
    if isinstance(source, bytes):
        text, problem = decode(source)
        if problem is not None:
            return unreadable(problem)
    else:
        text = source
    if PREFILTER not in text:
        return FileResult([], nothing)
    _ensure_recursion_limit()
    module = project.take_parsed(path, text) if project is not None else None
    problem_at = None
    if module is None:
        module, problem_at = _parse(text)
    if module is None:
        assert problem_at is not None  # parse gives a problem whenever it gives no module
        message, line, column = problem_at
        return unreadable(message, line, column)
    if project is not None:
        project.checking(path, text, module)
    try:
        imports = ImportTable.from_module(module)
        if not imports.mentions("mindspore"):
            return FileResult([], nothing)
        if project is not None and project.patched():
            kept = project.kept_replacements(signatures_for(settings))
            imports.hide_replaced(project.patched(), {name: (e.path, e.line, e.what) for name, e in kept.items()})
        ctx = FileContext(path=path, source=text, module=module, imports=imports, settings=settings,
                          project=project)
        uses = NameUses(imports) if settings.collect_uses else None
        found = run_rules(ctx, [rules_by_code()[c] for c in sorted(codes) if c in rules_by_code()],
                          also=(uses,) if uses is not None else ())
        weights = _torch_weights(ctx)
    except RecursionError:
        return FileResult(_bad_input(path, TOO_DEEP, codes), nothing)
    if settings.honour_noqa:
        found = noqa.filter_noqa(text, found)
    return FileResult(sorted(found, key=Diagnostic.sort_key), uses.result() if uses is not None else None,
                      weights)


def _torch_weights(ctx: FileContext) -> Optional[Tuple[int, str]]:
    """Where the file loads PyTorch weights (line, how), read from the calls the traversal
    collected: the ``port`` profile suggestion of a run needs no second parse."""
    hit = torch_weights(ctx)
    if hit is None:
        return None
    node, what = hit
    where = node_positions(ctx.module, [node]).get(node)
    return (where.start.line if where is not None else 1), what


def _bad_input(path: str, message: str, codes: FrozenSet[str], line: int = 1, column: int = 1) -> List[Diagnostic]:
    if BAD_INPUT not in codes:
        return []
    return [_engine_diagnostic(BAD_INPUT, path, message, line, column)]


def _engine_diagnostic(code: str, path: str, message: str, line: int = 1, column: int = 1) -> Diagnostic:
    rule = rules_by_code()[code]
    return Diagnostic(code, rule.checklist, rule.severity, path, max(line, 1), max(column, 1),
                      max(line, 1), max(column, 1), message)


#: factories of extra read-only collectors that join every file's traversal (the project
#: layer's per-file summary); each result is stored in ``ctx.collected[name]``
COLLECTORS: Dict[str, Callable[[FileContext], Optional[Collector]]] = {}


def register_collector(name: str, factory: Callable[[FileContext], Optional[Collector]]) -> None:
    """Have ``factory(ctx)`` join the engine's single traversal of every checked file.

    The collector's ``visitors()`` are called during the walk, its ``done()`` after it;
    the instance is then available to rules (in ``finish``) and to the caller as
    ``ctx.collected[name]``. A factory returning None sits that file out. See
    docs/dev/architecture.md."""
    COLLECTORS[name] = factory


def _project_summary(ctx: FileContext) -> Optional[Collector]:
    """The project layer's summary of the checked file, gathered in the same traversal
    (None: no project, or its summary is known already)."""
    if ctx.project is None:
        return None
    collector: Optional[Collector] = ctx.project.summary_collector(ctx.path, ctx.source)
    return collector


register_collector("project.summary", _project_summary)


def run_rules(ctx: FileContext, rule_classes: Sequence[Type[Rule]],
              collectors: Optional[Dict[str, Callable[[FileContext], Optional[Collector]]]] = None,
              also: Sequence[cst.BatchableCSTVisitor] = ()) -> List[Diagnostic]:
    """Run rules over a parsed file in one traversal; a crashing rule is reported and
    dropped, the others go on. ``collectors`` (default: the registered ones) join the
    same traversal, and so do the visitors of ``also`` (the report's NameUses)."""
    crashed: List[Tuple[Rule, BaseException]] = []
    rules: List[Rule] = []
    for cls in rule_classes:
        if not _has_visitors(cls) and not cls.resolved_calls and cls.finish is Rule.finish:
            continue  # engine codes such as MSA001 have nothing to visit
        try:
            if cls.triggered_by(ctx.source) and cls.applies_to(ctx):
                rules.append(cls(ctx))
        except Exception as exc:
            crashed.append((cls.__new__(cls), exc))
    active = [_Guarded(rule, crashed) for rule in rules]
    traversal = Traversal()
    extra: List[Collector] = []
    for visitor in also:
        traversal.add(visitor.get_visitors())
    facts: Optional[FileFacts] = None
    # the collectors (the project layer's summary of this file) join even when no rule
    # wakes here: another file's question about this one later in the run is then answered
    # from this traversal, not from a second parse of the file
    for name, factory in (COLLECTORS if collectors is None else collectors).items():
        collector = factory(ctx)
        if collector is None:
            continue
        ctx.collected[name] = collector
        traversal.add(collector.visitors())
        extra.append(collector)
    if active:
        facts = FileFacts(ctx)
        ctx.facts["file"] = facts
        traversal.add(facts.visitors())
        calls = _CallIndex(ctx)
        for guard in active:
            traversal.add(guard.visitors())
            wanted = type(guard.rule).resolved_calls
            if wanted:
                calls.add(wanted, guard.wrap(guard.rule.visit_resolved_call))
        if calls.index:
            traversal.add({"visit_Call": calls.visit_Call})
    if active or also or extra:
        # a RecursionError here is the file's nesting, not a rule's fault: it propagates and
        # check_source reports the file as MSA001
        traversal.run(ctx.module)
    if facts is not None:
        facts.done()
    for collector in extra:
        collector.done()
    reports: List[Report] = []
    for guard in active:
        if guard.dead:
            continue
        try:
            guard.rule.finish()
        except Exception as exc:
            crashed.append((guard.rule, exc))
            continue
        reports.extend(guard.rule.reports)
    found = _to_diagnostics(ctx, reports)
    if RULE_CRASHED in ctx.settings.codes_for(ctx.path):
        for rule, error in crashed:
            where = traceback.extract_tb(error.__traceback__)[-1:] if error.__traceback__ else []
            at = f" at {where[0].filename.rsplit('/', 1)[-1]}:{where[0].lineno}" if where else ""
            found.append(_engine_diagnostic(
                RULE_CRASHED, ctx.path,
                f"internal error in rule {type(rule).code} ({type(rule).name}): "
                f"{type(error).__name__}: {error}{at}; the other rules' findings are unaffected"))
    return found


def _has_visitors(cls: Type[Rule]) -> bool:
    return bool(visitor_names(cls))


class _Guarded:
    """Wraps a rule so that an exception in it disables only that rule for the file."""

    def __init__(self, rule: Rule, crashed: List[Tuple[Rule, BaseException]]) -> None:
        self.rule = rule
        self.crashed = crashed
        self.dead = False

    def visitors(self) -> Dict[str, NodeCallback]:
        return {name: self.wrap_visitor(func) for name, func in self.rule.get_visitors().items()}

    def wrap_visitor(self, func: Callable[[cst.CSTNode], object]) -> NodeCallback:
        """``wrap`` for a one-argument visitor (the traversal's hot path: no varargs)."""
        def guarded(node: cst.CSTNode) -> None:
            if self.dead:
                return
            try:
                func(node)
            except RecursionError:
                raise
            except Exception as exc:
                self.dead = True
                self.crashed.append((self.rule, exc))

        return guarded

    def wrap(self, func: Callable[..., None]) -> Callable[..., None]:
        def guarded(node: cst.CSTNode, *more: object) -> None:
            if self.dead:
                return
            try:
                func(node, *more)
            except RecursionError:
                raise
            except Exception as exc:
                self.dead = True
                self.crashed.append((self.rule, exc))

        return guarded


class _CallIndex:
    """Every call's callee resolved once, handed to the rules that asked for that name."""

    def __init__(self, ctx: FileContext) -> None:
        self.ctx = ctx
        self.index: Dict[str, List[Callable[..., None]]] = {}

    def add(self, names: Iterable[str], callback: Callable[..., None]) -> None:
        for name in names:
            self.index.setdefault(name, []).append(callback)

    def visit_Call(self, node: cst.CSTNode) -> None:
        assert isinstance(node, cst.Call)
        if isinstance(node.func, cst.Call):  # f(...)(...) calls what f returns, not f
            return
        callee = self.ctx.callee(node)
        if callee is not None:
            for callback in self.index.get(callee, ()):
                callback(node, callee)


def _to_diagnostics(ctx: FileContext, reports: Iterable[Report]) -> List[Diagnostic]:
    reports = list(reports)
    if not reports:
        return []
    if ctx.project is not None:
        # what in this file raises on every supported release: code after it cannot run
        ctx.project.note_raising(ctx)
    # where a finding is, is it run? (msacclint.project.reach; engine/grading.py lowers the
    # findings in code nothing reaches). Definitions' ranges are needed only for the finer
    # note on errors and warnings (a switch no call a run reaches turns on).
    definitions = dormant.candidates(ctx) if ctx.project is not None and any(
        (r.severity or type(r.rule).severity) is not Severity.INFO for r in reports) else []
    # ranges of the reported nodes and of the nodes their fixes replace, nothing else
    positions = node_positions(ctx.module, [r.node for r in reports] + [
        old for r in reports for spec in r.fixes for old, _ in spec.replacements])
    ranges = dormant.line_ranges(ctx, definitions) if definitions else {}
    found = []
    seen = set()
    for report in reports:
        where = positions.get(report.node)
        if where is None:
            continue
        rule = type(report.rule)
        fixes = tuple(f for f in (_to_fix(ctx, spec, positions) for spec in report.fixes) if f is not None)
        severity, message = report.severity or rule.severity, report.message
        reach: Optional[Reach] = None
        trail: Tuple[Related, ...] = ()
        if ctx.project is not None:
            graded = grading.grade(ctx, where.start.line, severity, message, rule.code)
            severity, message, reach, trail = graded.severity, graded.message, graded.reach, graded.trail
        if reach is Reach.RUNS and severity is not Severity.INFO and definitions:
            definition = dormant.enclosing(where.start.line, definitions, ranges)
            if definition is not None:
                note = dormant.switched_off_note(ctx, definition, report.node)
                if note is not None:
                    severity, message = dormant.adjust(severity, message, note)
                    reach = Reach.DORMANT
        if severity is not Severity.INFO and rule.code not in ("MSA503", "MSA004"):
            unused = never_used(ctx, report.node)
            if unused is not None:
                severity = Severity.INFO
                message = (message.rstrip() + f" (info: self.{unused} is built in __init__ and never used, so this "
                           "layer never runs)")
        if rule.about_the_run and severity is not Severity.INFO:
            why = set_up_cannot_matter(ctx, report.node)
            if why is not None:
                severity, message = Severity.INFO, message.rstrip() + f" (info: {why})"
        related = tuple(Related(p, line, text) for p, line, text in report.related)
        stand_in = _stand_in(ctx, report.node)
        if stand_in is not None:
            name, (path, line, what) = stand_in
            message = message.rstrip() + (f" ({name.replace('mindspore.', '', 1)} here is the project's replacement, "
                                          f"{what.split(' ', 1)[0]} at {path}:{line}, which keeps MindSpore's "
                                          "parameters and defaults)")
            related += (Related(path, line, what),)
        diag = Diagnostic(
            code=rule.code,
            checklist=rule.checklist,
            severity=severity,
            path=ctx.path,
            line=where.start.line,
            column=where.start.column + 1,
            end_line=where.end.line,
            end_column=where.end.column + 1,
            message=message,
            fixes=fixes,
            related=related,
            reach=reach,
            trail=trail,
        )
        key = (diag.code, diag.line, diag.column, diag.message)
        if key not in seen:
            seen.add(key)
            found.append(diag)
    return found


def _stand_in(ctx: FileContext, node: cst.CSTNode) -> Optional[Tuple[str, Tuple[str, int, str]]]:
    """The replaced MindSpore name a reported call calls, when the project's replacement keeps
    MindSpore's parameters (``ImportTable.stand_ins``): (name, where the class is)."""
    if not ctx.imports.stand_ins or not isinstance(node, cst.Call):
        return None
    name = ctx.resolve(node.func)
    if name is None:
        return None
    found = ctx.imports.stand_ins.get(name)
    return (name, found) if found is not None else None


def _to_fix(ctx: FileContext, spec: FixSpec, positions: Mapping[cst.CSTNode, CodeRange]) -> Optional[Fix]:
    edits = []
    for old, new in spec.replacements:
        where = positions.get(old)
        if where is None:
            return None
        span, text = replacement(ctx.module, ctx.source, old, new, (
            where.start.line, where.start.column + 1, where.end.line, where.end.column + 1))
        edits.append(Edit(*span, text))
    return Fix(spec.description, spec.applicability, tuple(edits))


def severity_counts(diagnostics: Iterable[Diagnostic]) -> Dict[Severity, int]:
    counts = {s: 0 for s in Severity}
    for d in diagnostics:
        counts[d.severity] += 1
    return counts


#: LibCST's parser and code generation recurse per nesting level; model code is shallow,
#: generated code is not
RECURSION_LIMIT = 3000


#: Python's cyclic garbage collector examines every live object at a full collection, and
#: by default makes one after every 10 collections of the middle generation. A check keeps
#: many objects alive (the project's summaries, parsed modules kept for a later check, the
#: rule tables) while each parse makes millions of short-lived ones, so the default spends
#: about a third of a run's CPU in full collections that find little (mindcv: check 6.7 s
#: CPU by default, 4.5 s with this). Full collections 30 times rarer cost about 25 % more
#: peak memory on the benchmark corpora (docs/evaluation/performance.md).
FULL_COLLECTION_THRESHOLD = 300


def _ensure_recursion_limit() -> None:
    """Raised (never lowered) when a file is checked, not when msacclint is imported; the
    garbage collector's full-collection threshold likewise (``FULL_COLLECTION_THRESHOLD``)."""
    if sys.getrecursionlimit() < RECURSION_LIMIT:
        sys.setrecursionlimit(RECURSION_LIMIT)
    young, middle, full = gc.get_threshold()
    if full < FULL_COLLECTION_THRESHOLD:
        gc.set_threshold(young, middle, FULL_COLLECTION_THRESHOLD)
