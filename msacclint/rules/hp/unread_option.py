"""MSA511 (hp.01, error): a command-line option for a training hyper-parameter that nothing in
the project reads: the run silently uses whatever the code fixes instead."""

from __future__ import annotations

from typing import Dict, List, Optional, Tuple

import libcst as cst

from msacclint.analysis.calls import UNKNOWN, literal
from msacclint.analysis.options import options
from msacclint.analysis.walk import descendants
from msacclint.diagnostics import Severity
from msacclint.rules.base import Invalid, Rule, Valid
from msacclint.rules.examples import fill

#: the settings that change what a run learns: option names (dest) -> the keywords a call
#: takes them by (where a literal written instead of the option would go)
HYPER_PARAMETERS: Dict[str, Tuple[str, ...]] = {
    **{name: ("learning_rate", "lr") for name in ("lr", "learning_rate", "base_lr", "init_lr", "max_lr")},
    **{name: ("weight_decay",) for name in ("weight_decay", "wd")},
    "momentum": ("momentum",),
    **{name: ("epoch", "epochs", "epoch_size", "num_epochs") for name in (
        "epochs", "epoch", "epoch_size", "num_epochs", "max_epoch", "epoch_num", "train_epochs", "epochs_num")},
    **{name: ("batch_size",) for name in ("batch_size", "per_batch_size", "train_batch_size", "batchsize")},
    **{name: ("loss_scale", "loss_scale_value", "init_loss_scale") for name in (
        "loss_scale", "loss_scale_value", "init_loss_scale")},
    **{name: ("p", "keep_prob", "dropout", "drop_rate", "dropout_rate") for name in (
        "dropout", "drop_rate", "dropout_rate", "keep_prob")},
    **{name: ("seed",) for name in ("seed", "random_seed")},
    **{name: ("warmup_epochs", "warmup_steps", "warmup_epoch") for name in (
        "warmup_epochs", "warmup_steps", "warmup_epoch", "warmup")},
    **{name: ("label_smoothing", "smooth_factor", "label_smooth_factor") for name in (
        "label_smoothing", "smooth_factor", "label_smooth_factor")},
    **{name: () for name in ("run_distribute", "distribute", "distributed")},
    **{name: ("amp_level",) for name in ("amp_level",)},
}

#: calls that fix the seed by their first argument
SEEDS = frozenset({"mindspore.set_seed", "mindspore.common.set_seed", "mindspore.common.seed.set_seed"})

_SCRIPT = """
    import argparse
    import mindspore as ms
    from mindspore import nn

    parser = argparse.ArgumentParser()
    parser.add_argument('--epochs', type=int, default=90)
    {options}
    args = parser.parse_args()

    def main(net, dataset):
        {body}

    {tail}
"""


def _script(options: str, body: str, tail: str = "") -> str:
    return fill(_SCRIPT, options=options, body=body, tail=tail)


_TRAIN = "model = ms.Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True), opt)\nmodel.train(args.epochs, dataset)"


