"""Where gradients are still multiplied by the loss scale, along one function.

Built on ``flow.chain``: the value a gradient name holds at some point is followed back
through steps that keep the scale (``grad_reducer(grads)``, ``ops.depend``, ``mutable``)
to where it was produced. It is *scaled* when it was produced
- by a gradient function called with a sensitivity that says scale
  (``self.grad(self.network, weights)(*inputs, scaling_sens_filled)``, the
  TrainOneStepWithLossScaleCell idiom), or
- by a function from ``value_and_grad``/``grad`` whose forward function returns
  ``<loss scaler>.scale(loss)`` with a ``StaticLossScaler``/``DynamicLossScaler`` of the file.
Any other step (``loss_scaler.unscale(grads)``, a ``_grad_scale`` hyper_map, a division,
a helper of unknown meaning) ends the question with "unknown": rules stay silent.

Also here: the file-level question "is there loss scaling anywhere" and the clipping
calls of a function.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Sequence, Tuple, Union

import libcst as cst

from msacclint.analysis.cells import CellInfo, self_attr
from msacclint.analysis.context import FileContext, Question
from msacclint.analysis.flow import Definition, Event, FunctionFlow, flow
from msacclint.analysis.walk import walk

CLIP_FUNCTIONS = frozenset({
    "mindspore.ops.clip_by_global_norm", "mindspore.ops.clip_by_value", "mindspore.ops.clip_by_norm",
})
CLIP_CLASSES = frozenset({"mindspore.nn.ClipByNorm", "mindspore.ops.ClipByNorm", "mindspore.ops.ClipByValue"})
LOSS_SCALERS = frozenset({"mindspore.StaticLossScaler", "mindspore.DynamicLossScaler"})
GRAD_FUNCTIONS = frozenset({"mindspore.value_and_grad", "mindspore.grad", "mindspore.ops.value_and_grad",
                            "mindspore.ops.grad"})
KEEP_SCALE = frozenset({"mindspore.ops.depend", "mindspore.mutable"})
REDUCERS = frozenset({"mindspore.nn.DistributedGradReducer"})
#: APIs whose presence means the file does loss scaling somewhere
LOSS_SCALING_APIS = frozenset({
    "mindspore.FixedLossScaleManager", "mindspore.DynamicLossScaleManager", "mindspore.LossScaleManager",
    "mindspore.StaticLossScaler", "mindspore.DynamicLossScaler", "mindspore.nn.TrainOneStepWithLossScaleCell",
    "mindspore.nn.DynamicLossScaleUpdateCell", "mindspore.nn.FixedLossScaleUpdateCell",
})

#: attribute name -> resolved callee of ``self.<attr> = Callee(...)`` in the owning class
AttrCallee = Callable[[str], Optional[str]]


@dataclass
class Scaled:
    """Gradients that still carry the loss scale, and why we know."""

    origin: Definition
    reason: str


def identifier_names(node: cst.CSTNode) -> List[str]:
    """Every name and attribute name written in ``node`` (``self.loss_scaler.scale_value``:
    self, loss_scaler, scale_value), in order."""
    found: List[str] = []

    class Names(cst.CSTVisitor):
        def visit_Name(self, n: cst.Name) -> None:
            found.append(n.value)

        def visit_Attribute(self, n: cst.Attribute) -> None:
            found.append(n.attr.value)

    walk(node, Names())
    return found


def says_scale(name: str) -> bool:
    lowered = name.lower()
    return "scal" in lowered and "grad_scale" not in lowered


_MODULE_FUNCTIONS: Question[Dict[str, cst.FunctionDef]] = Question(
    "module_functions", lambda ctx: {s.name.value: s for s in ctx.module.body if isinstance(s, cst.FunctionDef)})


def module_functions(ctx: FileContext) -> Dict[str, cst.FunctionDef]:
    """Top-level functions of the file by name."""
    return ctx.ask(_MODULE_FUNCTIONS)


class GradScaleFlow:
    """Loss-scale questions about one function (a ``construct`` or a training step)."""

    def __init__(self, ctx: FileContext, func: Union[cst.FunctionDef, cst.Module],
                 attr_callee: Optional[AttrCallee] = None,
                 nested: Optional[Dict[str, cst.FunctionDef]] = None, scales_loss: bool = False,
                 enclosing: Sequence[cst.FunctionDef] = ()) -> None:
        """``scales_loss``: the owning Cell is a loss-scale training step (see
        ``cell_scales_loss``); only then does a sensitivity named like a scale count.
        ``enclosing``: the functions a nested step is defined in, innermost first; their
        assignments are read after the step's own (a closure's ``grad_fn``)."""
        self.ctx = ctx
        self.scales_loss = scales_loss
        self.func = func
        self.flow: FunctionFlow = flow(ctx, func)
        self.module_flow: FunctionFlow = flow(ctx, ctx.module)
        self.outer_flows: List[FunctionFlow] = [flow(ctx, f) for f in enclosing]
        self.attr_callee = attr_callee or (lambda name: None)
        self.functions = dict(module_functions(ctx))
        self.functions.update(nested or {})
        for stmt in _body(func):
            if isinstance(stmt, cst.FunctionDef):
                self.functions[stmt.name.value] = stmt

    # -- where a name's value came from -------------------------------------------------
    def _definition(self, name: str, before: Optional[int]) -> Optional[Definition]:
        found = self.flow.definition(name, before)
        for outer in self.outer_flows:
            if found is not None:
                break
            found = outer.definition(name)
        return found if found is not None else self.module_flow.definition(name)

    def _callee_of_name(self, name: str) -> Optional[str]:
        d = self._definition(name, None)
        if d is not None and isinstance(d.value, cst.Call):
            return self.ctx.imports.resolve(d.value.func)
        return None

    def callee(self, func: cst.BaseExpression) -> Optional[str]:
        """Resolved target of a call's ``func``: an import, ``self.<attr>``, or a local name."""
        attr = self_attr(func)
        if attr is not None:
            return self.attr_callee(attr)
        resolved = self.ctx.imports.resolve(func)
        if resolved is not None and not resolved.startswith("<local>"):
            return resolved
        if isinstance(func, cst.Name):
            return self._callee_of_name(func.value)
        return resolved

    # -- scaled gradients -----------------------------------------------------------------
    def scaled_at(self, name: str, before: int, depth: int = 0) -> Optional[Scaled]:
        """Whether ``name`` holds loss-scaled gradients just before event ``before``;
        ``g`` of ``for g in grads`` and ``alias = grads`` follow ``grads``."""
        chain = self.flow.chain(name, before)
        if not chain:
            return None
        for step in chain[:-1]:
            if not self._keeps_scale(step.value, name):
                return None
        origin = chain[-1]
        if isinstance(origin.value, cst.Name) and depth < 3:
            if isinstance(origin.node, cst.For) or origin.index is None:
                return self.scaled_at(origin.value.value, origin.order + (not isinstance(origin.node, cst.For)),
                                      depth + 1)
            return None
        return self.scaled_origin(origin)

    def _keeps_scale(self, value: cst.BaseExpression, name: str) -> bool:
        if not isinstance(value, cst.Call) or not value.args:
            return False
        first = value.args[0].value
        if not (isinstance(first, cst.Name) and first.value == name):
            return False
        callee = self.callee(value.func)
        if callee in KEEP_SCALE or callee in REDUCERS:
            return True
        attr = self_attr(value.func)
        return attr is not None and "reducer" in attr.lower() and len(value.args) == 1

    def scaled_origin(self, origin: Definition) -> Optional[Scaled]:
        value = origin.value
        if not isinstance(value, cst.Call):
            return None
        # self.grad(self.network, weights)(*inputs, sens) with a sens that says scale
        if isinstance(value.func, cst.Call):
            inner = value.func
            if self.callee(inner.func) in GRAD_FUNCTIONS and inner.args:
                return self._scaled_forward(origin, inner.args[0].value)
            sens = [a for a in value.args if a.keyword is None and not a.star]
            if self.scales_loss and self._is_grad_operation(inner.func) and sens \
                    and self._sens_says_scale(sens[-1].value, origin.order):
                return Scaled(origin, "sens")
            return None
        # grad_fn(x, y) with grad_fn = value_and_grad(forward_fn, ...)
        if isinstance(value.func, cst.Name):
            d = self._definition(value.func.value, origin.order)
            if d is not None and isinstance(d.value, cst.Call) and d.value.args \
                    and self.callee(d.value.func) in GRAD_FUNCTIONS:
                return self._scaled_forward(origin, d.value.args[0].value)
        return None

    def is_grad_call(self, call: cst.Call) -> bool:
        """``self.grad(self.network, weights)(...)``, ``ops.GradOperation(...)(net)(...)`` or a
        call of a function built by ``value_and_grad``/``grad``."""
        func = call.func
        if isinstance(func, cst.Call):
            return self._is_grad_operation(func.func) or self.callee(func.func) in GRAD_FUNCTIONS
        if isinstance(func, cst.Name):
            d = self._definition(func.value, None)
            return d is not None and isinstance(d.value, cst.Call) and self.callee(d.value.func) in GRAD_FUNCTIONS
        return False

    def _is_grad_operation(self, func: cst.BaseExpression) -> bool:
        """``self.grad`` (a GradOperation attribute) or ``ops.GradOperation(...)``."""
        if isinstance(func, cst.Call):
            return self.ctx.imports.resolve(func.func) == "mindspore.ops.GradOperation"
        attr = self_attr(func)
        if attr is not None:
            callee = self.attr_callee(attr)
            return callee == "mindspore.ops.GradOperation" or (callee is None and "grad" in attr.lower())
        return False

    def _sens_says_scale(self, expr: cst.BaseExpression, before: int) -> bool:
        names = identifier_names(expr)
        if any(says_scale(n) for n in names):
            return True
        if isinstance(expr, cst.Name):
            # every value the name took: ``sens = (ones * scale,)`` then ``sens += (zeros,)``
            for d in self.flow.chain(expr.value, before):
                if any(says_scale(n) for n in identifier_names(d.value)):
                    return True
        return False

    def sens_sources(self, expr: cst.BaseExpression, before: int, depth: int = 0) -> List[str]:
        """Where a scale sensitivity reads its scale: ``self.<attr>`` expressions named like a
        scale (``self.scale_sense``; ``self.loss_scaler`` of ``self.loss_scaler.scale_value``)
        and local names it is computed from, followed through their assignments."""
        out: List[str] = []

        class Reads(cst.CSTVisitor):
            def __init__(self) -> None:
                self.locals: List[str] = []

            def visit_Attribute(self, n: cst.Attribute) -> bool:
                attr = self_attr(n)
                if attr is not None:
                    if says_scale(attr) and f"self.{attr}" not in out:
                        out.append(f"self.{attr}")
                    return False
                inner = self_attr(n.value)
                if inner is not None and (says_scale(n.attr.value) or says_scale(inner)):
                    if f"self.{inner}" not in out:
                        out.append(f"self.{inner}")
                    return False
                return True

            def visit_Name(self, n: cst.Name) -> None:
                self.locals.append(n.value)

        reads = Reads()
        walk(expr, reads)
        if depth < 4:
            for name in reads.locals:
                for d in self.flow.chain(name, before):
                    value = d.value if not isinstance(d.value, cst.AugAssign) else d.value.value
                    for found in self.sens_sources(value, d.order, depth + 1):
                        if found not in out:
                            out.append(found)
                if not self.flow.chain(name, before) and says_scale(name) and name not in out:
                    out.append(name)
        return out

    def scaler_receivers(self, origin: Definition) -> List[str]:
        """The loss scalers whose ``.scale(loss)`` the forward function of a scaled
        gradient computation returns."""
        forward = self._forward_of(origin)
        if forward is None:
            return []
        out: List[str] = []
        for event in flow(self.ctx, forward).method_calls("scale"):
            receiver = event.node.func.value  # type: ignore[attr-defined]
            if isinstance(receiver, cst.Name) and receiver.value not in out:
                out.append(receiver.value)
        return out

    def _forward_of(self, origin: Definition) -> Optional[cst.FunctionDef]:
        value = origin.value
        if not isinstance(value, cst.Call):
            return None
        built: Optional[cst.Call] = None
        if isinstance(value.func, cst.Call):
            built = value.func
        elif isinstance(value.func, cst.Name):
            d = self._definition(value.func.value, origin.order)
            built = d.value if d is not None and isinstance(d.value, cst.Call) else None
        if built is None or not built.args or self.callee(built.func) not in GRAD_FUNCTIONS:
            return None
        forward = built.args[0].value
        return self.functions.get(forward.value) if isinstance(forward, cst.Name) else None

    def _scaled_forward(self, origin: Definition, forward: cst.BaseExpression) -> Optional[Scaled]:
        if not isinstance(forward, cst.Name) or forward.value not in self.functions:
            return None
        fn = self.functions[forward.value]
        fn_flow = flow(self.ctx, fn)
        for event in fn_flow.method_calls("scale"):
            receiver = event.node.func.value  # type: ignore[attr-defined]
            if isinstance(receiver, cst.Name):
                d = fn_flow.definition(receiver.value) or self._definition(receiver.value, None)
                if d is not None and isinstance(d.value, cst.Call) \
                        and self.ctx.imports.resolve(d.value.func) in LOSS_SCALERS:
                    return Scaled(origin, "scaler")
                if d is None and self.flow.method_calls("unscale", receiver.value):
                    # a scaler handed in (a parameter of an enclosing function) that the step
                    # also unscales with: the mindspore.amp LossScaler protocol
                    return Scaled(origin, "scaler")
        return None

    # -- clipping -------------------------------------------------------------------------
    def clip_calls(self) -> List[Tuple[Event[cst.Call], str]]:
        """(call event, name of the clipped gradients) for every clip of a Name."""
        out: List[Tuple[Event[cst.Call], str]] = []
        for event in self.flow.calls():
            call = event.node
            assert isinstance(call, cst.Call)
            target = self._clipped(call)
            if isinstance(target, cst.Name):
                out.append((event, target.value))
        return out

    def _clipped(self, call: cst.Call) -> Optional[cst.BaseExpression]:
        positional = [a.value for a in call.args if a.keyword is None and not a.star]
        if not positional:
            return None
        callee = self.callee(call.func)
        if callee in CLIP_FUNCTIONS or callee in CLIP_CLASSES:
            return positional[0]
        # hyper_map(F.partial(clip_grad, ...), grads)
        head = positional[0]
        if isinstance(head, cst.Call) and self.ctx.imports.resolve(head.func) == "mindspore.ops.partial" \
                and head.args and len(positional) >= 2:
            fn = head.args[0].value
            fn_name = self_attr(fn) or (fn.value if isinstance(fn, cst.Name) else None)
            if fn_name is not None and ("clip" in fn_name.lower()
                                        or self.callee(fn) in CLIP_FUNCTIONS | CLIP_CLASSES):
                return positional[-1]
        return None


