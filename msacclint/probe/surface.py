"""The MindSpore API surface, read from the installed wheel (``msacclint probe --api-surface``).

``collect()`` imports MindSpore (and nothing else of anybody's: the working folder is taken
off ``sys.path`` first) and records, for this one release:

- ``modules``: every public module of the package (found on disk with ``pkgutil``, never
  imported for that), every submodule of a walked module (private ones too), and the public
  modules MindSpore itself put into ``sys.modules``;
- ``members``: for each module of ``WALKED`` that imports, every public attribute with its
  kind and, for callables, its signature (a class's: how it is called, i.e. its
  constructor's), plus whether a call with an unknown keyword / one positional argument too
  many was *seen* to raise TypeError (the call is made with ``None`` for each required
  argument; Python rejects it while binding the arguments, before the body runs);
- ``rejected``: for each argument combination of rules/api_surface/rejected.toml and each
  of its APIs, whether every rejected form raised and every accepted form constructed.

``merge`` folds the files of several releases into the one file that ships
(rules/api_surface/mindspore-cpu.json; its format is described in
msacclint.analysis.api_surface). ``python -m msacclint.probe.surface merge OUT IN...``
writes it; ``.ci/api-surface`` makes every release's file in its own virtualenv and merges
them.
"""

from __future__ import annotations

import argparse
import datetime
import importlib
import inspect
import json
import os
import pkgutil
import platform
import sys
import warnings
from typing import Any, Dict, List, Optional, Sequence, Tuple

from msacclint import __version__
from msacclint.analysis.api_surface import (
    KEYWORD_ONLY,
    POSITIONAL_ONLY,
    POSITIONAL_OR_KEYWORD,
    REJECTED_FILE,
    SURFACE_FILE,
    VAR_KEYWORD,
    VAR_POSITIONAL,
    Param,
    encode,
)
from msacclint.analysis.versions import parse
from msacclint.data import data_dir, tomllib

KIND = "msacclint-api-surface"
SCHEMA = 1

#: the modules whose every public attribute is recorded: the issue's list, the submodules a
#: port imports most (``ops.operations as P``, ``common.initializer``, ``common.dtype``...)
#: and the deprecated transforms modules old code still imports
WALKED: Tuple[str, ...] = (
    "mindspore",
    "mindspore.nn",
    "mindspore.nn.probability",
    "mindspore.ops",
    "mindspore.ops.operations",
    "mindspore.ops.functional",
    "mindspore.ops.composite",
    "mindspore.mint",
    "mindspore.mint.nn",
    "mindspore.mint.nn.functional",
    "mindspore.mint.optim",
    "mindspore.mint.distributed",
    "mindspore.dataset",
    "mindspore.dataset.vision",
    "mindspore.dataset.transforms",
    "mindspore.dataset.text",
    "mindspore.dataset.audio",
    "mindspore.dataset.vision.c_transforms",
    "mindspore.dataset.vision.py_transforms",
    "mindspore.dataset.transforms.c_transforms",
    "mindspore.dataset.transforms.py_transforms",
    "mindspore.train",
    "mindspore.train.callback",
    "mindspore.train.serialization",
    "mindspore.communication",
    "mindspore.communication.management",
    "mindspore.amp",
    "mindspore.common",
    "mindspore.common.initializer",
    "mindspore.common.dtype",
    "mindspore.context",
    "mindspore.experimental.optim",
    "mindspore._checkparam",
)

#: the keyword no MindSpore API has: a call with it must raise while binding
PROBE_KEYWORD = "msacclint_no_such_keyword"


