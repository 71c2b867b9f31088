"""A finding on a layer that a Cell builds in __init__ and never uses is kept at info and says
so (msacclint.analysis.cells.never_used), through the CLI on a real folder, as a user runs it;
a read of the attribute anywhere in the file, or a subclass in another file, keeps it."""

import json
import re
import subprocess
import sys
import textwrap

NET = """\
    import mindspore.nn as nn
    from mindspore import ops


    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(8, 8)
            self.loss = nn.SoftmaxCrossEntropyWithLogits()

        def construct(self, x, y):
            return ops.dist(self.fc(x), y, p=1)
    """


def _check(root, files):
    (root / ".git").mkdir(exist_ok=True)
    for name, text in files.items():
        (root / name).write_text(textwrap.dedent(text))
    # a user of every class, so that no finding is lowered as dormant code (engine/dormant.py)
    classes = re.findall(r"^class (\w+)", textwrap.dedent(files["net.py"]), re.M)
    (root / "use.py").write_text(f"from net import {', '.join(classes)}\n")
    done = subprocess.run([sys.executable, "-m", "msacclint", "check", ".", "--format", "json", "--no-cache",
                           "--exit-zero"], cwd=root, capture_output=True, text=True, check=True)
    return {(d["path"], d["code"]): d for d in json.loads(done.stdout)}


def test_a_loss_built_and_never_called_is_reported_at_info(tmp_path):
    found = _check(tmp_path, {"net.py": NET})[("net.py", "MSA140")]
    assert found["severity"] == "info"
    assert "self.loss is built in __init__ and never used" in found["message"]


def test_a_read_through_another_object_keeps_the_warning(tmp_path):
    found = _check(tmp_path, {"net.py": textwrap.dedent(NET) + "\n\nloss_fn = Net().loss\n"})[("net.py", "MSA140")]
    assert found["severity"] == "warning" and "never used" not in found["message"]


def test_a_subclass_in_another_file_keeps_the_warning(tmp_path):
    child = ("from net import Net\n\n\nclass Child(Net):\n    def construct(self, x, y):\n"
             "        return self.loss(self.fc(x), y)\n")
    found = _check(tmp_path, {"net.py": NET, "child.py": child})[("net.py", "MSA140")]
    assert found["severity"] == "warning"


def test_another_class_reading_its_own_attribute_of_that_name_does_not_keep_it(tmp_path):
    other = ("\n\nclass Other(nn.Cell):\n    def __init__(self):\n        super().__init__()\n"
             "        self.loss = nn.L1Loss()\n\n    def construct(self, x, y):\n        return self.loss(x, y)\n")
    found = _check(tmp_path, {"net.py": textwrap.dedent(NET) + other})[("net.py", "MSA140")]
    assert found["severity"] == "info" and "self.loss is built in __init__ and never used" in found["message"]


def test_a_read_in_a_base_class_of_the_file_keeps_the_warning(tmp_path):
    text = """\
        import mindspore.nn as nn


        class Base(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc = nn.Dense(8, 8)

            def construct(self, x, y):
                return self.loss(self.fc(x), y)


        class Child(Base):
            def __init__(self):
                super().__init__()
                self.loss = nn.SoftmaxCrossEntropyWithLogits()

            def construct(self, x, y):
                return super().construct(x, y) * 2
        """
    found = _check(tmp_path, {"net.py": text})[("net.py", "MSA140")]
    assert found["severity"] == "warning" and "never used" not in found["message"]


def test_a_read_in_commented_out_code_does_not_keep_it(tmp_path):
    commented = textwrap.dedent(NET).replace("        return ops.dist(self.fc(x), y, p=1)",
                                             "        # return self.loss(self.fc(x), y)\n"
                                             "        return ops.dist(self.fc(x), y, p=1)")
    assert "# return self.loss" in commented
    found = _check(tmp_path, {"net.py": commented})[("net.py", "MSA140")]
    assert found["severity"] == "info" and "never used" in found["message"]
