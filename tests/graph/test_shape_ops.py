"""Shape and layout ops (reshape, transpose, broadcast_to, expand_dims, squeeze, concat, stack, split,
tile, slice, strided_slice, getitem) against numpy; gradients against finite differences; bad input."""
from __future__ import annotations

import numpy as np
import pytest

import runtime as ms
from gradcheck import check_grad
from graph.aval import AVal
from graph.dtypes import bool_, float32, int32, int64
from graph.ops import REGISTRY
from graph.ops.shape import split_index
from runtime import Tensor, ops

f32, f64 = np.float32, np.float64


def _x(rng, *shape, dtype=f32):
    return rng.uniform(-2, 2, shape).astype(dtype)


def _eq(t, want):
    got = t.asnumpy()
    want = np.asarray(want)
    assert got.shape == want.shape, f"shape {got.shape} != {want.shape}"
    np.testing.assert_array_equal(got, want)


# -- reshape / transpose / broadcast_to / expand_dims / squeeze -------------------------------------------------
def test_reshape(rng):
    x = _x(rng, 2, 3, 4)
    X = Tensor(x)
    _eq(ops.reshape(X, (6, 4)), x.reshape(6, 4))
    _eq(ops.reshape(X, (-1,)), x.reshape(-1))
    _eq(ops.reshape(X, [4, -1, 2]), x.reshape(4, -1, 2))
    _eq(ops.Reshape()(X, (2, 12)), x.reshape(2, 12))
    _eq(X.reshape(3, 8), x.reshape(3, 8))
    _eq(X.reshape((24,)), x.reshape(24))
    _eq(X.view(-1, 2), x.reshape(-1, 2))
    _eq(ops.reshape(Tensor(np.float32(3)), (1, 1)), np.full((1, 1), 3, f32))
    _eq(ops.reshape(Tensor(np.zeros((0, 3), f32)), (3, 0)), np.zeros((3, 0)))


def test_transpose(rng):
    x = _x(rng, 2, 3, 4)
    X = Tensor(x)
    _eq(ops.transpose(X, (1, 2, 0)), x.transpose(1, 2, 0))
    _eq(ops.transpose(X, (-1, 0, 1)), x.transpose(2, 0, 1))
    _eq(ops.Transpose()(X, (2, 1, 0)), x.transpose(2, 1, 0))
    _eq(X.T, x.T)
    _eq(X.transpose(0, 2, 1), x.transpose(0, 2, 1))
    _eq(X.transpose(), x.transpose())


def test_broadcast_to(rng):
    x = _x(rng, 3, 1)
    _eq(ops.broadcast_to(Tensor(x), (2, 3, 4)), np.broadcast_to(x, (2, 3, 4)))
    _eq(ops.BroadcastTo((2, 3, 5))(Tensor(x)), np.broadcast_to(x, (2, 3, 5)))
    _eq(ops.broadcast_to(Tensor(x), (-1, 4)), np.broadcast_to(x, (3, 4)))
    _eq(Tensor(x).broadcast_to((3, 2)), np.broadcast_to(x, (3, 2)))


def test_expand_dims_and_squeeze(rng):
    x = _x(rng, 3, 4)
    X = Tensor(x)
    for axis in (0, 1, 2, -1, -3):
        _eq(ops.expand_dims(X, axis), np.expand_dims(x, axis))
    _eq(ops.ExpandDims()(X, 1), x[:, None])
    _eq(X.unsqueeze(0), x[None])
    y = _x(rng, 1, 3, 1, 4, 1)
    Y = Tensor(y)
    _eq(ops.squeeze(Y), y.squeeze())
    _eq(ops.squeeze(Y, 2), y.squeeze(2))
    _eq(ops.squeeze(Y, (0, -1)), y.squeeze((0, 4)))
    _eq(ops.Squeeze()(Y), y.squeeze())
    _eq(ops.Squeeze(())(Y), y.squeeze())
    _eq(ops.Squeeze(0)(Y), y.squeeze(0))
    _eq(Y.squeeze(), y.squeeze())


