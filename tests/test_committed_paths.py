"""No committed file names a place a reader of the project does not have (issue 38): a path
outside the repository (``../shared/...``, the folder beside the checkout it was written in)
or a path of the machine it was written on (``/work/...``, ``/tmp/...``, ``/root/...``,
``/Users/...``). Docs, scripts and data name files relative to the repository
(the field list is ``bench/field/field_repos.tsv``), or through a variable or an argument
(``MIRROR=<folder of fetched mirrors>``); a message a benchmark records names a file by its
repository, not by the temporary folder it was checked out in.

Every file ``git ls-files`` lists is read, data (JSON, TOML, TSV) as much as code and docs;
binary files are passed over.
"""

from __future__ import annotations

import re
import subprocess

import pytest
from conftest import ROOT

#: what a committed file must not hold: a path out of the repository, or an absolute path
#: of a machine (at the start of a path: ``file:///tmp/x`` and ``"/tmp/x"`` alike; not
#: ``bench/tmp/`` or a URL's path such as ``https://host/home/...``)
MACHINE_PATH = re.compile(r"\.\./shared\b|(?<![\w.:/-])/(?:work|tmp|root|Users)/|file:///(?:work|tmp|root|Users)/")

#: files that must name such a path, and why
EXCEPTIONS = {
    # this test spells the patterns it looks for
    "tests/test_committed_paths.py",
}


def _tracked():
    done = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=False)
    return [name for name in done.stdout.decode("utf-8", "surrogateescape").split("\0") if name]


def test_no_committed_file_names_a_path_outside_the_repository_or_of_a_machine():
    tracked = _tracked()
    if not tracked:
        pytest.skip("not a git checkout")
    found = []
    for name in tracked:
        path = ROOT / name
        if name in EXCEPTIONS or not path.is_file():
            continue
        data = path.read_bytes()
        if b"\0" in data[:8192]:
            continue  # binary
        text = data.decode("utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), 1):
            for hit in MACHINE_PATH.finditer(line):
                found.append(f"{name}:{number}: {line[max(hit.start() - 30, 0):hit.end() + 50].strip()}")
    assert found == [], "paths a reader does not have:\n" + "\n".join(found)


@pytest.mark.parametrize("text", ["see ../shared/field_repos.tsv", '"/tmp/msacclint-bar-x/repository/a.py"',
                                  "cd /work/main", "file:///root/x.whl", "(/Users/me/repo)"])
def test_the_scan_sees_each_kind_of_path(text):
    assert MACHINE_PATH.search(text)


@pytest.mark.parametrize("text", ["bench/field/field_repos.tsv", "https://example.invalid/home/x",
                                  "bench/tmp/out", "shared/api_defaults.md", "file:///src/msacclint",
                                  # an example of what a user's own machine prints (docs/getting-started.md)
                                  "editable checkout /home/me/src/msacclint"])
def test_the_scan_leaves_repository_paths_and_urls_alone(text):
    assert not MACHINE_PATH.search(text)
