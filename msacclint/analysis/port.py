"""Whether a file is (part of) a port from PyTorch: evidence that it converts or loads
PyTorch weights.

``port_evidence(ctx)`` returns the first node that shows it, or None:
- ``torch`` imported next to MindSpore (a conversion script, or a port that still reads
  ``.pth`` files);
- an import of a module whose name says conversion from PyTorch (``*_torch``,
  ``torch2*``/``*2ms``, ``pth2ckpt``, ``convert*``);
- a string literal naming a PyTorch checkpoint (``*.pth``/``*.pt``) or ``torch`` in a
  checkpoint path given to ``load_checkpoint``.
(MSA407 reads it: a torch import is enough to call a file a port.)

``torch_weights(ctx)`` is stricter, from resolved calls only: the file loads PyTorch
weights (a torch checkpoint reader, a ``.pth`` given to ``load_checkpoint``, a call into a
conversion module). MSA003 and the ``port`` profile suggestion of ``msacclint check`` and
``msacclint report`` read it.
"""

from __future__ import annotations

import re
from typing import List, Optional, Set, Tuple

import libcst as cst

from msacclint.analysis.context import FileContext, Question
from msacclint.analysis.facts import facts
from msacclint.analysis.walk import walk

_MODULE = re.compile(r"(^|[._])(\w*_torch|torch2\w*|\w*2ms|pth2\w*|convert\w*|\w*_convert\w*)$", re.IGNORECASE)
_NAME = re.compile(r"(^\w*_torch$|^torch2|^pth2|2ms$|_torch_)", re.IGNORECASE)
_CKPT = re.compile(r"\.pth?\b|torch", re.IGNORECASE)


class _Finder(cst.CSTVisitor):
    def __init__(self) -> None:
        self.found: Optional[cst.CSTNode] = None

    def _hit(self, node: cst.CSTNode) -> None:
        if self.found is None:
            self.found = node

    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            name = cst.Module([]).code_for_node(alias.name)
            if name == "torch" or name.startswith("torch.") or _MODULE.search(name):
                self._hit(node)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if node.module is None:
            return
        name = cst.Module([]).code_for_node(node.module)
        if name == "torch" or name.startswith("torch.") or _MODULE.search(name):
            self._hit(node)
        elif not isinstance(node.names, cst.ImportStar):
            for alias in node.names:
                if _NAME.search(cst.Module([]).code_for_node(alias.name)):
                    self._hit(node)

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        tail = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
        if tail in ("load_checkpoint", "load") and node.args:
            first = node.args[0].value
            if isinstance(first, cst.SimpleString) and _CKPT.search(first.value):
                self._hit(node)


def _port_evidence(ctx: FileContext) -> Optional[cst.CSTNode]:
    if "torch" not in ctx.source and "convert" not in ctx.source.lower() and "2ms" not in ctx.source:
        return None
    finder = _Finder()
    walk(ctx.module, finder)
    return finder.found


_PORT_EVIDENCE = Question("port.evidence", _port_evidence)


def port_evidence(ctx: FileContext) -> Optional[cst.CSTNode]:
    return ctx.ask(_PORT_EVIDENCE)


# -- loading PyTorch weights, from resolved calls ---------------------------------------------
#: calls that read a PyTorch checkpoint
TORCH_LOADERS = frozenset({
    "torch.load", "torch.jit.load", "torch.hub.load_state_dict_from_url", "torch.utils.model_zoo.load_url",
    "safetensors.torch.load_file", "safetensors.torch.load", "safetensors.torch.safe_open"})
_MS_LOADERS = frozenset({"mindspore.load_checkpoint", "mindspore.train.serialization.load_checkpoint"})
#: a module (not the last component of a callee) whose name says conversion from PyTorch
_CONVERSION_MODULE = re.compile(r"^(\w*_torch|torch2\w*|\w*2ms|pth2\w*|\w*_pth)$", re.IGNORECASE)
#: a conversion module of any kind: counts only in a file that names torch or .pth files
_CONVERT_MODULE = re.compile(r"^(convert\w*|\w*_convert\w*)$", re.IGNORECASE)
#: a function whose name says conversion from PyTorch
_CONVERSION_FUNCTION = re.compile(r"^(\w*_torch|torch2\w*|pth2\w*|\w*_pth2\w*|\w*2ms|\w*_from_(torch|pth)\w*)$",
                                  re.IGNORECASE)
