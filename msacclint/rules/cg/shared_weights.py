"""cg.01: one Cell instance used where several layers were meant.

- MSA508 (cg.01): ``nn.SequentialCell([Block(...)] * n)``, ``nn.CellList([blk] * n)``,
  ``[blk for _ in range(n)]``, or the same instance appended to a list of cells in a loop
  or twice: every "layer" is the same Cell, with one set of weights.
"""

from __future__ import annotations

import re
from typing import Optional, Set

import libcst as cst

from msacclint.analysis.facts import facts
from msacclint.analysis.scopes import names_in, scopes
from msacclint.analysis.source import code_of as _code
from msacclint.diagnostics import Severity
from msacclint.rules.base import Invalid, Rule, Valid

CONTAINERS = frozenset({"mindspore.nn.SequentialCell", "mindspore.nn.CellList", "mindspore.nn.CellDict",
                        "mindspore.mint.nn.Sequential", "mindspore.mint.nn.ModuleList"})
#: MindSpore layers without parameters: sharing one instance of them changes nothing
_STATELESS = re.compile(r"(ReLU\d?|GELU|SiLU|Sigmoid|Tanh|HSwish|HSigmoid|Softmax|LogSoftmax|Dropout\d?D?|Flatten|"
                        r"Identity|(Adaptive)?(Max|Avg)Pool\dD?|LeakyReLU|ELU|Mish|Softplus|Hardtanh|PReLU_?|"
                        r"ZeroPad2d|Pad|Upsample|ResizeBilinear|Unfold)$")
_MEANT = re.compile(r"shar|tied|\btie\b|_tie|same|reuse|common", re.IGNORECASE)


