"""The per-Cell map: what ``self.x = ...`` in ``__init__`` holds, and how ``construct``
uses it.

Built once per file on first use (``cells(ctx)``), from the parsed module alone. For
every class in the file it records
- ``attrs``: attribute name -> the expression assigned in ``__init__`` (last wins), and
  the resolved name of the callee when it is a call (``self.bn = nn.BatchNorm2d(..)``
  -> ``mindspore.nn.BatchNorm2d``); elements of ``nn.SequentialCell([...])`` /
  ``nn.CellList([...])`` are listed in order;
- ``construct_calls``: the ``self.<attr>(...)`` calls in ``construct``, in source order,
  with the attribute of the call that consumes each one's result
  (``self.bn(self.conv(x))`` and ``x = self.conv(x); x = self.bn(x)`` both say: conv
  feeds bn);
- ``used_in_construct``: every ``self.<attr>`` mentioned in ``construct`` (and in the
  methods it calls on self);
- ``escapes``: attrs whose call output, somewhere in construct, goes where this map
  cannot follow it (returned, passed to a function or as a later argument, used in
  arithmetic, read from a local variable other than as the first argument of a
  ``self.<attr>`` call). A rule that needs the whole fate of an output checks
  ``consumers(attr)`` and ``attr not in escapes``;
- ``functions``: attr -> resolved names of the module functions that take its output as
  their first argument in construct (``ops.gelu(self.conv(x))`` -> ``mindspore.ops.gelu``;
  None for a function that does not resolve). Such a use is not an escape: a rule that
  follows outputs reads ``functions`` beside ``consumers``.
Rules ask questions of this map instead of walking classes themselves.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Optional, Set, Tuple

import libcst as cst

from msacclint.analysis.containers import CONTAINERS, elements
from msacclint.analysis.context import FileContext, Question
from msacclint.analysis.imports import ImportTable
from msacclint.analysis.walk import walk

SEQUENTIAL = CONTAINERS


@dataclass
class Attr:
    name: str
    value: cst.BaseExpression
    assign: cst.CSTNode
    #: resolved callee when the value is a call, else None
    callee: Optional[str] = None
    #: for SequentialCell/CellList: resolved callees of the elements, in order (None = unknown)
    elements: List[Optional[str]] = field(default_factory=list)
    element_nodes: List[cst.BaseExpression] = field(default_factory=list)


@dataclass
class CellInfo:
    node: cst.ClassDef
    name: str
    bases: List[Optional[str]]
    attrs: Dict[str, Attr] = field(default_factory=dict)
    methods: Dict[str, cst.FunctionDef] = field(default_factory=dict)
    #: attr -> attrs whose call consumes its output in construct
    feeds: Dict[str, Set[str]] = field(default_factory=dict)
    used_in_construct: Set[str] = field(default_factory=set)
    #: attrs whose output construct returns (``return self.head(x)``, ``out = self.fc(x);
    #: return out.view(n, -1)``): also in ``escapes``
    returned: Set[str] = field(default_factory=set)
    #: attrs whose output escapes otherwise than by being returned
    escapes_elsewhere: Set[str] = field(default_factory=set)
    #: every (attribute, value) assigned in __init__, in order (``attrs`` keeps the last)
    assigned: List[Tuple[str, cst.BaseExpression]] = field(default_factory=list)
    #: attrs whose output also flows somewhere ``feeds`` does not describe
    escapes: Set[str] = field(default_factory=set)
    #: attr -> resolved module functions (None: unresolved) whose first argument is its output
    functions: Dict[str, Set[Optional[str]]] = field(default_factory=dict)

    @property
    def construct(self) -> Optional[cst.FunctionDef]:
        return self.methods.get("construct")

    def consumers(self, attr: str) -> Set[str]:
        return self.feeds.get(attr, set())


def _on_self(node: cst.BaseExpression) -> bool:
    """``self.a.b``: an expression rooted at ``self``."""
    while isinstance(node, cst.Attribute):
        node = node.value
    return isinstance(node, cst.Name) and node.value == "self"


def self_attr(node: cst.BaseExpression) -> Optional[str]:
    """``name`` for an expression ``self.name``, else None."""
    if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self":
        return node.attr.value
    return None


def _factories(module: cst.Module, imports: ImportTable) -> Dict[str, str]:
    """Module-level functions that build one layer: ``def fc_with_initialize(i, o): return
    nn.Dense(i, o, ...)`` -> {"fc_with_initialize": "mindspore.nn.Dense"} (every ``return``
    returns a call of the same resolved name)."""
    found: Dict[str, str] = {}
    for stmt in module.body:
        if not isinstance(stmt, cst.FunctionDef):
            continue
        returns: List[cst.Return] = []

        class Returns(cst.CSTVisitor):
            def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
                return node is stmt  # noqa: B023 - the class is used in this iteration only

            def visit_Return(self, node: cst.Return) -> None:
                returns.append(node)  # noqa: B023 - the class is used in this iteration only

        walk(stmt, Returns())
        callees = {imports.resolve(r.value.func) if isinstance(r.value, cst.Call) else None for r in returns}
        if len(callees) == 1:
            callee = callees.pop()
            if callee is not None and callee.startswith("mindspore."):
                found[stmt.name.value] = callee
    return found


class _InitScan(cst.CSTVisitor):
    def __init__(self, info: CellInfo, imports: ImportTable, factories: Dict[str, str]) -> None:
        self.info = info
        self.imports = imports
        self.factories = factories

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False  # nested functions are not __init__

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            name = self_attr(target.target)
            if name is not None:
                self._record(name, node.value, node)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        name = self_attr(node.target)
        if name is not None and node.value is not None:
            self._record(name, node.value, node)

    def _record(self, name: str, value: cst.BaseExpression, assign: cst.CSTNode) -> None:
        self.info.assigned.append((name, value))
        attr = Attr(name, value, assign)
        if isinstance(value, cst.Call):
            attr.callee = self.imports.resolve(value.func)
            if attr.callee is None and isinstance(value.func, cst.Name):  # a layer factory of the file
                attr.callee = self.factories.get(value.func.value)
            if attr.callee in SEQUENTIAL and value.args:
                # the layers as written (msacclint.analysis.containers: a list, the arguments,
                # an OrderedDict of name -> layer); else what is given, unresolved
                layers = elements(value, self.imports.resolve)
                if layers is None:
                    first = value.args[0].value
                    layers = [e.value for e in first.elements] if isinstance(first, (cst.List, cst.Tuple)) else [
                        a.value for a in value.args if a.keyword is None and not a.star]
                for expr in layers:
                    attr.element_nodes.append(expr)
                    attr.elements.append(self.imports.resolve(expr.func) if isinstance(expr, cst.Call) else None)
        self.info.attrs[name] = attr


#: tensor methods that only rearrange values (a per-channel shift stays one)
SHAPE_METHODS = frozenset({"view", "reshape", "flatten", "transpose", "permute", "swapaxes", "squeeze",
                           "unsqueeze", "contiguous", "expand_dims"})


class _ConstructScan(cst.CSTVisitor):
    """Which self.<attr> call consumes which self.<attr> call's output, and which
    outputs go anywhere else."""

    #: attributes of a tensor that read its metadata, not its values
    _METADATA = frozenset({"shape", "dtype", "ndim"})

    def __init__(self, info: CellInfo, imports: ImportTable) -> None:
        self.info = info
        self.imports = imports
        #: local variable -> attrs whose output it holds
        self.holds: Dict[str, Set[str]] = {}
        #: Name and Call nodes whose use is described by ``feeds``/``holds``
        self.accounted: Set[int] = set()
        #: Name and Call nodes a ``return`` gives back (past shape-only methods)
        self.returning: Set[int] = set()

    def visit_Attribute(self, node: cst.Attribute) -> None:
        name = self_attr(node)
        if name is not None:
            self.info.used_in_construct.add(name)
        elif isinstance(node.value, cst.Name) and node.attr.value in self._METADATA:
            self.accounted.add(id(node.value))

    def _sources(self, expr: cst.BaseExpression) -> Set[str]:
        """Attrs whose call output flows directly into ``expr``."""
        if isinstance(expr, cst.Call):
            name = self_attr(expr.func)
            if name is not None:
                return {name}
            return set()
        if isinstance(expr, cst.Name):
            return set(self.holds.get(expr.value, ()))
        return set()

    def _account(self, expr: cst.BaseExpression) -> None:
        if isinstance(expr, cst.Name) or (isinstance(expr, cst.Call) and self_attr(expr.func) is not None):
            self.accounted.add(id(expr))

    def visit_Return(self, node: cst.Return) -> None:
        value = node.value
        while isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) \
                and value.func.attr.value in SHAPE_METHODS and self_attr(value.func) is None:
            value = value.func.value  # ``return x.view(n, -1)``: the values of x, reshaped
        if isinstance(value, cst.Name) or (isinstance(value, cst.Call) and self_attr(value.func) is not None):
            self.returning.add(id(value))
            self.info.returned.update(self._sources(value))

    def _escape(self, node: cst.CSTNode, attrs: Iterable[str]) -> None:
        self.info.escapes.update(attrs)
        if id(node) not in self.returning:
            self.info.escapes_elsewhere.update(attrs)

    def visit_Call(self, node: cst.Call) -> None:
        consumer = self_attr(node.func)
        if consumer is not None and id(node) not in self.accounted:
            self._escape(node, {consumer})
        if consumer is None and node.args and isinstance(node.func, (cst.Name, cst.Attribute)) \
                and self_attr(node.func) is None and not _on_self(node.func):
            self._function_call(node)
            return
        if consumer is None or not node.args:
            return
        first = node.args[0]
        for source in self._sources(first.value):
            self.info.feeds.setdefault(source, set()).add(consumer)
        if first.keyword is None and not first.star:
            self._account(first.value)

    def _function_call(self, node: cst.Call) -> None:
        """``ops.gelu(self.conv(x))``: a module function (not a method of a value) that
        takes an attr's output as its first positional argument."""
        first = node.args[0]
        if first.keyword is not None or first.star:
            return
        sources = self._sources(first.value)
        if not sources:
            return
        callee = self.imports.resolve(node.func)
        if callee is None or not callee.startswith(("mindspore.", "torch.", "numpy.")):
            return  # a local helper or a method of a value: left as an escape
        for source in sources:
            self.info.functions.setdefault(source, set()).add(callee)
        self._account(first.value)

    def visit_Assign(self, node: cst.Assign) -> None:
        names = [t.target for t in node.targets if isinstance(t.target, cst.Name)]
        for name in names:
            self.accounted.add(id(name))
        if names and len(names) == len(node.targets):
            self._account(node.value)

    def visit_Name(self, node: cst.Name) -> None:
        if id(node) not in self.accounted and node.value in self.holds:
            self._escape(node, self.holds[node.value])

    def leave_Assign(self, node: cst.Assign) -> None:
        sources = self._sources(node.value)
        for target in node.targets:
            if isinstance(target.target, cst.Name):
                self.holds[target.target.value] = sources


