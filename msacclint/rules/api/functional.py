"""Functional ops whose PyTorch habit does the wrong thing in MindSpore.

- MSA121 (MS-DROP-02, warning): ``ops.dropout``/``dropout2d``/``dropout3d`` inside a
  Cell's ``construct`` without ``training=``: the default training=True drops even when
  the Cell is in evaluation mode.
- MSA125 (MS-CLIP-01, error): ``ops.clip_by_global_norm``/``ops.clip_by_norm`` as an
  expression statement: they return the clipped tensors and leave their input alone,
  so a torch-style ``clip_grad_norm_`` port clips nothing.
"""

from __future__ import annotations

from typing import List

import libcst as cst

from msacclint.analysis.calls import argument, has_star_args, has_star_kwargs
from msacclint.diagnostics import Applicability, Severity
from msacclint.rules.api.table import add_keywords, called
from msacclint.rules.api.versions import TableRuleMixin
from msacclint.rules.base import FixSpec, Invalid, Rule, Valid

_DROPOUTS = {
    "mindspore.ops.dropout": ("input", "p", "training", "seed"),
    "mindspore.ops.dropout2d": ("input", "p", "training"),
    "mindspore.ops.dropout3d": ("input", "p", "training"),
}
_CLIPS = frozenset({"mindspore.ops.clip_by_global_norm", "mindspore.ops.clip_by_norm"})
_OPS = "from mindspore import nn, ops\n"


def _cell(body: str) -> str:
    return (_OPS + "class Block(nn.Cell):\n    def __init__(self):\n        super().__init__()\n\n"
            "    def construct(self, x):\n" + body)


class OpsDropoutTrainingDefault(TableRuleMixin, Rule):
    code = "MSA121"
    name = "ops-dropout-training-default"
    checklist = "api.02"
    severity = Severity.WARNING
    entry_id = "MS-DROP-02"
    message = "ops.dropout in construct without training= drops in evaluation too"
    what = ("Reports `ops.dropout`, `ops.dropout2d` and `ops.dropout3d` calls inside a class's "
            "`construct` that do not pass `training`.")
    why = ("The functional dropout's `training` defaults to True and does not follow the Cell's "
           "mode: evaluation and inference keep dropping activations, so validation accuracy is "
           "noisy and too low. PyTorch's F.dropout has the same trap; the port keeps it.")
    example = _cell("        return ops.dropout(x, p=0.1)\n")
    use_instead = _cell("        return ops.dropout(x, p=0.1, training=self.training)\n")
    fix_safety = ("Safe fix: `training=True` (the current behaviour, explicit). Unsafe fix: "
                  "`training=self.training`, which stops dropping in evaluation mode.")
    versions = "ops.dropout(input, p=0.5, training=True, seed=None) in 2.x (verified on 2.10)."
    VALID = (
        Valid(_cell("        return ops.dropout(x, p=0.1, training=self.training)\n")),
        Valid(_cell("        return ops.dropout2d(x, 0.1, self.training)\n")),
        Valid(_OPS + "def augment(x):\n    return ops.dropout(x, p=0.1)\n", note="not in construct"),
        Valid("import torch.nn.functional as F\nimport torch.nn as nn\nclass Block(nn.Module):\n"
              "    def construct(self, x):\n        return F.dropout(x, 0.1)\n"),
        Valid("from mindspore import mint, nn\nclass Block(nn.Cell):\n    def construct(self, x):\n"
              "        return mint.nn.functional.dropout(x, p=0.1, training=self.training)\n"),
        Valid(_cell("        return ops.dropout(x, **self.drop_kwargs)\n")),
    )
    INVALID = (
        Invalid(_cell("        return ops.dropout(x, p=0.1)\n"), line=7,
                fixed=_cell("        return ops.dropout(x, p=0.1, training=True)\n"),
                unsafe_fixed=_cell("        return ops.dropout(x, p=0.1, training=self.training)\n"),
                note="F.dropout(x, 0.1) ported by renaming"),
        Invalid(_cell("        if self.use_drop:\n            x = ops.dropout2d(x, p=0.2)\n        return x\n"),
                line=8),
        Invalid("import mindspore.ops as P\nfrom mindspore import nn\nclass Head(nn.Cell):\n"
                "    def construct(self, x):\n        return P.dropout(x, 0.5)\n", line=5),
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
                    [FixSpec("make the default explicit: training=True", Applicability.SAFE,
                             [(node, add_keywords(node, {"training": "True"}))]),
                     FixSpec("training=self.training", Applicability.UNSAFE,
                             [(node, add_keywords(node, {"training": "self.training"}))])])


