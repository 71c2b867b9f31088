"""``msacclint`` and ``python -m msacclint``.

Sub-commands: ``check`` (the linter), ``rules`` (the catalogue), ``rule CODE`` (a rule's
page). Further sub-commands come from modules listed in EXTRA_COMMANDS, each with
``configure(parser)`` and ``run(args) -> int``; a module that is not there is skipped.

Exit status: 0 nothing shown at or above the ``fail-on`` grade, 1 something is, 2 usage or
configuration error.

Every sub-command turns its arguments into typed options and calls msacclint.api; what
it prints comes from msacclint.frontends.output.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import NoReturn, Optional, Sequence

from msacclint import api
from msacclint.api import ConfigError
from msacclint.frontends import arguments, output, progress
from msacclint.frontends.rule_page import render

EXIT_CLEAN, EXIT_FOUND, EXIT_USAGE = 0, 1, 2

#: sub-command name -> module providing configure(parser) and run(args)
EXTRA_COMMANDS = {
    "probe": "msacclint.probe.command",
    "report": "msacclint.frontends.report",
    "lsp": "msacclint.frontends.lsp",
}


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # usage errors exit 2, as argparse does, with our prefix
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"msacclint: error: {message}\n")


class _VersionAction(argparse.Action):
    """``--version``: the version and the install's origin (install_info.version_line()).
    An action of its own so that the origin (which may ask git) is only looked up when asked."""

    def __call__(self, parser, namespace, values, option_string=None) -> NoReturn:  # type: ignore[override]
        from msacclint import install_info

        print(install_info.version_line())
        parser.exit(EXIT_CLEAN)


def build_parser(extras: bool = True) -> argparse.ArgumentParser:
    """``extras``: configure the sub-commands of EXTRA_COMMANDS (their modules are imported;
    the LSP server's pulls in asyncio). ``main`` leaves them bare when another command runs."""
    parser = _Parser(prog="msacclint", description="Static checks for the MindSpore accuracy checklist.")
    parser.add_argument("--version", action=_VersionAction, nargs=0,
                        help="print the version and where this msacclint was installed from, then exit")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)

    check = sub.add_parser("check", help="check files for accuracy problems")
    arguments.add_check_arguments(check)
    check.add_argument("--format", choices=list(output.FORMATS), default="text")
    check.add_argument("-o", "--output-file", default=None, metavar="FILE", help="write the report here")
    check.add_argument("--exit-zero", action="store_true", help="exit 0 even when something was found")
    check.add_argument("--fail-on", choices=["error", "warning", "info"], default=None, metavar="GRADE",
                       help="the least severe grade that makes the exit status 1: error, warning or info "
                            "(default: configured, else warning)")
    check.add_argument("--no-cache", action="store_true", help="neither read nor write .msacclint_cache")
    check.add_argument("--no-project", action="store_true",
                       help="check each file on its own, without the project index (faster, fewer findings)")
    check.add_argument("--jobs", "-j", type=int, default=None, metavar="N",
                       help="worker processes (default: all cores; few files run in-process)")
    check.add_argument("--statistics", action="store_true", help="print a count per code after the findings")
    check.add_argument("--fix", action="store_true", help="apply safe fixes")
    check.add_argument("--unsafe-fixes", action="store_true", help="with --fix or --diff: also apply unsafe fixes")
    check.add_argument("--diff", action="store_true", help="show the fixes as a diff instead of writing them")
    check.add_argument("--add-explicit", action="store_true",
                       help="write out the current behaviour where a finding offers that (not a fix: the "
                            "finding stays a review item; see docs/fixes.md)")

    sub.add_parser("rules", help="list every rule")
    rule = sub.add_parser("rule", help="print a rule's page")
    rule.add_argument("code")

    for name, module_name in EXTRA_COMMANDS.items():
        if not extras:
            sub.add_parser(name)
            continue
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            if getattr(exc, "name", None) and module_name.startswith(exc.name or "\0"):
                continue  # that front end is not part of this build
            raise
        module.configure(sub.add_parser(name, help=module.__doc__.strip().splitlines()[0] if module.__doc__ else None))
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    # `check` (what pre-commit runs on every commit) does not pay for the other front ends
    parser = build_parser(extras=not words or words[0] not in ("check", "rules", "rule"))
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


