"""wi.02 in evaluation and export: a renamed, filtered or converted checkpoint loaded unchecked.

- MSA510 (wi.02): in a script that evaluates or exports (it does not train, or the load sits
  in a function named for evaluation), ``load_param_into_net(net, d)`` whose result is not
  checked, when ``d`` was renamed, filtered or converted on the way (a comprehension or a
  loop over a loaded checkpoint that changes the keys, ``pop``/``del`` on it, a
  ``convert``/``rename``/``filter``/``torch`` helper): the names that no longer match are
  skipped without an error and the evaluation measures random weights.
"""

from __future__ import annotations

import re
from typing import Optional

import libcst as cst

from msacclint.analysis.calls import argument, literal
from msacclint.analysis.facts import facts
from msacclint.analysis.scopes import says_eval
from msacclint.analysis.training import training
from msacclint.diagnostics import Severity
from msacclint.rules.base import Invalid, Valid
from msacclint.rules.examples import dedent
from msacclint.rules.fixtures.mpwi import SWAP_IN_EMA
from msacclint.rules.wi.checkpoint_load import LOAD_INTO_NET, UncheckedCheckpointLoad, code_of

_HELPER = re.compile(r"convert|rename|filter|map_|_map|remap|torch|pth|strip|remove|adapt", re.IGNORECASE)
_HDR = """
    import mindspore as ms
    from mindspore import nn
    """


def _h(body: str) -> str:
    return dedent(_HDR) + dedent(body)


