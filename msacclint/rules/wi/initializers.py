"""MS-INIT-01, second half: the ``'normal'`` initializer string means N(0, 0.01).

MSA118 (info) reports ``weight_init='normal'`` (and the other ``*_init`` keywords) on a
MindSpore layer, and ``initializer('normal', ...)``. ``Normal()``/``TruncatedNormal()``
without sigma are MSA117 (table). ``nn.Embedding(embedding_table='normal')`` is
MindSpore's own explicit default and MSA116's accepted form, so it is not reported.
"""

from __future__ import annotations

import libcst as cst

from msacclint.analysis.calls import argument, literal
from msacclint.rules.base import Invalid, Rule, Valid
from msacclint.rules.table import TableRuleMixin, called

INITIALIZER = "mindspore.common.initializer.initializer"
_KEYWORDS = frozenset({"weight_init", "bias_init", "gamma_init", "beta_init"})


class NormalInitString(TableRuleMixin, Rule, entry_id="MS-INIT-01"):
    code = "MSA118"
    group = "port"
    name = "normal-init-string"
    message = "'normal' initialises N(0, 0.01) in MindSpore, not N(0, 1)"
    what = ("Reports the string `'normal'` given as `weight_init`/`bias_init`/`gamma_init`/`beta_init` "
            "to a MindSpore API, and `initializer('normal', ...)`.")
    why = ("MindSpore's 'normal' initializer has sigma 0.01; PyTorch's `nn.init.normal_` default is "
           "std 1.0. A port of `normal_(w)` as 'normal' starts 100x smaller, and a port of "
           "`normal_(w, std=0.02)` silently uses 0.01.")
    example = """
        import mindspore.nn as nn
        fc = nn.Dense(768, 768, weight_init='normal')  # MSA118
    """
    use_instead = """
        import mindspore.nn as nn
        from mindspore.common.initializer import Normal
        fc = nn.Dense(768, 768, weight_init=Normal(sigma=0.02))
    """
    versions = "Normal(sigma=0.01) behind 'normal' in 1.x and 2.x."
    VALID = (
        Valid("""
            import mindspore.nn as nn
            from mindspore.common.initializer import Normal
            fc = nn.Dense(768, 768, weight_init=Normal(sigma=0.02))
        """),
        Valid("""
            import mindspore.nn as nn
            emb = nn.Embedding(100, 16, embedding_table='normal')
        """),
        Valid("""
            import torch.nn as nn
            nn.init.normal_(w)
        """),
        Valid("""
            from tensorflow.keras import layers
            fc = layers.Dense(10, kernel_initializer='normal')
        """),
        Valid("""
            import mindspore.nn as nn
            fc = nn.Dense(768, 768, weight_init=cfg.init)
        """),
        Valid("""
            from mindspore.common.initializer import initializer, Normal
            w = initializer(Normal(0.02), (16, 16))
        """),
    )
    INVALID = (
        Invalid("""
            import mindspore.nn as nn
            fc = nn.Dense(768, 768, weight_init='normal')  # MSA118
        """, note="nn.init.normal_(fc.weight) ported as the 'normal' string"),
        Invalid("""
            from mindspore.common.initializer import initializer
            import mindspore as ms
            w = ms.Parameter(initializer('normal', (768, 64)))  # MSA118
        """),
        Invalid("""
            from mindspore import nn
            conv = nn.Conv2d(3, 8, 3, bias_init='normal')  # MSA118
        """),
    )

    def visit_Call(self, node: cst.Call) -> None:
        name = called(self.ctx, node)
        if name is None or not name.startswith("mindspore."):
            return
        if name == INITIALIZER:
            arg = argument(node, "init", ("init", "shape", "dtype"))
            if arg is not None and _is_normal(arg.value):
                self.report(node, "initializer('normal', ...) draws from N(0, 0.01) in MindSpore (PyTorch's normal_ "
                            "is N(0, 1)); write initializer(Normal(sigma=...), ...) with the reference's std")
            return
        for arg in node.args:
            if arg.keyword is not None and arg.keyword.value in _KEYWORDS and _is_normal(arg.value):
                self.report(node, f"{arg.keyword.value}='normal' draws from N(0, 0.01) in MindSpore (PyTorch's "
                            f"normal_ is N(0, 1)); write {arg.keyword.value}=Normal(sigma=...) with the "
                            f"reference's std")
                return


def _is_normal(expr: cst.BaseExpression) -> bool:
    value = literal(expr)
    return isinstance(value, str) and value.lower() == "normal"
