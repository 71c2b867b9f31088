"""The real command line, `python -m msacclint`, run in subprocesses."""

import json
import os

import pytest
from helpers import CLEAN, FAULTY, FAULTY_FINDINGS, FAULTY_OPT_IN, result_entries, triples

from msacclint import api
from msacclint.engine.cache import FORMAT


def found(result, path="faulty.py"):
    return [(line, col, code) for p, line, col, code in triples(result.stdout) if p == path]


# -- exit status ------------------------------------------------------------------------

def test_clean_file_exits_0(run_cli, write):
    write("clean.py", CLEAN)
    result = run_cli("check", "clean.py")
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""
    # a clean run still says it ran, and what it counted
    assert result.stderr == "All checks passed (1 file checked).\n"


def test_summary_counts_files_with_findings_of_files_checked(run_cli, write):
    write("faulty.py", FAULTY)
    write("clean.py", CLEAN)
    for fmt in ("text", "json"):
        result = run_cli("check", "--format", fmt, ".")
        assert result.returncode == 1
        assert result.stderr.startswith("Found 3 errors in 1 of 2 files checked"), result.stderr


def test_findings_exit_1_with_positions(run_cli, write):
    write("faulty.py", FAULTY)
    result = run_cli("check", "faulty.py")
    assert result.returncode == 1, result.stderr
    assert found(result) == FAULTY_FINDINGS
    assert "Found 3 errors in 1 of 1 file checked (3 with a fix" in result.stderr


def test_usage_error_exits_2(run_cli):
    result = run_cli("check", "--no-such-flag")
    assert result.returncode == 2
    assert "--no-such-flag" in result.stderr


def test_jobs_below_one_is_a_usage_error(run_cli, write):
    write("faulty.py", FAULTY)
    result = run_cli("check", "--jobs", "0", "faulty.py")
    assert result.returncode == 2
    assert "--jobs" in result.stderr


def test_configuration_error_exits_2(run_cli, write):
    write("pyproject.toml", "[tool.msacclint]\nselekt = ['MSA1']\n")
    write("faulty.py", FAULTY)
    result = run_cli("check", "faulty.py")
    assert result.returncode == 2
    assert "selekt" in result.stderr


def test_missing_path_exits_2_naming_it(run_cli, write):
    write("faulty.py", FAULTY)
    result = run_cli("check", "faulty.py", "no_such_dir/model.py")
    assert result.returncode == 2
    assert "no_such_dir/model.py" in result.stderr
    assert result.stdout == ""  # nothing is checked when a path is wrong


def test_exit_zero(run_cli, write):
    write("faulty.py", FAULTY)
    result = run_cli("check", "--exit-zero", "faulty.py")
    assert result.returncode == 0
    assert found(result) == FAULTY_FINDINGS


def test_unknown_code_on_the_command_line_exits_2(run_cli, write):
    write("faulty.py", FAULTY)
    for flag in ("--select", "--ignore", "--extend-select"):
        result = run_cli("check", flag, "MSA999", "faulty.py")
        assert result.returncode == 2, flag
        assert "MSA999" in result.stderr and flag in result.stderr


# -- selection ---------------------------------------------------------------------------

@pytest.mark.parametrize("args, expected", [
    (["--select", "MSA104"], [(7, 21, "MSA104")]),
    (["--select", "MSA10"], [(7, 21, "MSA104"), (8, 19, "MSA107"), (10, 21, "MSA103"), (11, 22, "MSA101")]),
    (["--select", "MSA104,MSA107"], [(7, 21, "MSA104"), (8, 19, "MSA107")]),
    (["--select", "ALL"], sorted(FAULTY_FINDINGS + FAULTY_OPT_IN)),
    (["--select", "all", "--ignore", "MSA10"], [(9, 19, "MSA111")]),
    (["--ignore", "MSA104"], [(8, 19, "MSA107"), (11, 22, "MSA101")]),
    (["--ignore", "MSA1"], []),
    (["--extend-select", "MSA111"], sorted(FAULTY_FINDINGS + [(9, 19, "MSA111")])),
    (["--extend-select", "MSA103", "--ignore", "MSA101"], [(7, 21, "MSA104"), (8, 19, "MSA107"), (10, 21, "MSA103")]),
])
def test_select_ignore_extend_select(run_cli, write, args, expected):
    write("faulty.py", FAULTY)
    result = run_cli("check", *args, "faulty.py")
    # the opt-in codes are info-level notes: shown when switched on, but only errors and
    # warnings fail the run by default (fail-on = warning)
    notes = {code for *_, code in FAULTY_OPT_IN}
    assert result.returncode == (1 if any(code not in notes for *_, code in expected) else 0), result.stderr
    assert found(result) == expected


