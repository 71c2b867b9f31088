"""The repository's entry points: what it runs, and what counts as reachable from outside.

An entry point is a file with an ``if __name__ == "__main__":`` block, a file whose own code
does work when run (a top-level call or loop, ``x = Build()`` of a MindSpore or project class),
a file the repository's shell scripts, Makefiles, README command lines or console scripts
name as run (``python tools/train.py``, ``python -m pkg.tool``), a notebook, a module pytest
collects. A repository with no entry point is a library, and so are the public names of an
installable package. A mixin of ``ProjectIndex`` (msacclint.project.index); the reach graph
(msacclint.project.reach) starts from these.
"""

from __future__ import annotations

import os
import re
from typing import Dict, Iterator, List, Optional, Tuple

from msacclint.project.listing import LISTING, paths_digest
from msacclint.project.outline import Outline

MAIN_BLOCK = re.compile(rb"^if\s+__name__\s*==\s*['\"]__main__['\"]\s*:", re.M)
#: a top-level statement that calls something or loops (the cheap test for "a script")
_TOP_LEVEL_WORK = re.compile(rb"^(?:for|while|with)\b|^[A-Za-z_][\w.]*\s*\(|^[A-Za-z_][\w.]*\s*=\s*[A-Za-z_][\w.]*\(",
                             re.M)
_RUN_LINE = re.compile(r"(?:^|[\s;&|`(])(?:python[\d.]*|python3|pypy3?|torchrun|msrun|mpirun[^\n]*?python[\d.]*)"
                       r"(?:\s+-[A-Za-z]+(?:\s+\S+)?)*?\s+(-m\s+[\w.]+|[^\s;&|`)]+\.py)\b", re.M)
_SCRIPT_SUFFIXES = (".sh", ".bash")
_README_SUFFIXES = (".md", ".rst", ".txt")
_SCRIPT_NAMES = ("Makefile", "makefile", "Dockerfile", "Procfile")
#: folders whose code is not an installable package's public API
_NOT_API = frozenset({"tests", "test", "examples", "example", "docs", "doc", "scripts", "script", "benchmarks",
                      "benchmark", "tools", "demo", "demos", "tutorials", "samples"})


