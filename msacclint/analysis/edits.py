"""Building the new node of a fix without losing the user's layout or comments.

Fixes replace a whole call by a changed copy of it; these helpers change only what they
must. ``append_keywords`` follows the call's own style: a call written one argument per
line with a trailing comma gets the new arguments on lines of their own, at the same
indentation; a call on one line gets ``, name=value`` at the end. Comments stay where
they were.
"""

from __future__ import annotations

import functools
import re
from typing import List, Optional, Sequence, Tuple, Union

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

_NO_SPACE = cst.SimpleWhitespace("")
_NEWLINE = re.compile(r"\r\n?|\n")


def keyword_arg(name: str, value: Union[str, cst.BaseExpression]) -> cst.Arg:
    """``name=value`` written without spaces around ``=``, as PEP 8 asks for keywords."""
    expr = cst.parse_expression(value) if isinstance(value, str) else value
    return cst.Arg(value=expr, keyword=cst.Name(name),
                   equal=cst.AssignEqual(whitespace_before=_NO_SPACE, whitespace_after=_NO_SPACE))


def _line_start_before(call: cst.Call, index: int) -> Optional[cst.ParenthesizedWhitespace]:
    """The line break (with its indentation) in front of argument ``index`` when that
    argument starts a line of its own."""
    ws: Optional[cst.BaseParenthesizableWhitespace] = None
    if index == 0:
        ws = call.whitespace_before_args
    elif index > 0:
        comma = call.args[index - 1].comma
        if isinstance(comma, cst.Comma):
            ws = comma.whitespace_after
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
    after_last = last.whitespace_after_arg
    line_start = _line_start_before(call, len(args) - 1)
    if isinstance(after_last, cst.ParenthesizedWhitespace) and line_start is not None:
        # one argument per line, ")" on a line of its own, no trailing comma: each new
        # argument on its own line; a comment after the old last argument stays on its line
        next_line = cst.ParenthesizedWhitespace(first_line=cst.TrailingWhitespace(), empty_lines=(),
                                                indent=line_start.indent, last_line=line_start.last_line)
        args[-1] = last.with_changes(
            comma=cst.Comma(whitespace_after=cst.ParenthesizedWhitespace(
                first_line=after_last.first_line, empty_lines=after_last.empty_lines,
                indent=line_start.indent, last_line=line_start.last_line)),
            whitespace_after_arg=_NO_SPACE)
        closing = after_last.with_changes(first_line=cst.TrailingWhitespace(), empty_lines=())
        new = [a.with_changes(comma=cst.Comma(whitespace_after=next_line)) for a in new[:-1]] + \
              [new[-1].with_changes(whitespace_after_arg=closing)]
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


def _render(module: cst.Module, node: cst.CSTNode, indent: List[str]) -> Tuple[str, int, int]:
    """``node``'s source as LibCST writes it inside blocks indented by ``indent``, and the
    offsets of its span (the range PositionProvider gives it) in that source.

    Written with LibCST's public API: ``node`` goes into the smallest module that writes it
    unchanged (an expression or small statement on a line of its own; a statement or block
    under ``if _:`` headers that supply the indentation), PositionProvider gives its range
    there, and the header text before it is taken off."""
    if isinstance(node, cst.If) and _is_elif(module, node):
        return _render_elif(module, node, indent)
    wrapped = _wrapped(module, node, indent)
    if wrapped is None:
        text = module.code_for_node(node)
        return text, 0, len(text)
    holder, prefix = wrapped
    where = MetadataWrapper(holder, unsafe_skip_copy=True).resolve(PositionProvider).get(node)
    code = holder.code
    text = code[len(prefix):]
    if isinstance(node, (cst.BaseExpression, cst.BaseSmallStatement)):
        text = text[:len(text) - len(module.default_newline)]   # the line end of its line
    if where is None:
        return text, 0, len(text)
    starts = _line_starts(code)
    return (text, starts[where.start.line - 1] + where.start.column - len(prefix),
            starts[where.end.line - 1] + where.end.column - len(prefix))


