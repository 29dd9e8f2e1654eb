"""The most used functional ``ops.*`` and Tensor methods against numpy oracles written from
MindSpore 2.x's API reference (signatures, defaults, result dtypes, keepdims, negative axes,
int/float promotion, empty tensors, and errors that name the op).

Each oracle follows the documented description, not this implementation: e.g. ``ops.max`` with
``axis=None`` documents index 0 and ignores ``keepdims``; ``ops.full((2, 2), 1)`` documents a float
result; ``ops.clamp`` documents the input's dtype; ``ops.norm``'s table gives matrix norms for
``ord`` 1/inf on 2-D input. The ops changed by this audit also run under ``ms.jit`` and GRAPH_MODE.
"""
import math
import os

import numpy as np
import pytest

import runtime as ms
from modes import MODES, run_fn as run
from runtime import Tensor, ops

RNG = np.random.default_rng(0)
X = RNG.standard_normal((3, 4)).astype(np.float32)
XI = np.arange(12, dtype=np.int32).reshape(3, 4) - 5


def _np(t):
    return t.asnumpy() if isinstance(t, Tensor) else np.asarray(t)


def _check(got, want, dtype, rtol=1e-5, atol=1e-6):
    assert isinstance(got, Tensor), type(got)
    assert got.dtype == dtype, (got.dtype, dtype)
    want = np.asarray(want)
    assert tuple(got.shape) == want.shape, (got.shape, want.shape)
    np.testing.assert_allclose(_np(got).astype(np.float64), want.astype(np.float64), rtol=rtol, atol=atol)


# -- reductions ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("axis,keep", [(None, False), (1, False), (-1, True), ((0, 1), False), ((0, -1), True)])
def test_sum_mean_prod_axes_and_keepdims(axis, keep):
    t = Tensor(X)
    _check(ops.sum(t, axis, keep), X.sum(axis=axis, keepdims=keep), ms.float32)
    _check(ops.sum(t, dim=axis, keepdim=keep), X.sum(axis=axis, keepdims=keep), ms.float32)
    _check(ops.mean(t, axis, keep), X.mean(axis=axis, keepdims=keep), ms.float32)
    _check(ops.prod(t, axis, keep), X.prod(axis=axis, keepdims=keep), ms.float32)
    _check(t.sum(axis, keepdims=keep), X.sum(axis=axis, keepdims=keep), ms.float32)
    _check(t.mean(axis, keep), X.mean(axis=axis, keepdims=keep), ms.float32)


def test_sum_keeps_int_dtype_and_takes_dtype():
    _check(ops.sum(Tensor(XI)), XI.sum(), ms.int32)
    _check(ops.sum(Tensor(XI), 1, dtype=ms.float32), XI.sum(1).astype(np.float32), ms.float32)
    _check(Tensor(XI).sum(0, ms.int64), XI.sum(0), ms.int64)
    _check(ops.prod(Tensor(XI), 0), XI.prod(0), ms.int32)


def test_reductions_of_empty_tensors():
    e = Tensor(np.zeros((0, 3), np.float32))
    _check(ops.sum(e), np.float32(0), ms.float32)
    _check(ops.sum(e, 0), np.zeros(3), ms.float32)
    _check(ops.prod(e, 0), np.ones(3), ms.float32)
    with pytest.raises(ValueError, match="ReduceMax"):
        ops.amax(e)


def test_max_min_return_values_and_indices():
    t = Tensor(X)
    v, i = ops.max(t, 1)
    _check(v, X.max(1), ms.float32)
    _check(i, X.argmax(1), ms.int64)
    v, i = ops.min(t, -2, keepdims=True)
    _check(v, X.min(0, keepdims=True), ms.float32)
    _check(i, X.argmin(0)[None], ms.int64)


def test_max_min_with_axis_none_give_index_zero_and_ignore_keepdims():
    # documented: "When axis is None, keepdims and the following arguments have no effect, and the
    # index is fixed to 0"
    t = Tensor(X)
    for fn, ref in ((ops.max, X.max()), (ops.min, X.min())):
        for keep in (False, True):
            v, i = fn(t, None, keep)
            _check(v, ref, ms.float32)
            _check(i, np.int64(0), ms.int64)


def test_tensor_max_min_values_indices_and_tuple_axis():
    t = Tensor(X)
    _check(t.max(), X.max(), ms.float32)
    _check(t.max(1), X.max(1), ms.float32)
    v, i = t.max(axis=0, return_indices=True)
    _check(v, X.max(0), ms.float32)
    _check(i, X.argmax(0), ms.int64)
    _check(t.min(1, keepdims=True), X.min(1, keepdims=True), ms.float32)
    _check(t.max((0, 1)), X.max(), ms.float32)  # several axes: the reduce_max path
    _check(t.min([0, 1], keepdims=True), X.min(keepdims=True), ms.float32)


@pytest.mark.parametrize("axis,keep", [(None, False), (1, True), (-1, False), (0, True)])
def test_argmax_argmin(axis, keep):
    t = Tensor(X)
    want_max = np.argmax(X, axis=axis, keepdims=keep)
    _check(ops.argmax(t, axis, keep), want_max, ms.int64)
    _check(ops.argmin(t, axis, keep), np.argmin(X, axis=axis, keepdims=keep), ms.int64)
    _check(t.argmax(axis, keep), want_max, ms.int64)
    with pytest.raises(ValueError, match="Argmax"):
        ops.argmax(t, 2)