def _scan_class(node: cst.ClassDef, imports: ImportTable, factories: Dict[str, str]) -> CellInfo:
    bases = [imports.resolve(b.value) for b in node.bases]
    info = CellInfo(node=node, name=node.name.value, bases=bases)
    if isinstance(node.body, cst.IndentedBlock):
        for stmt in node.body.body:
            if isinstance(stmt, cst.FunctionDef):
                info.methods[stmt.name.value] = stmt
    init = info.methods.get("__init__")
    if init is not None:
        walk(init.body, _InitScan(info, imports, factories))
    construct = info.construct
    if construct is not None:
        scan = _ConstructScan(info, imports)
        walk(construct.body, scan)
        # helpers that construct calls on self (self._forward_features(x)) count as construct
        seen = {"construct"}
        pending = [m for m in list(info.used_in_construct) if m in info.methods and m not in seen]
        while pending:
            method = pending.pop()
            seen.add(method)
            before = set(info.used_in_construct)
            walk(info.methods[method].body, scan)
            pending.extend(m for m in info.used_in_construct - before if m in info.methods and m not in seen)
    return info


class CellMap:
    """All classes of a file, by name, with their __init__/construct facts."""

    def __init__(self, module: cst.Module, imports: ImportTable) -> None:
        self.classes: Dict[str, CellInfo] = {}
        self.by_node: Dict[cst.ClassDef, CellInfo] = {}
        factories = _factories(module, imports)
        for node in _classes(module):
            info = _scan_class(node, imports, factories)
            self.classes[info.name] = info
            self.by_node[node] = info

    def owner_of(self, assign: cst.CSTNode) -> Optional[CellInfo]:
        for info in self.classes.values():
            for attr in info.attrs.values():
                if attr.assign is assign:
                    return info
        return None


