"""MindSpore 2.x documented semantics of ``nn`` layers, losses, optimizers, learning-rate schedules,
training wrappers, ``Model`` and checkpoints.

Every oracle here is a numpy computation written from MindSpore 2.x's documentation (argument
defaults, formulas, return values), not from this project's implementation.
"""
import glob
import math
import os

import numpy as np
import pytest

import runtime as ms
from modes import MODES, run_cell
from runtime import Parameter, Tensor, nn


def T(a, dtype=np.float32):
    return Tensor(np.asarray(a, dtype))


@pytest.fixture
def rng():
    return np.random.default_rng(1234)


# =================================================================================================
# numpy references
# =================================================================================================
def np_conv2d(x, w, stride=(1, 1), pads=(0, 0, 0, 0), dilation=(1, 1)):
    """Cross-correlation NCHW x OIHW, explicit (top, bottom, left, right) zero padding."""
    n, c, h, wd = x.shape
    o, ci, kh, kw = w.shape
    assert ci == c
    xp = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[1]), (pads[2], pads[3])))
    dkh, dkw = dilation[0] * (kh - 1) + 1, dilation[1] * (kw - 1) + 1
    oh = (xp.shape[2] - dkh) // stride[0] + 1
    ow = (xp.shape[3] - dkw) // stride[1] + 1
    out = np.zeros((n, o, oh, ow), np.float64)
    for i in range(oh):
        for j in range(ow):
            patch = xp[:, :, i * stride[0]:i * stride[0] + dkh:dilation[0], j * stride[1]:j * stride[1] + dkw:dilation[1]]
            out[:, :, i, j] = np.einsum("nchw,ochw->no", patch, w)
    return out


def same_pads(size, k, s, d=1):
    """MindSpore's 'same': out = ceil(in / stride); the padding total is split with the smaller
    half on top/left."""
    out = -(-size // s)
    dk = d * (k - 1) + 1
    total = max((out - 1) * s + dk - size, 0)
    return total // 2, total - total // 2


def np_softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def np_log_softmax(x, axis=-1):
    m = x.max(axis=axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=axis, keepdims=True))


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


# =================================================================================================
# layers: constructor defaults, parameter names/shapes, values
# =================================================================================================
class TestDense:
    def test_default_params_names_shapes_and_forward(self, rng):
        net = nn.Dense(3, 4)
        names = [p.name for p in net.trainable_params()]
        assert names == ["weight", "bias"]
        assert net.weight.shape == (4, 3)  # (out_channels, in_channels)
        assert net.bias.shape == (4,)
        assert net.has_bias is True and net.activation is None
        x = rng.standard_normal((5, 3)).astype(np.float32)
        want = x @ net.weight.asnumpy().T + net.bias.asnumpy()
        np.testing.assert_allclose(net(T(x)).asnumpy(), want, rtol=1e-5, atol=1e-6)

    def test_default_init_ranges(self):
        # weight HeUniform(negative_slope=sqrt(5)) -> bound = sqrt(6 / ((1 + 5) * fan_in)) = 1/sqrt(fan_in);
        # bias Uniform(1/sqrt(in_channels))
        net = nn.Dense(64, 32)
        bound = 1.0 / math.sqrt(64)
        assert np.abs(net.weight.asnumpy()).max() <= bound + 1e-7
        assert np.abs(net.bias.asnumpy()).max() <= bound + 1e-7
        assert net.weight.asnumpy().std() > bound / 4  # not all zeros / tiny

    def test_no_bias_activation_and_init_strings(self, rng):
        net = nn.Dense(3, 2, weight_init="ones", bias_init="zeros", has_bias=False, activation="relu")
        assert [p.name for p in net.trainable_params()] == ["weight"]
        x = rng.standard_normal((4, 3)).astype(np.float32)
        np.testing.assert_allclose(net(T(x)).asnumpy(), np.maximum(x.sum(1, keepdims=True).repeat(2, 1), 0),
                                   rtol=1e-6, atol=1e-6)

    def test_rank3_input(self, rng):
        net = nn.Dense(3, 2)
        x = rng.standard_normal((2, 5, 3)).astype(np.float32)
        want = x @ net.weight.asnumpy().T + net.bias.asnumpy()
        np.testing.assert_allclose(net(T(x)).asnumpy(), want, rtol=1e-5, atol=1e-6)