def test_layout_ops_keep_dtype():
    x = Tensor(np.arange(6, dtype=np.int32).reshape(2, 3))
    for out in (x.reshape(3, 2), x.T, ops.expand_dims(x, 0), ops.broadcast_to(x, (2, 2, 3)), x[0],
                ops.concat((x, x)), ops.stack((x, x)), ops.split(x, 1, 1)[0], ops.tile(x, (2, 2)),
                ops.slice(x, (0, 1), (2, 2))):
        assert out.dtype == ms.int32


# -- concat / stack / split / tile -------------------------------------------------------------------------------
def test_concat(rng):
    a, b, c = _x(rng, 2, 3), _x(rng, 2, 5), _x(rng, 2, 1)
    _eq(ops.concat((Tensor(a), Tensor(b), Tensor(c)), 1), np.concatenate([a, b, c], 1))
    _eq(ops.concat([Tensor(a), Tensor(b)], axis=-1), np.concatenate([a, b], -1))
    _eq(ops.Concat(axis=0)((Tensor(a), Tensor(a))), np.concatenate([a, a], 0))
    _eq(ops.Concat(1)([Tensor(a), Tensor(c)]), np.concatenate([a, c], 1))
    _eq(ops.concat((Tensor(a),)), a)


def test_concat_promotes_dtypes():
    a = Tensor(np.array([[1, 2]], np.int32))
    b = Tensor(np.array([[0.5, 1.5]], f32))
    out = ops.concat((a, b), 0)
    assert out.dtype == ms.float32
    _eq(out, [[1, 2], [0.5, 1.5]])
    out = ops.stack((a, Tensor(np.array([[3, 4]], np.int64))))
    assert out.dtype == ms.int64


def test_stack(rng):
    a, b = _x(rng, 2, 3), _x(rng, 2, 3)
    for axis in (0, 1, 2, -1, -3):
        _eq(ops.stack((Tensor(a), Tensor(b)), axis), np.stack([a, b], axis))
    _eq(ops.Stack(axis=1)([Tensor(a), Tensor(b), Tensor(a)]), np.stack([a, b, a], 1))


def test_split(rng):
    x = _x(rng, 4, 6)
    X = Tensor(x)
    parts = ops.split(X, 2, axis=1)  # 2.x: (tensor, split_size_or_sections, axis)
    assert isinstance(parts, tuple) and len(parts) == 3
    for p, w in zip(parts, np.split(x, 3, 1)):
        _eq(p, w)
    parts = ops.split(X, 4, 1)  # the last part is smaller when the axis does not divide evenly
    assert [p.shape for p in parts] == [(4, 4), (4, 2)]
    _eq(parts[1], x[:, 4:])
    parts = ops.split(X, 3)  # axis 0 by default
    assert [p.shape for p in parts] == [(3, 6), (1, 6)]
    _eq(parts[1], x[3:])
    parts = ops.Split(0, 2)(X)
    for p, w in zip(parts, np.split(x, 2, 0)):
        _eq(p, w)
    one = ops.Split(axis=-1)(X)
    assert isinstance(one, tuple) and len(one) == 1
    _eq(one[0], x)
    parts = ops.split(X, [1, 0, 5], axis=1)
    assert [p.shape for p in parts] == [(4, 1), (4, 0), (4, 5)]
    _eq(parts[2], x[:, 1:])


@pytest.mark.parametrize("shape, multiples", [((2, 3), (2, 3)), ((2, 3), (1, 1)), ((3,), (2, 1, 2)),
                                              ((2, 3), (3,)), ((2, 1, 3), (1, 4, 2)), ((2, 3), (0, 1))])
def test_tile(shape, multiples, rng):
    x = _x(rng, *shape)
    _eq(ops.tile(Tensor(x), multiples), np.tile(x, multiples))
    _eq(ops.Tile()(Tensor(x), multiples), np.tile(x, multiples))