def _classes(module: cst.Module) -> List[cst.ClassDef]:
    found: List[cst.ClassDef] = []

    class Finder(cst.CSTVisitor):
        def visit_ClassDef(self, node: cst.ClassDef) -> None:
            found.append(node)

        def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
            return None

        # expressions never hold classes; skipping them keeps this cheap
        def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> bool:
            return False

    walk(module, Finder())
    return found


CELLS: Question[CellMap] = Question("cells", lambda ctx: CellMap(ctx.module, ctx.imports))


def cells(ctx: FileContext) -> CellMap:
    """The file's CellMap, computed once and shared by every rule."""
    return ctx.ask(CELLS)


#: ways a Cell reaches its children without naming them
DYNAMIC_CHILDREN = re.compile(r"\b(getattr|setattr|cells|name_cells|cells_and_names|insert_child_to_cell|__dict__|"
                              r"_cells|vars)\b")


class _AttributeReads(cst.CSTVisitor):
    """One walk of a file: per class, how often its methods write ``self.<name>`` (not
    counting plain assignment targets), and how often any other object's ``.<name>`` is
    read. Comments are not nodes, so commented-out code reads nothing."""

    def __init__(self) -> None:
        self.own: Dict[str, Counter[str]] = {}
        self.other: Counter[str] = Counter()
        self._classes: List[str] = []
        self._targets: Set[int] = set()

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._classes.append(node.name.value)
        self.own.setdefault(node.name.value, Counter())

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self._classes.pop()

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._targets.add(id(node.target))

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if id(node) in self._targets:
            return
        if isinstance(node.value, cst.Name) and node.value.value == "self":
            if self._classes:
                self.own[self._classes[-1]][node.attr.value] += 1
        else:
            self.other[node.attr.value] += 1


