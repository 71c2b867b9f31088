"""The runtime probe: checks rules/api_defaults.toml against the installed MindSpore.

Only ``msacclint probe`` imports this package's runner; it is the one place in msacclint
that imports MindSpore. The data lives in rules/probe.toml, the behavioural checks in
behaviour.py, the comparison in values.py.
"""
