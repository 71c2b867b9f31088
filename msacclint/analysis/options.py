"""The argparse options a file defines and where its parsed namespace goes.

``options(ctx)`` answers, once per file, an ``Options``:

- ``defined``: every ``p.add_argument('--name', ...)`` on a parser the file builds
  (``argparse.ArgumentParser(...)``, or a group of it), as ``Option(dest, call, default)``;
- ``namespaces``: the names bound to what such a parser parses (``args = p.parse_args()``,
  ``args, _ = p.parse_known_args()``, ``args = p.parse_known_args()[0]``);
- ``escapes``: whether some namespace goes where its attributes may be read without being
  named: ``vars(args)``, ``args.__dict__``, ``**args``, stored, returned, or handed to a call other
  than ``print`` and the functions of the file (those are followed through their parameter).
  Attribute reads (``args.lr``) and ``args.x = ...`` keep it in view.

With no parse call in the file the options are parsed elsewhere: ``parsed`` is False.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Set, Tuple

import libcst as cst

from msacclint.analysis.calls import literal
from msacclint.analysis.context import FileContext, Question
from msacclint.analysis.walk import descendants

PARSER = "argparse.ArgumentParser"
_GROUPS = ("add_argument_group", "add_mutually_exclusive_group")
_PARSE = ("parse_args", "parse_known_args")
#: calls that only show the namespace
_SHOWN = ("print", "str", "repr", "format")


@dataclass(frozen=True)
class Option:
    dest: str
    call: cst.Call
    default: Optional[cst.BaseExpression]


@dataclass
class Options:
    defined: List[Option] = field(default_factory=list)
    namespaces: Set[str] = field(default_factory=set)
    parsed: bool = False
    escapes: bool = False


def _method(call: cst.Call) -> Tuple[Optional[str], Optional[str]]:
    func = call.func
    if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name):
        return func.value.value, func.attr.value
    return None, None


def _dest(call: cst.Call) -> Optional[str]:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == "dest":
            value = literal(arg.value)
            return str(value) if isinstance(value, str) else None
    names = [str(n) for n in (literal(arg.value) for arg in call.args if arg.keyword is None) if isinstance(n, str)]
    if not names or len(names) != sum(1 for arg in call.args if arg.keyword is None):
        return None
    long = next((n for n in names if n.startswith("--")), None)
    chosen = long or names[0]
    if chosen.startswith("-") and not long and len(chosen.lstrip("-")) == 1:
        return chosen.lstrip("-")
    return chosen.lstrip("-").replace("-", "_") or None


def _keyword(call: cst.Call, name: str) -> Optional[cst.BaseExpression]:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg.value
    return None


class NamespaceUses:
    """Follows the uses of one namespace name through a scope and the file's functions; with
    ``keyed``, a mapping's reads by a literal key (``cfg['lr']``) keep it in view too."""

    def __init__(self, ctx: FileContext, functions: Dict[str, cst.FunctionDef], keyed: bool = False) -> None:
        self.keyed = keyed
        self.ctx = ctx
        self.functions = functions
        self.seen: Set[Tuple[str, str]] = set()
        #: namespace names a parse function returns (that return is not an escape)
        self.returned: Set[str] = set()

    def escapes(self, scope: cst.CSTNode, name: str, depth: int = 0) -> bool:
        handled: Set[int] = set()
        for node in descendants(scope):
            if isinstance(node, cst.Attribute):
                handled.add(id(node.attr))
                if isinstance(node.value, cst.Name) and node.value.value == name:
                    handled.add(id(node.value))
                    if node.attr.value.startswith("__"):
                        return True
            elif isinstance(node, cst.AssignTarget):
                # a name (re)bound: its new value is not the namespace, or is it again
                for bound in descendants(node.target):
                    if isinstance(bound, cst.Name):
                        handled.add(id(bound))
            elif isinstance(node, cst.Param):
                handled.add(id(node.name))
            elif self.keyed and isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name) and \
                    node.value.value == name and len(node.slice) == 1 and \
                    isinstance(node.slice[0].slice, cst.Index) and isinstance(literal(node.slice[0].slice.value), str):
                handled.add(id(node.value))
            elif isinstance(node, (cst.NameItem, cst.ImportAlias, cst.AsName)):
                for part in descendants(node):
                    handled.add(id(part))
            elif isinstance(node, cst.Arg) and node.keyword is not None:
                handled.add(id(node.keyword))
            elif isinstance(node, (cst.FunctionDef, cst.ClassDef)):
                handled.add(id(node.name))
            elif isinstance(node, cst.Return) and isinstance(node.value, cst.Name) and node.value.value == name \
                    and name in self.returned:
                handled.add(id(node.value))
            if isinstance(node, cst.Call):
                for index, arg in enumerate(node.args):
                    if not (isinstance(arg.value, cst.Name) and arg.value.value == name):
                        continue
                    handled.add(id(arg.value))
                    if arg.star or self._call_escapes(node, index, arg, depth):
                        return True
            elif isinstance(node, cst.Name) and node.value == name and id(node) not in handled:
                return True
        return False

    def _call_escapes(self, call: cst.Call, index: int, arg: cst.Arg, depth: int) -> bool:
        func = call.func
        if isinstance(func, cst.Name) and func.value in _SHOWN and self.ctx.resolve(func) in (None, func.value):
            return False
        if not isinstance(func, cst.Name) or func.value not in self.functions or depth >= 4:
            return True
        target = self.functions[func.value]
        params = [p.name.value for p in (*target.params.posonly_params, *target.params.params)]
        if arg.keyword is not None:
            param = arg.keyword.value
            if param not in params and param not in [p.name.value for p in target.params.kwonly_params]:
                return True
        elif index < len(params) and all(a.keyword is None and not a.star for a in call.args[:index]):
            param = params[index]
        else:
            return True
        key = (func.value, param)
        if key in self.seen:
            return False
        self.seen.add(key)
        return self.escapes(target.body, param, depth + 1)


