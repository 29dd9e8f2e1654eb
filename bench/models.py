"""Benchmark models, written once for our framework and once for PyTorch (when installed)."""
from __future__ import annotations

import functools
import os
import sys

import numpy as np

import runtime as ms
from runtime import nn, Tensor

# The tutorial LeNet5 is defined once, in the demo; the benchmarks measure that same network.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples"))
from lenet_demo import LeNet5


class MLP(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(784, 256)
        self.fc2 = nn.Dense(256, 256)
        self.fc3 = nn.Dense(256, 10)
        self.relu = nn.ReLU()

    def construct(self, x):
        return self.fc3(self.relu(self.fc2(self.relu(self.fc1(x)))))


class BasicBlock(nn.Cell):
    """ResNet's two 3x3 convolutions with batch norm and the (projected) shortcut."""

    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, pad_mode="pad", padding=1)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, pad_mode="pad", padding=1)
        self.bn2 = nn.BatchNorm2d(cout)
        self.relu = nn.ReLU()
        self.project = stride != 1 or cin != cout
        if self.project:
            self.shortcut = nn.SequentialCell([nn.Conv2d(cin, cout, 1, stride, pad_mode="valid"), nn.BatchNorm2d(cout)])

    def construct(self, x):
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return self.relu(out + (self.shortcut(x) if self.project else x))


class ResNet18(nn.Cell):
    """ResNet-18 for 32x32 images (CIFAR layout: a 3x3 stem, four stages of two BasicBlocks with
    64/128/256/512 channels, global average pooling, a 10-way classifier): 11.2M parameters."""

    def __init__(self, num_class=10):
        super().__init__()
        self.stem = nn.SequentialCell([nn.Conv2d(3, 64, 3, 1, pad_mode="pad", padding=1), nn.BatchNorm2d(64), nn.ReLU()])
        blocks, cin = [], 64
        for cout, stride in ((64, 1), (128, 2), (256, 2), (512, 2)):
            blocks += [BasicBlock(cin, cout, stride), BasicBlock(cout, cout, 1)]
            cin = cout
        self.blocks = nn.SequentialCell(blocks)
        self.fc = nn.Dense(512, num_class)

    def construct(self, x):
        h = self.blocks(self.stem(x))
        return self.fc(h.mean(axis=(2, 3)))


#: (channels in, channels out, stride) of ResNet18's 3x3 convolutions, in order (FLOP counts, peers)
RESNET18_STAGES = [(64, 64, 1), (64, 64, 1), (64, 128, 2), (128, 128, 1), (128, 256, 2), (256, 256, 1),
                   (256, 512, 2), (512, 512, 1)]


class EncoderLayer(nn.Cell):
    """A post-norm Transformer encoder layer: self-attention and a GELU feed-forward, each with a
    residual connection and LayerNorm."""

    def __init__(self, d_model, heads, d_ff):
        super().__init__()
        self.attn = nn.MultiheadAttention(d_model, heads, batch_first=True)
        self.norm1 = nn.LayerNorm((d_model,))
        self.norm2 = nn.LayerNorm((d_model,))
        self.ff1 = nn.Dense(d_model, d_ff)
        self.ff2 = nn.Dense(d_ff, d_model)
        self.act = nn.GELU()

    def construct(self, x):
        a, _ = self.attn(x, x, x, need_weights=False)
        x = self.norm1(x + a)
        return self.norm2(x + self.ff2(self.act(self.ff1(x))))


class TransformerEncoder(nn.Cell):
    """A small Transformer-encoder text classifier: token embeddings plus learned positions, two
    encoder layers (d_model 64, 4 heads, feed-forward 128), mean pooling over the sequence, a
    10-way classifier. Input: token ids (batch, :data:`SEQ_LEN`)."""

    def __init__(self, vocab=1000, seq=32, d_model=64, heads=4, d_ff=128, layers=2, num_class=10):
        super().__init__()
        self.embed = nn.Embedding(vocab, d_model)
        rng = np.random.default_rng(1)
        self.pos = ms.Parameter(Tensor((rng.standard_normal((seq, d_model)) * 0.02).astype(np.float32)), name="pos")
        self.layers = nn.CellList([EncoderLayer(d_model, heads, d_ff) for _ in range(layers)])
        self.fc = nn.Dense(d_model, num_class)

    def construct(self, tokens):
        x = self.embed(tokens) + self.pos
        for layer in self.layers:
            x = layer(x)
        return self.fc(x.mean(axis=1))


SEQ_LEN = 32


#: workloads defined with their torch twins (same weights) in pynative_models.py
EXTRA_MODELS = ("transformer", "lstm")


