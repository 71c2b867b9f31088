"""Generated programs never crash the engine or a rule, and fixing them is stable.

Programs come from hypothesmith (valid Python from the grammar) with MindSpore imports on
top, so that the pre-filter lets them through, and from a template that feeds generated
expressions to the very calls the rules look at (nn.Dropout, BatchNorm, pooling, Conv, the
loss), inside a Cell with a construct method. A few hundred run by default; thousands
with --runslow.
"""

from __future__ import annotations

import hypothesmith
import libcst as cst
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from msacclint.engine import registry
from msacclint.engine.fixes import fix_source
from msacclint.engine.runner import RULE_CRASHED, check_source
from msacclint.settings import Settings

HEADER = "import mindspore as ms\nimport mindspore.nn as nn\nfrom mindspore import ops\n"
ALL = Settings(enabled=frozenset(registry.all_codes()))

CELL = '''
class Net(nn.Cell):
    def __init__(self, drop_rate=0.1):
        super().__init__()
        self.conv = nn.Conv2d({a}, {b}, {c})
        self.bn = nn.BatchNorm2d({a}, momentum={d})
        self.pool = nn.MaxPool2d({c})
        self.drop = nn.Dropout({d})
        self.loss = nn.SoftmaxCrossEntropyWithLogits({e})

    def construct(self, x):
        x = self.pool(self.conv(x))
        return self.drop(x)


def train(net, data):
    net.set_train({e})
    for x, y in data:
        grads = ms.grad(net)(x)
        grads = ops.clip_by_global_norm(grads, {a})
'''

expressions = hypothesmith.from_grammar(start="eval_input").map(lambda s: s.strip())
programs = hypothesmith.from_grammar(start="file_input")
templated = st.builds(
    lambda a, b, c, d, e: CELL.format(a=a, b=b, c=c, d=d, e=e),
    *[st.one_of(expressions, st.sampled_from(["0.1", "0.9", "drop_rate", "1 - drop_rate", "p=0.5", "2"]))
      for _ in range(5)],
)


def _compiles(text: str) -> bool:
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(text, "<generated>", "exec")
        return True
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False


def _never_crashes(text: str) -> None:
    found = check_source(text, "generated.py", ALL)
    crashes = [d.message for d in found if d.code == RULE_CRASHED]
    assert crashes == [], crashes


def _fix_is_stable(text: str) -> None:
    def check(t):
        return check_source(t, "generated.py", ALL)

    fixed, _ = fix_source(text, check, unsafe=True)
    cst.parse_module(fixed)  # always hands back parsing text
    again, applied = fix_source(fixed, check, unsafe=True)
    assert (again, applied) == (fixed, 0)


def _check_templated(source: str, crash: bool = True, fix: bool = False) -> None:
    """A templated program (whose drawn arguments Python may reject: then nothing to do)
    is checked without a crash and/or fixed stably."""
    text = HEADER + source
    if not _compiles(text):
        return
    if crash:
        _never_crashes(text)
    if fix:
        _fix_is_stable(text)


# hypothesmith draws slowly (about 4 programs a second here, and the template draws five
# expressions per program): the default run stays near a minute on a loaded 2-core machine
FAST = settings(max_examples=120, deadline=None, suppress_health_check=list(HealthCheck))
FAST_TEMPLATED = settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
FAST_FIX = settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
SLOW = settings(max_examples=2000, deadline=None, suppress_health_check=list(HealthCheck))


@FAST
@given(programs)
def test_generated_programs_never_crash(source):
    _never_crashes(HEADER + source)


@FAST_TEMPLATED
@given(templated)
def test_generated_arguments_to_checked_calls_never_crash(source):
    _check_templated(source)


@FAST_FIX
@given(templated)
def test_fixing_generated_code_parses_and_is_stable(source):
    _check_templated(source, crash=False, fix=True)


@pytest.mark.slow
@SLOW
@given(programs)
def test_many_generated_programs_never_crash(source):
    _never_crashes(HEADER + source)


@pytest.mark.slow
@SLOW
@given(templated)
def test_many_generated_calls_never_crash_and_fix_stably(source):
    _check_templated(source, fix=True)
