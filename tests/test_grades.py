"""Grades a user sees and gates on (docs/grades.md), through the real command line: the text
format under a pseudo-terminal (coloured) and through a pipe (plain), `show` and `fail-on`
from the command line and from pyproject.toml, the summary and --statistics by grade, and
the machine formats (JSON keeps every grade; SARIF and GitHub map them)."""

import json
import os
import pty
import re
import select
import subprocess
import sys
import textwrap

import pytest
from helpers import graded, graded_script
from test_formats import sarif_schema, validate_sarif  # noqa: F401  (the session's SARIF schema)

from msacclint.diagnostics import Diagnostic, Reach, Related, Severity
from msacclint.frontends import output

#: one finding of each grade: MSA104 resolved in main() is an error; MSA301 in main() a
#: warning (its rule's grade); MSA101 in build_head(), which nothing calls, an error lowered
#: to a warning (dormant); MSA301 in build_loader(), also never called, a warning lowered to info
TRAIN = graded_script()
SHOWN = [("train.py", 6, "warning", "MSA101"), ("train.py", 14, "error", "MSA104"),
         ("train.py", 15, "warning", "MSA301")]
NOTE = ("train.py", 10, "info", "MSA301")
ANSI = re.compile(r"\x1b\[[0-9;]*m")


@pytest.fixture
def project(tmp_path):
    (tmp_path / "setup.py").write_text("")  # the repository's root: one project
    (tmp_path / "train.py").write_text(textwrap.dedent(TRAIN))
    return tmp_path


def _env(**changes):
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    env.update(TERM="xterm-256color", COLUMNS="200", **changes)
    return env


def _command(*args):
    return [sys.executable, "-m", "msacclint", "check", "--no-cache", *args]


def in_a_pipe(cwd, *args, **env):
    return subprocess.run(_command(*args), cwd=cwd, env=_env(**env), capture_output=True, text=True, timeout=300)


def in_a_terminal(cwd, *args, **env):
    """Run the command with its standard output on a pseudo-terminal, as in a shell (standard
    error goes to a pipe, for the summary): (exit status, what the terminal got, stderr)."""
    main, secondary = pty.openpty()
    process = subprocess.Popen(_command(*args), cwd=cwd, env=_env(**env), stdin=subprocess.DEVNULL,
                               stdout=secondary, stderr=subprocess.PIPE)
    os.close(secondary)
    received = b""
    while True:
        ready, _, _ = select.select([main], [], [], 300)
        if not ready:
            process.kill()
            raise AssertionError("the command printed nothing for 300 s")
        try:
            chunk = os.read(main, 65536)
        except OSError:  # EIO: the terminal's other end closed, the command is done
            break
        if not chunk:
            break
        received += chunk
    os.close(main)
    stderr = process.stderr.read().decode()
    process.stderr.close()
    status = process.wait(timeout=300)
    return status, received.decode().replace("\r\n", "\n"), stderr


# -- the text format: the grade on every line, coloured only on a terminal -------------------------
def test_a_pipe_gets_plain_lines_with_the_grade_after_the_position(project):
    result = in_a_pipe(project, ".")
    assert result.returncode == 1, result.stderr
    assert "\x1b[" not in result.stdout
    assert graded(result.stdout) == SHOWN
    assert result.stdout.splitlines()[1].startswith("train.py:14:12: error: MSA104 [api.01] nn.MaxPool2d without ")
    assert result.stderr == ("Found 1 error, 2 warnings in 1 of 2 files checked (3 with a fix: --fix, or --fix "
                             "--unsafe-fixes). 1 note not shown (--show-info).\n")