_PTH_PATH = re.compile(r"\.(pth|pt|bin)$", re.IGNORECASE)
#: a conversion the other way (MindSpore to PyTorch): no evidence of PyTorch weights coming in
_REVERSE = re.compile(r"(^ms2|2(pt|pth|torch)$|^to_(torch|pt|pth)$)", re.IGNORECASE)


def _string(node: cst.BaseExpression) -> Optional[str]:
    if isinstance(node, cst.SimpleString):
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    return None


def _into_torch(calls: List[cst.Call]) -> Set[cst.CSTNode]:
    """Checkpoints read straight into a PyTorch module (``m.load_state_dict(torch.load(p))``,
    a torch backend kept next to the MindSpore one): not weights for MindSpore."""
    return {arg.value for call in calls if isinstance(call.func, cst.Attribute)
            and call.func.attr.value == "load_state_dict" for arg in call.args if isinstance(arg.value, cst.Call)}


def _weights_call(ctx: FileContext, node: cst.Call, mentions_torch: bool) -> Optional[str]:
    """What ``node`` does when it brings PyTorch weights in, else None."""
    name = ctx.callee(node)
    if name is None or name.startswith(("mindspore.", "numpy.", "os.", "builtins.")) and name not in _MS_LOADERS:
        return None
    parts = name.split(".")
    if name in TORCH_LOADERS:
        return f"reads a PyTorch checkpoint ({name})"
    if name in _MS_LOADERS:
        path = _string(node.args[0].value) if node.args else None
        return f"gives a PyTorch checkpoint ({path}) to load_checkpoint" if path and _PTH_PATH.search(path) else None
    if parts[0] not in ("torch", "mindspore", "<local>") and not _REVERSE.search(parts[-1]) and (
            any(_CONVERSION_MODULE.match(p) for p in parts[:-1]) or _CONVERSION_FUNCTION.match(parts[-1])
            or (mentions_torch and any(_CONVERT_MODULE.match(p) for p in parts[:-1]))):
        return f"calls {name}, a conversion of PyTorch weights"
    return None


def _torch_weights(ctx: FileContext) -> Optional[Tuple[cst.CSTNode, str]]:
    source = ctx.source
    if not ("torch" in source or "pth" in source or "2ms" in source or "convert" in source):
        return None
    if not ctx.imports.mentions("mindspore"):
        return None
    # the calls of the engine's one traversal (FileFacts), in source order
    calls = facts(ctx).in_order
    lowered = source.lower()
    mentions_torch = "torch" in lowered or ".pth" in lowered
    into_torch = _into_torch(facts(ctx).methods.get("load_state_dict", []))
    for node in calls:
        what = _weights_call(ctx, node, mentions_torch)
        if what is not None and not (what.startswith("reads a PyTorch") and node in into_torch):
            return node, what
    return None


_TORCH_WEIGHTS = Question("port.torch_weights", _torch_weights)


def torch_weights(ctx: FileContext) -> Optional[Tuple[cst.CSTNode, str]]:
    """The first call that shows the file loads PyTorch weights into MindSpore code, and
    what it does, or None. Decided from resolved calls, never from the file's name: a
    PyTorch checkpoint reader (``torch.load``, ``load_state_dict_from_url``, safetensors'
    torch loaders), ``mindspore.load_checkpoint`` of a literal ``.pth``/``.pt`` path, or a
    call of a function imported from a conversion module (``*_torch``, ``torch2*``,
    ``*2ms``, ``pth2*``; ``convert*`` in a file that names torch or ``.pth``) or named as
    one (``pth2ckpt``, ``torch2ms``, ``load_from_torch``). Only in files that import
    MindSpore."""
    return ctx.ask(_TORCH_WEIGHTS)