def _reads(ctx: FileContext) -> _AttributeReads:
    found = _AttributeReads()
    walk(ctx.module, found)
    return found


_READS: Question[_AttributeReads] = Question("cells.attribute_reads", _reads)


def _attribute_read(ctx: FileContext, info: CellInfo, name: str) -> bool:
    """Whether ``self.<name>`` is read in the class (or a class of the file it extends, whose
    methods run on it too), or ``<name>`` is read as an attribute of any other object in the
    file (``Net().loss``, ``model.head``): reads of ``self.<name>`` in other classes are of
    their own attributes, and comments (code commented out) read nothing."""
    from msacclint.analysis.names import last_name

    reads = ctx.ask(_READS)
    classes = [info]
    seen = {info.name}
    for current in classes:
        for base in current.node.bases:
            parent = cells(ctx).classes.get(last_name(base.value) or "")
            if parent is not None and parent.name not in seen:
                seen.add(parent.name)
                classes.append(parent)
    if any(reads.own.get(cls.name, Counter[str]())[name] for cls in classes):
        return True
    return reads.other[name] > 0


def never_used(ctx: FileContext, node: cst.CSTNode) -> Optional[str]:
    """``x`` when ``node`` is (in) the value of ``self.x = ...`` in a Cell's ``__init__`` and
    neither the class (nor a class of the file it extends) reads ``self.x`` nor anything in
    the file reads an attribute ``x`` of another object, nor, when it uses
    ``getattr``, names it in a string: the layer is built and never run. None when the
    class does not define ``construct``, when
    the class is extended by another class of the file or, with the project layer, of
    another file, or reaches its children dynamically (``getattr``, ``cells()``, ...)."""
    from msacclint.analysis.names import last_name

    for info in cells(ctx).classes.values():
        for attr in info.attrs.values():
            value = attr.value
            if node is not value and node is not attr.assign and not (
                    isinstance(value, cst.Call) and any(node is a.value or node is a for a in value.args)):
                continue
            name = attr.name
            if info.construct is None:
                return None  # its forward pass is not here (inherited, or not written yet)
            if _attribute_read(ctx, info, name) or (
                    re.search(r"\b(getattr|hasattr|attrgetter)\b", ctx.source)
                    and re.search(r"[\'\"]" + re.escape(name) + r"[\'\"]", ctx.source)):
                return None  # read as an attribute (of self or of another object), or maybe by its name
            if any(last_name(b.value) == info.name for other in cells(ctx).classes.values()
                   for b in other.node.bases):
                return None
            if DYNAMIC_CHILDREN.search(cst.Module([]).code_for_node(info.node)):
                return None
            if ctx.project is not None and ctx.project.subclassed_elsewhere(ctx.path, info.name):
                return None
            return name
    return None


