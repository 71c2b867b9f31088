"""MS-DROP-01: ``nn.Dropout``'s first argument is still keep_prob in MindSpore 2.10.

Three codes, by how sure the finding is:
- MSA101 (error): a value that reads as the wrong probability — a drop rate given as
  keep_prob (``nn.Dropout(0.1)``, ``nn.Dropout(drop_rate)``, ``keep_prob=drop_rate``), or
  a keep probability given as p (``p=1 - proj_drop``, ``p=keep_prob``, ``p=0.9``);
- MSA102 (warning): any other positional argument; right today, but its meaning flips
  once keep_prob is removed, as the 2.10 docstring announces;
- MSA103 (info, off by default): ``keep_prob=`` by keyword, correct and loud (TypeError)
  after the removal: a deprecation note.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

import libcst as cst

from msacclint.analysis.callers import argument_values
from msacclint.analysis.calls import constant, is_number, literal
from msacclint.analysis.cells import cells
from msacclint.analysis.edits import with_keyword
from msacclint.analysis.flow import flow
from msacclint.analysis.liveness import forward_owner
from msacclint.analysis.names import last_name, one_minus, says_drop, says_keep
from msacclint.analysis.snapshot import for_settings
from msacclint.diagnostics import Applicability, Severity
from msacclint.rules.base import FixSpec, Invalid, Valid
from msacclint.rules.examples import fill, model_zoo_config
from msacclint.rules.function_rule import InFunctionRule
from msacclint.rules.table import TableRuleMixin, called

DROPOUT = "mindspore.nn.Dropout"
#: the functional dropouts: their ``p`` (second positional) is the drop probability, as in
#: PyTorch; MSA101 reads it the way it reads ``nn.Dropout(p=...)``
FUNCTIONAL_DROPOUT = {"mindspore.ops.dropout": "ops.dropout", "mindspore.ops.function.dropout": "ops.dropout",
                      "mindspore.ops.function.nn_func.dropout": "ops.dropout",
                      "mindspore.mint.nn.functional.dropout": "mint.nn.functional.dropout"}
#: dropout primitives whose call takes the drop probability ``p`` (``DropoutExt()(input, p, seed,
#: offset)``), built in ``__init__`` and called through the attribute in ``construct``
DROPOUT_PRIMITIVES = {"mindspore.ops.DropoutExt": "DropoutExt", "mindspore.ops.auto_generate.DropoutExt": "DropoutExt",
                      "mindspore.ops.auto_generate.gen_ops_prim.DropoutExt": "DropoutExt",
                      "mindspore.ops.operations.nn_ops.DropoutExt": "DropoutExt"}
#: MindSpore dropouts whose ``keep_prob`` is the keep probability (a project class handing its
#: parameter to one takes a keep probability too)
DROPOUT_KEEP_APIS = frozenset({"mindspore.nn.Dropout", "mindspore.ops.Dropout", "mindspore.ops.Dropout2D",
                               "mindspore.ops.Dropout3D"})
#: methods of a primitive that return the primitive itself (``P.X().add_prim_attr(...)``)
_PRIMITIVE_SETTERS = frozenset({"add_prim_attr", "shard", "set_device", "recompute", "set_prim_instance_name"})


def primitive_of(ctx, call: cst.Call, class_name: Optional[str]) -> Optional[str]:
    """The dropout primitive that ``self.<attr>(...)`` calls, when ``__init__`` of the enclosing
    Cell assigned that attribute a DROPOUT_PRIMITIVES instance (through setters such as
    ``.add_prim_attr``)."""
    func = call.func
    if class_name is None or not (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name)
                                  and func.value.value == "self"):
        return None
    info = cells(ctx).classes.get(class_name)
    attr = info.attrs.get(func.attr.value) if info is not None else None
    value = attr.value if attr is not None else None
    while isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and \
            value.func.attr.value in _PRIMITIVE_SETTERS:
        value = value.func.value
    if not isinstance(value, cst.Call):
        return None
    callee = ctx.resolve(value.func)
    return callee if callee in DROPOUT_PRIMITIVES else None


def _number_text(value: float) -> str:
    return repr(round(value, 10))


def _complement(value: cst.BaseExpression) -> cst.BaseExpression:
    """The expression for ``1 - value``, simplified when it can be."""
    number = literal(value)
    if is_number(number):
        return cst.parse_expression(_number_text(1 - number))
    inner = one_minus(value)
    if inner is not None:
        return inner
    if isinstance(value, (cst.Name, cst.Attribute, cst.Subscript, cst.Call)):
        return cst.parse_expression("1 - " + cst.Module([]).code_for_node(value))
    return cst.parse_expression("1 - (" + cst.Module([]).code_for_node(value) + ")")


def _with_p(call: cst.Call, arg: cst.Arg, value: cst.BaseExpression) -> Optional[cst.Call]:
    """The call with ``arg`` rewritten as ``p=value``; None when a positional argument follows
    it (``nn.Dropout(0.1, False)``): a keyword there would not parse."""
    later = call.args[[i for i, a in enumerate(call.args) if a is arg][0] + 1:]
    if arg.keyword is None and any(a.keyword is None and not a.star for a in later):
        return None
    new_arg = with_keyword(arg, "p", value)
    return call.with_changes(args=[new_arg if a is arg else a for a in call.args])


def _p_fix(description: str, applicability: Applicability, call: cst.Call, arg: cst.Arg,
           value: cst.BaseExpression) -> Optional[FixSpec]:
    fixed = _with_p(call, arg, value)
    return FixSpec(description, applicability, [(call, fixed)]) if fixed is not None else None


#: a value as (expression it rests on, whether it is 1 minus that expression)
Reading = Tuple[cst.BaseExpression, bool]


#: a config class of another file, its attributes read through an annotated parameter
_GRAPHORMER_CONFIG = """
    class GraphormerConfig:
        def __init__(self, attention_dropout=0.1, attention_keep_prob=0.9, **kwargs):
            self.attention_dropout = attention_dropout
            self.attention_keep_prob = attention_keep_prob
"""
_GRAPHORMER_ATTENTION = """
    from mindspore import nn
    from .configuration_graphormer import GraphormerConfig

    class GraphormerAttention(nn.Cell):
        def __init__(self, config: GraphormerConfig):
            super().__init__()
            self.drop = nn.Dropout(p={p}){mark}

        def construct(self, x):
            return self.drop(x)

    attention = GraphormerAttention(GraphormerConfig())
"""


_FORWARDED_HEAD = """
    import mindspore.nn as nn

    class Head(nn.Cell):
        def __init__(self, c, drop_rate):
            super().__init__()
            self.drop = nn.Dropout(drop_rate){mark}
"""


def _forwarded_case(rate: str, mark: str = "") -> Dict[str, str]:
    """A Head whose rate a builder forwards through ``**kwargs`` from an entry script passing ``rate``."""
    return {"src/__init__.py": "", "src/head.py": fill(_FORWARDED_HEAD, mark=mark),
            "src/build.py": "from src.head import Head\n\ndef build_head(c, **kwargs):\n    return Head(c, **kwargs)\n",
            "train.py": f"from src.build import build_head\n\nhead = build_head(64, drop_rate={rate})\n"}


#: a Dropout Cell on a primitive built in __init__ and called in construct
_PRIMITIVE_CELL = """
    import mindspore as ms
    from mindspore import nn, ops
    from mindspore.common.generator import default_generator

    class ParallelDropout(nn.Cell):
        def __init__(self, drop_prob=0.1):
            super().__init__()
            self.drop_prob = drop_prob
            self.keep_prob = 1.0 - drop_prob
            self.seed, self.offset = default_generator._step(ms.Tensor(1, ms.int64))
            self.dropout = ops.auto_generate.DropoutExt().add_prim_attr("side_effect_hidden", True)

        def construct(self, x):
            if not self.training:
                return x
            out, _ = self.dropout(x, p=self.{attr}, seed=self.seed, offset=self.offset){mark}
            return out
