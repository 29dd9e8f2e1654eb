"""PyNative kernels: erf/GELU vectorised (graph/ops/special.py) and matmul folding a stack of
matrices into one GEMM (graph/ops/linalg.py), checked against independent oracles: ``math.erf``
in float64, numpy formulas in float64, finite differences, and the previous implementations
(``np.vectorize(math.erf)`` rounded to float32; numpy ``matmul`` on transposed views)."""
import math

import numpy as np
import pytest

import runtime as ms
from runtime import Tensor, ops
from graph.ops import REGISTRY, special


def _ulp_distance(a, b):
    """|a - b| in units in the last place of float64 (both finite, same sign)."""
    return np.abs(a.view(np.int64) - b.view(np.int64))


def _erf_points():
    rng = np.random.default_rng(0)
    edges = [0.0, -0.0, 2.0 ** -28, -2.0 ** -28, 2.0 ** -29, 1e-300, 5e-324, -5e-324, 0.84375,
             np.nextafter(0.84375, 0), 1.25, np.nextafter(1.25, 0), -1.25, 1 / 0.35,
             np.nextafter(1 / 0.35, 0), 2.857142686843872, 6.0, np.nextafter(6.0, 0), -6.0, 27.0, 1e300]
    return np.concatenate([rng.normal(size=20000) * 2.0, rng.uniform(-7, 7, 20000),
                           rng.normal(size=2000) * 1e-8, np.array(edges)])


def test_erf_float64_within_one_ulp_of_math_erf():
    x = _erf_points()
    ref = np.array([math.erf(v) for v in x])
    got = special.erf(x)
    assert got.dtype == np.float64 and got.shape == x.shape
    assert np.all(np.sign(got) == np.sign(ref))
    assert _ulp_distance(got, ref).max() <= 1
    assert np.mean(got == ref) > 0.95  # fdlibm's algorithm: almost every value is the C library's


def test_erf_special_values():
    x = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0])
    got = special.erf(x)
    assert got[0] == 1.0 and got[1] == -1.0 and np.isnan(got[2])
    assert got[3] == 0.0 and not np.signbit(got[3]) and got[4] == 0.0 and np.signbit(got[4])


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_erf_op_equals_float64_erf_rounded_once(dtype):
    """ops.erf on float32/float16 is math.erf rounded once: what np.vectorize(math.erf) gave."""
    with np.errstate(over="ignore"):
        x = _erf_points().astype(dtype)
    x = x[np.isfinite(x)]
    ref = np.array([math.erf(float(v)) for v in x]).astype(dtype)
    got = ops.erf(Tensor(x)).asnumpy()
    assert got.dtype == dtype
    assert np.array_equal(got, ref)


def test_gelu_matches_erf_formula_and_gradient():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(3, 7)).astype(np.float32) * 3
    ref = np.array([0.5 * v * (1 + math.erf(v / math.sqrt(2))) for v in x.astype(np.float64).ravel()]).reshape(x.shape)
    got = ops.gelu(Tensor(x), approximate="none").asnumpy()
    np.testing.assert_allclose(got, ref, rtol=2e-6, atol=1e-7)
    g = ms.grad(lambda t: ops.gelu(t, approximate="none").sum())(Tensor(x.astype(np.float64))).asnumpy()
    h = 1e-6
    xd = x.astype(np.float64)
    fd = np.vectorize(lambda v: (0.5 * (v + h) * (1 + math.erf((v + h) / math.sqrt(2)))
                                 - 0.5 * (v - h) * (1 + math.erf((v - h) / math.sqrt(2)))) / (2 * h))(xd)
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-8)


def test_erf_does_not_call_python_per_element(monkeypatch):
    """numpy has no erf; the impl must not fall back to np.vectorize / math.erf per element."""
    def refuse(*a, **k):
        raise AssertionError("per-element Python in erf")
    monkeypatch.setattr(np, "vectorize", refuse)
    monkeypatch.setattr(math, "erf", refuse)
    ops.erf(Tensor(np.linspace(-4, 4, 1000).astype(np.float32)))
    ops.gelu(Tensor(np.linspace(-4, 4, 1000).astype(np.float32)), approximate="none")


# -- matmul ----------------------------------------------------------------------------------------
def _old_matmul(x, y, ta, tb):
    if ta and x.ndim >= 2:
        x = np.swapaxes(x, -1, -2)
    if tb and y.ndim >= 2:
        y = np.swapaxes(y, -1, -2)
    return np.matmul(x, y)


