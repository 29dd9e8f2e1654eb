"""The PyNative workloads beyond LeNet/MLP: a Transformer encoder, an LSTM classifier (and the
CIFAR ResNet-18 of :mod:`models`), each written once for our framework and once for PyTorch with
the *same weights* (ours are initialised, then copied into torch), so PyNative and torch eager do
identical arithmetic.

``ours_train_step(model, batch)`` / ``torch_train_step(model, batch)`` give ``(step, args)`` for a
Momentum(0.01, 0.9) training step with sparse softmax cross-entropy, as :mod:`models` does.
"""
from __future__ import annotations

import numpy as np

import runtime as ms
from runtime import Tensor, nn, ops

import models

#: Transformer encoder: 2 post-norm layers, model width 128, 4 heads, feed-forward 512, GELU,
#: 64 tokens per sequence, mean-pooled into a 10-way classifier
TRANSFORMER = {"d": 128, "heads": 4, "ff": 512, "layers": 2, "seq": 64, "classes": 10}
#: LSTM: 35 steps of 64 features, hidden 128, the last hidden state into a 10-way classifier
LSTM = {"features": 64, "hidden": 128, "seq": 35, "classes": 10}


class EncoderLayer(nn.Cell):
    """torch.nn.TransformerEncoderLayer(batch_first=True, norm_first=False, activation="gelu",
    dropout=0): x = LN1(x + MHA(x)); x = LN2(x + W2 gelu(W1 x))."""

    def __init__(self, d, heads, ff):
        super().__init__()
        self.attn = nn.MultiheadAttention(d, heads, batch_first=True)
        self.linear1 = nn.Dense(d, ff)
        self.linear2 = nn.Dense(ff, d)
        self.norm1 = nn.LayerNorm((d,), epsilon=1e-5)
        self.norm2 = nn.LayerNorm((d,), epsilon=1e-5)
        self.gelu = nn.GELU(approximate=False)

    def construct(self, x):
        x = self.norm1(x + self.attn(x, x, x, need_weights=False)[0])
        return self.norm2(x + self.linear2(self.gelu(self.linear1(x))))


class TransformerClassifier(nn.Cell):
    def __init__(self, d, heads, ff, layers, classes, **_):
        super().__init__()
        self.layers = nn.CellList([EncoderLayer(d, heads, ff) for _ in range(layers)])
        self.fc = nn.Dense(d, classes)

    def construct(self, x):
        for layer in self.layers:
            x = layer(x)
        return self.fc(x.mean(axis=1))


class LSTMClassifier(nn.Cell):
    def __init__(self, features, hidden, classes, **_):
        super().__init__()
        self.lstm = nn.LSTM(features, hidden, batch_first=True)
        self.fc = nn.Dense(hidden, classes)

    def construct(self, x):
        out, _ = self.lstm(x)
        return self.fc(out[:, -1])


MODELS = ("transformer", "lstm", "resnet18")


def ours_net(model: str):
    ms.set_seed(0)
    if model == "transformer":
        return TransformerClassifier(**TRANSFORMER)
    if model == "lstm":
        return LSTMClassifier(**LSTM)
    return models.ours_net(model)


def input_shape(model: str) -> tuple:
    if model == "transformer":
        return (TRANSFORMER["seq"], TRANSFORMER["d"])
    if model == "lstm":
        return (LSTM["seq"], LSTM["features"])
    return models.INPUT_SHAPES[model]


