"""The API surface against the installed MindSpore (``pip install '.[probe]'``; CI installs it,
so this is the newest-release check of the shipped surface). Skipped only without MindSpore.

- a fresh ``msacclint probe --api-surface`` of the installed release equals what
  rules/api_surface/mindspore-cpu.json says about that release, name by name;
- what MSA004's analysis says raises on the installed release does raise there, with the
  exception its message names, and what it leaves alone runs.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import textwrap
from importlib.metadata import version

import libcst as cst
import pytest

from msacclint.analysis.context import FileContext
from msacclint.analysis.imports import ImportTable
from msacclint.analysis.raising import raising_calls
from msacclint.data import data_dir
from msacclint.probe import surface
from msacclint.settings import Settings

pytestmark = [
    pytest.mark.probe,
    pytest.mark.skipif(importlib.util.find_spec("mindspore") is None,
                       reason="MindSpore is not installed (pip install '.[probe]')"),
]


@pytest.fixture(scope="module")
def probed(tmp_path_factory):
    folder = tmp_path_factory.mktemp("surface")
    (folder / "mindspore.py").write_text("open('USER_CODE_RAN', 'w').close()\n")  # never imported
    done = subprocess.run([sys.executable, "-m", "msacclint", "probe", "--api-surface", "fresh.json"], cwd=folder,
                          capture_output=True, text=True, timeout=600)
    fresh = json.loads((folder / "fresh.json").read_text()) if (folder / "fresh.json").is_file() else None
    return done, fresh, folder


def test_the_probe_writes_the_installed_release_surface_and_nothing_else(probed):
    done, fresh, folder = probed
    assert done.returncode == 0, done.stderr
    assert fresh["kind"] == "msacclint-api-surface" and fresh["mindspore"] == version("mindspore")
    assert sorted(p.name for p in folder.iterdir()) == ["fresh.json", "mindspore.py"]
    assert f"MindSpore {version('mindspore')}:" in done.stdout


def test_the_shipped_surface_is_what_the_installed_release_has(probed):
    _, fresh, _ = probed
    shipped = json.loads((data_dir() / "api_surface" / "mindspore-cpu.json").read_text(encoding="utf-8"))
    release = fresh["mindspore"]
    assert release in shipped["versions"], (
        f"the shipped API surface has no {release}: run .ci/api-surface with the supported releases")
    assert surface.differences(surface.release_view(shipped, release), fresh) == []


def test_the_compare_command_agrees(probed):
    _, _, folder = probed
    done = subprocess.run([sys.executable, "-m", "msacclint.probe.surface", "compare", str(folder / "fresh.json")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout
    assert done.stdout.strip().endswith(f"OK ({version('mindspore')} is what the shipped surface says)")


def test_every_rejected_combination_raises_on_the_installed_release(probed):
    _, fresh, _ = probed
    not_raised = {(c, a): o for c, apis in fresh["rejected"].items() for a, o in apis.items() if o != "raises"}
    assert not_raised == {}


#: (source, what its analysis must say) on the installed release: each snippet runs alone
SNIPPETS = [
    "import mindspore.nn as nn\nclass Net(nn.Module):\n    pass\n",
    "import mindspore.nn as nn\nclass Net(nn.Cell):\n    pass\n",
    "from mindspore.nn import Module\n",
    "from mindspore.nn import Cell, SequentialCell\n",
    "import mindspore.nn as nn\nnn.Sequential(nn.ReLU())\n",
    "import mindspore.nn as nn\nnn.Conv1d(2, 2, 3, bias=False)\n",
    "import mindspore.nn as nn\nnn.Conv1d(2, 2, 3, has_bias=False)\n",
    "import mindspore.nn as nn\nnn.LeakyReLU(0.2, True)\n",
    "import mindspore.nn as nn\nnn.LeakyReLU(0.2)\n",
    "import mindspore.nn as nn\nnn.ReLU(inplace=True)\n",
    "import mindspore.nn as nn\nnn.Conv2d(3, 8, 7, stride=2, padding=3)\n",
    "import mindspore.nn as nn\nnn.Conv2d(3, 8, 7, stride=2, padding=3, pad_mode='pad')\n",
    "import mindspore.nn as nn\nnn.Conv2d(3, 8, 3, padding=(1, 1), pad_mode='pad')\n",
    "import mindspore.nn as nn\nnn.Conv2d(3, 8, 3, pad_mode='zeros')\n",
    "import mindspore.nn as nn\nnn.Conv1d(3, 8, 3, 1, 'same', 1)\n",
    "import mindspore.nn as nn\nnn.MaxPool2d(kernel_size=3, stride=2, padding=1)\n",
    "import mindspore.nn as nn\nnn.MaxPool2d(kernel_size=3, stride=2, padding=1, pad_mode='pad')\n",
    "import mindspore.nn as nn\nnn.Dropout(keep_prob=0)\n",
    "import mindspore.nn as nn\nnn.Dropout(keep_prob=0.0)\n",
    "import mindspore.nn as nn\nnn.Dropout(0.9)\n",
    "import mindspore.nn as nn\nnn.Dropout(p=1.0)\n",
    "import mindspore.nn as nn\nnn.Dropout(p=0.0)\n",
    "import mindspore.nn as nn\nnn.Dropout2d(p=0)\n",
    "import mindspore.nn as nn\nnn.BatchNorm2d(4, momentum=1.5)\n",
    "import mindspore.nn as nn\nnn.BatchNorm2d(4, momentum=0.1)\n",
    "import mindspore as ms\n@ms.ms_function\ndef step(x):\n    return x\n",
    "import mindspore as ms\n@ms.jit\ndef step(x):\n    return x\n",
    "import mindspore as ms\nfrom mindspore import ops\nops.Zeros((2, 2), ms.float32)\n",
    "import mindspore as ms\nfrom mindspore import ops\nops.Zeros()((2, 2), ms.float32)\n",
    "from mindspore import ops\nimport mindspore as ms\nops.cat([ms.Tensor([1.0])], dim=0)\n",
    "from mindspore import ops\nimport mindspore as ms\nops.cat([ms.Tensor([1.0])], axis=0)\n",
    "import mindspore.dataset.vision.c_transforms as C\n",
    "import mindspore.dataset.vision as vision\nvision.Resize(224)\n",
    "from mindspore._checkparam import Validator\n",
    "from mindspore.ops.operations import ControlDepend\n",
    "import mindspore.dataset as ds\nds.MindDataset(dataset_file='x.mindrecord')\n",
    "from mindspore import mint\nmint.interpolate\n",
    "from mindspore import mint\nmint.nn.functional.interpolate\n",
]

RUN = """
import json, sys, warnings
warnings.simplefilter("ignore")
out = []
for source in json.loads(sys.stdin.read()):
    try:
        exec(compile(source, "<snippet>", "exec"), {"__name__": "snippet"})
        out.append(None)
    except Exception as exc:
        out.append(type(exc).__name__)
print(json.dumps(out))
"""


def test_what_the_analysis_says_raises_does_raise_and_nothing_else(tmp_path):
    release = version("mindspore")
    predicted = []
    for source in SNIPPETS:
        module = cst.parse_module(source)
        ctx = FileContext("snippet.py", source, module, ImportTable.from_module(module),
                          Settings(mindspore_version=release))
        found = raising_calls(ctx)
        assert len(found) <= 1, (source, [f.message for f in found])
        assert all(f.versions == (release,) for f in found)
        predicted.append(found[0].exception if found else None)
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(RUN)], input=json.dumps(SNIPPETS), cwd=tmp_path,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    observed = json.loads(done.stdout.strip().splitlines()[-1])
    mismatches = [(s, p, o) for s, p, o in zip(SNIPPETS, predicted, observed) if p != o]
    assert mismatches == []
    assert sum(p is not None for p in predicted) >= 18  # the snippets do exercise every kind
