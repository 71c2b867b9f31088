"""Reading a call's arguments the way the callee would bind them, and literal values."""

from __future__ import annotations

from typing import Any, Dict, Optional, Sequence, Tuple

import libcst as cst

from msacclint.analysis.context import FileContext, Question

#: returned by ``literal`` for anything that is not a plain literal
UNKNOWN = object()


def argument(call: cst.Call, name: str, signature: Sequence[str]) -> Optional[cst.Arg]:
    """The Arg that binds parameter ``name`` (by keyword, or by position according to
    ``signature``), or None when it is not given. After a ``*args`` the positions are
    unknown, so only keywords count."""
    position = signature.index(name) if name in signature else None
    index = 0
    for arg in call.args:
        if arg.keyword is not None:
            if arg.keyword.value == name:
                return arg
            continue
        if arg.star:  # *args / **kwargs: stop counting positions
            if arg.star == "*":
                position = None
            continue
        if position is not None and index == position:
            return arg
        index += 1
    return None


def has_star_kwargs(call: cst.Call) -> bool:
    """``f(**kwargs)`` may pass anything: rules about a missing argument stay silent."""
    return any(arg.star == "**" for arg in call.args)


def has_star_args(call: cst.Call) -> bool:
    return any(arg.star == "*" for arg in call.args)


def positional_count(call: cst.Call) -> int:
    return sum(1 for arg in call.args if arg.keyword is None and not arg.star)


def literal(node: cst.BaseExpression, written: bool = False) -> Any:
    """The value of a number, string, True/False/None, a negated number, or a tuple or
    list of those (and of arithmetic on numbers); UNKNOWN for everything else. ``written``:
    only what is written out (no arithmetic; text strings, also concatenated ``"a" "b"``)."""
    if isinstance(node, cst.Integer):
        return int(node.evaluated_value)
    if isinstance(node, cst.Float):
        return float(node.evaluated_value)
    if isinstance(node, cst.SimpleString) or (written and isinstance(node, cst.ConcatenatedString)):
        try:
            text = node.evaluated_value
        except Exception:
            return UNKNOWN
        return UNKNOWN if written and not isinstance(text, str) else text
    if isinstance(node, cst.Name) and node.value in ("True", "False", "None"):
        return {"True": True, "False": False, "None": None}[node.value]
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        inner = literal(node.expression, written)
        if isinstance(inner, (int, float)) and not isinstance(inner, bool):
            return -inner
        return UNKNOWN
    if isinstance(node, (cst.Tuple, cst.List)):
        values = tuple(literal(e.value, written) for e in node.elements if isinstance(e, cst.Element))
        if len(values) == len(node.elements) and all(v is not UNKNOWN for v in values):
            return values
        return UNKNOWN
    if isinstance(node, cst.BinaryOperation) and not written:
        left, right = literal(node.left), literal(node.right)
        if _number(left) and _number(right):
            op = node.operator
            try:
                if isinstance(op, cst.Add):
                    return left + right
                if isinstance(op, cst.Subtract):
                    return left - right
                if isinstance(op, cst.Multiply):
                    return left * right
                if isinstance(op, cst.Divide):
                    return left / right
                if isinstance(op, cst.Power):
                    return left ** right
            except (ZeroDivisionError, OverflowError):
                return UNKNOWN
        return UNKNOWN
    return UNKNOWN


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def is_number(value: Any) -> bool:
    return _number(value)


def keyword_names(call: cst.Call) -> Tuple[str, ...]:
    return tuple(arg.keyword.value for arg in call.args if arg.keyword is not None)


_CONSTANTS = Question("calls.constants", lambda ctx: _module_constants(ctx))


def constant(ctx: FileContext, node: cst.BaseExpression) -> Any:
    """``literal(node)``, and for a name the literal of its one module-level assignment
    (``FROZEN = False`` ... ``use_batch_statistics=FROZEN``) when nothing else in the file
    assigns it; UNKNOWN otherwise."""
    value = literal(node)
    if value is not UNKNOWN or not isinstance(node, cst.Name):
        return value
    table = ctx.ask(_CONSTANTS)
    return table.get(node.value, UNKNOWN)


def _module_constants(ctx: FileContext) -> Dict[str, Any]:
    from msacclint.analysis.flow import flow

    defs = flow(ctx, ctx.module).defs
    out = {}
    for name, assigned in defs.items():
        if len(assigned) == 1 and assigned[0].index is None and f"global {name}" not in ctx.source:
            value = literal(assigned[0].value)
            if value is not UNKNOWN:
                out[name] = value
    return out


def parameter_slots(func: cst.FunctionDef) -> Dict[str, Tuple[int, Optional[cst.BaseExpression]]]:
    """name -> (the position a call passes it at, its default) of a function's parameters;
    keyword-only ones get position -1. A leading ``self``/``cls`` is not passed by a call."""
    p = func.params
    positional = [*p.posonly_params, *p.params]
    if positional and positional[0].name.value in ("self", "cls"):
        positional = positional[1:]
    out: Dict[str, Tuple[int, Optional[cst.BaseExpression]]] = {
        param.name.value: (i, param.default) for i, param in enumerate(positional)}
    out.update({param.name.value: (-1, param.default) for param in p.kwonly_params})
    return out
