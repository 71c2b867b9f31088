"""The behavioural checks rules/probe.toml names (``behaviour = "..."``).

Each takes the resolved API object and its check table and returns a plain value that
is compared with the check's ``expected``. They run on tiny tensors, seeded where random,
and build only MindSpore's own cells and datasets: never user code.
"""

from __future__ import annotations

import inspect
import math
from typing import Any, Callable, Dict, List

import mindspore as ms
import numpy as np

BEHAVIOURS: Dict[str, Callable[[Any, Dict[str, Any]], Any]] = {}


def behaviour(fn: Callable[[Any, Dict[str, Any]], Any]) -> Callable[[Any, Dict[str, Any]], Any]:
    BEHAVIOURS[fn.__name__] = fn
    return fn


def build(target: Any, check: Dict[str, Any]) -> Any:
    return target(*check.get("args", ()), **check.get("kwargs", {}))


def tensor(values: Any) -> ms.Tensor:
    return ms.Tensor(np.asarray(values, dtype=np.float32))


def _rounded(values: Any, digits: int = 6) -> Any:
    array = np.asarray(values, dtype=np.float64)
    if array.ndim == 0:
        return round(float(array), digits)
    return [_rounded(v, digits) for v in array]


@behaviour
def output_shape(target, check):
    cell = build(target, check)
    cell.set_train(False)
    return list(cell(ms.Tensor(np.ones(check["input_shape"], dtype=np.float32))).shape)


@behaviour
def function_output_shape(target, check):
    x = ms.Tensor(np.ones(check["input_shape"], dtype=np.float32))
    return list(target(x, *check.get("args", ()), **check.get("kwargs", {})).shape)


@behaviour
def parameter_names(target, check):
    return [p.name for p in build(target, check).get_parameters()]


@behaviour
def weight_bound_ratio(target, check):
    """max|w| divided by PyTorch's kaiming-uniform bound 1/sqrt(fan_in): about 1.0 when the
    default initialisation matches PyTorch's. Rounded to 2 digits: the weights are drawn
    unseeded and the 4th digit of the maximum of 36,864 draws varies between runs (0.9999 or
    1.0), which made a fresh probe disagree with its own snapshot."""
    weight = build(target, check).weight.asnumpy()
    fan_in = int(np.prod(weight.shape[1:]))
    return round(float(np.abs(weight).max()) * math.sqrt(fan_in), 2)


@behaviour
def first_parameter(target, check):
    names = [n for n in inspect.signature(target).parameters if n != "self"]
    return names[0] if names else None


def _zero_share(output: ms.Tensor) -> float:
    return round(float((output.asnumpy() == 0).mean()), 3)


@behaviour
def dropout_zero_share(target, check):
    ms.set_seed(1)
    cell = build(target, check)
    cell.set_train(True)
    return _zero_share(cell(ms.Tensor(np.ones((200, 500), dtype=np.float32))))


@behaviour
def ops_dropout_zero_share(target, check):
    ms.set_seed(1)
    return _zero_share(target(ms.Tensor(np.ones((200, 500), dtype=np.float32)), p=0.1))


def _batch(mean: float = 10.0) -> np.ndarray:
    return (np.random.RandomState(0).randn(8, 3, 4, 4) * 2 + mean).astype(np.float32)


@behaviour
def batchnorm_update_share(target, check):
    """moving_mean after one training step from 0, divided by the batch mean: the weight
    the update gives the NEW value."""
    cell = target(3, **check.get("kwargs", {}))
    cell.set_train(True)
    x = _batch()
    cell(ms.Tensor(x))
    moving = cell.moving_mean.asnumpy()
    return round(float(np.mean(moving / x.mean(axis=(0, 2, 3)))), 4)


@behaviour
def batchnorm_uses_batch_stats(target, check):
    """After set_train(False): True when the output is normalised with the batch's own
    statistics (mean about 0), False when with the moving ones (mean about 10)."""
    cell = target(3, **check.get("kwargs", {}))
    cell.set_train(False)
    return bool(abs(float(cell(ms.Tensor(_batch())).asnumpy().mean())) < 1.0)


@behaviour
def layernorm_first_value(target, check):
    cell = target((4,))
    return round(float(cell(tensor([[0.0, 1e-3, 2e-3, 3e-3]])).asnumpy()[0, 0]), 5)


