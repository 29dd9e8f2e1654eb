"""Reductions, arg-reductions and the softmax family against numpy oracles; gradients against
finite differences; Primitive call-time attributes; bad axes."""
from __future__ import annotations

import numpy as np
import pytest

import runtime as ms
from gradcheck import check_grad
from runtime import Tensor, ops

f32, f64 = np.float32, np.float64


def _x(rng, *shape, lo=-2.0, hi=2.0, dtype=f32):
    return rng.uniform(lo, hi, shape).astype(dtype)


def _distinct(rng, *shape):
    """Values without ties (max/min are not differentiable at a tie)."""
    n = int(np.prod(shape))
    return (rng.permutation(n) * 0.31 - n * 0.15).reshape(shape).astype(f64)


def _close(t, want, rtol=1e-5, atol=1e-6):
    got = t.asnumpy()
    want = np.asarray(want)
    assert got.shape == want.shape, f"shape {got.shape} != {want.shape}"
    np.testing.assert_allclose(got.astype(f64), want.astype(f64), rtol=rtol, atol=atol)


REDUCE = {
    "reduce_sum": np.sum,
    "reduce_mean": np.mean,
    "reduce_max": np.max,
    "reduce_min": np.min,
    "reduce_prod": np.prod,
}
AXES = [None, 0, 1, -1, (0, 2), (2, 0), (), (0, 1, 2)]


def _np_axis(axis):
    return None if axis == () else axis


@pytest.mark.parametrize("name", sorted(REDUCE))
@pytest.mark.parametrize("axis", AXES)
@pytest.mark.parametrize("keep_dims", [False, True])
def test_reduce_forward(name, axis, keep_dims, rng):
    x = _x(rng, 2, 3, 4, lo=0.5, hi=1.5) if name == "reduce_prod" else _x(rng, 2, 3, 4)
    out = getattr(ops, name)(Tensor(x), axis, keep_dims)
    want = REDUCE[name](x.astype(f64), axis=_np_axis(axis), keepdims=keep_dims)
    assert out.dtype == ms.float32
    _close(out, want)


def test_reduce_via_primitives_with_call_time_axis(rng):
    x = _x(rng, 2, 3)
    X = Tensor(x)
    _close(ops.ReduceSum(keep_dims=True)(X, 1), x.astype(f64).sum(1, keepdims=True))
    _close(ops.ReduceSum(True)(X, (0, 1)), x.astype(f64).sum(keepdims=True).reshape(1, 1))
    _close(ops.ReduceSum()(X), x.astype(f64).sum())
    _close(ops.ReduceMean(keep_dims=False)(X, 0), x.astype(f64).mean(0))
    _close(ops.ReduceMax()(X, -1), x.max(-1))
    _close(ops.ReduceMin(True)(X, 0), x.min(0, keepdims=True))
    _close(ops.ReduceProd()(X, 1), x.astype(f64).prod(1))
    _close(ops.Argmax(axis=0)(X), x.argmax(0))
    _close(ops.Softmax(axis=0)(X), np.exp(x) / np.exp(x.astype(f64)).sum(0))


def test_reduce_dtypes():
    i = Tensor(np.array([[1, 2, 3], [4, 5, 6]], np.int32))
    s = ops.reduce_sum(i, 1)
    assert s.dtype == ms.int32
    np.testing.assert_array_equal(s.asnumpy(), [6, 15])
    m = ops.reduce_mean(i, 0)
    assert m.dtype == ms.float32
    _close(m, [2.5, 3.5, 4.5])
    b = Tensor(np.array([True, False, True]))
    bs = ops.reduce_sum(b)
    assert bs.dtype == ms.int64 and bs.item() == 2
    assert ops.reduce_max(i).dtype == ms.int32 and ops.reduce_max(i).item() == 6
    x64 = Tensor(np.ones((2, 2), f64))
    assert ops.reduce_sum(x64).dtype == ms.float64 and ops.reduce_mean(x64).dtype == ms.float64


def test_reduce_of_scalar_and_size_one():
    s = Tensor(np.float32(2.5))
    for name in REDUCE:
        for axis in (None, 0, -1, ()):
            out = getattr(ops, name)(s, axis)
            assert out.shape == () and out.item() == 2.5, (name, axis)


def test_tensor_reduction_methods(rng):
    x = _x(rng, 3, 4)
    X = Tensor(x)
    _close(X.sum(), x.astype(f64).sum())
    _close(X.sum(0), x.astype(f64).sum(0))
    _close(X.sum(axis=1, keepdims=True), x.astype(f64).sum(1, keepdims=True))
    _close(X.mean(1), x.astype(f64).mean(1))
    _close(X.max(), x.max())
    _close(X.min(0), x.min(0))
    np.testing.assert_array_equal(X.argmax().asnumpy(), x.argmax())  # 2.x: flattened
    np.testing.assert_array_equal(X.argmax(1).asnumpy(), x.argmax(1))
    np.testing.assert_array_equal(X.argmin(0).asnumpy(), x.argmin(0))
    assert ops.sum(X, 1).shape == (3,) and ops.mean(X).shape == ()


