"""A small ResNet (the model zoo's ResNet building blocks: 3x3 conv + BatchNorm residual blocks, a
1x1 projection where the shape changes, global average pooling) trained with ``Model.train`` on a
CIFAR-10-format sample, in PyNative and/or GRAPH mode.

    python examples/resnet_cifar.py                          # generated sample, both modes
    python examples/resnet_cifar.py --data /path/to/cifar-10-batches-bin --mode graph

Without ``--data`` the sample is generated and written in the standard CIFAR-10 binary format
(``data_batch_1.bin`` and ``test_batch.bin``, read back by ``Cifar10Dataset``): each class has
its own colour and stripe pattern under noise. The input pipeline is the model zoo's CIFAR one
(RandomCrop with 4-pixel padding, RandomHorizontalFlip, Rescale, Normalize, HWC2CHW) on
``--workers`` map workers; the seed makes the augmentations, and so the losses, the same in both
modes. GRAPH mode is ``ms.set_context(mode=ms.GRAPH_MODE)``: ``Model.train``'s train step
(forward, backward and the Momentum update) is captured and compiled as one graph.
"""
from __future__ import annotations

import argparse
import os
import tempfile
import time

import numpy as np

import runtime as ms
from runtime import nn, ops
from runtime.data import Cifar10Dataset, transforms, vision
from runtime.data.cifar import write_cifar10_batch

from example_modes import MODES, RunResult, StepRecorder, add_mode_argument, modes_to_run, print_summary

CIFAR_MEAN = [0.4914, 0.4822, 0.4465]
CIFAR_STD = [0.2023, 0.1994, 0.2010]


def write_cifar_sample(folder, train_size, test_size, seed=0):
    """Write a learnable CIFAR-10-format sample: class c is colour c plus stripes of its own
    orientation and frequency, under noise. Returns ``folder``."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:32, 0:32]
    colours = rng.integers(40, 216, (10, 3))
    templates = []
    for c in range(10):
        angle, freq = np.pi * c / 10, 0.3 + 0.05 * c
        stripes = 40 * np.sin(freq * (np.cos(angle) * xx + np.sin(angle) * yy))
        templates.append(colours[c] + stripes[..., None])
    templates = np.stack(templates)

    def sample(n):
        labels = rng.integers(0, 10, n)
        images = templates[labels] + rng.normal(0, 30, (n, 32, 32, 3))
        return np.clip(images, 0, 255).astype(np.uint8), labels

    os.makedirs(folder, exist_ok=True)
    write_cifar10_batch(os.path.join(folder, "data_batch_1.bin"), *sample(train_size))
    write_cifar10_batch(os.path.join(folder, "test_batch.bin"), *sample(test_size))
    return folder


def create_dataset(data_dir, usage, batch_size, workers=2, num_samples=None):
    """The model zoo's CIFAR-10 pipeline (without the resize to 224)."""
    training = usage == "train"
    ds = Cifar10Dataset(data_dir, usage=usage, shuffle=training, num_samples=num_samples)
    image_ops = [vision.Rescale(1.0 / 255.0, 0.0), vision.Normalize(CIFAR_MEAN, CIFAR_STD), vision.HWC2CHW()]
    if training:
        image_ops = [vision.RandomCrop((32, 32), (4, 4, 4, 4)), vision.RandomHorizontalFlip(prob=0.5)] + image_ops
    ds = ds.map(operations=image_ops, input_columns="image", num_parallel_workers=workers)
    ds = ds.map(operations=transforms.TypeCast(ms.int32), input_columns="label")
    return ds.batch(batch_size, drop_remainder=training)


def conv3x3(in_channel, out_channel, stride=1):
    return nn.Conv2d(in_channel, out_channel, 3, stride=stride, pad_mode="pad", padding=1)


