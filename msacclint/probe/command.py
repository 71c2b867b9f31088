"""check the table's API defaults against the installed MindSpore (needs msacclint[probe])

``msacclint probe [--backend CPU|GPU|Ascend] [--format text|json] [--write PATH] [--table PATH]``
``msacclint probe --api-surface PATH``: write this release's API surface (msacclint.probe.surface)

Exit status: 0 every check agrees (or is skipped), 1 some check differs or errors,
2 MindSpore missing, backend unavailable, or a usage error.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Dict, List


def install_hint() -> str:
    """How to add the probe's extra to this install (no package index is named: none exists)."""
    from msacclint import install_info

    return install_info.extra_hint("probe")
EXIT_OK, EXIT_DIFFERS, EXIT_USAGE = 0, 1, 2


def configure(parser: argparse.ArgumentParser) -> None:
    from msacclint.probe.runner import BACKENDS

    parser.add_argument("--backend", choices=BACKENDS, default="CPU",
                        help="the device target to probe on (default: CPU)")
    parser.add_argument("--format", choices=["text", "json"], default="text")
    parser.add_argument("--write", default=None, metavar="PATH",
                        help="save a snapshot of the observed defaults for `check --defaults PATH`")
    parser.add_argument("--table", default=None, metavar="PATH",
                        help="a probe table to use instead of the shipped rules/probe.toml")
    parser.add_argument("--api-surface", default=None, metavar="PATH",
                        help="write the public names, submodules and signatures of the installed MindSpore (and "
                             "which argument combinations of rules/api_surface/rejected.toml raise) to PATH, "
                             "instead of checking the defaults")


def run(args: argparse.Namespace) -> int:
    from msacclint.probe import runner

    if args.api_surface:
        return _api_surface(args.api_surface)

    if args.table is not None:
        try:
            runner.load_checks(args.table)
        except (OSError, ValueError) as exc:
            print(f"msacclint: error: cannot read probe table {args.table}: {exc}", file=sys.stderr)
            return EXIT_USAGE
    try:
        head, rows = runner.probe(args.backend, args.table)
    except ImportError as exc:
        if (getattr(exc, "name", None) or "").split(".")[0] == "mindspore":
            print(f"msacclint: error: the probe needs MindSpore, which is not installed here.\n"
                  f"Install it with: {install_hint()}", file=sys.stderr)
        else:
            print(f"msacclint: error: MindSpore is installed but cannot be imported ({exc}).\n"
                  f"Reinstall a supported combination with: {install_hint()}", file=sys.stderr)
        return EXIT_USAGE
    except runner.BackendUnavailable as exc:
        print(f"msacclint: error: backend {args.backend} is not available with this MindSpore install: {exc}\n"
              f"The probe can only check the device target MindSpore was built for "
              f"(use --backend CPU, or install the MindSpore build for {args.backend}).", file=sys.stderr)
        return EXIT_USAGE

    if args.write:
        try:
            with open(args.write, "w", encoding="utf-8") as handle:
                json.dump(runner.snapshot(head, rows, args.table), handle, indent=1)
                handle.write("\n")
        except OSError as exc:
            print(f"msacclint: error: cannot write the snapshot {args.write}: {exc.strerror}", file=sys.stderr)
            return EXIT_USAGE
    if args.format == "json":
        json.dump({"header": head, "rows": [r.as_dict() for r in rows]}, sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(text_report(head, rows))
    failed = any(r.status in ("differs", "error") for r in rows)
    return EXIT_DIFFERS if failed else EXIT_OK


def _api_surface(path: str) -> int:
    from msacclint.probe import surface

    try:
        data = surface.collect()
    except ImportError as exc:
        print(f"msacclint: error: the probe needs MindSpore, which cannot be imported here ({exc}).\n"
              f"Install it with: {install_hint()}", file=sys.stderr)
        return EXIT_USAGE
    try:
        surface.write(data, path)
    except OSError as exc:
        print(f"msacclint: error: cannot write the API surface {path}: {exc.strerror}", file=sys.stderr)
        return EXIT_USAGE
    names = sum(len(table) for table in data["members"].values())
    raising = sum(1 for apis in data["rejected"].values() for outcome in apis.values() if outcome == "raises")
    tried = sum(len(apis) for apis in data["rejected"].values())
    print(f"MindSpore {data['mindspore']}: {len(data['members'])} modules walked, {names} names, "
          f"{len(data['modules'])} modules; {raising} of {tried} rejected combinations raise; wrote {path}")
    return EXIT_OK


def text_report(head: Dict[str, Any], rows: List[Any]) -> str:
    from msacclint.probe.values import show

    lines = [f"MindSpore {head['mindspore']} on {head['backend']} (numpy {head['numpy']}, "
             f"Python {head['python']})", ""]
    table = [("status", "entry", "api", "parameter", "expected", "observed")]
    for r in rows:
        api = r.api.replace("mindspore.", "", 1)
        observed = show(r.observed) if r.status in ("agree", "differs") else r.detail
        table.append((r.status, r.entry, api, r.parameter, r.expected, observed))
    widths = [min(max(len(row[i]) for row in table), 48) for i in range(5)]
    for row in table:
        cells = [_clip(cell, widths[i]).ljust(widths[i]) for i, cell in enumerate(row[:5])]
        lines.append("  ".join(cells) + "  " + row[5])
    counts = {s: sum(1 for r in rows if r.status == s) for s in ("agree", "differs", "unavailable", "skipped", "error")}
    lines.append("")
    lines.append(", ".join(f"{n} {s}" for s, n in counts.items() if n) + f" ({len(rows)} checks)")
    return "\n".join(lines) + "\n"


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"