def ours_net(model: str):
    if model in EXTRA_MODELS:
        import pynative_models
        return pynative_models.ours_net(model)
    return {"lenet": LeNet5, "mlp": MLP, "resnet18": ResNet18, "encoder": TransformerEncoder}[model]()


def ours_train_step(model: str, batch: int):
    """(step_fn, inputs) for a Momentum(0.01, 0.9) train step of ``model``."""
    ms.set_seed(0)
    net = ours_net(model)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), 0.01, 0.9)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt)
    step.set_train(True)
    return step, _inputs(model, batch)


def ours_jit_train_step(model: str, batch: int, backend=None):
    """(step_fn, inputs): the tutorial's whole train step (``value_and_grad`` + Momentum) under
    ``jit``: one graph with forward, backward and the update."""
    import capture
    ms.set_seed(0)
    net = ours_net(model)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), 0.01, 0.9)
    grad_fn = ms.value_and_grad(nn.WithLossCell(net, loss), None, opt.parameters)

    def step(x, y):
        loss_value, grads = grad_fn(x, y)
        opt(grads)
        return loss_value

    return capture.jit(step, backend=backend), _inputs(model, batch)


def ours_inference(model: str, batch: int):
    ms.set_seed(0)
    net = ours_net(model)
    net.set_train(False)
    return net, _inputs(model, batch)[:1]


INPUT_SHAPES = {"lenet": (1, 32, 32), "mlp": (784,), "resnet18": (3, 32, 32),
                "transformer": (64, 128), "lstm": (35, 64)}  # (as pynative_models.input_shape)


def _inputs(model, batch):
    rng = np.random.default_rng(0)
    if model == "encoder":  # token ids and class labels
        return (Tensor(rng.integers(0, 1000, (batch, SEQ_LEN)).astype(np.int32)),
                Tensor(rng.integers(0, 10, batch).astype(np.int32)))
    shape = (batch,) + INPUT_SHAPES[model]
    return (Tensor(rng.normal(size=shape).astype(np.float32)),
            Tensor(rng.integers(0, 10, batch).astype(np.int32)))


def _torch_resnet18():
    import torch
    from torch import nn as tnn

    class Block(tnn.Module):
        def __init__(self, cin, cout, stride):
            super().__init__()
            self.body = tnn.Sequential(tnn.Conv2d(cin, cout, 3, stride, 1, bias=False), tnn.BatchNorm2d(cout), tnn.ReLU(),
                                       tnn.Conv2d(cout, cout, 3, 1, 1, bias=False), tnn.BatchNorm2d(cout))
            self.shortcut = (tnn.Sequential(tnn.Conv2d(cin, cout, 1, stride, bias=False), tnn.BatchNorm2d(cout))
                             if stride != 1 or cin != cout else tnn.Identity())

        def forward(self, x):
            return torch.relu(self.body(x) + self.shortcut(x))

    layers = [tnn.Conv2d(3, 64, 3, 1, 1, bias=False), tnn.BatchNorm2d(64), tnn.ReLU()]
    layers += [Block(cin, cout, stride) for cin, cout, stride in RESNET18_STAGES]
    layers += [tnn.AdaptiveAvgPool2d(1), tnn.Flatten(), tnn.Linear(512, 10)]
    return tnn.Sequential(*layers)


def torch_net(model: str, batch: int, device: str = "cpu"):
    """(net, x, y) for PyTorch with the same architecture, on ``device``."""
    import torch
    torch.manual_seed(0)
    # peers run at their default settings (all cores) unless the bench pins every framework to
    # the same thread count (python -m bench --threads N)
    if os.environ.get("BENCH_THREADS"):
        torch.set_num_threads(int(os.environ["BENCH_THREADS"]))
    if model in EXTRA_MODELS:  # the twin of ours, carrying our initial weights
        import pynative_models
        net, x = pynative_models.torch_net(model), torch.randn((batch,) + INPUT_SHAPES[model])
    elif model == "resnet18":
        net, x = _torch_resnet18(), torch.randn(batch, 3, 32, 32)
    elif model == "lenet":
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
    return net.to(device), x.to(device), y.to(device)


def torch_train_step(model: str, batch: int, compiled: bool = False, device: str = "cpu"):
    import torch
    net, x, y = torch_net(model, batch, device)
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


