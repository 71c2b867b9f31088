"""The `port` group: one selector that adds the rules kept off for MindSpore-native code,
through the real command line and pyproject.toml; MSA003 suggests it."""

from helpers import triples

from msacclint.engine import registry
from msacclint.rules.profiles import PORT

PORT_FILE = """\
import mindspore.nn as nn
import torch
ln = nn.LayerNorm((768,))
emb = nn.Embedding(100, 16, padding_idx=0)
state = torch.load("bert_base.pth")
"""


def codes(result):
    return sorted(code for *_, code in triples(result.stdout))


def test_the_port_codes_are_the_port_group_and_off_by_default():
    rules = registry.rules_by_code()
    assert sorted(PORT) == sorted(code for code, rule in rules.items() if rule.group == "port")
    for code in PORT:
        assert not rules[code].enabled_by_default(), f"{code} is on by default: the group would add nothing"


def test_extend_select_port_adds_the_group_to_the_defaults(run_cli, write):
    write("m.py", PORT_FILE)
    assert codes(run_cli("check", "m.py")) == []
    found = run_cli("check", "--extend-select", "port", "m.py")
    assert codes(found) == ["MSA111", "MSA116", "MSA145"], found.stdout + found.stderr
    alone = run_cli("check", "--select", "port", "m.py")
    assert codes(alone) == ["MSA111", "MSA116", "MSA145"], alone.stdout + alone.stderr


def test_group_in_pyproject(run_cli, write):
    write("pyproject.toml", "[project]\nname = 'x'\n\n[tool.msacclint]\nextend-select = [\"port\"]\n")
    write("m.py", PORT_FILE + "import mindspore.nn as nn2\npool = nn2.MaxPool2d(2)\n")
    # extend-select keeps the default rules (MSA104) and adds the group's
    assert codes(run_cli("check", "m.py")) == ["MSA104", "MSA111", "MSA116", "MSA145"]
    write("pyproject.toml", "[project]\nname = 'x'\n\n[tool.msacclint]\nselect = [\"port\"]\n")
    # select replaces them with the group alone
    assert codes(run_cli("check", "m.py")) == ["MSA111", "MSA116", "MSA145"]


def test_the_suggestion_names_the_group_and_goes_quiet_under_it(run_cli, write):
    write("m.py", PORT_FILE)
    found = run_cli("check", "--extend-select", "MSA003", "m.py")
    assert codes(found) == ["MSA003"] and "--extend-select port" in found.stdout
    assert "MSA003" not in codes(run_cli("check", "--select", "port,MSA003", "m.py"))
