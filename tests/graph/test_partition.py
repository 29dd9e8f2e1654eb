"""Forward/backward partition: a captured region differentiated through one compiled backward
graph gives PyNative's gradients (oracle: eager tape autodiff on the same functions)."""
import numpy as np
import pytest

import capture
import runtime as ms
from capture import backends
from capture.cache import cache_for
from capture.differentiable import run_differentiable
from capture.runner import input_fetcher
from graph.partition import split_for_training
from runtime import Tensor, nn, ops


def _entry(fn, *args):
    capture.reset()
    capture.jit(fn)(*args)
    cache = cache_for(fn.__code__)
    return [e for e in cache.entries if not e.eager][0]


FUNCS = {
    "mlp": lambda x, w, b: ops.tanh(ops.matmul(x, w) + b).sum(axis=1),
    "softmax_ce": lambda x, w, b: ops.log_softmax(ops.matmul(x, w) * 2.0 + b),
    "unused_input": lambda x, w, b: ops.exp(x * 0.5),
    "multi_out": lambda x, w, b: (ops.sigmoid(x @ w), ops.reduce_max(x, 1) + b.sum()),
}


@pytest.mark.parametrize("name", sorted(FUNCS))
def test_compiled_backward_matches_eager(name):
    fn = FUNCS[name]
    rng = np.random.default_rng(1)
    x = Tensor(rng.normal(size=(4, 3)).astype(np.float32))
    w = Tensor(rng.normal(size=(3, 5)).astype(np.float32))
    b = Tensor(rng.normal(size=(5,)).astype(np.float32))
    entry = _entry(fn, x, w, b)
    split = split_for_training(entry.graph)
    split.forward.verify()
    split.backward.verify()

    def graph_fn(x, w, b):
        arrays, tensors = input_fetcher(entry.sources)((x, w, b))
        outs = run_differentiable(entry, arrays, tensors, backends.get_backend(None))
        return sum(((o * o).sum() for o in outs), Tensor(0.0))

    def eager_fn(x, w, b):
        out = fn(x, w, b)
        outs = out if isinstance(out, tuple) else (out,)
        return sum(((o * o).sum() for o in outs), Tensor(0.0))

    ge = ms.grad(eager_fn, grad_position=(0, 1, 2))(x, w, b)
    gg = ms.grad(graph_fn, grad_position=(0, 1, 2))(x, w, b)
    for a, c in zip(ge, gg):
        np.testing.assert_allclose(c.asnumpy(), a.asnumpy(), rtol=1e-5, atol=1e-6)


def test_saved_activations_are_outputs_of_the_forward_graph():
    rng = np.random.default_rng(0)
    x = Tensor(rng.normal(size=(2, 3)).astype(np.float32))
    w = Tensor(rng.normal(size=(3, 3)).astype(np.float32))
    entry = _entry(lambda x, w: ops.exp(ops.matmul(x, w)), x, w)
    split = split_for_training(entry.graph)
    # exp's VJP reuses its output: it is saved instead of recomputed
    assert len(split.forward.outputs) > split.n_outputs
    assert all(n.op.name != "exp" for n in split.backward.nodes)


def test_dropout_mask_is_saved_not_redrawn():
    ms.set_seed(3)
    net = nn.SequentialCell([nn.Dense(6, 6), nn.Dropout(p=0.5)])
    net.set_train(True)
    x = Tensor(np.ones((4, 6), np.float32))
    entry = _entry(lambda x: net(x), x)
    split = split_for_training(entry.graph)
    assert all(n.op.name != "dropout" for n in split.backward.nodes)