# -- slice / strided_slice -------------------------------------------------------------------------------------
def test_slice(rng):
    x = _x(rng, 4, 5, 6)
    X = Tensor(x)
    _eq(ops.slice(X, (1, 0, 2), (2, 5, 3)), x[1:3, 0:5, 2:5])
    _eq(ops.Slice()(X, (0, 2, 0), (-1, -1, 1)), x[:, 2:, 0:1])
    _eq(ops.slice(X, (4, 0, 0), (0, 5, 6)), x[4:4])


def test_strided_slice(rng):
    x = _x(rng, 4, 5, 6)
    X = Tensor(x)
    _eq(ops.strided_slice(X, (0, 1, 0), (4, 5, 6), (2, 2, 3)), x[0:4:2, 1:5:2, 0:6:3])
    _eq(ops.StridedSlice()(X, (3, 4, 0), (0, 0, 6), (-1, -2, 1)), x[3:0:-1, 4:0:-2, 0:6])
    # masks: begin_mask bit 0, end_mask bit 1, shrink_axis bit 2
    _eq(ops.StridedSlice(1, 2, 0, 0, 4)(X, (2, 1, 3), (3, 4, 4), (1, 1, 1)), x[:3, 1:, 3])
    # new_axis bit 0, ellipsis bit 1
    _eq(ops.StridedSlice(new_axis_mask=1, ellipsis_mask=2)(X, (0, 0, 1), (1, 1, 3), (1, 1, 1)), x[None, ..., 1:3])


# -- getitem -----------------------------------------------------------------------------------------------------
INDICES = [
    0, -1, 2, (1, 2), (-1, -2, 0), slice(1, 3), slice(None, None, -1), slice(3, 0, -2),
    (slice(None), 1), (Ellipsis, 0), (0, Ellipsis), (None, 1), (slice(None), None, slice(1, None)),
    (Ellipsis, None), (1, slice(None, None, -1), slice(None, None, 2)), (slice(-2, None), -1, slice(5, 1, -1)),
    [0, 2, 2], ([0, 1], slice(None), [1, 1]), (slice(None), [3, 0]), ([[0, 1], [2, 3]],),
    (0, [1, 2], [[0], [3]]), (slice(0, 0),), (np.int64(1), np.array([0, 2])), (None, Ellipsis, None),
]


@pytest.mark.parametrize("index", INDICES, ids=[repr(i)[:40] for i in INDICES])
def test_getitem_constant_indices(index, rng):
    x = _x(rng, 4, 5, 6)
    out = Tensor(x)[index]
    _eq(out, x[index])
    spec, tensors = split_index(index)
    hash(spec)
    assert not tensors
    # shape inference agrees (graph building uses it)
    av = REGISTRY["getitem"].infer(AVal(x.shape, float32), index=spec)
    assert av.shape == x[index].shape and av.dtype is float32


@pytest.mark.parametrize("index", [
    lambda t: t,
    lambda t: (slice(None), t),
    lambda t: (t, slice(1, None), t),
    lambda t: (Ellipsis, t),
    lambda t: (0, t),
    lambda t: (None, t, -1),
])
def test_getitem_int_tensor_indices(index, rng):
    x = _x(rng, 4, 5, 6)
    idx = np.array([[3, 0], [1, 1]], np.int32)
    out = Tensor(x)[index(Tensor(idx))]
    want = x[index(idx)]
    _eq(out, want)
    spec, tensors = split_index(index(Tensor(idx)))
    assert len(tensors) == sum(1 for s in spec if isinstance(s, tuple) and s[0] == "tensor")
    av = REGISTRY["getitem"].infer(AVal(x.shape, float32), *[AVal(t.shape, int32) for t in tensors], index=spec)
    assert av.shape == want.shape


def test_getitem_scalar_tensor_index_and_iteration(rng):
    x = _x(rng, 3, 2)
    X = Tensor(x)
    _eq(X[Tensor(np.int64(2))], x[2])
    rows = [r.asnumpy() for r in X]
    np.testing.assert_array_equal(np.stack(rows), x)
    assert X[1, 1].shape == () and X[1, 1].item() == x[1, 1]


