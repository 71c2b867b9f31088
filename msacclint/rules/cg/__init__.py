"""cg.*: the computational graph: unused or frozen layers, shared weights, loss functions."""
