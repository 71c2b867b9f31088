"""The MindSpore version a project declares in its own files.

Looked for from a folder up to the repository's root (the nearest declaration wins), in each
folder in this order: ``requirements*.txt``, ``setup.py`` / ``setup.cfg`` / ``pyproject.toml``
dependencies, ``environment*.yml``, a ``Dockerfile``'s pip lines, and where nothing else says it,
the README's install line (``pip install mindspore==2.2.0``, a release wheel's URL, or a
``mindspore==``/``>=`` requirement written in its text). The packages are MindSpore's own:
``mindspore``, and the 1.x ``mindspore-gpu``/``mindspore-ascend``/``mindspore-cpu`` (any of ``-``,
``_``). Files are read as text, never run; a file over 1 MB is skipped.

The declaration is a requirement (``==2.2.0``, ``>=1.8,<2.0``, ``~=2.3``) and the version it
stands for: an exact pin is that release; a range is the newest release of ``KNOWN`` that it
admits (a project that accepts 2.10 is checked against 2.10), else its lower bound (``<2.0``
alone: the newest 1.x release known).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, List, Optional, Sequence, Tuple

from msacclint.analysis.versions import parse as parse_version

#: releases the range resolution may name (newest first within a line)
KNOWN: Tuple[str, ...] = (
    "1.0.1", "1.1.1", "1.2.1", "1.3.0", "1.5.2", "1.6.2", "1.7.1", "1.8.1", "1.9.0", "1.10.1",
    "2.0.0", "2.1.1", "2.2.14", "2.3.1", "2.4.1", "2.5.0", "2.6.0", "2.7.1", "2.8.0", "2.9.0", "2.10.0",
)
_LIMIT = 1_000_000
_PACKAGE = r"mindspore(?:[-_](?:gpu|ascend|cpu|dev))?"
#: a requirement of the package: name, then an optional version specifier list
_REQUIREMENT = re.compile(r"(?<![\w./-])(" + _PACKAGE + r")(?![\w.-]*/)\s*((?:[=~!<>]=?|===)\s*[\w.*+!-]+"
                          r"(?:\s*,\s*(?:[=~!<>]=?|===)\s*[\w.*+!-]+)*)?", re.IGNORECASE)
#: a release wheel (a URL or a file name): mindspore_gpu-1.8.1-cp37-...whl
_WHEEL = re.compile(r"(" + _PACKAGE + r")-(\d+\.\d+(?:\.\d+)?)(?:[.-]\w+)*\.whl", re.IGNORECASE)
_INSTALL = re.compile(r"\b(?:pip3?|conda|mamba|uv pip)\s+install\b", re.IGNORECASE)
_SPEC = re.compile(r"(===|==|~=|!=|>=|<=|>|<)\s*([\w.*+!-]+)")


@dataclass(frozen=True)
class Declared:
    """A project's MindSpore requirement and where it is written."""

    requirement: str
    #: the release the project is checked against (see the module's docs)
    version: str
    #: the file, relative to the folder the search started from's repository root when known
    path: str
    line: int

    def describe(self) -> str:
        return f"{self.path}:{self.line}: {self.requirement}"


def _releases(spec: str, package: str = "mindspore") -> List[str]:
    """The releases of ``KNOWN`` a specifier list admits, oldest first (the 1.x packages
    ``mindspore-gpu``/``-ascend``/``-cpu`` had no 2.x release)."""
    conditions = _SPEC.findall(spec)
    admitted = []
    suffixed = package.lower().replace("_", "-") != "mindspore"
    for release in KNOWN:
        if suffixed and not release.startswith("1."):
            continue
        have = parse_version(release)
        if have is None:
            continue
        ok = True
        for op, text in conditions:
            if "*" in text and op in ("==", "!="):
                prefix = text.split("*")[0].rstrip(".")
                same = release == prefix or release.startswith(prefix + ".")
                ok = ok and (same if op == "==" else not same)
                continue
            want = parse_version(text)
            if want is None:
                ok = False
                break
            if op in ("==", "==="):
                ok = ok and have[:len(want)] == want
            elif op == "!=":
                ok = ok and have[:len(want)] != want
            elif op == ">=":
                ok = ok and have >= want
            elif op == ">":
                ok = ok and have > want
            elif op == "<=":
                ok = ok and have[:len(want)] <= want
            elif op == "<":
                ok = ok and have < want
            elif op == "~=":
                ok = ok and have >= want and have[:max(len(want) - 1, 1)] == want[:max(len(want) - 1, 1)]
        if ok:
            admitted.append(release)
    return admitted


