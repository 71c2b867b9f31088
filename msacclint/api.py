"""msacclint as a library: the one way in for every front end.

The command line (``msacclint check``, ``--fix``, ``--diff``, ``report``), the pre-commit
hooks (which run that command line), the flake8 plugin and the editor server call the
functions below; none of them resolves configuration, discovers files or drives the
engine itself. A library user does the same::

    from msacclint.api import LintOptions, lint_paths

    run = lint_paths(["src/"], LintOptions(select=("MSA1",), use_cache=False))
    for d in run.diagnostics:
        print(d.path, d.line, d.code, d.message)

A run: options + the nearest ``[tool.msacclint]`` -> Settings; the files to check; the
engine over every file with the index of the project each file belongs to (cached, in
parallel when it pays); a frozen result. Errors of configuration or
usage raise ``ConfigError`` (the command line prints it and exits 2).

A run that the cache answers needs none of the checking machinery: the modules that bring
LibCST, the rules or the project layer (``engine.runner``, ``engine.fixes``,
``engine.notebook``, ``project.index``, ``engine.registry.all_rules``) are imported by
the functions below that use them, not when this module is imported, so ``msacclint
check`` on unchanged files reads the files and their cached results and stops there
(tests/test_warm_run.py holds this).
"""

from __future__ import annotations

import datetime
import os
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Dict, List, Optional, Sequence, Tuple, Type, Union

from msacclint import __version__, coverage
from msacclint.analysis.versions import parse as parse_version
from msacclint.config import (
    ConfigError,
    Options,
    Resolved,
    find_pyproject,
    plain_grades,
    plain_settings,
    resolve_run,
)
from msacclint.config import (
    group_names as config_group_names,
)
from msacclint.data import checklist
from msacclint.diagnostics import Diagnostic, FileFix, FileResult, Grades, Severity
from msacclint.engine import registry
from msacclint.engine.batch import Progress, analyse_files, diagnostics_of, merged
from msacclint.engine.cache import Cache, settings_key
from msacclint.engine.discovery import MissingPath, discover
from msacclint.report import PROBLEM, Report, conclude, mindspore_description, port_files, port_suggestion
from msacclint.rules.groups import BAR, DEFAULT_GROUPS, GROUPS, Standing, record, standing
from msacclint.settings import Settings
from msacclint.upgrade import Upgrade, upgrade

if TYPE_CHECKING:
    from msacclint.project.index import ProjectIndex, Projects
    from msacclint.rules.base import Rule

__all__ = [
    "BAR", "DEFAULT_GROUPS", "GROUPS", "Standing", "Upgrade",
    "ConfigError", "FileFix", "FixOptions", "FixRun", "Graded", "Grades", "LintOptions", "LintRun", "Options",
    "Progress", "Report", "ReportOptions", "Settings", "build_report", "config_file_for", "configuration_for_file",
    "fix_paths", "fix_text", "graded", "grades_without_config", "is_version", "lint_notebook", "lint_paths",
    "lint_text", "rule", "rules", "settings_for_file", "settings_without_config",
]


# -- options ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class LintOptions(Options):
    """What a run is asked to do: the selection and configuration of ``Options`` (select,
    extend_select, ignore, exclude, mindspore_version, defaults, config), plus how to run."""

    #: worker processes; None: all cores (few files run in-process)
    jobs: Optional[int] = None
    #: read and write ``.msacclint_cache``
    use_cache: bool = True
    #: let the rules see the whole project each file belongs to (False: one file at a time)
    use_project: bool = True
    #: told ``(done, total)`` while the files are checked (cached ones count at once), for a
    #: progress indicator; None: nobody is told. Not part of what is compared or cached.
    progress: Optional[Progress] = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class FixOptions(LintOptions):
    #: also apply unsafe fixes (a diagnostic with both then prefers its unsafe alternative)
    unsafe: bool = False
    #: write the fixed files; False computes the fixes only (``--diff``)
    write: bool = True
    #: apply the KEEP edits (``--add-explicit``: the current behaviour written out) instead
    #: of fixes; see docs/fixes.md
    explicit: bool = False


