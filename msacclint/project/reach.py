"""Whether a place in a file is reached from what the repository runs.

**Entry points** are what a repository runs (``entry``): a file with an ``if __name__ ==
"__main__":`` block (its main block runs), a file whose own code does work when run (a
script with top-level calls or loops), a file named by the repository's shell scripts,
Makefiles, README command lines or ``[project.scripts]``/``entry_points``, a notebook, a
module pytest collects (its ``test*`` functions run). A repository with no entry point at
all is a library, and so is an installable package (``setup.py``/``pyproject.toml``
declaring a build): their public names are reachable from outside. For a question about a
training default only an entry point whose run trains, evaluates or exports counts
(msacclint.project.runs): a model module's own main block that builds a network and prints a
shape reaches what it builds for the loud checks only.

**Reach** goes from the code that runs to what it names (``reached``): a scope that runs
(module code on import, a main block, a function that is called, a class that is built)
makes the definitions it names run — calls, constructions, names passed as values, strings
naming them (``getattr(m, "Net")``, a registry key), config files naming them — and the
modules it imports run their module code. A class runs its ``__init__``, ``construct`` and
the hooks its framework calls; another method runs when something that runs calls it
(msacclint.project.methods). A nested function runs with its function. A decorated
definition of a module that runs may be registered by its decorator and is reached with the
module. A computed ``importlib`` name reaches the modules its literal parts and supplied
values allow (msacclint.project.computed); one nothing bounds, the folder its script runs
from; ``exec`` of computed text, what its file binds. A hop written under a test of one value
(``if config.net_name == "resnet18":``) counts only when a supplied value takes the branch
(msacclint.project.guards): nothing is called dormant on a guess.

The question is answered backwards, from the place a finding is: the definitions that name
it, the scopes that name those, ... until an entry point (or a library's public name) is
met. The answer is memoised for the run; it uses the files' outlines (msacclint.project.
outline, cached by content), the word index of the project's files, and records every file
it read as a dependency of the checked file's cached result.
"""

from __future__ import annotations

import hashlib
import os
from collections import deque
from dataclasses import dataclass
from typing import Dict, Iterator, Optional, Set, Tuple

from msacclint.project import outline as outline_mod
from msacclint.project.listing import LISTING, paths_digest
from msacclint.project.outline import EVAL, PLAIN_DECORATORS, Outline
from msacclint.project.reach_state import Hop, Node, ReachState

#: how far a backward search goes before it gives up (and calls the place reached)
MAX_NODES = 4_000
#: names that say nothing about which definition they mean (``self.x``, builtins)
_SKIP_HEADS = frozenset({"self", "cls", "super"})


@dataclass(frozen=True)
class Answer:
    """Whether a place runs: ``runs`` True (with the trail from an entry point), False
    (nothing reaches it; ``entries`` names some entry points the repository has), or None
    (not decided: no project, or the search gave up)."""

    runs: Optional[bool]
    trail: Tuple[Hop, ...] = ()
    #: the definition holding the place, as the search started from it
    scope: str = ""
    entries: Tuple[str, ...] = ()
    #: what stops the code from running (runs is False): where it raises, and what
    failure: Optional[Hop] = None
    #: runs is False: the trail of a run that reaches the place but neither trains nor
    #: evaluates (a model module's own main block), when one does
    only: Tuple[Hop, ...] = ()
    #: runs is False: the value no run supplies that would take the branch naming it
    switched: str = ""