def test_statistics_counts_per_code(run_cli, write):
    write("faulty.py", FAULTY)
    write("second.py", "import mindspore.nn as nn\npool = nn.MaxPool2d(3)\n")
    result = run_cli("check", "--statistics", ".")
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    findings = [line for line in lines if line.startswith(("faulty.py:", "second.py:"))]
    stats = [line.split()[:6] for line in lines if line not in findings]
    assert len(findings) == 4
    names = {code: api.rule(code).name for code in ("MSA101", "MSA104", "MSA107")}
    # count, code, name, checklist item, then the count by grade
    assert stats == [["2", "MSA104", names["MSA104"], "[api.01]", "2", "errors"],
                     ["1", "MSA101", names["MSA101"], "[api.01]", "1", "error"],
                     ["1", "MSA107", names["MSA107"], "[api.01]", "1", "error"]]


def test_statistics_with_json_keeps_stdout_parseable(run_cli, write):
    write("faulty.py", FAULTY)
    result = run_cli("check", "--statistics", "--format", "json", "faulty.py")
    assert result.returncode == 1
    log = json.loads(result.stdout)
    assert [d["code"] for d in log["diagnostics"]] == [code for *_, code in FAULTY_FINDINGS]
    by_code = {row["code"]: row for row in log["statistics"]}
    assert by_code["MSA104"]["count"] == 1 and by_code["MSA104"]["name"] == api.rule("MSA104").name
    assert by_code["MSA104"]["checklist"] == "api.01" and by_code["MSA104"]["severity"] == "error"
    assert sum(row["count"] for row in log["statistics"]) == len(FAULTY_FINDINGS)
    # without --statistics the JSON stays the documented list
    plain = run_cli("check", "--format", "json", "faulty.py")
    assert isinstance(json.loads(plain.stdout), list)


# -- many files: jobs and cache ------------------------------------------------------------

@pytest.fixture
def many_files(write):
    """20 files in nested folders (more than the in-process threshold of 16)."""
    for i in range(20):
        folder = f"pkg{i % 3}/sub{i % 2}"
        body = FAULTY if i % 2 == 0 else CLEAN + f"\npool = nn.AvgPool2d({i + 2})\n"
        write(f"{folder}/model_{i:02d}.py", body)


def test_jobs_1_and_2_give_identical_output_in_stable_order(run_cli, many_files):
    one = run_cli("check", "--no-cache", "--jobs", "1", ".")
    two = run_cli("check", "--no-cache", "--jobs", "2", ".")
    assert one.returncode == two.returncode == 1
    assert one.stdout == two.stdout
    rows = triples(one.stdout)
    assert len(rows) == 10 * 3 + 10
    keys = [(p, line, col, code) for p, line, col, code in rows]
    assert keys == sorted(keys)


def test_no_cache_writes_no_cache_folder(run_cli, many_files, tmp_path):
    result = run_cli("check", "--no-cache", ".")
    assert result.returncode == 1
    assert not (tmp_path / ".msacclint_cache").exists()


def _cache_files(tmp_path):
    return result_entries(tmp_path / ".msacclint_cache")