@dataclass(frozen=True)
class ReportOptions(LintOptions):
    pass


# -- results ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class LintRun:
    """The outcome of ``lint_paths``."""

    settings: Settings
    #: the pyproject.toml the configuration came from, if any
    config_file: Optional[Path]
    #: the files checked, in the order they were found
    files: Tuple[str, ...]
    #: every finding, sorted by (path, line, column, code)
    diagnostics: Tuple[Diagnostic, ...]
    #: each file's result (with the names it uses when the run collected them)
    results: Dict[str, FileResult]
    #: what is shown and what fails (``show``/``fail-on``); ``diagnostics`` holds every grade
    grades: Grades = Grades()

    @property
    def fixable(self) -> int:
        return sum(1 for d in self.diagnostics if d.fix is not None)

    @property
    def graded(self) -> Graded:
        return graded(self.diagnostics, self.grades)


@dataclass(frozen=True)
class FixRun:
    """The outcome of ``fix_paths``."""

    settings: Settings
    files: Tuple[str, ...]
    #: the files whose text changed, in file order (written when ``FixOptions.write``)
    fixes: Tuple[FileFix, ...]
    #: what is still found after fixing, sorted
    remaining: Tuple[Diagnostic, ...]
    unsafe: bool
    written: bool
    grades: Grades = Grades()

    @property
    def applied(self) -> int:
        return sum(f.applied for f in self.fixes)

    @property
    def graded(self) -> Graded:
        """What is left, as shown."""
        return graded(self.remaining, self.grades)


# -- grades: what is shown, what fails ------------------------------------------------------------
@dataclass(frozen=True)
class Graded:
    """A run's findings seen through its grades: the one answer every front end prints,
    publishes and exits by."""

    #: the findings to show, in their order
    shown: Tuple[Diagnostic, ...]
    #: how many findings of each grade are not shown for their grade (grades with none are left out)
    hidden: Dict[Severity, int]
    #: whether a finding shown is at or above ``fail-on``: the exit status is 1
    failed: bool
    #: how many findings at a grade shown are not shown for their group (``nursery``: a grade
    #: its rule's field record does not support), by group
    outside: Dict[str, int] = field(default_factory=dict)

    def counts(self) -> Dict[Severity, int]:
        """How many findings of each grade are shown, most severe first (only grades with some)."""
        found = Counter(d.severity for d in self.shown)
        return {g: found[g] for g in Severity if found[g]}


def graded(diagnostics: Sequence[Diagnostic], grades: Grades) -> Graded:
    """Which findings ``grades`` shows, how many of each grade it hides, and whether the run
    fails (docs/grades.md). The CLI, the pre-commit hooks, the flake8 plugin, the editor
    server and the report all filter through this."""
    diagnostics = with_groups(diagnostics)
    shown = tuple(d for d in diagnostics if grades.shows(d))
    hidden = Counter(d.severity for d in diagnostics if not grades.shows(d) and grades.in_view(d))
    outside = Counter(d.group for d in diagnostics if not grades.in_view(d)
                      and (d.severity in grades.show or d.code in grades.opted_in))
    return Graded(shown, {g: hidden[g] for g in Severity if hidden[g]}, any(grades.fails(d) for d in shown),
                  dict(sorted(outside.items())))


def with_groups(diagnostics: Sequence[Diagnostic]) -> List[Diagnostic]:
    """The findings with their group (msacclint/rules/groups.py): their rule's, or ``nursery``
    for a grade the rule's field record does not support."""
    return [d if d.group else replace(d, group=registry.finding_group(
        d.code, d.severity.value, d.reach.value if d.reach is not None else None)) for d in diagnostics]


