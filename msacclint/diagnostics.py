"""The values every front end shares: severities, fixes and diagnostics.

Lines are 1-based. Columns are 1-based character offsets, as ruff and flake8 print
them; front ends that need another convention (flake8's plugin API, LSP) convert.
"""

from __future__ import annotations

import enum
from dataclasses import asdict, dataclass, field
from typing import Any, Dict, FrozenSet, List, Mapping, Optional, Tuple

#: what an MSA001 on a file the project layer could not read adds: the other files' answers
#: (classes, constants, builders it defines) do not see it. One finding per file carries it
#: (msacclint.engine.bad_input), whichever check met the file first.
UNKNOWN_TO_OTHER_FILES = "what it defines is unknown to other files"


class _Ranked(str, enum.Enum):
    """A string enum whose members are ranked in the order they are declared."""

    @property
    def rank(self) -> int:
        return list(type(self)).index(self)


class Severity(_Ranked):
    """Most severe first."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


class Applicability(_Ranked):
    """How a fix may be applied (docs/fixes.md).

    A fix removes the reported problem. It is SAFE when it does so without changing
    anything else a user would notice, UNSAFE when it changes what the program computes
    on purpose (to what the code most likely meant; read its diff). KEEP is not a fix: it
    writes out today's behaviour (``stride=1``), which is right only if that behaviour
    was intended. It silences the finding without removing the problem, so ``--fix`` and
    ``--unsafe-fixes`` never apply it and editors never prefer it; only the explicit
    ``--add-explicit`` mode (``fix_for(explicit=True)``) does.
    """

    # in order of preference among a finding's fixes (``rank``)
    SAFE = "safe"
    UNSAFE = "unsafe"
    KEEP = "keep"


class Reach(_Ranked):
    """Whether the code a finding sits in runs (msacclint.project.reach): decided from the
    repository's entry points. A finding keeps its severity in code that runs, is one level
    lower where nothing reaches it, and is info where the code cannot start."""

    #: an entry point of the repository reaches it (or it is a library's public code)
    RUNS = "runs"
    #: nothing the repository runs reaches it (a class no script builds, an option no config selects)
    DORMANT = "dormant"
    #: it cannot start: a call on the way raises on every supported MindSpore version, an
    #: import fails, a name does not exist
    CANNOT_RUN = "cannot-run"


#: the rules whose findings fail loudly whatever runs the code: any run of the repository
#: reaches them, a demo block that trains nothing too (for the others only a run that trains
#: or evaluates counts: msacclint.engine.grading)
LOUD_CODES = frozenset({"MSA004"})


@dataclass(frozen=True)
class Edit:
    """Replace the text between two positions (end exclusive) with ``text``."""

    line: int
    column: int
    end_line: int
    end_column: int
    text: str


@dataclass(frozen=True)
class Fix:
    description: str
    applicability: Applicability
    edits: Tuple[Edit, ...] = ()

    def to_json(self) -> Dict[str, Any]:
        return {"description": self.description, "applicability": self.applicability.value}


@dataclass(frozen=True)
class Related:
    """Another place the evidence of a finding is (a class, a constant, a config value
    in another file); shown in SARIF as a related location."""

    path: str
    line: int
    message: str = ""
    #: in a notebook: the 1-based number of the cell, ``line`` then counts within it
    cell: Optional[int] = None

    def in_cell(self) -> Dict[str, int]:
        """``{"cell": N}`` for a place in a notebook (JSON), else nothing."""
        return {"cell": self.cell} if self.cell is not None else {}

    @property
    def place(self) -> str:
        """``path:line`` (``path:cell N:line`` in a notebook)."""
        return f"{self.path}:{'' if self.cell is None else f'cell {self.cell}:'}{self.line}"


@dataclass(frozen=True)
class Diagnostic:
    code: str
    checklist: str
    severity: Severity
    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    message: str
    #: at most one fix of each applicability, in the order safe, unsafe, keep
    #: (``msacclint check --fix`` applies the safe one; with ``--unsafe-fixes`` the unsafe
    #: one is preferred; the keep one only with ``--add-explicit``)
    fixes: Tuple[Fix, ...] = field(default=(), compare=False)
    #: in a notebook (``.ipynb``): the 1-based number of the cell (every cell counts,
    #: markdown too); ``line``/``end_line`` then count within that cell, and so do the
    #: lines of the fixes' edits. None in a ``.py`` file. See docs/notebooks.md.
    cell: Optional[int] = None
    #: where the evidence is when it is not at the finding (the project layer)
    related: Tuple[Related, ...] = field(default=(), compare=False)
    #: whether the code runs (None: not decided, e.g. a run without the project layer)
    reach: Optional[Reach] = field(default=None, compare=False)
    #: how an entry point reaches the finding (or what stops it): one hop per place, from
    #: the entry point to the definition holding the finding
    trail: Tuple[Related, ...] = field(default=(), compare=False)
    #: the group the finding belongs to (msacclint/rules/groups.py): its rule's, or
    #: ``nursery`` for a grade its rule's field record does not support; "" until the API
    #: assigns it
    group: str = field(default="", compare=False)

    @property
    def unnecessary(self) -> bool:
        """The code does not run today (dormant or cannot start): editors fade it."""
        return self.reach is not None and self.reach is not Reach.RUNS

    @property
    def fix(self) -> Optional[Fix]:
        """The fix shown in JSON/SARIF: the safe one, else the unsafe one. A KEEP edit is
        not a fix and is never shown as the finding's fix."""
        return next((f for f in self.fixes if f.applicability is not Applicability.KEEP), None)

    @property
    def fixable(self) -> bool:
        """Whether ``--fix`` or ``--fix --unsafe-fixes`` would remove this finding."""
        return self.fix is not None

    def fix_for(self, unsafe: bool, explicit: bool = False) -> Optional[Fix]:
        """The fix a run applies: with unsafe fixes allowed, the unsafe alternative wins.
        ``explicit`` is the ``--add-explicit`` mode: it applies only KEEP edits (write out
        the current behaviour, for code where that behaviour is intended) and nothing else."""
        if explicit:
            return next((f for f in self.fixes if f.applicability is Applicability.KEEP), None)
        if unsafe:
            for fix in self.fixes:
                if fix.applicability is Applicability.UNSAFE:
                    return fix
        for fix in self.fixes:
            if fix.applicability is Applicability.SAFE:
                return fix
        return None

    @property
    def place(self) -> str:
        """``path:line`` (``path:cell N:line`` in a notebook): where a report names it."""
        return f"{self.path}:{'' if self.cell is None else f'cell {self.cell}:'}{self.line}"

    def sort_key(self) -> Tuple[str, int, int, int, str]:
        return (self.path, self.cell or 0, self.line, self.column, self.code)

    def to_json(self) -> Dict[str, Any]:
        """The stable JSON contract (docs/contracts.md)."""
        data: Dict[str, Any] = {
            "code": self.code,
            "checklist": self.checklist,
            "severity": self.severity.value,
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "end_line": self.end_line,
            "end_column": self.end_column,
            "message": self.message,
            "fix": self.fix.to_json() if self.fix else None,
        }
        if self.cell is not None:  # notebooks only: .py findings keep the documented keys
            data["cell"] = self.cell
        data["reach"] = self.reach.value if self.reach is not None else None
        data["group"] = self.group or None
        if self.related:  # evidence in other places, only when there is some
            data["related"] = [{"path": r.path, "line": r.line, "message": r.message or "evidence", **r.in_cell()}
                               for r in self.related]
        if self.trail:  # how an entry point reaches the finding (or what stops it), only when known
            data["trail"] = [{"path": r.path, "line": r.line, "message": r.message, **r.in_cell()} for r in self.trail]
        return data

    def to_cache(self) -> Dict[str, Any]:
        data = asdict(self)
        data["severity"] = self.severity.value
        data["reach"] = self.reach.value if self.reach is not None else None
        for stored, fix in zip(data["fixes"], self.fixes):
            stored["applicability"] = fix.applicability.value
        return data

    @classmethod
    def from_cache(cls, data: Dict[str, Any]) -> Diagnostic:
        fixes = tuple(
            Fix(description=f["description"], applicability=Applicability(f["applicability"]),
                edits=tuple(Edit(**e) for e in f["edits"]))
            for f in data.get("fixes", ())
        )
        related = tuple(Related(**r) for r in data.get("related", ()))
        trail = tuple(Related(**r) for r in data.get("trail", ()))
        reach = Reach(data["reach"]) if data.get("reach") else None
        return cls(**{**data, "severity": Severity(data["severity"]), "fixes": fixes, "related": related,
                      "reach": reach, "trail": trail})


