"""Files that pytest runs as tests.

A training run inside a test (``def test_trainer_train(): ... trainer.train()``) exercises the
code on a few batches and asserts what the test is about; nobody keeps its weights. How such a
run is set up (data order, optimizer defaults, seeds, loss scaling) cannot cost a model's
accuracy. ``pytest_test(ctx)`` names the first test function of a file that pytest collects with
its default discovery: a module named ``test_*.py`` or ``*_test.py`` that defines, at top level,
a function whose name starts with ``test`` or a class ``Test*`` with such a method. None for
anything else (a helper module, a script launched by a test, a file without test functions).
Rules about a run's set-up (``Rule.about_the_run``) are lowered to info there by the engine.
"""

from __future__ import annotations

import fnmatch
import os
from typing import Optional

import libcst as cst

from msacclint.analysis.context import FileContext, Question

#: pytest's default ``python_files``
_MODULE_PATTERNS = ("test_*.py", "*_test.py")


def _first_test(module: cst.Module) -> Optional[str]:
    for stmt in module.body:
        if isinstance(stmt, cst.FunctionDef) and stmt.name.value.startswith("test"):
            return stmt.name.value
        if isinstance(stmt, cst.ClassDef) and stmt.name.value.startswith("Test") and \
                isinstance(stmt.body, cst.IndentedBlock):
            for inner in stmt.body.body:
                if isinstance(inner, cst.FunctionDef) and inner.name.value.startswith("test"):
                    return f"{stmt.name.value}.{inner.name.value}"
    return None


def _compute(ctx: FileContext) -> Optional[str]:
    base = os.path.basename(ctx.path or "")
    if not any(fnmatch.fnmatch(base, pattern) for pattern in _MODULE_PATTERNS):
        return None
    return _first_test(ctx.module)


PYTEST_TEST: Question[Optional[str]] = Question("pytest_test", _compute)


def pytest_test(ctx: FileContext) -> Optional[str]:
    """The first test function of a module pytest collects, or None."""
    return ctx.ask(PYTEST_TEST)
