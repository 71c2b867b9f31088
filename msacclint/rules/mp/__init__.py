"""mp.*: mixed precision, loss scaling and gradient clipping of scaled gradients."""
