"""What the supported MindSpore releases have: names, submodules and call signatures.

The surface is data (rules/api_surface/mindspore-cpu.json), made by the probe from the
installed wheels of every supported release (``msacclint probe --api-surface``, merged by
``python -m msacclint.probe.surface merge``; docs/probe.md). This module reads it and never
imports MindSpore. It answers:

- does a qualified name exist on every / some / no supported release, or on the configured
  one (``exists``, ``presence``, ``considered``, ``Surface.release_for``);
- does a callable accept a keyword, or this many positional arguments (``accepts``,
  ``Signature``);
- does a module exist (``module_presence``), and may ``from module import name`` work;
- the MindSpore spelling to suggest for a name or keyword that is missing (``suggest_name``,
  ``suggest_keyword``: rules/api_surface/spellings.toml first, then the surface itself).

Names are looked up as they are written, through the modules the probe walked (the surface
records every attribute of each walked module, so a name MindSpore re-exports is found
where it is reachable, not only where it is defined). A name under a module the probe did
not walk (``mindspore.nn.layer.basic.Dense``) or an attribute of a class is *unknown*: no
question about it is answered with "absent".

The merged file's format (schema 1):

``versions``: the releases, oldest first; a *mask* is an int whose bit i stands for
``versions[i]``. ``walked``: module -> mask of the releases whose members were recorded.
``modules``: module -> mask of the releases where it can be imported (every public module of
the package, and every submodule of a walked one, private ones too). ``members``: module ->
name -> an entry or a list of [mask, entry] (an entry that is the same on every release of
the module's walked mask is written alone). An entry is a kind letter - ``c`` class, ``f``
other callable, ``v`` other value, ``m`` module - then flags, then ``:`` and the signature
when it is known: ``k`` a call with an unknown keyword was seen to raise TypeError, ``p`` a
call with one positional argument too many was seen to raise TypeError. A module entry may
carry ``:real.name``. A signature is Python's parameter list without annotations or default
values: ``a,b,/,c=,*args,d,e=,**kw`` (``=``: has a default; ``/`` and ``*`` as in Python).
``rejected``: combination id -> api -> mask of the releases where the probe saw every
rejected form of rules/api_surface/rejected.toml raise and every accepted form construct.
"""

from __future__ import annotations

import difflib
import functools
import json
from dataclasses import dataclass
from typing import Any, Dict, FrozenSet, Iterable, List, Mapping, Optional, Sequence, Tuple

from msacclint.analysis.versions import parse
from msacclint.data import data_dir, load_toml

SURFACE_FILE = "api_surface/mindspore-cpu.json"
SPELLINGS_FILE = "api_surface/spellings.toml"
REJECTED_FILE = "api_surface/rejected.toml"

#: parameter kinds, as Python's inspect names them
POSITIONAL_ONLY = "positional-only"
POSITIONAL_OR_KEYWORD = "positional-or-keyword"
VAR_POSITIONAL = "*args"
KEYWORD_ONLY = "keyword-only"
VAR_KEYWORD = "**kwargs"


@dataclass(frozen=True)
class Param:
    name: str
    kind: str
    has_default: bool


@dataclass(frozen=True)
class Signature:
    params: Tuple[Param, ...]

    @classmethod
    def parse(cls, text: str) -> Signature:
        """The inverse of ``encode``: ``a,/,b=,*args,c,**kw`` -> params."""
        params: List[Param] = []
        if not text:
            return cls(())
        parts = text.split(",")
        kind = POSITIONAL_OR_KEYWORD
        if "/" in parts:
            kind = POSITIONAL_ONLY
        for part in parts:
            if part == "/":
                kind = POSITIONAL_OR_KEYWORD
                continue
            if part == "*":
                kind = KEYWORD_ONLY
                continue
            if part.startswith("**"):
                params.append(Param(part[2:], VAR_KEYWORD, False))
                continue
            if part.startswith("*"):
                params.append(Param(part[1:], VAR_POSITIONAL, False))
                kind = KEYWORD_ONLY
                continue
            has_default = part.endswith("=")
            params.append(Param(part.rstrip("="), kind, has_default))
        return cls(tuple(params))

    def encode(self) -> str:
        return encode(self.params)

    @property
    def takes_any_keyword(self) -> bool:
        return any(p.kind == VAR_KEYWORD for p in self.params)

    @property
    def max_positional(self) -> Optional[int]:
        """How many positional arguments a call may pass (None: any number, ``*args``)."""
        if any(p.kind == VAR_POSITIONAL for p in self.params):
            return None
        return sum(1 for p in self.params if p.kind in (POSITIONAL_ONLY, POSITIONAL_OR_KEYWORD))

    def keywords(self) -> Tuple[str, ...]:
        """The names a call may pass as keywords (not ``**kwargs``'s)."""
        return tuple(p.name for p in self.params if p.kind in (POSITIONAL_OR_KEYWORD, KEYWORD_ONLY))

    def accepts_keyword(self, name: str) -> bool:
        return self.takes_any_keyword or name in self.keywords()

    def accepts_positional(self, count: int) -> bool:
        most = self.max_positional
        return most is None or count <= most

    def positional_names(self) -> Tuple[str, ...]:
        """The parameters the positional arguments of a call fill, in order."""
        return tuple(p.name for p in self.params if p.kind in (POSITIONAL_ONLY, POSITIONAL_OR_KEYWORD))