def _wrapped(module: cst.Module, node: cst.CSTNode, indent: List[str]) -> Optional[Tuple[cst.Module, str]]:
    """A module whose code is some header text, then ``node`` written as it would be in
    blocks indented by ``indent`` (and, for an expression or small statement, a line end);
    with that header text. None: a node kind no fix replaces."""
    newline = module.default_newline

    def holder(body: Sequence[Union[cst.SimpleStatementLine, cst.BaseCompoundStatement]]) -> cst.Module:
        return cst.Module(body=body, default_indent=module.default_indent, default_newline=newline)

    depth = "".join(indent)
    if isinstance(node, (cst.BaseExpression, cst.BaseSmallStatement)):
        # the node starts mid-line: the indentation before it is the header's, not its own
        line = cst.SimpleStatementLine([cst.Expr(node) if isinstance(node, cst.BaseExpression) else node])
        if depth:
            return holder([_under_if(line, depth)]), "if _:" + newline + depth
        return holder([line]), ""
    if isinstance(node, cst.IndentedBlock):
        block = cst.If(test=cst.Name("_"), body=node)
        if depth:
            return holder([_under_if(block, depth)]), "if _:" + newline + depth + "if _:"
        return holder([block]), "if _:"
    if isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
        # a statement writes the indentation of its own lines
        return holder([_under_if(node, depth) if depth else node]), ("if _:" + newline if depth else "")
    return None


def _is_elif(module: cst.Module, node: cst.If) -> bool:
    """Whether ``node`` is the ``elif`` part of another ``if`` of the module."""
    found = []

    class Finder(cst.CSTVisitor):
        def visit_If(self, other: cst.If) -> None:
            if other.orelse is node:
                found.append(other)

    module.visit(Finder())
    return bool(found)


def _render_elif(module: cst.Module, node: cst.If, indent: List[str]) -> Tuple[str, int, int]:
    """An ``elif`` written where it stands: after an ``if _: pass`` at its depth; the text
    starts at the line of the ``elif``."""
    depth = "".join(indent)
    outer = cst.If(test=cst.Name("_"), body=cst.IndentedBlock([cst.SimpleStatementLine([cst.Pass()])]), orelse=node)
    holder = cst.Module(body=[_under_if(outer, depth) if depth else outer], default_indent=module.default_indent,
                        default_newline=module.default_newline)
    where = MetadataWrapper(holder, unsafe_skip_copy=True).resolve(PositionProvider)[node]
    code = holder.code
    starts = _line_starts(code)
    first = starts[where.start.line - 1]
    return (code[first:], where.start.column, starts[where.end.line - 1] + where.end.column - first)


def _under_if(statement: cst.BaseStatement, depth: str) -> cst.If:
    return cst.If(test=cst.Name("_"), body=cst.IndentedBlock(body=[statement], indent=depth))


@functools.lru_cache(maxsize=8)
def _line_starts(text: str) -> List[int]:
    """Offsets where lines start, with LibCST's idea of a line break (\\n, \\r\\n, \\r)."""
    return [0] + [m.end() for m in _NEWLINE.finditer(text)]


def indentation(module: cst.Module, source: str, old: cst.CSTNode, span: Tuple[int, int, int, int]) -> List[str]:
    """The indentation of the blocks around ``old``, read off the source (no tree walk):
    the first line of ``old`` that LibCST writes differently without it tells it, and a
    one-line ``old`` is taken to start on its statement's first line."""
    text, start, end = _render(module, old, [])
    rendered = _NEWLINE.split(text[start:end])
    starts = _line_starts(source)
    line, _, end_line, _ = span
    written = [_NEWLINE.sub("", source[starts[n - 1]:starts[n] if n < len(starts) else len(source)])
               for n in range(line, end_line + 1)]
    for have, bare in zip(written[1:], rendered[1:]):
        if have != bare and have.endswith(bare):
            return [have[:len(have) - len(bare)]]
    if len(rendered) > 1:
        return []
    first = written[0] if written else ""
    return [first[:len(first) - len(first.lstrip(" \t"))]]


def replacement(module: cst.Module, source: str, old: cst.CSTNode, new: cst.CSTNode,
                span: Tuple[int, int, int, int]) -> Tuple[Tuple[int, int, int, int], str]:
    """The edit that puts ``new`` where ``old`` is: ``span`` is old's (line, column,
    end_line, end_column), 1-based columns. Usually only the span changes, and the comment
    lines and line end that ``old`` owns outside it stay; when ``new`` carries them itself
    (a block whose first statement moved down, say), the edit covers all of ``old``'s
    text instead, so that they are not duplicated. Lines after the first get the
    indentation of the blocks around ``old``."""
    old_text, old_start, old_end = _render(module, old, [])
    new_text, new_start, new_end = _render(module, new, [])
    if not _NEWLINE.search(old_text) and not _NEWLINE.search(new_text):
        return span, new_text[new_start:new_end]  # one line each: nothing to indent
    indent = indentation(module, source, old, span)
    if indent != [""]:
        old_text, old_start, old_end = _render(module, old, indent)
        new_text, new_start, new_end = _render(module, new, indent)
    inner = new_text[new_start:new_end]
    old_prefix, old_suffix = old_text[:old_start].strip(), old_text[old_end:].strip()
    if not ((old_prefix and old_prefix in inner) or (old_suffix and old_suffix in inner)):
        # the comments old owns outside its span stay where they are
        return span, inner
    starts = _line_starts(source)
    line, column, end_line, end_column = span
    begin = starts[line - 1] + column - 1 - old_start
    finish = starts[end_line - 1] + end_column - 1 + len(old_text) - old_end
    if begin < 0 or source[begin:finish] != old_text:
        return span, inner
    return (*_position(starts, begin), *_position(starts, finish)), new_text


