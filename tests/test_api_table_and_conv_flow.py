"""Edge cases of the table machinery (per-API signatures, value_arg, unless_attribute,
fixes that add only what is missing) and of the conv-output flow behind MSA108."""

import libcst as cst
from helpers import check, fixed

from msacclint.analysis.cells import CellMap
from msacclint.analysis.imports import ImportTable
from msacclint.engine import registry


def codes(text, selected):
    return [(d.code, d.line) for d in check(text, selected)]


def cell_map(text):
    module = cst.parse_module(text)
    return CellMap(module, ImportTable.from_module(module))


# -- cells.py: which outputs escape -------------------------------------------------

def test_escapes_records_outputs_the_map_cannot_follow():
    info = cell_map(
        "class B:\n    def construct(self, x, y):\n        a = self.conv(x)\n        b = self.bn(a)\n"
        "        c = self.proj(y) + b\n        d = self.head(x)\n        return self.out(d), a.shape\n"
    ).classes["B"]
    assert info.consumers("conv") == {"bn"}
    assert "conv" not in info.escapes  # a.shape reads metadata only
    assert {"bn", "proj", "out"} <= info.escapes
    assert "head" not in info.escapes  # only ever feeds self.out


def test_escapes_through_a_helper_method_return():
    info = cell_map(
        "class B:\n    def construct(self, x):\n        return self.stem(x)\n"
        "    def stem(self, x):\n        x = self.conv(x)\n        return x\n"
    ).classes["B"]
    assert "conv" in info.escapes


# -- MSA108 ------------------------------------------------------------------------

HEAD = "import mindspore.nn as nn\nclass H(nn.Cell):\n    def __init__(self):\n        super().__init__()\n"


def test_conv_feeding_a_norm_on_one_path_is_silent():
    text = HEAD + ("        self.conv = nn.Conv2d(8, 8, 3)\n        self.bn = nn.BatchNorm2d(8)\n"
                   "        self.act = nn.ReLU()\n    def construct(self, x):\n"
                   "        if self.training:\n            return self.act(self.conv(x))\n"
                   "        return self.bn(self.conv(x))\n")
    assert codes(text, ["MSA108"]) == []


def test_conv_into_sequential_starting_with_norm_is_silent_and_with_activation_reported():
    base = HEAD + "        self.conv = nn.Conv2d(8, 8, 3)\n        self.post = nn.SequentialCell([{}])\n" \
        "    def construct(self, x):\n        return self.post(self.conv(x))\n"
    assert codes(base.format("nn.BatchNorm2d(8), nn.ReLU()"), ["MSA108"]) == []
    assert codes(base.format("nn.ReLU(), nn.BatchNorm2d(8)"), ["MSA108"]) == [("MSA108", 5)]


def test_conv_used_in_arithmetic_or_passed_on_is_silent():
    text = HEAD + ("        self.conv = nn.Conv2d(8, 8, 3)\n        self.act = nn.ReLU()\n"
                   "    def construct(self, x):\n        y = self.conv(x)\n        return self.act(y) + y\n")
    assert codes(text, ["MSA108"]) == []


def test_conv_norm_from_unresolved_class_is_silent():
    text = HEAD + ("        self.conv = nn.Conv2d(8, 8, 3)\n        self.act = MyAct()\n"
                   "    def construct(self, x):\n        return self.act(self.conv(x))\n")
    assert codes(text, ["MSA108"]) == []


def test_transposed_conv_reported_once_by_msa110_not_msa108():
    text = HEAD + ("        self.up = nn.Conv2dTranspose(8, 8, 4, 2)\n        self.act = nn.ReLU()\n"
                   "    def construct(self, x):\n        return self.act(self.up(x))\n")
    assert codes(text, ["MSA108", "MSA110"]) == [("MSA110", 5)]


def test_celllist_elements_are_not_a_sequence():
    text = HEAD + "        self.branches = nn.CellList([nn.Conv2d(8, 8, 3), nn.ReLU()])\n"
    assert codes(text, ["MSA108"]) == []


def test_sequential_conv_reported_once():
    text = HEAD + ("        self.seq = nn.SequentialCell([nn.Conv2d(8, 8, 3), nn.ReLU()])\n")
    assert codes(text, ["MSA108"]) == [("MSA108", 5)]


# -- table machinery ---------------------------------------------------------------

def test_per_api_signature_positions():
    # Dense's third positional parameter is weight_init, Conv2d's is kernel_size
    assert codes("import mindspore.nn as nn\nfc = nn.Dense(4, 4, 'he_uniform')\n", ["MSA120"]) == []
    old = [d.line for d in check("import mindspore.nn as nn\nfc = nn.Dense(4, 4, 'he_uniform')\n",
                                 ["MSA120"], mindspore_version="2.0.0")]
    assert old == []
    assert [d.line for d in check("import mindspore.nn as nn\nc = nn.Conv2d(4, 4, 3)\n", ["MSA120"],
                                  mindspore_version="2.0.0")] == [2]