class ClipResultIgnored(TableRuleMixin, Rule):
    code = "MSA125"
    name = "clip-result-ignored"
    checklist = "mp.03"
    severity = Severity.ERROR
    entry_id = "MS-CLIP-01"
    message = "the clipped gradients are returned, not written back: this call clips nothing"
    what = "Reports `ops.clip_by_global_norm(...)` and `ops.clip_by_norm(...)` used as a statement."
    why = ("PyTorch's `clip_grad_norm_` clips `p.grad` in place; MindSpore's `clip_by_global_norm` "
           "returns a new tuple and leaves its input untouched. A port that ignores the result "
           "applies the unclipped gradients, so gradient explosions are not prevented.")
    example = _OPS + "ops.clip_by_global_norm(grads, 1.0)\noptimizer(grads)\n"
    use_instead = _OPS + "grads = ops.clip_by_global_norm(grads, 1.0)\noptimizer(grads)\n"
    fix_safety = ("Unsafe fix: assign the result back to the first argument when it is a plain name "
                  "(`grads = ops.clip_by_global_norm(grads, ...)`): it changes what the optimizer gets.")
    versions = "Functional (returns a new tuple) in every version."
    VALID = (
        Valid(_OPS + "grads = ops.clip_by_global_norm(grads, 1.0)\n"),
        Valid(_OPS + "optimizer(ops.clip_by_global_norm(grads, clip_norm=5.0))\n"),
        Valid("import torch\ntorch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n"),
        Valid("from mindspore import mint\nmint.nn.utils.clip_grad_norm_(params, 1.0)\n"),
        Valid(_OPS + "grads = ops.clip_by_norm(grads, max_norm=cfg.max_norm)\n"),
    )
    INVALID = (
        Invalid(_OPS + "ops.clip_by_global_norm(grads, 1.0)\noptimizer(grads)\n", line=2,
                unsafe_fixed=_OPS + "grads = ops.clip_by_global_norm(grads, 1.0)\noptimizer(grads)\n",
                note="torch.nn.utils.clip_grad_norm_(params, 1.0) ported by renaming"),
        Invalid("from mindspore.ops import composite as C\ndef step(grads):\n"
                "    C.clip_by_global_norm(grads, clip_norm=5.0)\n    return grads\n", line=3),
        Invalid(_OPS + "ops.clip_by_norm(self.grads, 1.0)\n", line=2),
    )

    def visit_Expr(self, node: cst.Expr) -> None:
        call = node.value
        if not isinstance(call, cst.Call) or called(self.ctx, call) not in _CLIPS:
            return
        short = called(self.ctx, call).replace("mindspore.", "", 1)
        fix = None
        first = call.args[0] if call.args else None
        if first is not None and first.keyword is None and not first.star and isinstance(first.value, cst.Name):
            target = first.value.value
            fix = FixSpec(f"assign the result: {target} = {short}(...)", Applicability.UNSAFE,
                          [(node, cst.Assign(targets=[cst.AssignTarget(cst.Name(target))], value=call))])
        self.report(call, f"{short} returns the clipped tensors and leaves its input unchanged; its result is "
                    f"ignored here, so nothing is clipped: write grads = {short}(grads, ...) and pass that "
                    f"to the optimizer", fix)
