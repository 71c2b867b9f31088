"""Bad input, each case through the real CLI (or the batch layer where the timing matters).

Every case: the odd file gets one clear MSA001 (or is skipped), the run goes on, the good
file's finding is still printed, and the exit status stays right.
"""

from __future__ import annotations

import os
import sys

import libcst as cst
import pytest

from msacclint.analysis.context import FileContext
from msacclint.analysis.imports import ImportTable
from msacclint.engine import registry
from msacclint.engine.batch import check_files
from msacclint.engine.runner import check_source, run_rules
from msacclint.rules.base import Rule
from msacclint.settings import Settings

GOOD = "import mindspore.nn as nn\n\ndrop = nn.Dropout(0.1)\n"
GOOD_FINDING = "good.py:3:8: error: MSA101"


def _tree(tmp_path, name: str, content) -> None:
    (tmp_path / "good.py").write_text(GOOD, encoding="utf-8")
    target = tmp_path / name
    if isinstance(content, bytes):
        target.write_bytes(content)
    elif content is not None:
        target.write_text(content, encoding="utf-8")


def _check(run_cli, *args):
    result = run_cli("check", "--no-cache", *args)
    assert "Traceback" not in result.stderr, result.stderr
    return result


def _msa001(output: str, name: str) -> str:
    lines = [line for line in output.splitlines() if line.startswith(name + ":") and "MSA001" in line]
    assert len(lines) == 1, output
    return lines[0]


def _reported_beside_good(run_cli, name: str) -> str:
    """Check the tree: the file ``name`` is reported as bad input (its one MSA001 line is
    returned) and good.py beside it is still checked."""
    result = _check(run_cli, ".")
    assert result.returncode == 1
    assert GOOD_FINDING in result.stdout
    return _msa001(result.stdout, name)


def test_syntax_error(tmp_path, run_cli):
    _tree(tmp_path, "broken.py", "import mindspore\n\ndef train(:\n    pass\n")
    line = _reported_beside_good(run_cli, "broken.py")
    assert line.startswith("broken.py:3:") and "syntax error" in line


@pytest.mark.parametrize("name,content,said", [
    ("latin.py", "import mindspore\nname = 'caf\u00e9'\n".encode("latin-1"), "not valid UTF-8"),
    ("odd.py", b"# coding: no-such-codec\nimport mindspore\n", "no-such-codec"),
    ("nul.py", b"import mindspore\nx = 1\x00\n", "NUL bytes"),
], ids=["not-utf8", "unknown-coding-line", "nul-bytes"])
def test_text_python_cannot_read_is_bad_input(tmp_path, run_cli, name, content, said):
    _tree(tmp_path, name, content)
    assert said in _reported_beside_good(run_cli, name)


def test_a_coding_line_is_honoured(tmp_path, run_cli):
    source = "# -*- coding: latin-1 -*-\nimport mindspore.nn as nn\nname = 'caf\u00e9'\ndrop = nn.Dropout(0.1)\n"
    _tree(tmp_path, "latin.py", source.encode("latin-1"))
    result = _check(run_cli, ".")
    assert result.returncode == 1
    assert "latin.py:4:8: error: MSA101" in result.stdout
    assert "MSA001" not in result.stdout


def test_utf8_bom_is_read_like_any_file(tmp_path, run_cli):
    (tmp_path / "bom.py").write_bytes(b"\xef\xbb\xbf" + GOOD.encode())
    result = _check(run_cli, "bom.py")
    assert result.returncode == 1
    # same line and column as without the BOM: the BOM is not a character of line 1
    assert "bom.py:3:8: error: MSA101" in result.stdout
    assert "MSA001" not in result.stdout


def test_crlf_line_endings(tmp_path, run_cli):
    (tmp_path / "crlf.py").write_bytes(GOOD.replace("\n", "\r\n").encode())
    result = _check(run_cli, "crlf.py", "--format", "json")
    assert result.returncode == 1
    import json

    (found,) = json.loads(result.stdout)
    assert (found["code"], found["line"], found["column"], found["end_line"]) == ("MSA101", 3, 8, 3)


