"""The codes of the ``port`` group, for the rules and the report that suggest it.

``port``: the rules of PyTorch conventions that are deliberate in MindSpore-native code but the
usual mistakes of code ported from PyTorch (or loading PyTorch-converted weights): a Conv2d
without has_bias (PyTorch's has a bias), ConvTranspose defaults, LayerNorm epsilon, GELU approximate, LeakyReLU alpha, Softmax axis, InstanceNorm affine, Embedding and
initializer sigma, 'normal' init strings, L2Normalize axis, Conv pad_mode 'same', weight decay on
the whole parameter list, ops.CTCLoss's blank, Embedding's trained padding row, the legacy
resize's sampling and O2/O3 mixed precision. ``--extend-select port`` adds them to the default
view. The group is each rule's own ``group``; this list is what the rules layer can name without
the registry, and tests/test_groups.py keeps the two equal.
"""

from __future__ import annotations

from typing import Tuple

PORT: Tuple[str, ...] = ("MSA003", "MSA108", "MSA109", "MSA110", "MSA111", "MSA112", "MSA113", "MSA114", "MSA115",
                         "MSA116", "MSA117", "MSA118", "MSA122", "MSA124", "MSA132", "MSA144", "MSA145", "MSA407")
