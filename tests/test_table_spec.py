"""rules/api_defaults.toml as a validated spec: misspelled keys fail loudly, conditions
compile into named questions, every table rule is placed in its checklist area."""

import copy

import pytest

from msacclint.data import api_defaults
from msacclint.engine import registry
from msacclint.rules.base import Rule
from msacclint.rules.table import TableError, TableRuleMixin, load_table
from msacclint.rules.table.conditions import (
    ArgumentCompares,
    ArgumentsMissing,
    NextLayerDoesNotDownsample,
    NotReducedToOne,
    OutputNotFedTo,
    compile_conditions,
)
from msacclint.rules.table.spec import parse_table


def _table_with(edit):
    raw = copy.deepcopy(api_defaults())
    edit(raw)
    return raw


def _rule(raw, code):
    for item in raw["entry"]:
        for spec in item.get("rules", ()):
            if spec["code"] == code:
                return item, spec
    raise KeyError(code)


def test_the_shipped_table_parses():
    table = load_table()
    assert len(table.entries) >= 40
    assert {spec.code for _, spec in table.rules()} >= {"MSA104", "MSA107", "MSA141"}


def test_a_misspelled_rule_key_names_the_entry_and_the_key():
    raw = _table_with(lambda r: _rule(r, "MSA104")[1].update(unles_feeds=["mindspore.nn.Dense"]))
    with pytest.raises(TableError, match=r"MS-POOL-01 / MSA104: unknown key 'unles_feeds'"):
        parse_table(raw)


def test_a_misspelled_entry_key_names_the_entry():
    raw = _table_with(lambda r: _rule(r, "MSA107")[0].update(consequnce="typo"))
    with pytest.raises(TableError, match=r"MS-BN-01: unknown key 'consequnce'"):
        parse_table(raw)


def test_a_misspelled_condition_key_is_refused():
    def edit(raw):
        _rule(raw, "MSA109")[1]["require"][0]["unkown"] = "flag"
    with pytest.raises(TableError, match=r"MSA109, require, condition 1: unknown key 'unkown'"):
        parse_table(_table_with(edit))


def test_a_misspelled_fix_or_example_key_is_refused():
    with pytest.raises(TableError, match=r"MSA109, fix_keep: unknown key 'ad'"):
        parse_table(_table_with(lambda r: _rule(r, "MSA109")[1]["fix_keep"].update(ad={"x": "1"})))
    with pytest.raises(TableError, match=r"MSA109, invalid example 1: .*fixd"):
        parse_table(_table_with(lambda r: _rule(r, "MSA109")[1]["invalid"][0].update(fixd="x")))


@pytest.mark.parametrize("key,value,message", [
    ("missing_mode", "some", "missing_mode"),
    ("kind", "custom", "only 'call'"),
    ("unless_handled", {"weight": "reduced"}, "not in missing"),
])
def test_bad_values_are_refused(key, value, message):
    with pytest.raises(TableError, match=message):
        parse_table(_table_with(lambda r: _rule(r, "MSA104")[1].update({key: value})))


def test_an_unknown_operator_is_refused():
    def edit(raw):
        _rule(raw, "MSA109")[1]["require"][0]["op"] = "=>"
    with pytest.raises(TableError, match="unknown op '=>'"):
        parse_table(_table_with(edit))


def test_a_duplicate_code_is_refused():
    def edit(raw):
        _rule(raw, "MSA105")[1]["code"] = "MSA104"
    with pytest.raises(TableError, match="MSA104: code already used by MS-POOL-01"):
        parse_table(_table_with(edit))


def test_conditions_compile_to_named_questions_in_order():
    _, spec = next((e, s) for e, s in load_table().rules() if s.code == "MSA104")
    kinds = [type(c) for c in compile_conditions(spec)]
    assert kinds[:4] == [ArgumentsMissing, OutputNotFedTo, NotReducedToOne, NextLayerDoesNotDownsample]
    assert all(k is ArgumentCompares for k in kinds[4:])
    for condition in compile_conditions(spec):
        assert condition.question.endswith("?")


def test_an_unknown_entry_id_fails_when_the_rule_is_defined():
    with pytest.raises(LookupError, match="MS-NOPE-99"):
        type("Bad", (TableRuleMixin, Rule), {"code": "MSA999", "entry_id": "MS-NOPE-99"})


def test_every_table_rule_is_contributed_by_its_area():
    table_codes = {spec.code for _, spec in load_table().rules()}
    by_code = registry.rules_by_code()
    assert table_codes <= set(by_code)
    for code in table_codes:
        assert by_code[code].__module__.endswith(".table_rules"), (code, by_code[code].__module__)


def test_every_rule_lives_in_its_checklist_area():
    wrong = []
    for rule in registry.all_rules():
        parts = rule.__module__.split(".")
        area = rule.checklist.split(".")[0]
        if parts[:2] != ["msacclint", "rules"] or parts[2] != area:
            wrong.append(f"{rule.code} ({rule.checklist}) in {rule.__module__}")
    assert not wrong, "rules outside their checklist area's package: " + "; ".join(wrong)


def test_every_entry_id_a_rule_names_exists():
    ids = {item.id for item in load_table().entries}
    for rule in registry.all_rules():
        entry_id = getattr(rule, "entry_id", "")
        assert not entry_id or entry_id in ids, (rule.code, entry_id)
