"""The MindSpore version a project declares in its own files (msacclint.project.declared): where
it is read from, what a range stands for, and how it reaches the summary line and the settings."""

from __future__ import annotations

import pytest

from msacclint.project.declared import find, version_for

SOURCES = [
    ("requirements.txt", "numpy>=1.20\nmindspore==2.3.1  # the tested release\n", "2.3.1", 2),
    ("requirements-gpu.txt", "mindspore-gpu==1.8.1\n", "1.8.1", 1),
    ("setup.py", "from setuptools import setup\nsetup(name='x', install_requires=['mindspore>=2.2,<2.4'])\n",
     "2.3.1", 2),
    ("setup.cfg", "[options]\ninstall_requires =\n    mindspore~=2.7\n", "2.10.0", 3),
    ("pyproject.toml", "[project]\nname = 'x'\ndependencies = [\"mindspore == 2.9.0\"]\n", "2.9.0", 3),
    ("environment.yml", "dependencies:\n  - python=3.9\n  - pip:\n    - mindspore==2.0.0\n", "2.0.0", 4),
    ("Dockerfile", "FROM python:3.9\nRUN pip install mindspore==2.1.1 numpy\n", "2.1.1", 2),
    ("README.md", "# Port\n\nInstall:\n\n    pip install https://ms-release.obs.cn-north-4.myhuaweicloud.com/1.8.1/"
                  "MindSpore/gpu/x86_64/cuda-11.1/mindspore_gpu-1.8.1-cp37-cp37m-linux_x86_64.whl\n", "1.8.1", 5),
]


@pytest.mark.parametrize("name,text,version,line", SOURCES, ids=[s[0] for s in SOURCES])
def test_each_kind_of_file_declares_the_version(tmp_path, name, text, version, line):
    (tmp_path / ".git").mkdir()
    (tmp_path / name).write_text(text, encoding="utf-8")
    found = find(tmp_path)
    assert found is not None and (found.version, found.path, found.line) == (version, name, line)


def test_the_nearest_declaration_wins_and_requirements_outrank_the_readme(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "README.md").write_text("pip install mindspore==2.2.0\n", encoding="utf-8")
    (tmp_path / "requirements.txt").write_text("mindspore==2.10.0\n", encoding="utf-8")
    model = tmp_path / "models" / "yolo"
    model.mkdir(parents=True)
    (model / "README.md").write_text("Tested with `pip install mindspore==1.10.1`.\n", encoding="utf-8")
    assert find(tmp_path).version == "2.10.0"
    assert find(model / "train.py").version == "1.10.1"
    assert find(tmp_path / "models").version == "2.10.0"


def test_nothing_declared_and_names_that_only_look_alike(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "requirements.txt").write_text("mindspore\nmindspore-lite==2.1\nmindcv==0.3.0\n", encoding="utf-8")
    (tmp_path / "README.md").write_text("We love MindSpore 2.2!\n", encoding="utf-8")
    assert find(tmp_path) is None


@pytest.mark.parametrize("spec,package,expected", [
    ("==2.10.0", "mindspore", "2.10.0"),
    (">=1.8,<2.0", "mindspore", "1.10.1"),
    ("<2.0", "mindspore", "1.10.1"),
    (">=1.5", "mindspore", "2.10.0"),
    (">=1.5", "mindspore-gpu", "1.10.1"),
    ("==1.8.*", "mindspore", "1.8.1"),
    ("", "mindspore", None),
])
def test_what_a_range_stands_for(spec, package, expected):
    assert version_for(spec, package) == expected


def test_the_summary_says_what_it_checks_against_and_a_setting_wins(tmp_path, run_cli):
    (tmp_path / ".git").mkdir()
    (tmp_path / "requirements.txt").write_text("mindspore==2.9.0\n", encoding="utf-8")
    (tmp_path / "net.py").write_text("import mindspore.nn as nn\nfc = nn.Dense(4, 4)\n", encoding="utf-8")
    result = run_cli("check", "--no-cache", ".", cwd=tmp_path)
    assert "Checked against MindSpore 2.9.0 (requirements.txt:1: mindspore==2.9.0)." in result.stderr
    given = run_cli("check", "--no-cache", "--mindspore-version", "2.7.2", ".", cwd=tmp_path)
    assert "Checked against MindSpore 2.7.2 (--mindspore-version)." in given.stderr
    (tmp_path / "pyproject.toml").write_text('[tool.msacclint]\nmindspore-version = "2.8.0"\n', encoding="utf-8")
    configured = run_cli("check", "--no-cache", ".", cwd=tmp_path)
    assert "Checked against MindSpore 2.8.0 (pyproject.toml: mindspore-version)." in configured.stderr


def test_a_1x_declaration_says_which_facts_are_used_instead(tmp_path, run_cli):
    (tmp_path / ".git").mkdir()
    (tmp_path / "requirements.txt").write_text("mindspore-ascend==1.8.1\n", encoding="utf-8")
    (tmp_path / "net.py").write_text("import mindspore.nn as nn\nfc = nn.Dense(4, 4)\n", encoding="utf-8")
    result = run_cli("check", "--no-cache", ".", cwd=tmp_path)
    assert "Checked against MindSpore 1.8.1 (requirements.txt:1: mindspore-ascend==1.8.1). The API surface " \
           "msacclint ships knows 2.7.0-2.10.0: on 1.8.1 it claims no failure" in result.stderr
