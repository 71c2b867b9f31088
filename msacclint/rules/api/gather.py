"""api.01: ``ops.gather`` / ``Tensor.gather`` used as PyTorch's element-wise gather.

- MSA139 (api.01): a slice-gather whose index is the PyTorch idiom of ``torch.gather``
  (``labels.unsqueeze(-1)``, ``ops.expand_dims(labels, 1)``, ``labels.view(-1, 1)``,
  ``labels[:, None]``: an index with a new axis of size 1 at the gathered axis).
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from msacclint.analysis.calls import argument, literal
from msacclint.analysis.facts import facts
from msacclint.analysis.source import code_of as _code
from msacclint.diagnostics import Severity
from msacclint.rules.base import Invalid, Rule, Valid

GATHER_FUNCTIONS = {
    "mindspore.ops.gather": ("input_params", "input_indices", "axis", "batch_dims"),
}
_METHOD_SIGNATURE = ("input_indices", "axis", "batch_dims")
_UNSQUEEZE = ("unsqueeze", "expand_dims")


def _new_unit_axis(ctx, index: cst.BaseExpression) -> bool:
    """Whether the index expression adds an axis of size 1 (the torch.gather idiom)."""
    if isinstance(index, cst.Call):
        func = index.func
        name = ctx.resolve(func) if not isinstance(func, cst.Attribute) or isinstance(func.value, cst.Name) else None
        tail = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
        if tail in _UNSQUEEZE and (name is None or name.startswith("mindspore")):
            return True
        if tail in ("view", "reshape") and isinstance(func, cst.Attribute) and len(index.args) == 2:
            return literal(index.args[1].value) == 1
    if isinstance(index, cst.Subscript):
        return any(isinstance(e.slice, cst.Index) and isinstance(e.slice.value, cst.Name)
                   and e.slice.value.value == "None" for e in index.slice)
    return False


class GatherAsTorchGather(Rule):
    code = "MSA139"
    name = "gather-used-as-torch-gather"
    checklist = "api.01"
    severity = Severity.WARNING
    group = "suspicious"
    uses_facts = True
    message = "ops.gather/Tensor.gather selects whole slices; PyTorch's gather is element-wise (ops.gather_elements)"
    what = ("Reports `ops.gather(x, index, axis)` and `x.gather(index, axis)` (in a file that does not import "
            "torch) whose index is written the way `torch.gather` needs it: `labels.unsqueeze(k)`, "
            "`ops.expand_dims(labels, k)`, `labels.view(-1, 1)`, `labels[:, None]`."
            " Field check (docs/evaluation/field.md, issue 14 rules): no finding on the four tuning repositories of bench/field/protocol.toml (6,045 files), so its precision is not measured yet.")
    why = ("`torch.gather(logp, 1, y.unsqueeze(1))` picks one element per row. MindSpore's `ops.gather` and "
           "`Tensor.gather` select whole slices along `axis`: the output shape is "
           "`params.shape[:axis] + index.shape + params.shape[axis+1:]` (2.10: a (2, 3) tensor gathered with a "
           "(2, 1) index on axis 1 gives (2, 2, 1)). After `.squeeze()` and `.mean()` the result is still a "
           "plausible scalar - the mean over every row's pick of every label - and the NLL or top-k built on "
           "it trains on the wrong quantity. The element-wise gather is `ops.gather_elements` (`mint.gather`).")
    example = """
    from mindspore import ops
    picked = ops.gather(log_probs, labels.unsqueeze(-1), -1)  # MSA139
    nll = -picked.squeeze(-1).mean()
    """
    use_instead = """
    from mindspore import ops
    picked = ops.gather_elements(log_probs, -1, labels.unsqueeze(-1))
    nll = -picked.squeeze(-1).mean()
    """
    fix_safety = "No automatic fix: gather_elements takes (input, dim, index), another argument order."
    versions = ("All 2.x releases up to 2.10 (checked). MindSpore's docs announce that after 2.9 "
                "`Tensor.gather_elements` is renamed `gather` (the element-wise one, as in PyTorch); from that "
                "release the method form `x.gather(...)` changes meaning and this rule's method case must be "
                "bounded by the release that lands it (the probe's snapshot of that release will show it).")
    VALID = (
        Valid(use_instead, note="idiomatic"),
        Valid("""
            from mindspore import ops
            rows = ops.gather(table, ids, 0)
            """, note="an embedding-style lookup: slices are meant"),
        Valid("""
            from mindspore import mint
            picked = mint.gather(log_probs, -1, labels.unsqueeze(-1))
            """, note="mint.gather is element-wise"),
        Valid("""
            import torch
            import mindspore
            picked = log_probs.gather(-1, labels.unsqueeze(-1))
            """, note="PyTorch tensors"),
    )
    INVALID = (
        Invalid(example, note="an NLL ported from torch.gather"),
        Invalid("""
            import mindspore as ms
            from mindspore import ops
            score = logits.gather(ops.expand_dims(target, 1), 1).squeeze(1)  # MSA139
            """, note="the method form"),
    )

    def finish(self) -> None:
        f = facts(self.ctx)
        for name, signature in GATHER_FUNCTIONS.items():
            for call in f.called(name):
                self._check(call, argument(call, "input_indices", signature))
        if self.ctx.imports.mentions("torch"):
            return
        for call in f.method_calls("gather"):
            if self.ctx.resolve(call.func) is not None:
                continue
            self._check(call, argument(call, "input_indices", _METHOD_SIGNATURE))

    def _check(self, call: cst.Call, index: Optional[cst.Arg]) -> None:
        if index is not None and _new_unit_axis(self.ctx, index.value):
            self.report(call, f"the index {_code(index.value)} is shaped for PyTorch's element-wise gather, but "
                        "this gather selects whole slices (output params.shape[:axis] + index.shape + ...); use "
                        "ops.gather_elements(input, dim, index) or mint.gather")
