"""The snippets of docs/integrations.md that can be run here are run: the GitLab code
quality converter on real output, and the YAML files parse and name real hooks."""

import json
import re
import subprocess
import sys

import yaml
from conftest import ROOT

DOC = (ROOT / "docs" / "integrations.md").read_text(encoding="utf-8")


def _blocks(language):
    return re.findall(rf"```{language}\n(.*?)```", DOC, re.S)


def test_gitlab_codequality_converter_turns_json_output_into_a_report(tmp_path, run_cli):
    (converter,) = [b for b in _blocks("python") if "code quality report" in b]
    (tmp_path / "convert.py").write_text(converter)
    (tmp_path / "train.py").write_text("import mindspore.nn as nn\npool = nn.MaxPool2d(2)\ndrop = nn.Dropout(0.1)\n")
    run_cli("check", "--format", "json", "--output-file", "out.json", "--exit-zero", "--no-cache", "train.py")
    result = subprocess.run([sys.executable, "convert.py", "out.json", "gl.json"], cwd=tmp_path,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    issues = json.loads((tmp_path / "gl.json").read_text())
    assert [i["check_name"] for i in issues] == ["MSA104", "MSA101"]
    for issue in issues:
        assert issue["severity"] in {"info", "minor", "major", "critical", "blocker"}
        assert issue["location"]["path"] == "train.py" and issue["location"]["lines"]["begin"] in (2, 3)
        assert len(issue["fingerprint"]) == 64
    assert len({i["fingerprint"] for i in issues}) == 2


def test_yaml_snippets_parse_and_name_real_hooks():
    hooks = {h["id"] for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}
    assert {"msacclint", "msacclint-fix"} <= hooks
    fix_hook = next(h for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
                    if h["id"] == "msacclint-fix")
    assert fix_hook["entry"] == "msacclint check --fix" and fix_hook["types"] == ["python"]
    documents = [yaml.safe_load(block) for block in _blocks("yaml")]
    named = {hook["id"] for doc in documents if isinstance(doc, dict) and "repos" in doc
             for repo in doc["repos"] if repo["repo"] != "local" for hook in repo["hooks"]}
    assert named and named <= hooks
    workflow = next(d for d in documents if isinstance(d, dict) and "jobs" in d and "permissions" in d)
    steps = workflow["jobs"]["msacclint"]["steps"]
    assert any("--format sarif" in s.get("run", "") for s in steps)
    upload = next(s for s in steps if s.get("uses", "").startswith("github/codeql-action/upload-sarif"))
    assert upload["with"]["sarif_file"] == "msacclint.sarif"
    assert workflow["permissions"]["security-events"] == "write"
