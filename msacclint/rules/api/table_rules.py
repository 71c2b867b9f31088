"""The api.* rules generated from rules/api_defaults.toml (one class per
``[[entry.rules]]`` whose checklist id is in area api); see docs/dev/table-dsl.md."""

from msacclint.rules.table import table_rules

RULES = table_rules("api", __name__)