def test_a_terminal_gets_the_grades_in_colour(project):
    status, shown, stderr = in_a_terminal(project, ".")
    assert status == 1, stderr
    lines = shown.splitlines()
    # the position in bold, the grade in its colour (red error, yellow warning), then plain text
    assert lines[1].startswith("\x1b[1mtrain.py:14:12:\x1b[0m \x1b[1;31merror:\x1b[0m MSA104 [api.01] "), lines[1]
    assert lines[0].startswith("\x1b[1mtrain.py:6:12:\x1b[0m \x1b[1;33mwarning:\x1b[0m MSA101 [api.01] "), lines[0]
    # the same lines as in a pipe once the colours are taken out
    assert ANSI.sub("", shown) == in_a_pipe(project, ".").stdout
    status, shown, _ = in_a_terminal(project, ".", "--show-info")
    note = next(line for line in shown.splitlines() if ":10:12:" in line)
    assert "\x1b[1;36minfo:\x1b[0m MSA301" in note


def test_no_color_and_force_color_are_honoured(project):
    status, shown, _ = in_a_terminal(project, ".", NO_COLOR="1")
    assert status == 1 and "\x1b[" not in shown and graded(shown) == SHOWN
    forced = in_a_pipe(project, ".", FORCE_COLOR="1")
    assert "\x1b[1;31merror:\x1b[0m" in forced.stdout
    assert "\x1b[" not in in_a_pipe(project, ".", FORCE_COLOR="0").stdout
    # a file written with -o never gets colour, even on a terminal
    status, shown, _ = in_a_terminal(project, ".", "-o", "findings.txt")
    assert shown == "" and "\x1b[" not in (project / "findings.txt").read_text()
    assert graded((project / "findings.txt").read_text()) == SHOWN


# -- show: what is printed and counted ---------------------------------------------------------------
def test_show_info_adds_the_notes_and_show_replaces_the_grades(project):
    everything = in_a_pipe(project, ".", "--show-info")
    assert graded(everything.stdout) == sorted(SHOWN + [NOTE], key=lambda f: f[1])
    assert "dormant" in everything.stdout.splitlines()[1]
    assert everything.stderr.startswith("Found 1 error, 2 warnings, 1 note in 1 of 2 files checked")
    errors = in_a_pipe(project, ".", "--show", "error")
    assert graded(errors.stdout) == [("train.py", 14, "error", "MSA104")]
    assert "1 error in 1 of 2 files" in errors.stderr
    assert "2 warnings, 1 note not shown (--show, or show in [tool.msacclint])." in errors.stderr
    (project / "pyproject.toml").write_text('[tool.msacclint]\nshow = ["error", "warning", "info"]\n')
    assert graded(in_a_pipe(project, ".").stdout) == graded(everything.stdout)


def test_a_rule_switched_on_is_shown_at_every_grade(tmp_path):
    # MSA111 is an info-level rule, off by default: asking for it is asking to see its notes
    (tmp_path / "net.py").write_text("import mindspore.nn as nn\nln = nn.LayerNorm((8,))\n")
    result = in_a_pipe(tmp_path, "--extend-select", "MSA111", "net.py")
    assert graded(result.stdout) == [("net.py", 2, "info", "MSA111")]
    assert result.returncode == 0  # a note does not fail the run (fail-on = warning)
    assert result.stderr == "Found 1 note in 1 of 1 file checked. None fails the run (fail-on = warning).\n"
    assert in_a_pipe(tmp_path, "--extend-select", "MSA111", "--fail-on", "info", "--show-info",
                     "net.py").returncode == 1


# -- fail-on: the exit status ------------------------------------------------------------------------
def test_fail_on_decides_the_exit_status(project):
    assert in_a_pipe(project, ".").returncode == 1  # an error and warnings: fail-on = warning fails
    warnings_only = in_a_pipe(project, "--ignore", "MSA104", "--fail-on", "error", ".")
    assert warnings_only.returncode == 0, warnings_only.stderr
    assert graded(warnings_only.stdout) == [f for f in SHOWN if f[2] == "warning"]  # still shown
    assert "None fails the run (fail-on = error)." in warnings_only.stderr
    assert in_a_pipe(project, "--ignore", "MSA104", ".").returncode == 1
    assert in_a_pipe(project, "--fail-on", "error", ".").returncode == 1
    # only the note shown: it fails the run only with fail-on = info
    assert in_a_pipe(project, "--show", "info", ".").returncode == 0
    assert in_a_pipe(project, "--show", "info", "--fail-on", "info", ".").returncode == 1
    assert in_a_pipe(project, "--ignore", "MSA104", "--fail-on", "error", "--exit-zero", ".").returncode == 0


