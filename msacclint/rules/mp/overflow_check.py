"""mp.01: a hand-written loss-scaled step that applies the optimizer without an overflow check.

MSA409. MindSpore's own loss-scale step (``nn.TrainOneStepWithLossScaleCell.construct``)
reads the overflow status and skips the update when the scaled gradients overflowed; a
step written by hand (a subclass that overrides ``construct``, a functional
``value_and_grad`` step with a ``mindspore.amp`` loss scaler) has to do the same. Where its
gradients come from, the gradient flow of msacclint.analysis.loss_scale says.
"""

from __future__ import annotations

import os
from typing import Dict, List, Optional, Sequence, Set, Tuple, Union

import libcst as cst

from msacclint.analysis.callers import classes_handed_to
from msacclint.analysis.cells import CellInfo, self_attr
from msacclint.analysis.flow import Definition, Event
from msacclint.analysis.loss_scale import (
    GradScaleFlow,
    Scaled,
    cell_scales_loss,
    file_has_loss_scaling,
    identifier_names,
    says_scale,
)
from msacclint.analysis.training import is_mindspore_optimizer
from msacclint.analysis.walk import descendants
from msacclint.diagnostics import Severity
from msacclint.rules.base import Invalid, Valid
from msacclint.rules.examples import fill
from msacclint.rules.function_rule import FunctionRule

#: loss scales that are meant to change with overflows: without the check they never do
DYNAMIC_SCALES = frozenset({
    "mindspore.DynamicLossScaler", "mindspore.amp.DynamicLossScaler", "mindspore.nn.DynamicLossScaleUpdateCell",
    "mindspore.DynamicLossScaleManager", "mindspore.amp.DynamicLossScaleManager",
})
STATIC_SCALES = frozenset({
    "mindspore.StaticLossScaler", "mindspore.amp.StaticLossScaler", "mindspore.nn.FixedLossScaleUpdateCell",
    "mindspore.FixedLossScaleManager", "mindspore.amp.FixedLossScaleManager", "mindspore.Tensor",
    "mindspore.common.tensor.Tensor",
})
#: resolved callees that read an overflow status or test finiteness, whatever the
#: attribute holding them is called (``self.get_status = P.NPUGetFloatStatus()``)
STATUS_READS = frozenset({
    "mindspore.ops.NPUGetFloatStatus", "mindspore.ops.NPUGetFloatStatusV2", "mindspore.ops.FloatStatus",
    "mindspore.ops.IsFinite", "mindspore.ops.isfinite", "mindspore.amp.all_finite", "mindspore.all_finite",
    "mindspore.ops.IsNan", "mindspore.ops.isnan",
})
_STEP_BASES = ("mindspore.nn.TrainOneStepCell", "mindspore.nn.TrainOneStepWithLossScaleCell")
#: identifiers whose presence in a step means it looks at overflow: the status read of a
#: TrainOneStepWithLossScaleCell, mindspore.amp's all_finite, isfinite/isnan tests, a float
#: status read on Ascend, a scaler's adjust
_CHECK_WORDS = ("finite", "isnan", "get_overflow_status", "process_loss_scale", "getfloatstatus", "check_overflow",
                "overflow_check", "is_overflow", "overflow_status")


def checks_overflow(func: Union[cst.FunctionDef, cst.Module]) -> bool:
    """Whether a step reads an overflow status or tests its gradients for finiteness
    (``start_overflow_check`` alone only clears the status); ``loss_scaler.adjust(...)``
    needs a finiteness flag too."""
    for word in set(identifier_names(func)):
        lowered = word.lower()
        if lowered == "start_overflow_check":
            continue
        if lowered == "adjust" or any(w in lowered for w in _CHECK_WORDS):
            return True
    return False


