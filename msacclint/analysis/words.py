"""How often the file's text names a word, and how often it assigns ``self.<word>``:
counted once per file, so that a rule asking about every attribute of every class reads
the text once instead of once per attribute.

``mentions(ctx, name)`` is the number of matches of ``\\bNAME\\b`` in the source (a maximal
run of word characters equal to the name: the same count, since a word boundary on both
sides is exactly that); ``self_assignments(ctx, name)`` the number of places the text reads
``self.NAME`` followed by ``=`` (not ``==``), optionally after an annotation
(``self.NAME: T = ...``) on the same line. Comments and strings count too: this is a
textual census, for rules that want one.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Mapping

from msacclint.analysis.context import FileContext, Question

_WORD = re.compile(r"\w+")
#: ``self.NAME`` followed by an assignment; the look-ahead consumes nothing past the name,
#: so assignments that follow each other (``self.a = self.b = x``) are all counted
_SELF_ASSIGNED = re.compile(r"\bself\.(\w+)(?=\s*(?::[^=\n]*)?=(?!=))")

_WORDS: Question[Mapping[str, int]] = Question("words", lambda ctx: Counter(_WORD.findall(ctx.source)))
_SELF_ASSIGNMENTS: Question[Mapping[str, int]] = Question(
    "words.self_assignments", lambda ctx: Counter(_SELF_ASSIGNED.findall(ctx.source)))


def mentions(ctx: FileContext, name: str) -> int:
    """How many times the word ``name`` appears in the file's text."""
    return ctx.ask(_WORDS).get(name, 0)


def self_assignments(ctx: FileContext, name: str) -> int:
    """How many times the file's text assigns ``self.<name>``."""
    return ctx.ask(_SELF_ASSIGNMENTS).get(name, 0)


def count_self_assignments(text: str, name: str) -> int:
    """The same count for any text (a class's own code)."""
    return sum(1 for found in _SELF_ASSIGNED.findall(text) if found == name)


def _name_counts(ctx: FileContext) -> Mapping[str, int]:
    import libcst as cst

    from msacclint.analysis.walk import walk

    counts: Counter[str] = Counter()

    class Names(cst.CSTVisitor):
        def visit_Name(self, node: cst.Name) -> None:
            counts[node.value] += 1

    walk(ctx.module, Names())
    return counts


_NAMES: Question[Mapping[str, int]] = Question("words.name_uses", _name_counts)


def name_uses(ctx: FileContext, name: str) -> int:
    """How many Name nodes of the file's syntax tree are ``name`` (comments and strings not
    counted; a def's own name counts once)."""
    return ctx.ask(_NAMES).get(name, 0)