"""


class _DropoutRule(TableRuleMixin, InFunctionRule):
    entry_id = "MS-DROP-01"
    versions = ("keep_prob is the first parameter from 1.x to 2.10.0 (verified on 2.10.0: "
                "nn.Dropout(0.1) zeroes about 90 % in training). p= exists since 2.0.")

    #: whether the rule also reads the drop rate of the functional dropout (FUNCTIONAL_DROPOUT)
    functional = False

    def visit_Call(self, node: cst.Call) -> None:
        callee = called(self.ctx, node)
        if callee is None and self.functional:
            callee = primitive_of(self.ctx, node, self._class_names[-1] if self._class_names else None)
        if callee in FUNCTIONAL_DROPOUT or callee in DROPOUT_PRIMITIVES:
            if self.functional:
                self._evidence = []
                self._layer = callee
                positional = [a for a in node.args if a.keyword is None and not a.star]
                keywords = {a.keyword.value: a for a in node.args if a.keyword is not None}
                p = keywords.get("p") or (positional[1] if len(positional) > 1 else None)
                if p is not None:
                    self.check_p(node, p)
            return
        if callee != DROPOUT:
            return
        self._layer = DROPOUT
        self._evidence = []
        if forward_owner(self.ctx, self.scope) is not None:
            return  # built during the forward pass: inert whatever its value (MSA204)
        positional = [a for a in node.args if a.keyword is None and not a.star]
        keywords = {a.keyword.value: a for a in node.args if a.keyword is not None}
        keep_arg = positional[0] if positional else keywords.get("keep_prob")
        p_arg = keywords.get("p") or (positional[1] if len(positional) > 1 else None)
        if p_arg is not None:
            keep_arg = None  # MindSpore uses p whenever it is given: the keep_prob value is never read
            if p_arg.keyword is None and isinstance(literal(p_arg.value), bool):
                return  # Dropout(0.1, False): p must be a number, a bool raises TypeError (loud)
        self.check(node, keep_arg, p_arg, by_position=bool(positional))

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._class_names: List[str] = []
        #: evidence of values the project layer resolved for the last readings
        self._evidence: list = []
        #: the callee of the call being checked (nn.Dropout or a functional dropout)
        self._layer = DROPOUT
        #: values the project resolved for the last readings that the branch around the call excludes
        self._excluded: list = []

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._class_names.append(node.name.value)

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self._class_names.pop()

    def report(self, node, message=None, fix=None, **extra) -> None:
        if self._layer == DROPOUT and self.contradicted(DROPOUT, ["keep_prob"]):
            return  # the snapshot's release has no keep_prob default of 0.5 (e.g. it was removed)
        where = ""
        related = []
        if self._evidence:
            shown = sorted({f"{v.value:g} at {v.evidence.where()}" for v in self._evidence if v.evidence})
            where = f" (the value is {', '.join(shown[:3])})" if shown else ""
            related = [(v.evidence.path, v.evidence.line, v.evidence.what) for v in self._evidence if v.evidence]
        observed = self._observed() if self._layer == DROPOUT else ""
        related = list(extra.pop("related", ())) + related
        super().report(node, (message or self.message) + where + observed, fix, related=related, **extra)

    def _observed(self) -> str:
        """What a probe snapshot saw of nn.Dropout's first parameter, quoted in the message."""
        snapshot = for_settings(self.ctx.settings)
        first = snapshot.first_parameter(DROPOUT) if snapshot else None
        if first is None:
            return ""
        default = snapshot.describe(DROPOUT, first)
        return f" ({snapshot.where()}, Dropout's first parameter is {first}" + \
            (f", default {default.rsplit(' ', 1)[-1]})" if default and "defaults to" in default else ")")

    def check(self, call: cst.Call, keep: Optional[cst.Arg], p: Optional[cst.Arg], by_position: bool) -> None:
        raise NotImplementedError

    # -- what a value holds, following the enclosing function's assignments ------------
    def readings(self, expr: cst.BaseExpression, call: cst.Call) -> List[List[Reading]]:
        """The values an argument may hold: alternatives, each a group of readings that
        must all read wrong for the value to be reported. A reading is (base,
        complemented): ``1 - x`` is (x, True). A local name is followed to its assignment
        (``rate = 1 - rate`` makes ``1 - rate`` mean the original rate); a local name
        assigned only literals gives one alternative per literal; a parameter with a literal
        default is judged by its name and its default together (they must agree: a
        ``dropout=0.9`` used as ``p=1 - dropout`` and a ``drop_rate=0.7`` used as
        ``p=drop_rate`` stay silent). Anything else rests on the expression itself."""
        fl = flow(self.ctx, self._functions[-1]) if self._functions else None
        before = fl.order(call) if fl is not None else None
        self._evidence = []
        self._excluded = []
        self._assumed_config = None
        self._reading_call = call
        return self._readings(expr, fl, before, depth=0)

    def _on_path(self, expr: cst.BaseExpression, values: List[Any]) -> List[Any]:
        """The values that the branches around the call let through (``switches.let_through``):
        under ``if config.dropout_p:`` a value of 0 never reaches the layer."""
        from msacclint.analysis.scopes import scopes
        from msacclint.analysis.switches import let_through

        call = getattr(self, "_reading_call", None)
        event = scopes(self.ctx).event(call) if call is not None else None
        return values if event is None else let_through(event.guards, expr, values, lambda v: v.value)

    def _project_readings(self, expr: cst.BaseExpression, fl) -> Optional[List[List[Reading]]]:
        """Values the project layer resolves for a parameter without a usable default
        (what every caller binds), an imported constant, or a config value; one
        alternative per value, or None when any of them is unknown."""
        import os

        from msacclint.analysis.imports import dotted

        project = self.ctx.project
        if project is None:
            return None
        path = os.path.abspath(self.ctx.path)
        values = None
        func = fl.root if fl is not None else None
        if isinstance(expr, cst.Name) and isinstance(func, cst.FunctionDef) and \
                _parameter_names(func) and expr.value in _parameter_names(func):
            from msacclint.project.summary import ClassSummary, FunctionSummary, signature

            if len(self._functions) != 1 or len(self._class_names) > 1:
                return None
            params = signature(func)
            if self._class_names:
                if func.name.value != "__init__":
                    return None
                cls = ClassSummary(name=self._class_names[0], line=0,
                                   params=tuple(p for p in params if p[0] != "self"))
                values = project.parameter_values(path, expr.value, cls=cls)
            else:
                values = project.parameter_values(path, expr.value,
                                                  func=FunctionSummary(name=func.name.value, line=0, params=params))
        elif isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name) and \
                isinstance(func, cst.FunctionDef) and (_annotation(func, expr.value.value) is not None
                                                       or self._sole_config_class(func, expr.value.value)):
            # ``config.attention_dropout`` with ``config: GraphormerConfig``: the attribute the
            # annotated class's __init__ sets from its parameter of that name, by its default;
            # an unannotated ``config`` in a file importing one config class is assumed to be one
            annotated = _annotation(func, expr.value.value)
            if annotated is None:
                annotated = self._sole_config_class(func, expr.value.value)
                self._assumed_config = annotated
            found = project.resolve_from(self.ctx, annotated)
            if found is None or found[0] != "class":
                return None
            cls, attr = found[2], expr.attr.value
            default = dict(cls.params).get(attr)
            if default is None or cls.attrs.get(attr) != ("param", attr):
                return None
            values = project.values(found[1], default)
            if values:
                from msacclint.project.index import Evidence, Value

                shown = project.display(found[1])
                values = [Value(v.value, v.evidence or Evidence(shown, cls.line, f"{cls.name}({attr}={v.value!r})"))
                          for v in values]
        else:
            name = dotted(expr)
            if name is None and isinstance(expr, cst.Subscript):
                base, key = dotted(expr.value), last_name(expr)
                name = f"{base}.{key}" if base and key else None
            if name is None:
                return None
            values = project.values_from(self.ctx, name)
        if not values or not all(is_number(v.value) for v in values):
            return None
        kept = self._on_path(expr, values)
        if not kept:
            self._excluded.extend(values)
            return None  # every value the project gives it is one the enclosing branch excludes
        values = kept
        self._evidence.extend(values)
        return [[(cst.parse_expression(_number_text(v.value)), False)] for v in values]

    def _sole_config_class(self, func: cst.FunctionDef, name: str) -> Optional[str]:
        """For an unannotated parameter named ``config`` (or ``*_config``): the one class
        whose name ends in ``Config`` that the file imports by name, else None."""
        if not (name == "config" or name.endswith("_config")) or name not in _parameter_names(func) \
                or _annotation(func, name) is not None:
            return None
        bindings = self.ctx.project.imported_names(self.ctx) if self.ctx.project is not None else {}
        imported = [bound for bound, target in bindings.items()
                    if bound.endswith("Config") and bound[:1].isupper() and target.rsplit(".", 1)[-1] == bound]
        return imported[0] if len(imported) == 1 else None

    def _assumption(self) -> str:
        """The words a finding adds when its value rests on an assumed config class."""
        assumed = getattr(self, "_assumed_config", None)
        if not assumed:
            return ""
        return (f" (assumed: the unannotated config parameter is a {assumed}, the only config class this file "
                "imports, read at its default)")

    def _readings(self, expr, fl, before, depth) -> List[List[Reading]]:
        inner = one_minus(expr)
        if inner is not None:
            return [[(base, not flipped) for base, flipped in group]
                    for group in self._readings(inner, fl, before, depth + 1)]
        if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value == "float" \
                and len(expr.args) == 1 and expr.args[0].keyword is None and not expr.args[0].star:
            return self._readings(expr.args[0].value, fl, before, depth + 1)
        if isinstance(expr, cst.Name) and fl is None and depth <= 8:
            value = constant(self.ctx, expr)
            if is_number(value):  # module level: a module constant assigned once decides
                return [[(cst.Float(repr(float(value))), False)]]
        if isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name) and expr.value.value == "self" \
                and depth <= 8:
            assigned = self._init_value(expr.attr.value)
            if assigned is not None:
                return self._readings(assigned[0], assigned[1], 10 ** 9, depth + 1)
        if not isinstance(expr, cst.Name) or fl is None or before is None or depth > 8:
            if isinstance(expr, (cst.Name, cst.Attribute, cst.Subscript)) and depth <= 8:
                projected = self._project_readings(expr, fl)
                if projected:
                    return projected
            return [[(expr, False)]]
        defs = [d for d in fl.defs.get(expr.value, ()) if d.order < before]
        if not defs and expr.value not in _parameter_names(fl.root):
            value = constant(self.ctx, expr)
            if is_number(value):  # a module constant: its value decides, not its name
                return [[(cst.Float(repr(float(value))), False)]]
        if not defs and depth == 0:
            callers = self._from_callers(expr, fl)
            if callers is not None:
                return callers
        if not defs:
            projected = None
            default = _parameter_default(fl.root, expr.value)
            if default is None or not is_number(literal(default)):
                projected = self._project_readings(expr, fl)
            elif literal(default) == 0.5:
                # a default of 0.5 reads the same as keep_prob and as p: it shows nothing. What the
                # project's callers pass decides; when they cannot all be read, the name does
                projected = self._project_readings(expr, fl) or _by_name_and_default(expr, fl.root, neutral=False)
            return projected or _by_name_and_default(expr, fl.root)
        if any(d.index is not None or not isinstance(d.node, (cst.Assign, cst.AnnAssign)) for d in defs):
            return [[(expr, False)]]  # a loop variable, an augmented or unpacked value
        if all(is_number(literal(d.value)) for d in defs):
            return [[(d.value, False)] for d in defs]
        if len(defs) > 1:
            return [[(expr, False)]]
        return self._readings(defs[0].value, fl, defs[0].order, depth + 1)

    def _init_value(self, attr: str):
        """``self.<attr>`` read in a method: the value the class's ``__init__`` assigns it, when it
        assigns it once and nothing else in the class does (with the ``__init__``'s flow)."""
        from msacclint.analysis.cells import assigned_outside_init, cells

        if not self._class_names:
            return None
        info = cells(self.ctx).classes.get(self._class_names[-1])
        init = info.methods.get("__init__") if info is not None else None
        values = [v for name, v in info.assigned if name == attr] if info is not None else []
        if init is None or len(values) != 1 or assigned_outside_init(info, attr):
            return None
        return values[0], flow(self.ctx, init)

    def _from_callers(self, expr: cst.Name, fl) -> Optional[List[List[Reading]]]:
        """A parameter read through the file's call sites: a caller that passes a number or
        ``1 - x`` is read by that value; any other caller by the parameter's name as before.
        None when the call sites cannot all be read."""
        values = argument_values(self.ctx, fl.root, expr.value)
        if values is None:
            return None
        out: List[List[Reading]] = []
        default = _parameter_default(fl.root, expr.value)
        for value in values:
            if value is not default and (is_number(literal(value)) or one_minus(value) is not None):
                out.extend(self._readings(value, None, None, 1))
            else:  # left out, or a value it cannot read: the parameter's name and default, as without callers
                out.extend(_by_name_and_default(expr, fl.root))
        return out


