"""Gradients through tensor item assignment (``x[idx] = v`` then using ``x``): they reach both the
old contents (except the overwritten elements) and ``v``, in PyNative, under ``jit`` and in
GRAPH_MODE, checked against finite differences and a numpy formula."""
import numpy as np
import pytest

import runtime as ms
from gradcheck import check_grad
from runtime import Parameter, Tensor, nn, ops


def _x(rng, *shape):
    return rng.standard_normal(shape)


INDEXES = [
    (1, slice(None), slice(0, 2)),          # the x[idx, :, 0:2]
    (slice(None), 0),                       # a whole column
    (Ellipsis, slice(1, None, 2)),          # strided
    ([0, 1], slice(None), 3),               # advanced (int list)
]


@pytest.mark.parametrize("index", INDEXES, ids=["int-slices", "column", "strided", "int-list"])
def test_grad_reaches_old_contents_and_value_finite_differences(rng, index):
    x = _x(rng, 2, 3, 4)
    v = _x(rng, *np.zeros((2, 3, 4))[index].shape)

    def f(x, v):
        y = x * 1.5  # a fresh tensor, written in place below
        y[index] = v
        return y * y + x

    check_grad(f, x, v)


def test_grad_of_an_overwritten_input_is_for_its_original_value(rng):
    x, v = _x(rng, 3, 4), _x(rng, 3)

    def f(x, v):
        before = (x * x).sum()  # uses the original x
        x[:, 1] = v
        return before + (x * 3).sum()

    gx, gv = ms.grad(f, (0, 1))(Tensor(x.astype(np.float32)), Tensor(v.astype(np.float32)))
    want = 2 * x + 3
    want[:, 1] = 2 * x[:, 1]  # the overwritten column contributes only through `before`
    np.testing.assert_allclose(gx.asnumpy(), want, rtol=1e-6)
    np.testing.assert_allclose(gv.asnumpy(), np.full(3, 3.0), rtol=1e-6)


def test_scalar_and_broadcast_values(rng):
    x = _x(rng, 3, 4)

    def f(x, v):
        y = x + 0
        y[1:] = v  # v of shape (4,) broadcast over two rows
        y[0, 0] = 7.0  # a Python scalar
        return (y * y).sum()

    check_grad(f, x, _x(rng, 4))
    gx, gv = ms.grad(f, (0, 1))(Tensor(x), Tensor(np.ones(4)))
    want_gx = 2 * x
    want_gx[1:] = 0
    want_gx[0, 0] = 0
    np.testing.assert_allclose(gx.asnumpy(), want_gx)
    np.testing.assert_allclose(gv.asnumpy(), np.full(4, 4.0))  # two rows, 2 * 1 each


def test_without_a_tape_assignment_stays_in_place():
    x = Tensor(np.zeros((2, 3), np.float32))
    data = x._data
    x[0, 1] = 5.0
    assert x._data is data and x.asnumpy()[0, 1] == 5.0


@pytest.mark.parametrize("mode", ["jit", "graph"])
def test_graph_modes_give_the_pynative_gradients(rng, mode):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = Parameter(Tensor(rng.standard_normal((4, 5)).astype(np.float32)), name="w")

        def construct(self, x, v):
            h = ops.matmul(x, self.w)
            h[:, 0:2] = v
            return (h * h).sum()

    x = Tensor(rng.standard_normal((3, 4)).astype(np.float32))
    v = Tensor(rng.standard_normal((3, 2)).astype(np.float32))
    net = Net()
    eager = ms.grad(net, (0, 1), net.trainable_params())(x, v)
    if mode == "jit":
        graph = ms.jit(ms.grad(net, (0, 1), net.trainable_params()))(x, v)
    else:
        ms.set_context(mode=ms.GRAPH_MODE)
        graph = ms.grad(net, (0, 1), net.trainable_params())(x, v)
    flat_e = [eager[0][0], eager[0][1], eager[1][0]]
    flat_g = [graph[0][0], graph[0][1], graph[1][0]]
    for a, b in zip(flat_g, flat_e):
        np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-6)
    h = x.asnumpy() @ net.w.asnumpy()
    h[:, 0:2] = v.asnumpy()
    np.testing.assert_allclose(flat_e[1].asnumpy(), 2 * v.asnumpy(), rtol=1e-6)
    gh = 2 * h
    gh[:, 0:2] = 0
    np.testing.assert_allclose(flat_e[2].asnumpy(), x.asnumpy().T @ gh, rtol=1e-5)


def test_bad_value_shape_names_the_op():
    with pytest.raises(ValueError, match=r"setitem.*shape \(3,\).*\(2,\)"):
        def f(x):
            y = x * 1
            y[0, 0:2] = Tensor(np.ones(3, np.float32))
            return y
        ms.grad(f)(Tensor(np.ones((2, 4), np.float32)))
