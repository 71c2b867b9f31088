"""Run the checks of rules/probe.toml on the installed MindSpore, one row per check.

Importing this module imports nothing heavy; ``probe()`` imports MindSpore. Every check
runs on its own: an exception becomes that row's ``error``, never the end of the run.
"""

from __future__ import annotations

import datetime
import importlib
import inspect
import os
import platform
import sys
from dataclasses import asdict, dataclass
from typing import Any, Dict, Iterable, List, Optional, Tuple

from msacclint import __version__
from msacclint.data import api_defaults, data_dir, tomllib
from msacclint.probe.values import REQUIRED, agrees, plain, show

BACKENDS = ("CPU", "GPU", "Ascend")
STATUSES = ("agree", "differs", "unavailable", "skipped", "error")


class BackendUnavailable(Exception):
    """The chosen device target cannot be used with this MindSpore install."""


@dataclass
class Row:
    entry: str
    api: str
    parameter: str
    kind: str  # default | attribute | behaviour
    expected: str
    observed: Any  # plain() value; None when nothing was observed
    status: str
    detail: str = ""

    def as_dict(self) -> Dict[str, Any]:
        return asdict(self)


def load_checks(path: Optional[str] = None) -> List[Dict[str, Any]]:
    with open(path or data_dir() / "probe.toml", "rb") as handle:
        return list(tomllib.load(handle).get("check", ()))


def check_kind(check: Dict[str, Any]) -> str:
    if "behaviour" in check:
        return "behaviour"
    if "attribute" in check:
        return "attribute"
    return "default"


def resolve(qualname: str) -> Any:
    """The object named ``a.b.C``: the longest importable module, then attributes."""
    parts = qualname.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:]:
            obj = getattr(obj, name)
        return obj
    raise ImportError(f"No module named {parts[0]!r}")


def signature_defaults(obj: Any) -> Dict[str, Any]:
    """Parameter -> default (``<required>`` when there is none) of a function or class,
    without ``self`` and the ``*args``/``**kwargs`` catch-alls."""
    try:
        signature = inspect.signature(obj)
    except (TypeError, ValueError):
        signature = inspect.signature(obj.__init__)
    if _catch_all(signature):
        original = _decorated(obj.__init__) if inspect.isclass(obj) else _decorated(obj, obj.__name__)
        if original is not None:
            signature = inspect.signature(original)
    return {name: plain(p.default) if p.default is not inspect.Parameter.empty else REQUIRED
            for name, p in signature.parameters.items()
            if name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)}


def _catch_all(signature: inspect.Signature) -> bool:
    kinds = {p.kind for name, p in signature.parameters.items() if name != "self"}
    return bool(kinds) and kinds <= {inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD}


def _decorated(function: Any, name: str = "__init__") -> Optional[Any]:
    """The function a decorator without functools.wraps closed over (MindSpore's
    optimizers register their arguments that way), or None."""
    inner = [c.cell_contents for c in getattr(function, "__closure__", None) or ()
             if inspect.isfunction(c.cell_contents) and c.cell_contents is not function]
    named = [f for f in inner if f.__name__ == name]
    return named[0] if named else inner[0] if len(inner) == 1 else None


def select_backend(backend: str) -> None:
    """Set MindSpore's device target and prove it works with one tiny operation."""
    import mindspore as ms
    import numpy as np

    try:
        if hasattr(ms, "set_device"):
            ms.set_device(backend)
        else:
            ms.set_context(device_target=backend)
        current = ms.get_context("device_target")
        if current != backend:
            raise BackendUnavailable(f"MindSpore runs on {current}, not {backend}")
        result = (ms.Tensor(np.ones(2, dtype=np.float32)) + 1).asnumpy()
        if result.tolist() != [2.0, 2.0]:
            raise BackendUnavailable(f"a test addition on {backend} gave {result.tolist()}")
    except BackendUnavailable:
        raise
    except Exception as exc:  # noqa: BLE001 - whatever MindSpore raises, the backend is unusable
        raise BackendUnavailable(_first_line(exc)) from None


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}".rstrip(": ")