def layer_built(ctx: FileContext, class_name: str, prefixes: Tuple[str, ...],
                seen: Optional[Set[str]] = None) -> Optional[Tuple[str, str, str]]:
    """(the layer's qualified name, the attribute, the class) of the first layer whose resolved
    name starts with one of ``prefixes`` that the file's class ``class_name`` builds in
    ``__init__``: itself, in a SequentialCell/CellList, or through the sub-cells of other
    classes of the file it builds. None when none is found in the file."""
    seen = seen if seen is not None else set()
    info = cells(ctx).classes.get(class_name)
    if info is None or class_name in seen:
        return None
    seen.add(class_name)
    for attr in info.attrs.values():
        for callee in [attr.callee, *attr.elements]:
            if callee and callee.startswith(prefixes):
                return callee, attr.name, class_name
        for node in [attr.value, *attr.element_nodes]:
            if isinstance(node, cst.Call) and isinstance(node.func, cst.Name):
                found = layer_built(ctx, node.func.value, prefixes, seen)
                if found is not None:
                    return found
    return None


def is_cell_class(ctx: FileContext, name: str, depth: int = 0) -> bool:
    """Whether the class ``name`` of the file derives from a ``mindspore.nn`` class, directly
    or through other classes of the file (``class Net(Base)``, ``class Base(nn.Cell)``)."""
    info = cells(ctx).classes.get(name)
    if info is None or depth > 5:
        return False
    for resolved, base in zip(info.bases, info.node.bases):
        if resolved is not None and resolved.startswith("mindspore.nn."):
            return True
        if isinstance(base.value, cst.Name) and base.value.value != name and \
                is_cell_class(ctx, base.value.value, depth + 1):
            return True
    return False


def inherited_attr(ctx: FileContext, info: CellInfo, name: str, depth: int = 0) -> Optional[Attr]:
    """``self.<name>`` as the class or, failing that, a base class of the same file sets it
    in ``__init__`` (``self.reduce_mean = ops.ReduceMean()`` in a shared loss base)."""
    if name in info.attrs:
        return info.attrs[name]
    if depth > 3:
        return None
    for base in info.node.bases:
        parent = cells(ctx).classes.get(base.value.value) if isinstance(base.value, cst.Name) else None
        if parent is not None and parent is not info:
            found = inherited_attr(ctx, parent, name, depth + 1)
            if found is not None:
                return found
    return None


