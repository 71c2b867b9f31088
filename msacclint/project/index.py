"""The project index: file summaries linked by imports, answering the rules' questions.

Built cheaply (one walk of the folder tree listing ``.py`` and config files); a file's
summary is computed on the first question that needs it, from the disk cache when the
file's content is unchanged. Every file whose summary or config an answer used is
recorded (``begin``/``dependencies``), so the cached diagnostics of a file are dropped
when one of those files changes.

``ProjectIndex`` keeps the files, their summaries and what an answer used; the questions
live in modules named for them, mixed into the class:

- ``graph``: where an import leads and what a dotted name stands for;
- ``values``: what value reaches an expression or a parameter;
- ``callers``: who calls a class or function, and with what;
- ``networks``: what a network contains and whether it depends on the mode;
- ``mentions``: who names a definition (word and token counts);
- ``entries``: what the repository runs (its entry points) and what is a library's API;
- ``reach``: whether a place is reached from them; ``failures``: code that cannot run;
- ``sources``: whether a class or function a dataset is built over reads files.
"""

from __future__ import annotations

import hashlib
import os
from collections import OrderedDict
from typing import Any, Callable, Dict, List, Optional, Sequence, Set, Tuple

from msacclint.analysis.notebook_text import NotebookError
from msacclint.analysis.notebook_text import load as load_notebook
from msacclint.analysis.source import MAX_SOURCE_BYTES, decode, parse, too_large
from msacclint.diagnostics import UNKNOWN_TO_OTHER_FILES
from msacclint.project import configs as configs_mod
from msacclint.project.callers import CallerQueries, all_calls, says_data_parallel
from msacclint.project.collect import SummaryCollector, summarize
from msacclint.project.computed import ComputedQueries
from msacclint.project.entries import EntryQueries
from msacclint.project.failures import FailureQueries
from msacclint.project.graph import GraphQueries, checked_file_bindings
from msacclint.project.guards import GuardQueries
from msacclint.project.lines import DEFERRED
from msacclint.project.listing import find_project_root, listing
from msacclint.project.mentions import MentionQueries
from msacclint.project.methods import MethodQueries
from msacclint.project.networks import BATCH_NORMS, DROPOUTS, TRAINING_CALLS, NetworkQueries
from msacclint.project.reach import ReachQueries
from msacclint.project.runs import TrainingQueries
from msacclint.project.sources import SourceQueries
from msacclint.project.summary import FORMAT, FileSummary, from_json, to_json
from msacclint.project.values import UNSET, Evidence, Value, ValueQueries

__all__ = ["BATCH_NORMS", "DROPOUTS", "TRAINING_CALLS", "UNSET", "Evidence", "ProjectIndex", "Projects", "Value",
           "all_calls", "checked_file_bindings", "load_index", "says_data_parallel"]

#: parsed modules kept for files that were summarised before their own check in this run
#: (the check then reuses the parse): at most this much source text at a time (a parsed
#: module takes some 35 bytes of memory per byte of source)
KEEP_PARSED_BYTES = 2_000_000
#: modules parsed for the summary of a file no check will take, kept for the next question
#: that parses the same file (the reach search's raising statements, project/failures.py)
RECENT_PARSES = 8
#: summaries collected in the engine's traversal wait for their lines with the file's text:
#: at most this much text at a time (a long flake8 or editor session checks many files)
KEEP_DRAFT_BYTES = 16_000_000


NOTEBOOK = ".ipynb"


def _notebook_python(data: bytes) -> Optional[bytes]:
    """The Python text of a notebook's code cells, or None when it is not a notebook."""
    try:
        return load_notebook(data).python.encode("utf-8", "surrogatepass")
    except NotebookError:
        return None


