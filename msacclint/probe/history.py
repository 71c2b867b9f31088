"""Which defaults changed between the shipped snapshots: the table of docs/probe.md.

``python -m msacclint.probe.history`` prints it from rules/snapshots/; a test keeps the
docs page equal to that output.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from msacclint.analysis.snapshot import snapshots_dir
from msacclint.analysis.versions import parse

ABSENT = "(absent)"


def releases(folder: Optional[Path] = None) -> List[Tuple[str, Dict[str, Any]]]:
    """(version, snapshot data) of every shipped CPU snapshot, oldest first."""
    found = []
    for path in (folder or snapshots_dir()).glob("mindspore-*-cpu.json"):
        data = json.loads(path.read_text(encoding="utf-8"))
        found.append((data["mindspore"], data))
    return sorted(found, key=lambda item: (parse(item[0]), item[0]))


def changes(found: List[Tuple[str, Dict[str, Any]]]) -> List[Tuple[str, str, str, str, str]]:
    """(release, api, parameter, before, after) for each default that differs from the
    release before it, and for each check whose observation changed. An API that only one
    of the two snapshots read (the probe table gained it between the two runs) is not
    compared: its absence says nothing about the release."""
    rows = []
    for (_, old), (version, new) in zip(found, found[1:]):
        apis = sorted(set(old["defaults"]) & set(new["defaults"]))
        for api in apis:
            before, after = old["defaults"].get(api, {}), new["defaults"].get(api, {})
            for param in sorted(set(before) | set(after)):
                a, b = before.get(param, ABSENT), after.get(param, ABSENT)
                if a != b:
                    rows.append((version, api, param, _show(a), _show(b)))
        observed = {(r["entry"], r["api"], r["parameter"]): r for r in old["rows"]}
        for row in new["rows"]:
            prior = observed.get((row["entry"], row["api"], row["parameter"]))
            if row["kind"] == "behaviour" and prior and prior["observed"] != row["observed"] \
                    and not (prior["status"] == row["status"] == "agree"):
                rows.append((version, row["api"], row["parameter"], _show(prior["observed"]), _show(row["observed"])))
    return rows


def _show(value: Any) -> str:
    return value if value in (ABSENT, "<required>") else repr(value)


def markdown(found: List[Tuple[str, Dict[str, Any]]]) -> str:
    lines = ["| release | API | parameter | before | after |", "|---|---|---|---|---|"]
    for version, api, param, before, after in changes(found):
        lines.append(f"| {version} | `{api}` | `{param}` | `{before}` | `{after}` |")
    if len(lines) == 2:
        lines.append("| – | no default observed by the probe changed | | | |")
    return "\n".join(lines) + "\n"


def update_docs(page: Path) -> None:
    """Rewrite the generated block of docs/probe.md."""
    text = page.read_text(encoding="utf-8")
    head, rest = text.split("<!-- changes:start -->\n", 1)
    tail = rest.split("<!-- changes:end -->", 1)[1]
    page.write_text(head + "<!-- changes:start -->\n" + markdown(releases()) + "<!-- changes:end -->" + tail,
                    encoding="utf-8")


if __name__ == "__main__":  # pragma: no cover
    import sys

    if "--update-docs" in sys.argv:
        update_docs(Path(__file__).resolve().parents[2] / "docs" / "probe.md")
    else:
        print("Snapshots: " + ", ".join(v for v, _ in releases()))
        print(markdown(releases()), end="")
