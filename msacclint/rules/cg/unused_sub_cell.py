"""MSA503 (cg.03): a sub-cell built in ``__init__`` that nothing in the file ever uses (its
weights are created, saved and optimised but never contribute)."""

from __future__ import annotations

import difflib
from typing import Optional

import libcst as cst

from msacclint.analysis import words
from msacclint.analysis.cells import DYNAMIC_CHILDREN, CellInfo, cells
from msacclint.analysis.names import last_name
from msacclint.analysis.source import code_of as _code
from msacclint.analysis.walk import walk
from msacclint.diagnostics import Severity
from msacclint.rules.base import Invalid, Rule, Valid
from msacclint.rules.cg.layer_parameters import PARAMETERISED, owns_parameters
from msacclint.rules.examples import fill
from msacclint.rules.fixtures.cg import one_cell
from msacclint.rules.fixtures.nets import cell, module

CELL = "mindspore.nn.Cell"
#: ways a class reaches its children without naming them
_DYNAMIC = DYNAMIC_CHILDREN


def _is_layer_call(ctx, info: CellInfo, callee: Optional[str], value: cst.BaseExpression) -> bool:
    if callee is not None and callee.startswith("mindspore.nn."):
        return bool(PARAMETERISED.match(callee.rsplit(".", 1)[-1]))
    if isinstance(value, cst.Call) and isinstance(value.func, cst.Name):
        other = cells(ctx).classes.get(value.func.value)
        return (other is not None and other is not info and CELL in other.bases
                and any(owns_parameters(ctx, other, name) for name in other.attrs))
    return False


class UnusedSubCell(Rule):
    code = "MSA503"
    name = "unused-sub-cell"
    checklist = "cg.03"
    severity = Severity.WARNING
    group = "suspicious"
    message = "a sub-cell is built in __init__ and never used"
    what = ("Reports `self.x = nn.Layer(...)` (a MindSpore layer that owns parameters — Dense, Conv, norms, "
            "Embedding, RNNs, attention — or a Cell class of the file) in the "
            "`__init__` of an `nn.Cell` subclass that defines `construct`, when the name `x` appears nowhere "
            "else in the file: not in `construct` nor the methods it calls, not in another method, not in a "
            "string, not through another object. Classes that reach their children dynamically (`getattr`, "
            "`cells()`, `name_cells`, `insert_child_to_cell`, ...) and classes that other classes of the file "
            "extend are skipped.")
    why = ("A layer that is built but never called still owns parameters: they are initialised, saved in "
           "checkpoints, counted and passed to the optimizer (weight decay included), but the network output "
           "never depends on them. Usually a block was meant to be in the forward pass (a forgotten "
           "`self.bn`, a projection that a port skipped), and the model silently trains without it.")
    example = """
        import mindspore.nn as nn

        class Block(nn.Cell):
            def __init__(self):
                super().__init__()
                self.conv = nn.Conv2d(3, 16, 3)
                self.bn = nn.BatchNorm2d(16)  # MSA503
                self.relu = nn.ReLU()

            def construct(self, x):
                return self.relu(self.conv(x))
    """
    use_instead = """
        import mindspore.nn as nn

        class Block(nn.Cell):
            def __init__(self):
                super().__init__()
                self.conv = nn.Conv2d(3, 16, 3)
                self.bn = nn.BatchNorm2d(16)
                self.relu = nn.ReLU()

            def construct(self, x):
                return self.relu(self.bn(self.conv(x)))
    """
    fix_safety = "No automatic fix: either call the layer or delete it."
    versions = "All versions."
    VALID = (
        Valid(one_cell("Critic", init="""
            self.crit_l1 = nn.Dense(8, 8)
            self.crit_l2 = nn.Dense(8, 1)
        """, construct="return self.critic_l2(self.critic_l1(x))"), note="construct reads self.critic_l1/critic_l2, never set: AttributeError on the first forward, loud"),
        Valid(one_cell("Block", init="""
            self.conv = nn.Conv2d(3, 16, 3)
            self.bn = nn.BatchNorm2d(16)
            self.relu = nn.ReLU()
        """, construct="return self.relu(self.bn(self.conv(x)))"), note="idiomatic"),
        Valid(module("import mindspore.nn as nn", cell("Net", init="""
            self.features = nn.Dense(4, 4)
            self.head = nn.Dense(4, 2)
        """, methods="""
            def forward_head(self, x):
                return self.head(x)
        """, construct="return self.forward_head(self.features(x))")), note="used in a method construct calls"),
        Valid(fill("""
            {net}

            net = Net()
            aux = net.aux_head(net.body(x))
        """, net=one_cell("Net", init="""
            self.body = nn.Dense(4, 4)
            self.aux_head = nn.Dense(4, 2)
        """, construct="return self.body(x)")), note="used from outside the class"),
        Valid(one_cell("Net", init="""
            self.layer1 = nn.Dense(4, 4)
            self.layer2 = nn.Dense(4, 4)
        """, construct="""
            for name in ('layer1', 'layer2'):
                x = getattr(self, name)(x)
            return x
        """), note="reached with getattr"),
        Valid("""
            import torch.nn as nn

            class Block(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.bn = nn.BatchNorm2d(16)

                def forward(self, x):
                    return x
        """, note="PyTorch"),
        Valid(fill("""
            {base}

            class Child(Base):
                def construct(self, x):
                    return x
        """, base=one_cell("Base", init="self.norm = nn.LayerNorm((4,))", construct="return x")), note="a base class of the file"),
        Valid(one_cell("Net", init="self.loss = nn.CrossEntropyLoss()", construct="return x"), note="a loss kept for the training script"),
        Valid(one_cell("Attention", init="""
            self.proj = nn.Dense(8, 8)
            self.softmax = nn.Softmax(axis=-1)
        """, construct="return nn.Softmax(axis=-1)(self.proj(x))"), note="an unused layer without parameters is dead code, not a training problem"),
        Valid(fill("""
            import mindspore.nn as nn
            from mindspore import ops

            {mod}

            {search}
        """, mod=cell("Mod", init="self.floor_div = ops.FloorDiv()", construct="return a - b * self.floor_div(a, b)",
                      args="a, b"),
           search=cell("BeamSearch", init="self.mod = Mod()", construct="return x")), note="a Cell of the file that wraps ops primitives owns no parameters"),
    )
    INVALID = (
        Invalid(one_cell("Block", init="""
            self.conv = nn.Conv2d(3, 16, 3)
            self.bn = nn.BatchNorm2d(16)  # MSA503
            self.relu = nn.ReLU()
        """, construct="return self.relu(self.conv(x))")),
        Invalid(one_cell("Block", init="""
            self.conv1 = nn.Conv2d(16, 16, 3)
            self.bn1 = nn.BatchNorm2d(16)
            self.conv2 = nn.Conv2d(16, 16, 3)
            self.bn2 = nn.BatchNorm2d(16)  # MSA503
        """, construct="""
            x = self.bn1(self.conv1(x))
            return self.bn1(self.conv2(x))
        """), note="a torch block ported by copy-paste: bn1 reused, bn2 never called"),
        Invalid(fill("""
            {head}

            {net}
        """, head=one_cell("Head", init="self.fc = nn.Dense(8, 2)", construct="return self.fc(x)"), net=cell("Net", init="""
            self.head = Head()
            self.aux = Head()  # MSA503
        """, construct="return self.head(x)")), note="a Cell of the file that owns parameters, built and never called"),
        Invalid(one_cell("Critic", init="""
            self.crit_l1 = nn.Dense(8, 8)
            self.crit_l2 = nn.Dense(8, 1)  # MSA503
        """, construct="return self.crit_l1(x)"), note="nothing in the class reads a misspelling of crit_l2: an unused layer"),
    )

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        info = cells(self.ctx).by_node.get(node)
        if info is None or info.construct is None or not info.bases or any(b != CELL for b in info.bases):
            return
        if any(node.name.value == last_name(b.value) for c in cells(self.ctx).classes.values()
               for b in c.node.bases):
            return
        if _trivial(info.construct):
            return
        missing = _read_but_never_set(info)
        # the class's text is part of the file's, so an attribute named more often in the
        # file than it is assigned in the whole file is used: only the others need the
        # class's own text (rebuilt by code generation, which costs)
        candidates = []
        for name, attr in info.attrs.items():
            if not _is_layer_call(self.ctx, info, attr.callee, attr.value):
                continue
            if difflib.get_close_matches(name, missing, n=1, cutoff=0.75):
                continue  # construct reads a misspelling of it: AttributeError on the first forward, loud
            mentions = words.mentions(self.ctx, name)
            if mentions <= words.self_assignments(self.ctx, name):
                candidates.append((name, attr, mentions))
        if not candidates:
            return
        class_text = _code(node)
        if _DYNAMIC.search(class_text):
            return
        for name, attr, mentions in candidates:
            assignments = words.count_self_assignments(class_text, name)
            if mentions <= assignments:
                self.report(attr.assign, f"self.{name} ({_code(attr.value.func) if isinstance(attr.value, cst.Call) else 'a Cell'}) "
                            f"is built in __init__ but never used: its parameters are trained and saved without "
                            f"ever affecting the output; call it in construct or remove it")