@pytest.mark.parametrize("ddof", [0, 1, True, False])
@pytest.mark.parametrize("axis,keep", [(None, False), (1, True), ((0, 1), False), (-2, False)])
def test_std_var(ddof, axis, keep):
    t = Tensor(X)
    _check(ops.var(t, axis, ddof, keep), X.var(axis=axis, ddof=int(ddof), keepdims=keep), ms.float32, 1e-5, 1e-5)
    _check(ops.std(t, axis, ddof, keep), X.std(axis=axis, ddof=int(ddof), keepdims=keep), ms.float32, 1e-5, 1e-5)
    _check(t.std(axis, ddof, keep), X.std(axis=axis, ddof=int(ddof), keepdims=keep), ms.float32, 1e-5, 1e-5)


def test_logsumexp_and_cumsum():
    t = Tensor(X)
    ref = np.log(np.exp(X.astype(np.float64)).sum(1, keepdims=True))
    _check(ops.logsumexp(t, 1, True), ref, ms.float32)
    _check(ops.logsumexp(Tensor(np.array([1000.0, 1000.0], np.float32)), 0), 1000.0 + math.log(2), ms.float32)
    _check(ops.cumsum(t, -1), X.cumsum(-1), ms.float32)
    _check(ops.cumsum(Tensor(XI), 0), XI.cumsum(0), ms.int32)
    _check(ops.cumsum(t, 0, ms.float64), X.astype(np.float64).cumsum(0), ms.float64)
    _check(Tensor(XI).cumsum(), XI.ravel().cumsum(), ms.int32)  # axis=None: the flattened tensor


# -- ops.norm: MindSpore's table ---------------------------------------------------------------------------
def test_norm_vector_orders():
    v = np.array([3.0, -4.0, 0.0, 12.0], np.float32)
    t = Tensor(v)
    _check(ops.norm(t), 13.0, ms.float32)
    _check(ops.norm(t, 1), 19.0, ms.float32)
    _check(ops.norm(t, 0), 3.0, ms.float32)  # number of non-zeros
    _check(ops.norm(t, float("inf")), 12.0, ms.float32)
    _check(ops.norm(t, float("-inf")), 0.0, ms.float32)
    _check(ops.norm(t, 3), (np.abs(v.astype(np.float64)) ** 3).sum() ** (1 / 3), ms.float32)
    with pytest.raises(ValueError, match="ops.norm"):
        ops.norm(t, "fro")


def test_norm_matrix_orders_when_dim_is_none_on_2d():
    t = Tensor(X)
    a = np.abs(X.astype(np.float64))
    _check(ops.norm(t), np.sqrt((X.astype(np.float64) ** 2).sum()), ms.float32)
    _check(ops.norm(t, "fro"), np.linalg.norm(X, "fro"), ms.float32)
    _check(ops.norm(t, 1), a.sum(0).max(), ms.float32)      # max column sum
    _check(ops.norm(t, -1), a.sum(0).min(), ms.float32)
    _check(ops.norm(t, float("inf")), a.sum(1).max(), ms.float32)  # max row sum
    _check(ops.norm(t, float("-inf")), a.sum(1).min(), ms.float32)
    with pytest.raises(ValueError, match="ops.norm"):
        ops.norm(t, 2)  # largest singular value: refused, never a silent Frobenius norm
    with pytest.raises(ValueError, match="ops.norm"):
        ops.norm(Tensor(np.ones((2, 2, 2), np.float32)), 1)  # dim=None with ord needs 1-D or 2-D


def test_norm_with_dim_and_keepdim():
    x3 = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    t = Tensor(x3)
    _check(ops.norm(t, dim=-1), np.linalg.norm(x3, axis=-1), ms.float32)
    _check(ops.norm(t, 1, 1, True), np.abs(x3).sum(1, keepdims=True), ms.float32)
    _check(ops.norm(t, None, (1, 2)), np.linalg.norm(x3, axis=(1, 2)), ms.float32)
    _check(ops.norm(t, 1, (1, 2), True), np.linalg.norm(x3, 1, axis=(1, 2), keepdims=True), ms.float32)
    _check(ops.norm(t, float("inf"), (-2, -1)), np.linalg.norm(x3, np.inf, axis=(1, 2)), ms.float32)
    _check(t.norm(dim=0), np.linalg.norm(x3, axis=0), ms.float32)


# -- shape ops -------------------------------------------------------------------------------------------
def test_reshape_transpose_permute_view():
    t = Tensor(X)
    _check(ops.reshape(t, (2, -1)), X.reshape(2, -1), ms.float32)
    _check(ops.transpose(t, (1, 0)), X.T, ms.float32)
    _check(ops.permute(t, (-1, 0)), X.T, ms.float32)
    _check(t.view(4, 3), X.reshape(4, 3), ms.float32)
    _check(t.view((-1,)), X.ravel(), ms.float32)
    _check(t.T, X.T, ms.float32)
    with pytest.raises(ValueError, match="Reshape"):
        ops.reshape(t, (5, -1))
    with pytest.raises(ValueError, match="Transpose"):
        ops.transpose(t, (1, 0, 2))


def test_squeeze_unsqueeze_expand_dims_flatten():
    a = np.zeros((1, 3, 1, 2), np.float32)
    t = Tensor(a)
    _check(ops.squeeze(t), a.squeeze(), ms.float32)
    _check(ops.squeeze(t, 2), a.squeeze(2), ms.float32)
    _check(ops.squeeze(t, (0, -2)), a.squeeze((0, 2)), ms.float32)
    with pytest.raises(ValueError, match="Squeeze"):
        ops.squeeze(t, 1)
    _check(ops.unsqueeze(Tensor(X), -1), X[..., None], ms.float32)
    _check(ops.expand_dims(Tensor(X), 0), X[None], ms.float32)
    x4 = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    _check(ops.flatten(Tensor(x4)), x4.reshape(2, -1), ms.float32)  # keeps the batch axis
    _check(ops.flatten(Tensor(x4), start_dim=0, end_dim=1), x4.reshape(6, 4), ms.float32)
    _check(Tensor(x4).flatten(), x4.ravel(), ms.float32)             # Tensor.flatten: all axes