def test_getitem_bool_mask_eager(rng):
    x = _x(rng, 3, 4)
    X = Tensor(x)
    _eq(X[X > 0], x[x > 0])
    m = np.array([True, False, True])
    _eq(X[Tensor(m)], x[m])
    _eq(X[[True, False, True]], x[[True, False, True]])
    _eq(X[:, Tensor(np.array([True, True, False, False]))], x[:, :2])


def test_getitem_bool_mask_infer_is_data_dependent():
    op = REGISTRY["getitem"]
    with pytest.raises(ValueError, match="boolean mask indexing has a data-dependent shape"):
        op.infer(AVal((3, 4), float32), AVal((3, 4), bool_), index=(("tensor", 0),))
    # a mask whose shape does not fit is reported as such
    with pytest.raises(ValueError, match="GetItem") as ei:
        op.infer(AVal((3, 4), float32), AVal((5,), bool_), index=(("tensor", 0),))
    assert "data-dependent" not in str(ei.value)
    # a constant bool list has a static shape
    assert op.infer(AVal((3, 4), float32), index=(("list", (True, False, True)),)).shape == (2, 4)


def test_getitem_ops_function_and_primitive(rng):
    x = _x(rng, 4, 5)
    _eq(ops.getitem(Tensor(x), index=(slice(1, None), 2)), x[1:, 2])
    _eq(ops.getitem(Tensor(x), Tensor(np.array([0, 3])), index=(("tensor", 0), ("slice", None, None, -1))),
        x[[0, 3], ::-1])
    _eq(ops.GetItem(index=(None, 0))(Tensor(x)), x[None, 0])


def test_getitem_int_tensor_x():
    x = Tensor(np.arange(12, dtype=np.int64).reshape(3, 4))
    out = x[1:, Tensor(np.array([0, 0, 3]))]
    assert out.dtype == ms.int64
    _eq(out, np.arange(12).reshape(3, 4)[1:, [0, 0, 3]])


def test_getitem_errors():
    x = Tensor(np.zeros((3, 4), f32))
    with pytest.raises(ValueError, match=r"GetItem.*\(3, 4\)") as ei:
        x[3]
    assert "test_shape_ops.py" in str(ei.value)
    with pytest.raises(ValueError, match="GetItem"):
        x[0, 0, 0]
    with pytest.raises(ValueError, match="GetItem"):
        x[Tensor(np.array([0, 5]))]
    with pytest.raises(TypeError, match="GetItem"):
        x[Tensor(np.array([0.0, 1.0], f32))]
    with pytest.raises(TypeError, match="GetItem"):
        x["a"]
    with pytest.raises(TypeError, match="GetItem"):
        x[1.5]


# -- gradients ---------------------------------------------------------------------------------------------------
def test_reshape_transpose_grads(rng):
    x = _x(rng, 2, 3, 2)
    check_grad(lambda t: ops.reshape(t, (3, -1)) * ops.reshape(t, (3, 4)), x)
    check_grad(lambda t: ops.transpose(t, (2, 0, 1)), x)
    check_grad(lambda t: t.T, x)
    check_grad(lambda t: ops.Reshape()(t, (4, 3)), x)


def test_broadcast_expand_squeeze_grads(rng):
    check_grad(lambda t: ops.broadcast_to(t, (2, 3, 4)), _x(rng, 3, 1))
    check_grad(lambda t: ops.broadcast_to(t, (2, 3)), _x(rng, 3))
    check_grad(lambda t: ops.expand_dims(t, 1), _x(rng, 3, 2))
    check_grad(lambda t: ops.squeeze(t), _x(rng, 1, 3, 1))
    check_grad(lambda t: ops.squeeze(t, 0), _x(rng, 1, 3, 1))


