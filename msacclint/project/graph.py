"""The project's module graph: where an import leads, what a dotted name stands for.

``find_module`` looks an import up as Python would (the script's own folder first, then its
ancestors up to the root, then ``<root>/src``; a package wins over a module of the same
name); ``lookup`` follows a dotted name through imports, re-exports and star imports to the
class, function, constant, config or module it names. ``patched`` lists the MindSpore names a
module of the project replaces. A mixin of ``ProjectIndex`` (msacclint.project.index).
"""

from __future__ import annotations

import os
import re
from typing import Any, Dict, Iterator, List, Mapping, Optional, Set, Tuple

import libcst as cst

from msacclint.analysis.context import FileContext, Question
from msacclint.analysis.imports import dotted, imported_names
from msacclint.project.summary import ClassSummary, FileSummary, FunctionSummary, resolve_relative
from msacclint.project.values import Evidence

#: a module-level assignment to an attribute (``nn.Conv1d = Conv1d``), at the start of a line
_PATCH_LINE = re.compile(rb"^([A-Za-z_]\w*)(?:\.\w+)*\.[A-Za-z_]\w*[ \t]*=(?!=)", re.M)

#: names a file binds to MindSpore: ``import mindspore[.x] as name``, ``from mindspore[.x] import a, b as c``
_MS_ALIAS = re.compile(rb"^[ \t]*import[ \t]+mindspore(?:\.\w+)*(?:[ \t]+as[ \t]+(\w+))?", re.M)

_MS_FROM = re.compile(rb"^[ \t]*from[ \t]+mindspore(?:\.\w+)*[ \t]+import[ \t]+\(?([^\n)]*)", re.M)

def _may_patch(data: bytes) -> bool:
    """Whether the text assigns, at the start of a line, to an attribute of a name it binds
    to MindSpore (the cheap test before the file is summarised for ``patched``)."""
    heads = {m.group(1) for m in _PATCH_LINE.finditer(data)}
    if not heads:
        return False
    bound = {b"mindspore"}
    for m in _MS_ALIAS.finditer(data):
        if m.group(1):
            bound.add(m.group(1))
    for m in _MS_FROM.finditer(data):
        for part in m.group(1).split(b","):
            words = part.split()
            if words:
                bound.add(words[-1])
    return bool(heads & bound)


def _same_default(observed: Any, written) -> bool:
    """A default a probe snapshot observed (plain JSON; "<required>" for none; a dtype as
    its name, "Float32") and one a summary recorded (an Expr, None for none) are the same."""
    if observed == "<required>":
        return written is None
    if written is None:
        return False
    if written[0] == "lit":
        value = written[1]
        if isinstance(value, tuple):
            value = list(value)
        if isinstance(observed, bool) or isinstance(value, bool):
            return observed is value
        return bool(observed == value)
    if written[0] == "name" and isinstance(observed, str):
        # ``mstype.float32`` for the dtype the probe saw as "Float32"
        return written[1].rsplit(".", 1)[-1].lower() == observed.lower()
    return False


