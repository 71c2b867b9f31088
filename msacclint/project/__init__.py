"""The project layer: facts of every file of a repository, linked by imports.

Rules ask ``ctx.project`` (a ProjectIndex, or None when a run has no project) questions
that one file cannot answer: what class an imported name is and what it builds, which
value a constant or a config key holds, what the callers of a function bind to a
parameter. Summaries are built lazily, on the first question about a file, and cached by
content hash (see docs/dev/architecture.md, "The project layer").

Modules: ``listing`` (the root and the files a project holds; no LibCST, a run answered
from the cache needs only it), ``summary`` (one file's facts), ``configs`` (YAML/JSON
configs), ``index`` (the linked index the rules ask).
"""
