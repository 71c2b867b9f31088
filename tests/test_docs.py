"""docs/rules/ must be exactly what the rules' own metadata generates."""

from pathlib import Path

from msacclint.engine import registry
from msacclint.frontends.rule_page import render, render_index

RULES_DOCS = Path(__file__).resolve().parents[1] / "docs" / "rules"
REGENERATE = "regenerate with: python -m msacclint.frontends.rule_page docs/rules"


def expected_pages():
    pages = {f"{rule.code}.md": render(rule) for rule in registry.all_rules()}
    pages["README.md"] = render_index()
    return pages


def test_rule_pages_are_up_to_date(shipped_record):
    expected = expected_pages()
    present = {path.name for path in RULES_DOCS.glob("*.md")}
    missing = sorted(set(expected) - present)
    assert not missing, f"docs/rules/ lacks {', '.join(missing)}; {REGENERATE}"
    stale = sorted(name for name, text in expected.items()
                   if (RULES_DOCS / name).read_text(encoding="utf-8") != text)
    assert not stale, f"docs/rules/ pages differ from the rules' metadata: {', '.join(stale)}; {REGENERATE}"
    orphans = sorted(present - set(expected))
    assert not orphans, (f"docs/rules/ has pages of rules that do not exist: {', '.join(orphans)}; "
                         f"delete them and {REGENERATE}")


def test_every_rule_page_has_the_sections_a_user_needs():
    for rule in registry.all_rules():
        page = render(rule)
        assert page.startswith(f"# {rule.code}: {rule.name}\n"), rule.code
        for section in ("## What it does", "## Why is this bad?", "## Example"):
            assert section in page, (rule.code, section)
