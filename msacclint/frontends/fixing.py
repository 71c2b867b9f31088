"""``msacclint check --fix / --diff``: placeholder until fixes land (issue: fixes)."""

from __future__ import annotations

import sys


def run(files, settings, args) -> int:
    print("msacclint: error: --fix and --diff are not available in this build yet", file=sys.stderr)
    return 2
