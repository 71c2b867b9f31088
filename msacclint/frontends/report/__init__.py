"""Fill in the accuracy checklist for a code base (Markdown, JSON or HTML).

``msacclint report [PATHS...] [--format md|json|html] [-o FILE] [--summary]`` concludes every item of
rules/checklist.toml (the model: msacclint.report; filled in by msacclint.api.build_report
from one engine run, the findings and the names each file uses both cached) and renders
it (renderers.py, html.py). The header records the msacclint version, the MindSpore
version and the files read. The exit status is 0 when the report was written, 2 on a
usage error.

The format follows ``-o``'s extension (``.html``/``.htm``, ``.json``, anything else
Markdown) unless ``--format`` says otherwise. Markdown is meant for one GitHub comment,
which holds at most 65,536 characters: with ``--summary``, or by default when the full
Markdown would be longer, the comment-sized summary is what is printed or written, and the
full report goes to a file beside it (``FILE.full.md`` for ``-o FILE``, else
``msacclint-report.full.md``) that the summary names, to attach or link.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Optional

from msacclint import api
from msacclint.frontends import arguments, progress
from msacclint.frontends.report.renderers import RENDERERS, render, summary_markdown

#: the most characters a GitHub issue or pull-request comment accepts
COMMENT_LIMIT = 65_536
#: -o extension -> format, when --format is not given
_BY_EXTENSION = {".html": "html", ".htm": "html", ".json": "json", ".md": "md", ".markdown": "md"}


def configure(parser: argparse.ArgumentParser) -> None:
    arguments.add_check_arguments(parser)
    parser.add_argument("--format", choices=list(RENDERERS), default=None,
                        help="md (to paste into an issue), json, or html (one self-contained page); "
                             "default: from -o's extension, else md")
    parser.add_argument("--summary", action="store_true",
                        help="Markdown: write a summary that fits one GitHub comment and the full report "
                             "to a file beside it (the default when the full Markdown exceeds "
                             f"{COMMENT_LIMIT:,} characters)")
    parser.add_argument("-o", "--output-file", default=None, metavar="FILE", help="write the report here")
    parser.add_argument("--no-cache", action="store_true", help="neither read nor write .msacclint_cache")


def report_format(fmt: Optional[str], output_file: Optional[str]) -> str:
    """``--format`` when given, else the one ``-o``'s extension names, else Markdown."""
    if fmt:
        return fmt
    if output_file:
        return _BY_EXTENSION.get(os.path.splitext(output_file)[1].lower(), "md")
    return "md"


def full_report_path(output_file: Optional[str]) -> str:
    if output_file:
        stem, _ = os.path.splitext(output_file)
        return stem + ".full.md"
    return "msacclint-report.full.md"


def _write(path: str, text: str) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)


def run(args: argparse.Namespace) -> int:
    fmt = report_format(args.format, args.output_file)
    if args.summary and fmt != "md":
        print("msacclint: error: --summary is for Markdown (--format md)", file=sys.stderr)
        return 2
    with progress.indicator(args.quiet) as on_progress:
        options = api.ReportOptions(**vars(arguments.options_from(args, on_progress)))
        report = api.build_report(args.paths or ["."], options)
    text = render(report, fmt)
    counts = ", ".join(f"{n} {c}" for c, n in report.counts().items())
    if fmt == "md" and (args.summary or len(text) > COMMENT_LIMIT):
        full = full_report_path(args.output_file)
        _write(full, text)
        size = len(text)
        text = summary_markdown(report, os.path.basename(full), COMMENT_LIMIT)
        print(f"msacclint: full report written to {full}" + ("" if args.summary else
              f" (its {size:,} characters are more than one GitHub comment holds: the summary is shown instead)"),
              file=sys.stderr)
    if args.output_file:
        _write(args.output_file, text)
        if not args.quiet:
            print(f"msacclint: {fmt} report written to {args.output_file} ({counts})", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0
