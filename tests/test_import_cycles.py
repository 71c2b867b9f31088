"""Circular imports are valid Python (issue 38): the project layer follows them as Python runs
them, and a package whose modules import each other is checked like any other.

``import a.b`` runs ``a/__init__.py`` first; when that reaches its own import of ``a.b``,
``a/b.py`` runs with ``a`` half run: ``from a import Net`` in it finds ``Net`` only if
``a/__init__.py`` bound it before that import (else Python raises ImportError). Never an
MSA001: the files are checkable; a name the cycle leaves unbound is simply not resolved.
"""

from __future__ import annotations

import json
import textwrap

import pytest
from helpers import trained_net_script

from msacclint.project.index import load_index

NET = """\
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 2)
        self.drop = nn.Dropout(p=0.1)

    def construct(self, x):
        return self.drop(self.fc(x))
"""

#: ``a/__init__.py`` with Net bound before (or after) its import of ``a.b``
BEFORE = "import mindspore.nn as nn\n\n" + NET + "\n\nfrom a.b import build\n"
AFTER = "import mindspore.nn as nn\n\nfrom a.b import build\n\n\n" + NET

#: the submodule importing its package: the cycle
B = "from a import Net\n\n\ndef build():\n    return Net()\n"

#: an entry script that trains a network whose class it reaches through the cycle
TRAIN = trained_net_script("a.b")


def _write(tmp_path, files):
    (tmp_path / "pyproject.toml").write_text("", encoding="utf-8")
    for relative, text in files.items():
        path = tmp_path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")


def _check(msacclint, *args):
    result = msacclint("check", "--no-cache", "--show-info", "--format", "json", *args)
    return json.loads(result.stdout)


@pytest.mark.parametrize("args", [(".",), ("train.py",)], ids=["folder", "entry-script"])
def test_a_name_bound_before_the_cycle_comes_back_is_resolved(tmp_path, msacclint, args):
    _write(tmp_path, {"a/__init__.py": BEFORE, "a/b.py": B, "train.py": TRAIN})
    found = _check(msacclint, *args)
    assert [d for d in found if d["code"] == "MSA001"] == []
    (finding,) = [d for d in found if d["code"] == "MSA201"]
    # the finding needs Net's Dropout, found through b's import of the half-run package
    assert finding["severity"] == "error" and "a/__init__.py:7" in finding["message"], finding


def test_a_name_bound_after_the_cycle_comes_back_is_not(tmp_path, msacclint):
    """Python raises ImportError at ``from a import Net``: Net is not what b.Net stands for,
    so nothing is claimed about its layers; still no MSA001."""
    _write(tmp_path, {"a/__init__.py": AFTER, "a/b.py": B, "train.py": TRAIN})
    found = _check(msacclint, ".")
    assert [d for d in found if d["code"] == "MSA001"] == []
    assert [d["severity"] for d in found if d["code"] == "MSA201"] == ["info"]


def test_an_import_inside_a_function_does_not_close_the_cycle(tmp_path):
    """A function-level import runs when the function is called, after the package ran."""
    late = "import mindspore.nn as nn\n\n\ndef make():\n    from a.b import build\n    return build()\n\n\n" + NET
    _write(tmp_path, {"a/__init__.py": late, "a/b.py": B, "train.py": TRAIN})
    index = load_index(str(tmp_path))
    assert index.lookup(str(tmp_path / "train.py"), "Net")[0] == "class"
    assert index.problems == {}


def test_the_cycle_through_a_star_import_and_a_sibling_module(tmp_path):
    """Through ``from a import *`` and through a sibling the package imports first; and two
    plain modules importing each other (which runs first depends on the entry point: both
    are taken as run to the end)."""
    files = {
        "a/__init__.py": "import mindspore.nn as nn\n\n" + NET + "\n\nfrom a.c import helper\n",
        "a/c.py": "from a.b import build\n\n\ndef helper():\n    return build()\n",
        "a/b.py": "from a import *\n\n\ndef build():\n    return Net()\n",
        "m/x.py": "import mindspore.nn as nn\nfrom m.y import other\n\n\n" + NET,
        "m/y.py": "from m.x import Net\n\n\ndef other():\n    return Net()\n",
        "train.py": TRAIN,
    }
    _write(tmp_path, files)
    index = load_index(str(tmp_path))
    b, y = str(tmp_path / "a" / "b.py"), str(tmp_path / "m" / "y.py")
    assert index.lookup(b, "Net")[0] == "class"
    assert index.lookup(y, "Net")[0] == "class"
    _write(tmp_path, {"a/__init__.py": "import mindspore.nn as nn\nfrom a.c import helper\n\n\n" + NET})
    index = load_index(str(tmp_path))
    assert index.lookup(b, "Net") is None
    assert index.problems == {}


def test_names_no_module_of_the_cycle_defines_are_not_a_problem(tmp_path, msacclint):
    """Two modules importing a name from each other that neither defines: Python's
    ImportError; the name stays unresolved, and the files are checked."""
    _write(tmp_path, {"src/__init__.py": "", "src/a.py": "from src.b import Net\n", "src/b.py": "from src.a import Net\n",
                      "train.py": TRAIN.replace("a.b", "src.a")})
    found = _check(msacclint, ".")
    assert [d for d in found if d["code"] == "MSA001"] == []
    assert [d["severity"] for d in found if d["code"] == "MSA201"] == ["info"]
