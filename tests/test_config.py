"""`[tool.msacclint]` in the nearest pyproject.toml, through the real command line (and the
loader itself where the effect is not visible in the output, e.g. mindspore-version)."""

import os

import pytest
from helpers import FAULTY, FAULTY_FINDINGS, triples

from msacclint.config import ConfigError, Options, resolve
from msacclint.engine import registry


def codes(result):
    return [code for *_, code in triples(result.stdout)]


def pyproject(write, body, folder="."):
    return write(f"{folder}/pyproject.toml", "[project]\nname = 'x'\n\n[tool.msacclint]\n" + body)


DEFAULT_CODES = [code for *_, code in FAULTY_FINDINGS]  # MSA104, MSA107, MSA101


# -- which file ---------------------------------------------------------------------------

def test_nearest_pyproject_with_the_table_is_used(run_cli, write, tmp_path):
    pyproject(write, 'ignore = ["MSA104"]\n')
    write("pkg/pyproject.toml", "[project]\nname = 'inner'\n")  # no table: looked past
    write("pkg/sub/faulty.py", FAULTY)
    result = run_cli("check", "pkg/sub/faulty.py")
    assert codes(result) == ["MSA107", "MSA101"]
    # a nearer file with the table wins over the outer one
    pyproject(write, 'ignore = ["MSA107"]\n', folder="pkg")
    assert codes(run_cli("check", "pkg/sub/faulty.py")) == ["MSA104", "MSA101"]
    # found from the checked path, not from the current folder
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert codes(run_cli("check", tmp_path / "pkg/sub/faulty.py", cwd=elsewhere)) == ["MSA104", "MSA101"]


def test_no_configuration_means_the_defaults(run_cli, write):
    write("faulty.py", FAULTY)
    assert codes(run_cli("check", "faulty.py")) == DEFAULT_CODES


def test_explicit_config_option(run_cli, write):
    write("faulty.py", FAULTY)
    write("conf/custom.toml", '[tool.msacclint]\nselect = ["MSA107"]\n')
    assert codes(run_cli("check", "--config", "conf/custom.toml", "faulty.py")) == ["MSA107"]
    missing = run_cli("check", "--config", "conf/nope.toml", "faulty.py")
    assert missing.returncode == 2 and "conf/nope.toml" in missing.stderr


# -- each key ----------------------------------------------------------------------------------

@pytest.mark.parametrize("body, expected", [
    ('select = ["MSA107"]\n', ["MSA107"]),
    ('select = ["MSA10"]\n', ["MSA104", "MSA107", "MSA103", "MSA101"]),
    ('select = ["ALL"]\nignore = ["MSA10"]\n', ["MSA111"]),
    ('ignore = ["MSA104", "MSA101"]\n', ["MSA107"]),
    ('extend-select = ["MSA111"]\n', ["MSA104", "MSA107", "MSA111", "MSA101"]),
    ('select = ["MSA104"]\nextend-select = ["MSA103"]\n', ["MSA104", "MSA103"]),
])
def test_select_ignore_extend_select(run_cli, write, body, expected):
    pyproject(write, body)
    write("faulty.py", FAULTY)
    assert codes(run_cli("check", "faulty.py")) == expected


@pytest.mark.parametrize("body, options, expected", [
    # the command line is a second layer on top of the file: its select replaces,
    # its extend-select adds (even what the file ignores), its ignore removes
    ('select = ["MSA104"]\n', Options(select=["MSA107"]), {"MSA107"}),
    ('ignore = ["MSA104"]\n', Options(extend_select=["MSA104"]), None),
    ('ignore = ["MSA104"]\n', Options(select=["MSA104"]), {"MSA104"}),
    ('select = ["MSA104", "MSA107"]\n', Options(ignore=["MSA107"]), {"MSA104"}),
    ('extend-select = ["MSA111"]\n', Options(ignore=["MSA111"]), None),
    ('select = ["ALL"]\n', Options(ignore=["MSA1"]), {
        c for c in registry.all_codes() if not c.startswith("MSA1")}),
])
def test_command_line_goes_on_top_of_the_file(write, tmp_path, body, options, expected):
    pyproject(write, body)
    settings, _ = resolve([str(tmp_path)], options)
    assert settings.enabled == (registry.default_codes() if expected is None else expected)


def test_command_line_layer_end_to_end(run_cli, write):
    pyproject(write, 'ignore = ["MSA104"]\nselect = ["MSA104", "MSA107"]\n')
    write("faulty.py", FAULTY)
    assert codes(run_cli("check", "faulty.py")) == ["MSA107"]
    assert codes(run_cli("check", "--extend-select", "MSA104", "faulty.py")) == ["MSA104", "MSA107"]


