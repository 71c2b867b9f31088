"""What every rule backed by a table entry shares: the entry's id and version range, and
the observed defaults of a probe snapshot to quote."""

from __future__ import annotations

from typing import ClassVar, Iterable, Optional, Tuple

from msacclint.analysis.snapshot import for_settings
from msacclint.analysis.versions import in_range
from msacclint.data import load_toml
from msacclint.diagnostics import Severity
from msacclint.probe.values import agrees
from msacclint.rules.table.spec import load_table


def target_version(ctx) -> str:
    """The configured or installed MindSpore version, else the one the table was verified on."""
    return ctx.mindspore_version or load_table().verified_on["mindspore"]


def expected_default(api: str, parameter: str) -> Optional[str]:
    """The default rules/probe.toml expects for ``api``'s ``parameter`` (literal text), or None."""
    for check in load_toml("probe.toml").get("check", ()):
        if check.get("api") == api and check.get("parameter") == parameter \
                and "behaviour" not in check and "attribute" not in check:
            return check.get("expected")
    return None


class TableRuleMixin:
    """A rule backed by a table entry names it by ``entry_id``, as an attribute or in the
    class statement (``class ConvBiasDefault(TableRuleMixin, Rule, entry_id="MS-CONV-02")``);
    an id the table does not have fails when the class is defined (that is, when the rules
    load). A class that names its entry and leaves out ``checklist`` or ``severity`` takes the
    entry's, so it states only what is its own."""

    entry_id: ClassVar[str] = ""
    since: ClassVar[Optional[str]] = None
    until: ClassVar[Optional[str]] = None
    #: Rule's, declared only (no value here, so Rule's defaults are not shadowed)
    checklist: ClassVar[str]
    severity: ClassVar[Severity]

    def __init_subclass__(cls, entry_id: str = "", **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        if entry_id:
            cls.entry_id = entry_id
        if cls.entry_id:
            try:
                item = load_table().entry(cls.entry_id)
            except KeyError:
                raise LookupError(f"{cls.__module__}.{cls.__name__}: entry_id {cls.entry_id!r} is not an "
                                  f"entry of rules/api_defaults.toml") from None
            if "entry_id" in vars(cls):
                if "checklist" not in vars(cls):
                    cls.checklist = item.checklist
                if "severity" not in vars(cls):
                    cls.severity = Severity(item.severity)

    @classmethod
    def applies_to(cls, ctx) -> bool:
        since, until = cls.version_range()
        return in_range(target_version(ctx), since, until)

    @classmethod
    def version_range(cls) -> Tuple[Optional[str], Optional[str]]:
        """[since, until): the class's own, else its table entry's (custom rules such as the
        Dropout ones read them from rules/api_defaults.toml like the generated ones)."""
        if cls.since is not None or cls.until is not None or not cls.entry_id:
            return cls.since, cls.until
        item = load_table().entry(cls.entry_id)
        return item.since, item.until

    def contradicted(self, api: str, parameters: Iterable[str]) -> bool:
        """Whether the run's probe snapshot observed a default of these parameters that
        differs from what the probe table expects, i.e. the rule's premise is false for
        that release: the rule then stays silent rather than state it."""
        snapshot = for_settings(self.ctx.settings)
        if snapshot is None:
            return False
        seen = snapshot.defaults.get(api)
        if seen is None:
            return False  # the snapshot did not look at this API
        for parameter in parameters:
            expected = expected_default(api, parameter)
            if expected is not None and (parameter not in seen or not agrees(expected, seen[parameter])):
                return True
        return False

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
