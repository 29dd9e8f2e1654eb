"""ops.det/slogdet/logdet/inverse/matrix_solve/cholesky* (unrolled elimination and Cholesky of registry ops) and
ops.lgamma/digamma/mvlgamma (Lanczos and the asymptotic series), with their Primitive spellings: numpy and
``math.lgamma`` oracles, an independent digamma written from its recurrence and series, gradients by central
differences and every execution mode equal to PyNative."""
import math

import numpy as np
import pytest

import runtime as ms
from runtime import Tensor, ops
from gradcheck import check_grad
from modes import MODES, run_fn

RNG = np.random.default_rng(21)


def _np(t):
    return t.asnumpy()


@pytest.mark.parametrize("n", [1, 2, 3, 5, 7])
@pytest.mark.parametrize("batch", [(), (3,), (2, 2)])
def test_determinants_inverse_and_solve_equal_numpy(n, batch):
    a = RNG.standard_normal(batch + (n, n))
    np.testing.assert_allclose(_np(ops.det(Tensor(a))), np.linalg.det(a), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(_np(ops.matrix_determinant(Tensor(a))), np.linalg.det(a), rtol=1e-10, atol=1e-12)
    sign, logabs = ops.slogdet(Tensor(a))
    want_s, want_l = np.linalg.slogdet(a)
    np.testing.assert_array_equal(_np(sign), want_s)
    np.testing.assert_allclose(_np(logabs), want_l, rtol=1e-10, atol=1e-12)
    sign2, logabs2 = ops.log_matrix_determinant(Tensor(a))
    np.testing.assert_array_equal(_np(sign2), want_s)
    with np.errstate(invalid="ignore"):
        np.testing.assert_allclose(_np(ops.logdet(Tensor(a))), np.where(want_s < 0, np.nan, want_l), rtol=1e-10)
    np.testing.assert_allclose(_np(ops.inverse(Tensor(a))), np.linalg.inv(a), rtol=1e-8, atol=1e-10)
    b = RNG.standard_normal(batch + (n, 2))
    np.testing.assert_allclose(_np(ops.matrix_solve(Tensor(a), Tensor(b))), np.linalg.solve(a, b), rtol=1e-8,
                               atol=1e-10)
    at = np.swapaxes(a, -1, -2)
    np.testing.assert_allclose(_np(ops.matrix_solve(Tensor(a), Tensor(b), adjoint=True)), np.linalg.solve(at, b),
                               rtol=1e-8, atol=1e-10)


def test_pivoting_singular_and_float32():
    perm = np.array([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]])  # needs row swaps (zero pivots)
    assert float(_np(ops.det(Tensor(perm)))) == np.linalg.det(perm) == 1.0
    np.testing.assert_allclose(_np(ops.inverse(Tensor(perm))), perm.T, atol=1e-15)
    singular = np.array([[1.0, 2.0], [2.0, 4.0]])
    assert float(_np(ops.det(Tensor(singular)))) == 0.0
    sign, logabs = ops.slogdet(Tensor(singular))
    assert float(_np(sign)) == 0.0 and float(_np(logabs)) == -np.inf
    a32 = RNG.standard_normal((4, 4)).astype(np.float32)
    out = ops.inverse(Tensor(a32))
    assert out.dtype == ms.float32
    np.testing.assert_allclose(_np(out), np.linalg.inv(a32.astype(np.float64)), rtol=1e-3, atol=1e-4)
    with pytest.raises(ValueError):
        ops.det(Tensor(np.zeros((2, 3))))


