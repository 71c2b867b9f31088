"""Hops of the reach graph that a supplied value switches off.

A scope names a definition under a test of one value (msacclint.project.outline:
``guards``): ``if config.net_name == "resnet18": from src.resnet import resnet18``,
``if use_deconv: self.up = Up(...)``, ``if args.model in ("a", "b"): ...`` and their ``else``.
The hop counts only when a value the runs supply takes the branch. The values are the
project's (msacclint.project.values: a module constant, the shipped YAML/JSON a loader reads,
an argparse default, a constructor parameter through what its callers pass) and what the
repository's command lines pass for a config key (``--net_name resnet50``; a shell variable
there is unknown). When every value is known and none takes the branch, the hop does not
count, and the reach graph says which value no run supplies; when one is unknown, it counts.

A mixin of ``ProjectIndex`` (msacclint.project.index), asked by the reach graph
(msacclint.project.reach).
"""

from __future__ import annotations

import os
from typing import Any, List, Optional, Tuple

from msacclint.project.outline import Outline

_SHOWN = {"==": "is", "!=": "is not", "in": "is one of", "not in": "is none of", ">": ">", ">=": ">=",
          "<": "<", "<=": "<="}


class GuardQueries:
    """A mixin of ProjectIndex: see the module's docstring."""

    def _switched_off(self, path: str, found: Outline, scope_name: str, line: int,
                      parameters: bool = True) -> Optional[str]:
        """Why the code at ``line`` of the scope ``scope_name`` of ``path`` does not run for any
        supplied value (a test of the branch holding it that none takes), or None. Without
        ``parameters``, tests of the function's own parameters and of ``self`` are left out
        (msacclint.engine.dormant reads those from the function's flow)."""
        scope = found.scopes.get(scope_name)
        if scope is None or not scope.guards:
            return None
        for subject, op, value in scope.guards_at(line):
            if not parameters and scope_name not in ("", "__main__") and \
                    ("." not in subject or subject.split(".")[0] in ("self", "cls")):
                continue
            supplied = self._supplied(path, scope_name, subject)
            if supplied is None:
                continue
            held = [_holds(v, op, value) for v, _where in supplied]
            if held and all(h is False for h in held):
                return _reason(self.display(path), line, subject, op, value, supplied)
        return None

    def _supplied(self, path: str, scope_name: str, subject: str) -> Optional[List[Tuple[Any, str]]]:
        """The values ``subject`` (as written in the scope) may hold, each with where it was
        read ("" when it is a default); None when one is unknown."""
        memo = self._reach_state().supplied
        key = (path, scope_name, subject)
        if key in memo:
            return memo[key]
        memo[key] = None  # (a cycle reads "unknown")
        summary = self.summary(path)
        values = None
        if summary is not None:
            func = summary.functions.get(scope_name)
            if func is None and scope_name.endswith(".__init__"):
                cls = summary.classes.get(scope_name.rsplit(".", 1)[0])
                if cls is not None and "." not in subject and subject in {p for p, _ in cls.params}:
                    values = self.parameter_values(path, subject, cls=cls)
            elif func is not None and "." not in subject and subject in {p for p, _ in func.params}:
                if "." not in func.name:  # (a method is called through objects: its callers are not read)
                    values = self.parameter_values(path, subject, func=func)
            elif func is not None or scope_name in ("", "__main__") or "." in subject:
                values = self.values(path, ("name", subject), func=func)
        out: Optional[List[Tuple[Any, str]]] = None
        if values is not None:
            out = [(v.value, v.evidence.where() if v.evidence is not None else "") for v in values]
            if "." in subject and not subject.startswith("self."):
                out = self._also_supplied(path, subject.rsplit(".", 1)[1], out)
        memo[key] = out
        return out

    def _also_supplied(self, path: str, key: str, out: List[Tuple[Any, str]]) -> Optional[List[Tuple[Any, str]]]:
        """``out`` and what else a run may supply for the config key ``key``: what the
        repository's command lines pass for it (``--key value``; None when a shell variable
        holds it), and its value in every config file of the project ``path`` belongs to (a
        model zoo's scripts pick one with ``--config_path``)."""
        passed = self.command_line_values(key, path)
        if passed is not None:
            if any(v is None for v, _where in passed):
                return None
            out = out + list(passed)
        unit = self._unit(path).rstrip(os.sep) + os.sep
        word = key.encode()
        for config_path in self.configs.paths:
            if not config_path.startswith(unit) or word not in (self._bytes(config_path) or b""):
                continue
            config = self.configs.get(config_path)
            self._depend(config_path)
            if config.problem:
                return None
            out = out + [(value, f"{self.display(config_path)}:{line}") for value, line in config.values.get(key, ())]
        return out


def _holds(value: Any, op: str, literal: Any) -> Optional[bool]:
    """Whether ``value op literal`` holds (a value from a command line is text: it is
    compared as text); None when it cannot be told."""
    if isinstance(value, str) and not isinstance(literal, str) and op in ("==", "!=", "in", "not in"):
        literal = tuple(str(v) for v in literal) if isinstance(literal, tuple) else str(literal)
    try:
        if op == "truthy":
            return bool(value) if not isinstance(value, str) or value not in ("False", "false", "0") else None
        if op == "falsy":
            return not bool(value) if not isinstance(value, str) or value not in ("False", "false", "0") else None
        if op == "==":
            return bool(value == literal)
        if op == "!=":
            return bool(value != literal)
        if op == "in":
            return value in literal
        if op == "not in":
            return value not in literal
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not isinstance(literal, (int, float)):
            return None
        return {">": value > literal, ">=": value >= literal, "<": value < literal, "<=": value <= literal}[op]
    except (TypeError, KeyError):
        return None


def _reason(shown: str, line: int, subject: str, op: str, value: Any, supplied) -> str:
    if op == "truthy":
        test = f"`{subject}` is set"
    elif op == "falsy":
        test = f"`{subject}` is not set"
    else:
        test = f"`{subject}` {_SHOWN[op]} {value!r}"
    given = sorted({repr(v) for v, _where in supplied})
    where = sorted({w for _v, w in supplied if w})
    read = f" ({', '.join(where[:3])})" if where else " (the defaults)"
    return (f"{shown}:{line} runs only when {test}, and the values supplied are "
            f"{', '.join(given[:4])}{read}")
