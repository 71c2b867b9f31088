"""Errors in code that nothing the repository runs reaches are reported as dormant warnings
(msacclint/project/reach.py, msacclint/engine/grading.py; the finer notes of
msacclint/engine/dormant.py), through the CLI on a real folder, as a user runs it."""

import json
import subprocess
import sys
import textwrap

BLOCKS = """\
    import mindspore.nn as nn


    class Mlp(nn.Cell):
        def __init__(self, drop=0.1):
            super().__init__()
            self.fc = nn.Dense(4, 4)
            self.drop = nn.Dropout(drop)

        def construct(self, x):
            return self.drop(self.fc(x))


    class CMlp(nn.Cell):
        def __init__(self, drop=0.1):
            super().__init__()
            self.fc = nn.Dense(4, 4)
            self.drop = nn.Dropout(drop)

        def construct(self, x):
            return self.drop(self.fc(x))
    """


def _write(root, files):
    (root / "setup.py").write_text("")
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


def _check(root, *extra):
    done = subprocess.run([sys.executable, "-m", "msacclint", "check", ".", "--format", "json", "--no-cache",
                           "--exit-zero", *extra], cwd=root, capture_output=True, text=True, check=True)
    return {(d["path"], d["line"], d["code"]): d for d in json.loads(done.stdout)}


def test_unused_class_is_dormant_and_a_used_one_is_not(tmp_path):
    _write(tmp_path, {"pkg/__init__.py": "", "pkg/blocks.py": BLOCKS,
                      "pkg/net.py": "from pkg.blocks import CMlp\nnet = CMlp()\n"})
    found = _check(tmp_path)
    unused = found[("pkg/blocks.py", 8, "MSA101")]
    used = found[("pkg/blocks.py", 18, "MSA101")]
    assert unused["severity"] == "warning"
    assert "dormant" in unused["message"] and "`Mlp`" in unused["message"]
    assert used["severity"] == "error" and "dormant" not in used["message"]
    # the lowered finding says so in its reach too (editors fade it: tests/test_lsp.py)
    assert unused["reach"] == "dormant" and used["reach"] == "runs"


def test_without_the_project_layer_nothing_is_called_dormant(tmp_path):
    _write(tmp_path, {"pkg/blocks.py": BLOCKS})
    found = _check(tmp_path, "--no-project")
    assert {d["severity"] for d in found.values()} == {"error"}
    assert not any("dormant" in d["message"] for d in found.values())
    assert {d["reach"] for d in found.values()} == {None}


def test_a_name_in_a_config_file_or_a_string_counts_as_a_use(tmp_path):
    # a model chosen by name from YAML, and one listed in __all__
    _write(tmp_path, {"pkg/blocks.py": textwrap.dedent(BLOCKS) + "\n__all__ = [\"CMlp\"]\n",
                      "configs/model.yaml": "model:\n  name: Mlp\n  drop: 0.1\n"})
    found = _check(tmp_path)
    assert found[("pkg/blocks.py", 8, "MSA101")]["severity"] == "error"
    assert found[("pkg/blocks.py", 18, "MSA101")]["severity"] == "error"


def test_a_decorated_definition_is_never_dormant(tmp_path):
    registered = BLOCKS.replace("    class Mlp(nn.Cell):", "    @register\n    class Mlp(nn.Cell):")
    registered = registered.replace("import mindspore.nn as nn\n", "import mindspore.nn as nn\n"
                                    "    from registry import register\n", 1)
    _write(tmp_path, {"pkg/blocks.py": registered, "registry.py": "def register(c):\n    return c\n"})
    found = _check(tmp_path)
    mlp = [d for (path, _, code), d in found.items() if code == "MSA101" and d["line"] < 12]
    assert mlp and all(d["severity"] == "error" for d in mlp)


def test_an_unused_function_in_a_script_is_dormant_and_main_is_not(tmp_path):
    script = """\
        import mindspore.nn as nn


        def build_head():
            return nn.Dropout(0.2)


        def main():
            return nn.Dropout(0.3)


        if __name__ == "__main__":
            main()
        """
    _write(tmp_path, {"train.py": script})
    found = _check(tmp_path)
    assert found[("train.py", 5, "MSA101")]["severity"] == "warning"
    assert "`build_head`" in found[("train.py", 5, "MSA101")]["message"]
    assert found[("train.py", 9, "MSA101")]["severity"] == "error"


