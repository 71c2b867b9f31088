"""The train/eval-mode, data-pipeline and distributed rules (MSA2xx, MSA3xx, MSA6xx) on the
bundled examples and on the analysis questions they are built on."""

from pathlib import Path

import libcst as cst

from msacclint.analysis.datasets import EVAL, TRAIN, datasets
from msacclint.analysis.imports import ImportTable
from msacclint.analysis.training import training
from msacclint.engine.context import FileContext

from helpers import check, settings

ROOT = Path(__file__).resolve().parents[1]


def _ctx(code, path="train.py"):
    module = cst.parse_module(code)
    return FileContext(path=path, source=code, module=module, imports=ImportTable.from_module(module),
                       settings=settings())


def _codes(path):
    return {(d.code, d.line) for d in check((ROOT / path).read_text(), path=path)}


def test_examples_show_the_flow_rules():
    plain = _codes("examples/train.py")
    assert ("MSA201", 50) in plain and ("MSA301", 35) in plain
    custom = {code for code, _ in _codes("examples/train_custom_loop.py")}
    assert {"MSA202", "MSA303", "MSA305", "MSA307", "MSA601"} <= custom


def test_network_of_a_functional_step_is_found_through_the_optimizer():
    code = ("import mindspore as ms\nfrom mindspore import nn\nnet = Net()\nopt = nn.SGD(net.trainable_params())\n"
            "def forward(x):\n    return net(x)\ngrad_fn = ms.value_and_grad(forward, None, opt.parameters)\n")
    steps = training(_ctx(code)).steps
    assert [s.network.name for s in steps] == ["net"]


def test_network_given_as_parameter_is_not_identified():
    code = ("import mindspore as ms\ndef fit(net, opt):\n"
            "    grad_fn = ms.value_and_grad(lambda x: net(x), None, opt.parameters)\n")
    assert [s.network for s in training(_ctx(code)).steps] == [None]


def test_dataset_role_from_branches_names_and_callers():
    code = ("import mindspore.dataset as ds\n"
            "def create_dataset(path, do_train):\n"
            "    if do_train:\n        a = ds.Cifar10Dataset(path, shuffle=True)\n"
            "    else:\n        b = ds.Cifar10Dataset(path, shuffle=False)\n"
            "val_ds = ds.MnistDataset(p, shuffle=False)\n"
            "def loader(p):\n    return ds.MnistDataset(p)\n"
            "model.train(1, loader(p))\n")
    info = datasets(_ctx(code, path="run.py"))
    roles = {b.name or "returned": info.role(b) for b in info.builds}
    assert roles == {"a": TRAIN, "b": EVAL, "val_ds": EVAL, "returned": TRAIN}


def test_torch_and_keras_look_alikes_are_silent():
    code = ("import mindspore\nimport torch\nfrom torch.utils.data import DataLoader\n"
            "train_loader = DataLoader(train_set, shuffle=False)\nnet.train()\n"
            "for x, y in train_loader:\n    loss = net(x).sum()\n    loss.backward()\n")
    assert [d for d in check(code) if d.code[:4] in ("MSA2", "MSA3", "MSA6")] == []
