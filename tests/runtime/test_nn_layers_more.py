"""The 3-D pools, BatchNorm3d, InstanceNorm1d/3d, the new activations, CellDict, Unflatten, the 1-D
and 3-D pads, Dropout1d and the small op layers (Roll, Tril, Triu, OneHot, Norm, Moments, Range)
against numpy oracles (direct loops over pooling windows), finite-difference gradients, and
equality across PyNative, jit, GRAPH_MODE and the frame hook."""
import itertools

import numpy as np
import pytest

import runtime as ms
from runtime import Tensor, nn
from tests.gradcheck import check_grad
from tests.modes import HOOK_MODES, MODES, run_cell


# -- 3-D pooling oracles ----------------------------------------------------------------------------------
def _axis(n, k, s, d, pad_mode, p, ceil):
    """(out, lo): output length and the padding before the axis, from the documented formulas."""
    eff = d * (k - 1) + 1
    if pad_mode == "same":
        out = int(np.ceil(n / s))
        return out, max((out - 1) * s + eff - n, 0) // 2
    p = p if pad_mode == "pad" else 0
    q = (n + 2 * p - eff) / s
    out = (int(np.ceil(q)) if ceil else int(np.floor(q))) + 1
    if ceil and (out - 1) * s >= n + p:
        out -= 1
    return out, p


def np_pool3d(x, kind, k, s, pad_mode="valid", p=(0, 0, 0), d=(1, 1, 1), ceil=False,
              count_include_pad=True, divisor_override=None):
    """Max or average pooling of (N, C, D, H, W) x by looping over every output cell; for max also
    the flat index of the (first) maximum in its input volume."""
    n, c = x.shape[:2]
    spatial = x.shape[2:]
    plans = [_axis(*args, pad_mode, pp, ceil) for args, pp in zip(zip(spatial, k, s, d), p)]
    out = np.zeros((n, c) + tuple(o for o, _ in plans))
    where = np.zeros(out.shape, np.int64)
    for idx in itertools.product(*[range(o) for o, _ in plans]):
        taps, count = [], 1
        for axis, (o, lo) in enumerate(plans):
            start = idx[axis] * s[axis] - lo
            pos = [start + j * d[axis] for j in range(k[axis])]
            taps.append([q for q in pos if 0 <= q < spatial[axis]])
            if kind == "avg":
                pp = p[axis] if (pad_mode == "pad" and count_include_pad) else 0
                count *= sum(1 for q in pos if -pp <= q < spatial[axis] + pp)
        cells = [(a, b, e) for a in taps[0] for b in taps[1] for e in taps[2]]
        values = np.stack([x[:, :, a, b, e] for a, b, e in cells], -1)
        if kind == "max":
            out[(slice(None), slice(None)) + idx] = values.max(-1)
            first = values.argmax(-1)
            flat = np.array([a * spatial[1] * spatial[2] + b * spatial[2] + e for a, b, e in cells])
            where[(slice(None), slice(None)) + idx] = flat[first]
        else:
            out[(slice(None), slice(None)) + idx] = values.sum(-1) / (divisor_override or count)
    return out, where


MAX_CASES = [
    dict(kernel_size=2, stride=2),
    dict(kernel_size=(2, 3, 2), stride=(1, 2, 1)),
    dict(kernel_size=3, stride=2, pad_mode="pad", padding=1),
    dict(kernel_size=(3, 2, 3), stride=2, pad_mode="pad", padding=(1, 0, 1), ceil_mode=True),
    dict(kernel_size=2, stride=(2, 1, 2), dilation=(2, 1, 2)),
    dict(kernel_size=3, stride=2, pad_mode="same"),
    dict(kernel_size=(2, 2, 3), stride=3, ceil_mode=True),
]


def _max_oracle(x, kw):
    t3 = lambda v: v if isinstance(v, tuple) else (v,) * 3
    return np_pool3d(x, "max", t3(kw["kernel_size"]), t3(kw.get("stride", 1)), kw.get("pad_mode", "valid"),
                     t3(kw.get("padding", 0)), t3(kw.get("dilation", 1)), kw.get("ceil_mode", False))


