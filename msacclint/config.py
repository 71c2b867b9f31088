"""``[tool.msacclint]`` in pyproject.toml, merged with the command line into Settings.

The nearest pyproject.toml above the checked paths that has a ``[tool.msacclint]``
table is used, as ruff does. An unknown key, an unknown code or a malformed file is an
error (exit 2), never silently ignored.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass, replace
from importlib import metadata
from pathlib import Path
from typing import Any, Dict, FrozenSet, Iterable, List, Optional, Sequence, Tuple

from msacclint.analysis.snapshot import SnapshotError, shipped
from msacclint.analysis.snapshot import load as load_snapshot
from msacclint.analysis.versions import parse as parse_version
from msacclint.data import tomllib
from msacclint.diagnostics import Grades, Severity
from msacclint.engine import registry
from msacclint.project import declared
from msacclint.rules.groups import DEFAULT_GROUPS, GROUPS
from msacclint.settings import Settings

KNOWN_KEYS = {
    "select": "codes, prefixes or groups to run instead of the defaults (\"ALL\" for every rule)",
    "extend-select": "codes, prefixes or groups to run in addition (e.g. \"upgrade\", \"review\")",
    "ignore": "codes or prefixes never to run",
    "per-file-ignores": "a table: glob -> list of codes switched off for matching files",
    "exclude": "gitignore-style patterns of paths never checked",
    "mindspore-version": "the MindSpore version the code targets, e.g. \"2.10.0\" (default: the declared one)",
    "upgrade-to": "the MindSpore release the upgrade group checks a move to (default: the newest it knows)",
    "defaults": "path of a probe snapshot (msacclint probe --write) whose observed defaults the messages quote",
    "line-length": "the line length fixes keep to (default: [tool.ruff]/[tool.black] line-length, else detected)",
    "show": "the grades of findings shown: a list of \"error\", \"warning\", \"info\" (default: error and warning)",
    "fail-on": "the least severe grade that makes the exit status 1: \"error\", \"warning\" (default) or \"info\"",
}

#: the grades by name, most severe first
GRADE_NAMES = tuple(s.value for s in Severity)


class ConfigError(Exception):
    """A configuration or usage error: the CLI prints it and exits 2."""


@dataclass(frozen=True)
class Options:
    """What the caller (the command line, a library user) says on top of the
    configuration file; None means: not given. Sequences are kept as tuples."""

    #: codes or prefixes to run instead of the configured selection ("ALL" for every rule)
    select: Optional[Sequence[str]] = None
    #: codes or prefixes to run in addition
    extend_select: Sequence[str] = ()
    #: codes or prefixes not to run
    ignore: Sequence[str] = ()
    #: gitignore-style patterns of paths not to check (replace the configured ones)
    exclude: Optional[Sequence[str]] = None
    #: the MindSpore version the code targets
    mindspore_version: Optional[str] = None
    #: a probe snapshot whose observed defaults the messages quote
    defaults: Optional[str] = None
    #: this pyproject.toml instead of the nearest one with [tool.msacclint]
    config: Optional[str] = None
    #: the grades shown ("error", "warning", "info"), instead of the configured ones
    show: Optional[Sequence[str]] = None
    #: also show info findings (``--show-info``), on top of the configured or given grades
    show_info: bool = False
    #: the least severe grade that fails the run, instead of the configured one
    fail_on: Optional[str] = None
    #: the release the upgrade group checks a move to, instead of the configured one
    upgrade_to: Optional[str] = None

    def __post_init__(self) -> None:
        for name in ("select", "extend_select", "ignore", "exclude", "show"):
            value = getattr(self, name)
            if value is not None and not isinstance(value, tuple):
                object.__setattr__(self, name, tuple(value))


def find_pyproject(paths: Sequence[str]) -> Optional[Path]:
    """The nearest pyproject.toml with a [tool.msacclint] table, looking upwards from the
    first checked path (or the current folder)."""
    start = Path(paths[0] if paths else ".").resolve()
    if not start.is_dir():
        start = start.parent
    for folder in (start, *start.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            try:
                data = _read(candidate)
            except ConfigError:
                return candidate  # reported when loaded
            if "msacclint" in data.get("tool", {}):
                return candidate
    return None


def _read(path: Path) -> Dict[str, Any]:
    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read: {exc.strerror}") from None


def load_table(path: Path) -> Dict[str, Any]:
    table = _read(path).get("tool", {}).get("msacclint", {})
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.msacclint] must be a table")
    unknown = sorted(set(table) - set(KNOWN_KEYS))
    if unknown:
        raise ConfigError(f"{path}: unknown key(s) in [tool.msacclint]: {', '.join(unknown)}; "
                          f"known keys: {', '.join(KNOWN_KEYS)}")
    for key in ("select", "extend-select", "ignore", "exclude"):
        if key in table and not _string_list(table[key]):
            raise ConfigError(f"{path}: [tool.msacclint] {key} must be a list of strings")
    for key in ("mindspore-version", "defaults", "upgrade-to"):
        if key in table and not isinstance(table[key], str):
            raise ConfigError(f"{path}: [tool.msacclint] {key} must be a string")
    if "show" in table and not _string_list(table["show"]):
        raise ConfigError(f"{path}: [tool.msacclint] show must be a list of grades, e.g. [\"error\", \"warning\"]")
    if "fail-on" in table and not isinstance(table["fail-on"], str):
        raise ConfigError(f"{path}: [tool.msacclint] fail-on must be a string: \"error\", \"warning\" or \"info\"")
    length = table.get("line-length", 1)
    if isinstance(length, bool) or not isinstance(length, int) or length < 1:
        raise ConfigError(f"{path}: [tool.msacclint] line-length must be a positive integer")
    pfi = table.get("per-file-ignores", {})
    if not isinstance(pfi, dict) or not all(_string_list(v) for v in pfi.values()):
        raise ConfigError(f"{path}: [tool.msacclint] per-file-ignores must map globs to lists of codes")
    return table


def _string_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def expand(selectors: Iterable[str], where: str) -> List[str]:
    """Codes named by selectors; an unknown code or prefix is a ConfigError."""
    codes: List[str] = []
    for selector in selectors:
        selector = selector.strip()
        if not selector:
            continue
        found = registry.matching(selector)
        if not found and selector.lower() not in GROUPS:
            raise ConfigError(f"{where}: unknown rule code or prefix {selector!r} "
                              f"(see `msacclint rules`)")
        codes.extend(found)
    return codes


@dataclass(frozen=True)
class Resolved:
    """A run's configuration: what runs (``settings``), what is shown and what fails
    (``grades``), and the pyproject.toml they came from."""

    settings: Settings
    grades: Grades
    pyproject: Optional[Path]


def resolve(paths: Sequence[str], options: Options) -> Tuple[Settings, Optional[Path]]:
    """Settings for a run: configuration file first, then the command line on top."""
    resolved = resolve_run(paths, options)
    return resolved.settings, resolved.pyproject


def resolve_run(paths: Sequence[str], options: Options) -> Resolved:
    """Settings and grades for a run: configuration file first, then the command line on top."""
    pyproject = Path(options.config) if options.config else find_pyproject(paths)
    table: Dict[str, Any] = {}
    if pyproject is not None:
        if not pyproject.is_file():
            raise ConfigError(f"{pyproject}: configuration file not found")
        table = load_table(pyproject)
    where = str(pyproject) if pyproject else "configuration"
    root = pyproject.parent if pyproject else Path.cwd()

    # two layers, the configuration file and then the command line, as in ruff: in each,
    # select (when given) replaces what came before, extend-select adds, ignore removes.
    # What is shown follows the same layers: the default groups, or the groups a select names,
    # plus the groups extend-select names; codes named as codes (or prefixes, or ALL) are shown
    # whatever group a finding of theirs is in.
    enabled = set(registry.default_codes())
    shown_groups: Optional[set] = set(DEFAULT_GROUPS)
    named: set = set()
    layers = [(table.get("select"), table.get("extend-select", []), table.get("ignore", []), where + ": "),
              (options.select, options.extend_select, options.ignore, "--")]
    for select, extend_select, ignore, prefix in layers:
        if select is not None:
            enabled = set(expand(select, prefix + "select"))
            shown_groups, named = _shown(select, set(), set())
        shown_groups, named = _shown(extend_select, shown_groups, named)
        enabled.update(expand(extend_select, prefix + "extend-select"))
        enabled.difference_update(expand(ignore, prefix + "ignore"))

    per_file = []
    for pattern, selectors in table.get("per-file-ignores", {}).items():
        per_file.append((pattern, tuple(expand(selectors, f"{where}: per-file-ignores[{pattern!r}]"))))

    exclude = list(options.exclude) if options.exclude is not None else table.get("exclude", [])
    for given, where_given in ((options.mindspore_version, "--mindspore-version"),
                               (table.get("mindspore-version"), where + ": mindspore-version")):
        if given is not None and not parse_version(given):
            raise ConfigError(f"{where_given}: {given!r} is not a MindSpore version such as \"2.10.0\"")
    version, source = target_version(paths, options, table, where)
    defaults = options.defaults or table.get("defaults")
    if defaults and not os.path.isabs(defaults) and not options.defaults:
        defaults = str(root / defaults)
    if defaults and not Path(defaults).is_file():
        raise ConfigError(f"defaults snapshot not found: {defaults}")
    if defaults:
        try:
            load_snapshot(defaults)
        except SnapshotError as exc:
            raise ConfigError(str(exc)) from None
    else:  # the shipped snapshot of the configured or installed release, if there is one
        found = shipped(version)
        defaults = str(found) if found else None
    settings = Settings(
        enabled=frozenset(enabled),
        per_file_ignores=tuple(per_file),
        exclude=tuple(exclude),
        mindspore_version=version,
        mindspore_source=source,
        upgrade_to=upgrade_to(options, table, where),
        defaults=defaults,
        root=str(root),
    )
    opted_in = frozenset(enabled) - registry.default_codes()
    grades = resolve_grades(table, options, where, opted_in)
    grades = replace(grades, groups=None if shown_groups is None else frozenset(shown_groups),
                     named=frozenset(named) & frozenset(enabled))
    return Resolved(settings, grades, pyproject)


def _shown(selectors: Iterable[str], groups: Optional[set], named: set) -> Tuple[Optional[set], set]:
    """The groups and the named codes shown after ``selectors`` (a group name shows its group,
    ``ALL`` every group, a code or prefix its codes at any group)."""
    for selector in selectors:
        name = selector.strip()
        if not name:
            continue
        if name.upper() == "ALL":
            groups = None
        elif name.lower() in GROUPS:
            if groups is not None:
                groups = groups | {name.lower()}
        else:
            named = named | set(registry.matching(name))
    return groups, named


def target_version(paths: Sequence[str], options: Options, table: Dict[str, Any],
                   where: str) -> Tuple[Optional[str], str]:
    """The MindSpore version a run checks against, and where it comes from: the command line,
    the configuration, the project's own declaration (requirements, setup, environment files,
    a Dockerfile, the README's install line: msacclint.project.declared), the installed one."""
    if options.mindspore_version:
        return options.mindspore_version, "--mindspore-version"
    if table.get("mindspore-version"):
        return table["mindspore-version"], f"{Path(where).name}: mindspore-version"
    found = declared.find(Path(paths[0] if paths else "."))
    if found is not None:
        return found.version, found.describe()
    installed = installed_mindspore()
    return (installed, "installed") if installed else (None, "")