class ReachQueries:
    """A mixin of ProjectIndex: see the module's docstring."""

    def _reach_state(self) -> ReachState:
        state = getattr(self, "_reach", None)
        if state is None:
            state = self._reach = ReachState()
        return state

    def outline(self, path: str) -> Optional[Outline]:
        """The outline of a Python file of the project (cached by content), None when it
        cannot be read."""
        state = self._reach_state()
        if path in state.outlines:
            return state.outlines[path]
        data = self._bytes(path)
        found: Optional[Outline] = None
        if data is not None:
            module, is_package = self.module_name(path)
            key = hashlib.sha256(f"outline{outline_mod.FORMAT}\0{module}\0{is_package}\0".encode() + data).hexdigest()
            stored = self.cache.load_object("outline", key) if self.cache is not None else None
            if stored is not None:
                try:
                    found = outline_mod.from_json(stored)
                except (KeyError, TypeError, ValueError, IndexError):
                    found = None
            if found is None:
                from msacclint.analysis.source import decode

                text, problem = decode(data)
                found = outline_mod.read(text if problem is None else "", module, is_package)
                if self.cache is not None:
                    self.cache.store_object("outline", key, outline_mod.to_json(found))
        state.outlines[path] = found
        return found

    def forget_reach(self) -> None:
        self._reach = ReachState()

    def reached(self, path: str, line: int, header_outside: bool = False, training: bool = True) -> Answer:
        """Whether the code at ``line`` of ``path`` runs (see the module's docstring).
        ``header_outside``: a finding on a ``class``/``def`` line is about what that line
        evaluates where the definition is (a base class, a decorator), not its body.
        ``training``: only a run that trains or evaluates counts (msacclint.project.runs);
        without it any run does (a loud failure fails whatever runs it)."""
        outer, self._running_only = self._running_only, False  # (the search reads values of its own)
        try:
            return self._reached(os.path.normpath(os.path.abspath(path)), line, header_outside, training)
        finally:
            self._running_only = outer

    def _reached(self, path: str, line: int, header_outside: bool, training: bool) -> Answer:
        found = self.outline(path)
        if found is None or found.broken:
            return Answer(None)
        scope = found.enclosing(line)
        d = found.defs.get(scope)
        if header_outside and d is not None and d.line == line:
            scope = d.parent
        failure = self._stops_before(path, scope, line)
        if failure is not None:
            # code that cannot run is "cannot run" only when a run would reach it were it not for
            # the failure; code nothing reaches at all is dormant first
            loose = self._search((path, scope), strict=False)
            if loose is None:
                return Answer(False, (), scope, self._some_entries(path))
            return Answer(False, (), scope, (), failure)
        start = (path, scope)
        trail = self._search(start, True, training)
        if trail == ("?",):
            return Answer(None, (), scope)
        if trail is not None:
            switched = self._switched_off(path, found, scope, line, parameters=False)
            if switched is not None:
                return Answer(False, trail, scope, (), switched=switched)
            return Answer(True, trail, scope)
        for loose_training in ((True, False) if training else (False,)):
            blocked = self._search(start, False, loose_training)
            if blocked is not None and blocked != ("?",):
                stop = self._first_failure(blocked)
                if stop is not None:
                    return Answer(False, blocked, scope, (), stop)
            if loose_training and training:
                switched_trail, why = self._switched_hop(start, training)
                if why:
                    return Answer(False, switched_trail, scope, (), switched=why)
                only = self._search(start, True, False)
                if only is not None and only != ("?",):
                    return Answer(False, (), scope, (), only=only)
        return Answer(False, (), scope, self._some_entries(path))

    def runs_at(self, path: str, line: int) -> Optional[bool]:
        """Whether the code at ``line`` of ``path`` runs in a run that trains or evaluates:
        True, False, or None (not decided)."""
        return self.reached(path, line).runs

    def trail_to(self, path: str, scope: str, training: bool = True) -> Optional[Tuple[Hop, ...]]:
        """How an entry point reaches the scope ``scope`` of ``path`` (``""``: its module code),
        empty when nothing does or the search gave up."""
        trail = self._search((os.path.normpath(os.path.abspath(path)), scope), True, training)
        return trail if trail is not None and trail != ("?",) else ()

    def _switched_hop(self, start: Node, training: bool) -> Tuple[Tuple[Hop, ...], str]:
        """A hop towards ``start`` that a supplied value switched off, from code a run does
        reach: (that run's trail and the hop, why), or ((), "")."""
        for pred, hop, why in self._reach_state().switched.get(start, ())[:8]:
            trail = self._search(pred, True, training)
            if trail is not None and trail != ("?",):
                return trail + (hop[:2] + (f"{hop[2]}, but {why}",),), why
        return (), ""

    def _search(self, start: Node, strict: bool = True, training: bool = False):
        """The trail from an entry point to ``start`` (entry first), None when nothing
        reaches it, ``("?",)`` when the search gave up. ``strict``: a hop from code that
        cannot get there (its module's import raises first, its function raises before the
        line) does not count; without it such hops count and the trail shows them.
        ``training``: an entry point counts only when its run trains or evaluates."""
        state = self._reach_state()
        memo = state.memo(strict, training)
        if start in memo:
            return memo[start]
        outer, state.dropped = state.dropped, []
        try:
            return self._search_from(start, strict, training, memo)
        finally:
            dropped, state.dropped = state.dropped, outer
            if dropped:
                state.switched.setdefault(start, []).extend(dropped)

    def _search_from(self, start: Node, strict: bool, training: bool, memo):
        parents: Dict[Node, Optional[Tuple[Node, Hop]]] = {start: None}
        queue = deque([start])
        while queue:
            node = queue.popleft()
            if node in memo:
                known = memo[node]
                if known is None:
                    continue  # nothing reaches it (a search from it found no entry)
                return self._trail(node, known, parents, memo)
            why = self._root(node, training)
            if why is not None and strict and node[1] in ("", "__main__"):
                stop = self._module_failure(node[0])
                if stop is not None and node[1] == "__main__":
                    why = None  # the script stops before its main block
            if why is not None:
                return self._trail(node, ((node[0], self._line_of(node), why),), parents, memo)
            for pred, hop in self._predecessors(node):
                if pred in parents:
                    continue
                if strict and self._stops_before(hop[0], pred[1], hop[1]) is not None:
                    continue
                parents[pred] = (node, hop)
                if pred not in memo and self._root(pred, training) is not None:
                    queue.appendleft(pred)  # an entry point: taken next, before the rest
                    break
                queue.append(pred)
                if len(parents) > MAX_NODES:
                    return ("?",)
        for node in parents:
            memo[node] = None
        return None

    def _trail(self, found: Node, root: Tuple[Hop, ...], parents, memo) -> Tuple[Hop, ...]:
        trail = list(root)
        node = found
        memo[node] = tuple(trail)
        while parents[node] is not None:
            child, hop = parents[node]
            trail.append(hop)
            memo[child] = tuple(trail)
            node = child
        return tuple(trail)

    def _line_of(self, node: Node) -> int:
        found = self.outline(node[0])
        if found is None:
            return 1
        if node[1] == "__main__":
            return found.main_lines[0] or 1
        d = found.defs.get(node[1])
        return d.line if d is not None else (found.script or 1)

    def _root(self, node: Node, training: bool = False) -> Optional[str]:
        """Why ``node`` runs by itself (an entry point's code, a library's public name), or
        None. With ``training``, an entry point counts when its run trains or evaluates, or
        when no run of the repository does (it is then read as a library)."""
        why, entry = self._root_why(node)
        if why is None or not training or not entry:
            return why
        path, scope = node
        found = self.outline(path)
        run = (path, "__main__") if scope == "" and found is not None and found.main else node
        hop = self._trains_from(run)
        if hop is not None:
            if hop[0]:
                return f"{why}; it trains or evaluates ({hop[2]} at {self.display(hop[0])}:{hop[1]})"
            return why
        if not self._any_training_entry():
            return f"{why} (no run of the repository trains or evaluates: what they build is a library's code)"
        return None

    def _root_why(self, node: Node) -> Tuple[Optional[str], bool]:
        """Why ``node`` runs by itself, and whether that is an entry point's run."""
        path, scope = node
        if scope == "#config":
            return f"{self.display(path)} is a config file of the repository", False
        found = self.outline(path)
        if found is None:
            return None, False
        if scope == "__main__":
            return (self.entry(path) if found.main else None), True
        if scope == "":
            why = self.entry(path)
            if why is not None:
                return why, True
        if not self.has_entry_points():
            return "the repository has no entry point: it is a library and its code is reachable", False
        d = found.defs.get(scope)
        if d is not None and not d.parent:
            if self._pytest_module(path, found) and scope.lower().startswith("test"):
                return "pytest collects it", True
            if not scope.startswith("_") and self._public_module(path):
                return f"a public name of the installable package `{os.path.basename(self._package_of(path))}`", False
        for folder, where in self._computed_imports():
            if path.startswith(folder.rstrip(os.sep) + os.sep) or path == folder:
                return (f"{where} imports a module whose name it computes at run time and nothing bounds the name, "
                        f"so any code of {self.display(folder) if folder != self.root else 'the repository'} "
                        "may run"), False
        return None, False

    def _outlines_naming(self, *words: bytes) -> Iterator[Tuple[str, Outline]]:
        """(file, outline) of every file of the project whose text holds one of ``words``."""
        for path in sorted(self.files):
            data = self._bytes(path) or b""
            if any(word in data for word in words):
                found = self.outline(path)
                if found is not None:
                    yield path, found

    def _computed_lookups(self) -> Set[str]:
        """Files that look a name up at run time (``getattr(module, name)``)."""
        state = self._reach_state()
        if state.lookups is None:
            state.lookups = set()
            for path, found in self._outlines_naming(b"getattr", b"eval(", b"exec("):
                if any(ref.endswith(".*") for s in found.scopes.values() for ref, _ in s.refs) \
                        or any(p == EVAL for s in found.scopes.values() for p, _ in s.dynamic):
                    state.lookups.add(path)
        return state.lookups

    def _predecessors(self, node: Node) -> Iterator[Tuple[Node, Hop]]:
        path, scope = node
        if scope == "#config":
            return
        found = self.outline(path)
        if found is None:
            return
        if scope == "__main__":
            return
        if scope == "":
            yield from self._kept(self._importers(path, found))
            return
        d = found.defs.get(scope)
        if d is None:
            return
        if d.parent:
            parent = found.defs.get(d.parent)
            if parent is not None and parent.kind == "class":
                why = self._with_class(path, found, scope)
                if why is None:
                    # a method runs when something calls it (msacclint.project.methods)
                    yield from self._kept(self._method_callers(path, found, scope))
                    return
                yield (path, d.parent), (path, d.line, f"`{scope}` runs with `{d.parent}` ({why})")
                return
            yield (path, d.parent), (path, d.line, f"`{scope}` runs with `{d.parent}` (inside it)")
            return
        # a top-level definition: the scopes that name it, its module when a decorator may
        # register it, a config file that names it
        loader = self._loaded_by_name(path, found.module)
        if loader is not None:
            yield (path, ""), (loader[0], loader[1], f"{found.module} may be loaded by the computed name "
                                                     f"{loader[3]} there, and `{scope}` looked up in it")
        if any(dec not in PLAIN_DECORATORS for dec in d.decorators):
            yield (path, ""), (path, d.line, f"`{scope}` is decorated ({', '.join(d.decorators)}) when "
                                             f"{self.display(path)} is imported")
        yield from self._kept(self._namers(path, scope, found))

    def _kept(self, hops: Iterator[Tuple[Node, Hop]]) -> Iterator[Tuple[Node, Hop]]:
        """The hops no supplied value switches off (msacclint.project.guards); the others are
        kept aside for the note of a search that finds nothing."""
        state = self._reach_state()
        for pred, hop in hops:
            out = self.outline(pred[0]) if hop[0] == pred[0] else None
            why = self._switched_off(pred[0], out, pred[1], hop[1]) if out is not None else None
            if why is None:
                yield pred, hop
            elif state.dropped is not None:
                state.dropped.append((pred, hop, why))

    def _namers(self, path: str, name: str, found: Outline) -> Iterator[Tuple[Node, Hop]]:
        words = self._word_index()
        word = name.encode()
        lookups = self._computed_lookups()
        for other in sorted(words):
            if word not in words[other] and other not in lookups:
                continue
            self._depend(other)
            if not other.endswith((".py", ".ipynb")):
                # a config file naming it: the code that reads the config may build it (a
                # config of the same project only: another model's config of a model zoo
                # names its own classes)
                unit = self._unit(path)
                if other.startswith(unit.rstrip(os.sep) + os.sep):
                    yield (other, "#config"), (other, 1, f"{self.display(other)} names `{name}`")
                continue
            out = self.outline(other)
            if out is None or out.broken:
                continue
            for scope_name, scope in out.scopes.items():
                hits = list(self._names_in(other, out, scope_name, scope, path, name))
                if not hits:
                    continue
                # the first hit no supplied value switches off, else the first one
                kept = next((h for h in hits if self._switched_off(other, out, scope_name, h[0]) is None), hits[0])
                yield (other, scope_name), (other, kept[0], kept[1])
        self._used[LISTING + self.root] = paths_digest(list(self.files) + list(self.configs.paths))

    def _names_in(self, other: str, out: Outline, scope_name: str, scope, path: str,
                  name: str) -> Iterator[Tuple[int, str]]:
        """Where the scope ``scope_name`` of ``other`` names ``name`` of ``path``: (line, what)."""
        if other == path and scope_name == name:
            return
        for ref, line in scope.refs:
            if ref.endswith(".*"):
                if self._looks_up_in(other, out, ref[:-2], path):
                    yield line, f"`{_scope_label(scope_name)}` looks a name of {ref[:-2]} up at run time (getattr)"
                continue
            parts = ref.split(".")
            if parts[0] in _SKIP_HEADS:
                continue
            alternatives = out.alternatives.get(parts[0])
            if alternatives is not None:
                # a name imported under several tests: each import names its own target
                rest = ref[len(parts[0]):]
                for qualified, at, where in alternatives:
                    if (name in qualified.split(".") or name in parts) and \
                            self._resolve_qualified(qualified + rest, other, 1) == (path, name):
                        what = f"`{_scope_label(scope_name)}` uses {ref} ({name}, imported at line {at})"
                        why = self._switched_off(other, out, where, at)
                        if why is None:
                            yield line, what
                            break
                        dropped = self._reach_state().dropped
                        if dropped is not None:
                            dropped.append(((other, scope_name), (other, line, what), why))
                continue
            if name not in parts and name not in out.bindings.get(parts[0], "").split("."):
                continue  # (``from m import build as make``: ``make`` names ``build``)
            target = self._resolve(other, out, ref)
            if target is not None and target == (path, name):
                what = f"{ref}" if ref == name else f"{ref} ({name})"
                yield line, f"`{_scope_label(scope_name)}` uses {what}"
        for text, line in scope.strings:
            if (text == name or text.rsplit(".", 1)[-1] == name) and self._may_name(other, path):
                yield line, f"`{_scope_label(scope_name)}` names '{text}'"
        for prefix, line in scope.dynamic:
            if prefix == EVAL and self._binds(other, out, path, name):
                yield line, f"`{_scope_label(scope_name)}` evaluates text built at run time, which may name `{name}`"

    def _may_name(self, other: str, path: str) -> bool:
        """Whether a string written in ``other`` may name a definition of ``path`` (a registry
        key, a ``getattr`` name): both are of one project of the repository, or ``other``
        imports ``path``'s module (or a package above it)."""
        if other == path or self._unit(other) == self._unit(path):
            return True
        out = self.outline(other)
        if out is None:
            return False
        for scope in out.scopes.values():
            for imported, _line, _guarded in scope.imports:
                target = self.find_module(imported, other) or self.find_module(imported.rsplit(".", 1)[0], other)
                if target == path or (target is not None and target.endswith("__init__.py")
                                      and path.startswith(os.path.dirname(target) + os.sep)):
                    return True
        return False

    def _binds(self, other: str, out: Outline, path: str, name: str) -> bool:
        """Whether a name ``other`` binds (a definition, an import, a star import) is ``name``
        of ``path``: what ``eval`` of computed text in ``other`` may reach."""
        if self._resolve(other, out, name) == (path, name):
            return True
        return any(self._resolve(other, out, bound) == (path, name) for bound in out.bindings
                   if not bound.startswith("*") and out.bindings[bound].rsplit(".", 1)[-1] == name)

    def _looks_up_in(self, other: str, out: Outline, owner: str, path: str) -> bool:
        """Whether ``getattr(owner, <computed>)`` written in ``other`` may find a top-level
        name of ``path``: ``owner`` is that module, or a package whose folder holds it."""
        head, _, rest = owner.partition(".")
        bound = out.bindings.get(head)
        if bound is None:
            return False
        qualified = bound + ("." + rest if rest else "")
        target = self.find_module(qualified, other)
        if target is None:
            return False
        if target == path:
            return True
        return target.endswith("__init__.py") and path.startswith(os.path.dirname(target) + os.sep)

    def _resolve(self, path: str, found: Outline, dotted: str) -> Optional[Node]:
        """The top-level definition a dotted name written in ``path`` stands for: (file, name)."""
        state = self._reach_state()
        key = (path, dotted)
        if key in state.resolved:
            return state.resolved[key]
        answer = self._resolve_uncached(path, found, dotted, 0)
        state.resolved[key] = answer
        return answer

    def _resolve_uncached(self, path: str, found: Outline, dotted: str, depth: int) -> Optional[Node]:
        if depth > 12:
            return None
        head, _, rest = dotted.partition(".")
        d = found.defs.get(head)
        if d is not None and not d.parent:
            return (path, head)
        bound = found.bindings.get(head)
        if bound is not None:
            return self._resolve_qualified(bound + ("." + rest if rest else ""), path, depth + 1)
        for star, module in found.bindings.items():
            if star.startswith("*"):
                hit = self._resolve_qualified(f"{module}.{dotted}", path, depth + 1)
                if hit is not None:
                    return hit
        return None

    def _resolve_qualified(self, qualified: str, importer: str, depth: int) -> Optional[Node]:
        parts = qualified.split(".")
        for cut in range(len(parts), 0, -1):
            target = self.find_module(".".join(parts[:cut]), importer)
            if target is None:
                continue
            rest = parts[cut:]
            if not rest:
                # a module, not a definition, unless its package binds the name to something
                # else (``from .DFCNN import DFCNN`` in ``model/__init__.py``: the attribute wins)
                if cut > 1:
                    package = self.find_module(".".join(parts[:cut - 1]), importer)
                    outer = self.outline(package) if package is not None and \
                        package.endswith("__init__.py") else None
                    if outer is not None and (parts[cut - 1] in outer.defs or parts[cut - 1] in outer.bindings):
                        return self._resolve_uncached(package, outer, parts[cut - 1], depth + 1)
                return None
            inner = self.outline(target)
            if inner is None:
                return None
            return self._resolve_uncached(target, inner, ".".join(rest), depth + 1)
        return None

    def _importers(self, path: str, found: Outline) -> Iterator[Tuple[Node, Hop]]:
        """Scopes that import the module ``path`` (or a module below it, for a package)."""
        module = found.module
        if not module:
            return
        stem = module.rsplit(".", 1)[-1].encode()
        words = self._word_index()
        for other in sorted(words):
            if other == path or not other.endswith((".py", ".ipynb")) or stem not in words[other]:
                continue
            self._depend(other)
            out = self.outline(other)
            if out is None or out.broken:
                continue
            for scope_name, scope in out.scopes.items():
                lines = [line for imported, line, _guarded in scope.imports
                         if self._imports_file(imported, other, path)]
                if lines:
                    # the first import no supplied value switches off, else the first one
                    line = next((n for n in lines if self._switched_off(other, out, scope_name, n) is None), lines[0])
                    yield (other, scope_name), (other, line, f"`{_scope_label(scope_name)}` imports "
                                                             f"{self.display(path)}")
        loader = self._loaded_by_name(path, module)
        if loader is not None:
            yield (loader[0], loader[2]), (loader[0], loader[1], f"`{_scope_label(loader[2])}` may load {module} "
                                                                 f"by the computed name {loader[3]}")
        self._used[LISTING + self.root] = paths_digest(list(self.files) + list(self.configs.paths))

    def _imports_file(self, imported: str, importer: str, path: str) -> bool:
        parts = imported.split(".")
        for cut in range(len(parts), 0, -1):
            target = self.find_module(".".join(parts[:cut]), importer)
            if target == path:
                return True
            if target is not None and cut == len(parts):
                # importing a module runs its packages' __init__ first
                return path.endswith("__init__.py") and target.startswith(os.path.dirname(path) + os.sep)
        return False


def _scope_label(scope: str) -> str:
    if scope == "":
        return "module code"
    if scope == "__main__":
        return "main block"
    return scope