class TestConv2d:
    def test_defaults(self):
        conv = nn.Conv2d(3, 8, 3)
        assert conv.pad_mode == "same"
        assert conv.has_bias is False
        assert conv.stride == (1, 1) and conv.dilation == (1, 1) and conv.group == 1
        assert conv.padding == 0
        assert [p.name for p in conv.trainable_params()] == ["weight"]
        assert conv.weight.shape == (8, 3, 3, 3)  # (out, in / group, kh, kw)

    def test_has_bias_param_names(self):
        conv = nn.Conv2d(3, 8, (3, 5), has_bias=True, group=1)
        assert [p.name for p in conv.trainable_params()] == ["weight", "bias"]
        assert conv.weight.shape == (8, 3, 3, 5) and conv.bias.shape == (8,)

    @pytest.mark.parametrize("h,w,k,s", [(7, 7, 3, 1), (7, 8, 3, 2), (6, 6, 2, 1), (9, 5, 4, 3), (5, 5, 1, 2)])
    def test_same_shape_and_values(self, rng, h, w, k, s):
        conv = nn.Conv2d(2, 3, k, stride=s, has_bias=True)
        x = rng.standard_normal((2, 2, h, w)).astype(np.float32)
        y = conv(T(x)).asnumpy()
        assert y.shape == (2, 3, -(-h // s), -(-w // s))
        pads = same_pads(h, k, s) + same_pads(w, k, s)
        want = np_conv2d(x.astype(np.float64), conv.weight.asnumpy().astype(np.float64), (s, s), pads)
        want += conv.bias.asnumpy().reshape(1, -1, 1, 1)
        np.testing.assert_allclose(y, want, rtol=1e-4, atol=1e-5)

    def test_valid_and_pad_modes(self, rng):
        x = rng.standard_normal((1, 2, 8, 7)).astype(np.float32)
        valid = nn.Conv2d(2, 4, 3, stride=2, pad_mode="valid")
        want = np_conv2d(x, valid.weight.asnumpy(), (2, 2))
        np.testing.assert_allclose(valid(T(x)).asnumpy(), want, rtol=1e-4, atol=1e-5)
        assert valid(T(x)).shape == (1, 4, 3, 3)  # floor((in - k) / s) + 1
        pad = nn.Conv2d(2, 4, 3, pad_mode="pad", padding=(1, 2, 0, 1), dilation=2)
        want = np_conv2d(x, pad.weight.asnumpy(), (1, 1), (1, 2, 0, 1), (2, 2))
        np.testing.assert_allclose(pad(T(x)).asnumpy(), want, rtol=1e-4, atol=1e-5)

    def test_group(self, rng):
        conv = nn.Conv2d(4, 6, 3, group=2, pad_mode="valid")
        assert conv.weight.shape == (6, 2, 3, 3)
        x = rng.standard_normal((1, 4, 5, 5)).astype(np.float32)
        w = conv.weight.asnumpy()
        want = np.concatenate([np_conv2d(x[:, :2], w[:3]), np_conv2d(x[:, 2:], w[3:])], 1)
        np.testing.assert_allclose(conv(T(x)).asnumpy(), want, rtol=1e-4, atol=1e-5)

    def test_padding_needs_pad_mode(self):
        with pytest.raises(ValueError):
            nn.Conv2d(1, 1, 3, padding=1)  # pad_mode defaults to 'same'


class TestPooling:
    def test_defaults_are_identity(self, rng):
        x = rng.standard_normal((2, 3, 4, 5)).astype(np.float32)
        for cls in (nn.MaxPool2d, nn.AvgPool2d):
            pool = cls()
            assert pool.kernel_size == (1, 1) and pool.stride == (1, 1) and pool.pad_mode == "valid"
            np.testing.assert_allclose(pool(T(x)).asnumpy(), x)

    def test_valid_values(self, rng):
        x = rng.standard_normal((2, 3, 7, 6)).astype(np.float32)
        oh, ow = (7 - 3) // 2 + 1, (6 - 3) // 2 + 1
        mx = np.zeros((2, 3, oh, ow), np.float32)
        av = np.zeros_like(mx)
        for i in range(oh):
            for j in range(ow):
                win = x[:, :, 2 * i:2 * i + 3, 2 * j:2 * j + 3]
                mx[:, :, i, j] = win.max((2, 3))
                av[:, :, i, j] = win.mean((2, 3))
        np.testing.assert_allclose(nn.MaxPool2d(3, 2)(T(x)).asnumpy(), mx)
        np.testing.assert_allclose(nn.AvgPool2d(kernel_size=3, stride=2)(T(x)).asnumpy(), av, rtol=1e-5, atol=1e-6)

    def test_max_same_mode(self, rng):
        x = rng.standard_normal((1, 2, 5, 5)).astype(np.float32)
        y = nn.MaxPool2d(kernel_size=2, stride=2, pad_mode="same")(T(x)).asnumpy()
        assert y.shape == (1, 2, 3, 3)
        top, bottom = same_pads(5, 2, 2)
        xp = np.pad(x, ((0, 0), (0, 0), (top, bottom), (top, bottom)), constant_values=-np.inf)
        want = xp.reshape(1, 2, 3, 2, 3, 2).max((3, 5))
        np.testing.assert_allclose(y, want)


class TestBatchNorm:
    def test_defaults_and_param_names(self):
        bn = nn.BatchNorm2d(3)
        assert bn.eps == 1e-5 and bn.momentum == 0.9 and bn.affine is True and bn.use_batch_statistics is None
        names = [n.split(".")[-1] for n, _ in bn.parameters_and_names()]
        assert set(names) == {"gamma", "beta", "moving_mean", "moving_variance"}
        assert sorted(p.name.split(".")[-1] for p in bn.trainable_params()) == ["beta", "gamma"]
        np.testing.assert_array_equal(bn.moving_mean.asnumpy(), np.zeros(3))
        np.testing.assert_array_equal(bn.moving_variance.asnumpy(), np.ones(3))

    def test_training_step_output_and_running_stats(self, rng):
        bn = nn.BatchNorm2d(3, gamma_init=T([1.0, 2.0, 0.5]), beta_init=T([0.0, -1.0, 3.0])).set_train()
        x = rng.standard_normal((4, 3, 2, 5)).astype(np.float32) * 2 + 1
        y = bn(T(x)).asnumpy()
        mean = x.mean((0, 2, 3))
        var = x.var((0, 2, 3))  # normalisation uses the biased batch variance
        g = np.array([1.0, 2.0, 0.5]).reshape(1, 3, 1, 1)
        b = np.array([0.0, -1.0, 3.0]).reshape(1, 3, 1, 1)
        want = (x - mean.reshape(1, 3, 1, 1)) / np.sqrt(var.reshape(1, 3, 1, 1) + 1e-5) * g + b
        np.testing.assert_allclose(y, want, rtol=1e-4, atol=1e-4)
        # running = momentum * running + (1 - momentum) * batch, momentum = 0.9; the moving variance
        # takes the unbiased batch variance (as MindSpore's GPU/CPU kernels and cuDNN do)
        n = x.size // 3
        np.testing.assert_allclose(bn.moving_mean.asnumpy(), 0.9 * 0 + 0.1 * mean, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(bn.moving_variance.asnumpy(), 0.9 * 1 + 0.1 * var * n / (n - 1),
                                   rtol=1e-5, atol=1e-6)

    def test_eval_uses_moving_stats(self, rng):
        bn = nn.BatchNorm2d(2, moving_mean_init=T([1.0, -2.0]), moving_var_init=T([4.0, 0.25]))
        bn.set_train(False)
        x = rng.standard_normal((2, 2, 3, 3)).astype(np.float32)
        want = (x - np.array([1.0, -2.0]).reshape(1, 2, 1, 1)) / np.sqrt(np.array([4.0, 0.25]).reshape(1, 2, 1, 1) + 1e-5)
        np.testing.assert_allclose(bn(T(x)).asnumpy(), want, rtol=1e-5, atol=1e-5)
        np.testing.assert_array_equal(bn.moving_mean.asnumpy(), [1.0, -2.0])  # not updated

    def test_use_batch_statistics(self, rng):
        x = rng.standard_normal((3, 2, 2, 2)).astype(np.float32)
        # False: moving statistics even while training, and they are not updated
        bn = nn.BatchNorm2d(2, use_batch_statistics=False).set_train()
        np.testing.assert_allclose(bn(T(x)).asnumpy(), x / np.sqrt(1 + 1e-5), rtol=1e-5, atol=1e-6)
        np.testing.assert_array_equal(bn.moving_mean.asnumpy(), [0.0, 0.0])
        # True: batch statistics even in eval mode
        bn = nn.BatchNorm2d(2, use_batch_statistics=True).set_train(False)
        mean, var = x.mean((0, 2, 3)).reshape(1, 2, 1, 1), x.var((0, 2, 3)).reshape(1, 2, 1, 1)
        np.testing.assert_allclose(bn(T(x)).asnumpy(), (x - mean) / np.sqrt(var + 1e-5), rtol=1e-4, atol=1e-4)

    def test_batchnorm1d(self, rng):
        bn = nn.BatchNorm1d(4).set_train()
        x = rng.standard_normal((6, 4)).astype(np.float32)
        want = (x - x.mean(0)) / np.sqrt(x.var(0) + 1e-5)
        np.testing.assert_allclose(bn(T(x)).asnumpy(), want, rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(bn.moving_mean.asnumpy(), 0.1 * x.mean(0), rtol=1e-5, atol=1e-6)


class TestLayerNorm:
    def test_defaults_and_values(self, rng):
        ln = nn.LayerNorm((5,))
        assert ln.begin_norm_axis == -1 and ln.begin_params_axis == -1 and ln.epsilon == 1e-7
        assert sorted(p.name.split(".")[-1] for p in ln.trainable_params()) == ["beta", "gamma"]
        assert ln.gamma.shape == (5,) and ln.beta.shape == (5,)
        x = rng.standard_normal((3, 4, 5)).astype(np.float32)
        want = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-7)
        np.testing.assert_allclose(ln(T(x)).asnumpy(), want, rtol=1e-4, atol=1e-5)

    def test_begin_norm_axis(self, rng):
        ln = nn.LayerNorm((4, 5), begin_norm_axis=1, begin_params_axis=1,
                          gamma_init=T(rng.standard_normal((4, 5))), beta_init=T(rng.standard_normal((4, 5))))
        x = rng.standard_normal((3, 4, 5)).astype(np.float32)
        m = x.mean((1, 2), keepdims=True)
        v = x.var((1, 2), keepdims=True)
        want = (x - m) / np.sqrt(v + 1e-7) * ln.gamma.asnumpy() + ln.beta.asnumpy()
        np.testing.assert_allclose(ln(T(x)).asnumpy(), want, rtol=1e-4, atol=1e-4)


class TestDropout:
    def test_keep_prob_and_p(self):
        assert nn.Dropout().p == pytest.approx(0.5)
        assert nn.Dropout(keep_prob=0.8).p == pytest.approx(0.2)
        assert nn.Dropout(p=0.3).p == pytest.approx(0.3)
        assert nn.Dropout(0.9).keep_prob == pytest.approx(0.9)  # first positional is keep_prob

    def test_p_wins_over_keep_prob(self):
        # MindSpore 2.x: "keep_prob ... will be deprecated ... please use p"; when p is given it is used
        d = nn.Dropout(keep_prob=0.9, p=0.25)
        assert d.p == pytest.approx(0.25)

    def test_train_and_eval(self):
        x = np.ones((200, 100), np.float32)
        d = nn.Dropout(p=0.25)
        d.set_train(False)
        np.testing.assert_array_equal(d(T(x)).asnumpy(), x)
        d.set_train(True)
        y = d(T(x)).asnumpy()
        kept = y != 0
        np.testing.assert_allclose(y[kept], 1.0 / 0.75, rtol=1e-6)
        assert abs(kept.mean() - 0.75) < 0.02

    def test_p_range(self):
        with pytest.raises(ValueError):
            nn.Dropout(p=1.0)
        with pytest.raises(ValueError):
            nn.Dropout(keep_prob=0.0)


class TestEmbeddingFlattenContainers:
    def test_embedding(self, rng):
        emb = nn.Embedding(10, 4)
        assert [p.name for p in emb.trainable_params()] == ["embedding_table"]
        assert emb.embedding_table.shape == (10, 4)
        assert emb.use_one_hot is False and emb.padding_idx is None
        # 'normal' = Normal(sigma=0.01)
        assert emb.embedding_table.asnumpy().std() < 0.05
        ids = np.array([[1, 2, 9], [0, 0, 3]], np.int32)
        want = emb.embedding_table.asnumpy()[ids]
        np.testing.assert_array_equal(emb(Tensor(ids)).asnumpy(), want)
        emb1 = nn.Embedding(10, 4, use_one_hot=True, embedding_table=T(emb.embedding_table.asnumpy()))
        np.testing.assert_allclose(emb1(Tensor(ids)).asnumpy(), want, rtol=1e-6)

    def test_embedding_padding_idx(self):
        emb = nn.Embedding(5, 3, padding_idx=2)
        np.testing.assert_array_equal(emb.embedding_table.asnumpy()[2], np.zeros(3))

    def test_flatten(self, rng):
        x = rng.standard_normal((2, 3, 4, 5)).astype(np.float32)
        assert nn.Flatten()(T(x)).shape == (2, 60)
        assert nn.Flatten(start_dim=2)(T(x)).shape == (2, 3, 20)
        assert nn.Flatten(0, 1)(T(x)).shape == (6, 4, 5)

    def test_sequential_cell_and_celllist_names(self):
        net = nn.SequentialCell([nn.Dense(3, 4), nn.ReLU(), nn.Dense(4, 2)])
        assert [p.name for p in net.trainable_params()] == ["0.weight", "0.bias", "2.weight", "2.bias"]
        assert len(net) == 3 and isinstance(net[1], nn.ReLU)

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.layers = nn.CellList([nn.Dense(2, 2), nn.Dense(2, 1)])
                self.fc = nn.SequentialCell(nn.Dense(1, 1))

            def construct(self, x):
                for layer in self.layers:
                    x = layer(x)
                return self.fc(x)

        names = [p.name for p in Net().trainable_params()]
        assert names == ["layers.0.weight", "layers.0.bias", "layers.1.weight", "layers.1.bias",
                         "fc.0.weight", "fc.0.bias"]


# -- recurrent layers -----------------------------------------------------------------------------
def np_lstm_dir(xs, h, c, w_ih, w_hh, b_ih, b_hh):
    """MindSpore nn.LSTM doc: gates i, f, g, o from W_ix x + b_ix + W_ih h + b_ih."""
    outs = []
    for x in xs:
        gates = x @ w_ih.T + b_ih + h @ w_hh.T + b_hh
        i, f, g, o = np.split(gates, 4, -1)
        c = sigmoid(f) * c + sigmoid(i) * np.tanh(g)
        h = sigmoid(o) * np.tanh(c)
        outs.append(h)
    return outs, h, c


def np_gru_dir(xs, h, w_ih, w_hh, b_ih, b_hh):
    """MindSpore nn.GRU doc: r, z, n; n = tanh(W_in x + b_in + r * (W_hn h + b_hn)); h' = (1-z) n + z h."""
    outs = []
    for x in xs:
        gi = x @ w_ih.T + b_ih
        gh = h @ w_hh.T + b_hh
        ir, iz, in_ = np.split(gi, 3, -1)
        hr, hz, hn = np.split(gh, 3, -1)
        r, z = sigmoid(ir + hr), sigmoid(iz + hz)
        n = np.tanh(in_ + r * hn)
        h = (1 - z) * n + z * h
        outs.append(h)
    return outs, h


class TestRNN:
    def test_lstm_defaults_names_shapes(self):
        lstm = nn.LSTM(4, 8)
        assert lstm.num_layers == 1 and lstm.has_bias and not lstm.batch_first and not lstm.bidirectional
        shapes = {p.name.split(".")[-1]: p.shape for p in lstm.trainable_params()}
        assert shapes == {"weight_ih_l0": (32, 4), "weight_hh_l0": (32, 8), "bias_ih_l0": (32,), "bias_hh_l0": (32,)}

    def test_lstm_bidirectional_batch_first_values(self, rng):
        lstm = nn.LSTM(3, 5, batch_first=True, bidirectional=True)
        x = rng.standard_normal((2, 4, 3)).astype(np.float32)
        h0 = rng.standard_normal((2, 2, 5)).astype(np.float32)
        c0 = rng.standard_normal((2, 2, 5)).astype(np.float32)
        out, (hn, cn) = lstm(T(x), (T(h0), T(c0)))
        assert out.shape == (2, 4, 10) and hn.shape == (2, 2, 5) and cn.shape == (2, 2, 5)
        p = {q.name.split(".")[-1]: q.asnumpy() for q in lstm.trainable_params()}
        xs = [x[:, t] for t in range(4)]
        fo, fh, fc = np_lstm_dir(xs, h0[0], c0[0], p["weight_ih_l0"], p["weight_hh_l0"], p["bias_ih_l0"], p["bias_hh_l0"])
        bo, bh, bc = np_lstm_dir(xs[::-1], h0[1], c0[1], p["weight_ih_l0_reverse"], p["weight_hh_l0_reverse"],
                                 p["bias_ih_l0_reverse"], p["bias_hh_l0_reverse"])
        bo = bo[::-1]
        want = np.stack([np.concatenate([fo[t], bo[t]], -1) for t in range(4)], 1)
        np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(hn.asnumpy(), np.stack([fh, bh]), rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(cn.asnumpy(), np.stack([fc, bc]), rtol=1e-4, atol=1e-5)

    def test_gru_two_layers_values(self, rng):
        gru = nn.GRU(3, 4, num_layers=2)
        x = rng.standard_normal((5, 2, 3)).astype(np.float32)  # (seq, batch, feature)
        out, hn = gru(T(x))
        assert out.shape == (5, 2, 4) and hn.shape == (2, 2, 4)
        p = {q.name.split(".")[-1]: q.asnumpy() for q in gru.trainable_params()}
        xs = list(x)
        o0, h0 = np_gru_dir(xs, np.zeros((2, 4)), p["weight_ih_l0"], p["weight_hh_l0"], p["bias_ih_l0"], p["bias_hh_l0"])
        o1, h1 = np_gru_dir(o0, np.zeros((2, 4)), p["weight_ih_l1"], p["weight_hh_l1"], p["bias_ih_l1"], p["bias_hh_l1"])
        np.testing.assert_allclose(out.asnumpy(), np.stack(o1), rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(hn.asnumpy(), np.stack([h0, h1]), rtol=1e-4, atol=1e-5)


# =================================================================================================
# losses
# =================================================================================================
class TestLosses:
    def test_softmax_ce_defaults(self, rng):
        loss = nn.SoftmaxCrossEntropyWithLogits()
        assert loss.sparse is False and loss.reduction == "none"
        logits = rng.standard_normal((4, 3)).astype(np.float32)
        labels = np.eye(3, dtype=np.float32)[[0, 2, 1, 2]]
        want = -(labels * np_log_softmax(logits)).sum(-1)
        got = loss(T(logits), T(labels)).asnumpy()
        assert got.shape == (4,)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)

    def test_softmax_ce_sparse_mean_sum(self, rng):
        logits = rng.standard_normal((5, 4)).astype(np.float32)
        idx = np.array([0, 3, 1, 1, 2], np.int32)
        per = -np_log_softmax(logits)[np.arange(5), idx]
        got = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")(T(logits), Tensor(idx)).asnumpy()
        np.testing.assert_allclose(got, per.mean(), rtol=1e-5)
        got = nn.SoftmaxCrossEntropyWithLogits(True, "sum")(T(logits), Tensor(idx)).asnumpy()
        np.testing.assert_allclose(got, per.sum(), rtol=1e-5)

    def test_cross_entropy_loss(self, rng):
        logits = rng.standard_normal((6, 4)).astype(np.float32)
        idx = np.array([0, 3, 1, -100, 2, 1], np.int32)
        w = np.array([1.0, 2.0, 0.5, 1.5], np.float32)
        lp = np_log_softmax(logits.astype(np.float64))
        valid = idx != -100
        safe = np.where(valid, idx, 0)
        # defaults: weight None, ignore_index -100, reduction 'mean', label_smoothing 0
        loss = nn.CrossEntropyLoss()
        assert loss.reduction == "mean" and loss.ignore_index == -100 and loss.label_smoothing == 0.0
        nll = -lp[np.arange(6), safe] * valid
        np.testing.assert_allclose(loss(T(logits), Tensor(idx)).asnumpy(), nll.sum() / valid.sum(), rtol=1e-5)
        # class weights: 'mean' divides by the summed weights of the targets
        wt = w[safe] * valid
        got = nn.CrossEntropyLoss(weight=T(w))(T(logits), Tensor(idx)).asnumpy()
        np.testing.assert_allclose(got, (-lp[np.arange(6), safe] * wt).sum() / wt.sum(), rtol=1e-5)
        # probability targets
        probs = np_softmax(rng.standard_normal((6, 4)))
        got = nn.CrossEntropyLoss(reduction="none")(T(logits), T(probs)).asnumpy()
        np.testing.assert_allclose(got, -(probs * lp).sum(1), rtol=1e-5)
        # label smoothing (index targets): (1 - e) * nll + e / C * sum_c -logp_c
        e = 0.1
        sm = (1 - e) * -lp[np.arange(6), safe] + e / 4 * -lp.sum(1)
        got = nn.CrossEntropyLoss(label_smoothing=e, reduction="sum")(T(logits), Tensor(idx)).asnumpy()
        np.testing.assert_allclose(got, (sm * valid).sum(), rtol=1e-5)

    def test_nll_loss(self, rng):
        lp = np_log_softmax(rng.standard_normal((5, 3))).astype(np.float32)
        idx = np.array([2, 0, 1, 1, 0], np.int32)
        w = np.array([0.2, 1.0, 3.0], np.float32)
        assert nn.NLLLoss().reduction == "mean"
        np.testing.assert_allclose(nn.NLLLoss()(T(lp), Tensor(idx)).asnumpy(), -lp[np.arange(5), idx].mean(), rtol=1e-5)
        got = nn.NLLLoss(weight=T(w))(T(lp), Tensor(idx)).asnumpy()
        np.testing.assert_allclose(got, (-lp[np.arange(5), idx] * w[idx]).sum() / w[idx].sum(), rtol=1e-5)
        got = nn.NLLLoss(reduction="none")(T(lp), Tensor(idx)).asnumpy()
        np.testing.assert_allclose(got, -lp[np.arange(5), idx], rtol=1e-5)

    def test_mse_l1_defaults(self, rng):
        a, b = rng.standard_normal((3, 4)).astype(np.float32), rng.standard_normal((3, 4)).astype(np.float32)
        np.testing.assert_allclose(nn.MSELoss()(T(a), T(b)).asnumpy(), ((a - b) ** 2).mean(), rtol=1e-5)
        np.testing.assert_allclose(nn.L1Loss()(T(a), T(b)).asnumpy(), np.abs(a - b).mean(), rtol=1e-5)
        np.testing.assert_allclose(nn.MSELoss("sum")(T(a), T(b)).asnumpy(), ((a - b) ** 2).sum(), rtol=1e-5)
        np.testing.assert_allclose(nn.L1Loss(reduction="none")(T(a), T(b)).asnumpy(), np.abs(a - b), rtol=1e-5)

    def test_smooth_l1(self, rng):
        loss = nn.SmoothL1Loss()
        assert loss.beta == 1.0 and loss.reduction == "none"
        a = rng.standard_normal((4, 5)).astype(np.float32) * 2
        b = rng.standard_normal((4, 5)).astype(np.float32)
        d = np.abs(a - b)
        for beta in (1.0, 0.5):
            want = np.where(d < beta, 0.5 * d ** 2 / beta, d - 0.5 * beta)
            got = nn.SmoothL1Loss(beta=beta)(T(a), T(b)).asnumpy()
            assert got.shape == (4, 5)
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)

    def test_bce_with_logits(self, rng):
        x = rng.standard_normal((3, 4)).astype(np.float32) * 3
        y = rng.integers(0, 2, (3, 4)).astype(np.float32)
        w = rng.uniform(0.5, 2, (4,)).astype(np.float32)
        pw = rng.uniform(0.5, 2, (4,)).astype(np.float32)
        s = sigmoid(x.astype(np.float64))
        loss = nn.BCEWithLogitsLoss()
        assert loss.reduction == "mean"
        plain = -(y * np.log(s) + (1 - y) * np.log(1 - s))
        np.testing.assert_allclose(loss(T(x), T(y)).asnumpy(), plain.mean(), rtol=1e-5)
        # doc: L = -w [p y log(sigmoid(x)) + (1 - y) log(1 - sigmoid(x))]
        full = -w * (pw * y * np.log(s) + (1 - y) * np.log(1 - s))
        got = nn.BCEWithLogitsLoss("none", weight=T(w), pos_weight=T(pw))(T(x), T(y)).asnumpy()
        np.testing.assert_allclose(got, full, rtol=1e-5, atol=1e-6)

    def test_bce_loss(self, rng):
        p = rng.uniform(0.05, 0.95, (3, 4)).astype(np.float32)
        y = rng.integers(0, 2, (3, 4)).astype(np.float32)
        want = -(y * np.log(p) + (1 - y) * np.log(1 - p))
        np.testing.assert_allclose(nn.BCELoss()(T(p), T(y)).asnumpy(), want.mean(), rtol=1e-5)
        np.testing.assert_allclose(nn.BCELoss(reduction="none")(T(p), T(y)).asnumpy(), want, rtol=1e-5)

    def test_bad_reduction(self):
        with pytest.raises(ValueError):
            nn.MSELoss(reduction="avg")


# =================================================================================================
# optimizers: one/two steps against the documented update formulas
# =================================================================================================
def _param_set(rng):
    return [Parameter(T(rng.standard_normal((3, 2))), name="dense.weight"),
            Parameter(T(rng.standard_normal((2,))), name="bn.gamma"),
            Parameter(T(rng.standard_normal((2,))), name="bn.beta")]


def _step(opt, grads):
    opt(tuple(T(g) for g in grads))


class TestOptimizers:
    def test_sgd_defaults_and_step(self, rng):
        params = _param_set(rng)
        p0 = [p.asnumpy().astype(np.float64) for p in params]
        opt = nn.SGD(params)
        assert float(opt.learning_rate.asnumpy()) == pytest.approx(0.1)
        assert opt.momentum == 0.0 and opt.dampening == 0.0 and opt.nesterov is False
        g = [rng.standard_normal(p.shape) for p in params]
        _step(opt, g)
        for p, a, gi in zip(params, p0, g):
            np.testing.assert_allclose(p.asnumpy(), a - 0.1 * gi, rtol=1e-5, atol=1e-6)

    def test_sgd_momentum_dampening_first_step(self, rng):
        # doc: v_{t+1} = u v_t + grad (1 - dampening); for the first step v_{t+1} = gradient
        params = _param_set(rng)
        p = [q.asnumpy().astype(np.float64) for q in params]
        opt = nn.SGD(params, learning_rate=0.05, momentum=0.8, dampening=0.3)
        v = [None] * 3
        for t in range(3):
            g = [rng.standard_normal(q.shape) for q in params]
            _step(opt, g)
            for i in range(3):
                v[i] = g[i] if t == 0 else 0.8 * v[i] + (1 - 0.3) * g[i]
                p[i] = p[i] - 0.05 * v[i]
        for q, want in zip(params, p):
            np.testing.assert_allclose(q.asnumpy(), want, rtol=1e-5, atol=1e-6)

    def test_sgd_nesterov_weight_decay(self, rng):
        params = _param_set(rng)
        p = [q.asnumpy().astype(np.float64) for q in params]
        opt = nn.SGD(params, learning_rate=0.05, momentum=0.9, nesterov=True, weight_decay=0.01)
        v = [None] * 3
        for t in range(2):
            g = [rng.standard_normal(q.shape) for q in params]
            _step(opt, g)
            for i, name in enumerate(["dense.weight", "bn.gamma", "bn.beta"]):
                gi = g[i] + (0.0 if ("beta" in name or "gamma" in name) else 0.01) * p[i]
                v[i] = gi if t == 0 else 0.9 * v[i] + gi
                p[i] = p[i] - 0.05 * (gi + 0.9 * v[i])
        for q, want in zip(params, p):
            np.testing.assert_allclose(q.asnumpy(), want, rtol=1e-5, atol=1e-6)

    @pytest.mark.parametrize("nesterov", [False, True])
    def test_momentum(self, rng, nesterov):
        # doc: v = v u + grad; p -= lr v   (nesterov: p -= grad lr + v u lr)
        params = _param_set(rng)
        p = [q.asnumpy().astype(np.float64) for q in params]
        opt = nn.Momentum(params, learning_rate=0.1, momentum=0.9, use_nesterov=nesterov)
        assert [m.name for m in opt.moments] == ["moments.dense.weight", "moments.bn.gamma", "moments.bn.beta"]
        v = [np.zeros_like(a) for a in p]
        for _ in range(3):
            g = [rng.standard_normal(q.shape) for q in params]
            _step(opt, g)
            for i in range(3):
                v[i] = v[i] * 0.9 + g[i]
                p[i] = p[i] - (g[i] * 0.1 + v[i] * 0.9 * 0.1 if nesterov else 0.1 * v[i])
        for q, want in zip(params, p):
            np.testing.assert_allclose(q.asnumpy(), want, rtol=1e-5, atol=1e-6)

    @pytest.mark.parametrize("nesterov", [False, True])
    def test_adam_two_steps(self, rng, nesterov):
        # doc: m = b1 m + (1-b1) g; v = b2 v + (1-b2) g^2; l = lr sqrt(1-b2^t)/(1-b1^t);
        #      p -= l m / (sqrt(v) + eps)   (nesterov: (b1 m + (1-b1) g) in place of m)
        params = _param_set(rng)
        p = [q.asnumpy().astype(np.float64) for q in params]
        opt = nn.Adam(params, learning_rate=0.01, use_nesterov=nesterov)
        assert (opt.beta1, opt.beta2, opt.eps) == (0.9, 0.999, 1e-8)
        assert float(opt.learning_rate.asnumpy()) == pytest.approx(1e-3 * 10)
        m = [np.zeros_like(a) for a in p]
        v = [np.zeros_like(a) for a in p]
        for t in (1, 2):
            g = [rng.standard_normal(q.shape) for q in params]
            _step(opt, g)
            lr_t = 0.01 * math.sqrt(1 - 0.999 ** t) / (1 - 0.9 ** t)
            for i in range(3):
                m[i] = 0.9 * m[i] + 0.1 * g[i]
                v[i] = 0.999 * v[i] + 0.001 * g[i] ** 2
                num = 0.9 * m[i] + 0.1 * g[i] if nesterov else m[i]
                p[i] = p[i] - lr_t * num / (np.sqrt(v[i]) + 1e-8)
        for q, want in zip(params, p):
            np.testing.assert_allclose(q.asnumpy(), want, rtol=1e-5, atol=1e-6)

    def test_adam_defaults(self, rng):
        opt = nn.Adam(_param_set(rng))
        assert float(opt.learning_rate.asnumpy()) == pytest.approx(1e-3)
        assert opt.use_nesterov is False and opt.use_locking is False
        assert [q.name for q in opt.moment1] == ["moment1.dense.weight", "moment1.bn.gamma", "moment1.bn.beta"]
        assert [q.name for q in opt.moment2] == ["moment2.dense.weight", "moment2.bn.gamma", "moment2.bn.beta"]

    def test_adam_weight_decay_is_l2_with_filter(self, rng):
        # nn.Adam: weight decay is added to the gradient (g + wd * p) of parameters whose names
        # contain neither 'beta' nor 'gamma'
        params = _param_set(rng)
        p = [q.asnumpy().astype(np.float64) for q in params]
        opt = nn.Adam(params, learning_rate=0.01, weight_decay=0.1)
        g = [rng.standard_normal(q.shape) for q in params]
        _step(opt, g)
        lr_t = 0.01 * math.sqrt(1 - 0.999) / (1 - 0.9)
        for i, wd in enumerate([0.1, 0.0, 0.0]):
            gi = g[i] + wd * p[i]
            m, v = 0.1 * gi, 0.001 * gi ** 2
            np.testing.assert_allclose(params[i].asnumpy(), p[i] - lr_t * m / (np.sqrt(v) + 1e-8), rtol=1e-5, atol=1e-6)

    def test_adam_loss_scale(self, rng):
        params = _param_set(rng)
        p = [q.asnumpy().astype(np.float64) for q in params]
        opt = nn.Adam(params, learning_rate=0.01, loss_scale=128.0)
        g = [rng.standard_normal(q.shape) for q in params]
        _step(opt, [gi * 128.0 for gi in g])
        lr_t = 0.01 * math.sqrt(1 - 0.999) / (1 - 0.9)
        for q, a, gi in zip(params, p, g):
            np.testing.assert_allclose(q.asnumpy(), a - lr_t * 0.1 * gi / (np.sqrt(0.001 * gi ** 2) + 1e-8),
                                       rtol=1e-5, atol=1e-6)

    def test_adam_weight_decay_optimizer(self, rng):
        # doc: update = m / (sqrt(v) + eps) [+ wd * w]; w -= lr * update; no bias correction; eps=1e-6
        params = _param_set(rng)
        p = [q.asnumpy().astype(np.float64) for q in params]
        opt = nn.AdamWeightDecay(params, learning_rate=0.01, weight_decay=0.05)
        assert opt.eps == 1e-6 and (opt.beta1, opt.beta2) == (0.9, 0.999)
        m = [np.zeros_like(a) for a in p]
        v = [np.zeros_like(a) for a in p]
        for _ in range(2):
            g = [rng.standard_normal(q.shape) for q in params]
            _step(opt, g)
            for i, wd in enumerate([0.05, 0.0, 0.0]):
                m[i] = 0.9 * m[i] + 0.1 * g[i]
                v[i] = 0.999 * v[i] + 0.001 * g[i] ** 2
                upd = m[i] / (np.sqrt(v[i]) + 1e-6) + wd * p[i]
                p[i] = p[i] - 0.01 * upd
        for q, want in zip(params, p):
            np.testing.assert_allclose(q.asnumpy(), want, rtol=1e-5, atol=1e-6)

    @pytest.mark.parametrize("centered", [False, True])
    def test_rmsprop(self, rng, centered):
        # doc: s = rho s + (1-rho) g^2 (s starts at 1); centered g_avg = rho g_avg + (1-rho) g;
        #      m = beta m + lr g / sqrt(s [- g_avg^2] + eps); w -= m
        params = _param_set(rng)
        p = [q.asnumpy().astype(np.float64) for q in params]
        opt = nn.RMSProp(params, learning_rate=0.01, decay=0.9, momentum=0.5, epsilon=1e-6, centered=centered)
        d = nn.RMSProp(_param_set(rng))
        assert (float(d.learning_rate.asnumpy()), d.decay, d.momentum, d.epsilon, d.centered) == \
            (pytest.approx(0.1), 0.9, 0.0, 1e-10, False)
        s = [np.ones_like(a) for a in p]
        ga = [np.zeros_like(a) for a in p]
        mom = [np.zeros_like(a) for a in p]
        for _ in range(3):
            g = [rng.standard_normal(q.shape) for q in params]
            _step(opt, g)
            for i in range(3):
                s[i] = 0.9 * s[i] + 0.1 * g[i] ** 2
                denom = s[i]
                if centered:
                    ga[i] = 0.9 * ga[i] + 0.1 * g[i]
                    denom = s[i] - ga[i] ** 2
                mom[i] = 0.5 * mom[i] + 0.01 * g[i] / np.sqrt(denom + 1e-6)
                p[i] = p[i] - mom[i]
        for q, want in zip(params, p):
            np.testing.assert_allclose(q.asnumpy(), want, rtol=1e-5, atol=1e-6)

    def test_group_params(self, rng):
        params = _param_set(rng)
        p = [q.asnumpy().astype(np.float64) for q in params]
        groups = [{"params": [params[0]], "lr": 0.5, "weight_decay": 0.1}, {"params": params[1:]}]
        opt = nn.SGD(groups, learning_rate=0.1)
        g = [rng.standard_normal(q.shape) for q in params]
        _step(opt, g)
        np.testing.assert_allclose(params[0].asnumpy(), p[0] - 0.5 * (g[0] + 0.1 * p[0]), rtol=1e-5, atol=1e-6)
        for i in (1, 2):
            np.testing.assert_allclose(params[i].asnumpy(), p[i] - 0.1 * g[i], rtol=1e-5, atol=1e-6)

    def test_dynamic_lr_list(self, rng):
        params = _param_set(rng)[:1]
        p = params[0].asnumpy().astype(np.float64)
        lrs = [0.1, 0.05, 0.01]
        opt = nn.SGD(params, learning_rate=lrs)
        for t in range(4):
            g = rng.standard_normal(p.shape)
            _step(opt, [g])
            p = p - lrs[min(t, 2)] * g
        np.testing.assert_allclose(params[0].asnumpy(), p, rtol=1e-5, atol=1e-6)


# =================================================================================================
# learning-rate schedules
# =================================================================================================
class TestLR:
    def test_piecewise_constant(self):
        assert nn.piecewise_constant_lr([2, 5, 10], [0.1, 0.05, 0.01]) == \
            [0.1] * 2 + [0.05] * 3 + [0.01] * 5

    @pytest.mark.parametrize("is_stair", [False, True])
    def test_exponential_natural_inverse(self, is_stair):
        lr, rate, total, spe, de = 0.1, 0.9, 10, 2, 2
        ep = [i // spe for i in range(total)]
        p = [(e // de) if is_stair else e / de for e in ep]
        np.testing.assert_allclose(nn.exponential_decay_lr(lr, rate, total, spe, de, is_stair),
                                   [lr * rate ** q for q in p], rtol=1e-12)
        np.testing.assert_allclose(nn.inverse_decay_lr(lr, rate, total, spe, de, is_stair),
                                   [lr / (1 + rate * q) for q in p], rtol=1e-12)
        # natural_exp_decay_lr: lr * e^(-decay_rate * current_epoch), stair: floor(epoch / de) * de
        q = [(e // de) * de if is_stair else e for e in ep]
        np.testing.assert_allclose(nn.natural_exp_decay_lr(lr, rate, total, spe, de, is_stair),
                                   [lr * math.exp(-rate * v) for v in q], rtol=1e-12)

    def test_doc_examples(self):
        np.testing.assert_allclose(nn.exponential_decay_lr(0.1, 0.9, 6, 2, 1),
                                   [0.1, 0.1, 0.09, 0.09, 0.081, 0.081], rtol=1e-12)
        np.testing.assert_allclose(nn.cosine_decay_lr(0.01, 0.1, 6, 2, 2),
                                   [0.1, 0.1, 0.055, 0.055, 0.01, 0.01], rtol=1e-12)
        np.testing.assert_allclose(nn.warmup_lr(0.1, 6, 2, 2), [0.0, 0.0, 0.05, 0.05, 0.1, 0.1], rtol=1e-12)
        np.testing.assert_allclose(nn.polynomial_decay_lr(0.1, 0.01, 6, 2, 2, 0.5),
                                   [0.1, 0.1, 0.07363961030678928, 0.07363961030678928, 0.01, 0.01], rtol=1e-9)

    def test_cosine_formula(self):
        mn, mx, total, spe, de = 0.001, 0.2, 12, 3, 3
        want = [mn + 0.5 * (mx - mn) * (1 + math.cos(math.pi * min(i // spe, de) / de)) for i in range(total)]
        np.testing.assert_allclose(nn.cosine_decay_lr(mn, mx, total, spe, de), want, rtol=1e-12)

    def _eval(self, sched, steps):
        return [float(sched(Tensor(np.array(s, np.int32))).asnumpy()) for s in steps]

    def test_schedule_cells(self):
        steps = [0, 1, 3, 4, 7, 12]
        lr, rate, ds = 0.1, 0.9, 4
        for stair in (False, True):
            p = [math.floor(s / ds) if stair else s / ds for s in steps]
            np.testing.assert_allclose(self._eval(nn.ExponentialDecayLR(lr, rate, ds, stair), steps),
                                       [lr * rate ** q for q in p], rtol=1e-5)
            np.testing.assert_allclose(self._eval(nn.NaturalExpDecayLR(lr, rate, ds, stair), steps),
                                       [lr * math.exp(-rate * q) for q in p], rtol=1e-5)
            np.testing.assert_allclose(self._eval(nn.InverseDecayLR(lr, rate, ds, stair), steps),
                                       [lr / (1 + rate * q) for q in p], rtol=1e-5)
        np.testing.assert_allclose(
            self._eval(nn.CosineDecayLR(0.01, 0.1, ds), steps),
            [0.01 + 0.5 * 0.09 * (1 + math.cos(math.pi * min(s, ds) / ds)) for s in steps], rtol=1e-5)
        np.testing.assert_allclose(
            self._eval(nn.PolynomialDecayLR(0.1, 0.01, ds, 0.5), steps),
            [(0.1 - 0.01) * (1 - min(s, ds) / ds) ** 0.5 + 0.01 for s in steps], rtol=1e-5, atol=1e-7)
        np.testing.assert_allclose(self._eval(nn.WarmUpLR(0.1, ds), steps),
                                   [0.1 * min(s, ds) / ds for s in steps], rtol=1e-5)

    def test_schedule_in_optimizer(self, rng):
        param = Parameter(T(rng.standard_normal((2,))), name="w")
        p = param.asnumpy().astype(np.float64)
        opt = nn.SGD([param], learning_rate=nn.ExponentialDecayLR(0.1, 0.5, 1))
        for t in range(3):  # the rate of step t is computed from global_step = t (before the increment)
            g = rng.standard_normal(2)
            _step(opt, [g])
            p = p - 0.1 * 0.5 ** t * g
        np.testing.assert_allclose(param.asnumpy(), p, rtol=1e-5, atol=1e-6)


# =================================================================================================
# wrappers
# =================================================================================================
def _dense_with_values(rng, i=3, o=2):
    return nn.Dense(i, o, weight_init=T(rng.standard_normal((o, i))), bias_init=T(rng.standard_normal((o,))))


class TestWrappers:
    def _data(self, rng):
        return rng.standard_normal((4, 3)).astype(np.float32), rng.standard_normal((4, 2)).astype(np.float32)

    def _grads(self, w, b, x, y):
        # MSE 'mean' over all N*O elements of (x W^T + b - y)^2
        r = x @ w.T + b - y
        gr = 2 * r / r.size
        return (r ** 2).mean(), gr.T @ x, gr.sum(0)

    def test_with_loss_cell(self, rng):
        net = _dense_with_values(rng)
        x, y = self._data(rng)
        loss = nn.WithLossCell(net, nn.MSELoss())(T(x), T(y)).asnumpy()
        np.testing.assert_allclose(loss, self._grads(net.weight.asnumpy(), net.bias.asnumpy(), x, y)[0], rtol=1e-5)
        assert nn.WithLossCell(net, nn.MSELoss()).backbone_network is net
        # auto_prefix=False: the wrapper adds no prefix to parameter names
        assert [p.name for p in nn.WithLossCell(net, nn.MSELoss()).trainable_params()] == ["weight", "bias"]

    def test_train_one_step_default_sens(self, rng):
        net = _dense_with_values(rng)
        x, y = self._data(rng)
        w, b = net.weight.asnumpy().astype(np.float64), net.bias.asnumpy().astype(np.float64)
        train = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), 0.1))
        assert train.sens == 1.0  # sens=None -> 1.0
        loss = train(T(x), T(y)).asnumpy()
        l0, gw, gb = self._grads(w, b, x, y)
        np.testing.assert_allclose(loss, l0, rtol=1e-5)  # the loss before the update
        np.testing.assert_allclose(net.weight.asnumpy(), w - 0.1 * gw, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(net.bias.asnumpy(), b - 0.1 * gb, rtol=1e-5, atol=1e-6)

    def test_train_one_step_sens_none_and_value(self, rng):
        x, y = self._data(rng)
        net = _dense_with_values(rng)
        w, b = net.weight.asnumpy().astype(np.float64), net.bias.asnumpy().astype(np.float64)
        nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), 0.1), sens=None)(T(x), T(y))
        _, gw, _ = self._grads(w, b, x, y)
        np.testing.assert_allclose(net.weight.asnumpy(), w - 0.1 * gw, rtol=1e-5, atol=1e-6)
        net = nn.Dense(3, 2, weight_init=T(w), bias_init=T(b))
        nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), 0.1), sens=3.0)(T(x), T(y))
        np.testing.assert_allclose(net.weight.asnumpy(), w - 0.1 * 3.0 * gw, rtol=1e-5, atol=1e-6)
        with pytest.raises(ValueError):
            nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), 0.1), sens=0)
        with pytest.raises(TypeError):
            nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), 0.1), sens="2")

    @pytest.mark.parametrize("mode", MODES)
    def test_train_one_step_return_grad_dict(self, rng, mode):
        # doc: return_grad=True returns the gradients as a dict {parameter name: gradient} with the
        # loss, and the parameters are still updated
        net = _dense_with_values(rng)
        x, y = self._data(rng)
        w, b = net.weight.asnumpy().astype(np.float64), net.bias.asnumpy().astype(np.float64)
        train = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), 0.1),
                                    return_grad=True)
        loss, grads = run_cell(mode, train, T(x), T(y))
        l0, gw, gb = self._grads(w, b, x, y)
        np.testing.assert_allclose(loss.asnumpy(), l0, rtol=1e-5)
        assert isinstance(grads, dict) and list(grads) == ["weight", "bias"]
        np.testing.assert_allclose(grads["weight"].asnumpy(), gw, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(grads["bias"].asnumpy(), gb, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(net.weight.asnumpy(), w - 0.1 * gw, rtol=1e-5, atol=1e-6)

    def test_with_eval_cell(self, rng):
        net = _dense_with_values(rng)
        x, y = self._data(rng)
        loss, out, label = nn.WithEvalCell(net, nn.MSELoss())(T(x), T(y))
        want_out = x @ net.weight.asnumpy().T + net.bias.asnumpy()
        np.testing.assert_allclose(out.asnumpy(), want_out, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(loss.asnumpy(), ((want_out - y) ** 2).mean(), rtol=1e-5)
        np.testing.assert_array_equal(label.asnumpy(), y)


# =================================================================================================
# Model, callbacks, checkpoints
# =================================================================================================
def _toy_data(rng, n=32):
    x = rng.standard_normal((n, 4)).astype(np.float32)
    y = (x[:, 0] + 0.5 * x[:, 1] > 0).astype(np.int32)
    return x, y


class TestModelAndCheckpoints:
    def test_model_train_matches_manual_loop(self, rng, tmp_path, capsys):
        x, y = _toy_data(rng)
        w0 = rng.standard_normal((2, 4)).astype(np.float32) * 0.1
        b0 = np.zeros(2, np.float32)
        net = nn.Dense(4, 2, weight_init=T(w0), bias_init=T(b0))
        loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        opt = nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)
        model = ms.Model(net, loss_fn, opt, metrics={"acc": nn.Accuracy()})
        ds = ms.dataset.NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(8)
        cfg = ms.CheckpointConfig(save_checkpoint_steps=4, keep_checkpoint_max=5)
        ckpt_cb = ms.ModelCheckpoint(prefix="toy", directory=str(tmp_path), config=cfg)
        model.train(2, ds, callbacks=[ms.LossMonitor(), ckpt_cb])

        # numpy: softmax CE (mean) + Momentum, batch by batch
        w, b = w0.astype(np.float64), b0.astype(np.float64)
        vw, vb = np.zeros_like(w), np.zeros_like(b)
        losses = []
        for _ in range(2):
            for s in range(0, 32, 8):
                xb, yb = x[s:s + 8].astype(np.float64), y[s:s + 8]
                logits = xb @ w.T + b
                pr = np_softmax(logits)
                losses.append(-np.log(pr[np.arange(8), yb]).mean())
                d = pr.copy()
                d[np.arange(8), yb] -= 1
                d /= 8
                gw, gb = d.T @ xb, d.sum(0)
                vw, vb = 0.9 * vw + gw, 0.9 * vb + gb
                w, b = w - 0.1 * vw, b - 0.1 * vb
        np.testing.assert_allclose(net.weight.asnumpy(), w, rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(net.bias.asnumpy(), b, rtol=1e-4, atol=1e-5)
        # LossMonitor prints "epoch: E step: S, loss is L" every step (S counts within the epoch)
        out = capsys.readouterr().out
        lines = [ln for ln in out.splitlines() if "loss is" in ln]
        assert len(lines) == 8
        assert lines[0].startswith("epoch: 1 step: 1, loss is")
        assert lines[-1].startswith("epoch: 2 step: 4, loss is")
        assert float(lines[-1].rsplit("loss is", 1)[1]) == pytest.approx(losses[-1], rel=1e-4)
        # ModelCheckpoint: "{prefix}-{epoch}_{step in epoch}.ckpt" every save_checkpoint_steps steps
        names = sorted(os.path.basename(f) for f in glob.glob(str(tmp_path / "*.ckpt")))
        assert names == ["toy-1_4.ckpt", "toy-2_4.ckpt"]

        # eval: Accuracy over argmax(outputs) == label
        acc = model.eval(ds)["acc"]
        pred = (x.astype(np.float64) @ w.T + b).argmax(1)
        assert acc == pytest.approx((pred == y).mean())

        # the saved checkpoint holds the network parameters (and the optimizer state) by name
        params = ms.load_checkpoint(str(tmp_path / "toy-2_4.ckpt"))
        assert "weight" in params and "bias" in params
        np.testing.assert_allclose(params["weight"].asnumpy(), net.weight.asnumpy(), rtol=1e-6)
        assert "moments.weight" in params and "learning_rate" in params

    def test_save_load_param_into_net(self, rng, tmp_path):
        net = nn.SequentialCell([nn.Dense(3, 4), nn.ReLU(), nn.Dense(4, 2)])
        path = str(tmp_path / "net.ckpt")
        ms.save_checkpoint(net, path)
        params = ms.load_checkpoint(path)
        assert list(params) == ["0.weight", "0.bias", "2.weight", "2.bias"]
        assert all(isinstance(v, Parameter) for v in params.values())
        assert params["0.weight"].name == "0.weight"
        other = nn.SequentialCell([nn.Dense(3, 4), nn.ReLU(), nn.Dense(4, 2)])
        ret = ms.load_param_into_net(other, params)
        # MindSpore 2.x: (param_not_load, ckpt_not_load), both empty on a full match
        assert ret == ([], [])
        for a, b in zip(net.trainable_params(), other.trainable_params()):
            np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())

    def test_load_param_into_net_reports_both_sides(self, rng):
        net = nn.SequentialCell([nn.Dense(3, 4), nn.Dense(4, 2)])
        ckpt = {"0.weight": Parameter(T(np.ones((4, 3))), name="0.weight"),
                "0.bias": Parameter(T(np.zeros(4)), name="0.bias"),
                "extra.value": Parameter(T(np.ones(2)), name="extra.value")}
        param_not_load, ckpt_not_load = ms.load_param_into_net(net, ckpt, strict_load=True)
        assert param_not_load == ["1.weight", "1.bias"]
        assert ckpt_not_load == ["extra.value"]
        np.testing.assert_array_equal(net[0].weight.asnumpy(), np.ones((4, 3)))
        with pytest.raises(ValueError):  # shape mismatch
            ms.load_param_into_net(net, {"0.weight": Parameter(T(np.ones((3, 3))), name="0.weight")})

    def test_save_checkpoint_append_dict_and_suffix(self, tmp_path):
        net = nn.Dense(2, 1)
        ms.save_checkpoint(net, str(tmp_path / "a"), append_dict={"epoch_num": 3, "lr": 0.5})
        params = ms.load_checkpoint(str(tmp_path / "a.ckpt"))  # ".ckpt" is appended
        assert list(params) == ["weight", "bias", "epoch_num", "lr"]
        assert int(params["epoch_num"].asnumpy()) == 3
        filtered = ms.load_checkpoint(str(tmp_path / "a.ckpt"), filter_prefix=["epoch", "lr"])
        assert list(filtered) == ["weight", "bias"]

    def test_load_checkpoint_into_net_argument(self, tmp_path):
        net = nn.Dense(2, 3)
        ms.save_checkpoint(net, str(tmp_path / "d.ckpt"))
        other = nn.Dense(2, 3)
        ms.load_checkpoint(str(tmp_path / "d.ckpt"), net=other)
        np.testing.assert_array_equal(other.weight.asnumpy(), net.weight.asnumpy())


class TestAccuracy:
    def test_classification(self):
        m = nn.Accuracy()
        assert m.eval_type == "classification"
        m.clear()
        m.update(T([[0.2, 0.5], [0.3, 0.1], [0.9, 0.1]]), Tensor(np.array([1, 0, 1], np.int32)))
        assert m.eval() == pytest.approx(2 / 3)
        m.update(T([[0.0, 1.0]]), T([[0.0, 1.0]]))  # one-hot labels
        assert m.eval() == pytest.approx(3 / 4)

    def test_multilabel(self):
        m = nn.Accuracy("multilabel")
        m.update(T([[0.8, 0.1, 0.6], [0.2, 0.9, 0.4]]), T([[1, 0, 1], [0, 1, 1]]))
        assert m.eval() == pytest.approx(0.5)


# =================================================================================================
# more: checkpoint policy, conv 'same' with dilation, Adagrad, Model metric names
# =================================================================================================
class TestMore:
    def test_checkpoint_config_defaults_and_keep_max(self, rng, tmp_path):
        cfg = ms.CheckpointConfig()
        assert (cfg.save_checkpoint_steps, cfg.save_checkpoint_seconds, cfg.keep_checkpoint_max,
                cfg.keep_checkpoint_per_n_minutes, cfg.integrated_save, cfg.async_save) == (1, 0, 5, 0, True, False)
        x, y = _toy_data(rng, 16)
        net = nn.Dense(4, 2)
        model = ms.Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                         nn.SGD(net.trainable_params(), 0.1))
        ds = ms.dataset.NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(4)
        cb = ms.ModelCheckpoint(prefix="k", directory=str(tmp_path),
                                config=ms.CheckpointConfig(save_checkpoint_steps=1, keep_checkpoint_max=3))
        model.train(2, ds, callbacks=cb)
        names = sorted(os.path.basename(f) for f in glob.glob(str(tmp_path / "*.ckpt")))
        assert names == ["k-2_2.ckpt", "k-2_3.ckpt", "k-2_4.ckpt"]  # the 3 newest of 8
        # a second ModelCheckpoint with the same prefix in the same directory gets "k_1"
        cb2 = ms.ModelCheckpoint(prefix="k", directory=str(tmp_path),
                                 config=ms.CheckpointConfig(save_checkpoint_steps=4))
        model.train(1, ds, callbacks=cb2)
        assert os.path.exists(str(tmp_path / "k_1-1_4.ckpt"))

    @pytest.mark.parametrize("k,s,d", [(3, 1, 2), (3, 2, 2), (2, 2, 3)])
    def test_conv_same_with_dilation(self, rng, k, s, d):
        conv = nn.Conv2d(2, 2, k, stride=s, dilation=d)
        x = rng.standard_normal((1, 2, 9, 8)).astype(np.float32)
        y = conv(T(x)).asnumpy()
        assert y.shape == (1, 2, -(-9 // s), -(-8 // s))
        pads = same_pads(9, k, s, d) + same_pads(8, k, s, d)
        want = np_conv2d(x, conv.weight.asnumpy(), (s, s), pads, (d, d))
        np.testing.assert_allclose(y, want, rtol=1e-4, atol=1e-5)

    def test_adagrad(self, rng):
        # doc: accum += g^2 (accum starts at 0.1); w -= lr g / sqrt(accum); defaults lr 0.001
        params = _param_set(rng)
        p = [q.asnumpy().astype(np.float64) for q in params]
        opt = nn.Adagrad(params, learning_rate=0.1)
        acc = [np.full_like(a, 0.1) for a in p]
        for _ in range(2):
            g = [rng.standard_normal(q.shape) for q in params]
            _step(opt, g)
            for i in range(3):
                acc[i] = acc[i] + g[i] ** 2
                p[i] = p[i] - 0.1 * g[i] / np.sqrt(acc[i])
        for q, want in zip(params, p):
            np.testing.assert_allclose(q.asnumpy(), want, rtol=1e-5, atol=1e-6)

    def test_model_metric_names_and_loss_metric(self, rng):
        x, y = _toy_data(rng, 16)
        net = nn.Dense(4, 2)
        loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        model = ms.Model(net, loss_fn, metrics={"accuracy", "loss"})
        ds = ms.dataset.NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(8)
        res = model.eval(ds)
        logits = x @ net.weight.asnumpy().T + net.bias.asnumpy()
        assert set(res) == {"accuracy", "loss"}
        assert res["accuracy"] == pytest.approx((logits.argmax(1) == y).mean())
        per = -np_log_softmax(logits.astype(np.float64))[np.arange(16), y]
        # Loss metric: the mean of the per-batch losses
        assert res["loss"] == pytest.approx(np.mean([per[:8].mean(), per[8:].mean()]), rel=1e-4)

    def test_maxpool_pad_mode(self, rng):
        x = rng.standard_normal((1, 1, 5, 5)).astype(np.float32)
        y = nn.MaxPool2d(3, 2, pad_mode="pad", padding=1)(T(x)).asnumpy()
        xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)), constant_values=-np.inf)
        want = np.array([[xp[0, 0, 2 * i:2 * i + 3, 2 * j:2 * j + 3].max() for j in range(3)] for i in range(3)])
        np.testing.assert_allclose(y[0, 0], want)

    def test_per_sample_loss_trains_on_the_sum(self, rng, capsys):
        # the docs' example wraps nn.SoftmaxCrossEntropyWithLogits() (reduction 'none') in
        # TrainOneStepCell: the backward seed is ones of the loss's shape (the gradient of the sum),
        # and LossMonitor prints the mean of the loss vector
        w = rng.standard_normal((3, 4)).astype(np.float32)
        x = rng.standard_normal((8, 4)).astype(np.float32)
        y = rng.integers(0, 3, 8).astype(np.int32)
        net = nn.Dense(4, 3, weight_init=T(w), bias_init="zeros")
        model = ms.Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True), nn.SGD(net.trainable_params(), 0.5))
        ds = ms.dataset.NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(8)
        model.train(1, ds, callbacks=ms.LossMonitor())
        logits = x.astype(np.float64) @ w.T
        pr = np_softmax(logits)
        per = -np.log(pr[np.arange(8), y])
        d = pr.copy()
        d[np.arange(8), y] -= 1
        np.testing.assert_allclose(net.weight.asnumpy(), w - 0.5 * d.T @ x, rtol=1e-5, atol=1e-6)
        line = [ln for ln in capsys.readouterr().out.splitlines() if "loss is" in ln][0]
        assert float(line.rsplit("loss is", 1)[1]) == pytest.approx(per.mean(), rel=1e-5)

    def test_normal_init_sigma(self):
        # 'normal' = Normal(sigma=0.01, mean=0) (Embedding's default table)
        std = nn.Embedding(2000, 50).embedding_table.asnumpy().std()
        assert 0.009 < std < 0.011

    @pytest.mark.parametrize("count_include_pad,divisor", [(True, None), (False, None), (True, 2)])
    def test_avgpool_pad_mode(self, rng, count_include_pad, divisor):
        x = rng.standard_normal((1, 1, 5, 5)).astype(np.float32)
        pool = nn.AvgPool2d(3, 2, pad_mode="pad", padding=1, count_include_pad=count_include_pad,
                            divisor_override=divisor)
        y = pool(T(x)).asnumpy()
        xp = np.pad(x[0, 0], 1)
        ones = np.pad(np.ones((5, 5)), 1)
        want = np.zeros((3, 3))
        for i in range(3):
            for j in range(3):
                s = xp[2 * i:2 * i + 3, 2 * j:2 * j + 3].sum()
                n = divisor or (9 if count_include_pad else ones[2 * i:2 * i + 3, 2 * j:2 * j + 3].sum())
                want[i, j] = s / n
        np.testing.assert_allclose(y[0, 0], want, rtol=1e-5, atol=1e-6)


