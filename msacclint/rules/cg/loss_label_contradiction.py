"""MSA501 (cg.04): ``SoftmaxCrossEntropyWithLogits`` whose explicit ``sparse=`` contradicts the
labels it is given. It only speaks when the file shows both sides; MSA140 (a table rule) owns
the "argument left to its default" finding, so this rule only looks at explicit values.
"""

from __future__ import annotations

from typing import List, Tuple

import libcst as cst

from msacclint.analysis.cells import self_attr
from msacclint.analysis.facts import facts
from msacclint.analysis.flow import flow
from msacclint.analysis.losses import SOFTMAX_CE, dataset_label_kind, label_kind, loss_options
from msacclint.diagnostics import Severity
from msacclint.rules.base import Invalid, Valid
from msacclint.rules.function_rule import FunctionRule


class LossLabelContradiction(FunctionRule):
    code = "MSA501"
    name = "loss-label-contradiction"
    checklist = "cg.04"
    severity = Severity.WARNING
    group = "suspicious"
    uses_facts = True
    message = "SoftmaxCrossEntropyWithLogits's explicit sparse= contradicts the labels it is fed"
    what = ("Reports `nn.SoftmaxCrossEntropyWithLogits(sparse=False)` fed integer class labels, and "
            "`sparse=True` fed one-hot labels, when the file shows the labels: its dataset pipeline casts the "
            "label column with `TypeCast(int32)` (or one-hot encodes it with `OneHot`), or the loss is called "
            "on `ops.cast(y, ms.int32)` / `y.astype(ms.int32)` / `ops.one_hot(...)`. Only an explicit `sparse=` "
            "is judged: leaving it to the default is MSA140's warning, so the two never report the same call.")
    why = ("sparse=False expects one-hot float labels of the logits' shape, sparse=True class indices. "
           "PyTorch's CrossEntropyLoss takes class indices, so a port that keeps `sparse=False` from an "
           "example and feeds int32 labels fails at graph compile time at best; one-hot labels given to "
           "`sparse=True` are read as indices.")
    example = """
        import mindspore as ms
        from mindspore import nn, ops
        import mindspore.dataset as ds
        import mindspore.dataset.transforms as T
        dataset = ds.MnistDataset('data/train')
        dataset = dataset.map(operations=T.TypeCast(ms.int32), input_columns='label')
        loss = nn.SoftmaxCrossEntropyWithLogits(sparse=False, reduction='mean')  # MSA501
    """
    use_instead = """
        import mindspore as ms
        from mindspore import nn, ops
        import mindspore.dataset as ds
        import mindspore.dataset.transforms as T
        dataset = ds.MnistDataset('data/train')
        dataset = dataset.map(operations=T.TypeCast(ms.int32), input_columns='label')
        loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction='mean')
    """
    fix_safety = "No automatic fix: the labels or the loss may be the part to change."
    versions = "sparse=False default since 1.x; unchanged in 2.10."
    VALID = (
        Valid("""
            import mindspore as ms
            from mindspore import nn, ops
            import mindspore.dataset as ds
            import mindspore.dataset.transforms as T
            dataset = ds.MnistDataset('data/train')
            dataset = dataset.map(operations=T.TypeCast(ms.int32), input_columns='label')
            loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction='mean')
        """, note="idiomatic"),
        Valid("""
            import mindspore as ms
            from mindspore import nn, ops
            import mindspore.dataset as ds
            import mindspore.dataset.transforms as T
            dataset = ds.MnistDataset('data/train')
            dataset = dataset.map(operations=T.OneHot(10), input_columns='label')
            loss = nn.SoftmaxCrossEntropyWithLogits(sparse=False, reduction='mean')
        """, note="one-hot labels with sparse=False"),
        Valid("""
            import mindspore as ms
            from mindspore import nn, ops
            import mindspore.dataset as ds
            import mindspore.dataset.transforms as T
            dataset = ds.MnistDataset('data/train')
            dataset = dataset.map(operations=T.TypeCast(ms.int32), input_columns='label')
            loss = nn.SoftmaxCrossEntropyWithLogits(reduction='mean')
        """, note="sparse left to the default: MSA140's finding"),
        Valid("""
            import mindspore as ms
            from mindspore import nn, ops
            loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=False, reduction='mean')
            def forward(x, y):
                return loss_fn(net(x), y)
        """, note="labels the file does not show"),
        Valid("""
            import torch
            loss_fn = torch.nn.CrossEntropyLoss()
            loss = loss_fn(logits, y.long())
        """, note="PyTorch"),
    )
    INVALID = (
        Invalid("""
            import mindspore as ms
            from mindspore import nn, ops
            loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=False, reduction='mean')
            def forward(x, y):
                y = ops.cast(y, ms.int32)
                return loss_fn(net(x), y)  # MSA501
        """, note="torch's CrossEntropyLoss(logits, y.long()) ported with the one-hot loss"),
        Invalid("""
            import mindspore as ms
            from mindspore import nn, ops
            import mindspore.dataset as ds
            import mindspore.dataset.transforms as T
            dataset = ds.MnistDataset('data/train')
            dataset = dataset.map(operations=T.TypeCast(ms.int32), input_columns='label')
            loss = nn.SoftmaxCrossEntropyWithLogits(sparse=False, reduction='mean')  # MSA501
        """),
        Invalid("""
            import mindspore as ms
            from mindspore import nn, ops
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction='mean')
                def construct(self, x, y):
                    onehot = ops.one_hot(y, 10, 1.0, 0.0)
                    return self.loss(x, onehot)  # MSA501
        """),
    )

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        #: constructions with an explicit literal sparse: (call, sparse, handle kind, handle name)
        self.losses: List[Tuple[cst.Call, bool, str, str]] = []

    def _record(self, value: cst.BaseExpression, kind: str, name: str) -> None:
        options = loss_options(self.ctx, value)
        if options is not None and options.api == SOFTMAX_CE and isinstance(options.sparse, bool):
            self.losses.append((value, options.sparse, kind, name))  # type: ignore[arg-type]

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            attr = self_attr(target.target)
            if attr is not None:
                self._record(node.value, "attr", attr)
            elif isinstance(target.target, cst.Name):
                self._record(node.value, "name", target.target.value)
            else:
                self._record(node.value, "other", "")

    def visit_Call(self, node: cst.Call) -> None:
        for arg in node.args:
            if isinstance(arg.value, cst.Call):
                self._record(arg.value, "other", "")

    def finish(self) -> None:
        dataset = dataset_label_kind(self.ctx)
        scopes = list(facts(self.ctx).functions) + [self.ctx.module]
        for call, sparse, kind, name in self.losses:
            wrong = "int" if sparse is False else "onehot"
            if dataset == wrong:
                self.report(call, self._message(sparse, "the dataset pipeline of this file"))
                continue
            if kind == "other":
                continue
            for scope in scopes:
                for event in flow(self.ctx, scope).calls():
                    use = event.node
                    func = use.func
                    handle = self_attr(func) if kind == "attr" else func.value if isinstance(func, cst.Name) else None
                    if handle != name or len(use.args) < 2:
                        continue
                    if label_kind(self.ctx, scope, use.args[1].value, event.order) == wrong:
                        self.report(use, self._message(sparse, "this call"))

    @staticmethod
    def _message(sparse: bool, where: str) -> str:
        if sparse is False:
            return (f"SoftmaxCrossEntropyWithLogits(sparse=False) expects one-hot labels, but {where} gives "
                    f"it integer class labels; use sparse=True")
        return (f"SoftmaxCrossEntropyWithLogits(sparse=True) expects class indices, but {where} gives it "
                f"one-hot labels; use sparse=False or pass the indices")
