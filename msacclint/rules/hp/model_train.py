"""hp.02: which calls are ``Model.train`` on a ``mindspore.Model``, and how its arguments are
read. Shared by MSA137 (dataset_repeat) and MSA138 (sink_size_epochs)."""

from __future__ import annotations

import libcst as cst

MODELS = frozenset({"mindspore.Model"})  # the canonical name of every alias
TRAIN_SIGNATURE = ("epoch", "train_dataset", "callbacks", "dataset_sink_mode", "sink_size", "initial_epoch")


def is_model_train(ctx, sc, call: cst.Call) -> bool:
    """Whether ``call`` is ``name.train(...)`` on a name assigned a ``mindspore.Model(...)``."""
    receiver = call.func.value if isinstance(call.func, cst.Attribute) else None
    if not isinstance(receiver, cst.Name):
        return False
    found = sc.assignment_at(receiver.value, call)
    return found is not None and isinstance(found.value, cst.Call) and ctx.resolve(found.value.func) in MODELS
