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
from msacclint.engine import examples

if TYPE_CHECKING:
    from msacclint.engine.context import FileContext


@dataclass(frozen=True)
class Valid:
    """Code the rule must not report: one file (``code``, checked as ``path``) or several
    (``files``: path -> source). Sources are dedented (msacclint.engine.examples)."""

    code: str = ""
    note: str = ""
    path: str = "train.py"
    mindspore_version: Optional[str] = None
    files: Mapping[str, str] = field(default_factory=dict, hash=False)

    def __post_init__(self) -> None:
        _normalise(self)

    @property
    def sources(self) -> Dict[str, str]:
        """path -> source of every file of the example."""
        return dict(self.files) if self.files else {self.path: self.code}


@dataclass(frozen=True)
class Invalid:
    """Code the rule must report. The expected findings are marked on their lines with a
    trailing ``# MSAnnn`` comment (the harness then checks the exact set of (path, line,
    code) of the rule's findings); ``line`` is the older way to name one line.
    ``fixed``/``unsafe_fixed`` are the file after the safe / safe-plus-unsafe fixes, when
    the rule offers one (single-file examples)."""

    code: str = ""
    line: Optional[int] = None
    message_contains: Optional[str] = None
    fixed: Optional[str] = None
    unsafe_fixed: Optional[str] = None
    note: str = ""
    path: str = "train.py"
    mindspore_version: Optional[str] = None
    files: Mapping[str, str] = field(default_factory=dict, hash=False)

    def __post_init__(self) -> None:
        _normalise(self)
        for name in ("fixed", "unsafe_fixed"):
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, examples.dedent(value))

    @property
    def sources(self) -> Dict[str, str]:
        return dict(self.files) if self.files else {self.path: self.code}

    @property
    def expected(self) -> FrozenSet[examples.Expected]:
        """(path, line, code) marked in the example's sources."""
        return examples.expected(self.sources)


def _normalise(example: Union[Valid, Invalid]) -> None:
    if example.files:
        if example.code:
            raise ValueError("an example gives either code or files, not both")
        object.__setattr__(example, "files", {p: examples.dedent(t) for p, t in example.files.items()})
    else:
        object.__setattr__(example, "code", examples.dedent(example.code))


@dataclass
class FixSpec:
    """A fix as a rule states it: replace nodes by new nodes."""

    description: str
    applicability: Applicability
    replacements: List[Tuple[cst.CSTNode, cst.CSTNode]] = field(default_factory=list)


@dataclass
class Report:
    rule: "Rule"
    node: cst.CSTNode
    message: str
    fixes: Tuple[FixSpec, ...] = ()


class Rule(cst.BatchableCSTVisitor):
    """Base class of every rule. Subclasses set the class attributes and define
    ``visit_*``/``leave_*`` methods; ``finish`` runs once the whole file was visited."""

    code: ClassVar[str] = ""
    checklist: ClassVar[str] = ""
    severity: ClassVar[Severity] = Severity.WARNING
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
    #: None means: on unless the severity is info (review items are opt-in)
    default_enabled: ClassVar[Optional[bool]] = None
    #: set by rules that read msacclint.analysis.facts in finish(): the engine then
    #: gathers the file's facts in the same traversal
    uses_facts: ClassVar[bool] = False
    VALID: ClassVar[Sequence[Valid]] = ()
    INVALID: ClassVar[Sequence[Invalid]] = ()

    def __init__(self, ctx: "FileContext") -> None:
        super().__init__()
        self.ctx = ctx
        self.reports: List[Report] = []

    # -- metadata -------------------------------------------------------------------
    @classmethod
    def enabled_by_default(cls) -> bool:
        if cls.default_enabled is not None:
            return cls.default_enabled
        return cls.severity is not Severity.INFO

    @classmethod
    def applies_to(cls, ctx: "FileContext") -> bool:
        """Whether the rule runs on this file at all (version ranges, file facts)."""
        return True

    # -- reporting ------------------------------------------------------------------
    def report(
        self,
        node: cst.CSTNode,
        message: Optional[str] = None,
        fix: Union[None, FixSpec, Sequence[FixSpec]] = None,
    ) -> None:
        """Report ``node``; ``fix`` is a FixSpec or a safe and an unsafe alternative."""
        fixes: Tuple[FixSpec, ...] = () if fix is None else (fix,) if isinstance(fix, FixSpec) else tuple(fix)
        fixes = tuple(sorted(fixes, key=lambda f: f.applicability is not Applicability.SAFE))
        self.reports.append(Report(self, node, message or self.message, fixes))

    def finish(self) -> None:
        """Called after the traversal: rules that decide on the whole file report here."""

    # -- batching -------------------------------------------------------------------
    def get_visitors(self) -> Dict[str, Callable[[cst.CSTNode], None]]:
        # inspect.getmembers on every instance is slow; the names are per class.
        return {name: getattr(self, name) for name in _visitor_names(type(self))}


@functools.lru_cache(maxsize=None)
def _visitor_names(cls: type) -> Tuple[str, ...]:
    names = []
    for name in dir(cls):
        if not (name.startswith("visit_") or name.startswith("leave_")):
            continue
        func = getattr(cls, name)
        if callable(func) and not getattr(func, "_is_no_op", False):
            names.append(name)
    return tuple(names)
