"""api.02: a training callback that switches the network to inference mode and leaves it
there (MS-MODE-01).

- MSA203 (error): a ``Callback`` subclass calls ``set_train(False)`` during training and
  nothing in it switches training mode back on.
"""

from __future__ import annotations

from typing import List, Optional, Set, Tuple

import libcst as cst

from msacclint.analysis.cells import cells
from msacclint.analysis.training import set_train_mode
from msacclint.analysis.walk import walk
from msacclint.diagnostics import Severity
from msacclint.rules.base import Invalid, Rule, Valid
from msacclint.rules.examples import fill

#: the public spellings the import table resolves MindSpore's Callback base to
CALLBACK_BASES = frozenset({"mindspore.Callback", "mindspore._callback.Callback"})
#: methods that run before training starts (Model.train then sets training mode itself) or
#: once it is over: a mode switch there harms nothing
_NOT_DURING_TRAINING = frozenset({"__init__", "end", "on_train_end"})


#: an evaluation callback given the trained network; ``{hooks}`` are its methods
_EVAL_CALLBACK = """
    from mindspore.train.callback import Callback

    class EvalCallback(Callback):
        def __init__(self, net, ds):
            super().__init__()
            self.net = net
            self.ds = ds

        {hooks}
"""


def _eval_callback(hooks: str) -> str:
    return fill(_EVAL_CALLBACK, hooks=hooks)


class CallbackLeavesEvalMode(Rule):
    code = "MSA203"
    name = "callback-leaves-eval-mode"
    checklist = "api.02"
    severity = Severity.ERROR
    evidence = ('Resolved in the class: the `set_train(False)` target is the network the callback was handed (an '
                '`__init__` parameter, a Cell wrapped around one, or `run_context.original_args().train_network`), '
                'the hook is not `end`/`on_train_end`, and no method of the class switches back.')
    message = "callback switches the network to inference mode with set_train(False) and never back"
    what = ("Reports `set_train(False)` in a subclass of MindSpore's `Callback` (in any hook but "
            "`end`/`on_train_end`) when no method of the class calls `set_train()`/`set_train(True)`. "
            "Evaluating through `Model.eval` (which switches the mode back itself) is not reported.")
    why = ("An evaluation callback runs in the middle of `Model.train`. `Model.train` puts the network in "
           "training mode once and afterwards only re-sets it after its own `Model.eval` "
           "(it tracks the mode in `Model._backbone_is_train`, verified in 2.10's model.py), so a callback "
           "that calls `network.set_train(False)` itself leaves every later epoch training with Dropout "
           "off and BatchNorm frozen on its moving statistics. The loss still falls; the accuracy of the "
           "epochs after the first evaluation is what suffers.")
    example = """
        class EvalCallback(Callback):
            def epoch_end(self, run_context):
                self.net.set_train(False)
                acc = evaluate(self.net, self.ds)
    """
    use_instead = """
        class EvalCallback(Callback):
            def epoch_end(self, run_context):
                self.net.set_train(False)
                acc = evaluate(self.net, self.ds)
                self.net.set_train(True)
    """
    fix_safety = "No automatic fix: where training mode resumes is a choice."
    versions = "All MindSpore 1.x and 2.x releases (checked in 2.10's Model)."
    references = ("rules/api_defaults.toml, entry MS-MODE-01",
                  "https://github.com/mindspore-ai/models/blob/ff84c5a05ecf/official/nlp/tinybert/src/utils.py (the fix)")
    VALID = (
        Valid(_eval_callback("""
                def epoch_end(self, run_context):
                    self.net.set_train(False)
                    for x, y in self.ds:
                        self.net(x)
                    self.net.set_train(True)
        """), note="idiomatic: back to training mode after evaluating"),
        Valid(_eval_callback("""
                def on_train_epoch_end(self, run_context):
                    self.net.set_train(False)
                    self.evaluate()

                def on_train_epoch_begin(self, run_context):
                    self.net.set_train()
        """), note="switched back in another hook"),
        Valid("""
            import mindspore as ms
            from mindspore.train.callback import Callback

            class EvalCallback(Callback):
                def __init__(self, model, ds):
                    super().__init__()
                    self.model = model
                    self.ds = ds

                def epoch_end(self, run_context):
                    print(self.model.eval(self.ds))
        """, note="Model.eval switches the mode itself"),
        Valid(_eval_callback("""
                def on_train_end(self, run_context):
                    self.net.set_train(False)
                    export_model(self.net)
        """), note="after training has ended"),
        Valid("""
            import torch
            from keras.callbacks import Callback

            class EvalCallback(Callback):
                def on_epoch_end(self, epoch, logs=None):
                    self.model.set_train(False)
        """, note="a Keras callback of the same name"),
        Valid("""
            from mindspore.train.callback import Callback

            class EvalCallback(Callback):
                def __init__(self, cfg, train_net):
                    super().__init__()
                    self.train_net = train_net
                    self.eval_net = build_network(cfg, is_training=False)

                def on_train_epoch_end(self, run_context):
                    copy_weights(self.train_net, self.eval_net)
                    self.eval_net.set_train(False)
                    self.evaluate(self.eval_net)
        """, note="a network of its own, given the trained weights"),
        Valid("""
            from mindspore.train.callback import Callback

            class EvalCallback(Callback):
                def __init__(self, net, ds):
                    super().__init__()
                    self.net = net
                    self.net.set_train(False)
                    self.ds = ds

                def epoch_end(self, run_context):
                    self.evaluate(self.net)
        """, note="in __init__, before Model.train switches training mode on"),
    )
    INVALID = (
        Invalid(_eval_callback("""
                def epoch_end(self, run_context):
                    for x, y in self.ds.create_tuple_iterator():
                        self.net.set_train(False)  # MSA203
                        logits = self.net(x)
        """), note="a PyTorch-style eval hook (net.eval() ported as set_train(False); the torch loop would call net.train() at the top of the next epoch, Model.train does not)"),
        Invalid("""
            import mindspore as ms

            class Validate(ms.train.Callback):
                def on_train_epoch_end(self, run_context):
                    cb = run_context.original_args()
                    cb.train_network.set_train(mode=False)  # MSA203
                    self.score(cb.train_network)
        """),
        Invalid("""
            from mindspore import nn
            from mindspore.train.callback import Callback

            class EvalCallback(Callback):
                def __init__(self, net, loss, ds):
                    super().__init__()
                    self.eval_net = nn.WithEvalCell(net, loss)
                    self.ds = ds

                def epoch_end(self, run_context):
                    self.eval_net.set_train(False)  # MSA203
                    for x, y in self.ds:
                        self.eval_net(x, y)
        """, note="a wrapper around the trained network switches it too"),
    )

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        if not self._is_callback(node):
            return
        calls = _set_train_calls(node)
        if any(mode is not False for _, _, mode in calls):
            return
        info = cells(self.ctx).by_node.get(node)
        for method, call, _ in calls:
            if method in _NOT_DURING_TRAINING or info is None:
                continue
            if _received(self.ctx, call.func.value, info, info.methods[method]):
                self.report(call, "this callback runs during Model.train and switches the network to inference "
                            "mode with set_train(False), and nothing switches it back: every later epoch trains "
                            "with Dropout off and BatchNorm frozen; call set_train(True) after evaluating")
                return

    def _is_callback(self, node: cst.ClassDef, depth: int = 0) -> bool:
        for base in node.bases:
            resolved = self.ctx.imports.resolve(base.value)
            if resolved in CALLBACK_BASES:
                return True
            local = cells(self.ctx).classes.get(base.value.value) if isinstance(base.value, cst.Name) else None
            if local is not None and depth < 3 and local.node is not node and self._is_callback(local.node, depth + 1):
                return True
        return False


