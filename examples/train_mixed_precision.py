"""Mixed-precision training of a small MLP classifier, ported from a PyTorch script that
used torch.autocast + GradScaler. It runs, the loss goes down a little, and it is wrong in
quiet ways: `msacclint check --select MSA4,MSA5 examples/` reports them."""

import mindspore as ms
import mindspore.nn as nn
from mindspore import ops
from mindspore.amp import DynamicLossScaler, auto_mixed_precision
from mindspore.train import FixedLossScaleManager, Model


class MLP(nn.Cell):
    def __init__(self, in_features=784, hidden=256, num_classes=10):
        super().__init__()
        self.fc1 = nn.Dense(in_features, hidden)
        self.norm = nn.LayerNorm((hidden,))                   # MSA503: built, never called
        self.fc2 = nn.Dense(hidden, hidden, weight_init="zeros")  # MSA505: hidden layer at zero
        self.relu = nn.ReLU()
        self.head = nn.Dense(hidden, num_classes)

    def construct(self, x):
        x = self.relu(self.fc1(x))
        x = self.relu(self.fc2(x))
        return self.head(x)


def load_pretrained(net, path):
    ms.load_param_into_net(net, ms.load_checkpoint(path))     # MSA506: unloaded names ignored
    return net


net = auto_mixed_precision(MLP(), "O2")
loss_fn = nn.CrossEntropyLoss()
optimizer = nn.Adam(net.trainable_params(), learning_rate=1e-3)
loss_scaler = DynamicLossScaler(scale_value=2**16, scale_factor=2, scale_window=1000)


def forward_fn(data, label):
    logits = net(data)
    loss = loss_fn(logits, label)
    return loss_scaler.scale(loss), logits


grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True)


def train_step(data, label):
    (loss, _), grads = grad_fn(data, label)
    grads = ops.clip_by_global_norm(grads, 1.0)               # MSA401: still scaled
    grads = loss_scaler.unscale(grads)
    if loss_scaler.adjust(ms.amp.all_finite(grads)):
        optimizer(grads)
    return loss_scaler.unscale(loss)


def train_with_model(dataset, epochs):
    manager = FixedLossScaleManager(1024, drop_overflow_update=False)
    momentum = nn.Momentum(net.trainable_params(), learning_rate=0.01, momentum=0.9)
    model = Model(net, loss_fn, momentum, loss_scale_manager=manager)  # MSA403: optimizer never unscales
    model.train(epochs, dataset)


def train(dataset, epochs):
    net.set_train()
    for _ in range(epochs):
        for data, label in dataset.create_tuple_iterator():
            train_step(data, label)



if __name__ == "__main__":
    import sys
    from mindspore.dataset import MnistDataset

    dataset = MnistDataset(sys.argv[1], usage="train", shuffle=True).batch(32)
    train(dataset, epochs=2)
    train_with_model(dataset, epochs=2)