def test_second_run_is_served_from_the_cache(run_cli, write, tmp_path):
    write("faulty.py", FAULTY)
    first = run_cli("check", "--format", "json", "faulty.py")
    assert first.returncode == 1
    ignore = tmp_path / ".msacclint_cache" / ".gitignore"
    assert "*" in ignore.read_text().split()
    entries = _cache_files(tmp_path)
    assert len(entries) == 1
    second = run_cli("check", "--format", "json", "faulty.py")
    assert (second.returncode, second.stdout) == (first.returncode, first.stdout)

    # proof that the second run read the cache: a doctored entry shows up in the output
    stored = json.loads(entries[0].read_text())
    stored["diagnostics"][0]["message"] = "FROM THE CACHE"
    entries[0].write_text(json.dumps(stored))
    third = run_cli("check", "--format", "json", "faulty.py")
    assert json.loads(third.stdout)[0]["message"] == "FROM THE CACHE"
    # --no-cache does not read it
    fourth = run_cli("check", "--no-cache", "--format", "json", "faulty.py")
    assert fourth.stdout == first.stdout


def test_changed_file_is_checked_again(run_cli, write):
    path = write("faulty.py", FAULTY)
    assert run_cli("check", "faulty.py").returncode == 1
    path.write_text(CLEAN)
    result = run_cli("check", "faulty.py")
    assert (result.returncode, result.stdout) == (0, "")


def test_corrupted_cache_file_is_ignored_and_rewritten(run_cli, write, tmp_path):
    write("faulty.py", FAULTY)
    first = run_cli("check", "faulty.py")
    [entry] = _cache_files(tmp_path)
    for garbage in (b"", b"{not json", b'{"format": %d, "key": "other"}' % FORMAT,
                    b'{"format": %d, "diagnostics": 5}' % FORMAT, b"\xff\xfe\x00"):
        entry.write_bytes(garbage)
        again = run_cli("check", "faulty.py")
        assert (again.returncode, again.stdout) == (first.returncode, first.stdout), garbage
        assert json.loads(entry.read_text())["format"] == FORMAT, garbage  # rewritten


# -- rules and rule pages ------------------------------------------------------------------

def test_rules_lists_every_rule(run_cli):
    from msacclint.engine import registry

    result = run_cli("rules")
    assert result.returncode == 0
    rows = [line.split() for line in result.stdout.splitlines()]
    assert rows[0][:5] == ["code", "checklist", "severity", "group", "default"]
    by_code = {row[0]: row for row in rows[1:] if row and row[0].startswith("MSA")}
    assert set(by_code) == set(registry.all_codes())
    assert by_code["MSA104"][1:5] == ["api.01", "error", "correctness", "on"]
    assert by_code["MSA111"][3:5] == ["port", "off"]
    assert by_code["MSA004"][3:5] == ["upgrade", "off"]
    assert "The default view: correctness, suspicious, tool." in result.stdout


def test_rule_prints_its_page(run_cli):
    from msacclint.engine import registry
    from msacclint.frontends.rule_page import render

    result = run_cli("rule", "msa104")
    assert result.returncode == 0
    assert result.stdout == render(registry.rules_by_code()["MSA104"])
    assert result.stdout.startswith("# MSA104: maxpool-stride-default")


def test_unknown_rule_exits_2(run_cli):
    result = run_cli("rule", "MSA999")
    assert result.returncode == 2
    assert "MSA999" in result.stderr


def test_no_command_is_a_usage_error(run_cli):
    assert run_cli().returncode == 2


# -- which files ---------------------------------------------------------------------------

def test_default_path_is_the_current_folder(run_cli, write, tmp_path):
    write("src/faulty.py", FAULTY)
    result = run_cli("check", cwd=tmp_path)
    assert result.returncode == 1
    assert {p for p, *_ in triples(result.stdout)} == {os.path.join("src", "faulty.py")}


def test_hidden_virtualenv_and_build_folders_are_skipped(run_cli, write):
    write("src/faulty.py", FAULTY)
    for skipped in (".hidden/x.py", ".venv/lib/x.py", "venv/x.py", "build/lib/x.py", "dist/x.py",
                    "myenv/lib/x.py", "node_modules/x.py", "pkg.egg-info/x.py", "__pycache__/x.py"):
        write(skipped, FAULTY)
    write("myenv/pyvenv.cfg", "home = /usr/bin\n")
    result = run_cli("check", ".")
    assert {p for p, *_ in triples(result.stdout)} == {os.path.join("src", "faulty.py")}
    # a file named explicitly is checked wherever it is
    named = run_cli("check", ".venv/lib/x.py", "build/lib/x.py")
    expected = {os.path.join(".venv", "lib", "x.py"), os.path.join("build", "lib", "x.py")}
    assert {p for p, *_ in triples(named.stdout)} == expected


