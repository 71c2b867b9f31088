"""The engine: one file's text in, its diagnostics out.

Every front end (CLI, flake8 plugin, editor server, report, --fix) calls ``check_source``.
The file is parsed once, its import table read once, and every enabled rule runs in one
batched LibCST traversal. Positions are computed only when something was found.
"""

from __future__ import annotations

import io
import re
import sys
import tokenize
import traceback
from typing import Callable, Iterable, List, Optional, Sequence, Tuple, Type, Union

import libcst as cst
from libcst._batched_visitor import visit_batched
from libcst.metadata import MetadataWrapper, PositionProvider

from msacclint.analysis.edits import replacement
from msacclint.analysis.imports import ImportTable
from msacclint.diagnostics import Diagnostic, Edit, Fix, Related, Severity
from msacclint.engine import noqa
from msacclint.engine.context import FileContext
from msacclint.engine.registry import rules_by_code
from msacclint.engine.rule import Report, Rule
from msacclint.engine.settings import Settings

BAD_INPUT = "MSA001"
RULE_CRASHED = "MSA002"

#: the text a file must contain to be parsed at all
PREFILTER = "mindspore"
#: larger files are generated data, not model code (the largest of 8,500 model-zoo files
#: measured 0.28 MB); LibCST would take minutes and gigabytes on them
MAX_SOURCE_BYTES = 2_000_000


def check_source(source: Union[str, bytes], path: str, settings: Settings, project=None) -> List[Diagnostic]:
    """All diagnostics for one file, sorted, with ``# noqa`` applied when the settings say so.
    ``project``: the repository's ProjectIndex (msacclint.project.load_index), or None."""
    codes = settings.codes_for(path)
    if len(source) > MAX_SOURCE_BYTES:
        return _bad_input(path, f"file is {len(source) / 1e6:.1f} MB, over the {MAX_SOURCE_BYTES // 1_000_000} MB "
                          "msacclint parses (generated data?); not checked: exclude it or split it", codes)
    if isinstance(source, bytes):
        text, problem = decode(source)
        if problem is not None:
            return _bad_input(path, problem, codes)
    else:
        text = source
    if PREFILTER not in text:
        return []
    module, problem_at = _parse(text)
    if module is None:
        message, line, column = problem_at
        return _bad_input(path, message, codes, line, column)
    try:
        imports = ImportTable.from_module(module)
        if not imports.mentions("mindspore"):
            return []
        ctx = FileContext(path=path, source=text, module=module, imports=imports, settings=settings,
                          project=project)
        found = run_rules(ctx, [rules_by_code()[c] for c in sorted(codes) if c in rules_by_code()])
    except RecursionError:
        return _bad_input(path, TOO_DEEP, codes)
    if settings.honour_noqa:
        found = noqa.filter_noqa(text, found)
    return sorted(found, key=Diagnostic.sort_key)


def decode(data: bytes) -> Tuple[str, Optional[str]]:
    """Text of a file, or a reason it cannot be read as Python source."""
    text, _, problem = read_source(data)
    return text, problem


def read_source(data: bytes) -> Tuple[str, str, Optional[str]]:
    """(text, encoding, problem) of a file's bytes, decoded as Python does: a UTF-8 BOM or
    a PEP 263 coding line, else UTF-8. Encoding the text with ``encoding`` gives back the
    file's own bytes (``utf-8-sig`` writes the BOM again)."""
    if b"\x00" in data:
        return "", "utf-8", "file contains NUL bytes; not checked"
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:  # an unknown codec, or a coding line that contradicts the BOM
        return "", "utf-8", f"{exc.msg if hasattr(exc, 'msg') else exc}; not checked"
    try:
        return data.decode(encoding), encoding, None
    except UnicodeDecodeError as exc:
        name = "UTF-8" if encoding in ("utf-8", "utf-8-sig") else f"{encoding}, as its coding line declares"
        return "", encoding, f"file is not valid {name} (byte {exc.start}); not checked"


#: CPython refuses more than 200 nested brackets; LibCST's native parser crashes the
#: process (stack overflow) somewhere above 1,000, so deeper files are never handed to it
MAX_BRACKET_DEPTH = 200
_BRACKETS = re.compile(r"[\[\](){}]")
_OPENING = frozenset("([{")
TOO_DEEP = "file is nested too deeply to check (Python's recursion limit); not checked"


def _bracket_depth(text: str) -> int:
    """Deepest bracket nesting, counting brackets inside strings and comments too
    (approximate: only unmatched closing brackets in strings can hide real depth; cheap:
    only the brackets are looked at in Python)."""
    depth = peak = 0
    for ch in _BRACKETS.findall(text):
        if ch in _OPENING:
            depth += 1
            if depth > peak:
                peak = depth
        elif depth:
            depth -= 1
    return peak


def _too_deep(text: str) -> Optional[Tuple[str, int, int]]:
    """Why a file must not be parsed by LibCST, if it nests brackets beyond Python's limit."""
    if text.count("(") + text.count("[") + text.count("{") <= MAX_BRACKET_DEPTH:
        return None
    if _bracket_depth(text) <= MAX_BRACKET_DEPTH:
        return None
    import ast

    try:  # brackets in strings or comments may have counted: ask Python itself
        ast.parse(text)
    except SyntaxError as exc:
        return (f"syntax error, file not checked: {exc.msg}", exc.lineno or 1, exc.offset or 1)
    except (RecursionError, MemoryError):
        return (TOO_DEEP, 1, 1)
    return None


def _parse(text: str):
    deep = _too_deep(text)
    if deep is not None:
        return None, deep
    try:
        return cst.parse_module(text), None
    except cst.ParserSyntaxError as exc:
        return None, _syntax_problem(text, exc)
    except RecursionError:
        return None, ("file is nested too deeply to parse; not checked", 1, 1)
    except Exception as exc:  # libcst raises a few other errors on odd input
        return None, (f"file could not be parsed ({type(exc).__name__}: {exc}); not checked", 1, 1)


