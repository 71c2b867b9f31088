"""Rule groups, and the field record that decides which findings the default view shows.

Every rule declares one group (``Rule.group``) by what it claims and how sure the claim is:

- ``correctness``: resolved evidence of a silent accuracy bug (the rule's findings are errors);
- ``suspicious``: a likely silent accuracy bug that rests on something assumed (warnings);
- ``tool``: msacclint's own notes (a file it could not check, a rule that crashed);
- ``port``: PyTorch conventions that matter where code or weights come from PyTorch;
- ``upgrade``: what fails or silently changes meaning on another MindSpore version;
- ``review``: hygiene and review notes;
- ``nursery``: new rules, and rules whose field record does not earn the default view yet.

The default view is the *proven* groups (correctness, suspicious) and the tool's notes. A rule
declared in a proven group stays there only while its field record (``rules/field_record.json``,
written by ``bench/field/field_record.py`` from the committed verdicts) meets the bar at the
grade the rule reports when everything it needs is resolved: at least ``BAR.reads`` findings
read at that grade and at least ``BAR.true_share`` of them judged true, or, for a rule that
rarely fires, at least ``BAR.few_reads`` read and every one judged true. A rule that misses is
in the nursery, off by default, and its page says why. A finding of a proven rule at another
grade than the rule's own (lowered for an assumption or for code that does not run) is shown by
default only when the record supports that grade too; otherwise it belongs to the nursery.
Info findings keep their rule's group (the grade hides them by default already).

"True" counts the readers' verdict ``true`` (the claim holds and the code runs, at a silent cost)
and, from the rounds before 11 whose readers judged the claim alone, ``claim_true``; the pages
keep the two apart.
"""

from __future__ import annotations

import functools
import json
import os
from dataclasses import dataclass
from typing import Dict, Mapping, Optional, Tuple

from msacclint.data import data_dir

RECORD_NAME = "field_record.json"
#: another field record to read instead of the shipped one (a team's own triage, written by
#: bench/field/field_record.py from its own verdicts; the test suite's fixture)
RECORD_ENV = "MSACCLINT_FIELD_RECORD"

GROUPS: Dict[str, str] = {
    "correctness": "resolved evidence of a silent accuracy bug",
    "suspicious": "a likely silent accuracy bug that rests on an assumption",
    "tool": "msacclint's own notes: a file it could not check, a rule that crashed",
    "port": "PyTorch conventions that matter where code or weights come from PyTorch",
    "upgrade": "what fails or silently changes meaning on another MindSpore version",
    "review": "hygiene and review notes",
    "nursery": "new rules, and rules or grades whose field record does not earn the default view yet",
}
#: the groups held to the field record's bar
PROVEN: Tuple[str, ...] = ("correctness", "suspicious")
#: what ``msacclint check`` runs and shows when nothing is selected
DEFAULT_GROUPS: Tuple[str, ...] = PROVEN + ("tool",)
GRADES: Tuple[str, ...] = ("error", "warning", "info")


@dataclass(frozen=True)
class Bar:
    reads: int = 10
    true_share: float = 0.8
    few_reads: int = 3


BAR = Bar()


@dataclass(frozen=True)
class Standing:
    """A rule's record at one grade: reads, and how many were judged each way."""

    read: int = 0
    true: int = 0
    claim_true: int = 0
    dormant: int = 0
    broken: int = 0
    latent: int = 0
    loud: int = 0
    false: int = 0
    unsure: int = 0

    @property
    def judged_true(self) -> int:
        return self.true + self.claim_true

    @property
    def share(self) -> float:
        return self.judged_true / self.read if self.read else 0.0

    @property
    def meets(self) -> bool:
        if self.read >= BAR.reads and self.share >= BAR.true_share:
            return True
        return self.read >= BAR.few_reads and self.judged_true == self.read

    @property
    def few(self) -> bool:
        """It meets the bar on fewer reads than ``BAR.reads`` (every one true)."""
        return self.meets and self.read < BAR.reads

    def summary(self) -> str:
        if not self.read:
            return "none read"
        return f"{self.judged_true} of {self.read} true"


@functools.lru_cache(maxsize=1)
def record() -> Dict[str, object]:
    """The field record shipped with this msacclint (or the one ``MSACCLINT_FIELD_RECORD``
    names); an empty one when it is missing."""
    path = os.environ.get(RECORD_ENV) or str(data_dir() / RECORD_NAME)
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return {"rules": {}, "rounds": {}, "measured_at": None}
    return data if isinstance(data, dict) else {"rules": {}, "rounds": {}, "measured_at": None}


def standing(code: str, grade: str, part: str = "all") -> Standing:
    rules = record().get("rules", {})
    cell = rules.get(code, {}).get(part, {}).get(grade, {}) if isinstance(rules, Mapping) else {}
    fields = {k: int(v) for k, v in cell.items() if k in Standing.__dataclass_fields__}
    return Standing(**fields)


def effective(code: str, declared: str, severity: str) -> str:
    """The group a rule is in: its declared one, or the nursery for a rule declared in a proven
    group whose record does not meet the bar at its own grade."""
    if declared in PROVEN and not standing(code, severity).meets:
        return "nursery"
    return declared


def of_finding(code: str, declared: str, severity: str, grade: str, reach: Optional[str] = None) -> str:
    """The group a finding at ``grade`` belongs to (see the module's docs). A finding lowered
    one grade only because a loud failure comes first on its path (``reach`` "cannot-run" at a
    warning or error) is judged by its rule's own grade: the claim is the same, and it costs
    accuracy once that failure is fixed."""
    group = effective(code, declared, severity)
    if group not in PROVEN or grade == severity or grade == "info":
        return group
    if reach == "cannot-run":
        return group
    return group if standing(code, grade).meets else "nursery"


def why(code: str, declared: str, severity: str) -> Optional[str]:
    """Why a rule is where it is, for its page and ``msacclint rules``; None outside the proven groups."""
    if declared not in PROVEN:
        return None
    own = standing(code, severity)
    if own.meets:
        few = f" (fewer than {BAR.reads} reads, every one true)" if own.few else ""
        return f"{declared}: its {severity}s were judged true in {own.judged_true} of {own.read} field reads{few}"
    return (f"nursery until its field record earns {declared}: {own.summary()} at {severity} (the bar: "
            f"{BAR.reads} read and {round(BAR.true_share * 100)} % true, or {BAR.few_reads} read and all true)")
