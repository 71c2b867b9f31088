"""A data-parallel image classifier trained with a hand-written loop, ported from a PyTorch
DDP script. It runs, the loss falls, and it still lands well below the reference:
`msacclint check examples/` says why."""

import numpy as np
import mindspore as ms
import mindspore.dataset as ds
import mindspore.dataset.vision as vision
from mindspore import nn
from mindspore.communication import init, get_rank, get_group_size


class SmallNet(nn.Cell):
    def __init__(self, num_classes=10):
        super().__init__()
        self.conv = nn.Conv2d(3, 32, 3, pad_mode="pad", padding=1, has_bias=False)
        self.bn = nn.BatchNorm2d(32)
        self.relu = nn.ReLU()
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.flatten = nn.Flatten()
        self.drop = nn.Dropout(p=0.2)
        self.fc = nn.Dense(32, num_classes)

    def construct(self, x):
        x = self.pool(self.relu(self.bn(self.conv(x))))
        return self.fc(self.drop(self.flatten(x)))


def create_dataset(path, do_train, batch_size=64):
    data = ds.ImageFolderDataset(path, shuffle=do_train)             # not sharded across devices
    trans = [
        vision.Decode(),
        vision.RandomResizedCrop(224),                                # also runs for evaluation
        vision.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225]),  # no /255
        vision.HWC2CHW(),
    ]
    data = data.map(operations=trans, input_columns="image")
    return data.batch(batch_size, drop_remainder=do_train)


def evaluate(net, data):
    correct = total = 0
    for images, labels in data.create_tuple_iterator():
        logits = net(images)                                          # still in training mode
        correct += int((logits.argmax(1) == labels).sum())
        total += labels.shape[0]
    return correct / total


def main(train_dir, val_dir, epochs=90):
    np.random.seed(1)                                                 # does not seed MindSpore
    init()                                                            # no common seed for the replicas
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
    rank = get_rank()
    net = SmallNet()
    loss_fn = nn.CrossEntropyLoss()
    optimizer = nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)

    def forward(images, labels):
        return loss_fn(net(images), labels)

    grad_fn = ms.value_and_grad(forward, None, optimizer.parameters)  # gradients never all-reduced

    def train_step(images, labels):
        loss, grads = grad_fn(images, labels)
        optimizer(grads)
        return loss

    train_data = create_dataset(train_dir, do_train=True)
    val_data = create_dataset(val_dir, do_train=False)
    net.set_train()
    for epoch in range(epochs):
        for images, labels in train_data.create_tuple_iterator():
            train_step(images, labels)
        if rank == 0:
            print(epoch, evaluate(net, val_data))


if __name__ == "__main__":
    main("data/train", "data/val")
