"""Every rule's own VALID and INVALID examples, run through the real engine.

INVALID examples must be reported (on the stated line), VALID ones must not; where an
example states the text after the safe or unsafe fixes, applying them must give exactly
that text, and a second pass must change nothing.
"""

import pytest
from helpers import check, fixed

from msacclint.engine import registry

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


@pytest.mark.parametrize("code,index,example", CASES_VALID, ids=[f"{c}-valid-{i}" for c, i, _ in CASES_VALID])
def test_valid(code, index, example):
    found = [d for d in check(example.code, [code], path=example.path, mindspore_version=example.mindspore_version)
             if d.code == code]
    assert found == [], f"{code} reported VALID example {index}:\n{example.code}\n{found}"


@pytest.mark.parametrize("code,index,example", CASES_INVALID,
                         ids=[f"{c}-invalid-{i}" for c, i, _ in CASES_INVALID])
def test_invalid(code, index, example):
    found = [d for d in check(example.code, [code], path=example.path, mindspore_version=example.mindspore_version)
             if d.code == code]
    assert found, f"{code} missed INVALID example {index}:\n{example.code}"
    if example.line is not None:
        assert example.line in [d.line for d in found], (example.line, found)
    if example.message_contains:
        assert any(example.message_contains in d.message for d in found), found
    for unsafe, expected in ((False, example.fixed), (True, example.unsafe_fixed)):
        if expected is None:
            continue
        after = fixed(example.code, [code], unsafe=unsafe, mindspore_version=example.mindspore_version)
        assert after == expected
        assert fixed(after, [code], unsafe=unsafe, mindspore_version=example.mindspore_version) == after