@pytest.mark.parametrize("kw", MAX_CASES)
def test_max_pool3d_matches_a_direct_loop(kw, rng):
    x = rng.standard_normal((2, 3, 6, 7, 8)).astype(np.float32)
    want, where = _max_oracle(x, kw)
    out, idx = nn.MaxPool3d(**kw, return_indices=True)(Tensor(x))
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-6)
    np.testing.assert_array_equal(idx.asnumpy(), where)
    assert idx.dtype == ms.int64
    np.testing.assert_allclose(nn.MaxPool3d(**kw)(Tensor(x)).asnumpy(), want, rtol=1e-6)


@pytest.mark.parametrize("kw", MAX_CASES[:4])
def test_max_pool3d_indices_on_ties_are_the_first_maximum(kw, rng):
    x = rng.integers(0, 2, (1, 2, 6, 7, 8)).astype(np.float32)  # many equal maxima per window
    want, where = _max_oracle(x, kw)
    out, idx = nn.MaxPool3d(**kw, return_indices=True)(Tensor(x))
    np.testing.assert_allclose(out.asnumpy(), want)
    np.testing.assert_array_equal(idx.asnumpy(), where)


AVG_CASES = [
    dict(kernel_size=2, stride=2),
    dict(kernel_size=(3, 2, 2), stride=(2, 1, 2), pad_mode="pad", padding=1),
    dict(kernel_size=3, stride=2, pad_mode="pad", padding=1, count_include_pad=False),
    dict(kernel_size=3, stride=2, pad_mode="pad", padding=(1, 1, 0), ceil_mode=True),
    dict(kernel_size=(2, 3, 3), stride=2, ceil_mode=True, count_include_pad=False),
    dict(kernel_size=2, stride=1, divisor_override=3),
    dict(kernel_size=3, stride=2, pad_mode="same"),
]


@pytest.mark.parametrize("kw", AVG_CASES)
def test_avg_pool3d_matches_a_direct_loop(kw, rng):
    x = rng.standard_normal((2, 2, 5, 7, 6)).astype(np.float32)
    t3 = lambda v: v if isinstance(v, tuple) else (v,) * 3
    want, _ = np_pool3d(x, "avg", t3(kw["kernel_size"]), t3(kw.get("stride", 1)), kw.get("pad_mode", "valid"),
                        t3(kw.get("padding", 0)), ceil=kw.get("ceil_mode", False),
                        count_include_pad=kw.get("count_include_pad", True),
                        divisor_override=kw.get("divisor_override"))
    np.testing.assert_allclose(nn.AvgPool3d(**kw)(Tensor(x)).asnumpy(), want, rtol=1e-5, atol=1e-6)


def test_pool3d_unbatched_input_and_errors(rng):
    x = rng.standard_normal((3, 4, 4, 4)).astype(np.float32)
    batched = nn.MaxPool3d(2, 2)(Tensor(x[None])).asnumpy()
    np.testing.assert_allclose(nn.MaxPool3d(2, 2)(Tensor(x)).asnumpy(), batched[0])
    with pytest.raises(ValueError):
        nn.MaxPool3d(2)(Tensor(np.ones((4, 4, 4), np.float32)))
    with pytest.raises(ValueError):
        nn.MaxPool3d(2, padding=1)  # padding needs pad_mode='pad'
    with pytest.raises(ValueError):
        nn.AvgPool3d(2, pad_mode="same", ceil_mode=True)
    with pytest.raises(ValueError):
        nn.MaxPool3d((2, 2))
    with pytest.raises(ValueError):
        nn.MaxPool3d(5)(Tensor(np.ones((1, 1, 3, 8, 8), np.float32)))


def test_pool3d_gradients_match_finite_differences(rng):
    x = rng.standard_normal((1, 2, 4, 5, 4))
    check_grad(lambda t: nn.MaxPool3d(2, (1, 2, 1), "pad", 1)(t), x, rtol=1e-4, atol=1e-6)
    check_grad(lambda t: nn.AvgPool3d(3, 2, "pad", 1, count_include_pad=False)(t), x, rtol=1e-4, atol=1e-6)
    check_grad(lambda t: nn.AdaptiveAvgPool3d((2, 3, 2))(t), x, rtol=1e-4, atol=1e-6)
    check_grad(lambda t: nn.AdaptiveMaxPool3d((2, 2, 3))(t), x, rtol=1e-4, atol=1e-6)


