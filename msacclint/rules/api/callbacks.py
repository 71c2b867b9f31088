"""api.02: a training callback that switches the network to inference mode and leaves it
there (MS-MODE-01).

- MSA203 (error): a ``Callback`` subclass calls ``set_train(False)`` during training and
  nothing in it switches training mode back on.
"""

from __future__ import annotations

import os
from typing import Dict, List, Optional, Set, Tuple

import libcst as cst

from msacclint.analysis.cells import cells
from msacclint.analysis.training import set_train_mode
from msacclint.analysis.walk import walk
from msacclint.diagnostics import Severity
from msacclint.rules.base import Invalid, Rule, Valid
from msacclint.rules.examples import fill

#: the public spellings the import table resolves MindSpore's Callback base to
CALLBACK_BASES = frozenset({"mindspore.Callback", "mindspore._callback.Callback"})
#: MindSpore's own callbacks: a subclass of one is a callback too
BUILTIN_CALLBACKS = frozenset({"TimeMonitor", "LossMonitor", "ModelCheckpoint", "SummaryCollector", "EarlyStopping",
                               "ReduceLROnPlateau", "History", "LambdaCallback", "OnRequestExit",
                               "BackupAndRestore"})
#: methods that run before training starts (Model.train then sets training mode itself) or
#: once it is over: a mode switch there harms nothing
_NOT_DURING_TRAINING = frozenset({"__init__", "end", "on_train_end"})


#: a callback given what ``__init__`` keeps (``{init}``, from ``{params}``); ``{hooks}`` are its
#: other methods, ``{after}`` the code after the class
_CALLBACK = """
    {imports}

    class {cls}({base}):
        def __init__(self, {params}):
            super().__init__()
            {init}

        {hooks}

    {after}
"""
_IMPORT_CALLBACK = "from mindspore.train.callback import Callback"
#: the usual evaluation callback's __init__: it keeps the trained network and the dataset
_KEEPS_NET = """
    self.net = net
    self.ds = ds
"""


def _callback(hooks: str, imports: str = _IMPORT_CALLBACK, cls: str = "EvalCallback", base: str = "Callback",
              params: str = "net, ds", init: str = _KEEPS_NET, after: str = "") -> str:
    return fill(_CALLBACK, imports=imports, cls=cls, base=base, params=params, init=init, hooks=hooks, after=after)


#: multi-file examples: a callback handed the network by an entry script, and the network
_MMOE_HOOK = """
    def epoch_end(self, run_context):
        self.net.set_train(False){mark}
        for x, y in self.ds.create_tuple_iterator():
            self.net(x)
"""


def _mmoe_callback(mark: str) -> str:
    return _callback(fill(_MMOE_HOOK, mark=mark), cls="EvalCallBack")


_MMOE_NET = """
    import mindspore.nn as nn
    import mindspore.ops as ops

    class MMoE(nn.Cell):
        def __init__(self, dim):
            super().__init__()
            self.experts = nn.Dense(dim, dim)
            self.gate = nn.Dense(dim, 2)
            {drop}

        def construct(self, x):
            return ops.softmax(self.gate(x)) * {apply}
"""
_MMOE_TRAIN = """
    import mindspore as ms
    from src.callback import EvalCallBack
    from src.mmoe import MMoE

    def main(ds, eval_ds):
        net = MMoE(16)
        model = ms.Model(net, ms.nn.MSELoss(), ms.nn.Adam(net.trainable_params()))
        model.train(10, ds, callbacks=[EvalCallBack(net, eval_ds)]{sink})
"""


def _mmoe_train(sink: str = "") -> str:
    return fill(_MMOE_TRAIN, sink=sink)


_LSTM_NET = """
    import mindspore.nn as nn

    class LstmCRF(nn.Cell):
        def __init__(self, vocab, tags, is_training=True):
            super().__init__()
            self.embedding = nn.Embedding(vocab, 64)
            self.fc = nn.Dense(64, tags)
            self.is_training = is_training

        def construct(self, x, y):
            emissions = self.fc(self.embedding(x))
            {construct}
"""
_LSTM_BRANCHES = """
    if self.is_training:
        return self.crf_loss(emissions, y)
    return self.decode(emissions)
"""
_LSTM_HOOK = """
    def epoch_end(self, run_context):
        self.network.is_training = False{mark}
        for x, y in self.ds.create_tuple_iterator():
            self.network(x, y)
        {back}
"""
_LSTM_MAIN = """
    def main(ds, eval_ds):
        network = LstmCRF(1000, 9)
        model = ms.Model(network, optimizer=ms.nn.Adam(network.trainable_params()))
        model.train(10, ds, callbacks=[EvalCallBack(network, eval_ds)])
"""