def _statement_comments(stmt: cst.CSTNode) -> str:
    out = []
    if isinstance(stmt, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
        out.extend(line.comment.value for line in stmt.leading_lines if line.comment is not None)
    if isinstance(stmt, cst.SimpleStatementLine) and stmt.trailing_whitespace.comment is not None:
        out.append(stmt.trailing_whitespace.comment.value)
    return " ".join(out)


class SharedCellInstance(Rule):
    code = "MSA508"
    name = "cell-instance-shared"
    checklist = "cg.01"
    severity = Severity.WARNING
    group = "suspicious"
    uses_facts = True
    message = "the same Cell instance is used for several layers: they share one set of weights"
    what = ("Reports a list of cells given to `nn.SequentialCell`/`nn.CellList` (directly or through a local name) "
            "that repeats one instance: `[Block(...)] * n`, `[blk] * n`, `[blk for _ in range(n)]`, a "
            "`layers.append(blk)` in a loop whose body does not build `blk` anew, or the same instance appended "
            "twice. Layers without parameters (activations, pooling, dropout, Flatten, Identity) are not "
            "reported, nor a repetition whose names or comments say the sharing is meant (share, tied, same, "
            "reuse)."
            " Field check (docs/evaluation/field.md, issue 14 rules): no finding on the four tuning repositories of bench/field/protocol.toml (6,045 files), so its precision is not measured yet.")
    why = ("`[Block()] * 4` is a list holding ONE Block four times: the network has a quarter of the intended "
           "parameters and every 'layer' applies the same weights. The model still trains and converges to a "
           "plausible but lower accuracy. The PyTorch idiom has the same trap (`nn.Sequential(*[Block()] * 4)`), "
           "and ports written from a description of the layer count fall into it (checklist cg.01).")
    example = """
    from mindspore import nn
    blocks = nn.SequentialCell([Block(256)] * 4)  # MSA508
    """
    use_instead = """
    from mindspore import nn
    blocks = nn.SequentialCell([Block(256) for _ in range(4)])
    """
    fix_safety = "No automatic fix: the list comprehension form builds separate weights, which changes the checkpoint layout."
    versions = "All MindSpore releases."
    VALID = (
        Valid(use_instead, note="idiomatic: one instance per layer"),
        Valid("""
            from mindspore import nn
            layers = nn.CellList()
            for i in range(4):
                blk = Block(256)
                layers.append(blk)
            """, note="a new instance built in every iteration"),
        Valid("""
            from mindspore import nn
            acts = nn.SequentialCell([nn.ReLU()] * 3)
            """, note="a layer without parameters"),
        Valid("""
            from mindspore import nn
            shared_block = Block(256)
            blocks = nn.CellList([shared_block] * 4)  # weights tied across the steps on purpose
            """, note="the sharing is meant and says so"),
        Valid("""
            import torch.nn as nn
            blocks = nn.Sequential(*[Block(256)] * 4)
            """, note="PyTorch: not MindSpore (the same trap, but not this linter's file)"),
        Valid("""
            from mindspore import nn
            dims = [64] * 4
            blocks = nn.SequentialCell([Block(d) for d in dims])
            """, note="a list of numbers repeated, not of cells"),
    )
    INVALID = (
        Invalid(example, note="n copies of one instance"),
        Invalid("""
            from mindspore import nn
            blk = Block(256)
            layers = [blk] * depth
            self.layers = nn.CellList(layers)  # MSA508
            """, note="through a local name"),
        Invalid("""
            from mindspore import nn
            blk = Block(256)
            layers = nn.CellList()
            for _ in range(4):
                layers.append(blk)  # MSA508
            """, note="the same instance appended in a loop"),
        Invalid("""
            from mindspore import nn
            proj = Projection(256)
            cells = []
            cells.append(proj)
            cells.append(Block(256))
            cells.append(proj)  # MSA508
            net = nn.SequentialCell(cells)
            """, note="the same instance appended twice"),
    )

    def finish(self) -> None:
        f = facts(self.ctx)
        sc = scopes(self.ctx)
        done: Set[int] = set()
        containers = f.called(*CONTAINERS)
        container_lists: Set[str] = set()
        for call in containers:
            fl = sc.owner(call)
            for arg in call.args:
                value = arg.value
                if isinstance(value, cst.Name):
                    container_lists.add(value.value)
                    if fl is not None:
                        found = sc.resolve(fl, value.value, fl.order_of.get(call))
                        if found is not None and found[1].index is None:
                            value = found[1].value
                self._check_list(call, value, sc, done)
        for fl in sc.flows:
            self._check_appends(fl, sc, container_lists, done)

    # -- [x] * n and [x for _ in ...] -----------------------------------------------------
    def _check_list(self, call: cst.Call, value: cst.BaseExpression, sc, done: Set[int]) -> None:
        element: Optional[cst.BaseExpression] = None
        if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, cst.Multiply):
            for side in (value.left, value.right):
                if isinstance(side, cst.List) and len(side.elements) == 1:
                    element = side.elements[0].value
        elif isinstance(value, cst.ListComp) and isinstance(value.elt, cst.Name):
            bound = self._comp_targets(value)
            if value.elt.value not in bound:
                element = value.elt
        if element is None or id(call) in done:
            return
        if not self._is_cell(element, call, sc) or self._meant(call, element, sc):
            return
        done.add(id(call))
        self.report(call, f"{_code(element)} is repeated as one instance: every layer of this "
                    f"{_code(call.func).rsplit('.', 1)[-1]} is the same Cell with the same weights; build one "
                    f"instance per layer ([{_code(element) if isinstance(element, cst.Call) else 'Block(...)'} "
                    "for _ in range(n)])")

    @staticmethod
    def _comp_targets(comp: cst.ListComp) -> Set[str]:
        out: Set[str] = set()
        node = comp.for_in
        while node is not None:
            out |= names_in(node.target)
            node = node.inner_for_in
        return out

    def _is_cell(self, element: cst.BaseExpression, anchor: cst.CSTNode, sc) -> bool:
        """Whether the repeated element is (probably) a Cell with parameters: a constructor
        call of a non-stateless layer, or a name assigned from one."""
        if isinstance(element, cst.Name):
            found = sc.assignment_at(element.value, anchor)
            if found is None:
                return False
            element = found.value
        if not isinstance(element, cst.Call):
            return False
        name = self.ctx.resolve(element.func)
        tail = name.rsplit(".", 1)[-1] if name else (
            element.func.attr.value if isinstance(element.func, cst.Attribute) else
            element.func.value if isinstance(element.func, cst.Name) else "")
        if not tail or not tail[0].isupper():
            return False  # a factory function: what it returns is not known
        if name is not None and not name.startswith("mindspore."):
            return False
        if name is not None and (name.startswith("mindspore.ops.") or _STATELESS.match(tail)):
            return False
        return not _STATELESS.match(tail)

    def _meant(self, anchor: cst.CSTNode, element: cst.BaseExpression, sc) -> bool:
        if _MEANT.search(_code(element).split("(")[0]):
            return True
        fl = sc.owner(anchor)
        if fl is None:
            return False
        parents = sc.parents(fl)
        node: Optional[cst.CSTNode] = anchor
        while node is not None:
            if isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
                if _MEANT.search(_statement_comments(node)):
                    return True
                if isinstance(node, cst.SimpleStatementLine):
                    for small in node.body:
                        if isinstance(small, cst.Assign) and any(_MEANT.search(_code(t.target)) for t in small.targets):
                            return True
            node = parents.get(node)
        if isinstance(element, cst.Name):
            found = sc.resolve(fl, element.value, fl.order_of.get(anchor))
            if found is not None and _MEANT.search(_code(found[1].node)) and "#" in _code(found[1].node):
                return True
        return False

    # -- layers.append(blk) ----------------------------------------------------------------
    def _check_appends(self, fl, sc, container_lists: Set[str], done: Set[int]) -> None:
        seen = {}
        for event in fl.events:
            node = event.node
            if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)
                    and node.func.attr.value == "append" and len(node.args) == 1
                    and isinstance(node.args[0].value, cst.Name)):
                continue
            receiver = node.func.value
            if not isinstance(receiver, cst.Name) or not self._cell_list(receiver.value, fl, sc, node, container_lists):
                continue
            name = node.args[0].value.value
            found = sc.resolve(fl, name, event.order)
            if found is None or found[1].index is not None:
                continue
            definition = found[1]
            if not self._is_cell(node.args[0].value, node, sc) or self._meant(node, node.args[0].value, sc):
                continue
            key = (receiver.value, id(definition.node))
            outside = [loop for loop in event.loops if not sc.within(fl, loop, definition.node)]
            in_loop = bool(outside) and not any(name in names_in(getattr(loop, "target", cst.Name("_")))
                                               for loop in outside)
            if in_loop or key in seen:
                if id(node) not in done:
                    done.add(id(node))
                    why = "in a loop that does not build it anew" if in_loop else "a second time"
                    self.report(node, f"{name} is appended {why}: the list holds one Cell instance several "
                                "times, and those layers share one set of weights; build a new instance for "
                                "each layer")
            seen[key] = node

    def _cell_list(self, name: str, fl, sc, node: cst.CSTNode, container_lists: Set[str]) -> bool:
        if name in container_lists:
            return True
        found = sc.resolve(fl, name, fl.order_of.get(node))
        if found is None or found[1].index is not None:
            return False
        value = found[1].value
        return isinstance(value, cst.Call) and self.ctx.resolve(value.func) in CONTAINERS
