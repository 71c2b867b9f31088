"""What every rule backed by a table entry shares: the entry's id and version range, and
the observed defaults of a probe snapshot to quote."""

from __future__ import annotations

from typing import ClassVar, Iterable, Optional

from msacclint.analysis.snapshot import for_settings
from msacclint.analysis.versions import in_range
from msacclint.data import api_defaults


def target_version(ctx) -> str:
    """The configured or installed MindSpore version, else the one the table was verified on."""
    return ctx.mindspore_version or api_defaults()["verified_on"]["mindspore"]


class TableRuleMixin:
    entry_id: ClassVar[str] = ""
    since: ClassVar[Optional[str]] = None
    until: ClassVar[Optional[str]] = None

    @classmethod
    def applies_to(cls, ctx) -> bool:
        return in_range(target_version(ctx), cls.since, cls.until)

    def observed_note(self, api: str, parameters: Iterable[str]) -> str:
        """" (in MindSpore 2.10.0 on CPU, MaxPool2d's stride defaults to 1)" when the run
        has a probe snapshot that observed these defaults, else ""."""
        snapshot = for_settings(self.ctx.settings)
        if snapshot is None:
            return ""
        said = [s for s in (snapshot.describe(api, p) for p in parameters) if s]
        if not said:
            return ""
        return " (" + "; ".join([said[0]] + [s.split(", ", 1)[1] for s in said[1:]]) + ")"