def _wrong(alternatives: List[List[Reading]], judge, evidence=None) -> bool:
    """Some alternative reads wrong in every reading; with ``evidence``, that alternative
    must also hold a reading ``evidence`` accepts."""
    return any(group and all(judge(r) for r in group) and (evidence is None or any(evidence(r) for r in group))
               for group in alternatives)


def _numeric(reading: Reading) -> bool:
    return _number(*reading) is not None


def _silent_keep(reading: Reading) -> bool:
    """A value as keep_prob that MindSpore accepts: 0 (or less) raises a ValueError when the layer
    is built, which is loud, not a silent misreading."""
    value = _number(*reading)
    return value is not None and value > 0


def _silent_p(reading: Reading) -> bool:
    """A value as p that MindSpore accepts: 1 (or more) raises a ValueError when the layer is built."""
    value = _number(*reading)
    return value is not None and value < 1


def _keep_named(reading: Reading) -> bool:
    base, flipped = reading
    return not flipped and says_keep(base)


def _by_name_and_default(expr: cst.Name, func, neutral: bool = True) -> List[List[Reading]]:
    """A parameter without a readable value: judged by its name and its literal default
    together (they must agree), by the default alone when the name says nothing. With
    ``neutral=False`` a default of 0.5 (the same as a keep and as a drop probability) is left
    out when the name says drop or keep: the callers' values, unknown, are what the name says."""
    default = _parameter_default(func, expr.value)
    if not neutral and default is not None and literal(default) == 0.5 and (says_drop(expr) or says_keep(expr)):
        return [[(expr, False)]]
    if default is not None and is_number(literal(default)):
        if says_drop(expr) or says_keep(expr):
            return [[(expr, False), (default, False)]]
        return [[(default, False)]]
    return [[(expr, False)]]


def _parameter_names(func) -> List[str]:
    if not isinstance(func, cst.FunctionDef):
        return []
    params = func.params
    return [p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)]


def _parameter_default(func, name: str) -> Optional[cst.BaseExpression]:
    if not isinstance(func, cst.FunctionDef):
        return None
    params = func.params
    for param in (*params.posonly_params, *params.params, *params.kwonly_params):
        if param.name.value == name:
            return param.default
    return None


def _number(base: cst.BaseExpression, flipped: bool):
    value = literal(base)
    if not is_number(value):
        return None
    return 1 - value if flipped else value


def _keep_reads_as_drop(reading: Reading) -> bool:
    """A keep probability that reads as a drop rate: below 0.5, or a drop name (not 1 - it)."""
    base, flipped = reading
    value = _number(base, flipped)
    if value is not None:
        return value < 0.5
    return says_keep(base) if flipped else says_drop(base)


