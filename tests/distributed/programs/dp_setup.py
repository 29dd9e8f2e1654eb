"""What the data-parallel program and its single-process oracle share: data, model, optimizer."""
import numpy as np

import runtime as ms
from runtime import nn
from runtime.data import NumpySlicesDataset

SEED = 100
N_SAMPLES = 22  # 11 per shard of 2: batches of 4, 4 and an uneven final 3
BATCH = 4
EPOCHS = 2
#: bucket size: small enough that the 6 parameters' gradients fill 3 buckets
BUCKET_MB = 0.0002


def data():
    g = np.random.default_rng(7)
    x = g.normal(size=(N_SAMPLES, 6)).astype(np.float32)
    y = g.integers(0, 3, N_SAMPLES).astype(np.int32)
    return x, y


def dataset(num_shards=None, shard_id=None):
    x, y = data()
    return NumpySlicesDataset({"x": x, "y": y}, shuffle=True, num_shards=num_shards,
                              shard_id=shard_id).batch(BATCH)


def network():
    ms.set_seed(SEED)
    net = nn.SequentialCell([nn.Dense(6, 16), nn.ReLU(), nn.Dense(16, 16), nn.Tanh(), nn.Dense(16, 3)])
    return net


def loss_fn():
    return nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")


def optimizer(net):
    return nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)


def flat_params(net):
    return np.concatenate([p.asnumpy().ravel() for p in net.trainable_params()])


def shard_batches(num_shards, shard_id, epochs=EPOCHS):
    """The (x, y) batches shard ``shard_id`` yields over ``epochs`` epochs of one iterator."""
    ms.set_seed(SEED)
    it = dataset(num_shards, shard_id).create_tuple_iterator(num_epochs=epochs, output_numpy=True)
    out = []
    for _ in range(epochs):
        out.extend((x, y) for x, y in it)
    return out