def _position(starts: List[int], offset: int) -> Tuple[int, int]:
    """1-based line and column of a character offset."""
    import bisect

    line = bisect.bisect_right(starts, offset) - 1
    line = min(line, len(starts) - 1)
    return line + 1, offset - starts[line] + 1


#: line lengths a file's longest line is rounded up to when none is configured (PEP 8,
#: black/ruff, and the usual wider settings); a file with longer lines gets no limit
COMMON_LINE_LENGTHS = (79, 88, 99, 100, 110, 120)


#: fewer non-blank lines than this say nothing about a file's line length
MIN_LINES_TO_DETECT = 10


def detected_line_length(text: str) -> Optional[int]:
    """The line length a file seems to keep: its longest line rounded up to a common
    limit; None when it has lines longer than all of them, or too few lines to tell."""
    lines = _NEWLINE.split(text)
    if sum(1 for line in lines if line.strip()) < MIN_LINES_TO_DETECT:
        return None
    longest = max((len(line) for line in lines), default=0)
    return next((n for n in COMMON_LINE_LENGTHS if longest <= n), None)


def _opening_bracket(call_text: str) -> Optional[int]:
    """Offset of the "(" that the final ")" of ``call_text`` closes (strings skipped)."""
    depth = 0
    quote = None
    index = len(call_text) - 1
    positions = []
    i = 0
    while i < len(call_text):
        ch = call_text[i]
        if quote:
            if ch == "\\":
                i += 2
                continue
            if call_text.startswith(quote, i):
                i += len(quote)
                quote = None
                continue
        elif ch in "'\"":
            quote = call_text[i:i + 3] if call_text[i:i + 3] in ("'\'\'", '\"\"\"') else ch
            i += len(quote)
            continue
        elif ch in "([{":
            positions.append(i)
            depth += 1
        elif ch in ")]}":
            if not positions:
                return None
            opened = positions.pop()
            depth -= 1
            if i == index:
                return opened
        i += 1
    return None


def wrap_long_insertion(text: str, start: int, end: int, new: str, limit: Optional[int]) -> str:
    """``new`` (replacing ``text[start:end]``) with a line break before the keywords it
    appends when the line would pass ``limit``: a one-line call that grows to
    ``f(a, b, stride=2)`` past the limit becomes ``f(a, b,\n  stride=2)`` with the new
    line aligned after the opening bracket, as black and PEP 8 align a continuation."""
    old = text[start:end]
    if limit is None or "\n" in old or "\n" in new or "\r" in old:
        return new
    line_start = max(text.rfind("\n", 0, start), text.rfind("\r", 0, start)) + 1
    line_end = len(text)
    for sep in ("\n", "\r"):
        found = text.find(sep, end)
        if found != -1:
            line_end = min(line_end, found)
    if len(text[line_start:start]) + len(new) + len(text[end:line_end]) <= limit:
        return new
    prefix = 0
    while prefix < min(len(old), len(new)) and old[prefix] == new[prefix]:
        prefix += 1
    suffix = 0
    while suffix < min(len(old), len(new)) - prefix and old[-1 - suffix] == new[-1 - suffix]:
        suffix += 1
    inserted = new[prefix:len(new) - suffix]
    # the usual append: ", name=value" (the prefix may already hold the comma's first char)
    if old[prefix:len(old) - suffix] or not old.endswith(")"):
        return new
    head, body = new[:prefix], inserted
    if body.startswith(", "):
        head, body = head + ",", body[2:]
    elif head.endswith(",") and body.startswith(" "):
        body = body[1:]
    else:
        return new
    bracket = _opening_bracket(old)
    if bracket is None or bracket + 1 >= len(old) - 1:
        return new  # f() grows to f(x=1): nothing to break after
    column = (start - line_start) + bracket + 1
    return head + "\n" + " " * column + body + new[len(new) - suffix:]
