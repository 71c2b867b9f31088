"""Folders no walk enters: one list for discovery and the project listing."""

#: folders a walk never enters (besides hidden ones and virtualenvs)
SKIPPED_FOLDERS = frozenset({
    "__pycache__", "node_modules", "site-packages", "build", "dist", "venv", "env",
    ".msacclint_cache",
})