def _p_reads_as_keep(reading: Reading) -> bool:
    """A drop probability that reads as a keep one: above 0.5, ``1 - <drop name>``, a keep name."""
    base, flipped = reading
    value = _number(base, flipped)
    if value is not None:
        return value > 0.5
    return says_drop(base) if flipped else says_keep(base)


_MODEL_READING_CONFIG = """
    import mindspore.nn as nn
    from src.model_utils.config import config

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.drop = nn.Dropout(keep_prob=config.{key}){mark}
"""


#: a project layer class of another file, named like MindSpore's, that hands its parameter
#: to a MindSpore dropout (``{inner}``: the call in its __init__)
_OWN_DROPOUT = """
    from mindspore import nn, ops

    class Dropout(nn.Cell):
        def __init__(self, {param}=0.5):
            super().__init__()
            self.{param} = {param}
            self.dropout = {inner}

        def construct(self, x):
            if not self.training:
                return x
            out, _ = self.dropout(x)
            return out
"""
_OWN_DROPOUT_USER = """
    import mindspore.nn as nn
    from src.layers import Dropout

    class Embeddings(nn.Cell):
        def __init__(self, vocab, hidden):
            super().__init__()
            self.embed = nn.Embedding(vocab, hidden)
            self.dropout = Dropout({rate}){mark}
"""


#: a parallel Dropout Cell of src/ over the DropoutExt primitive (whose p is the drop
#: probability): the keep probability it computes is handed on as ``p={attr}``; the model of
#: another file builds it from its config (``{rate}``)
_EXT_CELL = """
    import mindspore as ms
    from mindspore import nn
    from mindspore.common.generator import default_generator

    class Dropout(nn.Cell):
        def __init__(self, drop_prob=0.5):
            super().__init__()
            keep_prob = 1.0 - drop_prob
            self.keep_prob = keep_prob
            self.drop_prob = drop_prob
            self.seed, self.offset = default_generator._step(ms.Tensor(1, ms.int64))
            self.dropout = ms.ops.auto_generate.DropoutExt()

        def construct(self, x):
            if not self.training:
                return x
            out, _ = self.dropout(input=x, p=self.{attr}, seed=self.seed, offset=self.offset){mark}
            return out
"""
_EXT_USER = """
    import mindspore.nn as nn
    from src.dropout import Dropout

    class Block(nn.Cell):
        def __init__(self, config):
            super().__init__()
            self.hidden_dropout = Dropout(drop_prob={rate})
"""


def _ext_cell(attr: str, rate: str = "config.hidden_dropout", mark: str = "") -> dict:
    return {"src/__init__.py": "", "src/dropout.py": fill(_EXT_CELL, attr=attr, mark=mark),
            "src/block.py": fill(_EXT_USER, rate=rate)}


def _own_dropout(rate: str, param: str = "keep_prob", inner: str = "ops.Dropout(keep_prob)",
                 mark: str = "") -> dict:
    return {"src/__init__.py": "", "src/layers.py": fill(_OWN_DROPOUT, param=param, inner=inner),
            "src/embeddings.py": fill(_OWN_DROPOUT_USER, rate=rate, mark=mark)}


def _config_case(key: str, value: str, mark: str = "") -> dict:
    """A model reading its rate from default_config.yaml through a config loader module."""
    return dict(model_zoo_config({key: value}), **{"src/model.py": fill(_MODEL_READING_CONFIG, key=key, mark=mark)})


#: a config class, and an attention Cell of another file that keeps its rate from an
#: unannotated ``config`` parameter and hands it to the functional dropout as ``{p}``
_LONG_CONFIG = """
    class LongConfig:
        def __init__(self, attention_probs_dropout_prob=0.1, **kwargs):
            self.attention_probs_dropout_prob = attention_probs_dropout_prob
"""
_LONG_ATTENTION = """
    import mindspore
    from mindspore import nn
    from .configuration import LongConfig

    class SelfAttention(nn.Cell):
        def __init__(self, config, layer_id):
            super().__init__()
            self.dropout = config.attention_probs_dropout_prob

        def construct(self, probs):
            return mindspore.ops.dropout(probs, p={p}, training=self.training){mark}
"""


def _long_case(p: str, mark: str = "") -> dict:
    return {"model/__init__.py": "from .modeling import SelfAttention\n", "model/configuration.py": _LONG_CONFIG,
            "model/modeling.py": fill(_LONG_ATTENTION, p=p, mark=mark)}


