"""The values every front end shares: severities, fixes and diagnostics.

Lines are 1-based. Columns are 1-based character offsets, as ruff and flake8 print
them; front ends that need another convention (flake8's plugin API, LSP) convert.
"""

from __future__ import annotations

import enum
from dataclasses import asdict, dataclass, field
from typing import Any, Dict, FrozenSet, List, Optional, Tuple


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
