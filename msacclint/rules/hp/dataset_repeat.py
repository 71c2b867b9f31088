"""MSA137 (hp.02): a dataset repeated ``n`` times (``dataset.repeat(n)``) and given to
``Model.train(epochs, dataset)``: the model sees ``n x epochs`` passes over the data."""

from __future__ import annotations

from typing import Optional, Tuple

import libcst as cst

from msacclint.analysis.calls import UNKNOWN, argument, literal
from msacclint.analysis.facts import facts
from msacclint.analysis.scopes import scopes
from msacclint.analysis.source import code_of as _code
from msacclint.diagnostics import Severity
from msacclint.rules.base import Invalid, Rule, Valid
from msacclint.rules.hp.model_train import MODELS, TRAIN_SIGNATURE, is_model_train


def _module_function(module: cst.Module, name: str) -> Optional[cst.FunctionDef]:
    for stmt in module.body:
        if isinstance(stmt, cst.FunctionDef) and stmt.name.value == name:
            return stmt
    return None


class _Repeats(cst.CSTVisitor):
    def __init__(self) -> None:
        self.counts = []

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Attribute) and node.func.attr.value == "repeat" and len(node.args) == 1:
            self.counts.append(node.args[0].value)


class RepeatTimesEpochs(Rule):
    code = "MSA137"
    about_the_run = True
    name = "dataset-repeat-with-epochs"
    checklist = "hp.02"
    severity = Severity.WARNING
    group = "suspicious"
    uses_facts = True
    message = "a repeated dataset given to Model.train(epochs, ...): the data is seen repeat x epochs times"
    what = ("Reports `Model.train(epoch, dataset)` when the dataset was built with `.repeat(n)` in the same file "
            "(directly, through a local name, or inside a module-level function of the file that builds it "
            "with a literal count) and either `n` is the same expression as the epoch count or `n` is a "
            "literal larger than 1 while the epoch count is not the literal 1.")
    why = ("`Model.train(epoch, dataset)` iterates the dataset `epoch` times; a dataset that already repeats "
           "itself `n` times makes that `n x epoch` passes. A PyTorch loop `for epoch in range(E)` ported as "
           "`ds.repeat(E)` plus `model.train(E, ds)` trains E times too long: the learning-rate schedule, "
           "computed per step for E epochs, ends after the first E-th of the training and the rest runs at "
           "its last value (overfitting, checklist hp.02).")
    example = """
    import mindspore as ms
    ds_train = create_dataset(path).repeat(args.epochs)
    model = ms.Model(net, loss, opt)
    model.train(args.epochs, ds_train)  # MSA137
    """
    use_instead = """
    import mindspore as ms
    ds_train = create_dataset(path)
    model = ms.Model(net, loss, opt)
    model.train(args.epochs, ds_train)
    """
    fix_safety = "No automatic fix."
    versions = "All MindSpore 1.x and 2.x releases."
    VALID = (
        Valid(use_instead, note="idiomatic"),
        Valid("""
            import mindspore as ms
            ds_train = create_dataset(path).repeat(1)
            model = ms.Model(net, loss, opt)
            model.train(args.epochs, ds_train)
            """, note="repeat(1)"),
        Valid("""
            import mindspore as ms
            ds_train = create_dataset(path).repeat(args.epochs)
            model = ms.Model(net, loss, opt)
            model.train(1, ds_train)
            """, note="the epochs in the dataset, one pass in train"),
        Valid("""
            import mindspore as ms
            ds_train = create_dataset(path).repeat(args.repeat)
            model = ms.Model(net, loss, opt)
            model.train(args.epochs, ds_train)
            """, note="an unknown repeat count: not guessed at"),
        Valid("""
            import mindspore as ms
            import numpy as np
            x = np.repeat(a, 3)
            trainer.train(10, data.repeat(3))
            """, note="not a MindSpore Model"),
    )
    INVALID = (
        Invalid(example, note="a PyTorch epoch loop ported twice"),
        Invalid("""
            from mindspore.train import Model

            def create_dataset(path):
                ds = build(path)
                ds = ds.batch(32)
                ds = ds.repeat(10)
                return ds

            data = create_dataset('train')
            model = Model(net, loss, opt)
            model.train(90, data, dataset_sink_mode=True)  # MSA137
            """, note="repeated inside the file's dataset function"),
    )

    def finish(self) -> None:
        f = facts(self.ctx)
        if not f.calls_any(*MODELS):
            return
        sc = scopes(self.ctx)
        for call in f.method_calls("train"):
            if not self._is_model(sc, call):
                continue
            epoch = argument(call, "epoch", TRAIN_SIGNATURE)
            data = argument(call, "train_dataset", TRAIN_SIGNATURE)
            if epoch is None or data is None:
                continue
            found = self._repeat_count(sc, call, data.value)
            if found is None:
                continue
            count, where = found
            epoch_value = literal(epoch.value)
            count_value = literal(count)
            same = _code(count).strip() == _code(epoch.value).strip() and count_value is UNKNOWN
            if same or (isinstance(count_value, int) and count_value > 1 and epoch_value != 1):
                self.report(call, f"the dataset repeats itself {_code(count)} times ({where}) and Model.train "
                            f"runs {_code(epoch.value)} epochs over it: {_code(count)} x {_code(epoch.value)} "
                            "passes; drop the repeat (or train 1 epoch) so that the epoch count and the "
                            "per-step schedule mean what they say")

    def _is_model(self, sc, call: cst.Call) -> bool:
        return is_model_train(self.ctx, sc, call)

    def _repeat_count(self, sc, call: cst.Call, value: cst.BaseExpression, depth: int = 0
                      ) -> Optional[Tuple[cst.BaseExpression, str]]:
        if depth > 3:
            return None
        if isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute):
            if value.func.attr.value == "repeat" and len(value.args) == 1:
                return value.args[0].value, "repeat() on the dataset"
            if value.func.attr.value in ("batch", "map", "shuffle", "project", "rename"):
                return self._repeat_count(sc, call, value.func.value, depth + 1)
            return None
        if isinstance(value, cst.Call) and isinstance(value.func, cst.Name):
            function = _module_function(self.ctx.module, value.func.value)
            if function is None:
                return None
            finder = _Repeats()
            function.body.visit(finder)
            literal_counts = [c for c in finder.counts if isinstance(literal(c), int)]
            if len(finder.counts) == 1 and literal_counts:
                return literal_counts[0], f"in {function.name.value}()"
            return None
        if isinstance(value, cst.Name):
            found = sc.assignment_at(value.value, call)
            if found is None:
                return None
            anchor = found.node if isinstance(found.node, cst.Call) else call
            return self._repeat_count(sc, anchor if sc.owner(anchor) else call, found.value, depth + 1)
        return None