class ProjectIndex(GraphQueries, ValueQueries, CallerQueries, NetworkQueries, MentionQueries, EntryQueries,
                   FailureQueries, TrainingQueries, MethodQueries, ComputedQueries, GuardQueries, ReachQueries,
                   SourceQueries):
    def __init__(self, root: str, py_files: Sequence[str], config_files: Sequence[str] = (), cache=None,
                 cut: Optional[str] = None) -> None:
        self.root = os.path.abspath(root)
        self.files: Set[str] = {os.path.normpath(os.path.abspath(p)) for p in py_files}
        self.configs = configs_mod.ConfigStore([os.path.abspath(p) for p in config_files])
        self.cache = cache
        #: path -> (line, column, message): bad input the project layer met (a malformed config,
        #: a file that does not parse, ...); reported once, with the file whose check met it
        self.problems: Dict[str, Tuple[int, int, str]] = {}
        self._reported: Set[str] = set()
        self.notes: Set[str] = set()
        if cut:  # the listing was cut short (msacclint.project.listing): a note on the project's folder
            self._problem(self.root, cut, note=True)
        self._summaries: Dict[str, Optional[FileSummary]] = {}
        self._texts: Dict[str, Optional[bytes]] = {}
        self._used: Dict[str, str] = {}
        #: path -> content hash, for the files read so far (kept until ``forget``)
        self._digests: Dict[str, str] = {}
        self._module_cache: Dict[Tuple[str, str], Optional[str]] = {}
        #: path -> the words of its text (``referrers``), built on first use
        self._words: Optional[Dict[str, frozenset]] = None
        #: path -> its name-token counts (``_mentions``), or None when it does not tokenize
        self._token_counts: Dict[str, Optional[Dict[str, int]]] = {}
        #: MindSpore names some module of the project replaces (``patched``), on first use
        self._patched: Optional[Dict[str, Evidence]] = None
        #: files this process will check later in the run (set by the engine's batch)
        self.pending: Set[str] = set()
        #: the caller checks every file in turn without a list (flake8): keep any parse
        self.keep_all_parses = False
        #: path -> (text, parsed module) of pending files parsed for their summary
        self._parsed: OrderedDict[str, Tuple[str, Any]] = OrderedDict()
        self._parsed_bytes = 0
        #: path -> (text, parsed module) of the last RECENT_PARSES files parsed for their
        #: summary that no check takes
        self._recent: OrderedDict[str, Tuple[str, Any]] = OrderedDict()
        #: path -> (text, collector) of checked files whose summary the engine's traversal
        #: collected, lines not yet filled in (done on first use)
        self._drafts: OrderedDict[str, Tuple[str, SummaryCollector]] = OrderedDict()
        #: path -> switch of the engine's summary collection under way for it
        self._collecting: Dict[str, List[bool]] = {}
        self._draft_bytes = 0
        #: the reach graph's memo (msacclint.project.reach), dropped when a file changes
        self._reach = None

    def __getstate__(self):
        state = self.__dict__.copy()
        state.update(_summaries={}, _texts={}, _used={}, _digests={}, _module_cache={}, _reported=set(), pending=set(),
                     _parsed=OrderedDict(), _parsed_bytes=0, _recent=OrderedDict(), _drafts=OrderedDict(),
                     _draft_bytes=0, _collecting={}, _words=None, _token_counts={}, _patched=None, _reach=None,
                     _config_builds={}, _call_sites={}, _partial_points={})
        state["configs"] = configs_mod.ConfigStore(self.configs.paths)
        return state

    def begin(self) -> None:
        """Start recording which files the answers use (one checked file)."""
        self._used = {}

    def new_problems(self) -> List[Tuple[str, int, int, str, bool]]:
        """(path, line, column, message, is_note) of the problems met since the last call,
        once each."""
        out = []
        for path, (line, column, message) in sorted(self.problems.items()):
            if path not in self._reported:
                self._reported.add(path)
                out.append((path, line, column, message, path in self.notes))
        return out

    def _problem(self, path: str, message: str, line: int = 1, column: int = 1, note: bool = False) -> None:
        """``note``: how the code is laid out (a shadowed module, two files claiming one), not
        input msacclint could not read: reported at info level."""
        self.problems.setdefault(path, (line, column, message))
        if note:
            self.notes.add(path)

    def dependencies(self) -> Dict[str, str]:
        """path -> content hash of every file an answer used since ``begin``."""
        return dict(self._used)

    def _depend(self, path: str) -> None:
        if path not in self._used:
            digest = self._digests.get(path)
            if digest is None:
                data = self._bytes(path)  # (a notebook's digest, of its file, is set there)
                digest = self._digests.get(path)
                if digest is None:
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

    def forget(self, path: str) -> None:
        """Read ``path`` again on next use (it was saved, created or deleted)."""
        path = os.path.normpath(os.path.abspath(path))
        self._texts.pop(path, None)
        self._digests.pop(path, None)
        self._summaries.pop(path, None)
        self._words = None
        self._token_counts.pop(path, None)
        self._patched = None
        self.__dict__.pop("_config_builds", None)
        self.__dict__.pop("_call_sites", None)
        self.__dict__.pop("_partial_points", None)
        self._drop_draft(path)
        self._drop_parsed(path)
        self._recent.pop(path, None)
        self.forget_reach()
        if path.endswith((".py", NOTEBOOK)):
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
        """The file's bytes; for a notebook, the Python of its code cells (UTF-8)."""
        if path not in self._texts:
            try:
                with open(path, "rb") as handle:
                    data: Optional[bytes] = handle.read()
            except OSError:
                data = None
            if data is not None and path.endswith(NOTEBOOK):
                # a cached result's dependency is the file as it is on disk (engine/cache.py)
                self._digests.setdefault(path, hashlib.sha256(data).hexdigest())
                data = _notebook_python(data)
            self._texts[path] = data
        return self._texts[path]

    def module_name(self, path: str) -> Tuple[str, bool]:
        """The dotted name a file is imported as from its nearest non-package folder."""
        path = os.path.normpath(os.path.abspath(path))
        folder, name = os.path.split(path)
        is_package = name == "__init__.py"
        if name.endswith(NOTEBOOK):  # never imported: a name that no import can write
            return name[: -len(NOTEBOOK)].replace(".", "_") + "-ipynb", False
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
        # in the words and at the place the file's own check reports it: the two are one
        # MSA001 (msacclint.engine.bad_input)
        if len(data) > MAX_SOURCE_BYTES:
            self._problem(path, f"{too_large(len(data))}; {UNKNOWN_TO_OTHER_FILES}")
            return None
        text, problem = decode(data)
        if problem is not None:
            self._problem(path, f"{problem}; {UNKNOWN_TO_OTHER_FILES}")
            return None
        collecting = self._collecting.get(path)
        if collecting is not None:
            collecting[0] = False
        parsed = self.parsed_now(path, text)  # the file being checked asks about itself
        problem_at = None
        if parsed is None:
            parsed, problem_at = parse(text)
        if parsed is None:
            assert problem_at is not None
            message, line, column = problem_at
            self._problem(path, f"{message}; {UNKNOWN_TO_OTHER_FILES}", line, column)
            return None
        if path in self.pending or self.keep_all_parses:
            self._keep_parsed(path, text, parsed)
        else:
            self._recent.pop(path, None)
            self._recent[path] = (text, parsed)
            while len(self._recent) > RECENT_PARSES:
                self._recent.popitem(last=False)
        try:
            return summarize(parsed, path, module, is_package, text)
        except RecursionError:
            self._problem(path, "file is nested too deeply for the project layer; what it defines is unknown")
            return None

    def summary_collector(self, path: str, text: str) -> Optional[SummaryCollector]:
        """A collector gathering the summary of the checked file ``path`` (source ``text``)
        in the engine's traversal, or None when the summary is already known. Its lines are
        filled in only if another question needs the summary (``summary``)."""
        path = os.path.normpath(os.path.abspath(path))
        if path in self._summaries or path in self._drafts:
            return None
        module, is_package = self.module_name(path)
        collector = SummaryCollector(path, module, is_package, DEFERRED)
        # a question about this file's own summary during its check builds the summary then
        # (``_build``, from the same parse); the rest of this collection would be wasted, so
        # it switches off
        live = [True]
        plain = collector.visitors()

        def gated(func: Callable[[Any], Any]) -> Callable[[Any], None]:
            def call(node: Any) -> None:
                if live[0]:
                    func(node)
            return call

        gated_visitors = {name: gated(func) for name, func in plain.items()}
        collector.visitors = lambda: gated_visitors  # type: ignore[method-assign]
        self._collecting[path] = live

        def keep(done: SummaryCollector) -> None:
            self._collecting.pop(path, None)
            if live[0] and path not in self._summaries and len(text) <= KEEP_DRAFT_BYTES:
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
        if path.endswith(NOTEBOOK):
            self._digests.setdefault(path, hashlib.sha256(data).hexdigest())
            data = _notebook_python(data) or b""
        self._texts.setdefault(path, data)

    def take_parsed(self, path: str, text: str) -> Optional[Any]:
        """The module parsed for ``path``'s summary earlier in this run, if its text is
        ``text`` (the check reuses it instead of parsing again); forgotten once taken."""
        path = os.path.normpath(os.path.abspath(path))
        kept = self._drop_parsed(path)
        if kept is not None and kept[0] == text:
            return kept[1]
        return None

    def checking(self, path: str, text: str, module: Any) -> None:
        """The engine is checking ``path`` (source ``text``, parsed as ``module``): a question
        about the file's own summary during its check is answered from this parse."""
        path = os.path.normpath(os.path.abspath(path))
        self._recent.pop(path, None)
        self._recent[path] = (text, module)
        while len(self._recent) > RECENT_PARSES:
            self._recent.popitem(last=False)

    def parsed_now(self, path: str, text: str) -> Optional[Any]:
        """A module parsed from ``text`` for ``path``'s summary and still kept (for a check
        later in the run, or among the last few), left in place; None when there is none."""
        path = os.path.normpath(os.path.abspath(path))
        for kept in (self._parsed.get(path), self._recent.get(path)):
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


def load_index(root: str, settings=None, cache=None) -> ProjectIndex:
    """The project index of the repository at ``root`` (see ``find_project_root``): the
    file listing now, summaries on first use, from ``cache`` (an engine Cache) when the
    files are unchanged."""
    root = os.path.abspath(root)
    py, other, cut = listing(root)
    return ProjectIndex(root, py, other, cache=cache, cut=cut)


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