def encode(params: Iterable[Param]) -> str:
    out: List[str] = []
    params = list(params)
    last_positional_only = max((i for i, p in enumerate(params) if p.kind == POSITIONAL_ONLY), default=-1)
    starred = False
    for i, p in enumerate(params):
        if p.kind == KEYWORD_ONLY and not starred:
            out.append("*")
            starred = True
        if p.kind == VAR_POSITIONAL:
            out.append("*" + p.name)
            starred = True
        elif p.kind == VAR_KEYWORD:
            out.append("**" + p.name)
        else:
            out.append(p.name + ("=" if p.has_default else ""))
        if i == last_positional_only:
            out.append("/")
    return ",".join(out)


@dataclass(frozen=True)
class Entry:
    """One name of one module on one release."""

    kind: str  # c f v m
    #: ``k``: an unknown keyword was seen to raise TypeError; ``p``: one positional too many was
    flags: str = ""
    signature: Optional[Signature] = None
    #: a module entry's own name when the attribute is another module (``ops.np``)
    target: Optional[str] = None

    @classmethod
    def parse(cls, text: str) -> Entry:
        head, colon, rest = text.partition(":")
        kind, flags = head[:1], head[1:]
        if kind == "m":
            return cls(kind, flags, None, rest or None)
        return cls(kind, flags, Signature.parse(rest) if colon else None)

    @property
    def callable(self) -> bool:
        return self.kind in ("c", "f")

    @property
    def rejects_unknown_keywords(self) -> bool:
        """A keyword outside the signature raises (seen by the probe, the signature has no
        ``**kwargs``)."""
        return "k" in self.flags and self.signature is not None and not self.signature.takes_any_keyword

    @property
    def rejects_extra_positionals(self) -> bool:
        return "p" in self.flags and self.signature is not None and self.signature.max_positional is not None


#: what a lookup found on one release
PRESENT, ABSENT, UNKNOWN = "present", "absent", "unknown"


@dataclass(frozen=True)
class Found:
    """A qualified name on one release: present (with its entry), absent (``missing`` is the
    first component the release lacks, e.g. ``mindspore.nn.Module``), or unknown."""

    state: str
    entry: Optional[Entry] = None
    missing: Optional[str] = None


