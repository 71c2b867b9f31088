"""``msacclint check --fix`` / ``--unsafe-fixes`` / ``--diff``.

Ruff's applicability model: ``--fix`` applies the safe fixes (they keep behaviour and
make it explicit), ``--unsafe-fixes`` adds the unsafe ones (they change the code to what
it most likely meant; a diagnostic with both prefers its unsafe alternative then).
``--diff`` prints what would change as a unified diff and writes nothing.

A file is only written when its fixed text parses (LibCST, and ``ast`` when the original
compiled), atomically (a temporary file in the same folder, then ``os.replace``, keeping
the file's mode), in its own encoding (a UTF-8 BOM, or a PEP 263 coding line) and with
its line endings as they were. A file that did not
parse, or could not be read or decoded, is never touched. What is left after fixing is
reported like ``msacclint check`` reports it.
"""

from __future__ import annotations

import argparse
import ast
import difflib
import os
import stat
import sys
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

import libcst as cst

from msacclint.diagnostics import Diagnostic
from msacclint.engine.atomic import replace_file
from msacclint.engine.batch import check_files
from msacclint.engine.fixes import fix_source
from msacclint.engine.runner import check_source, read_source
from msacclint.engine.settings import Settings

EXIT_CLEAN, EXIT_FOUND = 0, 1


@dataclass
class FileFix:
    """The outcome of fixing one file."""

    path: str
    original: str
    fixed: str
    applied: int
    #: the file's encoding (``utf-8-sig`` when it starts with a BOM, or its coding line's)
    encoding: str = "utf-8"
    #: the diagnostics of the fixed text
    remaining: List[Diagnostic] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return self.applied > 0 and self.fixed != self.original


def _compiles(text: str) -> bool:
    try:
        ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def _parses(text: str) -> bool:
    try:
        cst.parse_module(text)
    except Exception:
        return False
    return True


def fix_text(text: str, path: str, settings: Settings, unsafe: bool,
             explicit: bool = False) -> Tuple[str, int, List[Diagnostic]]:
    """The fixed text, how many fixes were applied, and what the engine still finds in
    the result. The text is returned unchanged when the fixes would break it.
    ``explicit`` applies the KEEP edits of ``--add-explicit`` instead of fixes."""
    seen: Dict[str, List[Diagnostic]] = {}

    def check(candidate: str) -> List[Diagnostic]:
        if candidate not in seen:
            seen.clear()  # only the latest text is asked for again
            seen[candidate] = check_source(candidate, path, settings)
        return seen[candidate]

    from msacclint.engine.fixes import configured_line_length

    fixed, applied = fix_source(text, check, unsafe=unsafe, explicit=explicit,
                                line_length=configured_line_length(path))
    if applied and fixed != text:
        # fix_source only hands back text LibCST parses; also insist that Python itself
        # still compiles it when it compiled before.
        if not _parses(fixed) or (_compiles(text) and not _compiles(fixed)):
            return text, 0, check(text)
    return fixed, applied, check(fixed)


def fix_file(path: str, settings: Settings, unsafe: bool, explicit: bool = False) -> Optional[FileFix]:
    """Fix one file in memory; None when it cannot be read, decoded or parsed (such a
    file is left alone; ``check`` reports why). A notebook's code cells are fixed in
    place (msacclint/engine/notebook.py); its FileFix holds the notebook's JSON text."""
    if path.endswith(".ipynb"):
        from msacclint.engine.notebook import fix_notebook

        nb = fix_notebook(path, settings, unsafe, explicit)
        if nb is None:
            return None
        return FileFix(path, nb.original.decode("utf-8"), nb.fixed.decode("utf-8"), nb.applied, "utf-8",
                       nb.remaining)
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    text, encoding, problem = read_source(data)
    if problem is not None or not _parses(text):
        return None
    fixed, applied, remaining = fix_text(text, path, settings, unsafe, explicit)
    try:
        fixed.encode(encoding)
    except UnicodeEncodeError:  # a fix brought in a character the file's encoding cannot hold
        return None
    return FileFix(path, text, fixed, applied, encoding, remaining)


def write_atomically(path: str, data: bytes) -> None:
    """Replace ``path``'s content atomically, keeping its permission bits. A symbolic link
    stays a link: its target is replaced."""
    path = os.path.realpath(path)
    replace_file(path, data, mode=stat.S_IMODE(os.stat(path).st_mode), durable=True)


def unified_diff(result: FileFix) -> str:
    """The change of one file as a unified diff (``a/path`` -> ``b/path``)."""
    name = result.path.replace(os.sep, "/")
    lines = difflib.unified_diff(result.original.splitlines(keepends=True), result.fixed.splitlines(keepends=True),
                                 fromfile=f"a/{name}", tofile=f"b/{name}")
    out = []
    for line in lines:
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def run(files: Sequence[str], settings: Settings, args: argparse.Namespace) -> int:
    """The ``check --fix`` / ``--diff`` run over the discovered files."""
    from msacclint.frontends.cli import emit

    unsafe = bool(args.unsafe_fixes)
    # --add-explicit: write out the current behaviour where a finding offers that (KEEP
    # edits, never applied by --fix); see docs/fixes.md
    explicit = bool(getattr(args, "add_explicit", False))
    # One (cached, parallel) check first: only files with an applicable fix are fixed.
    before = check_files(files, settings, jobs=args.jobs, use_cache=not args.no_cache)
    by_path: Dict[str, List[Diagnostic]] = {}
    for d in before:
        by_path.setdefault(d.path, []).append(d)
    results: Dict[str, FileFix] = {}
    for path in files:
        if any(d.fix_for(unsafe, explicit) is not None for d in by_path.get(path, ())):
            result = fix_file(path, settings, unsafe, explicit)
            if result is not None and result.changed:
                results[path] = result

    fixed_count = sum(r.applied for r in results.values())
    if args.diff:
        for path in files:
            if path in results:
                sys.stdout.write(unified_diff(results[path]))
        word = "Would fix" if fixed_count else "No fixes available"
        tail = f" {_plural(fixed_count, 'problem')} in {_plural(len(results), 'file')}." if fixed_count else "."
        print(word + tail, file=sys.stderr)
        return EXIT_FOUND if results else EXIT_CLEAN

    for path, result in results.items():
        data = result.fixed.encode(result.encoding)
        write_atomically(path, data)

    remaining: List[Diagnostic] = []
    for path in files:
        remaining.extend(results[path].remaining if path in results else by_path.get(path, ()))
    remaining.sort(key=Diagnostic.sort_key)
    emit(remaining, args)
    print(summary(fixed_count, len(results), remaining, unsafe), file=sys.stderr)
    if remaining and not args.exit_zero:
        return EXIT_FOUND
    return EXIT_CLEAN


def summary(fixed: int, files_changed: int, remaining: Sequence[Diagnostic], unsafe: bool) -> str:
    found = fixed + len(remaining)
    if not found:
        return "All checks passed."
    if fixed:
        text = (f"Found {_plural(found, 'problem')} ({fixed} fixed in {_plural(files_changed, 'file')}, "
                f"{len(remaining)} remaining).")
    else:
        text = f"Found {_plural(found, 'problem')} (no fix applied)."

    if not unsafe:
        hidden = sum(1 for d in remaining if d.fix_for(True) is not None)
        if hidden:
            text += f" {hidden} more {'fix' if hidden == 1 else 'fixes'} available with --unsafe-fixes."
    return text
