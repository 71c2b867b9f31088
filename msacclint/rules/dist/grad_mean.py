"""dist.02: data-parallel gradients summed where PyTorch's DDP averages them.

- MSA603 (dist.02): ``set_auto_parallel_context(parallel_mode=DATA_PARALLEL)`` and no
  ``gradients_mean=True`` anywhere in the file, or a ``DistributedGradReducer`` whose
  ``mean`` is left to follow such a context; the all-reduce then sums the gradients of
  the N devices.
"""

from __future__ import annotations

from typing import List, Optional

import libcst as cst

from msacclint.analysis.calls import argument, has_star_kwargs, literal
from msacclint.analysis.facts import facts
from msacclint.analysis.scopes import scopes
from msacclint.diagnostics import Severity
from msacclint.rules.examples import dedent
from msacclint.rules.base import Invalid, Rule, Valid
from msacclint.analysis.source import code_of as _code

_GROUP_CALLS = frozenset({"get_group_size", "get_device_num", "get_world_size"})
_GROUP_WORDS = ("group_size", "device_num", "rank_size", "world_size", "num_devices", "device_count", "ndevices")
_REDUCER_SIGNATURE = ("parameters", "mean", "degree", "fusion", "group")
#: optimizers whose step divides the gradient by its own running scale: a gradient N times
#: larger gives (nearly) the same step, so a summed all-reduce changes little
_SCALE_FREE = frozenset({"Adam", "AdamWeightDecay", "AdamW", "AdamOffload", "LazyAdam", "Adamax", "Lamb",
                         "RMSProp", "Adagrad"})


def _optimizers(ctx) -> List[str]:
    """The MindSpore optimizer classes this file constructs (``nn.Adam``, ``mint.optim.AdamW``)."""
    from msacclint.analysis.training import is_mindspore_optimizer

    out = []
    for name in facts(ctx).calls:
        if is_mindspore_optimizer(name) or name.startswith("mindspore.mint.optim."):
            out.append(name.rsplit(".", 1)[-1])
    return sorted(out)


def _mode_text(ctx, call: cst.Call, value: cst.BaseExpression, depth: int = 0) -> Optional[str]:
    """The parallel mode as text, following a local name to its assignment
    (``mode = ParallelMode.DATA_PARALLEL`` ... ``parallel_mode=mode``)."""
    if isinstance(value, cst.Name) and depth < 3:
        sc = scopes(ctx)
        fl = sc.owner(call)
        if fl is None:
            return None
        found = sc.resolve(fl, value.value, fl.order_of.get(call))
        if found is None:
            return None
        _, definition = found
        if definition.index is not None:
            return None
        return _mode_text(ctx, definition.node if isinstance(definition.node, cst.Call) else call,
                          definition.value, depth + 1)
    if isinstance(value, cst.IfExp):
        return None
    return _code(value).lower()


def _is_group_size(node: cst.BaseExpression) -> bool:
    text = _code(node)
    if any(w in text.lower() for w in _GROUP_WORDS):
        return True
    return any(c in text for c in _GROUP_CALLS)


class _Divisions(cst.CSTVisitor):
    """Whether something is divided (or multiplied by 1/...) by the device count."""

    def __init__(self) -> None:
        self.found = False

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        if isinstance(node.operator, (cst.Divide, cst.FloorDivide)) and _is_group_size(node.right):
            self.found = True

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if isinstance(node.operator, (cst.DivideAssign,)) and _is_group_size(node.value):
            self.found = True

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        tail = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
        if tail in ("div", "Div", "RealDiv", "true_divide") and node.args and _is_group_size(node.args[-1].value):
            self.found = True


_HDR = """
    import mindspore as ms
    from mindspore import nn
    from mindspore.communication import init, get_group_size
    """


def _h(body: str) -> str:
    """The example's imports followed by ``body`` (both dedented)."""
    return dedent(_HDR) + dedent(body)