class Surface:
    """The merged surface of every supported release."""

    def __init__(self, data: Mapping[str, Any]) -> None:
        self.versions: Tuple[str, ...] = tuple(data["versions"])
        self.all_mask = (1 << len(self.versions)) - 1
        self._walked: Dict[str, int] = dict(data.get("walked", {}))
        self._modules: Dict[str, int] = dict(data.get("modules", {}))
        self._members: Dict[str, Dict[str, Any]] = dict(data.get("members", {}))
        self._rejected: Dict[str, Dict[str, int]] = dict(data.get("rejected", {}))
        self._entries: Dict[Tuple[str, str], Tuple[Tuple[int, Optional[Entry]], ...]] = {}
        self._found: Dict[Tuple[str, str], Found] = {}
        self._index = {version: i for i, version in enumerate(self.versions)}

    # -- releases -----------------------------------------------------------------
    def index(self, version: str) -> Optional[int]:
        return self._index.get(version)

    def release_for(self, version: Optional[str]) -> Optional[str]:
        """The release of the surface that stands for a configured version: itself, else the
        nearest patch release of the same line (2.7.3 -> 2.7.2); None when the surface does
        not know the line (2.6, 2.11: nothing is decided for it)."""
        if not version:
            return None
        if version in self.versions:
            return version
        wanted = parse(version)
        if len(wanted) < 2:
            return None
        same_line = [v for v in self.versions if parse(v)[:2] == wanted[:2]]
        if not same_line:
            return None
        older = [v for v in same_line if parse(v) <= wanted]
        return older[-1] if older else same_line[0]

    def versions_of(self, mask: int) -> Tuple[str, ...]:
        return tuple(v for i, v in enumerate(self.versions) if mask >> i & 1)

    def mask_of(self, versions: Iterable[str]) -> int:
        mask = 0
        for version in versions:
            i = self.index(version)
            if i is not None:
                mask |= 1 << i
        return mask

    # -- modules --------------------------------------------------------------------
    def walked(self, module: str, version: str) -> bool:
        i = self.index(version)
        return i is not None and bool(self._walked.get(module, 0) >> i & 1)

    def module_exists(self, module: str, version: str) -> Optional[bool]:
        """Whether ``import module`` finds it on a release: True, False, or None (unknown:
        a private module the surface does not list, or not MindSpore)."""
        i = self.index(version)
        if i is None or not (module == "mindspore" or module.startswith("mindspore.")):
            return None
        if self._modules.get(module, 0) >> i & 1:
            return True
        parts = module.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            parent = ".".join(parts[:cut])
            if not self._modules.get(parent, 0) >> i & 1:
                continue
            child = parts[cut]
            # every public module of the package is listed, and every submodule of a walked
            # module; what is below a private module, or a private module elsewhere, is not
            if not self.walked(parent, version) and (
                    child.startswith("_") or any(p.startswith("_") for p in parts[:cut])):
                return None
            return False
        return None

    # -- names ----------------------------------------------------------------------
    def _entry(self, module: str, name: str, version: str) -> Optional[Entry]:
        key = (module, name)
        variants = self._entries.get(key)
        if variants is None:
            raw = self._members.get(module, {}).get(name)
            parsed: List[Tuple[int, Optional[Entry]]] = []
            if isinstance(raw, str):
                parsed.append((self._walked.get(module, 0), Entry.parse(raw)))
            elif isinstance(raw, list):
                parsed.extend((int(mask), Entry.parse(text)) for mask, text in raw)
            variants = self._entries[key] = tuple(parsed)
        i = self.index(version)
        if i is None:
            return None
        for mask, entry in variants:
            if mask >> i & 1:
                return entry
        return None

    def find(self, qualified: str, version: str) -> Found:
        """``mindspore.nn.Dense`` on one release: walk from the package through the walked
        modules; a submodule continues the walk, anything else ends it (memoised)."""
        key = (qualified, version)
        found = self._found.get(key)
        if found is None:
            found = self._found[key] = self._find(qualified, version)
        return found

    def _find(self, qualified: str, version: str) -> Found:
        parts = qualified.split(".")
        if parts[0] != "mindspore" or self.index(version) is None:
            return Found(UNKNOWN)
        current = "mindspore"
        for position in range(1, len(parts)):
            name = parts[position]
            if not self.walked(current, version):
                whole = ".".join(parts[: position + 1])
                if self.module_exists(whole, version):
                    current = whole
                    continue
                return Found(UNKNOWN)
            entry = self._entry(current, name, version)
            if entry is None:
                submodule = f"{current}.{name}"
                if self.module_exists(submodule, version):
                    current = submodule
                    continue
                if name.startswith("_"):
                    return Found(UNKNOWN)
                return Found(ABSENT, missing=f"{current}.{name}")
            if position == len(parts) - 1:
                return Found(PRESENT, entry)
            if entry.kind != "m":
                return Found(UNKNOWN)  # an attribute of a class or a value: not recorded
            current = entry.target or f"{current}.{name}"
        return Found(PRESENT, Entry("m")) if self.module_exists(current, version) else Found(UNKNOWN)

    def names_of(self, module: str, version: str) -> Tuple[str, ...]:
        """Every public name of a walked module on a release."""
        return tuple(name for name in self._members.get(module, {}) if self._entry(module, name, version) is not None)

    # -- argument combinations ------------------------------------------------------
    def rejected_on(self, combination: str, api: str) -> Tuple[str, ...]:
        """The releases where the probe saw the combination raise for this API."""
        return self.versions_of(self._rejected.get(combination, {}).get(api, 0))


@functools.lru_cache(maxsize=1)
def surface() -> Optional[Surface]:
    """The shipped surface, or None when the data file is missing (a broken install)."""
    try:
        with open(data_dir() / SURFACE_FILE, encoding="utf-8") as handle:
            return Surface(json.load(handle))
    except (OSError, ValueError, KeyError):
        return None