def test_a_new_user_of_the_class_makes_the_cached_finding_an_error_again(tmp_path):
    # an entry point that builds nothing of pkg/blocks.py yet
    _write(tmp_path, {"pkg/__init__.py": "", "pkg/blocks.py": BLOCKS,
                      "train.py": "import pkg\n\nif __name__ == '__main__':\n    print('nothing yet')\n"})

    def severity():
        done = subprocess.run([sys.executable, "-m", "msacclint", "check", ".", "--format", "json", "--exit-zero"],
                              cwd=tmp_path, capture_output=True, text=True, check=True)
        return {d["line"]: d["severity"] for d in json.loads(done.stdout) if d["path"] == "pkg/blocks.py"}

    assert severity() == {8: "warning", 18: "warning"}
    (tmp_path / "pkg" / "net.py").write_text("from pkg.blocks import Mlp\nnet = Mlp()\n")
    assert severity() == {8: "error", 18: "warning"}
    # ... and a user that goes away makes it dormant again
    (tmp_path / "pkg" / "net.py").unlink()
    assert severity() == {8: "warning", 18: "warning"}


def test_a_class_of_the_same_name_defined_elsewhere_is_not_a_use(tmp_path):
    other = "import mindspore.nn as nn\n\n\nclass Mlp(nn.Cell):\n    pass\n\n\nnet = Mlp()\n"
    _write(tmp_path, {"pkg/__init__.py": "", "pkg/blocks.py": BLOCKS, "pkg/other.py": other,
                      "pkg/net.py": "from pkg.blocks import CMlp\nnet = CMlp()\n"})
    found = _check(tmp_path)
    assert found[("pkg/blocks.py", 8, "MSA101")]["severity"] == "warning"
    assert found[("pkg/blocks.py", 18, "MSA101")]["severity"] == "error"


HEAD = """\
    import mindspore.nn as nn


    class Head(nn.Cell):
        def __init__(self, channels, has_dropout=False, final_drop=0.0, drop_prob=None):
            super().__init__()
            self.fc = nn.Dense(channels, 10)
            if has_dropout:
                self.switch = nn.Dropout(0.2)
            if final_drop > 0:
                self.rate = nn.Dropout(0.3)
            if drop_prob is not None:
                self.maybe = nn.Dropout(0.1)
            self.always = nn.Dropout(0.25)
    """
SWITCHED = {("pkg/head.py", 9): "has_dropout", ("pkg/head.py", 11): "final_drop", ("pkg/head.py", 13): "drop_prob"}


def _severities(found):
    return {where: found[where + ("MSA101",)]["severity"] for where in list(SWITCHED) + [("pkg/head.py", 14)]}


def test_a_layer_built_only_under_a_switch_no_caller_turns_on_is_dormant(tmp_path):
    _write(tmp_path, {"pkg/__init__.py": "", "pkg/head.py": HEAD,
                      "pkg/net.py": "from pkg.head import Head\nhead = Head(64)\nother = Head(32, False, 0.0)\n"})
    found = _check(tmp_path)
    for where, switch in SWITCHED.items():
        finding = found[where + ("MSA101",)]
        assert finding["severity"] == "warning", finding
        assert f"built only when `{switch}` turns it on, and no call" in finding["message"]
    always = found[("pkg/head.py", 14, "MSA101")]
    assert always["severity"] == "error" and "dormant" not in always["message"]


def test_a_switch_some_caller_turns_on_keeps_the_error(tmp_path):
    _write(tmp_path, {"pkg/__init__.py": "", "pkg/head.py": HEAD,
                      "pkg/net.py": "from pkg.head import Head\nhead = Head(64, has_dropout=True, final_drop=0.2, "
                                    "drop_prob=0.5)\nplain = Head(8)\n"})
    assert set(_severities(_check(tmp_path)).values()) == {"error"}


def test_a_switch_read_from_a_config_is_followed(tmp_path):
    loader = ("import yaml\n\ndef get_config():\n    with open('default_config.yaml') as f:\n"
              "        return yaml.safe_load(f)\n\nconfig = get_config()\n")
    files = {"pkg/__init__.py": "", "pkg/head.py": HEAD, "pkg/config.py": loader,
             "pkg/net.py": "from pkg.head import Head\nfrom pkg.config import config\n"
                           "head = Head(64, final_drop=config.final_drop)\n"}
    _write(tmp_path, dict(files, **{"default_config.yaml": "final_drop: 0.0\n"}))
    assert _severities(_check(tmp_path))[("pkg/head.py", 11)] == "warning"
    _write(tmp_path, dict(files, **{"default_config.yaml": "final_drop: 0.2\n"}))
    assert _severities(_check(tmp_path))[("pkg/head.py", 11)] == "error"