def _read_but_never_set(info) -> list:
    """``self.<name>`` read in the class's methods that no method assigns and that is no
    method: on a class whose only base is ``nn.Cell``, reading it raises AttributeError."""
    read, assigned = set(), set(info.attrs)

    class Reads(cst.CSTVisitor):
        def visit_Assign(self, node: cst.Assign) -> None:
            for target in node.targets:
                t = target.target
                if isinstance(t, cst.Attribute) and isinstance(t.value, cst.Name) and t.value.value == "self":
                    assigned.add(t.attr.value)

        def visit_Attribute(self, node: cst.Attribute) -> None:
            if isinstance(node.value, cst.Name) and node.value.value == "self":
                read.add(node.attr.value)

    for fn in info.methods.values():
        walk(fn, Reads())
    return sorted(r for r in read - assigned if r not in info.methods and not r.startswith("_")
                  and not hasattr(object, r) and r not in _CELL_MEMBERS)


#: members every Cell has (read without being assigned in the class)
_CELL_MEMBERS = frozenset({"training", "phase", "cls_name", "parameters_dict", "trainable_params", "cells",
                           "set_train", "construct", "to_float", "set_grad", "get_parameters", "name_cells",
                           "cells_and_names", "insert_child_to_cell", "add_flags", "recompute", "shard"})


def _trivial(func: cst.FunctionDef) -> bool:
    body = func.body.body if isinstance(func.body, cst.IndentedBlock) else ()
    for stmt in body:
        if isinstance(stmt, cst.SimpleStatementLine) and all(
                isinstance(s, (cst.Pass, cst.Raise)) or (isinstance(s, cst.Expr) and isinstance(s.value, (cst.SimpleString, cst.Ellipsis)))
                for s in stmt.body):
            continue
        return False
    return True
