"""The per-file word census (msacclint.analysis.words) counts what a regular expression per
name would count: the words of the text, and the assignments to ``self.<name>``."""

import re

import libcst as cst

from msacclint.analysis import words
from msacclint.analysis.context import FileContext
from msacclint.analysis.imports import ImportTable
from msacclint.settings import Settings

TEXT = '''\
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(2, 2)
        self.fc2: nn.Cell = nn.Dense(2, 2)
        self.a = self.b = 0
        self.fc_x = 1  # fc in a comment, "fc" in a string
        self.café = 2
        if self.fc == 3:
            self.fc += 1

    def construct(self, x):
        y = self.fc(x)
        self.fc.weight = 0
        return self.fc2(y)
'''


def _per_name(text, name):
    mentions = len(re.findall(r"\b" + re.escape(name) + r"\b", text))
    assigned = len(re.findall(r"\bself\." + re.escape(name) + r"\s*(?::[^=\n]*)?=(?!=)", text))
    return mentions, assigned


def test_counts_equal_one_search_per_name():
    module = cst.parse_module(TEXT)
    ctx = FileContext("net.py", TEXT, module, ImportTable.from_module(module), Settings())
    names = set(re.findall(r"\w+", TEXT))
    assert {"fc", "fc2", "fc_x", "café", "a", "b", "weight"} <= names
    for name in names:
        expected = _per_name(TEXT, name)
        assert (words.mentions(ctx, name), words.self_assignments(ctx, name)) == expected, name
        assert words.count_self_assignments(TEXT, name) == expected[1], name
    assert words.mentions(ctx, "absent") == 0 and words.self_assignments(ctx, "absent") == 0
    # fc: assigned once (``self.fc == 3`` and ``self.fc += 1`` and ``self.fc.weight = 0`` are not)
    assert words.self_assignments(ctx, "fc") == 1 and words.self_assignments(ctx, "fc2") == 1
    assert words.self_assignments(ctx, "a") == 1 and words.self_assignments(ctx, "b") == 1