def test_callers_that_cannot_all_be_seen_keep_the_error(tmp_path):
    # the class handed on as a value (functools.partial, a registry): some caller may turn it on
    _write(tmp_path, {"pkg/__init__.py": "", "pkg/head.py": HEAD,
                      "pkg/net.py": "import functools\nfrom pkg.head import Head\nhead = Head(64)\n"
                                    "wide = functools.partial(Head, has_dropout=True)\n"})
    assert set(_severities(_check(tmp_path)).values()) == {"error"}
    # a call that unpacks keyword arguments may pass anything
    _write(tmp_path, {"pkg/net.py": "from pkg.head import Head\nkw = dict(has_dropout=True)\nhead = Head(64, **kw)\n"})
    assert set(_severities(_check(tmp_path)).values()) == {"error"}


def test_keywords_forwarded_through_kwargs_are_followed_to_every_caller(tmp_path):
    # a builder forwards its **kwargs to the class, and a second builder forwards to the first
    builders = ("from pkg.head import Head\n\n\ndef head(channels, **kwargs):\n    return Head(channels, **kwargs)\n"
                "\n\ndef large_head(**kwargs):\n    return head(512, **kwargs)\n")
    _write(tmp_path, {"pkg/__init__.py": "", "pkg/head.py": HEAD, "pkg/build.py": builders,
                      "pkg/net.py": "from pkg.build import head, large_head\nsmall = head(64)\n"
                                    "plain = large_head(final_drop=0.0)\n"})
    found = _check(tmp_path)
    finding = found[("pkg/head.py", 11, "MSA101")]
    assert finding["severity"] == "warning" and "built only when `final_drop` turns it on" in finding["message"]
    assert "pkg/net.py:3" in finding["message"]  # where the forwarded value was read
    assert _severities(found)[("pkg/head.py", 9)] == "warning"
    # one caller of the outer builder turns a switch on: that layer is built
    _write(tmp_path, {"pkg/net.py": "from pkg.build import head, large_head\nsmall = head(64)\n"
                                    "plain = large_head(final_drop=0.2)\n"})
    severities = _severities(_check(tmp_path))
    assert severities[("pkg/head.py", 11)] == "error" and severities[("pkg/head.py", 9)] == "warning"
    # the forwarded dict is not the builder's own **kwargs: anything may be in it
    _write(tmp_path, {"pkg/build.py": builders.replace("Head(channels, **kwargs)", "Head(channels, **OPTIONS)")
                      .replace("def head", "OPTIONS = {}\n\n\ndef head")})
    assert set(_severities(_check(tmp_path)).values()) == {"error"}


def test_calls_through_a_partial_alias_are_followed(tmp_path):
    # the model zoo's shape: a builder forwarding **kwargs, bound by functools.partial aliases
    builders = ("from functools import partial\nfrom pkg.head import Head\n\n\n"
                "def head(name, **kwargs):\n    return Head(64 if name == 'small' else 512, **kwargs)\n\n\n"
                "small_head = partial(head, name='small')\nlarge_head = partial(head, name='large')\n")

    def net(final_drop, more=""):
        return ("from pkg.build import small_head, large_head\nsmall = small_head()\n"
                f"large = large_head(final_drop={final_drop})\n{more}")

    _write(tmp_path, {"pkg/__init__.py": "", "pkg/head.py": HEAD, "pkg/build.py": builders, "pkg/net.py": net(0.0)})
    severities = _severities(_check(tmp_path))
    assert severities[("pkg/head.py", 11)] == "warning" and severities[("pkg/head.py", 9)] == "warning"
    # a caller of an alias turns a switch on
    _write(tmp_path, {"pkg/net.py": net(0.2)})
    assert _severities(_check(tmp_path))[("pkg/head.py", 11)] == "error"
    # the partial itself fixes the switch on, even for an alias nothing calls yet
    _write(tmp_path, {"pkg/build.py": builders + "wide_head = partial(head, name='large', has_dropout=True)\n",
                      "pkg/net.py": net(0.0)})
    severities = _severities(_check(tmp_path))
    assert severities[("pkg/head.py", 9)] == "error" and severities[("pkg/head.py", 11)] == "warning"
    # an alias handed on as a value: its callers cannot all be seen
    _write(tmp_path, {"pkg/net.py": net(0.0, "factories = [small_head]\n")})
    assert set(_severities(_check(tmp_path)).values()) == {"error"}


