"""MSA148 (hp.01, error): an optimizer parameter group meant to be without weight decay that
gets it anyway: the group omits ``weight_decay`` and inherits the optimizer's, or sets it twice
and the later value wins."""

from __future__ import annotations

from typing import List, Optional, Tuple

import libcst as cst

from msacclint.analysis.calls import UNKNOWN, argument, constant, is_number, positional_count
from msacclint.analysis.param_groups import group_entries, literal_groups, selects_no_decay
from msacclint.analysis.source import code_of
from msacclint.diagnostics import Severity
from msacclint.rules.base import Invalid, Rule, Valid
from msacclint.rules.examples import fill
from msacclint.rules.hp.weight_decay import OPTIMIZERS

_TEMPLATE = """
    import mindspore as ms
    from mindspore import nn

    def build(net, cfg):
        params = net.trainable_params()
        {groups}
"""

_SPLIT = """
decay = [p for p in params if 'bias' not in p.name and 'gamma' not in p.name and 'beta' not in p.name]
no_decay = [p for p in params if 'bias' in p.name or 'gamma' in p.name or 'beta' in p.name]
"""


def _example(groups: str) -> str:
    return fill(_TEMPLATE, groups=groups)


class GroupInheritsWeightDecay(Rule):
    code = "MSA148"
    name = "group-inherits-weight-decay"
    checklist = "hp.01"
    severity = Severity.ERROR
    group = "nursery"
    message = "a parameter group meant to be without weight decay gets the optimizer's weight decay"
    evidence = ("The optimizer is a `mindspore.nn` optimizer whose parameter list is a literal list of group dicts "
                "(directly or through the newest assignment of a local name). A group without a `weight_decay` key "
                "whose `params` is a comprehension or `filter` that keeps the parameters named as biases or norm "
                "scales/shifts (`'bias' in p.name`, `any(nd in n for nd in ['bias', 'LayerNorm.weight'])`) or of one "
                "dimension (`p.ndim == 1`), or a list filled by `append` under such a test (its `if` or `else` "
                "branch), and that is there only to be separated (it sets no other option) or sits "
                "beside a group that sets `weight_decay`: error when the optimizer's `weight_decay` is a literal (or "
                "module constant) above 0; a warning naming the assumption when it is another expression; silent "
                "when it is 0 or not given (the default). A group dict that writes `weight_decay` twice with "
                "different values: error (the later value is the one used). Selections that cannot be read (a "
                "helper's result, appends under tests that do not name the parameter) are not reported.")
    what = ("Reports an optimizer parameter group built to keep biases and BatchNorm/LayerNorm scales and shifts "
            "out of weight decay, when it does not say `'weight_decay': 0.0` while the optimizer itself is given a "
            "`weight_decay` above 0; and a group dict that sets `weight_decay` twice.")
    why = ("A group without a `weight_decay` key uses the optimizer's `weight_decay` argument (nn.Optimizer, "
           "`_init_group_params`). Splitting the parameters and then leaving the key out decays exactly the "
           "parameters the split was meant to spare (with groups, MindSpore no longer skips parameters named "
           "*beta*/*gamma*: every parameter of a group with a decay above 0 is decayed), so the norm layers' "
           "scales are pulled towards 0, which costs "
           "accuracy in long schedules, with no error. In a dict literal a repeated key keeps its last value, so "
           "`{'params': no_decay, 'weight_decay': 0.0, ..., 'weight_decay': wd}` decays the group too.")
    example = """
        groups = [{'params': decay, 'weight_decay': 1e-4}, {'params': no_decay}]
        opt = nn.Momentum(groups, learning_rate=0.1, momentum=0.9, weight_decay=1e-4)
    """
    use_instead = """
        groups = [{'params': decay, 'weight_decay': 1e-4}, {'params': no_decay, 'weight_decay': 0.0}]
        opt = nn.Momentum(groups, learning_rate=0.1, momentum=0.9, weight_decay=1e-4)
    """
    fix_safety = "No automatic fix: whether the group is meant to be decayed is the author's to say."
    versions = "All MindSpore 1.x and 2.x releases (a group's missing options come from the optimizer's arguments)."
    references = ("https://www.mindspore.cn/docs/en/master/api_python/nn/mindspore.nn.Optimizer.html",)
    resolved_calls = OPTIMIZERS

    VALID = (
        Valid(_example(_SPLIT + """
groups = [{'params': decay, 'weight_decay': 1e-4}, {'params': no_decay, 'weight_decay': 0.0}]
return nn.Momentum(groups, learning_rate=0.1, momentum=0.9, weight_decay=1e-4)
"""), note="idiomatic: the no-decay group says so"),
        Valid(_example(_SPLIT + """
groups = [{'params': decay, 'weight_decay': 1e-4}, {'params': no_decay}]
return nn.Momentum(groups, learning_rate=0.1, momentum=0.9)
"""), note="the optimizer's weight_decay is the default 0.0: nothing to inherit"),
        Valid(_example(_SPLIT + """
groups = [{'params': decay}, {'params': no_decay, 'weight_decay': 0.0}]
return nn.AdamWeightDecay(groups, learning_rate=1e-4, weight_decay=0.01)
"""), note="the decayed group is the one that inherits: meant"),
        Valid(_example("""
bias = [p for p in params if 'bias' in p.name]
rest = [p for p in params if 'bias' not in p.name]
groups = [{'params': rest}, {'params': bias, 'lr': 0.2}]
return nn.SGD(groups, learning_rate=0.1, weight_decay=1e-4)
"""), note="a group separated for its learning rate: its decay is not said to be unwanted"),
        Valid("""
            import torch
            no_decay = [p for n, p in model.named_parameters() if 'bias' in n]
            decay = [p for n, p in model.named_parameters() if 'bias' not in n]
            opt = torch.optim.SGD([{'params': decay, 'weight_decay': 1e-4}, {'params': no_decay}], lr=0.1,
                                  weight_decay=1e-4)
        """, note="PyTorch's optimizer (the same inheritance, but not this linter's to report)"),
    )
    INVALID = (
        Invalid(_example(_SPLIT + """
groups = [{'params': decay, 'weight_decay': 1e-4}, {'params': no_decay}]
return nn.Momentum(groups, learning_rate=0.1, momentum=0.9, weight_decay=1e-4)  # MSA148
"""), note="the no-decay group inherits 1e-4"),
        Invalid(_example("""
no_decay = ['bias', 'LayerNorm.weight']
groups = [
    {'params': [p for n, p in net.parameters_and_names() if not any(nd in n for nd in no_decay)],
     'weight_decay': 0.01},
    {'params': [p for n, p in net.parameters_and_names() if any(nd in n for nd in no_decay)]},
]
return nn.AdamWeightDecay(groups, learning_rate=1e-4, weight_decay=cfg.weight_decay)  # MSA148
"""), note="the PyTorch BERT grouping with its 0.0 left out; the optimizer's decay from a config (warning)"),
        Invalid(_example(_SPLIT + """
groups = [{'params': decay}, {'params': no_decay, 'weight_decay': 0.0, 'lr': 0.1, 'weight_decay': 1e-4}]
return nn.Momentum(groups, learning_rate=0.1, momentum=0.9)  # MSA148
"""), note="a repeated key: the later value wins"),
        Invalid(files={
            "src/__init__.py": "",
            "src/optim.py": """
                from mindspore import nn

                def make_optimizer(net):
                    params = net.trainable_params()
                    one_dim = list(filter(lambda p: p.ndim <= 1, params))
                    many = list(filter(lambda p: p.ndim > 1, params))
                    return nn.Momentum([{'params': many}, {'params': one_dim}], 0.1, 0.9, weight_decay=5e-5)  # MSA148
            """,
            "train.py": """
                from src.optim import make_optimizer
                opt = make_optimizer(build_net())
            """,
        }, note="split by dimension, both groups inherit"),
        Invalid("""
            from mindspore import nn

            def create_optimizer(net):
                params = net.trainable_params()
                decay_params = []
                no_decay_params = []
                for param in params:
                    if "beta" not in param.name and "gamma" not in param.name and "bias" not in param.name:
                        decay_params.append(param)
                    else:
                        no_decay_params.append(param)
                groups = [{"params": decay_params, "weight_decay": 1e-4}, {"params": no_decay_params},
                          {"order_params": params}]
                return nn.Momentum(groups, learning_rate=0.1, momentum=0.9, weight_decay=1e-4)  # MSA148
        """, note="the lists built in a loop: the else branch collects the no-decay parameters"),
    )

    def visit_resolved_call(self, node: cst.Call, callee: str) -> None:
        params = argument(node, "params", ("params",))
        if params is None:
            return
        groups = literal_groups(self.ctx, node, params.value)
        if not groups:
            return
        parsed: List[Optional[List[Tuple[str, cst.BaseExpression]]]] = [group_entries(group) for group in groups]
        for entries in parsed:
            if entries is None:
                continue
            decays = [value for key, value in entries if key == "weight_decay"]
            if len(decays) > 1 and len({code_of(v) for v in decays}) > 1:
                self.report(node, f"a parameter group sets weight_decay {len(decays)} times; the last "
                            f"({code_of(decays[-1])}) replaces {code_of(decays[0])}")
                return
        sibling_decays = any(entries is not None and any(k == "weight_decay" for k, _ in entries)
                             for entries in parsed)
        decay = self._optimizer_decay(node)
        if decay is False:
            return
        for entries in parsed:
            if entries is None or any(key == "weight_decay" for key, _ in entries):
                continue
            keys = {key for key, _ in entries}
            if "params" not in keys or not (keys == {"params"} or sibling_decays):
                continue
            selection = dict(entries)["params"]
            if selects_no_decay(self.ctx, node, selection) is not True:
                continue
            which = f"the group of `{selection.value}`" if isinstance(selection, cst.Name) else "a group"
            message = (f"{which} keeps biases/norm parameters apart but sets no weight_decay, so it inherits "
                       f"the optimizer's weight_decay")
            if decay is None:
                message += " (assumed: the optimizer's weight_decay argument is above 0)"
                self.report(node, message, severity=Severity.WARNING)
            else:
                self.report(node, message + f" ({decay:g}); give it 'weight_decay': 0.0")
            return

    @staticmethod
    def _optimizer_decay_arg(node: cst.Call) -> Optional[cst.Arg]:
        return argument(node, "weight_decay", ())

    def _optimizer_decay(self, node: cst.Call):
        """The optimizer's weight_decay: a number above 0, False (0, or not given), None (not known)."""
        arg = self._optimizer_decay_arg(node)
        if arg is None:
            # a positional weight_decay is not told apart from the other positional options
            return None if positional_count(node) > 3 else False
        value = constant(self.ctx, arg.value)
        if value is UNKNOWN:
            return None
        if not is_number(value) or value <= 0:
            return False
        return value