# -- the project layer ---------------------------------------------------------------------------
# A run over paths hands the files to ``engine.batch.analyse_files``, which finds each file's
# project root and builds (or reads from the cache) that repository's index before any file
# is checked, so ``check .`` and ``check one.py`` see the same project. One file's text
# (flake8, the editor) gets its index from ``project_for_file`` below, kept per process.


# -- runs over paths ----------------------------------------------------------------------------
@dataclass(frozen=True)
class _Prepared:
    settings: Settings
    config_file: Optional[Path]
    files: Tuple[str, ...]
    grades: Grades


def _prepare(paths: Sequence[str], options: LintOptions, collect_uses: bool = False) -> _Prepared:
    """Settings (configuration file, then the options on top), the files, the project index."""
    if options.jobs is not None and options.jobs < 1:
        raise ConfigError("--jobs must be at least 1")
    paths = list(paths) or ["."]
    resolved = resolve_run(paths, options)
    settings, pyproject = resolved.settings, resolved.pyproject
    if collect_uses:
        settings = replace(settings, collect_uses=True)
    try:
        files = discover(paths, settings.exclude, settings.root)
    except MissingPath as exc:
        raise ConfigError(f"path does not exist: {exc}") from None
    return _Prepared(settings, pyproject, tuple(files), resolved.grades)


def _analyse(prepared: _Prepared, options: LintOptions) -> Dict[str, FileResult]:
    return analyse_files(prepared.files, prepared.settings, jobs=options.jobs, use_cache=options.use_cache,
                         project=options.use_project, progress=options.progress)


def lint_paths(paths: Sequence[str], options: LintOptions = LintOptions()) -> LintRun:
    """Check files and folders (``[]``: the current folder)."""
    prepared = _prepare(paths, options)
    results = _analyse(prepared, options)
    return LintRun(prepared.settings, prepared.config_file, prepared.files,
                   tuple(with_groups(diagnostics_of(results.values(), results))), results, prepared.grades)


def fix_paths(paths: Sequence[str], options: FixOptions = FixOptions()) -> FixRun:
    """Apply the fixes (safe ones; with ``unsafe`` the unsafe ones too) to files and folders.

    One (cached, parallel) check first: only files with an applicable fix are read again
    and fixed. Files are written only when ``options.write``; a file whose fixed text would
    not parse, or could not be read, decoded or parsed, is never touched."""
    from msacclint.engine.fixes import write_fixed
    from msacclint.engine.notebook import fix_path

    prepared = _prepare(paths, options)
    before = _analyse(prepared, options)
    fixes: Dict[str, FileFix] = {}
    for path, result in before.items():
        if any(d.fix_for(options.unsafe, options.explicit) is not None for d in result.diagnostics):
            fixed = fix_path(path, prepared.settings, options.unsafe, options.explicit)
            if fixed is not None and fixed.changed:
                fixes[path] = fixed
    if options.write:
        for fixed in fixes.values():
            write_fixed(fixed)
    remaining: List[Diagnostic] = []
    for path, result in before.items():
        remaining.extend(fixes[path].remaining if path in fixes else result.diagnostics)
    remaining = with_groups(merged(remaining, before))
    return FixRun(prepared.settings, prepared.files, tuple(fixes.values()), tuple(remaining), options.unsafe,
                  options.write, prepared.grades)


