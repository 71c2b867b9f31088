"""Where this msacclint was installed from, for ``msacclint --version``.

Read from the installed distribution's metadata: ``direct_url.json`` (PEP 610), which pip
and other installers write for every install that did not come from a package index.

- an editable install of a checkout (``pip install -e .``): the checkout's path, and its
  git commit when git can tell it;
- a local folder installed normally (``pip install .``): that folder;
- a VCS URL (``pip install git+https://...@rev``): the URL and the commit pip resolved;
- a wheel or sdist file (``pip install dist/msacclint-*.whl``): that file;
- no ``direct_url.json``: installed from a package index;
- no distribution at all: the package was imported from a source tree that is not installed.
"""

from __future__ import annotations

import json
import os
import subprocess
from typing import Any, Dict, Optional
from urllib.parse import unquote, urlparse

DIST_NAME = "msacclint"


def _path_of(url: str) -> str:
    """A ``file://`` URL as a local path; any other URL as it is."""
    parsed = urlparse(url)
    if parsed.scheme != "file":
        return url
    return unquote(parsed.path)


def _git_commit(folder: str) -> Optional[str]:
    """The checkout's commit (short), with ``+changes`` when the work tree has edits; None
    when git is missing or the folder is no git checkout."""
    try:
        head = subprocess.run(["git", "-C", folder, "rev-parse", "--short=12", "HEAD"],
                              capture_output=True, text=True, timeout=5)
        if head.returncode != 0:
            return None
        dirty = subprocess.run(["git", "-C", folder, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return None
    commit = head.stdout.strip()
    return commit + ("+changes" if dirty.returncode == 0 and dirty.stdout.strip() else "")


def describe_direct_url(data: Dict[str, Any], look_up_git: bool = True) -> str:
    """One phrase for a PEP 610 ``direct_url.json`` record."""
    url = str(data.get("url", ""))
    vcs = data.get("vcs_info")
    if isinstance(vcs, dict):
        kind = vcs.get("vcs", "vcs")
        commit = vcs.get("commit_id")
        requested = vcs.get("requested_revision")
        text = f"{kind}+{url}"
        if commit:
            text += f" at commit {commit}"
        if requested and requested != commit:
            text += f" (requested {requested})"
        return text
    archive = data.get("archive_info")
    if isinstance(archive, dict):
        path = _path_of(url)
        kind = "wheel" if path.endswith(".whl") else "archive"
        return f"{kind} {path}"
    folder = data.get("dir_info")
    if isinstance(folder, dict):
        path = _path_of(url)
        kind = "editable checkout" if folder.get("editable") else "local folder"
        text = f"{kind} {path}"
        commit = _git_commit(path) if look_up_git and os.path.isdir(path) else None
        if commit:
            text += f", commit {commit}"
        return text
    return url or "an unknown direct URL"


def source() -> str:
    """Where the running msacclint comes from, as one phrase."""
    from importlib import metadata

    try:
        dist = metadata.distribution(DIST_NAME)
    except metadata.PackageNotFoundError:
        here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        return f"not installed: imported from {here}"
    # the distribution found must be the one this code belongs to (a source tree on
    # sys.path can shadow an installed copy)
    try:
        located = os.path.realpath(str(dist.locate_file("msacclint/__init__.py")))
    except Exception:  # pragma: no cover - exotic distribution finders
        located = ""
    mine = os.path.realpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "__init__.py"))
    text = dist.read_text("direct_url.json")
    if text is None:
        if located and located != mine and os.path.exists(located):
            here = os.path.dirname(os.path.dirname(mine))
            return f"not installed: imported from {here}"
        return "a package index"
    try:
        data = json.loads(text)
    except ValueError:
        return "an unreadable direct_url.json"
    return describe_direct_url(data)


def _direct_url() -> Optional[Dict[str, Any]]:
    """This install's PEP 610 record, or None (not installed, or from a package index)."""
    from importlib import metadata

    try:
        text = metadata.distribution(DIST_NAME).read_text("direct_url.json")
        return json.loads(text) if text else None
    except (metadata.PackageNotFoundError, ValueError):
        return None


def repository_url() -> Optional[str]:
    """The web address of the repository this copy was installed from, when it came from a
    VCS URL over http(s) (``git+https://host/owner/repo@rev`` gives ``https://host/owner/repo``);
    None otherwise. Nothing here names a package index: none is published yet."""
    data = _direct_url()
    if not data or not isinstance(data.get("vcs_info"), dict):
        return None
    url = str(data.get("url", ""))
    if not url.startswith(("https://", "http://")):
        return None
    return url[:-4] if url.endswith(".git") else url


def extra_hint(extra: str) -> str:
    """The command that adds an optional extra (``lsp``, ``probe``) to this install, in the
    form it was installed: a checkout gets ``pip install -e '<checkout>[extra]'``, a VCS
    install ``pip install 'msacclint[extra] @ git+URL'``; anything else the form for a
    checkout of the repository."""
    data = _direct_url() or {}
    url = str(data.get("url", ""))
    if isinstance(data.get("vcs_info"), dict) and url:
        return f"pip install 'msacclint[{extra}] @ {data['vcs_info'].get('vcs', 'git')}+{url}'"
    if isinstance(data.get("dir_info"), dict) and url:
        flag = "-e " if data["dir_info"].get("editable") else ""
        return f"pip install {flag}'{_path_of(url)}[{extra}]'"
    return f"pip install -e '<your msacclint checkout>[{extra}]'"


def version_line() -> str:
    """What ``msacclint --version`` prints, e.g.
    ``msacclint 0.1.0 from editable checkout /src/msacclint, commit 1a2b3c4d5e6f``."""
    from msacclint import __version__

    return f"msacclint {__version__} from {source()}"


if __name__ == "__main__":  # python -m msacclint.install_info
    print(version_line())