def test_ten_megabyte_generated_file(tmp_path, run_cli):
    # a generated weight table, as conversion scripts write them, after the model code:
    # over the size limit, reported as not checked instead of parsed for minutes
    row = "    [" + ", ".join(f"0.{i:06d}" for i in range(40)) + "],\n"
    body = "WEIGHTS = [\n" + row * (10_200_000 // len(row)) + "]\n"
    _tree(tmp_path, "weights.py", GOOD + body)
    assert (tmp_path / "weights.py").stat().st_size > 10_000_000
    assert "10.2 MB" in _reported_beside_good(run_cli, "weights.py")


@pytest.mark.parametrize("shape", ["brackets", "calls", "unary"])
def test_nesting_beyond_the_recursion_limit(tmp_path, run_cli, shape):
    deep = {
        # CPython itself refuses more than 200 nested brackets; LibCST's native parser
        # would crash the process (stack overflow) on these, so they never reach it
        "brackets": "x = " + "[" * 5000 + "]" * 5000,
        # valid Python that is deeper than the engine's recursion limit allows to walk
        "calls": "x = f" + "(0)" * 1000,
        "unary": "x = " + "-" * 1000 + "1",
    }[shape]
    _tree(tmp_path, "deep.py", "import mindspore\n" + deep + "\n")
    assert "nested" in _reported_beside_good(run_cli, "deep.py")


def test_symlink_loop_in_the_tree(tmp_path, run_cli):
    _tree(tmp_path, "pkg/model.py", None)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "model.py").write_text(GOOD, encoding="utf-8")
    (tmp_path / "pkg" / "again").symlink_to(tmp_path)  # a folder loop: not followed
    (tmp_path / "a.py").symlink_to(tmp_path / "b.py")  # a file loop: a clear message
    (tmp_path / "b.py").symlink_to(tmp_path / "a.py")
    result = _check(run_cli, ".")
    assert result.returncode == 1
    assert GOOD_FINDING in result.stdout and "pkg/model.py:3:8: error: MSA101" in result.stdout
    assert "symbolic links" in _msa001(result.stdout, "a.py")
    assert "again" not in result.stdout


def test_unreadable_file(tmp_path, run_cli):
    # We run as root, and root reads a chmod 000 file anyway, so that case is only tested
    # when the tests do not run as root. What fails for root too: a .py file whose read()
    # raises EIO, here a symbolic link to the reading process's own /proc/self/mem
    # (offset 0 is never mapped).
    _tree(tmp_path, "mem.py", None)
    (tmp_path / "mem.py").symlink_to("/proc/self/mem")
    cases = ["mem.py"]
    if os.geteuid() != 0:
        (tmp_path / "locked.py").write_text(GOOD, encoding="utf-8")
        (tmp_path / "locked.py").chmod(0)
        cases.append("locked.py")
    result = _check(run_cli, ".")
    assert result.returncode == 1
    assert "cannot be read" in _msa001(result.stdout, "mem.py")
    if "locked.py" in cases:
        assert "permission denied" in _msa001(result.stdout, "locked.py")
    assert GOOD_FINDING in result.stdout


def test_dangling_symlink(tmp_path, run_cli):
    _tree(tmp_path, "gone.py", None)
    (tmp_path / "gone.py").symlink_to(tmp_path / "nowhere.py")
    assert "missing file" in _reported_beside_good(run_cli, "gone.py")


def test_file_deleted_between_discovery_and_reading(tmp_path):
    good = tmp_path / "good.py"
    good.write_text(GOOD, encoding="utf-8")
    gone = tmp_path / "gone.py"
    gone.write_text(GOOD, encoding="utf-8")
    paths = [str(good), str(gone)]  # as discovery listed them
    gone.unlink()
    settings = Settings(enabled=frozenset(registry.default_codes()), root=str(tmp_path))
    found = check_files(paths, settings, jobs=1, use_cache=True)
    assert [(d.path, d.code) for d in found] == [(str(gone), "MSA001"), (str(good), "MSA101")]
    assert "disappeared" in found[0].message