def test_concat_cat_stack_split_chunk():
    t = Tensor(X)
    _check(ops.concat((t, t), -1), np.concatenate([X, X], -1), ms.float32)
    _check(ops.cat([t, t]), np.concatenate([X, X]), ms.float32)
    _check(ops.stack([t, t], -1), np.stack([X, X], -1), ms.float32)
    parts = ops.split(t, 3, 1)
    assert [p.shape for p in parts] == [(3, 3), (3, 1)]
    _check(parts[1], X[:, 3:], ms.float32)
    parts = ops.split(t, [1, 2], 0)
    _check(parts[1], X[1:], ms.float32)
    chunks = ops.chunk(Tensor(np.arange(5.0, dtype=np.float32)), 3)
    assert [c.shape for c in chunks] == [(2,), (2,), (1,)]
    with pytest.raises(ValueError, match="Concat"):
        ops.concat((t, Tensor(np.zeros((3, 2), np.float32))), 0)
    with pytest.raises(ValueError, match="Split"):
        ops.split(t, [1, 1], 1)


def test_tile_broadcast_to():
    t = Tensor(X)
    _check(ops.tile(t, (2, 1)), np.tile(X, (2, 1)), ms.float32)
    _check(ops.tile(t, (2,)), np.tile(X, (2,)), ms.float32)        # multiples padded with leading 1s
    _check(ops.tile(t, (2, 1, 1)), np.tile(X, (2, 1, 1)), ms.float32)
    _check(ops.broadcast_to(t, (2, 3, 4)), np.broadcast_to(X, (2, 3, 4)), ms.float32)
    _check(ops.broadcast_to(Tensor(X[:1]), (-1, 4)), X[:1], ms.float32)  # -1 keeps the size


def test_gather_index_select_gather_elements():
    t = Tensor(X)
    idx = np.array([2, 0, -1])
    _check(ops.gather(t, Tensor(idx), 1), X[:, idx], ms.float32)
    _check(ops.index_select(t, 1, Tensor(np.array([3, 0], np.int32))), X[:, [3, 0]], ms.float32)
    _check(ops.index_select(t, -2, Tensor(np.array([2, 2], np.int64))), X[[2, 2]], ms.float32)
    with pytest.raises(ValueError, match="index_select"):
        ops.index_select(t, 0, Tensor(np.array([[0]], np.int32)))
    index = np.array([[0, 0], [1, 3], [2, 1]])
    _check(ops.gather_elements(t, 1, Tensor(index)), np.take_along_axis(X, index, 1), ms.float32)
    with pytest.raises(ValueError, match="Gather"):
        ops.gather(t, Tensor(np.array([4])), 1)


def test_masked_fill_and_where():
    t, ti = Tensor(X), Tensor(XI)
    _check(ops.masked_fill(t, t > 0, 0.5), np.where(X > 0, 0.5, X), ms.float32)
    _check(ops.masked_fill(ti, ti > 0, 9), np.where(XI > 0, 9, XI), ms.int32)
    _check(t.masked_fill(Tensor(X < 0), Tensor(np.float32(-1.0))), np.where(X < 0, -1.0, X), ms.float32)
    _check(ops.where(t > 0, t, 0.0), np.where(X > 0, X, 0.0), ms.float32)
    _check(ops.where(ti > 0, ti, Tensor(np.zeros(4, np.int32))), np.where(XI > 0, XI, 0), ms.int32)


def test_scatter_documented_examples():
    # the three examples of mindspore.ops.scatter
    src = Tensor(np.array([[8, 8]], np.float32))
    out = ops.scatter(Tensor(np.array([[1, 2, 3, 4, 5]], np.float32)), 1, Tensor(np.array([[2, 4]], np.int64)), src)
    _check(out, [[1, 2, 8, 4, 8]], ms.float32)
    src = Tensor(np.arange(1, 10, dtype=np.float32).reshape(3, 3))
    zeros = Tensor(np.zeros((5, 5), np.float32))
    want0 = np.zeros((5, 5), np.float32)
    want0[[0, 2, 4], :3] = np.arange(1, 10).reshape(3, 3)
    _check(ops.scatter(zeros, 0, Tensor(np.array([[0, 0, 0], [2, 2, 2], [4, 4, 4]], np.int64)), src), want0,
           ms.float32)
    want1 = np.zeros((5, 5), np.float32)
    want1[:3, [0, 2, 4]] = np.arange(1, 10).reshape(3, 3)
    _check(ops.scatter(zeros, -1, Tensor(np.array([[0, 2, 4]] * 3, np.int32)), src), want1, ms.float32)
    _check(zeros, np.zeros((5, 5)), ms.float32)  # the input is not changed
    with pytest.raises(ValueError, match="scatter"):
        ops.scatter(zeros, 0, Tensor(np.array([[0, 1]], np.int64)), src)
    with pytest.raises(TypeError, match="scatter"):
        ops.scatter(zeros, 0, Tensor(np.array([[0.0]], np.float32)), Tensor(np.ones((1, 1), np.float32)))


