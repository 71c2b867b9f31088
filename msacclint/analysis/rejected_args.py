"""Argument combinations a MindSpore constructor rejects (rules/api_surface/rejected.toml: ``nn.Conv2d(...,
padding=3)`` with the default ``pad_mode='same'``), and the literal values of arguments they
are compared with (for msacclint.analysis.raising)."""

from __future__ import annotations

from typing import Any, Dict, List, Tuple

import libcst as cst

from msacclint.analysis import api_surface as api
from msacclint.analysis import calls
from msacclint.analysis.calls import UNKNOWN
from msacclint.data import load_toml


def literal(node: cst.BaseExpression) -> Any:
    """The value of a literal argument (numbers, strings, True/False/None, tuples and lists
    of them, a leading minus), else UNKNOWN."""
    return calls.literal(node, written=True)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _interval(text: str) -> Tuple[float, float, bool, bool]:
    """"(0, 1]" -> (0, 1, low open, high closed)."""
    text = text.strip()
    low, high = text[1:-1].split(",")
    return float(low), float(high), text[0] == "(", text[-1] == ")"


def holds(condition: Dict[str, Any], value: Any) -> bool:
    """Whether one condition of rules/api_surface/rejected.toml holds for a literal value."""
    if value is UNKNOWN:
        return False
    if condition.get("nonzero"):
        if _number(value):
            return value != 0 and isinstance(value, int)
        if condition.get("tuples") and isinstance(value, tuple):
            return any(_number(v) and v != 0 for v in value) and all(_number(v) for v in value)
        return False
    if "values" in condition:
        return value in condition["values"]
    if "not_values" in condition:
        return isinstance(value, str) and value.lower() not in [v.lower() for v in condition["not_values"]]
    if "outside" in condition:
        if not _number(value):
            return False
        low, high, low_open, high_open = _interval(condition["outside"])
        inside = (value > low if low_open else value >= low) and (value < high if high_open else value <= high)
        return not inside
    if condition.get("not_float"):
        return isinstance(value, int)  # bool included: the API's float check rejects it too
    if condition.get("sequence"):
        return isinstance(value, tuple)
    if "length_not" in condition:
        return isinstance(value, tuple) and len(value) != condition["length_not"]
    return False


def combinations() -> List[Dict[str, Any]]:
    try:
        return list(load_toml(api.REJECTED_FILE).get("combination", ()))
    except OSError:
        return []