def version_for(spec: str, package: str = "mindspore") -> Optional[str]:
    """The release a specifier stands for (see the module's docs); None for an empty one."""
    conditions = _SPEC.findall(spec)
    if not conditions:
        return None
    for op, text in conditions:
        if op in ("==", "===") and "*" not in text and parse_version(text):
            return text
    admitted = _releases(spec, package)
    if admitted:
        return admitted[-1]
    lower = [text for op, text in conditions if op in (">=", ">", "~=") and parse_version(text)]
    return lower[0] if lower else None


def _requirements_in(text: str, install_lines_only: bool = False) -> Iterator[Tuple[int, str, str]]:
    """(line, requirement as written, version) of every MindSpore requirement in ``text``."""
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.split("#", 1)[0] if not install_lines_only else line
        for wheel in _WHEEL.finditer(line):
            yield number, f"{wheel.group(1)}-{wheel.group(2)} (a release wheel)", wheel.group(2)
        if install_lines_only and not _INSTALL.search(line) and "mindspore" not in line.lower():
            continue
        for found in _REQUIREMENT.finditer(stripped):
            spec = (found.group(2) or "").replace(" ", "")
            if not spec:
                continue
            version = version_for(spec, found.group(1))
            if version is not None:
                yield number, f"{found.group(1)}{spec}", version


def _read(path: Path) -> Optional[str]:
    try:
        if path.stat().st_size > _LIMIT:
            return None
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def _candidates(folder: Path) -> Iterator[Tuple[Path, bool]]:
    """The files of a folder that may declare the version, in the order they are trusted; the
    flag says the file is prose (only its install lines count)."""
    try:
        names = sorted(p.name for p in folder.iterdir() if p.is_file())
    except OSError:
        return
    lowered = {n.lower(): n for n in names}
    for name in names:
        if name.lower().startswith("requirement") and name.lower().endswith((".txt", ".in")):
            yield folder / name, False
    for name in ("setup.py", "setup.cfg", "pyproject.toml"):
        if name in lowered:
            yield folder / lowered[name], False
    for name in names:
        if name.lower().startswith("environment") and name.lower().endswith((".yml", ".yaml")):
            yield folder / name, False
    for name in names:
        if name.lower().startswith("dockerfile"):
            yield folder / name, True
    for name in names:
        if name.lower().startswith("readme") and name.lower().endswith((".md", ".rst", ".txt", "")):
            yield folder / name, True


def find(start: Path, root: Optional[Path] = None) -> Optional[Declared]:
    """The nearest declaration from ``start`` (a folder or a file's folder) up to ``root``
    (inclusive; default: the first folder holding ``.git``, else ``start`` alone)."""
    start = start.resolve()
    if start.is_file():
        start = start.parent
    folders: List[Path] = []
    for folder in (start, *start.parents):
        folders.append(folder)
        if root is not None and folder == root.resolve():
            break
        if root is None and (folder / ".git").exists():
            break
    else:
        if root is None:
            folders = [start]
    base = folders[-1]
    for folder in folders:
        for path, prose in _candidates(folder):
            text = _read(path)
            if not text or "mindspore" not in text.lower():
                continue
            for line, requirement, version in _requirements_in(text, install_lines_only=prose):
                try:
                    shown = path.relative_to(base).as_posix()
                except ValueError:
                    shown = path.name
                return Declared(requirement, version, shown, line)
    return None


def line_of(version: str) -> Sequence[int]:
    """The (major, minor) of a release, for comparing lines."""
    parsed = parse_version(version)
    return parsed[:2] if parsed else ()
