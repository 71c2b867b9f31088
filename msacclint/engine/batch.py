"""Many files: read, check (from the cache when unchanged), in parallel when it pays."""

from __future__ import annotations

import os
from dataclasses import replace
from typing import TYPE_CHECKING, Callable, Dict, FrozenSet, Iterable, List, Optional, Sequence, Tuple

from msacclint.diagnostics import Diagnostic, FileResult, Severity
from msacclint.engine.cache import Cache
from msacclint.engine.notebook import check_notebook, is_notebook
from msacclint.engine.runner import _bad_input, analyse_source
from msacclint.project import ProjectIndex, find_project_root, load_index
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


def check_file(path: str, settings: Settings, cache: Optional[Cache] = None,
               project: Optional[ProjectIndex] = None) -> List[Diagnostic]:
    return analyse_file(path, settings, cache, project).diagnostics


def analyse_file(path: str, settings: Settings, cache: Optional[Cache] = None,
                 project: Optional[ProjectIndex] = None) -> FileResult:
    """One file from disk, from the cache when its content (and every other file its
    project-level answers read) was checked before."""
    nothing: Optional[FrozenSet[str]] = frozenset() if settings.collect_uses else None
    data, problem = read(path)
    if data is None:
        return FileResult(_bad_input(path, problem or "", settings.codes_for(path)), nothing)
    key = None
    if cache is not None:
        key = Cache.key(path, data)
        hit = cache.get_result(key, need_uses=settings.collect_uses)
        if hit is not None:
            return hit
    if is_notebook(path):
        found = FileResult(check_notebook(data, path, settings), nothing)
    else:
        if project is not None:
            project.begin()
            project.prime(path, data)
        found = analyse_source(data, path, settings, project=project)
        if project is not None:
            project.checked(path)
            found = replace(found, diagnostics=found.diagnostics + _project_problems(project, settings))
    if cache is not None and key is not None:
        deps = project.dependencies() if project is not None else None
        if deps:
            deps.pop(os.path.normpath(os.path.abspath(path)), None)
        cache.put(key, found.diagnostics, found.uses, deps, found.torch_weights)
    return found


def _project_problems(project: ProjectIndex, settings: Settings) -> List[Diagnostic]:
    """Bad input the project layer met while this file was checked (a malformed config,
    circular imports, ...): one MSA001 each, on the file that holds the problem."""
    out: List[Diagnostic] = []
    for where, line, message, note in project.new_problems():
        for d in _bad_input(project.display(where), message, settings.codes_for(where), line):
            out.append(replace(d, severity=Severity.INFO) if note else d)
    return out


_Job = Tuple[Sequence[str], Settings, bool, Dict[str, ProjectIndex]]


def _worker(args: _Job, each: Optional[Callable[[], None]] = None) -> List[Tuple[str, FileResult]]:
    paths, settings, use_cache, projects = args
    cache = Cache.for_settings(settings) if use_cache else None
    for index in projects.values():
        # a file another file's check needs summarised before its own check keeps its
        # parse until then
        index.pending = {os.path.normpath(os.path.abspath(p)) for p in paths}
    out: List[Tuple[str, FileResult]] = []
    for path in paths:
        out.append((path, analyse_file(path, settings, cache, _project_of(path, projects, cache))))
        if each is not None:
            each()
    return out


def _counter(progress: Progress, done: int, total: int) -> Callable[[], None]:
    """A callback for one more file done that tells ``progress`` the new count."""
    count = [done]

    def each() -> None:
        count[0] += 1
        progress(count[0], total)

    return each


def _project_of(path: str, projects: Dict[str, ProjectIndex], cache: Optional[Cache]) -> Optional[ProjectIndex]:
    """The project index a file belongs to (the nearest root above it)."""
    if not projects:
        return None
    absolute = os.path.abspath(path)
    best = None
    for root in projects:
        if absolute.startswith(root.rstrip(os.sep) + os.sep) and (best is None or len(root) > len(best)):
            best = root
    if best is None:
        return None
    index = projects[best]
    if index.cache is None and cache is not None:
        index.cache = cache
    return index


def project_indexes(paths: Sequence[str], cache: Optional[Cache] = None) -> Dict[str, ProjectIndex]:
    """root -> ProjectIndex for the repositories the files belong to (the root is found
    from each file, so ``check one.py`` and ``check .`` see the same project)."""
    roots: Dict[str, str] = {}
    # files with no root marker above them (a model folder downloaded without its
    # repository) share one project: the working folder's when they lie inside it, else
    # the folder they have in common
    folders = {os.path.dirname(os.path.abspath(path)) for path in paths}
    here = os.getcwd()
    inside = here != os.path.expanduser("~") and all(
        f == here or f.startswith(here.rstrip(os.sep) + os.sep) for f in folders)
    common = here if inside else os.path.commonpath(sorted(folders)) if folders else None
    for path in paths:
        folder = os.path.dirname(os.path.abspath(path))
        if folder not in roots:
            roots[folder] = find_project_root(folder, fallback=common)
    return {root: load_index(root, cache=cache) for root in sorted(set(roots.values()))}


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
    projects = project_indexes(todo) if todo and project else {}
    if jobs <= 1 or len(todo) < PARALLEL_THRESHOLD:
        each = _counter(progress, len(found), total) if progress is not None else None
        found.update(_worker((todo, settings, use_cache, projects), each))
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
            futures = [pool.submit(_worker, (c, settings, use_cache, projects)) for c in chunks]
            for future in as_completed(futures):
                found.update(future.result())
                if progress is not None:
                    progress(len(found), total)
    return {path: found[path] for path in paths if path in found}


def check_files(paths: Sequence[str], settings: Settings, jobs: Optional[int] = None,
                use_cache: bool = True, project: bool = True) -> List[Diagnostic]:
    """Diagnostics of all files in a stable order (path, line, column, code)."""
    return diagnostics_of(analyse_files(paths, settings, jobs, use_cache, project).values())


def diagnostics_of(results: Iterable[FileResult]) -> List[Diagnostic]:
    """All diagnostics of some results in a stable order (path, line, column, code); a
    project problem met while checking several files is kept once."""
    return sorted(dict.fromkeys(d for result in results for d in result.diagnostics), key=Diagnostic.sort_key)
