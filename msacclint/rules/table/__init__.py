"""The table machinery (no rules of its own): rules/api_defaults.toml parsed into a
validated spec (``spec``), the spec's conditions as questions to the analysis layer
(``conditions``), the generic call rule made from each ``[[entry.rules]]``
(``call_rule``), and what every rule backed by a table entry shares (``versions``).

Each checklist area contributes its table rules from its own ``table_rules.py``."""

from msacclint.rules.table.call_rule import CallRule, add_keywords, called, make_rule, spec_for, table_rules
from msacclint.rules.table.spec import TableError, load_table
from msacclint.rules.table.versions import TableRuleMixin

__all__ = ["CallRule", "TableError", "TableRuleMixin", "add_keywords", "called", "load_table", "make_rule",
           "spec_for", "table_rules"]
