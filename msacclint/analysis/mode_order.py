"""The training mode a network is left in at one call of a function: the last mode-setting
event on that network before the call, in the function's own statements.

``mode_at(ctx, scope, name, call)`` reads the statements of ``scope`` (a function or the
module) in source order up to ``call`` and answers a ``ModeAt``:

- ``state``: True (the last event puts the network in training mode), False (inference mode,
  or a fresh object was bound to the name), None (no event in the function, or something the
  function does after the last event may change the mode: the network, or a cell wrapping it,
  handed to a call that is not a known MindSpore API);
- ``event``: the call of the last event; ``assumed``: what a True rests on that was not
  resolved (a ``Model.train`` with callbacks that may evaluate, an event in a branch).

Events: ``net.set_train(mode)``; ``x.set_train(mode)`` on a cell whose construction in the
function holds ``net`` (``TrainOneStepCell(WithLossCell(net, loss), opt)``: ``set_train``
reaches every sub-cell); ``model.train(...)`` on a ``mindspore.Model`` built around ``net``
(it calls ``set_train()`` on its training network and leaves it so), ``model.eval(...)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional, Set, Union

import libcst as cst

from msacclint.analysis.context import FileContext
from msacclint.analysis.training import set_train_mode
from msacclint.analysis.walk import parent_links

MODEL = "mindspore.Model"
#: MindSpore calls that take a network and leave its mode alone
_MODE_NEUTRAL_PREFIXES = (
    "mindspore.load_checkpoint", "mindspore.load_param_into_net", "mindspore.save_checkpoint",
    "mindspore.export", "mindspore.Tensor", "mindspore.nn.WithLossCell", "mindspore.nn.TrainOneStepCell",
    "mindspore.nn.TrainOneStepWithLossScaleCell", "mindspore.Model", "mindspore.nn.WithEvalCell",
    "mindspore.amp.build_train_network", "mindspore.amp.auto_mixed_precision", "mindspore.nn.SGD",
    "mindspore.nn.Momentum", "mindspore.nn.Adam", "mindspore.nn.AdamWeightDecay", "mindspore.nn.optim",
    "mindspore.train.callback", "mindspore.train.ModelCheckpoint", "mindspore.train.LossMonitor",
    "mindspore.train.TimeMonitor", "mindspore.value_and_grad", "mindspore.grad", "mindspore.ops.value_and_grad",
    "mindspore.ops.grad", "mindspore.nn.DynamicLossScaleUpdateCell", "mindspore.nn.FixedLossScaleUpdateCell",
    "mindspore.ops.functional.", "mindspore.common.initializer", "mindspore.communication",
)
#: MindSpore callbacks that never evaluate (a Model.train with only these stays in training mode)
_QUIET_CALLBACKS = ("mindspore.train.ModelCheckpoint", "mindspore.train.LossMonitor", "mindspore.train.TimeMonitor",
                    "mindspore.train.CheckpointConfig", "mindspore.train.callback.ModelCheckpoint",
                    "mindspore.train.callback.LossMonitor", "mindspore.train.callback.TimeMonitor",
                    "mindspore.ModelCheckpoint", "mindspore.LossMonitor", "mindspore.TimeMonitor")


@dataclass(frozen=True)
class ModeAt:
    state: Optional[bool]
    event: Optional[cst.Call] = None
    assumed: Optional[str] = None


def _names_in(node: cst.CSTNode) -> Set[str]:
    """The names a call hands over as arguments, its own and those of the calls in its
    arguments (``TrainOneStepCell(WithLossCell(net, loss), opt)``: net, loss, opt); a name only
    read from (``net.trainable_params()``) is not handed over."""
    found: Set[str] = set()
    stack: List[cst.CSTNode] = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Call):
            for arg in current.args:
                if isinstance(arg.value, cst.Name):
                    found.add(arg.value.value)
                elif isinstance(arg.value, (cst.Call, cst.List, cst.Tuple)):
                    stack.append(arg.value)
        elif isinstance(current, (cst.List, cst.Tuple)):
            for element in current.elements:
                if isinstance(element.value, cst.Name):
                    found.add(element.value.value)
                elif isinstance(element.value, cst.Call):
                    stack.append(element.value)
    return found


def _receiver_name(call: cst.Call) -> Optional[str]:
    func = call.func
    if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name):
        return func.value.value
    return None


def _method(call: cst.Call) -> Optional[str]:
    return call.func.attr.value if isinstance(call.func, cst.Attribute) else None


class _Scan:
    """Statements of one scope in source order, nested functions and classes left out."""

    def __init__(self, ctx: FileContext, name: str, target: cst.Call) -> None:
        self.ctx = ctx
        self.name = name
        self.target = target
        #: names bound to a cell or Model that holds the network (name -> is a Model)
        self.holders: Dict[str, bool] = {}
        self.state: Optional[bool] = None
        self.event: Optional[cst.Call] = None
        self.assumed: Optional[str] = None
        self.reached = False
        #: ids of the blocks that hold the target: a branch the target is in runs with it
        self.around: Set[int] = set()

    # ---- the walk -----------------------------------------------------------------------
    def statements(self, body: Union[cst.Module, cst.BaseSuite, cst.BaseStatement], depth: int) -> None:
        for node in self._children(body):
            if self.reached:
                return
            self.statement(node, depth)

    @staticmethod
    def _children(node: cst.CSTNode) -> List[cst.CSTNode]:
        if isinstance(node, cst.Module):
            return list(node.body)
        if isinstance(node, (cst.IndentedBlock, cst.SimpleStatementSuite)):
            return list(node.body)
        return [node]

    def statement(self, node: cst.CSTNode, depth: int) -> None:
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            return
        if isinstance(node, cst.SimpleStatementLine):
            for small in node.body:
                if self.reached:
                    return
                self.small(small, depth)
            return
        if isinstance(node, cst.If):
            self.expression(node.test, depth)
            if self.reached:
                return
            self.statements(node.body, self._deeper(node.body, depth))
            orelse = node.orelse
            if orelse is not None and not self.reached:
                block = orelse if isinstance(orelse, cst.If) else orelse.body
                self.statement(block, self._deeper(block, depth))
            return
        if isinstance(node, cst.Else):
            self.statements(node.body, self._deeper(node.body, depth))
            return
        if isinstance(node, (cst.For, cst.While)):
            header = node.iter if isinstance(node, cst.For) else node.test
            self.expression(header, depth)
            if not self.reached:
                self.statements(node.body, depth)
            if node.orelse is not None and not self.reached:
                self.statements(node.orelse.body, depth + 1)
            return
        if isinstance(node, cst.With):
            for item in node.items:
                self.expression(item.item, depth)
            if not self.reached:
                self.statements(node.body, depth)
            return
        if isinstance(node, cst.Try):
            self.statements(node.body, depth)
            for handler in node.handlers:
                if not self.reached:
                    self.statements(handler.body, depth + 1)
            for part in (node.orelse, node.finalbody):
                if part is not None and not self.reached:
                    self.statements(part.body, depth)
            return
        if isinstance(node, cst.BaseSuite):
            self.statements(node, depth)
            return
        # anything else (match, async forms...): its calls, in order
        self.expression(node, depth)

    def _deeper(self, block: cst.CSTNode, depth: int) -> int:
        return depth if id(block) in self.around else depth + 1

    def small(self, node: cst.BaseSmallStatement, depth: int) -> None:
        if isinstance(node, (cst.Assign, cst.AnnAssign, cst.AugAssign)):
            value = node.value
            if value is not None:
                self.expression(value, depth)
            if self.reached:
                return
            targets: List[cst.BaseExpression] = (
                [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target])
            for target in targets:
                self.bind(target, value)
            return
        self.expression(node, depth)

    def bind(self, target: cst.BaseExpression, value: Optional[cst.BaseExpression]) -> None:
        if isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self.bind(element.value, None)
            return
        if not isinstance(target, cst.Name):
            return
        bound = target.value
        if bound == self.name:
            # a new object, or one of unknown mode: what came before no longer speaks
            self.state, self.event, self.assumed = (False, None, None) if isinstance(value, cst.Call) else (
                None, None, None)
            self.holders.clear()
            return
        self.holders.pop(bound, None)
        if isinstance(value, cst.Call) and self.name in _names_in(value):
            is_model = self.ctx.callee(value) == MODEL
            self.holders[bound] = is_model

    def expression(self, node: cst.CSTNode, depth: int) -> None:
        """The calls under ``node``, innermost (evaluated first) before the call that holds them."""
        stack: List[cst.CSTNode] = [node]
        calls: List[cst.Call] = []
        while stack:
            current = stack.pop()
            if isinstance(current, (cst.Lambda, cst.FunctionDef, cst.ClassDef)):
                continue
            if isinstance(current, cst.Call):
                calls.append(current)
            stack.extend(reversed(current.children))
        for call in reversed(calls):
            if call is self.target:
                self.reached = True
                return
            self.call(call, depth)

    # ---- one call -----------------------------------------------------------------------
    def call(self, call: cst.Call, depth: int) -> None:
        receiver, method = _receiver_name(call), _method(call)
        mine = receiver == self.name or (receiver is not None and receiver in self.holders)
        if mine and method == "set_train":
            self.record(set_train_mode(call), call, depth, None)
            return
        if mine and receiver in self.holders and self.holders[receiver]:
            if method == "train":
                quiet = self._quiet_callbacks(call)
                self.record(True, call, depth, None if quiet else
                            "no callback of Model.train evaluates the network (Model.eval switches it to inference)")
                return
            if method == "eval":
                self.record(False, call, depth, None)
                return
        if mine:
            return
        # the network, or a cell holding it, handed to a call: unless it is a MindSpore API that
        # leaves the mode alone, what it does to the mode is not known here
        mine_names = {self.name, *self.holders}
        handed = any(isinstance(arg.value, cst.Name) and arg.value.value in mine_names for arg in call.args)
        if not handed:
            return
        callee = self.ctx.callee(call) or ""
        if callee.startswith(_MODE_NEUTRAL_PREFIXES):
            return
        if self.state:
            self.state, self.event, self.assumed = None, None, None

    def record(self, mode: Optional[bool], call: cst.Call, depth: int, assumed: Optional[str]) -> None:
        if mode is None:
            self.state, self.event, self.assumed = None, None, None
            return
        if depth > 0 and not mode:
            # a switch to inference in a branch: the network may be in either mode; not a finding
            self.state, self.event, self.assumed = None, None, None
            return
        if depth > 0:
            assumed = "the branch that puts it in training mode runs"
        self.state, self.event, self.assumed = mode, call, assumed

    def _quiet_callbacks(self, call: cst.Call) -> bool:
        """No ``callbacks`` argument, or a literal list of MindSpore callbacks that never evaluate."""
        for index, arg in enumerate(call.args):
            if arg.star:
                return False
            if (arg.keyword is not None and arg.keyword.value == "callbacks") or (arg.keyword is None and index == 2):
                value = arg.value
                if isinstance(value, cst.Name) and value.value == "None":
                    continue
                if not isinstance(value, (cst.List, cst.Tuple)):
                    return False
                for element in value.elements:
                    if not isinstance(element.value, cst.Call) or \
                            (self.ctx.callee(element.value) or "") not in _QUIET_CALLBACKS:
                        return False
        return True


def mode_at(ctx: FileContext, scope: Union[cst.FunctionDef, cst.Module], name: str, call: cst.Call) -> ModeAt:
    """The mode network ``name`` is in when ``call`` (a call of ``scope``) runs."""
    scan = _Scan(ctx, name, call)
    parents = parent_links(scope, {id(call)})
    node: Optional[cst.CSTNode] = parents.get(id(call))
    while node is not None:
        scan.around.add(id(node))
        node = parents.get(id(node))
    scan.statements(scope if isinstance(scope, cst.Module) else scope.body, 0)
    if not scan.reached:
        return ModeAt(None)
    return ModeAt(scan.state, scan.event, scan.assumed)
