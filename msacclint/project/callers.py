"""Who calls a class or function, and with what: call sites across the project, the classes
handed to a parameter, the switch values every call passes, the builders under data
parallelism. A mixin of ``ProjectIndex`` (msacclint.project.index).
"""

from __future__ import annotations

import os
import re
from typing import Any, Iterator, List, Optional, Tuple

from msacclint.project.summary import Call, ClassSummary, Expr, FileSummary, FunctionSummary
from msacclint.project.values import UNSET, Evidence, Value


def says_data_parallel(expr: Expr) -> bool:
    """A parallel_mode value a summary recorded: ParallelMode.DATA_PARALLEL or 'data_parallel'
    (a name assigned in the same scope was recorded as each value assigned to it)."""
    if expr[0] == "lit":
        return isinstance(expr[1], str) and expr[1].lower() == "data_parallel"
    return expr[0] == "name" and expr[1].rsplit(".", 1)[-1] == "DATA_PARALLEL"


class CallerQueries:
    """A mixin of ProjectIndex: see the module's docstring."""

    #: while a switch's values are read (``switch_values``), only the calls in code a run
    #: that trains or evaluates reaches count, at every level the values are followed through
    _running_only = False

    def running(self, sites: List[Tuple[Any, ...]], path_at: int = 0, call_at: int = 1) -> List[Tuple[Any, ...]]:
        """The call sites of ``sites`` (tuples holding a file and a call) a run reaches, while
        a switch is read; all of them otherwise."""
        if not self._running_only:
            return sites
        return [site for site in sites if self.runs_at(site[path_at], site[call_at].line) is not False]

    def call_sites(self, path: str, target: str):
        """Calls of the class/function ``target`` defined in ``path``, in every file whose
        text names it: (file, summary, call, enclosing class, enclosing function). Kept per
        index (a file that changes forgets them)."""
        if "." in target:
            return iter(())  # methods are called through objects: not followed
        memo = self.__dict__.setdefault("_call_sites", {})
        key = (path, target)
        if key not in memo:
            # every file the answer reads (summaries, the imports it follows) is recorded apart,
            # so a later answer from the memo depends on them too
            outer, self._used = self._used, {}
            try:
                sites = list(self._find_call_sites(path, target))
            finally:
                read, self._used = self._used, outer
            memo[key] = (sites, read)
        sites, read = memo[key]
        for other, digest in read.items():
            self._used.setdefault(other, digest)
        return iter(sites)

    def _find_call_sites(self, path: str, target: str):
        short = target.split(".")[-1]
        pattern = re.compile(rb"\b" + re.escape(short.encode()) + rb"\b")
        # the word index holds every whole word the pattern can match: a file without the
        # word is passed over without a search of its text
        words = self._word_index() if short.isascii() and short.isidentifier() else None
        word = short.encode()
        for other in sorted(self.files):
            if words is not None and word not in words.get(other, ()):
                continue
            data = self._bytes(other)
            if data is None or not pattern.search(data):
                continue
            summary = self.summary(other)
            if summary is None:
                continue
            for owner_cls, owner_func, call in all_calls(summary):
                if call.callee.split(".")[-1] != short:
                    continue
                if other == path and call.callee == short:
                    pass
                else:
                    found = self.lookup(other, call.callee)
                    if found is None or found[1] != path or found[2] is None or \
                            (found[2] if found[0] == "constant" else getattr(found[2], "name", None)) != target:
                        continue
                yield other, summary, call, owner_cls, owner_func

    def argument_classes(self, path: str, target: str, param: str, depth: int = 0
                         ) -> Optional[List[Tuple[str, str, int]]]:
        """What every call of the class or function ``target`` (defined in ``path``) passes for
        its parameter ``param``, when each passes a name assigned only from constructor calls
        (``net = MMoE(cfg)`` ... ``EvalCallBack(net, ds)``, locally or at module level), or a
        parameter of the calling function, followed to that function's callers in turn (up to
        two levels: ``train(cfg, net, scaler)`` building ``Step(net, scaler)``): (file, callee
        as written there, line of the call). None when some call passes anything else, or
        nothing in the project calls ``target``."""
        found = self.lookup(path, target)
        if found is None or found[0] not in ("class", "function") or depth > 2:
            return None
        names = [name for name, _ in found[2].params]
        position = names.index(param) if param in names else None
        return self.passed_classes(found[1], target, param, position, depth=depth)

    def passed_classes(self, path: str, target: str, param: str, position: Optional[int],
                       depth: Optional[int] = None, in_place: bool = False
                       ) -> Optional[List[Tuple[str, str, int]]]:
        """What every call of ``target`` (defined in ``path``) passes for its parameter
        ``param``, given by keyword or as the argument at ``position``, when each passes a
        name assigned only from constructor calls; with ``depth`` (``argument_classes``), also
        a parameter of the calling function, followed to that function's callers; with
        ``in_place``, also a constructor call written as the argument itself (a class that
        inherits its ``__init__`` from MindSpore: msacclint.rules.mp.overflow_check). (file,
        callee as written there, line of the call); None when some call passes anything
        else, or nothing in the project calls ``target``."""
        out: List[Tuple[str, str, int]] = []
        for other, summary, call, _cls, func in self.call_sites(path, target):
            if param in call.kwargs:
                expr = call.kwargs[param]
            elif position is not None and position < len(call.args):
                expr = call.args[position]
            else:
                return None
            if depth is not None and expr[0] == "param" and func is not None and "." not in func.name:
                handed = self.argument_classes(other, func.name, expr[1], depth + 1)
                if handed is None:
                    return None
                out.extend(handed)
                continue
            if in_place and expr[0] == "call":
                out.append((other, expr[1], call.line))
                continue
            builds = self.names_built(summary, func, expr)
            if builds is None:
                return None
            out.extend((other, callee, call.line) for callee in builds)
        return out or None

    def classes_at(self, path: str, summary: FileSummary, func: Optional[FunctionSummary], expr: Expr
                   ) -> Optional[List[Tuple[str, str, int]]]:
        """The classes an argument written in ``path`` may hold, as (file, callee as written
        there, line): a name assigned from constructor calls (``names_built``), or a parameter
        of the calling top-level function, followed to what that function's callers pass
        (``argument_classes``: a trainer function of another file handing its ``network`` on
        to an evaluator). None when it cannot be told."""
        if expr[0] == "param" and func is not None and "." not in func.name:
            return self.argument_classes(path, func.name, expr[1], depth=1)
        built = self.names_built(summary, func, expr)
        return None if built is None else [(path, callee, 0) for callee in built]

    @staticmethod
    def names_built(summary: FileSummary, func: Optional[FunctionSummary], expr: Expr) -> Optional[List[str]]:
        """The callees (as written) a plain name passed at a call site is assigned from, in
        the calling function or at module level (``scaler = DynamicLossScaler(...)``, several
        alternatives kept); None when the name is assigned anything else or is not a name."""
        if expr[0] != "name" or "." in expr[1]:
            return None
        builds = (func.builds.get(expr[1]) if func is not None else None) or summary.builds.get(expr[1])
        return list(builds) if builds and "?" not in builds else None

    def data_parallel_builders(self, path: str, name: str, depth: int = 0
                               ) -> Iterator[Tuple[str, FileSummary, Any, int]]:
        """Where the class or function ``name`` of ``path`` is built by another file that calls
        init() and sets DATA_PARALLEL, directly or through up to three builders in between (a
        Trainer class of ``src/`` that builds the step Cell): (that file, its summary, the call
        there, the line of its parallel context). The first such file only."""
        if depth > 3 or "." in name:
            return
        for site, summary, call, cls, func in self.call_sites(path, name):
            modes = [line for expr, line in summary.parallel_modes if says_data_parallel(expr)]
            if site != path and summary.init_lines and modes:
                yield site, summary, call, modes[0]
                return
            owner = cls.name if cls is not None else (func.name if func is not None else None)
            owner = owner.split(".")[0] if owner is not None else None  # a method runs on an instance
            if owner is not None and owner != name:
                found = next(iter(self.data_parallel_builders(site, owner, depth + 1)), None)
                if found is not None:
                    yield found
                    return

    def data_parallel_calls(self, path: str, name: str) -> Iterator[Tuple[str, FileSummary, Any, int]]:
        """Every direct call of the function ``name`` of ``path`` made by a file (this one
        included) that calls init() and sets DATA_PARALLEL: (that file, its summary, the
        call, the line of its parallel context)."""
        if "." in name:
            return
        for site, summary, call, _cls, _func in self.call_sites(path, name):
            modes = [line for expr, line in summary.parallel_modes if says_data_parallel(expr)]
            if summary.init_lines and modes:
                yield site, summary, call, modes[0]

    def trained_by(self, path: str, name: str, depth: int = 0) -> Optional[Evidence]:
        """A file of the project that trains and uses the top-level class or function ``name``
        of ``path``: it calls or builds it, or defines a class extending it (a trainer base
        class whose subclass holds the training step; followed through up to three
        subclasses). None when no such file is found."""
        if depth > 3 or "." in name:
            return None
        for site, summary, call, _cls, _func in self.call_sites(path, name):
            if site != path and self.trains(summary, methods=True) and not test_module(site, summary):
                return Evidence(self.display(site), call.line, f"{call.callee}(...) in a file that trains")
        word = name.encode()
        pattern = re.compile(rb"^\s*class\s+\w+\s*\([^)]*\b" + re.escape(word) + rb"\b", re.M)
        for other in sorted(self.files):
            data = self._bytes(other)
            if other == path or not data or word not in data or not pattern.search(data):
                continue
            summary = self.summary(other)
            for cls in summary.classes.values() if summary is not None else ():
                if "." in cls.name or not any(self._names(other, base, path, name) for base in cls.bases):
                    continue
                if test_module(other, summary):
                    continue  # a training run in a test keeps no model
                if self.trains(summary, methods=True):
                    return Evidence(self.display(other), cls.line, f"{cls.name} extends {name} and trains")
                found = self.trained_by(other, cls.name, depth + 1)
                if found is not None:
                    return found
        return None

    def _names(self, importer: str, written: str, path: str, name: str) -> bool:
        """Whether ``written`` (a base as written in ``importer``) is the class ``name`` of ``path``."""
        found = self.lookup(importer, written)
        return found is not None and found[0] == "class" and found[1] == path and found[2].name == name

    def seeds_mindspore(self, summary: FileSummary, calls, depth: int = 0) -> Optional[bool]:
        """Whether ``calls`` (of ``summary``'s file) seed MindSpore: ``mindspore.set_seed``, or a
        function of the project that does (followed two levels); False when none does and every
        call whose name says seed is resolved; None when one cannot be told."""
        unknown = False
        for call in calls:
            qualified = self.qualified(summary, call.callee)
            if qualified in ("mindspore.set_seed", "mindspore.common.seed.set_seed"):
                return True
            if "seed" not in call.callee.rsplit(".", 1)[-1].lower() or qualified in ("random.seed",
                                                                                       "numpy.random.seed"):
                continue
            found = self.lookup(summary.path, call.callee) if depth < 2 else None
            if found is None or found[0] != "function":
                unknown = True
                continue
            inner = self.summary(found[1])
            answer = self.seeds_mindspore(inner, found[2].calls, depth + 1) if inner is not None else None
            if answer:
                return True
            unknown = unknown or answer is None
        return None if unknown else False

    def switch_values(self, path: str, target: str, param: str, position: int) -> Optional[List[Value]]:
        """Every value the project passes for the parameter ``param`` (at ``position``, -1 for
        keyword-only) of the top-level class or function ``target`` of ``path``, with where
        each was read; ``Value(UNSET)`` where a call leaves it at its default. Calls through a
        ``functools.partial`` alias and keywords forwarded through a caller's ``**kwargs``
        are followed. None when any call passes a value that cannot be resolved or unpacks
        ``*args`` or a dict that is not a caller's own ``**kwargs``, when nothing calls it, or
        when the name is used otherwise than by those calls, its definition, its imports and
        its partial aliases (passed as a value, a registry): callers then cannot all be seen.
        Only the calls the repository runs count (msacclint.project.reach): a call in code
        nothing reaches switches nothing on; when no call that runs is left, None."""
        path = os.path.normpath(os.path.abspath(path))
        outer, self._running_only = self._running_only, True
        try:
            return self._switch_values(path, target, param, position)
        finally:
            self._running_only = outer

    def _switch_values(self, path: str, target: str, param: str, position: int) -> Optional[List[Value]]:
        sites = self._calls_of(path, target)
        if sites is None:
            return None
        sites = self.running(sites)
        if not sites:
            return None
        out: List[Value] = []
        for other, call, cls, func, preset in sites:
            if "*" in call.kwargs:
                return None
            expr, where, where_cls, where_func = _bound(call, preset, param, position), other, cls, func
            if expr is _PRESET:
                assert preset is not None
                # the partial's own arguments: its first is the target itself
                expr = _bound(preset, None, param, position + 1 if position >= 0 else -1)
                where, where_cls, where_func = path, None, None
            if expr is None:
                forwarded = self.forwarded_values(other, call, param, cls, func) if "**" in call.kwargs \
                    else [Value(UNSET)]
                if forwarded is None:
                    return None
                out.extend(forwarded)
                continue
            values = self.values(where, expr, cls=where_cls if where_cls is not None and where_func is not None
                                 and where_func.name.endswith("__init__") else None, func=where_func)
            if values is None and expr[0] == "name" and "." in expr[1]:
                values = self.nearby_config_values(where, expr[1].rsplit(".", 1)[1])
            if values is None:
                return None
            out.extend(values)
        return out

    def _calls_of(self, path: str, target: str) -> Optional[List[Tuple[str, Any, Optional[ClassSummary],
                                                                        Optional[FunctionSummary], Any]]]:
        """Every call of the top-level ``target`` of ``path``: (file, call, enclosing class,
        enclosing function, the ``functools.partial`` call it goes through or None), direct
        calls and calls of a module-level alias ``alias = partial(target, ...)`` of the same
        file. None when nothing calls it, or when ``target`` or an alias is used otherwise
        than by these calls, its definition, imports and exports (whole-word mentions in the
        project's files are counted: a use that is not a call means callers cannot all be seen)."""
        aliases = self._partial_aliases(path, target)
        if aliases is None:
            return None
        sites = [(other, call, cls, func, None) for other, _s, call, cls, func in self.call_sites(path, target)]
        direct = len(sites)
        # (mentions in files that cannot mean this definition, a model zoo's other copies, do not count)
        also = {site[0] for site in sites}
        for alias, partial in aliases:
            through = [(other, call, cls, func, partial)
                       for other, _s, call, cls, func in self.call_sites(path, alias)]
            seen = {site[0] for site in through}
            if self._mentions(alias, path, seen) != len(through) + 1 + self._import_mentions(alias, path, seen):
                return None
            if not through:  # an alias nothing calls yet: its own arguments still count
                through = [(path, Call(callee=alias, line=partial.line), None, None, partial)]
            sites.extend(through)
        if not sites or self._mentions(target, path, also) != \
                direct + 1 + len(aliases) + self._import_mentions(target, path, also):
            return None
        return sites

    def _partial_aliases(self, path: str, target: str) -> Optional[List[Tuple[str, Any]]]:
        """``alias = functools.partial(target, ...)`` at module level in ``path``: (alias,
        the partial call). None when ``target`` is handed to ``partial`` any other way."""
        summary = self.summary(path)
        if summary is None:
            return None
        out = []
        for call in summary.calls:
            if not call.args or tuple(call.args[0]) != ("name", target) or \
                    self.qualified(summary, call.callee) != "functools.partial":
                continue
            alias = next((name for name, entries in summary.constants.items()
                          if len(entries) == 1 and entries[0][1] == call.line
                          and tuple(entries[0][0]) == ("call", call.callee)), None)
            if call.scope or alias is None:
                return None
            out.append((alias, call))
        return out


