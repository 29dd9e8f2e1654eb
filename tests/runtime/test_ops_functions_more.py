"""The functional mindspore.ops names of math_more.py, array_more.py and activation_func.py: numpy oracles
(several shapes and dtypes), MindSpore's documented examples, gradients by central differences, and a
representative subset in every execution mode equal to PyNative."""
import math

import numpy as np
import pytest

import runtime as ms
from runtime import Tensor, ops
from gradcheck import check_grad
from modes import MODES, run_fn

RNG = np.random.default_rng(0)
SHAPES = [(7,), (3, 4), (2, 3, 5)]
DTYPES = [np.float32, np.float64]


def _close(got, want, dtype=np.float64, equal_nan=False):
    got = got.asnumpy() if hasattr(got, "asnumpy") else np.asarray(got)
    tol = 1e-5 if dtype == np.float32 else 1e-10
    assert got.shape == np.shape(want), (got.shape, np.shape(want))
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol, equal_nan=equal_nan)


def _data(shape, dtype, lo=-2.0, hi=2.0):
    return RNG.uniform(lo, hi, shape).astype(dtype)


# -- element-wise: unary ----------------------------------------------------------------------------------
def _sinc(x):
    return np.sinc(x)


UNARY = [
    # (name, numpy oracle, domain)
    ("tan", np.tan, (-1.2, 1.2)), ("sinh", np.sinh, (-3, 3)), ("cosh", np.cosh, (-3, 3)),
    ("asinh", np.arcsinh, (-5, 5)), ("arcsinh", np.arcsinh, (-5, 5)), ("acosh", np.arccosh, (1.01, 5)),
    ("arccosh", np.arccosh, (1.01, 5)), ("atanh", np.arctanh, (-0.95, 0.95)), ("arctanh", np.arctanh, (-0.95, 0.95)),
    ("expm1", np.expm1, (-3, 3)), ("exp2", np.exp2, (-3, 3)), ("log2", np.log2, (0.1, 9)),
    ("log10", np.log10, (0.1, 9)), ("deg2rad", np.deg2rad, (-360, 360)), ("rad2deg", np.rad2deg, (-7, 7)),
    ("trunc", np.trunc, (-5, 5)), ("frac", lambda x: x - np.trunc(x), (-5, 5)), ("sinc", _sinc, (-3, 3)),
    ("tanhshrink", lambda x: x - np.tanh(x), (-3, 3)), ("negative", np.negative, (-3, 3)),
    ("absolute", np.abs, (-3, 3)), ("inv", np.reciprocal, (0.5, 3)), ("sgn", np.sign, (-3, 3)),
    ("tensor_exp", np.exp, (-3, 3)), ("tensor_expm1", np.expm1, (-3, 3)),
    ("erfc", lambda x: np.array([math.erfc(v) for v in x.reshape(-1)], x.dtype).reshape(x.shape), (-3, 3)),
]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name,oracle,domain", UNARY, ids=[u[0] for u in UNARY])
def test_unary_equals_numpy(name, oracle, domain, dtype, shape):
    x = _data(shape, dtype, *domain)
    got = getattr(ops, name)(Tensor(x))
    assert got.dtype == Tensor(x).dtype
    _close(got, oracle(x), dtype)


def test_unary_edge_values():
    x = np.array([0.0, -0.0, 1e-8, -1e-8, 1.0, -1.0], np.float64)
    _close(ops.sinc(Tensor(x)), np.sinc(x))
    _close(ops.expm1(Tensor(x)), np.expm1(x))
    _close(ops.trunc(Tensor(np.array([-2.7, 2.7, -0.2]))), np.array([-2.0, 2.0, -0.0]))
    assert ops.trunc(Tensor(np.array([3, -4], np.int32))).asnumpy().tolist() == [3, -4]
    y = np.array([np.nan, np.inf, -np.inf, 1.5], np.float32)
    _close(ops.nan_to_num(Tensor(y)), np.nan_to_num(y), np.float32)
    _close(ops.nan_to_num(Tensor(y), 1.0, 2.0, -3.0), np.nan_to_num(y, nan=1.0, posinf=2.0, neginf=-3.0), np.float32)
    assert ops.signbit(Tensor(np.array([-0.0, 0.0, -1.0, 2.0]))).asnumpy().tolist() == [True, False, True, False]
    assert ops.isneginf(Tensor(y)).asnumpy().tolist() == [False, False, True, False]
    assert ops.isposinf(Tensor(y)).asnumpy().tolist() == [False, True, False, False]
    assert ops.isreal(Tensor(y)).asnumpy().all()
    assert ops.is_floating_point(Tensor(y)) and not ops.is_floating_point(Tensor(np.array([1], np.int32)))
    assert ops.is_complex(Tensor(y)) is False
    with pytest.raises(TypeError):
        ops.tan(np.array([1.0]))
    with pytest.raises(TypeError):
        ops.positive(Tensor(np.array([True])))


# -- element-wise: binary ---------------------------------------------------------------------------------
def _np_xlogy(x, y):
    return np.where(x == 0, 0.0, x * np.log(np.where(x == 0, 1.0, y))).astype(x.dtype)