def upgrade_to(options: Options, table: Dict[str, Any], where: str) -> Optional[str]:
    given = getattr(options, "upgrade_to", None) or table.get("upgrade-to")
    if given is not None and not parse_version(given):
        raise ConfigError(f"{where}: upgrade-to: {given!r} is not a MindSpore version such as \"2.10.0\"")
    return given


def parse_grades(values: Iterable[str], where: str) -> FrozenSet[Severity]:
    """Grade names ("error", "warning", "info"; any case) as severities; an unknown name
    or none at all is a ConfigError naming ``where``."""
    grades = set()
    for value in values:
        name = value.strip().lower()
        if not name:
            continue
        if name not in GRADE_NAMES:
            raise ConfigError(f"{where}: unknown grade {value!r}; the grades are {', '.join(GRADE_NAMES)}")
        grades.add(Severity(name))
    if not grades:
        raise ConfigError(f"{where}: name at least one grade of {', '.join(GRADE_NAMES)}")
    return frozenset(grades)


def parse_grade(value: str, where: str) -> Severity:
    """One grade name as a severity (``fail-on``)."""
    name = value.strip().lower()
    if name not in GRADE_NAMES:
        raise ConfigError(f"{where}: unknown grade {value!r}; the grades are {', '.join(GRADE_NAMES)}")
    return Severity(name)


