"""Writing a file so that readers see the old content or the new, never half of either."""

from __future__ import annotations

import os
import tempfile
from typing import Optional


def replace_file(path: str, data: bytes, mode: Optional[int] = None, durable: bool = False) -> None:
    """Write ``data`` to a temporary file in ``path``'s folder and rename it over ``path``.
    ``mode`` sets the permission bits; ``durable`` syncs the data to disk before the rename
    (for user files; a cache entry can do without)."""
    folder = os.path.dirname(path) or "."
    fd, tmp = tempfile.mkstemp(dir=folder, prefix="." + os.path.basename(path) + ".", suffix=".msacclint-tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