class DropoutWrongProbability(_DropoutRule):
    functional = True
    code = "MSA101"
    name = "dropout-wrong-probability"
    checklist = "api.01"
    severity = Severity.ERROR
    evidence = ('The value is resolved: a literal, a module constant, a local assignment, a parameter default, what '
                'the callers pass, or a config value shows a drop rate given as keep_prob (or a keep probability given '
                'as p); a name and its default must agree. The positional port `nn.Dropout(drop_rate)` whose value '
                'could not be resolved is reported from its name alone as a warning that says so (on held-out code '
                'such name-only findings were true 3 times in 26: the names of model zoos hold keep probabilities as '
                'often as drop rates); it is info when every value the project gives is one that the branch around '
                'the call excludes (`if config.dropout_p:` with a default of 0.0). Calls inside `construct` (MSA204), calls that also pass `p=` and values it '
                'cannot read are not reported.')
    message = "nn.Dropout is given a drop rate where it expects a keep probability"
    what = ("Reports `nn.Dropout` calls whose value reads as the other probability: a drop rate "
            "passed as keep_prob (first positional argument, or `keep_prob=`) — a literal below "
            "0.5 or a name that says drop — and a keep probability passed as `p=` — `1 - <drop "
            "name>`, a name that says keep, or a literal above 0.5. The functional `ops.dropout` and "
            "`mint.nn.functional.dropout` take the drop probability (`p`, their second argument) and are read "
            "the same way, as is the `DropoutExt` primitive that a Cell builds in `__init__` and calls with `p` "
            "in `construct`.")
    why = ("In MindSpore 2.10 `nn.Dropout`'s first parameter is still `keep_prob`. A PyTorch "
           "`nn.Dropout(0.1)` ported as is keeps 10 % of the activations and scales them by 10: "
           "heavy noise that slows or stops convergence, with no warning. The reverse mistake "
           "appears after a mechanical keep_prob→p migration: `p=1 - drop` drops almost "
           "everything.")
    example = """
        import mindspore.nn as nn
        self.drop = nn.Dropout(0.1)           # MSA101: keeps 10 %
        self.attn = nn.Dropout(p=1 - attn_drop)
    """
    use_instead = """
        import mindspore.nn as nn
        self.drop = nn.Dropout(p=0.1)
        self.attn = nn.Dropout(p=attn_drop)
    """
    fix_safety = ("Unsafe: the fix changes behaviour to what the code most likely meant "
                  "(`nn.Dropout(0.1)` becomes `nn.Dropout(p=0.1)`).")
    VALID = (
        Valid("""
            import mindspore.nn as nn
            drop = nn.Dropout(p=0.1)
        """),
        Valid("""
            import mindspore.nn as nn
            drop = nn.Dropout(keep_prob=0.9)
        """),
        Valid("""
            import mindspore.nn as nn
            drop = nn.Dropout(1 - drop_rate)
        """, note="reported by MSA102, not MSA101"),
        Valid(files=_own_dropout("1 - 0.1"), note="multi-file: the project's keep_prob Dropout given 1 - rate"),
        Valid(files=_ext_cell("drop_prob"), note="multi-file: the DropoutExt Cell hands on its drop probability"),
        Valid(files=_ext_cell("keep_prob", rate="0.5"),
              note="multi-file look-alike: every call passes 0.5, a keep probability equal to the drop one"),
        Valid(files=_own_dropout("0.1", param="p", inner="nn.Dropout(p=p)"),
              note="multi-file look-alike: the project's own Dropout hands its parameter to nn.Dropout's p, a drop "
                   "rate"),
        Valid("""
            import mindspore.nn as nn

            class GAT(nn.Cell):
                def construct(self, attention):
                    return nn.Dropout(0.1)(attention)
        """, note="built inside construct: inert in any mode, MSA204's finding, not a keep_prob mistake"),
        Valid("""
            import mindspore.nn as nn
            class Fusion(nn.Cell):
                def __init__(self, dropout=0.1):
                    super().__init__()
                    self.drop = nn.Dropout(dropout, p=dropout)
        """, note="p= given too: MindSpore reads p and ignores the positional keep_prob"),
        Valid("""
            import mindspore.nn as nn

            class Block(nn.Cell):
                def __init__(self, drop_rate):
                    super().__init__()
                    self.drop = nn.Dropout(drop_rate)

            def build(drop_rate=0.1):
                return Block(1 - drop_rate)
        """, note="the only caller passes 1 - drop_rate: the parameter holds a keep probability, whatever its name"),
        Valid("""
            import mindspore.nn as nn

            class FeedForward(nn.Cell):
                def __init__(self, dim, dropout=1.0):
                    super().__init__()
                    self.drop = nn.Dropout(dropout)

            class Block(nn.Cell):
                def __init__(self, dim, dropout):
                    super().__init__()
                    self.ff = FeedForward(dim, dropout=dropout)
        """, note="the caller's value is unknown: the name and the default (a keep probability, 1.0) decide together"),
        Valid("""
            import mindspore.nn as nn
            DROPOUT_RATE = 0.7

            class MLP(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.drop = nn.Dropout(DROPOUT_RATE)
        """, note="a module constant is judged by its value (keep 0.7, MSA102's warning), not by its name"),
        Valid("""
            import mindspore.nn as nn
            drop = nn.Dropout()
        """),
        Valid("""
            import torch.nn as nn
            drop = nn.Dropout(0.1)
        """),
        Valid("""
            from mindspore import mint
            drop = mint.nn.Dropout(0.1)
        """),
        Valid("""
            import mindspore.nn as nn
            drop = nn.Dropout2d(0.1)  # Dropout2d's p is a drop rate
        """),
        Valid("""
            from tensorflow.keras.layers import Dropout
            drop = Dropout(0.1)
        """),
        Valid("""
            import mindspore
            class Dropout:
                def __init__(self, p): ...
            drop = Dropout(0.1)
        """),
        Valid("""
            import mindspore.nn as nn
            drop = nn.Dropout(p=cfg.dropout)
        """),
        Valid("""
            import mindspore.nn as nn
            def head(training):
                dropout_ratio = 0.5
                if not training:
                    dropout_ratio = 1.0
                return nn.Dropout(p=1 - dropout_ratio)
        """, note="the local name says drop but is only ever assigned keep values: p is 0.5 or 0"),
        Valid("""
            import mindspore.nn as nn
            def head(dropout_rate=0.2):
                dropout_rate = 1 - dropout_rate
                return nn.Dropout(p=1 - dropout_rate)
        """, note="the name was turned into a keep probability first: p is the original rate"),
        Valid("""
            import mindspore.nn as nn
            class PositionalEncoding(nn.Cell):
                def __init__(self, d_model=512, dropout=0.9):
                    super().__init__()
                    self.dropout = nn.Dropout(p=1 - dropout)
        """, note="the parameter's default (0.9) says it holds a keep probability, whatever its name"),
        Valid("""
            import mindspore.nn as nn
            class InceptionAux(nn.Cell):
                def __init__(self, drop_rate=0.7):
                    super().__init__()
                    self.dropout = nn.Dropout(p=drop_rate)
        """, note="GoogLeNet's auxiliary head drops 70 %: name and default agree on a drop rate"),
        Valid("""
            import mindspore.nn as nn
            drop = nn.Dropout(keep_prob=cfg.dropout_prob)
        """, note="keep_prob= written out, value unknown: model zoos call keep probabilities 'dropout_prob'"),
        Valid("""
            import mindspore.nn as nn
            drop = nn.Dropout(p=1 - config.transformer_dropout_rate)
        """, note="how the keep_prob -> p migration wrote a keep probability; the name alone cannot tell"),
        Valid(files={
            "src/__init__.py": "",
            "src/head.py": """
                import mindspore.nn as nn

                class Head(nn.Cell):
                    def __init__(self, c, drop_rate):
                        super().__init__()
                        self.drop = nn.Dropout(p=drop_rate)
            """,
            "src/net.py": """
                import mindspore.nn as nn
                from src.head import Head

                class Net(nn.Cell):
                    def __init__(self):
                        super().__init__()
                        self.head = Head(4, 0.2)
            """,
        }, note="multi-file: correct call site"),
        Valid(files={
            "src/__init__.py": "",
            "src/head.py": """
                import mindspore.nn as nn

                class Head(nn.Cell):
                    def __init__(self, c, drop_rate):
                        super().__init__()
                        self.drop = nn.Dropout(keep_prob=drop_rate)
            """,
            "src/net.py": """
                import mindspore.nn as nn
                from src.head import Head

                class Net(nn.Cell):
                    def __init__(self):
                        super().__init__()
                        self.head = Head(4, 0.9)
            """,
        }, note="multi-file: lookalike keep value"),
        Valid(files={
            "default_config.yaml": """
                batch_size: 32
                ratio: 0.9
            """,
            "src/__init__.py": "",
            "src/model_utils/__init__.py": "",
            "src/model_utils/config.py": """
                import os
                import yaml

                def get_config():
                    here = os.path.dirname(os.path.abspath(__file__))
                    with open(os.path.join(here, "../../default_config.yaml")) as f:
                        return yaml.safe_load(f)

                config = get_config()
            """,
            "src/model.py": """
                import mindspore.nn as nn
                from src.model_utils.config import config

                class Net(nn.Cell):
                    def __init__(self):
                        super().__init__()
                        self.drop = nn.Dropout(keep_prob=config.ratio)
            """,
        }, note="multi-file: lookalike yaml keep"),
        Valid(files={
        "graphormer/__init__.py": "",
        "graphormer/configuration_graphormer.py": _GRAPHORMER_CONFIG,
        "graphormer/modeling_graphormer.py": fill(_GRAPHORMER_ATTENTION, p="1 - config.attention_keep_prob", mark=""),
        }, note="a config attribute that holds a keep probability, given as 1 - keep (another file)"),
    )
    VALID = VALID + (
        Valid(files=_forwarded_case("0.9"),
              note="multi-file lookalike: what every caller forwards is a keep probability"),
        Valid("""
            from mindspore import ops

            def attend(probs, attn_drop=0.1, training=True):
                return ops.dropout(probs, p=attn_drop, training=training)
        """, note="functional dropout given its drop rate"),
        Valid("""
            from mindspore import ops

            def attend(probs, keep_prob=0.9, training=True):
                return ops.dropout(probs, p=1 - keep_prob, training=training)
        """, note="look-alike: 1 - a keep probability is the drop rate"),
        Valid("""
            import torch.nn.functional as F

            def attend(probs, attn_drop=0.1):
                return F.dropout(probs, 1 - attn_drop)
        """, note="torch's functional dropout is not MindSpore's"),
        Valid(files=_config_case("transformer_dropout_rate", "0.9"),
              note="multi-file: a config key named for a drop rate that holds a keep probability (0.9): the value "
                   "decides, not the name"),
        Valid(_PRIMITIVE_CELL.format(attr="drop_prob", mark=""),
              note="the DropoutExt primitive given its drop probability"),
        Valid(_PRIMITIVE_CELL.replace("ops.auto_generate.DropoutExt()", "ops.Dropout(keep_prob=1.0 - drop_prob)")
              .replace("x, p=self.{attr}, seed=self.seed, offset=self.offset", "x")
              .format(attr="keep_prob", mark=""),
              note="the older Dropout primitive takes keep_prob in its constructor"),
        Valid("""
            import mindspore.nn as nn
            drop = nn.Dropout(0.9, 0.1)
        """, note="a second positional argument is p, which MindSpore uses: the first is never read"),
        Valid(files=_long_case("self.dropout"),
              note="multi-file: the config's attention rate kept on self and given to the functional dropout as p"),
        Valid(files=dict(_long_case("1-self.dropout"), **{"model/modeling.py": fill(_LONG_ATTENTION, p="1-self.dropout",
                                                                                   mark="") + """
    def set_keep(self, keep):
        self.dropout = keep
"""}), note="the attribute is reassigned by another method: __init__'s value is not the only one it holds"),
        Valid("""
            import mindspore.nn as nn
            drop = nn.Dropout(0.1, False)
        """, note="a bool as p raises TypeError when the layer is built: loud, not silent"),
    )
    INVALID = (
        Invalid("""
            import mindspore.nn as nn
            class Head(nn.Cell):
                def __init__(self, c, drop_rate=0.0):
                    super().__init__()
                    if drop_rate > 0:
                        self.drop = nn.Dropout(p=1 - drop_rate)  # MSA101
        """, severity=Severity.WARNING, message_contains="its only value found makes p=1",
                note="p=1 - rate whose only value, 0, would raise: the callers' rates are misread (a warning)"),
        Invalid(_PRIMITIVE_CELL.format(attr="keep_prob", mark="  # MSA101"),
                note="a keep probability carried over to the DropoutExt primitive's p"),
        Invalid("""
            from mindspore import ops

            def attend(probs, attn_drop=0.1, training=True):
                return ops.dropout(probs, p=1 - attn_drop, training=training)  # MSA101
        """, note="a keep_prob=1 - rate port carried over to the functional dropout's p"),
        Invalid("""
            from mindspore import mint

            def attend(probs, attention_keep_prob=0.9):
                return mint.nn.functional.dropout(probs, attention_keep_prob)  # MSA101
        """, note="a keep probability as the second argument"),
        Invalid(files=_forwarded_case("0.1", mark="  # MSA101"), severity="error",
                note="multi-file: the rate reaches the class through a builder's **kwargs"),
        Invalid(files={
        "graphormer/__init__.py": "",
        "graphormer/configuration_graphormer.py": _GRAPHORMER_CONFIG,
        "graphormer/modeling_graphormer.py": fill(_GRAPHORMER_ATTENTION, p="1 - config.attention_dropout",
                                                  mark="  # MSA101"),
        }, note="a drop rate from an annotated config class of another file, flipped into a keep probability"),
        Invalid("""
            import mindspore.nn as nn
            drop = nn.Dropout(0.1)  # MSA101
        """, fixed="""
            import mindspore.nn as nn
            drop = nn.Dropout(0.1)
        """, unsafe_fixed="""
            import mindspore.nn as nn
            drop = nn.Dropout(p=0.1)
        """),
        Invalid("""
            import mindspore.nn as nn
            class Block(nn.Cell):
                def __init__(self, drop_rate):
                    super().__init__()
                    self.drop = nn.Dropout(drop_rate)  # MSA101
        """),
        Invalid("""
            import mindspore.nn as nn
            class Block(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.head = self._make_head()

                def _make_head(self):
                    return nn.SequentialCell([nn.Dense(8, 8), nn.Dropout(0.1)])  # MSA101

                def construct(self, x):
                    return self.head(x)
        """, note="built by a helper of __init__: a live layer, unlike one built in construct"),
        Invalid("""
            import mindspore.nn as nn

            class Block(nn.Cell):
                def __init__(self, drop_rate):
                    super().__init__()
                    self.drop = nn.Dropout(drop_rate)  # MSA101

            def build():
                return Block(0.1)
        """, note="the caller passes a drop rate: the port keeps 10 %"),
        Invalid("""
            import mindspore.nn as nn
            DROPOUT_RATE = 0.3

            class MLP(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.drop = nn.Dropout(DROPOUT_RATE)  # MSA101
        """, note="a module constant below 0.5: keeps 30 %"),
        Invalid("""
            import mindspore.nn as nn
            def head():
                drop_rate = 0.2
                return nn.Dropout(keep_prob=drop_rate)  # MSA101
        """, unsafe_fixed="""
            import mindspore.nn as nn
            def head():
                drop_rate = 0.2
                return nn.Dropout(p=drop_rate)
        """),
        Invalid("""
            import mindspore.nn as nn
            def proj(proj_drop=0.1):
                return nn.Dropout(p=1 - proj_drop)  # MSA101
        """, unsafe_fixed="""
            import mindspore.nn as nn
            def proj(proj_drop=0.1):
                return nn.Dropout(p=proj_drop)
        """),
        Invalid("""
            from mindspore.nn import Dropout as D
            drop = D(p=0.9)  # MSA101
        """),
        Invalid("""
            import mindspore.nn as nn
            drop = nn.Dropout(p=keep_prob)  # MSA101
        """),
        Invalid("""
            import mindspore.nn as nn
            def rnn(dropout=0.1):
                return nn.Dropout(p=float(1 - dropout))  # MSA101
        """),
        Invalid("""
            import mindspore.nn as nn
            def head():
                rate = 0.1
                return nn.Dropout(rate)  # MSA101
        """),
        Invalid("""
            import mindspore.nn as nn
            class Head(nn.Cell):
                def __init__(self, c, drop_rate):
                    super().__init__()
                    self.drop = nn.Dropout(drop_rate)  # MSA101
        """, severity=Severity.WARNING, message_contains="assumed from the name drop_rate",
                note="a drop-sounding name whose value is not resolved: a warning that says what it assumed"),
        Invalid("""
            import mindspore.nn as nn
            class Attention(nn.Cell):
                def __init__(self, dim, attn_drop=0.0):
                    super().__init__()
                    self.attn_drop = nn.Dropout(attn_drop)  # MSA101
        """, severity=Severity.WARNING, message_contains="its only value found, 0, raises",
                note="a drop name whose default 0.0 would raise as keep_prob: a warning about the callers' values"),
        Invalid("""
            import mindspore.nn as nn
            class Attention(nn.Cell):
                def __init__(self, dim, attn_drop=0.0):
                    super().__init__()
                    self.attn_drop = nn.Dropout(attn_drop)  # MSA101

            block = Attention(64, attn_drop=0.1)
        """, note="the same layer given 0.1 by its caller: resolved, an error"),
        Invalid(files={
            "src/__init__.py": "",
            "src/head.py": """
                import mindspore.nn as nn

                class Head(nn.Cell):
                    def __init__(self, c, drop_rate):
                        super().__init__()
                        self.fc = nn.Dense(c, 2)
                        self.drop = nn.Dropout(keep_prob=drop_rate)  # MSA101
            """,
            "src/net.py": """
                import mindspore.nn as nn
                from src.head import Head

                class Net(nn.Cell):
                    def __init__(self):
                        super().__init__()
                        self.head = Head(4, 0.2)
            """,
        }, note="multi-file: bug call site"),
        Invalid(files=_ext_cell("keep_prob", mark="  # MSA101"),
                note="multi-file: a value decided elsewhere: the keep probability a DropoutExt Cell computes "
                     "(1 - drop_prob, default 0.5) is handed on as p; the callers' rates come from configs the "
                     "linter cannot read, and the neutral default shows nothing, so the names decide"),
        Invalid(files=_own_dropout("0.1", mark="  # MSA101"), message_contains="hands its keep_prob to ops.Dropout",
                note="multi-file: the project's own Dropout (another file) hands its first parameter to "
                     "ops.Dropout's keep_prob; a drop rate passed to it is the keep_prob mistake"),
        Invalid(files={
            "src/__init__.py": "",
            "src/config.py": """
                RATE = 0.1
            """,
            "src/model.py": """
                import mindspore.nn as nn
                from src import config

                class Net(nn.Cell):
                    def __init__(self):
                        super().__init__()
                        self.drop = nn.Dropout(keep_prob=config.RATE)  # MSA101
            """,
        }, note="multi-file: bug constant module"),
        Invalid(files=_config_case("ratio", "0.1", "  # MSA101"), note="multi-file: bug yaml"),
        Invalid(files={
            "src/__init__.py": "",
            "src/head.py": """
                import mindspore.nn as nn

                class Head(nn.Cell):
                    def __init__(self, channels, num_classes=1000, has_dropout=False):
                        super(Head, self).__init__()
                        layers = [nn.Flatten(), nn.Dropout(0.2)] if has_dropout else [nn.Flatten()]  # MSA101
                        self.head = nn.SequentialCell(layers)
                        self.fc = nn.Dense(channels, num_classes)
            """,
            "src/net.py": """
                from src.head import Head

                head = Head(1280, num_classes=10)
            """,
        }, severity=Severity.WARNING, message_contains="dormant: built only when `has_dropout` turns it on",
            note="multi-file: the layer exists only when a switch is on that no caller in the project turns on: "
                 "a dormant warning (a caller passing has_dropout=True makes it an error)"),
        Invalid(files=_long_case("1-self.dropout", "  # MSA101"), severity=Severity.WARNING,
                message_contains="assumed: the unannotated config parameter is a LongConfig",
                note="multi-file: an unannotated config parameter read as the one config class the file imports "
                     "(a warning that says so), its rate kept on self, flipped into p"),
    )

    def visit_Call(self, node: cst.Call) -> None:
        super().visit_Call(node)
        if self.ctx.project is not None and node.args and \
                not (called(self.ctx, node) or "mindspore.").startswith("mindspore."):
            self._project_dropout(node)

    def _project_dropout(self, call: cst.Call) -> None:
        """``Dropout(config.hidden_dropout_prob)`` where ``Dropout`` is a class of another file
        of the project whose parameter goes, unchanged, to a MindSpore dropout's ``keep_prob``
        (``ops.Dropout(keep_prob)``, ``nn.Dropout(keep_prob=...)``): the argument is a keep
        probability, whatever the class is called, and one that reads as a drop rate is the
        keep_prob mistake of ``nn.Dropout(drop_rate)``."""
        from msacclint.analysis.imports import dotted
        from msacclint.analysis.snapshot import signatures_for

        name = dotted(call.func)
        project = self.ctx.project
        found = project.resolve_from(self.ctx, name) if name is not None else None
        if found is None or found[0] != "class" or not found[2].params:
            return
        path, cls = found[1], found[2]
        params = [p for p, _ in cls.params]
        positional = [a for a in call.args if a.keyword is None and not a.star]
        keywords = {a.keyword.value: a for a in call.args if a.keyword is not None}
        arg, param = (positional[0], params[0]) if positional else next(
            ((a, k) for k, a in keywords.items() if k in params), (None, None))
        if arg is None or any(a.star for a in call.args):
            return
        kept = [(api, where) for api, role, where in project.handed_to(path, cls, param,
                                                                          signatures_for(self.ctx.settings))
                if role == "keep_prob" and (api in DROPOUT_KEEP_APIS)]
        if not kept:
            return
        if forward_owner(self.ctx, self.scope) is not None:
            return
        self._layer = DROPOUT
        alternatives = self.readings(arg.value, call)
        if not _wrong(alternatives, _keep_reads_as_drop):
            return
        resolved = _wrong(alternatives, _keep_reads_as_drop, _silent_keep)
        api, where = kept[0]
        shown = cst.Module([]).code_for_node(arg.value)
        short = api.replace("mindspore.", "", 1)
        assumed = "" if resolved else (f" (assumed from the name {shown}: no value of it was resolved; a value of "
                                       "0.5 or more would be a keep probability, as intended)")
        self.report(call, f"{name}({shown}): {cls.name} ({where.where()}) hands its {param} to {short}'s "
                    f"keep_prob, the KEEP probability, so this drops {self._drop_share(literal(arg.value))}; pass "
                    f"the keep probability, 1 - {shown}{assumed}", severity=None if resolved else Severity.WARNING,
                    related=[(where.path, where.line, f"{cls.name} hands {param} to {short}'s keep_prob")])

    def check(self, call, keep, p, by_position):
        if keep is not None:
            value = literal(keep.value)
            # keep_prob= written out is a deliberate choice: a drop-sounding name alone does not
            # outweigh it (model zoos name keep probabilities "dropout_prob"); a value does
            evidence = None if by_position else _silent_keep
            alternatives = self.readings(keep.value, call)
            if _wrong(alternatives, _keep_reads_as_drop, evidence):
                how = "its first argument" if by_position else "keep_prob"
                shown = cst.Module([]).code_for_node(keep.value)
                # an error needs a value; a drop-sounding name alone is an assumption
                # (a keep_prob of 0 raises when the layer is built: such a value is no evidence)
                resolved = _wrong(alternatives, _keep_reads_as_drop, _silent_keep)
                raising = any(_number(*r) is not None and not _silent_keep(r) for g in alternatives for r in g)
                assumed = "" if resolved else (
                    f" (assumed from the name {shown}: " + ("its only value found, 0, raises when the layer is "
                                                              "built, so only the values callers pass can drop "
                                                              "silently" if raising else "no value of it was resolved")
                    + "; a value of 0.5 or more would be a keep probability, as intended)")
                severity = None if resolved else Severity.WARNING
                if resolved and self._assumption():
                    severity, assumed = Severity.WARNING, self._assumption()
                if not resolved and self._excluded:
                    shown_values = sorted({f"{v.value:g}" + (f" at {v.evidence.where()}" if v.evidence else "")
                                           for v in self._excluded})
                    assumed += (f" (info: every value the project gives it ({', '.join(shown_values[:3])}) is one "
                                "the branch around this call excludes, so the layer is built only with a rate "
                                "configured elsewhere)")
                    severity = Severity.INFO
                self.report(call, f"nn.Dropout({'' if by_position else 'keep_prob='}{shown}): {how} is the KEEP "
                            f"probability in MindSpore, so this drops {self._drop_share(value)}; "
                            f"for a drop rate write p={shown}{assumed}",
                            _p_fix(f"pass it as p={shown}", Applicability.UNSAFE, call, keep, keep.value),
                            severity=severity)
                return
        if p is not None:
            self.check_p(call, p)

    def check_p(self, call: cst.Call, p: cst.Arg) -> None:
        """``p`` of nn.Dropout or of a functional dropout: a keep probability given as the
        drop probability."""
        inner = one_minus(p.value)
        # p=1 - <drop name> is how keep_prob=<x> was migrated to p: the name alone cannot say
        # whether x held a keep probability all along; a value, or p=<keep name>, can
        evidence = lambda r: _silent_p(r) or _keep_named(r)  # noqa: E731  (p=1 raises: loud)
        alternatives = self.readings(p.value, call)
        if says_keep(p.value) and one_minus(p.value) is None and alternatives and \
                all(group and all(_p_reads_as_keep(r) for r in group) for group in alternatives):
            # ``p=self.keep_prob``: the code names the value a keep probability, and every value
            # it is followed to agrees (``keep_prob = 1.0 - drop_prob``)
            alternatives = [group + [(p.value, False)] for group in alternatives]
        severity, assumed = None, ""
        if not _wrong(alternatives, _p_reads_as_keep, evidence):
            # the only values found make p=1 (a rate of 0 under ``p=1 - rate``), which raises when
            # the layer is built: the value shows what the name means (a drop rate), but only the
            # other values callers may pass are misread silently
            if not _wrong(alternatives, _p_reads_as_keep, _numeric):
                return
            severity = Severity.WARNING
            assumed = (" (its only value found makes p=1, which raises when the layer is built, so only the "
                       "values callers pass are misread silently)")
        if self._assumption():
            severity, assumed = Severity.WARNING, assumed + self._assumption()
        shown = cst.Module([]).code_for_node(p.value)
        fix = None
        if inner is not None:
            # a positional p keeps its place (arguments may follow it)
            fixed = _with_p(call, p, inner) if p.keyword is not None else call.with_changes(
                args=[a.with_changes(value=inner) if a is p else a for a in call.args])
            if fixed is not None:
                fix = FixSpec(f"use p={cst.Module([]).code_for_node(inner)}", Applicability.UNSAFE, [(call, fixed)])
        name = FUNCTIONAL_DROPOUT.get(self._layer) or DROPOUT_PRIMITIVES.get(self._layer, "nn.Dropout")
        if p.keyword is None:
            self.report(call, f"{name}(..., {shown}): its second argument is the DROP probability, but this "
                        f"value reads as a keep probability{assumed}", fix, severity=severity)
            return
        self.report(call, f"{name}(p={shown}): p is the DROP probability, but this value reads "
                    f"as a keep probability{assumed}", fix, severity=severity)

    @staticmethod
    def _drop_share(value) -> str:
        if is_number(value):
            return f"{round((1 - value) * 100):g} % of the activations"
        return "1 minus the intended rate"