class GraphQueries:
    """A mixin of ProjectIndex: see the module's docstring."""

    def _bases(self, importer: str) -> Iterator[str]:
        """Folders an import in ``importer`` is looked up from, in sys.path order: the
        script's own folder (``python train.py`` puts it first), its ancestors up to the
        root (a package's parent, a repository run from its top), and ``<root>/src``."""
        folder = os.path.dirname(os.path.normpath(os.path.abspath(importer)))
        seen = set()
        while True:
            if folder not in seen:
                seen.add(folder)
                yield folder
            if folder == self.root or len(folder) <= len(self.root):
                break
            folder = os.path.dirname(folder)
        for extra in (self.root, os.path.join(self.root, "src")):
            if extra not in seen:
                seen.add(extra)
                yield extra

    def _package_root(self, importer: str) -> Tuple[str, Optional[str]]:
        """The folder above the importer's top package, and that package's name."""
        folder = os.path.dirname(os.path.normpath(os.path.abspath(importer)))
        top = None
        while os.path.normpath(os.path.join(folder, "__init__.py")) in self.files:
            folder, top = os.path.split(folder)
        return folder, top

    def find_module(self, module: str, importer: str) -> Optional[str]:
        """The file ``import module`` in ``importer`` loads, or None (not in the project)."""
        key = (module, os.path.dirname(importer))
        if key in self._module_cache:
            return self._module_cache[key]
        found = None
        parts = module.split(".")
        package_root, top = self._package_root(importer)
        if top is not None and parts[0] == top:
            # the importer's own package (relative imports resolve here, and only here)
            as_package = os.path.normpath(os.path.join(package_root, *parts, "__init__.py"))
            as_module = os.path.normpath(os.path.join(package_root, *parts[:-1], parts[-1] + ".py"))
            for candidate in (as_package, as_module):
                if candidate in self.files:
                    self._module_cache[key] = candidate
                    return candidate
        for base in self._bases(importer):
            as_package = os.path.normpath(os.path.join(base, *parts, "__init__.py"))
            as_module = os.path.normpath(os.path.join(base, *parts[:-1], parts[-1] + ".py"))
            here = None
            if as_package in self.files:
                if as_module in self.files:
                    self._problem(as_module, f"module {module!r} is both {self.display(as_module)} and the package "
                                             f"{self.display(os.path.dirname(as_package))}/; Python imports the "
                                             "package, and so does msacclint", note=True)
                here = as_package
            elif as_module in self.files:
                here = as_module
            if here is None:
                continue
            if found is None:
                found = here
                if base == os.path.dirname(os.path.normpath(os.path.abspath(importer))):
                    break  # the script's own folder is sys.path[0]: no ambiguity
            elif here != found:
                self._problem(here, f"module {module!r} imported by {self.display(importer)} is claimed by "
                                    f"{self.display(found)} and {self.display(here)}; msacclint follows the first "
                                    "on sys.path (the script's own folder first), as Python does", note=True)
                break
        self._module_cache[key] = found
        return found

    def lookup(self, path: str, name: str, _seen: Optional[Set[Tuple[str, str, Optional[int]]]] = None,
               before: Optional[int] = None):
        """What ``name`` (a dotted name as written in ``path``) stands for: (kind, file,
        item) with kind "class", "function", "constant", "config", "module"; None when
        it is not in the project (MindSpore, third party, unknown).

        Circular imports are followed as Python runs them: a module that an import cycle
        finds half run (``before``: the ordinal of its statement the cycle started from,
        ``FileSummary.bound_at``) has only the names it bound before that statement; a
        name it binds later is not there (Python's ImportError), and a name no module of
        the cycle defines is simply not found. Neither is a problem of the file."""
        seen = _seen if _seen is not None else set()
        key = (path, name, before)
        if key in seen or len(seen) > 50:
            return None
        seen.add(key)
        summary = self.summary(path)
        if summary is None:
            return None
        head, _, rest = name.partition(".")
        if before is not None and summary.bound_at.get(head, before) >= before:
            head = ""  # not bound yet when the cycle came back: only an earlier star import may give it
        if head in summary.classes:
            return ("class", path, summary.classes[head]) if not rest else None
        if head in summary.functions:
            return ("function", path, summary.functions[head]) if not rest else None
        if head in summary.configs:
            return ("config", path, (head, rest)) if rest else ("config", path, (head, ""))
        if head in summary.constants and head not in summary.imports:
            return ("constant", path, head) if not rest else ("attr", path, (head, rest))
        if head in summary.imports:
            # a module-level ``from m import x`` takes x from m when the import runs: m may
            # be half run then (an import cycle through a package's __init__)
            own = summary.imports[head]
            at_import = head in summary.bound_at and not own.startswith("*")
            return self.lookup_qualified(own + ("." + rest if rest else ""), path, seen,
                                         own_parts=len(own.split(".")) if at_import else 0)
        for star, module in summary.imports.items():
            if star.startswith("*"):
                if before is not None and summary.bound_at.get(star, before) >= before:
                    continue
                found = self.lookup_qualified(f"{module}.{name}", path, seen,
                                              own_parts=len(module.split(".")) + 1 if star in summary.bound_at else 0)
                if found is not None:
                    return found
        return None

    def lookup_qualified(self, qualified: str, importer: str, seen=None, own_parts: int = 0):
        """``own_parts``: how many leading parts of ``qualified`` a module-level import of
        ``importer`` names (``from a import Net``: 2): a module found within them gives the
        name as that module has it when ``importer`` runs (``partial_point``)."""
        parts = qualified.split(".")
        for cut in range(len(parts), 0, -1):
            target = self.find_module(".".join(parts[:cut]), importer)
            if target is None:
                continue
            rest = ".".join(parts[cut:])
            if not rest:
                return ("module", target, None)
            before = self.partial_point(target, importer) if cut < own_parts else None
            return self.lookup(target, rest, seen if seen is not None else set(), before)
        return None

    def partial_point(self, module: str, importer: str) -> Optional[int]:
        """When ``importer``'s module-level code runs while the package ``__init__.py``
        ``module`` is still running (it is a package ``importer`` belongs to, so Python runs
        it first, and its own imports lead to ``importer``): the ordinal of the statement of
        ``module`` that leads there (``FileSummary.imports_at``); None when ``module`` has
        run to its end by then. Between modules that are not packages of each other, which
        runs first depends on the entry point: taken as run to the end."""
        module = os.path.normpath(module)
        importer = os.path.normpath(os.path.abspath(importer))
        if os.path.basename(module) != "__init__.py" or module == importer \
                or not importer.startswith(os.path.dirname(module) + os.sep):
            return None
        memo = self.__dict__.setdefault("_partial_points", {})
        if module not in memo:
            memo[module] = self._reached_from(module)
        reached, visited = memo[module]
        for path in visited:  # a cached answer depends on every file the walk read
            self._depend(path)
        return reached.get(importer)

    def _reached_from(self, module: str) -> Tuple[Dict[str, int], Tuple[str, ...]]:
        """Each project file the module-level imports of ``module`` run (through the imports
        of the files they run in turn) -> the ordinal of the first statement of ``module``
        that leads to it; and every file read to find out."""
        reached: Dict[str, int] = {}
        visited = {module}
        first = self.summary(module)
        if first is None:
            return reached, tuple(visited)
        for ordinal, imported in sorted((o, m) for m, o in first.imports_at.items()):
            todo = [t for t in self._runs(imported, module) if t not in visited]
            while todo and len(visited) < 2_000:
                path = todo.pop()
                if path in visited:
                    continue
                visited.add(path)
                reached[path] = ordinal
                summary = self.summary(path)
                if summary is not None:
                    for name in summary.imports_at:
                        todo.extend(t for t in self._runs(name, path) if t not in visited)
        return reached, tuple(sorted(visited))

    def _runs(self, imported: str, importer: str) -> List[str]:
        """The project files ``import imported`` in ``importer`` runs: each package on the
        way, then the module."""
        parts = imported.split(".")
        found = (self.find_module(".".join(parts[:cut]), importer) for cut in range(1, len(parts) + 1))
        return [os.path.normpath(f) for f in found if f is not None]

    def resolve_from(self, ctx, name: str):
        """``lookup`` for a dotted name written in the checked file ``ctx``, through that
        file's imports (relative ones resolved), without summarising the file itself: the
        rules have its syntax tree already. Names defined in the file answer None."""
        head, _, rest = name.partition(".")
        bound = checked_file_bindings(self, ctx).get(head)
        if bound is None:
            return None
        return self.lookup_qualified(bound + ("." + rest if rest else ""), os.path.abspath(ctx.path), set())

    def imported_names(self, ctx) -> Dict[str, str]:
        """name -> qualified name of everything the checked file imports, relative imports
        resolved from its module name."""
        return dict(checked_file_bindings(self, ctx))

    def qualified(self, summary: FileSummary, name: str) -> str:
        from msacclint.analysis.imports import canonical

        head, _, rest = name.partition(".")
        bound = summary.imports.get(head)
        if bound is None:
            return name
        return canonical(f"{bound}.{rest}" if rest else bound)

    def resolve_class(self, path: str, name: str) -> Optional[Tuple[str, ClassSummary]]:
        found = self.lookup(path, name)
        if found is None or found[0] != "class":
            return None
        return found[1], found[2]

    def patched(self) -> Dict[str, Evidence]:
        """The MindSpore names a module of the project replaces at module level (mindnlp's
        ``injection.py``: ``nn.Conv1d = Conv1d``), with where: a monkeypatch applies to every
        importer, so what MindSpore's own class does says nothing about these names. Only
        files whose text has a module-level attribute assignment are summarised for it."""
        if self._patched is None:
            found: Dict[str, Evidence] = {}
            for path in sorted(self.files):
                data = self._bytes(path)
                if data is None or b"mindspore" not in data or not _may_patch(data):
                    continue
                summary = self.summary(path)
                for name, line in summary.patches if summary is not None else ():
                    found.setdefault(name, Evidence(self.display(path), line, f"{name} replaced"))
            self._patched = found
        return self._patched

    def replacement(self, name: str) -> Optional[Tuple[Evidence, Optional[Tuple[str, ClassSummary]]]]:
        """For a MindSpore name some module replaces (``patched``): where, and the project
        class assigned to it when the assignment names one (``nn.Conv2d = Conv2d``)."""
        evidence = self.patched().get(name)
        if evidence is None:
            return None
        for path in sorted(self.files):
            if self.display(path) != evidence.path:
                continue
            summary = self.summary(path)
            value = summary.patch_values.get(name) if summary is not None else None
            found = self.lookup(path, value) if value and value != "?" else None
            return evidence, ((found[1], found[2]) if found is not None and found[0] == "class" else None)
        return evidence, None

    def kept_replacements(self, signatures: Mapping[str, Mapping[str, Any]]) -> Dict[str, Evidence]:
        """The replaced MindSpore names (``patched``) whose replacement keeps MindSpore's
        parameters: the project class assigned to the name takes MindSpore's parameters (of
        ``signatures``: name -> parameter -> default, a probe snapshot's) in the same order
        with the same defaults, as far as it takes any (or inherits them from the class it
        replaces). What MindSpore's defaults mean holds for such a class: rules read it as
        MindSpore's. The evidence names the class."""
        out: Dict[str, Evidence] = {}
        for name in sorted(self.patched()):
            wanted = signatures.get(name)
            found = self.replacement(name) if wanted else None
            if found is None or found[1] is None:
                continue
            where, cls = found[1]
            if self._keeps_parameters(where, cls, name, wanted, 0):
                out[name] = Evidence(self.display(where), cls.line,
                                     f"{cls.name} (keeps {name.rsplit('.', 1)[-1]}'s parameters and defaults)")
        return out

    def _keeps_parameters(self, path: str, cls: ClassSummary, name: str, wanted: Mapping[str, Any],
                          depth: int) -> bool:
        if "__init__" not in cls.methods:
            # no constructor of its own: the one of its base, MindSpore's own or another class
            summary = self.summary(path)
            if summary is None or depth > 4:
                return False
            for base in cls.bases:
                if self._original(path, summary, base) == name:
                    return True
                found = self.lookup(path, base)
                if found is not None and found[0] == "class" and \
                        self._keeps_parameters(found[1], found[2], name, wanted, depth + 1):
                    return True
            return False
        params = list(cls.params)
        if not params:
            return False
        for index, (param, default) in enumerate(wanted.items()):
            if index >= len(params):
                break  # a parameter the class lacks: passing it fails loudly
            mine, my_default = params[index]
            if mine != param or not _same_default(default, my_default):
                return False
        return True

    def _original(self, path: str, summary: FileSummary, base: str) -> Optional[str]:
        """The MindSpore class a base names: directly, or through a module constant saved
        before the replacement (``GroupNorm_original = nn.GroupNorm``)."""
        qualified = self.qualified(summary, base)
        if qualified.startswith("mindspore."):
            return qualified
        entries = summary.constants.get(base, [])
        if len(entries) == 1 and entries[0][0][0] == "name":
            qualified = self.qualified(summary, entries[0][0][1])
            return qualified if qualified.startswith("mindspore.") else None
        return None

    def builders(self, path: str, name: str) -> Optional[Tuple[str, FunctionSummary]]:
        found = self.lookup(path, name)
        if found is None or found[0] != "function":
            return None
        return found[1], found[2]


