"""Every use of one local name in a function: the questions "is this object only handed to
X?" ask it (a network loaded only to be exported, an optimizer that only goes into a Model).

``local_uses(ctx, scope, name)`` lists each occurrence of ``name`` in ``scope`` as a ``Use``
(a nested function, lambda or class that names it, unless as its own parameter, is one
``other`` use: a closure over the object):

- ``assigned``: the target of an assignment (``net = Net()``);
- ``argument``: an argument of a call, with the call's resolved callee, its position (None for
  a keyword argument) and its keyword;
- ``receiver``: the object a method is called on (``net.set_train(False)``), with the method;
- ``other``: anything else (returned, stored, in arithmetic, read as an attribute...).

A keyword's own name (``optimizer=optimizer``: the first one) is not a use.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional, Set

import libcst as cst

from msacclint.analysis.context import FileContext
from msacclint.analysis.walk import walk


@dataclass(frozen=True)
class Use:
    kind: str
    #: the call the name is an argument of, or the method call it receives
    call: Optional[cst.Call] = None
    #: the call's resolved callee (argument), or the method's name (receiver)
    callee: Optional[str] = None
    position: Optional[int] = None
    keyword: Optional[str] = None


class _Uses(cst.CSTVisitor):
    def __init__(self, ctx: FileContext, name: str) -> None:
        self.ctx = ctx
        self.name = name
        self.uses: List[Use] = []
        self.seen: Set[int] = set()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self._closure(node, {p.name.value for p in (*node.params.posonly_params, *node.params.params,
                                                    *node.params.kwonly_params)})
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        self._closure(node, {p.name.value for p in node.params.params})
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self._closure(node, set())
        return False

    def _closure(self, node: cst.CSTNode, params: Set[str]) -> None:
        """A nested function or class that names the local without rebinding it as a
        parameter reads the outer object: a use this scan cannot classify (``other``)."""
        if self.name in params:
            return
        names: List[cst.Name] = []

        class Finder(cst.CSTVisitor):
            def visit_Name(self, inner: cst.Name) -> None:
                names.append(inner)

        walk(node, Finder())
        if any(n.value == self.name for n in names):
            self.uses.append(Use("other"))

    def _mine(self, node: cst.CSTNode) -> bool:
        return isinstance(node, cst.Name) and node.value == self.name

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        if self._mine(node.target):
            self.seen.add(id(node.target))
            self.uses.append(Use("assigned"))

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and self._mine(func.value):
            self.seen.add(id(func.value))
            self.uses.append(Use("receiver", node, func.attr.value))
        callee = None
        for i, arg in enumerate(node.args):
            if arg.keyword is not None:
                self.seen.add(id(arg.keyword))
            if self._mine(arg.value) and not arg.star:
                if callee is None:
                    callee = self.ctx.resolve(func)
                self.seen.add(id(arg.value))
                keyword = arg.keyword.value if arg.keyword is not None else None
                self.uses.append(Use("argument", node, callee, None if keyword else i, keyword))

    def visit_Name(self, node: cst.Name) -> None:
        if node.value == self.name and id(node) not in self.seen:
            self.uses.append(Use("other"))


def local_uses(ctx: FileContext, scope: cst.CSTNode, name: str) -> List[Use]:
    """The uses of ``name`` in ``scope`` (a function, or the module), in source order."""
    visitor = _Uses(ctx, name)
    walk(scope.body if isinstance(scope, cst.FunctionDef) else scope, visitor)
    return visitor.uses
