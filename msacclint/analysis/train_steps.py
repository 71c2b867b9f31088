"""What msacclint.analysis.training finds: a training step built by hand (``Step``), the
network it trains when that can be identified (``Network``: the flow and assignment of the
network object), or the network a class of the file is handed to train (``Handed``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import libcst as cst

from msacclint.analysis.flow import Definition, FunctionFlow


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
    ``__init__`` from the parameter ``param`` (a Trainer handed the model it trains)."""
    cls: str
    param: str
    attr: str


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