def _syntax_problem(text: str, exc: "cst.ParserSyntaxError") -> Tuple[str, int, int]:
    """Python's own words for a syntax error (LibCST's say only "Syntax Error @ 4:1" and
    often point past the mistake); LibCST's when Python accepts the file."""
    import ast

    try:
        ast.parse(text)
    except SyntaxError as py:
        return (f"syntax error, file not checked: {py.msg}", py.lineno or 1, py.offset or 1)
    except (RecursionError, MemoryError, ValueError):
        pass
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else "syntax error"
    return (f"LibCST cannot parse this file, not checked: {first}", exc.raw_line, exc.raw_column + 1)


def _bad_input(path: str, message: str, codes, line: int = 1, column: int = 1) -> List[Diagnostic]:
    if BAD_INPUT not in codes:
        return []
    return [_engine_diagnostic(BAD_INPUT, path, message, line, column)]


def _engine_diagnostic(code: str, path: str, message: str, line: int = 1, column: int = 1) -> Diagnostic:
    rule = rules_by_code()[code]
    return Diagnostic(code, rule.checklist, rule.severity, path, max(line, 1), max(column, 1),
                      max(line, 1), max(column, 1), message)


def run_rules(ctx: FileContext, rule_classes: Sequence[Type[Rule]]) -> List[Diagnostic]:
    """Run rules over a parsed file in one traversal; a crashing rule is reported and
    dropped, the others go on."""
    crashed: List[Tuple[Rule, BaseException]] = []
    rules: List[Rule] = []
    for cls in rule_classes:
        if not _has_visitors(cls) and cls.finish is Rule.finish:
            continue  # engine codes such as MSA001 have nothing to visit
        try:
            if cls.applies_to(ctx):
                rules.append(cls(ctx))
        except Exception as exc:
            crashed.append((cls.__new__(cls), exc))
    active = [_Guarded(rule, crashed) for rule in rules]
    batch: List[cst.BatchableCSTVisitor] = list(active)
    if any(getattr(type(rule), "uses_facts", False) for rule in rules):
        from msacclint.analysis.facts import FileFacts

        collector = FileFacts(ctx)
        ctx.facts["file"] = collector
        batch.insert(0, collector)
    if active:
        # a RecursionError here is the file's nesting, not a rule's fault: it propagates and
        # check_source reports the file as MSA001
        visit_batched(ctx.module, batch)
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
        for rule, exc in crashed:
            where = traceback.extract_tb(exc.__traceback__)[-1:] if exc.__traceback__ else []
            at = f" at {where[0].filename.rsplit('/', 1)[-1]}:{where[0].lineno}" if where else ""
            found.append(_engine_diagnostic(
                RULE_CRASHED, ctx.path,
                f"internal error in rule {type(rule).code} ({type(rule).name}): "
                f"{type(exc).__name__}: {exc}{at}; the other rules' findings are unaffected"))
    return found


def _has_visitors(cls: Type[Rule]) -> bool:
    from msacclint.engine.rule import _visitor_names

    return bool(_visitor_names(cls))


class _Guarded(cst.BatchableCSTVisitor):
    """Wraps a rule so that an exception in it disables only that rule for the file."""

    def __init__(self, rule: Rule, crashed: list) -> None:
        super().__init__()
        self.rule = rule
        self.crashed = crashed
        self.dead = False

    def get_visitors(self):
        return {name: self._wrap(func) for name, func in self.rule.get_visitors().items()}

    def _wrap(self, func: Callable[[cst.CSTNode], None]) -> Callable[[cst.CSTNode], None]:
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


def _to_diagnostics(ctx: FileContext, reports: Iterable[Report]) -> List[Diagnostic]:
    reports = list(reports)
    if not reports:
        return []
    # unsafe_skip_copy: the tree is not modified, and node identity must be kept so
    # that the reported nodes are found in the position table.
    positions = MetadataWrapper(ctx.module, unsafe_skip_copy=True).resolve(PositionProvider)
    found = []
    seen = set()
    for report in reports:
        where = positions.get(report.node)
        if where is None:
            continue
        rule = type(report.rule)
        fixes = tuple(f for f in (_to_fix(ctx, spec, positions) for spec in report.fixes) if f is not None)
        diag = Diagnostic(
            code=rule.code,
            checklist=rule.checklist,
            severity=report.severity or rule.severity,
            path=ctx.path,
            line=where.start.line,
            column=where.start.column + 1,
            end_line=where.end.line,
            end_column=where.end.column + 1,
            message=report.message,
            fixes=fixes,
            related=tuple(Related(p, line, text) for p, line, text in report.related),
        )
        key = (diag.code, diag.line, diag.column, diag.message)
        if key not in seen:
            seen.add(key)
            found.append(diag)
    return found


def _to_fix(ctx: FileContext, spec, positions) -> Optional[Fix]:
    edits = []
    for old, new in spec.replacements:
        where = positions.get(old)
        if where is None:
            return None
        span, text = replacement(ctx.module, ctx.source, old, new, (
            where.start.line, where.start.column + 1, where.end.line, where.end.column + 1))
        edits.append(Edit(*span, text))
    return Fix(spec.description, spec.applicability, tuple(edits))


def severity_counts(diagnostics: Iterable[Diagnostic]) -> dict:
    counts = {s: 0 for s in Severity}
    for d in diagnostics:
        counts[d.severity] += 1
    return counts


if sys.getrecursionlimit() < 3000:
    # LibCST recurses per nesting level; model code is shallow, generated code is not.
    sys.setrecursionlimit(3000)
