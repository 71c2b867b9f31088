"""``msacclint`` and ``python -m msacclint``.

Sub-commands: ``check`` (the linter), ``rules`` (the catalogue), ``rule CODE`` (a rule's
page). Further sub-commands come from modules listed in EXTRA_COMMANDS, each with
``configure(parser)`` and ``run(args) -> int``; a module that is not there is skipped.

Exit status: 0 nothing found, 1 findings, 2 usage or configuration error.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import List, Optional, Sequence

from msacclint import __version__
from msacclint.config import ConfigError, Options, resolve
from msacclint.engine import registry

EXIT_CLEAN, EXIT_FOUND, EXIT_USAGE = 0, 1, 2

#: sub-command name -> module providing configure(parser) and run(args)
EXTRA_COMMANDS = {
    "probe": "msacclint.probe.command",
    "report": "msacclint.frontends.report",
    "lsp": "msacclint.frontends.lsp",
}


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # usage errors exit 2, as argparse does, with our prefix
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"msacclint: error: {message}\n")


def _codes(value: str) -> List[str]:
    return [c.strip() for c in value.split(",") if c.strip()]


def add_check_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="*", default=None, help="files or folders (default: the current folder)")
    parser.add_argument("--select", type=_codes, default=None, metavar="CODES",
                        help="comma-separated codes or prefixes to run instead of the defaults (ALL for all)")
    parser.add_argument("--extend-select", type=_codes, default=[], metavar="CODES",
                        help="codes or prefixes to run in addition to the selection")
    parser.add_argument("--ignore", type=_codes, default=[], metavar="CODES", help="codes or prefixes not to run")
    parser.add_argument("--exclude", action="append", default=None, metavar="PATTERN",
                        help="gitignore-style pattern of paths not to check (replaces the configured ones)")
    parser.add_argument("--config", default=None, metavar="PYPROJECT",
                        help="use this pyproject.toml instead of the nearest one")
    parser.add_argument("--mindspore-version", default=None, metavar="VERSION",
                        help="the MindSpore version the code targets (default: configured, else installed)")
    parser.add_argument("--defaults", default=None, metavar="SNAPSHOT",
                        help="a probe snapshot (msacclint probe --write) to quote in messages")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="msacclint", description="Static checks for the MindSpore accuracy checklist.")
    parser.add_argument("--version", action="version", version=f"msacclint {__version__}")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)

    check = sub.add_parser("check", help="check files for accuracy problems")
    add_check_arguments(check)
    check.add_argument("--format", choices=["text", "json", "sarif", "github"], default="text")
    check.add_argument("-o", "--output-file", default=None, metavar="FILE", help="write the report here")
    check.add_argument("--exit-zero", action="store_true", help="exit 0 even when something was found")
    check.add_argument("--no-cache", action="store_true", help="neither read nor write .msacclint_cache")
    check.add_argument("--jobs", "-j", type=int, default=None, metavar="N",
                       help="worker processes (default: all cores; few files run in-process)")
    check.add_argument("--statistics", action="store_true", help="print a count per code after the findings")
    check.add_argument("--fix", action="store_true", help="apply safe fixes")
    check.add_argument("--unsafe-fixes", action="store_true", help="with --fix or --diff: also apply unsafe fixes")
    check.add_argument("--diff", action="store_true", help="show the fixes as a diff instead of writing them")

    sub.add_parser("rules", help="list every rule")
    rule = sub.add_parser("rule", help="print a rule's page")
    rule.add_argument("code")

    for name, module_name in EXTRA_COMMANDS.items():
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            if getattr(exc, "name", None) and module_name.startswith(exc.name or "\0"):
                continue  # that front end is not part of this build
            raise
        module.configure(sub.add_parser(name, help=module.__doc__.strip().splitlines()[0] if module.__doc__ else None))
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "check":
            return run_check(args)
        if args.command == "rules":
            return run_rules()
        if args.command == "rule":
            return run_rule(args.code)
        if args.command in EXTRA_COMMANDS:
            return importlib.import_module(EXTRA_COMMANDS[args.command]).run(args)
    except ConfigError as exc:
        print(f"msacclint: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:  # `msacclint check | head`
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_FOUND
    parser.print_help(sys.stderr)
    return EXIT_USAGE


def options_from(args: argparse.Namespace) -> Options:
    return Options(select=args.select, extend_select=args.extend_select, ignore=args.ignore,
                   exclude=args.exclude, mindspore_version=args.mindspore_version,
                   defaults=args.defaults, config=args.config)


def run_check(args: argparse.Namespace) -> int:
    from msacclint.engine.batch import check_files
    from msacclint.engine.discovery import MissingPath, discover

    paths = args.paths or ["."]
    if args.jobs is not None and args.jobs < 1:
        raise ConfigError("--jobs must be at least 1")
    settings, _ = resolve(paths, options_from(args))
    try:
        files = discover(paths, settings.exclude, settings.root)
    except MissingPath as exc:
        raise ConfigError(f"path does not exist: {exc}") from None

    if args.fix or args.diff:
        from msacclint.frontends import fixing

        return fixing.run(files, settings, args)

    diagnostics = check_files(files, settings, jobs=args.jobs, use_cache=not args.no_cache)
    emit(diagnostics, args)
    if diagnostics and args.format == "text" and not args.output_file:
        fixable = sum(1 for d in diagnostics if d.fix is not None)
        note = (f"Found {len(diagnostics)} problem{'s' if len(diagnostics) != 1 else ''} "
                f"in {len(files)} file{'s' if len(files) != 1 else ''}")
        if fixable:
            note += f" ({fixable} with a fix: --fix, or --fix --unsafe-fixes)"
        print(note + ".", file=sys.stderr)
    if diagnostics and not args.exit_zero:
        return EXIT_FOUND
    return EXIT_CLEAN


def emit(diagnostics, args: argparse.Namespace) -> None:
    """Print (or write to --output-file) the findings in the chosen format, then the
    --statistics counts."""
    from msacclint.frontends import formats

    output = formats.FORMATS[args.format](diagnostics)
    if args.output_file:
        with open(args.output_file, "w", encoding="utf-8") as handle:
            handle.write(output)
    else:
        sys.stdout.write(output)
    if args.statistics:
        # machine-readable output on stdout stays parseable: the counts go to stderr then
        to_stderr = args.format != "text" and not args.output_file
        (sys.stderr if to_stderr else sys.stdout).write(formats.statistics(diagnostics))


def run_rules() -> int:
    rows = [("code", "checklist", "severity", "default", "name")]
    for rule in registry.all_rules():
        rows.append((rule.code, rule.checklist, rule.severity.value,
                     "on" if rule.enabled_by_default() else "off", rule.name))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    for row in rows:
        print("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row[:4])) + "  " + row[4])
    return EXIT_CLEAN


def run_rule(code: str) -> int:
    from msacclint.frontends.rule_page import render

    rule = registry.rules_by_code().get(code.upper())
    if rule is None:
        print(f"msacclint: error: unknown rule code {code!r} (see `msacclint rules`)", file=sys.stderr)
        return EXIT_USAGE
    sys.stdout.write(render(rule))
    return EXIT_CLEAN


if __name__ == "__main__":
    sys.exit(main())
