"""wi.02: which checkpoint file a path names, for MSA506's look-alikes: the shape of a
path across functions, the file name a path or a ``%`` format gives, and the prefixes of
the file's own ModelCheckpoint callbacks."""

from __future__ import annotations

import re
from typing import List, Optional

import libcst as cst

from msacclint.analysis.calls import argument, literal


def path_shape(expr: cst.BaseExpression) -> Optional[str]:
    """What identifies a checkpoint path across functions: a string literal's value, an
    f-string's text with every replacement field as ``{}``, or the code of a ``self.<attr>``;
    None for anything else (a bare name may hold any path its callers pass)."""
    if isinstance(expr, cst.SimpleString):
        value = expr.evaluated_value
        return f"'{value}'" if isinstance(value, str) else None
    if isinstance(expr, cst.FormattedString):
        parts = [p.value if isinstance(p, cst.FormattedStringText) else "{}" for p in expr.parts]
        text = "".join(parts)
        return f"f'{text}'" if text.strip("{}/") else None
    if isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name) and expr.value.value == "self":
        return cst.Module([]).code_for_node(expr)
    return None


def path_name(ctx, expr: cst.BaseExpression, owner) -> Optional[str]:
    """The file name of a checkpoint path: a string (``scopes.string_value``), or a
    ``"...-%s_732.ckpt" % epochs`` format (also held by a name) with each field filled in with 1."""
    from msacclint.analysis.scopes import scopes, string_value

    text = string_value(ctx, owner, expr)
    if text is None and isinstance(expr, cst.Name) and owner is not None:
        found = scopes(ctx).resolve(owner, expr.value)   # a module-level ``PATH = "...%s..." % n``
        if found is not None and found[1].index is None:
            expr = found[1].value
    if text is None and isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Modulo):
        template = literal(expr.left)
        if isinstance(template, str):
            text = re.sub(r"%[-+ 0#]*\d*(?:\.\d+)?[sdif]", "1", template)
    return text.replace("\\", "/").rsplit("/", 1)[-1] if text is not None else None


def checkpoint_prefixes(ctx) -> List[str]:
    """The ``prefix`` of every ModelCheckpoint callback of the file, where it resolves to a string."""
    from msacclint.analysis.facts import facts
    from msacclint.analysis.scopes import scopes, string_value

    out = []
    sc = scopes(ctx)
    for name, calls in facts(ctx).calls.items():
        if not (name.startswith("mindspore.") and name.endswith(".ModelCheckpoint")):
            continue
        for call in calls:
            prefix = argument(call, "prefix", ("prefix", "directory", "config"))
            value = string_value(ctx, sc.owner(call), prefix.value) if prefix is not None else "CKP"
            if value:
                out.append(value)
    return out
