"""MSA103 (MS-DROP-01, info, off by default): ``nn.Dropout(keep_prob=...)`` by keyword, correct and
loud (TypeError) after the removal of keep_prob: a deprecation note."""

from __future__ import annotations

import libcst as cst

from msacclint.diagnostics import Applicability, Severity
from msacclint.rules.api.dropout_values import DropoutRule, complement, keep_reads_as_drop, p_fix, reads_wrong
from msacclint.rules.base import Invalid, Valid
from msacclint.rules.fixtures.api import nn_dropout


class DropoutKeepProbKeyword(DropoutRule):
    code = "MSA103"
    name = "dropout-keep-prob-deprecated"
    checklist = "api.01"
    severity = Severity.INFO
    group = "upgrade"
    message = "nn.Dropout(keep_prob=...) is deprecated; p= says the drop rate directly"
    what = "Reports `nn.Dropout(keep_prob=x)` by keyword when x reads as a keep probability."
    why = ("Correct today, and it fails loudly (TypeError) rather than silently once keep_prob is "
           "removed; a review item for ports that want to be ready.")
    fix_safety = "Safe: `keep_prob=x` becomes `p=1 - x`."
    example = """
        import mindspore.nn as nn
        drop = nn.Dropout(keep_prob=0.9)  # MSA103
    """
    use_instead = """
        import mindspore.nn as nn
        drop = nn.Dropout(p=0.1)
    """
    VALID = (
        Valid(nn_dropout("p=0.1")),
        Valid("""
            import torch.nn as nn
            drop = nn.Dropout(0.9)
        """),
        Valid(nn_dropout("keep_prob=0.1"), note="MSA101's error"),
    )
    INVALID = (
        Invalid(nn_dropout("keep_prob=0.9", "  # MSA103"), fixed=nn_dropout("p=0.1")),
        Invalid(nn_dropout("keep_prob=cfg.keep_prob", "  # MSA103")),
    )

    def check(self, call, keep, p, by_position):
        if keep is None or by_position:
            return
        if reads_wrong(self.readings(keep.value, call), keep_reads_as_drop):
            return
        new = complement(keep.value)
        shown = cst.Module([]).code_for_node(new)
        self.report(call, f"nn.Dropout(keep_prob=...) is deprecated in MindSpore 2.x; write p={shown}",
                    p_fix(f"write p={shown}", Applicability.SAFE, call, keep, new))
