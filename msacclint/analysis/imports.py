"""Name resolution from a file's own import table.

One cheap pass over the statements of a module (never into expressions) records what
each imported name stands for; ``resolve`` then turns ``nn.Dropout`` into
``mindspore.nn.Dropout``. This is deliberately not LibCST's QualifiedNameProvider,
which costs several parses' worth of time on model code (see docs/evaluation/performance.md).

What is understood:
- ``import a.b``, ``import a.b as x``, ``from a.b import c``, ``from a.b import c as d``;
- simple module-level aliases of resolved names: ``nn = ms.nn``, ``Drop = nn.Dropout``;
- a module-level ``class``/``def`` of the same name shadows an import: a user's own
  ``class Dropout`` never resolves to MindSpore's.
Relative and star imports resolve to nothing, so nothing behind them is reported.
"""

from __future__ import annotations

from typing import Dict, FrozenSet, Iterable, Iterator, Optional, Sequence, Tuple

import libcst as cst

#: Private module paths that MindSpore re-exports under a public namespace, most
#: specific first. After a rewrite, one more lower-case module level is dropped when a
#: member follows it (``mindspore.nn.layer.basic.Dropout`` -> ``mindspore.nn.Dropout``).
_CANONICAL_PREFIXES: Sequence[Tuple[str, str]] = (
    ("mindspore.nn.layer.", "mindspore.nn."),
    ("mindspore.nn.loss.", "mindspore.nn."),
    ("mindspore.nn.optim.", "mindspore.nn."),
    ("mindspore.nn.wrap.", "mindspore.nn."),
    ("mindspore.nn.learning_rate_schedule.", "mindspore.nn."),
    ("mindspore.nn.dynamic_lr.", "mindspore.nn."),
    ("mindspore.ops.function.", "mindspore.ops."),
    ("mindspore.ops.functional.", "mindspore.ops."),
    ("mindspore.ops.operations.", "mindspore.ops."),
    ("mindspore.ops.composite.", "mindspore.ops."),
    ("mindspore.ops.auto_generate.", "mindspore.ops."),
    ("mindspore.train.", "mindspore."),
    ("mindspore.amp.", "mindspore."),
    ("mindspore.common.initializer.", "mindspore.common.initializer."),
    ("mindspore.common.", "mindspore."),
    ("mindspore.dtype.", "mindspore."),
    ("mindspore.dataset.vision.c_transforms.", "mindspore.dataset.vision."),
    ("mindspore.dataset.vision.py_transforms.", "mindspore.dataset.vision."),
    ("mindspore.dataset.vision.transforms.", "mindspore.dataset.vision."),
    ("mindspore.dataset.transforms.c_transforms.", "mindspore.dataset.transforms."),
    ("mindspore.dataset.transforms.py_transforms.", "mindspore.dataset.transforms."),
    ("mindspore.dataset.transforms.transforms.", "mindspore.dataset.transforms."),
    ("mindspore.dataset.engine.", "mindspore.dataset."),
    ("mindspore.communication.management.", "mindspore.communication."),
)


def canonical(name: str) -> str:
    """The public spelling of a MindSpore name; anything else is returned unchanged."""
    for prefix, public in _CANONICAL_PREFIXES:
        if name.startswith(prefix):
            rest = name[len(prefix):]
            head, _, tail = rest.partition(".")
            if tail and head[:1].islower():
                rest = tail
            return public + rest
    return name


def dotted(node: cst.BaseExpression) -> Optional[str]:
    """``a.b.c`` for a Name/Attribute chain, else None."""
    parts = []
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    if isinstance(node, cst.Name):
        parts.append(node.value)
        return ".".join(reversed(parts))
    return None


def _module_name(node: Optional[cst.BaseExpression]) -> Optional[str]:
    return dotted(node) if node is not None else None


def _aliases(names: Sequence[cst.ImportAlias]) -> Iterator[Tuple[Optional[str], str]]:
    """(the ``as`` name or None, the dotted name) of each alias of an import."""
    for alias in names:
        name = dotted(alias.name)
        if name is not None:
            asname = alias.asname
            yield (asname.name.value if asname is not None and isinstance(asname.name, cst.Name) else None), name


def imported_modules(node: cst.Import) -> Iterator[Tuple[str, str]]:
    """(name bound in the file, module imported) for each alias of ``import a.b as c, d.e``:
    ``c`` for ``a.b``, ``d`` for ``d``."""
    for bound, full in _aliases(node.names):
        head = full.split(".")[0]
        yield (bound, full) if bound is not None else (head, head)


def imported_names(node: cst.ImportFrom) -> Iterator[Tuple[str, str]]:
    """(name bound in the file, name imported) for each alias of ``from m import a as b, c``
    (none for ``import *``)."""
    if isinstance(node.names, cst.ImportStar):
        return
    for bound, name in _aliases(node.names):
        yield (bound if bound is not None else name), name


