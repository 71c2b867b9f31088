"""Positions of the reported nodes only.

LibCST's ``PositionProvider`` generates the code of the whole module and records a range
for every node. A file with findings needs the ranges of a few nodes (the reported ones and
the nodes a fix replaces), so this generates the module's code once with a state that
keeps line and column lazily (counted over the generated tokens only when a position is
asked for), records ranges only inside the subtrees of the wanted nodes (a parent may take
its start or end from a child: ``record_syntactic_position(start_node=, end_node=)``), and
stops generating as soon as the last wanted node is closed.

The ranges are the ones ``PositionProvider`` gives (same code generation, same rules for
which range wins); tests/test_positions.py compares them on every node of real files.
"""
import re
from contextlib import contextmanager, nullcontext
from typing import Any, Dict, Iterable, Iterator, List, Optional, Set

import libcst as cst

# The one private LibCST name msacclint uses, kept on purpose (issue 16 asked for public
# names only). LibCST computes positions only while it generates code: a node's range is
# the line and column the generated tokens have reached when its code starts and ends, with
# the syntactic adjustments made by ``record_syntactic_position`` calls inside the nodes' own
# code generation. The hooks that see this (``before_codegen``, ``after_codegen``,
# ``record_syntactic_position``) are methods of ``CodegenState``, which lives in
# ``libcst._nodes.internal`` and is exported nowhere public; ``CSTNode._codegen``, the only
# way to run a state over a tree, is private too. The public API offers code generation
# without positions (``Module.code``, ``Module.code_for_node``) and positions of every node
# (``MetadataWrapper.resolve(PositionProvider)``); a visitor sees nodes, not the tokens
# (keywords, brackets, separators) their code generation emits in between. So the nearest a
# public-only version comes is: ``PositionProvider`` over a module of the one top-level
# statement that holds each wanted node, shifted by the lines of ``code_for_node`` of the
# statements before it. That was written and gives the same ranges as PositionProvider on
# every node kind of tests/test_positions.py, but it computes the range of every node of
# that statement (a whole class when the finding is in a method) and walks the statements
# to find the holder. Measured on a 1,010-line training file and on project/index.py (a
# 880-line module with one large class), CPU per call for 2 nodes mid-file / 10 random
# nodes: this state 0.015-0.032 s; the public version 0.044-0.26 s; PositionProvider over
# the whole module 0.21-0.24 s. The public version is thus no cheaper than the whole
# module when a finding sits in a large class, which is the common case. The private
# state stays; tests/test_positions.py compares every result with PositionProvider on
# real files, so a change of LibCST's internals shows there first.
from libcst._nodes.internal import CodegenState
from libcst.metadata import CodePosition, CodeRange

_NEWLINE = re.compile(r"\r\n?|\n")
_NULL = nullcontext()


class _AllFound(Exception):
    """Raised out of code generation once every wanted node has its range."""


class _TargetedState(CodegenState):
    def __init__(self, module: cst.Module, wanted: Set[int]) -> None:
        super().__init__(default_indent=module.default_indent, default_newline=module.default_newline)
        self.wanted = wanted          # ids of the nodes whose range is asked for
        self.left = len(wanted)
        self.inside = 0               # > 0 while generating a wanted node's subtree
        self.computed: Dict[int, CodeRange] = {}
        self.stack: List[CodePosition] = []
        self.line = 1
        self.column = 0
        self.counted = 0              # tokens already counted into line/column

    def position(self) -> CodePosition:
        tokens = self.tokens
        line, column = self.line, self.column
        for i in range(self.counted, len(tokens)):
            value = tokens[i]
            segments = _NEWLINE.split(value)
            if len(segments) == 1:
                column += len(value)
            else:
                line += len(segments) - 1
                column = len(segments[-1])
        self.counted = len(tokens)
        self.line, self.column = line, column
        return CodePosition(line, column)

    def before_codegen(self, node: cst.CSTNode) -> None:
        if self.inside or id(node) in self.wanted:
            self.inside += 1
            self.stack.append(self.position())

    def after_codegen(self, node: cst.CSTNode) -> None:
        if not self.inside:
            return
        self.inside -= 1
        start = self.stack.pop()
        key = id(node)
        if key not in self.computed:
            self.computed[key] = CodeRange(start, self.position())
        if key in self.wanted:
            self.left -= 1
            if not self.left:
                raise _AllFound

    def record_syntactic_position(self, node: cst.CSTNode, *, start_node: Optional[cst.CSTNode] = None,
                                  end_node: Optional[cst.CSTNode] = None) -> Any:
        if not self.inside:
            return _NULL
        return self._record(node, start_node, end_node)

    @contextmanager
    def _record(self, node: cst.CSTNode, start_node: Optional[cst.CSTNode],
                end_node: Optional[cst.CSTNode]) -> Iterator[None]:
        start = self.position()
        try:
            yield
        finally:
            end = self.position()
            computed = self.computed
            if start_node is not None:
                start = computed[id(start_node)].start
            if end_node is not None:
                end = computed[id(end_node)].end
            computed[id(node)] = CodeRange(start, end)


def node_positions(module: cst.Module, nodes: Iterable[cst.CSTNode]) -> Dict[cst.CSTNode, CodeRange]:
    """The ``PositionProvider`` range of each of ``nodes`` (nodes of ``module``, identity
    kept); a node that is not in the module is left out."""
    wanted_nodes: Dict[int, cst.CSTNode] = {id(n): n for n in nodes}
    if not wanted_nodes:
        return {}
    state = _TargetedState(module, set(wanted_nodes))
    try:
        module._codegen(state)
    except _AllFound:
        pass
    return {node: state.computed[key] for key, node in wanted_nodes.items() if key in state.computed}
