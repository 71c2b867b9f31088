"""api.01: ``ops.meshgrid`` read as ``torch.meshgrid``.

- MSA147 (warning): ``ops.meshgrid``/``mindspore.numpy.meshgrid`` without ``indexing=``
  (Cartesian ``'xy'`` by default) whose outputs or inputs are named in matrix order: rows
  before columns (``y, x = ops.meshgrid(ops.arange(h), ops.arange(w))``), the order of
  ``torch.meshgrid``'s default ``'ij'``.
"""

from __future__ import annotations

import re
from typing import Dict, List, Optional, Set

import libcst as cst

from msacclint.analysis.calls import UNKNOWN, argument, has_star_kwargs, literal
from msacclint.analysis.cells import self_attr
from msacclint.analysis.edits import append_keywords
from msacclint.diagnostics import Applicability, Severity
from msacclint.rules.base import FixSpec, Invalid, Rule, Valid
from msacclint.rules.fixtures.nets import cell, module

#: meshgrids whose default indexing is 'xy' (mint.meshgrid defaults to 'ij', as torch's)
XY_MESHGRIDS = frozenset({"mindspore.ops.meshgrid", "mindspore.numpy.meshgrid", "mindspore.ops.function.meshgrid"})
#: the primitive, called with a tuple of inputs; its indexing default is 'xy' as well
XY_PRIMITIVE = "mindspore.ops.Meshgrid"

#: axis words, by their place in matrix ('ij') order: depth, rows, columns
_AXES: Dict[str, int] = {}
for _rank, _words in enumerate((("z", "d", "depth", "depths"),
                                ("y", "h", "height", "heights", "row", "rows", "i"),
                                ("x", "w", "width", "widths", "col", "cols", "column", "columns", "j"))):
    for _word in _words:
        _AXES[_word] = _rank
_TOKENS = re.compile(r"[A-Za-z]+")
_SIZE_FUNCTIONS = ("arange", "linspace", "range")


def axis_of(name: str) -> Optional[int]:
    """The axis a name says (0 depth, 1 rows, 2 columns), from its word parts: ``grid_y``,
    ``yy``, ``ys``, ``shift_x``, ``feat_h``, ``rows``; None when no part, or parts of two
    axes, say one."""
    found = set()
    for token in _TOKENS.findall(name):
        token = token.lower()
        if len(token) > 1 and len(set(token)) == 1:
            token = token[0]  # yy, xx
        elif len(token) == 2 and token.endswith("s") and token[0] in "xyzhwdij":
            token = token[0]  # ys, xs
        if token in _AXES:
            found.add(_AXES[token])
    return found.pop() if len(found) == 1 else None


def _input_axis(expr: cst.BaseExpression) -> Optional[int]:
    """The axis an input of the meshgrid says: its name, or the size given to the
    ``arange``/``linspace``/``range`` call that builds it."""
    if isinstance(expr, cst.Name):
        return axis_of(expr.value)
    if isinstance(expr, cst.Attribute):
        return axis_of(expr.attr.value)
    if isinstance(expr, cst.Call):
        func = expr.func
        tail = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
        if tail not in _SIZE_FUNCTIONS:
            return None
        sizes = [a.value for a in expr.args if a.keyword is None and literal(a.value) is UNKNOWN]
        if tail != "arange" and tail != "range":
            sizes = sizes[-1:]  # linspace(start, stop, num): the count
        axes = {_input_axis(s) for s in sizes} - {None}
        return axes.pop() if len(axes) == 1 else None
    return None


def _matrix_order(axes: List[Optional[int]]) -> bool:
    """Every name says an axis and they run depth, rows, columns: matrix ('ij') order."""
    return len(axes) >= 2 and None not in axes and all(a < b for a, b in zip(axes, axes[1:]))  # type: ignore[operator]


