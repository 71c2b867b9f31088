"""Why a finding about how a training run is set up cannot cost accuracy here, if it cannot.

The engine asks this for every finding of a rule that judges a run's set-up
(``Rule.about_the_run``: data order, sharding, optimizer defaults, loss reduction, seeds,
gradient reduction, loss scaling) and lowers such a finding to info, with the answer in its
message, when

- the file trains on arrays it generates itself (``analysis.synthetic``): a parity test or
  a benchmark has no accuracy to lose;
- the finding is about an optimizer that takes no step in its file
  (``analysis.training.idle_optimizer``): an evaluation script that copied the set-up;
- pytest runs the file as tests (``analysis.pytest_files``): a test keeps no model.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from msacclint.analysis.context import FileContext
from msacclint.analysis.pytest_files import pytest_test
from msacclint.analysis.synthetic import made_up_data
from msacclint.analysis.training import idle_optimizer


def set_up_cannot_matter(ctx: FileContext, node: cst.CSTNode) -> Optional[str]:
    """The reason, as a clause for the message, or None."""
    made_up = made_up_data(ctx)
    if made_up is not None:
        return (f"this file trains on arrays it generates itself ({made_up}), so how the run is set up cannot "
                "cost accuracy; it matters once real data are fed")
    idle = idle_optimizer(ctx, node)
    if idle is not None:
        return idle
    test = pytest_test(ctx)
    if test is not None:
        return (f"pytest runs this file as tests ({test}): a training run in a test exercises the code and keeps "
                "no model, so how it is set up cannot cost accuracy")
    return None
