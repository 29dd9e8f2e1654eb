"""The random, statistics, creation and layer functions of random_more.py, math_more.py (second part),
array_more.py (second part) and nn_more.py: distributions checked by their frequencies and moments, the rest
against numpy oracles and loops written from the definitions, MindSpore's documented examples, gradients by
central differences and every execution mode equal to PyNative."""
import itertools
import math

import numpy as np
import pytest

import runtime as ms
from runtime import Tensor, ops
from gradcheck import check_grad
from modes import MODES, run_fn

RNG = np.random.default_rng(5)


def _np(t):
    return t.asnumpy()


# -- random draws -------------------------------------------------------------------------------------------
def test_bernoulli_frequencies_dtype_and_edges():
    ms.set_seed(1)
    x = Tensor(np.zeros((200, 100), np.float32))
    draws = _np(ops.bernoulli(x, 0.3))
    assert draws.dtype == np.float32 and set(np.unique(draws)) <= {0.0, 1.0}
    assert abs(draws.mean() - 0.3) < 0.01
    assert (_np(ops.bernoulli(x, 0.0)) == 0).all() and (_np(ops.bernoulli(x, 1.0)) == 1).all()
    p = Tensor(np.array([0.1, 0.9], np.float32))
    cols = _np(ops.bernoulli(Tensor(np.zeros((5000, 2), np.int32)), p))
    assert cols.dtype == np.int32
    np.testing.assert_allclose(cols.mean(0), [0.1, 0.9], atol=0.02)
    ms.set_seed(7)
    a = _np(ops.bernoulli(x, 0.5))
    ms.set_seed(7)
    np.testing.assert_array_equal(a, _np(ops.bernoulli(x, 0.5)))
    with pytest.raises(ValueError):
        ops.bernoulli(x, 1.5)


def test_multinomial_with_replacement_follows_the_weights():
    ms.set_seed(2)
    w = np.array([[1.0, 0.0, 3.0, 4.0], [0.0, 0.0, 1.0, 0.0]], np.float32)
    draws = _np(ops.multinomial(Tensor(w), 20000))
    assert draws.shape == (2, 20000) and draws.dtype == np.int32
    freq = np.bincount(draws[0], minlength=4) / 20000
    np.testing.assert_allclose(freq, w[0] / w[0].sum(), atol=0.015)
    assert (draws[1] == 2).all()
    one_d = _np(ops.multinomial(Tensor(w[0]), 5))
    assert one_d.shape == (5,) and 1 not in one_d


def test_multinomial_without_replacement_draws_distinct_categories():
    ms.set_seed(3)
    w = np.array([1.0, 2.0, 3.0, 4.0, 0.5], np.float32)
    rows = np.tile(w, (4000, 1))
    draws = _np(ops.multinomial(Tensor(rows), 3, replacement=False))
    assert draws.shape == (4000, 3)
    assert all(len(set(r)) == 3 for r in draws)
    np.testing.assert_allclose(np.bincount(draws[:, 0], minlength=5) / 4000, w / w.sum(), atol=0.025)
    with pytest.raises(ValueError):
        ops.multinomial(Tensor(w), 6, replacement=False)


def test_random_categorical_shuffle_randperm():
    ms.set_seed(4)
    logits = np.log(np.array([[0.2, 0.3, 0.5]], np.float32))
    draws = _np(ops.random_categorical(Tensor(np.repeat(logits, 2, 0)), 10000))
    assert draws.shape == (2, 10000) and draws.dtype == np.int64
    np.testing.assert_allclose(np.bincount(draws[0], minlength=3) / 10000, [0.2, 0.3, 0.5], atol=0.02)
    x = np.arange(24).reshape(8, 3)
    shuffled = _np(ops.shuffle(Tensor(x)))
    assert sorted(map(tuple, shuffled)) == sorted(map(tuple, x)) and not (shuffled == x).all()
    perm = _np(ops.randperm(50))
    assert perm.dtype == np.int64 and sorted(perm.tolist()) == list(range(50))
    firsts = [int(_np(ops.randperm(4))[0]) for _ in range(400)]
    assert set(firsts) == {0, 1, 2, 3}


