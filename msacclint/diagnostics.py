"""The values every front end shares: severities, fixes and diagnostics.

Lines are 1-based. Columns are 1-based character offsets, as ruff and flake8 print
them; front ends that need another convention (flake8's plugin API, LSP) convert.
"""

from __future__ import annotations

import enum
from dataclasses import asdict, dataclass, field
from typing import Any, Dict, Optional, Tuple


class Severity(str, enum.Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return {"error": 0, "warning": 1, "info": 2}[self.value]


class Applicability(str, enum.Enum):
    """Ruff's model: a safe fix keeps behaviour, an unsafe one changes it to what was meant."""

    SAFE = "safe"
    UNSAFE = "unsafe"


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
    #: at most one safe and one unsafe fix, the safe one first (``msacclint check --fix``
    #: applies the safe one; with ``--unsafe-fixes`` the unsafe one is preferred)
    fixes: Tuple[Fix, ...] = field(default=(), compare=False)
    #: where the evidence is when it is not at the finding (the project layer)
    related: Tuple[Related, ...] = field(default=(), compare=False)

    @property
    def fix(self) -> Optional[Fix]:
        """The fix shown in JSON/SARIF: the safe one when there is one."""
        return self.fixes[0] if self.fixes else None

    def fix_for(self, unsafe: bool) -> Optional[Fix]:
        """The fix a run applies: with unsafe fixes allowed, the unsafe alternative wins."""
        if unsafe:
            for fix in self.fixes:
                if fix.applicability is Applicability.UNSAFE:
                    return fix
        for fix in self.fixes:
            if fix.applicability is Applicability.SAFE:
                return fix
        return None

    def sort_key(self) -> Tuple[str, int, int, str]:
        return (self.path, self.line, self.column, self.code)

    def to_json(self) -> Dict[str, Any]:
        """The stable JSON contract (docs/contracts.md)."""
        return {
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

    def to_cache(self) -> Dict[str, Any]:
        data = asdict(self)
        data["severity"] = self.severity.value
        for stored, fix in zip(data["fixes"], self.fixes):
            stored["applicability"] = fix.applicability.value
        return data

    @classmethod
    def from_cache(cls, data: Dict[str, Any]) -> "Diagnostic":
        fixes = tuple(
            Fix(description=f["description"], applicability=Applicability(f["applicability"]),
                edits=tuple(Edit(**e) for e in f["edits"]))
            for f in data.get("fixes", ())
        )
        related = tuple(Related(**r) for r in data.get("related", ()))
        return cls(**{**data, "severity": Severity(data["severity"]), "fixes": fixes, "related": related})
