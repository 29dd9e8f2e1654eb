"""Demo: train the MindSpore tutorial LeNet5 on the bundled MNIST digits, in PyNative and in
graph mode, and compare accuracy, step time and graph breaks.

    python examples/lenet_demo.py            # bundled subset (6000 train / 1000 test digits)
    python examples/lenet_demo.py --data ../shared/data/mnist --epochs 1   # the full set

The same unmodified training code runs in both modes; graph mode is one line:
``ms.set_context(mode=ms.GRAPH_MODE)``.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time


import runtime as ms
from runtime import nn
from runtime.common.initializer import Normal
from runtime.data import MnistDataset, embedded_mnist_dir, transforms, vision

from example_modes import StepRecorder


class LeNet5(nn.Cell):
    """The MindSpore tutorial network (32x32 input)."""

    def __init__(self, num_class=10, num_channel=1):
        super().__init__()
        self.conv1 = nn.Conv2d(num_channel, 6, 5, pad_mode="valid")
        self.conv2 = nn.Conv2d(6, 16, 5, pad_mode="valid")
        self.fc1 = nn.Dense(16 * 5 * 5, 120, weight_init=Normal(0.02))
        self.fc2 = nn.Dense(120, 84, weight_init=Normal(0.02))
        self.fc3 = nn.Dense(84, num_class, weight_init=Normal(0.02))
        self.relu = nn.ReLU()
        self.max_pool2d = nn.MaxPool2d(kernel_size=2, stride=2)
        self.flatten = nn.Flatten()

    def construct(self, x):
        x = self.max_pool2d(self.relu(self.conv1(x)))
        x = self.max_pool2d(self.relu(self.conv2(x)))
        x = self.flatten(x)
        x = self.relu(self.fc1(x))
        x = self.relu(self.fc2(x))
        return self.fc3(x)


def create_dataset(data_dir, usage, batch_size=32):
    ds = MnistDataset(data_dir, usage=usage, shuffle=(usage == "train"))
    image_ops = [vision.Resize((32, 32)), vision.Rescale(1.0 / 255.0, 0.0),
                 vision.Rescale(1 / 0.3081, -1 * 0.1307 / 0.3081), vision.HWC2CHW()]
    ds = ds.map(operations=image_ops, input_columns="image")
    ds = ds.map(operations=transforms.TypeCast(ms.int32), input_columns="label")
    return ds.batch(batch_size, drop_remainder=True)


def run(mode, data_dir, epochs, batch_size):
    """Train from the same seed in ``mode`` with ``Model.train``; return (accuracy, step times, final loss)."""
    ms.set_context(mode=mode)
    ms.set_seed(1)
    net = LeNet5()
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.01, momentum=0.9)
    model = ms.Model(net, loss_fn, opt)
    steps = StepRecorder()
    # A live line on a terminal; four plain progress lines per run in a log.
    progress = ms.train.ProgressBar(stream=sys.stdout, every_percent=25)
    model.train(epochs, create_dataset(data_dir, "train", batch_size), callbacks=[steps, progress])
    times, loss = steps.times, steps.losses[-1]
    net.set_train(False)
    correct = total = 0
    for image, label in create_dataset(data_dir, "test", batch_size).create_tuple_iterator():
        pred = net(image).asnumpy().argmax(axis=1)
        correct += int((pred == label.asnumpy()).sum())
        total += len(pred)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    return correct / max(total, 1), times, loss


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", default=None, help="MNIST folder (IDX files); default: the bundled subset")
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--batch-size", type=int, default=32)
    args = p.parse_args(argv)
    data_dir = args.data or embedded_mnist_dir()
    print(f"LeNet5 on MNIST from {data_dir}: {args.epochs} epoch(s), batch {args.batch_size}, Momentum(0.01, 0.9)")

    results = {}
    for name, mode in (("PyNative", ms.PYNATIVE_MODE), ("GRAPH", ms.GRAPH_MODE)):
        t0 = time.perf_counter()
        acc, times, loss = run(mode, data_dir, args.epochs, args.batch_size)
        results[name] = (acc, times)
        warm = times[5:] or times
        print(f"  {name:8s}  accuracy {acc * 100:6.2f}%   final loss {loss:.4f}   "
              f"median step {statistics.median(warm) * 1e3:7.3f} ms   first step {times[0] * 1e3:8.1f} ms   "
              f"({time.perf_counter() - t0:.1f} s total)")
    med = {k: statistics.median(v[1][5:] or v[1]) for k, v in results.items()}
    print(f"  speed-up GRAPH vs PyNative (median step): {med['PyNative'] / med['GRAPH']:.2f}x")

    import capture
    ms.set_seed(1)
    net = LeNet5()
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")),
                               nn.Momentum(net.trainable_params(), 0.01, 0.9))
    image, label = next(iter(create_dataset(data_dir, "train", args.batch_size).create_tuple_iterator()))
    report = capture.explain(step)(image, label)
    print(f"Graph-break summary for the train step: {report.graph_count} graph(s), "
          f"{report.graph_break_count} break(s), ops per graph {report.ops_per_graph}")
    for b in report.break_reasons:
        print("  - " + str(b).replace("\n", "\n    "))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
