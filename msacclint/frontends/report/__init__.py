"""Fill in the accuracy checklist for a code base (Markdown, JSON or HTML).

``msacclint report [PATHS...] [--format md|json|html] [-o FILE]`` concludes every item of
rules/checklist.toml (the model: msacclint.report; filled in by msacclint.api.build_report
from one engine run, the findings and the names each file uses both cached) and renders
it (renderers.py, html.py). The header records the msacclint version, the MindSpore
version and the files read. The exit status is 0 when the report was written, 2 on a
usage error.
"""

from __future__ import annotations

import argparse
import sys

from msacclint import api
from msacclint.frontends import arguments
from msacclint.frontends.report.renderers import RENDERERS, render


def configure(parser: argparse.ArgumentParser) -> None:
    arguments.add_check_arguments(parser)
    parser.add_argument("--format", choices=list(RENDERERS), default="md",
                        help="md (to paste into an issue), json, or html (one self-contained page)")
    parser.add_argument("-o", "--output-file", default=None, metavar="FILE", help="write the report here")
    parser.add_argument("--no-cache", action="store_true", help="neither read nor write .msacclint_cache")


def run(args: argparse.Namespace) -> int:
    options = api.ReportOptions(**vars(arguments.options_from(args)))
    report = api.build_report(args.paths or ["."], options)
    text = render(report, args.format)
    if args.output_file:
        with open(args.output_file, "w", encoding="utf-8") as handle:
            handle.write(text)
        counts = report.counts()
        print(f"msacclint: report written to {args.output_file} ("
              + ", ".join(f"{n} {c}" for c, n in counts.items()) + ")", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0
