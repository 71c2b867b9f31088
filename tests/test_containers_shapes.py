"""What a container of layers holds (msacclint/analysis/containers.py) and the spatial sizes
along a network (msacclint/analysis/shapes.py), asked of real parsed files."""

import libcst as cst
import pytest
from helpers import settings

from msacclint.analysis import shapes
from msacclint.analysis.containers import elements, layer_mode
from msacclint.analysis.context import FileContext
from msacclint.analysis.facts import facts
from msacclint.analysis.imports import ImportTable


def _ctx(source, path="net.py"):
    module = cst.parse_module(source)
    return FileContext(path=path, source=source, module=module, imports=ImportTable.from_module(module),
                       settings=settings())


def _code(node):
    return cst.Module([]).code_for_node(node)


# -- containers ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("written,layers", [
    ("nn.SequentialCell([nn.Dense(2, 4), nn.ReLU()])", ["nn.Dense(2, 4)", "nn.ReLU()"]),
    ("nn.SequentialCell(nn.Dense(2, 4), nn.ReLU())", ["nn.Dense(2, 4)", "nn.ReLU()"]),
    ("nn.SequentialCell(nn.Dense(2, 4))", ["nn.Dense(2, 4)"]),
    ("nn.CellList((nn.Dense(2, 4), block))", ["nn.Dense(2, 4)", "block"]),
    ("nn.SequentialCell(OrderedDict([('fc', nn.Dense(2, 4)), ('act', nn.ReLU())]))", ["nn.Dense(2, 4)", "nn.ReLU()"]),
    ("nn.SequentialCell(OrderedDict({'fc': nn.Dense(2, 4)}))", ["nn.Dense(2, 4)"]),
    ("nn.SequentialCell(OrderedDict(fc=nn.Dense(2, 4), act=nn.ReLU()))", ["nn.Dense(2, 4)", "nn.ReLU()"]),
    ("nn.SequentialCell({'fc': nn.Dense(2, 4)})", ["nn.Dense(2, 4)"]),
    ("nn.SequentialCell()", []),
    ("nn.SequentialCell(layers)", None),
    ("nn.SequentialCell(*layers)", None),
    ("nn.SequentialCell([*layers, nn.ReLU()])", None),
    ("nn.SequentialCell([nn.Dense(2, 2) for _ in range(3)])", None),
    ("nn.SequentialCell(OrderedDict(pairs))", None),
    ("nn.Dense(2, 4)", None),
])
def test_the_layers_a_container_is_given(written, layers):
    ctx = _ctx(f"from collections import OrderedDict\nimport mindspore.nn as nn\nnet = {written}\n")
    call = ctx.module.body[-1].body[0].value
    found = elements(call, ctx.resolve)
    assert (None if found is None else [_code(e) for e in found]) == layers


@pytest.mark.parametrize("qualified,written,mode", [
    ("mindspore.nn.Dropout", "nn.Dropout(0.8)", True),           # keep 0.8: drops 0.2
    ("mindspore.nn.Dropout", "nn.Dropout(1.0)", False),          # keeps everything
    ("mindspore.nn.Dropout", "nn.Dropout(p=0.0)", False),
    ("mindspore.nn.Dropout", "nn.Dropout()", True),
    ("mindspore.nn.Dropout", "nn.Dropout(keep_prob=rate)", None),
    ("mindspore.nn.Dropout2d", "nn.Dropout2d(0.0)", False),      # Dropout2d's first parameter is p
    ("mindspore.nn.Dropout2d", "nn.Dropout2d(0.3)", True),
    ("mindspore.mint.nn.Dropout", "mint.nn.Dropout(0.0)", False),
    ("mindspore.nn.BatchNorm2d", "nn.BatchNorm2d(8)", True),
    ("mindspore.nn.LSTM", "nn.LSTM(2, 3)", False),
    ("mindspore.nn.LSTM", "nn.LSTM(2, 3, dropout=0.2)", True),
    ("mindspore.nn.TransformerEncoderLayer", "nn.TransformerEncoderLayer(64, 4)", True),
    ("mindspore.nn.TransformerEncoderLayer", "nn.TransformerEncoderLayer(64, 4, dropout=0.0)", False),
    ("mindspore.nn.Dense", "nn.Dense(2, 1)", False),
])
def test_whether_a_mindspore_layer_depends_on_the_mode(qualified, written, mode):
    assert layer_mode(qualified, cst.parse_expression(written)) is mode


# -- shapes --------------------------------------------------------------------------------------------
def _pools(source):
    ctx = _ctx(source)
    return ctx, [c for c in facts(ctx).in_order if (ctx.callee(c) or "").endswith("Pool2d")]


DATASET = """
import mindspore.dataset as ds
import mindspore.dataset.vision as vision

def create_dataset(path):
    data = ds.ImageFolderDataset(path)
    trans = [vision.Decode(), {ops}, vision.HWC2CHW()]
    return data.map(operations=trans, input_columns="image").batch(32)
"""


