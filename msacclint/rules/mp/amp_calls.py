"""mp.01 / mp.02: what a Model, build_train_network or auto_mixed_precision call says about
float16: its amp level, and whether O3 is left without loss scaling or float32 BatchNorm.
Shared by MSA403 (fixed_loss_scale), MSA404 (float16_loss_scale) and MSA405 (amp_level_loss);
the calls given a level the file resolves (``calls_with_level``) by MSA406 (o2_batchnorm_gpu) and
MSA407 (port_amp_level), and ``AUTO_MP`` by MSA408 (o3_batchnorm)."""

from __future__ import annotations

from typing import Iterator, Optional, Tuple

import libcst as cst

from msacclint.analysis.calls import argument, constant, has_star_kwargs, literal
from msacclint.analysis.facts import facts
from msacclint.analysis.loss_scale import model_argument

MODEL = "mindspore.Model"
BUILD_TRAIN = "mindspore.build_train_network"
AUTO_MP = "mindspore.auto_mixed_precision"
BUILD_TRAIN_SIGNATURE = ("network", "optimizer", "loss_fn", "level")

#: API -> (name of the level argument, positional signature)
_MODEL_SIG = ("network", "loss_fn", "optimizer", "metrics", "eval_network", "eval_indexes", "amp_level", "boost_level")
AMP_APIS = {
    # canonical names (msacclint.analysis.imports.canonical folds mindspore.train/amp aliases)
    MODEL: ("amp_level", _MODEL_SIG),
    BUILD_TRAIN: ("level", ("network", "optimizer", "loss_fn", "level", "boost_level")),
    AUTO_MP: ("amp_level", ("network", "amp_level", "dtype")),
}


def amp_level(call: cst.Call, callee: str) -> Optional[str]:
    """The literal amp level of a Model / build_train_network / auto_mixed_precision call."""
    if callee == MODEL:
        value = model_argument(call, "amp_level")
    elif callee == BUILD_TRAIN:
        arg = argument(call, "level", BUILD_TRAIN_SIGNATURE)
        value = arg.value if arg is not None else None
    elif callee == AUTO_MP:
        arg = argument(call, "amp_level", ("network", "amp_level"))
        value = arg.value if arg is not None else None
    else:
        return None
    if value is None:
        return "O0"
    level = literal(value)
    return level if isinstance(level, str) else None


def keyword(call: cst.Call, name: str) -> Optional[cst.Arg]:
    return next((a for a in call.args if a.keyword is not None and a.keyword.value == name), None)


def o3_unguarded(call: cst.Call, callee: str) -> bool:
    """O3 (float16 BatchNorm, no loss scaling) without loss_scale_manager nor
    keep_batchnorm_fp32: the MS-AMP-01 finding of MSA405."""
    return (amp_level(call, callee) == "O3" and not has_star_kwargs(call)
            and keyword(call, "loss_scale_manager") is None and keyword(call, "keep_batchnorm_fp32") is None)


def calls_with_level(ctx) -> Iterator[Tuple[cst.Call, str, cst.Arg]]:
    """(call, API, level argument) of every AMP entry point given a level that is a string
    constant of the file (``analysis.calls.constant``, not only a literal as ``amp_level``)."""
    f = facts(ctx)
    for api, (param, signature) in AMP_APIS.items():
        for call in f.called(api):
            arg = argument(call, param, signature)
            if arg is not None and isinstance(constant(ctx, arg.value), str):
                yield call, api, arg
