"""MSA205 (api.02, error): the training flag of a Cell that was just built, tested as if it
were PyTorch's.

A MindSpore Cell starts with ``training=False`` (a PyTorch Module starts in training mode), so
``if pretrained and model.training:`` right after ``model = Net(...)``, or ``if
self.training:`` in ``__init__``, never runs its branch: the pretrained checkpoint it loads,
the layers it builds are silently left out.
"""

from __future__ import annotations

from typing import Iterator, List, Optional, Sequence, Tuple

import libcst as cst

from msacclint.analysis.cells import cells, is_cell_class
from msacclint.analysis.walk import descendants, iter_children
from msacclint.diagnostics import Severity
from msacclint.rules.base import Invalid, Rule, Valid
from msacclint.rules.fixtures.nets import cell, module


def _training_reads(test: cst.BaseExpression, name: str) -> List[cst.Attribute]:
    return [n for n in descendants(test) if isinstance(n, cst.Attribute) and n.attr.value == "training"
            and isinstance(n.value, cst.Name) and n.value.value == name]


def _other_uses(statements: Sequence[cst.CSTNode], name: str) -> bool:
    """Whether ``name`` is used in ``statements`` otherwise than by reading ``.training``."""
    reads = set()
    for statement in statements:
        for node in descendants(statement):
            if isinstance(node, cst.Attribute) and node.attr.value == "training" and isinstance(node.value, cst.Name):
                reads.add(id(node.value))
    return any(isinstance(node, cst.Name) and node.value == name and id(node) not in reads
               for statement in statements for node in descendants(statement))


