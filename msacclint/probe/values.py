"""How observed values are shown and compared with the expected text of rules/probe.toml."""

from __future__ import annotations

import ast
import enum
import inspect
import math
from typing import Any, Optional, Tuple

REQUIRED = "<required>"

_LITERAL_TYPES = (type(None), bool, int, float, str)


def is_literal(value: Any) -> bool:
    if isinstance(value, _LITERAL_TYPES):
        return True
    if isinstance(value, (list, tuple)):
        return all(is_literal(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and is_literal(v) for k, v in value.items())
    return False


def plain(value: Any) -> Any:
    """The observed value as a JSON-friendly Python value: literals stay, tuples become
    lists, numpy scalars become numbers, enums become ``Class.NAME``, anything else its str."""
    if value is inspect.Parameter.empty:
        return REQUIRED
    if isinstance(value, enum.Enum):
        return f"{type(value).__name__}.{value.name}"
    if isinstance(value, bool) or value is None or isinstance(value, (int, str)):
        return value
    if isinstance(value, float):
        return value
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    item = getattr(value, "item", None)  # numpy / MindSpore scalars
    if callable(item) and getattr(value, "shape", None) in ((), None):
        try:
            return plain(item())
        except Exception:  # noqa: BLE001 - fall back to the text
            pass
    return str(value)


def show(value: Any) -> str:
    """The text a report prints for a plain() value: Python literal syntax where it is one."""
    if isinstance(value, str) and (value == REQUIRED or _looks_symbolic(value)):
        return value
    return repr(value)


def _looks_symbolic(text: str) -> bool:
    return "." in text and text.split(".", 1)[0][:1].isupper() and text.replace(".", "").replace("_", "").isalnum()


def parse_expected(text: str) -> Tuple[bool, Any]:
    """(True, value) when ``text`` is a Python literal, else (False, text)."""
    try:
        return True, ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return False, text


def agrees(expected_text: str, observed: Any, tolerance: Optional[float] = None) -> bool:
    """Whether a plain() observed value matches the expected literal text."""
    literal, expected = parse_expected(expected_text)
    if not literal:
        return show(observed) == expected
    return _equal(expected, observed, tolerance)


def _equal(expected: Any, observed: Any, tolerance: Optional[float]) -> bool:
    if isinstance(expected, bool) or isinstance(observed, bool) or expected is None or observed is None:
        return type(expected) is type(observed) and expected == observed
    if isinstance(expected, (int, float)) and isinstance(observed, (int, float)):
        if tolerance is not None:
            return abs(expected - observed) <= tolerance
        return math.isclose(expected, observed, rel_tol=1e-9, abs_tol=0.0)
    if isinstance(expected, (list, tuple)) and isinstance(observed, (list, tuple)):
        return len(expected) == len(observed) and all(_equal(e, o, tolerance) for e, o in zip(expected, observed))
    if isinstance(expected, dict) and isinstance(observed, dict):
        return expected.keys() == observed.keys() and all(_equal(expected[k], observed[k], tolerance) for k in expected)
    return type(expected) is type(observed) and expected == observed