@pytest.mark.parametrize("axis", [0, 1, -1, 2])
@pytest.mark.parametrize("keep_dims", [False, True])
def test_argmax_argmin(axis, keep_dims, rng):
    x = _x(rng, 3, 4, 5)
    a = ops.argmax(Tensor(x), axis, keep_dims)
    b = ops.argmin(Tensor(x), axis, keep_dims)
    assert a.dtype == ms.int64 and b.dtype == ms.int64  # MindSpore 2.x functional forms
    np.testing.assert_array_equal(a.asnumpy(), np.argmax(x, axis, keepdims=keep_dims))
    np.testing.assert_array_equal(b.asnumpy(), np.argmin(x, axis, keepdims=keep_dims))


def test_argmax_ties_take_first_index():
    x = Tensor(np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 0.0]], f32))
    np.testing.assert_array_equal(ops.argmax(x, 1).asnumpy(), [1, 0])
    assert ops.argmax(x).item() == 1  # dim=None: the flattened tensor
    np.testing.assert_array_equal(ops.argmin(x, 0).asnumpy(), [0, 1, 1])


def _softmax64(x, axis):
    e = np.exp(x - x.max(axis, keepdims=True))
    return e / e.sum(axis, keepdims=True)


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_softmax_family(axis, rng):
    x = _x(rng, 3, 4, 5, lo=-5, hi=5)
    xd = x.astype(f64)
    _close(ops.softmax(Tensor(x), axis), np.exp(xd) / np.exp(xd).sum(axis, keepdims=True))
    _close(ops.log_softmax(Tensor(x), axis), xd - np.log(np.exp(xd).sum(axis, keepdims=True)))
    _close(ops.logsumexp(Tensor(x), axis), np.log(np.exp(xd).sum(axis)))
    _close(ops.logsumexp(Tensor(x), axis, True), np.log(np.exp(xd).sum(axis, keepdims=True)))


def test_softmax_family_is_stable():
    x = np.array([[1000.0, 1001.0, 999.0], [-1000.0, -1000.0, -1002.0]], f32)
    sm = ops.softmax(Tensor(x)).asnumpy()
    ls = ops.log_softmax(Tensor(x)).asnumpy()
    lse = ops.logsumexp(Tensor(x), 1).asnumpy()
    assert np.all(np.isfinite(sm)) and np.all(np.isfinite(ls)) and np.all(np.isfinite(lse))
    xd = x.astype(f64)
    np.testing.assert_allclose(sm, _softmax64(xd, -1), rtol=1e-6)
    m = xd.max(1, keepdims=True)
    want_lse = (np.log(np.exp(xd - m).sum(1, keepdims=True)) + m)
    np.testing.assert_allclose(lse, want_lse[:, 0], rtol=1e-6)
    np.testing.assert_allclose(ls, xd - want_lse, rtol=1e-6, atol=1e-5)
    np.testing.assert_allclose(sm.sum(1), [1.0, 1.0], rtol=1e-6)


@pytest.mark.filterwarnings("ignore:divide by zero")
def test_logsumexp_all_minus_inf_row():
    x = Tensor(np.array([[-np.inf, -np.inf], [0.0, 0.0]], f32))
    out = ops.logsumexp(x, 1).asnumpy()
    assert out[0] == -np.inf
    np.testing.assert_allclose(out[1], np.log(2.0), rtol=1e-6)


# -- gradients -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod"])
@pytest.mark.parametrize("axis, keep_dims", [(None, False), (0, False), (-1, True), ((0, 2), False),
                                             ((0, 2), True), ((), False)])
def test_reduce_grad(name, axis, keep_dims, rng):
    if name == "reduce_prod":
        x = _x(rng, 2, 3, 2, lo=0.5, hi=1.5) * rng.choice([-1, 1], (2, 3, 2))
    else:
        x = _distinct(rng, 2, 3, 2)
    check_grad(lambda t: getattr(ops, name)(t, axis, keep_dims), x)


def test_reduce_grad_int_attrs_via_primitive(rng):
    check_grad(lambda t: ops.ReduceSum(keep_dims=True)(t, 1) * t, _x(rng, 2, 3))
    check_grad(lambda t: ops.ReduceMean()(t, (0,)), _x(rng, 2, 3))


def test_max_ties_share_gradient():
    x = Tensor(np.array([[1.0, 3.0, 3.0], [2.0, 0.0, 1.0]], f32))
    g = ms.grad(lambda t: ops.reduce_max(t, 1).sum())(x)
    np.testing.assert_allclose(g.asnumpy(), [[0, 0.5, 0.5], [1, 0, 0]])
    g = ms.grad(lambda t: ops.reduce_max(t).sum())(x)
    np.testing.assert_allclose(g.asnumpy(), [[0, 0.5, 0.5], [0, 0, 0]])


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize("axis", [0, -1])
def test_softmax_grad(name, axis, rng):
    check_grad(lambda t: getattr(ops, name)(t, axis), _x(rng, 3, 4))


