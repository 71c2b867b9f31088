"""The project index: file summaries linked by imports, answering the rules' questions.

Built cheaply (one walk of the folder tree listing ``.py`` and config files); a file's
summary is computed on the first question that needs it, from the disk cache when the
file's content is unchanged. Every file whose summary or config an answer used is
recorded (``begin``/``dependencies``), so the cached diagnostics of a file are dropped
when one of those files changes.
"""

from __future__ import annotations

import hashlib
import io
import os
import re
import tokenize
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Dict, Iterator, List, Optional, Sequence, Set, Tuple

import libcst as cst

from msacclint.analysis.context import FileContext, Question
from msacclint.analysis.imports import dotted, imported_names
from msacclint.analysis.source import MAX_SOURCE_BYTES, decode, parse
from msacclint.project import configs as configs_mod
from msacclint.project.listing import LISTING, MAX_FILES, find_project_root, listing, paths_digest
from msacclint.project.summary import (
    DEFERRED,
    FORMAT,
    Call,
    ClassSummary,
    Expr,
    FileSummary,
    FunctionSummary,
    SummaryCollector,
    from_json,
    resolve_relative,
    summarize,
    to_json,
)

#: parsed modules kept for files that were summarised before their own check in this run
#: (the check then reuses the parse): at most this much source text at a time (a parsed
#: module takes some 35 bytes of memory per byte of source)
KEEP_PARSED_BYTES = 2_000_000
#: summaries collected in the engine's traversal wait for their lines with the file's text:
#: at most this much text at a time (a long flake8 or editor session checks many files)
KEEP_DRAFT_BYTES = 16_000_000
#: modules that never build a Cell (calls into them leave a class's mode-dependence known)
NEUTRAL_MODULES = frozenset({"numpy", "math", "os", "sys", "logging", "copy", "functools", "collections",
                             "typing", "itertools", "re", "json", "random", "warnings", "builtins", "time",
                             "operator", "abc", "dataclasses", "inspect", "pathlib", "enum", "scipy"})
BUILTINS = frozenset(dir(__import__("builtins")))
_WORD = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")
#: calls that make a file a training script (``ProjectIndex.trains``)
TRAINING_CALLS = frozenset({"mindspore.value_and_grad", "mindspore.grad", "mindspore.ops.value_and_grad",
                            "mindspore.ops.GradOperation", "mindspore.nn.TrainOneStepCell",
                            "mindspore.nn.TrainOneStepWithLossScaleCell"})


def says_data_parallel(expr: Expr) -> bool:
    """A parallel_mode value a summary recorded: ParallelMode.DATA_PARALLEL or 'data_parallel'
    (a name assigned in the same scope was recorded as each value assigned to it)."""
    if expr[0] == "lit":
        return isinstance(expr[1], str) and expr[1].lower() == "data_parallel"
    return expr[0] == "name" and expr[1].rsplit(".", 1)[-1] == "DATA_PARALLEL"
DROPOUTS = ("mindspore.nn.Dropout", "mindspore.nn.Dropout1d", "mindspore.nn.Dropout2d", "mindspore.nn.Dropout3d",
            "mindspore.mint.nn.Dropout")
BATCH_NORMS = ("mindspore.nn.BatchNorm1d", "mindspore.nn.BatchNorm2d", "mindspore.nn.BatchNorm3d",
               "mindspore.nn.SyncBatchNorm", "mindspore.mint.nn.BatchNorm1d", "mindspore.mint.nn.BatchNorm2d",
               "mindspore.mint.nn.BatchNorm3d", "mindspore.nn.Conv2dBnAct", "mindspore.nn.DenseBnAct")


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


class _Unset:
    """A parameter a call leaves at its default (``ProjectIndex.switch_values``)."""

    def __repr__(self) -> str:
        return "UNSET"


UNSET = _Unset()


@dataclass(frozen=True)
class Evidence:
    """Where a fact was seen: a file, a line and what is there."""

    path: str
    line: int
    what: str

    def where(self) -> str:
        return f"{self.path}:{self.line}"


@dataclass(frozen=True)
class Value:
    """One possible value of an expression, and where it was written."""

    value: Any
    evidence: Optional[Evidence] = None


