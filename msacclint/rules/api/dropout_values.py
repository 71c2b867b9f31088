"""What a dropout's probability argument holds, shared by MSA101, MSA102 and MSA103 (MS-DROP-01,
``nn.Dropout``'s first argument is still keep_prob in MindSpore 2.10): the dropout APIs and
primitives, the ``p=`` fixes, the base rule that follows an argument to the values it may hold
(``DropoutRule.readings``) and the judgements of one reading (a keep probability that reads as a
drop rate, a drop probability that reads as a keep one).
"""

from __future__ import annotations

from typing import Any, List, Optional, Tuple

import libcst as cst

from msacclint.analysis.callers import argument_values
from msacclint.analysis.calls import constant, is_number, literal
from msacclint.analysis.cells import cells
from msacclint.analysis.edits import with_keyword
from msacclint.analysis.flow import flow
from msacclint.analysis.liveness import forward_owner
from msacclint.analysis.names import last_name, one_minus, says_drop, says_keep
from msacclint.analysis.snapshot import for_settings
from msacclint.diagnostics import Applicability
from msacclint.rules.base import FixSpec
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


def number_text(value: float) -> str:
    return repr(round(value, 10))


def complement(value: cst.BaseExpression) -> cst.BaseExpression:
    """The expression for ``1 - value``, simplified when it can be."""
    number = literal(value)
    if is_number(number):
        return cst.parse_expression(number_text(1 - number))
    inner = one_minus(value)
    if inner is not None:
        return inner
    if isinstance(value, (cst.Name, cst.Attribute, cst.Subscript, cst.Call)):
        return cst.parse_expression("1 - " + cst.Module([]).code_for_node(value))
    return cst.parse_expression("1 - (" + cst.Module([]).code_for_node(value) + ")")


def with_p(call: cst.Call, arg: cst.Arg, value: cst.BaseExpression) -> Optional[cst.Call]:
    """The call with ``arg`` rewritten as ``p=value``; None when a positional argument follows
    it (``nn.Dropout(0.1, False)``): a keyword there would not parse."""
    later = call.args[[i for i, a in enumerate(call.args) if a is arg][0] + 1:]
    if arg.keyword is None and any(a.keyword is None and not a.star for a in later):
        return None
    new_arg = with_keyword(arg, "p", value)
    return call.with_changes(args=[new_arg if a is arg else a for a in call.args])


def p_fix(description: str, applicability: Applicability, call: cst.Call, arg: cst.Arg,
           value: cst.BaseExpression) -> Optional[FixSpec]:
    fixed = with_p(call, arg, value)
    return FixSpec(description, applicability, [(call, fixed)]) if fixed is not None else None


#: a value as (expression it rests on, whether it is 1 minus that expression)
Reading = Tuple[cst.BaseExpression, bool]


class DropoutRule(TableRuleMixin, InFunctionRule):
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
                parameter_names(func) and expr.value in parameter_names(func):
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
                isinstance(func, cst.FunctionDef) and (annotation_of(func, expr.value.value) is not None
                                                       or self._sole_config_class(func, expr.value.value)):
            # ``config.attention_dropout`` with ``config: GraphormerConfig``: the attribute the
            # annotated class's __init__ sets from its parameter of that name, by its default;
            # an unannotated ``config`` in a file importing one config class is assumed to be one
            annotated = annotation_of(func, expr.value.value)
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
            # defined in the file (``args.dropout``: an argparse default) or imported into it
            values = project.values_seen_from(self.ctx, name)
        if not values or not all(is_number(v.value) for v in values):
            return None
        kept = self._on_path(expr, values)
        if not kept:
            self._excluded.extend(values)
            return None  # every value the project gives it is one the enclosing branch excludes
        values = kept
        self._evidence.extend(values)
        return [[(cst.parse_expression(number_text(v.value)), False)] for v in values]

    def _bound_elsewhere(self, expr: cst.Name, fl, default: Any) -> Optional[List[List[Reading]]]:
        """A parameter with a numeric default: the values the project's callers bind to it
        (``_project_readings``), when some caller binds one other than the default; the calls
        that leave it at its default are read by its name and default together. None when
        nothing but the default reaches it or a caller's value cannot be read."""
        before = list(self._evidence)
        projected = self._project_readings(expr, fl)
        if not projected:
            return None
        bound = [group for group in projected if reading_value(*group[0]) != default]
        if not bound:
            self._evidence = before
            return None
        self._evidence = before + [v for v in self._evidence[len(before):] if v.value != default]
        return bound + (by_name_and_default(expr, fl.root) if len(bound) < len(projected) else [])

    def _sole_config_class(self, func: cst.FunctionDef, name: str) -> Optional[str]:
        """For an unannotated parameter named ``config`` (or ``*_config``): the one class
        whose name ends in ``Config`` that the file imports by name, else None."""
        if not (name == "config" or name.endswith("_config")) or name not in parameter_names(func) \
                or annotation_of(func, name) is not None:
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
        if not defs and expr.value not in parameter_names(fl.root):
            value = constant(self.ctx, expr)
            if is_number(value):  # a module constant: its value decides, not its name
                return [[(cst.Float(repr(float(value))), False)]]
        if not defs and depth == 0:
            callers = self._from_callers(expr, fl)
            if callers is not None:
                return callers
        if not defs:
            projected = None
            default = parameter_default(fl.root, expr.value)
            if default is None or not is_number(literal(default)):
                projected = self._project_readings(expr, fl)
            elif literal(default) == 0.5:
                # a default of 0.5 reads the same as keep_prob and as p: it shows nothing. What the
                # project's callers pass decides; when they cannot all be read, the name does
                projected = self._project_readings(expr, fl) or by_name_and_default(expr, fl.root, neutral=False)
            else:
                # a value decided elsewhere: what the project's callers bind (an argparse or config
                # default handed on by the training script); where a call leaves it out, the
                # parameter's name and default together, as without callers
                projected = self._bound_elsewhere(expr, fl, literal(default))
            return projected or by_name_and_default(expr, fl.root)
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
        default = parameter_default(fl.root, expr.value)
        for value in values:
            if value is not default and (is_number(literal(value)) or one_minus(value) is not None):
                out.extend(self._readings(value, None, None, 1))
            else:  # left out, or a value it cannot read: the parameter's name and default, as without callers
                out.extend(by_name_and_default(expr, fl.root))
        return out