#: what a Cell that scales its loss does besides: overflow checks and scale updates
_LOSS_SCALE_MARKERS = ("start_overflow_check", "get_overflow_status", "process_loss_scale", "FloatStatus",
                       "all_finite", "loss_scaling_manager", "LossScaleUpdateCell", "LossScaleManager")


def cell_scales_loss(ctx: FileContext, owner: Optional[CellInfo]) -> bool:
    """Whether a Cell (a CellInfo) is a loss-scale training step: it extends
    TrainOneStepWithLossScaleCell, or checks overflow / updates a loss scale itself. A
    "sens" alone is not enough: DETR-style cells feed an upstream gradient as sens."""
    if owner is None:
        return False
    if "mindspore.nn.TrainOneStepWithLossScaleCell" in owner.bases:
        return True
    # the class's text is part of the file's: a marker the file never writes is in no class
    if not ctx.ask(_HAS_MARKERS):
        return False
    texts = ctx.ask(_CLASS_TEXTS)
    text = texts.get(owner.name)
    if text is None:
        text = texts[owner.name] = cst.Module([]).code_for_node(owner.node)
    return any(marker in text for marker in _LOSS_SCALE_MARKERS)


def _body(func: Union[cst.FunctionDef, cst.Module]) -> Sequence[cst.BaseStatement]:
    if isinstance(func, cst.Module):
        return func.body
    body = func.body
    return body.body if isinstance(body, cst.IndentedBlock) else ()


