"""What a rule is: a batchable LibCST visitor that carries its own metadata and examples.

A rule class declares its code, checklist id, severity, the text of its docs page and
its VALID/INVALID examples; the test suite runs every example and the docs page is
generated from the same attributes (``msacclint rule CODE``), so the two cannot drift.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, ClassVar, Dict, FrozenSet, List, Mapping, Optional, Sequence, Tuple, Union

import libcst as cst

from msacclint.diagnostics import Applicability, Severity
from msacclint.rules import examples

if TYPE_CHECKING:
    from msacclint.analysis.context import FileContext


@dataclass(frozen=True)
class _Example:
    """What a valid and an invalid example share: one file (``code``, checked as ``path``)
    or several (``files``: path -> source), sources dedented (msacclint.rules.examples)."""

    code: str = ""
    note: str = ""
    path: str = "train.py"
    mindspore_version: Optional[str] = None
    files: Mapping[str, str] = field(default_factory=dict, hash=False)

    def __post_init__(self) -> None:
        if self.files:
            if self.code:
                raise ValueError("an example gives either code or files, not both")
            object.__setattr__(self, "files", {p: examples.dedent(t) for p, t in self.files.items()})
        else:
            object.__setattr__(self, "code", examples.dedent(self.code))

    @property
    def sources(self) -> Dict[str, str]:
        """path -> source of every file of the example."""
        return dict(self.files) if self.files else {self.path: self.code}


@dataclass(frozen=True)
class Valid(_Example):
    """Code the rule must not report."""


@dataclass(frozen=True)
class Invalid(_Example):
    """Code the rule must report. The expected findings are marked on their lines with a
    trailing ``# MSAnnn`` comment (the harness then checks the exact set of (path, line,
    code) of the rule's findings); ``line`` is the older way to name one line.
    ``fixed``/``unsafe_fixed`` are the file after the safe / safe-plus-unsafe fixes, when
    the rule offers one (single-file examples); ``explicit_fixed`` the file after
    ``--add-explicit`` (its KEEP edits, not fixes); ``severity``, the severity every finding
    of the example has when it is not the rule's own (a finding that rests on an assumption)."""

    line: Optional[int] = None
    message_contains: Optional[str] = None
    severity: Optional[Severity] = None
    fixed: Optional[str] = None
    unsafe_fixed: Optional[str] = None
    explicit_fixed: Optional[str] = None

    def __post_init__(self) -> None:
        super().__post_init__()
        for name in ("fixed", "unsafe_fixed", "explicit_fixed"):
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, examples.dedent(value))

    @property
    def expected(self) -> FrozenSet[examples.Expected]:
        """(path, line, code) marked in the example's sources."""
        return examples.expected(self.sources)


@dataclass
class FixSpec:
    """A fix as a rule states it: replace nodes by new nodes."""

    description: str
    applicability: Applicability
    replacements: List[Tuple[cst.CSTNode, cst.CSTNode]] = field(default_factory=list)


@dataclass
class Report:
    rule: Rule
    node: cst.CSTNode
    message: str
    fixes: Tuple[FixSpec, ...] = ()
    #: a finding less sure than the rule's usual one (e.g. "could not resolve": info)
    severity: Optional[Severity] = None
    #: (path, line, message) of evidence in other files
    related: Tuple[Tuple[str, int, str], ...] = ()