@behaviour
def cell_at_scalar(target, check):
    return round(float(build(target, check)(tensor([check["value"]])).asnumpy()[0]), 6)


@behaviour
def loss_output_shape(target, check):
    cell = build(target, check)
    rng = np.random.RandomState(0)
    if check.get("one_hot"):
        logits = rng.randn(4, 3).astype(np.float32)
        labels = np.eye(3, dtype=np.float32)[[0, 1, 2, 0]]
        return list(cell(ms.Tensor(logits), ms.Tensor(labels)).shape)
    return list(cell(tensor(rng.randn(4)), tensor(rng.randn(4))).shape)


@behaviour
def grad_of_vector_output(target, check):
    return _rounded(target(lambda x: x * x)(tensor([1.0, 2.0, 3.0])).asnumpy())


@behaviour
def table_std(target, check):
    return round(float(getattr(build(target, check), check["attribute"]).asnumpy().std()), 4)


@behaviour
def decayed_parameters(target, check):
    class Net(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = ms.nn.Dense(2, 2)
            self.bn = ms.nn.BatchNorm1d(2)

        def construct(self, x):
            return self.bn(self.fc(x))

    net = Net()
    optimizer = target(net.trainable_params(), weight_decay=0.1)
    return [p.name for p, decayed in zip(optimizer.parameters, optimizer.decay_flags) if decayed]


@behaviour
def learning_rate_list_steps(target, check):
    weight = ms.Parameter(tensor([1.0]), name="w")
    optimizer = target([weight], learning_rate=[0.1, 0.1])
    seen: List[float] = []
    for _ in range(2):
        optimizer((tensor([1.0]),))
        seen.append(round(float(weight.asnumpy()[0]), 6))
    return seen


@behaviour
def clip_by_global_norm_returns_new(target, check):
    grads = (tensor([3.0, 4.0]), tensor([12.0]))
    clipped = target(grads)
    unchanged = grads[0].asnumpy().tolist() == [3.0, 4.0] and grads[1].asnumpy().tolist() == [12.0]
    return bool(unchanged and abs(float(clipped[1].asnumpy()[0]) - 12.0 / 13.0) < 1e-4)


@behaviour
def clip_by_norm_values(target, check):
    return _rounded(target()(tensor([3.0, 4.0]), tensor(1.0)).asnumpy())


@behaviour
def amp_keep_batchnorm_fp32(target, check):
    from mindspore.train.amp import _config_level

    return {level: bool(_config_level[level]["keep_batchnorm_fp32"]) for level in ("O2", "O3")}


@behaviour
def ascend_precision_mode(target, check):
    return ms.get_context("ascend_config").get("precision_mode")


@behaviour
def load_mismatched_raises(target, check):
    net = ms.nn.Dense(2, 2)
    params = {"other.weight": ms.Parameter(tensor(np.zeros((2, 2))), name="other.weight")}
    try:
        target(net, params, strict_load=True)
    except Exception:  # noqa: BLE001 - raising is the observation
        return True
    return False


@behaviour
def std_of_four(target, check):
    return round(float(target(tensor([1.0, 2.0, 3.0, 4.0])).asnumpy()), 6)


@behaviour
def dataset_order_shuffled(target, check):
    import mindspore.dataset as ds

    class Source:
        def __getitem__(self, index):
            return (np.array([index], dtype=np.int32),)

        def __len__(self):
            return 12

    def generate():
        for index in range(12):
            yield (np.array([index], dtype=np.int32),)

    source = Source() if check.get("random_access") else generate
    ds.config.set_seed(7)
    dataset = target(source, ["x"])
    order = [int(row[0][0]) for row in dataset.create_tuple_iterator(output_numpy=True, num_epochs=1)]
    return order != list(range(12))


@behaviour
def normalize_raw_pixel(target, check):
    op = target(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])
    return round(float(op(np.full((2, 2, 3), 128, dtype=np.uint8))[0, 0, 0]), 3)


@behaviour
def dataset_seed_after_set_seed(target, check):
    import mindspore.dataset as ds

    target(1234)
    return int(ds.config.get_seed())