class TrainingFlagOfNewCell(Rule):
    code = "MSA205"
    name = "training-flag-of-new-cell"
    checklist = "api.02"
    severity = Severity.ERROR
    group = "correctness"
    evidence = ("Resolved from the code between the construction and the test: the name is assigned a Cell built "
                "by a class that derives from mindspore.nn.Cell (in the file or resolved by its import), and nothing "
                "between the two statements of the same block touches it; in `__init__`, the test follows "
                "`super().__init__()` with no call of a method of `self` in between. A new Cell's `training` is "
                "False (checked on 2.10).")
    message = "the training flag of a Cell just built is False: this branch never runs"
    what = ("Reports `if ...<cell>.training...:` when `<cell>` was assigned a newly built Cell earlier in the same "
            "block and nothing in between uses it, and `if ...self.training...:` in a Cell's `__init__` after "
            "`super().__init__()` with no call of a `self` method in between. Reported at the test; the branch "
            "(or, for `not x.training`, the else part) is dead. Written from a history case (ICNet's backbone "
            "checkpoint, never loaded). Field check (the four tuning repositories, mindcv and the model-zoo "
            "corpus, 2026-11-26): 1 finding, true: an EfficientFormer port whose `__init__` keeps `if "
            "self.training: del self.ab`, so evaluation adds the attention biases cached at construction "
            "instead of the trained ones (MindSpore's set_train never calls the port's `train()` override).")
    why = ("A MindSpore Cell starts in inference mode: `training` is False until `set_train()` is called (verified "
           "on 2.10), where a PyTorch Module starts with `training=True`. A port that guards a pretrained load or a "
           "training-only layer with the flag right after building the network skips it without a word: the "
           "backbone then trains from random weights.")
    example = """
        def get_backbone(ckpt, pretrained=True):
            model = ResNet50()
            if pretrained and model.training:  # MSA205
                ms.load_param_into_net(model, ms.load_checkpoint(ckpt))
            return model
    """
    use_instead = """
        def get_backbone(ckpt, pretrained=True):
            model = ResNet50()
            if pretrained:
                ms.load_param_into_net(model, ms.load_checkpoint(ckpt))
            return model
    """
    versions = "A new Cell's training flag is False in every MindSpore release."
    VALID = (
        Valid("""
            import mindspore as ms
            from mindspore import nn
            class ResNet50(nn.Cell):
                pass
            def get_backbone(ckpt, pretrained=True, training=False):
                model = ResNet50()
                model.set_train(training)
                if pretrained and model.training:
                    ms.load_param_into_net(model, ms.load_checkpoint(ckpt))
                return model
        """, note="the mode set first, as the fix did"),
        Valid("""
            import torch
            import torchvision
            def get_backbone(ckpt, pretrained=True):
                model = torchvision.models.resnet50()
                if pretrained and model.training:
                    model.load_state_dict(torch.load(ckpt))
                return model
        """, note="a PyTorch Module starts in training mode"),
        Valid(module("from mindspore import nn", cell("Block", init="self.drop = nn.Dropout(p=0.1)", construct="""
            if self.training:
                x = self.drop(x)
            return x
        """), tight=True), note="self.training read in construct, where the mode has been set"),
        Valid("""
            from mindspore import nn
            class Head(nn.Cell):
                pass
            def build(net_factory):
                model = net_factory()
                if model.training:
                    model.freeze()
                return model
        """, note="a factory's result: not known to be a new Cell"),
    )
    INVALID = (
        Invalid("""
            import mindspore as ms
            from mindspore import nn
            class Resnet50v1b(nn.Cell):
                pass
            def get_resnet50v1b(ckpt_root='', pretrained=True):
                model = Resnet50v1b()

                if pretrained and model.training:  # MSA205
                    param_dict = ms.load_checkpoint(ckpt_root)
                    ms.load_param_into_net(model, param_dict)
                return model
        """, note="the ICNet backbone: the ImageNet checkpoint is never loaded (mindspore-ai/models 4ac42a97)"),
        Invalid("""
            from mindspore import nn
            class Net(nn.Cell):
                def __init__(self, num_classes):
                    super().__init__()
                    self.head = nn.Dense(512, num_classes)
                    if self.training:  # MSA205
                        self.aux = nn.Dense(512, num_classes)
        """, note="self.training in __init__: a layer built for training only is never built"),
        Invalid("""
            import mindspore as ms
            from mindspore import nn
            class Backbone(nn.Cell):
                pass
            class Resnet50v1b(Backbone):
                pass
            def build():
                model = Resnet50v1b()
                if model.training:  # MSA205
                    ms.load_param_into_net(model, ms.load_checkpoint("resnet50.ckpt"))
                return model
        """, note="a Cell through another class of the file"),
    )

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        for block in self._blocks(node):
            self._check_block(block, node)

    @staticmethod
    def _blocks(function: cst.FunctionDef) -> Iterator[Sequence[cst.BaseStatement]]:
        """Every statement list of the function, nested functions and classes left to their own
        visit."""
        todo: List[cst.CSTNode] = [function.body]
        while todo:
            current = todo.pop()
            if isinstance(current, cst.IndentedBlock):
                yield current.body
            for child in iter_children(current):
                if not isinstance(child, (cst.FunctionDef, cst.ClassDef, cst.BaseExpression)):
                    todo.append(child)

    def _check_block(self, statements: Sequence[cst.BaseStatement], function: cst.FunctionDef) -> None:
        for index, statement in enumerate(statements):
            if not isinstance(statement, cst.If):
                continue
            found = self._fresh_cell_read(statements[:index], statement.test, function)
            if found is not None:
                self.report(found[0], found[1])

    def _fresh_cell_read(self, before: Sequence[cst.BaseStatement], test: cst.BaseExpression,
                         function: cst.FunctionDef) -> Optional[Tuple[cst.CSTNode, str]]:
        if function.name.value == "__init__" and self._in_cell_class(function):
            reads = _training_reads(test, "self")
            if reads and self._after_super_init(before):
                return reads[0], ("`self.training` in `__init__` is False (a Cell starts in inference mode; a "
                                  "PyTorch Module in training mode), so this branch never runs; decide it from a "
                                  "parameter, or do it in construct under `self.training`")
        for position in range(len(before) - 1, -1, -1):
            statement = before[position]
            assigned = self._cell_assignment(statement)
            if assigned is None:
                continue
            name, cls = assigned
            if not _training_reads(test, name) or _other_uses(before[position + 1:], name):
                continue
            return _training_reads(test, name)[0], (
                f"`{name}.training` is False right after `{name} = {cls}(...)` (a MindSpore Cell starts in "
                "inference mode; a PyTorch Module in training mode), so this branch never runs: what it does (a "
                "pretrained load?) is skipped; call set_train() first or drop the test")
        return None

    def _cell_assignment(self, statement: cst.BaseStatement) -> Optional[Tuple[str, str]]:
        if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
            return None
        small = statement.body[0]
        if not (isinstance(small, cst.Assign) and len(small.targets) == 1 and
                isinstance(small.targets[0].target, cst.Name) and isinstance(small.value, cst.Call)):
            return None
        func = small.value.func
        callee = self.ctx.callee(small.value)
        shown = cst.Module([]).code_for_node(func)
        if callee is not None and callee.startswith("mindspore.nn.") and callee.rsplit(".", 1)[1][:1].isupper():
            return small.targets[0].target.value, shown
        if isinstance(func, cst.Name) and is_cell_class(self.ctx, func.value):
            return small.targets[0].target.value, shown
        project = self.ctx.project
        if isinstance(func, (cst.Name, cst.Attribute)) and project is not None and callee is None:
            found = project.resolve_from(self.ctx, shown)
            if found is not None and found[0] == "class" and project.is_cell(found[1], found[2]):
                return small.targets[0].target.value, shown
        return None

    def _in_cell_class(self, function: cst.FunctionDef) -> bool:
        for name, info in cells(self.ctx).classes.items():
            if info.methods.get("__init__") is function:
                return is_cell_class(self.ctx, name)
        return False

    @staticmethod
    def _after_super_init(before: Sequence[cst.BaseStatement]) -> bool:
        """``super().__init__()`` is among the statements, and no ``self.<method>(...)`` call
        (which may call set_train) follows it."""
        seen_super = False
        for statement in before:
            for node in descendants(statement):
                if not isinstance(node, cst.Call) or not isinstance(node.func, cst.Attribute):
                    continue
                owner = node.func.value
                if node.func.attr.value == "__init__" and isinstance(owner, cst.Call) and \
                        isinstance(owner.func, cst.Name) and owner.func.value == "super":
                    seen_super = True
                elif seen_super and isinstance(owner, cst.Name) and owner.value == "self":
                    return False
        return seen_super