def reads_wrong(alternatives: List[List[Reading]], judge, evidence=None) -> bool:
    """Some alternative reads wrong in every reading; with ``evidence``, that alternative
    must also hold a reading ``evidence`` accepts."""
    return any(group and all(judge(r) for r in group) and (evidence is None or any(evidence(r) for r in group))
               for group in alternatives)


def numeric(reading: Reading) -> bool:
    return reading_value(*reading) is not None


def silent_keep(reading: Reading) -> bool:
    """A value as keep_prob that MindSpore accepts: 0 (or less) raises a ValueError when the layer
    is built, which is loud, not a silent misreading."""
    value = reading_value(*reading)
    return value is not None and value > 0


def silent_p(reading: Reading) -> bool:
    """A value as p that MindSpore accepts: 1 (or more) raises a ValueError when the layer is built."""
    value = reading_value(*reading)
    return value is not None and value < 1


def keep_named(reading: Reading) -> bool:
    base, flipped = reading
    return not flipped and says_keep(base)


def by_name_and_default(expr: cst.Name, func, neutral: bool = True) -> List[List[Reading]]:
    """A parameter without a readable value: judged by its name and its literal default
    together (they must agree), by the default alone when the name says nothing. With
    ``neutral=False`` a default of 0.5 (the same as a keep and as a drop probability) is left
    out when the name says drop or keep: the callers' values, unknown, are what the name says."""
    default = parameter_default(func, expr.value)
    if not neutral and default is not None and literal(default) == 0.5 and (says_drop(expr) or says_keep(expr)):
        return [[(expr, False)]]
    if default is not None and is_number(literal(default)):
        if says_drop(expr) or says_keep(expr):
            return [[(expr, False), (default, False)]]
        return [[(default, False)]]
    return [[(expr, False)]]


def parameter_names(func) -> List[str]:
    if not isinstance(func, cst.FunctionDef):
        return []
    params = func.params
    return [p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)]


def parameter_default(func, name: str) -> Optional[cst.BaseExpression]:
    if not isinstance(func, cst.FunctionDef):
        return None
    params = func.params
    for param in (*params.posonly_params, *params.params, *params.kwonly_params):
        if param.name.value == name:
            return param.default
    return None


def reading_value(base: cst.BaseExpression, flipped: bool):
    value = literal(base)
    if not is_number(value):
        return None
    return 1 - value if flipped else value


def keep_reads_as_drop(reading: Reading) -> bool:
    """A keep probability that reads as a drop rate: below 0.5, or a drop name (not 1 - it)."""
    base, flipped = reading
    value = reading_value(base, flipped)
    if value is not None:
        return value < 0.5
    return says_keep(base) if flipped else says_drop(base)


def p_reads_as_keep(reading: Reading) -> bool:
    """A drop probability that reads as a keep one: above 0.5, ``1 - <drop name>``, a keep name."""
    base, flipped = reading
    value = reading_value(base, flipped)
    if value is not None:
        return value > 0.5
    return says_drop(base) if flipped else says_keep(base)



def annotation_of(func: cst.FunctionDef, name: str) -> Optional[str]:
    """The dotted class name a parameter of ``func`` is annotated with (``config: BertConfig``)."""
    from msacclint.analysis.imports import dotted

    p = func.params
    for param in (*p.posonly_params, *p.params, *p.kwonly_params):
        if param.name.value == name and param.annotation is not None:
            return dotted(param.annotation.annotation)
    return None