# -- one release ------------------------------------------------------------------------
def _signature(obj: Any) -> Optional[inspect.Signature]:
    """How ``obj`` is called, or None when Python cannot tell (a C function)."""
    from msacclint.probe.runner import _catch_all, _decorated

    try:
        signature = inspect.signature(obj)
    except (TypeError, ValueError):
        return None
    if _catch_all(signature):
        # MindSpore's optimizers register their arguments with a decorator that hides the
        # real __init__ (msacclint.probe.runner reads the same way)
        inner = _decorated(obj.__init__) if inspect.isclass(obj) else _decorated(obj, getattr(obj, "__name__", ""))
        if inner is not None:
            try:
                real = inspect.signature(inner)
            except (TypeError, ValueError):
                return signature
            params = list(real.parameters.values())
            if inspect.isclass(obj) and params:
                params = params[1:]  # self
            return real.replace(parameters=params)
    return signature


_KINDS = {
    inspect.Parameter.POSITIONAL_ONLY: POSITIONAL_ONLY,
    inspect.Parameter.POSITIONAL_OR_KEYWORD: POSITIONAL_OR_KEYWORD,
    inspect.Parameter.VAR_POSITIONAL: VAR_POSITIONAL,
    inspect.Parameter.KEYWORD_ONLY: KEYWORD_ONLY,
    inspect.Parameter.VAR_KEYWORD: VAR_KEYWORD,
}


def params_of(signature: inspect.Signature) -> List[Param]:
    return [Param(p.name, _KINDS[p.kind], p.default is not inspect.Parameter.empty)
            for p in signature.parameters.values()]


def _required_call(params: Sequence[Param]) -> Tuple[List[Any], Dict[str, Any]]:
    """None for every required argument: positional ones positionally, keyword-only ones by name."""
    args = [None for p in params if p.kind in (POSITIONAL_ONLY, POSITIONAL_OR_KEYWORD) and not p.has_default]
    kwargs = {p.name: None for p in params if p.kind == KEYWORD_ONLY and not p.has_default}
    return args, kwargs


