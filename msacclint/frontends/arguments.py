"""The command-line arguments ``check`` and ``report`` share, and the typed options
(msacclint.api.LintOptions) they become."""

from __future__ import annotations

import argparse
from typing import List, Optional

from msacclint import api


def _codes(value: str) -> List[str]:
    return [c.strip() for c in value.split(",") if c.strip()]


def add_check_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="*", default=None, help="files or folders (default: the current folder)")
    parser.add_argument("--select", type=_codes, default=None, metavar="CODES",
                        help="comma-separated codes, prefixes or groups (correctness, suspicious, port, upgrade, "
                             "review, nursery) to run instead of the default view (ALL for all)")
    parser.add_argument("--extend-select", type=_codes, default=[], metavar="CODES",
                        help="codes, prefixes or groups to run in addition to the selection (e.g. upgrade)")
    parser.add_argument("--ignore", type=_codes, default=[], metavar="CODES", help="codes or prefixes not to run")
    parser.add_argument("--exclude", action="append", default=None, metavar="PATTERN",
                        help="gitignore-style pattern of paths not to check (replaces the configured ones)")
    parser.add_argument("--config", default=None, metavar="PYPROJECT",
                        help="use this pyproject.toml instead of the nearest one")
    parser.add_argument("--mindspore-version", default=None, metavar="VERSION",
                        help="the MindSpore version the code targets (default: configured, else the project's "
                             "declared one, else installed)")
    parser.add_argument("--upgrade-to", default=None, metavar="VERSION",
                        help="the MindSpore release the upgrade group checks a move to (default: the newest known)")
    parser.add_argument("--defaults", default=None, metavar="SNAPSHOT",
                        help="a probe snapshot (msacclint probe --write) to quote in messages")
    parser.add_argument("--show", type=_codes, default=None, metavar="GRADES",
                        help="comma-separated grades of the findings shown: error, warning, info "
                             "(default: configured, else error,warning)")
    parser.add_argument("--show-info", action="store_true",
                        help="also show info findings (review notes), on top of the configured grades")
    parser.add_argument("-q", "--quiet", action="store_true",
                        help="print the findings (or the report) and errors only: no progress indicator, "
                             "no summary line")


def options_from(args: argparse.Namespace, progress: Optional[api.Progress] = None) -> api.LintOptions:
    """The typed options of a ``check`` or ``report`` command line (``progress``: the
    indicator's callback, msacclint.frontends.progress)."""
    return api.LintOptions(select=args.select, extend_select=args.extend_select, ignore=args.ignore,
                           exclude=args.exclude, mindspore_version=args.mindspore_version,
                           upgrade_to=getattr(args, "upgrade_to", None),
                           defaults=args.defaults, config=args.config, show=args.show,
                           show_info=args.show_info, fail_on=getattr(args, "fail_on", None),
                           jobs=getattr(args, "jobs", None), use_cache=not args.no_cache,
                           use_project=not getattr(args, "no_project", False), progress=progress)
