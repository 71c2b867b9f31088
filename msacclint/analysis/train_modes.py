"""Whether a network depends on the training mode: the Cell classes of a file that hold
BatchNorm or Dropout (``set_train`` changes what they compute), themselves, through their
sub-cells or, with the project layer, through classes of other files.

``mode_cells_state(ctx, class_name)``: True, it holds one; False, every sub-cell is known and
none does; None, it cannot be told. ``mode_evidence(ctx)`` keeps where the project layer found
the layer of a True, for the message.
"""

from __future__ import annotations

from typing import Any, Dict, Optional, Set

import libcst as cst

from msacclint.analysis.cells import cells, layer_built
from msacclint.analysis.containers import MODE_PREFIXES
from msacclint.analysis.context import FileContext, Question


def mode_cells_state(ctx: FileContext, class_name: Optional[str], seen: Optional[Set[str]] = None) -> Optional[bool]:
    """True: the class holds BatchNorm/Dropout; False: every sub-cell is known (MindSpore
    classes or classes of this file) and none is; None: cannot tell (imported classes,
    factories, a functional dropout in construct)."""
    seen = seen if seen is not None else set()
    info = cells(ctx).classes.get(class_name) if class_name else None
    if info is None or not class_name or class_name in seen:
        return None if info is None else False
    seen.add(class_name)
    if holds_mode_cells(ctx, class_name):
        return True
    unknown = False
    for base in info.node.bases:
        value = base.value
        if isinstance(value, cst.Name) and value.value in cells(ctx).classes:
            inner = mode_cells_state(ctx, value.value, seen)
            if inner:
                return True
            unknown = unknown or inner is None
        elif not (ctx.resolve(value) or "").startswith("mindspore."):
            unknown = True
    for attr in info.attrs.values():
        values = attr.element_nodes if attr.elements else [attr.value]
        for node in values:
            if not isinstance(node, cst.Call) or _on_self(node.func):
                continue  # self.block.shard(...) re-uses a sub-cell that is checked already
            callee = ctx.resolve(node.func)
            if callee and callee.startswith("mindspore."):
                continue
            inner = mode_cells_state(ctx, node.func.value, seen) if isinstance(node.func, cst.Name) else None
            if inner is None:
                inner = project_mode_state(ctx, node.func)
            if inner is None:
                unknown = True
            elif inner:
                return True
    for method in info.methods.values():
        text = cst.Module([]).code_for_node(method.body)
        if "dropout" in text.lower() or "self.training" in text or "batch_norm" in text:
            unknown = True
    return None if unknown else False


def project_mode_state(ctx: FileContext, func: cst.BaseExpression) -> Optional[bool]:
    """What the project layer knows of a class built in this file but defined in another
    (or behind an import): True/False/None as ``mode_cells_state``. The evidence of a True
    is kept in ``mode_evidence(ctx)`` for the message."""
    from msacclint.analysis.imports import dotted

    project = getattr(ctx, "project", None)
    name = dotted(func)
    if project is None or name is None:
        return None
    state: Optional[bool]
    state, evidence = project.mode_dependence_from(ctx, name)
    if state and evidence is not None:
        mode_evidence(ctx).setdefault(name, evidence)
    return state


_MODE_EVIDENCE: Question[Dict[str, Any]] = Question("training.mode_evidence", lambda ctx: {})


def mode_evidence(ctx: FileContext) -> Dict[str, Any]:
    """name as written -> Evidence (msacclint.project.index) of a mode-dependent layer in
    another file, gathered while the network's classes were resolved."""
    return ctx.ask(_MODE_EVIDENCE)


def _on_self(func: cst.BaseExpression) -> bool:
    while isinstance(func, cst.Attribute):
        func = func.value
    return isinstance(func, cst.Name) and func.value == "self"


def holds_mode_cells(ctx: FileContext, class_name: str) -> bool:
    """The file's class builds a BatchNorm or Dropout, itself or through its sub-cells."""
    return layer_built(ctx, class_name, MODE_PREFIXES) is not None