def test_empty_file(tmp_path, run_cli):
    (tmp_path / "empty.py").write_bytes(b"")
    result = _check(run_cli, ".")
    assert result.returncode == 0 and result.stdout == ""
    _tree(tmp_path, "empty.py", b"")
    result = _check(run_cli, ".")
    assert result.returncode == 1 and result.stdout.count("MSA") == 1 and GOOD_FINDING in result.stdout


def test_directory_named_like_a_python_file(tmp_path, run_cli):
    _tree(tmp_path, "models.py/inner.py", None)
    (tmp_path / "models.py").mkdir()
    (tmp_path / "models.py" / "inner.py").write_text(GOOD, encoding="utf-8")
    (tmp_path / "link.py").symlink_to(tmp_path / "models.py")  # a link to it, not followed
    result = _check(run_cli, ".")
    assert result.returncode == 1
    assert "models.py/inner.py:3:8: error: MSA101" in result.stdout and GOOD_FINDING in result.stdout
    assert "directory" in _msa001(result.stdout, "link.py")
    named = _check(run_cli, "models.py")  # named on the command line: walked as a folder
    assert named.returncode == 1 and "models.py/inner.py:3:8: error: MSA101" in named.stdout


def test_nonexistent_path_is_a_usage_error(tmp_path, run_cli):
    _tree(tmp_path, "x.py", None)
    result = _check(run_cli, "good.py", "no_such_dir/train.py")
    assert result.returncode == 2
    assert "no_such_dir/train.py" in result.stderr
    assert result.stdout == ""


class _Crashes(Rule):
    """A rule with a bug: it raises on the first call it sees."""

    code = "MSA999"
    checklist = "tool.02"
    name = "crashes-on-calls"

    def visit_Call(self, node: cst.Call) -> None:
        raise ZeroDivisionError("boom")


def test_a_crashing_rule_is_reported_and_hides_nothing():
    module = cst.parse_module(GOOD)
    dropout = registry.rules_by_code()["MSA101"]
    settings = Settings(enabled=frozenset({"MSA101", "MSA002"}))
    ctx = FileContext(path="train.py", source=GOOD, module=module,
                      imports=ImportTable.from_module(module), settings=settings)
    found = run_rules(ctx, [_Crashes, dropout])
    codes = sorted(d.code for d in found)
    assert codes == ["MSA002", "MSA101"]
    crash = next(d for d in found if d.code == "MSA002")
    assert crash.path == "train.py"
    assert "MSA999" in crash.message and "crashes-on-calls" in crash.message
    assert "ZeroDivisionError: boom" in crash.message


def test_bad_files_in_a_parallel_run_keep_their_order(tmp_path):
    for i in range(20):
        (tmp_path / f"m{i:02d}.py").write_text(GOOD, encoding="utf-8")
    (tmp_path / "m05.py").write_bytes(b"import mindspore\n\x00")
    (tmp_path / "m07.py").write_text("import mindspore\ndef (:\n", encoding="utf-8")
    paths = sorted(str(p) for p in tmp_path.iterdir())
    settings = Settings(enabled=frozenset(registry.default_codes()), root=str(tmp_path))
    found = check_files(paths, settings, jobs=2, use_cache=False)
    assert [os.path.basename(d.path) for d in found] == [os.path.basename(p) for p in paths]
    assert [d.code for d in found].count("MSA001") == 2


def test_engine_takes_bytes_and_text_alike():
    assert check_source(GOOD.encode(), "a.py", Settings(enabled=frozenset({"MSA101"})))[0].line == 3
    assert sys.getrecursionlimit() >= 3000  # the engine raises it for deep model code
