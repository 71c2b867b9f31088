"""Code that cannot run: a module whose import raises, a class whose constructor raises, a
body after a statement that raises on every supported MindSpore release.

The raising statements come from msacclint.analysis.raising (the facts MSA004 reports): the
engine gives them for the file it checks (``note_raising``); for another file a search passes
through they are read here, once per content (cached by content and MindSpore version). An
unguarded import of a missing module of the project is read from the outlines. A mixin of
``ProjectIndex`` (msacclint.project.index), asked by the reach graph (msacclint.project.reach).
"""

from __future__ import annotations

import hashlib
import os
from typing import List, Optional, Tuple

#: one hop of a trail: (file, line, what happens there)
Hop = Tuple[str, int, str]


class FailureQueries:
    """A mixin of ProjectIndex: see the module's docstring."""

    def _first_failure(self, trail: Tuple[Hop, ...]) -> Optional[Hop]:
        """The first hop of a loose trail that cannot run: what stops it."""
        for path, line, _what in trail:
            found = self.outline(path)
            if found is None:
                continue
            stop = self._stops_before(path, found.enclosing(line), line)
            if stop is not None:
                return stop
        return None

    def _stops_before(self, path: str, scope: str, line: int) -> Optional[Hop]:
        """What stops the code at ``line`` of the scope ``scope`` of ``path`` from running: its
        module's import raises (module code before the raising line still runs), the class
        holding it cannot be built (its ``__init__`` raises), or its own body raises before
        the line. None when nothing does (as far as is known)."""
        stop = self._module_failure(path)
        if stop is not None and not (stop[0] == path and (line == stop[1] or (scope in ("", "__main__")
                                                                              and line < stop[1]))):
            return stop  # (the statement that raises is itself where it fails, not stopped)
        found = self.outline(path)
        if found is None:
            return None
        raising = self._raising(path)
        for where, at, what in raising:
            if where == scope and at < line:
                return (path, at, what)
        # a method (or anything inside a class) of a class whose constructor raises
        parts = scope.split(".")
        for cut in range(len(parts), 0, -1):
            owner = ".".join(parts[:cut])
            d = found.defs.get(owner)
            if d is None or d.kind != "class" or scope == owner:
                continue  # (the class statement itself is where a construction starts)
            for where, at, what in raising:
                if where == owner + ".__init__" and not (scope == where and line <= at):
                    return (path, at, f"{what}, so `{owner}` cannot be built")
        return None

    def _module_failure(self, path: str) -> Optional[Hop]:
        """Why importing ``path`` raises: a statement of its module code that raises on every
        supported release, or an import (not guarded by ``try``/``if``) of a module of the
        project that is missing or whose own import raises."""
        state = self._reach_state()
        if path in state.module_failures:
            return state.module_failures[path]
        state.module_failures[path] = None  # a cycle reads "no failure known"
        found = self.outline(path)
        stop: Optional[Hop] = None
        if found is not None and not found.broken:
            module_code = found.scopes.get("")
            candidates: List[Hop] = [(path, at, what) for where, at, what in self._raising(path) if where == ""]
            for imported, line, guarded in (module_code.imports if module_code is not None else ()):
                if guarded:
                    continue
                missing = self._missing_module(imported, path)
                if missing is not None:
                    candidates.append((path, line, missing))
                    continue
                target = self.find_module(imported, path)
                if target is not None and target != path:
                    inner = self._module_failure(target)
                    if inner is not None:
                        candidates.append((path, line, f"it imports {self.display(target)}, whose import raises "
                                                       f"({self.display(inner[0])}:{inner[1]}: {inner[2]})"))
            if candidates:
                stop = min(candidates, key=lambda hop: hop[1])
        state.module_failures[path] = stop
        return stop

    def _missing_module(self, imported: str, importer: str) -> Optional[str]:
        """``import a.b.c`` of a module of the project that is not there: the top package is
        a folder of the project, and neither ``a.b.c`` nor (for ``from a.b import c``) ``a.b``
        exists. None for anything else (a third-party package, a name a module defines)."""
        parts = imported.split(".")
        if len(parts) < 2 or parts[0] == "mindspore" or any(p.startswith("_") or p.endswith("_pb2") for p in parts):
            return None  # (a vendored MindSpore, compiled extensions, generated protobuf modules)
        if self.find_module(imported, importer) is not None:
            return None
        if self.find_module(".".join(parts[:-1]), importer) is not None:
            return None  # ``from pkg.mod import name``: a name, checked by the module itself
        top = self.find_module(parts[0], importer)
        if top is None or not top.endswith("__init__.py"):
            return None
        where = os.path.dirname(os.path.dirname(top))
        if where not in (self.root, os.path.join(self.root, "src"), os.path.dirname(importer),
                         os.path.dirname(os.path.dirname(importer))):
            return None  # a package vendored deeper down is not the one the import finds
        for cut in range(len(parts) - 1, 0, -1):
            if self.find_module(".".join(parts[:cut]), importer) is not None:
                missing = ".".join(parts[:cut + 1])
                return f"ModuleNotFoundError: the project has no module {missing}"
        return None

    def _raising(self, path: str) -> List[Tuple[str, int, str]]:
        """(scope, line, what) of the statements of ``path`` that raise whenever their scope
        runs, on every MindSpore release considered (msacclint.analysis.raising): given by the
        engine for a file it checks (``note_raising``), else read here once per content
        (cached) for a file a search passes through."""
        state = self._reach_state()
        found = state.raising.get(path)
        if found is None:
            found = state.raising[path] = self._read_raising(path)
        return found

    def note_raising(self, ctx) -> None:
        """The raising statements of the file the engine checks (its parse and its rules'
        answers are at hand). Called before the file's findings are graded."""
        from msacclint.analysis.raising import raising_calls

        path = os.path.normpath(os.path.abspath(ctx.path))
        state = self._reach_state()
        state.settings = ctx.settings
        found = _raising_facts(ctx, raising_calls(ctx))
        if state.raising.get(path) != found:
            known = path in state.raising
            state.raising[path] = found
            if known or found:
                state.module_failures.clear()
                state.clear_searches()

    def _read_raising(self, path: str) -> List[Tuple[str, int, str]]:
        data = self._bytes(path)
        if not data or b"mindspore" not in data or path.endswith(".ipynb"):
            return []
        state = self._reach_state()
        version = getattr(state.settings, "mindspore_version", None) or ""
        key = hashlib.sha256(f"raising1\0{version}\0{self.module_name(path)}\0".encode() + data).hexdigest()
        stored = self.cache.load_object("raising", key) if self.cache is not None else None
        if isinstance(stored, list):
            try:
                return [(str(a), int(b), str(c)) for a, b, c in stored]
            except (TypeError, ValueError):
                pass
        found = self._parse_raising(path, data, state.settings)
        if self.cache is not None:
            self.cache.store_object("raising", key, [list(item) for item in found])
        return found

    def _parse_raising(self, path: str, data: bytes, settings) -> List[Tuple[str, int, str]]:
        from msacclint.analysis.context import FileContext
        from msacclint.analysis.imports import ImportTable
        from msacclint.analysis.raising import raising_calls
        from msacclint.analysis.source import decode, parse
        from msacclint.settings import Settings

        text, problem = decode(data)
        if problem is not None:
            return []
        module = self.parsed_now(path, text)  # parsed for its summary already
        if module is None:
            module, _ = parse(text)
        if module is None:
            return []
        try:
            imports = ImportTable.from_module(module)
            ctx = FileContext(path=path, source=text, module=module, imports=imports,
                              settings=settings or Settings(), project=self)
            return _raising_facts(ctx, raising_calls(ctx))
        except RecursionError:
            return []


def _raising_facts(ctx, found) -> List[Tuple[str, int, str]]:
    """(scope as an outline names it, line, what) of the unconditional raising statements."""
    from msacclint.analysis.positions import node_positions

    kept = [r for r in found if r.unconditional]
    if not kept:
        return []
    positions = node_positions(ctx.module, [r.node for r in kept])
    out = []
    for r in kept:
        where = positions.get(r.node)
        if where is None:
            continue
        scope = "" if r.where == "module" else r.where.replace(".<locals>", "")
        out.append((scope, where.start.line, r.message))
    return out
