"""The rule-example format: dedented sources, `# MSAnnn` markers, several files."""

import pytest
from helpers import check_tree

from msacclint.rules import examples
from msacclint.rules.base import Invalid, Valid


def test_dedent_drops_the_opening_newline_and_indentation():
    example = Invalid("""
        import mindspore.nn as nn
        drop = nn.Dropout(0.1)  # MSA101
    """)
    assert example.code == "import mindspore.nn as nn\ndrop = nn.Dropout(0.1)  # MSA101\n"
    assert example.expected == {("train.py", 2, "MSA101")}


@pytest.mark.parametrize("comment,codes", [
    ("# MSA101", {"MSA101"}),
    ("#MSA101 MSA104", {"MSA101", "MSA104"}),
    ("# MSA101, MSA104: both layers", {"MSA101", "MSA104"}),
    ("# MSA101 - a drop rate as keep_prob", {"MSA101"}),
    ("# noqa: MSA101", set()),
    ("# see MSA101", set()),
    ("# MSA1011", set()),
])
def test_what_counts_as_a_marker(comment, codes):
    assert {code for _, code in examples.markers(f"x = 1  {comment}\n")} == codes


def test_a_marker_inside_a_string_is_not_a_marker():
    assert examples.markers('s = "# MSA101"\n') == frozenset()


def test_several_files_are_keyed_by_path():
    example = Invalid(files={
        "src/model.py": """
            import mindspore.nn as nn
            RATE = 0.1
        """,
        "train.py": """
            from src.model import RATE
            import mindspore.nn as nn
            drop = nn.Dropout(RATE)  # MSA101
        """,
    })
    assert example.sources["src/model.py"].startswith("import mindspore.nn")
    assert example.expected == {("train.py", 3, "MSA101")}


def test_code_and_files_together_are_refused():
    with pytest.raises(ValueError):
        Valid("x = 1\n", files={"a.py": "x = 1\n"})


def test_a_tree_is_checked_as_a_folder(tmp_path):
    found = check_tree(tmp_path, {"pkg/net.py": "import mindspore.nn as nn\npool = nn.MaxPool2d(2)\n"}, ["MSA104"])
    assert [(d.path, d.line, d.code) for d in found] == [("pkg/net.py", 2, "MSA104")]


def test_every_rule_keeps_valid_and_invalid_examples_apart():
    """A VALID example put in INVALID (or the reverse) would be checked the wrong way."""
    from msacclint.engine import registry
    from msacclint.rules.base import Invalid, Valid

    misplaced = [(rule.code, kind, i) for rule in registry.all_rules()
                 for kind, group, cls in (("VALID", rule.VALID, Valid), ("INVALID", rule.INVALID, Invalid))
                 for i, example in enumerate(group) if type(example) is not cls]
    assert not misplaced, misplaced
