"""What a module name computed at run time may load.

``importlib.import_module(name)`` loads only a module whose name the code can build. The
outline keeps the parts of each such name (msacclint.project.outline: ``computed``): literal
text (a package prefix ``"models."``, a suffix ``"_net"``) and the values it is built from.
A value the scope assigns only literals is known from the outline; any other is asked of the
project's values (msacclint.project.values: a module constant, a config key read from the
shipped YAML, an argparse default; a parameter by what its callers pass) and of the command
lines the repository's scripts run (``--model resnet50``). A name whose parts are all known
is one of a few modules; otherwise its literal parts bound it (``models.<anything>_net``).
A name with no literal part and no known value has no bound: any module of the folder the
importing script runs from may be loaded, and the note says so.

A mixin of ``ProjectIndex`` (msacclint.project.index), asked by the reach graph
(msacclint.project.reach).
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from typing import List, Optional, Tuple

#: the names a module's own name is held in (``import_module("." + name, __package__)``)
_OWN_NAME = ("__name__", "__package__")
#: at most this many names are made from the known values of one computed name
_MAX_NAMES = 64


@dataclass(frozen=True)
class Computed:
    """One computed module name: where it is, and what it may be."""

    path: str
    scope: str
    line: int
    #: the names it may be (all parts known), else None
    names: Optional[Tuple[str, ...]]
    #: the pattern its literal parts allow (a regular expression over module names), else None
    pattern: Optional[str]
    #: how it is written, for the notes: ``models.<name>``
    shape: str
    #: the pattern of its literal parts alone (what it could load whatever the values)
    loose: Optional[str] = None


class ComputedQueries:
    """A mixin of ProjectIndex: see the module's docstring."""

    def _computed_names(self) -> List[Computed]:
        state = self._reach_state()
        if state.computed is None:
            state.computed = []
            for path, found in self._outlines_naming(b"import_module", b"__import__"):
                for scope_name, scope in found.scopes.items():
                    for line, parts in scope.computed:
                        if len(parts) == 1 and parts[0][0] == "lit":
                            continue  # a literal name: an import like any other
                        state.computed.append(self._bound(path, scope_name, line, parts))
        return state.computed

    def _bound(self, path: str, scope: str, line: int, parts) -> Computed:
        choices: List[Optional[List[str]]] = []
        shape = []
        for kind, value in parts:
            if kind == "lit":
                choices.append([value])
                shape.append(value)
            elif kind == "vals":
                choices.append([str(v) for v in value])
                shape.append("{" + ",".join(str(v) for v in value) + "}")
            else:
                known = self._hole_values(path, scope, value) if value and value not in _OWN_NAME else None
                if value in _OWN_NAME:
                    found = self.outline(path)
                    module = found.module if found is not None else ""
                    own = module if value == "__name__" or (found is not None and found.is_package) \
                        else module.rpartition(".")[0]
                    known = [own] if own else None
                choices.append(known)
                shape.append("{" + ",".join(known) + "}" if known else f"<{value or '?'}>")
        names: Optional[Tuple[str, ...]] = None
        if all(c is not None for c in choices):
            product = list(itertools.islice(itertools.product(*choices), _MAX_NAMES + 1))
            if len(product) <= _MAX_NAMES:
                names = tuple(sorted({"".join(p) for p in product}))
        pattern = None
        if names is None and any(kind == "lit" and value.strip(".") for kind, value in parts):
            pattern = "".join(re.escape(c[0]) if c is not None and len(c) == 1 else
                              ("(?:" + "|".join(re.escape(v) for v in c) + ")" if c else r"[\w.]*")
                              for c in choices)
        loose = None
        if any(kind == "lit" and value.strip(".") for kind, value in parts):
            loose = "".join(re.escape(value) if kind == "lit" else r"[\w.]*" for kind, value in parts)
        return Computed(path, scope, line, names, pattern, "".join(shape), loose)

    def _hole_values(self, path: str, scope: str, dotted: str) -> Optional[List[str]]:
        """The strings a value a computed name is built from may be: a parameter of the
        function ``scope`` by what its callers pass, a module constant, a config key, an
        argparse default, and what the repository's command lines pass for that key. None
        when one of them is unknown or not a string."""
        summary = self.summary(path)
        if summary is None:
            return None
        func = summary.functions.get(scope)
        if func is not None and "." not in dotted and dotted in {p for p, _ in func.params}:
            values = self.parameter_values(path, dotted, func=func)
        else:
            values = self.values(path, ("name", dotted))
        if values is None:
            return None
        out = [v.value for v in values]
        if "." in dotted:
            supplied = self._also_supplied(path, dotted.rsplit(".", 1)[1], [])
            if supplied is None:
                return None
            out.extend(value for value, _where in supplied)
        if not out or not all(isinstance(v, str) for v in out):
            return None
        return sorted(set(out))

    def _loaded_by_name(self, path: str, module: str) -> Optional[Tuple[str, int, str, str]]:
        """(file, line, scope, shape) of a computed import that may load the module ``module``
        (the file ``path``): one of its names finds it, or its pattern matches the module's
        dotted name (or a tail of it: the name is looked up from the importer's folder)."""
        for c in self._computed_names():
            if c.names is not None:
                if any(self.find_module(name, c.path) == path for name in c.names):
                    return c.path, c.line, c.scope, c.shape
            elif c.pattern is not None:
                parts = module.split(".")
                if any(re.fullmatch(c.pattern, ".".join(parts[cut:])) for cut in range(len(parts))):
                    return c.path, c.line, c.scope, c.shape
        return None

    def excluded_by_values(self, path: str) -> Optional[str]:
        """Why a computed import that could load the module ``path`` by its literal parts does
        not: the values supplied for it name other modules (for a dormant note)."""
        found = self.outline(path)
        if found is None or not found.module:
            return None
        parts = found.module.split(".")
        for c in self._computed_names():
            if c.names is None or c.loose is None:
                continue
            if any(re.fullmatch(c.loose, ".".join(parts[cut:])) for cut in range(len(parts))):
                return (f"{self.display(c.path)}:{c.line} loads a module by a computed name, {c.shape}, and no value "
                        f"supplied for it names {found.module}")
        return None

    def _computed_imports(self) -> List[Tuple[str, str]]:
        """(folder, where) of each computed name nothing bounds (no literal part, no known
        value): any module of the folder the importing script runs from may be loaded (the
        nearest folder above it with an entry point of its own, else the repository)."""
        state = self._reach_state()
        if state.dynamic_all is None:
            state.dynamic_all = []
            seen = set()
            for c in self._computed_names():
                if c.names is None and c.pattern is None and c.path not in seen:
                    seen.add(c.path)
                    state.dynamic_all.append((self._entry_folder(c.path), f"{self.display(c.path)}:{c.line}"))
        return state.dynamic_all