class Rule(cst.BatchableCSTVisitor):
    """Base class of every rule. Subclasses set the class attributes and define
    ``visit_*``/``leave_*`` methods; ``finish`` runs once the whole file was visited."""

    code: ClassVar[str] = ""
    checklist: ClassVar[str] = ""
    severity: ClassVar[Severity] = Severity.WARNING
    #: what the rule claims and how sure it is (msacclint/rules/groups.py): correctness,
    #: suspicious, tool, port, upgrade, review or nursery. Whether a rule of a proven group
    #: (correctness, suspicious) is on by default is its field record's to say.
    group: ClassVar[str] = "nursery"
    name: ClassVar[str] = ""
    #: the default message of a finding
    message: ClassVar[str] = ""
    #: docs page: what it finds, why it hurts accuracy, an example, the fix
    what: ClassVar[str] = ""
    why: ClassVar[str] = ""
    example: ClassVar[str] = ""
    use_instead: ClassVar[str] = ""
    fix_safety: ClassVar[str] = ""
    versions: ClassVar[str] = ""
    #: what the rule resolves before it reports (an error-level rule must state it: the value,
    #: the layer, the caller; what it assumes otherwise and at which severity)
    evidence: ClassVar[str] = ""
    references: ClassVar[Sequence[str]] = ()
    #: set by rules that read msacclint.analysis.facts in finish(): the engine then
    #: gathers the file's facts in the same traversal
    uses_facts: ClassVar[bool] = False
    #: resolved callee names (``mindspore.nn.MaxPool2d``) this rule wants: the engine
    #: resolves every call once and calls ``visit_resolved_call(node, callee)`` for the
    #: calls to one of these only; a file whose text names none of them (by their last
    #: component) does not run the rule at all when it has no other visitors
    resolved_calls: ClassVar[FrozenSet[str]] = frozenset()
    #: the rule judges how a training run is set up (data order, sharding, optimizer
    #: defaults, loss reduction, seeds, gradient reduction): in a file whose datasets are all
    #: made of arrays it generates (analysis.synthetic) its findings are lowered to info
    about_the_run: ClassVar[bool] = False
    #: the rule reports a result thrown away (a call whose value is the point, used as a
    #: statement): it asks msacclint.analysis.displayed and stays quiet on the last bare
    #: expression of a notebook cell, whose value Jupyter shows
    reports_discarded_results: ClassVar[bool] = False
    VALID: ClassVar[Sequence[Valid]] = ()
    INVALID: ClassVar[Sequence[Invalid]] = ()

    def __init__(self, ctx: FileContext) -> None:
        super().__init__()
        self.ctx = ctx
        self.reports: List[Report] = []

    # -- metadata -------------------------------------------------------------------
    @classmethod
    def effective_group(cls) -> str:
        """The group the rule is in today: its declared one, or the nursery while its field
        record does not earn a proven group (msacclint/rules/groups.py)."""
        from msacclint.rules.groups import effective

        return effective(cls.code, cls.group, cls.severity.value)

    @classmethod
    def enabled_by_default(cls) -> bool:
        from msacclint.rules.groups import DEFAULT_GROUPS

        return cls.effective_group() in DEFAULT_GROUPS

    @classmethod
    def applies_to(cls, ctx: FileContext) -> bool:
        """Whether the rule runs on this file at all (version ranges, file facts)."""
        return True

    # -- reporting ------------------------------------------------------------------
    def report(
        self,
        node: cst.CSTNode,
        message: Optional[str] = None,
        fix: Union[None, FixSpec, Sequence[FixSpec]] = None,
        severity: Optional[Severity] = None,
        related: Sequence[Tuple[str, int, str]] = (),
    ) -> None:
        """Report ``node``; ``fix`` is a FixSpec or alternatives (at most one safe, one
        unsafe and one keep, see Applicability); ``severity`` lowers a finding that rests on
        an assumption; ``related`` names the evidence in other files (path relative to the
        project root, line, what is there)."""
        fixes: Tuple[FixSpec, ...] = () if fix is None else (fix,) if isinstance(fix, FixSpec) else tuple(fix)
        fixes = tuple(sorted(fixes, key=lambda f: f.applicability.rank))
        self.reports.append(Report(self, node, message or self.message, fixes, severity, tuple(related)))

    def finish(self) -> None:
        """Called after the traversal: rules that decide on the whole file report here."""

    def visit_resolved_call(self, node: cst.Call, callee: str) -> None:
        """A call whose callee resolved to one of ``resolved_calls``."""

    @classmethod
    def triggered_by(cls, source: str) -> bool:
        """The prefilter below file level: False when the file's text names none of the
        resolved calls the rule wants (a callee resolves to a name whose last component
        is written in the file: canonical names only change the package prefix)."""
        if not cls.resolved_calls:
            return True
        words = _trigger_words(cls)
        return any(w in source for w in words)

    # -- batching -------------------------------------------------------------------
    def get_visitors(self) -> Dict[str, Callable[[cst.CSTNode], None]]:
        # inspect.getmembers on every instance is slow; the names are per class.
        return {name: getattr(self, name) for name in visitor_names(type(self))}


@functools.cache
def _trigger_words(cls: type) -> FrozenSet[str]:
    return frozenset(name.rsplit(".", 1)[-1] for name in getattr(cls, "resolved_calls", ()))


@functools.cache
def visitor_names(cls: type) -> Tuple[str, ...]:
    names = []
    for name in _candidate_names(cls):
        if not (name.startswith("visit_") or name.startswith("leave_")) or name == "visit_resolved_call":
            continue
        func = getattr(cls, name)
        if callable(func) and not getattr(func, "_is_no_op", False):
            names.append(name)
    return tuple(names)


def _candidate_names(cls: type) -> List[str]:
    """``dir(cls)`` without the thousand no-op visitor stubs of LibCST's base classes
    (the names each of those classes defines for real are looked up once)."""
    names: set[str] = set()
    for klass in cls.__mro__:
        if klass.__module__.startswith("libcst"):
            names.update(_real_names(klass))
        else:
            names.update(vars(klass))
    return sorted(names)


@functools.cache
def _real_names(klass: type) -> FrozenSet[str]:
    return frozenset(name for name, value in vars(klass).items() if not getattr(value, "_is_no_op", False))
