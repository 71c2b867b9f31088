"""ops.dropout whose PyTorch habit does the wrong thing in MindSpore.

- MSA121 (MS-DROP-02, warning): ``ops.dropout``/``dropout2d``/``dropout3d`` inside a
  Cell's ``construct`` without ``training=``: the default training=True drops even when
  the Cell is in evaluation mode.
"""

from __future__ import annotations

from typing import List

import libcst as cst

from msacclint.analysis.calls import argument, has_star_args, has_star_kwargs
from msacclint.diagnostics import Applicability
from msacclint.rules.base import FixSpec, Invalid, Rule, Valid
from msacclint.rules.examples import fill
from msacclint.rules.table import TableRuleMixin, add_keywords, called

_DROPOUTS = {
    "mindspore.ops.dropout": ("input", "p", "training", "seed"),
    "mindspore.ops.dropout2d": ("input", "p", "training"),
    "mindspore.ops.dropout3d": ("input", "p", "training"),
}


#: a Cell whose construct is ``{body}``
_BLOCK = """
    from mindspore import nn, ops
    class Block(nn.Cell):
        def __init__(self):
            super().__init__()

        def construct(self, x):
            {body}
"""


def _block(body: str) -> str:
    return fill(_BLOCK, body=body)


class OpsDropoutTrainingDefault(TableRuleMixin, Rule, entry_id="MS-DROP-02"):
    code = "MSA121"
    group = "suspicious"
    name = "ops-dropout-training-default"
    message = "ops.dropout in construct without training= drops in evaluation too"
    what = ("Reports `ops.dropout`, `ops.dropout2d` and `ops.dropout3d` calls inside a class's "
            "`construct` that do not pass `training`.")
    why = ("The functional dropout's `training` defaults to True and does not follow the Cell's "
           "mode: evaluation and inference keep dropping activations, so validation accuracy is "
           "noisy and too low. PyTorch's F.dropout has the same trap; the port keeps it.")
    example = """
        from mindspore import nn, ops
        class Block(nn.Cell):
            def __init__(self):
                super().__init__()

            def construct(self, x):
                return ops.dropout(x, p=0.1)  # MSA121
    """
    use_instead = """
        from mindspore import nn, ops
        class Block(nn.Cell):
            def __init__(self):
                super().__init__()

            def construct(self, x):
                return ops.dropout(x, p=0.1, training=self.training)
    """
    fix_safety = ("Unsafe fix: `training=self.training`, which stops dropping in evaluation mode. "
                  "Keep this behaviour (not a fix; `--add-explicit` only): `training=True`.")
    versions = "ops.dropout(input, p=0.5, training=True, seed=None) in 2.x (verified on 2.10)."
    VALID = (
        Valid(_block("return ops.dropout(x, p=0.1, training=self.training)")),
        Valid(_block("return ops.dropout2d(x, 0.1, self.training)")),
        Valid("""
            from mindspore import nn, ops
            def augment(x):
                return ops.dropout(x, p=0.1)
        """, note="not in construct"),
        Valid("""
            import torch.nn.functional as F
            import torch.nn as nn
            class Block(nn.Module):
                def construct(self, x):
                    return F.dropout(x, 0.1)
        """),
        Valid("""
            from mindspore import mint, nn
            class Block(nn.Cell):
                def construct(self, x):
                    return mint.nn.functional.dropout(x, p=0.1, training=self.training)
        """),
        Valid(_block("return ops.dropout(x, **self.drop_kwargs)")),
    )
    INVALID = (
        Invalid(_block("return ops.dropout(x, p=0.1)  # MSA121"),
                explicit_fixed=_block("return ops.dropout(x, p=0.1, training=True)"),
                unsafe_fixed=_block("return ops.dropout(x, p=0.1, training=self.training)"),
                note="F.dropout(x, 0.1) ported by renaming"),
        Invalid(_block("""
                    if self.use_drop:
                        x = ops.dropout2d(x, p=0.2)  # MSA121
                    return x
        """)),
        Invalid("""
            import mindspore.ops as P
            from mindspore import nn
            class Head(nn.Cell):
                def construct(self, x):
                    return P.dropout(x, 0.5)  # MSA121
        """),
    )

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        #: for each open function: whether it is a construct method of a class
        self._functions: List[bool] = []
        self._class_depth: List[int] = []

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._class_depth.append(len(self._functions))

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self._class_depth.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        method = bool(self._class_depth) and self._class_depth[-1] == len(self._functions)
        self._functions.append(method and node.name.value == "construct")

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._functions.pop()

    def visit_Call(self, node: cst.Call) -> None:
        if not self._functions or not self._functions[-1]:
            return
        name = called(self.ctx, node)
        signature = _DROPOUTS.get(name or "")
        if signature is None or has_star_kwargs(node) or has_star_args(node):
            return
        if argument(node, "training", signature) is not None:
            return
        short = name.replace("mindspore.", "", 1)
        self.report(node, f"{short} in construct without training= drops even when the Cell is in evaluation "
                    f"mode (training defaults to True); write training=self.training",
                    [FixSpec("keep this behaviour, written out: training=True", Applicability.KEEP,
                             [(node, add_keywords(node, {"training": "True"}))]),
                     FixSpec("training=self.training", Applicability.UNSAFE,
                             [(node, add_keywords(node, {"training": "self.training"}))])])
