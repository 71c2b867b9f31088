"""A file that cannot be read is one MSA001, however many checks meet it (issue 38).

Its own check reports it (Python's words, at the exact place); the project layer meets it
again when another file's answer needs what it defines. Both are the same finding: one per
file, whose message says that other files do not see what it defines. Through the real CLI
(a subprocess), for a whole folder, for the files named in either order and for the importer
alone, and through the batch layer with a pool of workers (each worker meets the file anew).
"""

from __future__ import annotations

import json
import os

import pytest
from helpers import trained_net_script

from msacclint.diagnostics import UNKNOWN_TO_OTHER_FILES
from msacclint.engine import registry
from msacclint.engine.batch import check_files
from msacclint.settings import Settings

TRAIN = trained_net_script("src.model")

_HEAD = "import mindspore.nn as nn\n\n\nclass Net(nn.Cell):\n    def __init__(self):\n        super().__init__()\n"

#: name -> (the broken model file, the line Python reports)
BROKEN = {
    # an unfinished edit: a line indented deeper than its block
    "indentation": (_HEAD + "        self.fc = nn.Dense(4, 2)\n          self.drop = nn.Dropout(p=0.1)\n", 8),
    # an unmatched bracket: Python names the line that opens it
    "unmatched-bracket": (_HEAD + "        self.fc = nn.Dense(4, 2,\n\n    def construct(self, x):\n"
                          "        return self.fc(x)\n", 7),
    # rejected before LibCST sees it: the bracket count (brackets in a string count) sends
    # it to Python's own parser, which finds a syntax error further on
    "both-parse-stages": (_HEAD + "        self.doc = '" + "(" * 210 + "'\n        def (:\n", 8),
}


def _write(tmp_path, model: str) -> None:
    (tmp_path / "pyproject.toml").write_text("", encoding="utf-8")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "src" / "model.py").write_text(model, encoding="utf-8")
    (tmp_path / "train.py").write_text(TRAIN, encoding="utf-8")


def _bad_input(run_cli, *args):
    result = run_cli("check", "--no-cache", "--show-info", "--format", "json", *args)
    assert "Traceback" not in result.stderr, result.stderr
    return [d for d in json.loads(result.stdout) if d["code"] == "MSA001"]


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_a_broken_file_is_reported_once_with_the_note_for_other_files(tmp_path, run_cli, case):
    model, line = BROKEN[case]
    _write(tmp_path, model)
    for args in ((".",), ("src/model.py", "train.py"), ("train.py", "src/model.py"), ("train.py",)):
        found = _bad_input(run_cli, *args)
        assert len(found) == 1, (args, found)
        (problem,) = found
        assert (problem["path"], problem["line"], problem["severity"]) == ("src/model.py", line, "error"), args
        assert problem["message"].count(UNKNOWN_TO_OTHER_FILES) == 1, (args, problem["message"])
        assert "file not checked" in problem["message"], problem["message"]


def test_a_broken_file_alone_is_reported_once(tmp_path, run_cli):
    """Checked on its own the file still belongs to the project: the note stays true."""
    _write(tmp_path, BROKEN["indentation"][0])
    (problem,) = _bad_input(run_cli, "src/model.py")
    assert problem["path"] == "src/model.py" and UNKNOWN_TO_OTHER_FILES in problem["message"]
    # without the project layer there are no other files to tell
    (alone,) = _bad_input(run_cli, "--no-project", "src/model.py")
    assert UNKNOWN_TO_OTHER_FILES not in alone["message"]


def test_a_file_that_is_not_utf8_is_reported_once(tmp_path, run_cli):
    _write(tmp_path, "")
    (tmp_path / "src" / "model.py").write_bytes(_HEAD.encode() + "        self.name = 'caf\u00e9'\n".encode("latin-1"))
    (problem,) = _bad_input(run_cli, ".")
    assert "not valid UTF-8" in problem["message"] and UNKNOWN_TO_OTHER_FILES in problem["message"]


def test_workers_that_each_meet_a_broken_file_report_it_once(tmp_path):
    """A pool of workers: the importers spread over them each meet the broken file, which
    another worker checks itself; the run still holds one MSA001 for it."""
    _write(tmp_path, BROKEN["unmatched-bracket"][0])
    for i in range(20):
        (tmp_path / f"train{i:02d}.py").write_text(TRAIN, encoding="utf-8")
    paths = sorted(str(p) for p in tmp_path.glob("*.py")) + [str(tmp_path / "src" / "model.py")]
    settings = Settings(enabled=frozenset(registry.default_codes()), root=str(tmp_path))
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        found = check_files(paths, settings, jobs=2, use_cache=False)
    finally:
        os.chdir(cwd)
    problems = [d for d in found if d.code == "MSA001"]
    assert len(problems) == 1, problems
    assert UNKNOWN_TO_OTHER_FILES in problems[0].message
