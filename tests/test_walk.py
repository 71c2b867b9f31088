"""The read-only walk visits what LibCST's own visit visits, in the same order, and the
engine's traversal hands each participant its nodes (analysis/walk.py)."""

from pathlib import Path

import libcst as cst

from msacclint.analysis.context import FileContext
from msacclint.analysis.imports import ImportTable
from msacclint.analysis.walk import TRIVIA, BaseCollector, Traversal, iter_children, walk
from msacclint.engine.runner import run_rules
from msacclint.settings import Settings

ROOT = Path(__file__).resolve().parents[1]


class _Order(cst.CSTVisitor):
    def __init__(self):
        super().__init__()
        self.seen = []

    def on_visit(self, node):
        self.seen.append(("visit", node))
        return True

    def on_leave(self, original_node):
        self.seen.append(("leave", original_node))


def _sources():
    for path in sorted((ROOT / "msacclint").rglob("*.py"))[:40]:
        yield path.read_text(encoding="utf-8")
    yield "x = [a if b else c for a, b in y if a] + {k: v for k, v in z}\n@dec(1)\nasync def f(*, a: int = 1, **kw) -> None:\n    async with m as n:\n        await g(f'{a!r:>{w}}')\n"


def test_child_order_matches_libcst_visit_on_every_node():
    for source in _sources():
        module = cst.parse_module(source)
        expected = _Order()
        module.visit(expected)
        got = []
        stack = [(module, False)]
        while stack:
            node, leaving = stack.pop()
            got.append(("leave" if leaving else "visit", node))
            if not leaving:
                stack.append((node, True))
                stack.extend((c, False) for c in reversed(list(iter_children(node, trivia=True))))
        assert len(got) == len(expected.seen)
        assert all(a[0] == b[0] and a[1] is b[1] for a, b in zip(got, expected.seen))


def test_walk_skips_trivia_and_honours_a_false_visit():
    module = cst.parse_module("def f(a, b):  # c\n    return g(a)\nh(b)\n")

    class Calls(cst.CSTVisitor):
        def __init__(self):
            super().__init__()
            self.calls, self.left = [], []

        def visit_FunctionDef(self, node):
            return False

        def leave_FunctionDef(self, original_node):
            self.left.append(original_node.name.value)

        def visit_Call(self, node):
            self.calls.append(node.func.value)

    found = Calls()
    walk(module, found)
    assert found.calls == ["h"]  # g(a) is inside the skipped function
    assert found.left == ["f"]  # leave_ follows a False visit_, as in LibCST
    trivia = [n for n in _all(module) if isinstance(n, TRIVIA)]
    assert trivia == []


def _all(node):
    out = [node]
    for child in iter_children(node):
        out.extend(_all(child))
    return out


class _Names(BaseCollector):
    def __init__(self, ctx):
        self.names, self.finished = [], False

    def visit_Name(self, node):
        self.names.append(node.value)

    def done(self):
        self.finished = True


def test_a_collector_joins_the_rules_traversal():
    source = "import mindspore.nn as nn\nlayer = nn.Dropout(0.1)\n"
    module = cst.parse_module(source)
    ctx = FileContext(path="t.py", source=source, module=module, imports=ImportTable.from_module(module),
                      settings=Settings(enabled=frozenset({"MSA101"})))
    from msacclint.engine.registry import rules_by_code

    found = run_rules(ctx, [rules_by_code()["MSA101"]], collectors={"names": _Names})
    assert [d.code for d in found] == ["MSA101"]
    collector = ctx.collected["names"]
    assert collector.finished and collector.names == ["mindspore", "nn", "nn", "layer", "nn", "Dropout"]


def test_traversal_calls_participants_in_order():
    module = cst.parse_module("a(b(c))\n")
    log = []
    traversal = Traversal()
    traversal.add({"visit_Call": lambda n: log.append(("v1", n.func.value)),
                   "leave_Call": lambda n: log.append(("l1", n.func.value))})
    traversal.add({"visit_Call": lambda n: log.append(("v2", n.func.value))})
    traversal.run(module)
    assert log == [("v1", "a"), ("v2", "a"), ("v1", "b"), ("v2", "b"), ("l1", "b"), ("l1", "a")]


def test_the_recursion_limit_is_raised_by_a_check_not_by_import():
    import subprocess
    import sys

    code = ("import sys; sys.setrecursionlimit(1000); import msacclint.engine.runner as r; a = sys.getrecursionlimit();"
            "from msacclint.settings import Settings;"
            "r.check_source('import mindspore\\nx = 1\\n', 't.py', Settings(enabled=frozenset({'MSA101'})));"
            "print(a, sys.getrecursionlimit())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["1000", "3000"]


def test_child_fields_from_compiled_constants_match_the_source():
    """``child_fields`` reads the visiting order from the compiled constants of LibCST's
    ``_visit_and_replace_children``; it must be the order its source text gives, for every
    node class (a LibCST upgrade that broke this would change the walk's order)."""
    import libcst as cst

    from msacclint.analysis.walk import _all_subclasses, _fields_from_code, _fields_from_source

    compared = 0
    for cls in _all_subclasses(cst.CSTNode):
        from_code = _fields_from_code(cls)
        if from_code:
            assert from_code == _fields_from_source(cls), cls.__name__
            compared += 1
    assert compared > 150
