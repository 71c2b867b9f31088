"""MSA138 (hp.02): ``Model.train(epochs, ds, dataset_sink_mode=True, sink_size=N)`` makes an
"epoch" N steps, while the learning-rate schedule given to the optimizer counts epochs of
``ds.get_dataset_size()`` steps and the epoch count was not converted."""

from __future__ import annotations

from typing import Dict, List, Optional, Set, Tuple

import libcst as cst

from msacclint.analysis.calls import argument, has_star_kwargs, literal
from msacclint.analysis.facts import facts
from msacclint.analysis.scopes import scopes
from msacclint.analysis.source import code_of as _code
from msacclint.diagnostics import Severity
from msacclint.rules.base import Invalid, Rule, Valid
from msacclint.rules.examples import fill
from msacclint.rules.fixtures.mpwi import page
from msacclint.rules.hp.model_train import MODELS, TRAIN_SIGNATURE, is_model_train

#: mindspore.nn optimizers -> the order of their first parameters, up to learning_rate
_OPTIMIZER_SIGNATURES: Dict[str, Tuple[str, ...]] = {
    **{"mindspore.nn." + n: ("params", "learning_rate") for n in (
        "Momentum", "SGD", "Adam", "AdamWeightDecay", "AdamOffload", "LazyAdam", "Lamb", "RMSProp", "Adadelta",
        "Adamax", "ASGD", "Rprop", "LARS")},
    "mindspore.nn.Adagrad": ("params", "accum", "learning_rate"),
    "mindspore.nn.ProximalAdagrad": ("params", "accum", "learning_rate"),
    "mindspore.nn.FTRL": ("params", "initial_accum", "learning_rate"),
}
#: MindSpore's per-epoch schedule builders -> their parameters up to step_per_epoch
_SCHEDULES: Dict[str, Tuple[str, ...]] = {
    **{"mindspore.nn." + n: ("learning_rate", "decay_rate", "total_step", "step_per_epoch") for n in (
        "exponential_decay_lr", "natural_exp_decay_lr", "inverse_decay_lr")},
    "mindspore.nn.cosine_decay_lr": ("min_lr", "max_lr", "total_step", "step_per_epoch"),
    "mindspore.nn.polynomial_decay_lr": ("learning_rate", "end_learning_rate", "total_step", "step_per_epoch"),
    "mindspore.nn.warmup_lr": ("learning_rate", "total_step", "step_per_epoch"),
}


class _FileWalk(cst.CSTVisitor):
    """Every call of the file, and the values assigned to attribute targets (``cfg.steps = ...``)."""

    def __init__(self) -> None:
        self.calls: List[cst.Call] = []
        self.attributes: Dict[str, List[cst.BaseExpression]] = {}
        self.assigned_from: Dict[cst.Call, str] = {}

    def visit_Call(self, node: cst.Call) -> None:
        self.calls.append(node)

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            if isinstance(target.target, cst.Attribute):
                self.attributes.setdefault(_code(target.target), []).append(node.value)
            if isinstance(target.target, cst.Name) and isinstance(node.value, cst.Call):
                self.assigned_from[node.value] = target.target.value


class _Refs(cst.CSTVisitor):
    """The names and attribute chains an expression reads (not the callees it calls)."""

    def __init__(self) -> None:
        self.refs: Set[str] = set()
        self.sizes = False

    def visit_Call(self, node: cst.Call) -> bool:
        if isinstance(node.func, cst.Attribute):
            if node.func.attr.value == "get_dataset_size":
                self.sizes = True
            node.func.value.visit(self)
        for arg in node.args:
            arg.value.visit(self)
        return False

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        self.refs.add(_code(node))
        return False

    def visit_Name(self, node: cst.Name) -> None:
        if node.value not in ("True", "False", "None"):
            self.refs.add(node.value)


def _refs(node: cst.CSTNode) -> _Refs:
    found = _Refs()
    node.visit(found)
    return found


#: a script whose learning-rate schedule is built for the dataset's steps per epoch, then
#: trained by ``{train}``
_SINK_SCRIPT = """
    import mindspore as ms
    from mindspore import nn
    ds_train = create_dataset(args.data_path)
    steps = ds_train.get_dataset_size()
    lr = nn.cosine_decay_lr(0.0, 0.1, args.epochs * steps, steps, args.epochs)
    opt = nn.Momentum(net.trainable_params(), lr, 0.9)
    model = ms.Model(net, loss, opt)
    {train}
"""


