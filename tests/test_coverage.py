"""docs/coverage.md and the report's per-item verdicts come from rules/checklist.toml and the
rule registry; an item marked decidable must have a rule."""

from pathlib import Path

from msacclint import coverage
from msacclint.engine import registry

DOC = Path(__file__).resolve().parents[1] / "docs" / "coverage.md"


def test_the_coverage_table_is_up_to_date(shipped_record):
    assert DOC.read_text(encoding="utf-8") == coverage.render_markdown(), \
        "docs/coverage.md is stale; regenerate with: python -m msacclint.coverage docs/coverage.md"


def test_no_decidable_item_without_a_rule_and_no_rule_outside_the_checklist():
    assert coverage.problems() == []
    ids = {item.id for item in coverage.coverage()}
    assert all(rule.checklist in ids for rule in registry.all_rules())


def test_every_item_lists_its_rules():
    items = {item.id: item for item in coverage.coverage()}
    assert [r.code for r in items["cg.01"].rules] == ["MSA508"]
    assert "MSA603" in [r.code for r in items["dist.02"].rules]
    assert items["ds.01"].rules == () and items["ds.01"].decidable == "no"


def test_a_partial_item_is_never_no_problem_alone():
    items = {item.id: item for item in coverage.coverage()}
    text = coverage.verdict(items["cg.01"], 0)
    assert text.startswith("MSA508 ran and found nothing") and "Check by hand" in text
    assert "No problem" not in text
    for item in items.values():
        said = coverage.verdict(item, 0)
        if item.decidable != "yes":
            assert "No problem" not in said and "Check by hand" in said, (item.id, said)


def test_verdicts_for_findings_unselected_rules_and_decided_items():
    items = {item.id: item for item in coverage.coverage()}
    assert coverage.verdict(items["dp.05"], 0) == "No problem found by MSA307."
    assert coverage.verdict(items["dp.05"], 2).startswith("2 findings")
    unselected = coverage.verdict(items["dp.05"], 0, enabled=["MSA101"])
    assert unselected.startswith("Not checked by msacclint (its rules (MSA307) are switched off in this run)")
    assert coverage.verdict(items["hp.03"], 0).startswith("Not checked by msacclint (no rule decides this item)")
