"""What a file uses, as resolved names: the checklist report's "does this item apply here?"

Collected in the engine's one traversal when a run asks for it (``Settings.collect_uses``,
set by the report) and cached with the file's diagnostics, so the report never parses a
file a second time. The names: every call's, attribute chain's and name's resolved
qualified name (``mindspore.nn.Dropout``), keyword names (``kw:amp_level``) and, for a call
of a method that does not resolve, the method name (``method:to_float``). A file that uses
MindSpore also contributes ``mindspore`` itself.
"""

from __future__ import annotations

from typing import FrozenSet, Set

import libcst as cst

from msacclint.analysis.imports import ImportTable


class NameUses(cst.BatchableCSTVisitor):
    def __init__(self, imports: ImportTable) -> None:
        super().__init__()
        self.imports = imports
        self.names: Set[str] = set()

    def visit_Call(self, node: cst.Call) -> None:
        name = self.imports.resolve(node.func)
        if name:
            self.names.add(name)
        elif isinstance(node.func, cst.Attribute):
            self.names.add("method:" + node.func.attr.value)
        for arg in node.args:
            if arg.keyword is not None:
                self.names.add("kw:" + arg.keyword.value)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        name = self.imports.resolve(node)
        if name:
            self.names.add(name)

    def visit_Name(self, node: cst.Name) -> None:
        name = self.imports.resolve(node)
        if name:
            self.names.add(name)

    def result(self) -> FrozenSet[str]:
        return frozenset(self.names | {"mindspore"})
