"""A value the project resolves for a layer's argument counts only where the branch around
the call lets it through (msacclint/rules/api/dropout_values.py, ``_on_path``), through the CLI on a
real folder: under ``if config.dropout_p:`` a default of 0.0 never reaches the Dropout."""

import json
import subprocess
import sys

CONFIG = ("class CpmAntConfig:\n    def __init__(self, hidden=8, dropout_p=0.0, hidden_dropout=0.1):\n"
          "        self.hidden = hidden\n        self.dropout_p = dropout_p\n        self.hidden_dropout = hidden_dropout\n")
MODEL = ("import mindspore.nn as nn\nfrom pkg.config import CpmAntConfig\n\n\nclass Block(nn.Cell):\n"
         "    def __init__(self, config: CpmAntConfig):\n        super().__init__()\n"
         "        if config.dropout_p:\n            self.dropout = nn.Dropout(config.dropout_p)\n"
         "        self.always = nn.Dropout(config.hidden_dropout)\n\n"
         "    def construct(self, x):\n        return self.dropout(self.always(x))\n")


def test_a_value_the_enclosing_branch_excludes_is_not_the_evidence(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "config.py").write_text(CONFIG)
    (tmp_path / "pkg" / "model.py").write_text(MODEL)
    (tmp_path / "train.py").write_text("from pkg.model import Block\nfrom pkg.config import CpmAntConfig\n"
                                       "net = Block(CpmAntConfig())\n")
    done = subprocess.run([sys.executable, "-m", "msacclint", "check", ".", "--format", "json", "--no-cache",
                           "--exit-zero"], cwd=tmp_path, capture_output=True, text=True, check=True)
    found = {d["line"]: d for d in json.loads(done.stdout) if d["code"] == "MSA101"}
    guarded, plain = found[9], found[10]
    # every value the project gives (0.0) is excluded by the branch: the layer is built only with a
    # rate configured elsewhere, so the name-based reading is info and says why
    assert guarded["severity"] == "info" and "assumed from the name" in guarded["message"]
    assert "the branch around this call excludes" in guarded["message"]
    assert "the value is 0" not in guarded["message"]
    assert plain["severity"] == "error" and "the value is 0.1" in plain["message"]


def test_let_through_reads_truth_tests_and_comparisons_on_any_attribute():
    import libcst as cst

    from msacclint.analysis.switches import let_through

    subject = cst.parse_expression("config.rate")
    guards = [(cst.parse_expression("config.rate"), True)]
    assert let_through(guards, subject, [0.0, 0.1]) == [0.1]
    assert let_through([(cst.parse_expression("not config.rate"), True)], subject, [0.0, 0.1]) == [0.0]
    assert let_through([(cst.parse_expression("config.rate > 0"), True)], subject, [0.0, 0.1]) == [0.1]
    assert let_through([(cst.parse_expression("config.rate > 0"), False)], subject, [0.0, 0.1]) == [0.0]
    # a test on something else lets every value through
    assert let_through([(cst.parse_expression("config.other"), True)], subject, [0.0, 0.1]) == [0.0, 0.1]
