"""MSA512 (hp.01, error): a training hyper-parameter in a YAML/JSON recipe that the file loads,
which nothing in the project reads: the recipe's value is silently ignored."""

from __future__ import annotations

import os

from msacclint.analysis.recipes import recipes
from msacclint.diagnostics import Severity
from msacclint.rules.base import Invalid, Rule, Valid
from msacclint.rules.examples import fill
from msacclint.rules.hp.unread_option import HYPER_PARAMETERS, literal_for

_SCRIPT = """
    import yaml
    import mindspore as ms
    from mindspore import nn

    with open("config.yaml") as f:
        cfg = yaml.safe_load(f){mark}

    def main(net, dataset):
        {body}
        model = ms.Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True), opt)
        model.train(cfg["epochs"], dataset)
"""

_RECIPE = "epochs: 90\nlr: 0.1\n"


def _files(body: str, mark: str = "", recipe: str = _RECIPE) -> dict:
    return {"train.py": fill(_SCRIPT, body=body, mark=mark), "config.yaml": recipe}


class UnreadRecipeKey(Rule):
    code = "MSA512"
    name = "unread-recipe-key"
    checklist = "hp.01"
    severity = Severity.ERROR
    group = "nursery"
    message = "a training hyper-parameter of the recipe is never read: the value it gives is ignored"
    evidence = ("The file loads a YAML/JSON file of the project itself (`cfg = yaml.safe_load(f)` with `f` from "
                "`open('config.yaml')`, also `yaml.load`, `json.load`), and the loaded mapping stays in view: only "
                "read by a literal key (`cfg['lr']`), an attribute or a method, shown by `print`, or handed to a "
                "function of the file (followed through its parameter). A top-level key of that file named as a "
                "training hyper-parameter (the names of MSA511) that no Python file of the project names as "
                "`.key` or as the string `'key'`. Silent when the mapping is unpacked (`**cfg`), stored, returned or "
                "handed to any other call (what reads it is not known here), and for files the code does not open "
                "by a literal name. Error when the file passes a literal by the keyword the key would go to; "
                "otherwise a warning saying so.")
    what = ("Reports the load of a YAML/JSON recipe whose training hyper-parameters (`lr`, `weight_decay`, "
            "`epochs`, `batch_size`, `loss_scale`, ...) include one that no code of the project reads.")
    why = ("Whoever tunes the run edits the recipe: `lr: 0.1` in config.yaml, while the optimizer was written "
           "with `learning_rate=0.01`. The recipe, the log of the configuration and the reported setting say one "
           "thing; the run trains with another.")
    example = """
        cfg = yaml.safe_load(open("config.yaml"))   # lr: 0.1
        opt = nn.Momentum(net.trainable_params(), learning_rate=0.01, momentum=0.9)
    """
    use_instead = """
        cfg = yaml.safe_load(open("config.yaml"))   # lr: 0.1
        opt = nn.Momentum(net.trainable_params(), learning_rate=cfg["lr"], momentum=0.9)
    """
    fix_safety = "No automatic fix: which of the two values is intended is the author's to say."
    versions = "Independent of the MindSpore release."
    references = ("https://pyyaml.org/wiki/PyYAMLDocumentation",)

    VALID = (
        Valid(files=_files('opt = nn.Momentum(net.trainable_params(), learning_rate=cfg["lr"], momentum=0.9)'),
              note="idiomatic: every hyper-parameter of the recipe is read"),
        Valid(files=_files('opt = nn.Momentum(net.trainable_params(), learning_rate=cfg.get("lr", 0.1), '
                           'momentum=0.9)'), note="read with get"),
        Valid(files=_files('opt = nn.Momentum(net.trainable_params(), **cfg)'),
              note="the mapping is unpacked into a call: what it reads is not known here"),
        Valid(files=_files('opt = build_optimizer(net, cfg)'),
              note="the mapping is handed to a function outside the file"),
        Valid(files=_files('opt = nn.Momentum(net.trainable_params(), learning_rate=cfg["lr"], momentum=0.9)',
                           recipe="epochs: 90\nlr: 0.1\ndevice_target: Ascend\n"),
              note="an unread key that is not a hyper-parameter (hygiene, not this rule)"),
        Valid("""
            import yaml
            import torch
            cfg = yaml.safe_load(open("config.yaml"))
            opt = torch.optim.SGD(model.parameters(), lr=0.01)
        """, note="no MindSpore in the file: not checked"),
    )
    INVALID = (
        Invalid(files=_files('opt = nn.Momentum(net.trainable_params(), learning_rate=0.01, momentum=0.9)',
                             mark="  # MSA512"), note="the recipe's lr is ignored for a written rate"),
        Invalid(files=_files('opt = nn.Momentum(net.trainable_params(), learning_rate=cfg["lr"], momentum=0.9)',
                             mark="  # MSA512", recipe="epochs: 90\nlr: 0.1\nlabel_smoothing: 0.1\n"),
                note="label_smoothing is in the recipe, but the loss is built without it (warning: no literal "
                     "where it would go)"),
    )

    def finish(self) -> None:
        project = getattr(self.ctx, "project", None)
        if project is None:
            return
        path = os.path.abspath(self.ctx.path)
        for recipe in recipes(self.ctx):
            if recipe.escapes:
                continue
            named = project.named_config(path, recipe.name)
            if named is None:
                continue
            shown, config = named
            for key, entries in sorted(config.values.items()):
                keywords = HYPER_PARAMETERS.get(key.lower())
                if "." in key or keywords is None or len(entries) != 1 or not _top_level(config, key):
                    continue
                if project.attribute_uses(key, configs=False) > 0:
                    continue
                value, line = entries[0]
                message = (f"{recipe.name} sets {key}: {value!r} (line {line}), but nothing in the project reads "
                           f"{recipe.bound}[{key!r}]")
                literal_at = literal_for(self.ctx, keywords)
                related = [(shown, line, f"{key}: {value!r}")]
                if literal_at is not None:
                    keyword, given = literal_at
                    self.report(recipe.call, f"{message}: the code passes {keyword}={given!r} instead",
                                related=related)
                else:
                    self.report(recipe.call, message + " (assumed: the value it sets is fixed somewhere else; no "
                                "literal by the keyword it would go to was found in this file)",
                                severity=Severity.WARNING, related=related)


def _top_level(config, key: str) -> bool:
    """The key is not only the last part of a nested one (``optimizer.lr`` is kept as ``lr`` too)."""
    return not any(other.endswith("." + key) for other in config.values)