#: a subclass of TrainOneStepWithLossScaleCell that scales the sensitivity with a
#: mindspore.amp loss scaler it is given; ``{update}`` applies the gradients
_SCALER_STEP = """
    import mindspore as ms
    from mindspore import nn, ops


    class TrainStep(nn.TrainOneStepWithLossScaleCell):
        def __init__(self, network, optimizer, loss_scaler):
            super().__init__(network, optimizer, ms.Tensor(1.0, ms.float32))
            self.loss_scaler = loss_scaler

        def construct(self, *inputs):
            loss = self.network(*inputs)
            sens = ops.ones_like(loss) * self.loss_scaler.scale_value
            grads = self.grad(self.network, self.weights)(*inputs, sens)
            grads = self.loss_scaler.unscale(grads)
            grads = self.grad_reducer(grads)
            {update}
            return loss
"""

#: a functional step with a mindspore.amp scaler ``{scaler}``; ``{step}`` after the gradients
_FUNCTIONAL = """
    import mindspore as ms
    from mindspore import amp, nn

    net = Net()
    optimizer = nn.Adam(net.trainable_params(), 1e-3)
    loss_scaler = amp.{scaler}

    def forward_fn(data, label):
        loss = loss_fn(net(data), label)
        return loss_scaler.scale(loss)

    grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters)

    def train_step(data, label):
        loss, grads = grad_fn(data, label)
        loss = loss_scaler.unscale(loss)
        {step}
        return loss
"""