def _set_train_calls(node: cst.ClassDef) -> List[tuple]:
    """(method name, call, mode) for every ``<x>.set_train(...)`` in the class's methods."""
    found: List[tuple] = []

    class Finder(cst.CSTVisitor):
        def __init__(self, method: str) -> None:
            self.method = method

        def visit_Call(self, call: cst.Call) -> None:
            func = call.func
            if isinstance(func, cst.Attribute) and func.attr.value == "set_train":
                found.append((self.method, call, set_train_mode(call)))

    body = node.body.body if isinstance(node.body, cst.IndentedBlock) else ()
    for stmt in body:
        if isinstance(stmt, cst.FunctionDef):
            walk(stmt, Finder(stmt.name.value))
    return found


def _root(expr: cst.BaseExpression) -> Tuple[Optional[str], Optional[str]]:
    """(root name, first attribute) of ``a.b.c`` / ``a.b().c``: ``self.net`` -> (self, net)."""
    first = None
    while True:
        if isinstance(expr, cst.Call):
            expr = expr.func
        elif isinstance(expr, cst.Attribute):
            first = expr.attr.value
            expr = expr.value
        elif isinstance(expr, cst.Name):
            return expr.value, first
        else:
            return None, None


def _params(fn: cst.FunctionDef) -> Set[str]:
    return {p.name.value for p in (*fn.params.params, *fn.params.kwonly_params)} - {"self"}


def _received(ctx, receiver: cst.BaseExpression, info, method: cst.FunctionDef) -> bool:
    """Whether the cell switched is one the callback was handed (the network being trained,
    or a wrapper of it): a hook argument (``run_context.original_args().train_network``),
    or an attribute ``__init__`` set from one of its parameters (``self.net = net``,
    ``self.net = nn.WithEvalCell(net, loss)``). A network the callback builds itself is
    its own business."""
    root, attr = _root(receiver)
    if root is None:
        return False
    if root != "self":
        return root in _params(method) or _from_hook_argument(root, method)
    init = info.methods.get("__init__")
    if init is None or attr is None:
        return False
    values = [value for name, value in info.assigned if name == attr]
    return bool(values) and all(_from_parameter(ctx, v, _params(init)) for v in values)


def _from_parameter(ctx, value: cst.BaseExpression, params: Set[str]) -> bool:
    if isinstance(value, cst.Call):  # a Cell wrapped around it: WithEvalCell(net, loss), not build(cfg)
        callee = ctx.imports.resolve(value.func) or ""
        wrapper = callee.startswith("mindspore.") or (
            isinstance(value.func, cst.Name) and value.func.value in cells(ctx).classes)
        first = value.args[0].value if value.args and value.args[0].keyword is None else None
        return wrapper and first is not None and _from_parameter(ctx, first, params)
    root, _ = _root(value)
    return root in params


def _from_hook_argument(name: str, method: cst.FunctionDef) -> bool:
    """``cb = run_context.original_args()`` in the hook: ``cb`` comes from its argument."""
    params = _params(method)
    for stmt in method.body.body if isinstance(method.body, cst.IndentedBlock) else ():
        for small in stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ():
            if isinstance(small, cst.Assign) and any(isinstance(t.target, cst.Name) and t.target.value == name
                                                     for t in small.targets):
                return _root(small.value)[0] in params
    return False
