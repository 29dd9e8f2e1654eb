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
    # peers run at their default settings (all cores) unless the bench pins every framework to
    # the same thread count (python -m bench --threads N)
    if os.environ.get("BENCH_THREADS"):
        torch.set_num_threads(int(os.environ["BENCH_THREADS"]))
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


# -- JAX (when installed) -----------------------------------------------------------------------------
def _jax_init(model, key):
    import jax
    import jax.numpy as jnp

    def dense(k, n_in, n_out):
        return {"w": jax.random.normal(k, (n_in, n_out), jnp.float32) * 0.02, "b": jnp.zeros((n_out,), jnp.float32)}

    keys = jax.random.split(key, 5)
    if model == "lenet":
        return {"c1": jax.random.normal(keys[0], (6, 1, 5, 5), jnp.float32) * 0.1,
                "c2": jax.random.normal(keys[1], (16, 6, 5, 5), jnp.float32) * 0.1,
                "f1": dense(keys[2], 400, 120), "f2": dense(keys[3], 120, 84), "f3": dense(keys[4], 84, 10)}
    return {"f1": dense(keys[0], 784, 256), "f2": dense(keys[1], 256, 256), "f3": dense(keys[2], 256, 10)}


def _jax_forward(model, params, x):
    import jax
    import jax.numpy as jnp
    relu = jax.nn.relu

    def fc(p, h):
        return h @ p["w"] + p["b"]

    if model == "lenet":
        def conv_pool(h, w):
            h = relu(jax.lax.conv_general_dilated(h, w, (1, 1), "VALID", dimension_numbers=("NCHW", "OIHW", "NCHW")))
            return jax.lax.reduce_window(h, -jnp.inf, jax.lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")
        x = conv_pool(conv_pool(x, params["c1"]), params["c2"]).reshape(x.shape[0], -1)
    x = relu(fc(params["f1"], x))
    x = relu(fc(params["f2"], x))
    return fc(params["f3"], x)


def jax_train_step(model: str, batch: int):
    """(step, inputs) for the same Momentum(0.01, 0.9) step under ``jax.jit`` (state kept in the
    closure; the step blocks until its loss is ready so timings include the computation)."""
    import jax
    import jax.numpy as jnp

    params = _jax_init(model, jax.random.PRNGKey(0))
    state = {"params": params, "mom": jax.tree_util.tree_map(jnp.zeros_like, params)}

    def loss_fn(p, x, y):
        logp = jax.nn.log_softmax(_jax_forward(model, p, x))
        return -jnp.mean(jnp.take_along_axis(logp, y[:, None], axis=1))

    @jax.jit
    def update(p, mom, x, y):
        loss, g = jax.value_and_grad(loss_fn)(p, x, y)
        mom = jax.tree_util.tree_map(lambda m, gi: 0.9 * m + gi, mom, g)
        p = jax.tree_util.tree_map(lambda w, m: w - 0.01 * m, p, mom)
        return p, mom, loss

    def step(x, y):
        state["params"], state["mom"], loss = update(state["params"], state["mom"], x, y)
        return loss.block_until_ready()

    rng = np.random.default_rng(0)
    shape = (batch, 1, 32, 32) if model == "lenet" else (batch, 784)
    x = jnp.asarray(rng.normal(size=shape).astype(np.float32))
    y = jnp.asarray(rng.integers(0, 10, batch).astype(np.int32))
    return step, (x, y)


def train_step_flops(model: str, batch: int) -> float:
    """Multiply-add FLOPs of one train step (forward + backward ~ 3x the forward's matmuls/convs)."""
    if model == "lenet":
        per_sample = 6 * 28 * 28 * (1 * 5 * 5) + 16 * 10 * 10 * (6 * 5 * 5) + 400 * 120 + 120 * 84 + 84 * 10
    else:
        per_sample = 784 * 256 + 256 * 256 + 256 * 10
    return 3 * 2.0 * per_sample * batch
