"""Gradient clipping (ops.clip_by_value / clip_by_norm / clip_by_global_norm, nn.ClipByNorm)
against MindSpore's documented examples and numpy formulas, in PyNative, jit and GRAPH_MODE."""
import numpy as np
import pytest

import runtime as ms
from runtime import Tensor, nn, ops
from modes import MODES, run_fn

X1 = np.array([[2., 3.], [1., 2.]], np.float32)
X2 = np.array([[1., 4.], [3., 1.]], np.float32)
CLIP_X = np.array([[0.8748, 0.1425, 0.0076], [0.7721, 0.4084, 0.0552], [4.6376, 0.2914, 2.1120]], np.float32)


@pytest.mark.parametrize("mode", MODES)
def test_clip_by_global_norm_documented_example(mode):
    out = run_fn(mode, lambda a, b: ops.clip_by_global_norm((a, b), 1.0), Tensor(X1), Tensor(X2))
    assert isinstance(out, tuple) and len(out) == 2
    np.testing.assert_allclose(out[0].asnumpy(), [[2.98142403e-01, 4.47213590e-01], [1.49071202e-01, 2.98142403e-01]],
                               rtol=1e-6)
    np.testing.assert_allclose(out[1].asnumpy(), [[1.49071202e-01, 5.96284807e-01], [4.47213590e-01, 1.49071202e-01]],
                               rtol=1e-6)
    # below the threshold nothing changes
    same = run_fn(mode, lambda a, b: ops.clip_by_global_norm([a, b], 100.0), Tensor(X1), Tensor(X2))
    np.testing.assert_allclose(same[0].asnumpy(), X1, rtol=1e-6)


@pytest.mark.parametrize("mode", MODES)
def test_clip_by_norm_documented_example_and_formula(mode):
    out = run_fn(mode, lambda x: ops.clip_by_norm(x, max_norm=1), Tensor(CLIP_X))
    np.testing.assert_allclose(out.asnumpy(), [[0.16650201, 0.02712224, 0.00144652],
                                               [0.14695495, 0.07773139, 0.0105063],
                                               [0.8826814, 0.0554626, 0.40198016]], rtol=1e-5)
    # a list: the norm of the vector of norms (torch's clip_grad_norm_ formula), any norm_type
    for p in (1.0, 3.0, float("inf")):
        got = run_fn(mode, lambda a, b: ops.clip_by_norm([a, b], 2.0, norm_type=p), Tensor(X1), Tensor(X2))
        if p == float("inf"):
            total = max(np.abs(X1).max(), np.abs(X2).max())
        else:
            total = (np.sum(np.abs(X1) ** p) + np.sum(np.abs(X2) ** p)) ** (1 / p)
        coef = min(2.0 / (total + 1e-6), 1.0)
        assert isinstance(got, list)
        np.testing.assert_allclose(got[0].asnumpy(), X1 * coef, rtol=1e-5)
        np.testing.assert_allclose(got[1].asnumpy(), X2 * coef, rtol=1e-5)


def test_clip_by_value_on_sequences_and_errors():
    out = ops.clip_by_value((Tensor(X1), Tensor(X2)), 1.5, 3.0)
    assert isinstance(out, tuple)
    np.testing.assert_allclose(out[1].asnumpy(), np.clip(X2, 1.5, 3.0))
    with pytest.raises(RuntimeError, match="non-finite"):
        ops.clip_by_norm(Tensor(np.array([np.inf, 1.0], np.float32)), 1.0, error_if_nonfinite=True)
    with pytest.raises(TypeError, match="tuple or list"):
        ops.clip_by_global_norm(Tensor(X1))
    with pytest.raises(ValueError, match="greater than 0"):
        ops.clip_by_global_norm((Tensor(X1),), 0.0)
    with pytest.raises(TypeError, match="float"):
        ops.clip_by_norm(Tensor(np.array([1, 2], np.int32)), 1.0)


@pytest.mark.parametrize("mode", MODES)
def test_nn_clip_by_norm(mode):
    from modes import run_cell
    x = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32) * 3
    out = run_cell(mode, nn.ClipByNorm(), Tensor(x), Tensor(np.float32(2.0)))
    np.testing.assert_allclose(out.asnumpy(), x * 2.0 / max(np.sqrt((x ** 2).sum()), 2.0), rtol=1e-5)
    rows = run_cell(mode, nn.ClipByNorm(axis=1), Tensor(x), Tensor(np.float32(2.0)))
    norms = np.sqrt((x ** 2).sum(1, keepdims=True))
    np.testing.assert_allclose(rows.asnumpy(), x * 2.0 / np.maximum(norms, 2.0), rtol=1e-5)


def test_clip_by_global_norm_in_a_training_step_gradients():
    net = nn.Dense(3, 2)
    grad_fn = ms.value_and_grad(lambda x: (net(x) ** 2).sum() * 100, None, net.trainable_params())
    _, grads = grad_fn(Tensor(np.ones((4, 3), np.float32)))
    clipped = ops.clip_by_global_norm(grads, 1.0)
    total = np.sqrt(sum((g.asnumpy() ** 2).sum() for g in clipped))
    assert abs(total - 1.0) < 1e-5
