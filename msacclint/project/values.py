"""What value reaches an expression: constants, dict/namespace configs, YAML/JSON config
files, argparse defaults, and what the callers of a class or function bind to its parameters
(through ``**kwargs`` forwarders too). Several values are kept as alternatives; an answer with
any unknown alternative is None. A mixin of ``ProjectIndex`` (msacclint.project.index).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Tuple

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

    def values_at(self, ctx, expr, at, depth: int = 0) -> Optional[List[Value]]:
        """The values an argument of the checked file (``expr``, written in the call ``at``)
        may hold, each with where it was written: a literal or module constant; a local name
        by its assignment before the call; a parameter of the enclosing function or
        constructor by what every caller in the project binds to it (its default where a
        call leaves it out, or where nothing calls it: a fused block's own default); a name
        or attribute chain defined in or imported into the file (constants, configs, config
        files, argparse defaults); ``self.<attr>`` read in a method by what ``__init__``
        assigns it. None when any alternative is unknown."""
        import libcst as cst

        from msacclint.analysis.calls import UNKNOWN, constant, parameter_slots
        from msacclint.analysis.cells import cells
        from msacclint.analysis.imports import dotted
        from msacclint.analysis.scopes import scopes
        from msacclint.project.summary import ClassSummary, FunctionSummary, signature

        if depth > 6:
            return None
        value = constant(ctx, expr)
        if value is not UNKNOWN:
            return [Value(value)]
        found = scopes(ctx)
        fl = found.owner(at) if at is not None else None
        path = os.path.abspath(ctx.path)
        if isinstance(expr, cst.Name) and fl is not None:
            assigned = found.resolve(fl, expr.value, fl.order_of.get(at))
            if assigned is not None:
                scope, definition = assigned
                if definition.index is not None or not isinstance(definition.node, (cst.Assign, cst.AnnAssign)):
                    return None  # unpacked, augmented, a loop variable
                anchor = definition.node if definition.node in scope.order_of else None
                return self.values_at(ctx, definition.value, anchor, depth + 1)
            func = fl.root if isinstance(fl.root, cst.FunctionDef) else None
            if func is not None and expr.value in parameter_slots(func):
                cls_node = found.class_of(fl)
                params = signature(func)
                cls = summary_func = None
                if cls_node is not None:
                    if func.name.value not in ("__init__", "__new__") or found.method_of.get(func) is not cls_node:
                        return None  # a method: called through objects, callers not followed
                    cls = ClassSummary(name=cls_node.name.value, line=0,
                                       params=tuple(p for p in params if p[0] not in ("self", "cls")))
                elif found.parent.get(func) is not None:
                    return None  # a nested function: its calls are not summarised by name
                else:
                    summary_func = FunctionSummary(name=func.name.value, line=0, params=params)
                # the branches around the call that test other parameters (``if stage == 'train':``)
                # keep only the calls that reach it
                event = found.event(at) if at is not None else None
                guards = [(test, branch) for test, branch in (event.guards if event is not None else ())
                          if _tested_parameters(test, parameter_slots(func), expr.value)]
                if not guards:
                    return self.parameter_values(path, expr.value, cls=cls, func=summary_func, depth=depth + 1)
                tested = sorted({n for test, _ in guards for n in _tested_parameters(test, parameter_slots(func),
                                                                                        expr.value)})
                bindings = self.parameter_bindings(path, (expr.value, *tested), cls, summary_func, depth + 1)
                if bindings is None:
                    return None
                out: List[Value] = []
                for binding in bindings:
                    if binding[expr.value] is None:
                        return None
                    if any(_guard_holds(test, branch, binding) is False for test, branch in guards):
                        continue  # this call never reaches the branch
                    out.extend(binding[expr.value] or [])
                return out or None
        if isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name) and expr.value.value == "self" \
                and fl is not None:
            cls_node = found.class_of(fl)
            info = cells(ctx).classes.get(cls_node.name.value) if cls_node is not None else None
            values = [v for name, v in info.assigned if name == expr.attr.value] if info is not None else []
            attr = info.attrs.get(expr.attr.value) if info is not None else None
            if len(values) != 1 or attr is None or attr.value is not values[0]:
                return None
            return self.values_at(ctx, attr.value, attr.assign, depth + 1)
        name = dotted(expr)
        if name is None or name.startswith("self."):
            return None
        return self.values_seen_from(ctx, name)

    def constructed_by(self, ctx, call) -> Optional[Tuple[str, str, Any, FunctionSummary]]:
        """For a call in the checked file of a top-level function of the project (this file's
        or another's) that returns one construction (``return FixedLossScaleManager(1024,
        ...)``, or a local assigned one and returned): (the function's file, the qualified name
        of what it builds, the construction as the summary keeps it, the function). Its
        arguments are read with ``values(file, expr, func=function)`` (a parameter of the
        function through its callers). None otherwise."""
        from msacclint.analysis.imports import dotted

        name = dotted(call.func)
        if name is None:
            return None
        target = self.resolve_from(ctx, name)
        if target is None and "." not in name:
            target = self.lookup(os.path.abspath(ctx.path), name)
        if target is None or target[0] != "function" or "." in target[2].name:
            return None
        path, func = target[1], target[2]
        summary = self.summary(path)
        if summary is None or len(func.returns) != 1:
            return None
        returned = func.returns[0]
        if returned[0] == "call":
            callee = returned[1]
        elif returned[0] == "name" and len(func.builds.get(returned[1], ())) == 1:
            callee = func.builds[returned[1]][0]
        else:
            return None
        built = [c for c in func.calls if c.callee == callee]
        if callee == "?" or len(built) != 1:
            return None
        self._depend(path)
        return path, self.qualified(summary, callee), built[0], func

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
        if kind == "alt":  # a loop variable: each value in turn
            out: List[Value] = []
            for item in expr[1]:
                inner = self.values(path, item, cls, func, depth + 1)
                if inner is None:
                    return None
                out.extend(inner)
            return out
        if kind == "minus1":
            inner = self.values(path, expr[1], cls, func, depth + 1)
            if inner is None or not all(_number(v.value) for v in inner):
                return None
            return [Value(round(1 - v.value, 10), v.evidence) for v in inner]
        if kind == "param":
            return self.parameter_values(path, expr[1], cls=cls, func=func, depth=depth + 1)
        if kind == "name" and expr[1].startswith("self.") and expr[1].count(".") == 1:
            return self._self_attribute_values(path, expr[1][5:], cls, func, depth + 1)
        if kind == "name" and self._running_only and func is not None and expr[1].count(".") == 1 and \
                expr[1].split(".")[0] in {p for p, _ in func.params} and "." not in func.name:
            return self._parameter_attribute_values(path, func, *expr[1].split("."), depth=depth + 1)
        if kind == "name":
            return self.name_values(path, expr[1], depth + 1)
        if kind == "key":
            return self.name_values(path, f"{expr[1]}.{expr[2]}", depth + 1)
        return None

    def _parameter_attribute_values(self, path: str, func: FunctionSummary, param: str, key: str,
                                    depth: int) -> Optional[List[Value]]:
        """``args.key`` read in ``func`` whose parameter ``args`` every caller that a run
        reaches binds to a name of its own (the namespace ``parse_args`` gives, a config
        object): that name's ``key`` there, and what the command lines and the project's
        config files supply for ``key``. Read only while a switch is (``switch_values``)."""
        names = [p for p, _ in func.params]
        position = names.index(param)
        sites = self.running(list(self.call_sites(path, func.name)), 0, 2)
        if not sites or depth > 8:
            return None
        out: List[Value] = []
        for site_path, _summary, call, _cls, owner in sites:
            given = call.kwargs.get(param) or (call.args[position] if position < len(call.args) else None)
            if given is None or given[0] not in ("name", "param") or "." in given[1]:
                return None
            inner = self.values(site_path, ("name", f"{given[1]}.{key}"), func=owner, depth=depth + 1)
            if inner is None:
                return None
            out.extend(inner)
        supplied = self._also_supplied(path, key, [])
        if supplied is None:
            return None
        out.extend(Value(value, Evidence(where.rsplit(":", 1)[0], int(where.rsplit(":", 1)[1]), f"--{key}")
                         if ":" in where else None) for value, where in supplied)
        return out or None

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

    def config_builds(self, name: str) -> List[Tuple[str, Dict[str, Tuple[Any, int]], int]]:
        """The mappings of the project's config files that build a class by its name through a
        registry (``type: <name>``): (config file, its other keys with their lines, the line of
        ``type``). Only files whose text holds the name are read."""
        memo = self.__dict__.setdefault("_config_builds", {})
        if name in memo:
            for config_path, _keys, _line in memo[name]:
                self._depend(config_path)
            return list(memo[name])
        needle = name.encode("utf-8")
        out = []
        for config_path in self.configs.paths:
            try:
                with open(config_path, "rb") as handle:
                    if needle not in handle.read():
                        continue
            except OSError:
                continue
            config = self.configs.get(config_path)
            self._depend(config_path)
            seen = set()
            for kind, keys, line in config.builds:
                if (kind == name or kind.rsplit(".", 1)[-1] == name) and line not in seen:
                    seen.add(line)  # a mapping an alias repeats is one build
                    out.append((config_path, keys, line))
        memo[name] = out
        return list(out)

    def parameter_values(self, path: str, param: str, cls: Optional[ClassSummary] = None,
                         func: Optional[FunctionSummary] = None, depth: int = 0) -> Optional[List[Value]]:
        """What the callers of ``cls`` / ``func`` bind to ``param``: call-site arguments
        across the project (and, for a class a registry builds, the project's configs that
        name it by ``type``), and the default where a call leaves it out or nothing calls it."""
        bindings = self.parameter_bindings(path, (param,), cls, func, depth)
        if bindings is None:
            return None
        out: List[Value] = []
        for binding in bindings:
            found = binding[param]
            if found is None:
                return None
            out.extend(found)
        return out or None

    def parameter_bindings(self, path: str, params_wanted, cls: Optional[ClassSummary] = None,
                           func: Optional[FunctionSummary] = None, depth: int = 0
                           ) -> Optional[List[Dict[str, Optional[List[Value]]]]]:
        """For each way ``cls`` / ``func`` is called (a call of the project, a config mapping
        that builds it by ``type``, or, when nothing calls it, its defaults): the values bound
        to each parameter of ``params_wanted`` there (None for one that cannot be read). None
        when a wanted name is not a parameter."""
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
        if any(p not in names for p in params_wanted):
            return None
        defaults = dict(params)
        sites: List[Tuple[Any, ...]] = [("config", config_path, keys, line)
                                        for config_path, keys, line in (self.config_builds(target)
                                                                        if cls is not None else [])]
        calls = list(self.call_sites(path, target))
        running = self.running(calls, 0, 2)
        if calls and not running:
            return []  # (reading a switch: no call a run reaches binds anything)
        sites += [("call",) + site for site in running]
        if not sites:
            sites = [("default",)]
        return [{p: self._site_values(path, site, p, names, defaults.get(p), target, depth) for p in params_wanted}
                for site in sites]

    def _site_values(self, path: str, site, param: str, names: List[str], default: Optional[Expr], target: str,
                     depth: int) -> Optional[List[Value]]:
        """What one way of calling binds to ``param`` (see ``parameter_bindings``)."""
        if site[0] == "default":
            return self.values(path, default, depth=depth + 1) if default is not None else None
        if site[0] == "config":
            _, config_path, keys, line = site
            shown = self.display(config_path)
            if param in keys:
                value, at = keys[param]
                return [Value(value, Evidence(shown, at, f"{param}: {value!r}"))]
            inner = self.values(path, default, depth=depth + 1) if default is not None else None
            if inner is None:
                return None
            left = Evidence(shown, line, f"type: {target} leaves {param} at its default")
            return [Value(v.value, v.evidence or left) for v in inner]
        _, site_path, _site_summary, call, owner_cls, owner_func = site
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
            out: List[Value] = []
            for value in forwarded:
                if value.value is not UNSET:
                    out.append(value)
                    continue
                inner = self.values(path, default, depth=depth + 1) if default is not None else None
                if inner is None:
                    return None
                out.extend(inner)
            return out
        elif default is not None:
            inner = self.values(path, default, depth=depth + 1)
            if inner is None:
                return None
            left = Evidence(self.display(site_path), call.line, f"{call.callee}(...) leaves {param} at its default")
            return [Value(v.value, v.evidence or left) for v in inner]
        else:
            return None  # a missing argument: cannot tell
        inner = self.values(site_path, expr, cls=owner_cls, func=owner_func, depth=depth + 1)
        if inner is None:
            return None
        ev = Evidence(self.display(site_path), call.line, f"{call.callee}(...)")
        return [Value(v.value, v.evidence or ev) for v in inner]

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
        for other, site, site_cls, site_func, preset in self.running(sites):
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


def _tested_parameters(test, slots, own: str) -> List[str]:
    """The parameters (other than ``own``) a branch's test reads."""
    from msacclint.analysis.scopes import names_in

    return [name for name in names_in(test) if name in slots and name != own]


