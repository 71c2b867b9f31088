"""Fixes follow the file's style: a new keyword goes inside the brackets, on a line of its
own when the call is written one argument per line, after a line break when the line would
pass the configured (pyproject.toml) or detected line length; comments stay on their line."""

import pytest
from helpers import fixed, settings

from msacclint.analysis.edits import detected_line_length
from msacclint.engine.fixes import configured_line_length, fix_text

HEAD = ("import mindspore.nn as nn\n" + "".join(f"LAYER_{i} = {i}\n" for i in range(8)) +
        "\n\nclass Net(nn.Cell):\n    def __init__(self):\n")
LONG = "        self.features_pooling_layer_one = nn.MaxPool2d(kernel_size=(2, 2), pad_mode='valid')  # pooled\n"


def test_a_keyword_that_would_pass_the_detected_length_goes_on_a_new_line():
    assert detected_line_length(HEAD + LONG) == 110  # its longest line has 102 characters
    after = fixed(HEAD + LONG, ["MSA104"], unsafe=True)
    assert after == HEAD + (
        "        self.features_pooling_layer_one = nn.MaxPool2d(kernel_size=(2, 2), pad_mode='valid',\n"
        "                                                       stride=(2, 2))  # pooled\n")
    assert max(len(line) for line in after.splitlines()) <= 110


def test_a_snippet_too_short_to_tell_gets_no_limit():
    assert detected_line_length("import mindspore.nn as nn\n" + LONG) is None


def test_a_short_line_stays_one_line():
    text = "import mindspore.nn as nn\npool = nn.MaxPool2d(2)  # halves\n"
    assert fixed(text, ["MSA104"], unsafe=True) == ("import mindspore.nn as nn\n"
                                                    "pool = nn.MaxPool2d(2, stride=2)  # halves\n")


@pytest.mark.parametrize("table", ["msacclint", "ruff", "black"])
def test_the_configured_line_length_wins(tmp_path, table):
    (tmp_path / "pyproject.toml").write_text(f"[tool.{table}]\nline-length = 60\n")
    path = tmp_path / "src" / "net.py"
    path.parent.mkdir()
    text = "import mindspore.nn as nn\npool = nn.MaxPool2d(kernel_size=3, pad_mode='valid')\n"
    assert configured_line_length(str(path)) == 60
    after, applied, _ = fix_text(text, str(path), settings(["MSA104"]), unsafe=True)
    assert applied == 1
    assert after == ("import mindspore.nn as nn\npool = nn.MaxPool2d(kernel_size=3, pad_mode='valid',\n"
                     "                    stride=3)\n")


def test_msacclint_line_length_comes_before_ruff_and_black(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        "[tool.black]\nline-length = 100\n[tool.ruff]\nline-length = 90\n[tool.msacclint]\nline-length = 70\n")
    assert configured_line_length(str(tmp_path / "x.py")) == 70
    (tmp_path / "pyproject.toml").write_text("[tool.black]\nline-length = 100\n[tool.ruff]\nline-length = 90\n")
    assert configured_line_length(str(tmp_path / "x.py")) == 90


def test_one_argument_per_line_without_trailing_comma_keeps_the_comment_in_place():
    text = "import mindspore.nn as nn\npool = nn.MaxPool2d(\n    3,\n    pad_mode='valid'  # as in torch\n)\n"
    assert fixed(text, ["MSA104"], unsafe=True) == (
        "import mindspore.nn as nn\npool = nn.MaxPool2d(\n    3,\n    pad_mode='valid',  # as in torch\n"
        "    stride=3\n)\n")


def test_line_length_is_a_known_configuration_key(tmp_path, msacclint):
    (tmp_path / "pyproject.toml").write_text("[tool.msacclint]\nline-length = 70\n")
    (tmp_path / "net.py").write_text("import mindspore.nn as nn\npool = nn.MaxPool2d(2, stride=2)\n")
    assert msacclint("check", "net.py").returncode == 0
    (tmp_path / "pyproject.toml").write_text("[tool.msacclint]\nline-length = \"long\"\n")
    bad = msacclint("check", "net.py")
    assert bad.returncode == 2 and "line-length must be a positive integer" in bad.stderr
