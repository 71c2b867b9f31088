"""Errors in code that nothing in the project refers to are reported as dormant warnings
(msacclint/engine/dormant.py), through the CLI on a real folder, as a user runs it."""

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


def test_without_the_project_layer_nothing_is_called_dormant(tmp_path):
    _write(tmp_path, {"pkg/blocks.py": BLOCKS})
    found = _check(tmp_path, "--no-project")
    assert {d["severity"] for d in found.values()} == {"error"}
    assert not any("dormant" in d["message"] for d in found.values())


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
    _write(tmp_path, {"pkg/__init__.py": "", "pkg/blocks.py": BLOCKS})

    def severity():
        done = subprocess.run([sys.executable, "-m", "msacclint", "check", ".", "--format", "json", "--exit-zero"],
                              cwd=tmp_path, capture_output=True, text=True, check=True)
        return {d["line"]: d["severity"] for d in json.loads(done.stdout) if d["path"] == "pkg/blocks.py"}

    assert severity() == {8: "warning", 18: "warning"}
    (tmp_path / "pkg" / "net.py").write_text("from pkg.blocks import Mlp\nnet = Mlp()\n")
    assert severity() == {8: "error", 18: "warning"}


def test_a_class_of_the_same_name_defined_elsewhere_is_not_a_use(tmp_path):
    other = "import mindspore.nn as nn\n\n\nclass Mlp(nn.Cell):\n    pass\n\n\nnet = Mlp()\n"
    _write(tmp_path, {"pkg/__init__.py": "", "pkg/blocks.py": BLOCKS, "pkg/other.py": other,
                      "pkg/net.py": "from pkg.blocks import CMlp\nnet = CMlp()\n"})
    found = _check(tmp_path)
    assert found[("pkg/blocks.py", 8, "MSA101")]["severity"] == "warning"
    assert found[("pkg/blocks.py", 18, "MSA101")]["severity"] == "error"