class ResidualBlock(nn.Cell):
    """conv3x3-BN-ReLU-conv3x3-BN plus the identity (or a 1x1 conv + BN projection), then ReLU."""

    def __init__(self, in_channel, out_channel, stride=1):
        super().__init__()
        self.conv1 = conv3x3(in_channel, out_channel, stride)
        self.bn1 = nn.BatchNorm2d(out_channel)
        self.conv2 = conv3x3(out_channel, out_channel)
        self.bn2 = nn.BatchNorm2d(out_channel)
        self.relu = nn.ReLU()
        self.down_sample = stride != 1 or in_channel != out_channel
        if self.down_sample:
            self.down_sample_layer = nn.SequentialCell([nn.Conv2d(in_channel, out_channel, 1, stride=stride),
                                                        nn.BatchNorm2d(out_channel)])

    def construct(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        if self.down_sample:
            identity = self.down_sample_layer(identity)
        return self.relu(out + identity)


class ResNet(nn.Cell):
    """Stem conv, one residual stage per entry of ``channels`` (the first at stride 1, then 2),
    global average pooling, Dense."""

    def __init__(self, channels=(16, 32, 64), blocks_per_stage=1, num_classes=10):
        super().__init__()
        self.conv1 = conv3x3(3, channels[0])
        self.bn1 = nn.BatchNorm2d(channels[0])
        self.relu = nn.ReLU()
        layers, in_channel = [], channels[0]
        for i, out_channel in enumerate(channels):
            for b in range(blocks_per_stage):
                layers.append(ResidualBlock(in_channel, out_channel, stride=2 if i > 0 and b == 0 else 1))
                in_channel = out_channel
        self.layers = nn.SequentialCell(layers)
        self.end_point = nn.Dense(channels[-1], num_classes)

    def construct(self, x):
        x = self.relu(self.bn1(self.conv1(x)))
        x = self.layers(x)
        x = ops.mean(x, (2, 3))  # global average pooling
        return self.end_point(x)


def run(mode, data_dir, epochs, batch_size, channels=(16, 32, 64), workers=2, lr=0.05, seed=1, train_samples=None):
    """Train from ``seed`` in ``mode`` with Model.train; held-out accuracy, step times and losses."""
    ms.set_context(mode=MODES[mode])
    try:
        ms.set_seed(seed)
        net = ResNet(channels)
        loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        opt = nn.Momentum(net.trainable_params(), learning_rate=lr, momentum=0.9)
        model = ms.Model(net, loss, opt, metrics={"Accuracy": nn.Accuracy()})
        steps = StepRecorder()
        start = time.perf_counter()
        model.train(epochs, create_dataset(data_dir, "train", batch_size, workers, train_samples), callbacks=[steps])
        accuracy = model.eval(create_dataset(data_dir, "test", batch_size, workers))["Accuracy"]
        return RunResult(mode, accuracy, steps.times, steps.losses, time.perf_counter() - start)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_mode_argument(p)
    p.add_argument("--data", default=None, help="a CIFAR-10 binary folder; default: a generated sample")
    p.add_argument("--train-size", type=int, default=1024, help="images of the generated sample (or read of --data)")
    p.add_argument("--test-size", type=int, default=256)
    p.add_argument("--channels", type=int, nargs=3, default=[16, 32, 64])
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--workers", type=int, default=2, help="map workers of the input pipeline")
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        if args.data:
            data_dir, train_samples = args.data, args.train_size
        else:
            data_dir = write_cifar_sample(os.path.join(tmp, "cifar-sample"), args.train_size, args.test_size,
                                          args.seed)
            train_samples = None
        print(f"ResNet (channels {args.channels}) on CIFAR-10-format data from "
              f"{args.data or 'a generated sample'}: {args.epochs} epoch(s), batch {args.batch_size}, "
              f"Momentum(0.05, 0.9), {args.workers} map worker(s)")
        results = [run(mode, data_dir, args.epochs, args.batch_size, tuple(args.channels), args.workers,
                       seed=args.seed, train_samples=train_samples) for mode in modes_to_run(args.mode)]
    print_summary(results)
    return results


if __name__ == "__main__":
    main()