def test_one_hot_topk_sort():
    idx = Tensor(np.array([0, 2, 5]))
    want = np.eye(3, dtype=np.float32)[[0, 2]]
    _check(ops.one_hot(idx, 3, Tensor(1.0), Tensor(0.0)), np.vstack([want, np.zeros((1, 3))]), ms.float32)
    t = Tensor(X)
    v, i = ops.topk(t, 2)
    order = np.argsort(-X, axis=-1, kind="stable")[:, :2]
    _check(v, np.take_along_axis(X, order, -1), ms.float32)
    _check(i, order, ms.int32)
    v, i = ops.topk(t, 1, dim=0, largest=False)
    _check(v, X.min(0, keepdims=True), ms.float32)
    v, i = ops.sort(t, 0, descending=True)
    _check(v, -np.sort(-X, 0), ms.float32)
    _check(i, np.argsort(-X, 0, kind="stable"), ms.int32)


# -- math ------------------------------------------------------------------------------------------------
def test_matmul_bmm():
    a = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    b = RNG.standard_normal((2, 4, 5)).astype(np.float32)
    _check(ops.matmul(Tensor(a), Tensor(b)), a @ b, ms.float32, 1e-5, 1e-5)
    _check(ops.bmm(Tensor(a), Tensor(b)), a @ b, ms.float32, 1e-5, 1e-5)
    _check(ops.matmul(Tensor(a[0, 0]), Tensor(b[0, :, 0])), a[0, 0] @ b[0, :, 0], ms.float32, 1e-5, 1e-5)
    _check(ops.matmul(Tensor(XI), Tensor(XI.T)), XI @ XI.T, ms.int32)
    with pytest.raises(ValueError, match="MatMul"):
        ops.matmul(Tensor(X), Tensor(X))
    with pytest.raises(ValueError, match="bmm"):
        ops.bmm(Tensor(X), Tensor(X.T))


def test_clamp_clip_keep_the_input_dtype_and_need_a_bound():
    t, ti = Tensor(X), Tensor(XI)
    _check(ops.clamp(t, -0.5, 0.5), np.clip(X, -0.5, 0.5), ms.float32)
    _check(ops.clamp(t, max=0.0), np.minimum(X, 0.0), ms.float32)
    _check(ops.clip(t, Tensor(np.float32(-0.1)), Tensor(np.float32(0.1))), np.clip(X, -0.1, 0.1), ms.float32)
    # documented: "the shape and data type are the same as input"
    _check(ops.clamp(ti, -1.5, 3.7), np.clip(XI, -1.5, 3.7).astype(np.int32), ms.int32)
    _check(ti.clamp(0, 2), np.clip(XI, 0, 2), ms.int32)
    _check(ops.clamp(t, 1.0, -1.0), np.full_like(X, -1.0), ms.float32)  # min > max: all max
    with pytest.raises(ValueError, match="clamp"):
        ops.clamp(t)
    _check(t.clip(-0.2, 0.2), np.clip(X, -0.2, 0.2), ms.float32)


def test_unary_math_and_int_promotion():
    pos = np.abs(X) + 0.5
    t, tp, ti = Tensor(X), Tensor(pos), Tensor(XI)
    _check(ops.pow(tp, 2.0), pos ** 2, ms.float32)
    _check(ops.pow(ti, 2), XI ** 2, ms.int32)
    _check(ops.pow(Tensor(np.abs(XI)), 0.5), np.power(np.abs(XI).astype(np.float32), 0.5), ms.float32)
    _check(ops.sqrt(tp), np.sqrt(pos), ms.float32)
    _check(ops.rsqrt(tp), 1 / np.sqrt(pos), ms.float32)
    _check(ops.exp(t), np.exp(X), ms.float32)
    _check(ops.log(tp), np.log(pos), ms.float32)
    _check(ops.abs(ti), np.abs(XI), ms.int32)
    _check(ops.sign(t), np.sign(X), ms.float32)
    _check(ops.sign(ti), np.sign(XI), ms.int32)
    _check(ops.floor(t), np.floor(X), ms.float32)
    _check(ops.ceil(t), np.ceil(X), ms.float32)
    _check(ops.maximum(ti, 2.5), np.maximum(XI, 2.5), ms.float32)
    _check(ops.minimum(t, Tensor(X[:1])), np.minimum(X, X[:1]), ms.float32)
    with pytest.raises(ValueError, match="Add"):
        ops.add(t, Tensor(np.zeros((4, 3), np.float32)))


def test_round_half_to_even_and_int_input():
    v = np.array([0.5, 1.5, 2.5, -0.5, -1.5, 2.4, -2.6], np.float32)
    _check(ops.round(Tensor(v)), np.round(v), ms.float32)
    _check(ops.round(Tensor(XI)), XI, ms.int32)  # MindSpore's Round accepts int tensors
    _check(Tensor(v).round(), np.round(v), ms.float32)


def test_isclose_equal_ne_logical():
    a = np.array([1.0, np.inf, -np.inf, np.nan, 1.0], np.float32)
    b = np.array([1.0 + 1e-7, np.inf, np.inf, np.nan, 1.1], np.float32)
    _check(ops.isclose(Tensor(a), Tensor(b)), np.isclose(a, b), ms.bool_)
    _check(ops.isclose(Tensor(a), Tensor(b), equal_nan=True), np.isclose(a, b, equal_nan=True), ms.bool_)
    _check(ops.isclose(Tensor(a), Tensor(b), 0.2, 0.0), np.isclose(a, b, 0.2, 0.0), ms.bool_)
    t, ti = Tensor(X), Tensor(XI)
    _check(ops.equal(ti, 2), XI == 2, ms.bool_)
    _check(ops.ne(t, Tensor(X[:1])), X != X[:1], ms.bool_)
    _check(ops.logical_and(t > 0, ti > 0), (X > 0) & (XI > 0), ms.bool_)
    _check(ops.logical_or(t > 0, ti > 0), (X > 0) | (XI > 0), ms.bool_)
    _check(ops.logical_not(t > 0), ~(X > 0), ms.bool_)
    _check(ops.logical_xor(t > 0, ti > 0), (X > 0) ^ (XI > 0), ms.bool_)
    _check(ops.logical_xor(Tensor(np.array([True, False])), Tensor(np.array([[True], [False]]))),
           np.logical_xor([True, False], [[True], [False]]), ms.bool_)


