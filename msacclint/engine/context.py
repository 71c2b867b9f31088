"""Everything a rule may ask about the file it is checking."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, Optional

import libcst as cst

from msacclint.analysis.imports import ImportTable
from msacclint.engine.settings import Settings


@dataclass
class FileContext:
    path: str
    source: str
    module: cst.Module
    imports: ImportTable
    settings: Settings
    #: shared per-file analysis results, computed once on first use (see msacclint.analysis)
    facts: Dict[str, Any] = field(default_factory=dict)
    #: the repository's project index (msacclint.project.ProjectIndex) when the run has
    #: one; rules ask it what other files define (None: one file alone)
    project: Any = None

    def resolve(self, node: cst.BaseExpression) -> Optional[str]:
        """Canonical qualified name of a Name/Attribute chain (or of a Call's callee)."""
        if isinstance(node, cst.Call):
            node = node.func
        return self.imports.resolve(node)

    @property
    def mindspore_version(self) -> Optional[str]:
        return self.settings.mindspore_version

    def fact(self, key: str, compute: Any) -> Any:
        """Memoise a per-file analysis: ``ctx.fact("cells", lambda: CellMap(...))``."""
        if key not in self.facts:
            self.facts[key] = compute()
        return self.facts[key]
