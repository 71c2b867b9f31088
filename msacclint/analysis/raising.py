"""Code that raises on every supported MindSpore release, where it is written.

``raising_calls(ctx)`` lists, once per file (a memoised question):

- a MindSpore name that does not exist (``nn.Module``, ``ms.ms_function``): an attribute of a
  resolved ``mindspore`` module the release lacks, in any expression that runs - calls,
  base classes, decorators, default values (annotations are not read: they need not run);
- an import of a MindSpore module or name that does not exist
  (``import mindspore.dataset.vision.c_transforms``, ``from mindspore.nn import Module``);
- a keyword a MindSpore callable does not accept (``nn.Conv1d(..., bias=False)``) and one
  positional argument too many (``nn.LeakyReLU(0.2, True)``): only where the probe saw the
  release raise TypeError for an unknown keyword / an extra positional of that very callable;
- an argument combination the constructor rejects (rules/api_surface/rejected.toml:
  ``nn.Conv2d(..., padding=3)`` with the default ``pad_mode='same'``), on the releases where
  the probe saw it raise;
- an import of a module of the project itself that is not there: the top-level package is a
  folder of the project (``ctx.project``) and the submodule's file is missing (never a
  third-party package).

A MindSpore finding is made for the releases considered (msacclint.analysis.api_surface.
considered: the configured ``mindspore-version`` alone, else every supported release) and
only when every one of them raises. Nothing is reported where the code guards against it:
inside a ``try`` whose handlers catch the exception (or one not known to be narrower), under
``if``/``while`` tests that read a version or ``TYPE_CHECKING``, for a name the file asks
``hasattr``/``getattr``/``setattr`` about, for a name the file or the project assigns to a
MindSpore module (``nn.Module = nn.Cell``), or through a name bound locally or bound twice.

Each ``Raising`` says where it runs: ``"module"`` when the statement runs on import (a
top-level statement, a class body, a base class, decorator or default value of a top-level
definition), else the ``__qualname__`` of the innermost function whose body runs it
(``"Net.__init__"``, ``"build"``, ``"build.<locals>.inner"``); and whether it is
unconditional there (not under ``if``/``try``/``while``/``for``/``match``, a conditional
expression, the right side of ``and``/``or`` or a comprehension, and not after a statement
that may return, raise or exit).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Dict, List, NamedTuple, Optional, Sequence, Set, Tuple, Union

import libcst as cst

from msacclint.analysis import api_surface as api
from msacclint.analysis.context import FileContext, Question
from msacclint.analysis.guarded_walk import GuardedWalk, State, blocks, catches, compound_targets
from msacclint.analysis.imports import dotted, imported_modules, imported_names
from msacclint.analysis.project_imports import ProjectModules
from msacclint.analysis.rejected_args import combinations, holds, literal
from msacclint.analysis.source import code_of as _code
from msacclint.analysis.walk import descendants

#: what raised (the ``kind`` of a Raising)
NAME, IMPORT, KEYWORD, POSITIONAL, COMBINATION, PROJECT_IMPORT = (
    "name", "import", "keyword", "positional", "combination", "project-import")


@dataclass(frozen=True)
class Raising:
    """One piece of code that raises, where it is written."""

    #: the node the finding points at: the name that does not exist, the import alias (or the
    #: module of ``from module import``), the keyword's name, the callee (too many positional
    #: arguments; a rejected combination passed by position), the keyword of the first
    #: argument of a rejected combination
    node: cst.CSTNode
    #: NAME, IMPORT, KEYWORD, POSITIONAL, COMBINATION or PROJECT_IMPORT
    kind: str
    #: what raises, as a message says it ("nn.Module does not exist in MindSpore")
    what: str
    #: the exception Python raises there
    exception: str
    #: the releases it raises on, of those considered; None: on any (a missing project module)
    versions: Optional[Tuple[str, ...]]
    #: the release text of a message ("every supported release (2.7–2.10)", "MindSpore 2.10.0
    #: (present in 2.7)")
    releases: str
    #: what to write instead (``nn.Cell``, ``has_bias=``), or None
    spelling: Optional[str]
    #: "module", or the __qualname__ of the innermost function whose body runs it
    where: str
    #: runs whenever that body runs (no branch, loop, try or early return before it)
    unconditional: bool

    @property
    def message(self) -> str:
        text = f"{self.what}: {self.exception}"
        if self.versions is not None:
            text += f" on {self.releases}"
        if self.spelling:
            text += f"; {self.spelling}"
        return text


#: ``hasattr(nn, "Linear")``, ``getattr(ms, name, None)``: (function, subject, name as written)
_ASKS = re.compile(r"\b(hasattr|getattr|setattr|delattr)\s*\(\s*([A-Za-z_][\w.]*)\s*,\s*([^,)]+)")
#: ``nn.Module = nn.Cell`` at the start of a line: the dotted target
_ASSIGNED = re.compile(r"(?m)^[ \t]*([A-Za-z_][\w.]*\.[A-Za-z_]\w*)[ \t]*=[^=]")


class _Module:
    """What the whole file says once: how each module-level name is bound, which names it
    guards with hasattr/getattr/setattr, which MindSpore attributes it assigns."""

    def __init__(self, ctx: FileContext) -> None:
        self.bindings: Dict[str, Set[str]] = {}
        self._top(ctx.module.body)
        self.guarded: Set[str] = set()
        # read from the text: a walk of the whole tree for these costs more than the rest
        for _, subject, name in _ASKS.findall(ctx.source):
            name = name.strip()
            if name[:1] in "'\"" and name[-1:] == name[:1]:
                self.guarded.add(name[1:-1])
            elif (ctx.imports.bindings.get(subject.split(".")[0]) or "").startswith("mindspore"):
                self.guarded.add("*")  # getattr(nn, name): any MindSpore name of the file may be meant
        self.assigned: Set[str] = set(_ASSIGNED.findall(ctx.source))

    def _top(self, body: Sequence[cst.CSTNode]) -> None:
        for stmt in body:
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    self._small(small)
            elif isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
                self._bind(stmt.name.value, "")
            elif isinstance(stmt, (cst.If, cst.Try, cst.TryStar, cst.With, cst.For, cst.While)):
                for name in compound_targets(stmt):
                    self._bind(name, "")
                for block in blocks(stmt):
                    self._top(block)

    def _small(self, small: cst.BaseSmallStatement) -> None:
        if isinstance(small, cst.Import):
            for bound, full in imported_modules(small):
                self._bind(bound, full)
        elif isinstance(small, cst.ImportFrom):
            if isinstance(small.names, cst.ImportStar):
                return
            module = dotted(small.module) if small.module is not None and not small.relative else None
            for bound, name in imported_names(small):
                self._bind(bound, f"{module}.{name}" if module else "")
        elif isinstance(small, (cst.Assign, cst.AnnAssign, cst.AugAssign)):
            targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else [small.target]
            for target in targets:
                if isinstance(target, (cst.Name, cst.Tuple, cst.List, cst.StarredElement)):
                    for node in descendants(target):
                        if isinstance(node, cst.Name):
                            self._bind(node.value, "=")

    def _bind(self, name: str, target: str) -> None:
        self.bindings.setdefault(name, set()).add(target)

    def import_target(self, head: str) -> Optional[str]:
        """What an imported module-level name stands for, when one import binds it and
        nothing else does (an alias ``nn = ms.nn`` counts as the import it copies)."""
        targets = self.bindings.get(head)
        if not targets or len(targets) != 1:
            return None
        (target,) = targets
        return target or None


# -- the walk -------------------------------------------------------------------------------
class _Finder(GuardedWalk):
    def __init__(self, ctx: FileContext, releases: Optional[Tuple[str, ...]] = None) -> None:
        super().__init__(ctx)
        self.surface = api.surface()
        if releases is not None:
            self.releases: Tuple[str, ...] = releases
        else:
            self.releases = api.considered(self.surface, ctx.mindspore_version) if self.surface is not None else ()
        self.file = _Module(ctx)
        self.found: List[Raising] = []
        self._combinations: Dict[str, List[Dict[str, Any]]] = {}
        for combination in combinations():
            for name in combination.get("apis", ()):
                self._combinations.setdefault(name, []).append(combination)
        self.modules = ProjectModules(ctx)

    def run(self) -> List[Raising]:
        self.walk()
        if self._versioned:
            self.found = [f for f in self.found if not self.version_only(f.where)]
        return self.found

    # -- reporting -----------------------------------------------------------------------
    def _add(self, node: cst.CSTNode, st: State, kind: str, what: str, exception: str,
             versions: Optional[Tuple[str, ...]], spelling: Optional[str], releases: str = "") -> None:
        if catches(st.caught, exception):
            return
        self.found.append(Raising(node, kind, what, exception, versions, releases, spelling, st.where,
                                  not st.conditional))

    def _releases(self, failing: Sequence[str], present: Sequence[str] = ()) -> str:
        assert self.surface is not None
        if len(self.releases) == 1:
            text = f"MindSpore {self.releases[0]}"
            others = [v for v in self.surface.versions if v not in failing and v in present]
            return text + (f" (present in {api.describe_releases(self.surface, others)})" if others else "")
        return api.releases_text(self.surface, failing, self.releases)

    # -- names ---------------------------------------------------------------------------
    def _raw(self, node: cst.BaseExpression, name: str, st: State) -> Optional[Tuple[str, int]]:
        """The MindSpore name a chain stands for, as written (not folded to the public
        spelling), and how many of its parts the import binds; None when it is not
        MindSpore's or cannot be trusted (a local name, a name bound twice, a replaced name)."""
        head, _, rest = name.partition(".")
        target = self.file.import_target(head)
        if target is None:
            return None
        if target == "=":
            # a module-level alias: the import table resolved it (``nn = ms.nn``)
            bound = self.ctx.imports.bindings.get(head)
            if bound is None or bound.startswith(self.ctx.imports.LOCAL):
                return None
            target = bound
        if not (target == "mindspore" or target.startswith("mindspore.")):
            return None
        if self._local(head, st):
            return None
        if self.ctx.imports.resolve(node) is None:
            return None  # the project replaces this name (msacclint.project: patched)
        full = f"{target}.{rest}" if rest else target
        return full, target.count(".") + 1

    def _chain(self, node: cst.BaseExpression, name: str, st: State) -> None:
        if self.surface is None or not self.releases or "." not in name:
            return
        raw = self._raw(node, name, st)
        if raw is None:
            return
        full, bound_depth = raw
        found = api.presence(self.surface, full, self.releases)
        if not found.nowhere or found.missing is None:
            return
        missing = found.missing
        if missing.count(".") + 1 <= bound_depth:
            return  # the import itself is missing: reported at the import
        short = missing.rsplit(".", 1)[1]
        if short in self.file.guarded or "*" in self.file.guarded or self._assigned(missing):
            return
        written = _written(name, full, missing)
        everywhere = api.presence(self.surface, full, self.surface.versions)
        spelling = api.suggest_name(self.surface, missing, self.releases)
        self._add(node, st, NAME, f"{written} does not exist in MindSpore", "AttributeError", tuple(found.absent),
                  self._spell(written, missing, spelling), self._releases(found.absent, everywhere.present))

    def _assigned(self, missing: str) -> bool:
        """The file assigns this MindSpore name itself (``nn.Module = nn.Cell``)."""
        for target in self.file.assigned:
            head, _, rest = target.partition(".")
            bound = self.file.import_target(head)
            if bound == "=":
                bound = self.ctx.imports.bindings.get(head)
            if bound and f"{bound}.{rest}" == missing:
                return True
        return False

    def _spell(self, written: str, full: str, spelling: Optional[str]) -> Optional[str]:
        if spelling is None:
            return None
        return f"MindSpore's name is {_as_written(written, full, spelling)}"

    # -- imports ---------------------------------------------------------------------------
    def _import(self, node: Union[cst.Import, cst.ImportFrom], st: State) -> None:
        if isinstance(node, cst.Import):
            for alias in node.names:
                module = dotted(alias.name)
                if module is None:
                    continue
                if module == "mindspore" or module.startswith("mindspore."):
                    self._mindspore_module(alias, f"import {module}", module, st)
                else:
                    self._project_module(alias, module, st, f"import {module}")
            return
        if node.relative:
            self._relative(node, st)
            return
        module = dotted(node.module) if node.module is not None else None
        if module is None:
            return
        if module == "mindspore" or module.startswith("mindspore."):
            if not self._mindspore_module(node.module or node, f"from {module} import ...", module, st):
                return
            if isinstance(node.names, cst.ImportStar):
                return
            for alias in node.names:
                name = dotted(alias.name)
                if name is not None:
                    self._mindspore_name(alias, module, name, st)
        else:
            self._project_module(node.module or node, module, st, f"from {module} import ...")

    def _mindspore_module(self, node: cst.CSTNode, statement: str, module: str, st: State) -> bool:
        """Report a MindSpore module the releases lack; True when it exists (or is unknown)."""
        if self.surface is None or not self.releases:
            return True
        states = [self.surface.module_exists(module, v) for v in self.releases]
        if not states or any(s is not False for s in states):
            return True
        first_missing = module
        parts = module.split(".")
        for cut in range(2, len(parts) + 1):
            prefix = ".".join(parts[:cut])
            if all(self.surface.module_exists(prefix, v) is False for v in self.releases):
                first_missing = prefix
                break
        if first_missing.rsplit(".", 1)[-1] in self.file.guarded:
            return False
        present = [v for v in self.surface.versions if self.surface.module_exists(module, v)]
        spelling = api.suggest_module(self.surface, first_missing, self.releases)
        self._add(node, st, IMPORT, f"`{statement}`: MindSpore has no module {first_missing}", "ModuleNotFoundError",
                  self.releases, f"use {spelling}" if spelling else None, self._releases(self.releases, present))
        return False

    def _mindspore_name(self, alias: cst.ImportAlias, module: str, name: str, st: State) -> None:
        assert self.surface is not None
        full = f"{module}.{name}"
        found = api.presence(self.surface, full, self.releases)
        if not found.nowhere or found.missing != f"{module}.{name.split('.')[0]}":
            return
        if name in self.file.guarded:
            return
        everywhere = api.presence(self.surface, full, self.surface.versions)
        spelling = api.suggest_name(self.surface, full, self.releases)
        self._add(alias, st, IMPORT, f"`from {module} import {name}`: {module} has no {name}", "ImportError",
                  tuple(found.absent),
                  f"MindSpore's name is {_relative_to(module, spelling)}" if spelling else None,
                  self._releases(found.absent, everywhere.present))

    def _project_module(self, node: cst.CSTNode, module: str, st: State, statement: str) -> None:
        message = self.modules.missing(module, statement)
        if message is not None:
            self._add(node, st, PROJECT_IMPORT, message, "ModuleNotFoundError", None, None)

    def _relative(self, node: cst.ImportFrom, st: State) -> None:
        message = self.modules.missing_relative(node)
        if message is not None:
            self._add(node.module or node, st, PROJECT_IMPORT, message, "ModuleNotFoundError", None, None)

    # -- calls -----------------------------------------------------------------------------
    def _call(self, node: cst.Call, st: State, stack: List[Tuple[cst.CSTNode, State]]) -> None:
        super()._call(node, st, stack)
        if self.surface is None or not self.releases:
            return
        name = dotted(node.func)
        if name is None:
            return
        raw = self._raw(node.func, name, st)
        if raw is None:
            return
        full = raw[0]
        entries: List[api.Entry] = []
        for version in self.releases:
            found = self.surface.find(full, version)
            if found.state != api.PRESENT or found.entry is None or not found.entry.callable:
                return
            entries.append(found.entry)
        if self._binding(node, st, name, full, entries):
            return
        self._combination(node, st, name, full, entries)

    def _binding(self, node: cst.Call, st: State, written: str, full: str, entries: List[api.Entry]) -> bool:
        """Report keywords no release accepts and positional arguments beyond the last
        parameter; True when the call raises while binding its arguments."""
        assert self.surface is not None
        raised = False
        short = written
        for arg in node.args:
            if arg.keyword is None or arg.star:
                continue
            keyword = arg.keyword.value
            if not all(e.rejects_unknown_keywords and e.signature is not None and
                       not e.signature.accepts_keyword(keyword) for e in entries):
                continue
            if keyword in self.file.guarded:
                continue
            signature = entries[-1].signature
            assert signature is not None
            suggestion = api.suggest_keyword(keyword, signature, full)
            note = api.keyword_note(keyword, full)
            spelling = f"MindSpore spells it {suggestion}=" if suggestion else note
            accepting = [v for v in self.surface.versions if self._accepts(full, v, keyword)]
            self._add(arg.keyword, st, KEYWORD, f"{short} has no parameter {keyword}=", "TypeError", self.releases,
                      spelling, self._releases(self.releases, accepting))
            raised = True
        if any(arg.star for arg in node.args):
            return raised
        positional = [arg for arg in node.args if arg.keyword is None]
        most = [e.signature.max_positional for e in entries
                if e.rejects_extra_positionals and e.signature is not None]
        if len(most) == len(entries) and all(m is not None and len(positional) > m for m in most):
            limit = max(m for m in most if m is not None)
            signature = entries[-1].signature
            assert signature is not None
            names = ", ".join(signature.positional_names())
            takes = f"{_count(limit)} positional argument{'s' if limit != 1 else ''}" + (f" ({names})" if names else "")
            if limit == 0 and entries[-1].kind == "c" and full.startswith("mindspore.ops."):
                advice = (f"an operator class is built first and then called with its inputs: "
                          f"{short}()(...), or use the function of the same name in lower case")
            else:
                advice = "pass the others by keyword, or drop what MindSpore has no parameter for"
            self._add(node.func, st, POSITIONAL, f"{short} takes {takes}, {len(positional)} given", "TypeError",
                      self.releases, advice, self._releases(self.releases))
            raised = True
        return raised

    def _accepts(self, full: str, version: str, keyword: str) -> bool:
        assert self.surface is not None
        found = self.surface.find(full, version)
        return found.entry is not None and found.entry.signature is not None and \
            found.entry.signature.accepts_keyword(keyword)

    def _combination(self, node: cst.Call, st: State, written: str, full: str, entries: List[api.Entry]) -> None:
        assert self.surface is not None
        canonical = self.ctx.resolve(node.func)
        wanted = self._combinations.get(full) or (self._combinations.get(canonical) if canonical else None)
        if not wanted:
            return
        api_name = full if full in self._combinations else canonical
        assert api_name is not None
        signatures = [e.signature for e in entries]
        if any(s is None for s in signatures):
            return
        positional = [arg for arg in node.args if arg.keyword is None and not arg.star]
        if any(arg.star for arg in node.args):
            return
        names_by_release = {s.positional_names()[: len(positional)] for s in signatures if s is not None}
        if len(names_by_release) != 1:
            return  # the releases fill different parameters from these positions
        (names,) = names_by_release
        given: Dict[str, cst.Arg] = {names[i]: arg for i, arg in enumerate(positional) if i < len(names)}
        given.update({arg.keyword.value: arg for arg in node.args if arg.keyword is not None})
        for combination in wanted:
            verified = set(self.surface.rejected_on(combination["id"], api_name))
            if not set(self.releases) <= verified:
                continue
            shown: Dict[str, str] = {}
            at: Optional[cst.CSTNode] = None
            for condition in combination.get("when", ()):
                parameter = condition["parameter"]
                arg = given.get(parameter)
                if arg is None:
                    if "default" not in condition:
                        break
                    value: Any = condition["default"]
                    shown[parameter] = repr(value)
                else:
                    value = literal(arg.value)
                    shown[parameter] = _code(arg.value)
                    at = at or arg.keyword
                if not holds(condition, value):
                    break
            else:
                message = combination.get("message", "")
                for parameter, text in shown.items():
                    message = message.replace("{" + parameter + "}", text)
                what, _, advice = message.partition(": ")
                self._add(at or node.func, st, COMBINATION, f"{written} rejects {what}",
                          combination.get("raises", "ValueError"), self.releases, advice or None,
                          self._releases(self.releases))
                return