class DropoutPositional(_DropoutRule):
    code = "MSA102"
    name = "dropout-positional-keep-prob"
    checklist = "api.01"
    severity = Severity.WARNING
    message = "nn.Dropout's positional argument is keep_prob today and will silently become p"
    what = "Reports `nn.Dropout(x)` with a positional argument that is not already an MSA101 error."
    why = ("The value is read as keep_prob in MindSpore 2.10, whose docstring announces that "
           "keep_prob will be removed and p will take its place: the same line then silently "
           "means the opposite. It also reads as a PyTorch drop rate to every reviewer.")
    example = """
        import mindspore.nn as nn
        drop = nn.Dropout(0.9)  # MSA102
    """
    use_instead = """
        import mindspore.nn as nn
        drop = nn.Dropout(p=0.1)
    """
    fix_safety = "Safe: `nn.Dropout(x)` becomes `nn.Dropout(p=1 - x)`, which drops exactly as much."
    VALID = (
        Valid("""
            import mindspore.nn as nn
            drop = nn.Dropout(p=0.1)
        """),
        Valid("""
            import mindspore.nn as nn
            drop = nn.Dropout(keep_prob=0.9)
        """),
        Valid("""
            import mindspore.nn as nn
            drop = nn.Dropout(0.1)
        """, note="MSA101's error, not this warning"),
        Valid("""
            import mindspore.nn as nn
            dropout = 0.5
            head = nn.SequentialCell(nn.Dropout(1 - dropout), nn.Dense(4, 2))
        """, note="a module constant of 0.5 at module level: keep and drop rates are equal, a flip changes nothing"),
        Valid("""
            import mindspore.nn as nn
            class GRU(nn.Cell):
                def __init__(self, hidden, dropout=0.0):
                    super().__init__()
                    self.drop = nn.Dropout(1 - dropout)

            encoder = GRU(256)
            decoder = GRU(256, dropout=0)
        """, note="every call keeps all (keep 1.0): read as p=1.0 after the flip it would raise, not drop silently"),
        Valid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def __init__(self, dropout=0.5):
                    super().__init__()
                    self.drop = nn.Dropout(dropout)

            net = Net()
        """, note="the only caller leaves the default 0.5: keep 0.5 is drop 0.5"),
        Valid("""
            import torch
            drop = torch.nn.Dropout(0.9)
        """),
    )
    INVALID = (
        Invalid("""
            import mindspore.nn as nn
            drop = nn.Dropout(0.8)  # MSA102
        """, fixed="""
            import mindspore.nn as nn
            drop = nn.Dropout(p=0.2)
        """),
        Invalid("""
            import mindspore.nn as nn
            drop = nn.Dropout(1 - drop_rate)  # MSA102
        """, fixed="""
            import mindspore.nn as nn
            drop = nn.Dropout(p=drop_rate)
        """),
        Invalid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def __init__(self, dropout=0.5):
                    super().__init__()
                    self.drop = nn.Dropout(dropout)  # MSA102

            net = Net(dropout=0.8)
        """, fixed="""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def __init__(self, dropout=0.5):
                    super().__init__()
                    self.drop = nn.Dropout(p=1 - dropout)

            net = Net(dropout=0.8)
        """, note="a caller passes 0.8: the positional slot's meaning matters"),
        Invalid("""
            import mindspore.nn as nn
            drop = nn.Dropout(keep)  # MSA102
        """, fixed="""
            import mindspore.nn as nn
            drop = nn.Dropout(p=1 - keep)
        """),
    )

    def check(self, call, keep, p, by_position):
        if keep is None or not by_position:
            return
        if literal(keep.value) == 0.5:
            return  # keep 0.5 is drop 0.5: the line means the same either way
        readings = self.readings(keep.value, call)
        if readings and all(any(_number(*r) == 0.5 for r in group) for group in readings):
            return  # every value it can take (callers, default) is 0.5: the same either way
        if readings and all(any(_number(*r) == 1.0 for r in group) for group in readings):
            return  # keep 1.0 everywhere: no dropout today, and read as p=1.0 it raises (p < 1), loudly
        if _wrong(readings, _keep_reads_as_drop):
            return  # MSA101
        new = _complement(keep.value)
        shown = cst.Module([]).code_for_node(new)
        self.report(call, f"nn.Dropout({cst.Module([]).code_for_node(keep.value)}): the positional argument is "
                    f"keep_prob in MindSpore 2.10 and silently becomes p once keep_prob is removed; "
                    f"write p={shown}",
                    _p_fix(f"write p={shown}", Applicability.SAFE, call, keep, new))


