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

# LibCST has no public way to generate code while counting positions for a few nodes only;
# its code-generation state is the one private name used (tests/test_positions.py compares
# every result with PositionProvider on real files, so a LibCST change shows there)
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
