"""A file's bytes, or a plain reason it cannot be read."""

from __future__ import annotations

import os
from typing import Optional, Tuple


def read(path: str) -> Tuple[Optional[bytes], Optional[str]]:
    try:
        with open(path, "rb") as handle:
            return handle.read(), None
    except FileNotFoundError:
        if os.path.islink(path):
            return None, "is a symbolic link to a missing file; not checked"
        return None, "file disappeared before it could be read; not checked"
    except IsADirectoryError:
        return None, "is a directory, not a file; not checked"
    except PermissionError:
        return None, "permission denied; not checked"
    except OSError as exc:
        return None, f"cannot be read ({exc.strerror or exc}); not checked"
