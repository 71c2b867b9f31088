"""Positions of the reported nodes only, with LibCST's public API.

LibCST's ``PositionProvider`` generates the code of the whole module and records a range
for every node: on a 1,100-line file that costs about ten times what generating the code
alone costs. A file with findings needs the ranges of a few nodes (the reported ones, the
nodes a fix replaces, and top-level definitions when a finding may be dormant), so this
runs ``PositionProvider`` over a *pruned* module:

- The wanted nodes are found by a read-only walk that records parents and stops once every
  wanted node has been seen. A wanted node's *holder* is the innermost statement around it
  (or itself) that sits in a statement list: ``Module.body`` or an ``IndentedBlock.body``.
- The pruned module keeps each holder whole and, above the holders, only the statements
  that enclose one: in every statement list, the other statements are dropped and their
  lines counted (``Module.code_for_node``). Headers, decorators, ``else:`` parts and
  indentation stay as they are, so every kept line is an original line and only line
  numbers move: a holder shifts by the lines dropped before it in the file.
- A holder that is wanted for its own extent only (a definition, when a finding may be
  dormant) has its blocks cut to their last statement too: its start stays, its end
  shifts by the lines cut inside it.
- Lines are counted only until the last holder: what follows it cannot move a range.

The ranges are the ones ``PositionProvider`` gives over the whole module (same code
generation, same rules for which range wins); tests/test_positions.py compares them on
every node kind of real files. A node outside every statement (the module itself, its
header and footer lines) gets the whole-module ``PositionProvider``.
"""
from typing import Dict, Iterable, List, Optional, Sequence, Set, Tuple

import libcst as cst
from libcst.metadata import CodePosition, CodeRange, MetadataWrapper, PositionProvider

from msacclint.analysis.walk import TRIVIA, child_fields, parent_links

#: node classes whose child fields may hold an IndentedBlock (directly or in a part such as
#: ``else:``) and so may be cut to their last statement
_CONTAINERS = (cst.BaseCompoundStatement, cst.Else, cst.Finally, cst.ExceptHandler,
               cst.ExceptStarHandler, cst.MatchCase, cst.IndentedBlock)


def node_positions(module: cst.Module, nodes: Iterable[cst.CSTNode]) -> Dict[cst.CSTNode, CodeRange]:
    """The ``PositionProvider`` range of each of ``nodes`` (nodes of ``module``, identity
    kept); a node that is not in the module is left out."""
    wanted: Dict[int, cst.CSTNode] = {id(n): n for n in nodes}
    if not wanted:
        return {}
    parents = parent_links(module, wanted, trivia=any(isinstance(n, TRIVIA) for n in wanted.values()))
    members: Dict[int, List[cst.CSTNode]] = {}
    holders: Dict[int, cst.CSTNode] = {}
    outside: List[cst.CSTNode] = []
    for key, node in wanted.items():
        if node is not module and key not in parents:
            continue  # not in this module
        holder = _holder(node, parents)
        if holder is None:
            outside.append(node)
        else:
            holders[id(holder)] = holder
            members.setdefault(id(holder), []).append(node)
    out: Dict[cst.CSTNode, CodeRange] = {}
    if holders:
        pruner = _Pruner(module, holders, members, parents)
        ranges = MetadataWrapper(pruner.pruned, unsafe_skip_copy=True).resolve(PositionProvider)
        for key, nodes_of in members.items():
            start_shift, end_shift = pruner.shift_of(holders[key])
            for node in nodes_of:
                found = ranges.get(pruner.replaced.get(id(node), node))
                if found is None:
                    continue
                alone_end = end_shift if node is holders[key] else start_shift
                out[node] = CodeRange(CodePosition(found.start.line + start_shift, found.start.column),
                                      CodePosition(found.end.line + alone_end, found.end.column))
    if outside:
        whole = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
        out.update((node, whole[node]) for node in outside if node in whole)
    return out


def _holder(node: cst.CSTNode, parents: Dict[int, cst.CSTNode]) -> Optional[cst.CSTNode]:
    """The innermost statement around ``node`` (or ``node``) that is in a statement list."""
    current = node
    while True:
        parent = parents.get(id(current))
        if parent is None:
            return None
        if isinstance(parent, (cst.Module, cst.IndentedBlock)) and _in_body(parent, current):
            return current
        current = parent


def _in_body(block: cst.CSTNode, node: cst.CSTNode) -> bool:
    return any(s is node for s in getattr(block, "body", ()))


