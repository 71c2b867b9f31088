"""api.02: a mode-dependent layer built during the forward pass.

MSA204: ``nn.Dropout(0.1)(x)`` written inside ``construct`` (or a method construct calls)
builds a new Cell on every call. A new Cell starts in inference mode (``Cell.training`` is
False until ``set_train`` reaches it through a parent, and a Cell built during the forward
pass has no parent), so this dropout never drops, whatever its argument says.
"""

from __future__ import annotations

import libcst as cst

from msacclint.analysis.liveness import forward_owner
from msacclint.diagnostics import Severity
from msacclint.rules.base import Invalid, Valid
from msacclint.rules.fixtures.nets import cell, module
from msacclint.rules.function_rule import InFunctionRule

DROPOUTS = frozenset({"mindspore.nn.Dropout", "mindspore.nn.Dropout1d", "mindspore.nn.Dropout2d",
                      "mindspore.nn.Dropout3d", "mindspore.mint.nn.Dropout"})


def _attention(forward: str) -> str:
    """An example: an Attention Cell whose dropout is built in ``__init__``, its forward ``forward``."""
    return module("import mindspore.nn as nn", cell("Attention", init="self.attn_drop = nn.Dropout(p=0.1)",
                                                    construct=forward, args="attn"))


class DropoutBuiltInConstruct(InFunctionRule):
    code = "MSA204"
    name = "dropout-built-in-construct"
    checklist = "api.02"
    severity = Severity.WARNING
    group = "suspicious"
    message = "a Dropout Cell built inside construct is in inference mode and never drops"
    what = ("Reports an `nn.Dropout` (also `Dropout1d/2d/3d`, `mint.nn.Dropout`) Cell instantiated inside "
            "`construct` or a method that `construct` calls on `self`, typically the PyTorch idiom "
            "`F.dropout(x, p, self.training)` ported as `nn.Dropout(p)(x)`. Dropout layers built in `__init__` "
            "(or in helpers that `__init__` calls) and the functional `ops.dropout` are not reported.")
    why = ("A Cell starts in inference mode; `net.set_train()` switches the sub-cells the network owns, and a "
           "Cell created during the forward pass is owned by nobody. The dropout is therefore the identity in "
           "training too: the regularisation the reference model relies on is silently missing (and the "
           "keep_prob/p reading of its argument does not matter). The finding is resolved from where the call "
           "is written; it is a warning because losing a dropout costs less than the errors of api.01.")
    example = """
        import mindspore.nn as nn

        class Attention(nn.Cell):
            def construct(self, attn):
                attn = nn.Dropout(p=0.1)(attn)  # MSA204
                return attn
    """
    use_instead = """
        import mindspore.nn as nn

        class Attention(nn.Cell):
            def __init__(self):
                super().__init__()
                self.attn_drop = nn.Dropout(p=0.1)

            def construct(self, attn):
                attn = self.attn_drop(attn)
                return attn
    """
    fix_safety = "No automatic fix: the layer has to move to `__init__`."
    versions = "All versions: Cell.training starts False."
    VALID = (
        Valid(_attention("return self.attn_drop(attn)"), note="built in __init__: set_train reaches it"),
        Valid(module("import mindspore.nn as nn", cell("Block", init="self.head = self._make_head(0.1)", methods="""
            def _make_head(self, rate):
                return nn.SequentialCell([nn.Dense(8, 8), nn.Dropout(p=rate)])
        """, construct="return self.head(x)")), note="a builder method called from __init__, not from construct"),
        Valid("""
            import mindspore.nn as nn
            import mindspore.ops as ops

            class Attention(nn.Cell):
                def construct(self, attn):
                    return ops.dropout(attn, p=0.1, training=self.training)
        """, note="the functional dropout with the Cell's own mode"),
        Valid("""
            import torch.nn as nn

            class Attention(nn.Module):
                def construct(self, attn):
                    return nn.Dropout(0.1)(attn)
        """, note="not MindSpore"),
    )
    INVALID = (
        Invalid("""
            import mindspore.nn as nn

            class GAT(nn.Cell):
                def __init__(self, dropout):
                    super().__init__()
                    self.dropout = dropout

                def construct(self, attention):
                    attention = nn.Dropout(p=self.dropout)(attention)  # MSA204
                    return attention
        """, note="F.dropout(attention, self.dropout, self.training) ported as a fresh Cell"),
        Invalid("""
            from mindspore import nn

            class Head(nn.Cell):
                def _features(self, x):
                    drop = nn.Dropout(p=0.5)  # MSA204
                    return drop(x)

                def construct(self, x):
                    return self._features(x)
        """, note="a helper that construct calls"),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if self.ctx.resolve(node.func) not in DROPOUTS:
            return
        owner = forward_owner(self.ctx, self.scope)
        if owner is None:
            return
        self.report(node, f"this Dropout is built while {owner.name} computes its forward pass: a new Cell on every "
                    f"call, in inference mode (set_train never reaches it), so it never drops; build it in "
                    f"__init__ as self.<name> = ... and call that")