def test_fail_on_error_in_pyproject_is_the_one_line_for_ci(project):
    (project / "pyproject.toml").write_text('[tool.msacclint]\nfail-on = "error"\n')
    result = in_a_pipe(project, "--ignore", "MSA104", ".")
    assert result.returncode == 0, result.stderr
    assert [f[2] for f in graded(result.stdout)] == ["warning", "warning"]
    assert in_a_pipe(project, ".").returncode == 1  # an error still fails
    # the command line wins over the file
    assert in_a_pipe(project, "--ignore", "MSA104", "--fail-on", "warning", ".").returncode == 1


@pytest.mark.parametrize("table, says", [
    ('show = "error"', "show must be a list of grades"),
    ('show = ["fatal"]', "unknown grade 'fatal'; the grades are error, warning, info"),
    ("show = []", "name at least one grade"),
    ("fail-on = 1", "fail-on must be a string"),
    ('fail-on = "severe"', "unknown grade 'severe'"),
    ('fail-on = "info"', "info findings are not shown (show: error, warning), so they could never fail the run: "
                         "--show-info"),
    ('show = ["error"]\nfail-on = "warning"', "warning findings are not shown (show: error)"),
])
def test_a_bad_grade_setting_is_a_configuration_error(project, table, says):
    (project / "pyproject.toml").write_text(f"[tool.msacclint]\n{table}\n")
    result = in_a_pipe(project, ".")
    assert result.returncode == 2 and result.stdout == ""
    assert says in result.stderr and str(project / "pyproject.toml") in result.stderr, result.stderr


def test_bad_grades_on_the_command_line_exit_2(project):
    assert "invalid choice: 'fatal'" in in_a_pipe(project, "--fail-on", "fatal", ".").stderr
    result = in_a_pipe(project, "--show", "error,fatal", ".")
    assert result.returncode == 2 and "--show: unknown grade 'fatal'" in result.stderr
    result = in_a_pipe(project, "--show", "error", "--fail-on", "warning", ".")
    assert result.returncode == 2 and "--fail-on: warning findings are not shown" in result.stderr
    # --show-info satisfies fail-on = info
    assert in_a_pipe(project, "--show-info", "--fail-on", "info", ".").returncode == 1


# -- counts by grade -------------------------------------------------------------------------------
def test_statistics_count_by_grade(project):
    result = in_a_pipe(project, "--statistics", "--show-info", ".")
    rows = {line.split()[1]: line for line in result.stdout.splitlines() if not line.startswith("train.py")}
    assert rows["MSA301"].split("[dp.03] ")[1].startswith("1 warning, 1 note"), rows
    assert rows["MSA104"].split("[api.01] ")[1].startswith("1 error"), rows
    default = in_a_pipe(project, "--statistics", ".")
    rows = {line.split()[1]: line for line in default.stdout.splitlines() if not line.startswith("train.py")}
    assert rows["MSA301"].split()[0] == "1" and "1 warning" in rows["MSA301"] and "note" not in rows["MSA301"]
    as_json = json.loads(in_a_pipe(project, "--statistics", "--format", "json", ".").stdout)
    (msa301,) = [row for row in as_json["statistics"] if row["code"] == "MSA301"]
    assert msa301["grades"] == {"error": 0, "warning": 1, "info": 1} and msa301["severity"] == "warning"
    assert msa301["count"] == 2


