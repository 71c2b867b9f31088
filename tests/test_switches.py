"""analysis/switches.py: branch tests read as a switch and a predicate on its value."""

import libcst as cst
import pytest

from msacclint.analysis.switches import switch


@pytest.mark.parametrize("test,name,values", [
    ("has_dropout", "has_dropout", {True: True, 0: False}),
    ("final_drop > 0", "final_drop", {0.2: True, 0.0: False, "x": None}),
    ("drop_prob is not None", "drop_prob", {None: False, 0.1: True}),
    ("mode == 'sl1'", "mode", {"sl1": True, "l2": False}),
    ("self.mode in ('val', 'eval')", "self.mode", {"val": True, "train": False}),
    ("self.mode not in ['val', 'eval']", "self.mode", {"val": False, "train": True}),
    ("not self.training", "self.training", {False: True, True: False}),
    ("not final_drop > 0", "final_drop", {0.2: False, "x": None}),
])
def test_switch_and_its_predicate(test, name, values):
    found = switch(cst.parse_expression(test))
    assert found is not None and found[0] == name
    assert {v: found[1](v) for v in values} == values


@pytest.mark.parametrize("test", ["a and b", "x.mode == 'val'", "mode == other", "f(mode)"])
def test_other_tests_are_no_switch(test):
    assert switch(cst.parse_expression(test)) is None
