"""The Primitive spellings of primitive_more.py call the functions they name, with MindSpore's attributes."""
import numpy as np
import pytest

import runtime as ms
from runtime import Tensor, ops

RNG = np.random.default_rng(51)


def _np(t):
    return t.asnumpy()


def test_unary_and_scan_primitives():
    x = np.array([[0.3, -0.7], [0.9, 0.1]])
    np.testing.assert_array_equal(_np(ops.Erfinv()(Tensor(x))), _np(ops.erfinv(Tensor(x))))
    np.testing.assert_array_equal(_np(ops.Conj()(Tensor(x))), x)
    np.testing.assert_array_equal(_np(ops.Real()(Tensor(x))), x)
    np.testing.assert_array_equal(_np(ops.Imag()(Tensor(x))), np.zeros_like(x))
    v, i = ops.Cummax(axis=1)(Tensor(x))
    assert _np(v).tolist() == [[0.3, 0.3], [0.9, 0.9]] and _np(i).tolist() == [[0, 0], [0, 0]]
    v, i = ops.Cummin(0)(Tensor(x))
    assert _np(v).tolist() == [[0.3, -0.7], [0.3, -0.7]] and _np(i).tolist() == [[0, 0], [0, 0]]


def test_random_primitives():
    ms.set_seed(9)
    z = _np(ops.StandardLaplace(seed=1)((50000,)))
    assert abs(z.mean()) < 0.03 and abs(z.var() - 2.0) < 0.1
    draws = ops.Multinomial(dtype=ms.int64)(Tensor(np.array([[0.0, 1.0, 3.0]], np.float32)), 4000)
    assert draws.dtype == ms.int64 and abs((_np(draws) == 2).mean() - 0.75) < 0.03
    cats = _np(ops.RandomCategorical(ms.int32)(Tensor(np.log(np.array([[0.5, 0.5, 1e-9]], np.float32))), 1000))
    assert cats.dtype == np.int32 and set(np.unique(cats)) == {0, 1}
    out = _np(ops.Randperm(max_length=6, pad=-1)(Tensor(np.array([4], np.int32))))
    assert out.dtype == np.int32 and sorted(out[:4].tolist()) == [0, 1, 2, 3] and out[4:].tolist() == [-1, -1]
    with pytest.raises(ValueError):
        ops.Randperm(max_length=2)(Tensor(np.array([3], np.int32)))


def test_row_updates_index_fill_lrn():
    x = RNG.standard_normal((4, 3))
    v = RNG.standard_normal((2, 3))
    want = x.copy()
    want[[0, 2]] += v
    np.testing.assert_allclose(_np(ops.InplaceAdd((0, 2))(Tensor(x), Tensor(v))), want)
    want = x.copy()
    want[[0, 2]] -= v
    np.testing.assert_allclose(_np(ops.InplaceSub((0, 2))(Tensor(x), Tensor(v))), want)
    want = x.copy()
    want[[3, 1]] = v
    np.testing.assert_allclose(_np(ops.InplaceUpdate((3, 1))(Tensor(x), Tensor(v))), want)
    want = x.copy()
    want[:, 1] = -5.0
    np.testing.assert_allclose(_np(ops.IndexFill()(Tensor(x), 1, Tensor(np.array([1], np.int32)), -5.0)), want)
    y = RNG.standard_normal((1, 4, 2, 2))
    np.testing.assert_allclose(_np(ops.LRN(1, 2.0, 0.5, 0.75)(Tensor(y))), _np(ops.lrn(Tensor(y), 1, 2.0, 0.5, 0.75)))
