"""MSA125 (MS-CLIP-01, error): ``ops.clip_by_global_norm``/``ops.clip_by_norm`` as an
expression statement: they return the clipped tensors and leave their input alone, so a
torch-style ``clip_grad_norm_`` port clips nothing (mp.03, gradient clipping)."""

from __future__ import annotations

import libcst as cst

from msacclint.analysis.displayed import displayed
from msacclint.diagnostics import Applicability, Severity
from msacclint.rules.base import FixSpec, Invalid, Rule, Valid
from msacclint.rules.examples import notebook
from msacclint.rules.table import TableRuleMixin, called

_CLIPS = frozenset({"mindspore.ops.clip_by_global_norm", "mindspore.ops.clip_by_norm"})


class ClipResultIgnored(TableRuleMixin, Rule):
    code = "MSA125"
    reports_discarded_results = True
    name = "clip-result-ignored"
    checklist = "mp.03"
    severity = Severity.ERROR
    group = "correctness"
    evidence = ("Resolved from the statement alone: the clip call's return value, the only place the clipped tensors "
                'exist, is discarded.')
    entry_id = "MS-CLIP-01"
    message = "the clipped gradients are returned, not written back: this call clips nothing"
    what = ("Reports `ops.clip_by_global_norm(...)` and `ops.clip_by_norm(...)` used as a statement. In a notebook, "
            "a code cell's last statement is not reported: Jupyter shows its value under the cell (unless a "
            "trailing `;` hides it).")
    why = ("PyTorch's `clip_grad_norm_` clips `p.grad` in place; MindSpore's `clip_by_global_norm` "
           "returns a new tuple and leaves its input untouched. A port that ignores the result "
           "applies the unclipped gradients, so gradient explosions are not prevented.")
    example = """
        from mindspore import nn, ops
        ops.clip_by_global_norm(grads, 1.0)  # MSA125
        optimizer(grads)
    """
    use_instead = """
        from mindspore import nn, ops
        grads = ops.clip_by_global_norm(grads, 1.0)
        optimizer(grads)
    """
    fix_safety = ("Unsafe fix: assign the result back to the first argument when it is a plain name "
                  "(`grads = ops.clip_by_global_norm(grads, ...)`): it changes what the optimizer gets.")
    versions = "Functional (returns a new tuple) in every version."
    VALID = (
        Valid("""
            from mindspore import nn, ops
            grads = ops.clip_by_global_norm(grads, 1.0)
        """),
        Valid("""
            from mindspore import nn, ops
            optimizer(ops.clip_by_global_norm(grads, clip_norm=5.0))
        """),
        Valid("""
            import torch
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        """),
        Valid("""
            from mindspore import mint
            mint.nn.utils.clip_grad_norm_(params, 1.0)
        """),
        Valid("""
            from mindspore import nn, ops
            grads = ops.clip_by_norm(grads, max_norm=cfg.max_norm)
        """),
        Valid(files={"explore.ipynb": notebook(
            """
            import mindspore as ms
            from mindspore import ops
            grads = (ms.Tensor([3.0, 4.0]),)
            """,
            "ops.clip_by_global_norm(grads, 1.0)",
        )}, note="a notebook cell that shows what clipping gives: the value is displayed, not ignored"),
    )
    INVALID = (
        Invalid("""
            from mindspore import nn, ops
            ops.clip_by_global_norm(grads, 1.0)  # MSA125
            optimizer(grads)
        """, unsafe_fixed="""
            from mindspore import nn, ops
            grads = ops.clip_by_global_norm(grads, 1.0)
            optimizer(grads)
        """, note="torch.nn.utils.clip_grad_norm_(params, 1.0) ported by renaming"),
        Invalid("""
            from mindspore.ops import composite as C
            def step(grads):
                C.clip_by_global_norm(grads, clip_norm=5.0)  # MSA125
                return grads
        """),
        Invalid("""
            from mindspore import nn, ops
            ops.clip_by_norm(self.grads, 1.0)  # MSA125
        """),
        Invalid(files={"train.ipynb": notebook(
            """
            import mindspore as ms
            from mindspore import ops
            """,
            """
            ops.clip_by_global_norm(grads, 1.0)  # MSA125
            optimizer(grads)
            """,
        )}, note="in a notebook, a clip that is not the cell's last statement"),
    )

    def visit_Expr(self, node: cst.Expr) -> None:
        call = node.value
        if not isinstance(call, cst.Call) or called(self.ctx, call) not in _CLIPS or displayed(self.ctx, node):
            return  # (the last expression of a notebook cell: Jupyter shows its value)
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
