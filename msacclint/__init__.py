"""msacclint: the MindSpore accuracy checklist, checked statically."""

__version__ = "0.1.0"