class ScaledUpdateWithoutOverflowCheck(FunctionRule):
    code = "MSA409"
    about_the_run = True
    #: file_has_loss_scaling reads the file's facts: gathered in the engine's traversal
    uses_facts = True
    name = "scaled-update-without-overflow-check"
    checklist = "mp.01"
    severity = Severity.ERROR
    group = "correctness"
    message = "the optimizer applies loss-scaled gradients without an overflow check"
    evidence = ("An error needs the whole chain resolved along the step: the gradients the optimizer receives come from a "
                "gradient computation with a loss-scale sensitivity or of a forward function returning "
                "`loss_scaler.scale(loss)`, the optimizer call is unconditional, nothing in the step reads an overflow "
                "status or tests finiteness, and the loss scale is a dynamic one (a `DynamicLossScaler` or "
                "`DynamicLossScaleUpdateCell`, built in the file or, with the project layer, what every caller hands "
                "the step). When the scale is static or cannot be resolved, the finding is a warning that says so.")
    what = ("Reports the optimizer call (a MindSpore optimizer object, the `optimizer` of a TrainOneStep cell, "
            "or a callee whose name says optimizer, called with the gradients alone) of a hand-written "
            "loss-scaled training step (a `construct` of a "
            "`TrainOneStepWithLossScaleCell` subclass that computes its gradients with a scale sensitivity, or a "
            "function whose `value_and_grad` forward function returns `loss_scaler.scale(loss)`) when the update "
            "is applied on every step: the call is under no condition and the step neither reads the overflow "
            "status (`get_overflow_status`, `process_loss_scale`, `NPUGetFloatStatus`) nor tests the gradients "
            "(`amp.all_finite`, `ops.isfinite`) nor adjusts its scaler. A step that reads the status and only "
            "returns it (the model zoo's `drop_overflow_update=False` steps) made a choice and is left alone; one "
            "that only clears it (`start_overflow_check` with no `get_overflow_status`) is reported.")
    why = ("Loss scaling multiplies the loss so that small float16 gradients do not underflow; the price is that "
           "large ones overflow to inf. MindSpore's `TrainOneStepWithLossScaleCell` and `Model` with a loss-scale "
           "manager skip such a step and lower the scale; a step written by hand that calls the optimizer anyway "
           "writes inf/NaN into the weights at the first overflow, and a `DynamicLossScaler` whose `adjust` is "
           "never called never lowers its scale, so the overflow repeats. PyTorch's `GradScaler.step` does the "
           "check inside; a port that replaces it with `optimizer(grads)` loses it.")
    example = """
        grads = self.grad(self.network, self.weights)(*inputs, sens)
        grads = self.loss_scaler.unscale(grads)
        loss = ops.depend(loss, self.optimizer(grads))
    """
    use_instead = """
        grads = self.grad(self.network, self.weights)(*inputs, sens)
        grads = self.loss_scaler.unscale(grads)
        is_finite = amp.all_finite(grads)
        if is_finite:
            loss = ops.depend(loss, self.optimizer(grads))
        self.loss_scaler.adjust(is_finite)
    """
    fix_safety = "No automatic fix: the check needs the step's own overflow status or finiteness test."
    versions = ("`mindspore.amp.all_finite` and the `StaticLossScaler`/`DynamicLossScaler` API exist from 2.0; "
                "before, the float-status primitives of `TrainOneStepWithLossScaleCell` were the only check.")
    VALID = (
        Valid(fill(_SCALER_STEP, update="""
            is_finite = amp.all_finite(grads)
            if is_finite:
                loss = ops.depend(loss, self.optimizer(grads))
            self.loss_scaler.adjust(is_finite)
        """), note="the update under the finiteness test"),
        Valid(fill(_SCALER_STEP, update="""
            cond = self.get_overflow_status(status, grads)
            overflow = self.process_loss_scale(cond)
            if not overflow:
                loss = ops.depend(loss, self.optimizer(grads))
        """), note="the model-zoo order: status read, then the update only without overflow"),
        Valid(fill(_FUNCTIONAL, scaler="DynamicLossScaler(2**16, 2, 1000)", step="""
            is_finite = amp.all_finite(grads)
            if is_finite:
                grads = loss_scaler.unscale(grads)
                optimizer(grads)
            loss_scaler.adjust(is_finite)
        """), note="MindSpore's tutorial step"),
        Valid("""
            import mindspore as ms
            from mindspore import nn, ops

            class TrainStep(nn.TrainOneStepCell):
                def construct(self, *inputs):
                    loss = self.network(*inputs)
                    sens = ops.fill(loss.dtype, loss.shape, self.sens)
                    grads = self.grad(self.network, self.weights)(*inputs, sens)
                    grads = self.grad_reducer(grads)
                    return ops.depend(loss, self.optimizer(grads))
        """, note="no loss scale: a plain TrainOneStepCell step"),
        Valid("""
            import torch
            scaler = torch.cuda.amp.GradScaler()
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
        """, note="PyTorch: GradScaler.step checks for inf itself"),
        Valid(fill(_FUNCTIONAL, scaler="DynamicLossScaler(2**16, 2, 1000)", step="""
            grads = loss_scaler.unscale(grads)
            grads = ops.select(ops.isfinite(loss), grads, grads)
            return grads
        """), note="no optimizer in the step: nothing is applied here"),
        Valid("""
            from mindspore import nn
            from mindspore.ops import functional as F
            from mindspore.ops import operations as P

            class TrainStep(nn.TrainOneStepWithLossScaleCell):
                def __init__(self, network, optimizer, scale_sense):
                    super().__init__(network, optimizer, scale_sense)
                    self.alloc_status = P.NPUAllocFloatStatus()
                    self.get_status = P.NPUGetFloatStatus()
                    self.clear_status = P.NPUClearFloatStatus()

                def construct(self, data, label):
                    loss = self.network(data, label)
                    scaling_sens = self.scale_sense
                    init = self.alloc_status()
                    scaling_sens = F.depend(scaling_sens, self.clear_status(init))
                    grads = self.grad(self.network, self.weights)(data, label, scaling_sens)
                    init = F.depend(init, grads)
                    cond = P.ReduceSum()(F.depend(init, self.get_status(init)), (0,)) > 0
                    self.optimizer(grads)
                    return loss, cond
        """, note="the status is read and returned, the update applied anyway: the model zoo's "
                  "drop_overflow_update=False choice, left alone"),
    )
    INVALID = (
        Invalid(fill(_FUNCTIONAL, scaler="DynamicLossScaler(2**16, 2, 1000)", step="""
            grads = loss_scaler.unscale(grads)
            optimizer(grads)  # MSA409
        """), note="a port of `scaler.step(optimizer)`: adjust never called, overflows applied"),
        Invalid(fill(_FUNCTIONAL, scaler="StaticLossScaler(1024.0)", step="""
            grads = loss_scaler.unscale(grads)
            optimizer(grads)  # MSA409
        """), severity=Severity.WARNING, message_contains="static",
            note="a static scale: a warning (an overflow is written into the weights)"),
        Invalid(fill(_SCALER_STEP, update="loss = ops.depend(loss, self.optimizer(grads))  # MSA409"),
                severity=Severity.WARNING, message_contains="could not resolve",
                note="the scaler the step is handed is not known: a warning"),
        Invalid(files={
            "src/step.py": fill(_SCALER_STEP, update="loss = ops.depend(loss, self.optimizer(grads))  # MSA409"),
            "train.py": """
                from mindspore.amp import DynamicLossScaler
                from src.step import TrainStep

                loss_scaler = DynamicLossScaler(2**16, 2, 1000)
                step = TrainStep(net, opt, loss_scaler)
            """,
        }, message_contains="train.py:5", note="multi-file: the project hands the step a DynamicLossScaler"),
        Invalid(files={
            "src/step.py": fill(_SCALER_STEP, update="loss = ops.depend(loss, self.optimizer(grads))  # MSA409"),
            "train.py": """
                from mindspore.amp import DynamicLossScaler, StaticLossScaler
                from src.step import TrainStep

                def train(net, opt, scaler):
                    step = TrainStep(net, opt, scaler)
                    for data, label in dataset:
                        step(data, label)

                scaler = StaticLossScaler(1024.0)
                if args.loss_scaler == "dynamic":
                    scaler = DynamicLossScaler(2**16, 2, 1000)
                train(net, opt, scaler)
            """,
        }, message_contains="train.py:12",
            note="multi-file, through the parameter of a train() function: one configuration hands it a "
                 "DynamicLossScaler"),
        Invalid("""
            import mindspore as ms
            from mindspore import nn, ops

            class TrainStep(nn.TrainOneStepWithLossScaleCell):
                def construct(self, *inputs):
                    loss = self.network(*inputs)
                    scaling_sens = self.scale_sense
                    status, scaling_sens = self.start_overflow_check(loss, scaling_sens)
                    sens = ops.ones_like(loss) * scaling_sens
                    grads = self.grad(self.network, self.weights)(*inputs, sens)
                    grads = self.grad_reducer(grads)
                    self.optimizer(grads)  # MSA409
                    return loss

            step = TrainStep(net, opt, nn.DynamicLossScaleUpdateCell(2**24, 2, 1000))
        """, note="the status cleared but never read: the dynamic update cell never lowers the scale"),
    )

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._enclosing: List[cst.FunctionDef] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        super().visit_FunctionDef(node)
        self._enclosing.append(node)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._enclosing.pop()
        super().leave_FunctionDef(original_node)

    def check_function(self, func: Union[cst.FunctionDef, cst.Module], owner: Optional[CellInfo]) -> None:
        if isinstance(func, cst.Module) or "optim" not in self.ctx.source.lower() \
                or not file_has_loss_scaling(self.ctx):
            return
        outer = [f for f in self._enclosing if f is not func]
        nested: Dict[str, cst.FunctionDef] = {}
        for enclosing in outer:
            for stmt in enclosing.body.body if isinstance(enclosing.body, cst.IndentedBlock) else ():
                if isinstance(stmt, cst.FunctionDef):
                    nested[stmt.name.value] = stmt
        analysis = GradScaleFlow(self.ctx, func, self.attr_callee(owner), nested=nested,
                                 scales_loss=cell_scales_loss(self.ctx, owner), enclosing=outer[::-1])
        for event in analysis.flow.calls():
            grads = self._update_of(analysis, event, owner)
            if grads is None or event.guards:
                continue
            scaled = scaled_source(analysis, grads, event.order)
            if scaled is None:
                continue
            if checks_overflow(func) or any(analysis.callee(e.node.func) in STATUS_READS
                                            for e in analysis.flow.calls()):
                return  # the step reads the overflow status (and may return it): a choice, not an omission
            self._report(event, grads, scaled, analysis, owner)
            return

    # -- the update ---------------------------------------------------------------------
    def _update_of(self, analysis: GradScaleFlow, event: Event[cst.Call], owner: Optional[CellInfo]) -> Optional[str]:
        """The gradient name an optimizer call applies: ``self.optimizer(grads)`` of a
        TrainOneStep subclass, a MindSpore optimizer object, or a name or attribute that says
        optimizer, called with the gradients alone."""
        call = event.node
        args = [a for a in call.args if not a.star]
        if len(args) != 1 or args[0].keyword is not None or not isinstance(args[0].value, cst.Name):
            return None
        func = call.func
        attr = self_attr(func)
        if attr is not None:
            if attr == "optimizer" and owner is not None and any(b in _STEP_BASES for b in owner.bases if b):
                return args[0].value.value
            name = attr
        elif isinstance(func, cst.Name):
            name = func.value
        else:
            return None
        if is_mindspore_optimizer(analysis.callee(func)) or "optim" in name.lower():
            return args[0].value.value
        return None

    # -- the scale ----------------------------------------------------------------------
    def _report(self, event: Event[cst.Call], grads: str, scaled: Scaled, analysis: GradScaleFlow,
                owner: Optional[CellInfo]) -> None:
        kinds, where = self._scale_kinds(scaled, analysis, owner)
        related: Sequence[Tuple[str, int, str]] = [where] if where is not None else ()
        shown = f" ({where[2]} at {where[0]}:{where[1]})" if where is not None else ""
        head = (f"`{grads}` is applied by the optimizer on every step although it comes from loss-scaled "
                f"gradients, and nothing in the step checks for overflow")
        if kinds and kinds <= {"dynamic", "static"} and "dynamic" in kinds:
            self.report(event.node, f"{head}: the loss scale is dynamic{shown}, but without the check it is never "
                        f"lowered and an overflowed step writes inf/NaN into the weights; apply the update only when "
                        f"`amp.all_finite(grads)` (or the overflow status) says the gradients are finite, and adjust "
                        f"the scale", related=related)
        elif kinds == {"static"}:
            self.report(event.node, f"{head}: the loss scale is static{shown}, and a step whose float16 gradients "
                        f"overflow writes inf/NaN into the weights; skip the update when `amp.all_finite(grads)` is "
                        f"False", severity=Severity.WARNING, related=related)
        else:
            self.report(event.node, f"{head}; msacclint could not resolve which loss scale the step is given: if it "
                        f"is dynamic it is never lowered, and any overflowed step writes inf/NaN into the weights; "
                        f"apply the update only when `amp.all_finite(grads)` says the gradients are finite",
                        severity=Severity.WARNING)

    def _scale_kinds(self, scaled: Scaled, analysis: GradScaleFlow, owner: Optional[CellInfo]
                     ) -> Tuple[Set[str], Optional[Tuple[str, int, str]]]:
        """"dynamic"/"static" for every loss scale the step can be given, with where one was
        built; an empty set when one of them cannot be resolved."""
        holders = scale_holders(analysis, scaled)
        kinds: Set[str] = set()
        where: Optional[Tuple[str, int, str]] = None
        for holder in holders:
            attr = holder[5:] if holder.startswith("self.") else None
            if attr is None:
                callee = analysis.callee(cst.Name(holder))
                kind = _kind(callee)
                if kind is None:
                    return set(), None
                kinds.add(kind)
                continue
            if owner is not None and attr in owner.attrs and owner.attrs[attr].callee is not None:
                kind = _kind(owner.attrs[attr].callee)
                if kind is None:
                    return set(), None
                kinds.add(kind)
                continue
            handed = self._handed(owner, attr)
            if not handed:
                return set(), None
            for kind, place in handed:
                if kind is None:
                    return set(), None
                kinds.add(kind)
                if kind == "dynamic" or where is None:
                    where = place
        return kinds, where

    def _handed(self, owner: Optional[CellInfo], attr: str) -> List[Tuple[Optional[str], Tuple[str, int, str]]]:
        """What the project hands the step class for the parameter ``self.<attr>`` is set
        from (``scale_sense`` of a TrainOneStepWithLossScaleCell that does not override
        ``__init__``): (kind, (file, line, what))."""
        project = self.ctx.project
        if owner is None or project is None:
            return []
        path = os.path.abspath(self.ctx.path)
        init = owner.methods.get("__init__")
        built = classes_handed_to(self.ctx, owner, attr)
        if built is None and attr == "scale_sense":
            # TrainOneStepWithLossScaleCell keeps its third argument as self.scale_sense
            if init is None:  # as every call in the project passes it, by keyword or third
                built = project.passed_classes(path, owner.name, "scale_sense", 2, in_place=True)
            else:
                params = [p.name.value for p in (*init.params.params, *init.params.kwonly_params)]
                param = _passed_to_super(init, params)
                built = project.argument_classes(path, owner.name, param) if param is not None else None
        out: List[Tuple[Optional[str], Tuple[str, int, str]]] = []
        for where, callee, line in built or ():
            summary = project.summary(where)
            qualified = project.qualified(summary, callee) if summary is not None else callee
            out.append((_kind(qualified), (project.display(where), line, f"a {callee} handed on")))
        return out


