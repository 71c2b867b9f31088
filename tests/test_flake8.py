"""The flake8 plugin, run by the real flake8 in a subprocess."""

import re
import subprocess
import sys

import pytest
from helpers import CLEAN, FAULTY, FAULTY_FINDINGS, FAULTY_OPT_IN, graded, result_entries, triples


@pytest.fixture
def flake8(tmp_path):
    def run(*args, cwd=None):
        return subprocess.run([sys.executable, "-m", "flake8", *map(str, args)], cwd=cwd or tmp_path,
                              capture_output=True, text=True, timeout=300)

    return run


def positions(output):
    return [(line, col, code) for _, line, col, code in triples(output)]


def test_plugin_is_registered(flake8):
    result = flake8("--version")
    assert result.returncode == 0
    assert "msacclint" in result.stdout


def test_same_lines_and_columns_as_the_cli(flake8, run_cli, write):
    write("faulty.py", FAULTY)
    result = flake8("--select", "MSA", "faulty.py")
    assert result.returncode == 1, result.stderr
    assert positions(result.stdout) == FAULTY_FINDINGS
    cli = run_cli("check", "--no-cache", "faulty.py")
    # not only the positions: every line says the same, the grade where flake8's format has room for
    # it: `path:line:col: MSA104 [error] [api.01] message` for `path:line:col: error: MSA104 [api.01] message`
    assert result.stdout == re.sub(r"^(\S+:\d+:\d+): (error|warning|info): (MSA\d+) ", r"\1: \3 [\2] ", cli.stdout,
                                   flags=re.MULTILINE)
    assert graded(result.stdout) == graded(cli.stdout) == [("faulty.py", line, "error", code)
                                                           for line, _, code in FAULTY_FINDINGS]


def test_off_by_default_codes_need_extend_select(flake8, write):
    write("faulty.py", FAULTY)
    assert positions(flake8("--select", "MSA", "faulty.py").stdout) == FAULTY_FINDINGS
    assert positions(flake8("faulty.py").stdout) == FAULTY_FINDINGS  # flake8's own default selection
    one = flake8("--select", "MSA", "--extend-select", "MSA111", "faulty.py")
    assert positions(one.stdout) == sorted(FAULTY_FINDINGS + [(9, 19, "MSA111")])
    both = flake8("--select", "MSA", "--extend-select", "MSA111,MSA103", "faulty.py")
    assert positions(both.stdout) == sorted(FAULTY_FINDINGS + FAULTY_OPT_IN)
    only = flake8("--select", "MSA103", "faulty.py")
    assert positions(only.stdout) == [(10, 21, "MSA103")]


def test_flake8_ignore_and_noqa(flake8, write):
    write("faulty.py", FAULTY)
    ignored = flake8("--select", "MSA", "--ignore", "MSA104", "faulty.py")
    assert positions(ignored.stdout) == FAULTY_FINDINGS[1:]
    write("noqa.py", "import mindspore.nn as nn\n"
                     "a = nn.MaxPool2d(2)  # noqa: MSA104\n"
                     "b = nn.MaxPool2d(2)  # noqa: MSA999\n"
                     "c = nn.MaxPool2d(2)  # noqa\n")
    result = flake8("--select", "MSA", "noqa.py")
    assert positions(result.stdout) == [(3, 5, "MSA104")]


def test_files_without_mindspore_are_silent(flake8, write):
    write("torch_model.py", "import torch.nn as nn\npool = nn.MaxPool2d(2)\ndrop = nn.Dropout(0.1)\n")
    write("clean.py", CLEAN)
    result = flake8("--select", "MSA", "torch_model.py", "clean.py")
    assert (result.returncode, result.stdout) == (0, "")


def test_options_come_from_flake8_config_files(flake8, write, tmp_path):
    # flake8 reads the first of setup.cfg, tox.ini, .flake8 that has a [flake8] section
    write("faulty.py", FAULTY)
    write(".flake8", "[flake8]\nextend-select = MSA111\nmsacclint-mindspore-version = 2.10.0\n")
    result = flake8("--select", "MSA", "faulty.py")
    assert positions(result.stdout) == sorted(FAULTY_FINDINGS + [(9, 19, "MSA111")]), result.stderr

    # the plugin's option is really read: a value that is no version is refused, naming it
    write("setup.cfg", "[flake8]\nmsacclint-mindspore-version = banana\n")
    refused = flake8("--select", "MSA", "faulty.py")
    assert refused.returncode != 0
    assert "msacclint-mindspore-version" in refused.stdout and "banana" in refused.stdout
    (tmp_path / "setup.cfg").unlink()

    write("tox.ini", "[flake8]\nmsacclint-defaults = snapshots/missing.json\n")
    missing = flake8("--select", "MSA", "faulty.py")
    assert missing.returncode != 0
    assert "msacclint-defaults" in missing.stdout
    assert str(tmp_path / "snapshots" / "missing.json") in missing.stdout  # relative to the config file


