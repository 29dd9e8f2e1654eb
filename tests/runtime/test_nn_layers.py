"""nn layers against numpy formulas: Dense, Conv2d, pooling, BatchNorm, LayerNorm, Dropout,
Embedding, activations, Flatten; bad input raises clear errors."""
import math

import numpy as np
import pytest

import runtime as ms
from runtime import Tensor, nn
from gradcheck import check_grad, numeric_grad


def _f32(rng, *shape):
    return rng.standard_normal(shape).astype(np.float32)


# -- Dense ------------------------------------------------------------------------------------------
def test_dense_matches_x_wt_plus_b(rng):
    net = nn.Dense(5, 3)
    assert net.weight.shape == (3, 5) and net.bias.shape == (3,)
    x = _f32(rng, 4, 5)
    want = x @ net.weight.asnumpy().T + net.bias.asnumpy()
    np.testing.assert_allclose(net(Tensor(x)).asnumpy(), want, rtol=1e-5, atol=1e-6)


def test_dense_rank3_input_activation_and_no_bias(rng):
    net = nn.Dense(4, 6, has_bias=False, activation="relu")
    assert net.bias is None and [p.name for p in net.trainable_params()] == ["weight"]
    x = _f32(rng, 2, 3, 4)
    want = np.maximum(x @ net.weight.asnumpy().T, 0)
    out = net(Tensor(x))
    assert out.shape == (2, 3, 6)
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-5, atol=1e-6)


def test_dense_default_init_bounds_and_custom_init():
    ms.set_seed(3)
    net = nn.Dense(100, 50)
    bound = 1.0 / math.sqrt(100)  # HeUniform(sqrt(5)) and Uniform(1/sqrt(fan_in)) share this bound
    w, b = net.weight.asnumpy(), net.bias.asnumpy()
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.9 * bound
    assert np.abs(b).max() <= bound
    assert w.dtype == np.float32
    net2 = nn.Dense(3, 2, weight_init="ones", bias_init="zeros")
    np.testing.assert_array_equal(net2.weight.asnumpy(), np.ones((2, 3)))
    np.testing.assert_array_equal(net2.bias.asnumpy(), np.zeros(2))
    ms.set_seed(3)
    np.testing.assert_array_equal(nn.Dense(100, 50).weight.asnumpy(), w)  # seeded init is reproducible


def test_dense_repr():
    assert repr(nn.Dense(3, 2)) == "Dense<input_channels=3, output_channels=2, has_bias=True>"
    assert "activation=ReLU<>" in repr(nn.Dense(3, 2, activation=nn.ReLU()))


def test_dense_wrong_feature_size_names_matmul_and_shapes():
    net = nn.Dense(4, 3)
    with pytest.raises(ValueError) as e:
        net(Tensor(np.ones((2, 5), np.float32)))
    msg = str(e.value)
    assert "MatMul" in msg and "(2, 5)" in msg and "(3, 4)" in msg


def test_dense_bad_arguments():
    with pytest.raises(TypeError):
        nn.Dense(3.0, 2)
    with pytest.raises(ValueError):
        nn.Dense(0, 2)
    with pytest.raises(KeyError):
        nn.Dense(3, 2, activation="no_such_activation")


def test_dense_gradient_matches_finite_differences(rng):
    net = nn.Dense(3, 2, dtype=ms.float64)
    x = rng.standard_normal((4, 3))
    check_grad(lambda t: net(t), x)
    wts = rng.uniform(0.5, 1.5, (4, 2))

    def loss(t):
        return (net(t) * Tensor(wts)).sum()

    dw, db = ms.grad(loss, None, net.trainable_params())(Tensor(x))

    def f(arrs):
        net.weight.set_data(Tensor(arrs[0]))
        net.bias.set_data(Tensor(arrs[1]))
        return float(loss(Tensor(x)).asnumpy())

    arrs = [net.weight.asnumpy().copy(), net.bias.asnumpy().copy()]
    np.testing.assert_allclose(dw.asnumpy(), numeric_grad(f, arrs, 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(db.asnumpy(), numeric_grad(f, arrs, 1), rtol=1e-6, atol=1e-8)


# -- activations / Flatten ----------------------------------------------------------------------------
def _erf(x):
    return np.vectorize(math.erf)(x)


@pytest.mark.parametrize("cell,ref", [
    (nn.ReLU(), lambda x: np.maximum(x, 0)),
    (nn.ReLU6(), lambda x: np.clip(x, 0, 6)),
    (nn.LeakyReLU(0.1), lambda x: np.where(x > 0, x, 0.1 * x)),
    (nn.Sigmoid(), lambda x: 1 / (1 + np.exp(-x))),
    (nn.Tanh(), np.tanh),
    (nn.GELU(), lambda x: 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))),
    (nn.GELU(approximate=False), lambda x: 0.5 * x * (1 + _erf(x / math.sqrt(2)))),
    (nn.SiLU(), lambda x: x / (1 + np.exp(-x))),
    (nn.Softplus(), lambda x: np.log1p(np.exp(x))),
    (nn.Softmax(), lambda x: np.exp(x) / np.exp(x).sum(-1, keepdims=True)),
    (nn.Softmax(axis=0), lambda x: np.exp(x) / np.exp(x).sum(0, keepdims=True)),
    (nn.LogSoftmax(), lambda x: x - np.log(np.exp(x).sum(-1, keepdims=True))),
])
def test_activations_match_numpy(cell, ref, rng):
    x = rng.standard_normal((3, 4)) * 3
    np.testing.assert_allclose(cell(Tensor(x.astype(np.float32))).asnumpy(), ref(x), rtol=1e-5, atol=1e-5)