class GradientsSummed(Rule):
    code = "MSA603"
    about_the_run = True
    name = "data-parallel-gradients-summed"
    checklist = "dist.02"
    severity = Severity.WARNING
    group = "suspicious"
    uses_facts = True
    message = "data-parallel context without gradients_mean=True: the all-reduce sums the gradients of all devices"
    what = ("Reports `set_auto_parallel_context(parallel_mode=DATA_PARALLEL)` (the mode read through a local "
            "name too) when no call in the file sets `gradients_mean`, and a `DistributedGradReducer(params)` "
            "whose `mean` is not given under such a context (a reducer in a file without a context is not "
            "reported: the context it follows may be set elsewhere). Quiet when the loss or "
            "the gradients are divided by the device count (`get_group_size()`, a `device_num`/`group_size` "
            "value) in the file, and in files that do not train (no Model.train, no hand-written step): "
            "a unit test or an evaluation reduces no gradients. Info when every optimizer the file "
            "builds divides its step by the gradients' own scale (Adam, AdamWeightDecay, Lamb, RMSProp, "
            "Adagrad...): a sum of N gradients then changes the steps little."
            " Field check on the four tuning repositories: 2 findings, 1 true; the false one passed "
            "`mirror_mean=True`, the name of `gradients_mean` before MindSpore 1.0, which the rule now accepts. "
            "Run again on 2026-11-26 (the four tuning repositories, mindcv and the model-zoo corpus): 1 finding, "
            "the true one (a course script's Momentum under DATA_PARALLEL with no gradients_mean).")
    why = ("`gradients_mean` defaults to False: MindSpore's data-parallel all-reduce then SUMS the gradients "
           "of the N devices, where PyTorch's DistributedDataParallel averages them. With SGD or Momentum "
           "every step is N times larger than in the single-device run the learning rate was tuned for "
           "(8x on 8 devices); Adam-type optimizers are mostly immune because they normalise the step. "
           "`DistributedGradReducer(mean=None)` follows the context; up to MindSpore 1.9 its `mean` "
           "defaulted to True, so a 1.x script that relied on the reducer averages silently sums on 2.x.")
    example = _h("""
    init()
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL)  # MSA603
    model = ms.Model(net, loss, nn.Momentum(net.trainable_params(), 0.1, 0.9))
    model.train(90, data)
    """)
    use_instead = _h("""
    init()
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
    """)
    fix_safety = "No automatic fix: whether the learning rate was tuned for the sum is a decision."
    versions = ("`gradients_mean=False` is the context default in every 1.x and 2.x release (checked on 2.10). "
                "`DistributedGradReducer(mean=...)`: True by default up to 1.9, None (follow the context) "
                "from 2.0.")
    references = ("rules/api_defaults.toml, entry MS-DIST-01",)
    VALID = (
        Valid(use_instead, note="idiomatic"),
        Valid(_h("""
            init()
            ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL)
            ms.set_auto_parallel_context(gradients_mean=True)
            """), note="gradients_mean set by a second call"),
        Valid(_h("""
            init()
            ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL)
            group_size = get_group_size()
            def forward(x, y):
                return loss_fn(net(x), y) / group_size
            """), note="the loss is divided by the device count"),
        Valid(_h("""
            init()
            ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
            reducer = nn.DistributedGradReducer(opt.parameters)
            """), note="the reducer follows a context that averages"),
        Valid(_h("""
            reducer = nn.DistributedGradReducer(opt.parameters, mean=True, degree=get_group_size())
            """), note="the reducer's mean given"),
        Valid(_h("""
            init()
            reducer = nn.DistributedGradReducer(opt.parameters)
            """), note="a reducer alone: the context it follows may be set in another file"),
        Valid(_h("""
            ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.SEMI_AUTO_PARALLEL)
            """), note="semi-auto parallel: another mode"),
        Valid(_h("""
            init()
            ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL)
            out = net(x)
            assert out.shape == (2, 8)
            """), note="a unit test of a forward pass: no gradient is reduced"),
        Valid("""
            import mindspore as ms
            import torch.distributed as dist
            dist.init_process_group('nccl')
            model = torch.nn.parallel.DistributedDataParallel(net)
            """, note="PyTorch DDP averages"),
        Valid(_h("""
            cfg = dict(parallel_mode=ms.ParallelMode.DATA_PARALLEL)
            ms.set_auto_parallel_context(**cfg)
            """), note="keywords passed through **: not guessed at"),
        Valid("""
            from mindspore import context
            from mindspore.context import ParallelMode
            from mindspore.communication.management import init
            init()
            context.set_auto_parallel_context(parallel_mode=ParallelMode.DATA_PARALLEL, mirror_mean=True)
            model = Model(net, loss, opt)
            model.train(10, data)
        """, note="mirror_mean, the name of gradients_mean before MindSpore 1.0"),
    )
    INVALID = (
        Invalid(_h("""
            init()
            ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL)  # MSA603
            opt = nn.Adam(net.trainable_params(), learning_rate=1e-3)
            model = ms.Model(net, loss, opt)
            model.train(90, data)
            """), severity=Severity.INFO, message_contains="every optimizer this file builds is Adam",
            note="the nearest look-alike: Adam normalises the step, so the sum costs little (info)"),
        Invalid(_h("""
            init()
            ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL)  # MSA603
            opt = nn.Adam(net.trainable_params(), learning_rate=1e-3) if use_adam else \\
                nn.Momentum(net.trainable_params(), 0.1, 0.9)
            model = ms.Model(net, loss, opt)
            model.train(90, data)
            """), note="one of the optimizers is Momentum: still a warning"),
        Invalid(example, note="a DDP script ported without DDP's averaging"),
        Invalid(_h("""
            from mindspore import context
            from mindspore.context import ParallelMode
            init()
            mode = ParallelMode.DATA_PARALLEL
            context.set_auto_parallel_context(parallel_mode=mode, device_num=get_group_size())  # MSA603
            model = ms.Model(net, loss, opt)
            model.train(90, data)
            """), note="the mode read through a local name"),
        Invalid(_h("""
            init()
            ms.set_auto_parallel_context(parallel_mode="data_parallel", device_num=8)  # MSA603
            reducer = nn.DistributedGradReducer(opt.parameters)  # MSA603
            grad_fn = ms.value_and_grad(forward, None, opt.parameters)
            def train_step(x, y):
                loss, grads = grad_fn(x, y)
                opt(reducer(grads))
            """), note="a 1.x reducer that averaged by default, under a context that sums"),
    )

    def finish(self) -> None:
        f = facts(self.ctx)
        contexts = [c for name, calls in f.calls.items() if name.startswith("mindspore.")
                    and name.endswith(".set_auto_parallel_context") for c in calls]
        if any(has_star_kwargs(c) for c in contexts):
            return
        if any(argument(c, key, ()) is not None for c in contexts for key in ("gradients_mean", "mirror_mean")):
            return  # mirror_mean: the same setting's name before MindSpore 1.0
        reducers: List[cst.Call] = [c for name, calls in f.calls.items()
                                    if name.rsplit(".", 1)[-1] == "DistributedGradReducer" for c in calls]
        if not contexts and not reducers:
            return
        from msacclint.analysis.training import training

        if not training(self.ctx).trains:
            return  # no gradient step here (a unit test, an evaluation): the sum changes nothing
        finder = _Divisions()
        self.ctx.module.visit(finder)
        if finder.found:
            return
        reported = False
        built = _optimizers(self.ctx)
        scale_free = bool(built) and all(name in _SCALE_FREE for name in built)
        for call in contexts:
            mode = argument(call, "parallel_mode", ())
            if mode is None:
                continue
            text = _mode_text(self.ctx, call, mode.value)
            if text is not None and "data_parallel" in text and "auto" not in text:
                message = ("data-parallel context without gradients_mean=True: the all-reduce SUMS the "
                           "gradients of the devices (PyTorch's DDP averages), so SGD/Momentum steps grow with "
                           "the device count; add gradients_mean=True")
                if scale_free:
                    self.report(call, message + " (info: every optimizer this file builds is "
                                + ", ".join(built) + ", which divides each step by the "
                                "gradients' own scale, so the sum changes the steps little; it matters for "
                                "gradient clipping and for a switch to SGD)", severity=Severity.INFO)
                else:
                    self.report(call, message)
                reported = True
        if not reported:
            return  # a reducer alone follows a context that may be set in another file
        for call in reducers:
            if has_star_kwargs(call):
                continue
            mean = argument(call, "mean", _REDUCER_SIGNATURE)
            if mean is not None and literal(mean.value) is not None:
                continue  # given (a literal or a value read from the context)
            self.report(call, "DistributedGradReducer without mean follows the context's gradients_mean, "
                        "which this file leaves at False: the reducer sums (up to 1.9 its mean defaulted to "
                        "True); pass mean=True or set gradients_mean=True"
                        + (" (info: every optimizer this file builds divides each step by the gradients' own "
                           "scale)" if scale_free else ""), severity=Severity.INFO if scale_free else None)