class ImportTable:
    """What each imported or aliased name stands for in one file."""

    LOCAL = "<local>"

    def __init__(self) -> None:
        self.bindings: Dict[str, str] = {}
        #: resolve()'s answers by node identity (the node kept, so the id stays its own),
        #: valid for the bindings of the size they were computed with
        self._resolved: Dict[int, Tuple[cst.CSTNode, Optional[str]]] = {}
        self._resolved_for = 0
        #: MindSpore names the project replaces (``ProjectIndex.patched``): resolved to None
        self.replaced: FrozenSet[str] = frozenset()
        #: MindSpore names the project replaces with a class that keeps MindSpore's parameters
        #: and defaults (``ProjectIndex.kept_replacements``): resolved as MindSpore's, and the
        #: finding says which class it is (name -> (path, line, what))
        self.stand_ins: Dict[str, Tuple[str, int, str]] = {}

    def hide_replaced(self, names: Iterable[str], kept: Optional[Dict[str, Tuple[str, int, str]]] = None) -> None:
        """Resolve these qualified names to None from now on (a module of the project
        assigns its own class to them, as mindnlp's injection does), except the ``kept``
        ones, whose replacement takes MindSpore's parameters with MindSpore's defaults."""
        self.stand_ins = dict(kept or {})
        self.replaced = frozenset(names) - frozenset(self.stand_ins)
        self._resolved.clear()

    # -- building -----------------------------------------------------------------
    @classmethod
    def from_module(cls, module: cst.Module) -> ImportTable:
        table = cls()
        table._scan(module.body, top_level=True)
        return table

    def _scan(self, body: Iterable[cst.CSTNode], top_level: bool) -> None:
        for stmt in body:
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    self._small(small, top_level)
            elif isinstance(stmt, (cst.ClassDef, cst.FunctionDef)):
                if top_level:
                    self.bindings[stmt.name.value] = f"{self.LOCAL}.{stmt.name.value}"
                self._scan_block(stmt.body)
            elif isinstance(stmt, (cst.If, cst.Try, cst.With, cst.For, cst.While)):
                self._scan_compound(stmt, top_level)

    def _scan_block(self, block: cst.BaseSuite) -> None:
        # Imports inside functions and classes are recorded too (lazy imports are common
        # in model code); aliases there are not, they are local variables.
        if isinstance(block, cst.IndentedBlock):
            for stmt in block.body:
                if isinstance(stmt, cst.SimpleStatementLine):
                    for small in stmt.body:
                        if isinstance(small, (cst.Import, cst.ImportFrom)):
                            self._small(small, top_level=False)
                elif isinstance(stmt, (cst.ClassDef, cst.FunctionDef)):
                    self._scan_block(stmt.body)
                elif isinstance(stmt, (cst.If, cst.Try, cst.With, cst.For, cst.While)):
                    self._scan_compound(stmt, top_level=False, imports_only=True)

    def _scan_compound(self, stmt: cst.CSTNode, top_level: bool, imports_only: bool = False) -> None:
        blocks = []
        for attr in ("body", "orelse", "finalbody"):
            part = getattr(stmt, attr, None)
            if part is None:
                continue
            blocks.append(part.body if isinstance(part, (cst.Else, cst.Finally)) else part)
            if isinstance(part, cst.If):  # elif chain
                self._scan_compound(part, top_level, imports_only)
        for handler in getattr(stmt, "handlers", ()):
            blocks.append(handler.body)
        for block in blocks:
            if not isinstance(block, cst.IndentedBlock):
                continue
            if imports_only:
                self._scan_block(block)
            else:
                self._scan(block.body, top_level)

    def _small(self, small: cst.BaseSmallStatement, top_level: bool) -> None:
        if isinstance(small, cst.Import):
            for bound, full in imported_modules(small):
                self.bindings[bound] = full
        elif isinstance(small, cst.ImportFrom):
            if small.relative or isinstance(small.names, cst.ImportStar):
                return
            module = _module_name(small.module)
            if module is None:
                return
            for bound, name in imported_names(small):
                self.bindings[bound] = f"{module}.{name}"
        elif top_level and isinstance(small, cst.Assign) and len(small.targets) == 1:
            target = small.targets[0].target
            if isinstance(target, cst.Name):
                value = self.resolve(small.value)
                if value is not None:
                    self.bindings[target.value] = value
                elif target.value in self.bindings:
                    # rebinding to something unknown hides the import
                    self.bindings[target.value] = f"{self.LOCAL}.{target.value}"

    # -- querying -----------------------------------------------------------------
    def resolve(self, node: cst.BaseExpression) -> Optional[str]:
        """The canonical qualified name of a Name/Attribute chain, or None (memoised per
        node: every rule and analysis asks about the same callees)."""
        if self._resolved_for != len(self.bindings):
            self._resolved.clear()
            self._resolved_for = len(self.bindings)
        hit = self._resolved.get(id(node))
        if hit is not None and hit[0] is node:
            return hit[1]
        found = self._resolve(node)
        if found is not None and found in self.replaced:
            found = None  # the project replaces this MindSpore name: its defaults are not MindSpore's
        self._resolved[id(node)] = (node, found)
        return found

    def _resolve(self, node: cst.BaseExpression) -> Optional[str]:
        if not isinstance(node, (cst.Name, cst.Attribute)):
            return None
        name = dotted(node)
        if name is None:
            return None
        head, _, rest = name.partition(".")
        bound = self.bindings.get(head)
        if bound is None or bound.startswith(self.LOCAL):
            return None
        full = f"{bound}.{rest}" if rest else bound
        return canonical(full)

    def resolve_call(self, node: cst.Call) -> Optional[str]:
        return self.resolve(node.func)

    def mentions(self, root: str) -> bool:
        """Whether anything in the file is imported from the package ``root``."""
        return any(v == root or v.startswith(root + ".") for v in self.bindings.values())
