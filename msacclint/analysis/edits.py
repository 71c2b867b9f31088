"""Building the new node of a fix without losing the user's layout or comments.

Fixes replace a whole call by a changed copy of it; these helpers change only what they
must. ``append_keywords`` follows the call's own style: a call written one argument per
line with a trailing comma gets the new arguments on lines of their own, at the same
indentation; a call on one line gets ``, name=value`` at the end. Comments stay where
they were.
"""

from __future__ import annotations

from typing import List, Optional, Sequence, Tuple, Union

import libcst as cst

_NO_SPACE = cst.SimpleWhitespace("")


def keyword_arg(name: str, value: Union[str, cst.BaseExpression]) -> cst.Arg:
    """``name=value`` written without spaces around ``=``, as PEP 8 asks for keywords."""
    expr = cst.parse_expression(value) if isinstance(value, str) else value
    return cst.Arg(value=expr, keyword=cst.Name(name),
                   equal=cst.AssignEqual(whitespace_before=_NO_SPACE, whitespace_after=_NO_SPACE))


def _line_start_before(call: cst.Call, index: int) -> Optional[cst.ParenthesizedWhitespace]:
    """The line break (with its indentation) in front of argument ``index`` when that
    argument starts a line of its own."""
    ws = call.args[index - 1].comma.whitespace_after if index > 0 and isinstance(
        call.args[index - 1].comma, cst.Comma) else call.whitespace_before_args if index == 0 else None
    return ws if isinstance(ws, cst.ParenthesizedWhitespace) else None


def append_keywords(call: cst.Call, items: Sequence[Tuple[str, Union[str, cst.BaseExpression]]]) -> cst.Call:
    """``call`` with keyword arguments added after its last argument."""
    new: List[cst.Arg] = [keyword_arg(name, value) for name, value in items]
    if not new:
        return call
    args = list(call.args)
    if not args:
        return call.with_changes(args=new)
    last = args[-1]
    comma = last.comma
    if isinstance(comma, cst.Comma):
        after = comma.whitespace_after
        line_start = _line_start_before(call, len(args) - 1)
        if isinstance(after, cst.ParenthesizedWhitespace) and line_start is not None:
            # one argument per line: each new argument on its own line, trailing comma kept
            next_line = cst.ParenthesizedWhitespace(first_line=cst.TrailingWhitespace(), empty_lines=(),
                                                    indent=line_start.indent, last_line=line_start.last_line)
            args[-1] = last.with_changes(comma=comma.with_changes(
                whitespace_after=after.with_changes(indent=line_start.indent, last_line=line_start.last_line)))
            closing = after.with_changes(first_line=cst.TrailingWhitespace(), empty_lines=())
            for i, arg in enumerate(new):
                ws = closing if i == len(new) - 1 else next_line
                new[i] = arg.with_changes(comma=cst.Comma(whitespace_after=ws))
            return call.with_changes(args=args + new)
        # a trailing comma on one line: keep it after the new last argument
        args[-1] = last.with_changes(comma=cst.Comma(whitespace_before=comma.whitespace_before,
                                                     whitespace_after=cst.SimpleWhitespace(" ")))
        new = [a.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))) for a in new[:-1]] + \
              [new[-1].with_changes(comma=comma.with_changes(whitespace_before=_NO_SPACE))]
        return call.with_changes(args=args + new)
    # no trailing comma: ", name=value" right after the value; what followed it (a
    # comment, the line break before ")") follows the new last argument
    args[-1] = last.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")),
                                 whitespace_after_arg=_NO_SPACE)
    new = [a.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))) for a in new[:-1]] + \
          [new[-1].with_changes(whitespace_after_arg=last.whitespace_after_arg)]
    return call.with_changes(args=args + new)


def with_keyword(arg: cst.Arg, name: str, value: cst.BaseExpression) -> cst.Arg:
    """``arg`` (positional or keyword) turned into ``name=value``, keeping its comma and
    the comments around it."""
    return arg.with_changes(keyword=cst.Name(name), value=value, star="",
                            equal=cst.AssignEqual(whitespace_before=_NO_SPACE, whitespace_after=_NO_SPACE))


def code_in_place(module: cst.Module, old: cst.CSTNode, new: cst.CSTNode) -> str:
    """The source of ``new`` as it reads when it replaces ``old`` in ``module``: a node
    that spans several lines gets the indentation of the blocks around ``old``
    (``Module.code_for_node`` alone would write those lines without it)."""
    text = module.code_for_node(new)
    if "\n" not in text and "\r" not in text:
        return text
    from libcst._nodes.internal import CodegenState

    state = CodegenState(default_indent=module.default_indent, default_newline=module.default_newline,
                         indent_tokens=list(_indentation_around(module, old)))
    new._codegen(state)
    return "".join(state.tokens)


def _indentation_around(module: cst.Module, target: cst.CSTNode) -> List[str]:
    """The indentation tokens of the indented blocks that contain ``target``."""
    stack: List[Tuple[cst.CSTNode, Tuple[str, ...]]] = [(module, ())]
    while stack:
        node, tokens = stack.pop()
        if node is target:
            return list(tokens)
        if isinstance(node, cst.IndentedBlock):
            tokens = tokens + (module.default_indent if node.indent is None else node.indent,)
        stack.extend((child, tokens) for child in node.children)
    return []