def inputs(model: str, batch: int):
    """(x, labels) as numpy arrays, the same for both frameworks."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=(batch,) + input_shape(model)).astype(np.float32)
    return x, rng.integers(0, 10, batch).astype(np.int32)


def ours_train_step(model: str, batch: int, net=None):
    """(step, (x, y)): a TrainOneStepCell step (Momentum 0.01/0.9) of ``model`` in PyNative."""
    net = net if net is not None else ours_net(model)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.Momentum(net.trainable_params(), 0.01, 0.9))
    step.set_train(True)
    x, y = inputs(model, batch)
    return step, (Tensor(x), Tensor(y))


def _copy_transformer(ours, tnet):
    import torch
    with torch.no_grad():
        for mine, theirs in zip(ours.layers, tnet.layers):
            a = mine.attn
            theirs.self_attn.in_proj_weight.copy_(torch.from_numpy(a.in_proj_weight.asnumpy()))
            theirs.self_attn.in_proj_bias.copy_(torch.from_numpy(a.in_proj_bias.asnumpy()))
            theirs.self_attn.out_proj.weight.copy_(torch.from_numpy(a.out_proj.weight.asnumpy()))
            theirs.self_attn.out_proj.bias.copy_(torch.from_numpy(a.out_proj.bias.asnumpy()))
            for name in ("linear1", "linear2"):
                getattr(theirs, name).weight.copy_(torch.from_numpy(getattr(mine, name).weight.asnumpy()))
                getattr(theirs, name).bias.copy_(torch.from_numpy(getattr(mine, name).bias.asnumpy()))
            for name in ("norm1", "norm2"):
                getattr(theirs, name).weight.copy_(torch.from_numpy(getattr(mine, name).gamma.asnumpy()))
                getattr(theirs, name).bias.copy_(torch.from_numpy(getattr(mine, name).beta.asnumpy()))
        tnet.fc.weight.copy_(torch.from_numpy(ours.fc.weight.asnumpy()))
        tnet.fc.bias.copy_(torch.from_numpy(ours.fc.bias.asnumpy()))


def torch_net(model: str, ours=None):
    """The PyTorch twin of ``ours_net(model)``, carrying the same weights (transformer, lstm)."""
    import torch
    from torch import nn as tnn
    torch.manual_seed(0)
    ours = ours if ours is not None else ours_net(model)
    if model == "transformer":
        c = TRANSFORMER

        class Net(tnn.Module):
            def __init__(self):
                super().__init__()
                self.layers = tnn.ModuleList([
                    tnn.TransformerEncoderLayer(c["d"], c["heads"], c["ff"], dropout=0.0, activation="gelu",
                                                batch_first=True) for _ in range(c["layers"])])
                self.fc = tnn.Linear(c["d"], c["classes"])

            def forward(self, x):
                for layer in self.layers:
                    x = layer(x)
                return self.fc(x.mean(dim=1))

        net = Net()
        _copy_transformer(ours, net)
        return net
    if model == "lstm":
        c = LSTM

        class Net(tnn.Module):
            def __init__(self):
                super().__init__()
                self.lstm = tnn.LSTM(c["features"], c["hidden"], batch_first=True)
                self.fc = tnn.Linear(c["hidden"], c["classes"])

            def forward(self, x):
                return self.fc(self.lstm(x)[0][:, -1])

        net = Net()
        with torch.no_grad():
            for name in ("weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0"):
                getattr(net.lstm, name).copy_(torch.from_numpy(getattr(ours.lstm, name).asnumpy()))
            net.fc.weight.copy_(torch.from_numpy(ours.fc.weight.asnumpy()))
            net.fc.bias.copy_(torch.from_numpy(ours.fc.bias.asnumpy()))
        return net
    return models.torch_net(model, 1)[0]


def jax_params(model: str, ours=None) -> dict:
    """The JAX twin's parameters (transformer, lstm): ``ours_net(model)``'s initial weights, as
    jax arrays in the layout of :func:`jax_forward` (torch's: weights are (out, in))."""
    import jax.numpy as jnp
    ours = ours if ours is not None else ours_net(model)

    def a(p):
        return jnp.asarray(p.asnumpy())
    if model == "transformer":
        layers = [{"in_w": a(m.attn.in_proj_weight), "in_b": a(m.attn.in_proj_bias),
                   "out_w": a(m.attn.out_proj.weight), "out_b": a(m.attn.out_proj.bias),
                   "w1": a(m.linear1.weight), "b1": a(m.linear1.bias), "w2": a(m.linear2.weight), "b2": a(m.linear2.bias),
                   "g1": a(m.norm1.gamma), "be1": a(m.norm1.beta), "g2": a(m.norm2.gamma), "be2": a(m.norm2.beta)}
                  for m in ours.layers]
        return {"layers": layers, "fc_w": a(ours.fc.weight), "fc_b": a(ours.fc.bias)}
    if model == "lstm":
        return {"w_ih": a(ours.lstm.weight_ih_l0), "w_hh": a(ours.lstm.weight_hh_l0),
                "b_ih": a(ours.lstm.bias_ih_l0), "b_hh": a(ours.lstm.bias_hh_l0),
                "fc_w": a(ours.fc.weight), "fc_b": a(ours.fc.bias)}
    raise ValueError(f"no JAX twin of {model!r}")


def jax_forward(model: str, params: dict, x):
    """The JAX twin's logits: the computation of ``ours_net(model)`` and of :func:`torch_net`
    (post-norm encoder layers with exact GELU; an LSTM as one ``lax.scan`` over time)."""
    import jax
    import jax.numpy as jnp
    if model == "transformer":
        heads = TRANSFORMER["heads"]

        def norm(h, g, b):
            mean = h.mean(-1, keepdims=True)
            var = ((h - mean) ** 2).mean(-1, keepdims=True)
            return (h - mean) / jnp.sqrt(var + 1e-5) * g + b

        def attention(p, h):
            n, s, d = h.shape
            q, k, v = jnp.split(h @ p["in_w"].T + p["in_b"], 3, axis=-1)
            q, k, v = (t.reshape(n, s, heads, d // heads).transpose(0, 2, 1, 3) for t in (q, k, v))
            weights = jax.nn.softmax(q @ k.transpose(0, 1, 3, 2) / np.sqrt(d // heads), axis=-1)
            return (weights @ v).transpose(0, 2, 1, 3).reshape(n, s, d) @ p["out_w"].T + p["out_b"]

        h = x
        for p in params["layers"]:
            h = norm(h + attention(p, h), p["g1"], p["be1"])
            ff = jax.nn.gelu(h @ p["w1"].T + p["b1"], approximate=False) @ p["w2"].T + p["b2"]
            h = norm(h + ff, p["g2"], p["be2"])
        return h.mean(axis=1) @ params["fc_w"].T + params["fc_b"]
    if model == "lstm":
        hidden = params["w_hh"].shape[1]
        gates_in = jnp.swapaxes(x, 0, 1) @ params["w_ih"].T + params["b_ih"] + params["b_hh"]  # (T, N, 4H)

        def cell(carry, g_in):
            h, c = carry
            i, f, g, o = jnp.split(g_in + h @ params["w_hh"].T, 4, axis=-1)  # (torch's gate order)
            c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
            return (jax.nn.sigmoid(o) * jnp.tanh(c), c), None
        zeros = jnp.zeros((x.shape[0], hidden), x.dtype)
        (h, _), _ = jax.lax.scan(cell, (zeros, zeros), gates_in)
        return h @ params["fc_w"].T + params["fc_b"]
    raise ValueError(f"no JAX twin of {model!r}")


def torch_train_step(model: str, batch: int, net=None):
    import torch
    net = net if net is not None else torch_net(model)
    opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
    loss_fn = torch.nn.CrossEntropyLoss()

    def step(x, y):
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(net(x), y)
        loss.backward()
        opt.step()
        return loss

    x, y = inputs(model, batch)
    return step, (torch.from_numpy(x), torch.from_numpy(y).long())


def train_step_flops(model: str, batch: int) -> float:
    """FLOPs (a multiply-add is 2) of one train step's matrix products, as models.train_step_flops
    counts them: forward, weight gradients and input gradients (none for the batch itself).

    >>> train_step_flops("lstm", 1) / 1e6  # 2 x (35 x (3 x (64 + 128) - 64) x 512 + 3 x 128 x 10)
    18.35776
    """
    if model == "transformer":
        c = TRANSFORMER
        s, d, f = c["seq"], c["d"], c["ff"]
        # projections (q, k, v, out) and the feed-forward pair, then scores and weighted values
        dense = s * (4 * d * d + 2 * d * f)
        attention = 2 * s * s * d
        per_layer = 3 * (dense + attention)
        return 2.0 * batch * (c["layers"] * per_layer + 3 * d * c["classes"])
    if model == "lstm":
        c = LSTM
        gates = 4 * c["hidden"]
        per_step = 3 * (c["features"] + c["hidden"]) * gates - c["features"] * gates
        return 2.0 * batch * (c["seq"] * per_step + 3 * c["hidden"] * c["classes"])
    raise ValueError(f"unknown model {model!r}")


__all__ = ["MODELS", "ours_net", "torch_net", "jax_params", "jax_forward", "ours_train_step", "torch_train_step",
           "inputs", "ops"]
