"""What the repository runs (msacclint/project/reach.py) decides a finding's grade: a
finding in code an entry point reaches keeps its severity and carries the trail; in code
nothing reaches it is one level lower and says what runs instead. Each way of reaching code
has a multi-file example: the finding reached, the same finding dormant, and a look-alike."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from msacclint.api import LintOptions, lint_paths
from msacclint.diagnostics import Reach

RESNET = """\
    import mindspore.nn as nn


    class BasicBlock(nn.Cell):
        def __init__(self, c):
            super().__init__()
            self.conv = nn.Conv2d(c, c, 3)
            self.bn = nn.BatchNorm2d(c, momentum=0.1)

        def construct(self, x):
            return self.bn(self.conv(x))


    class Bottleneck(nn.Cell):
        def __init__(self, c):
            super().__init__()
            self.conv = nn.Conv2d(c, c, 1)
            self.bn = nn.BatchNorm2d(c, momentum=0.1)

        def construct(self, x):
            return self.bn(self.conv(x))


    class ResNet(nn.Cell):
        def __init__(self, block, c=64):
            super().__init__()
            self.body = block(c)

        def construct(self, x):
            return self.body(x)


    def resnet18():
        return ResNet(BasicBlock)


    def resnet50():
        return ResNet(Bottleneck)
    """
BASIC_BN, BOTTLENECK_BN = 8, 18
TRAIN = """\
    from src.resnet import resnet18


    def main():
        net = resnet18()
        net.set_train()


    if __name__ == "__main__":
        main()
    """


def write(root, files, marker=True):
    if marker:
        (root / ".git").mkdir(exist_ok=True)
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


def run(root, *paths, **options):
    """Diagnostics of a run from ``root`` (the API every front end calls), by (path, line, code)."""
    here = os.getcwd()
    os.chdir(root)
    try:
        options.setdefault("extend_select", ("MSA004",))  # the upgrade group's names MindSpore rejects
        done = lint_paths(list(paths) or ["."], LintOptions(use_cache=False, jobs=1, **options))
    finally:
        os.chdir(here)
    return {(d.path, d.line, d.code): d for d in done.diagnostics}


def test_the_block_only_resnet50_uses_is_dormant_and_names_what_runs(tmp_path):
    write(tmp_path, {"src/__init__.py": "", "src/resnet.py": RESNET, "train.py": TRAIN})
    found = run(tmp_path)
    basic = found[("src/resnet.py", BASIC_BN, "MSA107")]
    bottleneck = found[("src/resnet.py", BOTTLENECK_BN, "MSA107")]
    assert basic.severity.value == "error" and basic.reach is Reach.RUNS
    # the trail goes from the entry point to the block: train.py's main block, main, resnet18, BasicBlock
    assert [r.path for r in basic.trail][0] == "train.py"
    assert any("resnet18" in r.message for r in basic.trail)
    assert bottleneck.severity.value == "warning" and bottleneck.reach is Reach.DORMANT
    assert "nothing the repository runs reaches the class `Bottleneck`" in bottleneck.message
    assert "train.py reaches" in bottleneck.message and "`resnet18`" in bottleneck.message
    assert not bottleneck.trail


def test_a_script_that_builds_resnet50_makes_the_bottleneck_run(tmp_path):
    write(tmp_path, {"src/__init__.py": "", "src/resnet.py": RESNET, "train.py": TRAIN,
                     "eval.py": "from src.resnet import resnet50\n\nif __name__ == '__main__':\n    resnet50()\n"})
    found = run(tmp_path)
    assert found[("src/resnet.py", BOTTLENECK_BN, "MSA107")].severity.value == "error"


def test_relative_imports_and_package_re_exports_reach_the_class(tmp_path):
    # train.py -> `from models import resnet18` -> models/__init__.py re-exports it from .resnet
    write(tmp_path, {"models/__init__.py": "from .resnet import resnet18, resnet50\n",
                     "models/resnet.py": RESNET,
                     "models/factory.py": "from . import resnet\n\n\ndef build():\n    return resnet.resnet50()\n",
                     "train.py": "from models import resnet18\n\nif __name__ == '__main__':\n    resnet18()\n"})
    found = run(tmp_path)
    assert found[("models/resnet.py", BASIC_BN, "MSA107")].severity.value == "error"
    # factory.build reaches resnet50 through a relative import, but nothing calls build
    dormant = found[("models/resnet.py", BOTTLENECK_BN, "MSA107")]
    assert dormant.severity.value == "warning"
    write(tmp_path, {"train.py": "from models import resnet18\nfrom models.factory import build\n\n"
                                 "if __name__ == '__main__':\n    resnet18()\n    build()\n"})
    assert run(tmp_path)[("models/resnet.py", BOTTLENECK_BN, "MSA107")].severity.value == "error"


def test_a_lone_model_file_or_a_library_with_no_entry_point_is_never_dormant(tmp_path):
    write(tmp_path, {"resnet.py": RESNET}, marker=False)
    found = run(tmp_path, "resnet.py")
    assert {d.severity.value for d in found.values() if d.code == "MSA107"} == {"error"}
    assert all(d.reach is Reach.RUNS for d in found.values())
    assert "no entry point" in found[("resnet.py", BOTTLENECK_BN, "MSA107")].trail[0].message


def test_the_public_api_of_an_installable_package_is_reachable(tmp_path):
    # the repository runs resnet18 only, but installs `models`: resnet50 is its API
    write(tmp_path, {"setup.py": "from setuptools import setup, find_packages\nsetup(name='m', packages=find_packages())\n",
                     "models/__init__.py": "", "models/resnet.py": RESNET,
                     "tools/train.py": "from models.resnet import resnet18\n\nif __name__ == '__main__':\n    resnet18()\n"})
    found = run(tmp_path)
    bottleneck = found[("models/resnet.py", BOTTLENECK_BN, "MSA107")]
    assert bottleneck.severity.value == "error"
    assert "installable package `models`" in bottleneck.trail[0].message
    # an empty setup.py declares no package: the same code is then dormant
    write(tmp_path, {"setup.py": ""})
    assert run(tmp_path)[("models/resnet.py", BOTTLENECK_BN, "MSA107")].severity.value == "warning"


def test_a_script_named_by_a_shell_script_is_an_entry_point(tmp_path):
    # run_it.py has no main block: the shell script runs it
    write(tmp_path, {"src/__init__.py": "", "src/resnet.py": RESNET,
                     "tools/run_it.py": "from src.resnet import resnet50\nnet = resnet50\n",
                     "scripts/run.sh": "#!/bin/bash\ncd ..\npython tools/run_it.py --epochs 3\n",
                     "train.py": TRAIN})
    found = run(tmp_path)
    bottleneck = found[("src/resnet.py", BOTTLENECK_BN, "MSA107")]
    assert bottleneck.severity.value == "error"
    assert bottleneck.trail[0].path == "tools/run_it.py" and "scripts/run.sh:3" in bottleneck.trail[0].message


def test_registries_dicts_getattr_and_computed_imports_reach_what_they_name(tmp_path):
    files = {"src/__init__.py": "", "src/resnet.py": RESNET}
    # a dict of builders in the entry script
    write(tmp_path, dict(files, **{"train.py": "from src.resnet import resnet18, resnet50\n"
                                               "MODELS = {'r18': resnet18, 'r50': resnet50}\n\n"
                                               "if __name__ == '__main__':\n    MODELS['r18']()\n"}))
    assert run(tmp_path)[("src/resnet.py", BOTTLENECK_BN, "MSA107")].severity.value == "error"
    # getattr with a computed name: any builder of the module may be picked
    write(tmp_path, {"train.py": "import sys\nimport src.resnet as zoo\n\nif __name__ == '__main__':\n"
                                 "    getattr(zoo, sys.argv[1])()\n"})
    assert run(tmp_path)[("src/resnet.py", BOTTLENECK_BN, "MSA107")].severity.value == "error"
    # getattr with a literal name picks that one only
    write(tmp_path, {"train.py": "import src.resnet as zoo\n\nif __name__ == '__main__':\n"
                                 "    getattr(zoo, 'resnet18')()\n"})
    assert run(tmp_path)[("src/resnet.py", BOTTLENECK_BN, "MSA107")].severity.value == "warning"
    # a computed import of a module below src/
    write(tmp_path, {"train.py": "import importlib, sys\n\nif __name__ == '__main__':\n"
                                 "    mod = importlib.import_module('src.' + sys.argv[1])\n    mod.build()\n"})
    assert run(tmp_path)[("src/resnet.py", BOTTLENECK_BN, "MSA107")].severity.value == "error"
    # a registry decorator: the decorated builder is reached with its module
    registry = RESNET.replace("    def resnet50():", "    @register\n    def resnet50():").replace(
        "import mindspore.nn as nn\n", "import mindspore.nn as nn\n    from src.registry import register\n", 1)
    write(tmp_path, {"src/resnet.py": registry,
                     "src/registry.py": "MODELS = {}\n\n\ndef register(fn):\n    MODELS[fn.__name__] = fn\n    return fn\n",
                     "train.py": TRAIN})
    assert run(tmp_path)[("src/resnet.py", BOTTLENECK_BN + 1, "MSA107")].severity.value == "error"


def test_eval_of_computed_text_reaches_what_its_file_binds(tmp_path):
    # eval(name) in a script may build any builder the script imports (a star import too)
    write(tmp_path, {"src/__init__.py": "", "src/resnet.py": RESNET, "train.py": TRAIN,
                     "tools/run.py": "import sys\nfrom src.resnet import *\n\nif __name__ == '__main__':\n"
                                     "    eval(sys.argv[1])()\n"})
    assert run(tmp_path)[("src/resnet.py", BOTTLENECK_BN, "MSA107")].severity.value == "error"
    # ... but not what another file binds: one eval somewhere does not make the repository reachable
    write(tmp_path, {"tools/run.py": "import sys\nfrom src.resnet import resnet18\n\nif __name__ == '__main__':\n"
                                     "    eval(sys.argv[1])()\n"})
    assert run(tmp_path)[("src/resnet.py", BOTTLENECK_BN, "MSA107")].severity.value == "warning"
    # a module whose name is computed whole may be any module of the folder the script runs
    # from (its sys.path): a script at the top reaches everything; one in tools/ only tools/
    write(tmp_path, {"tools/run.py": "import importlib, sys\n\nif __name__ == '__main__':\n"
                                     "    importlib.import_module(sys.argv[1]).main()\n"})
    assert run(tmp_path)[("src/resnet.py", BOTTLENECK_BN, "MSA107")].severity.value == "warning"
    os.rename(tmp_path / "tools" / "run.py", tmp_path / "run.py")
    found = run(tmp_path)[("src/resnet.py", BOTTLENECK_BN, "MSA107")]
    assert found.severity.value == "error" and "run.py:4 imports a module whose name it computes" in found.trail[0].message


def test_a_notebook_is_an_entry_point(tmp_path):
    cells = [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
              "source": ["from src.resnet import resnet50\n", "net = resnet50()\n"]}]
    notebook = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    write(tmp_path, {"src/__init__.py": "", "src/resnet.py": RESNET, "train.py": TRAIN,
                     "demo.ipynb": json.dumps(notebook)})
    assert run(tmp_path)[("src/resnet.py", BOTTLENECK_BN, "MSA107")].severity.value == "error"


def test_without_the_project_layer_reach_is_not_decided(tmp_path):
    write(tmp_path, {"src/__init__.py": "", "src/resnet.py": RESNET, "train.py": TRAIN})
    found = run(tmp_path, use_project=False)
    assert {d.severity.value for d in found.values() if d.code == "MSA107"} == {"error"}
    assert all(d.reach is None for d in found.values())


def test_circular_imports_and_star_imports_do_not_crash_or_hide_a_use(tmp_path):
    write(tmp_path, {"src/__init__.py": "from .a import *\n", "src/a.py": "from .b import *\n",
                     "src/b.py": "from .a import *\nfrom .resnet import *\n", "src/resnet.py": RESNET,
                     "train.py": "from src import resnet50\n\nif __name__ == '__main__':\n    resnet50()\n"})
    assert run(tmp_path)[("src/resnet.py", BOTTLENECK_BN, "MSA107")].severity.value == "error"


@pytest.mark.parametrize("front", ["cli", "flake8"])
def test_every_front_end_grades_the_same(tmp_path, front):
    write(tmp_path, {"src/__init__.py": "", "src/resnet.py": RESNET, "train.py": TRAIN})
    if front == "cli":
        done = subprocess.run([sys.executable, "-m", "msacclint", "check", "src/resnet.py", "--format", "json",
                               "--no-cache", "--exit-zero"], cwd=tmp_path, capture_output=True, text=True, check=True)
        grades = {d["line"]: d["severity"] for d in json.loads(done.stdout) if d["code"] == "MSA107"}
        assert grades == {BASIC_BN: "error", BOTTLENECK_BN: "warning"}
    else:
        done = subprocess.run([sys.executable, "-m", "flake8", "--select", "MSA107", "src/resnet.py"], cwd=tmp_path,
                              capture_output=True, text=True)
        lines = done.stdout.splitlines()
        dormant = [line for line in lines if f":{BOTTLENECK_BN}:" in line]
        assert len(lines) == 2 and dormant and "dormant" in dormant[0]


HEAD = """\
    import mindspore.nn as nn


    class Head(nn.Cell):
        def __init__(self, channels, has_dropout=False):
            super().__init__()
            self.fc = nn.Dense(channels, 10)
            if has_dropout:
                self.drop = nn.Dropout(0.2)
    """


def test_a_switch_only_code_nothing_runs_turns_on_stays_off(tmp_path):
    # the only call that turns has_dropout on is in a function no entry point reaches
    files = {"pkg/__init__.py": "", "pkg/head.py": HEAD,
             "pkg/old.py": "from pkg.head import Head\n\n\ndef legacy():\n    return Head(8, has_dropout=True)\n",
             "train.py": "from pkg.head import Head\n\nif __name__ == '__main__':\n    Head(64)\n"}
    write(tmp_path, files)
    dropout = run(tmp_path)[("pkg/head.py", 9, "MSA101")]
    assert dropout.severity.value == "warning" and "built only when `has_dropout` turns it on" in dropout.message
    # once an entry point calls legacy(), the switch is on
    write(tmp_path, {"train.py": "from pkg.head import Head\nfrom pkg.old import legacy\n\n"
                                 "if __name__ == '__main__':\n    Head(64)\n    legacy()\n"})
    assert run(tmp_path)[("pkg/head.py", 9, "MSA101")].severity.value == "error"


def test_code_behind_an_import_of_a_missing_project_module_cannot_run(tmp_path):
    # src/resnet.py imports src.layers, which the repository does not have: its import
    # raises, so nothing in it runs, and train.py stops at that import too
    broken = RESNET.replace("import mindspore.nn as nn\n", "import mindspore.nn as nn\n    from src.layers import Block\n", 1)
    write(tmp_path, {"src/__init__.py": "", "src/resnet.py": broken, "train.py": TRAIN})
    found = run(tmp_path)
    basic = found[("src/resnet.py", BASIC_BN + 1, "MSA107")]
    assert basic.severity.value == "info" and basic.reach is Reach.CANNOT_RUN
    assert "cannot run: src/resnet.py:2 raises first" in basic.message and "no module src.layers" in basic.message
    # the look-alike: the same import guarded by try/except ImportError keeps the finding
    guarded = RESNET.replace("import mindspore.nn as nn\n", "import mindspore.nn as nn\n    try:\n"
                             "        from src.layers import Block\n    except ImportError:\n        Block = None\n", 1)
    write(tmp_path, {"src/resnet.py": guarded})
    assert run(tmp_path)[("src/resnet.py", BASIC_BN + 4, "MSA107")].severity.value == "error"
    # and a third-party package that is not installed is not the project's to judge
    third = RESNET.replace("import mindspore.nn as nn\n", "import mindspore.nn as nn\n    from timm.layers import Block\n", 1)
    write(tmp_path, {"src/resnet.py": third})
    assert run(tmp_path)[("src/resnet.py", BASIC_BN + 1, "MSA107")].severity.value == "error"


def test_a_builder_imported_under_another_name_is_reached(tmp_path):
    write(tmp_path, {"src/__init__.py": "", "src/resnet.py": RESNET,
                     "train.py": "from src.resnet import resnet50 as build\n\nif __name__ == '__main__':\n    build()\n"})
    assert run(tmp_path)[("src/resnet.py", BOTTLENECK_BN, "MSA107")].severity.value == "error"


def test_five_thousand_entry_scripts_are_met_without_searching_them_all(tmp_path):
    files = {"src/__init__.py": "", "src/resnet.py": RESNET}
    for i in range(5000):
        files[f"runs/run_{i}.py"] = "from src.resnet import resnet18\n\nif __name__ == '__main__':\n    resnet18()\n"
    write(tmp_path, files)
    found = run(tmp_path, "src/resnet.py")
    assert found[("src/resnet.py", BASIC_BN, "MSA107")].severity.value == "error"
    bottleneck = found[("src/resnet.py", BOTTLENECK_BN, "MSA107")]
    assert bottleneck.severity.value == "warning" and "reaches `BasicBlock`, `ResNet`, `resnet18` of src/resnet.py" in bottleneck.message


def test_shadowed_modules_conditional_imports_and_a_config_naming_nothing(tmp_path):
    # two utils.py (the script's own folder wins), an import under `if`, a config naming a
    # class the project does not define: no crash, and the findings keep their grades
    write(tmp_path, {"src/__init__.py": "", "src/resnet.py": RESNET,
                     "utils.py": "def helper():\n    return 1\n",
                     "tools/utils.py": "from src.resnet import resnet50\n\n\ndef helper():\n    return resnet50()\n",
                     "tools/train.py": "import sys\nif sys.platform == 'linux':\n    from utils import helper\n"
                                       "\nif __name__ == '__main__':\n    helper()\n",
                     "configs/net.yaml": "model: ResNet999\n"})
    found = run(tmp_path)
    assert found[("src/resnet.py", BOTTLENECK_BN, "MSA107")].severity.value == "error"


def test_a_half_ported_module_cannot_run_and_says_what_raises(tmp_path):
    # `nn.Module` is not a MindSpore name: the class statement raises when the module is
    # imported, so nothing in the module runs; the raising line itself keeps its MSA004
    ported = """\
        import mindspore.nn as nn


        class Head(nn.Module):
            def __init__(self):
                super().__init__()
                self.drop = nn.Dropout(0.1)


        class Block(nn.Cell):
            def __init__(self, c):
                super().__init__()
                self.bn = nn.BatchNorm2d(c, momentum=0.1)
        """
    write(tmp_path, {"src/__init__.py": "", "src/head.py": ported,
                     "train.py": "from src.head import Block\n\nif __name__ == '__main__':\n    Block(8)\n"})
    found = run(tmp_path)
    raising = found[("src/head.py", 4, "MSA004")]
    assert raising.severity.value == "warning" and "nn.Module" in raising.message
    block_bn = found[("src/head.py", 13, "MSA107")]
    # a loud failure a port fixes comes first: the silent bug behind it is shown one grade lower
    assert block_bn.severity.value == "warning" and block_bn.reach is Reach.CANNOT_RUN
    assert "cannot run yet: src/head.py:4 raises first" in block_bn.message and "nn.Module" in block_bn.message
    assert "once that loud failure is fixed" in block_bn.message


def test_a_class_whose_constructor_raises_cannot_be_built_but_its_neighbours_can(tmp_path):
    # nn.Conv1d has no `bias` keyword: Net1d's constructor raises, so its layers never run;
    # Net2d in the same file is built and keeps its error
    model = """\
        import mindspore.nn as nn


        class Net1d(nn.Cell):
            def __init__(self, c):
                super().__init__()
                self.conv = nn.Conv1d(c, c, 3, bias=False)
                self.bn = nn.BatchNorm1d(c, momentum=0.1)


        class Net2d(nn.Cell):
            def __init__(self, c):
                super().__init__()
                self.bn = nn.BatchNorm2d(c, momentum=0.1)
        """
    write(tmp_path, {"src/__init__.py": "", "src/net.py": model,
                     "train.py": "from src.net import Net1d, Net2d\n\nif __name__ == '__main__':\n"
                                 "    Net1d(4)\n    Net2d(4)\n"})
    found = run(tmp_path)
    assert found[("src/net.py", 7, "MSA004")].severity.value == "warning"
    after = found[("src/net.py", 8, "MSA107")]
    assert after.severity.value == "warning" and after.reach is Reach.CANNOT_RUN and "src/net.py:7 raises first" in after.message
    # a method of the class cannot run either: its constructor never finishes
    with_method = ("import mindspore.nn as nn\n\n\nclass Net1d(nn.Cell):\n    def __init__(self, c):\n"
                   "        super().__init__()\n        self.conv = nn.Conv1d(c, c, 3, bias=False)\n"
                   "        self.bn = self.head()\n\n    def head(self):\n"
                   "        return nn.BatchNorm1d(4, momentum=0.1)\n")
    write(tmp_path, {"src/net.py": with_method, "train.py": "from src.net import Net1d\n\n"
                                                            "if __name__ == '__main__':\n    Net1d(4)\n"})
    method = run(tmp_path)[("src/net.py", 11, "MSA107")]
    assert method.reach is Reach.CANNOT_RUN and "`Net1d` cannot be built" in method.message
    assert found[("src/net.py", 14, "MSA107")].severity.value == "error"


# -- issue 39: "cannot run" judged on the MindSpore the project targets ----------------------------
#: a model file written for MindSpore 1.x: ms.ms_function is gone in 2.x, and its BatchNorm carries
#: PyTorch's momentum (the YOLOv3 port's real fix wrote 0.97)
LEGACY_COMMON = """\
    import mindspore as ms
    import mindspore.nn as nn


    @ms.ms_function
    def fused(x):
        return x


    class Conv(nn.Cell):
        def __init__(self, c1, c2):
            super().__init__()
            self.conv = nn.Conv2d(c1, c2, 3, has_bias=False)
            self.bn = nn.BatchNorm2d(c2, eps=1e-3, momentum=0.03)

        def construct(self, x):
            return self.bn(self.conv(x))
    """
LEGACY_TRAIN = "from network.common import Conv\n\nif __name__ == '__main__':\n    net = Conv(3, 8)\n    net.set_train()\n"


def _legacy(tmp_path, requirement=None):
    files = {"network/__init__.py": "", "network/common.py": LEGACY_COMMON, "train.py": LEGACY_TRAIN}
    if requirement is not None:
        files["requirements.txt"] = requirement + "\nnumpy\n"
    write(tmp_path, files)
    return run(tmp_path)


def test_a_1x_project_is_not_claimed_to_fail_on_names_2x_lacks(tmp_path):
    found = _legacy(tmp_path, "mindspore-gpu==1.8.1")
    bn = found[("network/common.py", 14, "MSA107")]
    # on 1.8.1 ms.ms_function exists: the module imports, the network trains with the silent bug
    assert bn.severity.value == "error" and bn.reach is Reach.RUNS, bn.message
    # the upgrade group still reports the name, for the move to 2.x
    assert "the project targets MindSpore 1.8.1: this fails once it moves to" in \
        found[("network/common.py", 5, "MSA004")].message


def test_a_2x_project_sees_the_silent_bug_behind_the_loud_failure_at_warning(tmp_path):
    found = _legacy(tmp_path, "mindspore==2.10.0")
    bn = found[("network/common.py", 14, "MSA107")]
    assert bn.severity.value == "warning" and bn.reach is Reach.CANNOT_RUN
    assert "cannot run on MindSpore 2.10.0 yet: network/common.py:5 raises first" in bn.message
    assert "ms_function" in bn.message
    assert found[("network/common.py", 5, "MSA004")].severity.value == "warning"
    # the group: judged by the rule's own grade (the same claim, once the name is fixed)
    assert bn.group == "correctness"


def test_with_no_declared_version_every_supported_release_decides(tmp_path):
    found = _legacy(tmp_path)
    bn = found[("network/common.py", 14, "MSA107")]
    assert bn.severity.value == "warning" and bn.reach is Reach.CANNOT_RUN
    assert "cannot run yet" in bn.message


def test_a_module_the_project_lacks_keeps_the_finding_behind_it_at_info(tmp_path):
    model = LEGACY_COMMON.replace("    @ms.ms_function\n", "").replace("import mindspore as ms\n",
                                                                    "import mindspore as ms\n    from network.layers.act import Act\n")
    write(tmp_path, {"network/__init__.py": "", "network/common.py": model, "train.py": LEGACY_TRAIN,
                     "requirements.txt": "mindspore==2.10.0\n"})
    found = run(tmp_path)
    bn = next(d for (path, _line, code), d in found.items() if path == "network/common.py" and code == "MSA107")
    assert bn.severity.value == "info" and bn.reach is Reach.CANNOT_RUN and "no module network.layers" in bn.message


def test_an_unreached_module_past_a_missing_name_is_dormant_not_cannot_run(tmp_path):
    write(tmp_path, {"network/__init__.py": "", "network/common.py": LEGACY_COMMON,
                     "train.py": "import mindspore\n\nif __name__ == '__main__':\n    print(mindspore.__version__)\n",
                     "requirements.txt": "mindspore==2.10.0\n"})
    found = run(tmp_path)
    bn = found[("network/common.py", 14, "MSA107")]
    assert bn.reach is Reach.DORMANT and bn.severity.value == "warning" and "dormant" in bn.message