class UncheckedConvertedLoadInEval(UncheckedCheckpointLoad):
    code = "MSA510"
    name = "unchecked-converted-checkpoint-in-eval"
    checklist = "wi.02"
    severity = Severity.WARNING
    group = "review"
    #: off by default: 12 of 16 findings true (75 %) on the tuning and evaluation repositories
    message = "a renamed/filtered/converted checkpoint is loaded for evaluation without checking what was not loaded"
    what = ("Reports, in an evaluation or export script (a file that does not train and evaluates or exports: "
            "named eval/export/infer/predict/test, or calling `mindspore.export`, a `.eval(...)` method or "
            "`set_train(False)`; or a function named for evaluation in any file), `load_param_into_net(net, d)` whose result is discarded when `d` was renamed, filtered "
            "or converted in the same function: built by a comprehension or a loop over a dict that changes the "
            "keys, shrunk with `pop`/`del`, or returned by a helper named for converting (`convert_*`, "
            "`rename_*`, `filter_*`, `*torch*`, `*pth*`). MSA506 covers the loads a training run starts from. "
            "Off by default: on the tuning and evaluation repositories 10 of its 13 findings were the pattern it "
            "describes (keys renamed, e.g. 'rnn' -> 'RNN' or a 'network.' prefix, then an unchecked load in "
            "eval.py/export.py); 3 deleted metadata keys such as 'input_resolution' (CLIP), which cannot miss a "
            "parameter (77 %, below the 80 % a default-on warning needs). A second check on the four tuning "
            "repositories of bench/field/protocol.toml (2026-11-26): 2 of 3 true, the third CLIP's metadata keys "
            "again; 12 of 16 in all (75 %).")
    why = ("`load_param_into_net` never raises on missing or unexpected names (strict_load included; checked on "
           "2.10). Renaming keys on the way (removing a 'module.' prefix, mapping PyTorch's weight/bias or "
           "running_mean to gamma/beta or moving_mean) is exactly where names stop matching: the parameters "
           "that miss keep their random initial values, and the evaluation or the exported model reports the "
           "accuracy of a partly random network - often read as 'the port loses N points'.")
    example = _h("""
    param_dict = ms.load_checkpoint(args.ckpt)
    param_dict = {k.replace("module.", ""): v for k, v in param_dict.items()}
    ms.load_param_into_net(net, param_dict)  # MSA510
    model = ms.Model(net, metrics={"acc"})
    print(model.eval(eval_ds))
    """)
    use_instead = _h("""
    param_dict = ms.load_checkpoint(args.ckpt)
    param_dict = {k.replace("module.", ""): v for k, v in param_dict.items()}
    not_loaded, _ = ms.load_param_into_net(net, param_dict)
    assert not not_loaded, not_loaded
    model = ms.Model(net, metrics={"acc"})
    print(model.eval(eval_ds))
    """)
    fix_safety = "No automatic fix."
    versions = "2.x returns (param_not_load, ckpt_not_load); verified on 2.10."
    VALID = (
        Valid(use_instead, note="idiomatic: the result checked"),
        Valid(_h("""
            def resnet50(pretrained=False):
                net = ResNet()
                if pretrained:
                    ms.load_param_into_net(net, remove_fc(ms.load_checkpoint(URL)))
                return net
            """), path="src/resnet.py", note="a model library: pretrained weights for training (MSA506's domain)"),
        Valid(_h("""
            ms.load_param_into_net(net, ms.load_checkpoint(args.ckpt))
            print(ms.Model(net, metrics={"acc"}).eval(eval_ds))
            """), note="the checkpoint as saved by MindSpore: names unchanged"),
        Valid(_h(SWAP_IN_EMA), note="a dict built from the network's own names (EMA swap)"),
        Valid("""
            import torch
            state = {k.replace("module.", ""): v for k, v in torch.load("m.pt").items()}
            model.load_state_dict(state)
            """, note="PyTorch: load_state_dict raises by default"),
    )
    INVALID = (
        Invalid(example, note="a DataParallel prefix removed on the way"),
        Invalid(_h("""
            from tools.convert import convert_torch_state

            def export_air(net, path):
                params = convert_torch_state(path)
                ms.load_param_into_net(net, params)  # MSA510
                ms.export(net, ms.Tensor(x), file_name="model", file_format="AIR")
            """), note="an export of a converted PyTorch checkpoint"),
        Invalid(_h("""
            param_dict = ms.load_checkpoint(args.ckpt)
            for key in list(param_dict):
                if key.startswith("head."):
                    param_dict.pop(key)
            _ = ms.load_param_into_net(net, param_dict)  # MSA510
            """), path="eval.py", note="filtered, then loaded unchecked, in eval.py"),
    )

    def _in_evaluation(self) -> bool:
        return False  # every load is looked at; finish() keeps the evaluation ones

    def visit_Call(self, node: cst.Call) -> None:
        return None  # load_checkpoint(path, net) is MSA506's

    def _is_load(self, value: cst.BaseExpression) -> bool:
        if not (isinstance(value, cst.Call) and self.ctx.resolve(value.func) == LOAD_INTO_NET):
            return False
        params = argument(value, "parameter_dict", ("net", "parameter_dict"))
        return params is not None and self._transformed(params.value) is not None

    def _scope_text(self) -> str:
        return code_of(self._functions[-1]) if self._functions else self.ctx.source

    def _transformed(self, expr: cst.BaseExpression) -> Optional[str]:
        """How the dict was changed on the way, or None."""
        if isinstance(expr, cst.Call):
            return "converted" if _HELPER.search(code_of(expr.func)) else None
        if isinstance(expr, cst.DictComp):
            return "renamed" if self._changes_keys(expr) else None
        if not isinstance(expr, cst.Name):
            return None
        name = re.escape(expr.value)
        text = self._scope_text()
        if re.search(rf"\b{name}\s*\.\s*pop\s*\(|\bdel\s+{name}\s*\[", text):
            return "filtered"
        for match in re.finditer(rf"^\s*{name}\s*=\s*(.+)$", text, re.MULTILINE):
            value = match.group(1)
            if re.match(r"[\w.]+\(", value) and _HELPER.search(value.split("(")[0]):
                return "converted"
            if value.startswith("{") and " for " in value and ".items()" in value:
                try:
                    comp = cst.parse_expression(value)
                except cst.ParserSyntaxError:
                    continue
                if isinstance(comp, cst.DictComp) and self._changes_keys(comp):
                    return "renamed"
        # new[<changed key>] = v in a loop over another dict's items()
        if re.search(r"for\s+(\w+)\s*,\s*\w+\s+in\s+[\w.]+\.items\(\)\s*:[\s\S]*?\b" + name + r"\s*\[\s*(?!\1\s*\])[^\]]+\]\s*=",
                     text) and "get_parameters" not in text and "parameters_and_names" not in text:
            return "renamed"
        return None

    @staticmethod
    def _changes_keys(comp: cst.DictComp) -> bool:
        target = comp.for_in.target
        key_var = target.elements[0].value if isinstance(target, cst.Tuple) and target.elements else None
        if not isinstance(comp.for_in.iter, cst.Call) or "items" not in code_of(comp.for_in.iter):
            return False
        if "get_parameters" in code_of(comp.for_in.iter) or "parameters_and_names" in code_of(comp.for_in.iter):
            return False
        changed = not (isinstance(key_var, cst.Name) and isinstance(comp.key, cst.Name)
                       and comp.key.value == key_var.value)
        return changed or bool(comp.for_in.ifs)

    def _report(self, call: cst.Call) -> None:
        params = argument(call, "parameter_dict", ("net", "parameter_dict"))
        how = self._transformed(params.value) if params is not None else None
        evaluating = UncheckedCheckpointLoad._in_evaluation(self)
        self.report(call, f"the checkpoint dict was {how or 'changed'} before this load, and load_param_into_net "
                    "never raises on names that no longer match: check the returned param_not_load list "
                    "(`not_loaded, _ = ms.load_param_into_net(...)`; `assert not not_loaded`)")
        self._evaluating = getattr(self, "_evaluating", {})
        self._evaluating[id(call)] = evaluating

    def _evaluates(self) -> bool:
        """The file evaluates or exports: its name says so (eval.py, export.py, infer.py),
        or it calls mindspore.export, Model.eval-like methods, or set_train(False)."""
        stem = self.ctx.path.replace("\\", "/").rsplit("/", 1)[-1].rsplit(".", 1)[0]
        if says_eval(stem) or "export" in stem.lower():
            return True
        f = facts(self.ctx)
        if f.calls_any("mindspore.export") or f.methods.get("eval"):
            return True
        return any(c.args and literal(c.args[0].value) is False for c in f.methods.get("set_train", ()))

    def finish(self) -> None:
        if not self.reports:
            return
        marks = getattr(self, "_evaluating", {})
        if training(self.ctx).trains or not self._evaluates():
            # a training script or a library module: only loads in evaluation functions
            self.reports = [r for r in self.reports if marks.get(id(r.node))]
