"""Where a file trains by hand: training steps, the loops that run them, the network they
train, and the mode (``set_train``) calls made on networks.

``training(ctx)`` computes once per file:
- ``steps``: each hand-built training step — ``value_and_grad``/``grad``/``GradOperation``
  results, ``nn.TrainOneStepCell``/``TrainOneStepWithLossScaleCell`` (or a subclass, or a
  hand-written step Cell of this file) constructed by hand — with the name it is bound to
  and the network it trains when that can be identified (``Step.network``: the flow and
  assignment of the network object, or None);
- ``step_functions``: functions that call a step (``def train_step(x, y): ... grad_fn(x, y)``);
- ``loops``: call events that run a step or a step function inside a loop;
- ``set_train``: every ``x.set_train(...)`` call with its mode (True, False, or None when the
  argument cannot be read);
- ``uses_model_train``: the file builds ``mindspore.Model`` and calls ``.train(`` on something.
Asked on demand: ``trained_classes()``, the file's own Cell classes whose instances the file
trains (the network of a step, or of a Model whose ``.train(`` is called, and what those
wrap).
"""

from __future__ import annotations

from typing import Callable, List, Optional, Set, Tuple

import libcst as cst

from msacclint.analysis.calls import argument, literal, parameter_slots
from msacclint.analysis.cells import attributes_from_parameters, cell_of_call, cells, self_attr
from msacclint.analysis.containers import CONTAINERS, elements, layer_mode
from msacclint.analysis.context import FileContext, Question
from msacclint.analysis.facts import facts
from msacclint.analysis.flow import Event, FunctionFlow
from msacclint.analysis.scopes import Scopes, scopes
from msacclint.analysis.train_modes import holds_mode_cells, mode_cells_state, project_mode_state
from msacclint.analysis.train_steps import Handed, Network, Step, handed_parameter

GRAD_BUILDERS = {
    "mindspore.value_and_grad": ("fn", "grad_position", "weights"),
    "mindspore.grad": ("fn", "grad_position", "weights"),
    "mindspore.ops.value_and_grad": ("fn", "grad_position", "weights"),
    "mindspore.ops.grad": ("fn", "grad_position", "weights"),
}
GRAD_OPERATION = "mindspore.ops.GradOperation"
#: MindSpore's optimizer classes (``mindspore.nn.<name>``, also reached as ``mindspore.nn.optim.<name>``)
MINDSPORE_OPTIMIZERS = frozenset({
    "SGD", "Momentum", "Adam", "AdamWeightDecay", "AdamOffload", "AdamW", "Lamb", "LARS", "RMSProp", "Adagrad",
    "Adadelta", "Adamax", "FTRL", "LazyAdam", "ProximalAdagrad", "ASGD", "Rprop", "AdaFactor", "ThorGpu",
    "ThorAscend"})


def is_mindspore_optimizer(qualified: Optional[str]) -> bool:
    """Whether a resolved callee is one of MindSpore's optimizer classes."""
    if not qualified or not qualified.startswith("mindspore.nn."):
        return False
    return qualified.rsplit(".", 1)[-1] in MINDSPORE_OPTIMIZERS
STEP_CELLS = frozenset({"mindspore.nn.TrainOneStepCell", "mindspore.nn.TrainOneStepWithLossScaleCell"})
#: MindSpore cells that wrap the network given as their first arguments
WRAPPERS = STEP_CELLS | {"mindspore.nn.WithLossCell", "mindspore.nn.WithGradCell"}
MODEL = "mindspore.Model"