# -- nn functional ------------------------------------------------------------------------------------------
def _sigmoid(v):
    return 1 / (1 + np.exp(-v.astype(np.float64)))


def test_activations():
    t = Tensor(X)
    x64 = X.astype(np.float64)
    _check(ops.relu(t), np.maximum(X, 0), ms.float32)
    _check(ops.relu(Tensor(XI)), np.maximum(XI, 0), ms.int32)
    erf = np.vectorize(math.erf)
    _check(ops.gelu(t), 0.5 * x64 * (1 + erf(x64 / math.sqrt(2))), ms.float32, 1e-5, 1e-6)
    tanh_form = 0.5 * x64 * (1 + np.tanh(math.sqrt(2 / math.pi) * (x64 + 0.044715 * x64 ** 3)))
    _check(ops.gelu(t, approximate="tanh"), tanh_form, ms.float32, 1e-5, 1e-6)
    _check(ops.silu(t), x64 * _sigmoid(X), ms.float32)
    _check(ops.sigmoid(t), _sigmoid(X), ms.float32)
    e = np.exp(x64 - x64.max(0, keepdims=True))
    _check(ops.softmax(t, 0), e / e.sum(0, keepdims=True), ms.float32)
    _check(ops.softmax(t), np.exp(x64) / np.exp(x64).sum(-1, keepdims=True), ms.float32)
    _check(ops.log_softmax(t), x64 - np.log(np.exp(x64).sum(-1, keepdims=True)), ms.float32)


def test_dropout():
    t = Tensor(np.ones((200, 100), np.float32))
    _check(ops.dropout(t, 0.5, training=False), np.ones((200, 100)), ms.float32)
    ms.set_seed(1)
    y = _np(ops.dropout(t, p=0.25))
    kept = y[y != 0]
    np.testing.assert_allclose(kept, 1 / 0.75, rtol=1e-6)  # kept elements scaled by 1 / (1 - p)
    assert 0.70 < (y != 0).mean() < 0.80
    with pytest.raises(ValueError, match="dropout"):
        ops.dropout(t, 1.5)


def _log_softmax(v):
    v = v.astype(np.float64)
    return v - np.log(np.exp(v).sum(-1, keepdims=True))


def test_cross_entropy_and_nll_loss():
    logits = RNG.standard_normal((4, 5)).astype(np.float32)
    target = np.array([1, 0, 4, 2], np.int32)
    lp = _log_softmax(logits)
    per = -lp[np.arange(4), target]
    _check(ops.cross_entropy(Tensor(logits), Tensor(target)), per.mean(), ms.float32)
    _check(ops.cross_entropy(Tensor(logits), Tensor(target), reduction="none"), per, ms.float32)
    _check(ops.cross_entropy(Tensor(logits), Tensor(target), reduction="sum"), per.sum(), ms.float32)
    ignored = np.array([1, -100, 4, 2], np.int32)
    _check(ops.cross_entropy(Tensor(logits), Tensor(ignored)), per[[0, 2, 3]].mean(), ms.float32)
    w = np.array([1.0, 2.0, 0.5, 1.0, 3.0], np.float32)
    wt = w[target]
    _check(ops.cross_entropy(Tensor(logits), Tensor(target), Tensor(w)), (per * wt).sum() / wt.sum(), ms.float32)
    smooth = 0.1
    smoothed = (1 - smooth) * per + smooth * (-lp.mean(-1))
    _check(ops.cross_entropy(Tensor(logits), Tensor(target), label_smoothing=smooth), smoothed.mean(), ms.float32)
    probs = np.exp(_log_softmax(RNG.standard_normal((4, 5)).astype(np.float32))).astype(np.float32)
    _check(ops.cross_entropy(Tensor(logits), Tensor(probs)), (-(probs * lp).sum(-1)).mean(), ms.float32)
    _check(ops.nll_loss(Tensor(lp.astype(np.float32)), Tensor(target)), per.mean(), ms.float32)
    _check(ops.nll_loss(Tensor(lp.astype(np.float32)), Tensor(target), reduction="none"), per, ms.float32)


def test_regression_losses():
    a = RNG.standard_normal((3, 4)).astype(np.float32)
    b = RNG.standard_normal((4,)).astype(np.float32)
    d = a.astype(np.float64) - b
    _check(ops.mse_loss(Tensor(a), Tensor(b)), (d ** 2).mean(), ms.float32)   # broadcast target
    _check(ops.mse_loss(Tensor(a), Tensor(b), "sum"), (d ** 2).sum(), ms.float32)
    _check(ops.mse_loss(Tensor(a), Tensor(b), "none"), d ** 2, ms.float32)
    _check(ops.l1_loss(Tensor(a), Tensor(np.zeros_like(a))), np.abs(a).mean(), ms.float32)
    _check(ops.l1_loss(Tensor(a), Tensor(np.zeros_like(a)), "none"), np.abs(a), ms.float32)
    with pytest.raises(ValueError, match="mse_loss"):
        ops.mse_loss(Tensor(a), Tensor(a), "bad")