def _options(ctx: FileContext) -> Options:
    found = Options()
    parsers: Set[str] = set()
    module = ctx.module
    functions = {s.name.value: s for s in module.body if isinstance(s, cst.FunctionDef)}
    assigns: List[cst.Assign] = [n for n in descendants(module) if isinstance(n, cst.Assign)]
    # parsers, then groups of them (in source order, a group of a group included)
    for node in assigns:
        value = node.value
        if not isinstance(value, cst.Call):
            continue
        receiver, method = _method(value)
        if ctx.callee(value) == PARSER or (method in _GROUPS and receiver in parsers):
            for target in node.targets:
                if isinstance(target.target, cst.Name):
                    parsers.add(target.target.value)
    if not parsers:
        return found
    for each in descendants(module):
        if isinstance(each, cst.Call):
            receiver, method = _method(each)
            if receiver in parsers and method == "add_argument":
                dest = _dest(each)
                if dest is not None and dest.isidentifier():
                    found.defined.append(Option(dest, each, _keyword(each, "default")))
    parses = [n for n in descendants(module) if isinstance(n, cst.Call) and _method(n)[0] in parsers
              and _method(n)[1] in _PARSE]
    if not parses:
        return found
    found.parsed = True
    owner = _owners(functions, {id(p) for p in parses})
    #: the namespace names, with the function whose return hands them out (None: none does)
    bound: List[Tuple[str, Optional[str]]] = []
    returning: Set[str] = set()
    claimed: Set[int] = set()
    for assign in assigns:
        value = assign.value
        call = value.value if isinstance(value, cst.Subscript) else value
        if not isinstance(call, cst.Call) or id(call) not in owner:
            continue
        claimed.add(id(call))
        for target in assign.targets:
            name_node: cst.BaseExpression = target.target
            if isinstance(name_node, (cst.Tuple, cst.List)) and _method(call)[1] == "parse_known_args" \
                    and name_node.elements:
                name_node = name_node.elements[0].value
            if isinstance(name_node, cst.Name):
                bound.append((name_node.value, owner[id(call)]))
            else:
                found.escapes = True
    for fn in functions.values():
        for inner in descendants(fn):
            if isinstance(inner, cst.Return) and inner.value is not None:
                if isinstance(inner.value, cst.Call) and id(inner.value) in owner:
                    claimed.add(id(inner.value))
                    returning.add(fn.name.value)
                elif isinstance(inner.value, cst.Name) and (inner.value.value, fn.name.value) in bound:
                    returning.add(fn.name.value)
    if any(id(p) not in claimed for p in parses):
        found.escapes = True  # a parse handed on as it is made
    follower = NamespaceUses(ctx, functions)
    for name, holder in bound:
        if holder in returning:
            follower.returned.add(name)
    for function_name in returning:
        callers = _bound_calls(module, function_name)
        if callers is None or _named_elsewhere(ctx, function_name):
            found.escapes = True
        else:
            bound.extend((caller, None) for caller in callers)
    found.namespaces = {name for name, _ in bound}
    for name in found.namespaces:
        if follower.escapes(module, name):
            found.escapes = True
    return found


def _owners(functions: Dict[str, cst.FunctionDef], wanted: Set[int]) -> Dict[int, Optional[str]]:
    """id of each wanted node -> the top-level function holding it (None: module level)."""
    found: Dict[int, Optional[str]] = {i: None for i in wanted}
    for name, function in functions.items():
        for node in descendants(function):
            if id(node) in wanted:
                found[id(node)] = name
    return found


def _bound_calls(module: cst.Module, function: str) -> Optional[List[str]]:
    """The names ``N = function(...)`` binds in the module; None when the function is named
    any other way (handed on, called for another use)."""
    names: List[str] = []
    handled: Set[int] = set()
    for node in descendants(module):
        if isinstance(node, cst.FunctionDef) and node.name.value == function:
            handled.add(id(node.name))
        elif isinstance(node, cst.Assign) and isinstance(node.value, cst.Call) and \
                isinstance(node.value.func, cst.Name) and node.value.func.value == function:
            handled.add(id(node.value.func))
            for target in node.targets:
                if not isinstance(target.target, cst.Name):
                    return None
                names.append(target.target.value)
        elif isinstance(node, cst.Attribute):
            handled.add(id(node.attr))
        elif isinstance(node, cst.Name) and node.value == function and id(node) not in handled:
            return None
    return names


def _named_elsewhere(ctx: FileContext, function: str) -> bool:
    """Another file of the project names the function (imports it and parses its own way)."""
    import os

    project = getattr(ctx, "project", None)
    if project is None:
        return False
    return project.referrers(os.path.abspath(ctx.path), function, own=False) is not None


OPTIONS: Question[Options] = Question("options", _options)


def options(ctx: FileContext) -> Options:
    return ctx.ask(OPTIONS)