def test_laplace_moments():
    ms.set_seed(5)
    s = _np(ops.laplace((200000,), Tensor(np.float32(1.5)), Tensor(np.float32(0.5))))
    assert abs(s.mean() - 1.5) < 0.01 and abs(s.var() - 2 * 0.5 ** 2) < 0.01
    assert abs(np.median(s) - 1.5) < 0.01
    z = _np(ops.standard_laplace((200000,)))
    assert z.dtype == np.float32 and abs(z.mean()) < 0.01 and abs(z.var() - 2.0) < 0.05
    assert abs((np.abs(z) > 1).mean() - math.exp(-1)) < 0.01  # P(|X| > t) = exp(-t)


# -- statistics -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("axis", [0, 1, None])
@pytest.mark.parametrize("keepdims", [False, True])
def test_quantile_equals_numpy(axis, keepdims):
    x = RNG.standard_normal((5, 7))
    for q in (0.0, 0.3, 0.5, 1.0):
        np.testing.assert_allclose(_np(ops.quantile(Tensor(x), q, axis, keepdims)),
                                   np.quantile(x, q, axis=axis, keepdims=keepdims), rtol=1e-12)
    qs = np.array([0.1, 0.5, 0.9])
    np.testing.assert_allclose(_np(ops.quantile(Tensor(x), Tensor(qs), axis, keepdims)),
                               np.quantile(x, qs, axis=axis, keepdims=keepdims), rtol=1e-12)
    xn = x.copy()
    xn[1, 2] = xn[4, 4] = np.nan
    xn[:, 6] = np.nan
    with np.errstate(all="ignore"):
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = np.nanquantile(xn, qs, axis=axis, keepdims=keepdims)
    np.testing.assert_allclose(_np(ops.nanquantile(Tensor(xn), Tensor(qs), axis, keepdims)), want, rtol=1e-12)
    got = _np(ops.quantile(Tensor(xn), 0.5, axis, keepdims))
    np.testing.assert_array_equal(np.isnan(got), np.isnan(np.quantile(xn, 0.5, axis=axis, keepdims=keepdims)))


