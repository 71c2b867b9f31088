"""dp.03: which ``GeneratorDataset`` sources are Python generators or iterables (no random
access, so the dataset cannot shuffle them). Shared by MSA301 (unshuffled_training_dataset),
which leaves them to MSA302, and MSA302 (unshuffled_generator), which reports them."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from msacclint.analysis.calls import argument
from msacclint.analysis.cells import cells
from msacclint.analysis.scopes import scopes
from msacclint.analysis.walk import own_nodes, walk

GENERATOR_DATASET = "mindspore.dataset.GeneratorDataset"


def iterable_source(ctx, build) -> Optional[cst.CSTNode]:
    """The source of a GeneratorDataset when it is a Python generator/iterable (no __getitem__)."""
    if build.callee != GENERATOR_DATASET:
        return None
    arg = argument(build.call, "source", ("source",))
    if arg is None:
        return None
    expr = arg.value
    sc = scopes(ctx)
    if isinstance(expr, cst.Name):
        found = sc.resolve(build.flow, expr.value, build.flow.order(build.call))
        if found is None:
            return None
        expr = found[1].value
    if isinstance(expr, cst.GeneratorExp):
        return arg.value
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name):
        name = expr.func.value
        function = sc.module_function(name)
        if function is not None and _yields(function) and not _synthetic(function):
            return arg.value
        info = cells(ctx).classes.get(name)
        if info is not None and "__iter__" in info.methods and "__getitem__" not in info.methods:
            return arg.value
    return None


def _synthetic(function: cst.FunctionDef) -> bool:
    """A generator of made-up data (no parameters, loops only over range(), indexes
    nothing): ``for _ in range(5): yield np.ones(...)``. Its order means nothing."""
    if function.params.params or isinstance(function.params.star_arg, cst.Param) or function.params.kwonly_params:
        return False
    found = {"other_loop": False, "subscript": False}

    class Body(cst.CSTVisitor):
        def visit_For(self, node: cst.For) -> None:
            it = node.iter
            if not (isinstance(it, cst.Call) and isinstance(it.func, cst.Name) and it.func.value == "range"):
                found["other_loop"] = True

        def visit_Subscript(self, node: cst.Subscript) -> None:
            found["subscript"] = True

    walk(function.body, Body())
    return not found["other_loop"] and not found["subscript"]


def _yields(function: cst.FunctionDef) -> bool:
    return bool(own_nodes(function, cst.Yield))
