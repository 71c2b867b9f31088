"""Positions of reported nodes only (msacclint/engine/positions.py) against LibCST's
PositionProvider over the whole module, on real files: msacclint's own sources and the
rule examples' sources (every node kind, alone, nested and in groups)."""
import collections
import random
from pathlib import Path

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from msacclint.engine.positions import node_positions

ROOT = Path(__file__).resolve().parents[1]
FILES = sorted((ROOT / "msacclint").rglob("*.py"))[::15] + [
    ROOT / "bench" / "speed" / "make_corpus.py", ROOT / "tests" / "test_positions.py"]


def _check(module, nodes, reference):
    got = node_positions(module, nodes)
    wrong = [(type(n).__name__, got.get(n), reference[n]) for n in nodes if got.get(n) != reference[n]]
    assert not wrong, wrong[:5]


def test_every_node_kind_matches_position_provider():
    rng = random.Random(0)
    kinds = set()
    for path in FILES:
        module = cst.parse_module(path.read_bytes())
        reference = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
        by_kind = collections.defaultdict(list)
        for node in reference:
            by_kind[type(node)].append(node)
        kinds.update(by_kind)
        for nodes in by_kind.values():
            for node in rng.sample(nodes, min(2, len(nodes))):
                _check(module, [node], reference)
        everything = list(reference)
        _check(module, rng.sample(everything, min(30, len(everything))), reference)
        _check(module, everything[-3:] + everything[:3], reference)
    assert len(kinds) > 60  # statements, expressions, whitespace, operators, ...


def test_reported_kinds_in_a_port():
    source = (
        "import mindspore.nn as nn\n"
        "@decorate\n"
        "class Net(nn.Cell):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.drop = nn.Dropout(0.1)  # comment\n"
        "        self.pool = nn.MaxPool2d(\n"
        "            2)\n"
        "    def construct(self, x):\n"
        "        if x:\n"
        "            return self.pool(self.drop(x))\n"
        "        else:\n"
        "            return (x)\n"
    )
    module = cst.parse_module(source)
    reference = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    for node in reference:
        _check(module, [node], reference)


def test_node_not_in_module_is_left_out():
    module = cst.parse_module("x = 1\n")
    stranger = cst.Name("y")
    assert node_positions(module, [stranger]) == {}
    assert node_positions(module, []) == {}
