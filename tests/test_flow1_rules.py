"""The train/eval-mode, data-pipeline and distributed rules (MSA2xx, MSA3xx, MSA6xx) on the
bundled examples and on the analysis questions they are built on."""

from pathlib import Path

import libcst as cst
from helpers import check, settings

from msacclint.analysis.context import FileContext
from msacclint.analysis.datasets import EVAL, TRAIN, datasets
from msacclint.analysis.imports import ImportTable
from msacclint.analysis.training import training

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


# -- a dataset read into Python data and re-wrapped (analysis/dataset_reads.py) ------------

_REWRAP = ("import numpy as np\nimport mindspore.dataset as ds\nfrom tqdm import tqdm\n"
           "def load(path):\n"
           "    raw = ds.Cifar10Dataset(path, usage='train', shuffle=False)\n"
           "    raw = raw.map(operations=ops, input_columns='image')\n"
           "    n = raw.get_dataset_size()\n"
           "    xs, ys = [], []\n"
           "    for item in {iterate}:\n"
           "        xs.append(item['image'].asnumpy())\n"
           "        ys.append(item['label'].asnumpy())\n"
           "{extra}"
           "    train_loader = ds.GeneratorDataset(list(zip(xs, ys)), ['image', 'label'], shuffle=True)\n"
           "    return train_loader.batch(32)\n"
           "model.train(10, load(p))\n")


def _roles(code):
    info = datasets(_ctx(code))
    return [info.role(b) for b in info.builds]


def test_dataset_only_read_into_python_is_not_the_training_dataset():
    for iterate in ("raw.create_dict_iterator()", "tqdm(raw.create_dict_iterator(num_epochs=1))", "raw"):
        assert _roles(_REWRAP.format(iterate=iterate, extra="")) == [None, TRAIN], iterate
    comprehension = _REWRAP.format(
        iterate="[]", extra="    xs = [r['image'].asnumpy() for r in raw.create_dict_iterator()]\n")
    assert _roles(comprehension) == [None, TRAIN]


def test_dataset_read_and_also_used_otherwise_stays_a_training_dataset():
    escapes = ("    keep(raw)\n", "    def later():\n        return raw\n", "    return_value = [raw]\n")
    for extra in escapes:
        assert _roles(_REWRAP.format(iterate="raw.create_dict_iterator()", extra=extra))[0] == TRAIN, extra
    stepping = _REWRAP.replace("xs.append(item['image'].asnumpy())", "train_step(item['image'], item['label'])")
    assert _roles(stepping.format(iterate="raw.create_tuple_iterator()", extra=""))[0] == TRAIN
    alone = ("import mindspore.dataset as ds\ntrain_ds = ds.Cifar10Dataset(p, shuffle=False)\n"
             "xs = [r['image'].asnumpy() for r in train_ds.create_dict_iterator()]\n")
    assert _roles(alone) == [TRAIN]  # no other training dataset: nothing says it is re-wrapped
