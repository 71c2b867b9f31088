"""Docs that cannot drift: the command outputs in README.md and docs/*.md are regenerated
by tests/docs_examples.py and must match; rule pages show examples that their rule really
reports, and cite nothing outside this repository."""

import re
from pathlib import Path

import docs_examples
import pytest
from helpers import check

from msacclint.engine import registry

ROOT = Path(__file__).resolve().parents[1]


def test_the_outputs_shown_in_the_docs_are_what_the_commands_print(capsys):
    status = docs_examples.main(["--check"])
    assert status == 0, capsys.readouterr().err


def test_every_document_with_output_has_a_marker():
    """A console block that shows `$ msacclint check ...` followed by findings must be
    generated (findings lines are the ones that go stale)."""
    finding = re.compile(r"^\S+\.(py|ipynb):\d+:\d+: (?:(?:error|warning|info): )?MSA\d{3} ", re.MULTILINE)
    for path in docs_examples.documents():
        text = path.read_text(encoding="utf-8")
        generated = "".join(m.group(0) for m in docs_examples.MARKER.finditer(text))
        rest = docs_examples.MARKER.sub("", text)
        assert not finding.search(rest), f"{path.name}: a finding shown outside a generated block"
        assert generated or not finding.search(text)


PAGES = [rule for rule in registry.all_rules() if rule.example and not rule.example.startswith("(")]


@pytest.mark.parametrize("rule", [r for r in PAGES if r.code == "MSA001"], ids=lambda r: r.code)
def test_the_msa001_page_example_is_reported_as_shown(rule):
    found = check(rule.example, [rule.code])
    assert [(d.code, d.line) for d in found] == [("MSA001", 4)], found
    assert check(rule.use_instead, [rule.code]) == []


def test_rule_pages_cite_no_path_outside_the_repository():
    folder = ROOT / "docs" / "rules"
    path_like = re.compile(r"(?<![\w/.:-])((?:[\w.-]+/)+[\w.-]+\.(?:py|md|toml|json))\b")
    for page in sorted(folder.glob("MSA*.md")):
        refs = page.read_text(encoding="utf-8").split("## References", 1)
        if len(refs) < 2:
            continue
        for line in refs[1].splitlines():
            text = re.sub(r"\(https://[^)]*\)", "", line)  # links to public repositories are fine
            text = re.sub(r"\[[^\]]*\]", "", text)
            for path in path_like.findall(text):
                assert (ROOT / path).exists(), f"{page.name} cites {path}, which this repository does not have"
