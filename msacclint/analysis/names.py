"""What a name says it holds: ``drop_rate`` a drop probability, ``keep_prob`` a keep one.

Used where a value is not a literal but its name is evidence (Dropout's argument). A
name that says neither is not guessed at.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from msacclint.analysis.calls import UNKNOWN, literal


def last_name(node: cst.BaseExpression) -> Optional[str]:
    """``self.cfg.attn_drop`` -> ``attn_drop``; ``cfg["drop_rate"]`` -> ``drop_rate``."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return node.attr.value
    if isinstance(node, cst.Subscript) and len(node.slice) == 1:
        index = node.slice[0].slice
        if isinstance(index, cst.Index):
            key = literal(index.value)
            if isinstance(key, str):
                return key
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "get":
        if node.args:
            key = literal(node.args[0].value)
            if isinstance(key, str):
                return key
    return None


def says_drop(node: cst.BaseExpression) -> bool:
    name = last_name(node)
    if name is None:
        return False
    lowered = name.lower()
    return "drop" in lowered and "keep" not in lowered


def says_keep(node: cst.BaseExpression) -> bool:
    name = last_name(node)
    return name is not None and "keep" in name.lower()


def one_minus(node: cst.BaseExpression) -> Optional[cst.BaseExpression]:
    """``x`` for an expression ``1 - x`` (or ``1.0 - x``), else None."""
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Subtract):
        if literal(node.left) in (1, 1.0) and literal(node.left) is not UNKNOWN:
            return node.right
    return None