def test_flake8_never_reads_pyproject(flake8, write):
    write("faulty.py", FAULTY)
    write("pyproject.toml", '[tool.msacclint]\nignore = ["MSA1"]\n\n[tool.flake8]\nselect = ["E"]\n')
    result = flake8("--select", "MSA", "faulty.py")
    assert positions(result.stdout) == FAULTY_FINDINGS


def test_a_second_run_over_unchanged_files_reads_the_cache(flake8, write, tmp_path):
    """flake8 runs the plugin per file through api.lint_text(..., use_cache=True): the entry
    the first run wrote is what the second run reports (its message, altered on disk, is
    printed), so an unchanged file is not analysed again."""
    import json

    write("faulty.py", FAULTY)
    first = flake8("--select", "MSA", "faulty.py")
    assert positions(first.stdout) == FAULTY_FINDINGS
    entries = result_entries(tmp_path / ".msacclint_cache")
    assert entries, "the first run wrote no cache entry"
    for entry in entries:
        data = json.loads(entry.read_text())
        for d in data["diagnostics"]:
            d["message"] = "READ FROM THE CACHE"
        entry.write_text(json.dumps(data))
    second = flake8("--select", "MSA", "faulty.py")
    assert positions(second.stdout) == FAULTY_FINDINGS
    assert second.stdout.count("READ FROM THE CACHE") == len(FAULTY_FINDINGS), second.stdout
    # a changed file is analysed afresh
    write("faulty.py", FAULTY + "\n")
    third = flake8("--select", "MSA", "faulty.py")
    assert "READ FROM THE CACHE" not in third.stdout and positions(third.stdout) == FAULTY_FINDINGS


# -- grades ---------------------------------------------------------------------------------
GRADED = """\
import mindspore.dataset as ds
import mindspore.nn as nn


def build_loader(path):
    return ds.ImageFolderDataset(path, shuffle=False)


def main():
    pool = nn.MaxPool2d(2)
    data = ds.ImageFolderDataset("data", shuffle=False)
    return pool, data


if __name__ == "__main__":
    main()
"""


def test_the_grade_is_in_the_message_and_msacclint_show_picks_what_is_reported(flake8, write):
    """flake8 fails on any line it prints: the grades reported are the grades that fail.
    build_loader is never called, so its MSA301 is lowered to info (dormant)."""
    write("setup.py", "")
    write("train.py", GRADED)
    default = flake8("--select", "MSA", "train.py")
    assert default.returncode == 1
    assert graded(default.stdout) == [("train.py", 10, "error", "MSA104"), ("train.py", 11, "warning", "MSA301")]
    assert "train.py:10:12: MSA104 [error] [api.01] nn.MaxPool2d without stride" in default.stdout

    notes = flake8("--select", "MSA", "--msacclint-show", "error,warning,info", "train.py")
    assert graded(notes.stdout) == [("train.py", 6, "info", "MSA301"), ("train.py", 10, "error", "MSA104"),
                                    ("train.py", 11, "warning", "MSA301")]
    assert "dormant" in notes.stdout.splitlines()[0]

    # errors only, from flake8's own configuration: a commit with warnings alone passes
    write(".flake8", "[flake8]\nmsacclint-show = error\n")
    errors = flake8("--select", "MSA", "train.py")
    assert graded(errors.stdout) == [("train.py", 10, "error", "MSA104")]
    write("train.py", GRADED.replace("nn.MaxPool2d(2)", "nn.MaxPool2d(2, stride=2)"))
    passed = flake8("--select", "MSA", "train.py")
    assert (passed.returncode, passed.stdout) == (0, "")


def test_an_opt_in_rule_is_reported_at_every_grade_and_a_bad_grade_is_refused(flake8, write):
    write("net.py", "import mindspore.nn as nn\nln = nn.LayerNorm((8,))\n")
    opted = flake8("--select", "MSA", "--extend-select", "MSA111", "net.py")
    assert graded(opted.stdout) == [("net.py", 2, "info", "MSA111")] and opted.returncode == 1
    refused = flake8("--select", "MSA", "--msacclint-show", "error,fatal", "net.py")
    assert refused.returncode != 0
    assert "msacclint-show: unknown grade 'fatal'" in refused.stdout + refused.stderr
