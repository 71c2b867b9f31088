"""Positions of reported nodes only (msacclint/analysis/positions.py) against LibCST's
PositionProvider over the whole module, on real files: msacclint's own sources and the
rule examples' sources (every node kind, alone, nested and in groups)."""
import collections
import random
from pathlib import Path

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from msacclint.analysis.positions import node_positions

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


SHAPES = (
    "#!/usr/bin/env python\r\n# header\r\n\r\nimport a\r\n@dec\r\n# c\r\n@dec2(\r\n  1)\r\n"
    "class A(B):\r\n    '''doc\r\n    more'''\r\n    x = 1; y = 2\r\n    def f(self, \\\r\n          z):\r\n"
    "        if z: return 1\r\n        elif z > 2:\r\n            pass\r\n        else:\r\n            # inner\r\n"
    "            return (\r\n                3)\r\n        # footer of f\r\n    # footer of A\r\n# top\r\n"
    "try:\r\n    x = 1\r\nexcept E as e:\r\n    y\r\nelse:\r\n    z\r\nfinally:\r\n    w\r\n"
    "match q:\r\n    case 1:\r\n        a\r\n    case _:\r\n        b\r\n"
    "for i in r:\r\n    pass\r\nelse:\r\n    pass\r\nwhile 1:\r\n    break\r\n"
    "with a as b, c:\r\n    async def g():\r\n        s = f'''\r\n{x}\r\n'''\r\n        await x\r\n# end\r\n"
)


def test_pruned_module_shapes():
    """Headers and footers, CRLF, decorators, continuation lines, every compound statement,
    multi-line strings; each node alone, and groups where one wanted statement holds another
    (the outer one must then be kept whole) or a definition is wanted for its extent only."""
    module = cst.parse_module(SHAPES)
    reference = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    everything = list(reference)
    for node in everything:
        _check(module, [node], reference)
    rng = random.Random(2)
    for _ in range(200):
        _check(module, rng.sample(everything, 4), reference)
    statements = [n for n in everything if isinstance(n, (cst.BaseCompoundStatement, cst.SimpleStatementLine))]
    for outer in statements:
        inner = [n for n in statements if n is not outer]
        _check(module, [outer, rng.choice(inner)], reference)


def test_a_node_rendered_alone_writes_its_span_as_the_file_has_it():
    """analysis/edits.py renders a node outside its module (the old and the new side of a
    fix) with the indentation of its blocks; under the file's own indentation, the span it
    reports must hold exactly the file's text of that node's range."""
    from msacclint.analysis.edits import _line_starts, _render
    from msacclint.analysis.walk import parent_links

    for path in FILES[:4] + [ROOT / "tests" / "test_fixing.py"]:
        source = path.read_text()
        module = cst.parse_module(source)
        reference = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
        kinds = (cst.BaseExpression, cst.BaseSmallStatement, cst.BaseStatement, cst.IndentedBlock)
        nodes = [n for n in reference if isinstance(n, kinds)]
        nodes = random.Random(3).sample(nodes, min(400, len(nodes)))
        parents = parent_links(module, {id(n) for n in nodes})
        starts = _line_starts(source)
        for node in nodes:
            indent, current = [], node
            while id(current) in parents:
                current = parents[id(current)]
                if isinstance(current, cst.IndentedBlock) and current is not node:
                    indent.insert(0, module.default_indent if current.indent is None else current.indent)
            text, start, end = _render(module, node, indent)
            where = reference[node]
            expected = source[starts[where.start.line - 1] + where.start.column:
                              starts[where.end.line - 1] + where.end.column]
            assert text[start:end] == expected, (path.name, type(node).__name__, where)