CASES = [((16, 64, 32), (32, 48), False, False), ((16, 64, 32), (48, 32), False, True),
         ((2, 3, 5, 6), (6, 7), False, False), ((4, 5, 3), (5, 3), False, True),
         ((4, 3, 5), (3, 6), True, False), ((3, 4), (4, 5), False, False), ((2, 3, 4), (2, 4, 5), False, False)]


@pytest.mark.parametrize("xs,ys,ta,tb", CASES)
def test_matmul_stack_times_matrix_is_exact(xs, ys, ta, tb):
    rng = np.random.default_rng(2)
    x = rng.normal(size=xs).astype(np.float32)
    y = rng.normal(size=ys).astype(np.float32)
    got = ops.matmul(Tensor(x), Tensor(y), transpose_a=ta, transpose_b=tb).asnumpy()
    ref64 = _old_matmul(x.astype(np.float64), y.astype(np.float64), ta, tb)
    assert got.shape == ref64.shape
    np.testing.assert_allclose(got, ref64, rtol=1e-5, atol=1e-5)
    # the same BLAS kernel per row: the folded product equals numpy's stacked one to the bit
    assert np.array_equal(got, _old_matmul(x, y, ta, tb))


def test_matmul_on_a_strided_stack():
    """A transposed stack (MultiheadAttention's (L, N, E) <-> (N, L, E)) folds through a copy."""
    rng = np.random.default_rng(3)
    base = rng.normal(size=(6, 5, 8)).astype(np.float32)
    w = rng.normal(size=(4, 8)).astype(np.float32)
    x = ops.swapaxes(Tensor(base), 0, 1)
    got = ops.matmul(x, Tensor(w), transpose_b=True).asnumpy()
    np.testing.assert_allclose(got, np.swapaxes(base, 0, 1).astype(np.float64) @ w.T.astype(np.float64),
                               rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("tb", [False, True])
def test_matmul_gradient_of_stack_times_matrix(tb):
    rng = np.random.default_rng(4)
    x = rng.normal(size=(3, 4, 5))
    y = rng.normal(size=(6, 5) if tb else (5, 6))
    g = rng.normal(size=(3, 4, 6))

    def f(a, b):
        return (ops.matmul(a, b, transpose_b=tb) * Tensor(g)).sum()

    gx, gy = ms.grad(f, grad_position=(0, 1))(Tensor(x), Tensor(y))
    w = y.T if tb else y
    ref_gx = g @ w.T
    ref_gw = np.einsum("bmk,bmn->kn", x, g)
    np.testing.assert_allclose(gx.asnumpy(), ref_gx, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(gy.asnumpy(), ref_gw.T if tb else ref_gw, rtol=1e-12, atol=1e-12)


def test_matmul_vjp_of_stack_times_matrix_is_one_product(monkeypatch):
    """The weight gradient of (stack @ matrix) is one 2-D product over the stacked rows, not a
    product per matrix summed afterwards."""
    seen = []
    impl = REGISTRY["matmul"].impl

    def spy(xp, x, y, **attrs):
        seen.append((x.ndim, y.ndim))
        return impl(xp, x, y, **attrs)

    monkeypatch.setattr(REGISTRY["matmul"], "impl", spy)
    x = Tensor(np.ones((3, 4, 5), np.float32))
    y = Tensor(np.ones((6, 5), np.float32))
    ms.grad(lambda a, b: ops.matmul(a, b, transpose_b=True).sum(), grad_position=(0, 1))(x, y)
    assert seen[0] == (3, 2)       # forward
    assert (2, 2) in seen[1:]      # the weight's gradient
    assert all(nd != (3, 3) for nd in seen)


def test_erf_threads_follow_the_context_and_do_not_change_results():
    """Intra-op threads (graph/ops/intraop.py) split erf's blocks; set_context(num_threads=)
    sizes them, and every thread count gives the same bits."""
    from graph.ops import intraop
    x = np.random.default_rng(6).normal(size=200_000) * 3
    old = ms.get_context("num_threads")
    try:
        ms.set_context(num_threads=1)
        assert intraop.threads() == 1
        one = special.erf(x)
        ms.set_context(num_threads=3)
        assert intraop.threads() == 3
        three = special.erf(x)
    finally:
        ms.set_context(num_threads=old)
    assert np.array_equal(one, three)
    ref = np.array([math.erf(v) for v in x[:2000]])
    assert _ulp_distance(three[:2000], ref).max() <= 1
