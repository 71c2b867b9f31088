"""analysis/facts.py: the calls of several names come back in source order."""

import libcst as cst
from helpers import settings

from msacclint.analysis.context import FileContext
from msacclint.analysis.facts import facts
from msacclint.analysis.imports import ImportTable
from msacclint.rules.api.dropout_values import with_p

CODE = """\
import random
import numpy as np

random.seed(1)
np.random.seed(2)
random.seed(3)
"""


def _context(code: str) -> FileContext:
    module = cst.parse_module(code)
    return FileContext(path="train.py", source=code, module=module, imports=ImportTable.from_module(module),
                       settings=settings())


def _seeds(calls):
    return [int(cst.Module([]).code_for_node(c.args[0].value)) for c in calls]


def test_calls_of_several_names_are_in_source_order_whatever_order_the_names_come_in():
    f = facts(_context(CODE))
    # the names in either order (a frozenset's order changes with the hash seed)
    assert _seeds(f.called("numpy.random.seed", "random.seed")) == [1, 2, 3]
    assert _seeds(f.called("random.seed", "numpy.random.seed")) == [1, 2, 3]
    assert _seeds(f.called("random.seed")) == [1, 3]


def test_the_p_fix_is_withheld_where_a_positional_argument_follows():
    call = cst.parse_expression("nn.Dropout(0.1, False)")
    assert with_p(call, call.args[0], call.args[0].value) is None
    single = cst.parse_expression("nn.Dropout(0.1)")
    fixed = with_p(single, single.args[0], single.args[0].value)
    assert cst.Module([]).code_for_node(fixed) == "nn.Dropout(p=0.1)"
