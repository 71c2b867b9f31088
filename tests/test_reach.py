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


EVAL = """\
    import mindspore as ms
    from src.resnet import resnet50

    if __name__ == "__main__":
        net = resnet50()
        ms.load_param_into_net(net, ms.load_checkpoint("resnet50.ckpt"))
        print(ms.Model(net, metrics={"acc"}).eval(dataset))
    """


def test_a_script_that_evaluates_resnet50_makes_the_bottleneck_run(tmp_path):
    write(tmp_path, {"src/__init__.py": "", "src/resnet.py": RESNET, "train.py": TRAIN, "eval.py": EVAL})
    found = run(tmp_path)
    bottleneck = found[("src/resnet.py", BOTTLENECK_BN, "MSA107")]
    assert bottleneck.severity.value == "error"
    assert "it trains or evaluates (`ms.Model(...)`" in bottleneck.trail[0].message
    # loading a checkpoint alone evaluates nothing
    write(tmp_path, {"eval.py": EVAL.replace('        print(ms.Model(net, metrics={"acc"}).eval(dataset))\n', "")})
    assert run(tmp_path)[("src/resnet.py", BOTTLENECK_BN, "MSA107")].severity.value == "warning"


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
                     "tools/run_it.py": "from src.resnet import resnet50\nnet = resnet50()\nnet.set_train()\n",
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
              "source": ["from src.resnet import resnet50\n", "net = resnet50()\n", "net.set_train(True)\n"]}]
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


# -- runs that train or evaluate, computed imports, methods, switches -------------------------
BLOCKS = """\
    import numpy as np
    import mindspore as ms
    import mindspore.nn as nn


    class Head(nn.Cell):
        def __init__(self, c):
            super().__init__()
            self.drop = nn.Dropout(0.2)

        def construct(self, x):
            return self.drop(x)


    class Gate(nn.Cell):
        def __init__(self, c):
            super().__init__()
            self.drop = nn.Dropout(0.1)
            self.bn = nn.BatchNorm1d(c, bias=False)

        def construct(self, x):
            return self.drop(x)


    if __name__ == "__main__":
        net = Gate(8)
        net.set_train(False)
        print(net(ms.Tensor(np.ones((2, 8)), ms.float32)).shape)
    """
TRAINS_HEAD = """\
    import mindspore as ms
    from mindspore import nn
    from src.blocks import {cls}


    def main():
        net = {cls}(16)
        model = ms.Model(net, nn.MSELoss(), nn.Adam(net.trainable_params()))
        model.train(1, None)


    if __name__ == "__main__":
        main()
    """


def test_a_model_module_s_own_demo_block_trains_nothing(tmp_path):
    # train.py trains Head; Gate is built only by the module's own main block, which prints a shape
    write(tmp_path, {"src/__init__.py": "", "src/blocks.py": BLOCKS, "train.py": TRAINS_HEAD.format(cls="Head")})
    found = run(tmp_path)
    assert found[("src/blocks.py", 9, "MSA101")].severity.value == "error"
    gate = found[("src/blocks.py", 18, "MSA101")]
    assert gate.severity.value == "warning" and gate.reach is Reach.DORMANT
    assert "only src/blocks.py reaches the class `Gate` (its main block runs" in gate.message
    assert "neither trains nor evaluates" in gate.message
    assert gate.trail[0].path == "src/blocks.py" and any("Gate" in hop.message for hop in gate.trail)
    # a loud failure fails whatever runs it: the demo block counts for MSA004
    loud = found[("src/blocks.py", 19, "MSA004")]
    assert loud.severity.value == "warning" and loud.reach is Reach.RUNS
    # the look-alike: a run that trains Gate
    write(tmp_path, {"train.py": TRAINS_HEAD.format(cls="Gate")})
    assert run(tmp_path)[("src/blocks.py", 18, "MSA101")].severity.value == "error"


def test_a_repository_none_of_whose_runs_trains_is_a_library_of_what_they_build(tmp_path):
    write(tmp_path, {"src/__init__.py": "", "src/blocks.py": BLOCKS})
    gate = run(tmp_path)[("src/blocks.py", 18, "MSA101")]
    assert gate.severity.value == "error" and gate.reach is Reach.RUNS
    assert "no run of the repository trains or evaluates" in gate.trail[0].message