def _count(n: int) -> str:
    return {0: "no", 1: "one", 2: "two", 3: "three"}.get(n, str(n))


def _written(name: str, full: str, missing: str) -> str:
    """The missing part as the file writes it: ``nn.Module`` for mindspore.nn.Module written
    through ``nn``."""
    extra = full.count(".") - missing.count(".")
    parts = name.split(".")
    return ".".join(parts[: len(parts) - extra]) if extra > 0 else name


def _as_written(written: str, full: str, spelling: str) -> str:
    """A suggested qualified name in the file's own spelling when it is in the same module
    (``nn.Cell``), else in full (``mindspore.mint.nn.functional``)."""
    prefix_full = full.rsplit(".", 1)[0]
    prefix_written = written.rsplit(".", 1)[0] if "." in written else ""
    module, _, name = spelling.rpartition(".")
    if prefix_written and full.count(".") >= 1:
        missing_module = prefix_full
        # the name is looked up where the file wrote it: replace its last part
        if module == missing_module:
            return f"{prefix_written}.{name}"
    return spelling


def _relative_to(module: str, spelling: str) -> str:
    parent, _, name = spelling.rpartition(".")
    return name if parent == module else spelling


class _Answer(NamedTuple):
    found: List[Raising]
    #: an answer read which files the project holds (a module created later changes it)
    listing: bool


