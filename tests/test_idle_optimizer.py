"""An optimizer that takes no step in its file (an evaluation script that copied the training
set-up: the optimizer only goes into a Model that is never trained there) has its set-up
findings lowered to info, with the reason (msacclint/analysis/training.py, idle_optimizer);
through the CLI as a user runs it."""

import json
import subprocess
import sys
import textwrap

EVAL_SCRIPT = """\
    import mindspore as ms
    from mindspore import nn
    from mindspore.dataset import Cifar10Dataset
    from src.model import ViT


    def main(args):
        net = ViT(num_classes=10)
        optimizer = nn.AdamWeightDecay(net.trainable_params(), learning_rate=args.lr)
        ms.load_param_into_net(net, ms.load_checkpoint(args.ckpt))
        model = ms.Model(net, loss_fn=nn.SoftmaxCrossEntropyWithLogits(sparse=True), optimizer=optimizer,
                         metrics={"acc"})
        print(model.eval(Cifar10Dataset(args.data, usage="test").batch(32)))


    if __name__ == "__main__":
        main(parse_args())
    """


def _msa127(root, text):
    (root / "eval.py").write_text(textwrap.dedent(text))
    done = subprocess.run([sys.executable, "-m", "msacclint", "check", "eval.py", "--format", "json",
                           "--no-cache", "--exit-zero"], cwd=root, capture_output=True, text=True, check=True)
    return [d for d in json.loads(done.stdout) if d["code"] == "MSA127"]


def test_an_optimizer_that_only_goes_into_an_evaluated_model_is_info(tmp_path):
    found = _msa127(tmp_path, EVAL_SCRIPT)
    assert [d["severity"] for d in found] == ["info"]
    assert "this file never trains" in found[0]["message"]


def test_the_same_set_up_trained_keeps_its_warning(tmp_path):
    found = _msa127(tmp_path, EVAL_SCRIPT.replace(
        "print(model.eval(Cifar10Dataset(args.data, usage=\"test\").batch(32)))",
        "model.train(90, Cifar10Dataset(args.data, usage=\"train\").batch(32))"))
    assert [d["severity"] for d in found] == ["warning"]


def test_an_optimizer_handed_to_other_code_keeps_its_warning(tmp_path):
    found = _msa127(tmp_path, EVAL_SCRIPT.replace(
        "print(model.eval(Cifar10Dataset(args.data, usage=\"test\").batch(32)))",
        "run_epochs(net, optimizer, args)"))
    assert [d["severity"] for d in found] == ["warning"]


def test_an_optimizer_returned_by_a_builder_keeps_its_warning(tmp_path):
    # a caller, so that the builder is not dormant code (engine/dormant.py)
    (tmp_path / "train.py").write_text("from eval import build_optimizer\n\nopt = build_optimizer(net, 1e-3)\n")
    found = _msa127(tmp_path, """\
        from mindspore import nn

        def build_optimizer(net, lr):
            optimizer = nn.AdamWeightDecay(net.trainable_params(), learning_rate=lr)
            return optimizer
        """)
    assert [d["severity"] for d in found] == ["warning"]