def build_report(paths: Sequence[str], options: ReportOptions = ReportOptions()) -> Report:
    """The accuracy checklist filled in for files and folders. The names each file uses
    (to decide which items apply) come from the engine's traversal and its cache."""
    prepared = _prepare(paths, options, collect_uses=True)
    results = _analyse(prepared, options)
    uses = frozenset().union(*(r.uses or frozenset() for r in results.values()))
    rules_by_item: Dict[str, List[str]] = {}
    for rule_class in registry.all_rules():
        rules_by_item.setdefault(rule_class.checklist, []).append(rule_class.code)
    data = checklist()
    everything = diagnostics_of(results.values(), results)
    # the report lists the findings the run's grades show, and counts the others by grade
    diagnostics = list(graded(everything, prepared.grades).shown)
    hidden = [d for d in everything if not prepared.grades.shows(d)]
    enabled = prepared.settings.enabled
    # each item's wording is the coverage verdict (docs/coverage.md's words), for this run
    found = Counter(d.checklist for d in diagnostics)
    verdicts = {c.id: (c.decidable, c.not_covered, coverage.verdict(c, found[c.id], enabled))
                for c in coverage.coverage()}
    items = conclude(data["item"], diagnostics, uses, enabled, rules_by_item, verdicts, hidden)
    ported = port_files(results, enabled)
    for item in items:
        if item.id == "tool.03" and ported and not item.findings:
            item.conclusion = PROBLEM
            item.detail = port_suggestion(ported) + ". Files: " + ", ".join(f"{f.path}:{f.line}" for f in ported)
    return Report(__version__, mindspore_description(options.mindspore_version, prepared.settings),
                  list(prepared.files), items, dict(data["areas"]),
                  generated=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
                  port_files=ported,
                  upgrade=upgrade_report(diagnostics, prepared.settings)
                  if any(registry.group_of(c) == "upgrade" for c in enabled) else None)


def port_suggestion_for(run: LintRun) -> str:
    """The ``port`` profile suggestion for a check run, once per run ("" when no file
    checked loads PyTorch weights, or the profile is selected)."""
    return port_suggestion(port_files(run.results, run.settings.enabled))


# -- one file's text (flake8, the editor) -------------------------------------------------------
def config_file_for(path: str) -> Optional[Path]:
    """The pyproject.toml that configures ``path``: the nearest one above it with a
    ``[tool.msacclint]`` table, as on the command line."""
    return find_pyproject([path])


def settings_for_file(path: str, config_file: Optional[Path] = None) -> Tuple[Settings, Optional[Path]]:
    """The settings that apply to one file (the editor server asks this per file):
    ``config_file``, else the one ``config_file_for(path)`` finds."""
    resolved = _resolve_file(path, config_file)
    return resolved.settings, resolved.pyproject


def configuration_for_file(path: str, config_file: Optional[Path] = None) -> Tuple[Settings, Grades]:
    """The settings and the grades (``show``/``fail-on``) that apply to one file:
    ``config_file``, else the one ``config_file_for(path)`` finds."""
    resolved = _resolve_file(path, config_file)
    return resolved.settings, resolved.grades


def _resolve_file(path: str, config_file: Optional[Path]) -> Resolved:
    pyproject = config_file or config_file_for(path)
    return resolve_run([path], Options(config=str(pyproject) if pyproject else None))


def settings_without_config(mindspore_version: Optional[str] = None, defaults: Optional[str] = None,
                            enabled: Optional[Sequence[str]] = None, honour_noqa: bool = True) -> Settings:
    """Settings that read no configuration file (the flake8 plugin: flake8 has its own)."""
    return plain_settings(mindspore_version, defaults, enabled, honour_noqa)


def grades_without_config(show: Optional[Sequence[str]] = None, opted_in: Sequence[str] = (),
                          where: str = "show", groups: Sequence[str] = ()) -> Grades:
    """The grades shown without a configuration file (the flake8 plugin's options): the
    grades named (else error and warning), the off-by-default rules switched on, and the
    default view's groups plus ``groups``."""
    return plain_grades(show, opted_in, where, groups)


def group_names(values: Sequence[str], where: str = "groups") -> Tuple[str, ...]:
    """Group names checked (``ALL`` for every group); an unknown one raises ConfigError."""
    return config_group_names(values, where)


def group_codes(name: str) -> Tuple[str, ...]:
    """The codes of a group today (``ALL``: every code)."""
    return tuple(registry.all_codes()) if name.upper() == "ALL" else tuple(registry.group_codes(name.lower()))


