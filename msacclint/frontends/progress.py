"""The progress indicator of long runs (``check``, ``report``): a tqdm bar on stderr.

Drawn only when stderr is a terminal and ``--quiet`` was not given, and only once a run
has gone on for ``DELAY`` seconds (a run over a few files, or a warm run from the cache,
shows nothing). It never writes to stdout, so ``--format json`` / ``sarif`` output stays
parseable, and it is cleared when the run ends so the summary line stands alone.

The engine knows nothing of it: the bar's ``update`` goes down as
``msacclint.api.LintOptions.progress`` and the engine's batch analysis calls it with
``(files done, files in the run)``.
"""

from __future__ import annotations

import sys
from contextlib import contextmanager
from typing import IO, Iterator, Optional

from tqdm import tqdm

from msacclint import api

#: seconds a run goes on before the bar appears
DELAY = 0.5


def wanted(quiet: bool, stream: Optional[IO[str]] = None) -> bool:
    """Whether to draw: not quiet, and the stream (stderr) is a terminal."""
    stream = sys.stderr if stream is None else stream
    if quiet:
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a replaced or closed stream
        return False


@contextmanager
def indicator(quiet: bool, stream: Optional[IO[str]] = None) -> Iterator[Optional[api.Progress]]:
    """The callback to hand to ``LintOptions.progress`` (None when nothing is to be drawn);
    the bar is made at the first call, when the number of files is known, and closed
    (erased) on leaving the ``with`` block."""
    if not wanted(quiet, stream):
        yield None
        return
    out = sys.stderr if stream is None else stream
    bars = []

    def update(done: int, total: int) -> None:
        if not bars:
            bars.append(tqdm(total=total, initial=done, unit="file", desc="msacclint", file=out, leave=False,
                             delay=DELAY, dynamic_ncols=True))
        bar = bars[0]
        if bar.total != total:
            bar.total = total
        bar.update(done - bar.n)

    try:
        yield update
    finally:
        for bar in bars:
            bar.close()