def test_value_arg_compares_two_arguments():
    assert codes("import mindspore.nn as nn\nc = nn.Conv2d(3, 8, 4, 4)\n", ["MSA109"]) == []
    assert codes("import mindspore.nn as nn\nc = nn.Conv2d(3, 8, (2, 2), stride=2)\n", ["MSA109"]) == []
    assert codes("import mindspore.nn as nn\nc = nn.Conv2d(3, 8, 3, stride=2)\n", ["MSA109"]) == [("MSA109", 2)]
    assert codes("import mindspore.nn as nn\nc = nn.Conv2d(3, 8, 3, stride=s)\n", ["MSA109"]) == []


def test_unless_attribute_silences_the_whole_file():
    text = "import mindspore.nn as nn\nemb = nn.Embedding(10, 4)\n"
    assert codes(text, ["MSA116"]) == [("MSA116", 2)]
    assert codes(text + "emb.embedding_table.set_data(table)\n", ["MSA116"]) == []


def test_keep_edit_adds_only_missing_defaults():
    text = "import mindspore.nn as nn\nopt = nn.RMSProp(params, 0.01, epsilon=1e-8)\n"
    assert fixed(text, ["MSA128"]) == text  # writing out the defaults is not a fix
    assert fixed(text, ["MSA128"], explicit=True) == ("import mindspore.nn as nn\n"
                                                      "opt = nn.RMSProp(params, 0.01, epsilon=1e-8, decay=0.9)\n")


def test_mint_and_torch_never_match():
    text = ("import torch\nfrom mindspore import mint\n"
            "a = mint.nn.Conv2d(3, 8, 3)\nb = torch.nn.Embedding(10, 4)\nc = mint.std(x)\n"
            "d = torch.optim.SGD(p)\ne = mint.nn.Softmax()\nf = torch.nn.InstanceNorm2d(4)\n")
    every_api_rule = [c for c in registry.all_codes() if c.startswith("MSA1")]
    assert len(every_api_rule) > 30
    assert codes(text, every_api_rule) == []
    assert codes(text.replace("mint.nn.Conv2d", "ms.nn.Conv2d") + "import mindspore as ms\n",
                 every_api_rule) == [("MSA109", 3)]


def test_outer_call_of_an_instantiated_primitive_is_not_the_primitive():
    text = ("from mindspore import ops\nimport mindspore.nn as nn\n"
            "y = ops.ResizeBilinear(size, align_corners=ac)(x)\nz = ops.L2Normalize(axis=1)(x)\n"
            "w = nn.Dropout(p=0.1)(x)\nv = ops.ResizeBilinearV2()(x, size)\n")
    every_api_rule = [c for c in registry.all_codes() if c.startswith("MSA1")]
    assert codes(text, every_api_rule) == [("MSA124", 6)]


# -- parameter groups (rules/api_defaults.toml [parameter_groups]) ---------------------

def test_group_key_counts_as_given_for_every_optimizer_rule():
    text = ("import mindspore.nn as nn\n"
            "def build(net, lr):\n"
            "    groups = [{'params': a, 'weight_decay': 0.01}, dict(params=b, lr=0.1)]\n"
            "    adam = nn.AdamWeightDecay(groups, lr, eps=1e-8)\n"
            "    sgd = nn.SGD(groups, momentum=0.9)\n"
            "    return adam, sgd\n")
    assert codes(text, ["MSA127", "MSA130"]) == []


def test_group_list_without_the_key_or_not_literal_is_not_read():
    text = ("import mindspore.nn as nn\n"
            "only_params = [{'params': a}, {'params': b, 'order_params': c}]\n"
            "opt1 = nn.AdamWeightDecay(only_params, lr, eps=1e-8)\n"
            "built = make_groups(net)\n"
            "opt2 = nn.AdamWeightDecay(built, lr, eps=1e-8)\n"
            "def later(lr):\n"
            "    opt3 = nn.AdamWeightDecay(groups, lr, eps=1e-8)\n"
            "    groups = [{'params': a, 'weight_decay': 0.01}]\n")
    assert codes(text, ["MSA127"]) == [("MSA127", 3), ("MSA127", 5), ("MSA127", 7)]


def test_fix_does_not_add_what_a_group_sets():
    text = ("import mindspore.nn as nn\n"
            "opt = nn.AdamWeightDecay([{'params': a, 'weight_decay': 0.01}], 1e-4)\n")
    assert fixed(text, ["MSA127"], explicit=True).splitlines()[1] == \
        "opt = nn.AdamWeightDecay([{'params': a, 'weight_decay': 0.01}], 1e-4, eps=1e-6)"


def test_only_rules_whose_signature_names_the_group_argument_read_groups():
    rules = registry.rules_by_code()
    assert rules["MSA127"].groups is not None and rules["MSA127"].groups.argument == "params"
    assert rules["MSA109"].groups is None