def _raises_type_error(call: Any, wanted: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            call()
    except TypeError as exc:
        return wanted in str(exc)
    except Exception:  # noqa: BLE001 - anything else: the binding let it through
        return False
    return False


def _flags(obj: Any, params: Sequence[Param]) -> str:
    """``k`` when an unknown keyword raised TypeError, ``p`` when one positional argument
    too many did (each tried only when the signature says it must)."""
    flags = ""
    args, kwargs = _required_call(params)
    if not any(p.kind == VAR_KEYWORD for p in params):
        if _raises_type_error(lambda: obj(*args, **kwargs, **{PROBE_KEYWORD: None}), PROBE_KEYWORD):
            flags += "k"
    if not any(p.kind == VAR_POSITIONAL for p in params):
        most = sum(1 for p in params if p.kind in (POSITIONAL_ONLY, POSITIONAL_OR_KEYWORD))
        if _raises_type_error(lambda: obj(*([None] * (most + 1)), **kwargs), "positional argument"):
            flags += "p"
    return flags


def describe(obj: Any) -> str:
    """The entry text of one attribute (format: msacclint.analysis.api_surface)."""
    if inspect.ismodule(obj):
        return "m"
    kind = "c" if inspect.isclass(obj) else "f" if callable(obj) else "v"
    if kind == "v":
        return kind
    signature = _signature(obj)
    if signature is None:
        return kind
    params = params_of(signature)
    return f"{kind}{_flags(obj, params)}:{encode(params)}"


def _public_modules(package: Any) -> List[str]:
    """Every module of the package whose path has no private part, found on disk."""
    found: List[str] = []

    def visit(paths: Sequence[str], prefix: str) -> None:
        for info in pkgutil.iter_modules(list(paths)):
            if info.name.startswith("_"):
                continue
            name = prefix + info.name
            found.append(name)
            if info.ispkg:
                visit([os.path.join(p, info.name) for p in paths], name + ".")

    visit(package.__path__, package.__name__ + ".")
    return found


def _submodules(module: Any) -> List[str]:
    """The modules directly inside a package (private ones too: its members may be asked for)."""
    paths = getattr(module, "__path__", None)
    return [info.name for info in pkgutil.iter_modules(list(paths))] if paths else []


def collect() -> Dict[str, Any]:
    """This release's surface (imports MindSpore)."""
    from msacclint.probe.runner import _forget_working_folder

    os.environ.setdefault("GLOG_v", "3")
    _forget_working_folder()
    import mindspore
    import numpy

    members: Dict[str, Dict[str, str]] = {}
    for name in WALKED:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                module = importlib.import_module(name)
        except Exception:  # noqa: BLE001 - a module this release does not have (or cannot import)
            continue
        table: Dict[str, str] = {}
        for attr in sorted(dir(module)):
            if attr.startswith("_"):
                continue
            try:
                value = getattr(module, attr)
            except Exception:  # noqa: BLE001 - listed but not gettable: recorded as a value
                table[attr] = "v"
                continue
            text = describe(value)
            if text == "m" and getattr(value, "__name__", f"{name}.{attr}") != f"{name}.{attr}":
                text = f"m:{value.__name__}"
            table[attr] = text
        for sub in _submodules(module):
            if not sub.startswith("_") and sub not in table:
                table[sub] = "m"
        members[name] = table
    modules = set(_public_modules(mindspore)) | {"mindspore"} | set(members)
    for name in members:  # a walked module's private submodules too (``ops._primitive_cache``)
        modules |= {f"{name}.{sub}" for sub in _submodules(importlib.import_module(name))}
    modules |= {m for m in list(sys.modules) if m.startswith("mindspore.")
                and not any(part.startswith("_") for part in m.split("."))}
    return {
        "kind": KIND,
        "schema": SCHEMA,
        "mindspore": mindspore.__version__,
        "python": platform.python_version(),
        "numpy": numpy.__version__,
        "msacclint": __version__,
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "modules": sorted(modules),
        "members": members,
        "rejected": verify_rejected(),
    }


# -- argument combinations ---------------------------------------------------------------
def load_rejected(path: Optional[str] = None) -> List[Dict[str, Any]]:
    with open(path or data_dir() / REJECTED_FILE, "rb") as handle:
        return list(tomllib.load(handle).get("combination", ()))


def verify_rejected(path: Optional[str] = None) -> Dict[str, Dict[str, str]]:
    """combination id -> api -> "raises" when every rejected form raised the combination's
    exception and every accepted form constructed; otherwise what happened."""
    from msacclint.probe.runner import resolve

    out: Dict[str, Dict[str, str]] = {}
    for combination in load_rejected(path):
        results: Dict[str, str] = {}
        wanted = combination.get("raises", "ValueError")
        for api in combination["apis"]:
            try:
                target = resolve(api)
            except (ImportError, AttributeError):
                results[api] = "missing"
                continue
            results[api] = _try_forms(target, combination, wanted)
        out[combination["id"]] = results
    return out


def _try_forms(target: Any, combination: Dict[str, Any], wanted: str) -> str:
    prefix = combination.get("call", "")
    for form in combination.get("rejected", ()):
        outcome = _construct(target, prefix, form)
        if outcome != wanted:
            return f"{form}: {outcome or 'constructed'}"
    for form in combination.get("accepted", ()):
        outcome = _construct(target, prefix, form)
        if outcome:
            return f"{form}: raised {outcome}"
    return "raises"


def _construct(target: Any, prefix: str, form: str) -> str:
    """The name of the exception ``target(<prefix>, <form>)`` raises, or "" when it constructs."""
    text = ", ".join(part for part in (prefix, form) if part)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            eval(f"target({text})", {"target": target})  # the forms are our own table, never user code
    except Exception as exc:  # noqa: BLE001 - the exception is the observation
        return type(exc).__name__
    return ""


# -- several releases ----------------------------------------------------------------------
def _release_key(version: str) -> Tuple[Any, ...]:
    return parse(version) + (version,)


def merge(surfaces: Sequence[Dict[str, Any]]) -> Dict[str, Any]:
    """One file for many releases (format: msacclint.analysis.api_surface)."""
    ordered = sorted(surfaces, key=lambda s: _release_key(s["mindspore"]))
    versions = [s["mindspore"] for s in ordered]
    if len(set(versions)) != len(versions):
        raise ValueError(f"a release is given twice: {versions}")
    walked: Dict[str, int] = {}
    modules: Dict[str, int] = {}
    entries: Dict[str, Dict[str, Dict[str, int]]] = {}
    rejected: Dict[str, Dict[str, int]] = {}
    for i, data in enumerate(ordered):
        bit = 1 << i
        for module in data["modules"]:
            modules[module] = modules.get(module, 0) | bit
        for module, table in data["members"].items():
            walked[module] = walked.get(module, 0) | bit
            for name, text in table.items():
                by_text = entries.setdefault(module, {}).setdefault(name, {})
                by_text[text] = by_text.get(text, 0) | bit
        for combination, apis in data.get("rejected", {}).items():
            for api, outcome in apis.items():
                mask = rejected.setdefault(combination, {}).setdefault(api, 0)
                rejected[combination][api] = mask | (bit if outcome == "raises" else 0)
    members: Dict[str, Dict[str, Any]] = {}
    for module in sorted(entries):
        table: Dict[str, Any] = {}
        for name in sorted(entries[module]):
            variants = entries[module][name]
            if len(variants) == 1 and next(iter(variants.values())) == walked[module]:
                table[name] = next(iter(variants))
            else:
                table[name] = sorted(([mask, text] for text, mask in variants.items()), key=lambda v: v[0])
        members[module] = table
    return {
        "kind": KIND,
        "schema": SCHEMA,
        "about": "The public names, submodules and signatures of every supported MindSpore release, as the "
                 "probe saw them on CPU (msacclint probe --api-surface; merged by python -m "
                 "msacclint.probe.surface merge; regenerated by .ci/api-surface). Format: "
                 "msacclint/analysis/api_surface.py. Do not edit.",
        "versions": versions,
        "made_with": {s["mindspore"]: {"python": s.get("python"), "numpy": s.get("numpy"), "date": s.get("date")}
                      for s in ordered},
        "walked": dict(sorted(walked.items())),
        "modules": dict(sorted(modules.items())),
        "members": members,
        "rejected": {c: dict(sorted(a.items())) for c, a in sorted(rejected.items())},
    }


def release_view(merged: Dict[str, Any], version: str) -> Dict[str, Any]:
    """One release's part of a merged file, in the shape ``collect`` writes (without the
    run's header): what a fresh probe of that release must equal."""
    versions = merged["versions"]
    if version not in versions:
        raise KeyError(version)
    bit = 1 << versions.index(version)
    members: Dict[str, Dict[str, str]] = {}
    for module, table in merged["members"].items():
        if not merged["walked"].get(module, 0) & bit:
            continue
        out: Dict[str, str] = {}
        for name, value in table.items():
            if isinstance(value, str):
                out[name] = value
                continue
            for mask, text in value:
                if mask & bit:
                    out[name] = text
        members[module] = out
    return {
        "modules": sorted(m for m, mask in merged["modules"].items() if mask & bit),
        "members": members,
        "rejected": {c: {a: "raises" if mask & bit else "not seen" for a, mask in apis.items()}
                     for c, apis in merged["rejected"].items()},
    }


def differences(shipped: Dict[str, Any], fresh: Dict[str, Any], limit: int = 40) -> List[str]:
    """What a fresh probe of one release sees differently from the shipped view of it."""
    out: List[str] = []
    old_modules, new_modules = set(shipped["modules"]), set(fresh["modules"])
    out += [f"module {m} is new" for m in sorted(new_modules - old_modules)]
    out += [f"module {m} is gone" for m in sorted(old_modules - new_modules)]
    for module in sorted(set(shipped["members"]) | set(fresh["members"])):
        old, new = shipped["members"].get(module), fresh["members"].get(module)
        if old is None or new is None:
            out.append(f"{module}: {'walked now' if old is None else 'no longer imports'}")
            continue
        for name in sorted(set(old) | set(new)):
            if old.get(name) != new.get(name):
                out.append(f"{module}.{name}: shipped {old.get(name)!r}, probed {new.get(name)!r}")
    for combination in sorted(set(shipped["rejected"]) | set(fresh["rejected"])):
        old_apis, new_apis = shipped["rejected"].get(combination, {}), fresh["rejected"].get(combination, {})
        for api in sorted(set(old_apis) | set(new_apis)):
            was, now = old_apis.get(api) == "raises", new_apis.get(api) == "raises"
            if was != now:
                out.append(f"{combination} {api}: shipped {'raises' if was else 'not seen'}, probed "
                           f"{new_apis.get(api, 'not tried')}")
    return out[:limit] + ([f"... and {len(out) - limit} more"] if len(out) > limit else [])


def shipped_path() -> str:
    return str(data_dir() / SURFACE_FILE)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m msacclint.probe.surface",
                                     description="merge per-release API surfaces, or compare one with the shipped file")
    sub = parser.add_subparsers(dest="command", required=True)
    merging = sub.add_parser("merge", help="merge the files of `msacclint probe --api-surface` into one")
    merging.add_argument("output")
    merging.add_argument("inputs", nargs="+")
    comparing = sub.add_parser("compare", help="compare one release's file with the shipped surface")
    comparing.add_argument("fresh")
    comparing.add_argument("--shipped", default=None)
    args = parser.parse_args(argv)
    if args.command == "merge":
        surfaces = []
        for path in args.inputs:
            with open(path, encoding="utf-8") as handle:
                surfaces.append(json.load(handle))
        write(merge(surfaces), args.output)
        return 0
    with open(args.fresh, encoding="utf-8") as handle:
        fresh = json.load(handle)
    with open(args.shipped or shipped_path(), encoding="utf-8") as handle:
        merged = json.load(handle)
    release = fresh["mindspore"]
    if release not in merged["versions"]:
        print(f"FAIL: the shipped API surface has no {release}; regenerate it with .ci/api-surface")
        return 1
    found = differences(release_view(merged, release), fresh)
    for line in found:
        print(f"FAIL: {line}")
    print("api-surface:", "FAILED" if found else f"OK ({release} is what the shipped surface says)")
    return 1 if found else 0


