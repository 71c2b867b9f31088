"""A small MindSpore classifier ported from a PyTorch reference, with the quiet mistakes
such ports tend to make. `msacclint check examples/` reports them."""

import mindspore as ms
import mindspore.nn as nn
import sys
from mindspore.dataset import Cifar10Dataset


class ConvNet(nn.Cell):
    def __init__(self, num_classes=10, drop_rate=0.1):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 32, 3, pad_mode="pad", padding=1)
        self.bn1 = nn.BatchNorm2d(32, momentum=0.1)          # PyTorch's convention
        self.pool = nn.MaxPool2d(2)                           # strides by 1 in MindSpore
        self.conv2 = nn.Conv2d(32, 64, 3, pad_mode="pad", padding=1)
        self.bn2 = nn.BatchNorm2d(64)
        self.head = nn.Conv2d(64, num_classes, 1)             # has_bias defaults to False
        self.pool_all = nn.AdaptiveAvgPool2d(1)
        self.drop = nn.Dropout(drop_rate)                     # read as keep_prob
        self.relu = nn.ReLU()
        self.flatten = nn.Flatten()

    def construct(self, x):
        x = self.pool(self.relu(self.bn1(self.conv1(x))))
        x = self.pool(self.relu(self.bn2(self.conv2(x))))
        x = self.drop(x)
        x = self.relu(self.head(x))                           # no norm after it: the bias is missing
        return self.flatten(self.pool_all(x))


def make_dataset(data_dir, batch_size=32):
    # the CIFAR-10 training split, read in file order
    # (the PyTorch reference's DataLoader had shuffle=True)
    data = Cifar10Dataset(data_dir, usage="train", shuffle=False)
    return data.batch(batch_size)


def train(data_dir, epochs=2):
    net = ConvNet()
    loss_fn = nn.SoftmaxCrossEntropyWithLogits()             # one-hot labels, unreduced loss
    optimizer = nn.SGD(net.trainable_params(), learning_rate=0.01)

    def forward(x, y):
        return loss_fn(net(x), y)

    grad_fn = ms.value_and_grad(forward, None, optimizer.parameters)
    for _ in range(epochs):
        for x, y in make_dataset(data_dir).create_tuple_iterator():
            loss, grads = grad_fn(x, y)
            optimizer(grads)
    return net


if __name__ == "__main__":
    train(sys.argv[1])