def _guard_holds(test, branch: bool, binding: Dict[str, Optional[List[Value]]]) -> Optional[bool]:
    """Whether a call whose parameters are bound as ``binding`` takes the branch (``branch``:
    the body or the else of the test): True, False, or None when it cannot be told (a test
    other than a parameter's truth, ``not``, and/or, or one comparison with a literal)."""
    held = _test_value(test, binding)
    return None if held is None else held is branch


def _test_value(test, binding: Dict[str, Optional[List[Value]]]) -> Optional[bool]:
    import libcst as cst

    from msacclint.analysis.calls import UNKNOWN, literal

    def one(name: str) -> Any:
        found = binding.get(name)
        values = {repr(v.value) for v in found} if found else set()
        return found[0].value if found and len(values) == 1 else UNKNOWN

    if isinstance(test, cst.Name):
        value = one(test.value)
        return None if value is UNKNOWN else bool(value)
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = _test_value(test.expression, binding)
        return None if inner is None else not inner
    if isinstance(test, cst.BooleanOperation):
        left, right = _test_value(test.left, binding), _test_value(test.right, binding)
        if isinstance(test.operator, cst.And):
            return False if False in (left, right) else (None if None in (left, right) else True)
        return True if True in (left, right) else (None if None in (left, right) else False)
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1 and isinstance(test.left, cst.Name):
        value, target = one(test.left.value), literal(test.comparisons[0].comparator)
        if value is UNKNOWN or target is UNKNOWN:
            return None
        op = test.comparisons[0].operator
        try:
            if isinstance(op, (cst.Equal, cst.Is)):
                return bool(value == target)
            if isinstance(op, (cst.NotEqual, cst.IsNot)):
                return bool(value != target)
            if isinstance(op, cst.In):
                return value in target
            if isinstance(op, cst.NotIn):
                return value not in target
        except TypeError:
            return None
    return None


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)

