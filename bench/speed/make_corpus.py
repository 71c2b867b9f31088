"""Write a synthetic corpus: MindSpore model/training files plus files that never mention it.

    python bench/speed/make_corpus.py OUT [--files N] [--plain-share 0.8] [--seed 0]

The MindSpore files are shaped like model-zoo code (a backbone of Cells with Conv/BatchNorm
blocks, a head with Dropout, a dataset pipeline, a training loop), 150-400 lines each, with
the occasional accuracy mistake so that the rules have something to report. The plain
files are the utilities a real repository also holds (config parsing, logging, numpy
metrics) and are what the pre-filter must skip cheaply. Deterministic for a given seed.
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

HEADERS = [
    "import mindspore as ms\nimport mindspore.nn as nn\nfrom mindspore import ops, Tensor\n",
    "import mindspore\nfrom mindspore import nn, ops\nimport mindspore.common.dtype as mstype\n",
    "from mindspore import nn\nimport mindspore.ops as ops\nimport mindspore as ms\nimport numpy as np\n",
]

BLOCK = '''

class {name}(nn.Cell):
    """Residual block {index} of the backbone."""

    def __init__(self, in_channels, out_channels, stride=1, momentum={momentum}):
        super({name}, self).__init__()
        self.conv1 = nn.Conv2d(in_channels, out_channels, 3, stride=stride, pad_mode="pad", padding=1)
        self.bn1 = nn.BatchNorm2d(out_channels, momentum=momentum)
        self.conv2 = nn.Conv2d(out_channels, out_channels, 3, pad_mode="pad", padding=1)
        self.bn2 = nn.BatchNorm2d(out_channels)
        self.relu = nn.ReLU()
        self.down = None
        if stride != 1 or in_channels != out_channels:
            self.down = nn.SequentialCell([
                nn.Conv2d(in_channels, out_channels, 1, stride=stride),
                nn.BatchNorm2d(out_channels),
            ])

    def construct(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        if self.down is not None:
            identity = self.down(x)
        return self.relu(out + identity)
'''

HEAD = '''

class {name}(nn.Cell):
    """Classifier head: pooling, dropout and a dense layer."""

    def __init__(self, in_channels, num_classes=1000, drop_rate={drop}):
        super().__init__()
        self.pool = {pool}
        self.flatten = nn.Flatten()
        self.dropout = nn.Dropout({dropout_arg})
        self.dense = nn.Dense(in_channels, num_classes)

    def construct(self, x):
        x = self.pool(x)
        x = self.flatten(x)
        x = self.dropout(x)
        return self.dense(x)
'''

NETWORK = '''

class {name}(nn.Cell):
    """The whole network: stem, {depth} stages and the head."""

    def __init__(self, num_classes=1000, width={width}):
        super().__init__()
        self.stem = nn.SequentialCell([
            nn.Conv2d(3, width, 7, stride=2, pad_mode="pad", padding=3),
            nn.BatchNorm2d(width),
            nn.ReLU(),
            nn.MaxPool2d(kernel_size=3, stride=2, pad_mode="same"),
        ])
        layers = []
        channels = width
        for i in range({depth}):
            layers.append({block}(channels, channels * 2, stride=2))
            channels *= 2
        self.layers = nn.SequentialCell(layers)
        self.head = {head}(channels, num_classes)

    def construct(self, x):
        x = self.stem(x)
        x = self.layers(x)
        return self.head(x)
'''

TRAIN = '''

def create_dataset(path, batch_size={batch}, training=True):
    import mindspore.dataset as ds
    import mindspore.dataset.vision as vision

    data = ds.ImageFolderDataset(path, shuffle=training, num_parallel_workers=4)
    ops_list = [vision.Decode(), vision.Resize((224, 224)), vision.HWC2CHW()]
    data = data.map(operations=ops_list, input_columns="image")
    return data.batch(batch_size, drop_remainder=training)


def train(args):
    net = {network}(num_classes=args.num_classes)
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    optimizer = nn.Momentum(net.trainable_params(), learning_rate=args.lr, momentum=0.9)

    def forward(images, labels):
        logits = net(images)
        return loss_fn(logits, labels)

    grad_fn = ms.value_and_grad(forward, None, optimizer.parameters)
    dataset = create_dataset(args.data, training=True)
    net.set_train()
    for epoch in range(args.epochs):
        for step, (images, labels) in enumerate(dataset.create_tuple_iterator()):
            loss, grads = grad_fn(images, labels)
            optimizer(grads)
            if step % {log_every} == 0:
                print(f"epoch {{epoch}} step {{step}} loss {{loss}}")
    return net


def evaluate(net, path):
    net.set_train(False)
    dataset = create_dataset(path, training=False)
    correct = total = 0
    for images, labels in dataset.create_tuple_iterator():
        pred = net(images).argmax(axis=1)
        correct += int((pred == labels).sum())
        total += labels.shape[0]
    return correct / max(total, 1)
'''

PLAIN = '''"""Helpers {index}: configuration, logging and metrics (no framework code)."""

import argparse
import json
import logging
import os
from collections import OrderedDict

import numpy as np

LOGGER = logging.getLogger(__name__)


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description="experiment {index}")
    parser.add_argument("--data", default="./data")
    parser.add_argument("--epochs", type=int, default={epochs})
    parser.add_argument("--lr", type=float, default={lr})
    parser.add_argument("--num-classes", type=int, default=1000)
    return parser.parse_args(argv)


class AverageMeter:
    def __init__(self, name):
        self.name = name
        self.reset()

    def reset(self):
        self.val = self.avg = self.sum = 0.0
        self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


def topk_accuracy(logits, labels, k={k}):
    order = np.argsort(-logits, axis=1)[:, :k]
    return float(np.mean([label in row for row, label in zip(order, labels)]))


def load_config(path):
    with open(path) as handle:
        cfg = json.load(handle, object_pairs_hook=OrderedDict)
    for key, value in cfg.items():
        LOGGER.info("%s = %s", key, value)
    return cfg


def save_checkpoint_index(folder, names):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "index.json"), "w") as handle:
        json.dump(sorted(names), handle, indent=2)
'''


def mindspore_file(rng: random.Random, index: int) -> str:
    parts = [f'"""Model {index}: a generated MindSpore network with its training loop."""\n\n',
             rng.choice(HEADERS)]
    blocks = []
    for b in range(rng.randint(2, 5)):
        name = f"Block{index}_{b}"
        momentum = rng.choice(["0.9", "0.9", "0.997", "0.1"])  # 0.1 is the ported mistake
        parts.append(BLOCK.format(name=name, index=b, momentum=momentum))
        blocks.append(name)
    head = f"Head{index}"
    drop = rng.choice(["0.1", "0.2", "0.5"])
    parts.append(HEAD.format(
        name=head, drop=drop,
        pool=rng.choice(["nn.AvgPool2d(7, stride=1)", "nn.AvgPool2d(2)", "ops.AdaptiveAvgPool2D(1)"]),
        dropout_arg=rng.choice(["p=drop_rate", "p=drop_rate", "keep_prob=1 - drop_rate", "drop_rate"]),
    ))
    network = f"Net{index}"
    parts.append(NETWORK.format(name=network, depth=rng.randint(2, 4), width=rng.choice([32, 64]),
                                block=rng.choice(blocks), head=head))
    parts.append(TRAIN.format(network=network, batch=rng.choice([32, 64, 128]),
                              log_every=rng.choice([10, 50, 100])))
    return "".join(parts)


def plain_file(rng: random.Random, index: int) -> str:
    return PLAIN.format(index=index, epochs=rng.randint(10, 300), lr=rng.choice([0.1, 0.01, 0.001]),
                        k=rng.choice([1, 5]))


def write_corpus(out: Path, files: int, plain_share: float, seed: int = 0) -> int:
    """Write the corpus under ``out`` (packages of 50 files); returns the file count."""
    rng = random.Random(seed)
    plain = round(files * plain_share)
    kinds = ["plain"] * plain + ["mindspore"] * (files - plain)
    rng.shuffle(kinds)
    for i, kind in enumerate(kinds):
        folder = out / f"pkg{i // 50:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        text = plain_file(rng, i) if kind == "plain" else mindspore_file(rng, i)
        (folder / f"{kind}_{i:05d}.py").write_text(text, encoding="utf-8")
    return files


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--plain-share", type=float, default=0.0,
                        help="share of files that never mention mindspore (0..1)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    count = write_corpus(args.out, args.files, args.plain_share, args.seed)
    print(f"wrote {count} files to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