def _has_loss_scaling(ctx: FileContext) -> bool:
    source = ctx.source
    if any(word in source for word in ("loss_scale", "LossScale", "scale_sense", "scaling_sens")):
        return True
    from msacclint.analysis.facts import facts
    return facts(ctx).calls_any(*LOSS_SCALING_APIS)


_HAS_LOSS_SCALING = Question("has_loss_scaling", _has_loss_scaling)
_HAS_MARKERS = Question("loss_scale_markers", lambda ctx: any(m in ctx.source for m in _LOSS_SCALE_MARKERS))
#: each class's source text, by class name, rendered when first needed
_CLASS_TEXTS: Question[Dict[str, str]] = Question("class_text", lambda ctx: {})


def file_has_loss_scaling(ctx: FileContext) -> bool:
    """Any loss-scale API, ``loss_scale``/``scale_sense`` argument or name in the file."""
    return ctx.ask(_HAS_LOSS_SCALING)


def model_argument(call: cst.Call, name: str) -> Optional[cst.BaseExpression]:
    """An argument of ``mindspore.Model(network, loss_fn, optimizer, metrics, ...)``."""
    from msacclint.analysis.calls import argument
    arg = argument(call, name, ("network", "loss_fn", "optimizer", "metrics", "eval_network", "eval_indexes",
                                "amp_level", "boost_level"))
    return arg.value if arg is not None else None


def defined_value(ctx: FileContext, scope: Union[cst.FunctionDef, cst.Module, None], expr: Optional[cst.BaseExpression],
                  before: Optional[int] = None) -> Optional[cst.BaseExpression]:
    """The expression a Name was assigned in ``scope`` (else at module level), only when
    exactly one assignment precedes the use (two assignments may sit in different
    branches: then None); the expression itself when it is not a Name."""
    if expr is None or not isinstance(expr, cst.Name):
        return expr
    for where in ((scope,) if scope is not None else ()) + (ctx.module,):
        local = where is scope
        found = [d for d in flow(ctx, where).defs.get(expr.value, ())
                 if not local or before is None or d.order < before]
        if len(found) == 1 and found[0].index is None and not isinstance(found[0].node, cst.For):
            return found[0].value
        if found:
            return None
    return None
