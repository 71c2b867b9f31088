"""Rules about how a training run is set up are lowered to info in a module that pytest
collects as tests (msacclint/analysis/pytest_files.py), through the CLI as a user runs it; the
same code in a script, or in a test-named module without test functions, keeps its warning."""

import json
import subprocess
import sys
import textwrap

TRAINER_TEST = """\
    import mindspore as ms
    from mindspore import nn
    from mindspore.dataset import MnistDataset


    def {name}():
        net = nn.Dense(784, 10)
        opt = nn.AdamWeightDecay(net.trainable_params(), learning_rate=1e-3)
        model = ms.Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True), opt)
        model.train(1, MnistDataset("./mnist", shuffle=True).batch(8))
        assert model.eval(MnistDataset("./mnist", usage="test").batch(8)) is not None


    if __name__ == "__main__":
        {name}()
    """


def _check(root, filename, text):
    (root / filename).write_text(textwrap.dedent(text))
    done = subprocess.run([sys.executable, "-m", "msacclint", "check", filename, "--format", "json",
                           "--no-cache", "--exit-zero"], cwd=root, capture_output=True, text=True, check=True)
    return [d for d in json.loads(done.stdout) if d["code"] == "MSA127"]


def test_a_training_run_inside_a_pytest_test_is_info_and_says_why(tmp_path):
    found = _check(tmp_path, "test_trainer.py", TRAINER_TEST.format(name="test_trainer_trains"))
    assert [d["severity"] for d in found] == ["info"]
    assert "pytest runs this file as tests (test_trainer_trains)" in found[0]["message"]


def test_a_test_class_method_counts_as_a_test(tmp_path):
    text = """\
        import mindspore as ms
        from mindspore import nn
        from mindspore.dataset import MnistDataset


        class TestTrainer:
            def test_run(self):
                net = nn.Dense(784, 10)
                opt = nn.AdamWeightDecay(net.trainable_params(), learning_rate=1e-3)
                model = ms.Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True), opt)
                model.train(1, MnistDataset("./mnist", shuffle=True).batch(8))
        """
    found = _check(tmp_path, "trainer_test.py", text)
    assert [d["severity"] for d in found] == ["info"]
    assert "TestTrainer.test_run" in found[0]["message"]


def test_the_same_run_in_a_script_keeps_its_warning(tmp_path):
    found = _check(tmp_path, "train.py", TRAINER_TEST.format(name="main"))
    assert [d["severity"] for d in found] == ["warning"]
    assert "pytest" not in found[0]["message"]


def test_a_test_named_module_without_test_functions_keeps_its_warning(tmp_path):
    found = _check(tmp_path, "test_helpers.py", TRAINER_TEST.format(name="build_and_train"))
    assert [d["severity"] for d in found] == ["warning"]