def test_binary_cross_entropy_with_logits():
    x = RNG.standard_normal((3, 4)).astype(np.float32)
    y = (RNG.random((3, 4)) > 0.5).astype(np.float32)
    w = RNG.random(4).astype(np.float32)
    pw = np.array([1.0, 2.0, 0.5, 3.0], np.float32)
    s = _sigmoid(x)
    plain = -(y * np.log(s) + (1 - y) * np.log(1 - s))
    _check(ops.binary_cross_entropy_with_logits(Tensor(x), Tensor(y)), plain.mean(), ms.float32)
    _check(ops.binary_cross_entropy_with_logits(Tensor(x), Tensor(y), reduction="none"), plain, ms.float32)
    full = -w * (pw * y * np.log(s) + (1 - y) * np.log(1 - s))
    _check(ops.binary_cross_entropy_with_logits(Tensor(x), Tensor(y), Tensor(w), Tensor(pw), "sum"), full.sum(),
           ms.float32, 1e-5, 1e-5)


def test_pad():
    t = Tensor(X)
    _check(ops.pad(t, (1, 2)), np.pad(X, ((0, 0), (1, 2))), ms.float32)
    _check(ops.pad(t, (1, 0, 0, 1), value=2.0), np.pad(X, ((0, 1), (1, 0)), constant_values=2.0), ms.float32)
    _check(ops.pad(t, (2, 1), mode="reflect"), np.pad(X, ((0, 0), (2, 1)), mode="reflect"), ms.float32)
    _check(ops.pad(t, (1, 1, 1, 1), mode="replicate"), np.pad(X, 1, mode="edge"), ms.float32)
    _check(ops.pad(t, (-1, 0)), X[:, 1:], ms.float32)  # negative amounts crop


def _pool_windows(x, k, s):
    n, c, h, w = x.shape
    ho, wo = (h - k) // s + 1, (w - k) // s + 1
    return np.stack([[x[:, :, i * s:i * s + k, j * s:j * s + k] for j in range(wo)] for i in range(ho)])


def test_pooling():
    img = RNG.standard_normal((2, 3, 5, 6)).astype(np.float32)
    win = _pool_windows(img, 2, 2)  # (ho, wo, n, c, k, k)
    _check(ops.max_pool2d(Tensor(img), 2), win.max((-1, -2)).transpose(2, 3, 0, 1), ms.float32)  # stride=k
    # avg_pool2d's documented defaults: kernel_size=1, stride=1
    win1 = _pool_windows(img, 2, 1)
    _check(ops.avg_pool2d(Tensor(img), 2), win1.mean((-1, -2)).transpose(2, 3, 0, 1), ms.float32)
    _check(ops.avg_pool2d(Tensor(img), 2, 2), win.mean((-1, -2)).transpose(2, 3, 0, 1), ms.float32)
    padded = np.pad(img, ((0, 0), (0, 0), (1, 1), (1, 1)), constant_values=-np.inf)
    _check(ops.max_pool2d(Tensor(img), 3, 1, 1), _pool_windows(padded, 3, 1).max((-1, -2)).transpose(2, 3, 0, 1),
           ms.float32)


def _conv2d(x, w, stride=1, pad=0):
    x = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    ho, wo = (h - kh) // stride + 1, (wd - kw) // stride + 1
    out = np.zeros((n, o, ho, wo))
    for i in range(ho):
        for j in range(wo):
            patch = x[:, :, i * stride:i * stride + kh, j * stride:j * stride + kw]
            out[:, :, i, j] = np.einsum("nchw,ochw->no", patch, w)
    return out


def test_conv2d():
    img = RNG.standard_normal((2, 3, 6, 6)).astype(np.float32)
    w = RNG.standard_normal((4, 3, 3, 3)).astype(np.float32)
    b = RNG.standard_normal(4).astype(np.float32)
    _check(ops.conv2d(Tensor(img), Tensor(w)), _conv2d(img, w), ms.float32, 1e-4, 1e-4)  # pad_mode='valid'
    _check(ops.conv2d(Tensor(img), Tensor(w), Tensor(b), 2, "pad", 1),
           _conv2d(img, w, 2, 1) + b[None, :, None, None], ms.float32, 1e-4, 1e-4)
    _check(ops.conv2d(Tensor(img), Tensor(w), pad_mode="same"), _conv2d(img, w, 1, 1), ms.float32, 1e-4, 1e-4)


def test_layer_norm_and_batch_norm():
    x = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    x64 = x.astype(np.float64)
    m, v = x64.mean((1, 2), keepdims=True), x64.var((1, 2), keepdims=True)
    g = RNG.standard_normal((3, 4)).astype(np.float32)
    _check(ops.layer_norm(Tensor(x), (3, 4), Tensor(g), None, 1e-5), (x64 - m) / np.sqrt(v + 1e-5) * g,
           ms.float32, 1e-4, 1e-5)
    m, v = x64.mean(-1, keepdims=True), x64.var(-1, keepdims=True)
    _check(ops.layer_norm(Tensor(x), 4), (x64 - m) / np.sqrt(v + 1e-5), ms.float32, 1e-4, 1e-5)
    img = RNG.standard_normal((4, 2, 3, 3)).astype(np.float32)
    rm, rv = np.array([0.1, -0.2], np.float32), np.array([1.5, 0.5], np.float32)
    wt, bs = np.array([2.0, 0.5], np.float32), np.array([0.0, 1.0], np.float32)
    c = (None, slice(None), None, None)
    infer = (img - rm[c]) / np.sqrt(rv[c] + 1e-5) * wt[c] + bs[c]
    _check(ops.batch_norm(Tensor(img), Tensor(rm), Tensor(rv), Tensor(wt), Tensor(bs)), infer, ms.float32,
           1e-5, 1e-5)
    running_mean, running_var = ms.Parameter(Tensor(rm), name="rm"), ms.Parameter(Tensor(rv), name="rv")
    bm, bv = img.mean((0, 2, 3)), img.var((0, 2, 3))
    train = (img - bm[c]) / np.sqrt(bv[c] + 1e-5) * wt[c] + bs[c]
    _check(ops.batch_norm(Tensor(img), running_mean, running_var, Tensor(wt), Tensor(bs), True, 0.1), train,
           ms.float32, 1e-4, 1e-4)
    _check(running_mean, 0.9 * rm + 0.1 * bm, ms.float32)
    _check(running_var, 0.9 * rv + 0.1 * img.var((0, 2, 3), ddof=1), ms.float32, 1e-5, 1e-5)


