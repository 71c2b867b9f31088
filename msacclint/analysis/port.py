"""Whether a file is (part of) a port from PyTorch: evidence that it converts or loads
PyTorch weights.

``port_evidence(ctx)`` returns the first node that shows it, or None:
- ``torch`` imported next to MindSpore (a conversion script, or a port that still reads
  ``.pth`` files);
- an import of a module whose name says conversion from PyTorch (``*_torch``,
  ``torch2*``/``*2ms``, ``pth2ckpt``, ``convert*``);
- a string literal naming a PyTorch checkpoint (``*.pth``/``*.pt``) or ``torch`` in a
  checkpoint path given to ``load_checkpoint``.
"""

from __future__ import annotations

import re
from typing import Optional

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
