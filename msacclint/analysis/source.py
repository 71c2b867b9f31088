"""A source file as the engine and the project layer read it: bytes decoded as Python
does (a UTF-8 BOM or a PEP 263 coding line), a size limit, and a parse that refuses input
that would crash LibCST (nesting beyond Python's own limit) or that Python itself rejects,
with Python's words for the problem; and one node written back as its source text."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections import OrderedDict
from typing import Optional, Tuple, Union

import libcst as cst

#: larger files are generated data, not model code (the largest of 8,500 model-zoo files
#: measured 0.28 MB); LibCST would take minutes and gigabytes on them
MAX_SOURCE_BYTES = 2_000_000


def too_large(size: int) -> str:
    """Why a file of ``size`` bytes over MAX_SOURCE_BYTES is not parsed."""
    return (f"file is {size / 1e6:.1f} MB, over the {MAX_SOURCE_BYTES // 1_000_000} MB msacclint parses "
            "(generated data?); not checked: exclude it or split it")


def decode(data: bytes) -> Tuple[str, Optional[str]]:
    """Text of a file, or a reason it cannot be read as Python source."""
    text, _, problem = read_source(data)
    return text, problem


def read_source(data: bytes) -> Tuple[str, str, Optional[str]]:
    """(text, encoding, problem) of a file's bytes, decoded as Python does: a UTF-8 BOM or
    a PEP 263 coding line, else UTF-8. Encoding the text with ``encoding`` gives back the
    file's own bytes (``utf-8-sig`` writes the BOM again)."""
    if b"\x00" in data:
        return "", "utf-8", "file contains NUL bytes; not checked"
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:  # an unknown codec, or a coding line that contradicts the BOM
        return "", "utf-8", f"{exc.msg if hasattr(exc, 'msg') else exc}; not checked"
    try:
        return data.decode(encoding), encoding, None
    except UnicodeDecodeError as exc:
        name = "UTF-8" if encoding in ("utf-8", "utf-8-sig") else f"{encoding}, as its coding line declares"
        return "", encoding, f"file is not valid {name} (byte {exc.start}); not checked"


#: CPython refuses more than 200 nested brackets; LibCST's native parser crashes the
#: process (stack overflow) somewhere above 1,000, so deeper files are never handed to it
MAX_BRACKET_DEPTH = 200
_BRACKETS = re.compile(r"[\[\](){}]")
_OPENING = frozenset("([{")
TOO_DEEP = "file is nested too deeply to check (Python's recursion limit); not checked"


def _bracket_depth(text: str) -> int:
    """Deepest bracket nesting, counting brackets inside strings and comments too
    (approximate: only unmatched closing brackets in strings can hide real depth; cheap:
    only the brackets are looked at in Python)."""
    depth = peak = 0
    for ch in _BRACKETS.findall(text):
        if ch in _OPENING:
            depth += 1
            if depth > peak:
                peak = depth
        elif depth:
            depth -= 1
    return peak


def _too_deep(text: str) -> Optional[Tuple[str, int, int]]:
    """Why a file must not be parsed by LibCST, if it nests brackets beyond Python's limit."""
    if text.count("(") + text.count("[") + text.count("{") <= MAX_BRACKET_DEPTH:
        return None
    if _bracket_depth(text) <= MAX_BRACKET_DEPTH:
        return None


    try:  # brackets in strings or comments may have counted: ask Python itself
        ast.parse(text)
    except SyntaxError as exc:
        return (f"syntax error, file not checked: {exc.msg}", exc.lineno or 1, exc.offset or 1)
    except (RecursionError, MemoryError):
        return (TOO_DEEP, 1, 1)
    return None


def parse(text: str) -> Union[Tuple[cst.Module, None], Tuple[None, Tuple[str, int, int]]]:
    deep = _too_deep(text)
    if deep is not None:
        return None, deep
    try:
        return cst.parse_module(text), None
    except cst.ParserSyntaxError as exc:
        return None, syntax_problem(text, exc)
    except RecursionError:
        return None, ("file is nested too deeply to parse; not checked", 1, 1)
    except Exception as exc:  # libcst raises a few other errors on odd input
        return None, (f"file could not be parsed ({type(exc).__name__}: {exc}); not checked", 1, 1)


def syntax_problem(text: str, exc: cst.ParserSyntaxError) -> Tuple[str, int, int]:
    """Python's own words for a syntax error (LibCST's say only "Syntax Error @ 4:1" and
    often point past the mistake); LibCST's when Python accepts the file."""


    try:
        ast.parse(text)
    except SyntaxError as py:
        return (f"syntax error, file not checked: {py.msg}", py.lineno or 1, py.offset or 1)
    except (RecursionError, MemoryError, ValueError):
        pass
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else "syntax error"
    return (f"LibCST cannot parse this file, not checked: {first}", exc.raw_line, exc.raw_column + 1)


def code_of(node: cst.CSTNode) -> str:
    """The source text of ``node`` (its own code, without the lines around it)."""
    return cst.Module([]).code_for_node(node)


_AST_KEPT = 4
_ast_recent: OrderedDict[str, Union[ast.Module, BaseException]] = OrderedDict()


def python_ast(text: str) -> ast.Module:
    """``ast.parse(text)``, shared by the few questions that ask Python's own parser about the
    same file in one check (line numbers of a summary, a file's outline, the spans of its
    definitions): the last few texts are kept, and a text that does not parse raises the same
    error each time. The tree is read, never changed, by every caller."""
    found = _ast_recent.get(text)
    if found is None:
        try:
            found = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
            found = exc
        _ast_recent[text] = found
        while len(_ast_recent) > _AST_KEPT:
            _ast_recent.popitem(last=False)
    if isinstance(found, BaseException):
        raise found
    return found
