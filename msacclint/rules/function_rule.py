"""Rule bases that know where they are: the innermost enclosing function
(``InFunctionRule``), and every function with the Cell that owns it (``FunctionRule``)."""

from __future__ import annotations

from typing import List, Optional, Union

import libcst as cst

from msacclint.analysis.cells import CellInfo, cells
from msacclint.rules.base import Rule


class InFunctionRule(Rule):
    """A rule that knows the innermost function it is visiting (``self.scope``)."""

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._functions: List[cst.FunctionDef] = []

    @property
    def scope(self) -> Optional[cst.FunctionDef]:
        """The innermost function being visited (None at module level)."""
        return self._functions[-1] if self._functions else None

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._functions.append(node)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._functions.pop()


class FunctionRule(InFunctionRule):
    """Calls ``check_function(func, owner)`` for the module's top level and every function
    of the file; ``owner`` is the CellInfo of the class a method belongs to, else None."""

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._classes: List[Optional[CellInfo]] = []

    def visit_Module(self, node: cst.Module) -> None:
        # a script's top-level training loop is a "function" too
        self.check_function(node, None)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._classes.append(cells(self.ctx).by_node.get(node))

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self._classes.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        owner = self._classes[-1] if self._classes else None
        super().visit_FunctionDef(node)
        self.check_function(node, owner)

    def check_function(self, func: Union[cst.FunctionDef, cst.Module], owner: Optional[CellInfo]) -> None:
        """Override to analyse each function."""

    @staticmethod
    def attr_callee(owner: Optional[CellInfo]):
        def lookup(name: str) -> Optional[str]:
            if owner is None or name not in owner.attrs:
                return None
            return owner.attrs[name].callee
        return lookup
