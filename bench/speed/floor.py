"""The floor of any LibCST linter: parse every file (and optionally resolve qualified names).

    python bench/speed/floor.py parse|qualified FILELIST

FILELIST holds one path per line. ``parse`` is ``libcst.parse_module`` alone;
``qualified`` adds ``MetadataWrapper(module).resolve(QualifiedNameProvider)``, which is
what a LibCST tool that resolves names the usual way pays. Files that do not decode or
parse are counted and skipped. Prints ``<files> <failed>``.
"""

from __future__ import annotations

import sys


def main(argv) -> int:
    mode, listing = argv
    import libcst as cst
    from libcst.metadata import MetadataWrapper, QualifiedNameProvider

    with open(listing, encoding="utf-8") as handle:
        paths = [line.rstrip("\n") for line in handle if line.strip()]
    failed = 0
    for path in paths:
        try:
            with open(path, "rb") as handle:
                module = cst.parse_module(handle.read())
            if mode == "qualified":
                MetadataWrapper(module).resolve(QualifiedNameProvider)
        except Exception:
            failed += 1
    print(len(paths), failed)
    return 0


if __name__ == "__main__":
    sys.setrecursionlimit(3000)
    raise SystemExit(main(sys.argv[1:]))
