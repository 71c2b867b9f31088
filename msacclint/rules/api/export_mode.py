"""MSA206 (api.02, error): a network exported to MindIR/AIR while it is still in training mode."""

from __future__ import annotations

from typing import List, Optional, Tuple, Union

import libcst as cst

from msacclint.analysis.calls import argument, literal
from msacclint.analysis.mode_order import mode_at
from msacclint.analysis.train_modes import mode_cells_state, project_mode_state
from msacclint.diagnostics import Severity
from msacclint.rules.base import Invalid, Valid
from msacclint.rules.examples import fill
from msacclint.rules.fixtures.nets import cell
from msacclint.rules.function_rule import InFunctionRule

EXPORT = "mindspore.export"

_NET = cell("Net", init="self.fc = nn.Dense(4, 2)\nself.drop = nn.Dropout(p=0.2)",
            construct="return self.drop(self.fc(x))")
_PLAIN = cell("Net", init="self.fc = nn.Dense(4, 2)", construct="return self.fc(x)")

_SCRIPT = """
    import numpy as np
    import mindspore as ms
    from mindspore import nn

    {net}

    def main(dataset):
        net = Net()
        loss_fn = nn.MSELoss()
        opt = nn.SGD(net.trainable_params(), learning_rate=0.01)
        {body}
"""

_LOOP = """
grad_fn = ms.value_and_grad(lambda x, y: loss_fn(net(x), y), None, opt.parameters)
net.set_train()
for x, y in dataset.create_tuple_iterator():
    loss, grads = grad_fn(x, y)
    opt(grads)
"""


def _script(body: str, net: str = _NET) -> str:
    return fill(_SCRIPT, net=net, body=body)