def write(data: Dict[str, Any], path: str) -> None:
    """JSON with one line per module, per name and per combination: a change of the surface
    reads as a diff of the lines it touches."""
    def dump(value: Any) -> str:
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)

    def block(items: List[Tuple[str, str]], indent: str) -> List[str]:
        last = len(items) - 1
        return [f"{indent}{dump(key)}: {text}{',' if n < last else ''}" for n, (key, text) in enumerate(items)]

    lines = ["{"]
    keys = list(data)
    for n, key in enumerate(keys):
        value = data[key]
        end = "," if n < len(keys) - 1 else ""
        if key == "members" and isinstance(value, dict):
            lines.append(f" {dump(key)}: {{")
            modules = list(value.items())
            for m, (module, table) in enumerate(modules):
                lines.append(f"  {dump(module)}: {{")
                lines += block([(name, dump(entry)) for name, entry in table.items()], "   ")
                lines.append("  }" + ("," if m < len(modules) - 1 else ""))
            lines.append(f" }}{end}")
        elif key in ("walked", "modules", "rejected", "made_with") and isinstance(value, dict):
            lines.append(f" {dump(key)}: {{")
            lines += block([(inner, dump(item)) for inner, item in value.items()], "  ")
            lines.append(f" }}{end}")
        elif key == "modules" and isinstance(value, list):
            lines.append(f" {dump(key)}: [")
            lines += [f"  {dump(item)}{',' if m < len(value) - 1 else ''}" for m, item in enumerate(value)]
            lines.append(f" ]{end}")
        else:
            lines.append(f" {dump(key)}: {dump(value)}{end}")
    lines.append("}")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.exit(main())
