"""The cg.* rules generated from rules/api_defaults.toml (one class per
``[[entry.rules]]`` whose checklist id is in area cg); see docs/dev/table-dsl.md."""

from msacclint.rules.table import table_rules

RULES = table_rules("cg", __name__)