def resolve_grades(table: Dict[str, Any], options: Options, where: str,
                   opted_in: FrozenSet[str] = frozenset()) -> Grades:
    """``show`` and ``fail-on``: the configuration file, then the options on top
    (``--show`` replaces the configured grades, ``--show-info`` adds info to them).
    A finding that is not shown never fails the run, so naming a ``fail-on`` grade that is
    not shown is a ConfigError (it could never fail on that grade)."""
    show = Grades().show
    if "show" in table:
        show = parse_grades(table["show"], f"{where}: show")
    if options.show is not None:
        show = parse_grades(options.show, "--show")
    if options.show_info:
        show = show | {Severity.INFO}
    fail_on = Grades().fail_on
    named = None
    if "fail-on" in table:
        fail_on, named = parse_grade(table["fail-on"], f"{where}: fail-on"), f"{where}: fail-on"
    if options.fail_on is not None:
        fail_on, named = parse_grade(options.fail_on, "--fail-on"), "--fail-on"
    if named is not None and fail_on not in show:
        hint = "--show-info or show = [..., \"info\"]" if fail_on is Severity.INFO else \
            f"add \"{fail_on.value}\" to show"
        raise ConfigError(f"{named}: {fail_on.value} findings are not shown (show: "
                          f"{', '.join(g.value for g in Severity if g in show)}), so they could never fail the "
                          f"run: {hint}")
    return Grades(show=show, fail_on=fail_on, opted_in=opted_in)


