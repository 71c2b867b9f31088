"""Severity discipline (issue 12): an error-level rule states what it resolves before it
reports, and its rule page says so."""

from msacclint.engine import registry
from msacclint.frontends.rule_page import render


def test_every_error_level_rule_states_its_evidence():
    errors = [r for r in registry.all_rules() if r.severity.value == "error"]
    assert errors, "no error-level rule found"
    missing = [r.code for r in errors if len(r.evidence.strip()) < 40]
    assert not missing, f"error-level rules without an evidence statement: {', '.join(missing)}"


def test_the_rule_page_renders_the_evidence_of_an_error():
    rule = next(r for r in registry.all_rules() if r.code == "MSA505")
    page = render(rule)
    assert "## What makes it an error" in page
    assert "residual branch" in page.split("## What makes it an error", 1)[1]


def test_table_rules_carry_their_evidence_from_the_table():
    rule = next(r for r in registry.all_rules() if r.code == "MSA107")
    assert "use_batch_statistics" in rule.evidence
    assert "## What makes it an error" in render(rule)