class ProjectIndex:
    def __init__(self, root: str, py_files: Sequence[str], config_files: Sequence[str] = (), cache=None,
                 truncated: bool = False) -> None:
        self.root = os.path.abspath(root)
        self.files: Set[str] = {os.path.normpath(os.path.abspath(p)) for p in py_files}
        self.configs = configs_mod.ConfigStore([os.path.abspath(p) for p in config_files])
        self.cache = cache
        #: path -> (line, message): bad input the project layer met (a malformed config,
        #: circular imports, ...); reported once, with the file whose check met it
        self.problems: Dict[str, Tuple[int, str]] = {}
        self._reported: Set[str] = set()
        self.notes: Set[str] = set()
        if truncated:
            self.problems[self.root] = (1, f"the repository holds more than {MAX_FILES} Python files; the project "
                                           "layer indexes the first ones only")
        self._summaries: Dict[str, Optional[FileSummary]] = {}
        self._texts: Dict[str, Optional[bytes]] = {}
        self._used: Dict[str, str] = {}
        #: path -> content hash, for the files read so far (kept until ``forget``)
        self._digests: Dict[str, str] = {}
        self._module_cache: Dict[Tuple[str, str], Optional[str]] = {}
        #: path -> the words of its text (``referrers``), built on first use
        self._words: Optional[Dict[str, frozenset]] = None
        #: MindSpore names some module of the project replaces (``patched``), on first use
        self._patched: Optional[Dict[str, Evidence]] = None
        #: files this process will check later in the run (set by the engine's batch)
        self.pending: Set[str] = set()
        #: the caller checks every file in turn without a list (flake8): keep any parse
        self.keep_all_parses = False
        #: path -> (text, parsed module) of pending files parsed for their summary
        self._parsed: OrderedDict[str, Tuple[str, Any]] = OrderedDict()
        self._parsed_bytes = 0
        #: path -> (text, collector) of checked files whose summary the engine's traversal
        #: collected, lines not yet filled in (done on first use)
        self._drafts: OrderedDict[str, Tuple[str, SummaryCollector]] = OrderedDict()
        self._draft_bytes = 0

    # -- pickling: workers get the file list, not the summaries ----------------------
    def __getstate__(self):
        state = self.__dict__.copy()
        state.update(_summaries={}, _texts={}, _used={}, _digests={}, _module_cache={}, _reported=set(), pending=set(),
                     _parsed=OrderedDict(), _parsed_bytes=0, _drafts=OrderedDict(), _draft_bytes=0, _words=None,
                     _patched=None)
        state["configs"] = configs_mod.ConfigStore(self.configs.paths)
        return state

    # -- dependencies ---------------------------------------------------------------
    def begin(self) -> None:
        """Start recording which files the answers use (one checked file)."""
        self._used = {}

    def new_problems(self) -> List[Tuple[str, int, str, bool]]:
        """(path, line, message, is_note) of the problems met since the last call, once each."""
        out = []
        for path, (line, message) in sorted(self.problems.items()):
            if path not in self._reported:
                self._reported.add(path)
                out.append((path, line, message, path in self.notes))
        return out

    def _problem(self, path: str, message: str, line: int = 1, note: bool = False) -> None:
        """``note``: how the code is laid out (a shadowed module, circular imports), not
        input msacclint could not read: reported at info level."""
        self.problems.setdefault(path, (line, message))
        if note:
            self.notes.add(path)

    def dependencies(self) -> Dict[str, str]:
        """path -> content hash of every file an answer used since ``begin``."""
        return dict(self._used)

    def _depend(self, path: str) -> None:
        if path not in self._used:
            digest = self._digests.get(path)
            if digest is None:
                data = self._bytes(path)
                digest = self._digests[path] = hashlib.sha256(data).hexdigest() if data is not None else ""
            self._used[path] = digest

    def display(self, path: str) -> str:
        """A path as messages show it: as the run names files (relative to the current
        folder) when it is below it, else absolute."""
        try:
            rel = os.path.relpath(path)
        except ValueError:
            return path
        return path if rel.startswith("..") else rel.replace(os.sep, "/")

    # -- files and summaries --------------------------------------------------------
    def forget(self, path: str) -> None:
        """Read ``path`` again on next use (it was saved, created or deleted)."""
        path = os.path.normpath(os.path.abspath(path))
        self._texts.pop(path, None)
        self._digests.pop(path, None)
        self._summaries.pop(path, None)
        self._words = None
        self._patched = None
        self._drop_draft(path)
        self._drop_parsed(path)
        if path.endswith(".py"):
            known = path in self.files
            if os.path.exists(path):
                self.files.add(path)
            else:
                self.files.discard(path)
            if known != (path in self.files):
                self._module_cache.clear()
        else:
            self.configs._loaded.pop(path, None)

    def _bytes(self, path: str) -> Optional[bytes]:
        if path not in self._texts:
            try:
                with open(path, "rb") as handle:
                    self._texts[path] = handle.read()
            except OSError:
                self._texts[path] = None
        return self._texts[path]

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

    def module_name(self, path: str) -> Tuple[str, bool]:
        """The dotted name a file is imported as from its nearest non-package folder."""
        path = os.path.normpath(os.path.abspath(path))
        folder, name = os.path.split(path)
        is_package = name == "__init__.py"
        parts = [] if is_package else [name[:-3]]
        while os.path.normpath(os.path.join(folder, "__init__.py")) in self.files:
            folder, pkg = os.path.split(folder)
            parts.insert(0, pkg)
        return ".".join(parts), is_package

    def summary(self, path: str) -> Optional[FileSummary]:
        path = os.path.normpath(os.path.abspath(path))
        if path in self._summaries:
            self._depend(path)
            return self._summaries[path]
        data = self._bytes(path)
        self._depend(path)
        if data is None:
            self._summaries[path] = None
            return None
        module, is_package = self.module_name(path)
        key = hashlib.sha256(f"{FORMAT}\0{module}\0{is_package}\0".encode() + data).hexdigest()
        found = None
        stored = self.cache.load_object("summary", key) if self.cache is not None else None
        if stored is not None:
            try:
                found = from_json(stored)
            except (KeyError, TypeError, ValueError, AttributeError):
                found = None
        if found is None:
            draft = self._drop_draft(path)
            if draft is not None and draft[1].summary.module == module and draft[1].is_package == is_package \
                    and decode(data)[0] == draft[0]:
                found = draft[1].finalize(draft[0])
            else:
                found = self._build(path, data, module, is_package)
            if found is not None and self.cache is not None:
                self.cache.store_object("summary", key, to_json(found))
        if found is not None:
            found.path = path
        self._summaries[path] = found
        return found

    def _build(self, path: str, data: bytes, module: str, is_package: bool) -> Optional[FileSummary]:
        if len(data) > MAX_SOURCE_BYTES:
            self._problem(path, "file too large for the project layer; what it defines is unknown to other files")
            return None
        text, problem = decode(data)
        if problem is not None:
            self._problem(path, f"{problem}; what it defines is unknown to other files")
            return None
        parsed, problem_at = parse(text)
        if parsed is None:
            self._problem(path, f"{problem_at[0]}; what it defines is unknown to other files", problem_at[1])
            return None
        if path in self.pending or self.keep_all_parses:
            self._keep_parsed(path, text, parsed)
        try:
            return summarize(parsed, path, module, is_package, text)
        except RecursionError:
            self._problem(path, "file is nested too deeply for the project layer; what it defines is unknown")
            return None

    # -- the engine's side: one parse and one traversal per checked file ------------------
    def summary_collector(self, path: str, text: str) -> Optional[SummaryCollector]:
        """A collector gathering the summary of the checked file ``path`` (source ``text``)
        in the engine's traversal, or None when the summary is already known. Its lines are
        filled in only if another question needs the summary (``summary``)."""
        path = os.path.normpath(os.path.abspath(path))
        if path in self._summaries or path in self._drafts:
            return None
        module, is_package = self.module_name(path)
        collector = SummaryCollector(path, module, is_package, DEFERRED)

        def keep(done: SummaryCollector) -> None:
            if path not in self._summaries and len(text) <= KEEP_DRAFT_BYTES:
                self._drop_draft(path)
                self._drafts[path] = (text, done)
                self._draft_bytes += len(text)
                while self._draft_bytes > KEEP_DRAFT_BYTES:  # the oldest go: summarised again if asked
                    _, (old, _collector) = self._drafts.popitem(last=False)
                    self._draft_bytes -= len(old)

        collector.on_done = keep
        return collector

    def prime(self, path: str, data: bytes) -> None:
        """The bytes of ``path`` as the engine read them to check it (not read again)."""
        path = os.path.normpath(os.path.abspath(path))
        self._texts.setdefault(path, data)

    def take_parsed(self, path: str, text: str) -> Optional[Any]:
        """The module parsed for ``path``'s summary earlier in this run, if its text is
        ``text`` (the check reuses it instead of parsing again); forgotten once taken."""
        path = os.path.normpath(os.path.abspath(path))
        kept = self._drop_parsed(path)
        if kept is not None and kept[0] == text:
            return kept[1]
        return None

    def checked(self, path: str) -> None:
        """``path`` has been checked: no parse is kept for it any more."""
        path = os.path.normpath(os.path.abspath(path))
        self.pending.discard(path)
        self._drop_parsed(path)

    def _keep_parsed(self, path: str, text: str, parsed: Any) -> None:
        if len(text) > KEEP_PARSED_BYTES:
            return
        self._drop_parsed(path)
        self._parsed[path] = (text, parsed)
        self._parsed_bytes += len(text)
        while self._parsed_bytes > KEEP_PARSED_BYTES:
            _, (old, _module) = self._parsed.popitem(last=False)
            self._parsed_bytes -= len(old)

    def _drop_draft(self, path: str) -> Optional[Tuple[str, SummaryCollector]]:
        draft = self._drafts.pop(path, None)
        if draft is not None:
            self._draft_bytes -= len(draft[0])
        return draft

    def _drop_parsed(self, path: str) -> Optional[Tuple[str, Any]]:
        kept = self._parsed.pop(path, None)
        if kept is not None:
            self._parsed_bytes -= len(kept[0])
        return kept

    # -- modules --------------------------------------------------------------------
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

    # -- names ----------------------------------------------------------------------
    def lookup(self, path: str, name: str, _seen: Optional[Set[Tuple[str, str]]] = None):
        """What ``name`` (a dotted name as written in ``path``) stands for: (kind, file,
        item) with kind "class", "function", "constant", "config", "module"; None when
        it is not in the project (MindSpore, third party, unknown)."""
        seen = _seen if _seen is not None else set()
        key = (path, name)
        if key in seen or len(seen) > 50:
            if key in seen:
                self._problem(path, f"circular imports while resolving {name!r} (through "
                                    f"{', '.join(sorted({self.display(p) for p, _ in seen}))}); left unresolved",
                              note=True)
            return None
        seen.add(key)
        summary = self.summary(path)
        if summary is None:
            return None
        head, _, rest = name.partition(".")
        if head in summary.classes:
            return ("class", path, summary.classes[head]) if not rest else None
        if head in summary.functions:
            return ("function", path, summary.functions[head]) if not rest else None
        if head in summary.configs:
            return ("config", path, (head, rest)) if rest else ("config", path, (head, ""))
        if head in summary.constants and head not in summary.imports:
            return ("constant", path, head) if not rest else ("attr", path, (head, rest))
        if head in summary.imports:
            return self.lookup_qualified(summary.imports[head] + ("." + rest if rest else ""), path, seen)
        for star, module in summary.imports.items():
            if star.startswith("*"):
                found = self.lookup_qualified(f"{module}.{name}", path, seen)
                if found is not None:
                    return found
        return None

    def lookup_qualified(self, qualified: str, importer: str, seen=None):
        parts = qualified.split(".")
        for cut in range(len(parts), 0, -1):
            target = self.find_module(".".join(parts[:cut]), importer)
            if target is None:
                continue
            rest = ".".join(parts[cut:])
            if not rest:
                return ("module", target, None)
            return self.lookup(target, rest, seen if seen is not None else set())
        return None

    # -- questions from the file being checked (its own summary is never built) -----
    def resolve_from(self, ctx, name: str):
        """``lookup`` for a dotted name written in the checked file ``ctx``, through that
        file's imports (relative ones resolved), without summarising the file itself: the
        rules have its syntax tree already. Names defined in the file answer None."""
        head, _, rest = name.partition(".")
        bound = checked_file_bindings(self, ctx).get(head)
        if bound is None:
            return None
        return self.lookup_qualified(bound + ("." + rest if rest else ""), os.path.abspath(ctx.path), set())

    def random_draw_from(self, ctx, name: str) -> Optional[Tuple[str, Evidence]]:
        """For a class imported into the checked file that is a callable transform (it defines
        ``__call__``): where its methods draw a random number (``random.*`` or
        ``numpy.random.*``, seeding aside), as (class name, Evidence); None otherwise."""
        target = self.resolve_from(ctx, name)
        if target is None or target[0] != "class" or "__call__" not in target[2].methods:
            return None
        where, cls = target[1], target[2]
        summary = self.summary(where)
        if summary is None:
            return None
        for call in cls.calls:
            qualified = self.qualified(summary, call.callee)
            if (qualified.startswith("random.") or qualified.startswith("numpy.random.")) and \
                    not qualified.endswith(".seed"):
                return cls.name, Evidence(self.display(where), call.line, f"{call.callee}(...)")
        return None

    def sibling_dataset_forwarding(self, path: str) -> Optional[Evidence]:
        """A MindSpore dataset constructed in another file of the same folder with the
        caller's keyword arguments passed on (``**kwargs``) or with ``num_shards``: how the
        loaders of that folder take their sharding. None when there is no such call."""
        folder = os.path.dirname(os.path.abspath(path))
        for other in sorted(self.files):
            if other == os.path.abspath(path) or os.path.dirname(other) != folder:
                continue
            summary = self.summary(other)
            if summary is None:
                continue
            for _cls, _func, call in _all_calls(summary):
                qualified = self.qualified(summary, call.callee)
                last = qualified.rsplit(".", 1)[-1]
                if not qualified.startswith("mindspore.dataset.") or not last.endswith("Dataset"):
                    continue
                if "**" in call.kwargs or "num_shards" in call.kwargs:
                    return Evidence(self.display(other), call.line, f"{call.callee}(...) given the sharding")
        return None

    def imported_names(self, ctx) -> Dict[str, str]:
        """name -> qualified name of everything the checked file imports, relative imports
        resolved from its module name."""
        return dict(checked_file_bindings(self, ctx))

    def values_seen_from(self, ctx, name: str) -> Optional[List[Value]]:
        """The values of a dotted name written in the checked file: defined in the file itself
        (``name_values``), else imported into it (``values_from``)."""
        return self.name_values(os.path.abspath(ctx.path), name) or self.values_from(ctx, name)

    def values_from(self, ctx, name: str) -> Optional[List[Value]]:
        """``name_values`` for a name imported into the checked file."""
        target = self.resolve_from(ctx, name)
        return self._target_values(target, 0) if target is not None else None

    def mode_dependence_from(self, ctx, name: str) -> Tuple[Optional[bool], Optional[Evidence]]:
        target = self.resolve_from(ctx, name)
        if target is None or target[0] != "class":
            return None, None
        return self._class_mode(target[1], target[2], set())

    def _target_values(self, target, depth: int) -> Optional[List[Value]]:
        kind, where, item = target
        if kind == "constant":
            return self.name_values(where, item, depth + 1)
        if kind == "config":
            return self.name_values(where, f"{item[0]}.{item[1]}" if item[1] else item[0], depth + 1)
        if kind == "attr":
            summary = self.summary(where)
            return self._loader_values(where, summary, item[0], item[1]) if summary is not None else None
        return None

    def qualified(self, summary: FileSummary, name: str) -> str:
        from msacclint.analysis.imports import canonical

        head, _, rest = name.partition(".")
        bound = summary.imports.get(head)
        if bound is None:
            return name
        return canonical(f"{bound}.{rest}" if rest else bound)

    # -- classes --------------------------------------------------------------------
    def resolve_class(self, path: str, name: str) -> Optional[Tuple[str, ClassSummary]]:
        found = self.lookup(path, name)
        if found is None or found[0] != "class":
            return None
        return found[1], found[2]

    def is_cell(self, path: str, cls: ClassSummary, depth: int = 0) -> bool:
        """Whether the class ``cls`` of ``path`` derives from a ``mindspore.nn`` class, through
        its bases in any file of the project."""
        summary = self.summary(path)
        if summary is None or depth > 5:
            return False
        for base in cls.bases:
            if self.qualified(summary, base).startswith("mindspore.nn."):
                return True
            found = self.lookup(path, base)
            if found is not None and found[0] == "class" and self.is_cell(found[1], found[2], depth + 1):
                return True
        return False

    def mode_dependence(self, path: str, name: str) -> Tuple[Optional[bool], Optional[Evidence]]:
        """Whether the class ``name`` (as written in ``path``) behaves differently in
        training mode: True with the evidence (a Dropout with a non-zero rate, a
        BatchNorm using moving statistics, code reading ``self.training``), False when
        every layer it builds is known and none is, None when it cannot be told."""
        found = self.resolve_class(path, name)
        if found is None:
            return None, None
        return self._class_mode(found[0], found[1], set())

    def builds_layer(self, path: str, name: str, wanted: Tuple[str, ...],
                     seen: Optional[Set[Tuple[str, str]]] = None) -> Optional[Evidence]:
        """Where the class or function ``name`` (as written in ``path``) builds one of the
        MindSpore layers ``wanted`` (qualified names), itself, through its bases or through
        the project's classes and functions it calls; None when none is found (which does
        not prove there is none)."""
        seen = set() if seen is None else seen
        found = self.lookup(path, name)
        if found is None or found[0] not in ("class", "function") or (found[1], name) in seen:
            return None
        kind, where, item = found
        seen.add((where, name))
        summary = self.summary(where)
        if summary is None:
            return None
        for call in item.calls:
            qualified = self.qualified(summary, call.callee)
            if qualified in wanted:
                return Evidence(self.display(where), call.line, qualified.rsplit(".", 1)[-1])
            head = call.callee.split(".")[0]
            if head != "self" and not qualified.startswith("mindspore.") and \
                    (head in summary.imports or head in summary.classes or head in summary.functions):
                inner = self.builds_layer(where, call.callee, wanted, seen)
                if inner is not None:
                    return inner
        for returned in getattr(item, "returns", ()):   # ``def get_bn(): return nn.BatchNorm2d``
            if returned[0] == "name" and self.qualified(summary, returned[1]) in wanted:
                return Evidence(self.display(where), item.line, f"{returned[1]} (returned by {name})")
        for base in getattr(item, "bases", ()):
            if not self.qualified(summary, base).startswith("mindspore."):
                inner = self.builds_layer(where, base, wanted, seen)
                if inner is not None:
                    return inner
        return None

    def _enter(self, path: str, name: str, seen: Set[Tuple[str, str]]):
        """(the summary of ``path``, None) to go on with the class or function ``name``;
        (None, its answer) when it was met before on the way (no evidence: False) or its
        file cannot be read (unknown: None)."""
        key = (path, name)
        if key in seen:
            return None, (False, None)
        seen.add(key)
        summary = self.summary(path)
        return (summary, None) if summary is not None else (None, (None, None))

    def _calls_mode(self, path: str, summary: FileSummary, calls, cls: Optional[ClassSummary], seen,
                    unknown: bool):
        """The mode-dependence of a body's calls: True at the first that is, else None when
        one (or ``unknown``) cannot be told, else False."""
        for call in calls:
            state, evidence = self._call_mode(path, summary, call, cls, seen)
            if state:
                return True, evidence
            unknown = unknown or state is None
        return (None if unknown else False), None

    def _class_mode(self, path: str, cls: ClassSummary, seen: Set[Tuple[str, str]]):
        summary, answer = self._enter(path, cls.name, seen)
        if summary is None:
            return answer
        if cls.reads_training:
            return True, Evidence(self.display(path), cls.line, f"{cls.name} reads self.training")
        unknown = cls.functional_mode
        for base in cls.bases:
            qualified = self.qualified(summary, base)
            if qualified.startswith("mindspore."):
                continue
            state, evidence = self._callee_mode(path, summary, base, seen)
            if state:
                return True, evidence
            unknown = unknown or state is None
        return self._calls_mode(path, summary, cls.calls, cls, seen, unknown)

    def _callee_mode(self, path: str, summary: FileSummary, name: str, seen):
        found = self.lookup(path, name)
        if found is None:
            return None, None
        kind, where, item = found
        if kind == "class":
            return self._class_mode(where, item, seen)
        if kind == "function":
            return self._function_mode(where, item, seen)
        return None, None

    def _function_mode(self, path: str, func: FunctionSummary, seen):
        summary, answer = self._enter(path, func.name, seen)
        if summary is None:
            return answer
        return self._calls_mode(path, summary, func.calls, None, seen, False)

    def _call_mode(self, path: str, summary: FileSummary, call, cls: Optional[ClassSummary], seen):
        callee = call.callee
        head = callee.split(".")[0]
        if head == "self":
            if cls is not None and callee.count(".") == 1 and callee[5:] in cls.methods:
                return False, None  # the class's own method: its calls are in cls.calls already
            return False, None  # a call of a sub-cell or attribute built elsewhere in the class
        qualified = self.qualified(summary, callee)
        if qualified.startswith("mindspore."):
            return self._mindspore_layer(path, qualified, call, cls)
        if head in BUILTINS and head not in summary.imports and head not in summary.classes \
                and head not in summary.functions:
            return False, None
        root_module = qualified.split(".")[0]
        if root_module in NEUTRAL_MODULES:
            return False, None
        if head not in summary.imports and head not in summary.classes and head not in summary.functions:
            # a local variable, a parameter or a method of another object: not a layer this
            # class builds by name (its own construction is seen where it was built)
            return (False, None) if "." in callee else (None, None)
        return self._callee_mode(path, summary, callee, seen)

    def _mindspore_layer(self, path: str, qualified: str, call, cls: Optional[ClassSummary]):
        where = Evidence(self.display(path), call.line, "")
        short = qualified.rsplit(".", 1)[-1]
        if qualified in DROPOUTS:
            rate = self._dropout_rate(path, call, cls)
            if rate is None:
                return None, None
            if rate == 0:
                return False, None
            return True, Evidence(where.path, where.line, f"{short} with drop rate {rate:g}")
        if qualified in BATCH_NORMS:
            if qualified.endswith("BnAct") and not self._is_true(call.kwargs.get("has_bn")):
                return False, None
            stats = call.kwargs.get("use_batch_statistics")
            if stats is not None and stats[0] == "lit" and stats[1] is True:
                return False, None
            return True, Evidence(where.path, where.line, f"{short} using moving statistics")
        return False, None

    @staticmethod
    def _is_true(expr: Optional[Expr]) -> bool:
        return expr is not None and expr[0] == "lit" and expr[1] is True

    def _dropout_rate(self, path: str, call, cls: Optional[ClassSummary]) -> Optional[float]:
        """The drop rate of a Dropout layer when its argument resolves to one number."""
        if "p" in call.kwargs:
            expr, keep = call.kwargs["p"], False
        elif "keep_prob" in call.kwargs:
            expr, keep = call.kwargs["keep_prob"], True
        elif call.args:
            expr, keep = call.args[0], True
        else:
            return 0.5  # nn.Dropout() drops half
        values = self.values(path, expr, cls=cls)
        numbers = {v.value for v in values or () if isinstance(v.value, (int, float)) and not isinstance(v.value, bool)}
        if not values or len(numbers) != len(values):
            return None
        rates = {round(1 - n if keep else n, 10) for n in numbers}
        if rates == {0}:
            return 0.0
        nonzero = [r for r in rates if r != 0]
        return max(nonzero) if nonzero else None

    # -- values ---------------------------------------------------------------------
    def values(self, path: str, expr: Expr, cls: Optional[ClassSummary] = None,
               func: Optional[FunctionSummary] = None, depth: int = 0) -> Optional[List[Value]]:
        """The possible values of ``expr`` written in ``path`` (inside ``func`` / the
        ``__init__`` of ``cls``): every alternative resolved, or None."""
        if depth > 8:
            return None
        kind = expr[0]
        if kind == "lit":
            return [Value(expr[1])]
        if kind == "minus1":
            inner = self.values(path, expr[1], cls, func, depth + 1)
            if inner is None or not all(_number(v.value) for v in inner):
                return None
            return [Value(round(1 - v.value, 10), v.evidence) for v in inner]
        if kind == "param":
            return self.parameter_values(path, expr[1], cls=cls, func=func, depth=depth + 1)
        if kind == "name" and expr[1].startswith("self.") and expr[1].count(".") == 1:
            return self._self_attribute_values(path, expr[1][5:], cls, func, depth + 1)
        if kind == "name":
            return self.name_values(path, expr[1], depth + 1)
        if kind == "key":
            return self.name_values(path, f"{expr[1]}.{expr[2]}", depth + 1)
        return None

    def _self_attribute_values(self, path: str, attr: str, cls: Optional[ClassSummary],
                               func: Optional[FunctionSummary], depth: int) -> Optional[List[Value]]:
        """``self.res_base`` read in a method of a class of ``path``: what its ``__init__``
        assigns to the attribute, resolved there (a constructor parameter through the
        class's callers). None when the class or the assignment is not known."""
        if cls is None and func is not None and func.name.count(".") == 1:
            summary = self.summary(path)
            cls = summary.classes.get(func.name.split(".")[0]) if summary is not None else None
        if cls is None or attr not in cls.attrs:
            return None
        values = self.values(path, cls.attrs[attr], cls=cls, depth=depth + 1)
        if values is None:
            return None
        ev = Evidence(self.display(path), cls.line, f"{cls.name}: self.{attr}")
        return [Value(v.value, v.evidence or ev) for v in values]

    def name_values(self, path: str, name: str, depth: int = 0) -> Optional[List[Value]]:
        summary = self.summary(path)
        if summary is None or depth > 8:
            return None
        head, _, rest = name.partition(".")
        if not rest and head in summary.constants and head not in summary.imports:
            out: List[Value] = []
            for expr, line in summary.constants[head]:
                inner = self.values(path, expr, depth=depth + 1)
                if inner is None:
                    return None
                ev = Evidence(self.display(path), line, f"{head} = ...")
                out.extend(Value(v.value, v.evidence or ev) for v in inner)
            return out or None
        if rest and head in summary.configs and "." not in rest:
            entry = summary.configs[head].get(rest)
            if entry is None:   # a key the file never sets: where the object came from may
                return self._loader_values(path, summary, head, rest) if head in summary.constants else None
            inner = self.values(path, entry[0], depth=depth + 1)
            if inner is None:
                return None
            ev = Evidence(self.display(path), entry[1], f"{head}.{rest}")
            return [Value(v.value, v.evidence or ev) for v in inner]
        if head in summary.imports:
            target = self.lookup(path, name)
            if target is None:
                # ``config.drop_rate`` with ``config`` built by a loader module from YAML
                return self._loader_values(path, summary, head, rest)
            return self._target_values(target, depth)
        if rest and "." not in rest and head in summary.constants:
            return self._loader_values(path, summary, head, rest)
        return None

    def _loader_values(self, path: str, summary: Optional[FileSummary], head: str, key: str) -> Optional[List[Value]]:
        """``config.key`` where ``config`` comes from a module that reads a YAML file."""
        if not key or "." in key or summary is None:
            return None
        target = self.lookup(path, head)
        loader_path = target[1] if target is not None and target[0] in ("constant", "module") else path
        loader = self.summary(loader_path)
        if loader is None:
            return None
        files = self._config_files(loader_path, loader)
        out: List[Value] = []
        for config_path in files:
            config = self.configs.get(config_path)
            self._depend(config_path)
            if config.problem:
                self._problem(config_path, config.problem, config.problem_line)
                return None  # one alternative unknown: the value is unknown
            for value, line in config.values.get(key, ()):
                out.append(Value(value, Evidence(self.display(config_path), line, f"{key}: {value!r}")))
        # an argparse default of the same key is one more alternative
        for file_summary in {loader_path: loader}.values():
            if key in file_summary.arguments:
                expr, line = file_summary.arguments[key]
                inner = self.values(loader_path, expr)
                if inner is None:
                    return None
                out.extend(Value(v.value, v.evidence or Evidence(self.display(loader_path), line,
                                                                  f"--{key} default")) for v in inner)
        return out or None

    def _config_files(self, path: str, summary: FileSummary) -> List[str]:
        """The YAML/JSON files a loader module reads: the ones it names (when they exist),
        else the ``*config*.yaml`` files nearest to it, when it reads YAML at all. Files the
        code writes are not named (summary.py); a named one that is missing is a note."""
        named = []
        for name, _line in summary.config_files:
            for base in (os.path.dirname(path), os.path.dirname(os.path.dirname(path)), self.root):
                candidate = os.path.normpath(os.path.join(base, name))
                if self.configs.exists(candidate):
                    named.append(candidate)
                    break
            else:
                # an input that is missing (not written by the code: summary.py leaves those out)
                # is a note, not bad input: the file may be made by a step before training
                self._problem(path, f"the config file {name!r} that line {_line} reads is not in the project: "
                                    "the values read from it are unknown", _line, note=True)
        if named:
            return named
        if any(v.split(".")[0] == "yaml" for v in summary.imports.values()):
            return self.configs.near(os.path.dirname(path), self.root)
        return []

    def parameter_values(self, path: str, param: str, cls: Optional[ClassSummary] = None,
                         func: Optional[FunctionSummary] = None, depth: int = 0) -> Optional[List[Value]]:
        """What the callers of ``cls`` / ``func`` bind to ``param``: call-site arguments
        across the project, and the default where a call leaves it out."""
        if depth > 8:
            return None
        if cls is not None:
            params, target, skip_self = cls.params, cls.name, False
        elif func is not None:
            params, target = func.params, func.name
            skip_self = bool(params) and params[0][0] in ("self", "cls")
        else:
            return None
        names = [p for p, _ in params]
        if skip_self:
            names = names[1:]
        if param not in names:
            return None
        default = dict(params).get(param)
        out: List[Value] = []
        sites = list(self.call_sites(path, target))
        if not sites:
            if default is None:
                return None
            return self.values(path, default, depth=depth + 1)
        for site_path, _site_summary, call, owner_cls, owner_func in sites:
            index = names.index(param)
            if param in call.kwargs:
                expr = call.kwargs[param]
            elif index < len(call.args):
                expr = call.args[index]
            elif "*" in call.kwargs:
                return None  # *args may fill it: cannot tell
            elif "**" in call.kwargs:
                forwarded = self.forwarded_values(site_path, call, param, owner_cls, owner_func, depth + 1)
                if forwarded is None:
                    return None
                for value in forwarded:
                    if value.value is not UNSET:
                        out.append(value)
                        continue
                    if default is None:
                        return None
                    inner = self.values(path, default, depth=depth + 1)
                    if inner is None:
                        return None
                    out.extend(inner)
                continue
            elif default is not None:
                inner = self.values(path, default, depth=depth + 1)
                if inner is None:
                    return None
                out.extend(inner)
                continue
            else:
                return None  # a missing argument: cannot tell
            inner = self.values(site_path, expr, cls=owner_cls, func=owner_func, depth=depth + 1)
            if inner is None:
                return None
            ev = Evidence(self.display(site_path), call.line, f"{call.callee}(...)")
            out.extend(Value(v.value, v.evidence or ev) for v in inner)
        return out or None

    def call_sites(self, path: str, target: str):
        """Calls of the class/function ``target`` defined in ``path``, in every file whose
        text names it: (file, summary, call, enclosing class, enclosing function)."""
        short = target.split(".")[-1]
        if "." in target:
            return  # methods are called through objects: not followed
        pattern = re.compile(rb"\b" + re.escape(short.encode()) + rb"\b")
        for other in sorted(self.files):
            data = self._bytes(other)
            if data is None or not pattern.search(data):
                continue
            summary = self.summary(other)
            if summary is None:
                continue
            for owner_cls, owner_func, call in _all_calls(summary):
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
        out: List[Tuple[str, str, int]] = []
        for other, summary, call, _cls, func in self.call_sites(found[1], target):
            if param in call.kwargs:
                expr = call.kwargs[param]
            elif position is not None and position < len(call.args):
                expr = call.args[position]
            else:
                return None
            if expr[0] == "param" and func is not None and "." not in func.name:
                handed = self.argument_classes(other, func.name, expr[1], depth + 1)
                if handed is None:
                    return None
                out.extend(handed)
                continue
            builds = self.names_built(summary, func, expr)
            if builds is None:
                return None
            out.extend((other, callee, call.line) for callee in builds)
        return out or None

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

    def switch_values(self, path: str, target: str, param: str, position: int) -> Optional[List[Value]]:
        """Every value the project passes for the parameter ``param`` (at ``position``, -1 for
        keyword-only) of the top-level class or function ``target`` of ``path``, with where
        each was read; ``Value(UNSET)`` where a call leaves it at its default. Calls through a
        ``functools.partial`` alias and keywords forwarded through a caller's ``**kwargs``
        are followed. None when any call passes a value that cannot be resolved or unpacks
        ``*args`` or a dict that is not a caller's own ``**kwargs``, when nothing calls it, or
        when the name is used otherwise than by those calls, its definition, its imports and
        its partial aliases (passed as a value, a registry): callers then cannot all be seen."""
        path = os.path.normpath(os.path.abspath(path))
        sites = self._calls_of(path, target)
        if sites is None:
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
        for alias, partial in aliases:
            through = [(other, call, cls, func, partial)
                       for other, _s, call, cls, func in self.call_sites(path, alias)]
            if self._mentions(alias) != len(through) + 1 + self._import_mentions(alias):
                return None
            if not through:  # an alias nothing calls yet: its own arguments still count
                through = [(path, Call(callee=alias, line=partial.line), None, None, partial)]
            sites.extend(through)
        if not sites or self._mentions(target) != direct + 1 + len(aliases) + self._import_mentions(target):
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

    def forwarded_values(self, path: str, call, param: str, cls: Optional[ClassSummary],
                         func: Optional[FunctionSummary], depth: int = 0) -> Optional[List[Value]]:
        """What reaches the keyword ``param`` through ``**name`` in ``call`` when ``name`` is
        the ``**kwargs`` of ``func``, the function making the call (``def build(**kwargs):
        return Net(**kwargs)``): what every caller of ``func`` passes as ``param=``, through
        further forwarders too, and ``Value(UNSET)`` where a caller leaves it out. None when
        the unpacked dict is anything else, or the callers of ``func`` cannot all be seen (as
        ``switch_values`` decides it)."""
        star = call.kwargs.get("**")
        if depth > 4 or func is None or star is None or func.var_keyword is None or \
                tuple(star) != ("name", func.var_keyword):
            return None
        if func.name.endswith(".__init__") and cls is not None and func.name == cls.name + ".__init__":
            target = cls.name   # a class whose constructor forwards its keywords
        elif "." not in func.name:
            target = func.name
        else:
            return None  # a method: called through objects, callers not followed
        sites = self._calls_of(path, target)
        if sites is None:
            return None
        out: List[Value] = []
        for other, site, site_cls, site_func, preset in sites:
            where = other
            if param not in site.kwargs and "**" not in site.kwargs and preset is not None and param in preset.kwargs:
                site, where, site_cls, site_func = preset, path, None, None   # fixed by the partial
            if param in site.kwargs:
                values = self.values(where, site.kwargs[param], cls=site_cls if site_cls is not None and site_func
                                     is not None and site_func.name.endswith("__init__") else None, func=site_func,
                                     depth=depth + 1)
                if values is None:
                    return None
                ev = Evidence(self.display(where), site.line, f"{site.callee}(...)")
                out.extend(Value(v.value, v.evidence or ev) for v in values)
            elif "**" in site.kwargs:
                inner = self.forwarded_values(other, site, param, site_cls, site_func, depth + 1)
                if inner is None:
                    return None
                out.extend(inner)
            else:
                out.append(Value(UNSET))
        return out

    def nearby_config_values(self, path: str, key: str) -> Optional[List[Value]]:
        """The values of ``key`` in the ``*config*.yaml`` files nearest to ``path``, for a
        config object handed down through parameters (``net_config.reg_loss``) or imported
        from a loader the index cannot resolve: an assumption the caller must state. None when
        one of them lacks the key or cannot be read."""
        files = self.configs.near(os.path.dirname(path), self.root)
        out: List[Value] = []
        for config_path in files:
            config = self.configs.get(config_path)
            self._depend(config_path)
            found = config.values.get(key)
            if config.problem or not found:
                return None
            out.extend(Value(value, Evidence(self.display(config_path), line, f"{key}: {value!r}"))
                       for value, line in found)
        return out or None

    _EXPORTS = re.compile(rb"^__all__\s*[+]?=\s*[\[(]([^\])]*)[\])]", re.M)

    def _mentions(self, name: str) -> int:
        """Occurrences of ``name`` in the project: in Python files, as a name token or as a
        string literal that is exactly the name (``getattr(models, "Net")``, a registry
        key), never in comments or inside longer text (a docstring's ``>>> Net(...)``); in
        config files, as a whole word."""
        word = name.encode()
        pattern = re.compile(rb"\b" + re.escape(word) + rb"\b")
        total = 0
        for other in sorted(self.files):
            data = self._bytes(other)
            if data and word in data:
                self._depend(other)
                total += _name_tokens(data, name, pattern)
        for other in sorted(self.configs.paths):
            data = self._bytes(other)
            if data and word in data:
                self._depend(other)
                total += len(pattern.findall(data))
        self._used[LISTING + self.root] = paths_digest(list(self.files) + list(self.configs.paths))
        return total

    _MODULE_PATHS = re.compile(
        rb"^[ \t]*(?:from[ \t]+([\w.]+)[ \t]+import\b|import[ \t]+([\w.]+(?:[ \t]*,[ \t]*[\w.]+)*))", re.M)

    def _import_mentions(self, name: str) -> int:
        """Occurrences of ``name`` in import statements (``from m import name``, and the
        module paths ``from pkg.name import ...``/``import pkg.name``, which name a module),
        in ``__all__`` lists and in ``super(name, self)``, which bind, export or name it
        without using it."""
        word = re.compile(rb"\b" + re.escape(name.encode()) + rb"\b")
        imports = re.compile(rb"^[ \t]*from[ \t]+[\w.]+[ \t]+import[ \t]+[^\n]*\b" + re.escape(name.encode()) +
                             rb"\b", re.M)
        total = 0
        for other in sorted(self.files):
            data = self._bytes(other) or b""
            if name.encode() in data:
                total += len(imports.findall(data))
                for found in self._MODULE_PATHS.finditer(data):
                    total += sum(len(word.findall(part)) for part in found.groups() if part)
                total += len(re.findall(rb"\bsuper\(\s*" + re.escape(name.encode()) + rb"\s*,", data))
                total += sum(len(word.findall(block)) for block in self._EXPORTS.findall(data))
                total += self._library_strings(other, name)
        return total

    def _library_strings(self, path: str, name: str) -> int:
        """String literals equal to ``name`` given to a MindSpore API, the builtin ``print`` or
        the ``logging`` module (calls resolved through the file's imports:
        ``ModelCheckpoint(prefix="mobilenetV2")``): a file prefix or a message, which cannot
        build the class or call the function of that name."""
        if ('"' + name + '"').encode() not in (self._bytes(path) or b"") and \
                ("'" + name + "'").encode() not in (self._bytes(path) or b""):
            return 0
        summary = self.summary(path)
        if summary is None:
            return 0
        literal = ("lit", name)
        count = 0
        calls = list(summary.calls) + [c for f in summary.functions.values() for c in f.calls] + \
            [c for cls in summary.classes.values() for c in cls.calls]
        seen = set()
        for call in calls:
            if id(call) in seen:
                continue
            seen.add(id(call))
            given = sum(1 for a in call.args if tuple(a) == literal) + \
                sum(1 for v in call.kwargs.values() if tuple(v) == literal)
            if not given:
                continue
            qualified = self.qualified(summary, call.callee)
            if qualified.startswith(("mindspore.", "logging.")) or (
                    call.callee == "print" and "print" not in summary.functions):
                count += given
        return count

    def trains(self, summary: FileSummary) -> bool:
        """The file trains: Model.train, a TrainOneStepCell, a gradient function, or a network
        put in training mode (``net.set_train()``, a hand-written loop)."""
        for call in summary.calls + [c for f in summary.functions.values() for c in f.calls]:
            if call.callee.endswith(".train") or self.qualified(summary, call.callee) in TRAINING_CALLS:
                return True
            if call.callee.endswith(".set_train") and (not call.args or call.args[0] == ("lit", True)):
                return True
        return False

    def referrers(self, path: str, name: str, own: bool = True) -> Optional[str]:
        """A file of the project whose text names ``name`` (defined in ``path``) other than
        its definition: ``path`` itself when it names it more than once, another Python or
        config file, or None when nothing does. Whole words are counted in the files' text,
        comments and strings included, so registries, ``__all__`` lists, ``getattr`` names
        and YAML model names count as uses (a None answer is the conservative one). With
        ``own=False`` the file's own mentions are not counted: other files only."""
        path = os.path.normpath(os.path.abspath(path))
        word = name.encode()
        if self._words is None:
            self._words = {}
            for other in sorted(self.files) + sorted(self.configs.paths):
                data = self._bytes(other)
                if data:
                    self._words[other] = frozenset(_WORD.findall(data))
        if own and len(re.findall(rb"\b" + re.escape(word) + rb"\b", self._bytes(path) or b"")) > 1:
            return path
        own_definition = re.compile(rb"^(?:class|def)\s+" + re.escape(word) + rb"\b", re.M)
        for other, words in self._words.items():
            if other != path and word in words:
                if other.endswith(".py") and own_definition.search(self._bytes(other) or b""):
                    continue  # the file defines its own ``name`` at top level: its mentions are its own
                self._depend(other)
                return other
        for other in self._words:  # nothing names it: any file that starts to changes the answer,
            self._depend(other)
        # and so does a new file
        self._used[LISTING + self.root] = paths_digest(list(self.files) + list(self.configs.paths))
        return None

    def imported_module_calls(self, path: str, wanted: Tuple[str, ...]) -> Optional[Evidence]:
        """Where a project module that ``path`` imports (directly, or through the modules
        those import, three levels deep) calls one of ``wanted`` (qualified names) at module
        level, which runs on import: ``src/unet_parts.py`` calling ``ms.set_seed(1212)``."""
        seen: Set[str] = {os.path.normpath(os.path.abspath(path))}
        todo = [(next(iter(seen)), 0)]
        while todo:
            importer, depth = todo.pop(0)
            summary = self.summary(importer)
            if summary is None or depth >= 3:
                continue
            for qualified in sorted(set(summary.imports.values())):
                module = self.find_module(qualified, importer) or (
                    self.find_module(qualified.rsplit(".", 1)[0], importer) if "." in qualified else None)
                if module is None or module in seen:
                    continue
                seen.add(module)
                imported = self.summary(module)
                if imported is None:
                    continue
                self._depend(module)
                lines = (self._bytes(module) or b"").splitlines()
                for call in imported.calls:
                    if not call.scope and self.qualified(imported, call.callee) in wanted and \
                            0 < call.line <= len(lines) and lines[call.line - 1][:1] not in (b" ", b"\t", b""):
                        # a statement of its own at the top (not under ``if __name__ == ...``)
                        return Evidence(self.display(module), call.line, call.callee)
                todo.append((module, depth + 1))
        return None

    def subclassed_elsewhere(self, path: str, name: str) -> bool:
        """Whether a Python file of the project other than ``path`` writes a class whose bases
        name ``name`` (``class Big(Small):``, ``class B(mod.Small)``): a method there may use
        what ``name``'s ``__init__`` builds."""
        path = os.path.normpath(os.path.abspath(path))
        word = name.encode()
        pattern = re.compile(rb"^\s*class\s+\w+\s*\([^)]*\b" + re.escape(word) + rb"\b", re.M)
        for other in sorted(self.files):
            if other == path:
                continue
            data = self._bytes(other)
            if data and word in data and pattern.search(data):
                self._depend(other)
                return True
        for other in self.files:  # any file that starts to extend it changes the answer,
            self._depend(other)
        # and so does a new file
        self._used[LISTING + self.root] = paths_digest(list(self.files) + list(self.configs.paths))
        return False

    # -- entry scripts --------------------------------------------------------------
    def builders(self, path: str, name: str) -> Optional[Tuple[str, FunctionSummary]]:
        found = self.lookup(path, name)
        if found is None or found[0] != "function":
            return None
        return found[1], found[2]


