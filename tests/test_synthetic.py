"""Rules about how a training run is set up are lowered to info in a file whose training data
are arrays it generates itself (msacclint/analysis/synthetic.py), through the CLI as a user
runs it; the same file fed from a dataset that reads files keeps its warnings and errors."""

import json
import subprocess
import sys
import textwrap

PARITY_TEST = """\
    import numpy as np
    import mindspore as ms
    import mindspore.dataset as ds
    from mindspore import nn
    from mindspore.communication import init


    class TestData:
        def __init__(self, input_data, label_data, data_size=None, mask=None):
            self.input_data, self.label_data = input_data, label_data

        def __getitem__(self, index):
            return self.input_data[index], self.label_data[index]

        def __len__(self):
            return len(self.input_data)


    def run(args):
        init()
        net = nn.Dense(16, 4)
        opt = nn.SGD(net.trainable_params(), learning_rate=0.01)
        grad_fn = ms.value_and_grad(lambda x, y: net(x).sum(), None, opt.parameters)
        input_data = np.random.random((8, 16)).astype(np.float32)
        label_data = np.zeros((8,)).astype(np.int32)
        if args.causal:
            mask = (1 - np.tril(np.ones((8, 8)))) * -1e4
        else:
            mask = np.zeros((8, 8))
        dataset = TestData(input_data=input_data, label_data=label_data, data_size=args.size, mask=mask)
        dataset = ds.GeneratorDataset(dataset, column_names=["x", "y"], shuffle=False)
        for x, y in dataset:
            loss, grads = grad_fn(x, y)
            opt(grads)


    if __name__ == "__main__":
        run(ARGS)
    """

REAL_DATA = PARITY_TEST.replace(
    'dataset = TestData(input_data=input_data, label_data=label_data, data_size=args.size, mask=mask)\n'
    '        dataset = ds.GeneratorDataset(dataset, column_names=["x", "y"], shuffle=False)',
    'dataset = ds.ImageFolderDataset(args.data_dir, shuffle=False)')

DIRECT_STEP = """\
    import numpy as np
    import mindspore as ms
    from mindspore import Tensor, nn
    from mindspore.communication import init

    init()
    net = nn.Dense(16, 4)
    opt = nn.SGD(net.trainable_params(), learning_rate=0.01)
    grad_fn = ms.value_and_grad(lambda x: net(x).sum(), None, opt.parameters)
    inputs = Tensor(np.random.random((2, 16)).astype(np.float32))
    loss, grads = grad_fn(inputs)
    opt(grads)
    """


def _check(root, name, text):
    (root / name).write_text(textwrap.dedent(text))
    done = subprocess.run([sys.executable, "-m", "msacclint", "check", name, "--format", "json", "--no-cache",
                           "--exit-zero"], cwd=root, capture_output=True, text=True, check=True)
    return {d["code"]: d for d in json.loads(done.stdout)}


def test_a_parity_test_on_generated_arrays_reports_its_set_up_at_info(tmp_path):
    found = _check(tmp_path, "run_parity.py", PARITY_TEST)
    for code in ("MSA301", "MSA602"):
        assert found[code]["severity"] == "info", found[code]
        assert "arrays it generates itself (numpy.random.random)" in found[code]["message"]


def test_the_same_script_on_a_dataset_that_reads_files_keeps_its_severities(tmp_path):
    found = _check(tmp_path, "train.py", REAL_DATA)
    assert found["MSA602"]["severity"] == "error"
    assert found["MSA301"]["severity"] == "warning"
    assert "generates" not in found["MSA602"]["message"]


def test_a_step_fed_only_generated_tensors_without_a_dataset(tmp_path):
    found = _check(tmp_path, "bench_step.py", DIRECT_STEP)
    assert found["MSA602"]["severity"] == "info"
    fed_from_a_parameter = DIRECT_STEP.replace("loss, grads = grad_fn(inputs)", "loss, grads = grad_fn(batch)")
    found = _check(tmp_path, "bench_step.py", fed_from_a_parameter)
    assert found["MSA602"]["severity"] == "error"


SAVED_AND_LOADED = """\
    import numpy as np
    import mindspore as ms
    import mindspore.dataset as ds
    from mindspore import nn
    from mindspore.communication import init

    GOLDEN = "./data/golden_input_and_loss.npy"


    class Pairs:
        def __init__(self, input_data, label_data):
            self.input_data, self.label_data = input_data, label_data

        def __getitem__(self, index):
            return self.input_data[index], self.label_data[index]

        def __len__(self):
            return len(self.input_data)


    def train(net, dataset, opt):
        grad_fn = ms.value_and_grad(lambda x, y: net(x).sum(), None, opt.parameters)
        losses = []
        for x, y in dataset:
            loss, grads = grad_fn(x, y)
            opt(grads)
            losses.append(loss)
        return losses


    def generate_golden():
        input_data = np.random.random((8, 16)).astype(np.float32)
        label_data = np.zeros((8,)).astype(np.int32)
        net = nn.Dense(16, 4)
        dataset = ds.GeneratorDataset(Pairs(input_data, label_data), column_names=["x", "y"], shuffle=False)
        losses = train(net, dataset, nn.SGD(net.trainable_params(), learning_rate=0.01))
        golden = {"input": input_data, "loss": np.array([x.asnumpy() for x in losses])}
        np.save(GOLDEN, golden)


    def run_parallel():
        init()
        golden = np.load(GOLDEN, allow_pickle=True).tolist()
        input_data = golden[KEY]
        label_data = np.zeros((8,)).astype(np.int32)
        net = nn.Dense(16, 4)
        dataset = ds.GeneratorDataset(Pairs(input_data, label_data), column_names=["x", "y"], shuffle=False)
        train(net, dataset, nn.SGD(net.trainable_params(), learning_rate=0.01))


    if __name__ == "__main__":
        generate_golden()
        run_parallel()
    """


def test_arrays_the_file_saves_and_loads_back_are_generated_data(tmp_path):
    """A golden run saves its generated inputs with np.save and the parallel run loads them back
    (the mindformers parity-test shape): both datasets are made up."""
    found = _check(tmp_path, "run_golden.py", SAVED_AND_LOADED.replace("KEY", '"input"'))
    assert found["MSA602"]["severity"] == "info", found["MSA602"]
    # the entry the key picks decides: the losses saved beside the inputs are not made up
    found = _check(tmp_path, "run_golden.py", SAVED_AND_LOADED.replace("KEY", '"loss"'))
    assert found["MSA602"]["severity"] == "error", found["MSA602"]
    # a file loaded that this file did not save is real data
    found = _check(tmp_path, "run_golden.py", SAVED_AND_LOADED.replace("KEY", '"input"').replace(
        "np.load(GOLDEN,", 'np.load("./data/recorded_batches.npy",'))
    assert found["MSA602"]["severity"] == "error", found["MSA602"]
