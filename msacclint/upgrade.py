"""The upgrade report: what fails or changes meaning when a project moves from the MindSpore it
targets to another release, grouped by cause, with the MindSpore spelling to use.

Built from the findings of the ``upgrade`` group (MSA004: names, modules, keywords and argument
combinations a release rejects; MSA102/MSA103: the keep_prob deprecations; MSA120: initialisers
whose default changed), whatever front end shows them: ``msacclint check --select upgrade`` prints
it after the findings, ``msacclint report`` has it as a section. A cause is what fails (the
missing name or module, the rejected keyword, the rule), so one renamed API used in forty places
is one line with forty places.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence

from msacclint.diagnostics import Diagnostic

#: an MSA004 message: "[`statement`: ]what: SomeError on releases[; what to write instead]"
_LOUD = re.compile(r"^(?:`[^`]*`: )?(?P<what>.+?): (?P<error>\w+(?:Error|Exception)) on (?P<releases>.+?)"
                   r"(?:; (?P<instead>.+?))?(?: \((?:the project targets|dormant|info|warning).*)?$")


@dataclass
class Cause:
    """One cause: what fails, the exception (None for a change of meaning), what to write."""

    what: str
    error: Optional[str]
    instead: str
    code: str
    places: List[str] = field(default_factory=list)

    def to_json(self) -> dict:
        return {"what": self.what, "error": self.error, "instead": self.instead, "code": self.code,
                "places": self.places}


@dataclass
class Upgrade:
    """The move checked (from the project's release to ``to``) and its causes, most places first."""

    source: str
    target: str
    causes: List[Cause]

    @property
    def places(self) -> int:
        return sum(len(c.places) for c in self.causes)

    def to_json(self) -> dict:
        return {"from": self.source, "to": self.target, "places": self.places,
                "causes": [c.to_json() for c in self.causes]}


def upgrade(diagnostics: Sequence[Diagnostic], source: str, target: str, rule_names: Dict[str, str]) -> Upgrade:
    """The causes of the upgrade group's findings among ``diagnostics``."""
    causes: Dict[tuple, Cause] = {}
    for d in diagnostics:
        if d.group != "upgrade":
            continue
        parsed = _LOUD.match(d.message) if d.code == "MSA004" else None
        if parsed is not None:
            what, error, instead = parsed.group("what"), parsed.group("error"), (parsed.group("instead") or "")
        else:
            what, error, instead = f"{rule_names.get(d.code, d.code)}: {d.message.split(';')[0]}", None, ""
        key = (d.code, what, error, instead)
        cause = causes.setdefault(key, Cause(what, error, instead.strip(), d.code))
        cause.places.append(d.place)
    ordered = sorted(causes.values(), key=lambda c: (-len(c.places), c.code, c.what))
    return Upgrade(source, target, ordered)


def text(report: Upgrade, limit: int = 5) -> str:
    """The report as the CLI prints it after the findings ("" when nothing fails)."""
    if not report.causes:
        return ""
    lines = [f"Upgrade from {report.source} to MindSpore {report.target}: {report.places} "
             f"place{'s' if report.places != 1 else ''} fail or change meaning, by cause:"]
    for cause in report.causes:
        shown = ", ".join(cause.places[:limit]) + (f" and {len(cause.places) - limit} more"
                                                   if len(cause.places) > limit else "")
        error = f" ({cause.error})" if cause.error else ""
        instead = f"; {cause.instead}" if cause.instead else ""
        lines.append(f"  {cause.code} {cause.what}{error}{instead}: {shown}")
    return "\n".join(lines) + "\n"