MODEL = """\
    import mindspore.nn as nn


    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.drop = nn.Dropout(0.2)

        def construct(self, x):
            return self.drop(x)


    def build():
        return Net()
    """
PICKS = """\
    import argparse
    import importlib
    import mindspore as ms
    from mindspore import nn

    parser = argparse.ArgumentParser()
    parser.add_argument("--arch", default="resnet18")
    args = parser.parse_args()


    def main():
        net = importlib.import_module({name}).build()
        model = ms.Model(net, nn.MSELoss(), nn.Adam(net.trainable_params()))
        model.train(1, None)


    if __name__ == "__main__":
        main()
    """


def test_a_computed_import_reaches_only_what_its_parts_and_supplied_values_allow(tmp_path):
    files = {"src/__init__.py": "", "src/models/__init__.py": "", "src/models/resnet18.py": MODEL,
             "src/models/resnet50.py": MODEL, "src/legacy/__init__.py": "", "src/legacy/old.py": MODEL,
             "train.py": PICKS.format(name='"src.models." + args.arch')}
    write(tmp_path, files)

    def grades():
        found = run(tmp_path)
        return {p: found[(p, 7, "MSA101")] for p in ("src/models/resnet18.py", "src/models/resnet50.py",
                                                     "src/legacy/old.py")}

    # the argparse default names one module: the other model and the legacy folder are dormant
    found = grades()
    assert found["src/models/resnet18.py"].severity.value == "error"
    assert "by the computed name src.models.{resnet18}" in " ".join(h.message for h in
                                                                     found["src/models/resnet18.py"].trail)
    r50 = found["src/models/resnet50.py"]
    assert r50.severity.value == "warning"
    assert "train.py:12 loads a module by a computed name, src.models.{resnet18}, and no value supplied" in r50.message
    # a command line of the repository passes another value: it is loaded too
    write(tmp_path, {"scripts/run.sh": "python train.py --arch=resnet50\n"})
    found = grades()
    assert found["src/models/resnet50.py"].severity.value == "error"
    assert found["src/legacy/old.py"].severity.value == "warning"
    # a value a shell variable holds is unknown: the literal prefix still bounds the name
    write(tmp_path, {"scripts/run.sh": "python train.py --arch=$ARCH\n"})
    found = grades()
    assert {found[p].severity.value for p in ("src/models/resnet18.py", "src/models/resnet50.py")} == {"error"}
    assert found["src/legacy/old.py"].severity.value == "warning"
    # a literal suffix bounds it as well
    os.remove(tmp_path / "scripts" / "run.sh")
    write(tmp_path, {"train.py": PICKS.format(name='f"src.{sys.argv[1]}.resnet18"').replace(
        "import argparse", "import sys\n    import argparse")})
    found = grades()
    assert found["src/models/resnet18.py"].severity.value == "error"
    assert found["src/models/resnet50.py"].severity.value == "warning"
    # nothing bounds a name computed whole: any module of the script's folder may load, and the trail says so
    write(tmp_path, {"train.py": PICKS.format(name="sys.argv[1]").replace("import argparse", "import sys\n    import argparse")})
    old = grades()["src/legacy/old.py"]
    assert old.severity.value == "error" and "nothing bounds the name" in old.trail[0].message


METHODS = """\
    import mindspore.nn as nn
    from mindspore.train import Callback


    class Base(nn.Cell):
        def __init__(self):
            super().__init__()
            self.head = self.make_head()

        def make_head(self):
            return nn.Dropout(0.3)

        def construct(self, x):
            return self.head(x)


    class Net(Base):
        def make_head(self):
            return nn.Dropout(0.4)

        def spare_head(self):
            return nn.Dropout(0.2)

        def named_head(self):
            return nn.Dropout(0.25)

        def late_head(self):
            return nn.Dropout(0.35)


    class Watch(Callback):
        def on_train_step_end(self, run_context):
            return nn.Dropout(0.15)


    def legacy(net):
        return net.late_head()
    """
USES_METHODS = """\
    import mindspore as ms
    from mindspore import nn
    from pkg.net import Net, Watch


    def main():
        net = Net()
        extra = getattr(net, "named_head")()
        model = ms.Model(net, nn.MSELoss(), nn.Adam(net.trainable_params()))
        model.train(1, None, callbacks=[Watch()])


    if __name__ == "__main__":
        main()
    """