def test_flatten():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    np.testing.assert_array_equal(nn.Flatten()(Tensor(x)).asnumpy(), x.reshape(2, 12))
    assert nn.Flatten(0, 1)(Tensor(x)).shape == (6, 4)


# -- Conv2d / pooling --------------------------------------------------------------------------------
def _np_conv2d(x, w, stride, pads, dilation, group):
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    top, bottom, left, right = pads
    xp = np.pad(x, ((0, 0), (0, 0), (top, bottom), (left, right)))
    sh, sw = stride
    dh, dw = dilation
    oh = (xp.shape[2] - (kh - 1) * dh - 1) // sh + 1
    ow = (xp.shape[3] - (kw - 1) * dw - 1) // sw + 1
    out = np.zeros((n, o, oh, ow))
    og = o // group
    for oc in range(o):
        g = oc // og
        for i in range(oh):
            for j in range(ow):
                patch = xp[:, g * cg:(g + 1) * cg, i * sh:i * sh + (kh - 1) * dh + 1:dh,
                           j * sw:j * sw + (kw - 1) * dw + 1:dw]
                out[:, oc, i, j] = (patch * w[oc]).sum(axis=(1, 2, 3))
    return out


def _same_pads(size, k, s, d):
    out = -(-size // s)
    total = max((out - 1) * s + (k - 1) * d + 1 - size, 0)
    return total // 2, total - total // 2


@pytest.mark.parametrize("kw", [
    dict(kernel_size=3, pad_mode="valid"),
    dict(kernel_size=3, pad_mode="same", stride=2),
    dict(kernel_size=(3, 2), pad_mode="pad", padding=(1, 0, 2, 1), has_bias=True),
    dict(kernel_size=3, pad_mode="same", dilation=2, group=2, has_bias=True),
])
def test_conv2d_matches_direct_convolution(kw, rng):
    conv = nn.Conv2d(4, 6, **kw)
    x = _f32(rng, 2, 4, 7, 8)
    w = conv.weight.asnumpy()
    k = conv.kernel_size
    if conv.pad_mode == "same":
        pads = _same_pads(7, k[0], conv.stride[0], conv.dilation[0]) + _same_pads(8, k[1], conv.stride[1],
                                                                                conv.dilation[1])
    elif conv.pad_mode == "pad":
        pads = conv._pads
    else:
        pads = (0, 0, 0, 0)
    want = _np_conv2d(x.astype(np.float64), w.astype(np.float64), conv.stride, pads, conv.dilation, conv.group)
    if conv.has_bias:
        want += conv.bias.asnumpy().reshape(1, -1, 1, 1)
    np.testing.assert_allclose(conv(Tensor(x)).asnumpy(), want, rtol=1e-4, atol=1e-5)


def test_conv2d_defaults_and_errors():
    conv = nn.Conv2d(3, 8, 5)
    assert conv.weight.shape == (8, 3, 5, 5) and conv.bias is None and conv.pad_mode == "same"
    assert np.abs(conv.weight.asnumpy()).max() <= 1 / math.sqrt(75)
    assert "pad_mode=same" in repr(conv)
    with pytest.raises(ValueError, match="pad_mode"):
        nn.Conv2d(3, 8, 3, pad_mode="full")
    with pytest.raises(ValueError, match="padding"):
        nn.Conv2d(3, 8, 3, pad_mode="same", padding=1)
    with pytest.raises(ValueError, match="group"):
        nn.Conv2d(3, 8, 3, group=2)


def _np_pool(x, k, s, fn):
    n, c, h, w = x.shape
    oh, ow = (h - k) // s + 1, (w - k) // s + 1
    out = np.zeros((n, c, oh, ow), x.dtype)
    for i in range(oh):
        for j in range(ow):
            out[:, :, i, j] = fn(x[:, :, i * s:i * s + k, j * s:j * s + k], axis=(2, 3))
    return out


def test_pooling_matches_numpy(rng):
    x = _f32(rng, 2, 3, 8, 7)
    np.testing.assert_allclose(nn.MaxPool2d(2, 2)(Tensor(x)).asnumpy(), _np_pool(x, 2, 2, np.max))
    np.testing.assert_allclose(nn.MaxPool2d(3, 1)(Tensor(x)).asnumpy(), _np_pool(x, 3, 1, np.max))
    np.testing.assert_allclose(nn.AvgPool2d(2, 2)(Tensor(x)).asnumpy(), _np_pool(x, 2, 2, np.mean), rtol=1e-6)
    assert nn.MaxPool2d(2, 2, pad_mode="same")(Tensor(x)).shape == (2, 3, 4, 4)
    assert nn.MaxPool2d()(Tensor(x)).shape == x.shape  # kernel 1, stride 1
    assert repr(nn.MaxPool2d(2, 2)) == "MaxPool2d<kernel_size=2, stride=2, pad_mode=VALID>"
    with pytest.raises(ValueError, match="pad_mode"):
        nn.MaxPool2d(2, 2, pad_mode="full")


# -- BatchNorm / LayerNorm ----------------------------------------------------------------------------
def test_batchnorm2d_training_output_and_moving_stats(rng):
    bn = nn.BatchNorm2d(3, momentum=0.8, gamma_init=Tensor(np.array([1.0, 2.0, 0.5], np.float32)),
                        beta_init=Tensor(np.array([0.0, 1.0, -1.0], np.float32)))
    assert [p.name for p in bn.trainable_params()] == ["gamma", "beta"]
    assert set(bn.parameters_dict()) == {"moving_mean", "moving_variance", "gamma", "beta"}
    bn.set_train()
    mm = bn.moving_mean  # updated in place: same Parameter object
    x = _f32(rng, 4, 3, 5, 5) * 2 + 1
    y = bn(Tensor(x)).asnumpy()
    mean = x.mean(axis=(0, 2, 3))
    var = x.var(axis=(0, 2, 3))
    want = ((x - mean.reshape(1, 3, 1, 1)) / np.sqrt(var.reshape(1, 3, 1, 1) + 1e-5)
            * np.array([1, 2, 0.5]).reshape(1, 3, 1, 1) + np.array([0, 1, -1]).reshape(1, 3, 1, 1))
    np.testing.assert_allclose(y, want, rtol=1e-4, atol=1e-5)
    unbiased = x.var(axis=(0, 2, 3), ddof=1)
    assert bn.moving_mean is mm
    np.testing.assert_allclose(mm.asnumpy(), 0.8 * 0 + 0.2 * mean, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(bn.moving_variance.asnumpy(), 0.8 * 1 + 0.2 * unbiased, rtol=1e-5)
    # eval: uses (and keeps) the moving statistics
    bn.set_train(False)
    m, v = mm.asnumpy().copy(), bn.moving_variance.asnumpy().copy()
    y2 = bn(Tensor(x)).asnumpy()
    want2 = ((x - m.reshape(1, 3, 1, 1)) / np.sqrt(v.reshape(1, 3, 1, 1) + 1e-5)
             * np.array([1, 2, 0.5]).reshape(1, 3, 1, 1) + np.array([0, 1, -1]).reshape(1, 3, 1, 1))
    np.testing.assert_allclose(y2, want2, rtol=1e-4, atol=1e-5)
    np.testing.assert_array_equal(mm.asnumpy(), m)


def test_batchnorm1d_and_use_batch_statistics(rng):
    bn = nn.BatchNorm1d(4, use_batch_statistics=True)  # batch statistics even when not training
    x = _f32(rng, 8, 4)
    y = bn(Tensor(x)).asnumpy()
    np.testing.assert_allclose(y, (x - x.mean(0)) / np.sqrt(x.var(0) + 1e-5), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(bn.moving_mean.asnumpy(), 0.1 * x.mean(0), rtol=1e-5, atol=1e-6)
    frozen = nn.BatchNorm1d(4, use_batch_statistics=False).set_train()
    np.testing.assert_allclose(frozen(Tensor(x)).asnumpy(), x / np.sqrt(1 + 1e-5), rtol=1e-5)
    np.testing.assert_array_equal(frozen.moving_mean.asnumpy(), np.zeros(4))
    with pytest.raises(ValueError, match="BatchNorm2d"):
        nn.BatchNorm2d(4)(Tensor(x))
    with pytest.raises(ValueError, match="momentum"):
        nn.BatchNorm2d(4, momentum=1.5)


def test_batchnorm_gradient_flows_to_gamma_beta(rng):
    bn = nn.BatchNorm1d(3).set_train()
    x = Tensor(_f32(rng, 6, 3))
    _, (dg, db) = ms.value_and_grad(lambda t: (bn(t) * Tensor(np.arange(3, dtype=np.float32))).sum(),
                                    None, [bn.gamma, bn.beta])(x)
    np.testing.assert_allclose(db.asnumpy(), 6 * np.arange(3), rtol=1e-5)
    np.testing.assert_allclose(dg.asnumpy(), np.zeros(3), atol=1e-4)  # sum of normalised values is 0


def test_layernorm_formula(rng):
    x = _f32(rng, 2, 3, 4)
    ln = nn.LayerNorm((4,))
    y = ln(Tensor(x)).asnumpy()
    mean, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
    np.testing.assert_allclose(y, (x - mean) / np.sqrt(var + 1e-7), rtol=1e-4, atol=1e-5)
    g = _f32(rng, 3, 4)
    b = _f32(rng, 3, 4)
    ln2 = nn.LayerNorm((3, 4), begin_norm_axis=1, begin_params_axis=1, gamma_init=Tensor(g),
                       beta_init=Tensor(b), epsilon=1e-5)
    mean, var = x.mean((1, 2), keepdims=True), x.var((1, 2), keepdims=True)
    np.testing.assert_allclose(ln2(Tensor(x)).asnumpy(), (x - mean) / np.sqrt(var + 1e-5) * g + b,
                               rtol=1e-4, atol=1e-5)
    assert [p.name for p in ln2.trainable_params()] == ["gamma", "beta"]


# -- Dropout -------------------------------------------------------------------------------------------
def test_dropout_train_eval_and_keep_ratio():
    x = np.ones((200, 100), np.float32)
    d = nn.Dropout(keep_prob=0.8)
    assert d.p == pytest.approx(0.2)
    np.testing.assert_array_equal(d(Tensor(x)).asnumpy(), x)  # not training: identity
    d.set_train()
    ms.set_seed(0)
    y = d(Tensor(x)).asnumpy()
    assert set(np.unique(y)) <= {0.0, np.float32(1 / 0.8)}
    assert abs((y != 0).mean() - 0.8) < 0.02
    ms.set_seed(0)
    np.testing.assert_array_equal(d(Tensor(x)).asnumpy(), y)  # reproducible under set_seed
    assert nn.Dropout(p=0.0).set_train()(Tensor(x)).asnumpy().min() == 1.0
    assert nn.Dropout().p == 0.5


@pytest.mark.parametrize("kw", [dict(keep_prob=0.0), dict(keep_prob=1.5), dict(p=1.0), dict(p=-0.1)])
def test_dropout_bad_probability(kw):
    with pytest.raises(ValueError):
        nn.Dropout(**kw)


# -- Embedding -------------------------------------------------------------------------------------------
def test_embedding_lookup_one_hot_and_padding(rng):
    emb = nn.Embedding(7, 3)
    table = emb.embedding_table.asnumpy()
    ids = np.array([[0, 6, 2], [2, 2, 5]], np.int32)
    out = emb(Tensor(ids))
    assert out.shape == (2, 3, 3)
    np.testing.assert_array_equal(out.asnumpy(), table[ids])
    oh = nn.Embedding(7, 3, use_one_hot=True, embedding_table=Tensor(table))
    np.testing.assert_allclose(oh(Tensor(ids)).asnumpy(), table[ids], rtol=1e-6)
    pad = nn.Embedding(7, 3, padding_idx=1)
    np.testing.assert_array_equal(pad.embedding_table.asnumpy()[1], np.zeros(3))
    assert abs(table).max() < 0.1  # 'normal' init: N(0, 0.01)


def test_embedding_gradient_accumulates_repeated_ids():
    emb = nn.Embedding(5, 2)
    ids = Tensor(np.array([1, 3, 1, 1], np.int32))
    w = np.arange(8, dtype=np.float32).reshape(4, 2)
    g = ms.grad(lambda i: (emb(i) * Tensor(w)).sum(), None, [emb.embedding_table])(ids)[0].asnumpy()
    want = np.zeros((5, 2), np.float32)
    np.add.at(want, [1, 3, 1, 1], w)
    np.testing.assert_allclose(g, want)
