"""ms.vjp / jvp / jacrev / jacfwd (and the ops. spellings) against MindSpore's documented examples,
hand-derived Jacobians and float64 finite differences, in PyNative, under ms.jit and in
GRAPH_MODE; JVP (by double VJP) equals J v computed from the reverse-mode Jacobian."""
import numpy as np
import pytest

import runtime as ms
from runtime import Tensor, nn, ops
from modes import MODES, run_fn

X = np.array([[1, 2], [3, 4]], np.float32)
ONES = np.ones((2, 2), np.float32)


class Cube(nn.Cell):
    def construct(self, x, y):
        return x ** 3 + y


class MultipleInputsMultipleOutputsNet(nn.Cell):
    def construct(self, x, y, z):
        return x ** 2 + y ** 2 + z ** 2, x * y * z


DOC_JAC = [[[[2., 0.], [0., 0.]], [[0., 4.], [0., 0.]]], [[[0., 0.], [6., 0.]], [[0., 0.], [0., 8.]]]]


def _np(t):
    return t.asnumpy() if hasattr(t, "asnumpy") else [_np(x) for x in t]


@pytest.mark.parametrize("mode", MODES)
def test_vjp_documented_examples(mode):
    def run(x, y, v):
        out, vjp_fn = ms.vjp(Cube(), x, y)
        return out, vjp_fn(v)
    out, grads = run_fn(mode, run, Tensor(X), Tensor(X), Tensor(ONES))
    np.testing.assert_allclose(out.asnumpy(), [[2, 10], [30, 68]])
    assert isinstance(grads, tuple) and len(grads) == 2
    np.testing.assert_allclose(grads[0].asnumpy(), [[3, 12], [27, 48]])
    np.testing.assert_allclose(grads[1].asnumpy(), ONES)

    def run_aux(x, y, v):
        out, vjp_fn, aux = ops.vjp(lambda a, b: (2 * a + b, b ** 3), x, y, has_aux=True)
        return out, aux, vjp_fn(v)
    out, aux, grads = run_fn(mode, run_aux, Tensor(X), Tensor(X), Tensor(ONES))
    np.testing.assert_allclose(out.asnumpy(), [[3, 6], [9, 12]])
    np.testing.assert_allclose(aux.asnumpy(), [[1, 8], [27, 64]])
    np.testing.assert_allclose(grads[0].asnumpy(), 2 * ONES)
    np.testing.assert_allclose(grads[1].asnumpy(), ONES)


def test_vjp_with_weights():
    net = nn.Dense(2, 3)
    x = Tensor(X)
    out, vjp_fn = ms.vjp(net, x, weights=net.trainable_params())
    v = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    (gx,), (gw, gb) = vjp_fn(v)
    w = net.weight.asnumpy()
    np.testing.assert_allclose(gx.asnumpy(), v.asnumpy() @ w, rtol=1e-6)
    np.testing.assert_allclose(gw.asnumpy(), v.asnumpy().T @ X, rtol=1e-6)
    np.testing.assert_allclose(gb.asnumpy(), v.asnumpy().sum(0), rtol=1e-6)


@pytest.mark.parametrize("mode", MODES)
def test_jvp_documented_examples(mode):
    out, jv = run_fn(mode, lambda x, y, v: ms.jvp(Cube(), (x, y), (v, v)), Tensor(X), Tensor(X), Tensor(ONES))
    np.testing.assert_allclose(out.asnumpy(), [[2, 10], [30, 68]])
    np.testing.assert_allclose(jv.asnumpy(), [[4, 13], [28, 49]])

    def fn(x, y):
        return x ** 3 + y, y
    out, jv, aux = run_fn(mode, lambda x, y, v: ops.jvp(fn, (x, y), (v, v), has_aux=True),
                          Tensor(X), Tensor(X), Tensor(ONES))
    np.testing.assert_allclose(jv.asnumpy(), [[4, 13], [28, 49]])
    np.testing.assert_allclose(aux.asnumpy(), X)


def test_jvp_equals_reverse_mode_jacobian_times_v():
    rng = np.random.default_rng(0)
    w = rng.standard_normal((3, 4))
    x, v = rng.standard_normal(4), rng.standard_normal(4)

    def f(t):
        return ops.tanh(ops.matmul(Tensor(w), t)) * ops.sin(t[:3])
    _, jv = ms.jvp(f, Tensor(x), Tensor(v))
    jac = ms.jacrev(f)(Tensor(x)).asnumpy()
    np.testing.assert_allclose(jv.asnumpy(), jac @ v, rtol=1e-10)
    # and both against central differences (float64)
    eps = 1e-6
    num = (f(Tensor(x + eps * v)).asnumpy() - f(Tensor(x - eps * v)).asnumpy()) / (2 * eps)
    np.testing.assert_allclose(jv.asnumpy(), num, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("jac", [ms.jacfwd, ms.jacrev, ops.jacfwd, ops.jacrev])
@pytest.mark.parametrize("mode", MODES)
def test_jacobian_documented_example(mode, jac):
    z = Tensor(ONES)
    j, aux = run_fn(mode, lambda a, b, c: jac(MultipleInputsMultipleOutputsNet(), grad_position=0, has_aux=True)(a, b, c),
                    Tensor(X), Tensor(X), z)
    np.testing.assert_allclose(j.asnumpy(), DOC_JAC)
    np.testing.assert_allclose(aux.asnumpy(), X * X)
    # two positions and two outputs: a tuple (per output) of tuples (per input)
    both = jac(MultipleInputsMultipleOutputsNet(), grad_position=(0, 1))(Tensor(X), Tensor(X), z)
    assert len(both) == 2 and all(len(row) == 2 for row in both)
    np.testing.assert_allclose(both[0][1].asnumpy(), DOC_JAC)
    np.testing.assert_allclose(both[1][0].asnumpy(), np.einsum("ij,ik,jl->ijkl", X, np.eye(2), np.eye(2)))


def test_hessian_as_jacfwd_of_jacrev_matches_the_analytic_one():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((3, 3))
    x = rng.standard_normal(3)

    def f(t):  # x^T A x + sum(x^4)
        return (t * ops.matmul(Tensor(a), t)).sum() + (t ** 4).sum()
    want = a + a.T + np.diag(12 * x ** 2)
    for outer, inner in ((ms.jacfwd, ms.jacrev), (ms.jacrev, ms.jacrev), (ms.jacfwd, ms.jacfwd)):
        np.testing.assert_allclose(outer(inner(f))(Tensor(x)).asnumpy(), want, rtol=1e-10)


def test_bad_arguments():
    with pytest.raises(TypeError, match="has_aux"):
        ms.jacrev(lambda x: x, has_aux=1)
    with pytest.raises(ValueError, match="more than one outputs"):
        ms.vjp(lambda x: x * 2, Tensor(X), has_aux=True)[1]
    with pytest.raises(ValueError, match="tangent"):
        ms.jvp(lambda x: x, Tensor(X), Tensor(np.ones(3, np.float32)))
    with pytest.raises(TypeError, match="grad_position"):
        ms.jacfwd(lambda x: x, grad_position="0")(Tensor(X))
    with pytest.raises(TypeError, match="Tensor"):
        ms.vjp(lambda x: x, [1.0])