BINARY = [
    ("hypot", np.hypot, (-3, 3), (-3, 3)), ("logaddexp", np.logaddexp, (-5, 5), (-5, 5)),
    ("logaddexp2", np.logaddexp2, (-5, 5), (-5, 5)), ("copysign", np.copysign, (-3, 3), (-3, 3)),
    ("fmod", np.fmod, (-7, 7), (0.5, 3)), ("remainder", np.remainder, (-7, 7), (0.5, 3)),
    ("floor_mod", np.remainder, (-7, 7), (-3, -0.5)), ("truncate_mod", np.fmod, (-7, 7), (-3, -0.5)),
    ("true_divide", np.true_divide, (-3, 3), (0.5, 2)), ("floor_divide", np.floor_divide, (-7, 7), (0.5, 3)),
    ("truncate_div", lambda a, b: np.trunc(a / b), (-7, 7), (0.5, 3)), ("xlogy", _np_xlogy, (-2, 2), (0.1, 3)),
    ("xdivy", lambda a, b: a / b, (-2, 2), (0.5, 3)), ("multiply", np.multiply, (-2, 2), (-2, 2)),
    ("subtract", np.subtract, (-2, 2), (-2, 2)), ("ldexp", lambda a, b: a * 2.0 ** b, (-2, 2), (-3, 3)),
    ("heaviside", np.heaviside, (-2, 2), (0, 1)), ("tensor_add", np.add, (-2, 2), (-2, 2)),
    ("tensor_sub", np.subtract, (-2, 2), (-2, 2)), ("tensor_mul", np.multiply, (-2, 2), (-2, 2)),
    ("tensor_div", np.divide, (-2, 2), (0.5, 2)), ("tensor_pow", np.power, (0.5, 2), (-2, 2)),
    ("tensor_floordiv", np.floor_divide, (-7, 7), (0.5, 3)), ("floordiv", np.floor_divide, (-7, 7), (0.5, 3)),
    ("tensor_mod", np.remainder, (-7, 7), (0.5, 3)), ("floormod", np.remainder, (-7, 7), (0.5, 3)),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name,oracle,da,db", BINARY, ids=[b[0] for b in BINARY])
def test_binary_equals_numpy_with_broadcasting(name, oracle, da, db, dtype):
    a, b = _data((3, 4), dtype, *da), _data((4,), dtype, *db)
    if name == "heaviside":
        a[0, :2] = 0.0
    _close(getattr(ops, name)(Tensor(a), Tensor(b)), oracle(a, b).astype(dtype), dtype)


def test_binary_comparisons_and_integer_forms():
    a, b = _data((5,), np.float32), _data((5,), np.float32)
    assert ops.tensor_lt(Tensor(a), Tensor(b)).asnumpy().tolist() == (a < b).tolist()
    assert ops.tensor_le(Tensor(a), Tensor(a)).asnumpy().all()
    assert ops.tensor_gt(Tensor(a), Tensor(b)).asnumpy().tolist() == (a > b).tolist()
    assert ops.tensor_ge(Tensor(a), Tensor(b)).asnumpy().tolist() == (a >= b).tolist()
    assert ops.approximate_equal(Tensor(a), Tensor(a + 1e-6)).asnumpy().all()
    assert not ops.approximate_equal(Tensor(a), Tensor(a + 1e-3)).asnumpy().any()
    i, j = np.array([-7, 7, 5, -5], np.int32), np.array([2, -2, 3, 3], np.int32)
    assert ops.fmod(Tensor(i), Tensor(j)).asnumpy().tolist() == np.fmod(i, j).tolist()
    assert ops.remainder(Tensor(i), Tensor(j)).asnumpy().tolist() == np.remainder(i, j).tolist()
    assert ops.truncate_div(Tensor(i), Tensor(j)).asnumpy().tolist() == [-3, -3, 1, -1]
    out = ops.true_divide(Tensor(i), Tensor(j))
    assert out.dtype == ms.float32
    _close(out, (i / j).astype(np.float32), np.float32)
    fp = ops.float_power(Tensor(np.array([2.0, 3.0], np.float32)), 2)
    assert fp.dtype == ms.float64 and fp.asnumpy().tolist() == [4.0, 9.0]
    _close(ops.subtract(Tensor(a), Tensor(b), alpha=2.0), a - 2.0 * b, np.float32)
    assert ops.divide(Tensor(i), Tensor(j), rounding_mode="floor").asnumpy().tolist() == [-4, -4, 1, -2]


TERNARY = [
    ("lerp", lambda a, b, w: a + w * (b - a)),
    ("addcdiv", lambda a, b, c: a + 0.5 * b / c),
    ("addcmul", lambda a, b, c: a + 0.5 * b * c),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name,oracle", TERNARY, ids=[t[0] for t in TERNARY])
def test_ternary_equals_numpy(name, oracle, dtype):
    a, b, c = _data((2, 3), dtype), _data((2, 3), dtype), _data((3,), dtype, 0.5, 2)
    args = [Tensor(a), Tensor(b), Tensor(c)]
    got = ops.lerp(*args) if name == "lerp" else getattr(ops, name)(*args, 0.5)
    _close(got, oracle(a, b, c), dtype)


def test_logit_with_and_without_eps():
    x = np.array([0.0, 0.1, 0.5, 0.9, 1.0], np.float64)
    eps = 1e-3
    xc = np.clip(x, eps, 1 - eps)
    _close(ops.logit(Tensor(x), eps), np.log(xc / (1 - xc)))
    with np.errstate(divide="ignore"):
        want = np.log(x / (1 - x))
    np.testing.assert_allclose(ops.logit(Tensor(x)).asnumpy()[1:4], want[1:4], rtol=1e-12)
    assert np.isinf(ops.logit(Tensor(x)).asnumpy()[[0, 4]]).all()


# -- documented examples (MindSpore's API reference) --------------------------------------------------------
def test_documented_examples():
    _close(ops.roll(Tensor(np.array([0, 1, 2, 3, 4], np.float32)), shifts=2, dims=0),
           np.array([3, 4, 0, 1, 2], np.float32), np.float32)
    _close(ops.xlogy(Tensor(np.array([-5, 0, 4], np.float32)), Tensor(np.array([2, 2, 2], np.float32))),
           np.array([-3.465736, 0.0, 2.7725887], np.float32), np.float32)
    _close(ops.hypot(Tensor(np.array([3.0, 5.0, 7.0], np.float32)), Tensor(np.array([4.0, 12.0, 24.0], np.float32))),
           np.array([5.0, 13.0, 25.0], np.float32), np.float32)
    _close(ops.expm1(Tensor(np.array([0.0, 1.0, 2.0, 4.0], np.float32))),
           np.array([0.0, 1.718282, 6.389056, 53.598152], np.float32), np.float32)
    _close(ops.tan(Tensor(np.array([-1.0, 0.0, 1.0], np.float32))), np.array([-1.5574081, 0.0, 1.5574081], np.float32),
           np.float32)
    _close(ops.lerp(Tensor(np.array([1.0, 2.0, 3.0, 4.0], np.float32)), Tensor(np.array([10.0] * 4, np.float32)), 0.5),
           np.array([5.5, 6.0, 6.5, 7.0], np.float32), np.float32)
    assert float(ops.trace(Tensor(np.array([[10, 11, 12], [13, 14, 15], [16, 17, 18]], np.float32))).asnumpy()) == 42.0
    _close(ops.fmod(Tensor(np.array([-3.0, -2, -1, 1, 2, 3], np.float32)), 1.5),
           np.array([-0.0, -0.5, -1.0, 1.0, 0.5, 0.0], np.float32), np.float32)
    _close(ops.remainder(Tensor(np.array([-4.0, 5.0, 6.0], np.float32)), Tensor(np.array([3.0, 2.0, 3.0], np.float32))),
           np.array([2.0, 1.0, 0.0], np.float32), np.float32)
    _close(ops.logit(Tensor(np.array([0.1, 0.2, 0.3], np.float32)), eps=1e-5),
           np.array([-2.1972246, -1.3862944, -0.8472978], np.float32), np.float32)
    _close(ops.hardtanh(Tensor(np.array([-1, -2, 0, 2, 1], np.float32)), min_val=-1.0, max_val=1.0),
           np.array([-1.0, -1.0, 0.0, 1.0, 1.0], np.float32), np.float32)
    _close(ops.celu(Tensor(np.array([-2.0, -1.0, 1.0, 2.0], np.float32)), alpha=1.0),
           np.array([-0.86466473, -0.63212055, 1.0, 2.0], np.float32), np.float32)
    x = Tensor(np.array([[0.57, 0.11, 0.21], [0.38, 0.50, 0.57], [0.36, 0.16, 0.44]], np.float32))
    values, indices = ops.median(x, axis=0, keepdims=False)
    _close(values, np.array([0.38, 0.16, 0.44], np.float32), np.float32)
    assert indices.asnumpy().tolist() == [1, 2, 2] and indices.dtype == ms.int64
    x = Tensor(np.array([[3, 4, 6, 10], [1, 6, 7, 9], [4, 3, 8, 7], [1, 3, 7, 9]], np.float32))
    values, indices = ops.cummax(x, axis=0)
    assert values.asnumpy().tolist() == [[3, 4, 6, 10], [3, 6, 7, 10], [4, 6, 8, 10], [4, 6, 8, 10]]
    assert indices.asnumpy().tolist() == [[0, 0, 0, 0], [0, 1, 1, 0], [2, 1, 2, 0], [2, 1, 2, 0]]
    nan = float("nan")
    _close(ops.nansum(Tensor(np.array([[nan, 2, 3], [1, 2, nan]], np.float32)), axis=0),
           np.array([1.0, 4.0, 3.0], np.float32), np.float32)
    assert ops.diag(Tensor(np.array([1, 2, 3, 4], np.int32))).asnumpy().tolist() == np.diag([1, 2, 3, 4]).tolist()
    x = Tensor(np.array([[9, 3, 4, 5], [5, 2, 7, 4], [8, 1, 3, 6]], np.int64))
    values, indices = ops.median(x)
    assert values.asnumpy().tolist() == [4, 4, 3] and indices.asnumpy().tolist() == [2, 3, 2]
    values, indices = ops.median(x, axis=0, keepdims=True)
    assert values.asnumpy().tolist() == [[8, 2, 4, 5]] and indices.asnumpy().tolist() == [[2, 1, 0, 0]]
    x = Tensor(np.array([[0, 1, 0], [1, 1, 0]], np.float32))
    assert ops.count_nonzero(x=x, axis=[0, 1], keep_dims=True, dtype=ms.int32).asnumpy().tolist() == [[3]]
    assert int(ops.count_nonzero(x=x).asnumpy()) == 3
    assert ops.count_nonzero(x=x, axis=[0]).asnumpy().tolist() == [1, 2, 0]
    assert ops.count_nonzero(x=x, axis=[1]).asnumpy().tolist() == [1, 2]
    assert ops.count_nonzero(x=x, keep_dims=True).asnumpy().tolist() == [[3]]
    assert ops.count_nonzero(x=x, axis=[0], keep_dims=True).asnumpy().tolist() == [[1, 2, 0]]
    x = Tensor(np.array([1, 2, 3]), ms.int8)
    out = ops.bernoulli(x, p=1.0)
    assert out.asnumpy().tolist() == [1, 1, 1] and out.dtype == ms.int8
    assert ops.bernoulli(x, Tensor(np.array([0.0, 1.0, 1.0]), ms.float32)).asnumpy().tolist() == [0, 1, 1]


# -- reductions and scans -------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_reductions_equal_numpy(axis, dtype):
    x = _data((4, 5), dtype)
    xn = x.copy()
    xn[1, 2] = xn[3, 0] = np.nan
    _close(ops.nansum(Tensor(xn), axis), np.nansum(xn, axis), dtype)
    _close(ops.nansum(Tensor(xn), axis, keepdims=True), np.nansum(xn, axis, keepdims=True), dtype)
    _close(ops.nanmean(Tensor(xn), axis), np.nanmean(xn, axis), dtype)
    s, m = ops.std_mean(Tensor(x), axis, ddof=1)
    _close(s, np.std(x, axis, ddof=1), dtype)
    _close(m, np.mean(x, axis), dtype)
    v, m = ops.var_mean(Tensor(x), axis, keepdims=True)
    _close(v, np.var(x, axis, keepdims=True), dtype)
    lo, hi = ops.aminmax(Tensor(x), axis=axis)
    _close(lo, x.min(axis), dtype)
    _close(hi, x.max(axis), dtype)
    _close(ops.diff(Tensor(x), 2, axis), np.diff(x, 2, axis), dtype)
    _close(ops.logcumsumexp(Tensor(x), axis), np.logaddexp.accumulate(x, axis), dtype)
    _close(ops.trapz(Tensor(x), dim=axis), np.trapezoid(x, axis=axis) if hasattr(np, "trapezoid")
           else np.trapz(x, axis=axis), dtype)
    k = np.where(x > 0.5, x, 0.0)
    cnt = ops.count_nonzero(Tensor(k), axis)
    assert cnt.dtype == ms.int32 and cnt.asnumpy().tolist() == np.count_nonzero(k, axis).tolist()
    assert int(ops.count_nonzero(Tensor(k)).asnumpy()) == np.count_nonzero(k)


@pytest.mark.parametrize("n", [1, 4, 5, 8])
def test_median_takes_the_lower_middle_value(n):
    x = RNG.permutation(n * 3).astype(np.float64).reshape(3, n)
    values, indices = ops.median(Tensor(x), axis=1, keepdims=True)
    srt = np.sort(x, axis=1)
    want = srt[:, (n - 1) // 2:(n - 1) // 2 + 1]
    _close(values, want)
    np.testing.assert_array_equal(np.take_along_axis(x, indices.asnumpy(), 1), want)


def _np_cum_extreme(x, axis, better):
    x = np.moveaxis(x, axis, -1)
    vals, idx = np.empty_like(x), np.zeros(x.shape, np.int64)
    for pos in np.ndindex(x.shape[:-1]):
        best, at = x[pos][0], 0
        for i, v in enumerate(x[pos]):
            if i == 0 or better(v, best) or v == best:  # ties: the later index
                best, at = v, i
            vals[pos][i], idx[pos][i] = best, at
    return np.moveaxis(vals, -1, axis), np.moveaxis(idx, -1, axis)


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_cummax_cummin_equal_a_loop_with_ties(axis):
    x = RNG.integers(0, 4, (3, 9, 4)).astype(np.float32)  # many ties: the last index wins
    for fn, better in ((ops.cummax, np.greater), (ops.cummin, np.less)):
        values, indices = fn(Tensor(x), axis)
        want_v, want_i = _np_cum_extreme(x, axis, better)
        np.testing.assert_array_equal(values.asnumpy(), want_v)
        np.testing.assert_array_equal(indices.asnumpy(), want_i)
        assert indices.dtype == ms.int64


# -- linear algebra -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
def test_linear_algebra_equals_numpy(dtype):
    a, m1, m2 = _data((3, 5), dtype), _data((3, 4), dtype), _data((4, 5), dtype)
    _close(ops.addmm(Tensor(a), Tensor(m1), Tensor(m2), beta=0.5, alpha=2.0), 0.5 * a + 2.0 * m1 @ m2, dtype)
    b1, b2 = _data((2, 3, 4), dtype), _data((2, 4, 5), dtype)
    _close(ops.addbmm(Tensor(a), Tensor(b1), Tensor(b2), beta=2, alpha=0.5), 2 * a + 0.5 * (b1 @ b2).sum(0), dtype)
    _close(ops.baddbmm(Tensor(a), Tensor(b1), Tensor(b2), 0.5, 3.0), 0.5 * a + 3.0 * (b1 @ b2), dtype)
    v, w = _data((4,), dtype), _data((3,), dtype)
    _close(ops.mv(Tensor(m1), Tensor(v)), m1 @ v, dtype)
    _close(ops.addmv(Tensor(w), Tensor(m1), Tensor(v), beta=2, alpha=3), 2 * w + 3 * (m1 @ v), dtype)
    _close(ops.addr(Tensor(m1), Tensor(w), Tensor(v), beta=0.5, alpha=2), 0.5 * m1 + 2 * np.outer(w, v), dtype)
    _close(ops.inner(Tensor(m1), Tensor(b1)), np.inner(m1, b1), dtype)
    _close(ops.inner(Tensor(np.array(2.0, dtype)), Tensor(m1)), 2.0 * m1, dtype)
    _close(ops.kron(Tensor(m1[:2, :2]), Tensor(a[:2, :3])), np.kron(m1[:2, :2], a[:2, :3]), dtype)
    _close(ops.dot(Tensor(m1), Tensor(m2)), m1 @ m2, dtype)
    _close(ops.vecdot(Tensor(m1), Tensor(v)), (m1 * v).sum(-1), dtype)
    sq = _data((2, 3, 3), dtype, -1, 1)
    _close(ops.matrix_power(Tensor(sq), 3), np.linalg.matrix_power(sq, 3), dtype)
    _close(ops.matrix_power(Tensor(sq), 0), np.broadcast_to(np.eye(3, dtype=dtype), sq.shape), dtype)
    _close(ops.trace(Tensor(m1)), np.trace(m1), dtype)
    _close(ops.adjoint(Tensor(b1)), np.swapaxes(b1, -1, -2), dtype)
    _close(ops.t(Tensor(m1)), m1.T, dtype)
    _close(ops.t(Tensor(v)), v, dtype)
    x1, x2 = _data((3, 6), dtype), _data((3, 6), dtype)
    x1[2], x2[2] = 1e-5, 2e-5  # |x1| |x2| below eps: divided by eps
    want = (x1 * x2).sum(1) / np.maximum(np.linalg.norm(x1, axis=1) * np.linalg.norm(x2, axis=1), 1e-8)
    _close(ops.cosine_similarity(Tensor(x1), Tensor(x2)), want, dtype)
    _close(ops.dist(Tensor(x1), Tensor(x2)), np.linalg.norm((x1 - x2).ravel()), dtype)
    _close(ops.dist(Tensor(x1), Tensor(x2), 1), np.abs(x1 - x2).sum(), dtype)
    with pytest.raises(ValueError):
        ops.matrix_power(Tensor(sq), -1)
    with pytest.raises(ValueError):
        ops.trace(Tensor(b1))


def test_cov_equals_numpy():
    x = _data((3, 7), np.float64)
    _close(ops.cov(Tensor(x)), np.cov(x))
    _close(ops.cov(Tensor(x), correction=0), np.cov(x, ddof=0))


# -- array layout -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_array_layout_equals_numpy(dtype):
    x = (RNG.uniform(-5, 5, (3, 4, 5))).astype(dtype)
    t = Tensor(x)

    def eq(got, want):
        np.testing.assert_array_equal(got.asnumpy(), want)
        assert got.asnumpy().dtype == want.dtype
    eq(ops.roll(t, 2, 1), np.roll(x, 2, 1))
    eq(ops.roll(t, (1, -2), (0, 2)), np.roll(x, (1, -2), (0, 2)))
    eq(ops.roll(t, 3), np.roll(x, 3))
    eq(ops.diagonal(t, 1, 1, 2), np.diagonal(x, 1, 1, 2))
    eq(ops.diagonal(t[0], -1), np.diagonal(x[0], -1))
    eq(ops.diagflat(t[0, 0], 1), np.diagflat(x[0, 0], 1))
    d = ops.diag(t[0]).asnumpy()
    assert d.shape == (4, 5, 4, 5)
    for i in range(4):
        for j in range(5):
            assert d[i, j, i, j] == x[0, i, j] and d[i, j].sum() == x[0, i, j]
    eq(ops.movedim(t, 0, 2), np.moveaxis(x, 0, 2))
    eq(ops.moveaxis(t, (0, 1), (2, 0)), np.moveaxis(x, (0, 1), (2, 0)))
    eq(ops.swapdims(t, 0, 2), np.swapaxes(x, 0, 2))
    eq(ops.hstack([t, t]), np.hstack([x, x]))
    eq(ops.vstack((t[0, 0], t[1, 0])), np.vstack((x[0, 0], x[1, 0])))
    eq(ops.row_stack((t[0], t[1])), np.vstack((x[0], x[1])))
    eq(ops.dstack([t[0], t[1]]), np.dstack([x[0], x[1]]))
    eq(ops.column_stack([t[0, 0], t[1, 0]]), np.column_stack([x[0, 0], x[1, 0]]))
    for sections in (2, 3, [1, 3], (0, 2, 9)):
        for got, want in zip(ops.tensor_split(t, sections, 1), np.array_split(x, sections, 1)):
            eq(got, want)
        assert len(ops.tensor_split(t, sections, 1)) == len(np.array_split(x, sections, 1))
    for got, want in zip(ops.hsplit(t, 2), np.array_split(x, 2, 1)):
        eq(got, want)
    for got, want in zip(ops.vsplit(t, [1]), np.array_split(x, [1], 0)):
        eq(got, want)
    for got, want in zip(ops.dsplit(t, 2), np.array_split(x, 2, 2)):
        eq(got, want)
    eq(ops.fliplr(t), np.fliplr(x))
    eq(ops.flipud(t), np.flipud(x))
    eq(ops.rot90(t, 1, (1, 2)), np.rot90(x, 1, (1, 2)))
    eq(ops.rot90(t, -3, (0, 1)), np.rot90(x, -3, (0, 1)))
    for i, part in enumerate(ops.unbind(t, 1)):
        eq(part, x[:, i])
    eq(ops.reverse(t, [0, 2]), x[::-1, :, ::-1])
    eq(ops.ravel(t), x.ravel())
    eq(ops.repeat_elements(t, 2, 1), np.repeat(x, 2, 1))
    eq(ops.expand(t[:, :1], (3, 4, 5)), np.broadcast_to(x[:, :1], (3, 4, 5)))
    eq(ops.atleast_2d(t[0, 0]), np.atleast_2d(x[0, 0]))
    outs = ops.atleast_3d([t[0, 0, 0], t[0]])
    assert isinstance(outs, tuple)
    eq(outs[0], np.atleast_3d(x[0, 0, 0]))
    eq(outs[1], np.atleast_3d(x[0]))
    eq(ops.atleast_1d(t[0, 0, 0]), np.atleast_1d(x[0, 0, 0]))
    filled = ops.index_fill(t, 1, Tensor(np.array([0, 2], np.int32)), 7)
    want = x.copy()
    want[:, [0, 2]] = 7
    eq(filled, want)


def test_block_diag_and_cartesian_prod():
    a, b, c = np.array([[1, 2], [3, 4]], np.float32), np.array([5, 6, 7], np.float32), np.float32(8)
    got = ops.block_diag(Tensor(a), Tensor(b), Tensor(c)).asnumpy()
    want = np.zeros((4, 6), np.float32)
    want[:2, :2], want[2, 2:5], want[3, 5] = a, b, c
    np.testing.assert_array_equal(got, want)
    x, y, z = np.array([1, 2]), np.array([3, 4, 5]), np.array([6, 7])
    got = ops.cartesian_prod(Tensor(x), Tensor(y), Tensor(z)).asnumpy()
    np.testing.assert_array_equal(got, np.array([(i, j, k) for i in x for j in y for k in z]))


def test_masks_indices_and_conversions():
    lengths = np.array([[1, 3], [2, 0]], np.int32)
    got = ops.sequence_mask(Tensor(lengths), 5).asnumpy()
    np.testing.assert_array_equal(got, np.arange(5) < lengths[..., None])
    np.testing.assert_array_equal(ops.sequence_mask(Tensor(np.array([1, 3, 2], np.int32))).asnumpy(),
                                  np.arange(3) < np.array([1, 3, 2])[:, None])
    np.testing.assert_array_equal(ops.tril_indices(4, 3, 1).asnumpy(), np.stack(np.tril_indices(4, 1, 3)))
    np.testing.assert_array_equal(ops.triu_indices(3, 5, -1).asnumpy(), np.stack(np.triu_indices(3, -1, 5)))
    assert ops.tril_indices(3, 3).dtype == ms.int64
    v = np.array([1.0, 2.0, 3.0], np.float32)
    np.testing.assert_allclose(ops.vander(Tensor(v)).asnumpy(), np.vander(v))
    np.testing.assert_allclose(ops.vander(Tensor(v), 4).asnumpy(), np.vander(v, 4))
    assert ops.dyn_shape(Tensor(np.zeros((2, 3)))).asnumpy().tolist() == [2, 3]
    assert ops.is_tensor(Tensor(v)) and not ops.is_tensor(v)
    assert ops.scalar_cast(3.7, ms.int32) == 3 and isinstance(ops.scalar_cast(2, ms.float32), float)
    np.testing.assert_array_equal(ops.argwhere(Tensor(np.array([[0, 1], [2, 0]]))).asnumpy(), [[0, 1], [1, 0]])


# -- activations and layer functions ----------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
def test_activations_equal_numpy(dtype):
    x = _data((3, 6), dtype, -3, 3)
    _close(ops.celu(Tensor(x), 0.7), np.maximum(x, 0) + np.minimum(0, 0.7 * (np.exp(x / 0.7) - 1)), dtype)
    a, b = x[:, :3], x[:, 3:]
    _close(ops.glu(Tensor(x)), a / (1 + np.exp(-b)), dtype)
    _close(ops.glu(Tensor(x.T), axis=0), (a / (1 + np.exp(-b))).T, dtype)
    e = np.exp(-x - (-x).max(0))
    _close(ops.softmin(Tensor(x), axis=0), e / e.sum(0), dtype)
    _close(ops.hardtanh(Tensor(x), -0.5, 2.0), np.clip(x, -0.5, 2.0), dtype)
    _close(ops.threshold(Tensor(x), 0.3, -9.0), np.where(x > 0.3, x, -9.0), dtype)
    _close(ops.hardshrink(Tensor(x), 1.0), np.where(np.abs(x) > 1.0, x, 0.0), dtype)
    _close(ops.soft_shrink(Tensor(x), 1.0), np.where(np.abs(x) > 1.0, x - np.sign(x), 0.0), dtype)
    _close(ops.softshrink(Tensor(x), 0.5), np.where(np.abs(x) > 0.5, x - 0.5 * np.sign(x), 0.0), dtype)
    _close(ops.fast_gelu(Tensor(x)), x / (1 + np.exp(-1.702 * x)), dtype)
    with pytest.raises(ValueError):
        ops.glu(Tensor(x[:, :5]))
    with pytest.raises(ValueError):
        ops.celu(Tensor(x), 0.0)


def test_random_activations():
    ms.set_seed(3)
    x = np.concatenate([np.linspace(-3, -0.1, 500), np.linspace(0.1, 3, 500)]).astype(np.float32)
    y = ops.rrelu(Tensor(x), 0.1, 0.3).asnumpy()
    neg = x < 0
    slope = y[neg] / x[neg]
    assert slope.min() >= 0.1 - 1e-6 and slope.max() <= 0.3 + 1e-6 and slope.std() > 0.03
    np.testing.assert_array_equal(y[~neg], x[~neg])
    logits = _data((4, 5), np.float32)
    soft = ops.gumbel_softmax(Tensor(logits), tau=0.5).asnumpy()
    np.testing.assert_allclose(soft.sum(-1), 1.0, rtol=1e-5)
    hard = ops.gumbel_softmax(Tensor(logits), hard=True).asnumpy()
    assert set(np.unique(hard)) <= {0.0, 1.0} and (hard.sum(-1) == 1).all()
    # the straight-through gradient is the soft sample's (rows of a softmax's gradient sum to 0)
    g = ms.grad(lambda t: (ops.gumbel_softmax(t, hard=True) * Tensor(np.arange(5, dtype=np.float32))).sum())(
        Tensor(logits)).asnumpy()
    np.testing.assert_allclose(g.sum(-1), 0.0, atol=1e-5)
    assert np.abs(g).sum() > 0
    # counts follow softmax(logits): sample many rows of one distribution
    big = np.tile(np.array([[0.0, 1.0, 2.0]], np.float32), (4000, 1))
    freq = ops.gumbel_softmax(Tensor(big), hard=True).asnumpy().mean(0)
    p = np.exp([0.0, 1.0, 2.0]) / np.exp([0.0, 1.0, 2.0]).sum()
    np.testing.assert_allclose(freq, p, atol=0.03)
    z = np.ones((8, 16, 5), np.float32)
    out = ops.dropout1d(Tensor(z), 0.5).asnumpy()
    per_channel = out.reshape(8, 16, 5)
    assert set(np.unique(per_channel)) <= {0.0, 2.0}
    assert (per_channel.min(-1) == per_channel.max(-1)).all()  # whole channels
    assert 0.2 < (per_channel[..., 0] == 0).mean() < 0.8
    np.testing.assert_array_equal(ops.dropout1d(Tensor(z), 0.5, training=False).asnumpy(), z)
    assert ops.dropout1d(Tensor(z[0]), 0.5).shape == (16, 5)


def _np_unfold(x, k, d, p, s):
    n, c, h, w = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (p[0], p[0]), (p[1], p[1])))
    oh = (h + 2 * p[0] - d[0] * (k[0] - 1) - 1) // s[0] + 1
    ow = (w + 2 * p[1] - d[1] * (k[1] - 1) - 1) // s[1] + 1
    cols = np.zeros((n, c * k[0] * k[1], oh * ow), x.dtype)
    for ci in range(c):
        for i in range(k[0]):
            for j in range(k[1]):
                row = (ci * k[0] + i) * k[1] + j
                patch = xp[:, ci, i * d[0]:i * d[0] + s[0] * oh:s[0], j * d[1]:j * d[1] + s[1] * ow:s[1]]
                cols[:, row] = patch.reshape(n, -1)
    return cols


@pytest.mark.parametrize("k,d,p,s", [((2, 2), (1, 1), (0, 0), (1, 1)), ((3, 2), (1, 2), (1, 0), (2, 1)),
                                     ((2, 3), (2, 1), (1, 2), (1, 2))])
def test_unfold_and_fold_equal_the_definition(k, d, p, s):
    x = _data((2, 3, 7, 8), np.float64)
    cols = ops.unfold(Tensor(x), k, d, p, s)
    want = _np_unfold(x, k, d, p, s)
    _close(cols, want)
    # fold is unfold's adjoint: <unfold(x), c> == <x, fold(c)>
    c = RNG.standard_normal(want.shape)
    folded = ops.fold(Tensor(c), (7, 8), k, d, p, s).asnumpy()
    np.testing.assert_allclose((want * c).sum(), (x * folded).sum(), rtol=1e-10)
    check_grad(lambda t: ops.unfold(t, k, d, p, s), x[:1, :1])


# -- gradients ------------------------------------------------------------------------------------------------
GRADS = [
    ("tan", lambda t: ops.tan(t), [(-1.0, 1.0)]), ("sinh", ops.sinh, [(-2, 2)]), ("cosh", ops.cosh, [(-2, 2)]),
    ("asinh", ops.asinh, [(-3, 3)]), ("acosh", ops.acosh, [(1.2, 3)]), ("atanh", ops.atanh, [(-0.8, 0.8)]),
    ("expm1", ops.expm1, [(-2, 2)]), ("exp2", ops.exp2, [(-2, 2)]), ("erfc", ops.erfc, [(-2, 2)]),
    ("log2", ops.log2, [(0.2, 3)]), ("log10", ops.log10, [(0.2, 3)]), ("sinc", ops.sinc, [(0.1, 2)]),
    ("tanhshrink", ops.tanhshrink, [(-2, 2)]), ("hypot", ops.hypot, [(0.5, 2), (-2, -0.5)]),
    ("logaddexp", ops.logaddexp, [(-2, 2), (-2, 2)]), ("logaddexp2", ops.logaddexp2, [(-2, 2), (-2, 2)]),
    ("xlogy", ops.xlogy, [(0.5, 2), (0.5, 2)]), ("xdivy", ops.xdivy, [(0.5, 2), (0.5, 2)]),
    ("lerp", lambda a, b, w: ops.lerp(a, b, w), [(-2, 2), (-2, 2), (0, 1)]),
    ("logit", lambda t: ops.logit(t), [(0.2, 0.8)]), ("addcdiv", lambda a, b, c: ops.addcdiv(a, b, c, 0.7),
                                                       [(-1, 1), (-1, 1), (0.5, 2)]),
    ("fmod", ops.fmod, [(0.1, 0.9), (1.0, 2.0)]), ("float_power", ops.float_power, [(0.5, 2), (-1, 1)]),
    ("nansum", lambda t: ops.nansum(t, 1), [(-2, 2)]), ("nanmean", lambda t: ops.nanmean(t, 0), [(-2, 2)]),
    ("median", lambda t: ops.median(t, 1)[0], [(-2, 2)]), ("cummax", lambda t: ops.cummax(t, 1)[0], [(-2, 2)]),
    ("cummin", lambda t: ops.cummin(t, 0)[0], [(-2, 2)]), ("logcumsumexp", lambda t: ops.logcumsumexp(t, 1),
                                                           [(-2, 2)]),
    ("std_mean", lambda t: ops.std_mean(t, 1, 1), [(-2, 2)]), ("diff", lambda t: ops.diff(t, 1, 1), [(-2, 2)]),
    ("addmm", lambda a, b, c: ops.addmm(a[:, :2], b, ops.t(c)[:, :2], beta=0.5, alpha=2.0),
     [(-1, 1), (-1, 1), (-1, 1)]),
    ("kron", ops.kron, [(-1, 1), (-1, 1)]), ("inner", ops.inner, [(-1, 1), (-1, 1)]),
    ("trace", ops.trace, [(-1, 1)]), ("matrix_power", lambda t: ops.matrix_power(t, 3), [(-1, 1)]),
    ("cosine_similarity", lambda a, b: ops.cosine_similarity(a, b, 1), [(-1, 1), (-1, 1)]),
    ("roll", lambda t: ops.roll(t, (1, 2), (0, 1)), [(-1, 1)]), ("diagonal", lambda t: ops.diagonal(t, 1), [(-1, 1)]),
    ("diag", ops.diag, [(-1, 1)]), ("movedim", lambda t: ops.movedim(t, 0, 1), [(-1, 1)]),
    ("tensor_split", lambda t: ops.tensor_split(t, 2, 1), [(-1, 1)]),
    ("block_diag", lambda a, b: ops.block_diag(a, b), [(-1, 1), (-1, 1)]),
    ("cartesian_prod", lambda a: ops.cartesian_prod(a[0], a[1]), [(-1, 1)]),
    ("hstack", lambda a, b: ops.hstack([a, b]), [(-1, 1), (-1, 1)]),
    ("rot90", lambda t: ops.rot90(t, 1, (0, 1)), [(-1, 1)]), ("vander", lambda t: ops.vander(t[0]), [(-1, 1)]),
    ("celu", lambda t: ops.celu(t, 0.5), [(-2, 2)]), ("glu", ops.glu, [(-2, 2)]), ("softmin", ops.softmin, [(-2, 2)]),
    ("hardtanh", ops.hardtanh, [(-0.9, 0.9)]), ("soft_shrink", ops.soft_shrink, [(0.6, 2)]),
    ("fast_gelu", ops.fast_gelu, [(-2, 2)]),
]


@pytest.mark.parametrize("name,fn,domains", GRADS, ids=[g[0] for g in GRADS])
def test_gradients_equal_finite_differences(name, fn, domains):
    rng = np.random.default_rng(7)
    shape = (3, 3) if name in ("trace", "matrix_power", "diagonal", "roll", "kron", "rot90") else (2, 4)
    if name == "diag":
        shape = (2, 3)
    arrays = [rng.uniform(lo, hi, shape) for lo, hi in domains]
    if name in ("median", "cummax", "cummin"):
        arrays = [rng.permutation(8).reshape(shape) + rng.uniform(0, 0.1, shape)]  # distinct values: no ties
    check_grad(fn, *arrays, rtol=1e-5, atol=1e-7)


# -- every execution mode ---------------------------------------------------------------------------------------
MODE_CASES = [
    ("elementwise", lambda a, b: ops.xlogy(ops.hypot(a, b), ops.expm1(ops.abs(b)) + 1.0) + ops.sinh(a) * ops.tan(b)),
    ("fmod_logaddexp", lambda a, b: ops.fmod(a, 0.7) + ops.logaddexp(a, b) - ops.remainder(b, 0.3)),
    ("reductions", lambda a, b: ops.nansum(a, 1) + ops.median(b, 1)[0] + ops.std_mean(a, 1)[0]),
    ("scans", lambda a, b: ops.cummax(a, 1)[0] - ops.cummin(b, 1)[0] + ops.logcumsumexp(a, 1)),
    ("linalg", lambda a, b: ops.addmm(a, a, ops.movedim(b, 0, 1), beta=0.5) + ops.kron(a[:2, :2], b[:2, :2]).sum()
     + ops.trace(a) + ops.mv(a, b[0])),
    ("layout", lambda a, b: ops.hstack([ops.roll(a, 1, 0), ops.fliplr(b)]) + ops.diagonal(a, 0)[:4].sum()),
    ("split_stack", lambda a, b: ops.vstack([ops.hstack(list(ops.tensor_split(a, 3, 1)) + [b[:, :2]]), ops.dsplit(
        ops.reshape(b, (2, 2, 4)), [1])[1].reshape(2, 6)[:, :6]])),
    ("activations", lambda a, b: ops.glu(ops.hstack([a, b])) + ops.softmin(a) + ops.hardtanh(b) + ops.celu(a)),
    ("unfold", lambda a, b: ops.fold(ops.unfold(ops.reshape(ops.hstack([a, b]), (1, 2, 4, 4)), 2), (4, 4), 2)),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name,fn", MODE_CASES, ids=[m[0] for m in MODE_CASES])
def test_every_mode_equals_pynative(name, fn, mode):
    rng = np.random.default_rng(11)
    a = Tensor(rng.uniform(-2, 2, (4, 4)).astype(np.float32))
    b = Tensor(rng.uniform(-2, 2, (4, 4)).astype(np.float32))
    want = fn(a, b).asnumpy()
    got = run_fn(mode, fn, a, b).asnumpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


VALUE_READING = [
    # functions that read a Tensor's values for a shape or constant: a graph break under jit, same results
    ("sequence_mask", lambda lengths: ops.sequence_mask(lengths), lambda: (Tensor(np.array([1, 3, 2], np.int32)),)),
    ("range", lambda a: ops.range(a, a * 4, a), lambda: (Tensor(np.int32(2)),)),
    ("check_valid", lambda b, m: ops.check_valid(b, m),
     lambda: (Tensor(np.array([[0, 0, 3, 3.0], [0, 0, 20, 3]], np.float32)), Tensor(np.array([10, 10, 1.0], np.float32)))),
    ("quantile", lambda x, q: ops.quantile(x, q, 0), lambda: (Tensor(np.arange(6.0).reshape(3, 2)),
                                                             Tensor(np.array([0.25, 0.5])))),
    ("fold", lambda x, s: ops.fold(x, s, 2), lambda: (Tensor(np.arange(72.0).reshape(1, 8, 9)),
                                                     Tensor(np.array([4, 4], np.int32)))),
    ("index_fill", lambda x, i: ops.index_fill(x, 0, i, 5.0), lambda: (Tensor(np.zeros((3, 2))),
                                                                      Tensor(np.array([1], np.int32)))),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name,fn,make", VALUE_READING, ids=[v[0] for v in VALUE_READING])
def test_value_reading_functions_in_every_mode(name, fn, make, mode):
    args = make()
    np.testing.assert_array_equal(run_fn(mode, fn, *args).asnumpy(), fn(*args).asnumpy())


def test_eps_documented_example():
    out = ops.eps(Tensor([4, 1, 2, 3], ms.float32))
    assert out.dtype == ms.float32 and out.asnumpy().tolist() == [float(np.float32(1.1920929e-07))] * 4
    assert ops.Eps()(Tensor(np.zeros(2))).asnumpy().tolist() == [np.finfo(np.float64).eps] * 2
    with pytest.raises(TypeError):
        ops.eps(Tensor(np.array([1], np.int32)))