def test_a_name_in_a_docstring_or_comment_is_not_a_use_but_a_string_key_is(tmp_path):
    documented = HEAD.replace("    class Head(nn.Cell):\n",
                              "    class Head(nn.Cell):\n        \"\"\">>> Head(64)\"\"\"  # see Head\n")
    _write(tmp_path, {"pkg/__init__.py": "", "pkg/head.py": documented,
                      "pkg/net.py": "from pkg.head import Head\nhead = Head(64)\n"})
    assert _check(tmp_path)[("pkg/head.py", 12, "MSA101")]["severity"] == "warning"
    # looked up by its name as a string: a caller that is not seen
    _write(tmp_path, {"pkg/net.py": "import pkg.head as heads\nfrom pkg.head import Head\nhead = Head(64)\n"
                                    "other = getattr(heads, 'Head')(64, final_drop=0.5)\n"})
    assert _check(tmp_path)[("pkg/head.py", 12, "MSA101")]["severity"] == "error"


def test_a_switch_held_in_an_attribute_and_turned_off_by_every_caller(tmp_path):
    # the default turns it on, every call turns it off; the switch is read through self.use_bn
    unit = """\
        import mindspore.nn as nn


        class Unit(nn.Cell):
            def __init__(self, channels, use_bn=True):
                super(Unit, self).__init__()
                self.use_bn = use_bn
                if self.use_bn:
                    self.bn = nn.BatchNorm2d(channels, momentum=0.1)
        """
    _write(tmp_path, {"pkg/__init__.py": "", "pkg/unit.py": unit,
                      "pkg/net.py": "from pkg.unit import Unit\nlogits = Unit(64, use_bn=False)\n"})
    finding = _check(tmp_path)[("pkg/unit.py", 9, "MSA107")]
    assert finding["severity"] == "warning" and "built only when `use_bn` turns it on" in finding["message"]
    _write(tmp_path, {"pkg/net.py": "from pkg.unit import Unit\nlogits = Unit(64, use_bn=False)\nbody = Unit(8)\n"})
    assert _check(tmp_path)[("pkg/unit.py", 9, "MSA107")]["severity"] == "error"


def test_a_mode_selector_read_from_a_multi_document_config(tmp_path):
    # model-zoo configs hold the values in the first YAML document, help texts and choices in
    # the next ones; the config object reaches the loss through a parameter
    loss = """\
        import mindspore.nn as nn


        class RegLoss(nn.Cell):
            def __init__(self, mode='l1'):
                super(RegLoss, self).__init__()
                if mode == 'l1':
                    self.loss = nn.L1Loss(reduction='sum')
                elif mode == 'sl1':
                    self.loss = nn.SmoothL1Loss()
        """
    net = ("from pkg.loss import RegLoss\n\n\nclass LossCell:\n    def __init__(self, net_config):\n"
           "        self.crit = RegLoss(net_config.reg_loss)\n")
    config = "net:\n    reg_loss: '{}'\n---\nreg_loss: 'l1 or sl1'\n---\nreg_loss: ['l1', 'sl1']\n"
    _write(tmp_path, {"pkg/__init__.py": "", "pkg/loss.py": loss, "pkg/net.py": net,
                      "default_config.yaml": config.format("l1")})
    finding = _check(tmp_path)[("pkg/loss.py", 10, "MSA141")]
    assert finding["severity"] == "warning" and "built only when `mode` is 'sl1'" in finding["message"]
    assert "the values passed were read at default_config.yaml:2" in finding["message"]
    _write(tmp_path, {"default_config.yaml": config.format("sl1")})
    assert _check(tmp_path)[("pkg/loss.py", 10, "MSA141")]["severity"] == "error"