class Training:
    def __init__(self, ctx: FileContext) -> None:
        self.ctx = ctx
        self._trained_classes: Optional[Set[str]] = None
        self.facts = facts(ctx)
        self.step_classes = self._step_classes()
        self.steps: List[Step] = []
        self.step_functions: Set[str] = set()
        self.loops: List[Tuple[FunctionFlow, Event[cst.Call]]] = []
        if self.step_classes or self.facts.calls_any(*GRAD_BUILDERS, *STEP_CELLS, GRAD_OPERATION):
            self.steps = self._steps()
            self.step_functions = self._step_functions()
            self.loops = self._loops()
        self.set_train: List[Tuple[cst.Call, Optional[bool]]] = [
            (call, set_train_mode(call)) for call in self.facts.method_calls("set_train")]
        self.uses_model_train = bool(self.facts.called(MODEL)) and bool(self.facts.method_calls("train"))

    @property
    def trains(self) -> bool:
        """The file trains something: a hand-written training step, or Model.train."""
        return bool(self.steps) or self.uses_model_train

    @property
    def scopes(self) -> Scopes:
        return scopes(self.ctx)

    # -- building -------------------------------------------------------------------
    def _step_classes(self) -> Set[str]:
        """Classes of this file that are training-step cells."""
        out: Set[str] = set()
        for info in cells(self.ctx).classes.values():
            if any(b in STEP_CELLS for b in info.bases):
                out.add(info.name)
                continue
            callees = {a.callee for a in info.attrs.values()}
            if GRAD_OPERATION in callees or callees & set(GRAD_BUILDERS):
                if "construct" in info.methods:
                    out.add(info.name)
        return out

    def _steps(self) -> List[Step]:
        out: List[Step] = []
        for fl in self.scopes.flows:
            for e in fl.calls():
                call = e.node
                kind = self._step_kind(call, e.callee)
                if kind is None:
                    continue
                name = _bound_name(fl, call)
                step = Step(call, fl, name, kind)
                step.network = self._network_of(step)
                if step.network is None:
                    step.handed = self._handed_of(step)
                out.append(step)
        return out

    def takes_parameter_gradients(self, step: Step) -> Optional[bool]:
        """Whether the step differentiates with respect to parameters: False for
        ``grad``/``value_and_grad`` whose ``weights`` is absent or None (gradients of the
        inputs only) and for ``GradOperation`` without ``get_by_list=True``; True for step
        Cells and weights given; None when it cannot be read."""
        if step.kind == "cell":
            return True
        if step.kind == "grad":
            weights = argument(step.node, "weights", GRAD_BUILDERS.get(self.ctx.resolve(step.node.func) or "", ()))
            if weights is None:
                return False
            value = literal(weights.value)
            return False if value is None else True
        if step.kind == "gradop" and isinstance(step.node.func, cst.Call):
            by_list = argument(step.node.func, "get_by_list", ("get_all", "get_by_list", "sens_param"))
            if by_list is None:
                return False
            value = literal(by_list.value)
            return value if isinstance(value, bool) else None
        return None

    def _step_kind(self, call: cst.Call, callee: Optional[str]) -> Optional[str]:
        if callee in GRAD_BUILDERS:
            return "grad"
        if callee in STEP_CELLS:
            return "cell"
        if isinstance(call.func, cst.Name) and call.func.value in self.step_classes:
            return "cell"
        if isinstance(call.func, cst.Call) and self.ctx.resolve(call.func.func) == GRAD_OPERATION:
            return "gradop"  # ops.GradOperation(...)(net, weights)
        return None

    def _network_of(self, step: Step) -> Optional[Network]:
        call = step.node
        order = step.flow.order(call)
        if step.kind == "cell" or step.kind == "gradop":
            arg = argument(call, "network", ("network",))
            return self.object_at(step.flow, arg.value, order) if arg is not None else None
        weights = argument(call, "weights", GRAD_BUILDERS[self.ctx.resolve(call.func) or ""])
        if weights is not None:
            net = self._owner_of_weights(step.flow, weights.value, order)
            if net is not None:
                return net
        fn = argument(call, "fn", ("fn",))
        if fn is None or not isinstance(fn.value, cst.Name):
            return None
        as_object = self.object_at(step.flow, fn.value, order)
        if as_object is not None:
            return as_object  # value_and_grad(net_with_loss, ...)
        function = self.scopes.module_function(fn.value.value)
        if function is None:
            return None
        return self._called_network(function)

    def _handed_of(self, step: Step) -> Optional[Handed]:
        """The network of a step inside a method, when it is an attribute of ``self`` that the
        class's ``__init__`` sets from one of its parameters: given to a cell step
        (``TrainOneStepCell(self.net, ...)``), or called by the forward function a gradient
        step differentiates (``net = self.network`` ... ``net(x)``, nested or a method)."""
        candidates: List[Tuple[FunctionFlow, cst.BaseExpression, Optional[int]]] = []
        order = step.flow.order(step.node)
        if step.kind in ("cell", "gradop"):
            arg = argument(step.node, "network", ("network",))
            if arg is not None:
                candidates.append((step.flow, arg.value, order))
        elif step.kind == "grad":
            fn = argument(step.node, "fn", ("fn",))
            function = self.scopes.module_function(fn.value.value) \
                if fn is not None and isinstance(fn.value, cst.Name) else None
            if function is not None:
                from msacclint.analysis.flow import flow as flow_of

                fl = flow_of(self.ctx, function)
                candidates.extend((fl, e.node.func, e.order) for e in fl.calls())
        for fl, expr, at in candidates:
            attr = self._self_attribute(fl, expr, at)
            if attr is None:
                continue
            found = self._init_parameter(step.flow, attr)
            if found is not None:
                return found
        # a parameter of the top-level function that trains it (``def train(network, ...)``)
        return next((h for h in (handed_parameter(self.scopes, fl, expr, at) for fl, expr, at in candidates)
                     if h is not None), None)

    def _self_attribute(self, fl: FunctionFlow, expr: cst.BaseExpression, order: Optional[int]) -> Optional[str]:
        """``self.X`` (or a local name assigned from it) -> ``X``."""
        if isinstance(expr, cst.Name):
            found = self.scopes.resolve(fl, expr.value, order)
            if found is None or found[1].index is not None:
                return None
            expr = found[1].value
        return self_attr(expr)

    def _init_parameter(self, fl: FunctionFlow, attr: str) -> Optional[Handed]:
        """The class whose method holds ``fl`` (through nested functions), when its
        ``__init__`` sets ``self.<attr>`` once, straight from one of its parameters."""
        owner = self.scopes.class_of(fl)
        info = cells(self.ctx).by_node.get(owner) if owner is not None else None
        init = info.methods.get("__init__") if info is not None else None
        if owner is None or info is None or init is None:
            return None
        param = attributes_from_parameters(self.ctx, owner, parameter_slots(init)).get(f"self.{attr}")
        return Handed(info.name, param, attr) if param is not None else None

    def _owner_of_weights(self, fl: FunctionFlow, expr: cst.BaseExpression, order: Optional[int]) -> Optional[Network]:
        """``net.trainable_params()`` -> net; ``opt.parameters`` -> the net opt was built on."""
        if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
            if expr.func.attr.value in ("trainable_params", "get_parameters", "parameters_dict"):
                return self.object_at(fl, expr.func.value, order)
        if isinstance(expr, cst.Attribute) and expr.attr.value == "parameters" and isinstance(expr.value, cst.Name):
            found = self.scopes.resolve(fl, expr.value.value, order)
            if found is not None and isinstance(found[1].value, cst.Call) and found[1].value.args:
                return self._owner_of_weights(found[0], found[1].value.args[0].value, found[1].order)
        if isinstance(expr, cst.Name):
            found = self.scopes.resolve(fl, expr.value, order)
            if found is not None:
                return self._owner_of_weights(found[0], found[1].value, found[1].order)
        return None

    def _called_network(self, function: cst.FunctionDef) -> Optional[Network]:
        """The first object a forward function calls that was built by a call in this file and
        is not a loss."""
        from msacclint.analysis.flow import flow as flow_of

        fl = flow_of(self.ctx, function)
        for e in fl.calls():
            if isinstance(e.node.func, cst.Name):
                net = self.object_at(fl, e.node.func, e.order)
                if net is None:
                    continue
                callee = self.ctx.resolve(net.call.func) or ""
                if "Loss" in callee or "loss" in net.name.lower():
                    continue
                return net
        return None

    def object_at(self, fl: FunctionFlow, expr: cst.BaseExpression,
                  order: Optional[int] = None) -> Optional[Network]:
        """The object a Name refers to when it was built by a call (``net = Net()``); for a
        wrapper built in place (``nn.WithLossCell(net, loss)``), the object it wraps."""
        if isinstance(expr, cst.Call) and expr.args and expr.args[0].keyword is None:
            return self.object_at(fl, expr.args[0].value, order)
        if not isinstance(expr, cst.Name):
            return None
        found = self.scopes.resolve(fl, expr.value, order)
        if found is None or found[1].index is not None or not isinstance(found[1].value, cst.Call):
            return None
        return Network(found[0], found[1])

    def trained_classes(self) -> Set[str]:
        """Names of the file's own classes whose instances this file trains: the network of a
        hand-built step or of a ``Model`` whose ``.train(`` is called in the same function,
        and the objects of the file's classes those are built around
        (``Model(NetWithLoss(Backbone()))``: both)."""
        def compute() -> Set[str]:
            out: Set[str] = set()
            for step in self.steps:
                if step.kind in ("cell", "gradop"):
                    arg = argument(step.node, "network", ("network",))
                    if arg is not None:
                        out |= self._classes_built(step.flow, arg.value, step.flow.order(step.node))
                elif step.network is not None:
                    d = step.network.definition
                    out |= self._classes_built(step.network.flow, d.value, d.order)
            if self.uses_model_train:
                for fl in self.scopes.flows:
                    for e in fl.calls_to(MODEL):
                        name = _bound_name(fl, e.node)
                        arg = argument(e.node, "network", ("network",))
                        if name is not None and arg is not None and fl.method_calls("train", receiver=name):
                            out |= self._classes_built(fl, arg.value, e.order)
            return out
        if self._trained_classes is None:  # one Training per file (``training(ctx)``)
            self._trained_classes = compute()
        return self._trained_classes

    def _classes_built(self, fl: FunctionFlow, expr: cst.BaseExpression, order: Optional[int],
                       depth: int = 0) -> Set[str]:
        """The file's classes instantiated by ``expr`` (a call, or a name bound to one) and by
        the positional arguments of that call, through this file's classes and MindSpore
        wrappers (a factory of unknown meaning stops the search)."""
        if depth > 3:
            return set()
        if isinstance(expr, cst.Name):
            found = self.scopes.resolve(fl, expr.value, order)
            if found is None or found[1].index is not None or not isinstance(found[1].value, cst.Call):
                return set()
            fl, order, expr = found[0], found[1].order, found[1].value
        if not isinstance(expr, cst.Call):
            return set()
        out: Set[str] = set()
        info = cell_of_call(self.ctx, expr)
        if info is not None:
            out.add(info.name)
        elif self.ctx.resolve(expr.func) not in WRAPPERS:
            return out
        for arg in expr.args:
            if arg.keyword is None and not arg.star:
                out |= self._classes_built(fl, arg.value, order, depth + 1)
        return out

    def _step_functions(self) -> Set[str]:
        step_names = {s.name for s in self.steps if s.name}
        gradop_flows = [s.flow for s in self.steps if s.kind == "gradop"]
        return self._callers_of(step_names, lambda fl: any(f is fl for f in gradop_flows))

    def _callers_of(self, names: Set[str],
                    also: Callable[[FunctionFlow], bool] = lambda fl: False) -> Set[str]:
        """The functions of the file that call one of ``names``, directly or through others
        (or for which ``also`` holds)."""
        out: Set[str] = set()
        changed = True
        while changed:
            changed = False
            for fl in self.scopes.flows[1:]:
                if not isinstance(fl.root, cst.FunctionDef):  # flows[0] alone is the module's
                    continue
                fname = fl.root.name.value
                if fname in out:
                    continue
                if also(fl) or any(isinstance(e.node.func, cst.Name) and e.node.func.value in (names | out)
                                   for e in fl.calls()):
                    out.add(fname)
                    changed = True
        return out

    def runs_in_loop(self, step: Step) -> bool:
        """The step is called in a loop, directly or through step functions."""
        if step.name is None:
            return False
        callers = {step.name} | self._callers_of({step.name})
        return any(isinstance(e.node.func, cst.Name) and e.node.func.value in callers for _, e in self.loops)

    def _loops(self) -> List[Tuple[FunctionFlow, Event[cst.Call]]]:
        step_names = {s.name for s in self.steps if s.name} | self.step_functions
        out: List[Tuple[FunctionFlow, Event[cst.Call]]] = []
        for fl in self.scopes.flows:
            for e in fl.calls():
                if e.loop_depth and isinstance(e.node.func, cst.Name) and e.node.func.value in step_names:
                    out.append((fl, e))
        return out

    # -- questions ------------------------------------------------------------------
    def enables_training_mode(self) -> bool:
        """Some ``set_train()`` in the file may switch a network to training mode."""
        return any(mode is not False for _, mode in self.set_train)

    def helper_enables(self, name: str) -> Optional[object]:
        """Evidence that a function of another file of the project, called here with ``name``
        (``x2ms_train(model)``), puts that argument in training mode (the project layer's
        ``helper_sets_train``); None without the project layer or when none does."""
        project = self.ctx.project
        if project is None:
            return None
        for call in self.facts.in_order:
            if not any(isinstance(a.value, cst.Name) and a.value.value == name for a in call.args):
                continue
            if isinstance(call.func, cst.Attribute) and isinstance(call.func.value, cst.Name) \
                    and call.func.value.value == name:
                continue
            found: Optional[object] = project.helper_sets_train(self.ctx, call, name)
            if found is not None:
                return found
        return None

    def enables_before_training(self) -> bool:
        """Some ``set_train()`` that may switch a network to training mode can run before or
        during a training loop of the file. A call inside a module-level function that neither
        runs the loop, nor is called from it (directly or through others), nor is called before
        it by a function on the way to it, cannot: an ``eval()`` that sets training mode back at
        its end, called only in another branch of the script. Calls at module level, in methods
        and in nested functions, and functions used other than by direct calls, count."""
        enabling = [call for call, mode in self.set_train if mode is not False]
        if not enabling:
            return False
        loop_flows = [fl for fl, _ in self.loops]
        if not loop_flows:
            return True
        for call in enabling:
            fl = self.scopes.owner(call)
            root = fl.root if fl is not None else None
            if not isinstance(root, cst.FunctionDef) or self.scopes.method_of.get(root) is not None \
                    or self.scopes.parent.get(root) is not None:
                return True
            if any(self._may_run_before(root, loop) for loop in loop_flows):
                return True
        return False

    def _may_run_before(self, function: cst.FunctionDef, loop: FunctionFlow) -> bool:
        from msacclint.analysis.words import name_uses

        name = function.name.value
        callers = self.scopes.callers(function)
        if name_uses(self.ctx, name) != len(callers) + 1:
            return True  # used otherwise than by direct calls (a callback, a table): not followed
        if loop.root is function or name in self._callees(loop):
            return True
        # the functions on the way to the loop, each with the order of its call of the next one
        path: List[Tuple[FunctionFlow, int]] = []
        frontier = [loop]
        seen: Set[int] = set()
        while frontier:
            current = frontier.pop()
            if id(current) in seen or not isinstance(current.root, cst.FunctionDef):
                continue
            seen.add(id(current))
            for caller, e in self.scopes.callers(current.root):
                path.append((caller, e.order))
                frontier.append(caller)
        return any(caller is c_fl and e.order < at for c_fl, at in path for caller, e in callers)

    def _callees(self, fl: FunctionFlow) -> Set[str]:
        """Names of the file's functions that ``fl`` calls, directly or through others."""
        from msacclint.analysis.flow import flow as flow_of

        out: Set[str] = set()
        frontier = [fl]
        while frontier:
            current = frontier.pop()
            for e in current.calls():
                if isinstance(e.node.func, cst.Name) and e.node.func.value not in out:
                    target = self.scopes.module_function(e.node.func.value)
                    if target is not None:
                        out.add(e.node.func.value)
                        frontier.append(flow_of(self.ctx, target))
        return out

    def runs_imported_step(self) -> bool:
        """A cell built in the file from a MindSpore optimizer it was handed (``TrainOneStepG(
        loss_cell, opt)``, its class defined elsewhere) is called in a loop: a training step
        whose class the file cannot see."""
        for fl in self.scopes.flows:
            for e in fl.calls():
                call = e.node
                if not isinstance(call.func, (cst.Name, cst.Attribute)) or \
                        is_mindspore_optimizer(self.ctx.resolve(call.func)):
                    continue
                if not any(self._is_optimizer(fl, a.value, e.order) for a in call.args if not a.star):
                    continue
                name = _bound_name(fl, call)
                if name is not None and any(ev.loop_depth and isinstance(ev.node.func, cst.Name)
                                            and ev.node.func.value == name for ev in fl.calls()):
                    return True
        return False

    def _is_optimizer(self, fl: FunctionFlow, expr: cst.BaseExpression, order: Optional[int]) -> bool:
        if isinstance(expr, cst.Call):
            return is_mindspore_optimizer(self.ctx.resolve(expr.func))
        built = self.object_at(fl, expr, order)
        return built is not None and is_mindspore_optimizer(self.ctx.resolve(built.call.func))

    def disables_training_mode(self, receiver: Optional[str] = None) -> bool:
        for call, mode in self.set_train:
            if mode is not True and (receiver is None or _receiver(call) == receiver):
                return True
        return False

    def mode_cells_state(self, network: Network, depth: int = 0) -> Optional[bool]:
        """For a network built in this file: see ``mode_cells_state``; wrappers such as
        ``nn.WithLossCell(net, loss)`` are looked through, and a container of visible layers
        (``nn.SequentialCell([nn.Dense(2, 16), nn.ReLU()])``) is read layer by layer."""
        value = network.definition.value
        while isinstance(value, cst.Call):
            if (self.ctx.resolve(value.func) or "") in CONTAINERS:
                return self._container_state(network, value, depth)
            if isinstance(value.func, cst.Name) and value.func.value in cells(self.ctx).classes:
                state = mode_cells_state(self.ctx, value.func.value)
                if state:
                    return state
                # a wrapper of the file (``WithLossCell(net, loss)``): the cells it is handed count
                for arg in value.args:
                    if arg.keyword is not None or arg.star or not isinstance(arg.value, cst.Name):
                        continue
                    inner = self.object_at(network.flow, arg.value, network.definition.order)
                    inner_state = self.mode_cells_state(inner) if inner is not None else False
                    if inner_state:
                        return True
                    if inner_state is None and state is False:
                        state = None
                return state
            if not (self.ctx.resolve(value.func) or "").startswith("mindspore."):
                state = project_mode_state(self.ctx, value.func)
                if state is not None:
                    return state
            callee = self.ctx.resolve(value.func) or ""
            if callee.startswith("mindspore.nn.") and value.args and isinstance(value.args[0].value, cst.Name):
                inner = self.object_at(network.flow, value.args[0].value, network.definition.order)
                if inner is None:
                    return None
                value = inner.definition.value
                continue
            return None
        return None

    def _container_state(self, network: Network, call: cst.Call, depth: int) -> Optional[bool]:
        """Whether a SequentialCell/CellList built by ``call`` holds a layer that depends on
        the mode: True at the first that does, None when a layer cannot be told (or the
        layers are not written out), else False."""
        layers = elements(call, self.ctx.resolve)
        if layers is None or depth > 8:
            return None
        unknown = False
        for layer in layers:
            state = self._layer_state(network, layer, depth + 1)
            if state:
                return True
            unknown = unknown or state is None
        return None if unknown else False

    def _layer_state(self, network: Network, expr: cst.BaseExpression, depth: int) -> Optional[bool]:
        """One layer of a container: a MindSpore layer (``layer_mode``), a nested container,
        a class of the file or of the project, or a name bound to one of those before."""
        if isinstance(expr, cst.Name):
            inner = self.object_at(network.flow, expr, network.definition.order)
            return self.mode_cells_state(inner, depth) if inner is not None else None
        if not isinstance(expr, cst.Call):
            return None
        callee = self.ctx.resolve(expr.func)
        if callee in CONTAINERS:
            return self._container_state(network, expr, depth)
        if callee is not None and callee.startswith("mindspore."):
            return layer_mode(callee, expr)
        if isinstance(expr.func, cst.Name) and expr.func.value in cells(self.ctx).classes:
            return mode_cells_state(self.ctx, expr.func.value)
        return project_mode_state(self.ctx, expr.func)

    def holds_mode_cells(self, network: Network) -> bool:
        """The network's class (a class of this file) holds BatchNorm or Dropout cells, or
        the network is a container of visible layers one of which depends on the mode."""
        value = network.definition.value
        if isinstance(value, cst.Call) and (self.ctx.resolve(value.func) or "") in CONTAINERS:
            return self._container_state(network, value, 0) is True
        if not isinstance(value, cst.Call) or not isinstance(value.func, cst.Name):
            return False
        return holds_mode_cells(self.ctx, value.func.value)


def set_train_mode(call: cst.Call) -> Optional[bool]:
    arg = argument(call, "mode", ("mode",))
    if arg is None:
        return True
    value = literal(arg.value)
    return value if isinstance(value, bool) else None


def _receiver(call: cst.Call) -> Optional[str]:
    func = call.func
    if isinstance(func, cst.Attribute):
        if isinstance(func.value, cst.Name):
            return func.value.value
        if isinstance(func.value, cst.Attribute):
            return func.value.attr.value
    return None


def _bound_name(fl: FunctionFlow, call: cst.Call) -> Optional[str]:
    """The name a call's value is assigned to (``grad_fn = ms.value_and_grad(...)``)."""
    for defs in fl.defs.values():
        for d in defs:
            if d.value is call and d.index is None:
                return d.name
    return None


TRAINING: Question[Training] = Question("training", Training)


def training(ctx: FileContext) -> Training:
    return ctx.ask(TRAINING)
