"""Many files: read, check (from the cache when unchanged), in parallel when it pays."""

from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor
from typing import List, Optional, Sequence, Tuple

from msacclint.diagnostics import Diagnostic
from msacclint.engine.cache import Cache
from msacclint.engine.runner import BAD_INPUT, _bad_input, check_source
from msacclint.engine.settings import Settings

#: below this many files a process pool costs more than it saves
PARALLEL_THRESHOLD = 16


def read(path: str) -> Tuple[Optional[bytes], Optional[str]]:
    try:
        with open(path, "rb") as handle:
            return handle.read(), None
    except FileNotFoundError:
        return None, "file disappeared before it could be read; not checked"
    except IsADirectoryError:
        return None, "is a directory, not a file; not checked"
    except PermissionError:
        return None, "permission denied; not checked"
    except OSError as exc:
        return None, f"cannot be read ({exc.strerror or exc}); not checked"


def check_file(path: str, settings: Settings, cache: Optional[Cache] = None) -> List[Diagnostic]:
    data, problem = read(path)
    if data is None:
        return _bad_input(path, problem, settings.codes_for(path))
    key = None
    if cache is not None:
        key = Cache.key(path, data)
        hit = cache.get(key)
        if hit is not None:
            return hit
    found = check_source(data, path, settings)
    if cache is not None and key is not None:
        cache.put(key, found)
    return found


def _worker(args) -> List[Diagnostic]:
    paths, settings, use_cache = args
    cache = Cache(settings.root, settings.cache_key()) if use_cache else None
    out: List[Diagnostic] = []
    for path in paths:
        out.extend(check_file(path, settings, cache))
    return out


def check_files(paths: Sequence[str], settings: Settings, jobs: Optional[int] = None,
                use_cache: bool = True) -> List[Diagnostic]:
    """Diagnostics of all files in a stable order (path, line, column, code)."""
    jobs = jobs or os.cpu_count() or 1
    if jobs <= 1 or len(paths) < PARALLEL_THRESHOLD:
        found = _worker((list(paths), settings, use_cache))
    else:
        chunks = [list(paths[i::jobs * 4]) for i in range(jobs * 4)]
        found = []
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            for part in pool.map(_worker, [(c, settings, use_cache) for c in chunks if c]):
                found.extend(part)
    return sorted(found, key=Diagnostic.sort_key)
