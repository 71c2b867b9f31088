"""Who names a definition: whole-word and token counts of a name in the project's Python and
config files (what "every call is seen" and today's dormant-code notes are decided from),
and the files that extend a class or run a call on import. A mixin of ``ProjectIndex``
(msacclint.project.index).
"""

from __future__ import annotations

import io
import os
import re
import tokenize
from typing import Any, Dict, Optional, Set, Tuple

from msacclint.project.listing import LISTING, paths_digest
from msacclint.project.values import Evidence

_WORD = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")


class MentionQueries:
    """A mixin of ProjectIndex: see the module's docstring."""

    _EXPORTS = re.compile(rb"^__all__\s*[+]?=\s*[\[(]([^\])]*)[\])]", re.M)

    def _near(self, other: str, near: Optional[str], also: Set[str]) -> bool:
        """Whether a mention in ``other`` may be of the definition of ``near``: ``other`` is of
        the same project of the repository or imports its module (a model zoo's other copies
        name their own), or is one of ``also`` (files seen calling it)."""
        return near is None or other in also or self._may_name(other, near)

    def _mentions(self, name: str, near: Optional[str] = None, also: Set[str] = frozenset()) -> int:
        """Occurrences of ``name`` in the project: in Python files, as a name token or as a
        string literal that is exactly the name (``getattr(models, "Net")``, a registry
        key), never in comments or inside longer text (a docstring's ``>>> Net(...)``); in
        config files, as a whole word. With ``near`` (the file defining it), only in files
        that may mean that definition (``_near``; config files of its project)."""
        word = name.encode()
        pattern = re.compile(rb"\b" + re.escape(word) + rb"\b")
        total = 0
        for other in sorted(self.files):
            data = self._bytes(other)
            if data and word in data and self._near(other, near, also):
                self._depend(other)
                total += self._name_count(other, data, name, pattern)
        unit = self._unit(near).rstrip(os.sep) + os.sep if near is not None else ""
        for other in sorted(self.configs.paths):
            data = self._bytes(other)
            if data and word in data and other.startswith(unit):
                self._depend(other)
                total += len(pattern.findall(data))
        self._used[LISTING + self.root] = paths_digest(list(self.files) + list(self.configs.paths))
        return total

    def named_config(self, path: str, name: str) -> Optional[Tuple[str, Any]]:
        """The config file of the project that ``path``'s code names by ``name`` (resolved from
        its folder, the one above, then the project root, as a loader's summary is): (the path as
        shown, its ConfigFile); None when it is not in the project or cannot be read."""
        for base in (os.path.dirname(path), os.path.dirname(os.path.dirname(path)), self.root):
            candidate = os.path.normpath(os.path.join(base, name))
            if self.configs.exists(candidate):
                self._depend(candidate)
                config = self.configs.get(candidate)
                return None if config.problem else (self.display(candidate), config)
        return None

    def attribute_uses(self, name: str, configs: bool = True) -> int:
        """How many times the project may read ``name`` off an object: ``.name`` (an attribute,
        ``args.name``) or a string literal that is exactly the name (``getattr(args, 'name')``,
        ``cfg['name']``) in its Python files, comments included (more uses, never fewer), and
        whole words in its YAML/JSON files. A bare name, a parameter or a keyword of that name is
        not a read of an object. Zero: nothing names it so. ``configs=False``: Python files only."""
        word = name.encode()
        attribute = re.compile(rb"\.[ \t]*" + re.escape(word) + rb"\b")
        quoted = re.compile(rb"(['\"])" + re.escape(word) + rb"\1")
        whole = re.compile(rb"\b" + re.escape(word) + rb"\b")
        total = 0
        for other in sorted(self.files):
            data = self._bytes(other)
            if data and word in data:
                self._depend(other)
                total += len(attribute.findall(data)) + len(quoted.findall(data))
        for other in sorted(self.configs.paths) if configs else ():
            data = self._bytes(other)
            if data and word in data:
                self._depend(other)
                total += len(whole.findall(data))
        self._used[LISTING + self.root] = paths_digest(list(self.files) + list(self.configs.paths))
        return total

    def _name_count(self, path: str, data: bytes, name: str, pattern: Any) -> int:
        """``_name_tokens`` of ``path``'s text, from the file's token counts, made once per
        text (a file is tokenized once, not once per name asked about)."""
        if not name.isidentifier():
            return _name_tokens(data, name, pattern)
        counts = self._token_counts.get(path, _MISSING)
        if counts is _MISSING:
            counts = self._token_counts[path] = _count_tokens(data)
        if counts is None:  # the tokenizer refuses the file: whole words
            return len(pattern.findall(data))
        return counts.get(name, 0)

    _MODULE_PATHS = re.compile(
        rb"^[ \t]*(?:from[ \t]+([\w.]+)[ \t]+import\b|import[ \t]+([\w.]+(?:[ \t]*,[ \t]*[\w.]+)*))", re.M)

    def _import_mentions(self, name: str, near: Optional[str] = None, also: Set[str] = frozenset()) -> int:
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
            if name.encode() in data and self._near(other, near, also):
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

    def _word_index(self) -> Dict[str, frozenset]:
        """path -> the words of its text, for every Python and config file (built once)."""
        if self._words is None:
            self._words = {}
            for other in sorted(self.files) + sorted(self.configs.paths):
                data = self._bytes(other)
                if data:
                    self._words[other] = frozenset(_WORD.findall(data))
        return self._words

    def referrers(self, path: str, name: str, own: bool = True) -> Optional[str]:
        """A file of the project whose text names ``name`` (defined in ``path``) other than
        its definition: ``path`` itself when it names it more than once, another Python or
        config file, or None when nothing does. Whole words are counted in the files' text,
        comments and strings included, so registries, ``__all__`` lists, ``getattr`` names
        and YAML model names count as uses (a None answer is the conservative one). With
        ``own=False`` the file's own mentions are not counted: other files only."""
        path = os.path.normpath(os.path.abspath(path))
        word = name.encode()
        words = self._word_index()
        if own and len(re.findall(rb"\b" + re.escape(word) + rb"\b", self._bytes(path) or b"")) > 1:
            return path
        own_definition = re.compile(rb"^(?:class|def)\s+" + re.escape(word) + rb"\b", re.M)
        for other, found in words.items():
            if other != path and word in found:
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


_MISSING: Any = object()


def _count_tokens(data: bytes) -> Optional[Dict[str, int]]:
    """How many times each identifier is a name token of ``data``, plus the string literals
    that are exactly a quoted identifier (``'Net'``, ``"Net"``), counted under it: what
    ``_name_tokens`` counts, for every name at once. None when the tokenizer refuses the file."""
    counts: Dict[str, int] = {}
    name_type, string_type = tokenize.NAME, tokenize.STRING
    try:
        for token in tokenize.tokenize(io.BytesIO(data).readline):
            kind, text = token.type, token.string
            if kind == name_type:
                counts[text] = counts.get(text, 0) + 1
            elif kind == string_type and len(text) > 2 and text[0] in "'\"" and text[-1] == text[0]:
                inner = text[1:-1]
                if inner.isidentifier():
                    counts[inner] = counts.get(inner, 0) + 1
    except (tokenize.TokenError, SyntaxError, UnicodeDecodeError, ValueError):
        return None
    return counts


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