class EntryQueries:
    """A mixin of ProjectIndex: see the module's docstring."""

    def named_scripts(self) -> Dict[str, str]:
        """Python files the repository's scripts, Makefiles, READMEs and packaging name as
        run (``python train.py``, ``python -m pkg.tool``, console scripts): path -> where."""
        state = self._reach_state()
        if state.named is not None:
            return state.named
        found: Dict[str, str] = {}
        by_tail: Dict[str, List[str]] = {}
        for path in self.files:
            by_tail.setdefault(os.path.basename(path), []).append(path)
        for text_path in self._script_texts():
            try:
                with open(text_path, encoding="utf-8", errors="replace") as handle:
                    text = handle.read(400_000)
            except OSError:
                continue
            where = self.display(text_path)
            for match in _RUN_LINE.finditer(text):
                named = match.group(1)
                line = text.count("\n", 0, match.start(1)) + 1
                targets = self._script_targets(named, text_path, by_tail)
                for target in targets:
                    found.setdefault(target, f"{where}:{line}")
                if targets:
                    self._note_arguments(text, match.end(1), f"{where}:{line}", targets)
        for target, where in self._console_scripts().items():
            found.setdefault(target, where)
        state.named = found
        return found

    def _note_arguments(self, text: str, start: int, where: str, targets: List[str]) -> None:
        """The ``--key value`` / ``--key=value`` arguments of a command line that runs a script
        of the repository (a ``\\`` continues it on the next line): what a run supplies for a
        config key. A value holding a shell variable is unknown (None)."""
        state = self._reach_state()
        end = start
        while True:
            end = text.find("\n", end)
            if end < 0:
                end = len(text)
                break
            back = end - 1
            while back > start and text[back] in " \t\r":
                back -= 1
            if back > start and text[back] == "\\":
                end += 1
                continue
            break
        tokens = text[start:end].replace("\\\n", " ").split()
        for i, token in enumerate(tokens):
            if token in ("&&", "||", ";", "|", ">", ">>", "&"):
                break
            if not token.startswith("--") or len(token) < 3:
                continue
            key, eq, value = token[2:].partition("=")
            if not eq:
                value = tokens[i + 1] if i + 1 < len(tokens) and not tokens[i + 1].startswith("-") else "True"
            value = value.strip("'\"")
            known = None if "$" in value or "`" in value else value
            state.cli.setdefault(key.replace("-", "_"), []).extend((known, where, target) for target in targets)

    def command_line_values(self, key: str, near: str) -> Optional[List[Tuple[Optional[str], str]]]:
        """What the command lines that run a script of the project ``near`` belongs to pass for
        ``--key`` (as text, None for a value a shell variable holds), each with where; None
        when none passes it."""
        self.named_scripts()
        unit = self._unit(near).rstrip(os.sep) + os.sep
        found = [(value, where) for value, where, target in self._reach_state().cli.get(key, ())
                 if target.startswith(unit)]
        return found or None

    def _script_texts(self) -> Iterator[str]:
        for folder, dirs, files in os.walk(self.root):
            dirs[:] = [d for d in dirs if not d.startswith(".") and d not in ("node_modules", "__pycache__", "build",
                                                                                 "dist", "site-packages")]
            depth = folder[len(self.root):].count(os.sep)
            if depth > 8:
                dirs[:] = []
            for name in files:
                if name.endswith(_SCRIPT_SUFFIXES) or name in _SCRIPT_NAMES or \
                        (name.lower().startswith("readme") and name.endswith(_README_SUFFIXES)):
                    yield os.path.join(folder, name)

    def _script_targets(self, named: str, text_path: str, by_tail: Dict[str, List[str]]) -> List[str]:
        if named.startswith("-m"):
            module = named[2:].strip()
            parts = module.split(".")
            out = []
            for base in (os.path.dirname(text_path), os.path.dirname(os.path.dirname(text_path)), self.root):
                for candidate in (os.path.join(base, *parts) + ".py", os.path.join(base, *parts, "__main__.py")):
                    if os.path.normpath(candidate) in self.files:
                        out.append(os.path.normpath(candidate))
            return out[:1]
        named = re.sub(r"^\$\{?\w+\}?/", "", named.strip("'\""))
        tail = os.path.basename(named)
        candidates = by_tail.get(tail, [])
        if not candidates:
            return []
        rel = [p for p in named.replace("\\", "/").split("/") if p not in ("", ".", "..")]
        folder = os.path.dirname(text_path)
        # the file the relative path names from the script's folder or its parents; else every
        # file of that name below the script's parent folder (scripts/run.sh naming train.py)
        for base in (folder, os.path.dirname(folder), os.path.dirname(os.path.dirname(folder)), self.root):
            direct = os.path.normpath(os.path.join(base, named))
            if direct in self.files:
                return [direct]
        suffix = os.sep + os.path.join(*rel) if rel else ""
        scope = os.path.dirname(folder) if os.path.basename(folder) in ("scripts", "script", "shell", "bin") \
            else folder
        near = [p for p in candidates if p.endswith(suffix) and p.startswith(scope.rstrip(os.sep) + os.sep)]
        return near or [p for p in candidates if p.endswith(suffix)][:3]

    def _console_scripts(self) -> Dict[str, str]:
        """Modules ``[project.scripts]``/``entry_points`` name (``tool = pkg.cli:main``)."""
        out: Dict[str, str] = {}
        for name in ("pyproject.toml", "setup.py", "setup.cfg"):
            path = os.path.join(self.root, name)
            try:
                with open(path, encoding="utf-8", errors="replace") as handle:
                    text = handle.read(200_000)
            except OSError:
                continue
            for match in re.finditer(r"=\s*['\"]?([A-Za-z_][\w.]*):([A-Za-z_]\w*)", text):
                module = match.group(1)
                target = self.find_module(module, os.path.join(self.root, "setup.py"))
                if target is not None:
                    out.setdefault(target, f"{name} (console script {match.group(1)}:{match.group(2)})")
        return out

    def entry(self, path: str) -> Optional[str]:
        """Why the file ``path`` is an entry point of the repository, or None."""
        path = os.path.normpath(os.path.abspath(path))
        if path.endswith(".ipynb"):
            return "a notebook"
        named = self.named_scripts().get(path)
        if named is not None:
            return f"run by {named}"
        found = self.outline(path)
        if found is None or found.broken:
            return None
        if found.main:
            return "its main block runs when it is run"
        if self._pytest_module(path, found):
            return "pytest collects it"
        if found.script:
            return f"a script: its code at line {found.script} runs when it is run"
        for callee, line in found.top_calls:
            head = callee.split(".")[0]
            bound = found.bindings.get(head, "")
            if bound == "mindspore" or bound.startswith("mindspore.") or head in found.defs or \
                    self._resolve(path, found, callee) is not None:
                # builds something of MindSpore or of the project when it is run
                return f"a script: its code at line {line} calls `{callee}` when it is run"
        return None

    @staticmethod
    def _pytest_module(path: str, found: Outline) -> bool:
        name = os.path.basename(path)
        if not (name.startswith("test_") or name.endswith("_test.py")):
            return False
        return any(q.lower().startswith("test") and not d.parent for q, d in found.defs.items())

    def has_entry_points(self) -> bool:
        """Whether the repository runs anything itself (else it is a library)."""
        state = self._reach_state()
        if state.any_entry is None:
            state.any_entry = bool(self.named_scripts()) or any(p.endswith(".ipynb") for p in self.files)
            if not state.any_entry:
                for path in sorted(self.files):
                    data = self._bytes(path) or b""
                    if MAIN_BLOCK.search(data) or (_TOP_LEVEL_WORK.search(data) and self.entry(path)):
                        state.any_entry = True
                        break
            self._used[LISTING + self.root] = paths_digest(list(self.files) + list(self.configs.paths))
        return state.any_entry

    def installable_packages(self) -> List[str]:
        """Folders of the packages the repository's packaging installs (their public names are
        an API others call): the top-level packages, below the root or ``src/``, when
        ``setup.py``/``setup.cfg``/``pyproject.toml`` declares a build."""
        state = self._reach_state()
        if state.installable is not None:
            return state.installable
        declared = False
        for name, pattern in (("setup.py", r"\bsetup\s*\([^)]*?(?:packages|py_modules)\s*="),
                              ("setup.cfg", r"^\s*packages\s*="),
                              ("pyproject.toml", r"^\[(?:project|tool\.poetry)\]")):
            try:
                with open(os.path.join(self.root, name), encoding="utf-8", errors="replace") as handle:
                    if re.search(pattern, handle.read(200_000), re.M | re.S):
                        declared = True
            except OSError:
                continue
        out: List[str] = []
        if declared:
            for base in (self.root, os.path.join(self.root, "src")):
                try:
                    names = sorted(os.listdir(base))
                except OSError:
                    continue
                for name in names:
                    folder = os.path.join(base, name)
                    if name in _NOT_API or name.startswith((".", "_")):
                        continue
                    if os.path.join(folder, "__init__.py") in self.files:
                        out.append(folder)
        state.installable = out
        return out

    def _some_entries(self, path: str) -> Tuple[str, ...]:
        """A few entry points of the repository, the nearest to ``path`` first."""
        state = self._reach_state()
        if state.main_blocks is None:
            state.main_blocks = {p for p in self.files if MAIN_BLOCK.search(self._bytes(p) or b"") is not None}
        candidates = set(self.named_scripts()) | state.main_blocks

        def distance(other: str) -> Tuple[int, str]:
            common = os.path.commonpath([path, other])
            return (path.count(os.sep) - common.count(os.sep), other)

        return tuple(self.display(p) for p in sorted(candidates, key=distance)[:3])

    def _package_of(self, path: str) -> str:
        for folder in self.installable_packages():
            if path.startswith(folder.rstrip(os.sep) + os.sep):
                return folder
        return ""

    def _public_module(self, path: str) -> bool:
        package = self._package_of(path)
        if not package:
            return False
        parts = os.path.relpath(path, package).split(os.sep)
        return not any(p.startswith("_") and p != "__init__.py" or p in _NOT_API for p in parts)

    def _entry_folder(self, path: str) -> str:
        """The nearest folder above ``path`` holding a file with a main block or a file the
        scripts run, else the repository root."""
        state = self._reach_state()
        if state.entry_folders is None:
            state.entry_folders = {os.path.dirname(p) for p in self.named_scripts()}
            for other in self.files:
                folder = os.path.dirname(other)
                if folder not in state.entry_folders and MAIN_BLOCK.search(self._bytes(other) or b""):
                    state.entry_folders.add(folder)
            self._used[LISTING + self.root] = paths_digest(list(self.files) + list(self.configs.paths))
        folder = os.path.dirname(path)
        while len(folder) > len(self.root):
            if folder in state.entry_folders:
                return folder
            folder = os.path.dirname(folder)
        return self.root

    def _unit(self, path: str) -> str:
        """The project a file belongs to inside the repository: the nearest folder above it
        that holds an entry point of its own (a model folder of a model zoo), else the
        repository."""
        return self._entry_folder(path)
