"""MSA102 (MS-DROP-01, warning): any other positional argument of ``nn.Dropout``; right today, but
its meaning flips once keep_prob is removed, as the 2.10 docstring announces."""

from __future__ import annotations

import libcst as cst

from msacclint.analysis.calls import literal
from msacclint.diagnostics import Applicability, Severity
from msacclint.rules.api.dropout_values import (
    DropoutRule,
    complement,
    keep_reads_as_drop,
    p_fix,
    reading_value,
    reads_wrong,
)
from msacclint.rules.base import Invalid, Valid
from msacclint.rules.fixtures.api import nn_dropout


class DropoutPositional(DropoutRule):
    code = "MSA102"
    name = "dropout-positional-keep-prob"
    checklist = "api.01"
    severity = Severity.WARNING
    group = "upgrade"
    message = "nn.Dropout's positional argument is keep_prob today and will silently become p"
    what = "Reports `nn.Dropout(x)` with a positional argument that is not already an MSA101 error."
    why = ("The value is read as keep_prob in MindSpore 2.10, whose docstring announces that "
           "keep_prob will be removed and p will take its place: the same line then silently "
           "means the opposite. It also reads as a PyTorch drop rate to every reviewer.")
    example = """
        import mindspore.nn as nn
        drop = nn.Dropout(0.9)  # MSA102
    """
    use_instead = """
        import mindspore.nn as nn
        drop = nn.Dropout(p=0.1)
    """
    fix_safety = "Safe: `nn.Dropout(x)` becomes `nn.Dropout(p=1 - x)`, which drops exactly as much."
    VALID = (
        Valid(nn_dropout("p=0.1")),
        Valid(nn_dropout("keep_prob=0.9")),
        Valid(nn_dropout("0.1"), note="MSA101's error, not this warning"),
        Valid("""
            import mindspore.nn as nn
            dropout = 0.5
            head = nn.SequentialCell(nn.Dropout(1 - dropout), nn.Dense(4, 2))
        """, note="a module constant of 0.5 at module level: keep and drop rates are equal, a flip changes nothing"),
        Valid("""
            import mindspore.nn as nn
            class GRU(nn.Cell):
                def __init__(self, hidden, dropout=0.0):
                    super().__init__()
                    self.drop = nn.Dropout(1 - dropout)

            encoder = GRU(256)
            decoder = GRU(256, dropout=0)
        """, note="every call keeps all (keep 1.0): read as p=1.0 after the flip it would raise, not drop silently"),
        Valid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def __init__(self, dropout=0.5):
                    super().__init__()
                    self.drop = nn.Dropout(dropout)

            net = Net()
        """, note="the only caller leaves the default 0.5: keep 0.5 is drop 0.5"),
        Valid("""
            import torch
            drop = torch.nn.Dropout(0.9)
        """),
    )
    INVALID = (
        Invalid(nn_dropout("0.8", "  # MSA102"), fixed=nn_dropout("p=0.2")),
        Invalid(nn_dropout("1 - drop_rate", "  # MSA102"), fixed=nn_dropout("p=drop_rate")),
        Invalid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def __init__(self, dropout=0.5):
                    super().__init__()
                    self.drop = nn.Dropout(dropout)  # MSA102

            net = Net(dropout=0.8)
        """, fixed="""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def __init__(self, dropout=0.5):
                    super().__init__()
                    self.drop = nn.Dropout(p=1 - dropout)

            net = Net(dropout=0.8)
        """, note="a caller passes 0.8: the positional slot's meaning matters"),
        Invalid(nn_dropout("keep", "  # MSA102"), fixed=nn_dropout("p=1 - keep")),
    )

    def check(self, call, keep, p, by_position):
        if keep is None or not by_position:
            return
        if literal(keep.value) == 0.5:
            return  # keep 0.5 is drop 0.5: the line means the same either way
        readings = self.readings(keep.value, call)
        if readings and all(any(reading_value(*r) == 0.5 for r in group) for group in readings):
            return  # every value it can take (callers, default) is 0.5: the same either way
        if readings and all(any(reading_value(*r) == 1.0 for r in group) for group in readings):
            return  # keep 1.0 everywhere: no dropout today, and read as p=1.0 it raises (p < 1), loudly
        if reads_wrong(readings, keep_reads_as_drop):
            return  # MSA101
        new = complement(keep.value)
        shown = cst.Module([]).code_for_node(new)
        self.report(call, f"nn.Dropout({cst.Module([]).code_for_node(keep.value)}): the positional argument is "
                    f"keep_prob in MindSpore 2.10 and silently becomes p once keep_prob is removed; "
                    f"write p={shown}",
                    p_fix(f"write p={shown}", Applicability.SAFE, call, keep, new))