def upgrade_report(diagnostics: Sequence[Diagnostic], settings: Settings) -> Upgrade:
    """What the upgrade group's findings say a move to ``settings.upgrade_to`` (else the newest
    release the API surface knows) breaks, by cause (msacclint.upgrade)."""
    from msacclint.analysis.api_surface import surface

    known = surface()
    target = settings.upgrade_to or (known.versions[-1] if known is not None else "the newest release")
    source = f"MindSpore {settings.mindspore_version}" if settings.mindspore_version else "no declared release"
    if settings.mindspore_source and settings.mindspore_version:
        source += f" ({settings.mindspore_source})"
    names = {r.code: r.name for r in registry.all_rules()}
    return upgrade(with_groups(diagnostics), source, target, names)


def declared_version(path: str) -> Tuple[Optional[str], str]:
    """The MindSpore version the project holding ``path`` declares (msacclint.project.declared),
    and where: (None, "") when it declares none."""
    from msacclint.project.declared import find

    found = find(Path(path))
    return (found.version, found.describe()) if found is not None else (None, "")


def version_note(settings: Settings) -> str:
    """The line a check prints once about the MindSpore it checks against (docs/configuration.md):
    the version and where it comes from; for a release the API surface does not know (1.x), what
    is decided instead. "" when no version is known."""
    from msacclint.analysis.api_surface import surface

    version = settings.mindspore_version
    if not version:
        return ""
    where = f" ({settings.mindspore_source})" if settings.mindspore_source else ""
    known = surface()
    line = f"Checked against MindSpore {version}{where}."
    if known is not None and known.release_for(version) is None:
        line += (f" The API surface msacclint ships knows {known.versions[0]}-{known.versions[-1]}: on {version} it "
                 "claims no failure of a name or argument those releases lack (`--select upgrade` lists what fails "
                 f"on a move to {known.versions[-1]}), and the table's version bounds decide which defaults apply.")
    return line


def field_record(code: str) -> Dict[str, Standing]:
    """A rule's field record by grade (error, warning, info, gone): reads and verdicts."""
    return {grade: standing(code, grade) for grade in ("error", "warning", "info", "gone")}


def field_record_meta() -> Dict[str, object]:
    """The record's rounds, the commit it was measured at and the sources it could not read."""
    data = record()
    return {k: data.get(k) for k in ("measured_at", "rounds", "skipped")}


def group_of(rule_class: Type[Rule]) -> str:
    """The group a rule is in today (its field record decides for the proven groups)."""
    return registry.group_of(rule_class.code)


def is_version(text: str) -> bool:
    """Whether ``text`` reads as a MindSpore version ("2.10.0")."""
    return bool(parse_version(text))


