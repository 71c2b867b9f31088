"""dist.*: distributed training (replica seeds, gradient aggregation)."""
