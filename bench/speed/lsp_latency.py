"""Keystroke-to-diagnostics latency of the editor server, driven by a real LSP client.

    python bench/speed/lsp_latency.py [--lines 1000] [--rounds 15] [--write docs/evaluation/performance.md]

``msacclint lsp`` is started as editors start it (a subprocess on stdio) and driven by
pygls' own LanguageClient: a generated MindSpore training file of about ``--lines`` lines is
opened, then

- single keystrokes: one incremental ``didChange`` (a digit of ``nn.Dropout(0.1)`` toggled
  between 1 and 2), timed from the moment it is sent to the ``publishDiagnostics`` of that
  document version. The server's debounce (msacclint.frontends.lsp.DEBOUNCE) is part of it;
- bursts: 20 keystrokes 40 ms apart (typing), timed from the last keystroke to the
  diagnostics of its version; the number of publications during the burst is counted
  (one analysis per burst is the point of the debounce).

Wall-clock time (what a person waits for); medians and the slowest round are reported,
with the server process's CPU time per keystroke (from /proc, Linux) beside it, so that a
loaded machine can be told apart from a slow analysis.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List

from lsprotocol import types
from pygls.lsp.client import LanguageClient

BLOCK = '''\


class Block{i}(nn.Cell):
    """A residual block."""

    def __init__(self, channels):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3, pad_mode="same")
        self.bn = nn.BatchNorm2d(channels, momentum=0.9)
        self.relu = nn.ReLU()
        self.pool = nn.MaxPool2d(2, stride=2)

    def construct(self, x):
        y = self.relu(self.bn(self.conv(x)))
        return self.pool(y + x)
'''

HEAD = '''\
import mindspore as ms
import mindspore.nn as nn
from mindspore import ops

drop = nn.Dropout(0.1)
'''


def cpu_seconds(pid: int) -> float:
    """user + system CPU time of a process so far (Linux /proc; 0.0 elsewhere)."""
    import os

    try:
        with open(f"/proc/{pid}/stat") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def source(lines: int) -> str:
    text, i = HEAD, 0
    while text.count("\n") < lines:
        text += BLOCK.format(i=i)
        i += 1
    return text


async def measure(lines: int, rounds: int) -> Dict[str, object]:
    client = LanguageClient("latency-bench", "1")
    published: Dict[int, float] = {}
    counts: List[int] = []
    arrived = asyncio.Event()

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_diagnostics(params: types.PublishDiagnosticsParams) -> None:
        published[params.version or 0] = time.perf_counter()
        counts.append(params.version or 0)
        arrived.set()

    await client.start_io(sys.executable, "-m", "msacclint", "lsp")
    folder = Path(tempfile.mkdtemp(prefix="lsp-latency-"))
    path = folder / "train.py"
    text = source(lines)
    path.write_text(text)
    uri = path.as_uri()
    await client.initialize_async(types.InitializeParams(capabilities=types.ClientCapabilities(),
                                                         root_uri=folder.as_uri()))
    client.initialized(types.InitializedParams())

    async def until(version: int) -> float:
        while version not in published:
            arrived.clear()
            await asyncio.wait_for(arrived.wait(), 60)
        return published[version]

    started = time.perf_counter()
    client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(
        uri=uri, language_id="python", version=1, text=text)))
    opened = await until(1) - started

    version = 1
    digit_line = HEAD.splitlines().index("drop = nn.Dropout(0.1)")
    column = len("drop = nn.Dropout(0.")

    def keystroke() -> float:
        nonlocal version
        version += 1
        char = "2" if version % 2 == 0 else "1"
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangePartial(
                range=types.Range(start=types.Position(line=digit_line, character=column),
                                  end=types.Position(line=digit_line, character=column + 1)),
                text=char)]))
        return time.perf_counter()

    pid = client._server.pid  # the server subprocess pygls started
    single: List[float] = []
    cpu: List[float] = []
    for _ in range(rounds):
        before_cpu = cpu_seconds(pid)
        sent = keystroke()
        single.append(await until(version) - sent)
        cpu.append(cpu_seconds(pid) - before_cpu)

    bursts: List[float] = []
    per_burst: List[int] = []
    for _ in range(max(3, rounds // 3)):
        before = len(counts)
        for _ in range(20):
            last = keystroke()
            await asyncio.sleep(0.04)
        bursts.append(await until(version) - last)
        await asyncio.sleep(0.5)  # anything still to come for this burst
        per_burst.append(len(counts) - before)

    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return {"lines": text.count("\n"), "open": opened, "single": single, "cpu": cpu, "bursts": bursts, "per_burst": per_burst}


def table(result: Dict[str, object]) -> str:
    single, bursts = result["single"], result["bursts"]
    from msacclint.frontends.lsp import DEBOUNCE

    rows = [
        "| measured (wall clock) | median | slowest |",
        "|---|---|---|",
        f"| open to first diagnostics | {result['open'] * 1000:.0f} ms | |",
        f"| one keystroke to diagnostics ({len(single)} rounds) | {statistics.median(single) * 1000:.0f} ms "
        f"| {max(single) * 1000:.0f} ms |",
        f"| last of 20 keystrokes (40 ms apart) to diagnostics ({len(bursts)} bursts) | "
        f"{statistics.median(bursts) * 1000:.0f} ms | {max(bursts) * 1000:.0f} ms |",
        f"| server CPU time per keystroke's analysis | {statistics.median(result['cpu']) * 1000:.0f} ms "
        f"| {max(result['cpu']) * 1000:.0f} ms |",
        f"| publications per 20-keystroke burst | {statistics.median(result['per_burst']):.0f} | "
        f"{max(result['per_burst'])} |",
    ]
    return (f"File of {result['lines']} lines; the server's debounce is {DEBOUNCE * 1000:.0f} ms and is "
            "included in each keystroke's figure.\n\n" + "\n".join(rows) + "\n")


def main(argv: List[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args(argv)
    result = asyncio.run(measure(args.lines, args.rounds))
    sys.stdout.write(table(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