class MeshgridXyDefault(Rule):
    code = "MSA147"
    name = "meshgrid-xy-default"
    checklist = "api.01"
    severity = Severity.WARNING
    group = "suspicious"
    message = "ops.meshgrid defaults to indexing='xy'; the names here are in matrix ('ij') order"
    what = ("Reports `ops.meshgrid(...)` and `mindspore.numpy.meshgrid(...)` calls without `indexing=` whose "
            "unpacked outputs, or whose inputs (a name, or the size given to the `arange`/`linspace` that builds "
            "it), are named in matrix order: depth before rows before columns (`y, x = ...`, `grid_h, grid_w`, "
            "`ops.meshgrid(ops.arange(h), ops.arange(w))`); also an `ops.Meshgrid()` primitive without "
            "`indexing` called with a tuple of inputs. The inputs decide when they say their axes (the torch DCN "
            "port names its row grid `p_0_x`, but builds it from `range_h` first); the output names decide "
            "otherwise. Cartesian order (`x, y = ops.meshgrid(xs, ys)`), names that say no axis, an explicit "
            "`indexing=` and `mint.meshgrid` (whose default is already 'ij') are left alone. A warning: the "
            "intent is read from the names.")
    why = ("MindSpore's `ops.meshgrid` and `mindspore.numpy.meshgrid` default to `indexing='xy'`, NumPy's "
           "Cartesian order: for inputs of lengths H and W the outputs have shape (W, H), and the first output "
           "varies along the columns. `torch.meshgrid` defaults to `'ij'` (shape (H, W), the first output varies "
           "along the rows), and so does `mint.meshgrid`. A port of `y, x = torch.meshgrid(arange(H), "
           "arange(W))` to `ops.meshgrid` gets both grids transposed; with H == W nothing fails, and when the "
           "grids are flattened into pixel coordinates (anchors, positional encodings, a homography warp) every "
           "position is paired with the wrong pixel: training goes on and accuracy drops (verified in "
           "MindSpore 2.7.1's `ops.meshgrid` signature and docstring, and a history case of the "
           "mindspore-courses/competition MVSNet port).")
    example = """
    from mindspore import ops
    y, x = ops.meshgrid(ops.arange(height), ops.arange(width))  # MSA147
    """
    use_instead = """
    from mindspore import ops
    y, x = ops.meshgrid(ops.arange(height), ops.arange(width), indexing='ij')
    """
    fix_safety = ("Unsafe fix: adds indexing='ij', which transposes both outputs; right when the names say what "
                  "the code means, so a person confirms it.")
    versions = "ops.meshgrid's default has been 'xy' since it was added (checked on 2.7.1); mint.meshgrid is 'ij'."
    VALID = (
        Valid(use_instead, note="idiomatic: the order said explicitly"),
        Valid("""
            from mindspore import ops
            x, y = ops.meshgrid(ops.arange(width), ops.arange(height))
            """, note="Cartesian names in Cartesian order: the default is meant"),
        Valid("""
            from mindspore import mint
            y, x = mint.meshgrid(mint.arange(height), mint.arange(width))
            """, note="mint.meshgrid defaults to 'ij'"),
        Valid("""
            import torch
            import mindspore
            y, x = torch.meshgrid(torch.arange(height), torch.arange(width))
            """, note="torch.meshgrid: 'ij' is its default"),
        Valid("""
            from mindspore import ops
            a, b = ops.meshgrid(u, v)
            """, note="names that say no axis"),
        Valid("""
            import numpy as np
            y, x = np.meshgrid(np.arange(h), np.arange(w), indexing='ij')
            """, note="NumPy, explicit"),
        Valid("""
            from mindspore import ops
            meshgrid = ops.Meshgrid(indexing="ij")
            y, x = meshgrid((ops.arange(h), ops.arange(w)))
            """, note="the primitive with its indexing given"),
    )
    INVALID = (
        Invalid(example, note="torch's y, x = torch.meshgrid(arange(H), arange(W)) ported by renaming",
                unsafe_fixed="""
    from mindspore import ops
    y, x = ops.meshgrid(ops.arange(height), ops.arange(width), indexing='ij')
    """),
        Invalid("""
            import mindspore.numpy as mnp
            grid = mnp.stack(mnp.meshgrid(mnp.arange(feat_h), mnp.arange(feat_w)), axis=-1)  # MSA147
            """, note="no names on the outputs: the inputs' sizes say rows, then columns"),
        Invalid("""
            import mindspore as ms
            shift_y, shift_x = ms.ops.meshgrid(ys, xs)  # MSA147
            """),
        Invalid(module("from mindspore import nn, ops", cell("Offsets", init="self.meshgrid = ops.Meshgrid()",
                                                           args="h, w", construct="""
            range_h = ops.range(1, h + 1, 1)
            range_w = ops.range(1, w + 1, 1)
            p_0_x, p_0_y = self.meshgrid((range_h, range_w))  # MSA147
            return p_0_x.reshape(1, 1, h, w), p_0_y.reshape(1, 1, h, w)
        """)), note="a deformable-conv port: the primitive, rows first, names that follow torch's code"),
    )

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        #: a meshgrid call unpacked into names -> those names
        self._targets: Dict[cst.Call, List[str]] = {}
        #: names (``meshgrid``, ``self.meshgrid``) bound to an ``ops.Meshgrid()`` primitive at 'xy'
        self._primitives: Set[str] = set()

    def visit_Assign(self, node: cst.Assign) -> None:
        if len(node.targets) != 1 or not isinstance(node.value, cst.Call):
            return
        target = node.targets[0].target
        value = node.value
        if self.ctx.resolve(value.func) == XY_PRIMITIVE and not has_star_kwargs(value) and \
                argument(value, "indexing", ("indexing",)) is None and _bound(target):
            self._primitives.add(_bound(target))
        if isinstance(target, (cst.Tuple, cst.List)):
            self._targets[node.value] = [e.value.value if isinstance(e.value, cst.Name) else "" for e in target.elements]

    def visit_Call(self, node: cst.Call) -> None:
        name = self.ctx.resolve(node.func)
        if name in XY_MESHGRIDS:
            if has_star_kwargs(node) or argument(node, "indexing", ()) is not None or any(a.star for a in node.args):
                return
            inputs = [a.value for a in node.args if a.keyword is None]
            short = name.replace("mindspore.", "").replace("function.", "")
        elif _bound(node.func) in self._primitives and len(node.args) == 1 and \
                isinstance(node.args[0].value, (cst.Tuple, cst.List)):
            inputs = [e.value for e in node.args[0].value.elements]
            short = "ops.Meshgrid()"
        else:
            return
        names = self._targets.get(node)
        outputs = [axis_of(n) for n in names] if names is not None else None
        named = [_input_axis(e) for e in inputs]
        if _matrix_order(named):
            what = "its inputs say " + ", ".join(("depth", "rows", "columns")[a] for a in named if a is not None)
        elif outputs is not None and _matrix_order(outputs) and not _cartesian(named):
            what = "its outputs are named " + ", ".join(names or ())
        else:
            return  # Cartesian order, or names that say no axis: the default may be meant
        fix = None
        if short != "ops.Meshgrid()":
            fix = FixSpec("indexing='ij' (matrix order, as torch.meshgrid)", Applicability.UNSAFE,
                          [(node, append_keywords(node, [("indexing", "'ij'")]))])
        self.report(node, f"{short} defaults to indexing='xy' (the first output varies along the columns, shape "
                    f"(W, H)), but {what}, the matrix order of torch.meshgrid's default 'ij': pass indexing='ij' "
                    "(or indexing='xy' if the transposed grids are meant)", fix)


def _bound(node: cst.BaseExpression) -> Optional[str]:
    """``name`` or ``self.name`` as text; None for anything else."""
    if isinstance(node, cst.Name):
        return node.value
    attr = self_attr(node)
    return "self." + attr if attr is not None else None


def _cartesian(axes: List[Optional[int]]) -> bool:
    known = [a for a in axes if a is not None]
    return len(known) >= 2 and known[0] > known[1]