@pytest.mark.parametrize("axis, keep_dims", [(None, False), (1, False), (0, True), ((0, 1), False)])
def test_logsumexp_grad(axis, keep_dims, rng):
    check_grad(lambda t: ops.logsumexp(t, axis, keep_dims), _x(rng, 3, 4))


def test_softmax_second_derivative_matches_finite_differences(rng):
    x = _x(rng, 2, 3).astype(f64)
    w = Tensor(rng.uniform(0.5, 1.5, (2, 3)))

    def g(t):  # gradient of a softmax expression, itself differentiated
        return ms.grad(lambda u: (ops.softmax(u) * w).sum())(t)

    check_grad(g, x, rtol=1e-4, atol=1e-6)


def test_argmax_has_no_gradient(rng):
    from graph.ops import REGISTRY
    assert REGISTRY["argmax"].vjp is None and REGISTRY["argmax"].nondiff
    x = Tensor(_x(rng, 2, 3))
    g = ms.grad(lambda t: (t * ops.cast(ops.argmax(t, -1), ms.float32).reshape(2, 1)).sum())(x)
    want = np.broadcast_to(x.asnumpy().argmax(-1).reshape(2, 1), (2, 3)).astype(f32)
    np.testing.assert_allclose(g.asnumpy(), want)


# -- bad input -----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["reduce_sum", "reduce_mean", "reduce_max", "argmax", "softmax", "logsumexp"])
def test_axis_out_of_range(name):
    x = Tensor(np.ones((2, 3), f32))
    with pytest.raises(ValueError, match="axis 2 is out of range") as ei:
        getattr(ops, name)(x, 2)
    assert "rank 2" in str(ei.value)
    with pytest.raises(ValueError, match="out of range"):
        getattr(ops, name)(x, -3)


def test_bad_axis_type_and_repeats():
    x = Tensor(np.ones((2, 3), f32))
    with pytest.raises(TypeError, match="ReduceSum.*axis"):
        ops.reduce_sum(x, 1.5)
    with pytest.raises(TypeError, match="keep_dims"):
        ops.reduce_sum(x, 1, "yes")
    with pytest.raises(ValueError, match="repeats"):
        ops.reduce_sum(x, (1, -1))
    with pytest.raises(TypeError, match="unknown attribute"):
        ops.ReduceSum(keepdims=True)


def test_empty_reductions():
    e = Tensor(np.zeros((0, 3), f32))
    np.testing.assert_array_equal(ops.reduce_sum(e, 0).asnumpy(), np.zeros(3))
    with pytest.raises(ValueError, match="empty"):
        ops.reduce_max(e, 0)
    with pytest.raises(ValueError, match="empty"):
        ops.argmax(e, 0)


def test_softmax_rejects_int():
    with pytest.raises(TypeError, match="Softmax"):
        ops.softmax(Tensor(np.array([1, 2], np.int32)))


@pytest.mark.parametrize("axis,keep_dims,reshaped", [(None, False, False), ((0,), False, False),
                                                     ((0, 1), False, False), ((1,), False, True),
                                                     ((0, 2), False, True), ((0,), True, False)])
def test_sum_gradient_reshapes_its_cotangent_only_when_broadcasting_needs_it(axis, keep_dims, reshaped):
    """A sum over the leading axes (all of them, or a batch axis) sends its cotangent back by
    broadcasting alone (broadcasting aligns the trailing axes); a sum over an inner or trailing
    axis first puts the reduced axes back as size-one axes. Oracle: numpy's broadcast of the
    cotangent, and the graph's own ops."""
    from graph.aval import AVal
    from graph.autodiff import append_vjp
    from graph.dtypes import float64
    from graph.interpret import run
    from graph.ir import Graph
    from graph.ops import F
    g = Graph("sum_grad")
    x = g.add_input(AVal((2, 3, 4), float64), "x")
    y = F.reduce_sum(x, axis=axis, keep_dims=keep_dims)
    seed = g.add_input(y.aval, "seed")
    (dx,) = append_vjp(g, [y], [seed], [x])
    g.set_outputs([dx])
    g.verify()
    assert any(n.op.name == "reshape" for n in g.nodes) == reshaped
    rng = np.random.default_rng(0)
    xv = rng.standard_normal((2, 3, 4))
    sv = rng.standard_normal(tuple(y.aval.shape))
    axes = (0, 1, 2) if axis is None else axis
    want = np.broadcast_to(np.expand_dims(sv, axes) if not keep_dims else sv, (2, 3, 4))
    (got,), _ = run(g, [xv, sv])
    np.testing.assert_array_equal(np.asarray(got), want)