def test_interpolate():
    img = RNG.standard_normal((1, 2, 4, 6)).astype(np.float32)
    rows, cols = (np.arange(2) * 4) // 2, (np.arange(3) * 6) // 3
    _check(ops.interpolate(Tensor(img), size=(2, 3)), img[:, :, rows][:, :, :, cols], ms.float32)
    up = _np(ops.interpolate(Tensor(img), scale_factor=2.0, mode="bilinear", align_corners=True))
    assert up.shape == (1, 2, 8, 12)
    np.testing.assert_allclose(up[..., 0, 0], img[..., 0, 0], rtol=1e-6)
    np.testing.assert_allclose(up[..., -1, -1], img[..., -1, -1], rtol=1e-6)


# -- creation ---------------------------------------------------------------------------------------------
def test_zeros_ones_full_eye():
    _check(ops.zeros((2, 3)), np.zeros((2, 3)), ms.float32)
    _check(ops.zeros(4, ms.int32), np.zeros(4), ms.int32)
    _check(ops.ones((2,), ms.float16), np.ones(2), ms.float16)
    # documented example: ops.full((2, 2), 1) prints [[1. 1.] [1. 1.]] (float)
    _check(ops.full((2, 2), 1), np.ones((2, 2)), ms.float32)
    _check(ops.full((3,), 2.5), np.full(3, 2.5), ms.float32)
    _check(ops.full((3,), 7, dtype=ms.int32), np.full(3, 7), ms.int32)
    _check(ops.full((2,), True), np.ones(2, bool), ms.bool_)
    _check(ops.eye(3), np.eye(3), ms.float32)
    _check(ops.eye(2, 4, ms.int32), np.eye(2, 4), ms.int32)
    _check(ops.zeros_like(Tensor(XI)), np.zeros_like(XI), ms.int32)
    _check(ops.ones_like(Tensor(X), dtype=ms.int32), np.ones((3, 4)), ms.int32)


def test_arange_linspace():
    _check(ops.arange(5), np.arange(5), ms.int64)
    _check(ops.arange(1, 7, 2), np.arange(1, 7, 2), ms.int64)
    _check(ops.arange(0, 1, 0.25), np.arange(0, 1, 0.25), ms.float32)
    _check(ops.arange(3, dtype=ms.float32), np.arange(3), ms.float32)
    _check(ops.linspace(0, 1, 5), np.linspace(0, 1, 5), ms.float32)
    _check(ops.linspace(Tensor(-1.0), Tensor(1.0), 3), [-1, 0, 1], ms.float32)


def test_random_draws_shapes_dtypes_ranges():
    ms.set_seed(3)
    assert ops.rand(2, 3).shape == (2, 3) and ops.rand(2, 3).dtype == ms.float32
    assert ops.randn((4, 5)).shape == (4, 5) and ops.randn(4).dtype == ms.float32
    r = _np(ops.rand(1000))
    assert r.min() >= 0 and r.max() < 1
    k = ops.randint(2, 5, (1000,))
    assert k.dtype == ms.int64 and _np(k).min() >= 2 and _np(k).max() < 5
    z = ops.normal((2000,), Tensor(np.float32(3.0)), Tensor(np.float32(0.5)))
    assert z.shape == (2000,) and abs(_np(z).mean() - 3.0) < 0.1 and abs(_np(z).std() - 0.5) < 0.1


# -- casts and Tensor methods ---------------------------------------------------------------------------------
def test_cast_and_astype():
    v = np.array([1.7, -1.7, 0.0], np.float32)
    _check(ops.cast(Tensor(v), ms.int32), v.astype(np.int32), ms.int32)  # truncates toward zero
    _check(Tensor(v).astype(ms.float16), v.astype(np.float16), ms.float16)
    _check(Tensor(v).astype("int64"), v.astype(np.int64), ms.int64)
    _check(Tensor(v).astype(ms.bool_, copy=True), v.astype(bool), ms.bool_)


def test_tensor_properties_and_conversions():
    t = Tensor(X)
    assert t.shape == (3, 4) and t.ndim == 2 and t.size == 12
    assert isinstance(ops.sum(t).item(), float)
    assert t.item(5) == pytest.approx(float(X.ravel()[5]))
    assert t.tolist() == X.tolist()
    assert isinstance(t.asnumpy(), np.ndarray) and t.asnumpy().dtype == np.float32
    with pytest.raises(ValueError, match="item"):
        t.item()


def test_indexing_slicing_and_boolean_masks():
    t = Tensor(X)
    _check(t[1], X[1], ms.float32)
    _check(t[-1, ::2], X[-1, ::2], ms.float32)
    _check(t[:, None, 1:3], X[:, None, 1:3], ms.float32)
    _check(t[..., -1], X[..., -1], ms.float32)
    _check(t[t > 0], X[X > 0], ms.float32)
    _check(t[Tensor(np.array([2, 0]))], X[[2, 0]], ms.float32)
    _check(t[Tensor(np.array([0, 2])), Tensor(np.array([1, 3]))], X[[0, 2], [1, 3]], ms.float32)


