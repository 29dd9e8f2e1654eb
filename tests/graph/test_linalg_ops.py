"""matmul (batched, 1-D operands, transpose_a/b), bias_add and dense against numpy; gradients against
finite differences; the GradOperation seed example; errors naming op, shapes and the user's line."""
from __future__ import annotations

import os

import numpy as np
import pytest

import runtime as ms
from gradcheck import check_grad
from runtime import Parameter, Tensor, nn, ops

f32, f64 = np.float32, np.float64


def _x(rng, *shape, dtype=f32):
    return rng.uniform(-2, 2, shape).astype(dtype)


def _close(t, want, rtol=1e-5, atol=1e-5):
    got = t.asnumpy()
    want = np.asarray(want)
    assert got.shape == want.shape, f"shape {got.shape} != {want.shape}"
    np.testing.assert_allclose(got.astype(f64), want.astype(f64), rtol=rtol, atol=atol)


def _np_matmul(x, y, ta, tb):
    x, y = x.astype(f64), y.astype(f64)
    if ta and x.ndim >= 2:
        x = np.swapaxes(x, -1, -2)
    if tb and y.ndim >= 2:
        y = np.swapaxes(y, -1, -2)
    return x @ y


MM_CASES = [
    # x shape, y shape, transpose_a, transpose_b
    ((2, 3), (3, 4), False, False),
    ((3, 2), (3, 4), True, False),
    ((2, 3), (4, 3), False, True),
    ((3, 2), (4, 3), True, True),
    ((5, 2, 3), (5, 3, 4), False, False),
    ((5, 2, 3), (3, 4), False, False),
    ((2, 3), (5, 3, 4), False, False),
    ((2, 1, 2, 3), (4, 5, 3), False, True),
    ((3,), (3, 4), False, False),
    ((2, 3), (3,), False, False),
    ((3,), (3,), False, False),
    ((4,), (2, 4, 3), False, False),
    ((2, 3, 4), (4,), False, False),
    ((3,), (4, 3), False, True),
    ((3, 2), (3,), True, False),
]


@pytest.mark.parametrize("sx, sy, ta, tb", MM_CASES)
def test_matmul_forward(sx, sy, ta, tb, rng):
    x, y = _x(rng, *sx), _x(rng, *sy)
    out = ops.matmul(Tensor(x), Tensor(y), ta, tb)
    want = _np_matmul(x, y, ta, tb)
    assert out.dtype == ms.float32
    _close(out, want)
    _close(ops.MatMul(transpose_a=ta, transpose_b=tb)(Tensor(x), Tensor(y)), want)


def test_matmul_operator_and_ints(rng):
    x, y = _x(rng, 2, 3), _x(rng, 3, 2)
    _close(Tensor(x) @ Tensor(y), x.astype(f64) @ y)
    a = np.arange(6, dtype=np.int32).reshape(2, 3)
    b = np.arange(6, dtype=np.int32).reshape(3, 2)
    out = Tensor(a) @ Tensor(b)
    assert out.dtype == ms.int32
    np.testing.assert_array_equal(out.asnumpy(), a @ b)
    out = ops.matmul(Tensor(x), Tensor(y.astype(f64)))
    assert out.dtype == ms.float64


def test_matmul_known_values():
    x = Tensor(np.array([[1.0, 2.0], [3.0, 4.0]], f32))
    y = Tensor(np.array([[5.0, 6.0], [7.0, 8.0]], f32))
    np.testing.assert_array_equal((x @ y).asnumpy(), [[19, 22], [43, 50]])
    np.testing.assert_array_equal(ops.MatMul(transpose_b=True)(x, y).asnumpy(), [[17, 23], [39, 53]])
    np.testing.assert_array_equal(ops.MatMul(True, False)(x, y).asnumpy(), [[26, 30], [38, 44]])


@pytest.mark.parametrize("sx, sy, ta, tb", MM_CASES)
def test_matmul_grad(sx, sy, ta, tb, rng):
    x, y = _x(rng, *sx, dtype=f64), _x(rng, *sy, dtype=f64)
    check_grad(lambda a, b: ops.matmul(a, b, ta, tb), x, y)


def test_matmul_second_order(rng):
    x, y = _x(rng, 2, 3, dtype=f64), _x(rng, 3, 2, dtype=f64)
    # d/dx of grad_x(sum((x@y)**2)) is linear in y: check the whole map with finite differences
    check_grad(lambda a, b: ms.grad(lambda u, v: ((u @ v) ** 2).sum(), grad_position=0)(a, b), x, y)


# -- bias_add / dense ----------------------------------------------------------------------------------------------
def test_bias_add(rng):
    x, b = _x(rng, 2, 3, 4, 5), _x(rng, 3)
    _close(ops.bias_add(Tensor(x), Tensor(b)), x + b.reshape(1, 3, 1, 1))
    _close(ops.BiasAdd()(Tensor(x), Tensor(b)), x + b.reshape(1, 3, 1, 1))
    b5 = _x(rng, 5)
    _close(ops.bias_add(Tensor(x), Tensor(b5), "NHWC"), x + b5)
    _close(ops.BiasAdd(data_format="NHWC")(Tensor(x), Tensor(b5)), x + b5)
    x2 = _x(rng, 4, 3)
    _close(ops.bias_add(Tensor(x2), Tensor(b)), x2 + b)


def test_bias_add_grad(rng):
    check_grad(ops.bias_add, _x(rng, 2, 3, 2, dtype=f64), _x(rng, 3, dtype=f64))
    check_grad(lambda x, b: ops.bias_add(x, b, "NHWC"), _x(rng, 2, 3, 2, dtype=f64), _x(rng, 2, dtype=f64))
    check_grad(ops.bias_add, _x(rng, 4, 3, dtype=f64), _x(rng, 3, dtype=f64))


