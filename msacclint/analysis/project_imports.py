"""Imports of the project's own modules that are not there (for msacclint.analysis.raising).

An import whose top-level package is a folder of the project (found by ``ctx.project``) and
whose submodule's file is missing raises ModuleNotFoundError; never a third-party package. The
package must sit where the import finds it for sure (the project's root or src/, or the
folder of a script); a module another folder of that name holds, or one the build generates
(named in .gitignore, setup.py, setup.cfg, pyproject.toml or a Makefile, protobuf's
``_pb2``), is not missing. The folders read are listed once per file (``listing_used``: the
answer then depends on which files the project holds).
"""

from __future__ import annotations

import os
from typing import Any, Dict, FrozenSet, Optional, Sequence

import libcst as cst

from msacclint.analysis.context import FileContext
from msacclint.analysis.imports import dotted


class ProjectModules:
    """The modules of the project a file's imports miss."""

    def __init__(self, ctx: FileContext) -> None:
        self.ctx = ctx
        self._listings: Dict[str, Optional[FrozenSet[str]]] = {}
        #: a folder of the project was listed
        self.listing_used = False

    def missing(self, module: str, statement: str) -> Optional[str]:
        """What an absolute import of a module of the project's own packages misses, as a
        message; None when the module is there or may be found elsewhere."""
        project = self.ctx.project
        if project is None or not hasattr(project, "find_module"):
            return None
        parts = module.split(".")
        if len(parts) < 2:
            return None
        importer = os.path.abspath(self.ctx.path)
        top = project.find_module(parts[0], importer)
        if top is None or os.path.basename(top) != "__init__.py":
            return None  # not a package of the project (third party, or a plain module)
        folder = os.path.dirname(top)
        # where the package must sit for the import to find it for sure: the project's root or
        # src/, or the folder of a script (not of a package module: that folder is on sys.path
        # only when the file runs as a script). A folder of that name deeper in the tree (a
        # vendored copy, ``third_party/vllm/``, imported as ``pkg.third_party.vllm``) may not be
        # what ``import vllm`` finds: that may be the package installed under the name.
        on_path = {os.path.normpath(project.root), os.path.normpath(os.path.join(project.root, "src"))}
        if os.path.join(os.path.dirname(importer), "__init__.py") not in project.files:
            on_path.add(os.path.dirname(importer))
        if os.path.dirname(folder) not in on_path:
            return None
        missing = self._missing_below(folder, parts[1:])
        if missing is None:
            return None
        if self._has_elsewhere(project, parts) or self._generated(project, parts[: missing + 2]):
            return None
        absent = ".".join(parts[: missing + 2])
        shown = os.path.relpath(os.path.join(folder, *parts[1:missing + 2]), project.root).replace(os.sep, "/")
        return f"`{statement}`: the project has no module {absent} (no {shown}.py or {shown}/)"

    def missing_relative(self, node: cst.ImportFrom) -> Optional[str]:
        """What a relative import of a package of the project misses, as a message; None when
        the module is there (or the file is a script, or the name may be of __init__.py)."""
        project = self.ctx.project
        if project is None or not hasattr(project, "files"):
            return None
        folder = os.path.dirname(os.path.abspath(self.ctx.path))
        if os.path.join(folder, "__init__.py") not in project.files:
            return None  # a script: its relative import fails for another reason
        for _ in range(len(node.relative) - 1):
            folder = os.path.dirname(folder)
            if os.path.join(folder, "__init__.py") not in project.files:
                return None
        module = dotted(node.module) if node.module is not None else None
        if module is None:
            return None  # from . import name: a name of __init__.py, or a module
        parts = module.split(".")
        missing = self._missing_below(folder, parts)
        if missing is None:
            return None
        if self._generated(project, parts[: missing + 1]):
            return None
        dots = "." * len(node.relative)
        shown = os.path.relpath(os.path.join(folder, *parts[: missing + 1]), project.root).replace(os.sep, "/")
        return (f"`from {dots}{module} import ...`: the package has no module {dots}"
                f"{'.'.join(parts[: missing + 1])} (no {shown}.py or {shown}/)")

    def _listing(self, folder: str) -> Optional[FrozenSet[str]]:
        self.listing_used = True
        if folder not in self._listings:
            try:
                self._listings[folder] = frozenset(os.listdir(folder))
            except OSError:
                self._listings[folder] = None
        return self._listings[folder]

    def _missing_below(self, folder: str, parts: Sequence[str]) -> Optional[int]:
        """The index in ``parts`` of the first module missing under the package ``folder``
        (a file ``name.py``/``name.*.so``/``name.pyx``... or a folder ``name``), or None."""
        for i, part in enumerate(parts):
            names = self._listing(folder)
            if names is None:
                return None
            if part in names:
                folder = os.path.join(folder, part)
                if not os.path.isdir(folder):
                    return None
                continue
            if any(n.startswith(part + ".") for n in names):
                return None  # a module file (or an extension module): nothing below is checked
            return i
        return None

    def _has_elsewhere(self, project: Any, parts: Sequence[str]) -> bool:
        """Another folder of the project named like the package has the module (a script that
        puts another folder on sys.path)."""
        tail = os.sep + os.path.join(*parts)
        for path in project.files:
            stem = path[:-3] if path.endswith(".py") else path
            if stem.endswith(tail) or stem.endswith(tail + os.sep + "__init__") or (tail + os.sep) in path:
                return True
        return False

    def _generated(self, project: Any, parts: Sequence[str]) -> bool:
        """The module's name appears in the files that generate modules at build time
        (.gitignore, setup.py, setup.cfg, pyproject.toml: setuptools_scm's write_to, protobuf)."""
        name = parts[-1]
        if name.endswith(("_pb2", "_pb2_grpc")):
            return True
        for config in (".gitignore", "setup.py", "setup.cfg", "pyproject.toml", "Makefile"):
            try:
                with open(os.path.join(project.root, config), encoding="utf-8", errors="replace") as handle:
                    if name in handle.read():
                        return True
            except OSError:
                continue
        return False