#: the checked file's bindings (``checked_file_bindings``), by the index that resolved them:
#: id(index) -> (index, bindings). The answer depends on the index (the file's module name
#: comes from its root), so another index never reads one made for a different one.
_BINDINGS: Question[Dict[int, Tuple[GraphQueries, Dict[str, str]]]] = Question("project.bindings", lambda ctx: {})


def checked_file_bindings(index: GraphQueries, ctx: FileContext) -> Dict[str, str]:
    """name -> qualified name imported into the checked file: its ImportTable's bindings
    plus its relative imports, resolved from the file's module name (statements only)."""
    memo = ctx.ask(_BINDINGS)
    hit = memo.get(id(index))
    if hit is not None and hit[0] is index:
        return hit[1]
    found = _bindings(index, ctx)
    memo[id(index)] = (index, found)
    return found


def _bindings(index: GraphQueries, ctx: FileContext) -> Dict[str, str]:
    out = {k: v for k, v in ctx.imports.bindings.items() if not v.startswith(ctx.imports.LOCAL)}
    module, is_package = index.module_name(os.path.abspath(ctx.path))
    stack: List[cst.BaseStatement] = list(ctx.module.body)
    while stack:
        stmt = stack.pop()
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.ImportFrom) and small.relative and \
                        not isinstance(small.names, cst.ImportStar):
                    target = resolve_relative(module, is_package, len(small.relative),
                                              dotted(small.module) if small.module is not None else None)
                    if target is None:
                        continue
                    for bound, name in imported_names(small):
                        out.setdefault(bound, f"{target}.{name}")
        else:
            for attr in ("body", "orelse", "finalbody"):
                part = getattr(stmt, attr, None)
                inner = getattr(part, "body", None)
                if isinstance(inner, (list, tuple)):
                    stack.extend(inner)
                elif inner is not None and isinstance(getattr(inner, "body", None), (list, tuple)):
                    stack.extend(inner.body)
            for handler in getattr(stmt, "handlers", ()) or ():
                stack.extend(getattr(handler.body, "body", ()))
    return out