def _lstm_train(mark: str, back: str) -> str:
    """An entry script whose TimeMonitor subclass switches the network's own is_training flag off."""
    return _callback(fill(_LSTM_HOOK, mark=mark, back=back), cls="EvalCallBack", base="TimeMonitor",
                     imports="""
                         import mindspore as ms
                         from mindspore.train.callback import TimeMonitor
                         from src.lstm_crf import LstmCRF
                     """, params="network, ds", init="""
                         self.network = network
                         self.ds = ds
                     """, after=_LSTM_MAIN)


def _mmoe_project(mark: str, dropout: bool = True, sink: str = "") -> Dict[str, str]:
    """An entry script handing an MMoE network (with a Dropout or none) to the callback of src/."""
    drop, apply = ("self.drop = nn.Dropout(p=0.2)", "self.drop(self.experts(x))") if dropout \
        else ("", "self.experts(x)")
    return {"src/__init__.py": "", "src/callback.py": _mmoe_callback(mark),
            "src/mmoe.py": fill(_MMOE_NET, drop=drop, apply=apply), "train.py": _mmoe_train(sink)}


def _lstm_project(construct: str, mark: str = "", back: str = "") -> Dict[str, str]:
    """The LstmCRF network of src/ (``construct``'s end) and the entry script training it."""
    return {"src/__init__.py": "", "src/lstm_crf.py": fill(_LSTM_NET, construct=construct),
            "train.py": _lstm_train(mark, back)}