# -- many releases at once ------------------------------------------------------------
@dataclass(frozen=True)
class Presence:
    """A name over the releases considered: where it is present, absent, unknown."""

    present: Tuple[str, ...]
    absent: Tuple[str, ...]
    unknown: Tuple[str, ...]
    #: the first missing component (``mindspore.nn.Module``) on the releases that lack it
    missing: Optional[str] = None

    @property
    def nowhere(self) -> bool:
        """Absent on every release considered (and some release was considered)."""
        return bool(self.absent) and not self.present and not self.unknown


def considered(s: Surface, version: Optional[str]) -> Tuple[str, ...]:
    """The releases a question is decided for: the configured one alone (through
    ``release_for``; none when the surface does not know its line), else every release."""
    if version:
        release = s.release_for(version)
        return (release,) if release else ()
    return s.versions


def presence(s: Surface, qualified: str, releases: Sequence[str]) -> Presence:
    present: List[str] = []
    absent: List[str] = []
    unknown: List[str] = []
    missing: Optional[str] = None
    for version in releases:
        found = s.find(qualified, version)
        if found.state == PRESENT:
            present.append(version)
        elif found.state == ABSENT:
            absent.append(version)
            missing = missing or found.missing
        else:
            unknown.append(version)
    return Presence(tuple(present), tuple(absent), tuple(unknown), missing)


EVERY, SOME, NONE = "every", "some", "none"


def exists(qualified: str, version: Optional[str] = None) -> str:
    """Whether a MindSpore name (as written, ``mindspore.nn.Cell``) exists on the releases
    decided for (``version``: the configured one, else every supported release): "every",
    "some", "none", or "unknown" (a name the surface cannot answer for)."""
    s = surface()
    releases = considered(s, version) if s is not None else ()
    if s is None or not releases:
        return UNKNOWN
    found = presence(s, qualified, releases)
    if found.unknown:
        return UNKNOWN
    return EVERY if not found.absent else NONE if not found.present else SOME


def accepts(qualified: str, keyword: Optional[str] = None, positional: Optional[int] = None,
            version: Optional[str] = None) -> Optional[bool]:
    """Whether a call of a MindSpore callable with this keyword (or this many positional
    arguments) binds: True on every release decided for, False when every one of them was
    seen to raise TypeError for it, None otherwise (unknown, or it depends on the release)."""
    s = surface()
    releases = considered(s, version) if s is not None else ()
    if s is None or not releases:
        return None
    verdicts = set()
    for release in releases:
        entry = s.find(qualified, release).entry
        if entry is None or not entry.callable or entry.signature is None:
            return None
        if keyword is not None:
            ok = entry.signature.accepts_keyword(keyword)
            verdicts.add(True if ok else False if entry.rejects_unknown_keywords else None)
        if positional is not None:
            ok = entry.signature.accepts_positional(positional)
            verdicts.add(True if ok else False if entry.rejects_extra_positionals else None)
    return verdicts.pop() if len(verdicts) == 1 else None


def describe_releases(s: Surface, releases: Sequence[str]) -> str:
    """``2.7–2.10``, ``2.7–2.9``, ``2.7.0–2.7.1``, ``2.10``: contiguous runs of the surface's
    releases, a whole release line named by its line."""
    chosen = set(releases)
    runs: List[List[str]] = []
    for version in s.versions:
        if version in chosen:
            if runs and runs[-1][-1] == _previous(s, version):
                runs[-1].append(version)
            else:
                runs.append([version])
    return ", ".join(_run_text(s, run) for run in runs)


def _previous(s: Surface, version: str) -> Optional[str]:
    i = s.versions.index(version)
    return s.versions[i - 1] if i > 0 else None


def _line(version: str) -> str:
    return ".".join(str(n) for n in parse(version)[:2])


def _run_text(s: Surface, run: List[str]) -> str:
    lines = [_line(v) for v in run]
    whole_lines = all(set(v for v in s.versions if _line(v) == line) <= set(run) for line in lines)
    first, last = (lines[0], lines[-1]) if whole_lines else (run[0], run[-1])
    return first if first == last else f"{first}–{last}"