def test_per_file_ignores(run_cli, write, tmp_path):
    pyproject(write, '[tool.msacclint.per-file-ignores]\n"legacy/*" = ["MSA1"]\n"old_*.py" = ["MSA107"]\n')
    write("legacy/faulty.py", FAULTY)
    write("src/old_model.py", FAULTY)
    write("src/faulty.py", FAULTY)
    result = run_cli("check", ".")
    by_path = {}
    for path, _, _, code in triples(result.stdout):
        by_path.setdefault(path, []).append(code)
    assert by_path == {os.path.join("src", "faulty.py"): DEFAULT_CODES,
                       os.path.join("src", "old_model.py"): ["MSA104", "MSA101"]}
    # globs are relative to the pyproject.toml's folder, wherever the run starts
    inside = run_cli("check", "faulty.py", "../src/old_model.py", cwd=tmp_path / "legacy")
    assert triples(inside.stdout) and {p for p, *_ in triples(inside.stdout)} == {"../src/old_model.py"}


def test_exclude(run_cli, write):
    pyproject(write, 'exclude = ["third_party/", "*_pb2.py"]\n')
    write("third_party/faulty.py", FAULTY)
    write("src/model_pb2.py", FAULTY)
    write("src/faulty.py", FAULTY)
    result = run_cli("check")
    assert {p for p, *_ in triples(result.stdout)} == {os.path.join("src", "faulty.py")}
    named = run_cli("check", "third_party/faulty.py", "src/model_pb2.py")
    assert (named.returncode, named.stdout) == (0, "")


def test_mindspore_version(write, tmp_path):
    config = pyproject(write, 'mindspore-version = "2.7.1"\n')
    settings, found = resolve([str(tmp_path)], Options())
    assert found == config and settings.mindspore_version == "2.7.1"
    settings, _ = resolve([str(tmp_path)], Options(mindspore_version="2.10.0"))
    assert settings.mindspore_version == "2.10.0"  # the command line wins


def test_resolve_reports_the_file_it_used(write, tmp_path):
    config = pyproject(write, 'select = ["MSA104"]\n')
    write("a/b/model.py", FAULTY)
    settings, found = resolve([str(tmp_path / "a/b/model.py")], Options())
    assert found == config
    assert settings.enabled == frozenset({"MSA104"})
    assert settings.root == str(tmp_path)


# -- errors: exit 2 with a clear message ---------------------------------------------------

ERRORS = [
    ('selekt = ["MSA104"]\n', ["unknown key", "selekt", "known keys"]),
    ('select = ["MSA104"]\ntarget-version = "py38"\n', ["unknown key", "target-version"]),
    ('line-length = 0\n', ["line-length", "positive integer"]),
    ('select = ["MSA999"]\n', ["select", "MSA999", "unknown rule code"]),
    ('ignore = ["E501"]\n', ["ignore", "E501"]),
    ('extend-select = ["MSA9"]\n', ["extend-select", "MSA9"]),
    ('[tool.msacclint.per-file-ignores]\n"tests/*" = ["MSA77"]\n', ["per-file-ignores", "MSA77"]),
    ('select = "MSA104"\n', ["select", "must be a list of strings"]),
    ('ignore = [104]\n', ["ignore", "must be a list of strings"]),
    ('exclude = "build/"\n', ["exclude", "must be a list of strings"]),
    ('mindspore-version = 2.1\n', ["mindspore-version", "must be a string"]),
    ('mindspore-version = "latest"\n', ["mindspore-version", "latest", "not a MindSpore version"]),
    ('per-file-ignores = ["tests/*"]\n', ["per-file-ignores", "must map globs to lists of codes"]),
    ('[tool.msacclint.per-file-ignores]\n"tests/*" = "MSA104"\n', ["per-file-ignores"]),
    ('select = ["MSA104"\n', ["not valid TOML"]),
]


@pytest.mark.parametrize("body, words", ERRORS)
def test_configuration_errors_are_clear(write, tmp_path, body, words):
    config = pyproject(write, body)
    with pytest.raises(ConfigError) as raised:
        resolve([str(tmp_path)], Options())
    message = str(raised.value)
    assert str(config) in message
    for word in words:
        assert word in message, (word, message)


@pytest.mark.parametrize("body, words", [ERRORS[0], ERRORS[2], ERRORS[6], ERRORS[-1]])
def test_configuration_errors_exit_2(run_cli, write, body, words):
    config = pyproject(write, body)
    write("faulty.py", FAULTY)
    result = run_cli("check", "faulty.py")
    assert result.returncode == 2, result.stdout
    assert result.stdout == ""
    assert result.stderr.startswith(f"msacclint: error: {config}")
    for word in words:
        assert word in result.stderr, (word, result.stderr)


def test_tool_msacclint_that_is_not_a_table(run_cli, write):
    write("pyproject.toml", "[tool]\nmsacclint = 3\n")
    write("faulty.py", FAULTY)
    result = run_cli("check", "faulty.py")
    assert result.returncode == 2 and "must be a table" in result.stderr


def test_malformed_nearest_pyproject_is_an_error_even_without_the_table(run_cli, write):
    write("pyproject.toml", "[project\nname = 'x'\n")
    write("faulty.py", FAULTY)
    result = run_cli("check", "faulty.py")
    assert result.returncode == 2 and "not valid TOML" in result.stderr