def test_dense(rng):
    x, w, b = _x(rng, 4, 3), _x(rng, 2, 3), _x(rng, 2)
    _close(ops.dense(Tensor(x), Tensor(w), Tensor(b)), x.astype(f64) @ w.T + b)
    _close(ops.dense(Tensor(x), Tensor(w)), x.astype(f64) @ w.T)
    check_grad(ops.dense, _x(rng, 4, 3, dtype=f64), _x(rng, 2, 3, dtype=f64), _x(rng, 2, dtype=f64))


# -- seed examples -----------------------------------------------------------------------------------------------
class _Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.z = Parameter(Tensor(np.array([1.0], f32)), name="z")

    def construct(self, x, y):
        return ops.matmul(x * self.z, y)


class _GradNetWrtX(nn.Cell):
    def __init__(self, net):
        super().__init__()
        self.net = net
        self.grad_op = ops.GradOperation()

    def construct(self, x, y):
        gradient_function = self.grad_op(self.net)
        return gradient_function(x, y)


def test_grad_operation_seed_example():
    x = Tensor([[0.8, 0.6, 0.2], [1.8, 1.3, 1.1]], dtype=ms.float32)
    y = Tensor([[0.11, 3.3, 1.1], [1.1, 0.2, 1.4], [1.1, 2.2, 0.3]], dtype=ms.float32)
    out = _GradNetWrtX(_Net())(x, y)
    assert out.dtype == ms.float32 and out.shape == (2, 3)
    np.testing.assert_allclose(out.asnumpy(), [[4.51, 2.7, 3.6], [4.51, 2.7, 3.6]], rtol=1e-6, atol=1e-6)


def test_grad_operation_all_and_by_list():
    x = Tensor([[0.8, 0.6, 0.2], [1.8, 1.3, 1.1]], dtype=ms.float32)
    y = Tensor([[0.11, 3.3, 1.1], [1.1, 0.2, 1.4], [1.1, 2.2, 0.3]], dtype=ms.float32)
    net = _Net()
    dx, dy = ops.GradOperation(get_all=True)(net)(x, y)
    np.testing.assert_allclose(dx.asnumpy(), [[4.51, 2.7, 3.6], [4.51, 2.7, 3.6]], rtol=1e-6)
    np.testing.assert_allclose(dy.asnumpy(), np.tile(x.asnumpy().sum(0)[:, None], (1, 3)), rtol=1e-6)
    (dz,) = ops.GradOperation(get_by_list=True)(net, net.trainable_params())(x, y)
    want = (x.asnumpy().astype(f64) @ y.asnumpy().astype(f64)).sum()
    np.testing.assert_allclose(dz.asnumpy(), [want], rtol=1e-6)


# -- bad input -----------------------------------------------------------------------------------------------------
def test_matmul_inner_dim_mismatch():
    with pytest.raises(ValueError) as ei:
        ops.matmul(Tensor(np.ones((2, 3), f32)), Tensor(np.ones((4, 5), f32)))
    msg = str(ei.value)
    assert "MatMul" in msg and "(2, 3)" in msg and "(4, 5)" in msg
    with pytest.raises(ValueError, match="MatMul"):
        Tensor(np.ones((2, 3), f32)) @ Tensor(np.ones((2, 3), f32))
    with pytest.raises(ValueError, match="MatMul.*transpose_b=True"):
        ops.MatMul(transpose_b=True)(Tensor(np.ones((2, 3), f32)), Tensor(np.ones((3, 4), f32)))
    with pytest.raises(ValueError, match="MatMul.*cannot be broadcast"):
        ops.matmul(Tensor(np.ones((2, 2, 3), f32)), Tensor(np.ones((3, 3, 4), f32)))
    with pytest.raises(ValueError, match="MatMul.*rank"):
        ops.matmul(Tensor(np.float32(1)), Tensor(np.ones(3, f32)))
    with pytest.raises(TypeError, match="MatMul.*bool"):
        ops.matmul(Tensor(np.ones((2, 2), bool)), Tensor(np.ones((2, 2), bool)))
    with pytest.raises(TypeError, match="transpose_a"):
        ops.MatMul(transpose_a=1)


def test_bias_add_mismatch_names_op_shapes_and_user_line():
    x = Tensor(np.ones((3, 8), f32))
    b = Tensor(np.ones((4,), f32))
    with pytest.raises(ValueError) as ei:
        ops.bias_add(x, b)
    line = test_bias_add_mismatch_names_op_shapes_and_user_line.__code__.co_firstlineno + 4
    msg = str(ei.value)
    for part in ("BiasAdd", "bias_add", "(3, 8)", "(4,)", os.path.basename(__file__)):
        assert part in msg, f"{part!r} missing from: {msg}"
    assert f"{os.path.basename(__file__)}:{line}" in msg, msg
    assert "ops.bias_add(x, b)" in msg


def test_bias_add_other_errors():
    with pytest.raises(ValueError, match="BiasAdd.*rank"):
        ops.bias_add(Tensor(np.ones(3, f32)), Tensor(np.ones(3, f32)))
    with pytest.raises(ValueError, match="BiasAdd.*1-D"):
        ops.bias_add(Tensor(np.ones((2, 3), f32)), Tensor(np.ones((1, 3), f32)))
    with pytest.raises(TypeError, match="BiasAdd.*dtypes"):
        ops.bias_add(Tensor(np.ones((2, 3), f32)), Tensor(np.ones(3, f64)))
    with pytest.raises(ValueError, match="data_format"):
        ops.BiasAdd(data_format="NCW")