class CallbackLeavesEvalMode(Rule):
    code = "MSA203"
    name = "callback-leaves-eval-mode"
    checklist = "api.02"
    severity = Severity.ERROR
    group = "correctness"
    evidence = ('Resolved in the class: the `set_train(False)` target is the network the callback was handed (an '
                '`__init__` parameter, a Cell wrapped around one, or `run_context.original_args().train_network`), '
                'the hook is not `end`/`on_train_end`, and no method of the class switches back. When every file that '
                'builds the callback trains with `dataset_sink_mode=True` (resolved), the finding is a warning: Model '
                'then sets training mode again at each epoch on Ascend/GPU in graph mode.')
    message = "callback switches the network to inference mode with set_train(False) and never back"
    what = ("Reports `set_train(False)` in a subclass of MindSpore's `Callback` (in any hook but "
            "`end`/`on_train_end`) when no method of the class calls `set_train()`/`set_train(True)`. "
            "Evaluating through `Model.eval` (which switches the mode back itself) is not reported.")
    why = ("An evaluation callback runs in the middle of `Model.train`. `Model.train` puts the network in "
           "training mode once and afterwards only re-sets it after its own `Model.eval` "
           "(it tracks the mode in `Model._backbone_is_train`, verified in 2.10's model.py; in dataset sink mode, "
           "which runs only on Ascend/GPU in graph mode, `_exec_preprocess` calls `set_train(True)` at every "
           "epoch's start instead), so without sink mode a callback "
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
        Valid(_callback("""
                def epoch_end(self, run_context):
                    self.net.set_train(False)
                    for x, y in self.ds:
                        self.net(x)
                    self.net.set_train(True)
        """), note="idiomatic: back to training mode after evaluating"),
        Valid(_callback("""
                def on_train_epoch_end(self, run_context):
                    self.net.set_train(False)
                    self.evaluate()

                def on_train_epoch_begin(self, run_context):
                    self.net.set_train()
        """), note="switched back in another hook"),
        Valid(_callback("""
            def epoch_end(self, run_context):
                print(self.model.eval(self.ds))
        """, imports="import mindspore as ms\n" + _IMPORT_CALLBACK, params="model, ds", init="""
            self.model = model
            self.ds = ds
        """), note="Model.eval switches the mode itself"),
        Valid(_callback("""
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
        Valid(_callback("""
            def on_train_epoch_end(self, run_context):
                copy_weights(self.train_net, self.eval_net)
                self.eval_net.set_train(False)
                self.evaluate(self.eval_net)
        """, params="cfg, train_net", init="""
            self.train_net = train_net
            self.eval_net = build_network(cfg, is_training=False)
        """), note="a network of its own, given the trained weights"),
        Valid(_callback("""
            def epoch_end(self, run_context):
                self.evaluate(self.net)
        """, init="""
            self.net = net
            self.net.set_train(False)
            self.ds = ds
        """), note="in __init__, before Model.train switches training mode on"),
        Valid(files=_mmoe_project("", dropout=False),
            note="the only network the project hands the callback has no Dropout, BatchNorm or self.training read (another file): the mode changes nothing"),
        Valid(files=_lstm_project(_LSTM_BRANCHES, back="self.network.is_training = True"),
            note="the flag is set back after evaluating"),
        Valid(files=_lstm_project("return self.crf_loss(emissions, y)"),
            note="the nearest look-alike: the network stores the flag but never branches on it"),
    )
    INVALID = (
        Invalid(files=_lstm_project(_LSTM_BRANCHES, mark="  # MSA203"),
            note="the network's own is_training flag (another file) switched off in a subclass of MindSpore's TimeMonitor"),
        Invalid(files=_mmoe_project("  # MSA203"),
            note="the nearest look-alike: the network handed to it has a Dropout"),
        Invalid(files=_mmoe_project("  # MSA203", sink=", dataset_sink_mode=True"),
            severity=Severity.WARNING, message_contains="assumed to run without dataset sink mode",
            note="trained in dataset sink mode: Model sets training mode again at each epoch on Ascend/GPU in graph "
                 "mode, so the switch lasts only on CPU or in PyNative mode: a warning that says so"),
        Invalid(files=_mmoe_project("  # MSA203", sink=", dataset_sink_mode=False"),
            severity=Severity.ERROR, note="sink mode off, as Model.train's default: an error"),
        Invalid(_callback("""
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
        Invalid(_callback("""
            def epoch_end(self, run_context):
                self.eval_net.set_train(False)  # MSA203
                for x, y in self.ds:
                    self.eval_net(x, y)
        """, imports="from mindspore import nn\n" + _IMPORT_CALLBACK, params="net, loss, ds", init="""
            self.eval_net = nn.WithEvalCell(net, loss)
            self.ds = ds
        """), note="a wrapper around the trained network switches it too"),
    )

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        if not self._is_callback(node):
            return
        self._flags_switched_off(node)
        calls = _set_train_calls(node)
        if any(mode is not False for _, _, mode in calls):
            return
        info = cells(self.ctx).by_node.get(node)
        for method, call, _ in calls:
            if method in _NOT_DURING_TRAINING or info is None:
                continue
            if _received(self.ctx, call.func.value, info, info.methods[method]):
                if self._handed_network_is_mode_free(node, call.func.value, info):
                    continue
                message = ("this callback runs during Model.train and switches the network to inference "
                           "mode with set_train(False), and nothing switches it back: every later epoch trains "
                           "with Dropout off and BatchNorm frozen; call set_train(True) after evaluating")
                sink = self._trained_in_sink_mode(node)
                if sink is not None:
                    self.report(call, message + f" (assumed to run without dataset sink mode: {sink[0]}:{sink[1]} "
                                "trains with dataset_sink_mode=True, where Model puts the network back in training "
                                "mode at the start of every epoch on Ascend/GPU in graph mode; the callback's switch "
                                "lasts only where sink mode is off, on CPU or in PyNative mode)",
                                severity=Severity.WARNING, related=[(sink[0], sink[1], "Model.train(..., "
                                                                     "dataset_sink_mode=True)")])
                    return
                self.report(call, message)
                return

    def _flags_switched_off(self, node: cst.ClassDef) -> None:
        """``self.network.is_training = False`` in a hook, never set back by the class, where
        the project resolves the network handed in to a class whose ``__init__`` sets that
        attribute to True (a literal or a parameter defaulting to True): the network's own
        training flag, on which one of its methods branches (``if self.is_training:``) instead
        of reading Cell.training."""
        project = self.ctx.project
        info = cells(self.ctx).by_node.get(node)
        init = info.methods.get("__init__") if info is not None else None
        if project is None or init is None:
            return
        offs, backs = _flag_assignments(node)
        for method, target, flag in offs:
            if method in _NOT_DURING_TRAINING or flag in backs:
                continue
            root, attr = _root(target.value)
            if root != "self" or attr is None or not _received(self.ctx, target.value, info, info.methods[method]):
                continue
            for path, callee, _line in self._networks_handed(node, info, attr) or ():
                found = project.resolve_class(path, callee)
                if found is None or not _flag_defaults_true(found[1], flag):
                    continue
                shown = project.display(found[0])
                self.report(target, f"this callback runs during Model.train and sets the network's own training flag "
                            f"`{flag}` to False, and nothing sets it back: {found[1].name} ({shown}:{found[1].line}) "
                            f"starts with {flag}=True, so every later epoch trains in its inference branch; set it "
                            f"back to True after evaluating",
                            related=[(shown, found[1].line, f"{found[1].name} sets self.{flag} in __init__")])
                return

    def _trained_in_sink_mode(self, node: cst.ClassDef) -> Optional[Tuple[str, int]]:
        """With the project layer: every file that builds this callback trains with
        ``Model.train(..., dataset_sink_mode=True)`` (each such call's value resolved to True).
        In sink mode Model's ``_exec_preprocess`` calls ``set_train(True)`` on the training
        network at each epoch (MindSpore 2.10, mindspore/train/model.py), undoing the
        callback's switch where sink mode is in effect. (file, line) of one such call, or None."""
        project = self.ctx.project
        if project is None:
            return None
        seen = None
        sites = 0
        for site, summary, _call, _cls, _func in project.call_sites(os.path.abspath(self.ctx.path), node.name.value):
            sites += 1
            trains = [c for c in summary.calls + [c for f in summary.functions.values() for c in f.calls]
                      if c.callee.endswith(".train") and (len(c.args) >= 2 or "dataset_sink_mode" in c.kwargs)]
            if not trains:
                return None
            for train in trains:
                expr = train.kwargs.get("dataset_sink_mode") or (train.args[3] if len(train.args) > 3 else None)
                values = project.values(site, expr) if expr is not None else None
                if not values or any(v.value is not True for v in values):
                    return None
                seen = seen or (project.display(site), train.line)
        return seen if sites else None

    def _handed_network_is_mode_free(self, node: cst.ClassDef, receiver: cst.BaseExpression, info) -> bool:
        """With the project layer: every place in the project that builds this callback hands
        it a network whose class is resolved and has no mode-dependent layer (no Dropout with
        a non-zero rate, no BatchNorm on moving statistics, nothing reading ``self.training``
        — in the class, its bases or the Cells it builds): the mode switch changes nothing."""
        project = self.ctx.project
        root, attr = _root(receiver)
        if project is None or root != "self" or attr is None:
            return False
        built = self._networks_handed(node, info, attr)
        if not built:
            return False
        return all(project.mode_dependence(path, callee)[0] is False for path, callee, _line in built)

    def _networks_handed(self, node: cst.ClassDef, info, attr: str):
        """What every place in the project that builds this callback passes for the ``__init__``
        parameter that ``self.<attr>`` is set from: [(file, class as written there, line)], or
        None when that parameter, or any value passed for it, is not resolved."""
        init = info.methods.get("__init__")
        if self.ctx.project is None or init is None:
            return None
        handed = {name for value in (v for n, v in info.assigned if n == attr)
                  for name in [_parameter_of(self.ctx, value, _params(init))] if name is not None}
        if len(handed) != 1:
            return None
        return self.ctx.project.argument_classes(os.path.abspath(self.ctx.path), node.name.value, handed.pop())

    def _is_callback(self, node: cst.ClassDef, depth: int = 0) -> bool:
        for base in node.bases:
            resolved = self.ctx.imports.resolve(base.value)
            if resolved in CALLBACK_BASES or (resolved is not None and resolved.startswith("mindspore.")
                                              and resolved.rsplit(".", 1)[-1] in BUILTIN_CALLBACKS):
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


def _flag_assignments(node: cst.ClassDef) -> Tuple[List[tuple], Set[str]]:
    """(method, target, flag) of every ``<x>.<flag> = False`` in the class's methods, and
    the flags any method assigns something else (switching them back)."""
    offs: List[tuple] = []
    backs: Set[str] = set()
    for stmt in node.body.body if isinstance(node.body, cst.IndentedBlock) else ():
        if not isinstance(stmt, cst.FunctionDef):
            continue

        class Finder(cst.CSTVisitor):
            def __init__(self, method: str) -> None:
                self.method = method

            def visit_Assign(self, assign: cst.Assign) -> None:
                for target in assign.targets:
                    t = target.target
                    if isinstance(t, cst.Attribute) and isinstance(t.value, cst.Attribute):
                        off = isinstance(assign.value, cst.Name) and assign.value.value == "False"
                        if off:
                            offs.append((self.method, t, t.attr.value))
                        else:
                            backs.add(t.attr.value)

        walk(stmt, Finder(stmt.name.value))
    return offs, backs


def _flag_defaults_true(cls, flag: str) -> bool:
    """The class starts with ``self.<flag>`` True and one of its methods branches on it."""
    if flag not in cls.tested:
        return False
    value = cls.attrs.get(flag)
    if value == ("lit", True):
        return True
    if value is not None and value[0] == "param":
        return dict(cls.params).get(value[1]) == ("lit", True)
    return False


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


def _parameter_of(ctx, value: cst.BaseExpression, params: Set[str]) -> Optional[str]:
    """The ``__init__`` parameter an attribute's value comes from (``net`` for ``self.net =
    net`` and for ``self.net = nn.WithEvalCell(net, loss)``), or None."""
    if not _from_parameter(ctx, value, params):
        return None
    while isinstance(value, cst.Call):
        value = value.args[0].value
    root, _ = _root(value)
    return root


def _from_hook_argument(name: str, method: cst.FunctionDef) -> bool:
    """``cb = run_context.original_args()`` in the hook: ``cb`` comes from its argument."""
    params = _params(method)
    for stmt in method.body.body if isinstance(method.body, cst.IndentedBlock) else ():
        for small in stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ():
            if isinstance(small, cst.Assign) and any(isinstance(t.target, cst.Name) and t.target.value == name
                                                     for t in small.targets):
                return _root(small.value)[0] in params
    return False
