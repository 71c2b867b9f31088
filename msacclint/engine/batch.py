"""Many files: read, check (from the cache when unchanged), in parallel when it pays."""

from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor
from typing import List, Optional, Sequence, Tuple

from msacclint.diagnostics import Diagnostic
from msacclint.engine.cache import Cache
from msacclint.engine.runner import _bad_input, check_source
from msacclint.engine.settings import Settings

#: below this many files a process pool costs more than it saves
PARALLEL_THRESHOLD = 16
#: chunks handed to each worker process (more chunks: better balance, more messages)
CHUNKS_PER_JOB = 8


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


def check_file(path: str, settings: Settings, cache: Optional[Cache] = None, project=None) -> List[Diagnostic]:
    data, problem = read(path)
    if data is None:
        return _bad_input(path, problem, settings.codes_for(path))
    key = None
    if cache is not None:
        key = Cache.key(path, data)
        hit = cache.get(key)
        if hit is not None:
            return hit
    if project is not None:
        project.begin()
    found = check_source(data, path, settings, project=project)
    if project is not None:
        found = found + _project_problems(project, settings)
    if cache is not None and key is not None:
        deps = project.dependencies() if project is not None else None
        if deps:
            deps.pop(os.path.normpath(os.path.abspath(path)), None)
        cache.put(key, found, deps)
    return found


def _project_problems(project, settings: Settings) -> List[Diagnostic]:
    """Bad input the project layer met while this file was checked (a malformed config,
    circular imports, ...): one MSA001 each, on the file that holds the problem."""
    out: List[Diagnostic] = []
    from dataclasses import replace

    from msacclint.diagnostics import Severity

    for where, line, message, note in project.new_problems():
        for d in _bad_input(project.display(where), message, settings.codes_for(where), line):
            out.append(replace(d, severity=Severity.INFO) if note else d)
    return out


def _worker(args) -> List[Diagnostic]:
    paths, settings, use_cache, projects = args
    cache = Cache.for_settings(settings) if use_cache else None
    out: List[Diagnostic] = []
    for path in paths:
        out.extend(check_file(path, settings, cache, _project_of(path, projects, cache)))
    return out


def _project_of(path: str, projects, cache):
    """The project index a file belongs to (the nearest root above it)."""
    if not projects:
        return None
    absolute = os.path.abspath(path)
    best = None
    for root, index in projects.items():
        if absolute.startswith(root.rstrip(os.sep) + os.sep) and (best is None or len(root) > len(best)):
            best = root
    if best is None:
        return None
    index = projects[best]
    if index.cache is None and cache is not None:
        index.cache = cache
    return index


def project_indexes(paths: Sequence[str], cache: Optional[Cache] = None) -> dict:
    """root -> ProjectIndex for the repositories the files belong to (the root is found
    from each file, so ``check one.py`` and ``check .`` see the same project)."""
    from msacclint.project import find_project_root, load_index

    roots = {}
    for path in paths:
        folder = os.path.dirname(os.path.abspath(path))
        if folder not in roots:
            roots[folder] = find_project_root(folder)
    return {root: load_index(root, cache=cache) for root in sorted(set(roots.values()))}


def _from_cache(paths: Sequence[str], settings: Settings, cache: Cache) -> Tuple[List[Diagnostic], List[str]]:
    """Diagnostics of the files whose results are cached, and the paths still to check.
    Done in this process: a warm run then never starts a pool."""
    found: List[Diagnostic] = []
    todo: List[str] = []
    for path in paths:
        data, _ = read(path)
        hit = cache.get(Cache.key(path, data)) if data is not None else None
        if hit is None:
            todo.append(path)  # unreadable files are reported by check_file
        else:
            found.extend(hit)
    return found, todo


def check_files(paths: Sequence[str], settings: Settings, jobs: Optional[int] = None,
                use_cache: bool = True, project: bool = True) -> List[Diagnostic]:
    """Diagnostics of all files in a stable order (path, line, column, code). With
    ``project`` the rules see the whole repository each file belongs to."""
    jobs = jobs or os.cpu_count() or 1
    found: List[Diagnostic] = []
    todo = list(paths)
    if use_cache:
        found, todo = _from_cache(todo, settings, Cache.for_settings(settings))
    projects = project_indexes(todo) if todo and project else {}
    if jobs <= 1 or len(todo) < PARALLEL_THRESHOLD:
        found.extend(_worker((todo, settings, use_cache, projects)))
    else:
        # several interleaved chunks per worker: neighbouring files are often alike in
        # size, and a worker that finishes early takes the next chunk
        count = min(len(todo), jobs * CHUNKS_PER_JOB)
        chunks = [todo[i::count] for i in range(count)]
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            for part in pool.map(_worker, [(c, settings, use_cache, projects) for c in chunks]):
                found.extend(part)
    # a project problem is reported once per worker process: keep one of each
    return sorted(dict.fromkeys(found), key=Diagnostic.sort_key)