#: the checked file's bindings (``checked_file_bindings``), by the index that resolved them:
#: id(index) -> (index, bindings). The answer depends on the index (the file's module name
#: comes from its root), so another index never reads one made for a different one.
_BINDINGS: Question[Dict[int, Tuple[ProjectIndex, Dict[str, str]]]] = Question("project.bindings", lambda ctx: {})


def checked_file_bindings(index: ProjectIndex, ctx: FileContext) -> Dict[str, str]:
    """name -> qualified name imported into the checked file: its ImportTable's bindings
    plus its relative imports, resolved from the file's module name (statements only)."""
    memo = ctx.ask(_BINDINGS)
    hit = memo.get(id(index))
    if hit is not None and hit[0] is index:
        return hit[1]
    found = _bindings(index, ctx)
    memo[id(index)] = (index, found)
    return found


def _bindings(index: ProjectIndex, ctx: FileContext) -> Dict[str, str]:
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


def _name_tokens(data: bytes, name: str, pattern: Any) -> int:
    """Name tokens ``name`` and string literals equal to it in Python source; a file the
    tokenizer refuses is counted by whole words (more uses: never fewer)."""
    count = 0
    quoted = {repr(name), '"' + name + '"'}
    try:
        for token in tokenize.tokenize(io.BytesIO(data).readline):
            if (token.type == tokenize.NAME and token.string == name) or \
                    (token.type == tokenize.STRING and token.string in quoted):
                count += 1
    except (tokenize.TokenError, SyntaxError, UnicodeDecodeError, ValueError):
        return len(pattern.findall(data))
    return count


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


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _all_calls(summary: FileSummary):
    for call in summary.calls:
        yield None, None, call
    for cls in summary.classes.values():
        for call in cls.calls:
            func = summary.functions.get(call.scope)
            yield (cls if call.scope.endswith("__init__") else None), func, call
    for func in summary.functions.values():
        for call in func.calls:
            yield None, func, call