class ExportInTrainingMode(InFunctionRule):
    code = "MSA206"
    name = "export-in-training-mode"
    checklist = "api.02"
    severity = Severity.ERROR
    group = "nursery"
    message = ("the network is exported while still in training mode: Dropout and BatchNorm are exported as they "
               "behave in training")
    evidence = ("`mindspore.export(net, ...)` with `net` a name of the function, file_format not 'ONNX' (export "
                "switches a training network to inference mode for ONNX only), and the last mode-setting event on "
                "`net` before the export in the same function puts it in training mode: `net.set_train()`/"
                "`set_train(True)`, `set_train()` on a cell built around `net` (a TrainOneStepCell), or "
                "`Model(net, ...).train(...)`. Error when that event is unconditional, the format is a literal, "
                "and the network's class (in the file or through the project) holds BatchNorm or Dropout; a "
                "warning naming what was assumed when the format is not a literal, the event is in a branch, "
                "`Model.train` has callbacks that may evaluate, or the network's layers cannot be resolved. "
                "Silent when `net` is handed, after the event, to a call that is not a MindSpore API known to leave "
                "the mode alone (it may switch the mode), when it is rebound, and when its class visibly holds "
                "no BatchNorm or Dropout.")
    what = ("Reports `mindspore.export(net, ...)` (MindIR or AIR) when the function last put `net` in training "
            "mode — `net.set_train()`, `set_train()` on the training wrapper around it, or `Model.train` — "
            "and never switched it back with `set_train(False)` before exporting.")
    why = ("`export` compiles the network in the mode it is in. For MindIR and AIR it does not switch to "
           "inference (only ONNX export does): a network left in training mode after the last epoch is "
           "exported with Dropout dropping activations and BatchNorm normalising with the statistics of each "
           "inference batch instead of its moving averages. The exported model's accuracy is below the one "
           "measured in evaluation, with no error anywhere.")
    example = """
        net.set_train()
        for x, y in dataset.create_tuple_iterator():
            opt(grad_fn(x, y)[1])
        ms.export(net, ms.Tensor(inputs), file_name="net", file_format="MINDIR")
    """
    use_instead = """
        net.set_train()
        for x, y in dataset.create_tuple_iterator():
            opt(grad_fn(x, y)[1])
        net.set_train(False)
        ms.export(net, ms.Tensor(inputs), file_name="net", file_format="MINDIR")
    """
    fix_safety = "No automatic fix: the call belongs before the export, but the network may be trained again after it."
    versions = ("All MindSpore 1.x and 2.x releases: `export` switches the mode only for ONNX "
                "(mindspore/train/serialization.py, `_export`).")
    references = ("https://www.mindspore.cn/docs/en/master/api_python/mindspore/mindspore.export.html",)
    resolved_calls = frozenset({EXPORT})

    VALID = (
        Valid(_script(_LOOP + """
net.set_train(False)
ms.export(net, ms.Tensor(np.zeros((1, 4), np.float32)), file_name="net", file_format="MINDIR")
"""), note="idiomatic: back to inference mode before exporting"),
        Valid(_script(_LOOP + """
ms.export(net, ms.Tensor(np.zeros((1, 4), np.float32)), file_name="net", file_format="ONNX")
"""), note="ONNX export switches a training network to inference mode itself"),
        Valid(_script(_LOOP + """
evaluate(net, dataset)
ms.export(net, ms.Tensor(np.zeros((1, 4), np.float32)), file_name="net", file_format="MINDIR")
"""), note="handed to a function that may set the mode: not known here"),
        Valid(_script(_LOOP + """
ms.export(net, ms.Tensor(np.zeros((1, 4), np.float32)), file_name="net", file_format="MINDIR")
""", net=_PLAIN), note="the network holds no Dropout or BatchNorm: the mode changes nothing"),
        Valid(_script(_LOOP + """
net = Net()
ms.load_param_into_net(net, ms.load_checkpoint("net.ckpt"))
ms.export(net, ms.Tensor(np.zeros((1, 4), np.float32)), file_name="net", file_format="MINDIR")
"""), note="a fresh network starts in inference mode"),
        Valid("""
            import torch
            net = torch.nn.Sequential(torch.nn.Linear(4, 2), torch.nn.Dropout(0.2))
            net.train()
            torch.onnx.export(net, torch.zeros(1, 4), "net.onnx")
        """, note="PyTorch's export, not MindSpore's"),
        Valid(_script("""
model = ms.Model(net, loss_fn, opt)
model.train(10, dataset)
model.eval(dataset)
ms.export(net, ms.Tensor(np.zeros((1, 4), np.float32)), file_name="net", file_format="MINDIR")
"""), note="Model.eval switches the network to inference mode"),
        Valid(_script(_LOOP + """
if evaluate_first:
    net.set_train(False)
ms.export(net, ms.Tensor(np.zeros((1, 4), np.float32)), file_name="net", file_format="MINDIR")
"""), note="switched to inference in a branch: the mode at the export is not known"),
        Valid(_script("""
from mindspore.train.serialization import export
step = nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn), opt)
step.set_train()
step(*next(dataset.create_tuple_iterator()))
step.set_train(False)
export(net, ms.Tensor(np.zeros((1, 4), np.float32)), file_name="net", file_format="MINDIR")
"""), note="the wrapper's set_train(False) reaches the network it holds"),
    )
    INVALID = (
        Invalid(_script(_LOOP + """
ms.export(net, ms.Tensor(np.zeros((1, 4), np.float32)), file_name="net", file_format="MINDIR")  # MSA206
"""), note="the custom loop's set_train() is still in force"),
        Invalid(_script("""
model = ms.Model(net, loss_fn, opt)
model.train(10, dataset, callbacks=[ms.train.LossMonitor()])
ms.export(net, ms.Tensor(np.zeros((1, 4), np.float32)), file_name="net", file_format="AIR")  # MSA206
"""), note="Model.train leaves its network in training mode"),
        Invalid(_script("""
step = nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn), opt)
step.set_train()
for x, y in dataset.create_tuple_iterator():
    step(x, y)
ms.export(net, ms.Tensor(np.zeros((1, 4), np.float32)), file_name="net", file_format=FORMAT)  # MSA206
"""), note="set_train on the wrapper reaches the network; the format is not a literal (warning)"),
        Invalid(files={
            "src/__init__.py": "",
            "src/model.py": fill("""
                from mindspore import nn

                {net}
            """, net=cell("Net", init="self.fc = nn.Dense(4, 2)\nself.bn = nn.BatchNorm1d(2)",
                          construct="return self.bn(self.fc(x))")),
            "export.py": """
                import numpy as np
                import mindspore as ms
                from mindspore import nn
                from src.model import Net

                net = Net()
                opt = nn.Momentum(net.trainable_params(), 0.01, 0.9)
                model = ms.Model(net, nn.MSELoss(), opt)
                model.train(1, ms.dataset.NumpySlicesDataset((np.zeros((8, 4), np.float32),
                                                              np.zeros((8, 2), np.float32))))
                ms.export(net, ms.Tensor(np.zeros((1, 4), np.float32)), file_name="n", file_format="MINDIR")  # MSA206
            """,
        }, note="the network's BatchNorm is in another file of the project"),
        Invalid("""
            import numpy as np
            import mindspore as ms
            from mindspore import nn

            if __name__ == "__main__":
                net = nn.SequentialCell([nn.Dense(4, 2), nn.BatchNorm1d(2)])
                loss_fn = nn.MSELoss()
                opt = nn.SGD(net.trainable_params())
                grad_fn = ms.value_and_grad(lambda x, y: loss_fn(net(x), y), None, opt.parameters)
                net.set_train()
                for x, y in ms.dataset.NumpySlicesDataset((np.zeros((8, 4), np.float32),
                                                           np.zeros((8, 2), np.float32))).batch(4):
                    opt(grad_fn(x, y)[1])
                ms.export(net, ms.Tensor(np.zeros((1, 4), np.float32)), file_name="n", file_format="MINDIR")  # MSA206
        """, note="a script's main block: the branch holds the export too (the layers are not a class: warning)"),
    )

    def visit_Module(self, node: cst.Module) -> None:
        self._module = node

    def visit_resolved_call(self, node: cst.Call, callee: str) -> None:
        net = argument(node, "net", ("net",))
        if net is None or not isinstance(net.value, cst.Name):
            return
        fmt = argument(node, "file_format", ())
        if fmt is None and len(node.args) >= 3 and node.args[-1].keyword is None:
            fmt = None  # 1.x positional formats: not told apart from inputs
        fmt_value = literal(fmt.value) if fmt is not None else None
        if isinstance(fmt_value, str) and fmt_value.upper() == "ONNX":
            return
        scope: Union[cst.FunctionDef, cst.Module, None] = self.scope or getattr(self, "_module", None)
        if scope is None:
            return
        name = net.value.value
        state = mode_at(self.ctx, scope, name, node)
        if not state.state:
            return
        assumed: List[str] = []
        if state.assumed:
            assumed.append(state.assumed)
        if not isinstance(fmt_value, str):
            assumed.append("the file format is not ONNX")
        holds = self._holds_mode_layers(scope, name, node)
        if holds is False:
            return
        if holds is None:
            assumed.append("the network holds Dropout or BatchNorm")
        message = self.message
        if assumed:
            message += " (assumed: " + "; ".join(assumed) + ")"
        self.report(node, message, severity=Severity.WARNING if assumed else None)

    def _holds_mode_layers(self, scope: Union[cst.FunctionDef, cst.Module], name: str,
                           before: cst.Call) -> Optional[bool]:
        """Whether the class the network was built from holds BatchNorm/Dropout (None: unknown)."""
        built = _built_from(scope, name)
        if built is None:
            return None
        if isinstance(built, cst.Name):
            state = mode_cells_state(self.ctx, built.value)
            if state is not None:
                return state
        return project_mode_state(self.ctx, built)


def _built_from(scope: Union[cst.FunctionDef, cst.Module], name: str) -> Optional[cst.BaseExpression]:
    """The callee of the one ``name = Callee(...)`` of the scope (None: several or none)."""
    found: List[Tuple[cst.BaseExpression]] = []
    body = scope.body if isinstance(scope, cst.Module) else scope.body.body
    stack: List[cst.CSTNode] = list(body)
    while stack:
        current = stack.pop()
        if isinstance(current, (cst.FunctionDef, cst.ClassDef)):
            continue
        if isinstance(current, cst.Assign) and isinstance(current.value, cst.Call) and any(
                isinstance(t.target, cst.Name) and t.target.value == name for t in current.targets):
            found.append((current.value.func,))
        stack.extend(current.children)
    callees = {cst.Module(body=()).code_for_node(f[0]) for f in found}
    return found[0][0] if len(callees) == 1 else None