def attributes_from_parameters(ctx: FileContext, cls: cst.ClassDef, params: Iterable[str]) -> Dict[str, str]:
    """``self.x`` -> parameter for the attributes a class's ``__init__`` assigns once,
    straight from one of ``params`` (``self.use_bn = use_bn``); any class, Cell or not."""
    info = cells(ctx).by_node.get(cls)
    if info is None:
        return {}
    wanted = set(params)
    values: Dict[str, List[cst.BaseExpression]] = {}
    for attr, value in info.assigned:
        values.setdefault(attr, []).append(value)
    return {f"self.{attr}": found[0].value for attr, found in values.items()
            if len(found) == 1 and isinstance(found[0], cst.Name) and found[0].value in wanted}


def calls_of_attr(info: CellInfo, name: str) -> List[cst.Call]:
    """Every ``self.<name>(...)`` call in the class's methods other than ``__init__``."""
    return [node for node in _outside_init(info, cst.Call) if self_attr(node.func) == name]


def attr_handed_on(info: CellInfo, name: str) -> bool:
    """``self.<name>`` is passed as an argument in a method other than ``__init__`` (to a
    helper that uses it: ``self.update(x, self.optimizer)``)."""
    return any(self_attr(node.value) == name for node in _outside_init(info, cst.Arg))


def assigned_outside_init(info: CellInfo, name: str) -> bool:
    """A method other than ``__init__`` assigns ``self.<name>`` (``=``, ``+=``, annotated)."""
    targets = [n.target for n in _outside_init(info, cst.AssignTarget)]
    targets += [n.target for n in _outside_init(info, cst.AugAssign) + _outside_init(info, cst.AnnAssign)]
    return any(self_attr(t) == name for t in targets)


def _outside_init(info: CellInfo, kind: type) -> List[Any]:
    """The nodes of type ``kind`` in the class's methods other than ``__init__``."""
    found: List[Any] = []

    class Finder(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            if isinstance(node, kind):
                found.append(node)
            return True

    for method, fn in info.methods.items():
        if method != "__init__":
            walk(fn.body, Finder())
    return found


def cell_of_call(ctx: FileContext, call: cst.BaseExpression) -> Optional[CellInfo]:
    """The file's own class instantiated by ``call`` (``NetWithLoss(net)``), if any."""
    if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Name):
        return None
    if ctx.imports.bindings.get(call.func.value) != f"{ImportTable.LOCAL}.{call.func.value}":
        return None
    return cells(ctx).classes.get(call.func.value)


def attribute_of(ctx: FileContext, call: cst.Call) -> Optional[Tuple[CellInfo, str, Optional[int]]]:
    """(CellInfo, attribute name, index in a SequentialCell or None) for a call that
    builds a sub-cell in ``__init__`` (``self.pool = nn.AvgPool2d(7)``, or an element of
    ``self.head = nn.SequentialCell([...])``); None otherwise."""
    table = ctx.ask(_BY_VALUE)
    return table.get(call)


def _by_value(cell_map: CellMap) -> Dict[cst.CSTNode, Tuple[CellInfo, str, Optional[int]]]:
    found: Dict[cst.CSTNode, Tuple[CellInfo, str, Optional[int]]] = {}
    for info in cell_map.classes.values():
        for name, value in info.assigned:  # an attribute built one way or another (if/else)
            found[value] = (info, name, None)
        for attr in info.attrs.values():
            for index, element in enumerate(attr.element_nodes):
                found[element] = (info, attr.name, index)
    return found


_BY_VALUE = Question("cells.by_value", lambda ctx: _by_value(cells(ctx)))