class SinkSizeEpochs(Rule):
    code = "MSA138"
    about_the_run = True
    name = "sink-size-epochs-with-schedule"
    checklist = "hp.02"
    severity = Severity.WARNING
    group = "suspicious"
    uses_facts = True
    message = ("Model.train(epochs, ..., sink_size=N) runs epochs of N steps while the learning-rate schedule "
               "counts epochs of the dataset size")
    what = ("Reports `Model.train(epoch, dataset, dataset_sink_mode=..., sink_size=N)` on a `mindspore.Model` when "
            "N is not the dataset size (not `get_dataset_size()`, directly or through the names it was assigned "
            "from), the epoch count is not converted with N (no expression or assignment of it reads N), and "
            "the same file builds the optimizer's learning rate from a per-epoch schedule whose steps per "
            "epoch are `dataset.get_dataset_size()` (a `mindspore.nn.*_lr` builder's `step_per_epoch`, or any "
            "call given the dataset size whose result is passed as an optimizer's `learning_rate`). Quiet when "
            "`dataset_sink_mode` is False or absent (sink_size is then ignored) or `sink_size` is -1. The dataset "
            "size is only known at run time, so the rule assumes that N differs from it: warning. The reverse "
            "case (a schedule built with N steps per epoch and a training run whose epochs are whole datasets) "
            "is not reported: nothing in the code says that a number is a sink size then. Field check "
            "(docs/evaluation/field.md, issue 14 rules): no finding on the four tuning repositories (6,045 "
            "files) nor on the 94 files of mindspore-ai/models that pass sink_size; the 21 tuning call sites "
            "that pass a sink size were read and all are correct (13 pass the dataset size, 8 convert the "
            "epoch count), so its precision is not measured yet; on by default as a warning because it "
            "reports only a resolved schedule and an epoch count that never reads the sink size. Also reports "
            "the opposite mistake: an epoch count converted with N (it reads N) passed with sink_size=N while "
            "`dataset_sink_mode` is absent or False, where MindSpore 2.x ignores sink_size (the default was True "
            "in 1.x, so code written for 1.x runs size/N times too long on 2.x; not reported when the configured "
            "MindSpore version is 1.x).")
    why = ("With `dataset_sink_mode=True` and `sink_size=N`, `Model.train(E, ds)` runs E 'epochs' of N steps "
           "each, E x N steps in all, whatever the dataset's size. A PyTorch loop `for epoch in range(E)` over "
           "a loader of S batches ported with a sink size for speed or logging keeps E and a schedule built "
           "for E x S steps: with N < S the run stops after a fraction of the epochs with the learning rate "
           "still high (warm-up and decay never finish), with N > S it trains past the schedule's end. "
           "MindSpore's own scripts convert the count: `model.train(E * S // N, ds, sink_size=N)` (checklist "
           "hp.02).")
    example = page(fill(_SINK_SCRIPT, train="model.train(args.epochs, ds_train, dataset_sink_mode=True, "
                                             "sink_size=args.sink_size)  # MSA138"), indent=4)
    use_instead = page(fill(_SINK_SCRIPT, train="""
        sink_epochs = args.epochs * steps // args.sink_size
        model.train(sink_epochs, ds_train, dataset_sink_mode=True, sink_size=args.sink_size)
    """), indent=4)
    fix_safety = "No automatic fix: the converted epoch count changes how often per-epoch callbacks run."
    versions = ("All MindSpore 1.x and 2.x releases. `dataset_sink_mode` defaults to False from 2.0 (True in 1.x); "
                "the rule reads only calls that pass it, so a 1.x script relying on the default is not reported.")
    VALID = (
        Valid(use_instead, note="idiomatic: the epoch count converted to sink epochs"),
        Valid(fill(_SINK_SCRIPT, train="model.train(args.epochs, ds_train, dataset_sink_mode=True, sink_size=steps)"),
              note="sink_size is the dataset size"),
        Valid(fill(_SINK_SCRIPT, train="model.train(args.epochs, ds_train, dataset_sink_mode=False, "
                                       "sink_size=args.sink_size)"), note="sink mode off: sink_size is ignored"),
        Valid("""
            import mindspore as ms
            from mindspore import nn
            ds_train = create_dataset(args.data_path)
            lr = nn.cosine_decay_lr(0.0, 0.1, args.epochs * args.sink_size, args.sink_size, args.epochs)
            opt = nn.Momentum(net.trainable_params(), lr, 0.9)
            model = ms.Model(net, loss, opt)
            model.train(args.epochs, ds_train, dataset_sink_mode=True, sink_size=args.sink_size)
            """, note="the schedule counts epochs of sink_size steps too"),
        Valid("""
            import mindspore as ms
            from mindspore import nn
            ds_train = create_dataset(args.data_path)
            opt = nn.Momentum(net.trainable_params(), 0.01, 0.9)
            model = ms.Model(net, loss, opt)
            model.train(args.epochs, ds_train, dataset_sink_mode=True, sink_size=100)
            """, note="a constant learning rate: no schedule to cut short"),
        Valid("""
            import mindspore as ms
            from mindspore import nn
            ds_train = create_dataset(args.data_path)
            size = ds_train.get_dataset_size()
            lr = get_lr(args.lr, args.epochs, size)
            opt = nn.Momentum(net.trainable_params(), lr, 0.9)
            model = ms.Model(net, loss, opt)
            epochs = args.epochs
            if args.sink_mode:
                epochs = int(args.epochs * size / args.print_steps)
            model.train(epochs, ds_train, dataset_sink_mode=args.sink_mode, sink_size=args.print_steps)
            """, note="the epoch count converted when sinking (a conditional assignment)"),
        Valid("""
            import mindspore as ms

            def train(net, loss, opt, ds, epochs, sink_size):
                model = ms.Model(net, loss, opt)
                steps = epochs * ds.get_dataset_size() // sink_size
                model.train(steps, ds, dataset_sink_mode=True, sink_size=sink_size)
        """, note="the nearest look-alike: sink mode on, so the converted count is right"),
        Valid("""
            import mindspore as ms

            def train(net, loss, opt, ds, epochs, sink_size):
                model = ms.Model(net, loss, opt)
                steps = epochs * ds.get_dataset_size() // sink_size
                model.train(steps, ds, sink_size=sink_size)
        """, mindspore_version="1.10.1", note="MindSpore 1.x: sink mode was on by default"),
    )
    INVALID = (
        Invalid(example, note="a PyTorch epoch count kept with a sink size"),
        Invalid("""
            from mindspore import Model, nn
            from src.lr import get_lr

            def train(args):
                dataset = create_dataset(args.data_path, batch_size=32)
                step_size = dataset.get_dataset_size()
                lr = get_lr(lr_init=0.01, total_epochs=args.epoch_size, steps_per_epoch=step_size)
                opt = nn.Momentum(params=net.trainable_params(), learning_rate=lr, momentum=0.9)
                model = Model(net, loss_fn=loss, optimizer=opt)
                model.train(args.epoch_size, dataset, callbacks=cbs, dataset_sink_mode=True, sink_size=500)  # MSA138
            """, note="a project schedule function given the dataset size"),
        Invalid("""
            import mindspore as ms

            def train(net, loss, opt, ds, epochs, sink_size):
                model = ms.Model(net, loss, opt)
                steps = epochs * ds.get_dataset_size() // sink_size
                model.train(steps, ds, sink_size=sink_size)  # MSA138
        """, note="epochs converted to sink epochs for a 1.x Model.train whose sink mode was on by default"),
    )

    def finish(self) -> None:
        f = facts(self.ctx)
        if not f.calls_any(*MODELS):
            return
        sc = scopes(self.ctx)
        walk: Optional[_FileWalk] = None
        for call in f.method_calls("train"):
            if not is_model_train(self.ctx, sc, call):
                continue
            epoch = argument(call, "epoch", TRAIN_SIGNATURE)
            sink = argument(call, "sink_size", TRAIN_SIGNATURE)
            mode = argument(call, "dataset_sink_mode", TRAIN_SIGNATURE)
            if epoch is not None and sink is not None and literal(sink.value) not in (-1, None) \
                    and (mode is None or literal(mode.value) is False) and not has_star_kwargs(call):
                self._converted_but_ignored(sc, call, epoch, sink, mode)
                continue
            if epoch is None or sink is None or mode is None or literal(mode.value) in (False, None, 0):
                continue
            if literal(sink.value) in (-1, None):
                continue
            if walk is None:
                walk = _FileWalk()
                self.ctx.module.visit(walk)
            if self._is_size(sc, walk, call, sink.value):
                continue
            sink_refs = self._expanded_refs(sc, call, sink.value) | {_code(sink.value).strip()}
            if sink_refs & self._expanded_refs(sc, call, epoch.value):
                continue
            schedule = self._schedule(sc, walk, sink_refs)
            if schedule is None:
                continue
            schedule_call, size = schedule
            self.report(call, f"Model.train runs {_code(epoch.value)} epochs of sink_size={_code(sink.value)} "
                        f"steps each, while the learning-rate schedule ({_code(schedule_call.func)}(...)) counts "
                        f"epochs of dataset-size steps ({_code(size)}): unless the two are equal, training stops early with the "
                        "schedule unfinished or runs past its end; pass the epoch count converted to sink "
                        f"epochs ({_code(epoch.value)} * {_code(size)} // {_code(sink.value)}) or build the "
                        "schedule with sink_size steps per epoch")

    def _converted_but_ignored(self, sc, call: cst.Call, epoch, sink, mode) -> None:
        """``Model.train(epochs * size // N, ds, sink_size=N)`` with sink mode off: the epoch
        count was converted to sink epochs of N steps, but MindSpore ignores sink_size unless
        dataset_sink_mode is True (False by default since 2.0), so every epoch is a whole
        dataset and training runs size/N times too long."""
        from msacclint.analysis.versions import in_range

        if self.ctx.mindspore_version is not None and not in_range(self.ctx.mindspore_version, "2.0", None):
            return  # 1.x: dataset_sink_mode defaulted to True
        sink_refs = self._expanded_refs(sc, call, sink.value) | {_code(sink.value).strip()}
        if not sink_refs & self._expanded_refs(sc, call, epoch.value):
            return
        how = ("dataset_sink_mode=False" if mode is not None
               else "no dataset_sink_mode (False by default since MindSpore 2.0)")
        self.report(call, f"the epoch count {_code(epoch.value)} is converted to epochs of "
                    f"sink_size={_code(sink.value)} steps, but with {how} sink_size is ignored and every epoch is a "
                    f"whole pass over the dataset: training runs dataset_size / {_code(sink.value)} times as many "
                    f"steps as intended; pass dataset_sink_mode=True, or the unconverted epoch count")

    # -- what an expression is ----------------------------------------------------------------
    def _values(self, sc, walk: _FileWalk, anchor: cst.Call, node: cst.BaseExpression) -> List[cst.BaseExpression]:
        """The expressions a Name (its assignments in the enclosing function) or an attribute
        chain (its assignments anywhere in the file) was given."""
        if isinstance(node, cst.Name):
            fl = sc.owner(anchor)
            if fl is None:
                return []
            out = []
            for scope in sc.enclosing(fl):
                defs = scope.defs.get(node.value, ())
                out.extend(d.value for d in defs if d.index is None)
                if defs or node.value in sc.params(scope):
                    break
            return out
        if isinstance(node, cst.Attribute):
            return list(walk.attributes.get(_code(node), ()))
        return []

    def _is_size(self, sc, walk: _FileWalk, anchor: cst.Call, node: cst.BaseExpression, depth: int = 0) -> bool:
        """Whether the value is the dataset size (``ds.get_dataset_size()``, directly or through names)."""
        if depth > 3:
            return False
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) \
                and node.func.attr.value == "get_dataset_size":
            return True
        values = self._values(sc, walk, anchor, node)
        return bool(values) and all(self._is_size(sc, walk, anchor, v, depth + 1) for v in values)

    def _expanded_refs(self, sc, anchor: cst.Call, node: cst.BaseExpression) -> Set[str]:
        """The names an expression reads, and those read by every assignment of a local name
        it reads (one level: ``epochs = args.epochs * size // sink`` counts for ``epochs``)."""
        found = _refs(node).refs
        out = set(found)
        fl = sc.owner(anchor)
        if fl is None:
            return out
        for name in found:
            if "." in name:
                continue
            for scope in sc.enclosing(fl):
                defs = scope.defs.get(name, ())
                for d in defs:
                    out |= _refs(d.value).refs
                if defs:
                    break
        return out

    def _schedule(self, sc, walk: _FileWalk, sink_refs: Set[str]
                  ) -> Optional[Tuple[cst.Call, cst.BaseExpression]]:
        """A per-epoch learning-rate schedule of the file built from the dataset size, and
        that size expression; None when there is none (or it counts sink-size epochs)."""
        learning_rates: List[cst.BaseExpression] = []
        for call in walk.calls:
            signature = _OPTIMIZER_SIGNATURES.get(self.ctx.resolve(call.func) or "")
            if signature is not None:
                lr = argument(call, "learning_rate", signature)
                if lr is not None:
                    learning_rates.append(lr.value)
        if not learning_rates:
            return None
        lr_names: Set[str] = set()
        for value in learning_rates:
            lr_names |= _refs(value).refs
        for call in walk.calls:
            callee = self.ctx.resolve(call.func) or ""
            if callee in _SCHEDULES:
                step = argument(call, "step_per_epoch", _SCHEDULES[callee])
                candidates = [step] if step is not None else []
            else:
                candidates = list(call.args)
            feeds = walk.assigned_from.get(call) in lr_names or any(
                call is v or _contains(v, call) for v in learning_rates)
            if not feeds:
                continue
            for arg in candidates:
                if _refs(arg.value).refs & sink_refs:
                    return None
                if self._is_size(sc, walk, call, arg.value):
                    return call, arg.value
        return None


def _contains(outer: cst.CSTNode, inner: cst.CSTNode) -> bool:
    class _Find(cst.CSTVisitor):
        found = False

        def on_visit(self, node: cst.CSTNode) -> bool:
            if node is inner:
                self.found = True
            return not self.found

    finder = _Find()
    outer.visit(finder)
    return finder.found
