"""The field record (rules/field_record.json) is reproducible from the committed verdicts, and it
alone decides which rules of the proven groups are in the default view (docs/groups.md)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from msacclint import api
from msacclint.data import data_dir
from msacclint.engine import registry
from msacclint.frontends.rule_page import render
from msacclint.rules import groups

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench" / "field"))

import field_record  # noqa: E402

pytestmark = pytest.mark.usefixtures("shipped_record")

#: the bar as docs/groups.md states it, written out here on its own
READS, SHARE, FEW = 10, 0.8, 3


def _documented_bar(cell: dict) -> bool:
    read = cell.get("read", 0)
    true = cell.get("true", 0) + cell.get("claim_true", 0)
    return (read >= READS and true / read >= SHARE) or (read >= FEW and true == read)


def test_the_record_is_the_aggregate_of_the_judged_findings():
    header, rows = field_record.read_judged()
    shipped = (data_dir() / "field_record.json").read_text(encoding="utf-8")
    assert field_record.record_text(field_record.aggregate(header, rows)) == shipped, \
        "rules/field_record.json is stale: python bench/field/field_record.py write"


def test_every_verdict_file_is_read_and_every_verdict_counted():
    header, rows = field_record.read_judged()
    assert {r["source"] for r in rows} == {f for f, *_ in field_record.VERDICT_FILES}
    assert len(rows) == len(field_record.read_verdicts())
    assert header["msacclint"] and not header["dirty"]


def test_the_documented_bar_is_the_one_the_code_applies():
    assert (groups.BAR.reads, groups.BAR.true_share, groups.BAR.few_reads) == (READS, SHARE, FEW)
    assert f"at least **{READS}** findings read" in (ROOT / "docs" / "groups.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("rule", api.rules(), ids=lambda r: r.code)
def test_a_proven_rule_is_on_by_default_exactly_when_its_record_meets_the_bar(rule):
    record = json.loads((data_dir() / "field_record.json").read_text(encoding="utf-8"))
    cell = record["rules"].get(rule.code, {}).get("all", {}).get(rule.severity.value, {})
    if rule.group in groups.PROVEN:
        assert rule.enabled_by_default() is _documented_bar(cell), (rule.code, cell)
        assert api.group_of(rule) == (rule.group if _documented_bar(cell) else "nursery")
    else:
        assert rule.enabled_by_default() is (rule.group == "tool")
        assert api.group_of(rule) == rule.group
    assert (rule.code in registry.default_codes()) is rule.enabled_by_default()


def test_a_finding_at_a_grade_the_record_does_not_support_is_in_the_nursery():
    record = json.loads((data_dir() / "field_record.json").read_text(encoding="utf-8"))["rules"]
    checked = 0
    for rule in api.rules():
        if rule.group not in groups.PROVEN or not rule.enabled_by_default():
            continue
        for grade in ("error", "warning"):
            if grade == rule.severity.value:
                continue
            cell = record.get(rule.code, {}).get("all", {}).get(grade, {})
            expected = rule.group if _documented_bar(cell) else "nursery"
            assert registry.finding_group(rule.code, grade) == expected
            checked += 1
        assert registry.finding_group(rule.code, "info") == rule.group
    assert checked


def test_each_rule_page_shows_its_record():
    header, rows = field_record.read_judged()
    for rule in api.rules():
        page = render(rule)
        assert "## Field record" in page
        read = [r for r in rows if r["code"] == rule.code and r.get("now") != "skipped"]
        if not read:
            assert "No finding of this rule has been judged" in page
            continue
        own = [r for r in read if r.get("now") and r["now"]["grade"] == rule.severity.value]
        if own:
            line = next(x for x in page.splitlines() if x.startswith(f"| {rule.severity.value} | "))
            assert line.startswith(f"| {rule.severity.value} | {len(own)} | "), (rule.code, line)
        assert header["msacclint"][:12] in page
