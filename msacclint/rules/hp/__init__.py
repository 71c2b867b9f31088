"""hp.*: hyper-parameters (optimizer defaults that differ from PyTorch's)."""