def test_documented_signature_defaults():
    import inspect

    def defaults(obj):
        return {k: v.default for k, v in inspect.signature(obj).parameters.items()
                if v.default is not inspect.Parameter.empty}

    assert defaults(nn.Dropout)["keep_prob"] == 0.5 and defaults(nn.Dropout)["p"] is None
    assert defaults(nn.TrainOneStepCell) == {"sens": None, "return_grad": False}
    assert defaults(nn.Conv2d)["pad_mode"] == "same" and defaults(nn.Conv2d)["has_bias"] is False
    assert {k: defaults(nn.MaxPool2d)[k] for k in ("kernel_size", "stride", "pad_mode")} == \
        {"kernel_size": 1, "stride": 1, "pad_mode": "valid"}
    assert {k: defaults(nn.AvgPool2d)[k] for k in ("kernel_size", "stride", "pad_mode")} == \
        {"kernel_size": 1, "stride": 1, "pad_mode": "valid"}
    assert defaults(nn.LayerNorm)["epsilon"] == 1e-7
    assert defaults(nn.BatchNorm2d)["momentum"] == 0.9 and defaults(nn.BatchNorm2d)["eps"] == 1e-5
    assert defaults(nn.SoftmaxCrossEntropyWithLogits) == {"sparse": False, "reduction": "none"}
    assert defaults(nn.Adam)["eps"] == 1e-8 and defaults(nn.Adam)["learning_rate"] == 1e-3
    assert defaults(nn.AdamWeightDecay)["eps"] == 1e-6
    assert defaults(nn.RMSProp)["epsilon"] == 1e-10
    assert defaults(ms.load_param_into_net)["strict_load"] is False