@pytest.mark.parametrize("n", [1, 3, 6])
def test_cholesky_family_equals_numpy(n):
    m = RNG.standard_normal((2, n, n))
    spd = m @ np.swapaxes(m, -1, -2) + n * np.eye(n)
    low = np.linalg.cholesky(spd)
    np.testing.assert_allclose(_np(ops.cholesky(Tensor(spd))), low, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(_np(ops.cholesky(Tensor(spd), upper=True)), np.swapaxes(low, -1, -2), rtol=1e-10,
                               atol=1e-12)
    b = RNG.standard_normal((2, n, 3))
    np.testing.assert_allclose(_np(ops.cholesky_solve(Tensor(b), Tensor(low))), np.linalg.solve(spd, b), rtol=1e-8,
                               atol=1e-10)
    np.testing.assert_allclose(_np(ops.cholesky_solve(Tensor(b), Tensor(np.swapaxes(low, -1, -2)), upper=True)),
                               np.linalg.solve(spd, b), rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(_np(ops.cholesky_inverse(Tensor(low[0]))), np.linalg.inv(spd[0]), rtol=1e-8, atol=1e-10)


def test_primitive_spellings():
    a = RNG.standard_normal((3, 3))
    np.testing.assert_allclose(_np(ops.MatrixInverse()(Tensor(a))), np.linalg.inv(a), rtol=1e-8)
    np.testing.assert_allclose(_np(ops.MatrixInverse(True)(Tensor(a))), np.linalg.inv(a.T), rtol=1e-8)
    np.testing.assert_allclose(_np(ops.MatrixDeterminant()(Tensor(a))), np.linalg.det(a), rtol=1e-10)
    np.testing.assert_allclose(_np(ops.LogMatrixDeterminant()(Tensor(a))[1]), np.linalg.slogdet(a)[1], rtol=1e-10)
    b = RNG.standard_normal((3, 1))
    np.testing.assert_allclose(_np(ops.MatrixSolve()(Tensor(a), Tensor(b))), np.linalg.solve(a, b), rtol=1e-8)
    spd = a @ a.T + 3 * np.eye(3)
    low = np.linalg.cholesky(spd)
    np.testing.assert_allclose(_np(ops.Cholesky()(Tensor(spd))), low, rtol=1e-10)
    np.testing.assert_allclose(_np(ops.CholeskyInverse()(Tensor(low))), np.linalg.inv(spd), rtol=1e-8)
    np.testing.assert_allclose(_np(ops.CholeskySolve()(Tensor(b), Tensor(low))), np.linalg.solve(spd, b), rtol=1e-8)
    x = np.array([0.5, 2.5, 7.0])
    np.testing.assert_allclose(_np(ops.Lgamma()(Tensor(x))), [math.lgamma(v) for v in x], rtol=1e-13)
    np.testing.assert_allclose(_np(ops.Digamma()(Tensor(x))), [_psi(v) for v in x], rtol=1e-13)
    np.testing.assert_allclose(_np(ops.Mvlgamma(2)(Tensor(x + 1))), [_mvlgamma(v, 2) for v in x + 1], rtol=1e-13)


# -- special functions ------------------------------------------------------------------------------------------
def _psi(v):
    """digamma from its recurrence up to 40 and a longer asymptotic series (reflection below 1/2)."""
    if v < 0.5:
        return _psi(1 - v) - math.pi / math.tan(math.pi * v)
    s = 0.0
    while v < 40:
        s -= 1 / v
        v += 1
    r, p = math.log(v) - 0.5 / v, 1 / v ** 2
    for b in (1 / 12, -1 / 120, 1 / 252, -1 / 240, 1 / 132, -691 / 32760, 1 / 12, -3617 / 8160):
        r -= b * p
        p /= v * v
    return r + s


def _mvlgamma(v, p):
    return p * (p - 1) / 4 * math.log(math.pi) + sum(math.lgamma(v - j / 2) for j in range(p))


def test_lgamma_digamma_mvlgamma_equal_the_references():
    x = np.concatenate([np.linspace(-6.95, -0.05, 70), np.linspace(1e-4, 0.49, 30), np.linspace(0.5, 60, 300),
                        [1.0, 2.0, 1e3, 1e6]])
    got = _np(ops.lgamma(Tensor(x)))
    want = np.array([math.lgamma(v) for v in x])
    np.testing.assert_allclose(got, want, rtol=2e-13, atol=2e-13)
    got = _np(ops.digamma(Tensor(x)))
    want = np.array([_psi(v) for v in x])
    np.testing.assert_allclose(got, want, rtol=2e-13, atol=2e-13)
    poles = np.array([0.0, -1.0, -3.0])
    assert np.isposinf(_np(ops.lgamma(Tensor(poles)))).all()
    d = _np(ops.digamma(Tensor(poles)))
    assert d[0] == -np.inf and np.isnan(d[1:]).all()
    assert ops.lgamma(Tensor(np.array([3, 4], np.int32))).dtype == ms.float32
    f32 = _np(ops.lgamma(Tensor(np.array([0.3, 4.5], np.float32))))
    np.testing.assert_allclose(f32, [math.lgamma(0.3), math.lgamma(4.5)], rtol=1e-6)
    v = np.array([[1.5, 3.0], [4.2, 10.0]])
    np.testing.assert_allclose(_np(ops.mvlgamma(Tensor(v), 3)), np.vectorize(lambda t: _mvlgamma(t, 3))(v),
                               rtol=1e-13)
    with pytest.raises(ValueError):
        ops.mvlgamma(Tensor(v), 0)


# -- gradients and modes ---------------------------------------------------------------------------------------
def _well_conditioned(n, seed):
    r = np.random.default_rng(seed)
    return r.standard_normal((n, n)) + n * np.eye(n)


GRADS = [
    ("det", lambda a: ops.det(a), lambda: [_well_conditioned(4, 1)]),
    ("slogdet", lambda a: ops.slogdet(a)[1], lambda: [_well_conditioned(3, 2)]),
    ("logdet", lambda a: ops.logdet(a), lambda: [_well_conditioned(3, 3)]),
    ("inverse", lambda a: ops.inverse(a), lambda: [_well_conditioned(3, 4)]),
    ("matrix_solve", lambda a, b: ops.matrix_solve(a, b), lambda: [_well_conditioned(3, 5),
                                                                 np.random.default_rng(5).standard_normal((3, 2))]),
    ("cholesky", lambda m: ops.cholesky(ops.matmul(m, ops.t(m)) + Tensor(np.eye(3) * 3)),
     lambda: [np.random.default_rng(6).standard_normal((3, 3))]),
    ("cholesky_solve", lambda b, low: ops.cholesky_solve(b, ops.tril(low) + Tensor(np.eye(3) * 3)),
     lambda: [np.random.default_rng(7).standard_normal((3, 2)), np.random.default_rng(8).standard_normal((3, 3))]),
    ("lgamma", ops.lgamma, lambda: [np.array([-2.5, -0.3, 0.2, 0.7, 1.5, 3.3, 12.0])]),
    ("digamma", ops.digamma, lambda: [np.array([-2.5, -0.3, 0.2, 0.7, 1.5, 3.3, 12.0])]),
    ("mvlgamma", lambda x: ops.mvlgamma(x, 2), lambda: [np.array([1.2, 2.5, 6.0])]),
]


@pytest.mark.parametrize("name,fn,make", GRADS, ids=[g[0] for g in GRADS])
def test_gradients_equal_finite_differences(name, fn, make):
    check_grad(fn, *make(), rtol=1e-5, atol=1e-7)


def test_lgamma_gradient_is_digamma():
    x = np.array([-1.5, 0.3, 2.0, 9.5])
    g = _np(ms.grad(lambda t: ops.lgamma(t).sum())(Tensor(x)))
    np.testing.assert_allclose(g, [_psi(v) for v in x], rtol=1e-12)


MODE_CASES = [
    ("det_inverse", lambda a: ops.det(a) + ops.inverse(a).sum() + ops.slogdet(a)[1]),
    ("solve_cholesky", lambda a: ops.matrix_solve(a, a[:, :2]).sum() + ops.cholesky(ops.matmul(a, ops.t(a))).sum()),
    ("special", lambda a: ops.lgamma(ops.abs(a) + 0.1) + ops.digamma(ops.abs(a) + 0.1) + ops.mvlgamma(ops.abs(a) + 2, 2)),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name,fn", MODE_CASES, ids=[m[0] for m in MODE_CASES])
def test_every_mode_equals_pynative(name, fn, mode):
    a = Tensor((np.random.default_rng(3).standard_normal((3, 3)) + 3 * np.eye(3)).astype(np.float32))
    want = _np(fn(a))
    np.testing.assert_allclose(_np(run_fn(mode, fn, a)), want, rtol=1e-5, atol=1e-5)


# -- diagonal bands ---------------------------------------------------------------------------------------------
def _diag_part_loop(x, k0, k1, pad, align):
    rows, cols = x.shape[-2:]
    lens = {d: min(rows + min(d, 0), cols - max(d, 0)) for d in range(k0, k1 + 1)}
    max_len = max(lens.values())
    out = np.full(x.shape[:-2] + (k1 - k0 + 1, max_len), pad, x.dtype)
    for i, d in enumerate(range(k1, k0 - 1, -1)):
        first = align.split("_")[0 if d >= 0 else 1]
        off = max_len - lens[d] if first == "RIGHT" else 0
        for j in range(lens[d]):
            out[..., i, off + j] = x[..., j - min(d, 0), j + max(d, 0)]
    return out


@pytest.mark.parametrize("k", [0, 1, -2, (-1, 2), (0, 1), (-2, -1)])
@pytest.mark.parametrize("align", ["RIGHT_LEFT", "LEFT_RIGHT", "LEFT_LEFT", "RIGHT_RIGHT"])
def test_matrix_diag_family_equals_the_definition(k, align):
    x = RNG.standard_normal((2, 3, 4))
    k0, k1 = (k, k) if isinstance(k, int) else k
    want = _diag_part_loop(x, k0, k1, 9.0, align)
    got = _np(ops.matrix_diag_part(Tensor(x), k, 9.0, align))
    np.testing.assert_array_equal(got, want[..., 0, :] if k0 == k1 else want)
    # matrix_diag of the diagonals rebuilds the band of x (zeros elsewhere); matrix_set_diag writes them back
    band = np.where((np.arange(4)[None, :] - np.arange(3)[:, None] >= k0)
                    & (np.arange(4)[None, :] - np.arange(3)[:, None] <= k1), x, 0.0)
    np.testing.assert_array_equal(_np(ops.matrix_diag(Tensor(got), k, 3, 4, 0.0, align)), band)
    zeros = np.zeros_like(x)
    np.testing.assert_array_equal(_np(ops.matrix_set_diag(Tensor(zeros), Tensor(got), k, align)), band)


def test_matrix_diag_documented_layouts():
    x = np.array([[1, 2, 3, 4], [5, 6, 7, 8], [9, 8, 7, 6]], np.float32)
    assert _np(ops.matrix_diag_part(Tensor(x), (-1, 2))).tolist() == [[0, 3, 8], [2, 7, 6], [1, 6, 7], [5, 8, 0]]
    assert _np(ops.matrix_diag_part(Tensor(x), (-1, 2), align="LEFT_RIGHT")).tolist() == \
        [[3, 8, 0], [2, 7, 6], [1, 6, 7], [0, 5, 8]]
    assert _np(ops.matrix_diag(Tensor(np.array([1.0, 2.0])), 1)).tolist() == [[0, 1, 0], [0, 0, 2], [0, 0, 0]]
    assert _np(ops.matrix_diag(Tensor(np.array([1.0, 2.0])), -1, padding_value=7)).tolist() == \
        [[7, 7, 7], [1, 7, 7], [7, 2, 7]]
    assert ops.matrix_diag(Tensor(np.ones((2, 3))), 0, 4, -1).shape == (2, 4, 3)
    assert _np(ops.MatrixDiagPartV3()(Tensor(x), Tensor(np.array([0, 1], np.int32)), Tensor(np.float32(0)))).tolist() \
        == [[2, 7, 6], [1, 6, 7]]
    got = _np(ops.MatrixSetDiagV3()(Tensor(x), Tensor(np.zeros(3, np.float32)), Tensor(np.int32(0))))
    assert np.diag(got).tolist() == [0, 0, 0]
    got = _np(ops.MatrixDiagV3()(Tensor(np.array([1.0, 2.0], np.float32)), Tensor(np.int32(0)), Tensor(np.int32(-1)),
                                 Tensor(np.int32(3)), Tensor(np.float32(0))))
    assert got.tolist() == [[1, 0, 0], [0, 2, 0]]


def test_matrix_diag_gradients():
    check_grad(lambda t: ops.matrix_diag_part(t, (-1, 1)), RNG.standard_normal((3, 4)))
    check_grad(lambda t: ops.matrix_diag(t, (0, 1), 3, 3), RNG.standard_normal((2, 3)))
    check_grad(lambda a, d: ops.matrix_set_diag(a, d, 1), RNG.standard_normal((3, 3)), RNG.standard_normal(2))


# -- modified Bessel functions ------------------------------------------------------------------------------------
def _i1_series(v):
    """I1 by its power series in Python floats, 400 terms."""
    s, t = 0.0, v / 2
    for k in range(400):
        if k:
            t *= (v * v / 4) / (k * (k + 1))
        s += t
    return s


def test_bessel_i_family_equals_the_references():
    x = np.concatenate([np.linspace(-45, 45, 901), [0.0, 1e-9, 14.999, 15.0, 15.001, 80.0]])
    np.testing.assert_allclose(_np(ops.bessel_i0(Tensor(x))), np.i0(x), rtol=5e-14)
    np.testing.assert_allclose(_np(ops.i0(Tensor(x))), np.i0(x), rtol=5e-14)
    np.testing.assert_allclose(_np(ops.bessel_i0e(Tensor(x))), np.i0(x) * np.exp(-np.abs(x)), rtol=5e-14)
    want = np.array([_i1_series(v) for v in x])
    np.testing.assert_allclose(_np(ops.bessel_i1(Tensor(x))), want, rtol=5e-14, atol=1e-300)
    np.testing.assert_allclose(_np(ops.bessel_i1e(Tensor(x))), want * np.exp(-np.abs(x)), rtol=5e-14, atol=1e-300)
    big = np.array([500.0, 5000.0])
    assert np.isfinite(_np(ops.bessel_i0e(Tensor(big)))).all()  # the scaled forms do not overflow
    np.testing.assert_allclose(_np(ops.BesselI0e()(Tensor(big))), 1 / np.sqrt(2 * np.pi * big) * (1 + 1 / (8 * big)),
                               rtol=1e-6)
    np.testing.assert_allclose(_np(ops.BesselI1e()(Tensor(x[:5]))), _np(ops.bessel_i1e(Tensor(x[:5]))))
    f32 = _np(ops.bessel_i0(Tensor(np.array([0.5, 3.0], np.float32))))
    assert f32.dtype == np.float32
    np.testing.assert_allclose(f32, np.i0([0.5, 3.0]), rtol=1e-6)


def test_bessel_gradients():
    x = np.array([-20.0, -3.0, -0.4, 0.7, 2.5, 16.0, 30.0])
    check_grad(ops.bessel_i0e, x, rtol=1e-5, atol=1e-9)
    check_grad(ops.bessel_i1, x[1:5], rtol=1e-5, atol=1e-9)  # (small values: a sum of ~1e6 would lose the digits)
    check_grad(ops.bessel_i1e, x, rtol=1e-5, atol=1e-9)
    g = _np(ms.grad(lambda t: ops.bessel_i0(t).sum())(Tensor(x)))
    np.testing.assert_allclose(g, [_i1_series(v) for v in x], rtol=1e-12)  # I0' = I1


# -- regularized incomplete gamma ----------------------------------------------------------------------------------
def _q_integer(n, x):
    """Q(n, x) for an integer n: exp(-x) sum_{k<n} x^k / k!."""
    return math.exp(-x) * sum(x ** k / math.factorial(k) for k in range(n))


def test_igamma_igammac_equal_closed_forms():
    xs = np.array([1e-3, 0.3, 1.0, 2.5, 6.0, 11.0, 25.0, 60.0])
    for n in (1, 2, 5, 12, 30):
        a = np.full_like(xs, float(n))
        q = _np(ops.igammac(Tensor(a), Tensor(xs)))
        p = _np(ops.igamma(Tensor(a), Tensor(xs)))
        want_q = np.array([_q_integer(n, v) for v in xs])
        np.testing.assert_allclose(q, want_q, rtol=1e-11, atol=1e-300)
        np.testing.assert_allclose(p + q, 1.0, rtol=1e-14)
    half = np.full_like(xs, 0.5)
    np.testing.assert_allclose(_np(ops.igamma(Tensor(half), Tensor(xs))), [math.erf(math.sqrt(v)) for v in xs],
                               rtol=1e-12)
    np.testing.assert_allclose(_np(ops.igammac(Tensor(half), Tensor(xs))), [math.erfc(math.sqrt(v)) for v in xs],
                               rtol=1e-11)
    edge = _np(ops.igamma(Tensor(np.array([2.0, 2.0, -1.0, 2.0, 0.0])), Tensor(np.array([0.0, np.inf, 1.0, -1.0, 1.0]))))
    assert edge[0] == 0.0 and edge[1] == 1.0 and np.isnan(edge[2:]).all()
    f32 = ops.igamma(Tensor(np.array([3.0], np.float32)), Tensor(np.array([2.0], np.float32)))
    assert f32.dtype == ms.float32
    np.testing.assert_allclose(_np(f32), [1 - _q_integer(3, 2.0)], rtol=1e-6)


def test_igamma_gradients():
    a = np.array([0.7, 2.0, 5.5, 3.0])
    x = np.array([0.4, 3.5, 4.0, 9.0])
    g = _np(ms.grad(lambda t: ops.igamma(Tensor(a), t).sum())(Tensor(x)))
    np.testing.assert_allclose(g, [v ** (s - 1) * math.exp(-v) / math.gamma(s) for s, v in zip(a, x)], rtol=1e-9)
    check_grad(lambda s, v: ops.igammac(s, v), a, x, rtol=1e-5, atol=1e-8)


@pytest.mark.parametrize("mode", MODES)
def test_igamma_in_every_mode(mode):
    a = Tensor(np.array([0.5, 2.0, 7.0], np.float32))
    x = Tensor(np.array([0.3, 3.0, 12.0], np.float32))
    np.testing.assert_allclose(_np(run_fn(mode, ops.igamma, a, x)), _np(ops.igamma(a, x)), rtol=1e-5)