def plain_settings(mindspore_version: Optional[str] = None, defaults: Optional[str] = None,
                   enabled: Optional[Iterable[str]] = None, honour_noqa: bool = True) -> Settings:
    """Settings without a configuration file (the flake8 plugin: flake8 never reads
    pyproject.toml): the default rules (or ``enabled``), the given or installed MindSpore
    version, and the given probe snapshot, else the shipped one of that release."""
    if mindspore_version is not None and not parse_version(mindspore_version):
        raise ConfigError(f"{mindspore_version!r} is not a MindSpore version such as \"2.10.0\"")
    if defaults is not None and not os.path.isfile(defaults):
        raise ConfigError(f"probe snapshot not found: {defaults}")
    version = mindspore_version or installed_mindspore()
    if defaults is None:
        found = shipped(version)
        defaults = str(found) if found else None
    codes = registry.default_codes() if enabled is None else frozenset(enabled)
    return Settings(enabled=frozenset(codes), mindspore_version=version, defaults=defaults,
                    honour_noqa=honour_noqa)


def plain_grades(show: Optional[Sequence[str]] = None, opted_in: Iterable[str] = (),
                 where: str = "show", groups: Sequence[str] = ()) -> Grades:
    """Grades without a configuration file (the flake8 plugin's ``msacclint-show`` and
    ``msacclint-groups``): the grades named, else error and warning; the default view's groups
    and the groups named (``ALL``: every group). Every finding shown fails (flake8 fails on any
    line it reports), so ``fail_on`` is the least severe grade shown."""
    shown = parse_grades(show, where) if show else Grades().show
    view, _named = _shown(groups, set(DEFAULT_GROUPS), set())
    return Grades(show=shown, fail_on=max(shown, key=lambda g: g.rank), opted_in=frozenset(opted_in),
                  groups=None if view is None else frozenset(view))


def group_names(values: Iterable[str], where: str) -> Tuple[str, ...]:
    """Group names as given (``ALL`` for every group); an unknown name is a ConfigError."""
    names = []
    for value in values:
        name = value.strip()
        if not name:
            continue
        if name.upper() != "ALL" and name.lower() not in GROUPS:
            raise ConfigError(f"{where}: unknown group {value!r}; the groups are {', '.join(GROUPS)} (or ALL)")
        names.append("ALL" if name.upper() == "ALL" else name.lower())
    return tuple(names)


@functools.lru_cache(maxsize=1)
def installed_mindspore() -> Optional[str]:
    """The installed MindSpore's version from package metadata (never by importing it:
    that costs seconds). ``MSACCLINT_INSTALLED_MINDSPORE`` stands in for it: a version, or
    ``none`` for a run that should not look at what is installed (a CI job whose environment
    holds MindSpore for other reasons; the test suite)."""
    given = os.environ.get("MSACCLINT_INSTALLED_MINDSPORE")
    if given is not None:
        return None if given.strip().lower() in ("", "none") else given.strip()
    try:
        return metadata.version("mindspore")
    except metadata.PackageNotFoundError:
        return None