def load_index(root: str, settings=None, cache=None) -> ProjectIndex:
    """The project index of the repository at ``root`` (see ``find_project_root``): the
    file listing now, summaries on first use, from ``cache`` (an engine Cache) when the
    files are unchanged."""
    root = os.path.abspath(root)
    py, other, truncated = listing(root)
    return ProjectIndex(root, py, other, cache=cache, truncated=truncated)


class Projects:
    """The project index of every repository a long-lived front end (flake8's run, the
    editor server) meets, built once per root and kept; ``saved(path)`` makes the index
    re-read a file that changed on disk."""

    def __init__(self, cache_for=None) -> None:
        #: settings -> engine Cache (or None): where summaries are stored between runs
        self._cache_for = cache_for
        self._by_root: Dict[str, ProjectIndex] = {}
        self._root_of: Dict[str, str] = {}

    def index_for(self, path: str, settings=None, use_cache: bool = True) -> Optional[ProjectIndex]:
        """The index of the repository ``path`` belongs to, built on first use; its file
        summaries are read from and written to the cache unless ``use_cache`` is False
        (decided when the index is built). Without a root marker above it, a file inside
        the working folder belongs to the working folder's project."""
        folder = os.path.dirname(os.path.abspath(path))
        root = self._root_of.get(folder)
        if root is None:
            root = self._root_of[folder] = find_project_root(folder, fallback=os.getcwd())
        index = self._by_root.get(root)
        if index is None:
            cache = None
            if use_cache and self._cache_for is not None and settings is not None:
                try:
                    cache = self._cache_for(settings, root)
                except Exception:
                    cache = None
            index = self._by_root[root] = load_index(root, settings, cache=cache)
        return index

    def saved(self, path: str) -> None:
        absolute = os.path.normpath(os.path.abspath(path))
        for index in self._by_root.values():
            if absolute.startswith(index.root.rstrip(os.sep) + os.sep):
                index.forget(absolute)
