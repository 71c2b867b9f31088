"""The wi.* rules generated from rules/api_defaults.toml (one class per
``[[entry.rules]]`` whose checklist id is in area wi); see docs/dev/table-dsl.md."""

from msacclint.rules.table import table_rules

RULES = table_rules("wi", __name__)
