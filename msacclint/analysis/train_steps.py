"""What msacclint.analysis.training finds: a training step built by hand (``Step``), the
network it trains when that can be identified (``Network``: the flow and assignment of the
network object), or the network a class or a top-level function of the file is handed to train
(``Handed``; ``handed_parameter`` finds the function's parameter a step's network is)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

import libcst as cst

from msacclint.analysis.flow import Definition, FunctionFlow

if TYPE_CHECKING:
    from msacclint.analysis.scopes import Scopes


@dataclass
class Network:
    flow: FunctionFlow
    definition: Definition

    @property
    def name(self) -> str:
        return self.definition.name

    @property
    def call(self) -> cst.Call:
        """The call that built the object (``object_at`` makes a Network of nothing else)."""
        value = self.definition.value
        assert isinstance(value, cst.Call)
        return value


@dataclass
class Handed:
    """A network a class of the file receives from outside: ``self.<attr>``, set in its
    ``__init__`` from the parameter ``param`` (a Trainer handed the model it trains); or, with
    ``kind`` "function", the parameter ``param`` (= ``attr``) of the top-level function ``cls``
    (``def train(network, dataset, optimizer)`` of a trainer module)."""
    cls: str
    param: str
    attr: str
    kind: str = "class"

    @property
    def shown(self) -> str:
        """How the code names the network: ``self.network``, or the parameter itself."""
        return self.param if self.kind == "function" else f"self.{self.attr}"


def handed_parameter(sc: Scopes, fl: FunctionFlow, expr: cst.BaseExpression,
                     order: Optional[int]) -> Optional[Handed]:
    """``expr`` (a name called in ``fl``, or given to a step) is a parameter of the top-level
    function that holds ``fl`` (itself, or through nested functions such as a forward function),
    followed through a local name assigned from one (``net = network``). Loss functions, named
    for a loss, are not networks."""
    for _ in range(3):
        if isinstance(expr, cst.Call) and expr.args and expr.args[0].keyword is None:
            expr = expr.args[0].value  # a wrapper built in place: ``nn.WithLossCell(network, loss)``
        if not isinstance(expr, cst.Name) or "loss" in expr.value.lower():
            return None
        name = expr.value
        for i, scope in enumerate(sc.enclosing(fl)):
            found = scope.definition(name, order if i == 0 else None)
            if found is not None:
                if found.index is not None:
                    return None
                fl, expr, order = scope, found.value, found.order
                break
            if name in sc.params(scope):
                root = scope.root
                if not isinstance(root, cst.FunctionDef) or sc.method_of.get(root) is not None or \
                        sc.parent.get(root) is not None:
                    return None
                return Handed(root.name.value, name, name, kind="function")
        else:
            return None
    return None


@dataclass
class Step:
    node: cst.Call
    flow: FunctionFlow
    #: the name the step is bound to (``grad_fn``, ``train_net``), None when not bound
    name: Optional[str]
    kind: str
    network: Optional[Network] = None
    #: when the network is not built in the file but handed to a class of it
    handed: Optional[Handed] = None
