"""Whether a dataset is only read into Python data (and so is not itself trained on).

``only_read_into_python(sc, fl, build_call)`` holds when every use of the dataset built by
``build_call`` in its function (or module) is
- a pipeline step whose result is bound to a name or read again (``ds = ds.map(...)``,
  ``ds.batch(32)``), or a query (``ds.get_dataset_size()``);
- an iteration (``for item in ds.create_dict_iterator():``, ``for x in ds``, a
  comprehension, ``list(ds.create_tuple_iterator())``) whose body does nothing but
  collect values: ``.append``/``.extend``/``.asnumpy()``/``.tolist()``, subscripts,
  builtins and ``numpy`` calls;
and at least one such iteration exists. Any other use (an argument of a call, a return, an
attribute, a closure, a loop that calls anything else such as a training step) means the
dataset object goes somewhere the analysis does not follow: the answer is False.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Set, Union

import libcst as cst

from msacclint.analysis.flow import FunctionFlow
from msacclint.analysis.scopes import Scopes
from msacclint.analysis.walk import walk

ITERATORS = frozenset({"create_dict_iterator", "create_tuple_iterator"})
PIPELINE = frozenset({"map", "batch", "padded_batch", "project", "rename", "repeat", "take", "skip",
                      "filter", "split"})
QUERIES = frozenset({"get_dataset_size", "get_col_names", "get_batch_size", "output_shapes",
                     "output_types", "get_repeat_count", "num_classes"})
#: calls that pass an iterable through to a ``for``
WRAPPERS = frozenset({"enumerate", "tqdm"})
#: what a loop that copies a dataset into Python may call
COLLECT_METHODS = frozenset({"append", "extend", "asnumpy", "tolist", "numpy", "item", "copy",
                             "astype", "reshape", "squeeze", "add", "update", "decode"})
COLLECT_BUILTINS = frozenset({"list", "tuple", "dict", "int", "float", "str", "len", "zip", "print",
                              "range", "enumerate", "bool", "sorted", "set"})
#: something that shows the values are kept as Python data
KEEPS = frozenset({"append", "extend", "asnumpy", "tolist", "numpy"})


def only_read_into_python(sc: Scopes, fl: FunctionFlow, build_call: cst.Call) -> bool:
    parents = sc.parents(fl)
    if build_call not in parents:
        return False
    names: Set[str] = set()
    pending: List[cst.CSTNode] = [build_call]
    reads: List[cst.CSTNode] = []
    seen_names: Set[str] = set()
    while pending:
        node = pending.pop()
        outcome = _use(node, parents, names)
        if outcome is None:
            return False
        if not isinstance(outcome, str):  # the only string is "ok"
            reads.append(outcome)
        for name in names - seen_names:
            seen_names.add(name)
            occurrences = _occurrences(fl.root, name, parents)
            if occurrences is None:
                return False
            pending.extend(occurrences)
    return bool(reads) and all(_collects_only(sc, fl, loop) for loop in reads)


def _use(node: cst.CSTNode, parents: Dict[cst.CSTNode, cst.CSTNode],
         names: Set[str]) -> Union[str, cst.CSTNode, None]:
    """"ok", the loop/comprehension/``list(...)`` that iterates the dataset, or None (it
    escapes). Names the dataset (or an iterator of it) gets bound to are added to ``names``."""
    parent = parents.get(node)
    if isinstance(parent, cst.AssignTarget) or (isinstance(parent, cst.AugAssign) and parent.target is node):
        return "ok"  # a (re)binding of the name; its value is classified on its own
    while isinstance(parent, cst.Attribute) and parent.value is node:
        call = parents.get(parent)
        method = parent.attr.value
        if method in QUERIES:
            return "ok"
        if not isinstance(call, cst.Call) or call.func is not parent or method not in PIPELINE | ITERATORS:
            return None
        node, parent = call, parents.get(call)
    if isinstance(parent, cst.Assign) and parent.value is node:
        targets = [t.target for t in parent.targets]
        if not all(isinstance(t, cst.Name) for t in targets):
            return None
        names.update(t.value for t in targets if isinstance(t, cst.Name))
        return "ok"
    while isinstance(parent, cst.Arg) and parent.value is node and parent.keyword is None and not parent.star:
        call = parents.get(parent)
        if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Name):
            return None  # not a call of a wrapper
        wrapper = call.func.value
        if wrapper in ("list", "tuple") and len(call.args) == 1:
            return call
        if wrapper not in WRAPPERS or call.args[0] is not parent:
            return None
        node, parent = call, parents.get(call)
    if isinstance(parent, (cst.For, cst.CompFor)) and parent.iter is node:
        return parent if isinstance(parent, cst.For) else parents.get(parent)
    return None


def _occurrences(root: cst.CSTNode, name: str, parents: Dict[cst.CSTNode, cst.CSTNode]) -> Optional[List[cst.Name]]:
    """Every ``Name`` node of ``name`` in the flow's code; None when one sits where the
    flow's parent map does not reach (a nested function or class: a closure)."""
    found: List[cst.Name] = []
    outside: List[cst.Name] = []

    class Names(cst.CSTVisitor):
        def visit_Name(self, node: cst.Name) -> None:
            if node.value == name and not _not_a_reference(node, parents):
                (found if node in parents else outside).append(node)

    walk(root, Names())
    return None if outside else found


def _not_a_reference(node: cst.Name, parents: Dict[cst.CSTNode, cst.CSTNode]) -> bool:
    """``x.name`` and ``f(name=...)`` spell the name without referring to the variable."""
    parent = parents.get(node)
    return (isinstance(parent, cst.Attribute) and parent.attr is node) or \
        (isinstance(parent, cst.Arg) and parent.keyword is node)


def _collects_only(sc: Scopes, fl: FunctionFlow, loop: cst.CSTNode) -> bool:
    """The loop (or comprehension, or ``list(...)``) only copies values into Python."""
    if isinstance(loop, cst.For):
        body: cst.CSTNode = loop.body
    elif isinstance(loop, (cst.ListComp, cst.SetComp, cst.GeneratorExp)):
        body = loop.elt
    elif isinstance(loop, cst.DictComp):
        body = cst.Tuple([cst.Element(loop.key), cst.Element(loop.value)])
    elif isinstance(loop, cst.Call):
        return True
    else:
        return False
    calls: List[cst.Call] = []

    class Calls(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            calls.append(node)

    walk(body, Calls())
    keeps = False
    for call in calls:
        func = call.func
        if isinstance(func, cst.Attribute) and func.attr.value in COLLECT_METHODS:
            keeps = keeps or func.attr.value in KEEPS
            continue
        if isinstance(func, cst.Name) and func.value in COLLECT_BUILTINS:
            continue
        if (sc.ctx.resolve(func) or "").startswith("numpy."):
            continue
        return False
    return keeps or not isinstance(loop, cst.For)