def test_setitem_in_place():
    a = X.copy()
    t = Tensor(X.copy())
    t[0, 1] = 9.0
    a[0, 1] = 9.0
    t[t > 1] = 0.0
    a[a > 1] = 0.0
    t[:, 0] = Tensor(np.array([7.0, 8.0, 9.0], np.float32))
    a[:, 0] = [7.0, 8.0, 9.0]
    t[2] = 1
    a[2] = 1
    _check(t, a, ms.float32)
    ti = Tensor(XI.copy())
    ti[0] = 2.9  # an int tensor keeps its dtype
    want = XI.copy()
    want[0] = 2
    _check(ti, want, ms.int32)


# -- the ops changed by this audit, in every execution mode --------------------------------------------------------
@pytest.mark.parametrize("mode", MODES)
def test_changed_ops_in_every_mode(mode):
    index = np.array([[0, 2, 1, 3], [3, 1, 0, 2]], np.int64)
    src = RNG.standard_normal((2, 4)).astype(np.float32)
    outs = run(mode, lambda t, ti, i, s: (
        ops.clamp(ti, -1.5, 3.5), ops.max(t)[1], ops.norm(t, 1), ops.norm(t, float("inf"), (0, 1), True),
        ops.isclose(t, t + 1e-9), ops.logical_xor(t > 0, ti > 0), ops.index_select(t, 1, i[0]),
        ops.scatter(t, 1, i, s), ops.round(ti), t.max((0, 1))), Tensor(X), Tensor(XI), Tensor(index), Tensor(src))
    a = np.abs(X.astype(np.float64))
    scattered = X.copy()
    np.put_along_axis(scattered[:2], index, src, 1)
    wants = [(np.clip(XI, -1.5, 3.5).astype(np.int32), ms.int32), (np.int64(0), ms.int64),
             (a.sum(0).max(), ms.float32), (a.sum(1).max(keepdims=True)[None], ms.float32),
             (np.ones((3, 4), bool), ms.bool_), ((X > 0) ^ (XI > 0), ms.bool_), (X[:, index[0]], ms.float32),
             (scattered, ms.float32), (XI, ms.int32), (X.max(), ms.float32)]
    for got, (want, dtype) in zip(outs, wants):
        _check(got, want, dtype)


@pytest.mark.parametrize("mode", ["pynative", "jit"])
def test_max_min_amax_amin_initial_and_where_match_numpy(mode):
    """``initial`` bounds every output and ``where`` selects the elements compared (numpy's
    max/min with initial/where as the oracle); the indices are those of the masked extremes."""
    x = np.array([[9, 3, 4, 5], [5, 2, 7, 4], [8, 1, 3, 6]], np.int64)
    w = np.array([[0, 0, 1, 0], [0, 0, 1, 1], [1, 1, 1, 0]], bool)

    def f(t, m):
        return (ops.max(t, axis=1, keepdims=True, initial=0, where=m), ops.min(t, axis=0, initial=4, where=m),
                ops.amax(t, axis=0, initial=6), ops.amin(t, initial=10, where=m), ops.max(t, axis=1, initial=8))

    (vmax, imax), (vmin, imin), amax, amin, (v8, _) = (run(mode, f, Tensor(x), Tensor(w)))
    np.testing.assert_array_equal(vmax.asnumpy(), np.max(x, axis=1, keepdims=True, initial=0, where=w))
    np.testing.assert_array_equal(imax.asnumpy(), np.argmax(np.where(w, x, 0), axis=1)[:, None])
    np.testing.assert_array_equal(vmin.asnumpy(), np.min(x, axis=0, initial=4, where=w))
    np.testing.assert_array_equal(imin.asnumpy(), np.argmin(np.where(w, np.minimum(x, 4), 4), axis=0))
    np.testing.assert_array_equal(amax.asnumpy(), np.max(x, axis=0, initial=6))
    np.testing.assert_array_equal(amin.asnumpy(), np.min(x, initial=10, where=w))
    np.testing.assert_array_equal(v8.asnumpy(), np.max(x, axis=1, initial=8))
    with pytest.raises(ValueError, match="initial"):
        ops.amax(Tensor(x), axis=0, where=Tensor(w))


def test_ieee_results_come_without_numpy_warnings_in_pynative(tmp_path):
    """log(-1) is nan and 1/0 is inf silently, as in graph mode, MindSpore and torch: numpy's
    RuntimeWarnings raised inside the ops' array code are not shown (they were, once per op and
    place, in PyNative only); the user's own numpy calls still warn."""
    import subprocess
    import sys
    script = tmp_path / "ieee.py"
    script.write_text(
        "import numpy as np, runtime as ms\n"
        "from runtime import ops, Tensor\n"
        "x = Tensor(np.array([-1.0, 0.0, 1e30], np.float32)); z = Tensor(np.zeros(3, np.float32))\n"
        "r = [ops.log(x), ops.sqrt(x), x / z, ops.exp(x * 1e10), x % z, ops.pow(z, -1.0), x * x, ops.acos(x)]\n"
        "print([float(t.asnumpy()[0]) for t in r])\n"
        "np.log(np.array([-1.0]))\n")
    out = subprocess.run([sys.executable, "-W", "default", str(script)], capture_output=True, text=True,
                         cwd=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[nan, nan, -inf, 0.0, nan, inf, 1.0, 3.1415927410125732]"
    warned = [line for line in out.stderr.splitlines() if "RuntimeWarning" in line]
    assert len(warned) == 1 and "ieee.py:6" in warned[0], out.stderr