def test_a_method_runs_when_something_that_runs_calls_it(tmp_path):
    write(tmp_path, {"pkg/__init__.py": "", "pkg/net.py": METHODS, "train.py": USES_METHODS})
    found = run(tmp_path)
    grades = {line: found[("pkg/net.py", line, "MSA101")].severity.value for line in (11, 19, 22, 25, 28, 33)}
    # make_head: self.make_head() in Base.__init__ (the override too); named_head: getattr with a
    # literal; on_train_step_end: a Callback's hook; spare_head: nothing calls it; late_head:
    # only legacy(), which nothing calls
    assert grades == {11: "error", 19: "error", 22: "warning", 25: "error", 28: "warning", 33: "error"}
    spare = found[("pkg/net.py", 22, "MSA101")]
    assert "nothing the repository runs calls the method `Net.spare_head`, though `Net` itself is built" in spare.message
    assert "calls `net.late_head` on an object" not in " ".join(h.message for h in found[("pkg/net.py", 25, "MSA101")].trail)
    # once legacy() runs, late_head does
    write(tmp_path, {"train.py": USES_METHODS.replace("    main()\n", "    main()\n    legacy(Net())\n").replace(
        "import Net, Watch", "import Net, Watch, legacy")})
    assert run(tmp_path)[("pkg/net.py", 28, "MSA101")].severity.value == "error"


SELECTED = """\
    import mindspore.nn as nn


    class Small(nn.Cell):
        def __init__(self):
            super().__init__()
            self.drop = nn.Dropout(0.2)

        def construct(self, x):
            return self.drop(x)


    class Large(nn.Cell):
        def __init__(self):
            super().__init__()
            self.drop = nn.Dropout(0.3)

        def construct(self, x):
            return self.drop(x)


    def resnet18():
        return Small()


    def resnet50():
        return Large()
    """
LOADER = """\
    import yaml


    def get_config():
        with open("default_config.yaml") as f:
            return yaml.safe_load(f)


    config = get_config()
    """
SELECTS = """\
    import mindspore as ms
    from mindspore import nn
    from model_utils.config import config

    if config.net_name == "resnet18":
        from src.resnet import resnet18 as resnet
    else:
        from src.resnet import resnet50 as resnet


    def main():
        net = resnet()
        model = ms.Model(net, nn.MSELoss(), nn.Adam(net.trainable_params()))
        model.train(1, None)


    if __name__ == "__main__":
        main()
    """


def test_a_model_the_shipped_config_does_not_select_is_dormant(tmp_path):
    write(tmp_path, {"src/__init__.py": "", "src/resnet.py": SELECTED, "model_utils/__init__.py": "",
                     "model_utils/config.py": LOADER, "default_config.yaml": "net_name: resnet50\n",
                     "train.py": SELECTS})
    found = run(tmp_path)
    small = found[("src/resnet.py", 7, "MSA101")]
    assert small.severity.value == "warning" and small.reach is Reach.DORMANT
    assert ("train.py:6 runs only when `config.net_name` is 'resnet18', and the values supplied are 'resnet50' "
            "(default_config.yaml:1)") in small.message
    assert small.trail[0].path == "train.py" and "runs only when" in small.trail[-1].message
    assert found[("src/resnet.py", 16, "MSA101")].severity.value == "error"
    # another shipped config selects it (a script may pick it with --config_path): both are trained
    write(tmp_path, {"configs/resnet18_config.yaml": "net_name: resnet18\n"})
    assert run(tmp_path)[("src/resnet.py", 7, "MSA101")].severity.value == "error"
    os.remove(tmp_path / "configs" / "resnet18_config.yaml")
    # a README command line supplies the other value: both are trained
    write(tmp_path, {"README.md": "# Train\n\n```\npython train.py --net_name resnet18\n```\n"})
    assert run(tmp_path)[("src/resnet.py", 7, "MSA101")].severity.value == "error"
    # the look-alike: the config selects resnet18
    os.remove(tmp_path / "README.md")
    write(tmp_path, {"default_config.yaml": "net_name: resnet18\n"})
    found = run(tmp_path)
    assert found[("src/resnet.py", 7, "MSA101")].severity.value == "error"
    # a value that cannot be read leaves the branch as it is
    write(tmp_path, {"default_config.yaml": "other: 1\n"})
    assert run(tmp_path)[("src/resnet.py", 7, "MSA101")].severity.value == "error"