def _answer(ctx: FileContext) -> _Answer:
    finder = _Finder(ctx)
    found = finder.run()
    return _Answer(found, finder.modules.listing_used)


RAISING: Question[_Answer] = Question("raising", _answer)


def upgrade_target(ctx: FileContext) -> Tuple[str, ...]:
    """The release the upgrade group moves the project to: the ``upgrade-to`` setting, else the
    newest the API surface knows (as a one-release tuple; () without a surface)."""
    surface = api.surface()
    if surface is None:
        return ()
    wanted = getattr(ctx.settings, "upgrade_to", None)
    target = surface.release_for(wanted) if wanted else surface.versions[-1]
    return (target,) if target else ()


def _upgrade_answer(ctx: FileContext) -> _Answer:
    """What raises today (on the project's release, or every release when it names none) and
    what raises once it moves to the upgrade target, each kept once."""
    today = ctx.ask(RAISING)
    target = upgrade_target(ctx)
    if not target or api.considered(api.surface(), ctx.mindspore_version) == target:  # type: ignore[arg-type]
        return today
    finder = _Finder(ctx, target)
    moved = finder.run()
    seen = {(id(r.node), r.kind) for r in today.found}
    found = list(today.found) + [r for r in moved if (id(r.node), r.kind) not in seen]
    return _Answer(found, today.listing or finder.modules.listing_used)


UPGRADE_RAISING: Question[_Answer] = Question("upgrade-raising", _upgrade_answer)


def upgrade_failures(ctx: FileContext) -> List[Raising]:
    """What raises today or on the upgrade target (``upgrade_target``): today's first."""
    return ctx.ask(UPGRADE_RAISING).found


def upgrade_depends_on_listing(ctx: FileContext) -> bool:
    return ctx.ask(UPGRADE_RAISING).listing


def raising_calls(ctx: FileContext) -> List[Raising]:
    """Every piece of code in the file that raises on the releases considered, in the order
    it is written (a memoised per-file question)."""
    return ctx.ask(RAISING).found


def depends_on_listing(ctx: FileContext) -> bool:
    """Whether ``raising_calls`` looked for modules of the project on disk: the answer then
    changes when a file appears or goes (a cache must record the project's listing)."""
    return ctx.ask(RAISING).listing