@pytest.mark.parametrize("ops,size", [
    ("vision.RandomResizedCrop(224)", (224, 224)),
    ("vision.Resize((100, 120))", (100, 120)),
    ("vision.Resize(256), vision.CenterCrop(224)", (224, 224)),   # the crop sets the size
    ("vision.Resize(256)", None),                                 # the shorter side only: unknown
    ("vision.RandomCropDecodeResize([IMAGE, IMAGE])", (96, 96)),  # a module constant
    ("vision.RandomResizedCrop(224), vision.CenterCrop(256)", None),  # two sizes: unknown
    ("vision.RandomResizedCrop(size)", None),                     # a parameter: unknown
    ("vision.Normalize([0.5], [0.5])", None),                     # nothing sets a size
])
def test_the_input_size_from_the_image_pipeline(ops, size):
    ctx = _ctx("IMAGE = 96\n" + DATASET.format(ops=ops))
    assert shapes.input_size(ctx) == size


def test_a_dummy_input_counts_only_when_it_is_fed_to_a_network_or_exported():
    fed = ("import numpy as np\nimport mindspore as ms\nimport mindspore.nn as nn\n"
           "net = nn.SequentialCell([nn.Conv2d(3, 8, 3)])\nx = ms.Tensor(np.ones((1, 3, 64, 48)), ms.float32)\n"
           "out = net(x)\n")
    assert shapes.input_size(_ctx(fed)) == (64, 48)
    exported = "import mindspore as ms\nfrom mindspore import ops\nms.export(net, ops.zeros((1, 3, 32, 32)), file_name='n')\n"
    assert shapes.input_size(_ctx(exported)) == (32, 32)
    lying = "import numpy as np\nmask = np.zeros((1, 1, 64, 64))\nprint(mask.sum())\n"
    assert shapes.input_size(_ctx(lying)) is None


NET = """
import mindspore.nn as nn
from mindspore import mint
""" + DATASET.format(ops="vision.CenterCrop(32)") + """
class Down(nn.Cell):
    def __init__(self, cin, cout, stride=1):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, 3, stride=stride)
        self.skip = nn.Conv2d(cin, cout, 1, stride=stride)

    def construct(self, x):
        return self.conv(x) + self.skip(x)

class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.a = nn.Conv2d(3, 8, 3, pad_mode="valid")                 # 32 -> 30
        self.b = nn.Conv2d(8, 8, 5, stride=2, pad_mode="pad", padding=2)  # 30 -> 15
        self.c = nn.MaxPool2d(kernel_size=3, stride=2)                # valid: 15 -> 7
        self.d = Down(8, 16, stride=2)                                # same: 7 -> 4
        self.e = mint.nn.MaxPool2d(2)                                 # stride = kernel: 4 -> 2
        self.f = nn.AvgPool2d(2)
        self.g = nn.AvgPool2d(3)

    def construct(self, x):
        x = self.b(self.a(x))
        x = self.c(x)
        x = self.d(x)
        x = self.e(x)
        y = self.g(x)
        return self.f(x), y

net = Net()
"""


def test_sizes_follow_convolutions_pools_and_blocks_of_the_file():
    ctx, pools = _pools(NET)
    by_text = {_code(p): shapes.map_size_at(ctx, p) for p in pools}
    assert by_text == {"nn.MaxPool2d(kernel_size=3, stride=2)": (15, 15), "mint.nn.MaxPool2d(2)": (4, 4),
                       "nn.AvgPool2d(2)": (2, 2), "nn.AvgPool2d(3)": (2, 2)}
    covers = {_code(p): shapes.covers_whole_map(ctx, p) for p in pools}
    assert covers["nn.AvgPool2d(2)"] is True
    assert covers["nn.AvgPool2d(3)"] is False  # larger than the map: not this question's to answer


def test_an_unknown_layer_makes_the_size_unknown_from_there_on():
    source = NET.replace("        x = self.c(x)\n", "        x = self.c(x)\n        x = self.helper(x)\n")
    ctx, pools = _pools(source)
    by_text = {_code(p): shapes.map_size_at(ctx, p) for p in pools}
    assert by_text["nn.MaxPool2d(kernel_size=3, stride=2)"] == (15, 15)  # before the helper
    assert by_text["mint.nn.MaxPool2d(2)"] is None and by_text["nn.AvgPool2d(2)"] is None


def test_a_block_built_twice_with_different_strides_is_followed_through_each_call():
    source = NET.replace("self.d = Down(8, 16, stride=2)", "self.d = nn.SequentialCell([Down(8, 16), Down(16, 16, 2)])")
    ctx, pools = _pools(source)
    assert {_code(p): shapes.map_size_at(ctx, p) for p in pools}["nn.AvgPool2d(2)"] == (2, 2)


def test_without_an_input_size_nothing_is_decided():
    ctx, pools = _pools(NET.replace("vision.CenterCrop(32)", "vision.Normalize([0.5], [0.5])"))
    assert all(shapes.map_size_at(ctx, p) is None and not shapes.covers_whole_map(ctx, p) for p in pools)
