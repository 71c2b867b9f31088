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
from typing import Optional, Set, Tuple

import libcst as cst

from msacclint.analysis.context import FileContext, Question

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
    ctx.module.visit(finder)
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


class _WeightFinder(cst.CSTVisitor):
    def __init__(self, ctx: FileContext) -> None:
        self.ctx = ctx
        self.found: Optional[Tuple[cst.CSTNode, str]] = None
        lowered = ctx.source.lower()
        self.mentions_torch = "torch" in lowered or ".pth" in lowered
        #: checkpoints read straight into a PyTorch module (``m.load_state_dict(torch.load(p))``,
        #: a torch backend kept next to the MindSpore one): not weights for MindSpore
        self.into_torch: Set[cst.CSTNode] = set()

    def _note_torch_target(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Attribute) and node.func.attr.value == "load_state_dict":
            for arg in node.args:
                if isinstance(arg.value, cst.Call):
                    self.into_torch.add(arg.value)

    def visit_Call(self, node: cst.Call) -> bool:
        if self.found is not None:
            return False
        self._note_torch_target(node)
        name = self.ctx.callee(node)
        if name is None or name.startswith(("mindspore.", "numpy.", "os.", "builtins.")) and name not in _MS_LOADERS:
            return True
        parts = name.split(".")
        if name in TORCH_LOADERS:
            if node not in self.into_torch:
                self.found = (node, f"reads a PyTorch checkpoint ({name})")
        elif name in _MS_LOADERS:
            path = _string(node.args[0].value) if node.args else None
            if path is not None and _PTH_PATH.search(path):
                self.found = (node, f"gives a PyTorch checkpoint ({path}) to load_checkpoint")
        elif parts[0] not in ("torch", "mindspore", "<local>") and not _REVERSE.search(parts[-1]) and (
                any(_CONVERSION_MODULE.match(p) for p in parts[:-1]) or _CONVERSION_FUNCTION.match(parts[-1])
                or (self.mentions_torch and any(_CONVERT_MODULE.match(p) for p in parts[:-1]))):
            self.found = (node, f"calls {name}, a conversion of PyTorch weights")
        return True


def _torch_weights(ctx: FileContext) -> Optional[Tuple[cst.CSTNode, str]]:
    source = ctx.source
    if not ("torch" in source or "pth" in source or "2ms" in source or "convert" in source):
        return None
    if not ctx.imports.mentions("mindspore"):
        return None
    finder = _WeightFinder(ctx)
    ctx.module.visit(finder)
    return finder.found


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