class DropoutKeepProbKeyword(_DropoutRule):
    code = "MSA103"
    name = "dropout-keep-prob-deprecated"
    checklist = "api.01"
    severity = Severity.INFO
    message = "nn.Dropout(keep_prob=...) is deprecated; p= says the drop rate directly"
    what = "Reports `nn.Dropout(keep_prob=x)` by keyword when x reads as a keep probability."
    why = ("Correct today, and it fails loudly (TypeError) rather than silently once keep_prob is "
           "removed; a review item for ports that want to be ready.")
    example = """
        import mindspore.nn as nn
        drop = nn.Dropout(keep_prob=0.9)  # MSA103
    """
    use_instead = """
        import mindspore.nn as nn
        drop = nn.Dropout(p=0.1)
    """
    fix_safety = "Safe: `keep_prob=x` becomes `p=1 - x`."
    VALID = (
        Valid("""
            import mindspore.nn as nn
            drop = nn.Dropout(p=0.1)
        """),
        Valid("""
            import torch.nn as nn
            drop = nn.Dropout(0.9)
        """),
        Valid("""
            import mindspore.nn as nn
            drop = nn.Dropout(keep_prob=0.1)
        """, note="MSA101's error"),
    )
    INVALID = (
        Invalid("""
            import mindspore.nn as nn
            drop = nn.Dropout(keep_prob=0.9)  # MSA103
        """, fixed="""
            import mindspore.nn as nn
            drop = nn.Dropout(p=0.1)
        """),
        Invalid("""
            import mindspore.nn as nn
            drop = nn.Dropout(keep_prob=cfg.keep_prob)  # MSA103
        """),
    )

    def check(self, call, keep, p, by_position):
        if keep is None or by_position:
            return
        if _wrong(self.readings(keep.value, call), _keep_reads_as_drop):
            return
        new = _complement(keep.value)
        shown = cst.Module([]).code_for_node(new)
        self.report(call, f"nn.Dropout(keep_prob=...) is deprecated in MindSpore 2.x; write p={shown}",
                    _p_fix(f"write p={shown}", Applicability.SAFE, call, keep, new))


def _annotation(func: cst.FunctionDef, name: str) -> Optional[str]:
    """The dotted class name a parameter of ``func`` is annotated with (``config: BertConfig``)."""
    from msacclint.analysis.imports import dotted

    p = func.params
    for param in (*p.posonly_params, *p.params, *p.kwonly_params):
        if param.name.value == name and param.annotation is not None:
            return dotted(param.annotation.annotation)
    return None