def test_concat_stack_split_grads(rng):
    a, b, c = _x(rng, 2, 3), _x(rng, 2, 1), _x(rng, 2, 2)
    check_grad(lambda x, y, z: ops.concat((x, y, z), 1), a, b, c)
    check_grad(lambda x, y: ops.concat((x, y), 0) * 2.0, a, a.copy())
    check_grad(lambda x, y: ops.stack((x, y), 1), a, a.copy())
    check_grad(lambda x, y: ops.stack((x, y), -1), a, a.copy())
    check_grad(lambda x: ops.split(x, 2, 1), _x(rng, 2, 4))
    check_grad(lambda x: ops.split(x, 2, 0), _x(rng, 2, 4))
    check_grad(lambda x: ops.split(x, (1, 3), axis=1), _x(rng, 2, 4))
    check_grad(lambda x: ops.Split(1, 2)(x), _x(rng, 2, 4))
    # only one part used: the other gets a zero cotangent
    check_grad(lambda x: ops.split(x, 2, 1)[1] * 3.0, _x(rng, 2, 4))


def test_concat_grad_to_int_input_is_none(rng):
    a = Tensor(_x(rng, 2, 2))
    b = Tensor(np.ones((2, 1), np.int32))
    ga = ms.grad(lambda x, y: ops.concat((x, y), 1).sum())(a, b)
    np.testing.assert_array_equal(ga.asnumpy(), np.ones((2, 2)))


@pytest.mark.parametrize("shape, multiples", [((2, 3), (2, 3)), ((3,), (2, 1, 2)), ((2, 3), (3,)),
                                              ((2, 1, 3), (1, 4, 2))])
def test_tile_grad(shape, multiples, rng):
    check_grad(lambda t: ops.tile(t, multiples), _x(rng, *shape))


def test_slice_grads(rng):
    x = _x(rng, 3, 4, 5)
    check_grad(lambda t: ops.slice(t, (1, 0, 2), (2, -1, 2)), x)
    check_grad(lambda t: ops.strided_slice(t, (2, 0, 4), (0, 4, 0), (-1, 2, -2)), x)
    check_grad(lambda t: ops.StridedSlice(shrink_axis_mask=1)(t, (1, 0, 0), (2, 4, 5), (1, 1, 1)), x)


@pytest.mark.parametrize("index", [
    0, (1, slice(None, None, -1)), (slice(None), None, 2), (Ellipsis, slice(1, 3)),
    [0, 0, 2], (slice(None), [1, 1, 3]), ([[0, 2], [2, 2]], [1, 0]), (-1, slice(3, 0, -2)),
])
def test_getitem_grad(index, rng):
    check_grad(lambda t: t[index], _x(rng, 3, 4))


def test_getitem_grad_int_tensor_repeats_accumulate(rng):
    idx = Tensor(np.array([2, 0, 2, 2], np.int32))
    check_grad(lambda t: t[idx], _x(rng, 3, 2))
    check_grad(lambda t: t[:, idx], _x(rng, 2, 3))
    g = ms.grad(lambda t: t[idx].sum())(Tensor(np.zeros((3, 2), f32)))
    _eq(g, [[1, 1], [0, 0], [3, 3]])


def test_getitem_grad_bool_mask(rng):
    x = _x(rng, 3, 4)
    m = Tensor(x > 0)
    check_grad(lambda t: t[m] * 2.0, x)


def test_getitem_second_derivative(rng):
    # d/dx of grad(sum(x[idx]**3)) = 6 x * count(idx) on the diagonal
    idx = Tensor(np.array([0, 2, 2], np.int32))
    x = np.array([0.5, -1.0, 1.5])
    g2 = ms.grad(ms.grad(lambda t: (t[idx] ** 3).sum()))(Tensor(x))
    np.testing.assert_allclose(g2.asnumpy(), 6 * x * np.array([1, 0, 2]))
    check_grad(lambda t: ms.grad(lambda u: (u[1:] ** 3).sum())(t), x)


# -- bad input ---------------------------------------------------------------------------------------------------
def test_reshape_wrong_size_names_op_and_shapes():
    x = Tensor(np.zeros((2, 3), f32))
    with pytest.raises(ValueError) as ei:
        ops.reshape(x, (4, 2))
    msg = str(ei.value)
    assert "Reshape" in msg and "(2, 3)" in msg and "(4, 2)" in msg
    with pytest.raises(ValueError, match=r"Reshape.*\(2, 3\).*\(4, -1\)"):
        x.reshape(4, -1)
    with pytest.raises(ValueError, match="at most one -1"):
        x.reshape(-1, -1)
    with pytest.raises(ValueError, match="negative"):
        x.reshape(-2, -3)