def releases_text(s: Surface, failing: Sequence[str], releases: Sequence[str]) -> str:
    """Which releases raise, as a message says it: "every supported release (2.7–2.10)",
    "MindSpore 2.10.0" (the configured one), or "2.7–2.9 (present in 2.10)"."""
    if len(releases) == 1:
        return f"MindSpore {releases[0]}"
    if set(failing) >= set(s.versions):
        return f"every supported release ({describe_releases(s, s.versions)})"
    others = [v for v in s.versions if v not in failing]
    return f"{describe_releases(s, failing)} (present in {describe_releases(s, others)})"


# -- spellings ------------------------------------------------------------------------
@functools.lru_cache(maxsize=1)
def spellings() -> Dict[str, Any]:
    try:
        return load_toml(SPELLINGS_FILE)
    except OSError:
        return {}


def suggest_module(s: Surface, missing: str, releases: Sequence[str]) -> Optional[str]:
    """The MindSpore module to import instead of one the releases lack: the ``[[module]]``
    table of rules/api_surface/spellings.toml (a 1.x module path and its 2.x home), else a
    name ``suggest_name`` finds, but only when ``import`` finds it as a module on every release
    considered (an attribute of a package is no module to import)."""
    def importable(candidate: str) -> bool:
        return bool(releases) and all(s.module_exists(candidate, v) is True for v in releases)

    for item in spellings().get("module", ()):
        if missing in item.get("modules", ()):
            for candidate in item.get("mindspore", ()):
                if importable(candidate):
                    return str(candidate)
    found = suggest_name(s, missing, releases)
    return found if found is not None and found != missing and importable(found) else None


def suggest_name(s: Surface, missing: str, releases: Sequence[str]) -> Optional[str]:
    """The MindSpore spelling for a name the releases lack (``mindspore.nn.Module`` ->
    ``mindspore.nn.Cell``): the table of rules/api_surface/spellings.toml when its answer
    exists on every release considered, else the same name in another case in the same
    module (``ops.Relu`` -> ``ops.ReLU``), else a close name of that module."""
    module, _, name = missing.rpartition(".")

    def everywhere(candidate: str) -> bool:
        return all(s.find(candidate, v).state == PRESENT for v in releases)

    for item in spellings().get("name", ()):
        if name not in item.get("names", ()) or module not in item.get("modules", ()):
            continue
        for candidate in item.get("mindspore", ()):
            full = candidate if candidate.startswith("mindspore") else f"{module}.{candidate}"
            if everywhere(full):
                return full
    pool: FrozenSet[str] = frozenset()
    for version in releases:
        names = frozenset(s.names_of(module, version))
        pool = names if not pool else pool & names
    same_case = sorted(n for n in pool if n.lower() == name.lower())
    if same_case:
        return f"{module}.{same_case[0]}"
    close = _closest(name, pool, 0.85)
    return f"{module}.{close}" if close else None


def _closest(word: str, pool: Iterable[str], cutoff: float) -> Optional[str]:
    """The one name of ``pool`` closest to ``word`` (difflib's ratio at least ``cutoff``);
    None when two are equally close (``ConvTranspose2d``: Conv2dTranspose or Conv3dTranspose)."""
    scored = []
    for candidate in pool:
        matcher = difflib.SequenceMatcher(None, word, candidate)
        if matcher.real_quick_ratio() >= cutoff and matcher.quick_ratio() >= cutoff:
            ratio = matcher.ratio()
            if ratio >= cutoff:
                scored.append((ratio, candidate))
    scored.sort(reverse=True)
    if not scored or (len(scored) > 1 and scored[0][0] == scored[1][0]):
        return None
    return scored[0][1]


def suggest_keyword(keyword: str, signature: Signature, api: str) -> Optional[str]:
    """The parameter of ``signature`` a PyTorch-style keyword means (``bias`` -> ``has_bias``,
    ``groups`` -> ``group``), from the table first, then a close parameter name."""
    names = signature.keywords()
    short = api.rsplit(".", 1)[-1]
    for item in spellings().get("keyword", ()):
        if keyword not in item.get("names", ()):
            continue
        apis = item.get("apis")
        if apis and short not in apis and api not in apis:
            continue
        for candidate in item.get("mindspore", ()):
            if candidate in names:
                return str(candidate)
    return _closest(keyword, names, 0.8)


def keyword_note(keyword: str, api: str) -> Optional[str]:
    """What the table says about a keyword MindSpore has no parameter for (``inplace``)."""
    short = api.rsplit(".", 1)[-1]
    for item in spellings().get("keyword", ()):
        if keyword in item.get("names", ()) and not item.get("mindspore") and \
                (not item.get("apis") or short in item["apis"] or api in item["apis"]):
            note = item.get("note")
            return str(note) if note else None
    return None
