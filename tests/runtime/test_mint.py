"""``runtime.mint`` (``mindspore.mint``): each name against a numpy oracle or the output documented on
mindspore.cn, called with mint's torch-style keyword names; mint layers and optimizers against numpy
formulas; a mint-only training loop equal in PyNative and under ``ms.jit``, and equal to PyTorch from
the same weights."""
import numpy as np
import pytest

import runtime as ms
from runtime import Tensor, mint
from runtime.mint.nn import functional as F


def _t(a):
    return Tensor(np.asarray(a))


def _np(x):
    return x.asnumpy()


A = np.array([[0.5, -1.5, 2.0], [3.0, 0.25, -4.0]], np.float32)
B = np.array([[1.5, 2.0, -0.5], [0.5, 4.0, 2.0]], np.float32)
POS = np.abs(A) + 0.5


# ---- element-wise -----------------------------------------------------------------------------------

BINARY = [
    ("add", lambda: mint.add(input=_t(A), other=_t(B)), A + B),
    ("add_alpha", lambda: mint.add(_t(A), _t(B), alpha=2), A + 2 * B),
    ("sub", lambda: mint.sub(input=_t(A), other=_t(B)), A - B),
    ("sub_alpha", lambda: mint.sub(_t(A), _t(B), alpha=0.5), A - 0.5 * B),
    ("mul", lambda: mint.mul(input=_t(A), other=_t(B)), A * B),
    ("div", lambda: mint.div(input=_t(A), other=_t(B)), A / B),
    ("div_floor", lambda: mint.div(_t(A), _t(B), rounding_mode="floor"), np.floor(A / B)),
    ("div_trunc", lambda: mint.div(_t(A), _t(B), rounding_mode="trunc"), np.trunc(A / B)),
    ("pow", lambda: mint.pow(input=_t(POS), exponent=_t(B)), POS ** B),
    ("pow_scalar", lambda: mint.pow(_t(A), 2), A ** 2),
    ("maximum", lambda: mint.maximum(input=_t(A), other=_t(B)), np.maximum(A, B)),
    ("minimum", lambda: mint.minimum(input=_t(A), other=_t(B)), np.minimum(A, B)),
    ("clamp", lambda: mint.clamp(input=_t(A), min=-1.0, max=1.0), np.clip(A, -1, 1)),
    ("clamp_min", lambda: mint.clamp(_t(A), min=0.0), np.maximum(A, 0)),
    ("clamp_max", lambda: mint.clamp(_t(A), max=0.0), np.minimum(A, 0)),
    ("where", lambda: mint.where(_t(A > 0), input=_t(A), other=_t(B)), np.where(A > 0, A, B)),
    ("eq", lambda: mint.eq(input=_t(A), other=_t(np.where(A > 1, A, B))), A == np.where(A > 1, A, B)),
    ("ne", lambda: mint.ne(_t(A), _t(np.where(A > 1, A, B))), A != np.where(A > 1, A, B)),
    ("gt", lambda: mint.gt(input=_t(A), other=_t(B)), A > B),
    ("ge", lambda: mint.ge(_t(A), _t(B)), A >= B),
    ("lt", lambda: mint.lt(_t(A), _t(B)), A < B),
    ("le", lambda: mint.le(_t(A), 0.5), A <= 0.5),
    ("logical_and", lambda: mint.logical_and(_t(A > 0), _t(B > 0)), (A > 0) & (B > 0)),
    ("logical_or", lambda: mint.logical_or(_t(A > 0), _t(B > 0)), (A > 0) | (B > 0)),
    ("isclose", lambda: mint.isclose(input=_t(A), other=_t(A + np.float32(1e-6)), rtol=0, atol=1e-5),
     np.ones_like(A, bool)),
]

UNARY = [
    ("neg", lambda x: -x, A), ("abs", np.abs, A), ("exp", np.exp, A), ("log", np.log, POS),
    ("sqrt", np.sqrt, POS), ("rsqrt", lambda x: 1 / np.sqrt(x), POS), ("square", np.square, A),
    ("sin", np.sin, A), ("cos", np.cos, A), ("floor", np.floor, A), ("ceil", np.ceil, A),
    ("round", np.round, A * 2), ("sign", np.sign, A), ("logical_not", np.logical_not, A > 0),
    ("sigmoid", lambda x: 1 / (1 + np.exp(-x)), A), ("tanh", np.tanh, A),
]


@pytest.mark.parametrize("name,call,want", BINARY, ids=[b[0] for b in BINARY])
def test_binary_functions_match_numpy(name, call, want):
    got = _np(call())
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("name,oracle,x", UNARY, ids=[u[0] for u in UNARY])
def test_unary_functions_match_numpy(name, oracle, x):
    np.testing.assert_allclose(_np(getattr(mint, name)(input=_t(x))), oracle(x), rtol=1e-6, atol=1e-6)


def test_erf_matches_math():
    import math
    np.testing.assert_allclose(_np(mint.erf(_t(A))), np.vectorize(math.erf)(A), rtol=1e-6, atol=1e-6)


def test_allclose_is_a_python_bool():
    assert mint.allclose(_t(A), _t(A + np.float32(1e-7))) is True
    assert mint.allclose(input=_t(A), other=_t(B)) is False


def test_clamp_without_bounds_raises():
    with pytest.raises(ValueError, match="min and max"):
        mint.clamp(_t(A))


# ---- reductions -------------------------------------------------------------------------------------

X3 = np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 7 - 1