def lint_text(text: Union[str, bytes], path: str, settings: Settings, use_cache: bool = False,
              project: bool = False, disk_path: Optional[str] = None, run: bool = False,
              cache_summaries: bool = True) -> List[Diagnostic]:
    """The diagnostics of one file's text (an editor buffer, the lines flake8 read);
    ``path`` decides per-file ignores and appears in the diagnostics. ``use_cache``: read
    and write the result cache (flake8 runs over unchanged files; an editor buffer that
    changes at every keystroke gains nothing from it). ``project``: the rules see the
    repository the file belongs to (its index is built once per process, see
    ``project_for_file``); ``disk_path`` is where the file is when ``path`` is the name
    shown in the diagnostics (the editor shows paths relative to the project); ``run``: the
    caller checks the repository's files in turn (flake8's run), so a file summarised for
    another file's check keeps its parse for its own; ``cache_summaries``: the project
    index keeps its file summaries in the cache folder (the editor does, with no result
    cache; flake8 with MSACCLINT_NO_CACHE does not)."""
    from msacclint.engine.runner import check_source

    index = project_for_file(disk_path or path, settings, cache_summaries) if project else None
    if index is not None:
        index.begin()
        index.keep_all_parses = run
    if not use_cache:
        return with_groups(check_source(text, path, settings, project=index))
    cache = _cache_for(settings)
    key = Cache.key(path, text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass"))
    hit = cache.get_result(key)
    if hit is not None:
        return with_groups(hit.diagnostics)
    found = check_source(text, path, settings, project=index)
    deps = index.dependencies() if index is not None else None
    if deps:
        deps.pop(os.path.normpath(os.path.abspath(path)), None)
    cache.put(key, found, None, deps)
    return with_groups(found)


def lint_notebook(data: Union[str, bytes], path: str, settings: Settings, project: bool = False,
                  disk_path: Optional[str] = None) -> List[Diagnostic]:
    """The diagnostics of a notebook's text (its nbformat JSON: the editor server builds it from
    the cells it was sent), checked as ``check`` checks a notebook file: the module its code
    cells make, with the repository's index when ``project`` (see ``lint_text``). Each finding
    carries its ``cell`` (1-based over all cells) and a line within that cell."""
    from msacclint.engine.notebook import analyse_notebook

    index = project_for_file(disk_path or path, settings) if project else None
    if index is not None:
        index.begin()
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    return with_groups(analyse_notebook(raw, path, settings, project=index).diagnostics)


_LAST_CACHE: List[Tuple[Settings, Cache]] = []


def _cache_for(settings: Settings) -> Cache:
    """The cache of ``settings``, made once while the settings stay the same (flake8 asks
    once per file, always with the same settings)."""
    if not _LAST_CACHE or _LAST_CACHE[0][0] != settings:
        _LAST_CACHE[:] = [(settings, Cache.for_settings(settings))]
    return _LAST_CACHE[0][1]


#: one project index per repository for the life of the process (flake8's run, the editor
#: server); summaries come from the result cache's folder of each repository. Made on the
#: first file checked from its text.
_PROJECTS: List[Projects] = []


def _projects() -> Projects:
    if not _PROJECTS:
        from msacclint.project.index import Projects

        _PROJECTS.append(Projects(lambda settings, root: Cache(root, settings_key(settings))))
    return _PROJECTS[0]


def project_for_file(path: str, settings: Settings, use_cache: bool = True) -> Optional[ProjectIndex]:
    """The index of the repository ``path`` belongs to (its root found from the file),
    built on first use and kept; None for a buffer with no file on disk, or when the
    project layer cannot read the repository (the file is then checked on its own).
    ``use_cache``: keep its file summaries in the repository's cache folder."""
    if not path or path in ("-", "stdin") or not os.path.exists(path):
        return None
    try:
        return _projects().index_for(path, settings, use_cache)
    except Exception:  # the project layer never stops a file from being checked
        return None


def file_saved(path: str) -> None:
    """A file changed on disk: the project index re-reads it on its next question."""
    for projects in _PROJECTS:
        projects.saved(path)


def fix_text(text: str, path: str, settings: Settings, unsafe: bool = False,
             explicit: bool = False) -> Tuple[str, int]:
    """One text with its fixes applied (only when the result parses), and how many were;
    ``explicit`` applies the KEEP edits of ``--add-explicit`` instead."""
    from msacclint.engine.fixes import configured_line_length, fix_source
    from msacclint.engine.runner import check_source

    return fix_source(text, lambda candidate: check_source(candidate, path, settings), unsafe=unsafe,
                      explicit=explicit, line_length=configured_line_length(path))


# -- the rules ----------------------------------------------------------------------------------
def rules() -> Tuple[Type[Rule], ...]:
    """Every rule class, by code."""
    return registry.all_rules()


def rule(code: str) -> Optional[Type[Rule]]:
    """The rule with this code (any case), or None."""
    return registry.rules_by_code().get(code.upper())
