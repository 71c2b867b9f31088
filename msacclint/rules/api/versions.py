"""What every rule backed by a table entry shares: the entry's id and version range."""

from __future__ import annotations

from typing import ClassVar, Optional

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
