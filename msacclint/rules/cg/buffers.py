"""cg.02: a PyTorch buffer ported as a trainable Parameter.

- MSA509 (cg.02): ``Parameter(...)`` without ``requires_grad=False`` whose value is a fixed
  table computed with NumPy (sinusoids, ``arange``/``meshgrid`` grids, relative-position
  indices): PyTorch kept it with ``register_buffer``, neither trained nor decayed.
"""

from __future__ import annotations

from typing import Optional, Set

import libcst as cst

from msacclint.analysis.calls import argument, literal
from msacclint.analysis.facts import facts
from msacclint.analysis.scopes import scopes
from msacclint.diagnostics import Severity
from msacclint.rules.base import Invalid, Rule, Valid

PARAMETER = "mindspore.Parameter"
_SIGNATURE = ("default_input", "name", "requires_grad", "layerwise_parallel", "parallel_optimizer")
#: NumPy functions that build fixed tables rather than initial weights
_TABLE_FUNCS = frozenset({"sin", "cos", "arange", "meshgrid", "power", "outer", "indices", "tril", "triu",
                          "linspace"})
_RANDOM = ("numpy.random.", "mindspore.common.initializer", "mindspore.ops.", "mindspore.numpy.random")


class _Uses(cst.CSTVisitor):
    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self.tables: Set[str] = set()
        self.random = False
        self.names: Set[str] = set()

    def visit_Call(self, node: cst.Call) -> None:
        name = self.ctx.resolve(node.func) or ""
        if name.startswith("numpy.") and name.rsplit(".", 1)[-1] in _TABLE_FUNCS:
            self.tables.add(name.rsplit(".", 1)[-1])
        if name.startswith(_RANDOM) or "initializer" in name:
            self.random = True

    def visit_Name(self, node: cst.Name) -> None:
        self.names.add(node.value)


class BufferAsParameter(Rule):
    code = "MSA509"
    name = "buffer-as-trainable-parameter"
    checklist = "cg.02"
    severity = Severity.WARNING
    group = "suspicious"
    uses_facts = True
    message = "a fixed table built with NumPy is a trainable Parameter: it drifts and gets weight decay"
    what = ("Reports `Parameter(...)` without `requires_grad=False` whose value (directly, or through a local "
            "name assigned in the same function) is computed with NumPy table builders - `sin`/`cos`/`power` "
            "(sinusoidal positions), `arange`/`meshgrid`/`indices` (grids, relative-position indices), "
            "`tril`/`triu` (masks) - and not drawn at random or from an initializer."
            " Field check (docs/evaluation/field.md, issue 14 rules): no finding on the four tuning repositories of bench/field/protocol.toml (6,045 files), so its precision is not measured yet.")
    why = ("PyTorch keeps such tables with `register_buffer`: saved with the model, never given to the "
           "optimizer. MindSpore has no buffers; a `Parameter` is trainable by default (2.10: a Parameter "
           "named `pos_table` is in `trainable_params()`), so the sinusoidal table, the anchor grid or the "
           "relative-position index is updated by the optimizer and shrunk by weight decay. Training runs; "
           "the positions drift and accuracy drops, and an index table may turn into nonsense.")
    example = """
    import numpy as np
    import mindspore as ms
    from mindspore import nn

    class PositionalEncoding(nn.Cell):
        def __init__(self, n, d):
            super().__init__()
            pos = np.arange(n)[:, None] / np.power(10000, np.arange(d) / d)
            table = np.where(np.arange(d) % 2 == 0, np.sin(pos), np.cos(pos))
            self.pe = ms.Parameter(ms.Tensor(table, ms.float32), name="pe")  # MSA509
    """
    use_instead = example.replace('name="pe")  # MSA509', 'name="pe", requires_grad=False)')
    fix_safety = ("Unsafe fix: requires_grad=False. Safe only when the PyTorch reference kept the table as a "
                  "buffer; a table that the reference trains (an nn.Parameter initialised with sinusoids) must stay "
                  "trainable.")
    versions = "All MindSpore releases (Parameter's requires_grad=True default; checked on 2.10)."
    VALID = (
        Valid(use_instead, note="idiomatic: a non-trainable Parameter"),
        Valid("""
            import numpy as np
            import mindspore as ms
            w = ms.Parameter(ms.Tensor(np.random.randn(64, 64), ms.float32), name="w")
            """, note="random initial weights"),
        Valid("""
            import numpy as np
            import mindspore as ms
            from mindspore.common.initializer import initializer, TruncatedNormal
            pos = ms.Parameter(initializer(TruncatedNormal(0.02), (1, 197, 768)), name="pos_embed")
            """, note="a learnt position embedding"),
        Valid("""
            import numpy as np
            import torch
            import mindspore
            pe = torch.nn.Parameter(torch.tensor(np.sin(np.arange(10.0))))
            """, note="PyTorch"),
        Valid("""
            import numpy as np
            import mindspore as ms
            scale = ms.Parameter(ms.Tensor(np.ones(64), ms.float32), name="scale")
            """, note="a constant initial value of a learnt parameter"),
    )
    VALID = VALID + (
        Valid("""
            import numpy as np
            import mindspore as ms
            logit_scale = ms.Parameter(ms.Tensor(np.log(1 / 0.07), ms.float32))
            """, note="a learnt scalar initialised with a formula (CLIP's logit scale)"),
    )
    INVALID = (
        Invalid(example, note="a sinusoidal table ported from register_buffer"),
        Invalid("""
            import numpy as np
            import mindspore as ms
            from mindspore import Parameter, Tensor

            coords = np.stack(np.meshgrid(np.arange(7), np.arange(7), indexing="ij"))
            index = Tensor(coords.reshape(2, -1).sum(0), ms.int32)
            relative_position_index = Parameter(index, name="relative_position_index")  # MSA509
            """, note="an index table"),
    )

    def finish(self) -> None:
        f = facts(self.ctx)
        calls = f.called(PARAMETER)
        if not calls:
            return
        sc = scopes(self.ctx)
        for call in calls:
            grad = argument(call, "requires_grad", _SIGNATURE)
            if grad is not None and literal(grad.value) is not True:
                continue
            value = argument(call, "default_input", _SIGNATURE)
            if value is None:
                continue
            uses = self._uses(sc, call, value.value)
            if uses is not None and uses.tables and not uses.random:
                self.report(call, "this Parameter holds a fixed table computed with NumPy ("
                            + ", ".join(sorted(uses.tables)) + ") and is trainable: PyTorch keeps such tables as "
                            "buffers; pass requires_grad=False (or keep it as a Tensor attribute)")

    def _uses(self, sc, call: cst.Call, value: cst.BaseExpression) -> Optional[_Uses]:
        """NumPy builders used in the value, following local names a few steps back."""
        total = _Uses(self.ctx)
        fl = sc.owner(call)
        todo, seen = [value], set()
        steps = 0
        while todo and steps < 12:
            steps += 1
            node = todo.pop()
            uses = _Uses(self.ctx)
            node.visit(uses)
            total.tables |= uses.tables
            total.random = total.random or uses.random
            if fl is None:
                continue
            for name in uses.names - seen:
                seen.add(name)
                found = sc.resolve(fl, name, fl.order_of.get(call))
                if found is not None:
                    todo.append(found[1].value)
        return total
