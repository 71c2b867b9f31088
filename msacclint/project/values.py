"""What value reaches an expression: constants, dict/namespace configs, YAML/JSON config
files, argparse defaults, and what the callers of a class or function bind to its parameters
(through ``**kwargs`` forwarders too). Several values are kept as alternatives; an answer with
any unknown alternative is None. A mixin of ``ProjectIndex`` (msacclint.project.index).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, List, Optional

from msacclint.project.summary import ClassSummary, Expr, FileSummary, FunctionSummary


class _Unset:
    """A parameter a call leaves at its default (``ProjectIndex.switch_values``)."""

    def __repr__(self) -> str:
        return "UNSET"

UNSET = _Unset()


@dataclass(frozen=True)
class Evidence:
    """Where a fact was seen: a file, a line and what is there."""

    path: str
    line: int
    what: str

    def where(self) -> str:
        return f"{self.path}:{self.line}"


@dataclass(frozen=True)
class Value:
    """One possible value of an expression, and where it was written."""

    value: Any
    evidence: Optional[Evidence] = None


class ValueQueries:
    """A mixin of ProjectIndex: see the module's docstring."""

    def values_seen_from(self, ctx, name: str) -> Optional[List[Value]]:
        """The values of a dotted name written in the checked file: defined in the file itself
        (``name_values``), else imported into it (``values_from``)."""
        return self.name_values(os.path.abspath(ctx.path), name) or self.values_from(ctx, name)

    def values_from(self, ctx, name: str) -> Optional[List[Value]]:
        """``name_values`` for a name imported into the checked file."""
        target = self.resolve_from(ctx, name)
        return self._target_values(target, 0) if target is not None else None

    def _target_values(self, target, depth: int) -> Optional[List[Value]]:
        kind, where, item = target
        if kind == "constant":
            return self.name_values(where, item, depth + 1)
        if kind == "config":
            return self.name_values(where, f"{item[0]}.{item[1]}" if item[1] else item[0], depth + 1)
        if kind == "attr":
            summary = self.summary(where)
            return self._loader_values(where, summary, item[0], item[1]) if summary is not None else None
        return None

    def values(self, path: str, expr: Expr, cls: Optional[ClassSummary] = None,
               func: Optional[FunctionSummary] = None, depth: int = 0) -> Optional[List[Value]]:
        """The possible values of ``expr`` written in ``path`` (inside ``func`` / the
        ``__init__`` of ``cls``): every alternative resolved, or None."""
        if depth > 8:
            return None
        kind = expr[0]
        if kind == "lit":
            return [Value(expr[1])]
        if kind == "minus1":
            inner = self.values(path, expr[1], cls, func, depth + 1)
            if inner is None or not all(_number(v.value) for v in inner):
                return None
            return [Value(round(1 - v.value, 10), v.evidence) for v in inner]
        if kind == "param":
            return self.parameter_values(path, expr[1], cls=cls, func=func, depth=depth + 1)
        if kind == "name" and expr[1].startswith("self.") and expr[1].count(".") == 1:
            return self._self_attribute_values(path, expr[1][5:], cls, func, depth + 1)
        if kind == "name":
            return self.name_values(path, expr[1], depth + 1)
        if kind == "key":
            return self.name_values(path, f"{expr[1]}.{expr[2]}", depth + 1)
        return None

    def _self_attribute_values(self, path: str, attr: str, cls: Optional[ClassSummary],
                               func: Optional[FunctionSummary], depth: int) -> Optional[List[Value]]:
        """``self.res_base`` read in a method of a class of ``path``: what its ``__init__``
        assigns to the attribute, resolved there (a constructor parameter through the
        class's callers). None when the class or the assignment is not known."""
        if cls is None and func is not None and func.name.count(".") == 1:
            summary = self.summary(path)
            cls = summary.classes.get(func.name.split(".")[0]) if summary is not None else None
        if cls is None or attr not in cls.attrs:
            return None
        values = self.values(path, cls.attrs[attr], cls=cls, depth=depth + 1)
        if values is None:
            return None
        ev = Evidence(self.display(path), cls.line, f"{cls.name}: self.{attr}")
        return [Value(v.value, v.evidence or ev) for v in values]

    def name_values(self, path: str, name: str, depth: int = 0) -> Optional[List[Value]]:
        summary = self.summary(path)
        if summary is None or depth > 8:
            return None
        head, _, rest = name.partition(".")
        if not rest and head in summary.constants and head not in summary.imports:
            out: List[Value] = []
            for expr, line in summary.constants[head]:
                inner = self.values(path, expr, depth=depth + 1)
                if inner is None:
                    return None
                ev = Evidence(self.display(path), line, f"{head} = ...")
                out.extend(Value(v.value, v.evidence or ev) for v in inner)
            return out or None
        if rest and head in summary.configs and "." not in rest:
            entry = summary.configs[head].get(rest)
            if entry is None:   # a key the file never sets: where the object came from may
                return self._loader_values(path, summary, head, rest) if head in summary.constants else None
            inner = self.values(path, entry[0], depth=depth + 1)
            if inner is None:
                return None
            ev = Evidence(self.display(path), entry[1], f"{head}.{rest}")
            return [Value(v.value, v.evidence or ev) for v in inner]
        if head in summary.imports:
            target = self.lookup(path, name)
            if target is None:
                # ``config.drop_rate`` with ``config`` built by a loader module from YAML
                return self._loader_values(path, summary, head, rest)
            return self._target_values(target, depth)
        if rest and "." not in rest and head in summary.constants:
            return self._loader_values(path, summary, head, rest)
        return None

    def _loader_values(self, path: str, summary: Optional[FileSummary], head: str, key: str) -> Optional[List[Value]]:
        """``config.key`` where ``config`` comes from a module that reads a YAML file."""
        if not key or "." in key or summary is None:
            return None
        target = self.lookup(path, head)
        loader_path = target[1] if target is not None and target[0] in ("constant", "module") else path
        loader = self.summary(loader_path)
        if loader is None:
            return None
        files = self._config_files(loader_path, loader)
        out: List[Value] = []
        for config_path in files:
            config = self.configs.get(config_path)
            self._depend(config_path)
            if config.problem:
                self._problem(config_path, config.problem, config.problem_line)
                return None  # one alternative unknown: the value is unknown
            for value, line in config.values.get(key, ()):
                out.append(Value(value, Evidence(self.display(config_path), line, f"{key}: {value!r}")))
        # an argparse default of the same key is one more alternative
        for file_summary in {loader_path: loader}.values():
            if key in file_summary.arguments:
                expr, line = file_summary.arguments[key]
                inner = self.values(loader_path, expr)
                if inner is None:
                    return None
                out.extend(Value(v.value, v.evidence or Evidence(self.display(loader_path), line,
                                                                  f"--{key} default")) for v in inner)
        return out or None

    def _config_files(self, path: str, summary: FileSummary) -> List[str]:
        """The YAML/JSON files a loader module reads: the ones it names (when they exist),
        else the ``*config*.yaml`` files nearest to it, when it reads YAML at all. Files the
        code writes are not named (summary.py); a named one that is missing is a note."""
        named = []
        for name, _line in summary.config_files:
            for base in (os.path.dirname(path), os.path.dirname(os.path.dirname(path)), self.root):
                candidate = os.path.normpath(os.path.join(base, name))
                if self.configs.exists(candidate):
                    named.append(candidate)
                    break
            else:
                # an input that is missing (not written by the code: summary.py leaves those out)
                # is a note, not bad input: the file may be made by a step before training
                self._problem(path, f"the config file {name!r} that line {_line} reads is not in the project: "
                                    "the values read from it are unknown", _line, note=True)
        if named:
            return named
        if any(v.split(".")[0] == "yaml" for v in summary.imports.values()):
            return self.configs.near(os.path.dirname(path), self.root)
        return []

    def nearby_config_values(self, path: str, key: str) -> Optional[List[Value]]:
        """The values of ``key`` in the ``*config*.yaml`` files nearest to ``path``, for a
        config object handed down through parameters (``net_config.reg_loss``) or imported
        from a loader the index cannot resolve: an assumption the caller must state. None when
        one of them lacks the key or cannot be read."""
        files = self.configs.near(os.path.dirname(path), self.root)
        out: List[Value] = []
        for config_path in files:
            config = self.configs.get(config_path)
            self._depend(config_path)
            found = config.values.get(key)
            if config.problem or not found:
                return None
            out.extend(Value(value, Evidence(self.display(config_path), line, f"{key}: {value!r}"))
                       for value, line in found)
        return out or None

    def parameter_values(self, path: str, param: str, cls: Optional[ClassSummary] = None,
                         func: Optional[FunctionSummary] = None, depth: int = 0) -> Optional[List[Value]]:
        """What the callers of ``cls`` / ``func`` bind to ``param``: call-site arguments
        across the project, and the default where a call leaves it out."""
        if depth > 8:
            return None
        if cls is not None:
            params, target, skip_self = cls.params, cls.name, False
        elif func is not None:
            params, target = func.params, func.name
            skip_self = bool(params) and params[0][0] in ("self", "cls")
        else:
            return None
        names = [p for p, _ in params]
        if skip_self:
            names = names[1:]
        if param not in names:
            return None
        default = dict(params).get(param)
        out: List[Value] = []
        sites = list(self.call_sites(path, target))
        if not sites:
            if default is None:
                return None
            return self.values(path, default, depth=depth + 1)
        for site_path, _site_summary, call, owner_cls, owner_func in sites:
            index = names.index(param)
            if param in call.kwargs:
                expr = call.kwargs[param]
            elif index < len(call.args):
                expr = call.args[index]
            elif "*" in call.kwargs:
                return None  # *args may fill it: cannot tell
            elif "**" in call.kwargs:
                forwarded = self.forwarded_values(site_path, call, param, owner_cls, owner_func, depth + 1)
                if forwarded is None:
                    return None
                for value in forwarded:
                    if value.value is not UNSET:
                        out.append(value)
                        continue
                    if default is None:
                        return None
                    inner = self.values(path, default, depth=depth + 1)
                    if inner is None:
                        return None
                    out.extend(inner)
                continue
            elif default is not None:
                inner = self.values(path, default, depth=depth + 1)
                if inner is None:
                    return None
                out.extend(inner)
                continue
            else:
                return None  # a missing argument: cannot tell
            inner = self.values(site_path, expr, cls=owner_cls, func=owner_func, depth=depth + 1)
            if inner is None:
                return None
            ev = Evidence(self.display(site_path), call.line, f"{call.callee}(...)")
            out.extend(Value(v.value, v.evidence or ev) for v in inner)
        return out or None

    def forwarded_values(self, path: str, call, param: str, cls: Optional[ClassSummary],
                         func: Optional[FunctionSummary], depth: int = 0) -> Optional[List[Value]]:
        """What reaches the keyword ``param`` through ``**name`` in ``call`` when ``name`` is
        the ``**kwargs`` of ``func``, the function making the call (``def build(**kwargs):
        return Net(**kwargs)``): what every caller of ``func`` passes as ``param=``, through
        further forwarders too, and ``Value(UNSET)`` where a caller leaves it out. None when
        the unpacked dict is anything else, or the callers of ``func`` cannot all be seen (as
        ``switch_values`` decides it)."""
        star = call.kwargs.get("**")
        if depth > 4 or func is None or star is None or func.var_keyword is None or \
                tuple(star) != ("name", func.var_keyword):
            return None
        if func.name.endswith(".__init__") and cls is not None and func.name == cls.name + ".__init__":
            target = cls.name   # a class whose constructor forwards its keywords
        elif "." not in func.name:
            target = func.name
        else:
            return None  # a method: called through objects, callers not followed
        sites = self._calls_of(path, target)
        if sites is None:
            return None
        out: List[Value] = []
        for other, site, site_cls, site_func, preset in sites:
            where = other
            if param not in site.kwargs and "**" not in site.kwargs and preset is not None and param in preset.kwargs:
                site, where, site_cls, site_func = preset, path, None, None   # fixed by the partial
            if param in site.kwargs:
                values = self.values(where, site.kwargs[param], cls=site_cls if site_cls is not None and site_func
                                     is not None and site_func.name.endswith("__init__") else None, func=site_func,
                                     depth=depth + 1)
                if values is None:
                    return None
                ev = Evidence(self.display(where), site.line, f"{site.callee}(...)")
                out.extend(Value(v.value, v.evidence or ev) for v in values)
            elif "**" in site.kwargs:
                inner = self.forwarded_values(other, site, param, site_cls, site_func, depth + 1)
                if inner is None:
                    return None
                out.extend(inner)
            else:
                out.append(Value(UNSET))
        return out


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)