class UnreadTrainingOption(Rule):
    code = "MSA511"
    name = "unread-training-option"
    checklist = "hp.01"
    severity = Severity.ERROR
    group = "nursery"
    message = "a training hyper-parameter option is defined but nothing reads it: the value given is ignored"
    evidence = ("`p.add_argument('--name', ...)` on an `argparse.ArgumentParser` the file builds and parses "
                "(the namespace bound to a name), for an option named as a training hyper-parameter (learning "
                "rate, weight decay, momentum, epochs, batch size, loss scale, dropout, seed, warm-up, label "
                "smoothing, distributed run, AMP level). Nothing in the project names the option other than its "
                "definition: no name token or exactly-quoted string `name` in any Python file (an attribute "
                "`args.name`, `getattr(args, 'name')`, a parameter or keyword of that name) and no whole word in "
                "its YAML/JSON files. Silent when the namespace goes where its attributes may be read unnamed: "
                "`vars(args)`, `args.__dict__`, `**args`, returned, stored, or handed to a call other than `print` "
                "or a function of the file (followed through its parameter). Error when a literal is passed, in "
                "the file, by the keyword the option would go to (`learning_rate=0.1` beside an unread `--lr`); "
                "otherwise a warning saying so.")
    what = ("Reports an argparse option for a training hyper-parameter (`--lr`, `--weight_decay`, `--epochs`, "
            "`--batch_size`, `--loss_scale`, `--seed`, ...) that is parsed but never read anywhere in the project.")
    why = ("The command line and the README say `--lr 0.1`; the optimizer was written with `learning_rate=0.01` "
           "(often left from the port or a debugging run). Every run, including the ones whose accuracy is "
           "reported, trains with the fixed value while its log and launch script say otherwise, and a sweep "
           "over the option changes nothing.")
    example = """
        parser.add_argument('--lr', type=float, default=0.1)
        args = parser.parse_args()
        opt = nn.Momentum(net.trainable_params(), learning_rate=0.01, momentum=0.9)
    """
    use_instead = """
        parser.add_argument('--lr', type=float, default=0.1)
        args = parser.parse_args()
        opt = nn.Momentum(net.trainable_params(), learning_rate=args.lr, momentum=0.9)
    """
    fix_safety = "No automatic fix: which of the two values is the intended one is the author's to say."
    versions = "Independent of the MindSpore release."
    references = ("https://docs.python.org/3/library/argparse.html",)

    VALID = (
        Valid(_script("parser.add_argument('--lr', type=float, default=0.1)", """
opt = nn.Momentum(net.trainable_params(), learning_rate=args.lr, momentum=0.9)
""" + _TRAIN), note="idiomatic: the option is read"),
        Valid(_script("parser.add_argument('--lr', type=float, default=0.1)", """
opt = nn.Momentum(net.trainable_params(), learning_rate=getattr(args, 'lr'), momentum=0.9)
""" + _TRAIN), note="read by getattr"),
        Valid(_script("parser.add_argument('--lr', type=float, default=0.1)", """
opt = nn.Momentum(net.trainable_params(), learning_rate=0.01, momentum=0.9)
""" + _TRAIN, tail="config = Config(**vars(args))"), note="the whole namespace is handed on: what reads it is not known"),
        Valid(_script("parser.add_argument('--lr', type=float, default=0.1)", """
opt = nn.Momentum(net.trainable_params(), learning_rate=0.01, momentum=0.9)
""" + _TRAIN, tail="trainer = external_lib.Trainer(args)"), note="handed to code outside the project"),
        Valid(_script("parser.add_argument('--device_target', default='Ascend')", """
opt = nn.Momentum(net.trainable_params(), learning_rate=0.01, momentum=0.9)
""" + _TRAIN), note="not a hyper-parameter (hygiene, not this rule)"),
        Valid("""
            import argparse
            import torch
            parser = argparse.ArgumentParser()
            parser.add_argument('--lr', type=float, default=0.1)
            args = parser.parse_args()
            opt = torch.optim.SGD(model.parameters(), lr=0.01)
        """, note="no MindSpore in the file: not checked"),
        Valid(files={
            "src/__init__.py": "",
            "src/args.py": """
                import argparse
                import mindspore

                def get_args():
                    parser = argparse.ArgumentParser()
                    parser.add_argument('--lr', type=float, default=0.1)
                    return parser.parse_args()
            """,
            "train.py": """
                from src.args import get_args
                args = get_args()
                trainer = build_trainer(args)
            """,
        }, note="the parse function is imported by another file, which hands the namespace on"),
        Valid(files={
            "train.py": _script("parser.add_argument('--lr', type=float, default=0.1)", """
opt = nn.Momentum(net.trainable_params(), learning_rate=0.01, momentum=0.9)
""" + _TRAIN, tail="run(main, args)"),
            "config/default.yaml": "lr: 0.1\n",
        }, note="handed to another call, and named by a recipe: not reported"),
    )
    INVALID = (
        Invalid(_script("parser.add_argument('--lr', type=float, default=0.1)  # MSA511", """
opt = nn.Momentum(net.trainable_params(), learning_rate=0.01, momentum=0.9)
""" + _TRAIN), note="the optimizer's rate is fixed at 0.01"),
        Invalid(_script("parser.add_argument('--weight-decay', type=float, default=1e-4)  # MSA511", """
opt = nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9, weight_decay=args.wd)
""" + _TRAIN, tail="print(args)"), note="`--weight-decay` is args.weight_decay; the code reads args.wd, which the "
                                      "parser never sets (warning: no literal where it would go)"),
        Invalid(_script("parser.add_argument('--seed', type=int, default=1)  # MSA511", """
ms.set_seed(1)
opt = nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)
""" + _TRAIN, tail="def describe(options):\n    print(options.epochs)\ndescribe(args)"),
                note="a function of the file handed the namespace reads only the epochs; the seed is fixed"),
        Invalid("""
            import argparse
            import mindspore as ms
            from mindspore import nn

            def get_args():
                parser = argparse.ArgumentParser()
                parser.add_argument('--epoch_size', type=int, default=90)  # MSA511
                parser.add_argument('--batch_size', type=int, default=32)
                return parser.parse_args()

            def main():
                args = get_args()
                dataset = build_dataset(args.batch_size)
                net = build_net()
                model = ms.Model(net, nn.MSELoss(), nn.SGD(net.trainable_params()))
                model.train(epoch_size=1, train_dataset=dataset)
        """, note="the parser in a function that returns the namespace; the epoch count is written as 1"),
        Invalid(files={
            "src/__init__.py": "",
            "src/train_utils.py": """
                from mindspore import nn

                def make_optimizer(net, lr):
                    return nn.Momentum(net.trainable_params(), learning_rate=lr, momentum=0.9)
            """,
            "train.py": _script("""
parser.add_argument('--lr', type=float, default=0.1)
parser.add_argument('--momentum', type=float, default=0.9)  # MSA511
""", """
opt = make_optimizer(net, args.lr)
""" + _TRAIN, tail="from src.train_utils import make_optimizer\nmain(build_net(args.lr), None)"),
        }, note="the momentum is fixed in another file of the project"),
    )

    def finish(self) -> None:
        found = options(self.ctx)
        if not found.parsed or found.escapes or not found.namespaces or not found.defined:
            return
        project = getattr(self.ctx, "project", None)
        for option in found.defined:
            keywords = HYPER_PARAMETERS.get(option.dest.lower())
            if keywords is None:
                continue
            named_here = self._dest_literals(option.dest)
            if project is not None:
                uses = project.attribute_uses(option.dest)
            else:
                uses = self._own_mentions(option.dest)
            if uses > named_here:
                continue
            literal_at = literal_for(self.ctx, keywords)
            message = f"option --{option.dest} is parsed but nothing in the project reads args.{option.dest}"
            if literal_at is not None:
                keyword, value = literal_at
                given = f"calls set_seed({value!r})" if keyword == "set_seed" else f"passes {keyword}={value!r}"
                self.report(option.call, f"{message}: the code {given} instead, so the option is silently ignored")
            else:
                self.report(option.call, message + " (assumed: the value it sets is fixed somewhere else in "
                            "the code; no literal by the keyword it would go to was found in this file)",
                            severity=Severity.WARNING)

    def _dest_literals(self, dest: str) -> int:
        """How many times this file writes ``dest`` where the project's count sees it as a
        definition, not a read: ``dest='name'`` of an add_argument."""
        count = 0
        for node in descendants(self.ctx.module):
            if isinstance(node, cst.Arg) and node.keyword is not None and node.keyword.value == "dest" and \
                    literal(node.value) == dest:
                count += 1
        return count

    def _own_mentions(self, dest: str) -> int:
        """Without the project: ``.dest`` attributes and ``'dest'`` strings of this file."""
        count = 0
        for node in descendants(self.ctx.module):
            if isinstance(node, cst.Attribute) and node.attr.value == dest:
                count += 1
            elif isinstance(node, cst.SimpleString) and literal(node) == dest:
                count += 1
        return count


def literal_for(ctx, keywords: Tuple[str, ...]) -> Optional[Tuple[str, object]]:
    """A literal the file passes by one of ``keywords`` (or to set_seed): (keyword, value)."""
    if not keywords:
        return None
    hits: List[Tuple[str, object]] = []
    for node in descendants(ctx.module):
        if isinstance(node, cst.Call) and "seed" in keywords and ctx.callee(node) in SEEDS and node.args and \
                node.args[0].keyword is None and isinstance(literal(node.args[0].value), int):
            hits.append(("set_seed", literal(node.args[0].value)))
        if isinstance(node, cst.Call):
            for arg in node.args:
                if arg.keyword is not None and arg.keyword.value in keywords:
                    value = literal(arg.value)
                    if value is not UNKNOWN and not isinstance(value, (bool, type(None))) and \
                            isinstance(value, (int, float, str)):
                        hits.append((arg.keyword.value, value))
    return hits[0] if hits else None