# -- issue 14 -------------------------------------------------------------------------------
@behaviour
def ops_batchnorm_new_weight(target, check):
    """ops.BatchNorm(is_training=True, momentum=0.9) on a batch of 10s from a moving mean of
    0: the moving mean after one step (9.0 when momentum weights the NEW batch)."""
    bn = target(is_training=True, **check.get("kwargs", {}))
    x = ms.Tensor(np.full((2, 3, 2, 2), 10.0, dtype=np.float32))
    scale, bias = ms.Tensor(np.ones(3, np.float32)), ms.Tensor(np.zeros(3, np.float32))
    mean = ms.Parameter(ms.Tensor(np.zeros(3, np.float32)), name="mean")
    var = ms.Parameter(ms.Tensor(np.ones(3, np.float32)), name="var")
    bn(x, scale, bias, mean, var)
    return round(float(mean.asnumpy()[0]), 4)


@behaviour
def gradient_of_tuple_output(target, check):
    """d/dx of f(x) = (sum(2x), sum(3x)) by value_and_grad: [without has_aux, with has_aux]
    (5.0 when every output is differentiated, 2.0 for the first one only)."""
    def f(x):
        return (x * 2).sum(), (x * 3).sum()

    x = tensor([1.0])
    without = target(f)(x)[1]
    with_aux = target(f, has_aux=True)(x)[1]
    return [round(float(without.asnumpy()[0]), 4), round(float(with_aux.asnumpy()[0]), 4)]


@behaviour
def embedding_padding_row_gradient(target, check):
    """The gradient of the padding row of nn.Embedding(4, 3, padding_idx=0) for two
    padding ids and a sum loss ([0, 0, 0] when the row is frozen, as in PyTorch)."""
    cell = target(4, 3, padding_idx=0)
    ids = ms.Tensor(np.array([[0, 0, 1]], dtype=np.int32))
    grads = ms.grad(lambda i: cell(i).sum(), None, cell.trainable_params())(ids)
    return _rounded(grads[0].asnumpy()[0], 4)


@behaviour
def data_parallel_gradients_mean(target, check):
    """get_auto_parallel_context('gradients_mean') after setting DATA_PARALLEL only."""
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL)
    try:
        return bool(ms.get_auto_parallel_context("gradients_mean"))
    finally:
        ms.reset_auto_parallel_context()


# -- issue 14, shared/api_gaps.md rows ---------------------------------------------------
@behaviour
def gather_slices_shape(target, check):
    """The shape of ops.gather on a (2, 3) tensor with a (2, 1) index along axis 1:
    (2, 2, 1) when whole slices are selected, (2, 1) for torch.gather's element-wise pick."""
    x = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    index = ms.Tensor(np.array([[0], [2]], dtype=np.int32))
    return list(target(x, index, 1).shape)


@behaviour
def resize_downscale_std(target, check):
    """vision.Resize((64, 64)) of a seeded 256x256 noise image, given as a NumPy array and as
    a PIL image: the pixel standard deviations (an antialiased resize averages about 16
    pixels per output pixel and gives a small spread; one that samples gives a large one)."""
    from PIL import Image

    image = np.random.default_rng(0).integers(0, 256, size=(256, 256, 3), dtype=np.uint8)
    resize = target((64, 64))
    as_array = np.asarray(resize(image), dtype=np.float64)
    as_pil = np.asarray(resize(Image.fromarray(image)), dtype=np.float64)
    return [round(float(np.std(as_array)), 1), round(float(np.std(as_pil)), 1)]


@behaviour
def parameter_is_trainable(target, check):
    """Whether a Parameter built from a NumPy table (a ported buffer) is trainable."""
    class Cell(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.pos_table = target(ms.Tensor(np.zeros(3, dtype=np.float32)), name="pos_table")

        def construct(self, x):
            return x + self.pos_table

    return "pos_table" in [p.name for p in Cell().trainable_params()]


@behaviour
def python_random_in_construct(target, check):
    """How many branches `if random.random() < 0.5` in construct takes over 20 calls, in
    GRAPH_MODE and in PyNative (1 when the draw is a compile-time constant)."""
    import random

    class Branch(target):
        def construct(self, x):
            if random.random() < 0.5:
                return x + 1
            return x - 1

    def branches():
        cell, seen = Branch(), set()
        for _ in range(20):
            seen.add(float(cell(tensor([0.0])).asnumpy()[0]))
        return len(seen)

    random.seed(0)
    mode = ms.get_context("mode")
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        graph = branches()
    finally:
        ms.set_context(mode=mode)
    return [graph, branches()]


@behaviour
def amp_black_list(target, check):
    """The class names of amp.get_black_list(): the cells the O2 level keeps in float32."""
    return sorted(cls.__name__ for cls in target())