def _lines(module: cst.Module, statements: Sequence[cst.CSTNode]) -> int:
    total = 0
    for statement in statements:
        code = module.code_for_node(statement)
        total += code.count("\n") + code.count("\r") - code.count("\r\n")
    return total


class _Pruner:
    """The pruned module (see the module docstring) and each holder's line shift."""

    def __init__(self, module: cst.Module, holders: Dict[int, cst.CSTNode],
                 members: Dict[int, List[cst.CSTNode]], parents: Dict[int, cst.CSTNode]) -> None:
        self.module = module
        self.holders = holders
        self.parents = parents
        self.enclosing: Set[int] = set()   # ids of the nodes above a holder
        for holder in holders.values():
            current = holder
            while id(current) in parents:
                current = parents[id(current)]
                if id(current) in self.enclosing:
                    break
                self.enclosing.add(id(current))
        self.alone = {key for key, nodes in members.items()
                      if len(nodes) == 1 and nodes[0] is holders[key] and key not in self.enclosing}
        self.left = len(holders)   # holders not yet reached: lines after the last are not counted
        self.dropped = 0           # lines dropped so far, in file order
        self.shifts: Dict[int, Tuple[int, int]] = {}
        self.replaced: Dict[int, cst.CSTNode] = {}   # holder id -> its cut version
        pruned = self._rebuild(module)
        assert isinstance(pruned, cst.Module)
        self.pruned = pruned.with_changes(footer=())

    def shift_of(self, holder: cst.CSTNode) -> Tuple[int, int]:
        current = holder
        while id(current) not in self.shifts:   # a holder inside a holder kept whole
            current = self.parents[id(current)]
        return self.shifts[id(current)]

    def _count(self, statements: Sequence[cst.CSTNode]) -> None:
        if self.left:
            self.dropped += _lines(self.module, statements)

    def _rebuild(self, node: cst.CSTNode) -> cst.CSTNode:
        key = id(node)
        if key in self.holders:
            self.left -= 1
            start = self.dropped
            if key in self.alone and isinstance(node, _CONTAINERS):
                cut_node, cut = _cut_to_last(node, self.module)
                self.replaced[key] = cut_node
                self.dropped += cut
                self.shifts[key] = (start, start + cut)
                return cut_node
            self.shifts[key] = (start, start)
            return node   # whole, with any holder inside it
        if isinstance(node, (cst.Module, cst.IndentedBlock)):
            body: List[cst.CSTNode] = []
            for statement in node.body:
                if id(statement) in self.holders or id(statement) in self.enclosing:
                    body.append(self._rebuild(statement))
                else:
                    self._count([statement])
            return node.with_changes(body=body)
        changes: Dict[str, object] = {}
        for name in child_fields(type(node)):
            value = getattr(node, name, None)
            if isinstance(value, cst.CSTNode):
                if id(value) in self.enclosing or id(value) in self.holders:
                    changes[name] = self._rebuild(value)
            elif isinstance(value, (tuple, list)) and any(
                    id(v) in self.enclosing or id(v) in self.holders for v in value):
                changes[name] = type(value)(
                    self._rebuild(v) if id(v) in self.enclosing or id(v) in self.holders else v
                    for v in value)
        return node.with_changes(**changes) if changes else node


def _cut_to_last(node: cst.CSTNode, module: cst.Module) -> Tuple[cst.CSTNode, int]:
    """``node`` with every statement list inside it cut to its last statement (recursively),
    and the number of lines cut."""
    if isinstance(node, cst.IndentedBlock):
        if not node.body:
            return node, 0
        last, cut = _cut_to_last(node.body[-1], module)
        return node.with_changes(body=[last]), cut + _lines(module, node.body[:-1])
    if not isinstance(node, _CONTAINERS):
        return node, 0
    changes: Dict[str, object] = {}
    cut = 0
    for name in child_fields(type(node)):
        value = getattr(node, name, None)
        if isinstance(value, _CONTAINERS):
            new, removed = _cut_to_last(value, module)
            if removed:
                changes[name], cut = new, cut + removed
        elif isinstance(value, (tuple, list)) and any(isinstance(v, _CONTAINERS) for v in value):
            items = []
            for item in value:
                new, removed = _cut_to_last(item, module) if isinstance(item, _CONTAINERS) else (item, 0)
                items.append(new)
                cut += removed
            changes[name] = type(value)(items)
    return (node.with_changes(**changes) if changes else node), cut