#: what a grade is called in a count: "2 errors, 1 warning, 3 notes" (an info finding is a note)
GRADE_NOUN = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def grade_counts(counts: Mapping[Severity, int]) -> str:
    """``{ERROR: 3, WARNING: 1, INFO: 2}`` as "3 errors, 1 warning, 2 notes" (most severe
    first; grades with none are left out; "" when there is none)."""
    return ", ".join(plural(counts[g], GRADE_NOUN[g]) for g in Severity if counts.get(g))


@dataclass(frozen=True)
class Grades:
    """Which findings a run shows and which make it fail (docs/grades.md).

    The engine computes and caches every finding whatever these say: they decide what a
    front end prints or publishes (``show``) and the exit status (``fail_on``). A finding
    is shown when its grade is in ``show`` or its rule is one the user switched on that is
    off by default (``opted_in``: asking for such a rule, most are info-level review notes,
    is asking to see its findings). A shown finding whose grade is ``fail_on`` or more
    severe fails the run; a finding that is not shown never does."""

    show: FrozenSet[Severity] = frozenset({Severity.ERROR, Severity.WARNING})
    fail_on: Severity = Severity.WARNING
    #: codes shown at every grade: rules that are off by default and were switched on
    opted_in: FrozenSet[str] = frozenset()
    #: the groups whose findings are shown (the default view: correctness, suspicious and the
    #: tool's notes); None shows every group
    groups: Optional[FrozenSet[str]] = frozenset({"correctness", "suspicious", "tool"})
    #: codes the user named (a code, a prefix, ALL): shown whatever group their findings are in
    named: FrozenSet[str] = frozenset()

    def in_view(self, d: Diagnostic) -> bool:
        """Whether the finding's group is one the run shows (a finding with no group yet is)."""
        return self.groups is None or not d.group or d.group in self.groups or d.code in self.named \
            or d.code in self.opted_in

    def shows(self, d: Diagnostic) -> bool:
        return (d.severity in self.show or d.code in self.opted_in) and self.in_view(d)

    def fails(self, d: Diagnostic) -> bool:
        return self.shows(d) and d.severity.rank <= self.fail_on.rank


@dataclass(frozen=True)
class FileResult:
    """One file's outcome: its diagnostics (sorted, ``# noqa`` applied when the settings
    say so) and, when the run asked for them (``Settings.collect_uses``), the resolved
    names it uses (msacclint.analysis.uses), gathered in the same traversal."""

    diagnostics: List[Diagnostic]
    uses: Optional[FrozenSet[str]] = None
    #: where the file loads PyTorch weights into MindSpore code, and how: ``(line, "reads a
    #: PyTorch checkpoint (torch.load)")`` (msacclint.analysis.port.torch_weights), for the
    #: ``port`` profile suggestion; None when it does not
    torch_weights: Optional[Tuple[int, str]] = None


@dataclass
class FileFix:
    """The outcome of fixing one file."""

    path: str
    original: str
    fixed: str
    applied: int
    #: the file's encoding (``utf-8-sig`` when it starts with a BOM, or its coding line's)
    encoding: str = "utf-8"
    #: the diagnostics of the fixed text
    remaining: List[Diagnostic] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return self.applied > 0 and self.fixed != self.original