def _jax_resnet18_init(key):
    import jax
    import jax.numpy as jnp

    def conv(k, cin, cout, size):
        return jax.random.normal(k, (cout, cin, size, size), jnp.float32) * (2.0 / (cin * size * size)) ** 0.5

    def bn(c):
        return {"g": jnp.ones((c,), jnp.float32), "b": jnp.zeros((c,), jnp.float32)}
    keys = iter(jax.random.split(key, 64))
    params = {"stem": conv(next(keys), 3, 64, 3), "stem_bn": bn(64), "blocks": []}
    for cin, cout, stride in RESNET18_STAGES:
        blk = {"c1": conv(next(keys), cin, cout, 3), "bn1": bn(cout), "c2": conv(next(keys), cout, cout, 3), "bn2": bn(cout)}
        if stride != 1 or cin != cout:
            blk["sc"], blk["sc_bn"] = conv(next(keys), cin, cout, 1), bn(cout)
        params["blocks"].append(blk)
    params["fc"] = {"w": jax.random.normal(next(keys), (512, 10), jnp.float32) * 0.02, "b": jnp.zeros((10,), jnp.float32)}
    return params


def _jax_resnet18_forward(params, x):
    """Training-mode forward (batch statistics, as the other frameworks' train steps)."""
    import jax

    def conv(h, w, stride):
        pad = "SAME" if w.shape[-1] == 3 else "VALID"
        return jax.lax.conv_general_dilated(h, w, (stride, stride), pad, dimension_numbers=("NCHW", "OIHW", "NCHW"))

    def bn(h, p):
        mean = h.mean(axis=(0, 2, 3), keepdims=True)
        var = ((h - mean) ** 2).mean(axis=(0, 2, 3), keepdims=True)
        return (h - mean) * jax.lax.rsqrt(var + 1e-5) * p["g"][None, :, None, None] + p["b"][None, :, None, None]
    h = jax.nn.relu(bn(conv(x, params["stem"], 1), params["stem_bn"]))
    for blk, (_, _, stride) in zip(params["blocks"], RESNET18_STAGES):
        out = jax.nn.relu(bn(conv(h, blk["c1"], stride), blk["bn1"]))
        out = bn(conv(out, blk["c2"], 1), blk["bn2"])
        sc = bn(conv(h, blk["sc"], stride), blk["sc_bn"]) if "sc" in blk else h
        h = jax.nn.relu(out + sc)
    return h.mean(axis=(2, 3)) @ params["fc"]["w"] + params["fc"]["b"]


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

    if model in EXTRA_MODELS:  # the twin of ours, carrying our initial weights
        import pynative_models
        params = pynative_models.jax_params(model)
        forward = functools.partial(pynative_models.jax_forward, model)
    elif model == "resnet18":
        params, forward = _jax_resnet18_init(jax.random.PRNGKey(0)), _jax_resnet18_forward
    else:
        params, forward = _jax_init(model, jax.random.PRNGKey(0)), functools.partial(_jax_forward, model)
    state = {"params": params, "mom": jax.tree_util.tree_map(jnp.zeros_like, params)}

    def loss_fn(p, x, y):
        logits = forward(p, x)
        logp = jax.nn.log_softmax(logits)
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
    shape = (batch,) + INPUT_SHAPES[model]
    x = jnp.asarray(rng.normal(size=shape).astype(np.float32))
    y = jnp.asarray(rng.integers(0, 10, batch).astype(np.int32))
    return step, (x, y)


def train_step_flops(model: str, batch: int) -> float:
    """FLOPs (a multiply-add is 2) of one train step's products and convolutions: forward, the
    weight gradients and the input gradients, except the first layer's (the batch needs no
    gradient: no framework computes it).

    >>> train_step_flops("mlp", 1024) / 1e9  # 2 x 1024 x (3 x (784x256 + 256x256 + 256x10) - 784x256)
    1.240465408
    """
    if model in EXTRA_MODELS:
        import pynative_models
        return pynative_models.train_step_flops(model, batch)
    if model == "resnet18":
        first = 64 * 3 * 9 * 32 * 32
        per_sample, hw = first, 32
        for cin, cout, stride in RESNET18_STAGES:
            hw //= stride
            per_sample += cout * cin * 9 * hw * hw + cout * cout * 9 * hw * hw
            if stride != 1 or cin != cout:
                per_sample += cout * cin * hw * hw
        per_sample += 512 * 10
    elif model == "lenet":
        first = 6 * 28 * 28 * (1 * 5 * 5)
        per_sample = first + 16 * 10 * 10 * (6 * 5 * 5) + 400 * 120 + 120 * 84 + 84 * 10
    else:
        first = 784 * 256
        per_sample = first + 256 * 256 + 256 * 10
    return 2.0 * (3 * per_sample - first) * batch