def _np_adaptive(x, sizes, reduce):
    spatial = x.shape[-3:]
    bins = [[(int(np.floor(i * n / o)), int(np.ceil((i + 1) * n / o))) for i in range(o)]
            for n, o in zip(spatial, sizes)]
    out = np.zeros(x.shape[:-3] + tuple(sizes))
    for i, j, k in itertools.product(*[range(o) for o in sizes]):
        (a, b), (c, d), (e, f) = bins[0][i], bins[1][j], bins[2][k]
        out[..., i, j, k] = reduce(x[..., a:b, c:d, e:f], axis=(-3, -2, -1))
    return out


@pytest.mark.parametrize("size, want", [((2, 3, 2), (2, 3, 2)), (3, (3, 3, 3)), ((None, 2, 1), (5, 2, 1)),
                                        ((5, 7, 6), (5, 7, 6))])
def test_adaptive_pool3d_matches_numpy(size, want, rng):
    x = rng.standard_normal((2, 3, 5, 7, 6)).astype(np.float32)
    np.testing.assert_allclose(nn.AdaptiveAvgPool3d(size)(Tensor(x)).asnumpy(), _np_adaptive(x, want, np.mean),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(nn.AdaptiveMaxPool3d(size)(Tensor(x)).asnumpy(), _np_adaptive(x, want, np.max))
    unbatched = nn.AdaptiveAvgPool3d(size)(Tensor(x[0])).asnumpy()
    np.testing.assert_allclose(unbatched, _np_adaptive(x[0], want, np.mean), rtol=1e-5, atol=1e-6)
    out, idx = nn.AdaptiveMaxPool3d(size, return_indices=True)(Tensor(x))
    np.testing.assert_allclose(out.asnumpy(), _np_adaptive(x, want, np.max))
    np.testing.assert_array_equal(idx.asnumpy(), _np_adaptive_argmax(x, want))
    assert idx.dtype == ms.int64


def _np_adaptive_argmax(x, sizes):
    """The flat (d, h, w) index of the first maximum of each adaptive bin, by a direct loop."""
    spatial = x.shape[-3:]
    bins = [[(int(np.floor(i * n / o)), int(np.ceil((i + 1) * n / o))) for i in range(o)]
            for n, o in zip(spatial, sizes)]
    flat = np.arange(np.prod(spatial)).reshape(spatial)
    out = np.zeros(x.shape[:-3] + tuple(sizes), np.int64)
    for i, j, k in itertools.product(*[range(o) for o in sizes]):
        (a, b), (c, d), (e, f) = bins[0][i], bins[1][j], bins[2][k]
        box = x[..., a:b, c:d, e:f].reshape(x.shape[:-3] + (-1,))
        out[..., i, j, k] = flat[a:b, c:d, e:f].reshape(-1)[box.argmax(-1)]
    return out


def test_adaptive_max_pool3d_indices_on_ties(rng):
    x = rng.integers(0, 2, (2, 2, 5, 6, 7)).astype(np.float32)
    out, idx = nn.AdaptiveMaxPool3d((2, 3, 3), return_indices=True)(Tensor(x))
    np.testing.assert_allclose(out.asnumpy(), _np_adaptive(x, (2, 3, 3), np.max))
    np.testing.assert_array_equal(idx.asnumpy(), _np_adaptive_argmax(x, (2, 3, 3)))


# -- normalisation --------------------------------------------------------------------------------------
def test_batch_norm3d_training_and_inference_match_numpy(rng):
    x = rng.standard_normal((3, 2, 4, 3, 5)).astype(np.float32) * 2 + 1
    bn = nn.BatchNorm3d(2, eps=1e-5, momentum=0.8).set_train()
    y = bn(Tensor(x)).asnumpy()
    mean = x.mean(axis=(0, 2, 3, 4))
    var = x.var(axis=(0, 2, 3, 4))
    want = (x - mean[None, :, None, None, None]) / np.sqrt(var[None, :, None, None, None] + 1e-5)
    np.testing.assert_allclose(y, want, rtol=1e-4, atol=1e-5)
    count = x.size // 2
    np.testing.assert_allclose(bn.bn2d.moving_mean.asnumpy(), 0.2 * mean, rtol=1e-5)
    np.testing.assert_allclose(bn.bn2d.moving_variance.asnumpy(), 0.8 + 0.2 * var * count / (count - 1), rtol=1e-5)
    bn.set_train(False)
    mm, mv = bn.bn2d.moving_mean.asnumpy(), bn.bn2d.moving_variance.asnumpy()
    infer = (x - mm[None, :, None, None, None]) / np.sqrt(mv[None, :, None, None, None] + 1e-5)
    np.testing.assert_allclose(bn(Tensor(x)).asnumpy(), infer, rtol=1e-4, atol=1e-5)
    assert [p.name for p in bn.trainable_params()] == ["bn2d.gamma", "bn2d.beta"]
    with pytest.raises(ValueError):
        bn(Tensor(x[0]))


def _np_instance_norm(x, gamma, beta, eps):
    axes = tuple(range(2, x.ndim))
    mean = x.mean(axis=axes, keepdims=True)
    var = x.var(axis=axes, keepdims=True)
    shape = (1, -1) + (1,) * (x.ndim - 2)
    return (x - mean) / np.sqrt(var + eps) * gamma.reshape(shape) + beta.reshape(shape)


@pytest.mark.parametrize("cls, shape", [(nn.InstanceNorm1d, (2, 3, 7)), (nn.InstanceNorm3d, (2, 3, 3, 4, 2))])
def test_instance_norm_matches_numpy_and_gradients(cls, shape, rng):
    x = rng.standard_normal(shape).astype(np.float32)
    norm = cls(3, eps=1e-4, gamma_init="normal", beta_init="normal")
    want = _np_instance_norm(x, norm.gamma.asnumpy(), norm.beta.asnumpy(), 1e-4)
    np.testing.assert_allclose(norm(Tensor(x)).asnumpy(), want, rtol=1e-4, atol=1e-5)
    check_grad(lambda t: cls(3, affine=False)(t), x.astype(np.float64), rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError):
        norm(Tensor(np.ones(shape[:1] + (4,) + shape[2:], np.float32)))


# -- activations ----------------------------------------------------------------------------------------
def _softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


ACTIVATIONS = [
    (lambda: nn.Softmin(), lambda x: _softmax(-x, -1)),
    (lambda: nn.Softmin(axis=0), lambda x: _softmax(-x, 0)),
    (lambda: nn.GLU(), lambda x: x[..., :2] / (1 + np.exp(-x[..., 2:]))),
    (lambda: nn.GLU(axis=0), lambda x: x[:1] / (1 + np.exp(-x[1:]))),
    (lambda: nn.CELU(0.7), lambda x: np.maximum(x, 0) + np.minimum(0.7 * (np.exp(x / 0.7) - 1), 0)),
    (lambda: nn.Threshold(0.1, 20.0), lambda x: np.where(x > 0.1, x, 20.0)),
    (lambda: nn.Tanhshrink(), lambda x: x - np.tanh(x)),
    (lambda: nn.SoftShrink(0.3), lambda x: np.where(x > 0.3, x - 0.3, np.where(x < -0.3, x + 0.3, 0.0))),
    (lambda: nn.HShrink(0.4), lambda x: np.where(np.abs(x) > 0.4, x, 0.0)),
    (lambda: nn.RReLU(0.1, 0.3).set_train(False), lambda x: np.where(x >= 0, x, 0.2 * x)),
    (lambda: nn.Softmax2d(), lambda x: _softmax(x, -3)),
]


@pytest.mark.parametrize("make, oracle", ACTIVATIONS)
def test_activations_match_numpy_and_finite_differences(make, oracle, rng):
    x = rng.standard_normal((2, 3, 4)).astype(np.float32)
    np.testing.assert_allclose(make()(Tensor(x)).asnumpy(), oracle(x.astype(np.float64)), rtol=1e-5, atol=1e-6)
    xg = rng.standard_normal((2, 3, 4))
    xg[np.abs(np.abs(xg) - 0.4) < 0.05] += 0.2  # keep away from the kinks finite differences straddle
    xg[np.abs(np.abs(xg) - 0.3) < 0.05] += 0.2
    xg[np.abs(xg - 0.1) < 0.05] += 0.2
    check_grad(lambda t: make()(t), xg, rtol=1e-4, atol=1e-6)


def test_rrelu_training_draws_slopes_in_range(rng):
    x = -np.abs(rng.standard_normal((50, 40))).astype(np.float32) - 0.1
    y = nn.RReLU(0.1, 0.3).set_train()(Tensor(x)).asnumpy()
    slope = y / x
    assert slope.min() >= 0.1 - 1e-6 and slope.max() <= 0.3 + 1e-6
    assert slope.std() > 0.03  # per-element draws, not one slope
    pos = np.abs(x)
    np.testing.assert_array_equal(nn.RReLU().set_train()(Tensor(pos)).asnumpy(), pos)


@pytest.mark.parametrize("make, exc", [
    (lambda: nn.CELU(0.0), ValueError), (lambda: nn.SoftShrink(-0.1), ValueError),
    (lambda: nn.RReLU(0.5, 0.2), ValueError), (lambda: nn.Threshold("a", 1.0), TypeError),
    (lambda: nn.Softmin(axis=1.0), TypeError), (lambda: nn.HShrink(True), TypeError),
])
def test_activation_argument_checks(make, exc):
    with pytest.raises(exc):
        make()


def test_glu_and_softmax2d_shape_errors():
    with pytest.raises(ValueError):
        nn.GLU()(Tensor(np.ones((2, 3), np.float32)))
    with pytest.raises(ValueError):
        nn.Softmax2d()(Tensor(np.ones((2, 3), np.float32)))


# -- containers -----------------------------------------------------------------------------------------
def test_cell_dict_behaves_as_an_ordered_dict_of_children():
    d = nn.CellDict({"dense": nn.Dense(2, 3), "act": nn.ReLU()})
    assert list(d) == ["dense", "act"] and d.keys() == ["dense", "act"] and len(d) == 2
    assert "act" in d and "x" not in d
    assert [p.name for p in d.get_parameters()] == ["dense.weight", "dense.bias"]
    d["out"] = nn.Dense(3, 1)
    d.update([("tanh", nn.Tanh())])
    assert d.keys() == ["dense", "act", "out", "tanh"]
    tanh = d.pop("tanh")
    assert isinstance(tanh, nn.Tanh) and "tanh" not in d
    del d["act"]
    assert [k for k, _ in d.items()] == ["dense", "out"] and len(d.values()) == 2
    with pytest.raises(TypeError):
        d[1] = nn.ReLU()
    with pytest.raises(KeyError):
        d["a.b"] = nn.ReLU()
    with pytest.raises(TypeError):
        d["f"] = lambda x: x
    with pytest.raises(KeyError):
        d["training"] = nn.ReLU()
    with pytest.raises(NotImplementedError):
        d(Tensor(np.ones((1, 2), np.float32)))
    d.clear()
    assert len(d) == 0 and list(d.get_parameters()) == []


class _DictNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.blocks = nn.CellDict({"a": nn.Dense(3, 4), "b": nn.Dense(4, 2)})
        self.unflatten = nn.Unflatten(1, (1, 2))

    def construct(self, x):
        return self.unflatten(self.blocks["b"](ops_relu(self.blocks["a"](x))))


def ops_relu(x):
    return ms.ops.relu(x)


@pytest.mark.parametrize("mode", MODES)
def test_cell_dict_and_unflatten_in_every_mode(mode, rng):
    ms.set_seed(2)
    net = _DictNet()
    x = Tensor(rng.standard_normal((5, 3)).astype(np.float32))
    w1, b1 = net.blocks["a"].weight.asnumpy(), net.blocks["a"].bias.asnumpy()
    w2, b2 = net.blocks["b"].weight.asnumpy(), net.blocks["b"].bias.asnumpy()
    want = (np.maximum(x.asnumpy() @ w1.T + b1, 0) @ w2.T + b2).reshape(5, 1, 2)
    np.testing.assert_allclose(run_cell(mode, net, x).asnumpy(), want, rtol=1e-5, atol=1e-6)


def test_unflatten_shapes_and_errors():
    x = Tensor(np.arange(24, dtype=np.float32).reshape(2, 12))
    assert nn.Unflatten(1, (3, 4))(x).shape == (2, 3, 4)
    assert nn.Unflatten(-1, [2, -1, 3])(x).shape == (2, 2, 2, 3)
    np.testing.assert_array_equal(nn.Unflatten(1, (3, 4))(x).asnumpy(), np.arange(24).reshape(2, 3, 4))
    with pytest.raises(TypeError):
        nn.Unflatten(1, 3)
    with pytest.raises(ValueError):
        nn.Unflatten(3, (3, 4))(x)
    with pytest.raises(TypeError):
        nn.Unflatten(1, (5, 2))(x)


# -- padding and dropout ---------------------------------------------------------------------------------
PADS = [
    (lambda: nn.ConstantPad1d((2, 1), 0.5), (2, 3, 4), lambda x: np.pad(x, [(0, 0), (0, 0), (2, 1)],
                                                                           constant_values=0.5)),
    (lambda: nn.ConstantPad1d(1, -1.0), (3, 4), lambda x: np.pad(x, [(0, 0), (1, 1)], constant_values=-1.0)),
    (lambda: nn.ConstantPad3d((1, 0, 2, 1, 0, 1), 2.0), (1, 2, 3, 3, 4),
     lambda x: np.pad(x, [(0, 0), (0, 0), (0, 1), (2, 1), (1, 0)], constant_values=2.0)),
    (lambda: nn.ReflectionPad1d((2, 1)), (2, 3, 4), lambda x: np.pad(x, [(0, 0), (0, 0), (2, 1)], mode="reflect")),
    (lambda: nn.ReflectionPad3d(1), (2, 3, 3, 4), lambda x: np.pad(x, [(0, 0), (1, 1), (1, 1), (1, 1)],
                                                                   mode="reflect")),
    (lambda: nn.ReplicationPad1d((0, 3)), (3, 4), lambda x: np.pad(x, [(0, 0), (0, 3)], mode="edge")),
    (lambda: nn.ReplicationPad3d((1, 2, 0, 1, 2, 0)), (1, 2, 3, 3, 4),
     lambda x: np.pad(x, [(0, 0), (0, 0), (2, 0), (0, 1), (1, 2)], mode="edge")),
]


@pytest.mark.parametrize("make, shape, oracle", PADS)
def test_pads_match_numpy_and_gradients(make, shape, oracle, rng):
    x = rng.standard_normal(shape).astype(np.float32)
    np.testing.assert_allclose(make()(Tensor(x)).asnumpy(), oracle(x))
    check_grad(lambda t: make()(t), x.astype(np.float64))


def test_pad_argument_and_rank_checks():
    with pytest.raises(TypeError):
        nn.ConstantPad1d((1, 2, 3), 0.0)
    with pytest.raises(TypeError):
        nn.ConstantPad3d(1, None)
    with pytest.raises(ValueError):
        nn.ReflectionPad1d(-1)
    with pytest.raises(ValueError):
        nn.ReplicationPad3d(1)(Tensor(np.ones((3, 4, 4), np.float32)))
    with pytest.raises(ValueError):
        nn.ReflectionPad1d(1)(Tensor(np.ones((4,), np.float32)))


def test_dropout1d_zeroes_whole_channels_while_training():
    ms.set_seed(0)
    x = Tensor(np.ones((8, 16, 5), np.float32))
    drop = nn.Dropout1d(0.5).set_train()
    y = drop(x).asnumpy()
    per_channel = y.reshape(128, 5)
    assert (per_channel.max(axis=1) == per_channel.min(axis=1)).all()  # whole channels
    assert set(np.unique(y)) <= {0.0, 2.0} and 0 < (y == 0).mean() < 1
    assert drop(Tensor(np.ones((16, 5), np.float32))).shape == (16, 5)
    drop.set_train(False)
    np.testing.assert_array_equal(drop(x).asnumpy(), x.asnumpy())
    with pytest.raises(ValueError):
        nn.Dropout1d(1.5)
    with pytest.raises(ValueError):
        nn.Dropout1d()(Tensor(np.ones((2, 3, 4, 5), np.float32)))


# -- small op layers ----------------------------------------------------------------------------------------
def test_roll_tril_triu_match_numpy(rng):
    x = rng.standard_normal((3, 4, 5)).astype(np.float32)
    np.testing.assert_array_equal(nn.Roll(2, 1)(Tensor(x)).asnumpy(), np.roll(x, 2, 1))
    np.testing.assert_array_equal(nn.Roll((-1, 3), (0, -1))(Tensor(x)).asnumpy(), np.roll(x, (-1, 3), (0, -1)))
    for k in (-1, 0, 2):
        np.testing.assert_array_equal(nn.Tril()(Tensor(x), k).asnumpy(), np.tril(x, k))
        np.testing.assert_array_equal(nn.Triu()(Tensor(x), k).asnumpy(), np.triu(x, k))
    np.testing.assert_array_equal(nn.Tril()(Tensor(x)).asnumpy(), np.tril(x))
    check_grad(lambda t: nn.Roll((1, -2), (0, 2))(t), x.astype(np.float64))
    with pytest.raises(ValueError):
        nn.Roll((1, 2), 0)
    with pytest.raises(TypeError):
        nn.Tril()(Tensor(x), 1.0)


def test_one_hot_norm_moments_range_match_numpy(rng):
    idx = np.array([[0, 2], [1, 3]], np.int32)
    out = nn.OneHot(depth=4, on_value=5.0, off_value=-1.0)(Tensor(idx))
    np.testing.assert_array_equal(out.asnumpy(), np.where(np.eye(4)[idx] == 1, 5.0, -1.0))
    assert out.dtype == ms.float32
    along0 = nn.OneHot(axis=0, depth=4, dtype=ms.int32)(Tensor(idx))
    assert along0.dtype == ms.int32 and along0.shape == (4, 2, 2)
    np.testing.assert_array_equal(along0.asnumpy(), np.moveaxis(np.eye(4)[idx], -1, 0))

    x = rng.standard_normal((3, 4, 2)).astype(np.float32)
    np.testing.assert_allclose(nn.Norm()(Tensor(x)).asnumpy(), np.sqrt((x.astype(np.float64) ** 2).sum()), rtol=1e-6)
    np.testing.assert_allclose(nn.Norm(axis=1, keep_dims=True)(Tensor(x)).asnumpy(),
                               np.linalg.norm(x, axis=1, keepdims=True), rtol=1e-5)
    np.testing.assert_allclose(nn.Norm(axis=(0, 2))(Tensor(x)).asnumpy(),
                               np.sqrt((x ** 2).sum(axis=(0, 2))), rtol=1e-5)
    check_grad(lambda t: nn.Norm(axis=1)(t), x.astype(np.float64))

    mean, var = nn.Moments(axis=(0, 2))(Tensor(x))
    np.testing.assert_allclose(mean.asnumpy(), x.mean(axis=(0, 2)), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(var.asnumpy(), x.var(axis=(0, 2)), rtol=1e-5)
    mean, var = nn.Moments(axis=1, keep_dims=True)(Tensor(x))
    assert mean.shape == var.shape == (3, 1, 2)
    mean, var = nn.Moments()(Tensor(x))
    np.testing.assert_allclose([mean.asnumpy(), var.asnumpy()], [x.mean(), x.var()], rtol=1e-5)

    r = nn.Range(1, 8, 3)()
    assert r.dtype == ms.int32 and r.asnumpy().tolist() == [1, 4, 7]
    assert nn.Range(4)().asnumpy().tolist() == [0, 1, 2, 3]
    rf = nn.Range(0.0, 1.0, 0.25)()
    assert rf.dtype == ms.float32
    np.testing.assert_allclose(rf.asnumpy(), np.arange(0.0, 1.0, 0.25))
    with pytest.raises(ValueError):
        nn.Range(0, 5, 0)
    with pytest.raises(TypeError):
        nn.Norm(axis=[0])
    with pytest.raises(TypeError):
        nn.Moments(keep_dims=1)


# -- every mode ------------------------------------------------------------------------------------------
MODE_LAYERS = [
    (lambda: nn.MaxPool3d(2, (1, 2, 1), "pad", 1), (2, 2, 4, 5, 4)),
    (lambda: nn.MaxPool3d(3, 2, "same", return_indices=True), (1, 2, 5, 5, 4)),
    (lambda: nn.AvgPool3d(3, 2, "pad", 1, ceil_mode=True, count_include_pad=False), (2, 2, 5, 6, 5)),
    (lambda: nn.AdaptiveAvgPool3d((2, 3, None)), (2, 2, 5, 6, 5)),
    (lambda: nn.AdaptiveMaxPool3d(2), (2, 2, 5, 6, 5)),
    (lambda: nn.AdaptiveMaxPool3d((3, 2, 4), return_indices=True), (2, 5, 6, 5)),
    (lambda: nn.BatchNorm3d(2).set_train(False), (2, 2, 3, 4, 4)),
    (lambda: nn.InstanceNorm3d(2), (2, 2, 3, 4, 4)),
    (lambda: nn.InstanceNorm1d(3), (2, 3, 6)),
    (lambda: nn.GLU(1), (2, 4, 3)),
    (lambda: nn.Softmin(1), (2, 4, 3)),
    (lambda: nn.CELU(2.0), (2, 4, 3)),
    (lambda: nn.SoftShrink(), (2, 4, 3)),
    (lambda: nn.HShrink(), (2, 4, 3)),
    (lambda: nn.Threshold(0.0, -2.0), (2, 4, 3)),
    (lambda: nn.Tanhshrink(), (2, 4, 3)),
    (lambda: nn.RReLU().set_train(False), (2, 4, 3)),
    (lambda: nn.Softmax2d(), (2, 4, 3, 3)),
    (lambda: nn.ReflectionPad3d((1, 0, 1, 2, 0, 1)), (1, 2, 3, 3, 3)),
    (lambda: nn.ReplicationPad1d(2), (2, 3, 4)),
    (lambda: nn.ConstantPad3d(1, 3.0), (2, 3, 3, 2)),
    (lambda: nn.Roll((1, -1), (1, 2)), (2, 4, 3)),
    (lambda: nn.Norm(axis=1), (2, 4, 3)),
    (lambda: nn.Moments(axis=(1, 2)), (2, 4, 3)),
    (lambda: nn.Unflatten(1, (2, 2)), (2, 4, 3)),
    (lambda: nn.Dropout1d().set_train(False), (2, 4, 3)),
]


@pytest.mark.parametrize("make, shape", MODE_LAYERS)
def test_every_mode_equals_pynative(make, shape, rng):
    x = Tensor(rng.standard_normal(shape).astype(np.float32))
    cell = make()
    want = cell(x)
    wants = want if isinstance(want, tuple) else (want,)
    for mode in HOOK_MODES[1:]:
        got = run_cell(mode, cell, x)
        gots = got if isinstance(got, tuple) else (got,)
        assert len(gots) == len(wants)
        for g, w in zip(gots, wants):
            np.testing.assert_allclose(g.asnumpy(), w.asnumpy(), rtol=1e-5, atol=1e-6, err_msg=mode)


@pytest.mark.parametrize("mode", MODES)
def test_batch_norm3d_training_updates_moving_statistics_in_every_mode(mode, rng):
    x = Tensor(rng.standard_normal((2, 2, 3, 2, 2)).astype(np.float32) + 3.0)
    bn = nn.BatchNorm3d(2).set_train()
    run_cell(mode, bn, x)
    np.testing.assert_allclose(bn.bn2d.moving_mean.asnumpy(), 0.1 * x.asnumpy().mean(axis=(0, 2, 3, 4)), rtol=1e-5)


@pytest.mark.parametrize("mode", MODES)
def test_range_and_tril_in_every_mode(mode, rng):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.range = nn.Range(2, 11, 3)
            self.tril = nn.Tril()
            self.one_hot = nn.OneHot(depth=5)

        def construct(self, x):
            return self.range(), self.tril(x, -1), self.one_hot(self.range() - 2)

    x = rng.standard_normal((4, 4)).astype(np.float32)
    r, t, o = run_cell(mode, Net(), Tensor(x))
    assert r.asnumpy().tolist() == [2, 5, 8]
    np.testing.assert_array_equal(t.asnumpy(), np.tril(x, -1))
    # index 6 is outside depth 5: its row is all off_value
    np.testing.assert_array_equal(o.asnumpy(), (np.arange(5)[None, :] == np.array([0, 3, 6])[:, None]).astype(np.float32))
