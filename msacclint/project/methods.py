"""Which methods of a class run: those something calls.

A class that is built runs its ``__init__`` and, as a Cell, its ``construct`` (and the hooks
MindSpore calls on a Cell: ``bprop``, ``extend_repr``); Python calls its dunder methods
(``__call__``, ``__getitem__``, ``__len__`` of a dataset source); a class with a base from
outside the project that is not ``Cell`` or ``object`` (a ``Callback``, a ``Metric``, a
``LearningRateSchedule``, a torch ``Module``) has its methods called by that framework by
name; a method a decorator registers is registered with the class. Those run with the class
(``_with_class``).

Any other method runs when a scope that runs calls it (``_method_callers``): by name on an
instance (``net.head(x)``, ``self.make_layer(...)``, ``self.backbone.features(x)``), through
its class (``Net.build(...)``), through ``super()``, by a string (``getattr(self, "head")``, a
callback named in a table) or by a computed ``getattr(self, name)`` in the class or a class
related to it. ``self.m`` counts in the class itself, its bases and subclasses; a name
bound to an import counts only when it resolves to the class (``np.mean`` is not a method
``mean`` of the project). A mixin of ``ProjectIndex`` (msacclint.project.index), asked by
the reach graph (msacclint.project.reach).
"""

from __future__ import annotations

from typing import Iterator, Optional, Set, Tuple

from msacclint.project.listing import LISTING, paths_digest
from msacclint.project.outline import PLAIN_DECORATORS, Outline

Node = Tuple[str, str]
Hop = Tuple[str, int, str]

#: methods MindSpore calls on a Cell itself
CELL_HOOKS = frozenset({"construct", "bprop", "extend_repr"})
#: bases whose own code calls no method of a subclass by name
_NEUTRAL_BASES = frozenset({
    "object", "mindspore.nn.Cell", "mindspore.nn.cell.Cell", "mindspore.Cell", "abc.ABC", "typing.Generic",
    "Exception", "ValueError", "RuntimeError", "TypeError", "dict", "list", "tuple", "str", "int", "float",
    "enum.Enum", "typing.NamedTuple", "typing.Protocol",
})
_INSTANCE_HEADS = frozenset({"self", "cls", "super"})


class MethodQueries:
    """A mixin of ProjectIndex: see the module's docstring."""

    def _with_class(self, path: str, found: Outline, qual: str) -> Optional[str]:
        """Why the method ``qual`` of ``path`` runs whenever its class is built, or None."""
        d = found.defs[qual]
        name = qual.rsplit(".", 1)[-1]
        if name in CELL_HOOKS:
            return "MindSpore calls it"
        if name.startswith("__") and name.endswith("__"):
            return "Python calls it"
        if any(dec not in PLAIN_DECORATORS for dec in d.decorators):
            return f"decorated ({', '.join(d.decorators)})"
        base = self._framework_base(path, found, d.parent, 0)
        if base is not None:
            return f"a method of a {base} subclass, which calls its methods by name"
        return None

    def _framework_base(self, path: str, found: Outline, cls: str, depth: int) -> Optional[str]:
        """The first base of ``cls`` (through the project's classes) from outside the project
        that may call its methods by name, or None."""
        d = found.defs.get(cls)
        if d is None or depth > 6:
            return None
        for base in d.bases:
            target = self._resolve(path, found, base)
            if target is not None:
                inner = self.outline(target[0])
                if inner is not None and inner.defs.get(target[1]) is not None:
                    hit = self._framework_base(target[0], inner, target[1], depth + 1)
                    if hit is not None:
                        return hit
                continue
            head, _, rest = base.partition(".")
            bound = found.bindings.get(head)
            qualified = (bound + ("." + rest if rest else "")) if bound is not None else base
            if qualified not in _NEUTRAL_BASES and not (bound is None and head in found.defs):
                return f"`{base}`"
        return None

    def _ancestors(self, node: Node, depth: int = 0) -> Set[Node]:
        """The project classes ``node`` (a class) extends, through every level."""
        memo = self._reach_state().ancestors
        if node in memo:
            return memo[node]
        memo[node] = set()
        found = self.outline(node[0])
        d = found.defs.get(node[1]) if found is not None else None
        out: Set[Node] = set()
        for base in d.bases if d is not None and depth < 8 else ():
            target = self._resolve(node[0], found, base)
            if target is not None and target != node:
                out.add(target)
                out |= self._ancestors(target, depth + 1)
        memo[node] = out
        return out

    def _related(self, one: Node, other: Node) -> bool:
        """Whether a ``self.m`` written in ``other`` (a class) may call ``m`` of ``one``."""
        return one == other or other in self._ancestors(one) or one in self._ancestors(other)

    def _method_callers(self, path: str, found: Outline, qual: str) -> Iterator[Tuple[Node, Hop]]:
        """The scopes that call the method ``qual`` of ``path`` (see the module's docstring)."""
        cls, _, name = qual.rpartition(".")
        owner = (path, cls.split(".")[0])
        words = self._word_index()
        word = name.encode()
        lookups = self._computed_lookups()
        for other in sorted(words):
            if not other.endswith((".py", ".ipynb")) or (word not in words[other] and other not in lookups):
                continue
            self._depend(other)
            out = self.outline(other)
            if out is None or out.broken:
                continue
            for scope_name, scope in out.scopes.items():
                hit = self._calls_method(other, out, scope_name, scope, path, owner, name)
                if hit is not None and not (other == path and scope_name == qual):
                    yield (other, scope_name), (other, hit[0], f"`{_label(scope_name)}` {hit[1]}")
        self._used[LISTING + self.root] = paths_digest(list(self.files) + list(self.configs.paths))

    def _calls_method(self, other: str, out: Outline, scope_name: str, scope, path: str, owner: Node,
                      name: str) -> Optional[Tuple[int, str]]:
        top = scope_name.split(".")[0]
        in_class = out.defs.get(top) is not None and out.defs[top].kind == "class"
        family = in_class and self._related(owner, (other, top))
        for ref, line in scope.refs:
            parts = ref.split(".")
            if ref.endswith(".*"):
                if family and parts[0] in _INSTANCE_HEADS and len(parts) == 2:
                    return line, f"looks a method of `{top}` up at run time (getattr)"
                continue
            if parts[-1] != name:
                continue
            if len(parts) == 1:
                if other == path and scope_name == owner[1]:
                    return line, f"names `{name}` in the class body"
                continue
            head = parts[0]
            if head in _INSTANCE_HEADS:
                if len(parts) > 2 or family:
                    return line, f"calls `{ref}`"
                continue
            if head in out.bindings or (head in out.defs and not out.defs[head].parent):
                if self._resolve(other, out, ".".join(parts[:-1])) == owner:
                    return line, f"calls `{ref}`"
                continue
            return line, f"calls `{ref}` on an object"
        for text, line in scope.strings:
            if text == name and self._may_name(other, path):
                return line, f"names '{text}'"
        return None


def _label(scope: str) -> str:
    if scope == "":
        return "module code"
    if scope == "__main__":
        return "main block"
    return scope
