"""Checking files that the cache could not answer: each file read, checked with its
project's index, and its result stored. Imported by ``engine.batch`` only when some file
has to be checked (it brings LibCST, the rules and the project layer with it)."""

from __future__ import annotations

import os
from dataclasses import replace
from typing import Callable, Dict, FrozenSet, List, Optional, Sequence, Tuple

from msacclint.diagnostics import Diagnostic, FileResult, Severity
from msacclint.engine.bad_input import one_per_file
from msacclint.engine.cache import Cache
from msacclint.engine.notebook import analyse_notebook, cell_references, is_notebook
from msacclint.engine.read import read
from msacclint.engine.runner import _bad_input, analyse_source
from msacclint.project.index import ProjectIndex, load_index
from msacclint.project.listing import find_project_root
from msacclint.settings import Settings


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
    if project is not None:
        project.begin()
        project.prime(path, data)
    # a notebook is checked as the module its code cells make, with the same project
    if is_notebook(path):
        found = analyse_notebook(data, path, settings, project=project)
    else:
        found = analyse_source(data, path, settings, project=project)
        # a module's findings may name places in a notebook (a caller, the entry point)
        found = replace(found, diagnostics=cell_references(found.diagnostics))
    if project is not None:
        project.checked(path)
        found = replace(found, diagnostics=one_per_file(found.diagnostics + _project_problems(project, settings)))
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
    for where, line, column, message, note in project.new_problems():
        for d in _bad_input(project.display(where), message, settings.codes_for(where), line, column):
            out.append(replace(d, severity=Severity.INFO) if note else d)
    return out


#: one worker's share: its files, the settings, whether to use the cache, the projects
_Job = Tuple[Sequence[str], Settings, bool, Dict[str, ProjectIndex]]


def worker(args: _Job, each: Optional[Callable[[], None]] = None) -> List[Tuple[str, FileResult]]:
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
