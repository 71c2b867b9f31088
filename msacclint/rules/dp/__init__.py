"""dp.*: the data pipeline (shuffling, sharding, normalisation, evaluation transforms)."""
