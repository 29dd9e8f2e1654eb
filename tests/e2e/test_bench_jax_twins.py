"""The bench's JAX twins of the Transformer and LSTM workloads (bench/pynative_models.py:
``jax_params``/``jax_forward``) compute what our models compute, from our initial weights: equal
losses and equal gradients for every parameter (oracle: our PyNative gradients, which the
framework's own tests hold to finite differences and to torch). Skips where JAX is not installed
(it is a peer the bench measures, not a dependency)."""
from __future__ import annotations

import os
import sys

import numpy as np
import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "bench")))
import pynative_models as pm  # noqa: E402

import runtime as ms  # noqa: E402
from runtime import Tensor, nn  # noqa: E402


def _pairs(model, ours, grads):
    """(our parameter, the JAX twin's gradient of it) for every parameter."""
    if model == "lstm":
        lstm = ours.lstm
        return [(lstm.weight_ih_l0, grads["w_ih"]), (lstm.weight_hh_l0, grads["w_hh"]), (lstm.bias_ih_l0, grads["b_ih"]),
                (lstm.bias_hh_l0, grads["b_hh"]), (ours.fc.weight, grads["fc_w"]), (ours.fc.bias, grads["fc_b"])]
    out = [(ours.fc.weight, grads["fc_w"]), (ours.fc.bias, grads["fc_b"])]
    for m, g in zip(ours.layers, grads["layers"]):
        out += [(m.attn.in_proj_weight, g["in_w"]), (m.attn.in_proj_bias, g["in_b"]), (m.attn.out_proj.weight, g["out_w"]),
                (m.attn.out_proj.bias, g["out_b"]), (m.linear1.weight, g["w1"]), (m.linear1.bias, g["b1"]),
                (m.linear2.weight, g["w2"]), (m.linear2.bias, g["b2"]), (m.norm1.gamma, g["g1"]), (m.norm1.beta, g["be1"]),
                (m.norm2.gamma, g["g2"]), (m.norm2.beta, g["be2"])]
    return out


@pytest.mark.parametrize("model", ["transformer", "lstm"])
def test_the_jax_twin_has_our_loss_and_gradients(model):
    ours = pm.ours_net(model)
    x, y = pm.inputs(model, 4)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    params = list(ours.trainable_params())
    value, grads = ms.value_and_grad(lambda a, b: loss(ours(a), b), None, params)(Tensor(x), Tensor(y))
    by_param = {id(p): g.asnumpy() for p, g in zip(params, grads)}

    def jax_loss(p):
        logp = jax.nn.log_softmax(pm.jax_forward(model, p, jnp.asarray(x)))
        return -jnp.mean(jnp.take_along_axis(logp, jnp.asarray(y)[:, None], axis=1))
    jax_value, jax_grads = jax.value_and_grad(jax_loss)(pm.jax_params(model, ours))
    np.testing.assert_allclose(float(jax_value), float(value.asnumpy()), rtol=1e-5)
    pairs = _pairs(model, ours, jax_grads)
    assert len(pairs) == len(params)  # (every parameter compared)
    for p, g in pairs:
        np.testing.assert_allclose(np.asarray(g), by_param[id(p)], rtol=2e-3, atol=2e-6, err_msg=p.name)


def test_the_bench_runs_the_jax_twins():
    import models
    for model in ("transformer", "lstm"):
        step, args = models.jax_train_step(model, 2)
        first, second = float(step(*args)), float(step(*args))
        assert np.isfinite(first) and second < first  # (one Momentum step on the same batch lowers its loss)
