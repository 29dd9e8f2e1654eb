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