def test_a_switch_a_caller_passes_from_its_own_attribute_is_followed_to_that_class_s_callers(tmp_path):
    # ResNet._make_layer passes res_base=self.res_base: the value is ResNet's own parameter,
    # so what ResNet's callers pass decides (off for every caller: dormant; on for one: error)
    model = """\
        import mindspore.nn as nn


        class Block(nn.Cell):
            def __init__(self, c, res_base=False):
                super().__init__()
                self.conv = nn.Conv2d(c, c, 3)
                if res_base:
                    self.pool = nn.MaxPool2d(2)


        class ResNet(nn.Cell):
            def __init__(self, res_base=False):
                super().__init__()
                self.res_base = res_base
                self.layer = self._make_layer(3)

            def _make_layer(self, c):
                return Block(c, res_base=self.res_base)
        """
    _write(tmp_path, {"pkg/__init__.py": "", "pkg/model.py": model,
                      "pkg/train.py": "from pkg.model import ResNet\nnet = ResNet()\n"})
    finding = _check(tmp_path)[("pkg/model.py", 9, "MSA104")]
    assert finding["severity"] == "warning" and "built only when `res_base` turns it on" in finding["message"]
    _write(tmp_path, {"pkg/train.py": "from pkg.model import ResNet\nnet = ResNet()\nbase = ResNet(res_base=True)\n"})
    assert _check(tmp_path)[("pkg/model.py", 9, "MSA104")]["severity"] == "error"


def test_a_name_given_to_a_mindspore_api_as_a_string_is_not_a_use_but_a_registry_key_is(tmp_path):
    # ModelCheckpoint(prefix="Head") names checkpoint files; {"Head": Head} may build the class
    script = ("import mindspore as ms\nfrom pkg.head import Head\nhead = Head(64)\n"
              "ckpt = ms.ModelCheckpoint(prefix=\"Head\")\nprint('Head')\n")
    _write(tmp_path, {"pkg/__init__.py": "", "pkg/head.py": HEAD, "pkg/net.py": script})
    assert _check(tmp_path)[("pkg/head.py", 9, "MSA101")]["severity"] == "warning"
    _write(tmp_path, {"pkg/net.py": script + "MODELS = {\"Head\": Head}\n"})
    assert _check(tmp_path)[("pkg/head.py", 9, "MSA101")]["severity"] == "error"


METHODS = """\
    import mindspore.nn as nn


    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(4, 4)
            self.drop = self.make_drop()

        def make_drop(self):
            return nn.Dropout(0.3)

        def build_head(self):
            return nn.Dropout(0.2)

        def construct(self, x):
            return self.drop(self.fc(x))
    """


def test_a_method_nothing_calls_is_dormant_and_a_called_one_is_not(tmp_path):
    _write(tmp_path, {"pkg/__init__.py": "", "pkg/net.py": METHODS,
                      "train.py": "from pkg.net import Net\nnet = Net()\n"})
    found = _check(tmp_path)
    called, uncalled = found[("pkg/net.py", 11, "MSA101")], found[("pkg/net.py", 14, "MSA101")]
    assert called["severity"] == "error" and "dormant" not in called["message"]
    assert uncalled["severity"] == "warning" and "`Net.build_head`" in uncalled["message"]


def test_a_method_of_a_framework_base_is_never_dormant_for_want_of_a_caller(tmp_path):
    hooked = METHODS.replace("class Net(nn.Cell):", "class Net(Callback):").replace(
        "import mindspore.nn as nn\n", "import mindspore.nn as nn\n    from mindspore.train import Callback\n", 1)
    _write(tmp_path, {"pkg/__init__.py": "", "pkg/net.py": hooked,
                      "train.py": "from pkg.net import Net\nnet = Net()\n"})
    found = _check(tmp_path)
    assert found[("pkg/net.py", 15, "MSA101")]["severity"] == "error"


def test_a_module_nothing_imports_is_dormant_and_an_imported_one_is_not(tmp_path):
    _write(tmp_path, {"pkg/__init__.py": "", "pkg/net.py": METHODS,
                      "pkg/old_net.py": textwrap.dedent(METHODS).replace("class Net(", "class OldNet(")
                      + "\n\ndef build():\n    return OldNet()\n",
                      "train.py": "from pkg.net import Net\nnet = Net()\n"})
    found = _check(tmp_path)
    old = found[("pkg/old_net.py", 11, "MSA101")]
    assert old["severity"] == "warning" and "nothing the repository runs imports pkg/old_net.py" in old["message"]
    assert found[("pkg/net.py", 11, "MSA101")]["severity"] == "error"


