"""Benchmark models, written once for our framework and once for PyTorch (when installed)."""
from __future__ import annotations

import os
import sys

import numpy as np

import runtime as ms
from runtime import nn, Tensor

# The tutorial LeNet5 is defined once, in the demo; the benchmarks measure that same network.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples"))
from lenet_demo import LeNet5  # noqa: E402


class MLP(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(784, 256)
        self.fc2 = nn.Dense(256, 256)
        self.fc3 = nn.Dense(256, 10)
        self.relu = nn.ReLU()

    def construct(self, x):
        return self.fc3(self.relu(self.fc2(self.relu(self.fc1(x)))))


def ours_train_step(model: str, batch: int):
    """(step_fn, inputs) for a Momentum(0.01, 0.9) train step of ``model``."""
    ms.set_seed(0)
    net = LeNet5() if model == "lenet" else MLP()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), 0.01, 0.9)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt)
    step.set_train(True)
    return step, _inputs(model, batch)


def ours_inference(model: str, batch: int):
    ms.set_seed(0)
    net = LeNet5() if model == "lenet" else MLP()
    net.set_train(False)
    return net, _inputs(model, batch)[:1]


def _inputs(model, batch):
    rng = np.random.default_rng(0)
    shape = (batch, 1, 32, 32) if model == "lenet" else (batch, 784)
    return (Tensor(rng.normal(size=shape).astype(np.float32)),
            Tensor(rng.integers(0, 10, batch).astype(np.int32)))


def torch_net(model: str, batch: int):
    """(net, x, y) for PyTorch with the same architecture."""
    import torch
    torch.manual_seed(0)
    # Same thread count as our BLAS (runtime.device.limit_blas_threads): on this 2-core machine a
    # 2-thread torch under any other load spins in OpenMP (370 ms instead of 4 ms per LeNet step).
    torch.set_num_threads(int(os.environ.get("RUNTIME_BLAS_THREADS", "1")))
    if model == "lenet":
        net = torch.nn.Sequential(
            torch.nn.Conv2d(1, 6, 5), torch.nn.ReLU(), torch.nn.MaxPool2d(2, 2),
            torch.nn.Conv2d(6, 16, 5), torch.nn.ReLU(), torch.nn.MaxPool2d(2, 2), torch.nn.Flatten(),
            torch.nn.Linear(400, 120), torch.nn.ReLU(), torch.nn.Linear(120, 84), torch.nn.ReLU(),
            torch.nn.Linear(84, 10))
        x = torch.randn(batch, 1, 32, 32)
    else:
        net = torch.nn.Sequential(torch.nn.Linear(784, 256), torch.nn.ReLU(), torch.nn.Linear(256, 256),
                                  torch.nn.ReLU(), torch.nn.Linear(256, 10))
        x = torch.randn(batch, 784)
    y = torch.randint(0, 10, (batch,))
    return net, x, y


def torch_train_step(model: str, batch: int, compiled: bool = False):
    import torch
    net, x, y = torch_net(model, batch)
    opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
    loss_fn = torch.nn.CrossEntropyLoss()

    def step(x, y):
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(net(x), y)
        loss.backward()
        opt.step()
        return loss

    if compiled:
        step = torch.compile(step)
    return step, (x, y)


def torch_inference(model: str, batch: int):
    import torch
    net, x, _ = torch_net(model, batch)

    def infer(x):
        with torch.no_grad():
            return net(x)
    return infer, (x,)
