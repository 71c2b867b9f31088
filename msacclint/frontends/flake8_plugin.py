"""The flake8 plugin (entry point ``flake8.extension``, prefix ``MSA``).

It calls the same engine as the CLI on the lines flake8 read, so ``flake8 --select MSA``
reports the same codes at the same line and column. flake8 does the selection and
``# noqa`` itself; the plugin runs the rules of the default view's groups, plus the rules an
``--extend-select``/``--select`` names more precisely than the prefix (``MSA103``, ``MSA1``)
and the groups ``msacclint-groups`` names.

Each line carries the finding's grade: ``MSA104 [error] [api.01] message``. flake8 fails on
any line it reports, so the grades reported are the grades that fail: ``msacclint-show``
(default ``error,warning``; ``error`` fails on errors only, ``error,warning,info`` adds the
review notes). Codes that are off by default and switched on are reported at every grade,
as in ``msacclint check`` (docs/grades.md).

flake8 never reads pyproject.toml: in flake8 mode the options below come from flake8's
own configuration (setup.cfg, tox.ini or .flake8), e.g.::

    [flake8]
    msacclint-mindspore-version = 2.10.0
    msacclint-show = error
    msacclint-groups = upgrade,review

``msacclint-groups`` adds rule groups to the default view (correctness, suspicious and the
tool's notes): their rules run and their findings are reported, as ``--extend-select upgrade``
does for ``msacclint check`` (docs/groups.md).
"""

from __future__ import annotations

import os
from typing import Any, Iterator, List, Optional, Tuple

from flake8.exceptions import ExecutionError

from msacclint import __version__, api


class Flake8Plugin:
    name = "msacclint"
    version = __version__

    _mindspore_version: Optional[str] = None
    _defaults: Optional[str] = None
    _opted_in: frozenset = frozenset()
    _grades: Optional[api.Grades] = None

    def __init__(self, tree: Any, filename: str, lines: List[str]) -> None:
        self.filename = filename
        self.lines = lines

    @classmethod
    def add_options(cls, parser: Any) -> None:
        parser.add_option("--msacclint-mindspore-version", default=None, parse_from_config=True,
                          help="MindSpore version the code targets (msacclint)")
        parser.add_option("--msacclint-defaults", default=None, parse_from_config=True, normalize_paths=True,
                          help="probe snapshot whose observed defaults msacclint quotes")
        parser.add_option("--msacclint-show", default=None, parse_from_config=True, comma_separated_list=True,
                          help="grades of the findings reported (and so failing): error, warning, info "
                               "(default: error,warning)")
        parser.add_option("--msacclint-groups", default=None, parse_from_config=True, comma_separated_list=True,
                          help="rule groups added to the default view: port, upgrade, review, nursery "
                               "(or ALL); see docs/groups.md")

    @classmethod
    def parse_options(cls, options: Any) -> None:
        version = getattr(options, "msacclint_mindspore_version", None) or None
        defaults = getattr(options, "msacclint_defaults", None) or None
        if version and not api.is_version(version):
            raise ExecutionError(f"msacclint-mindspore-version: {version!r} is not a MindSpore "
                                 f"version such as 2.10.0")
        if defaults and not os.path.isfile(defaults):
            raise ExecutionError(f"msacclint-defaults: probe snapshot not found: {defaults}")
        cls._mindspore_version = version
        cls._defaults = defaults
        # flake8 lets an explicit `--select MSA` win over its default ignore list; an
        # off-by-default code must be named more precisely than the plugin's prefix
        # (`--extend-select MSA103`, or `MSA1`) to be switched on, as in ruff.
        selectors = [s.strip().upper() for s in (getattr(options, "select", None) or []) +
                     (getattr(options, "extend_select", None) or []) if s and s.strip()]
        specific = [s for s in selectors if s.startswith("MSA") and len(s) > 3]
        try:
            groups = api.group_names(getattr(options, "msacclint_groups", None) or (), where="msacclint-groups")
        except api.ConfigError as exc:
            raise ExecutionError(str(exc)) from None
        from_groups = {code for name in groups for code in api.group_codes(name)}
        cls._opted_in = frozenset(rule.code for rule in api.rules() if not rule.enabled_by_default() and (
            rule.code in from_groups or any(rule.code.startswith(s) for s in specific)))
        try:
            cls._grades = api.grades_without_config(getattr(options, "msacclint_show", None) or None, cls._opted_in,
                                                    where="msacclint-show", groups=groups)
        except api.ConfigError as exc:
            raise ExecutionError(str(exc)) from None

    #: the settings of this flake8 process, built on the first file (per-file work is the
    #: check alone, from the cache when the file is unchanged)
    _session: Optional[Tuple[Tuple[Any, ...], Any]] = None

    @classmethod
    def _settings(cls, filename: str) -> Any:
        token = (cls._mindspore_version, cls._defaults, cls._opted_in)
        if cls._session is None or cls._session[0] != token:
            enabled = [rule.code for rule in api.rules() if rule.enabled_by_default() or rule.code in cls._opted_in]
            # as in the CLI: the option, else the version the project declares (read from the first
            # file's project: a flake8 run checks one project), else the installed one
            version = cls._mindspore_version or api.declared_version(filename)[0]
            # without a snapshot of its own, the shipped one of the release
            settings = api.settings_without_config(mindspore_version=version, defaults=cls._defaults,
                                                   enabled=enabled, honour_noqa=False)
            cls._session = (token, settings)
        return cls._session[1]

    def run(self) -> Iterator[Tuple[int, int, str, type]]:
        use_cache = not os.environ.get("MSACCLINT_NO_CACHE")
        found = api.lint_text("".join(self.lines), self.filename, self._settings(self.filename), use_cache=use_cache,
                              project=True, run=True, cache_summaries=use_cache)
        for d in api.graded(found, self._grades or api.grades_without_config()).shown:
            yield d.line, d.column - 1, f"{d.code} [{d.severity.value}] [{d.checklist}] {d.message}", type(self)
