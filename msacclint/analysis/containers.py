"""What a container of layers holds: ``nn.SequentialCell`` and ``nn.CellList`` built from
layers the code writes out.

A network is often no class at all but a container of visible layers::

    net = nn.SequentialCell([nn.Dense(2, 16), nn.ReLU(), nn.Dense(16, 1)])
    net = nn.SequentialCell(nn.Conv2d(1, 8, 3), nn.BatchNorm2d(8), nn.ReLU())
    net = nn.SequentialCell(OrderedDict([("fc", nn.Dense(2, 1)), ("act", nn.Tanh())]))

``elements`` gives the expressions of its layers in order, and ``layer_mode`` says whether
one MindSpore layer behaves differently in training mode. Rules that ask what a network
contains (whether it depends on the mode, which layers it builds) read a container's layers
through these instead of stopping at the container's own name.
"""

from __future__ import annotations

from typing import Callable, List, Optional

import libcst as cst

from msacclint.analysis.calls import literal

#: the containers whose constructor takes the layers themselves
CONTAINERS = frozenset({"mindspore.nn.SequentialCell", "mindspore.nn.CellList"})
#: what a SequentialCell may also be given: an ordered mapping of name -> layer
_MAPPINGS = frozenset({"collections.OrderedDict", "dict"})

#: MindSpore layers that behave differently in training mode whatever their arguments
#: (BatchNorm's moving statistics; Dropout's drop, unless its rate is zero: ``layer_mode``)
MODE_PREFIXES = ("mindspore.nn.BatchNorm", "mindspore.nn.SyncBatchNorm", "mindspore.nn.Dropout",
                 "mindspore.mint.nn.BatchNorm", "mindspore.mint.nn.Dropout")
#: MindSpore layers with a dropout inside, and the rate they drop when it is not given
_INNER_DROPOUT = {
    "mindspore.nn.Transformer": 0.1, "mindspore.nn.TransformerEncoder": None, "mindspore.nn.TransformerDecoder": None,
    "mindspore.nn.TransformerEncoderLayer": 0.1, "mindspore.nn.TransformerDecoderLayer": 0.1,
    "mindspore.nn.MultiheadAttention": 0.0, "mindspore.nn.LSTM": 0.0, "mindspore.nn.GRU": 0.0,
    "mindspore.nn.RNN": 0.0,
}


def elements(call: cst.Call, resolve: Callable[[cst.BaseExpression], Optional[str]]) -> Optional[
        List[cst.BaseExpression]]:
    """The layer expressions of a container call (``resolve`` gives a callee's qualified name):
    a list or tuple literal, the positional arguments, or an ``OrderedDict``/dict of name ->
    layer (a literal dict, a list of pairs, keywords). None when the call is no container or
    its layers are not all written out (a name, ``*layers``, a comprehension)."""
    if resolve(call.func) not in CONTAINERS:
        return None
    args = [a for a in call.args if a.keyword is None]
    if not args:
        return [] if not call.args else None
    if any(a.star for a in args):
        return None
    if len(args) > 1:
        return [a.value for a in args]
    first = args[0].value
    if isinstance(first, (cst.List, cst.Tuple)):
        if any(isinstance(e, cst.StarredElement) for e in first.elements):
            return None
        return [e.value for e in first.elements]
    if isinstance(first, cst.Dict):
        return _dict_values(first)
    if isinstance(first, cst.Call) and resolve(first.func) in _MAPPINGS:
        return _mapping_values(first)
    if isinstance(first, cst.Call):
        return [first]  # a single layer: SequentialCell(nn.Dense(2, 1))
    return None


def _dict_values(node: cst.Dict) -> Optional[List[cst.BaseExpression]]:
    out: List[cst.BaseExpression] = []
    for element in node.elements:
        if not isinstance(element, cst.DictElement):
            return None  # **other
        out.append(element.value)
    return out


def _mapping_values(call: cst.Call) -> Optional[List[cst.BaseExpression]]:
    """The values of ``OrderedDict([("a", x), ("b", y)])``, ``OrderedDict({"a": x})`` or
    ``OrderedDict(a=x, b=y)``."""
    positional = [a for a in call.args if a.keyword is None]
    if any(a.star for a in call.args) or len(positional) > 1:
        return None
    out: List[cst.BaseExpression] = []
    if positional:
        source = positional[0].value
        if isinstance(source, cst.Dict):
            values = _dict_values(source)
            if values is None:
                return None
            out.extend(values)
        elif isinstance(source, (cst.List, cst.Tuple)):
            for element in source.elements:
                pair = element.value
                if isinstance(element, cst.StarredElement) or not isinstance(pair, cst.Tuple) or \
                        len(pair.elements) != 2:
                    return None
                out.append(pair.elements[1].value)
        else:
            return None
    out.extend(a.value for a in call.args if a.keyword is not None)
    return out


def _rate(call: cst.Call, names: List[str], keep: Optional[str], default: Optional[float]) -> Optional[float]:
    """A drop rate a layer is given as a literal: a keyword of ``names`` (``keep``: a keep
    probability), else its first positional argument for Dropout; ``default`` when absent."""
    for arg in call.args:
        if arg.keyword is None:
            continue
        value = literal(arg.value)
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            if arg.keyword.value in names or arg.keyword.value == keep:
                return None
            continue
        if arg.keyword.value in names:
            return float(value)
        if arg.keyword.value == keep:
            return 1.0 - float(value)
    return default


def layer_mode(qualified: str, call: cst.Call) -> Optional[bool]:
    """Whether the MindSpore layer ``qualified`` built by ``call`` behaves differently in
    training mode: True for BatchNorm and a Dropout that drops something, False for a layer
    with no mode (Dense, Conv2d, ReLU, pooling, LayerNorm ...) or a dropout rate written as
    zero, None when a rate it depends on is not written as a number."""
    if qualified.startswith(MODE_PREFIXES):
        if ".Dropout" not in qualified:
            return True
        positional = [a for a in call.args if a.keyword is None]
        if any(a.keyword is not None and a.keyword.value in ("p", "keep_prob") for a in call.args):
            rate = _rate(call, ["p"], "keep_prob", None)
        elif positional:
            value = literal(positional[0].value)
            if not isinstance(value, (int, float)) or isinstance(value, bool):
                return None
            # mindspore.nn.Dropout's first parameter is keep_prob; Dropout1d/2d/3d's and mint's is p
            rate = 1.0 - float(value) if qualified == "mindspore.nn.Dropout" else float(value)
        else:
            rate = 0.5
        return None if rate is None else rate > 0
    if qualified in _INNER_DROPOUT:
        rate = _rate(call, ["dropout"], None, _INNER_DROPOUT[qualified])
        return None if rate is None else rate > 0
    return False
