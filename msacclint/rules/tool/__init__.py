"""tool.*: the engine's own codes (input that cannot be checked, a rule that crashed)."""