def test_nanmedian_is_the_lower_median_of_the_values():
    x = RNG.standard_normal((6, 5)).astype(np.float32)
    x[0, 1] = x[2, :3] = np.nan
    x[5] = np.nan
    values, indices = ops.nanmedian(Tensor(x), 1)
    for r in range(6):
        vals = np.sort(x[r][~np.isnan(x[r])])
        if vals.size:
            assert _np(values)[r] == vals[(vals.size - 1) // 2]
            assert x[r, _np(indices)[r]] == vals[(vals.size - 1) // 2]
        else:
            assert np.isnan(_np(values)[r])
    v, _ = ops.nanmedian(Tensor(x), 0, keepdims=True)
    assert v.shape == (1, 5)


def test_histc_norms_fmax_msort_intopk():
    x = RNG.uniform(-3, 3, 500).astype(np.float32)
    got = _np(ops.histc(Tensor(x), 6, -2.0, 2.0))
    want, _ = np.histogram(x[(x >= -2) & (x <= 2)], 6, (-2.0, 2.0))
    np.testing.assert_array_equal(got, want.astype(np.float32))
    assert ops.histc(Tensor(x), 6, -2.0, 2.0).dtype == ms.float32
    np.testing.assert_array_equal(_np(ops.histc(Tensor(x), 5)), np.histogram(x, 5)[0])
    m = RNG.standard_normal((3, 4, 5))
    for ord_ in (2, 1, 3.5, float("inf"), -float("inf"), 0):
        np.testing.assert_allclose(_np(ops.vector_norm(Tensor(m), ord_, 2)), np.linalg.norm(m, ord_, axis=2),
                                   rtol=1e-12)
    np.testing.assert_allclose(_np(ops.vector_norm(Tensor(m))), np.linalg.norm(m.ravel()), rtol=1e-12)
    np.testing.assert_allclose(_np(ops.vector_norm(Tensor(m), 1, (0, 2), True)),
                               np.abs(m).sum((0, 2), keepdims=True), rtol=1e-12)
    for ord_ in ("fro", 1, -1, float("inf")):
        np.testing.assert_allclose(_np(ops.matrix_norm(Tensor(m), ord_)), np.linalg.norm(m, ord_, axis=(-2, -1)),
                                   rtol=1e-12)
    a = np.array([1.0, np.nan, 3.0, np.nan], np.float32)
    b = np.array([2.0, 1.0, np.nan, np.nan], np.float32)
    np.testing.assert_array_equal(_np(ops.fmax(Tensor(a), Tensor(b))), np.fmax(a, b))
    np.testing.assert_array_equal(_np(ops.fmin(Tensor(a), Tensor(b))), np.fmin(a, b))
    np.testing.assert_array_equal(_np(ops.msort(Tensor(m))), np.sort(m, axis=0))
    scores = RNG.standard_normal((6, 5)).astype(np.float32)
    targets = RNG.integers(0, 5, 6).astype(np.int32)
    for k in (1, 2, 4):
        want = [(scores[i] > scores[i, targets[i]]).sum() < k for i in range(6)]
        assert _np(ops.intopk(Tensor(scores), Tensor(targets), k)).tolist() == want


# -- linear algebra and layout --------------------------------------------------------------------------------
def test_batch_dot_documented_examples_and_einsum():
    ones = lambda *s: Tensor(np.ones(s, np.float32))
    out = ops.batch_dot(ones(2, 2, 3), ones(2, 3, 2), (-1, -2))
    assert _np(out).tolist() == [[[3.0, 3.0], [3.0, 3.0]], [[3.0, 3.0], [3.0, 3.0]]]
    out = ops.batch_dot(ones(2, 2), ones(2, 3, 2), (1, 2))
    assert _np(out).tolist() == [[2.0, 2.0, 2.0], [2.0, 2.0, 2.0]] and out.shape == (2, 3)
    assert ops.batch_dot(ones(6, 2, 3, 4), ones(6, 5, 4, 8)).shape == (6, 2, 3, 5, 8)
    assert ops.batch_dot(ones(2, 2, 4), ones(2, 5, 4, 5)).shape == (2, 2, 5, 5)
    a, b = RNG.standard_normal((3, 4, 5)), RNG.standard_normal((3, 6, 5))
    np.testing.assert_allclose(_np(ops.batch_dot(Tensor(a), Tensor(b), (2, 2))), np.einsum("bij,bkj->bik", a, b),
                               rtol=1e-12)
    c, d = RNG.standard_normal((3, 4)), RNG.standard_normal((3, 4))
    np.testing.assert_allclose(_np(ops.batch_dot(Tensor(c), Tensor(d))), (c * d).sum(1, keepdims=True), rtol=1e-12)


@pytest.mark.parametrize("offset,dim1,dim2", [(0, -2, -1), (1, -2, -1), (-2, 0, 2), (2, 1, 0)])
def test_diag_embed_equals_a_loop(offset, dim1, dim2):
    x = RNG.standard_normal((2, 3))
    got = _np(ops.diag_embed(Tensor(x), offset, dim1, dim2))
    n = 3 + abs(offset)
    want = np.zeros((2, n, n))
    for b in range(2):
        for i in range(3):
            r, c = (i, i + offset) if offset >= 0 else (i - offset, i)
            want[b, r, c] = x[b, i]
    d1, d2 = dim1 % 3, dim2 % 3
    rest = [d for d in range(3) if d not in (d1, d2)]
    order = [0] * 3
    order[rest[0]], order[d1], order[d2] = 0, 1, 2
    np.testing.assert_allclose(got, np.transpose(want, order), rtol=1e-12)


def test_erfinv_inverts_erf():
    x = np.concatenate([np.linspace(-0.999999, 0.999999, 2001), [0.0, 1e-7, -1e-7]])
    y = _np(ops.erfinv(Tensor(x)))
    np.testing.assert_allclose([math.erf(v) for v in y], x, rtol=1e-12, atol=1e-15)
    x32 = x.astype(np.float32)
    y32 = _np(ops.erfinv(Tensor(x32)))
    np.testing.assert_allclose(y32, _np(ops.erfinv(Tensor(x32.astype(np.float64)))), rtol=2e-5, atol=1e-6)
    edges = _np(ops.erfinv(Tensor(np.array([-1.0, 1.0, 1.5, -2.0]))))
    assert edges[0] == -np.inf and edges[1] == np.inf and np.isnan(edges[2:]).all()
    # reference values: erfinv(0.5) = 0.4769362762044699, erfinv(-0.9) = -1.1630871536766743
    np.testing.assert_allclose(_np(ops.erfinv(Tensor(np.array([0, 0.5, -0.9])))),
                               [0.0, 0.4769362762044699, -1.1630871536766743], rtol=1e-13)


def test_inplace_rows_combinations_creation_windows():
    x = RNG.standard_normal((5, 3))
    v = RNG.standard_normal((2, 3))
    want = x.copy()
    want[[1, 3]] += v
    np.testing.assert_allclose(_np(ops.inplace_add(Tensor(x), Tensor(v), (1, 3))), want)
    want = x.copy()
    want[[1, 3]] -= v
    np.testing.assert_allclose(_np(ops.inplace_sub(Tensor(x), Tensor(v), (1, 3))), want)
    want = x.copy()
    want[4] = v[0]
    np.testing.assert_allclose(_np(ops.inplace_update(Tensor(x), Tensor(v[:1]), 4)), want)
    s = np.array([3, 1, 4, 5], np.int32)
    for r, rep in ((2, False), (3, False), (2, True)):
        make = itertools.combinations_with_replacement if rep else itertools.combinations
        assert _np(ops.combinations(Tensor(s), r, rep)).tolist() == [list(c) for c in make(s.tolist(), r)]
    np.testing.assert_allclose(_np(ops.logspace(0.5, 2.0, 7, 2)), np.logspace(0.5, 2.0, 7, base=2), rtol=1e-6)
    assert _np(ops.range(1, 10, 3)).tolist() == [1, 4, 7] and ops.range(1, 10, 3).dtype == ms.int64
    assert ops.range(0.0, 1.0, 0.3).dtype == ms.float32
    r = ops.range(Tensor(np.int32(5)), Tensor(np.int32(0)), Tensor(np.int32(-2)))
    assert _np(r).tolist() == [5, 3, 1] and r.dtype == ms.int32
    n = np.arange(8)
    np.testing.assert_allclose(_np(ops.hann_window(8)), 0.5 - 0.5 * np.cos(2 * np.pi * n / 8), atol=1e-6)
    np.testing.assert_allclose(_np(ops.hann_window(8, False)), np.hanning(8), atol=1e-6)
    np.testing.assert_allclose(_np(ops.hamming_window(8, True, 0.6, 0.4)), 0.6 - 0.4 * np.cos(2 * np.pi * n / 8),
                               atol=1e-6)
    np.testing.assert_allclose(_np(ops.blackman_window(8, False)), np.blackman(8), atol=1e-6)
    np.testing.assert_allclose(_np(ops.bartlett_window(7)), np.bartlett(8)[:-1], atol=1e-6)
    np.testing.assert_allclose(_np(ops.kaiser_window(6, False, 5.0)), np.kaiser(6, 5.0), atol=1e-6)
    assert ops.hann_window(1).asnumpy().tolist() == [1.0] and ops.hann_window(0).shape == (0,)
    assert ops.hann_window(4, dtype=ms.float64).dtype == ms.float64


# -- layers -------------------------------------------------------------------------------------------------
def test_adaptive_1d_pools_equal_the_windows():
    x = RNG.standard_normal((2, 3, 10))
    for out in (1, 3, 4, 10):
        avg, mx = _np(ops.adaptive_avg_pool1d(Tensor(x), out)), _np(ops.adaptive_max_pool1d(Tensor(x), out))
        for i in range(out):
            lo, hi = (i * 10) // out, -((-(i + 1) * 10) // out)
            np.testing.assert_allclose(avg[..., i], x[..., lo:hi].mean(-1), rtol=1e-12)
            np.testing.assert_allclose(mx[..., i], x[..., lo:hi].max(-1), rtol=1e-12)


def test_lp_pool_lrn_pdist_equal_loops():
    x = RNG.uniform(0.1, 2, (2, 3, 9))
    got = _np(ops.lp_pool1d(Tensor(x), 3, 2))
    want = np.stack([(x[..., i:i + 2] ** 3).sum(-1) ** (1 / 3) for i in range(0, 8, 2)], -1)
    np.testing.assert_allclose(got, want, rtol=1e-10)
    x2 = RNG.uniform(0.1, 2, (1, 2, 6, 7))
    got = _np(ops.lp_pool2d(Tensor(x2), 2, (2, 3), stride=(2, 2)))
    want = np.zeros((1, 2, 3, 3))
    for i in range(3):
        for j in range(3):
            want[..., i, j] = np.sqrt((x2[..., 2 * i:2 * i + 2, 2 * j:2 * j + 3] ** 2).sum((-1, -2)))
    np.testing.assert_allclose(got, want, rtol=1e-10)
    y = RNG.standard_normal((2, 7, 3, 2))
    got = _np(ops.lrn(Tensor(y), 2, 1.5, 0.3, 0.75))
    want = np.zeros_like(y)
    for c in range(7):
        s = (y[:, max(0, c - 2):c + 3] ** 2).sum(1)
        want[:, c] = y[:, c] / (1.5 + 0.3 * s) ** 0.75
    np.testing.assert_allclose(got, want, rtol=1e-10)
    pts = RNG.standard_normal((2, 5, 3))
    for p in (2.0, 1.0, 3.0):
        want = np.array([[np.linalg.norm(b[i] - b[j], p) for i in range(5) for j in range(i + 1, 5)] for b in pts])
        np.testing.assert_allclose(_np(ops.pdist(Tensor(pts), p)), want, rtol=1e-10)


def test_col2im_is_fold_and_affine_grid_maps_the_base_grid():
    cols = RNG.standard_normal((1, 2, 4, 12))
    got = _np(ops.col2im(Tensor(cols), Tensor(np.array([4, 5], np.int32)), (2, 2), (1, 1), (0, 0), (1, 1)))
    want = _np(ops.fold(Tensor(cols.reshape(1, 8, 12)), (4, 5), 2))
    np.testing.assert_allclose(got, want, rtol=1e-12)
    theta = RNG.standard_normal((2, 2, 3))
    for align in (False, True):
        grid = _np(ops.affine_grid(Tensor(theta), (2, 1, 3, 4), align))
        xs = np.linspace(-1, 1, 4) if align else (np.arange(4) * 2 + 1) / 4 - 1
        ys = np.linspace(-1, 1, 3) if align else (np.arange(3) * 2 + 1) / 3 - 1
        for n in range(2):
            for i in range(3):
                for j in range(4):
                    np.testing.assert_allclose(grid[n, i, j], theta[n] @ np.array([xs[j], ys[i], 1.0]), rtol=1e-12)
    theta3 = RNG.standard_normal((1, 3, 4))
    g3 = _np(ops.affine_grid(Tensor(theta3), (1, 1, 2, 3, 4), True))
    assert g3.shape == (1, 2, 3, 4, 3)
    np.testing.assert_allclose(g3[0, 1, 2, 3], theta3[0] @ np.array([1.0, 1.0, 1.0, 1.0]), rtol=1e-12)


# -- gradients and modes ---------------------------------------------------------------------------------------
GRADS = [
    ("quantile", lambda t: ops.quantile(t, Tensor(np.array([0.3, 0.8])), 1)),
    ("nanquantile", lambda t: ops.nanquantile(t, 0.4, 0)),
    ("nanmedian", lambda t: ops.nanmedian(t, 1)[0]),
    ("vector_norm", lambda t: ops.vector_norm(t, 3.0, 1)),
    ("matrix_norm", lambda t: ops.matrix_norm(t)),
    ("batch_dot", lambda t: ops.batch_dot(t, t * t, (1, 1))),
    ("diag_embed", lambda t: ops.diag_embed(t, 1)),
    ("erfinv", lambda t: ops.erfinv(t * 0.4)),
    ("inplace_add", lambda t: ops.inplace_add(t, t[:1] * 2.0, 2)),
    ("lp_pool1d", lambda t: ops.lp_pool1d(ops.reshape(t, (1, 2, 6)) + 3.0, 2.0, 2)),
    ("lrn", lambda t: ops.lrn(ops.reshape(t, (1, 3, 2, 2)), 1)),
    ("pdist", lambda t: ops.pdist(t)),
    ("affine_grid", lambda t: ops.affine_grid(ops.reshape(t[:2], (1, 2, 3)), (1, 1, 2, 3))),
    ("adaptive_avg_pool1d", lambda t: ops.adaptive_avg_pool1d(ops.reshape(t, (1, 2, 6)), 4)),
    ("adaptive_max_pool1d", lambda t: ops.adaptive_max_pool1d(ops.reshape(t, (1, 2, 6)), 3)),
]


@pytest.mark.parametrize("name,fn", GRADS, ids=[g[0] for g in GRADS])
def test_gradients_equal_finite_differences(name, fn):
    x = np.random.default_rng(9).permutation(12).reshape(4, 3) / 6.0 - 0.9 + 0.01  # distinct values: no ties
    check_grad(fn, x, rtol=1e-5, atol=1e-7)


MODE_CASES = [
    ("stats", lambda a: ops.quantile(a, 0.3, 1) + ops.nanmedian(a, 1)[0] + ops.vector_norm(a, 2, 1)),
    ("linalg", lambda a: ops.batch_dot(a, a, (1, 1)).sum() + ops.diag_embed(a).sum((1, 2)) + ops.erfinv(a[:, 0] * 0.3)),
    ("layers", lambda a: ops.lp_pool1d(ops.reshape(a, (1, 4, 4)) + 2.0, 2, 2).sum() + ops.pdist(a)[:4]
     + ops.affine_grid(ops.reshape(a[:2, :3], (1, 2, 3)), (1, 1, 2, 2)).reshape(4, 2)[:, 0]),
    ("creation", lambda a: a[0] * ops.hann_window(4) + ops.logspace(0, 1, 4) + ops.inplace_add(a, a[:1], 1)[1]),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name,fn", MODE_CASES, ids=[m[0] for m in MODE_CASES])
def test_every_mode_equals_pynative(name, fn, mode):
    a = Tensor(np.random.default_rng(13).uniform(-2, 2, (4, 4)).astype(np.float32))
    want = _np(fn(a))
    np.testing.assert_allclose(_np(run_fn(mode, fn, a)), want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("alpha", [0.3, 1.0, 2.5, 30.0])
def test_random_gamma_moments(alpha):
    ms.set_seed(11)
    s = _np(ops.random_gamma((100000,), Tensor(np.array(alpha))))
    assert s.min() > 0
    # mean alpha, variance alpha, skewness 2 / sqrt(alpha) (standard errors ~ sqrt(alpha/1e5) and less)
    assert abs(s.mean() - alpha) < 0.02 * max(alpha, 1) ** 0.5
    assert abs(s.var() / alpha - 1) < 0.03
    skew = ((s - s.mean()) ** 3).mean() / s.std() ** 3
    assert abs(skew - 2 / np.sqrt(alpha)) < 0.15 * max(1.0, 2 / np.sqrt(alpha))


def test_gamma_shapes_scale_and_documented_shapes():
    ms.set_seed(12)
    out = ops.random_gamma(Tensor(np.array([7, 5], np.int32)), Tensor(np.array([0.5, 1.5], np.float32)), seed=5)
    assert out.shape == (7, 5, 2) and out.dtype == ms.float32
    alpha = Tensor(np.array([[3, 4], [5, 6]], np.float32))
    assert ops.gamma((3, 1, 2), alpha, Tensor(np.array([1.0], np.float32)), seed=5).shape == (3, 2, 2)
    alpha3 = Tensor(np.array([[1, 3, 4], [2, 5, 6]], np.float32))
    assert ops.gamma((3, 1, 3), alpha3, Tensor(np.array([1.0], np.float32)), seed=5).shape == (3, 2, 3)
    draws = _np(ops.gamma((40000, 2), Tensor(np.array([2.0, 3.0])), Tensor(np.array([0.5, 4.0]))))
    np.testing.assert_allclose(draws.mean(0), [2.0 * 0.5, 3.0 * 4.0], rtol=0.03)  # beta is the scale
    np.testing.assert_allclose(draws.var(0), [2.0 * 0.25, 3.0 * 16.0], rtol=0.06)


@pytest.mark.parametrize("mode", MODES)
def test_random_gamma_under_every_mode(mode):
    ms.set_seed(13)
    s = _np(run_fn(mode, lambda a: ops.random_gamma((20000,), a), Tensor(np.array([2.0, 0.5], np.float32))))
    assert s.shape == (20000, 2) and abs(s[:, 0].mean() - 2.0) < 0.06 and abs(s[:, 1].mean() - 0.5) < 0.03
