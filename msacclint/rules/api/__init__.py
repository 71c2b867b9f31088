"""api.01 / api.02: a MindSpore API used with another framework's defaults or meaning, and
train/eval mode (set_train, use_batch_statistics, callbacks that switch the mode)."""