#: what ``_bound`` returns when the argument is the one a ``functools.partial`` fixed
_PRESET: Any = ("preset",)


def _bound(call, preset, param: str, position: int):
    """What ``call`` passes for ``param`` (at ``position``, -1 for keyword-only): its keyword,
    or its positional argument after those ``preset`` (a ``partial(f, ...)`` call the call
    goes through) fixed; ``_PRESET`` when only ``preset`` passes it; None when neither does."""
    if param in call.kwargs:
        return call.kwargs[param]
    fixed = len(preset.args) - 1 if preset is not None else 0
    if position >= fixed and 0 <= position - fixed < len(call.args):
        return call.args[position - fixed]
    if preset is not None and (param in preset.kwargs or 0 <= position < fixed):
        return _PRESET
    return None


def test_module(path: str, summary: FileSummary) -> bool:
    """A module pytest collects as tests (``test_*.py`` or ``*_test.py`` defining ``test*``
    functions or ``Test*`` classes): a training run there keeps no model."""
    name = os.path.basename(path)
    if not (name.startswith("test_") or name.endswith("_test.py")):
        return False
    return any(f.split(".")[-1].startswith("test") for f in summary.functions) or \
        any(c.startswith("Test") for c in summary.classes)


def all_calls(summary: FileSummary):
    for call in summary.calls:
        yield None, None, call
    for cls in summary.classes.values():
        for call in cls.calls:
            func = summary.functions.get(call.scope)
            yield (cls if call.scope.endswith("__init__") else None), func, call
    for func in summary.functions.values():
        for call in func.calls:
            yield None, func, call