def test_layout_op_errors():
    x = Tensor(np.zeros((2, 3), f32))
    with pytest.raises(ValueError, match="Transpose.*perm"):
        ops.transpose(x, (0, 0))
    with pytest.raises(ValueError, match="Transpose.*perm"):
        ops.transpose(x, (0, 2))
    with pytest.raises(ValueError, match="Transpose.*perm"):
        ops.transpose(x, (0,))
    with pytest.raises(ValueError, match=r"BroadcastTo.*\(2, 3\).*\(2, 4\)"):
        ops.broadcast_to(x, (2, 4))
    with pytest.raises(ValueError, match="ExpandDims.*axis 3 is out of range"):
        ops.expand_dims(x, 3)
    with pytest.raises(ValueError, match="Squeeze.*axis 0 of size 2"):
        ops.squeeze(x, 0)
    with pytest.raises(ValueError, match=r"Concat.*\(2, 3\).*\(3, 3\)"):
        ops.concat((x, Tensor(np.zeros((3, 3), f32))), 1)
    with pytest.raises(ValueError, match="Concat.*axis 2 is out of range"):
        ops.concat((x, x), 2)
    with pytest.raises(ValueError, match="Concat.*at least one"):
        ops.concat(())
    with pytest.raises(ValueError, match="Stack.*same shape"):
        ops.stack((x, Tensor(np.zeros((3, 2), f32))))
    with pytest.raises(ValueError, match=r"Split.*\(2, 3\).*2 equal parts"):
        ops.Split(1, 2)(x)
    with pytest.raises(ValueError, match="Split.*sizes"):
        ops.split(x, (1, 1), 1)
    with pytest.raises(ValueError, match="Split.*output_num"):
        ops.Split(1, 0)(x)
    with pytest.raises(ValueError, match="Split.*positive"):
        ops.split(x, 0, 1)
    with pytest.raises(ValueError, match="Split.*axis 2 is out of range"):
        ops.split(x, 1, 2)
    with pytest.raises(TypeError, match="Split.*split_size_or_sections"):
        ops.split(x, 1.5)
    with pytest.raises(ValueError, match="Tile.*non-negative"):
        ops.tile(x, (1, -1))
    with pytest.raises(ValueError, match=r"Slice.*\(2, 3\)"):
        ops.slice(x, (1, 1), (2, 1))
    with pytest.raises(ValueError, match="Slice.*one entry per axis"):
        ops.slice(x, (0,), (1,))
    with pytest.raises(ValueError, match="StridedSlice.*non-zero"):
        ops.strided_slice(x, (0, 0), (2, 3), (1, 0))
    with pytest.raises(TypeError, match="Reshape.*shape"):
        ops.reshape(x, (2, "3"))
    with pytest.raises(TypeError, match="Tile"):
        ops.tile(x, 1.5)


def test_graph_building_infers(rng):
    """infer rules on abstract values (what graph building calls)."""
    R = REGISTRY
    a = AVal((2, 3), float32)
    assert R["concat"].infer(a, AVal((2, 5), int32), axis=1) == AVal((2, 8), float32)
    assert R["stack"].infer(a, a, a, axis=-1) == AVal((2, 3, 3), float32)
    assert R["split"].infer(AVal((4, 6), int64), axis=1, output_num=2, sizes=None) == \
        (AVal((4, 3), int64), AVal((4, 3), int64))
    assert R["tile"].infer(a, multiples=(2, 1, 2)) == AVal((2, 2, 6), float32)
    assert R["getitem_grad"].infer(AVal((2,), float32), index=(1, ("slice", 0, 2, None)), shape=(2, 3)) == a
    with pytest.raises(ValueError, match="GetItemGrad"):
        R["getitem_grad"].infer(AVal((3,), float32), index=(1,), shape=(2, 4))
