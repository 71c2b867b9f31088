"""The flake8 plugin (entry point ``flake8.extension``, prefix ``MSA``).

It calls the same engine as the CLI on the lines flake8 read, so ``flake8 --select MSA``
reports the same codes at the same line and column. flake8 does the selection and
``# noqa`` itself; codes that are off by default are added to flake8's default ignore
list (as flake8-bugbear does for B9xx) and switched on with ``--extend-select``.

flake8 never reads pyproject.toml: in flake8 mode the options below come from flake8's
own configuration (setup.cfg, tox.ini or .flake8), e.g.::

    [flake8]
    msacclint-mindspore-version = 2.10.0
"""

from __future__ import annotations

import os
from typing import Any, Iterator, List, Optional, Tuple

from msacclint import __version__
from msacclint.engine import registry
from msacclint.engine.runner import check_source
from msacclint.engine.settings import Settings


class Flake8Plugin:
    name = "msacclint"
    version = __version__

    _mindspore_version: Optional[str] = None
    _defaults: Optional[str] = None
    _opted_in: frozenset = frozenset()

    def __init__(self, tree: Any, filename: str, lines: List[str]) -> None:
        self.filename = filename
        self.lines = lines

    @classmethod
    def add_options(cls, parser: Any) -> None:
        parser.add_option("--msacclint-mindspore-version", default=None, parse_from_config=True,
                          help="MindSpore version the code targets (msacclint)")
        parser.add_option("--msacclint-defaults", default=None, parse_from_config=True, normalize_paths=True,
                          help="probe snapshot whose observed defaults msacclint quotes")
        off = [rule.code for rule in registry.all_rules() if not rule.enabled_by_default()]
        parser.extend_default_ignore(off)

    @classmethod
    def parse_options(cls, options: Any) -> None:
        from flake8.exceptions import ExecutionError

        from msacclint.analysis.versions import parse

        version = getattr(options, "msacclint_mindspore_version", None)
        if version and not parse(version):
            raise ExecutionError(f"msacclint-mindspore-version: {version!r} is not a MindSpore "
                                 f"version such as 2.10.0")
        defaults = getattr(options, "msacclint_defaults", None)
        if defaults and not os.path.isfile(defaults):
            raise ExecutionError(f"msacclint-defaults: probe snapshot not found: {defaults}")
        cls._mindspore_version = version or None
        cls._defaults = defaults or None
        # flake8 lets an explicit `--select MSA` win over its default ignore list; an
        # off-by-default code must be named more precisely than the plugin's prefix
        # (`--extend-select MSA103`, or `MSA1`) to be switched on, as in ruff.
        selectors = [s.strip().upper() for s in (getattr(options, "select", None) or []) +
                     (getattr(options, "extend_select", None) or []) if s and s.strip()]
        specific = [s for s in selectors if s.startswith("MSA") and len(s) > 3]
        cls._opted_in = frozenset(rule.code for rule in registry.all_rules()
                                  if not rule.enabled_by_default() and any(rule.code.startswith(s) for s in specific))

    #: the project index of each repository, built once per flake8 process (flake8 is
    #: per file by design; the summaries come from msacclint's cache when unchanged)
    _projects: Any = None

    def _project(self, settings: Settings):
        if not self.filename or self.filename in ("-", "stdin") or not os.path.exists(self.filename):
            return None
        if Flake8Plugin._projects is None:
            from msacclint.engine.cache import Cache, settings_key
            from msacclint.project.index import Projects

            Flake8Plugin._projects = Projects(lambda s, root: Cache(root, settings_key(s)))
        try:
            return Flake8Plugin._projects.index_for(self.filename, settings)
        except Exception:  # the project layer never stops a file from being checked
            return None

    def run(self) -> Iterator[Tuple[int, int, str, type]]:
        from msacclint.analysis.snapshot import shipped
        from msacclint.config import installed_mindspore

        enabled = frozenset(rule.code for rule in registry.all_rules()
                            if rule.enabled_by_default() or rule.code in self._opted_in)
        version = self._mindspore_version or installed_mindspore()
        # as in the CLI: without a snapshot of its own, the shipped one of the release
        defaults = self._defaults or (str(shipped(version)) if shipped(version) else None)
        settings = Settings(
            enabled=enabled,
            mindspore_version=version,
            defaults=defaults,
            honour_noqa=False,
        )
        project = self._project(settings)
        if project is not None:
            project.begin()
        for d in check_source("".join(self.lines), self.filename, settings, project=project):
            yield d.line, d.column - 1, f"{d.code} [{d.checklist}] {d.message}", type(self)