@pytest.mark.parametrize("name,oracle", [("sum", np.sum), ("mean", np.mean), ("prod", np.prod)])
def test_sum_mean_prod_dim_keepdim(name, oracle):
    fn = getattr(mint, name)
    np.testing.assert_allclose(_np(fn(_t(X3))), oracle(X3), rtol=1e-5)
    np.testing.assert_allclose(_np(fn(input=_t(X3), dim=1, keepdim=True)), oracle(X3, axis=1, keepdims=True),
                               rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(_np(fn(_t(X3), dim=(0, 2))), oracle(X3, axis=(0, 2)), rtol=1e-5, atol=1e-7)
    out = fn(_t(X3.astype(np.float32)), dim=-1, dtype=ms.float64)
    assert out.dtype == ms.float64


def test_max_min_documented_example():
    # mindspore.mint.max's documented example
    y = _t(np.array([[0.0, 0.3, 0.4, 0.5, 0.1], [3.2, 0.4, 0.1, 2.9, 4.0]], np.float32))
    output, index = mint.max(y, 0, True)
    np.testing.assert_allclose(_np(output), [[3.2, 0.4, 0.4, 2.9, 4.0]])
    np.testing.assert_array_equal(_np(index), [[1, 1, 0, 1, 1]])
    assert float(mint.max(y)) == pytest.approx(4.0) and mint.max(y).shape == ()
    values, idx = mint.min(input=y, dim=1)
    np.testing.assert_allclose(_np(values), [0.0, 0.1])
    np.testing.assert_array_equal(_np(idx), [0, 2])
    assert float(mint.min(y)) == 0.0
    with pytest.raises(ValueError, match="keepdim"):
        mint.max(y, keepdim=True)


def test_argmax_argmin_cumsum_any_all():
    np.testing.assert_array_equal(_np(mint.argmax(_t(A))), np.argmax(A))
    np.testing.assert_array_equal(_np(mint.argmax(input=_t(A), dim=1, keepdim=True)), np.argmax(A, 1)[:, None])
    np.testing.assert_array_equal(_np(mint.argmin(_t(A), dim=0)), np.argmin(A, 0))
    np.testing.assert_allclose(_np(mint.cumsum(input=_t(X3), dim=2)), np.cumsum(X3, 2), rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(_np(mint.any(_t(A > 2), dim=1)), (A > 2).any(1))
    np.testing.assert_array_equal(_np(mint.all(_t(A > -5))), True)


# ---- linear algebra, shapes, indexing -----------------------------------------------------------------

def test_matmul_bmm():
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((2, 3, 4)).astype(np.float32), rng.standard_normal((2, 4, 5)).astype(np.float32)
    np.testing.assert_allclose(_np(mint.matmul(input=_t(a), other=_t(b))), a @ b, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(_np(mint.bmm(_t(a), mat2=_t(b))), a @ b, rtol=1e-5, atol=1e-6)


def test_cat_stack_split_chunk():
    np.testing.assert_array_equal(_np(mint.cat((_t(A), _t(B)), dim=1)), np.concatenate([A, B], 1))
    np.testing.assert_array_equal(_np(mint.stack([_t(A), _t(B)], dim=-1)), np.stack([A, B], -1))
    parts = mint.split(_t(X3), 3, dim=2)
    assert [p.shape for p in parts] == [(2, 3, 3), (2, 3, 1)]
    parts = mint.split(tensor=_t(X3), split_size_or_sections=[1, 2], dim=1)
    np.testing.assert_array_equal(_np(parts[1]), X3[:, 1:])
    chunks = mint.chunk(input=_t(X3), chunks=2, dim=2)
    np.testing.assert_array_equal(_np(chunks[0]), X3[..., :2])


def test_reshape_permute_transpose_flatten_squeeze():
    np.testing.assert_array_equal(_np(mint.reshape(input=_t(X3), shape=(4, -1))), X3.reshape(4, -1))
    np.testing.assert_array_equal(_np(mint.permute(_t(X3), dims=(2, 0, 1))), X3.transpose(2, 0, 1))
    np.testing.assert_array_equal(_np(mint.transpose(input=_t(X3), dim0=0, dim1=2)), X3.swapaxes(0, 2))
    # torch's default start_dim=0 flattens everything (ops.flatten's default keeps the batch dim)
    assert mint.flatten(_t(X3)).shape == (24,)
    assert mint.flatten(_t(X3), start_dim=1).shape == (2, 12)
    assert mint.squeeze(_t(X3[:, :1]), dim=1).shape == (2, 4)
    assert mint.unsqueeze(input=_t(A), dim=0).shape == (1, 2, 3)


def test_gather_is_torch_gather_and_index_select():
    idx = np.array([[0, 0, 1], [1, 0, 0]], np.int64)
    np.testing.assert_array_equal(_np(mint.gather(input=_t(A), dim=0, index=_t(idx))),
                                  np.take_along_axis(A, idx, 0))
    np.testing.assert_array_equal(_np(mint.gather(_t(A), 1, _t(idx[:, :2]))), np.take_along_axis(A, idx[:, :2], 1))
    sel = np.array([2, 0], np.int64)
    np.testing.assert_array_equal(_np(mint.index_select(input=_t(A), dim=1, index=_t(sel))), A[:, sel])
    np.testing.assert_array_equal(_np(mint.masked_select(_t(A), _t(A > 0))), A[A > 0])


def test_topk_sort():
    values, idx = mint.topk(input=_t(A), k=2, dim=1)
    np.testing.assert_array_equal(_np(values), -np.sort(-A, 1)[:, :2])
    np.testing.assert_array_equal(_np(idx), np.argsort(-A, 1)[:, :2])
    values, idx = mint.topk(_t(A), 1, dim=0, largest=False)
    np.testing.assert_array_equal(_np(values), A.min(0, keepdims=True))
    values, idx = mint.sort(_t(A), dim=0, descending=True)
    np.testing.assert_array_equal(_np(values), -np.sort(-A, 0))
    np.testing.assert_array_equal(_np(idx), np.argsort(-A, 0, kind="stable"))
    with pytest.raises(TypeError):
        mint.sort(_t(A), 0)  # mint.sort's dim is keyword-only


def test_repeat_interleave_tile_broadcast_flip_tril():
    np.testing.assert_array_equal(_np(mint.repeat_interleave(_t(A), 2, dim=0)), np.repeat(A, 2, 0))
    np.testing.assert_array_equal(_np(mint.repeat_interleave(input=_t(A), repeats=2)), np.repeat(A, 2))
    np.testing.assert_array_equal(_np(mint.tile(input=_t(A), dims=(2, 1))), np.tile(A, (2, 1)))
    np.testing.assert_array_equal(_np(mint.broadcast_to(_t(A[:1]), size=(3, 3))), np.broadcast_to(A[:1], (3, 3)))
    np.testing.assert_array_equal(_np(mint.flip(_t(A), dims=(1,))), A[:, ::-1])
    np.testing.assert_array_equal(_np(mint.tril(_t(A), diagonal=1)), np.tril(A, 1))
    np.testing.assert_array_equal(_np(mint.triu(input=_t(A))), np.triu(A))


def test_creation():
    z = mint.zeros((2, 3), dtype=ms.int32)
    assert z.dtype == ms.int32 and _np(z).tolist() == [[0, 0, 0], [0, 0, 0]]
    assert mint.ones(4).shape == (4,)
    np.testing.assert_array_equal(_np(mint.full((2, 2), 7.5)), np.full((2, 2), 7.5))
    np.testing.assert_array_equal(_np(mint.arange(1, 10, 3)), [1, 4, 7])
    np.testing.assert_allclose(_np(mint.arange(0, 1, 0.25, dtype=ms.float32)), np.arange(0, 1, 0.25))
    np.testing.assert_allclose(_np(mint.linspace(start=0, end=1, steps=5)), np.linspace(0, 1, 5), rtol=1e-6)
    np.testing.assert_array_equal(_np(mint.eye(2, 3)), np.eye(2, 3))
    zl = mint.zeros_like(input=_t(A), dtype=ms.float64)
    assert zl.dtype == ms.float64 and zl.shape == A.shape
    np.testing.assert_array_equal(_np(mint.ones_like(_t(A))), np.ones_like(A))
    np.testing.assert_array_equal(_np(mint.full_like(_t(A), 3.0)), np.full_like(A, 3.0))


# ---- nn.functional ----------------------------------------------------------------------------------

def _softmax(x, axis):
    e = np.exp(x - x.max(axis, keepdims=True))
    return e / e.sum(axis, keepdims=True)


def test_activations():
    import math
    np.testing.assert_array_equal(_np(F.relu(_t(A))), np.maximum(A, 0))
    erf = np.vectorize(math.erf)
    np.testing.assert_allclose(_np(F.gelu(_t(A))), 0.5 * A * (1 + erf(A / np.sqrt(2))), rtol=1e-5, atol=1e-6)
    tanh_gelu = 0.5 * A * (1 + np.tanh(np.sqrt(2 / np.pi) * (A + 0.044715 * A ** 3)))
    np.testing.assert_allclose(_np(F.gelu(_t(A), approximate="tanh")), tanh_gelu, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(_np(F.silu(_t(A))), A / (1 + np.exp(-A)), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(_np(F.leaky_relu(_t(A))), np.where(A > 0, A, 0.01 * A), rtol=1e-6)
    np.testing.assert_allclose(_np(F.softmax(_t(A), dim=0)), _softmax(A, 0), rtol=1e-5)
    np.testing.assert_allclose(_np(mint.softmax(input=_t(A), dim=1)), _softmax(A, 1), rtol=1e-5)
    np.testing.assert_allclose(_np(F.log_softmax(_t(A))), np.log(_softmax(A, -1)), rtol=1e-5, atol=1e-6)
    assert F.softmax(_t(A), dim=1, dtype=ms.float64).dtype == ms.float64
    with pytest.raises(ValueError, match="inplace"):
        F.relu(_t(A), inplace=True)


def test_linear_and_conv2d_padding_forms():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((4, 3)).astype(np.float32)
    w, b = rng.standard_normal((5, 3)).astype(np.float32), rng.standard_normal(5).astype(np.float32)
    np.testing.assert_allclose(_np(F.linear(input=_t(x), weight=_t(w), bias=_t(b))), x @ w.T + b, rtol=1e-5,
                               atol=1e-6)
    img = rng.standard_normal((1, 2, 5, 6)).astype(np.float32)
    k = rng.standard_normal((3, 2, 3, 3)).astype(np.float32)
    # oracle: direct correlation over the zero-padded image
    def conv(img, pad_h, pad_w):
        p = np.pad(img, ((0, 0), (0, 0), (pad_h, pad_h), (pad_w, pad_w)))
        oh, ow = p.shape[2] - 2, p.shape[3] - 2
        out = np.zeros((1, 3, oh, ow), np.float64)
        for i in range(oh):
            for j in range(ow):
                out[0, :, i, j] = np.einsum("chw,ochw->o", p[0, :, i:i + 3, j:j + 3], k)
        return out
    np.testing.assert_allclose(_np(F.conv2d(_t(img), _t(k), padding=1)), conv(img, 1, 1), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(_np(F.conv2d(_t(img), _t(k), padding=(0, 1))), conv(img, 0, 1), rtol=1e-4,
                               atol=1e-5)
    np.testing.assert_allclose(_np(F.conv2d(_t(img), _t(k), padding="same")), conv(img, 1, 1), rtol=1e-4,
                               atol=1e-5)
    np.testing.assert_allclose(_np(F.conv2d(_t(img), _t(k))), conv(img, 0, 0), rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError, match="padding"):
        F.conv2d(_t(img), _t(k), padding="full")


def test_layer_norm_embedding_one_hot_pad():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 4)).astype(np.float32)
    g, b = rng.standard_normal(4).astype(np.float32), rng.standard_normal(4).astype(np.float32)
    want = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-5) * g + b
    np.testing.assert_allclose(_np(F.layer_norm(_t(x), (4,), _t(g), _t(b))), want, rtol=1e-5, atol=1e-5)
    table = rng.standard_normal((5, 3)).astype(np.float32)
    ids = np.array([[4, 0], [2, 2]], np.int64)
    np.testing.assert_array_equal(_np(F.embedding(_t(ids), _t(table))), table[ids])
    oh = F.one_hot(_t(np.array([0, 2, 1])))
    assert oh.dtype == ms.int64 and _np(oh).tolist() == [[1, 0, 0], [0, 0, 1], [0, 1, 0]]
    assert F.one_hot(_t(np.array([1])), num_classes=4).shape == (1, 4)
    np.testing.assert_array_equal(_np(F.pad(_t(A), (1, 2), value=9.0)), np.pad(A, ((0, 0), (1, 2)),
                                                                                constant_values=9.0))
    img = _t(np.arange(4, dtype=np.float32).reshape(1, 1, 2, 2))
    np.testing.assert_array_equal(_np(F.interpolate(img, scale_factor=2.0, mode="nearest"))[0, 0],
                                  np.arange(4).reshape(2, 2).repeat(2, 0).repeat(2, 1))


def test_embedding_padding_idx_gets_no_gradient():
    table = ms.Parameter(_t(np.arange(15, dtype=np.float32).reshape(5, 3)), name="table")
    ids = _t(np.array([1, 3, 1], np.int64))
    grad = ms.grad(lambda t: F.embedding(ids, t, padding_idx=1).sum())(table)
    want = np.zeros((5, 3), np.float32)
    want[3] = 1.0  # row 1 (padding) gets nothing; row 3 once
    np.testing.assert_array_equal(_np(grad), want)


def test_losses():
    rng = np.random.default_rng(4)
    logits = rng.standard_normal((4, 3)).astype(np.float32)
    target = np.array([0, 2, 1, 2], np.int64)
    logp = np.log(_softmax(logits.astype(np.float64), -1))
    np.testing.assert_allclose(float(F.cross_entropy(input=_t(logits), target=_t(target))),
                               -logp[np.arange(4), target].mean(), rtol=1e-5)
    np.testing.assert_allclose(_np(F.cross_entropy(_t(logits), _t(target), reduction="none")),
                               -logp[np.arange(4), target], rtol=1e-5)
    np.testing.assert_allclose(float(F.mse_loss(_t(A), _t(B))), ((A - B) ** 2).mean(), rtol=1e-6)
    np.testing.assert_allclose(_np(F.l1_loss(_t(A), _t(B), reduction="sum")), np.abs(A - B).sum(), rtol=1e-6)
    np.testing.assert_allclose(float(mint.nn.CrossEntropyLoss()(_t(logits), _t(target))),
                               -logp[np.arange(4), target].mean(), rtol=1e-5)
    np.testing.assert_allclose(float(mint.nn.MSELoss()(_t(A), _t(B))), ((A - B) ** 2).mean(), rtol=1e-6)
    np.testing.assert_allclose(float(mint.nn.L1Loss()(_t(A), _t(B))), np.abs(A - B).mean(), rtol=1e-6)


# ---- nn layers --------------------------------------------------------------------------------------

def test_linear_layer():
    ms.set_seed(0)
    layer = mint.nn.Linear(in_features=3, out_features=2, bias=True)
    assert [p.name for p in layer.trainable_params()] == ["weight", "bias"]
    w, b = _np(layer.weight), _np(layer.bias)
    assert w.shape == (2, 3) and np.abs(w).max() <= 1 / np.sqrt(3) + 1e-6  # kaiming_uniform(a=sqrt(5))
    np.testing.assert_allclose(_np(layer(_t(A))), A @ w.T + b, rtol=1e-5, atol=1e-6)
    assert mint.nn.Linear(3, 2, bias=False).bias is None


def test_conv2d_layer_matches_functional():
    layer = mint.nn.Conv2d(2, 3, 3, padding=1)
    assert layer.bias is not None  # torch's default bias=True
    img = _t(np.random.default_rng(5).standard_normal((1, 2, 4, 4)).astype(np.float32))
    np.testing.assert_allclose(_np(layer(img)), _np(F.conv2d(img, layer.weight, layer.bias, padding=1)),
                               rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="padding_mode"):
        mint.nn.Conv2d(2, 3, 3, padding_mode="reflect")


def test_activation_layers():
    np.testing.assert_array_equal(_np(mint.nn.ReLU()(_t(A))), np.maximum(A, 0))
    np.testing.assert_allclose(_np(mint.nn.GELU(approximate="tanh")(_t(A))), _np(F.gelu(_t(A), "tanh")))
    np.testing.assert_allclose(_np(mint.nn.GELU()(_t(A))), _np(F.gelu(_t(A))))
    np.testing.assert_allclose(_np(mint.nn.SiLU()(_t(A))), A / (1 + np.exp(-A)), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(_np(mint.nn.Sigmoid()(_t(A))), 1 / (1 + np.exp(-A)), rtol=1e-6)
    np.testing.assert_allclose(_np(mint.nn.Tanh()(_t(A))), np.tanh(A), rtol=1e-6)
    np.testing.assert_allclose(_np(mint.nn.Softmax(dim=0)(_t(A))), _softmax(A, 0), rtol=1e-5)
    np.testing.assert_allclose(_np(mint.nn.LogSoftmax(dim=1)(_t(A))), np.log(_softmax(A, 1)), rtol=1e-5)
    np.testing.assert_array_equal(_np(mint.nn.Identity()(_t(A))), A)
    assert mint.nn.Flatten()(_t(X3)).shape == (2, 12)


def test_dropout_layer():
    drop = mint.nn.Dropout(p=0.25)
    x = _t(np.ones((200, 50), np.float32))
    np.testing.assert_array_equal(_np(drop(x)), 1.0)  # a MindSpore Cell starts in eval mode
    drop.set_train(True)
    out = _np(drop(x))
    assert set(np.unique(out)) <= {0.0, np.float32(1 / 0.75)}
    assert 0.2 < (out == 0).mean() < 0.3
    drop.set_train(False)
    np.testing.assert_array_equal(_np(drop(x)), 1.0)


def test_layer_norm_layer():
    layer = mint.nn.LayerNorm(3, eps=1e-6)
    assert [p.name for p in layer.trainable_params()] == ["weight", "bias"]
    want = (A - A.mean(-1, keepdims=True)) / np.sqrt(A.var(-1, keepdims=True) + 1e-6)
    np.testing.assert_allclose(_np(layer(_t(A))), want, rtol=1e-5, atol=1e-5)
    assert mint.nn.LayerNorm(3, elementwise_affine=False).trainable_params() == []


def test_batch_norm2d_torch_momentum():
    bn = mint.nn.BatchNorm2d(2, momentum=0.1)
    bn.set_train(True)
    x = np.random.default_rng(6).standard_normal((4, 2, 3, 3)).astype(np.float32)
    out = _np(bn(_t(x)))
    mean, var = x.mean((0, 2, 3)), x.var((0, 2, 3))
    np.testing.assert_allclose(out, (x - mean[:, None, None]) / np.sqrt(var[:, None, None] + 1e-5), rtol=1e-4,
                               atol=1e-4)
    # torch: running = (1 - momentum) * running + momentum * batch (running var unbiased)
    np.testing.assert_allclose(_np(bn.moving_mean), 0.1 * mean, rtol=1e-5, atol=1e-6)
    n = x.size / 2
    np.testing.assert_allclose(_np(bn.moving_variance), 0.9 + 0.1 * var * n / (n - 1), rtol=1e-5)


def test_embedding_layer():
    ms.set_seed(1)
    layer = mint.nn.Embedding(num_embeddings=6, embedding_dim=4, padding_idx=2)
    table = _np(layer.weight)
    assert layer.weight.name == "weight" and table.shape == (6, 4)
    np.testing.assert_array_equal(table[2], 0.0)
    ids = np.array([[5, 2], [0, 1]], np.int64)
    np.testing.assert_array_equal(_np(layer(_t(ids))), table[ids])
    given = np.arange(24, dtype=np.float32).reshape(6, 4)
    np.testing.assert_array_equal(_np(mint.nn.Embedding(6, 4, _weight=_t(given)).weight), given)


# ---- optim ------------------------------------------------------------------------------------------

def _params(seed):
    rng = np.random.default_rng(seed)
    return [ms.Parameter(_t(rng.standard_normal((3, 2)).astype(np.float32)), name="w"),
            ms.Parameter(_t(rng.standard_normal(2).astype(np.float32)), name="b")]


def _grads(seed, steps=3):
    rng = np.random.default_rng(seed + 100)
    return [[rng.standard_normal(s) for s in ((3, 2), (2,))] for _ in range(steps)]


def _adam_numpy(p, grads, lr, b1, b2, eps, decoupled, l2, sign=1.0):
    p = p.astype(np.float64)
    m = v = 0
    for t, g in enumerate(grads, 1):
        g = sign * g + l2 * p
        p = p * (1 - lr * decoupled)
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        p = p - lr * (m / (1 - b1 ** t)) / (np.sqrt(v / (1 - b2 ** t)) + eps)
    return p


@pytest.mark.parametrize("cls,kw,decoupled,l2,sign", [
    ("AdamW", dict(lr=0.05, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1), 0.1, 0.0, 1.0),
    ("AdamW", dict(lr=0.05, maximize=True), 0.01, 0.0, -1.0),
    ("Adam", dict(lr=0.05, betas=(0.85, 0.995), weight_decay=0.2), 0.0, 0.2, 1.0),
    ("Adam", dict(lr=0.01), 0.0, 0.0, 1.0),
])
def test_adam_family_matches_torch_formula(cls, kw, decoupled, l2, sign):
    params = _params(0)
    start = [_np(p) for p in params]
    grads = _grads(0)
    opt = getattr(mint.optim, cls)(params, **kw)
    for step in grads:
        opt(tuple(_t(g.astype(np.float32)) for g in step))
    b1, b2 = kw.get("betas", (0.9, 0.999))
    for i, p in enumerate(params):
        want = _adam_numpy(start[i], [g[i] for g in grads], kw["lr"], b1, b2, kw.get("eps", 1e-8), decoupled, l2,
                           sign)
        np.testing.assert_allclose(_np(p), want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("kw", [dict(lr=0.1), dict(lr=0.1, momentum=0.9, dampening=0.1, weight_decay=0.05),
                                dict(lr=0.1, momentum=0.9, nesterov=True), dict(lr=0.1, maximize=True)])
def test_sgd_matches_torch_formula(kw):
    params = _params(1)
    start = [_np(p).astype(np.float64) for p in params]
    grads = _grads(1)
    opt = mint.optim.SGD(params, **kw)
    for step in grads:
        opt(tuple(_t(g.astype(np.float32)) for g in step))
    mom, damp, wd = kw.get("momentum", 0), kw.get("dampening", 0), kw.get("weight_decay", 0)
    sign = -1.0 if kw.get("maximize") else 1.0
    for i, p0 in enumerate(start):
        p, buf = p0, None
        for step in grads:
            g = sign * step[i] + wd * p
            if mom:
                buf = g if buf is None else mom * buf + (1 - damp) * g
                g = g + mom * buf if kw.get("nesterov") else buf
            p = p - kw["lr"] * g
        np.testing.assert_allclose(_np(params[i]), p, rtol=1e-5, atol=1e-6)


def test_optim_bad_arguments():
    with pytest.raises(ValueError, match="amsgrad"):
        mint.optim.AdamW(_params(0), amsgrad=True)
    with pytest.raises(TypeError, match="betas"):
        mint.optim.Adam(_params(0), betas=0.9)
    with pytest.raises(TypeError, match="maximize"):
        mint.optim.SGD(_params(0), lr=0.1, maximize=1)
    with pytest.raises(TypeError):
        mint.optim.SGD(_params(0))  # lr is required (as in torch and mint)


# ---- a mint-only training loop ------------------------------------------------------------------------

IN, HIDDEN, CLASSES, BATCH, STEPS = 6, 8, 3, 16, 6


def _data():
    rng = np.random.default_rng(7)
    x = rng.standard_normal((BATCH, IN)).astype(np.float32)
    y = rng.integers(0, CLASSES, BATCH).astype(np.int64)
    return x, y


class _MLP(ms.nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = mint.nn.Linear(IN, HIDDEN)
        self.fc2 = mint.nn.Linear(HIDDEN, CLASSES)

    def construct(self, x):
        return self.fc2(F.relu(self.fc1(x)))


def _train(jit, init=None):
    ms.set_seed(11)
    net = _MLP()
    if init is not None:
        for p, arr in zip(net.trainable_params(), init):
            p.set_data(_t(arr))
    opt = mint.optim.AdamW(net.trainable_params(), lr=0.05, weight_decay=0.01)

    def loss_fn(x, y):
        return F.cross_entropy(net(x), y)

    grad_fn = ms.value_and_grad(loss_fn, None, opt.parameters)

    def step(x, y):
        loss, grads = grad_fn(x, y)
        opt(grads)
        return loss

    run = ms.jit(step) if jit else step
    x, y = _data()
    losses = [float(run(_t(x), _t(y))) for _ in range(STEPS)]
    return losses, net


def test_training_loop_pynative_equals_jit_and_learns():
    eager, eager_net = _train(jit=False)
    graph, graph_net = _train(jit=True)
    np.testing.assert_allclose(graph, eager, rtol=1e-5, atol=1e-6)
    assert eager[-1] < eager[0] * 0.8
    for a, b in zip(eager_net.trainable_params(), graph_net.trainable_params()):
        np.testing.assert_allclose(_np(a), _np(b), rtol=1e-5, atol=1e-6)


def test_training_loop_matches_torch_from_identical_weights():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(8)
    init = [rng.uniform(-0.4, 0.4, s).astype(np.float32) for s in ((HIDDEN, IN), (HIDDEN,), (CLASSES, HIDDEN),
                                                                   (CLASSES,))]
    ours, _ = _train(jit=True, init=init)
    tnet = torch.nn.Sequential(torch.nn.Linear(IN, HIDDEN), torch.nn.ReLU(), torch.nn.Linear(HIDDEN, CLASSES))
    with torch.no_grad():
        for p, arr in zip(tnet.parameters(), init):
            p.copy_(torch.from_numpy(arr))
    topt = torch.optim.AdamW(tnet.parameters(), lr=0.05, weight_decay=0.01)
    x, y = _data()
    theirs = []
    for _ in range(STEPS):
        topt.zero_grad()
        loss = torch.nn.functional.cross_entropy(tnet(torch.from_numpy(x)), torch.from_numpy(y))
        loss.backward()
        topt.step()
        theirs.append(float(loss.detach()))
    np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-5)


def test_mint_is_reachable_as_mindspore_mint():
    assert ms.mint is mint and ms.mint.nn.functional is F and ms.mint.optim.AdamW.__module__ == "runtime.mint.optim"


def _mint_composite(x, y, idx):
    """Many mint names in one function: under jit it must equal PyNative without a graph break."""
    s = mint.sum(mint.mul(x, y), dim=1, keepdim=True)
    m, i = mint.max(x, dim=0)
    t = mint.transpose(mint.cat((x, y), dim=0), 0, 1)
    g = mint.gather(x, 1, idx)
    z = mint.where(mint.gt(x, 0), mint.clamp(x, min=-1.0, max=1.0), mint.zeros_like(x))
    n = F.layer_norm(mint.flatten(x, start_dim=1), (x.shape[1],))
    p = F.softmax(mint.add(x, y, alpha=2), dim=-1)
    v, k = mint.topk(x, 2, dim=1)
    a = mint.stack(mint.chunk(mint.permute(x, (1, 0)), 3, dim=0), dim=0)
    return (s, m, i, t, g, z, n, p, v, k, a, mint.argmax(x, dim=1), mint.cumsum(y, dim=0),
            mint.matmul(x, mint.transpose(y, 0, 1)), mint.repeat_interleave(x, 2, dim=0), mint.rsqrt(mint.exp(y)))


def test_functions_under_jit_equal_pynative_without_graph_breaks():
    import capture
    x, y = _t(A), _t(B)
    idx = _t(np.array([[2, 0], [1, 1]], np.int64))
    eager = _mint_composite(x, y, idx)
    graph = ms.jit(_mint_composite)(x, y, idx)
    assert len(eager) == len(graph)
    for k, (e, g) in enumerate(zip(eager, graph)):
        assert e.shape == g.shape and e.dtype == g.dtype, k
        np.testing.assert_allclose(_np(g), _np(e), rtol=1e-5, atol=1e-6, err_msg=f"output {k}")
    assert capture.explain(_mint_composite)(x, y, idx).graph_break_count == 0


def test_compat_page_lists_mint_with_its_signatures():
    from runtime import compat_table
    page = compat_table.generate()
    assert "| `mint.sum` | function | `(input, dim=None, keepdim=False, *, dtype=None)` |" in page
    assert "| `mint.nn.functional.cross_entropy` | function |" in page
    assert "| `mint.optim.AdamW` | class | `(params, lr=0.001, betas=(0.9, 0.999)" in page
    for module in (mint, mint.nn, mint.nn.functional, mint.optim):
        for name in module.__all__:
            assert hasattr(module, name), name


# ---- the second group of names -----------------------------------------------------------------------

UNARY_MORE = [
    ("tan", np.tan, A / 3), ("sinh", np.sinh, A), ("cosh", np.cosh, A), ("asin", np.arcsin, A / 5),
    ("acos", np.arccos, A / 5), ("atan", np.arctan, A), ("log1p", np.log1p, POS), ("expm1", np.expm1, A),
    ("log2", np.log2, POS), ("log10", np.log10, POS), ("reciprocal", lambda x: 1 / x, POS),
    ("trunc", np.trunc, A * 1.5), ("frac", lambda x: x - np.trunc(x), A * 1.5),
    ("isfinite", np.isfinite, np.array([1.0, np.inf, np.nan], np.float32)),
    ("isinf", np.isinf, np.array([1.0, -np.inf, np.nan], np.float32)),
    ("isnan", np.isnan, np.array([1.0, np.inf, np.nan], np.float32)),
]


@pytest.mark.parametrize("name,oracle,x", UNARY_MORE, ids=[u[0] for u in UNARY_MORE])
def test_more_unary_functions_match_numpy(name, oracle, x):
    np.testing.assert_allclose(_np(getattr(mint, name)(input=_t(x))), oracle(x), rtol=1e-5, atol=1e-6)


def test_more_binary_and_misc_functions():
    np.testing.assert_allclose(_np(mint.atan2(input=_t(A), other=_t(B))), np.arctan2(A, B), rtol=1e-5)
    np.testing.assert_allclose(_np(mint.remainder(_t(A), _t(B))), np.remainder(A, B), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(_np(mint.fmod(_t(A), _t(B))), np.fmod(A, B), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(_np(mint.logaddexp(_t(A), _t(B))), np.logaddexp(A, B), rtol=1e-5)
    ia, ib = np.array([5, 3, 12], np.int32), np.array([3, 6, 10], np.int32)
    np.testing.assert_array_equal(_np(mint.bitwise_and(_t(ia), _t(ib))), ia & ib)
    np.testing.assert_array_equal(_np(mint.bitwise_or(_t(ia), _t(ib))), ia | ib)
    np.testing.assert_array_equal(_np(mint.bitwise_xor(_t(ia), _t(ib))), ia ^ ib)
    np.testing.assert_array_equal(_np(mint.logical_xor(_t(A > 0), _t(B > 0))), (A > 0) ^ (B > 0))
    bad = np.array([np.nan, np.inf, -np.inf, 1.0], np.float32)
    np.testing.assert_array_equal(_np(mint.nan_to_num(_t(bad), nan=0.5, posinf=9.0, neginf=-9.0)),
                                  [0.5, 9.0, -9.0, 1.0])
    np.testing.assert_array_equal(_np(mint.masked_fill(_t(A), _t(A > 0), 7.0)), np.where(A > 0, 7.0, A))


def test_more_reductions():
    np.testing.assert_allclose(float(mint.amax(_t(X3))), X3.max())
    np.testing.assert_allclose(_np(mint.amin(input=_t(X3), dim=(0, 2), keepdim=True)), X3.min((0, 2), keepdims=True))
    want = np.log(np.exp(X3).sum(1))
    np.testing.assert_allclose(_np(mint.logsumexp(_t(X3), dim=1)), want, rtol=1e-5)
    # torch's std/var: Bessel's correction by default
    np.testing.assert_allclose(float(mint.std(_t(X3))), X3.std(ddof=1), rtol=1e-5)
    np.testing.assert_allclose(_np(mint.var(_t(X3), dim=2, correction=0, keepdim=True)),
                               X3.var(2, keepdims=True), rtol=1e-5, atol=1e-7)
    v = np.array([[4.0, 1.0, 3.0, 2.0], [0.0, 9.0, 7.0, 8.0]], np.float32)
    assert float(mint.median(_t(v))) == 3.0  # the lower middle of 8 values (torch)
    values, idx = mint.median(_t(v), dim=1)
    np.testing.assert_array_equal(_np(values), [2.0, 7.0])
    np.testing.assert_array_equal(_np(idx), [3, 2])
    values, idx = mint.cummax(_t(v), dim=1)
    np.testing.assert_array_equal(_np(values), np.maximum.accumulate(v, 1))
    np.testing.assert_array_equal(_np(mint.count_nonzero(_t(v), dim=1)), [4, 3])
    assert int(mint.count_nonzero(_t(v))) == 7


def test_more_linear_algebra():
    rng = np.random.default_rng(9)
    a, b = rng.standard_normal((3, 4)).astype(np.float32), rng.standard_normal((4, 2)).astype(np.float32)
    c = rng.standard_normal((3, 2)).astype(np.float32)
    np.testing.assert_allclose(_np(mint.mm(_t(a), _t(b))), a @ b, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(_np(mint.addmm(_t(c), _t(a), _t(b), beta=0.5, alpha=2)), 0.5 * c + 2 * a @ b,
                               rtol=1e-5, atol=1e-5)
    ba, bb, bc = a[None].repeat(2, 0), b[None].repeat(2, 0), c[None].repeat(2, 0)
    np.testing.assert_allclose(_np(mint.baddbmm(_t(bc), _t(ba), _t(bb), alpha=3)), bc + 3 * ba @ bb, rtol=1e-5,
                               atol=1e-5)
    np.testing.assert_allclose(_np(mint.outer(_t(a[0]), _t(b[0]))), np.outer(a[0], b[0]), rtol=1e-6)
    np.testing.assert_allclose(_np(mint.einsum("ij,jk->ik", _t(a), _t(b))), a @ b, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(float(mint.trace(_t(a[:, :3]))), np.trace(a[:, :3]), rtol=1e-6)
    np.testing.assert_allclose(_np(mint.cross(_t(a[:, :3]), _t(c[:, :1].repeat(3, 1)), dim=1)),
                               np.cross(a[:, :3], c[:, :1].repeat(3, 1)), rtol=1e-5, atol=1e-6)
    d = np.sqrt(((a[:, None] - a[None]) ** 2).sum(-1))
    np.testing.assert_allclose(_np(mint.cdist(_t(a), _t(a))), d, rtol=1e-4, atol=1e-4)


def test_more_shape_and_index_functions():
    np.testing.assert_array_equal(_np(mint.narrow(_t(X3), 2, 1, 2)), X3[:, :, 1:3])
    np.testing.assert_array_equal(_np(mint.roll(_t(A), 1, dims=1)), np.roll(A, 1, 1))
    np.testing.assert_array_equal(_np(mint.argsort(_t(A), dim=1, descending=True)), np.argsort(-A, 1))
    idx = np.array([[1, 0, 1]], np.int64)
    src = np.full((1, 3), 9.0, np.float32)
    want = A.copy()
    want[1, 0], want[0, 1], want[1, 2] = 9.0, 9.0, 9.0
    np.testing.assert_array_equal(_np(mint.scatter(_t(A), 0, _t(idx), _t(src))), want)
    seq, vals = np.array([1.0, 3.0, 5.0], np.float32), np.array([3.0, 4.0], np.float32)
    np.testing.assert_array_equal(_np(mint.searchsorted(_t(seq), _t(vals))), np.searchsorted(seq, vals))
    np.testing.assert_array_equal(_np(mint.searchsorted(_t(seq), _t(vals), side="right")),
                                  np.searchsorted(seq, vals, "right"))
    gx, gy = mint.meshgrid(_t(np.arange(2)), _t(np.arange(3)))  # torch's default: 'ij'
    assert gx.shape == (2, 3)
    np.testing.assert_array_equal(_np(gx), np.meshgrid(np.arange(2), np.arange(3), indexing="ij")[0])
    assert mint.meshgrid(_t(np.arange(2)), _t(np.arange(3)), indexing="xy")[0].shape == (3, 2)
    np.testing.assert_allclose(_np(mint.diff(_t(X3), dim=1)), np.diff(X3, axis=1), rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(_np(mint.bincount(_t(np.array([0, 2, 2, 5])))), np.bincount([0, 2, 2, 5]))


def test_random_creation_follows_the_seed():
    ms.set_seed(3)
    a = _np(mint.rand(2, 3))
    ms.set_seed(3)
    b = _np(mint.rand((2, 3)))
    assert a.shape == (2, 3) and ((a >= 0) & (a < 1)).all()
    np.testing.assert_array_equal(a, b)
    assert mint.randn(4, dtype=ms.float64).dtype == ms.float64
    assert mint.rand_like(_t(A)).shape == A.shape and mint.randn_like(_t(A)).shape == A.shape
    with pytest.raises(ValueError, match="generator"):
        mint.randn(2, generator=object())


def test_more_functional_against_numpy():
    x = np.array([[3.0, -4.0], [0.0, 0.0]], np.float32)
    np.testing.assert_allclose(_np(F.normalize(_t(x), dim=1)), [[0.6, -0.8], [0.0, 0.0]], rtol=1e-6)
    np.testing.assert_allclose(_np(F.normalize(_t(x), p=1.0, dim=0)), x / np.maximum(np.abs(x).sum(0), 1e-12),
                               rtol=1e-6)
    d = A - B
    huber = np.where(np.abs(d) < 1.0, 0.5 * d ** 2, np.abs(d) - 0.5)
    np.testing.assert_allclose(float(F.smooth_l1_loss(_t(A), _t(B))), huber.mean(), rtol=1e-6)
    np.testing.assert_allclose(float(mint.nn.SmoothL1Loss()(_t(A), _t(B))), huber.mean(), rtol=1e-6)
    p = _softmax(A, 1)
    q = _softmax(B, 1)
    np.testing.assert_allclose(float(F.kl_div(_t(np.log(p)), _t(q))), (q * (np.log(q) - np.log(p))).mean(),
                               rtol=1e-5)
    np.testing.assert_allclose(float(F.kl_div(_t(np.log(p)), _t(np.log(q)), reduction="sum", log_target=True)),
                               (q * (np.log(q) - np.log(p))).sum(), rtol=1e-5)
    np.testing.assert_allclose(float(mint.nn.KLDivLoss(reduction="sum")(_t(np.log(p)), _t(q))),
                               (q * (np.log(q) - np.log(p))).sum(), rtol=1e-5)
    img = np.arange(32, dtype=np.float32).reshape(1, 2, 4, 4)
    windows = img.reshape(1, 2, 2, 2, 2, 2).transpose(0, 1, 2, 4, 3, 5).reshape(1, 2, 2, 2, 4)
    np.testing.assert_array_equal(_np(F.max_pool2d(_t(img), 2)), windows.max(-1))
    np.testing.assert_array_equal(_np(mint.nn.MaxPool2d(2)(_t(img))), windows.max(-1))
    np.testing.assert_allclose(_np(F.avg_pool2d(_t(img), 2)), windows.mean(-1))
    np.testing.assert_allclose(_np(mint.nn.AvgPool2d(kernel_size=2)(_t(img))), windows.mean(-1))
    np.testing.assert_array_equal(_np(mint.nn.LeakyReLU()(_t(A))), np.where(A > 0, A, np.float32(0.01) * A))
    hs = A * np.clip(A + 3, 0, 6) / 6
    np.testing.assert_allclose(_np(F.hardswish(_t(A))), hs, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(_np(mint.nn.Hardswish()(_t(A))), hs, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(_np(mint.nn.Hardsigmoid()(_t(A))), np.clip(A / 6 + 0.5, 0, 1), rtol=1e-6)


def test_more_functional_and_layers_match_torch():
    torch = pytest.importorskip("torch")
    tF = torch.nn.functional
    rng = np.random.default_rng(10)
    img = rng.standard_normal((2, 4, 5, 5)).astype(np.float32)
    logits = rng.standard_normal((6, 3)).astype(np.float32)
    target = np.array([0, 2, 1, 1, 0, 2], np.int64)
    probs = 1 / (1 + np.exp(-logits))
    labels = (rng.random((6, 3)) > 0.5).astype(np.float32)
    up = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)  # conv_transpose2d: (C_in, C_out, kh, kw)
    T = torch.from_numpy
    cases = [
        (F.selu(_t(A)), tF.selu(T(A))), (F.mish(_t(A)), tF.mish(T(A))), (F.elu(_t(A)), tF.elu(T(A))),
        (F.softplus(_t(A), beta=2), tF.softplus(T(A), beta=2)),
        (F.glu(_t(img), dim=1), tF.glu(T(img), dim=1)),
        (F.prelu(_t(A), _t(np.array([0.3], np.float32))), tF.prelu(T(A), T(np.array([0.3], np.float32)))),
        (F.group_norm(_t(img), 2), tF.group_norm(T(img), 2)),
        (F.adaptive_avg_pool2d(_t(img), (2, 3)), tF.adaptive_avg_pool2d(T(img), (2, 3))),
        (F.avg_pool2d(_t(img), 3, 2, padding=1), tF.avg_pool2d(T(img), 3, 2, padding=1)),
        (F.max_pool2d(_t(img), 3, 2, padding=1), tF.max_pool2d(T(img), 3, 2, padding=1)),
        (F.nll_loss(_t(np.log(_softmax(logits, 1))), _t(target)), tF.nll_loss(T(np.log(_softmax(logits, 1))),
                                                                              T(target))),
        (F.binary_cross_entropy(_t(probs), _t(labels)), tF.binary_cross_entropy(T(probs), T(labels))),
        (F.binary_cross_entropy_with_logits(_t(logits), _t(labels), pos_weight=_t(np.full(3, 2.0, np.float32))),
         tF.binary_cross_entropy_with_logits(T(logits), T(labels), pos_weight=T(np.full(3, 2.0, np.float32)))),
        (F.unfold(_t(img), 2, padding=1, stride=2), tF.unfold(T(img), 2, padding=1, stride=2)),
        (F.interpolate(_t(img), scale_factor=2.0, mode="bilinear", align_corners=False),
         tF.interpolate(T(img), scale_factor=2.0, mode="bilinear", align_corners=False)),
        (F.pad(_t(img), (1, 2, 0, 1), mode="reflect"), tF.pad(T(img), (1, 2, 0, 1), mode="reflect")),
        (mint.nn.BCEWithLogitsLoss(reduction="sum")(_t(logits), _t(labels)),
         torch.nn.BCEWithLogitsLoss(reduction="sum")(T(logits), T(labels))),
        (mint.nn.GroupNorm(2, 4)(_t(img)), torch.nn.GroupNorm(2, 4)(T(img))),
        (mint.nn.ELU(alpha=0.5)(_t(A)), torch.nn.ELU(alpha=0.5)(T(A))),
        (mint.nn.Softplus()(_t(A)), torch.nn.Softplus()(T(A))),
        (mint.nn.PReLU(num_parameters=1, init=0.1)(_t(A)), torch.nn.PReLU(1, 0.1)(T(A))),
        (F.conv1d(_t(img[:, :, 0]), _t(img[:2, :, 1, :3]), padding=1, stride=2),
         tF.conv1d(T(img[:, :, 0]), T(img[:2, :, 1, :3]), padding=1, stride=2)),
        (F.conv1d(_t(img[:, :, 0]), _t(img[:2, :, 1, :3]), padding="same"),
         tF.conv1d(T(img[:, :, 0]), T(img[:2, :, 1, :3]), padding="same")),
        (F.conv_transpose2d(_t(img), _t(up), stride=2, padding=1, output_padding=1),
         tF.conv_transpose2d(T(img), T(up), stride=2, padding=1, output_padding=1)),
    ]
    for k, (ours, theirs) in enumerate(cases):
        np.testing.assert_allclose(_np(ours), theirs.detach().numpy(), rtol=1e-4, atol=1e-5, err_msg=f"case {k}")


def test_batch_norm1d_torch_momentum():
    bn = mint.nn.BatchNorm1d(3, momentum=0.2)
    bn.set_train(True)
    x = np.random.default_rng(12).standard_normal((5, 3)).astype(np.float32)
    bn(_t(x))
    np.testing.assert_allclose(_np(bn.moving_mean), 0.2 * x.mean(0), rtol=1e-5, atol=1e-6)


class _ConvNet(ms.nn.Cell):
    """A small mint-only network: conv, batch norm, pooling, linear, functional activations."""

    def __init__(self):
        super().__init__()
        self.conv = mint.nn.Conv2d(2, 4, 3, padding=1)
        self.norm = mint.nn.BatchNorm2d(4)
        self.pool = mint.nn.MaxPool2d(2)
        self.head = mint.nn.Linear(4 * 2 * 2, 3)
        self.act = mint.nn.GELU()

    def construct(self, x):
        h = self.pool(self.act(self.norm(self.conv(x))))
        return F.log_softmax(self.head(mint.flatten(h, start_dim=1)), dim=-1)


def test_mint_cell_in_graph_mode_equals_pynative():
    ms.set_seed(5)
    net = _ConvNet()
    x = _t(np.random.default_rng(13).standard_normal((2, 2, 4, 4)).astype(np.float32))
    eager = _np(net(x))
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        graph = _np(net(x))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(graph, eager, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.exp(eager).sum(-1), 1.0, rtol=1e-5)


def test_bad_arguments_raise_clear_errors():
    x = _t(A)
    with pytest.raises(ValueError, match="out of range"):
        mint.transpose(x, 0, 4)
    with pytest.raises(ValueError, match="out of range"):
        mint.flatten(x, start_dim=3)
    with pytest.raises(ValueError, match="out of range"):
        mint.sum(x, dim=5)
    with pytest.raises(TypeError, match="bias must be a bool"):
        mint.nn.Linear(3, 2, bias=1)
    with pytest.raises(TypeError, match="dim must be an int"):
        F.softmax(x, dim=1.5)
    with pytest.raises(ValueError, match="rounding_mode"):
        mint.div(x, x, rounding_mode="round")
    with pytest.raises(ValueError, match="approximate"):
        mint.nn.GELU("erf")
    with pytest.raises(ValueError, match="max_norm"):
        mint.nn.Embedding(3, 2, max_norm=1.0)
    with pytest.raises(ValueError, match="sorter"):
        mint.searchsorted(x, x, sorter=x)
    scalar = _t(np.float32(2.0))
    assert float(mint.transpose(scalar, 0, -1)) == 2.0  # torch: a 0-d tensor's dims are 0 and -1


def test_conv1d_layer_matches_functional():
    layer = mint.nn.Conv1d(2, 3, 3, padding=1, stride=2)
    assert layer.bias is not None
    x = _t(np.random.default_rng(14).standard_normal((2, 2, 7)).astype(np.float32))
    np.testing.assert_allclose(_np(layer(x)), _np(F.conv1d(x, layer.weight, layer.bias, stride=2, padding=1)),
                               rtol=1e-5, atol=1e-6)
    assert layer(x).shape == (2, 3, 4)


def test_norm_is_torch_norm():
    flat = X3.reshape(-1)
    np.testing.assert_allclose(float(mint.norm(_t(X3))), np.sqrt((X3 ** 2).sum()), rtol=1e-5)
    np.testing.assert_allclose(float(mint.norm(_t(X3), p=1)), np.abs(flat).sum(), rtol=1e-5)
    np.testing.assert_allclose(float(mint.norm(_t(X3), p=float("inf"))), np.abs(flat).max(), rtol=1e-6)
    np.testing.assert_allclose(_np(mint.norm(_t(X3), p=3, dim=2, keepdim=True)),
                               (np.abs(X3) ** 3).sum(2, keepdims=True) ** (1 / 3), rtol=1e-5)
    # a number p over two dims is still the vector norm (torch.norm), not a matrix norm
    np.testing.assert_allclose(_np(mint.norm(_t(X3), p=1, dim=(1, 2))), np.abs(X3).sum((1, 2)), rtol=1e-5)
    np.testing.assert_allclose(_np(mint.norm(_t(X3), "fro", dim=(0, 2))), np.sqrt((X3 ** 2).sum((0, 2))),
                               rtol=1e-5)
    with pytest.raises(ValueError, match="p must be"):
        mint.norm(_t(X3), p="max")


# ---- the third group: scatter_add, index_add, unique, ConvTranspose2d and more ----------------------

def _scatter_add_oracle(x, dim, index, src):
    """numpy: ``out[..., index[pos], ...] += src[pos]`` (the position's own coordinates elsewhere)."""
    out = x.copy()
    for pos in np.ndindex(*index.shape):
        target = list(pos)
        target[dim] = index[pos]
        out[tuple(target)] += src[pos]
    return out


SCATTER_X = np.arange(12, dtype=np.float32).reshape(3, 4) / 4 - 1
SCATTER_IDX = np.array([[0, 2, 2], [1, 0, 0]], np.int64)
SCATTER_SRC = np.array([[1.5, -2.0, 0.5, 9.0], [3.0, 4.0, -1.0, 9.0], [9.0, 9.0, 9.0, 9.0]], np.float32)


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_scatter_add_matches_numpy(dim):
    # index (2, 3) is smaller than src (3, 4) in every dimension: src's leading block is used
    want = _scatter_add_oracle(SCATTER_X, dim % 2, SCATTER_IDX, SCATTER_SRC)
    got = mint.scatter_add(input=_t(SCATTER_X), dim=dim, index=_t(SCATTER_IDX), src=_t(SCATTER_SRC))
    np.testing.assert_allclose(_np(got), want, rtol=1e-6)
    # the repeated positions accumulate (index 2 twice in row 0 for dim=1, index 0 twice in col 1..2 for dim=0)
    assert not np.allclose(want, SCATTER_X)
    np.testing.assert_allclose(_np(_t(SCATTER_X).scatter_add(dim, _t(SCATTER_IDX), _t(SCATTER_SRC))), want)


def test_scatter_add_rank3_and_tensor_method_spellings():
    rng = np.random.default_rng(20)
    x = rng.standard_normal((2, 3, 4)).astype(np.float32)
    index = rng.integers(0, 3, (2, 2, 4))
    src = rng.standard_normal((2, 2, 4)).astype(np.float32)
    np.testing.assert_allclose(_np(mint.scatter_add(_t(x), 1, _t(index), _t(src))),
                               _scatter_add_oracle(x, 1, index, src), rtol=1e-6, atol=1e-6)
    # MindSpore's older spelling: Tensor.scatter_add(indices, updates) is ops.tensor_scatter_add
    rows = np.array([[0, 1], [1, 3]], np.int64)
    updates = np.array([5.0, 6.0], np.float32)
    got = _np(_t(np.zeros((2, 4), np.float32)).scatter_add(_t(rows), _t(updates)))
    np.testing.assert_array_equal(got, [[0, 5, 0, 0], [0, 0, 0, 6]])
    with pytest.raises(TypeError, match="scatter_add"):
        _t(A).scatter_add(_t(rows))


def test_scatter_add_bad_arguments():
    x, idx, src = _t(SCATTER_X), _t(SCATTER_IDX), _t(SCATTER_SRC)
    with pytest.raises(TypeError, match="mint.scatter_add: index must be an integer"):
        mint.scatter_add(x, 0, _t(SCATTER_IDX.astype(np.float32)), src)
    with pytest.raises(ValueError, match="mint.scatter_add: src must have input's rank"):
        mint.scatter_add(x, 0, idx, _t(SCATTER_SRC[0]))
    with pytest.raises(ValueError, match="mint.scatter_add: dim 2 is out of range"):
        mint.scatter_add(x, 2, idx, src)
    with pytest.raises(ValueError, match="must not exceed src shape"):
        mint.scatter_add(x, 0, idx, _t(SCATTER_SRC[:1]))
    with pytest.raises(TypeError, match="mint.scatter_add: dim must be an int"):
        mint.scatter_add(x, 0.0, idx, src)


def test_scatter_add_gradients_match_numpy_formula():
    weights = np.arange(12, dtype=np.float32).reshape(3, 4) - 5

    def loss(x, src):
        return (mint.scatter_add(x, 1, _t(SCATTER_IDX), src) * _t(weights)).sum()

    gx, gsrc = ms.grad(loss, grad_position=(0, 1))(_t(SCATTER_X), _t(SCATTER_SRC))
    np.testing.assert_array_equal(_np(gx), weights)  # the identity part
    want = np.zeros_like(SCATTER_SRC)  # d/dsrc[i, j] = weights[i, index[i, j]] on the used block, else 0
    for i, j in np.ndindex(*SCATTER_IDX.shape):
        want[i, j] = weights[i, SCATTER_IDX[i, j]]
    np.testing.assert_array_equal(_np(gsrc), want)


def _index_add_oracle(x, dim, index, source, alpha):
    out = np.moveaxis(x.copy(), dim, 0)
    np.add.at(out, index, alpha * np.moveaxis(source, dim, 0))
    return np.moveaxis(out, 0, dim)


@pytest.mark.parametrize("dim,alpha", [(0, 1), (1, 2.5), (-1, -1)])
def test_index_add_matches_numpy(dim, alpha):
    rng = np.random.default_rng(21)
    x = rng.standard_normal((3, 4)).astype(np.float32)
    index = np.array([2, 0, 2], np.int64)  # 2 repeats: accumulates
    shape = list(x.shape)
    shape[dim] = 3
    source = rng.standard_normal(shape).astype(np.float32)
    got = mint.index_add(input=_t(x), dim=dim, index=_t(index), source=_t(source), alpha=alpha)
    np.testing.assert_allclose(_np(got), _index_add_oracle(x, dim % 2, index, source, alpha), rtol=1e-5, atol=1e-6)


def test_index_add_bad_arguments_and_gradient():
    x = _t(np.zeros((3, 2), np.float32))
    with pytest.raises(ValueError, match="mint.index_add: source must have shape"):
        mint.index_add(x, 0, _t(np.array([0, 1])), _t(np.ones((3, 2), np.float32)))
    with pytest.raises(ValueError, match="mint.index_add: index must be 1-D"):
        mint.index_add(x, 0, _t(np.array([[0, 1]])), _t(np.ones((2, 2), np.float32)))
    with pytest.raises(TypeError, match="mint.index_add: alpha"):
        mint.index_add(x, 0, _t(np.array([0])), _t(np.ones((1, 2), np.float32)), alpha="2")
    index = _t(np.array([1, 1, 0], np.int64))
    weights = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], np.float32)
    grad = ms.grad(lambda s: (mint.index_add(x, 0, index, s, alpha=2) * _t(weights)).sum())(
        _t(np.ones((3, 2), np.float32)))
    np.testing.assert_array_equal(_np(grad), 2 * weights[[1, 1, 0]])


def test_unique_matches_numpy():
    x = np.array([[2.0, 1.0, 2.0], [3.0, 1.0, -1.0]], np.float32)
    out = mint.unique(_t(x))
    assert isinstance(out, Tensor)  # only the values when nothing else is asked for
    np.testing.assert_array_equal(_np(out), np.unique(x))
    values, inverse, counts = mint.unique(input=_t(x), sorted=True, return_inverse=True, return_counts=True)
    want_values, want_inverse, want_counts = np.unique(x, return_inverse=True, return_counts=True)
    np.testing.assert_array_equal(_np(values), want_values)
    np.testing.assert_array_equal(_np(inverse), want_inverse.reshape(x.shape))  # input's shape, as torch
    np.testing.assert_array_equal(_np(counts), want_counts)
    assert inverse.dtype == ms.int64 and counts.dtype == ms.int64
    values, counts = mint.unique(_t(x), sorted=False, return_counts=True)
    np.testing.assert_array_equal(_np(counts), want_counts)


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_unique_along_a_dim_matches_numpy(dim):
    x = np.array([[1, 0, 1, 0], [2, 5, 2, 5], [1, 0, 1, 0], [1, -3, 1, -3]], np.int64)
    values, inverse, counts = mint.unique(_t(x), return_inverse=True, return_counts=True, dim=dim)
    want_values, want_inverse, want_counts = np.unique(x, return_inverse=True, return_counts=True, axis=dim % 2)
    np.testing.assert_array_equal(_np(values), want_values)
    np.testing.assert_array_equal(_np(inverse), want_inverse.reshape(-1))
    np.testing.assert_array_equal(_np(counts), want_counts)
    # reconstructing the input from the output and the inverse (torch's contract)
    np.testing.assert_array_equal(np.take(_np(values), _np(inverse), axis=dim % 2), x)


def test_unique_bad_arguments_and_under_jit():
    with pytest.raises(TypeError, match="mint.unique: return_counts must be a bool"):
        mint.unique(_t(A), return_counts=1)
    with pytest.raises(ValueError, match="mint.unique: dim 2 is out of range"):
        mint.unique(_t(A), dim=2)
    x = _t(np.array([3, 1, 3, 2, 1], np.int32))

    def f(x):
        values, counts = mint.unique(x, return_counts=True)
        return values * 2, counts

    eager, graph = f(x), ms.jit(f)(x)  # a data-dependent shape: a graph break, same results
    for e, g in zip(eager, graph):
        np.testing.assert_array_equal(_np(g), _np(e))
    np.testing.assert_array_equal(_np(eager[0]), [2, 4, 6])


def _conv_transpose2d_oracle(x, w, b, stride, padding, output_padding, groups, dilation):
    """numpy: every input pixel adds ``x * w`` into the output at ``i*s + k*d``, then the padding is cropped."""
    n, cin, h, wd = x.shape
    cout_g, kh, kw = w.shape[1:]
    sh, sw = stride
    ph, pw = padding
    dh, dw = dilation
    oh = (h - 1) * sh - 2 * ph + dh * (kh - 1) + output_padding[0] + 1
    ow = (wd - 1) * sw - 2 * pw + dw * (kw - 1) + output_padding[1] + 1
    full = np.zeros((n, cout_g * groups, oh + 2 * ph + sh, ow + 2 * pw + sw), np.float64)
    cin_g = cin // groups
    for c in range(cin):
        g = c // cin_g
        for i, j, a, bb in np.ndindex(h, wd, kh, kw):
            full[:, g * cout_g:(g + 1) * cout_g, i * sh + a * dh, j * sw + bb * dw] += (
                x[:, c, i, j][:, None] * w[c, :, a, bb][None])
    out = full[:, :, ph:ph + oh, pw:pw + ow]
    return out + (0 if b is None else b[None, :, None, None])


@pytest.mark.parametrize("kw", [dict(stride=2, padding=1, output_padding=1), dict(stride=(1, 2), padding=(0, 1)),
                                dict(groups=2, dilation=2, stride=2), dict(bias=False)])
def test_conv_transpose2d_layer_matches_numpy(kw):
    ms.set_seed(22)
    layer = mint.nn.ConvTranspose2d(4, 6, (3, 2) if "groups" not in kw else 3, **kw)
    x = np.random.default_rng(23).standard_normal((2, 4, 4, 5)).astype(np.float32)
    w = _np(layer.weight)
    b = None if layer.bias is None else _np(layer.bias)
    assert w.shape[:2] == (4, 6 // kw.get("groups", 1))
    want = _conv_transpose2d_oracle(x, w, b, layer.stride, layer.torch_padding, layer.output_padding,
                                    kw.get("groups", 1), layer.dilation)
    np.testing.assert_allclose(_np(layer(_t(x))), want, rtol=1e-4, atol=1e-5)
    want_f = _np(F.conv_transpose2d(_t(x), layer.weight, layer.bias, layer.stride, layer.torch_padding,
                                    layer.output_padding, kw.get("groups", 1), layer.dilation))
    np.testing.assert_allclose(want_f, want, rtol=1e-4, atol=1e-5)


def test_conv_transpose2d_init_output_size_and_errors():
    ms.set_seed(24)
    layer = mint.nn.ConvTranspose2d(3, 8, 4, stride=2, padding=1)
    bound = 1 / np.sqrt(8 * 4 * 4)  # torch's fan_in of a transposed weight: out_channels/groups * kh * kw
    assert np.abs(_np(layer.bias)).max() <= bound and np.abs(_np(layer.weight)).max() <= bound
    assert [p.name for p in layer.trainable_params()] == ["weight", "bias"]
    x = _t(np.ones((1, 3, 5, 5), np.float32))
    assert layer(x).shape == (1, 8, 10, 10)
    assert layer(x, output_size=(1, 8, 11, 11)).shape == (1, 8, 11, 11)  # output_size picks output_padding 1
    np.testing.assert_allclose(_np(layer(x, output_size=(11, 11)))[..., :10, :10],
                               _np(F.conv_transpose2d(x, layer.weight, layer.bias, 2, 1, 1))[..., :10, :10])
    with pytest.raises(ValueError, match="output_size"):
        layer(x, output_size=(12, 12))
    with pytest.raises(ValueError, match="mint.nn.ConvTranspose2d: output_padding"):
        mint.nn.ConvTranspose2d(3, 8, 4, stride=2, output_padding=2)
    with pytest.raises(ValueError, match="mint.nn.ConvTranspose2d: padding_mode"):
        mint.nn.ConvTranspose2d(3, 8, 4, padding_mode="reflect")
    with pytest.raises(ValueError, match="mint.nn.ConvTranspose2d: padding must be"):
        mint.nn.ConvTranspose2d(3, 8, 4, padding="same")
    with pytest.raises(TypeError, match="bias must be a bool"):
        mint.nn.ConvTranspose2d(3, 8, 4, bias=None)


def test_conv_transpose2d_gradients_match_finite_differences():
    ms.set_seed(25)
    layer = mint.nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1, output_padding=1)
    x = np.random.default_rng(26).standard_normal((1, 2, 3, 3)).astype(np.float64)
    weights = np.random.default_rng(27).standard_normal((1, 3, 6, 6))
    w = _np(layer.weight).astype(np.float64)

    def f(x, w):
        return (F.conv_transpose2d(x, w, None, 2, 1, 1) * _t(weights)).sum()

    gx, gw = ms.grad(f, grad_position=(0, 1))(_t(x), _t(w))

    def numeric(arr, other_first, k):
        out = np.zeros_like(arr)
        for pos in np.ndindex(*arr.shape):
            hi, lo = arr.copy(), arr.copy()
            hi[pos] += 1e-6
            lo[pos] -= 1e-6
            args_hi, args_lo = ((hi, other_first), (lo, other_first)) if k == 0 else ((other_first, hi), (other_first, lo))
            out[pos] = (float(f(*map(_t, args_hi))) - float(f(*map(_t, args_lo)))) / 2e-6
        return out

    np.testing.assert_allclose(_np(gx), numeric(x, w, 0), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(_np(gw), numeric(w, x, 1), rtol=1e-5, atol=1e-6)


UNARY_THIRD = [
    ("acosh", np.arccosh, POS + 1), ("asinh", np.arcsinh, A), ("atanh", np.arctanh, A / 5),
    ("arccos", np.arccos, A / 5), ("arcsin", np.arcsin, A / 5), ("arctan", np.arctan, A),
    ("arccosh", np.arccosh, POS + 1), ("arcsinh", np.arcsinh, A), ("arctanh", np.arctanh, A / 5),
    ("erfc", np.vectorize(lambda v: __import__("math").erfc(v)), A), ("sinc", np.sinc, A),
    ("exp2", np.exp2, A), ("fix", np.trunc, A * 1.5), ("negative", np.negative, A),
    ("inverse", np.linalg.inv, A[:, :2] + 3 * np.eye(2, dtype=np.float32)),
]


@pytest.mark.parametrize("name,oracle,x", UNARY_THIRD, ids=[u[0] for u in UNARY_THIRD])
def test_third_unary_functions_match_numpy(name, oracle, x):
    np.testing.assert_allclose(_np(getattr(mint, name)(input=_t(x))), oracle(x).astype(np.float32), rtol=1e-5,
                               atol=1e-6)


def test_third_binary_functions_match_numpy():
    C = np.where(A > 1, A, B)
    for name, oracle in (("greater", np.greater), ("greater_equal", np.greater_equal), ("less", np.less),
                         ("less_equal", np.less_equal)):
        np.testing.assert_array_equal(_np(getattr(mint, name)(input=_t(A), other=_t(C))), oracle(A, C), name)
    np.testing.assert_allclose(_np(mint.divide(_t(A), _t(B), rounding_mode="floor")), np.floor(A / B))
    np.testing.assert_allclose(_np(mint.arctan2(input=_t(A), other=_t(B))), np.arctan2(A, B), rtol=1e-5)
    np.testing.assert_allclose(_np(mint.xlogy(_t(A), _t(POS))), A * np.log(POS), rtol=1e-5, atol=1e-6)
    with np.errstate(divide="ignore", invalid="ignore"):  # log(0) inside; xlogy(0, 0) is 0 by definition
        np.testing.assert_allclose(_np(mint.xlogy(_t(np.zeros(2, np.float32)), _t(np.zeros(2, np.float32)))), [0, 0])
    np.testing.assert_allclose(_np(mint.hypot(_t(A), _t(B))), np.hypot(A, B), rtol=1e-5)


def test_third_reductions_match_numpy():
    v = np.array([[4.0, 1.0, 3.0, 0.5], [2.0, 9.0, 1.0, 8.0]], np.float32)
    np.testing.assert_allclose(_np(mint.cumprod(input=_t(v), dim=1)), np.cumprod(v, 1), rtol=1e-6)
    assert mint.cumprod(_t(v), 0, dtype=ms.float64).dtype == ms.float64
    values, indices = mint.cummin(_t(v), dim=1)
    np.testing.assert_array_equal(_np(values), np.minimum.accumulate(v, 1))
    np.testing.assert_array_equal(_np(indices), [[0, 1, 1, 3], [0, 0, 2, 2]])
    nan = v.copy()
    nan[0, 1] = np.nan
    np.testing.assert_allclose(_np(mint.nansum(_t(nan), dim=1, keepdim=True)), np.nansum(nan, 1, keepdims=True))
    assert float(mint.nansum(_t(nan))) == pytest.approx(float(np.nansum(nan)))
    std, mean = mint.std_mean(_t(X3), dim=(0, 2))
    np.testing.assert_allclose(_np(std), X3.std((0, 2), ddof=1), rtol=1e-5)
    np.testing.assert_allclose(_np(mean), X3.mean((0, 2)), rtol=1e-5, atol=1e-7)
    var, mean = mint.var_mean(_t(X3), dim=1, correction=0, keepdim=True)
    np.testing.assert_allclose(_np(var), X3.var(1, keepdims=True), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(_np(mean), X3.mean(1, keepdims=True), rtol=1e-5, atol=1e-7)
    assert float(mint.var_mean(_t(X3))[0]) == pytest.approx(float(X3.var(ddof=1)), rel=1e-5)


def test_third_linear_algebra_and_shapes():
    rng = np.random.default_rng(28)
    m, vec = rng.standard_normal((3, 4)).astype(np.float32), rng.standard_normal(4).astype(np.float32)
    np.testing.assert_allclose(_np(mint.mv(input=_t(m), vec=_t(vec))), m @ vec, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(float(mint.dot(_t(vec), _t(vec * 2))), float(vec @ (vec * 2)), rtol=1e-5)
    with pytest.raises(ValueError, match="mint.dot: expects two 1-D"):
        mint.dot(_t(m), _t(vec))
    b1, b2 = rng.standard_normal((2, 3, 4)).astype(np.float32), rng.standard_normal((2, 4, 5)).astype(np.float32)
    c = rng.standard_normal((3, 5)).astype(np.float32)
    np.testing.assert_allclose(_np(mint.addbmm(_t(c), _t(b1), _t(b2), beta=0.5, alpha=2)),
                               0.5 * c + 2 * (b1 @ b2).sum(0), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(_np(mint.concat((_t(A), _t(B)), dim=1)), np.concatenate([A, B], 1))
    np.testing.assert_array_equal(_np(mint.swapaxes(_t(X3), 0, 2)), X3.swapaxes(0, 2))
    np.testing.assert_array_equal(_np(mint.t(_t(A))), A.T)
    np.testing.assert_array_equal(_np(mint.t(_t(vec))), vec)
    with pytest.raises(ValueError, match="mint.t"):
        mint.t(_t(X3))
    parts = mint.unbind(_t(X3), dim=1)
    assert len(parts) == 3 and all(p.shape == (2, 4) for p in parts)
    np.testing.assert_array_equal(_np(parts[2]), X3[:, 2])
    np.testing.assert_array_equal(_np(mint.select(_t(X3), 2, -1)), X3[:, :, -1])
    np.testing.assert_array_equal(_np(mint.select(input=_t(X3), dim=0, index=1)), X3[1])
    with pytest.raises(ValueError, match="mint.select: index 4 is out of range"):
        mint.select(_t(X3), 2, 4)
    with pytest.raises(TypeError, match="mint.select"):
        mint.select(_t(X3), 0, 0.5)
    copy = mint.clone(_t(A))
    np.testing.assert_array_equal(_np(copy), A)
    np.testing.assert_array_equal(_np(ms.grad(lambda x: (mint.clone(x) * 3).sum())(_t(A))), np.full_like(A, 3))


def test_third_random_functions():
    ms.set_seed(29)
    draws = _np(mint.normal(2.0, 0.5, (20000,)))
    assert abs(draws.mean() - 2.0) < 0.02 and abs(draws.std() - 0.5) < 0.02
    ms.set_seed(29)
    np.testing.assert_array_equal(_np(mint.normal(2.0, 0.5, size=(20000,))), draws)  # the seed decides
    mean = _t(np.array([0.0, 100.0], np.float32))
    assert mint.normal(mean, _t(np.ones((3, 1), np.float32))).shape == (3, 2)
    assert _np(mint.normal(mean, 0.0))[1] == 100.0
    with pytest.raises(ValueError, match="mint.normal: give size"):
        mint.normal(0.0, 1.0)
    r = _np(mint.randint(3, 7, (1000,)))
    assert r.dtype == np.int64 and r.min() == 3 and r.max() == 6
    r = _np(mint.randint(4, size=(1000,)))
    assert r.min() == 0 and r.max() == 3
    assert mint.randint(2, (3, 2)).shape == (3, 2)
    with pytest.raises(TypeError, match="mint.randint: size is required"):
        mint.randint(5)
    like = mint.randint_like(_t(np.zeros((50, 2), np.int32)), 10)
    assert like.shape == (50, 2) and like.dtype == ms.int32 and 0 <= _np(like).min() and _np(like).max() < 10
    perm = _np(mint.randperm(50))
    assert perm.dtype == np.int64 and sorted(perm.tolist()) == list(range(50))
    p = np.array([0.0, 1.0, 0.0, 1.0], np.float32)
    np.testing.assert_array_equal(_np(mint.bernoulli(_t(p))), p)
    assert 0.4 < _np(mint.bernoulli(_t(np.full(4000, 0.5, np.float32)))).mean() < 0.6
    e = mint.empty(2, 3, dtype=ms.float64)
    assert e.shape == (2, 3) and e.dtype == ms.float64 and mint.empty((4,)).shape == (4,)
    assert mint.empty_like(_t(A)).shape == A.shape
    with pytest.raises(ValueError, match="generator"):
        mint.randperm(3, generator=object())


def test_third_activation_layers_and_functional():
    lsig = -np.log1p(np.exp(-A))
    cases = [
        (F.relu6(_t(A * 3)), np.clip(A * 3, 0, 6)), (mint.nn.ReLU6()(_t(A * 3)), np.clip(A * 3, 0, 6)),
        (F.logsigmoid(_t(A)), lsig), (mint.nn.LogSigmoid()(_t(A)), lsig),
        (F.hardtanh(_t(A), -0.5, 1.0), np.clip(A, -0.5, 1.0)),
        (mint.nn.Hardtanh(min_val=-2.0, max_val=0.3)(_t(A)), np.clip(A, -2.0, 0.3)),
        (F.softshrink(_t(A), 1.0), np.where(A > 1, A - 1, np.where(A < -1, A + 1, 0))),
        (mint.nn.Softshrink()(_t(A)), np.where(A > 0.5, A - 0.5, np.where(A < -0.5, A + 0.5, 0))),
        (F.hardshrink(_t(A), lambd=1.0), np.where(np.abs(A) > 1, A, 0)),
        (mint.nn.Hardshrink(0.3)(_t(A)), np.where(np.abs(A) > 0.3, A, 0)),
        (F.threshold(_t(A), 0.3, -7.0), np.where(A > 0.3, A, -7.0)),
        (mint.nn.Threshold(0.3, -7.0)(_t(A)), np.where(A > 0.3, A, -7.0)),
        (F.softmin(_t(A), dim=0), _softmax(-A, 0)), (mint.nn.Softmin(dim=1)(_t(A)), _softmax(-A, 1)),
        (mint.nn.GLU(dim=0)(_t(X3)), X3[:1] / (1 + np.exp(-X3[1:]))),
        (F.cosine_similarity(_t(A), _t(B)),
         (A * B).sum(1) / np.maximum(np.linalg.norm(A, axis=1) * np.linalg.norm(B, axis=1), 1e-8)),
    ]
    for k, (got, want) in enumerate(cases):
        np.testing.assert_allclose(_np(got), want, rtol=1e-5, atol=1e-6, err_msg=f"case {k}")
    with pytest.raises(ValueError, match="inplace"):
        mint.nn.ReLU6(inplace=True)
    with pytest.raises(ValueError, match="mint.nn.functional.hardtanh: min_val"):
        F.hardtanh(_t(A), 1.0, 0.0)


def test_third_padding_layers_match_numpy_pad():
    x = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)
    x1, x3 = x[0], x[None]
    cases = [
        (mint.nn.ConstantPad1d((1, 2), 3.5)(_t(x1)), np.pad(x1, ((0, 0), (0, 0), (1, 2)), constant_values=3.5)),
        (mint.nn.ConstantPad2d(1, -1.0)(_t(x)), np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)), constant_values=-1)),
        (mint.nn.ConstantPad3d((1, 0, 0, 1, 2, 0), 2.0)(_t(x3)),  # last dimension first, as torch
         np.pad(x3, ((0, 0), (0, 0), (2, 0), (0, 1), (1, 0)), constant_values=2.0)),
        (mint.nn.ReflectionPad1d(2)(_t(x1)), np.pad(x1, ((0, 0), (0, 0), (2, 2)), mode="reflect")),
        (mint.nn.ReflectionPad2d((1, 2, 2, 1))(_t(x)), np.pad(x, ((0, 0), (0, 0), (2, 1), (1, 2)), mode="reflect")),
        (mint.nn.ReplicationPad1d((0, 3))(_t(x1)), np.pad(x1, ((0, 0), (0, 0), (0, 3)), mode="edge")),
        (mint.nn.ReplicationPad2d(1)(_t(x)), np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)), mode="edge")),
        (mint.nn.ReplicationPad3d(1)(_t(x3)), np.pad(x3, ((0, 0), (0, 0), (1, 1), (1, 1), (1, 1)), mode="edge")),
        (mint.nn.ReflectionPad3d(1)(_t(x3)), np.pad(x3, ((0, 0), (0, 0), (1, 1), (1, 1), (1, 1)), mode="reflect")),
        (mint.nn.ZeroPad1d((2, 1))(_t(x1)), np.pad(x1, ((0, 0), (0, 0), (2, 1)))),
        (mint.nn.ZeroPad3d(1)(_t(x3)), np.pad(x3, ((0, 0), (0, 0), (1, 1), (1, 1), (1, 1)))),
    ]
    for k, (got, want) in enumerate(cases):
        np.testing.assert_array_equal(_np(got), want, err_msg=f"case {k}")


def test_third_pooling_norm_fold_dropout_layers():
    rng = np.random.default_rng(30)
    x1 = rng.standard_normal((2, 3, 8)).astype(np.float32)
    np.testing.assert_allclose(_np(F.adaptive_avg_pool1d(_t(x1), 4)), x1.reshape(2, 3, 4, 2).mean(-1), rtol=1e-6)
    np.testing.assert_allclose(_np(mint.nn.AdaptiveAvgPool1d(2)(_t(x1))), x1.reshape(2, 3, 2, 4).mean(-1),
                               rtol=1e-6)
    x3 = rng.standard_normal((1, 2, 4, 4, 6)).astype(np.float32)
    np.testing.assert_allclose(_np(mint.nn.AdaptiveAvgPool3d((2, 1, 3))(_t(x3))),
                               x3.reshape(1, 2, 2, 2, 1, 4, 3, 2).mean((3, 5, 7)), rtol=1e-5, atol=1e-6)
    # BatchNorm3d with torch's momentum: running = 0.7 * running + 0.3 * batch
    bn = mint.nn.BatchNorm3d(2, momentum=0.3)
    bn.set_train(True)
    out = _np(bn(_t(x3)))
    mean, var = x3.mean((0, 2, 3, 4)), x3.var((0, 2, 3, 4))
    np.testing.assert_allclose(out, (x3 - mean[:, None, None, None]) / np.sqrt(var[:, None, None, None] + 1e-5),
                               rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(_np(bn.bn2d.moving_mean), 0.3 * mean, rtol=1e-5, atol=1e-6)  # MindSpore keeps a bn2d
    # Unfold: columns of every 2x2 window (stride 2: disjoint); Fold puts them back
    img = rng.standard_normal((1, 2, 4, 6)).astype(np.float32)
    cols = _np(mint.nn.Unfold(2, stride=2)(_t(img)))
    want = img.reshape(1, 2, 2, 2, 3, 2).transpose(0, 1, 3, 5, 2, 4).reshape(1, 8, 6)
    np.testing.assert_array_equal(cols, want)
    np.testing.assert_array_equal(_np(mint.nn.Fold((4, 6), 2, stride=2)(_t(cols))), img)
    # overlapping windows: Fold(Unfold(x)) counts each pixel once per window covering it
    ones = np.ones((1, 1, 3, 3), np.float32)
    counts = _np(mint.nn.Fold((3, 3), 2)(mint.nn.Unfold(2)(_t(ones))))
    np.testing.assert_array_equal(counts[0, 0], [[1, 2, 1], [2, 4, 2], [1, 2, 1]])
    # Dropout2d: whole channels are zero or scaled by 1/(1-p); identity when not training
    drop = mint.nn.Dropout2d(p=0.5)
    drop.set_train(True)
    ms.set_seed(31)
    y = _np(drop(_t(np.ones((4, 16, 3, 3), np.float32))))
    per_channel = y.reshape(4, 16, 9)
    assert set(np.unique(per_channel)) <= {0.0, 2.0} and (per_channel.min(-1) == per_channel.max(-1)).all()
    assert 0 < (per_channel[..., 0] == 0).sum() < 64
    drop.set_train(False)
    np.testing.assert_array_equal(_np(drop(_t(img))), img)
    np.testing.assert_array_equal(_np(F.dropout2d(_t(img), 0.5, training=False)), img)


def test_third_functional_batch_norm_and_pixel_shuffle():
    rng = np.random.default_rng(32)
    x = rng.standard_normal((4, 3, 2, 2)).astype(np.float32)
    mean, var = x.mean((0, 2, 3)), x.var((0, 2, 3))
    running_mean = ms.Parameter(_t(np.zeros(3, np.float32)), name="rm")
    running_var = ms.Parameter(_t(np.ones(3, np.float32)), name="rv")
    w, b = rng.standard_normal(3).astype(np.float32), rng.standard_normal(3).astype(np.float32)
    out = _np(F.batch_norm(_t(x), running_mean, running_var, _t(w), _t(b), training=True, momentum=0.2))
    shape = (1, 3, 1, 1)
    np.testing.assert_allclose(out, (x - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + 1e-5) * w.reshape(shape)
                               + b.reshape(shape), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(_np(running_mean), 0.2 * mean, rtol=1e-5, atol=1e-6)
    n = x.size / 3
    np.testing.assert_allclose(_np(running_var), 0.8 + 0.2 * var * n / (n - 1), rtol=1e-5)
    # eval: the running statistics normalise; weight/bias None mean 1 and 0
    rm, rv = rng.standard_normal(3).astype(np.float32), rng.random(3).astype(np.float32) + 0.5
    np.testing.assert_allclose(_np(F.batch_norm(_t(x), _t(rm), _t(rv))),
                               (x - rm.reshape(shape)) / np.sqrt(rv.reshape(shape) + 1e-5), rtol=1e-5, atol=1e-6)
    # training without running statistics (torch allows it)
    np.testing.assert_allclose(_np(F.batch_norm(_t(x), None, None, training=True)),
                               (x - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + 1e-5), rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError, match="mint.nn.functional.batch_norm: running_mean"):
        F.batch_norm(_t(x), None, None)
    img = np.arange(2 * 8 * 2 * 3, dtype=np.float32).reshape(2, 8, 2, 3)
    want = img.reshape(2, 2, 2, 2, 2, 3).transpose(0, 1, 4, 2, 5, 3).reshape(2, 2, 4, 6)
    np.testing.assert_array_equal(_np(F.pixel_shuffle(_t(img), 2)), want)
    np.testing.assert_array_equal(_np(F.pixel_unshuffle(_t(want), 2)), img)


def _third_composite(x, idx, src, w):
    """The new differentiable names in one function: under jit it must equal PyNative."""
    s = mint.scatter_add(x, 1, idx, src)
    i = mint.index_add(x, 1, idx[0], mint.narrow(src, 1, 0, 2), alpha=0.5)
    y = F.conv_transpose2d(mint.reshape(x, (1, 1, 2, 3)), w, stride=2, padding=1, output_padding=1)
    a = F.relu6(x * 4) + F.logsigmoid(x) + F.hardtanh(x) + F.softshrink(x) + F.softmin(x, dim=1)
    c = mint.cumprod(x, 1) + mint.clone(x) + mint.xlogy(x, x * x + 1) + mint.t(mint.t(x))
    std, mean = mint.std_mean(x, dim=1)
    return s, i, y, a, c, std, mean, mint.unbind(x, 0)[1], mint.concat((x, src), 0)


def test_third_group_under_jit_equals_pynative_with_gradients():
    import capture
    x = _t(A + np.float32(0.125))  # away from the kinks of relu6, hardtanh and softshrink (finite differences)
    idx = _t(np.array([[0, 2], [1, 1]], np.int64))
    src = _t(B)
    w = _t(np.random.default_rng(33).standard_normal((1, 2, 3, 3)).astype(np.float32))
    eager = _third_composite(x, idx, src, w)
    graph = ms.jit(_third_composite)(x, idx, src, w)
    assert len(eager) == len(graph)
    for k, (e, g) in enumerate(zip(eager, graph)):
        assert e.shape == g.shape and e.dtype == g.dtype, k
        np.testing.assert_allclose(_np(g), _np(e), rtol=1e-5, atol=1e-6, err_msg=f"output {k}")
    assert capture.explain(_third_composite)(x, idx, src, w).graph_break_count == 0

    def loss(x, src, w):
        return sum((o * o).sum() for o in _third_composite(x, idx, src, w))

    grad_fn = ms.grad(loss, grad_position=(0, 1, 2))
    eager_grads, graph_grads = grad_fn(x, src, w), ms.jit(grad_fn)(x, src, w)
    for e, g in zip(eager_grads, graph_grads):
        np.testing.assert_allclose(_np(g), _np(e), rtol=1e-4, atol=1e-5)
    # the PyNative gradient against central differences (float64)
    x64, src64, w64 = (_t(_np(v).astype(np.float64)) for v in (x, src, w))
    gx = _np(ms.grad(loss, grad_position=0)(x64, src64, w64))
    base = _np(x64)
    for pos in np.ndindex(*base.shape):
        hi, lo = base.copy(), base.copy()
        hi[pos] += 1e-6
        lo[pos] -= 1e-6
        numeric = (float(loss(_t(hi), src64, w64)) - float(loss(_t(lo), src64, w64))) / 2e-6
        assert gx[pos] == pytest.approx(numeric, rel=1e-4, abs=1e-4), pos


def test_conv_transpose2d_cell_in_graph_mode_equals_pynative():
    ms.set_seed(34)
    layer = mint.nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1, output_padding=1, groups=1)
    x = _t(np.random.default_rng(35).standard_normal((2, 2, 4, 4)).astype(np.float32))
    eager = _np(layer(x))
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        graph = _np(layer(x))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(graph, eager, rtol=1e-5, atol=1e-6)


def test_third_group_matches_torch():
    torch = pytest.importorskip("torch")
    T = torch.from_numpy
    rng = np.random.default_rng(36)
    x = rng.standard_normal((2, 4, 5, 5)).astype(np.float32)
    ms.set_seed(37)
    ours = mint.nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2, dilation=1)
    theirs = torch.nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2)
    with torch.no_grad():
        theirs.weight.copy_(T(_np(ours.weight)))
        theirs.bias.copy_(T(_np(ours.bias)))
    np.testing.assert_allclose(_np(ours(_t(x))), theirs(T(x)).detach().numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(_np(ours(_t(x), output_size=(9, 10))),
                               theirs(T(x), output_size=(9, 10)).detach().numpy(), rtol=1e-4, atol=1e-5)
    ints = rng.integers(0, 4, (6, 3))
    for dim in (None, 0, 1):
        mine = mint.unique(_t(ints), return_inverse=True, return_counts=True, dim=dim)
        ref = torch.unique(T(ints), return_inverse=True, return_counts=True, dim=dim)
        for a, b in zip(mine, ref):
            np.testing.assert_array_equal(_np(a), b.numpy())
    idx = rng.integers(0, 3, (2, 4))
    src = rng.standard_normal((3, 5)).astype(np.float32)
    base = rng.standard_normal((3, 4)).astype(np.float32)
    np.testing.assert_allclose(_np(mint.scatter_add(_t(base), 0, _t(idx), _t(src))),
                               torch.scatter_add(T(base), 0, T(idx), T(src)).numpy(), rtol=1e-6)
    index = np.array([3, 0, 3], np.int64)
    np.testing.assert_allclose(_np(mint.index_add(_t(base), 1, _t(index), _t(src[:, :3]), alpha=-2)),
                               torch.index_add(T(base), 1, T(index), T(src[:, :3]), alpha=-2).numpy(), rtol=1e-6)
    tF = torch.nn.functional
    pairs = [
        (F.softshrink(_t(x), 0.7), tF.softshrink(T(x), 0.7)), (F.logsigmoid(_t(x)), tF.logsigmoid(T(x))),
        (F.softmin(_t(x), dim=1), tF.softmin(T(x), dim=1)),
        (F.cosine_similarity(_t(x), _t(x[::-1].copy()), dim=1), tF.cosine_similarity(T(x), T(x[::-1].copy()))),
        (mint.nn.GLU(dim=1)(_t(x)), torch.nn.GLU(dim=1)(T(x))),
        (mint.nn.ReflectionPad2d((1, 2, 0, 1))(_t(x)), torch.nn.ReflectionPad2d((1, 2, 0, 1))(T(x))),
    ]
    for k, (a, b) in enumerate(pairs):
        np.testing.assert_allclose(_np(a), b.detach().numpy(), rtol=1e-5, atol=1e-6, err_msg=f"case {k}")


# ---- the fourth group ----------------------------------------------------------------------------------

def test_fourth_group_functions_match_numpy():
    rng = np.random.default_rng(40)
    v = np.array([1.0, 2.0, 3.0], np.float32)
    np.testing.assert_allclose(_np(mint.addcmul(_t(A), _t(B), _t(POS), value=0.5)), A + 0.5 * B * POS, rtol=1e-6)
    np.testing.assert_allclose(_np(mint.addcdiv(_t(A), _t(B), _t(POS), value=-2)), A - 2 * B / POS, rtol=1e-6)
    np.testing.assert_allclose(_np(mint.lerp(_t(A), _t(B), 0.25)), A + 0.25 * (B - A), rtol=1e-6)
    np.testing.assert_allclose(_np(mint.logaddexp2(_t(A), _t(B))), np.logaddexp2(A, B), rtol=1e-5)
    for k in (0, 1, -2):
        np.testing.assert_array_equal(_np(mint.diag(_t(v), k)), np.diag(v, k))
        np.testing.assert_array_equal(_np(mint.diag(_t(X3[0]), diagonal=k)), np.diag(X3[0], k))
    with pytest.raises(ValueError, match="mint.diag: expects a 1-D or 2-D"):
        mint.diag(_t(X3))
    np.testing.assert_array_equal(_np(mint.diagonal(_t(X3), offset=1, dim1=1, dim2=2)),
                                  np.diagonal(X3, 1, 1, 2))
    np.testing.assert_array_equal(_np(mint.movedim(_t(X3), 0, -1)), np.moveaxis(X3, 0, -1))
    np.testing.assert_array_equal(_np(mint.moveaxis(_t(X3), (0, 1), (2, 0))), np.moveaxis(X3, (0, 1), (2, 0)))
    np.testing.assert_array_equal(_np(mint.hstack((_t(A), _t(B)))), np.hstack((A, B)))
    np.testing.assert_array_equal(_np(mint.vstack([_t(v), _t(v * 2)])), np.vstack([v, v * 2]))
    np.testing.assert_allclose(_np(mint.kron(_t(A), _t(B[:1, :2]))), np.kron(A, B[:1, :2]), rtol=1e-6)
    np.testing.assert_array_equal(_np(mint.rot90(_t(X3))), np.rot90(X3))
    np.testing.assert_array_equal(_np(mint.rot90(_t(X3), 3, dims=[1, 2])), np.rot90(X3, 3, (1, 2)))
    got = mint.tril_indices(3, 4, 1)
    assert got.dtype == ms.int64
    np.testing.assert_array_equal(_np(got), np.stack(np.tril_indices(3, 1, 4)))
    np.testing.assert_array_equal(_np(mint.triu_indices(4, 3, -1)), np.stack(np.triu_indices(4, -1, 3)))
    prod = np.array([[a, b] for a in (1, 2) for b in (3, 4, 5)])
    np.testing.assert_array_equal(_np(mint.cartesian_prod(_t(np.array([1, 2])), _t(np.array([3, 4, 5])))), prod)
    bounds = np.array([1.0, 2.0, 2.5], np.float32)
    values = np.array([0.5, 1.0, 2.2, 9.0], np.float32)
    got = mint.bucketize(_t(values), _t(bounds))
    assert got.dtype == ms.int64
    np.testing.assert_array_equal(_np(got), np.searchsorted(bounds, values, "left"))
    got = mint.bucketize(_t(values), _t(bounds), out_int32=True, right=True)
    assert got.dtype == ms.int32
    np.testing.assert_array_equal(_np(got), np.searchsorted(bounds, values, "right"))
    data = rng.random(50).astype(np.float32) * 4
    np.testing.assert_array_equal(_np(mint.histc(_t(data), bins=4, min=0, max=4)),
                                  np.histogram(data, 4, (0, 4))[0])


def test_fourth_group_special_and_linalg():
    import math
    x = A / 2
    cases = [
        (mint.special.erfc(_t(x)), np.vectorize(math.erfc)(x)), (mint.special.expm1(_t(x)), np.expm1(x)),
        (mint.special.exp2(_t(x)), np.exp2(x)), (mint.special.log1p(_t(POS)), np.log1p(POS)),
        (mint.special.log_softmax(_t(x), dim=1), np.log(_softmax(x, 1))),
        (mint.special.round(_t(np.array([0.5, 1.5, -2.5], np.float32))), [0.0, 2.0, -2.0]),
        (mint.special.sinc(_t(x)), np.sinc(x)),
        (mint.special.logit(_t(np.array([0.25, 0.0], np.float32)), eps=0.1),
         np.log(np.array([0.25, 0.1]) / (1 - np.array([0.25, 0.1])))),
    ]
    for k, (got, want) in enumerate(cases):
        np.testing.assert_allclose(_np(got), want, rtol=1e-5, atol=1e-6, err_msg=f"case {k}")
    m = np.array([[2.0, 1.0], [1.0, 3.0]], np.float32)
    np.testing.assert_allclose(_np(mint.linalg.inv(_t(np.stack([m, m * 2])))), np.linalg.inv(np.stack([m, m * 2])),
                               rtol=1e-5)
    with pytest.raises(ValueError, match="mint.linalg.inv: expects"):
        mint.linalg.inv(_t(A))
    np.testing.assert_allclose(_np(mint.linalg.vector_norm(_t(X3), ord=3, dim=(1, 2))),
                               (np.abs(X3) ** 3).sum((1, 2)) ** (1 / 3), rtol=1e-5)
    np.testing.assert_allclose(_np(mint.linalg.matrix_norm(_t(X3))), np.linalg.norm(X3, "fro", (1, 2)), rtol=1e-5)
    np.testing.assert_allclose(float(mint.linalg.norm(_t(m), ord=1)), np.linalg.norm(m, 1), rtol=1e-6)
    np.testing.assert_allclose(float(mint.linalg.norm(_t(X3))), np.linalg.norm(X3.reshape(-1)), rtol=1e-5)


def test_fourth_group_functional_and_layers_match_numpy():
    rng = np.random.default_rng(41)
    x1 = rng.standard_normal((2, 3, 9)).astype(np.float32)
    padded = np.pad(x1, ((0, 0), (0, 0), (1, 1)), constant_values=-np.inf)
    windows = np.stack([padded[..., i:i + 3] for i in range(0, 9, 2)], -2)  # (2, 3, 5, 3): k 3, stride 2, pad 1
    np.testing.assert_array_equal(_np(F.max_pool1d(_t(x1), 3, 2, 1)), windows.max(-1))
    values, where = mint.nn.MaxPool1d(3, stride=2, padding=1, return_indices=True)(_t(x1))
    np.testing.assert_array_equal(_np(values), windows.max(-1))
    np.testing.assert_array_equal(_np(where), windows.argmax(-1) + np.arange(0, 9, 2) - 1)
    zero_padded = np.pad(x1, ((0, 0), (0, 0), (1, 1)))
    means = np.stack([zero_padded[..., i:i + 3] for i in range(0, 9, 2)], -2).mean(-1)
    np.testing.assert_allclose(_np(F.avg_pool1d(_t(x1), 3, 2, 1)), means, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(_np(mint.nn.AvgPool1d(3)(_t(x1))), x1.reshape(2, 3, 3, 3).mean(-1), rtol=1e-6)
    np.testing.assert_array_equal(_np(F.adaptive_max_pool1d(_t(x1), 3)), x1.reshape(2, 3, 3, 3).max(-1))
    values, where = mint.nn.AdaptiveMaxPool1d(3, return_indices=True)(_t(x1))
    np.testing.assert_array_equal(_np(where), x1.reshape(2, 3, 3, 3).argmax(-1) + np.array([0, 3, 6]))
    img = rng.standard_normal((1, 2, 4, 6)).astype(np.float32)
    np.testing.assert_array_equal(_np(mint.nn.AdaptiveMaxPool2d((2, 3))(_t(img))),
                                  img.reshape(1, 2, 2, 2, 3, 2).max((3, 5)))
    vol = rng.standard_normal((1, 2, 4, 2, 6)).astype(np.float32)
    np.testing.assert_allclose(_np(F.adaptive_avg_pool3d(_t(vol), (2, 1, 3))),
                               vol.reshape(1, 2, 2, 2, 1, 2, 3, 2).mean((3, 5, 7)), rtol=1e-5, atol=1e-6)
    cases = [
        (F.softsign(_t(A)), A / (1 + np.abs(A))), (mint.nn.Softsign()(_t(A)), A / (1 + np.abs(A))),
        (F.tanhshrink(_t(A)), A - np.tanh(A)), (mint.nn.Tanhshrink()(_t(A)), A - np.tanh(A)),
        (F.celu(_t(A), alpha=2.0), np.maximum(A, 0) + np.minimum(0, 2 * (np.exp(A / 2) - 1))),
        (mint.nn.CELU()(_t(A)), np.maximum(A, 0) + np.minimum(0, np.exp(A) - 1)),
        (mint.nn.CosineSimilarity(dim=0)(_t(A), _t(B)),
         (A * B).sum(0) / (np.linalg.norm(A, axis=0) * np.linalg.norm(B, axis=0))),
        (mint.nn.Unflatten(1, (3, 1))(_t(A)), A.reshape(2, 3, 1)),
    ]
    for k, (got, want) in enumerate(cases):
        np.testing.assert_allclose(_np(got), want, rtol=1e-5, atol=1e-6, err_msg=f"case {k}")
    with pytest.raises(ValueError, match="mint.nn.functional.max_pool1d: expects"):
        F.max_pool1d(_t(img), 2)
    with pytest.raises(TypeError, match="mint.nn.functional.avg_pool1d: kernel_size"):
        F.avg_pool1d(_t(x1), 2.5)


def _conv3d_oracle(x, w, b, pad):
    xp = np.pad(x, ((0, 0), (0, 0)) + ((pad, pad),) * 3)
    k = w.shape[2]
    d, h, wd = (s - k + 1 for s in xp.shape[2:])
    out = np.zeros((x.shape[0], w.shape[0], d, h, wd))
    for i, j, m in np.ndindex(d, h, wd):
        out[:, :, i, j, m] = np.einsum("ncxyz,ocxyz->no", xp[:, :, i:i + k, j:j + k, m:m + k], w)
    return out + b[None, :, None, None, None]


def test_conv3d_layer_and_functional_match_numpy():
    ms.set_seed(42)
    layer = mint.nn.Conv3d(2, 3, 3, padding=1)
    x = np.random.default_rng(43).standard_normal((2, 2, 3, 4, 3)).astype(np.float32)
    want = _conv3d_oracle(x, _np(layer.weight), _np(layer.bias), 1)
    np.testing.assert_allclose(_np(layer(_t(x))), want, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(_np(F.conv3d(_t(x), layer.weight, layer.bias, padding="same")), want, rtol=1e-4,
                               atol=1e-5)
    assert F.conv3d(_t(x), layer.weight, padding="valid").shape == (2, 3, 1, 2, 1)
    with pytest.raises(ValueError, match="mint.nn.functional.conv3d: padding"):
        F.conv3d(_t(x), layer.weight, padding="full")
    with pytest.raises(ValueError, match="mint.nn.Conv3d: padding_mode"):
        mint.nn.Conv3d(2, 3, 3, padding_mode="circular")


def test_fourth_group_losses_match_numpy():
    rng = np.random.default_rng(44)
    x, y = rng.standard_normal((4, 3)).astype(np.float32), rng.standard_normal((4, 3)).astype(np.float32)
    sign = np.where(rng.random(4) > 0.5, 1.0, -1.0).astype(np.float32)
    d = x - y
    huber = np.where(np.abs(d) < 0.5, 0.5 * d ** 2, 0.5 * (np.abs(d) - 0.25))
    cos = (x * y).sum(1) / (np.linalg.norm(x, axis=1) * np.linalg.norm(y, axis=1))
    cos_loss = np.where(sign > 0, 1 - cos, np.maximum(cos - 0.1, 0))
    z = rng.standard_normal((4, 3)).astype(np.float32)

    def dist(a, b):
        return np.linalg.norm(a - b + 1e-6, axis=1)

    triplet = np.maximum(dist(x, y) - dist(x, z) + 1.0, 0)
    cases = [
        (F.huber_loss(_t(x), _t(y), delta=0.5), huber.mean()),
        (mint.nn.HuberLoss(reduction="sum", delta=0.5)(_t(x), _t(y)), huber.sum()),
        (F.soft_margin_loss(_t(x[:, 0]), _t(sign)), np.log1p(np.exp(-sign * x[:, 0])).mean()),
        (mint.nn.SoftMarginLoss(reduction="none")(_t(x[:, 0]), _t(sign)), np.log1p(np.exp(-sign * x[:, 0]))),
        (F.margin_ranking_loss(_t(x[:, 0]), _t(y[:, 0]), _t(sign), margin=0.2),
         np.maximum(0, -sign * (x[:, 0] - y[:, 0]) + 0.2).mean()),
        (mint.nn.MarginRankingLoss()(_t(x[:, 0]), _t(y[:, 0]), _t(sign)),
         np.maximum(0, -sign * (x[:, 0] - y[:, 0])).mean()),
        (F.cosine_embedding_loss(_t(x), _t(y), _t(sign), margin=0.1), cos_loss.mean()),
        (mint.nn.CosineEmbeddingLoss(margin=0.1, reduction="sum")(_t(x), _t(y), _t(sign)), cos_loss.sum()),
        (F.triplet_margin_loss(_t(x), _t(y), _t(z)), triplet.mean()),
        (mint.nn.TripletMarginLoss(margin=1.0, reduction="none")(_t(x), _t(y), _t(z)), triplet),
    ]
    for k, (got, want) in enumerate(cases):
        np.testing.assert_allclose(_np(got), want, rtol=1e-5, atol=1e-6, err_msg=f"case {k}")


def _fourth_composite(x, y, w):
    a = mint.addcmul(x, y, x, value=0.5) + mint.addcdiv(x, y, x * x + 1) + mint.lerp(x, y, 0.3)
    b = mint.movedim(mint.reshape(x, (1, 2, 3)), 2, 0) + mint.diag(mint.diagonal(x), 0).sum()
    c = F.max_pool1d(mint.reshape(y, (1, 1, 6)), 2) + F.avg_pool1d(mint.reshape(x, (1, 1, 6)), 3, 1, 1)[..., :3]
    d = F.conv3d(mint.reshape(x, (1, 1, 1, 2, 3)), w, padding=1) + F.celu(x).sum() + F.softsign(y).sum()
    e = F.huber_loss(x, y) + F.triplet_margin_loss(x, y, x * 2) + mint.special.sinc(x).sum()
    return a, b, c, d, e, mint.linalg.vector_norm(x, dim=1), mint.hstack((x, y)), mint.rot90(x)


def test_fourth_group_under_jit_equals_pynative_with_gradients():
    import capture
    x, y = _t(A + np.float32(0.125)), _t(B)
    w = _t(np.random.default_rng(45).standard_normal((2, 1, 3, 3, 3)).astype(np.float32))
    eager = _fourth_composite(x, y, w)
    graph = ms.jit(_fourth_composite)(x, y, w)
    for k, (e, g) in enumerate(zip(eager, graph)):
        assert e.shape == g.shape and e.dtype == g.dtype, k
        np.testing.assert_allclose(_np(g), _np(e), rtol=1e-5, atol=1e-5, err_msg=f"output {k}")
    assert capture.explain(_fourth_composite)(x, y, w).graph_break_count == 0

    def loss(x, y, w):
        return sum((o * o).sum() for o in _fourth_composite(x, y, w))

    grad_fn = ms.grad(loss, grad_position=(0, 1, 2))
    for e, g in zip(grad_fn(x, y, w), ms.jit(grad_fn)(x, y, w)):
        np.testing.assert_allclose(_np(g), _np(e), rtol=1e-4, atol=1e-4)
    x64, y64, w64 = (_t(_np(v).astype(np.float64)) for v in (x, y, w))
    gx = _np(ms.grad(loss, grad_position=0)(x64, y64, w64))
    base = _np(x64)
    for pos in np.ndindex(*base.shape):
        hi, lo = base.copy(), base.copy()
        hi[pos] += 1e-6
        lo[pos] -= 1e-6
        numeric = (float(loss(_t(hi), y64, w64)) - float(loss(_t(lo), y64, w64))) / 2e-6
        assert gx[pos] == pytest.approx(numeric, rel=1e-4, abs=1e-4), pos


def test_fourth_group_matches_torch():
    torch = pytest.importorskip("torch")
    T = torch.from_numpy
    tF = torch.nn.functional
    rng = np.random.default_rng(46)
    x1 = rng.standard_normal((2, 3, 10)).astype(np.float32)
    vol = rng.standard_normal((1, 2, 4, 5, 3)).astype(np.float32)
    w3 = rng.standard_normal((4, 1, 3, 2, 3)).astype(np.float32)
    v = rng.standard_normal(4).astype(np.float32)
    pairs = [
        (F.max_pool1d(_t(x1), 3, 2, 1, ceil_mode=True), tF.max_pool1d(T(x1), 3, 2, 1, ceil_mode=True)),
        (F.avg_pool1d(_t(x1), 4, 3, 2, count_include_pad=False),
         tF.avg_pool1d(T(x1), 4, 3, 2, count_include_pad=False)),
        (F.adaptive_max_pool1d(_t(x1), 4), tF.adaptive_max_pool1d(T(x1), 4)),
        (F.conv3d(_t(vol), _t(w3), stride=(1, 2, 1), padding=(1, 0, 1), groups=2),
         tF.conv3d(T(vol), T(w3), stride=(1, 2, 1), padding=(1, 0, 1), groups=2)),
        (F.conv3d(_t(vol), _t(w3), padding="same", groups=2), tF.conv3d(T(vol), T(w3), padding="same", groups=2)),
        (mint.diag(_t(v), -1), torch.diag(T(v), -1)), (mint.diag(_t(x1[0]), 2), torch.diag(T(x1[0]), 2)),
        (mint.rot90(_t(vol), -1, (2, 4)), torch.rot90(T(vol), -1, (2, 4))),
        (mint.bucketize(_t(v), _t(np.sort(v[:2])), right=True), torch.bucketize(T(v), T(np.sort(v[:2])), right=True)),
        (F.triplet_margin_loss(_t(x1[0]), _t(x1[1]), _t(x1[0] * 0.5), margin=0.5, p=1, swap=True),
         tF.triplet_margin_loss(T(x1[0]), T(x1[1]), T(x1[0] * 0.5), margin=0.5, p=1, swap=True)),
        (F.cosine_embedding_loss(_t(x1[0]), _t(x1[1]), _t(np.array([1.0, -1.0, 1.0], np.float32)), margin=0.2),
         tF.cosine_embedding_loss(T(x1[0]), T(x1[1]), T(np.array([1.0, -1.0, 1.0], np.float32)), margin=0.2)),
        (mint.linalg.norm(_t(x1[0]), ord=float("inf")), torch.linalg.norm(T(x1[0]), ord=float("inf"))),
    ]
    for k, (a, b) in enumerate(pairs):
        np.testing.assert_allclose(_np(a), b.detach().numpy(), rtol=1e-5, atol=1e-5, err_msg=f"case {k}")


@pytest.mark.parametrize("dim", [None, 0, 1])
def test_unique_consecutive_matches_a_numpy_run_oracle(dim):
    x = np.array([[1, 1, 2], [1, 1, 2], [3, 3, 3], [1, 1, 2]], np.int64)
    rows = x.reshape(-1, 1) if dim is None else np.moveaxis(x, dim, 0).reshape(x.shape[dim], -1)
    starts = np.r_[True, (rows[1:] != rows[:-1]).any(1)]
    runs = np.cumsum(starts) - 1
    keep = np.flatnonzero(starts)
    want = x.reshape(-1)[keep] if dim is None else np.take(x, keep, axis=dim)
    values, inverse, counts = mint.unique_consecutive(_t(x), return_inverse=True, return_counts=True, dim=dim)
    np.testing.assert_array_equal(_np(values), want)
    np.testing.assert_array_equal(_np(inverse), runs.reshape(x.shape) if dim is None else runs)
    np.testing.assert_array_equal(_np(counts), np.diff(np.r_[keep, len(rows)]))
    assert inverse.dtype == ms.int64 and counts.dtype == ms.int64
    np.testing.assert_array_equal(_np(mint.unique_consecutive(_t(x), dim=dim)), want)
    with pytest.raises(TypeError, match="mint.unique_consecutive: return_inverse"):
        mint.unique_consecutive(_t(x), return_inverse=None)


class _UpNet(ms.nn.Cell):
    """New mint layers in one network: transposed conv, 3-D conv and norm, pads, 1-D pooling, activations."""

    def __init__(self):
        super().__init__()
        self.up = mint.nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1, output_padding=1)
        self.pad = mint.nn.ReflectionPad2d(1)
        self.act = mint.nn.ReLU6()
        self.conv3 = mint.nn.Conv3d(1, 2, 3, padding=1)
        self.norm3 = mint.nn.BatchNorm3d(2)
        self.pool = mint.nn.MaxPool1d(2)
        self.soft = mint.nn.Softshrink(0.1)
        self.head = mint.nn.Linear(2 * 3 * 50, 4)

    def construct(self, x):
        h = self.act(self.pad(self.up(x)) * 3)  # (N, 3, 10, 10)
        v = self.norm3(self.conv3(mint.unsqueeze(h, 1)))  # (N, 2, 3, 10, 10)
        flat = self.pool(mint.reshape(v, (v.shape[0], 2 * 3 * 10, 10)))  # (N, 60, 5)
        return F.log_softmax(self.head(mint.reshape(self.soft(flat), (flat.shape[0], -1))), dim=-1)


def _up_net_step(mode):
    ms.set_seed(47)
    net = _UpNet()
    net.set_train(True)
    x = _t(np.random.default_rng(48).standard_normal((2, 2, 4, 4)).astype(np.float32))
    y = _t(np.array([1, 3], np.int32))
    grad_fn = ms.value_and_grad(lambda x, y: F.nll_loss(net(x), y), None, net.trainable_params())
    ms.set_context(mode=mode)
    try:
        loss, grads = grad_fn(x, y)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    return float(loss), [_np(g) for g in grads], _np(net.norm3.bn2d.moving_mean)


def test_new_layers_train_step_graph_mode_equals_pynative():
    eager_loss, eager_grads, eager_stat = _up_net_step(ms.PYNATIVE_MODE)
    graph_loss, graph_grads, graph_stat = _up_net_step(ms.GRAPH_MODE)
    assert graph_loss == pytest.approx(eager_loss, rel=1e-5)
    assert len(eager_grads) == 8 and any(np.abs(g).sum() > 0 for g in eager_grads)
    for k, (e, g) in enumerate(zip(eager_grads, graph_grads)):
        np.testing.assert_allclose(g, e, rtol=1e-4, atol=1e-5, err_msg=f"grad {k}")
    np.testing.assert_allclose(graph_stat, eager_stat, rtol=1e-5, atol=1e-6)
    assert np.abs(eager_stat).sum() > 0  # the moving statistics were updated (training mode)
    import capture
    net = _UpNet()
    assert capture.explain(net.construct)(_t(np.ones((2, 2, 4, 4), np.float32))).graph_break_count == 0