def run_check(check: Dict[str, Any], backend: str) -> Row:
    kind = check_kind(check)
    row = Row(entry=check.get("entry", "?"), api=check.get("api", "?"), parameter=check.get("parameter", "?"),
              kind=kind, expected=str(check.get("expected", "")), observed=None, status="error")
    backends = check.get("backends")
    if backends and backend not in backends:
        row.status = "skipped"
        row.detail = f"runs only on {' / '.join(backends)}; the probe ran on {backend}"
        return row
    try:
        target = resolve(row.api)
    except (ImportError, AttributeError) as exc:
        row.status = "unavailable"
        row.detail = f"{row.api} does not exist in this MindSpore ({_first_line(exc)})"
        return row
    try:
        if kind == "default":
            defaults = signature_defaults(target)
            if row.parameter not in defaults:
                row.status = "unavailable"
                row.detail = f"{row.api} has no parameter {row.parameter!r}"
                return row
            row.observed = defaults[row.parameter]
        elif kind == "attribute":
            instance = target(*check.get("args", ()), **check.get("kwargs", {}))
            row.observed = plain(getattr(instance, check["attribute"]))
        else:
            from msacclint.probe.behaviour import BEHAVIOURS

            function = BEHAVIOURS.get(check["behaviour"])
            if function is None:
                row.detail = f"unknown behaviour {check['behaviour']!r} in the probe table"
                return row
            row.observed = plain(function(target, check))
    except Exception as exc:  # noqa: BLE001 - one failing check never stops the others
        row.status = "error"
        row.detail = _first_line(exc)
        return row
    if agrees(row.expected, row.observed, check.get("tolerance")):
        row.status = "agree"
    else:
        row.status = "differs"
        row.detail = f"expected {row.expected}, observed {show(row.observed)}"
    return row


def uncovered_entries(checks: Iterable[Dict[str, Any]]) -> List[str]:
    covered = {c.get("entry") for c in checks}
    return [e["id"] for e in api_defaults()["entry"] if e["id"] not in covered]


def header(backend: str) -> Dict[str, Any]:
    import mindspore as ms
    import numpy as np

    return {
        "mindspore": ms.__version__,
        "backend": backend,
        "numpy": np.__version__,
        "python": platform.python_version(),
        "msacclint": __version__,
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }


def observed_defaults(checks: Iterable[Dict[str, Any]]) -> Dict[str, Dict[str, Any]]:
    """Every parameter default of every API the table's rules or the checks name: what a
    snapshot gives ``check --defaults`` to quote."""
    apis = {c["api"] for c in checks if "api" in c}
    for entry in api_defaults()["entry"]:
        for spec in entry.get("rules", ()):
            apis.update(spec.get("apis", ()))
    found: Dict[str, Dict[str, Any]] = {}
    for api in sorted(apis):
        try:
            found[api] = signature_defaults(resolve(api))
        except Exception:  # noqa: BLE001 - an API this version lacks is simply not in the snapshot
            continue
    return found


def _forget_working_folder() -> None:
    """Under ``python -m msacclint`` the working folder is on sys.path, so a user's
    ``mindspore.py`` or ``numpy.py`` there would be imported: take it off first."""
    here = os.path.realpath(os.getcwd())
    sys.path[:] = [p for p in sys.path if p and os.path.realpath(p) != here]


def probe(backend: str = "CPU", table: Optional[str] = None) -> Tuple[Dict[str, Any], List[Row]]:
    """(header, rows) for the checks of ``table`` (default: the shipped rules/probe.toml).
    Raises ImportError without MindSpore and BackendUnavailable for an unusable backend."""
    os.environ.setdefault("GLOG_v", "3")  # MindSpore's C++ log: errors only
    _forget_working_folder()
    import mindspore  # noqa: F401 - ImportError here means: not installed

    select_backend(backend)
    checks = load_checks(table)
    rows = [run_check(check, backend) for check in checks]
    for entry_id in uncovered_entries(checks):
        rows.append(Row(entry=entry_id, api="", parameter="", kind="none", expected="", observed=None,
                        status="skipped", detail="the probe table has no check for this entry"))
    return header(backend), rows


def snapshot(head: Dict[str, Any], rows: List[Row], table: Optional[str] = None) -> Dict[str, Any]:
    return {
        "schema": 1,
        "kind": "msacclint-probe-snapshot",
        **head,
        "defaults": observed_defaults(load_checks(table)),
        "rows": [r.as_dict() for r in rows],
    }


if __name__ == "__main__":  # pragma: no cover - a debugging aid
    h, r = probe(sys.argv[1] if len(sys.argv) > 1 else "CPU")
    print(h)
    for each in r:
        print(each)