# -- the machine formats ---------------------------------------------------------------------------
def test_json_keeps_every_grade_and_says_where_the_code_runs(project):
    result = in_a_pipe(project, "--format", "json", ".")
    found = {(d["line"], d["code"]): d for d in json.loads(result.stdout)}
    assert {(line, d["severity"]) for (line, _), d in found.items()} == {
        (6, "warning"), (10, "info"), (14, "error"), (15, "warning")}
    assert found[(6, "MSA101")]["reach"] == "dormant" and found[(10, "MSA301")]["reach"] == "dormant"
    # the code that runs carries its trail from the entry point (the main block)
    assert found[(14, "MSA104")]["reach"] == "runs"
    assert found[(14, "MSA104")]["trail"][0]["path"] == "train.py"
    # the summary counts what show shows; the exit status follows fail-on, as for text
    assert result.returncode == 1 and "1 note not shown" in result.stderr


def test_sarif_and_github_map_the_grades(project, sarif_schema):  # noqa: F811
    log = json.loads(in_a_pipe(project, "--format", "sarif", "--show-info", ".").stdout)
    validate_sarif(log, sarif_schema)
    results = {(r["locations"][0]["physicalLocation"]["region"]["startLine"], r["ruleId"]): r
               for r in log["runs"][0]["results"]}
    assert {key: r["level"] for key, r in results.items()} == {
        (6, "MSA101"): "warning", (10, "MSA301"): "note", (14, "MSA104"): "error", (15, "MSA301"): "warning"}
    assert results[(6, "MSA101")]["properties"]["reach"] == "dormant"
    assert results[(14, "MSA104")]["properties"]["reach"] == "runs"
    default = json.loads(in_a_pipe(project, "--format", "sarif", ".").stdout)
    assert sorted(r["level"] for r in default["runs"][0]["results"]) == ["error", "warning", "warning"]

    annotations = in_a_pipe(project, "--format", "github", "--show-info", ".").stdout.splitlines()
    assert [line.split(" ", 1)[0] for line in annotations] == ["::warning", "::notice", "::error", "::warning"]
    assert "::notice" not in in_a_pipe(project, "--format", "github", ".").stdout


def test_a_trail_is_a_sarif_code_flow_and_a_json_list(sarif_schema):  # noqa: F811
    """The reach analysis sets ``trail``: the hops from an entry point. SARIF shows them as the
    finding's codeFlow (the finding last), JSON as ``trail``."""
    finding = Diagnostic("MSA104", "api.01", Severity.WARNING, "src/model.py", 12, 16, 12, 31, "nn.MaxPool2d ...",
                         reach=Reach.RUNS, trail=(Related("train.py", 40, "main() builds Net"),
                                                  Related("src/model.py", 8, "Net.__init__ builds the pool")))
    log = json.loads(output.sarif([finding]))
    validate_sarif(log, sarif_schema)
    (result,) = log["runs"][0]["results"]
    (flow,) = result["codeFlows"]
    steps = flow["threadFlows"][0]["locations"]
    assert [(s["location"]["physicalLocation"]["artifactLocation"]["uri"],
             s["location"]["physicalLocation"]["region"]["startLine"], s["location"]["message"]["text"])
            for s in steps] == [("train.py", 40, "main() builds Net"),
                                ("src/model.py", 8, "Net.__init__ builds the pool"),
                                ("src/model.py", 12, "MSA104: the finding")]
    assert flow["message"]["text"] == "how an entry point of the repository reaches this code"
    assert result["properties"]["reach"] == "runs"
    data = finding.to_json()
    assert data["reach"] == "runs"
    assert data["trail"] == [{"path": "train.py", "line": 40, "message": "main() builds Net"},
                             {"path": "src/model.py", "line": 8, "message": "Net.__init__ builds the pool"}]
    assert list(data)[-3:] == ["reach", "group", "trail"]