@pytest.mark.skipif(not hasattr(os, "symlink") or os.name == "nt", reason="symbolic links")
def test_links_inside_folders_are_not_followed_but_a_named_link_is(run_cli, write, tmp_path):
    write("real/faulty.py", FAULTY)
    os.symlink(tmp_path / "real", tmp_path / "src_link")
    write("project/model.py", FAULTY)
    os.symlink(tmp_path / "project", tmp_path / "project" / "loop")  # would loop if followed
    walked = run_cli("check", "project")
    assert {p for p, *_ in triples(walked.stdout)} == {os.path.join("project", "model.py")}
    named = run_cli("check", "src_link")
    assert named.returncode == 1
    assert {p for p, *_ in triples(named.stdout)} == {os.path.join("src_link", "faulty.py")}


def test_exclude_applies_to_walked_and_named_files(run_cli, write, tmp_path):
    write("pyproject.toml", '[tool.msacclint]\nexclude = ["generated/", "legacy_*.py"]\n')
    write("src/faulty.py", FAULTY)
    write("generated/faulty.py", FAULTY)
    write("src/legacy_model.py", FAULTY)
    walked = run_cli("check", ".")
    assert {p for p, *_ in triples(walked.stdout)} == {os.path.join("src", "faulty.py")}
    # as pre-commit names files one by one, exclude must apply to named files too
    named = run_cli("check", "generated/faulty.py", "src/legacy_model.py")
    assert (named.returncode, named.stdout) == (0, "")
    # from another folder, patterns stay relative to the pyproject.toml's folder
    inside = run_cli("check", "../generated/faulty.py", "faulty.py", cwd=tmp_path / "src")
    assert {p for p, *_ in triples(inside.stdout)} == {"faulty.py"}


def test_exclude_on_the_command_line_replaces_the_configured_one(run_cli, write):
    write("pyproject.toml", '[tool.msacclint]\nexclude = ["generated/"]\n')
    write("generated/faulty.py", FAULTY)
    write("src/faulty.py", FAULTY)
    result = run_cli("check", "--exclude", "src/", ".")
    assert {p for p, *_ in triples(result.stdout)} == {os.path.join("generated", "faulty.py")}


def test_file_without_mindspore_is_silent(run_cli, write):
    write("torch_model.py", "import torch.nn as nn\npool = nn.MaxPool2d(2)\ndrop = nn.Dropout(0.1)\n")
    result = run_cli("check", "torch_model.py")
    assert (result.returncode, result.stdout) == (0, "")


# -- noqa ------------------------------------------------------------------------------------

NOQA = """\
import mindspore.nn as nn
a = nn.MaxPool2d(2)
b = nn.MaxPool2d(2)  # noqa
c = nn.MaxPool2d(2)  # noqa: MSA104
d = nn.MaxPool2d(2)  # NOQA:MSA104,MSA107
e = nn.MaxPool2d(2)  # noqa: MSA1
f = nn.MaxPool2d(2)  # noqa: MSA999
g = nn.MaxPool2d(2)  # noqa: MSA107
"""


def test_noqa_is_honoured_by_the_cli(run_cli, write):
    write("noqa.py", NOQA)
    result = run_cli("check", "noqa.py")
    assert result.returncode == 1
    assert found(result, "noqa.py") == [(2, 5, "MSA104"), (7, 5, "MSA104"), (8, 5, "MSA104")]


def test_noqa_suppressed_file_exits_0(run_cli, write):
    write("quiet.py", "import mindspore.nn as nn\npool = nn.MaxPool2d(2)  # noqa: MSA104\n")
    result = run_cli("check", "quiet.py")
    assert (result.returncode, result.stdout) == (0, "")
