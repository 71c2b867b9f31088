"""A finding's grade from whether its code runs (msacclint.project.reach).

A finding keeps the severity its rule gave it in code an entry point of the repository
reaches, and carries the trail that shows how (file:line of each hop, entry point first).
In code nothing reaches it drops one level (an error to a warning, a warning to info) and
says why, naming what the repository runs instead where it can: another definition of the
same file that an entry point does reach, or the entry points themselves. Only a run that
trains or evaluates counts, except for the loud rules (``LOUD_CODES``: a name MindSpore
rejects fails whatever runs it): code that only a model module's own demo block reaches is
dormant, and the note names that run; code a supplied value switches off (``if
config.net_name == "resnet18":`` with the shipped config selecting another) says which
value; a method nothing calls says so. Without the project layer (``--no-project``, a buffer
with no file) nothing is decided and findings keep their severity.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Tuple

from msacclint.analysis.context import FileContext
from msacclint.diagnostics import LOUD_CODES, Reach, Related, Severity
from msacclint.project.index import ProjectIndex
from msacclint.project.outline import Outline
from msacclint.project.reach import Answer

#: at most this many other definitions of the file are named in a dormant note
_PEERS = 3


@dataclass(frozen=True)
class Graded:
    severity: Severity
    message: str
    reach: Optional[Reach]
    trail: Tuple[Related, ...] = ()


def lower(severity: Severity) -> Severity:
    return Severity.WARNING if severity is Severity.ERROR else Severity.INFO


#: rules whose findings on a ``class``/``def`` line are about what the line evaluates where
#: the definition is (a base class that does not exist), not about the body
HEADER_RULES = frozenset({"MSA004"})
#: rules whose findings are loud failures themselves (a name a release lacks): one after another
#: fails loudly, so code that cannot run yet does not lower them
LOUD_RULES = frozenset({"MSA004"})


def grade(ctx: FileContext, line: int, severity: Severity, message: str, code: str = "") -> Graded:
    """The grade of a finding at ``line`` of the checked file."""
    project = ctx.project
    if project is None:
        return Graded(severity, message, None)
    answer = project.reached(ctx.path, line, header_outside=code in HEADER_RULES, training=code not in LOUD_CODES)
    if answer.runs is None:
        return Graded(severity, message, None)
    trail = tuple(Related(project.display(path), hop_line, what)
                  for path, hop_line, what in answer.trail or answer.only)
    if answer.runs:
        return Graded(severity, message, Reach.RUNS, trail)
    if answer.failure is not None and code in LOUD_RULES:
        # a loud failure itself: the next one after it fails as loudly, once the first is fixed
        return Graded(severity, message, Reach.CANNOT_RUN, trail)
    if answer.failure is not None:
        path, at, what = answer.failure
        where = f"{project.display(path)}:{at}"
        if fixed_by_porting(what):
            # a loud failure of the MindSpore the project targets (a name it lacks, a keyword it
            # rejects): the user fixes it in the first minute and then trains with this finding's
            # silent cost, so it is shown, one grade lower, saying what fails first
            target = ctx.mindspore_version
            on = f" on MindSpore {target}" if target else ""
            note = (f" ({lower(severity).value}: this code cannot run{on} yet: {where} raises first: {what}; once "
                    "that loud failure is fixed, this one costs accuracy silently)")
            return Graded(lower(severity), message.rstrip() + note, Reach.CANNOT_RUN, trail)
        note = f" (info: this code cannot run: {where} raises first: {what}; it matters once that is fixed)"
        return Graded(Severity.INFO, message.rstrip() + note, Reach.CANNOT_RUN, trail)
    note = dormant_note(project, ctx.path, answer)
    if severity is Severity.INFO:
        return Graded(severity, message.rstrip() + note, Reach.DORMANT, trail)
    return Graded(lower(severity), message.rstrip() + note, Reach.DORMANT, trail)


#: what a failure says when its cause is not one a port fixes (the project lacks a module)
_NOT_A_PORT = ("the project has no module",)


def fixed_by_porting(what: str) -> bool:
    """Whether a failure is a loud MindSpore failure that porting the code fixes (a name the
    release lacks, a keyword or an argument combination it rejects), not a module the project
    does not have."""
    return not any(marker in what for marker in _NOT_A_PORT)


def dormant_note(project: ProjectIndex, path: str, answer: Answer) -> str:
    """Why the code of ``answer`` does not run, naming what does run where it can."""
    import os

    outline = project.outline(os.path.abspath(path))
    shown = project.display(os.path.abspath(path))
    top = answer.scope.split(".")[0] if answer.scope not in ("", "__main__") else ""
    what = f"the {outline.defs[top].kind} `{top}`" if top and outline is not None and top in outline.defs \
        else shown
    if answer.switched:
        return f" (dormant: {answer.switched}; it matters once a run supplies such a value)"
    if answer.only:
        run_path, _line, why = answer.only[0]
        return (f" (dormant: only {project.display(run_path)} reaches {what} ({why.split(';')[0]}), and that run "
                "neither trains nor evaluates: no optimizer, training step, Model.train/eval, metric or export; "
                "it matters once a run that trains or evaluates uses it)")
    method = _method_of(outline, answer.scope)
    cls_trail = project.trail_to(path, method[0]) if method is not None else ()
    if method is not None and cls_trail:
        return (f" (dormant: nothing the repository runs calls the method `{method[0]}.{method[1]}`, though "
                f"`{method[0]}` itself is built ({project.display(cls_trail[0][0])} reaches it); "
                "it matters once it is called)")
    if top and outline is not None and top in outline.defs:
        kind = outline.defs[top].kind
        peers = []
        entry = ""
        for name, d in outline.defs.items():
            if d.parent or name == top or name.startswith("_"):
                continue
            trail = project.trail_to(path, name)
            if trail:
                peers.append(name)
                entry = entry or project.display(trail[0][0])
                if len(peers) >= _PEERS:
                    break
        if peers:
            named = ", ".join(f"`{p}`" for p in peers)
            return (f" (dormant: nothing the repository runs reaches the {kind} `{top}`; {entry} reaches {named} "
                    f"of {shown} instead; it matters once `{top}` is used)")
        module_trail = project.trail_to(path, "")
        if module_trail:
            return (f" (dormant: {shown} is imported ({project.display(module_trail[-1][0])}:{module_trail[-1][1]}) "
                    f"but nothing the repository runs uses the {kind} `{top}`; it matters once it is used)")
        excluded = project.excluded_by_values(os.path.abspath(path))
        if excluded is not None:
            return (f" (dormant: nothing the repository runs imports {shown} or uses the {kind} `{top}`: "
                    f"{excluded}; it matters once one does)")
        return (f" (dormant: nothing the repository runs imports {shown} or uses the {kind} `{top}`"
                f"{_entries(answer)}; it matters once it is used)")
    excluded = project.excluded_by_values(os.path.abspath(path))
    if excluded is not None:
        return f" (dormant: nothing the repository runs imports {shown}: {excluded}; it matters once one does)"
    return f" (dormant: nothing the repository runs imports {shown}{_entries(answer)}; it matters once it is imported)"


def _method_of(outline: Optional[Outline], scope: str) -> Optional[Tuple[str, str]]:
    """(class, method) when ``scope`` is inside a method of a class (the outermost method)."""
    if outline is None:
        return None
    parts = scope.split(".")
    for cut in range(1, len(parts)):
        owner = outline.defs.get(".".join(parts[:cut]))
        inner = outline.defs.get(".".join(parts[:cut + 1]))
        if owner is not None and owner.kind == "class" and inner is not None and inner.kind == "function":
            return ".".join(parts[:cut]), parts[cut]
    return None


def _entries(answer: Answer) -> str:
    if not answer.entries:
        return ""
    return f" (its entry points include {', '.join(answer.entries)})"
