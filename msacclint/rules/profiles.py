"""Presets of codes that a selector names as a whole (``select = ["port"]``).

``port``: the default rules plus the review rules kept off for MindSpore-native code because
their defaults are deliberate there, but which are the usual mistakes of code ported from
PyTorch (or loading PyTorch-converted weights): LayerNorm epsilon, GELU approximate,
LeakyReLU alpha, Softmax axis, InstanceNorm affine, Embedding and initializer sigma, 'normal'
init strings, L2Normalize axis, Conv pad_mode 'same', weight decay on the whole parameter
list, ops.CTCLoss's blank, Embedding's trained padding row and O2/O3 mixed precision.
"""

from __future__ import annotations

from typing import Dict, Tuple

PROFILES: Dict[str, Tuple[str, ...]] = {
    "port": ("MSA109", "MSA111", "MSA112", "MSA113", "MSA114", "MSA115", "MSA116", "MSA117", "MSA118",
             "MSA122", "MSA132", "MSA144", "MSA145", "MSA407"),
}


def profile_codes(name: str) -> Tuple[str, ...]:
    """The codes a profile adds to the defaults; () for a name that is no profile."""
    return PROFILES.get(name.strip().lower(), ())