def test_a_module_that_runs_something_is_never_dormant_as_a_module(tmp_path):
    script = textwrap.dedent(METHODS) + "\n\nif __name__ == \"__main__\":\n    Net()\n"
    _write(tmp_path, {"pkg/__init__.py": "", "pkg/tool.py": script})
    found = _check(tmp_path)
    assert found[("pkg/tool.py", 11, "MSA101")]["severity"] == "error"


def test_a_warning_in_dormant_code_is_lowered_to_info_and_says_so(tmp_path):
    head = """\
        import mindspore.nn as nn


        class Head(nn.Cell):
            def __init__(self, rate=0.1):
                super().__init__()
                self.fc = nn.Dense(4, 4)
                self.drop = nn.Dropout(1 - rate)

            def construct(self, x):
                return self.drop(self.fc(x))
        """
    _write(tmp_path, {"pkg/__init__.py": "", "pkg/head.py": head, "pkg/tail.py": head.replace("Head", "Tail"),
                      "train.py": "from pkg.tail import Tail\nnet = Tail()\n"})
    found = _check(tmp_path, "--extend-select", "MSA102")
    dormant, used = found[("pkg/head.py", 8, "MSA102")], found[("pkg/tail.py", 8, "MSA102")]
    assert dormant["severity"] == "info" and "dormant" in dormant["message"] and "`Head`" in dormant["message"]
    assert used["severity"] == "warning" and "dormant" not in used["message"]


def test_a_switch_read_through_the_namespace_parse_args_gives(tmp_path):
    # the training function reads args.reg_loss; its caller passes the namespace parse_args gave
    loss = """\
        import mindspore.nn as nn


        class RegLoss(nn.Cell):
            def __init__(self, mode='l1'):
                super(RegLoss, self).__init__()
                if mode == 'l1':
                    self.loss = nn.L1Loss(reduction='sum')
                elif mode == 'sl1':
                    self.loss = nn.SmoothL1Loss()

            def construct(self, x, y):
                return self.loss(x, y)
        """
    train = """\
        import argparse
        import mindspore as ms
        from mindspore import nn
        from pkg.loss import RegLoss


        def train(args_opt):
            crit = RegLoss(args_opt.reg_loss)
            net = nn.Dense(4, 4)
            ms.Model(nn.WithLossCell(net, crit), optimizer=nn.Adam(net.trainable_params())).train(1, None)


        if __name__ == "__main__":
            parser = argparse.ArgumentParser()
            parser.add_argument("--reg_loss", default="l1", choices=["l1", "sl1"])
            args = parser.parse_args()
            train(args)
        """
    _write(tmp_path, {"pkg/__init__.py": "", "pkg/loss.py": loss, "train.py": train})
    finding = _check(tmp_path)[("pkg/loss.py", 10, "MSA141")]
    assert finding["severity"] == "warning" and "built only when `mode` is 'sl1'" in finding["message"]
    assert "--reg_loss default" in finding["message"] or "train.py:15" in finding["message"]
    # a script of the repository passes --reg_loss sl1: the branch is trained
    _write(tmp_path, {"scripts/run.sh": "python ../train.py --reg_loss sl1\n"})
    assert _check(tmp_path)[("pkg/loss.py", 10, "MSA141")]["severity"] == "error"


def test_another_model_folder_s_copy_of_the_class_does_not_hide_the_callers(tmp_path):
    # a model zoo: two folders with their own Head; the second folder's mentions name its own
    # copy, so every call of the first copy is still seen
    unit = {"train.py": "from src.head import Head\n\nif __name__ == '__main__':\n    net = Head(64)\n"
                        "    net.set_train()\n", "src/__init__.py": "", "src/head.py": HEAD}
    files = {f"zoo/a/{name}": text for name, text in unit.items()}
    files.update({f"zoo/b/{name}": text for name, text in unit.items()})
    files["zoo/b/train.py"] += "    wide = Head(8, has_dropout=True)\n    other = [Head]\n"
    _write(tmp_path, files)
    found = _check(tmp_path)
    assert found[("zoo/a/src/head.py", 9, "MSA101")]["severity"] == "warning"
    assert found[("zoo/b/src/head.py", 9, "MSA101")]["severity"] == "error"
