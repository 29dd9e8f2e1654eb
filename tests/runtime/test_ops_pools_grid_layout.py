"""ops.avg_pool3d/max_pool3d/adaptive_*_pool3d, max_unpool1d/2d/3d, grid_sample, space_to_batch_nd/batch_to_space_nd,
SpaceToDepth/DepthToSpace, population_count, lstsq and the functional module's aliases: loops written from the
definitions (PyTorch's grid_sample rules for the padding modes), finite-difference gradients and every mode."""
import math

import numpy as np
import pytest

from runtime import Tensor, ops
from gradcheck import check_grad
from modes import MODES, run_fn

RNG = np.random.default_rng(31)


def _np(t):
    return t.asnumpy()


# -- 3-D pooling ----------------------------------------------------------------------------------------------
def _pool3d_loop(x, k, s, p, reduce, fill, dil=(1, 1, 1)):
    xp = np.pad(x, ((0, 0), (0, 0)) + tuple((v, v) for v in p), constant_values=fill)
    span = [d * (kk - 1) + 1 for d, kk in zip(dil, k)]
    outs = [(xp.shape[2 + i] - span[i]) // s[i] + 1 for i in range(3)]
    y = np.zeros(x.shape[:2] + tuple(outs))
    for a in range(outs[0]):
        for b in range(outs[1]):
            for c in range(outs[2]):
                win = xp[:, :, a * s[0]:a * s[0] + span[0]:dil[0], b * s[1]:b * s[1] + span[1]:dil[1],
                         c * s[2]:c * s[2] + span[2]:dil[2]]
                y[:, :, a, b, c] = reduce(win.reshape(win.shape[:2] + (-1,)), axis=-1)
    return y


@pytest.mark.parametrize("k,s,p", [((2, 2, 2), (1, 1, 1), (0, 0, 0)), ((3, 2, 2), (2, 1, 2), (1, 0, 1)),
                                   ((1, 3, 2), (1, 2, 1), (0, 1, 0))])
def test_pool3d_equals_loops(k, s, p):
    x = RNG.standard_normal((2, 2, 5, 6, 5))
    np.testing.assert_allclose(_np(ops.avg_pool3d(Tensor(x), k, s, p)), _pool3d_loop(x, k, s, p, np.mean, 0.0),
                               rtol=1e-12)
    np.testing.assert_allclose(_np(ops.max_pool3d(Tensor(x), k, s, p)), _pool3d_loop(x, k, s, p, np.max, -np.inf),
                               rtol=1e-12)
    np.testing.assert_allclose(_np(ops.max_pool3d(Tensor(x), k, s, p, dilation=(1, 2, 1))),
                               _pool3d_loop(x, k, s, p, np.max, -np.inf, (1, 2, 1)), rtol=1e-12)
    with pytest.raises(ValueError):
        ops.avg_pool3d(Tensor(x), k, s, p, ceil_mode=True)


@pytest.mark.parametrize("out", [(1, 1, 1), (2, 3, 4), (5, 2, 3)])
def test_adaptive_pool3d_equals_the_bins(out):
    x = RNG.standard_normal((1, 2, 5, 6, 7))
    avg, mx = _np(ops.adaptive_avg_pool3d(Tensor(x), out)), _np(ops.adaptive_max_pool3d(Tensor(x), out))

    def bins(n, o):
        return [(i * n // o, -(-(i + 1) * n // o)) for i in range(o)]
    for a, (d0, d1) in enumerate(bins(5, out[0])):
        for b, (h0, h1) in enumerate(bins(6, out[1])):
            for c, (w0, w1) in enumerate(bins(7, out[2])):
                box = x[:, :, d0:d1, h0:h1, w0:w1]
                np.testing.assert_allclose(avg[:, :, a, b, c], box.mean((2, 3, 4)), rtol=1e-12)
                np.testing.assert_allclose(mx[:, :, a, b, c], box.max((2, 3, 4)), rtol=1e-12)


def test_max_unpool_inverts_max_pool():
    x = RNG.standard_normal((2, 3, 6, 8))
    pooled, idx = ops.max_pool2d(Tensor(x), 2, 2, return_indices=True)
    un = _np(ops.max_unpool2d(pooled, idx, 2, 2))
    want = np.zeros_like(x)
    flat_idx, vals = _np(idx).reshape(2, 3, -1), _np(pooled).reshape(2, 3, -1)
    for n in range(2):
        for c in range(3):
            want[n, c].reshape(-1)[flat_idx[n, c]] = vals[n, c]
    np.testing.assert_array_equal(un, want)
    assert ops.max_unpool2d(pooled, idx, 2, 2, output_size=(7, 9)).shape == (2, 3, 7, 9)
    v = Tensor(np.array([[[5.0, 7.0]]]))
    i = Tensor(np.array([[[1, 2]]], np.int64))
    assert _np(ops.max_unpool1d(v, i, 2)).tolist() == [[[0.0, 5.0, 7.0, 0.0]]]
    v3 = Tensor(np.array([[[[[9.0]]]]]))
    i3 = Tensor(np.array([[[[[5]]]]], np.int64))
    out3 = _np(ops.max_unpool3d(v3, i3, 2))
    assert out3.shape == (1, 1, 2, 2, 2) and out3.reshape(-1).tolist() == [0, 0, 0, 0, 0, 9.0, 0, 0]


# -- grid_sample ------------------------------------------------------------------------------------------------
def _reflect(c, lo2, hi2):
    if lo2 == hi2:
        return 0.0
    lo, span = lo2 / 2, (hi2 - lo2) / 2
    c = abs(c - lo)
    flips = math.floor(c / span)
    extra = c - flips * span
    return extra + lo if flips % 2 == 0 else span - extra + lo


def _grid_sample_loop(x, grid, mode, padding_mode, align):
    n, c, h, w = x.shape
    _, ho, wo, _ = grid.shape
    out = np.zeros((n, c, ho, wo))

    def src(v, size):
        v = (v + 1) / 2 * (size - 1) if align else ((v + 1) * size - 1) / 2
        if padding_mode == "reflection":
            v = _reflect(v, 0, 2 * (size - 1)) if align else _reflect(v, -1, 2 * size - 1)
        if padding_mode != "zeros":
            v = min(max(v, 0), size - 1)
        return v

    def at(b, yy, xx):
        return x[b, :, yy, xx] if 0 <= yy < h and 0 <= xx < w else np.zeros(c)
    for b in range(n):
        for i in range(ho):
            for j in range(wo):
                fx, fy = src(grid[b, i, j, 0], w), src(grid[b, i, j, 1], h)
                if mode == "nearest":
                    out[b, :, i, j] = at(b, int(np.rint(fy)), int(np.rint(fx)))
                    continue
                x0, y0 = math.floor(fx), math.floor(fy)
                ax, ay = fx - x0, fy - y0
                out[b, :, i, j] = (at(b, y0, x0) * (1 - ax) * (1 - ay) + at(b, y0, x0 + 1) * ax * (1 - ay)
                                   + at(b, y0 + 1, x0) * (1 - ax) * ay + at(b, y0 + 1, x0 + 1) * ax * ay)
    return out


@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align", [False, True])
def test_grid_sample_equals_the_definition(mode, padding_mode, align):
    x = RNG.standard_normal((2, 3, 4, 5))
    grid = RNG.uniform(-1.6, 1.6, (2, 3, 4, 2))
    got = _np(ops.grid_sample(Tensor(x), Tensor(grid), mode, padding_mode, align))
    np.testing.assert_allclose(got, _grid_sample_loop(x, grid, mode, padding_mode, align), rtol=1e-10, atol=1e-12)


def test_grid_sample_identity_grid_and_errors():
    x = RNG.standard_normal((1, 2, 3, 4))
    theta = Tensor(np.array([[[1.0, 0, 0], [0, 1.0, 0]]]))
    for align in (False, True):
        grid = ops.affine_grid(theta, (1, 2, 3, 4), align)
        np.testing.assert_allclose(_np(ops.grid_sample(Tensor(x), grid, align_corners=align)), x, rtol=1e-12,
                                   atol=1e-12)
    with pytest.raises(ValueError):
        ops.grid_sample(Tensor(x), Tensor(np.zeros((1, 2, 2, 2))), mode="bicubic")


# -- layout, bits, lstsq, aliases ------------------------------------------------------------------------------
def test_space_batch_depth_equal_their_definitions():
    x = RNG.standard_normal((2, 3, 4, 6))
    y = _np(ops.space_to_batch_nd(Tensor(x), [2, 3], [[0, 0], [0, 0]]))
    assert y.shape == (12, 3, 2, 2)
    for i in range(2):
        for j in range(3):
            for nn in range(2):
                np.testing.assert_array_equal(y[(i * 3 + j) * 2 + nn], x[nn, :, i::2, j::3])
    padded = np.pad(x, ((0, 0), (0, 0), (1, 1), (2, 0)))
    y = _np(ops.space_to_batch_nd(Tensor(x), 2, [[1, 1], [2, 0]]))
    np.testing.assert_array_equal(y[3 * 2 + 1], padded[1, :, 1::2, 1::2])
    back = ops.batch_to_space_nd(Tensor(y), 2, [[1, 1], [2, 0]])
    np.testing.assert_array_equal(_np(back), x)
    np.testing.assert_array_equal(_np(ops.BatchToSpaceND([2, 2], [[1, 1], [2, 0]])(
        ops.SpaceToBatchND([2, 2], [[1, 1], [2, 0]])(Tensor(x)))), x)
    d = _np(ops.SpaceToDepth(2)(Tensor(x)))
    assert d.shape == (2, 12, 2, 3)
    for i in range(2):
        for j in range(2):
            np.testing.assert_array_equal(d[:, (i * 2 + j) * 3:(i * 2 + j + 1) * 3], x[:, :, i::2, j::2])
    np.testing.assert_array_equal(_np(ops.DepthToSpace(2)(Tensor(d))), x)


def test_population_count_lstsq_and_aliases():
    v = np.array([0, 1, 3, 7, -1, 127, -128, 85], np.int8)
    want = [bin(int(b) & 0xFF).count("1") for b in v]
    got = ops.population_count(Tensor(v))
    assert _np(got).tolist() == want and _np(got).dtype == np.uint8
    v16 = np.array([0, -1, 1023, 21845], np.int16)
    assert _np(ops.PopulationCount()(Tensor(v16))).tolist() == [bin(int(b) & 0xFFFF).count("1") for b in v16]
    a, b = RNG.standard_normal((7, 3)), RNG.standard_normal((7, 2))
    np.testing.assert_allclose(_np(ops.lstsq(Tensor(b), Tensor(a))), np.linalg.lstsq(a, b, rcond=None)[0], rtol=1e-9)
    x = Tensor(RNG.standard_normal((2, 3)))
    np.testing.assert_array_equal(_np(ops.tensor_slice(x, (0, 1), (2, 2))), _np(x)[:, 1:3])
    assert ops.shape_(x) == (2, 3) and ops.reshape_(x, (3, 2)).shape == (3, 2)
    assert _np(ops.fill_(np.float32, (2,), 4.0)).tolist() == [4.0, 4.0]
    np.testing.assert_allclose(_np(ops.pows(x, 2.0)), _np(x) ** 2)


# -- gradients and modes ----------------------------------------------------------------------------------------
GRADS = [
    ("avg_pool3d", lambda t: ops.avg_pool3d(ops.reshape(t, (1, 1, 3, 4, 4)), 2, 1, 1), (48,)),
    ("max_pool3d", lambda t: ops.max_pool3d(ops.reshape(t, (1, 1, 3, 4, 4)), 2, 1), (48,)),
    ("adaptive_avg_pool3d", lambda t: ops.adaptive_avg_pool3d(ops.reshape(t, (1, 1, 3, 4, 4)), (2, 3, 2)), (48,)),
    ("adaptive_max_pool3d", lambda t: ops.adaptive_max_pool3d(ops.reshape(t, (1, 1, 3, 4, 4)), (2, 2, 3)), (48,)),
    ("grid_sample_input", lambda t: ops.grid_sample(ops.reshape(t, (1, 2, 3, 4)), Tensor(
        np.random.default_rng(1).uniform(-1.2, 1.2, (1, 2, 3, 2))), padding_mode="zeros"), (24,)),
    ("space_to_batch_nd", lambda t: ops.space_to_batch_nd(ops.reshape(t, (1, 2, 4, 3)), [2, 1], [[0, 0], [1, 0]]),
     (24,)),
    ("space_to_depth", lambda t: ops.SpaceToDepth(2)(ops.reshape(t, (1, 2, 4, 2))), (16,)),
]


@pytest.mark.parametrize("name,fn,shape", GRADS, ids=[g[0] for g in GRADS])
def test_gradients_equal_finite_differences(name, fn, shape):
    x = np.random.default_rng(4).permutation(int(np.prod(shape))).reshape(shape) / 7.0 - 1.0  # distinct values
    check_grad(fn, x, rtol=1e-5, atol=1e-7)


def test_grid_sample_gradient_with_respect_to_the_grid():
    x = np.random.default_rng(2).standard_normal((1, 2, 4, 5))
    for padding_mode in ("zeros", "border", "reflection"):
        grid = np.random.default_rng(3).uniform(-0.9, 0.9, (1, 2, 3, 2))
        check_grad(lambda g: ops.grid_sample(Tensor(x), g, padding_mode=padding_mode), grid, rtol=1e-5, atol=1e-7)


def test_max_unpool_gradient():
    idx = Tensor(np.array([[[[0, 3], [9, 14]]]], np.int64))
    check_grad(lambda v: ops.max_unpool2d(v, idx, 2, 2), np.random.default_rng(5).standard_normal((1, 1, 2, 2)))


MODE_CASES = [
    ("pool3d", lambda a: ops.avg_pool3d(ops.reshape(a, (1, 1, 2, 3, 4)), 2, 1) * 2.0
     + ops.max_pool3d(ops.reshape(a, (1, 1, 2, 3, 4)), 2, 1)),
    ("grid_sample", lambda a: ops.grid_sample(ops.reshape(a, (1, 2, 3, 4)), ops.reshape(ops.tanh(a), (1, 3, 4, 2)),
                                              padding_mode="reflection")),
    ("layout", lambda a: ops.SpaceToDepth(2)(ops.reshape(a, (1, 2, 4, 3))[:, :, :, :2]).sum()
     + ops.space_to_batch_nd(ops.reshape(a, (1, 2, 4, 3)), [2, 1], [[0, 0], [0, 0]]).sum(0)),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name,fn", MODE_CASES, ids=[m[0] for m in MODE_CASES])
def test_every_mode_equals_pynative(name, fn, mode):
    a = Tensor(np.random.default_rng(8).uniform(-1, 1, (24,)).astype(np.float32))
    want = _np(fn(a))
    np.testing.assert_allclose(_np(run_fn(mode, fn, a)), want, rtol=1e-5, atol=1e-5)
