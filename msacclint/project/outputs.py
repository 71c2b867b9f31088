"""Files a call writes or only mentions: not config files the code reads.

``open(os.path.join(save_dir, "hyp.yaml"), "w")`` writes ``hyp.yaml``; ``logger.info("saved
hyp.yaml")`` only names it. The summary records neither as a config the code reads.
"""

from __future__ import annotations

from typing import Iterator, Optional, Tuple

import libcst as cst

from msacclint.analysis.walk import iter_children
from msacclint.project.summary import quick_literal

# -- files a call writes or only mentions, which are not config files the code reads ---------------
#: calls that write the file their arguments name (``open(..., "w")`` is decided by its mode)
WRITERS = frozenset({"dump", "safe_dump", "dump_all", "safe_dump_all", "to_yaml", "to_json", "to_csv", "to_file",
                     "to_pickle", "makedirs", "mkdir", "touch", "savefig", "export"})
#: calls that read their first argument and write the others (``shutil.copy(src, dst)``)
COPIERS = frozenset({"copy", "copy2", "copyfile", "copytree", "move", "rename", "replace", "symlink"})
#: modules whose ``open(path, mode)`` takes the mode second, as the built-in does
OPENERS = frozenset({"io", "codecs", "gzip", "bz2", "lzma", "tarfile"})
#: calls whose string arguments are messages, not files (``logger.info("saved hyp.yaml")``)
MESSAGES = frozenset({"print", "info", "warning", "warn", "debug", "error", "critical", "exception", "log",
                      "echo", "write_summary"})


def writes(node: cst.Call) -> Optional[Tuple[cst.BaseExpression, ...]]:
    """The parts of a call that name files it writes (its arguments, or, for a method such as
    ``Path(d, "hyp.yaml").write_text(...)``, also its receiver); None when it writes none:
    ``open(..., "w"/"a"/"x")``, ``save*``, ``write*``, ``yaml.dump``, ``makedirs``, the
    destination of ``shutil.copy``..."""
    func = node.func
    tail = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
    receiver = (func.value,) if isinstance(func, cst.Attribute) else ()
    values = tuple(a.value for a in node.args)
    if tail == "open":
        mode = next((a.value for a in node.args if a.keyword is not None and a.keyword.value == "mode"), None)
        positional = [a.value for a in node.args if a.keyword is None and not a.star]
        if mode is None:  # open(path, mode), io.open, gzip.open...; a path's method: Path(...).open(mode)
            module = isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and \
                func.value.value in OPENERS
            index = 0 if receiver and not module else 1
            mode = positional[index] if len(positional) > index else None
        text = quick_literal(mode) if mode is not None else None
        return values + receiver if isinstance(text, str) and any(c in text for c in "wax") else None
    if tail in COPIERS:
        return values[1:]
    if tail in WRITERS or tail.startswith(("save", "write", "dump_")):
        return values + receiver
    return None


def subtree(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """``node`` and every node under it (read-only: analysis.walk.iter_children)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(iter_children(current))