HELPER_BN = """\
    import mindspore.nn as nn


    def _bn(channel, res_base=False):
        if res_base:
            return nn.BatchNorm2d(channel, momentum=0.1)
        return nn.BatchNorm2d(channel, momentum=0.9)


    class ResNet(nn.Cell):
        def __init__(self, res_base=False):
            super().__init__()
            self.res_base = res_base
            self.bn1 = _bn(64, self.res_base)

        def construct(self, x):
            return self.bn1(x)


    def resnet18():
        return ResNet(res_base=True)


    def resnet50():
        return ResNet(res_base=False)


    if __name__ == "__main__":
        print(resnet18())
    """


def test_a_helper_switch_no_call_a_training_run_reaches_turns_on(tmp_path):
    # only resnet18 passes res_base=True, and only the module's demo block builds it
    write(tmp_path, {"src/__init__.py": "", "src/resnet.py": HELPER_BN,
                     "train.py": TRAINS_HEAD.replace("src.blocks", "src.resnet").format(cls="resnet50").replace(
                         "(16)", "()")})
    bn = run(tmp_path)[("src/resnet.py", 6, "MSA107")]
    assert bn.severity.value == "warning" and "built only when `res_base` turns it on" in bn.message
    assert "that a training or evaluating run reaches" in bn.message
    # the look-alike: the training run builds resnet18
    write(tmp_path, {"train.py": TRAINS_HEAD.replace("src.blocks", "src.resnet").format(cls="resnet18").replace(
        "(16)", "()")})
    assert run(tmp_path)[("src/resnet.py", 6, "MSA107")].severity.value == "error"


def test_a_package_attribute_named_like_its_module_is_the_class(tmp_path):
    # ``from model import DFCNN``: model/__init__.py binds DFCNN to the class of model/DFCNN.py,
    # which wins over the module of that name; the module's own demo block is not the only run
    dfcnn = BLOCKS.replace("class Gate(", "class DFCNN(").replace("net = Gate(8)", "net = DFCNN(8)")
    write(tmp_path, {"model/__init__.py": "from .DFCNN import DFCNN\n", "model/DFCNN.py": dfcnn,
                     "train.py": TRAINS_HEAD.replace("src.blocks", "model").format(cls="DFCNN")})
    found = run(tmp_path)[("model/DFCNN.py", 18, "MSA101")]
    assert found.severity.value == "error" and found.trail[0].path == "train.py"


def test_an_isinstance_test_builds_nothing(tmp_path):
    # ResNet asks whether its body is a Bottleneck: that names the class but never builds it
    tested = RESNET.replace("            self.body = block(c)\n",
                            "            self.body = block(c)\n            self.deep = isinstance(self.body, Bottleneck)\n")
    write(tmp_path, {"src/__init__.py": "", "src/resnet.py": tested, "train.py": TRAIN})
    found = run(tmp_path)
    assert found[("src/resnet.py", BASIC_BN, "MSA107")].severity.value == "error"
    assert found[("src/resnet.py", BOTTLENECK_BN, "MSA107")].severity.value == "warning"
    # the look-alike: a list of the block classes may build either
    write(tmp_path, {"src/resnet.py": tested.replace("isinstance(self.body, Bottleneck)", "[BasicBlock, Bottleneck]")})
    assert run(tmp_path)[("src/resnet.py", BOTTLENECK_BN, "MSA107")].severity.value == "error"


def test_a_demo_block_that_cannot_start_makes_what_it_builds_code_that_cannot_run(tmp_path):
    # the only run that builds Gate is a demo script whose import of a missing module raises
    # first: the cannot-run analysis sees that run even though it would train nothing
    demo = "from src.missing import helper\nfrom src.blocks import Gate\n\nif __name__ == '__main__':\n    Gate(8)\n"
    write(tmp_path, {"src/__init__.py": "", "src/blocks.py": BLOCKS.split("    if __name__")[0],
                     "tools/demo.py": demo, "train.py": TRAINS_HEAD.format(cls="Head")})
    gate = run(tmp_path)[("src/blocks.py", 18, "MSA101")]
    assert gate.severity.value == "info" and gate.reach is Reach.CANNOT_RUN
    assert "tools/demo.py:1 raises first" in gate.message