def _kind(callee: Optional[str]) -> Optional[str]:
    if callee in DYNAMIC_SCALES:
        return "dynamic"
    if callee in STATIC_SCALES:
        return "static"
    return None


def _passed_to_super(init: cst.FunctionDef, params: List[str]) -> Optional[str]:
    """The parameter a subclass's ``__init__`` passes to TrainOneStepWithLossScaleCell as
    its third argument (``scale_sense``)."""
    for node in _calls(init):
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value == "__init__" and isinstance(func.value, cst.Call):
            positional = [a.value for a in node.args if a.keyword is None and not a.star]
            keyword = {a.keyword.value: a.value for a in node.args if a.keyword is not None}
            value = keyword.get("scale_sense", positional[2] if len(positional) > 2 else None)
            if isinstance(value, cst.Name) and value.value in params:
                return value.value
    return None


def _calls(node: cst.CSTNode) -> List[cst.Call]:
    return [n for n in descendants(node) if isinstance(n, cst.Call)]


def scaled_source(analysis: GradScaleFlow, name: str, before: int, depth: int = 0) -> Optional[Scaled]:
    """Whether ``name`` just before event ``before`` descends from loss-scaled gradients,
    through any steps (an unscale, a reducer, a clip): the question is where the values came
    from, not whether they still carry the scale."""
    chain = analysis.flow.chain(name, before)
    if not chain:
        return None
    origin = chain[-1]
    found = analysis.scaled_origin(origin)
    if found is not None or depth >= 4:
        return found
    value = origin.value
    if isinstance(value, cst.Name):
        return scaled_source(analysis, value.value, origin.order + 1, depth + 1)
    if isinstance(value, cst.Call):
        for arg in value.args:
            if isinstance(arg.value, cst.Name) and arg.value.value != name:
                found = scaled_source(analysis, arg.value.value, origin.order, depth + 1)
                if found is not None:
                    return found
    return None


def scale_holders(analysis: GradScaleFlow, scaled: Scaled) -> List[str]:
    """The names (``loss_scaler``, ``self.loss_scaler``, ``self.scale_sense``) the scale of a
    scaled gradient computation is read from: the receiver of ``.scale(loss)`` in the
    forward function, or what the sensitivity is computed from."""
    origin: Definition = scaled.origin
    if scaled.reason == "scaler":
        return analysis.scaler_receivers(origin)
    value = origin.value
    assert isinstance(value, cst.Call)
    sens = [a.value for a in value.args if a.keyword is None and not a.star]
    return analysis.sens_sources(sens[-1], origin.order) if sens else []


__all__ = ["ScaledUpdateWithoutOverflowCheck", "checks_overflow", "says_scale", "scaled_source"]