def run_check(args: argparse.Namespace) -> int:
    # the progress indicator (stderr, a terminal, not --quiet) is erased before anything
    # else is printed
    fixing = args.fix or args.diff or args.add_explicit
    with progress.indicator(args.quiet) as on_progress:
        options = arguments.options_from(args, on_progress)
        if fixing:
            fix_options = api.FixOptions(**vars(options), unsafe=bool(args.unsafe_fixes), write=not args.diff,
                                         explicit=bool(args.add_explicit))
            fixed = api.fix_paths(args.paths or ["."], fix_options)
        else:
            run = api.lint_paths(args.paths or ["."], options)
    if fixing:
        return run_fix(args, fix_options, fixed)
    graded = run.graded
    output.emit(graded, run.diagnostics, args.format, args.output_file, args.statistics)
    if any(d.group == "upgrade" for d in graded.shown):
        # the upgrade group's findings by cause (msacclint.upgrade), with the summary on stderr
        _note(args, output.upgrade_text(api.upgrade_report(graded.shown, run.settings)).rstrip("\n"))
    _note(args, output.check_summary(graded, len(run.files), run.grades.fail_on))
    version = api.version_note(run.settings)
    if version:
        _note(args, version)
    suggestion = api.port_suggestion_for(run)
    if suggestion:
        _note(args, f"Suggested: {suggestion}.")
    if graded.failed and not args.exit_zero:
        return EXIT_FOUND
    return EXIT_CLEAN


def _note(args: argparse.Namespace, line: str) -> None:
    """A summary line on stderr, unless ``--quiet``."""
    if not args.quiet:
        print(line, file=sys.stderr)


def run_fix(args: argparse.Namespace, options: api.FixOptions, run: api.FixRun) -> int:
    """``check --fix`` / ``--unsafe-fixes`` / ``--diff``.

    Ruff's applicability model: ``--fix`` applies the safe fixes (they remove the problem and
    keep what the code meant), ``--unsafe-fixes`` adds the unsafe ones (they change the code to
    what it most likely meant; a diagnostic with both prefers its unsafe alternative then).
    ``--add-explicit`` writes out the current behaviour instead (KEEP edits, never fixes).
    ``--diff`` prints what would change as a unified diff and writes nothing. What is left
    after fixing is reported like ``msacclint check`` reports it."""
    if not options.write:
        for fixed in run.fixes:
            sys.stdout.write(output.unified_diff(fixed))
        _note(args, output.diff_summary(run.applied, len(run.fixes)))
        return EXIT_FOUND if run.fixes else EXIT_CLEAN
    graded = run.graded
    output.emit(graded, run.remaining, args.format, args.output_file, args.statistics)
    _note(args, output.fix_summary(run.applied, len(run.fixes), graded, run.unsafe))
    if graded.failed and not args.exit_zero:
        return EXIT_FOUND
    return EXIT_CLEAN


def run_rules() -> int:
    rows = [("code", "checklist", "severity", "group", "default", "field record", "name")]
    for rule in api.rules():
        record = api.field_record(rule.code)
        own = record[rule.severity.value]
        rows.append((rule.code, rule.checklist, rule.severity.value, api.group_of(rule),
                     "on" if rule.enabled_by_default() else "off",
                     f"{own.judged_true}/{own.read} true" if own.read else "-", rule.name))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    for row in rows:
        print("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row[:-1])) + "  " + row[-1])
    print(f"\nThe default view: {', '.join(api.DEFAULT_GROUPS)}. Field record: the findings of the rule's own "
          f"grade that readers judged on real repositories (docs/groups.md); a rule of a proven group is on by "
          f"default when {api.BAR.reads} were read and {round(api.BAR.true_share * 100)} % judged true, or "
          f"{api.BAR.few_reads} read and all true. Other groups: --extend-select port | upgrade | review | nursery.")
    return EXIT_CLEAN


def run_rule(code: str) -> int:
    rule = api.rule(code)
    if rule is None:
        print(f"msacclint: error: unknown rule code {code!r} (see `msacclint rules`)", file=sys.stderr)
        return EXIT_USAGE
    sys.stdout.write(render(rule))
    return EXIT_CLEAN


if __name__ == "__main__":
    sys.exit(main())
