"""Every rule's own VALID and INVALID examples, run through the real engine.

INVALID examples must be reported on exactly the lines their ``# MSAnnn`` markers name, VALID
ones must not; where an example states the text after the safe or unsafe fixes, applying
them must give exactly that text (the markers, which a fix keeps, set aside), and a second
pass must change nothing.
"""

import pytest
from helpers import check, check_tree, fixed

from msacclint.engine import registry
from msacclint.rules import examples

CASES_VALID = [(r.code, i, ex) for r in registry.all_rules() for i, ex in enumerate(r.VALID)]
CASES_INVALID = [(r.code, i, ex) for r in registry.all_rules() for i, ex in enumerate(r.INVALID)]


def test_every_rule_has_examples():
    engine_codes = {"MSA001", "MSA002"}
    for rule in registry.all_rules():
        if rule.code in engine_codes:
            continue
        assert len(rule.INVALID) >= 2, f"{rule.code} needs at least two INVALID examples"
        assert len(rule.VALID) >= 3, f"{rule.code} needs at least three VALID examples"


def test_every_rule_has_metadata():
    from msacclint.data import checklist_ids

    for rule in registry.all_rules():
        assert rule.code.startswith("MSA") and len(rule.code) == 6, rule.code
        assert rule.checklist in checklist_ids(), (rule.code, rule.checklist)
        assert rule.name and rule.why and rule.message, rule.code


def _found(example, code, tmp_path):
    """(path, line, code) of the rule's findings on an example: one file through the
    engine, several written to a folder and checked together."""
    version = example.mindspore_version
    if not example.files:
        return [d for d in check(example.code, [code], path=example.path, mindspore_version=version)
                if d.code == code]
    return [d for d in check_tree(tmp_path, example.sources, [code], mindspore_version=version) if d.code == code]


@pytest.mark.parametrize("code,index,example", CASES_VALID, ids=[f"{c}-valid-{i}" for c, i, _ in CASES_VALID])
def test_valid(code, index, example, tmp_path):
    assert not examples.expected(example.sources), f"{code} VALID example {index} carries a finding marker"
    found = _found(example, code, tmp_path)
    assert found == [], f"{code} reported VALID example {index}:\n{example.sources}\n{found}"


@pytest.mark.parametrize("code,index,example", CASES_INVALID,
                         ids=[f"{c}-invalid-{i}" for c, i, _ in CASES_INVALID])
def test_invalid(code, index, example, tmp_path):
    found = _found(example, code, tmp_path)
    assert found, f"{code} missed INVALID example {index}:\n{example.sources}"
    marked = example.expected
    assert marked, f"{code} INVALID example {index} marks no line: put '# {code}' on each reported line"
    assert {m for m in marked if m[2] != code} == set(), f"markers of other codes in an example of {code}"
    got = {(d.path if d.cell is None else f"{d.path}:cell {d.cell}", d.line, d.code) for d in found}
    assert got == set(marked), f"{code} INVALID example {index}: expected {sorted(marked)}, found {sorted(got)}"
    if example.line is not None:
        assert example.line in [d.line for d in found], (example.line, found)
    if example.message_contains:
        assert any(example.message_contains in d.message for d in found), found
    if example.severity is not None:
        assert {d.severity for d in found} == {example.severity}, found
    for unsafe, explicit, expected in ((False, False, example.fixed), (True, False, example.unsafe_fixed),
                                       (False, True, example.explicit_fixed)):
        if expected is None:
            continue
        assert not example.files, "fix expectations are for single-file examples"
        after = fixed(example.code, [code], unsafe=unsafe, explicit=explicit,
                      mindspore_version=example.mindspore_version)
        assert examples.strip_markers(after) == expected
        assert fixed(after, [code], unsafe=unsafe, explicit=explicit,
                     mindspore_version=example.mindspore_version) == after


TABLE_RULES = [r for r in registry.all_rules() if hasattr(r, "spec")]


@pytest.mark.parametrize("rule", TABLE_RULES, ids=[r.code for r in TABLE_RULES])
def test_a_table_rule_page_shows_the_corrected_example(rule):
    """"Use instead" is the page's "Example" corrected: the rule is quiet on it, and it is
    mostly the same text (the table states it, or it is the first example after its fix)."""
    import difflib

    assert rule.use_instead, f"{rule.code}: no 'Use instead' (state use_instead in the table)"
    first = rule.INVALID[0]
    assert rule.example == first.code
    quiet = [d for d in check(rule.use_instead, [rule.code], mindspore_version=first.mindspore_version)
             if d.code == rule.code]
    assert quiet == [], f"{rule.code} reports its own 'Use instead': {quiet}"
    similarity = difflib.SequenceMatcher(None, examples.strip_markers(rule.example), rule.use_instead).ratio()
    assert similarity > 0.45, f"{rule.code}: 'Use instead' is not a correction of the example ({similarity:.2f})"


def test_references_point_inside_the_repository_or_to_the_web():
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    for rule in registry.all_rules():
        for reference in rule.references:
            if reference.startswith(("https://", "http://")):
                continue
            path = reference.split()[0].rstrip(",")
            assert (root / path).is_file(), f"{rule.code} cites {path}, which is not a file of the repository"
