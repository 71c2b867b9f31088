"""Many files: read, check (from the cache when unchanged), in parallel when it pays.

A file whose result is in the cache needs nothing but the cache: the checking machinery
(``engine.checking``, and LibCST, the rules and the project layer with it) is imported
only when some file has to be checked, so that a warm run costs little more than reading
the files and their cached results.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Callable, Collection, Dict, Iterable, List, Optional, Sequence, Tuple

from msacclint.diagnostics import Diagnostic, FileResult
from msacclint.engine.bad_input import one_per_file
from msacclint.engine.cache import Cache
from msacclint.engine.read import read
from msacclint.settings import Settings

if TYPE_CHECKING:
    from concurrent.futures import Executor

#: the pool class (None: concurrent.futures.ProcessPoolExecutor, imported when first needed)
ProcessPoolExecutor: Optional[Callable[..., Executor]] = None
#: below this many files a process pool costs more than it saves
PARALLEL_THRESHOLD = 16
#: chunks handed to each worker process (more chunks: better balance, more messages)
CHUNKS_PER_JOB = 8

#: told ``(done, total)`` as files are checked: ``done`` files of ``total`` have their result
#: (cached files count at once). A front end draws a progress indicator with it; the engine
#: itself never writes anything.
Progress = Callable[[int, int], None]


def _counter(progress: Progress, done: int, total: int) -> Callable[[], None]:
    """A callback for one more file done that tells ``progress`` the new count."""
    count = [done]

    def each() -> None:
        count[0] += 1
        progress(count[0], total)

    return each


def _from_cache(paths: Sequence[str], settings: Settings,
                cache: Cache) -> Tuple[Dict[str, FileResult], List[str]]:
    """Results of the files that are cached, and the paths still to check.
    Done in this process: a warm run then never starts a pool."""
    found: Dict[str, FileResult] = {}
    todo: List[str] = []
    for path in paths:
        data, _ = read(path)
        hit = cache.get_result(Cache.key(path, data), need_uses=settings.collect_uses) if data is not None else None
        if hit is None:
            todo.append(path)  # unreadable files are reported by analyse_file
        else:
            found[path] = hit
    return found, todo


def analyse_files(paths: Sequence[str], settings: Settings, jobs: Optional[int] = None,
                  use_cache: bool = True, project: bool = True,
                  progress: Optional[Progress] = None) -> Dict[str, FileResult]:
    """Each file's result, keyed by path, in the order of ``paths``. With ``project`` the
    rules see the whole repository each file belongs to (msacclint.project); without it
    the cache is left alone (its entries hold the answers of project runs). ``progress`` is
    told how many files have their result (see ``Progress``)."""
    jobs = jobs or os.cpu_count() or 1
    use_cache = use_cache and project
    found: Dict[str, FileResult] = {}
    todo = list(paths)
    if use_cache:
        found, todo = _from_cache(todo, settings, Cache.for_settings(settings))
    total = len(found) + len(todo)
    if progress is not None:
        progress(len(found), total)
    if not todo:
        return {path: found[path] for path in paths if path in found}
    # imported here: a run that the cache answers never needs LibCST, the rules or the
    # project layer (see the module's docstring)
    from msacclint.engine import checking

    projects = checking.project_indexes(todo) if project else {}
    if jobs <= 1 or len(todo) < PARALLEL_THRESHOLD:
        each = _counter(progress, len(found), total) if progress is not None else None
        found.update(checking.worker((todo, settings, use_cache, projects), each))
    else:
        # several interleaved chunks per worker: neighbouring files are often alike in
        # size, and a worker that finishes early takes the next chunk
        count = min(len(todo), jobs * CHUNKS_PER_JOB)
        chunks = [todo[i::count] for i in range(count)]
        pool_class = ProcessPoolExecutor
        if pool_class is None:  # imported here: a small run never needs multiprocessing
            from concurrent.futures import ProcessPoolExecutor as default_pool

            pool_class = default_pool
        from concurrent.futures import as_completed

        with pool_class(max_workers=jobs) as pool:
            futures = [pool.submit(checking.worker, (c, settings, use_cache, projects)) for c in chunks]
            for future in as_completed(futures):
                found.update(future.result())
                if progress is not None:
                    progress(len(found), total)
    return {path: found[path] for path in paths if path in found}


def check_files(paths: Sequence[str], settings: Settings, jobs: Optional[int] = None,
                use_cache: bool = True, project: bool = True) -> List[Diagnostic]:
    """Diagnostics of all files in a stable order (path, line, column, code)."""
    results = analyse_files(paths, settings, jobs, use_cache, project)
    return diagnostics_of(results.values(), results)


def diagnostics_of(results: Iterable[FileResult], named: Collection[str] = ()) -> List[Diagnostic]:
    """All diagnostics of some results in a stable order (path, line, column, code)
    (``merged``); ``named``: the files as the run names them."""
    return merged((d for result in results for d in result.diagnostics), named)


def merged(diagnostics: Iterable[Diagnostic], named: Collection[str] = ()) -> List[Diagnostic]:
    """Diagnostics of several files' results in a stable order (path, line, column, code):
    a project problem met while checking several files is kept once, and so is a file that
    cannot be read, whichever checks met it (one MSA001 per file, msacclint.engine.bad_input)."""
    return sorted(one_per_file(dict.fromkeys(diagnostics), named), key=Diagnostic.sort_key)
