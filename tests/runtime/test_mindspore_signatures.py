"""MindSpore 2.x signatures and ops added for issue 10: one_hot/OneHot with Tensor on/off values,
argmax/argmin(dim, keepdim) and Argmax(output_type), layer_norm/batch_norm 2.x forms, cumsum,
sort/argsort/topk, gather_elements, pad, Tensor.repeat, CellList indexed by a Tensor, and random
draws that stay random under capture. Numpy oracles; each runs in PyNative, under ms.jit and in
GRAPH_MODE."""
import numpy as np
import pytest

import capture
import runtime as ms
from modes import MODES, run_fn as run
from runtime import Parameter, Tensor, nn, ops


def _np(t):
    return t.asnumpy() if isinstance(t, Tensor) else np.asarray(t)


@pytest.mark.parametrize("mode", MODES)
def test_one_hot_with_tensor_on_off_values_and_onehot_primitive(mode):
    idx = Tensor(np.array([[0, 2], [3, 1]], np.int32))
    on, off = Tensor(0.75, ms.float16), Tensor(-0.25, ms.float16)
    a, b, c = run(mode, lambda i, on, off: (ops.one_hot(i, 3, on, off), ops.OneHot(axis=0)(i, 3, on, off),
                                             ops.one_hot(i, 4)), idx, on, off)
    eye = np.eye(3, dtype=np.float16)
    want = np.where(np.array([[[*eye[0]], [*eye[2]]], [[0, 0, 0], [*eye[1]]]]) > 0, np.float16(0.75), np.float16(-0.25))
    assert a.dtype == ms.float16 and b.dtype == ms.float16 and c.dtype == ms.float32
    np.testing.assert_array_equal(_np(a), want)
    np.testing.assert_array_equal(_np(b), np.moveaxis(want, -1, 0))
    np.testing.assert_array_equal(_np(c), np.eye(4, dtype=np.float32)[_np(idx)])


@pytest.mark.parametrize("mode", MODES)
def test_argmax_argmin_signatures(mode):
    x = np.array([[1.0, 7.0, 7.0], [9.0, -2.0, 3.0]], np.float32)
    outs = run(mode, lambda t: (ops.argmax(t), ops.argmax(t, dim=1, keepdim=True), ops.argmin(t, 0),
                                ops.Argmax(axis=1, output_type=ms.int64)(t), ops.Argmax()(t), t.argmax(),
                                t.argmin(axis=1)), Tensor(x))
    want = [x.argmax(), x.argmax(1)[:, None], x.argmin(0), x.argmax(1), x.argmax(-1), x.argmax(), x.argmin(1)]
    dtypes = [ms.int64, ms.int64, ms.int64, ms.int64, ms.int32, ms.int64, ms.int64]
    for o, w, dt in zip(outs, want, dtypes):
        assert o.dtype == dt
        np.testing.assert_array_equal(_np(o), w)
    with pytest.raises(TypeError, match="output_type"):
        ops.Argmax(output_type=ms.float32)(Tensor(x))


@pytest.mark.parametrize("mode", MODES)
def test_layer_norm_2x_form(mode):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 4)).astype(np.float32)
    w, b = rng.standard_normal((3, 4)).astype(np.float32), rng.standard_normal((3, 4)).astype(np.float32)
    y1, y2 = run(mode, lambda t, w, b: (ops.layer_norm(t, (3, 4), w, b, 1e-5), ops.layer_norm(t, (4,))),
                 Tensor(x), Tensor(w), Tensor(b))
    x64 = x.astype(np.float64)

    def norm(v, axes):
        return (v - v.mean(axes, keepdims=True)) / np.sqrt(v.var(axes, keepdims=True) + 1e-5)
    np.testing.assert_allclose(_np(y1), norm(x64, (1, 2)) * w + b, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(_np(y2), norm(x64, (2,)), rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError, match="normalized_shape"):
        ops.layer_norm(Tensor(x), (3,))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_2x_form_updates_running_statistics(mode, training):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((4, 3, 2)).astype(np.float32)
    mean0, var0 = rng.standard_normal(3).astype(np.float32), rng.uniform(0.5, 2, 3).astype(np.float32)
    w, b = rng.standard_normal(3).astype(np.float32), rng.standard_normal(3).astype(np.float32)
    rm, rv = Parameter(Tensor(mean0), name="rm"), Parameter(Tensor(var0), name="rv")
    y = run(mode, lambda t, w, b: ops.batch_norm(t, rm, rv, w, b, training, 0.2, 1e-5), Tensor(x), Tensor(w), Tensor(b))
    x64 = x.astype(np.float64)
    bm, bv = x64.mean((0, 2)), x64.var((0, 2))
    use_m, use_v = (bm, bv) if training else (mean0, var0)
    want = (x64 - use_m[None, :, None]) / np.sqrt(use_v[None, :, None] + 1e-5) * w[None, :, None] + b[None, :, None]
    np.testing.assert_allclose(_np(y), want, rtol=1e-4, atol=1e-5)
    if training:  # running = (1 - momentum) * running + momentum * batch (unbiased variance)
        np.testing.assert_allclose(rm.asnumpy(), 0.8 * mean0 + 0.2 * bm, rtol=1e-5)
        np.testing.assert_allclose(rv.asnumpy(), 0.8 * var0 + 0.2 * bv * 8 / 7, rtol=1e-5)
    else:
        np.testing.assert_array_equal(rm.asnumpy(), mean0)


@pytest.mark.parametrize("mode", MODES)
def test_cumsum_sort_topk_gather_elements(mode):
    rng = np.random.default_rng(2)
    x = rng.integers(-3, 4, (3, 5)).astype(np.float32)  # ties on purpose
    idx = rng.integers(0, 5, (3, 2)).astype(np.int32)
    outs = run(mode, lambda t, i: (ops.cumsum(t, 1), ops.CumSum(exclusive=True, reverse=True)(t, 0),
                                   *ops.sort(t, 1, True), ops.argsort(t, 0), *ops.topk(t, 2), *ops.topk(t, 2, 0, False),
                                   ops.gather_elements(t, 1, i), ops.GatherD()(t, 1, i)),
               Tensor(x), Tensor(idx))
    desc = np.argsort(-x, 1, kind="stable")
    asc0 = np.argsort(x, 0, kind="stable")
    want = [np.cumsum(x, 1), np.flip(np.cumsum(np.flip(x, 0), 0), 0) - x, np.take_along_axis(x, desc, 1), desc,
            asc0, np.take_along_axis(x, desc[:, :2], 1), desc[:, :2], np.take_along_axis(x, asc0[:2], 0), asc0[:2],
            np.take_along_axis(x, idx, 1), np.take_along_axis(x, idx, 1)]
    for k, (o, w) in enumerate(zip(outs, want)):
        np.testing.assert_array_equal(_np(o), w, err_msg=f"output {k}")


def test_gradients_of_sort_topk_cumsum_gather_elements_and_pad_match_finite_differences():
    from gradcheck import check_grad
    rng = np.random.default_rng(3)
    x = rng.standard_normal((3, 4))
    idx = Tensor(np.array([[0, 3, 3], [1, 1, 0], [2, 0, 1]], np.int32))
    check_grad(lambda t: ops.sort(t, 0, True)[0] * ops.cumsum(t, 1), x)
    check_grad(lambda t: ops.topk(t, 2)[0], x)
    check_grad(lambda t: ops.gather_elements(t, 1, idx), x)
    for mode in ("constant", "reflect", "replicate", "circular"):
        check_grad(lambda t: ops.pad(t, (2, 1, 1, 0), mode=mode), x)


@pytest.mark.parametrize("mode", MODES)
def test_pad_modes_against_numpy(mode):
    x = np.arange(12, dtype=np.float32).reshape(1, 3, 4)
    outs = run(mode, lambda t: (ops.pad(t, (1, 2), value=9.0), ops.pad(t, (2, 1, 1, 1), "reflect"),
                                ops.pad(t, (1, 0, 0, 2), "replicate"), ops.pad(t, (3, 1), "circular"),
                                ops.pad(t, (-1, 1, 0, -1)), ops.Pad(((0, 0), (1, 0), (0, 1)))(t)), Tensor(x))
    want = [np.pad(x, ((0, 0), (0, 0), (1, 2)), constant_values=9), np.pad(x, ((0, 0), (1, 1), (2, 1)), "reflect"),
            np.pad(x, ((0, 0), (0, 2), (1, 0)), "edge"), np.pad(x, ((0, 0), (0, 0), (3, 1)), "wrap"),
            np.pad(x[:, :2, 1:], ((0, 0), (0, 0), (0, 1))), np.pad(x, ((0, 0), (1, 0), (0, 1)))]
    for o, w in zip(outs, want):
        np.testing.assert_array_equal(_np(o), w)
    with pytest.raises(ValueError, match="mode"):
        ops.pad(Tensor(x), (1, 1), "mirror")


@pytest.mark.parametrize("mode", MODES)
def test_tensor_repeat_and_repeat_interleave(mode):
    x = np.array([[1, 2], [3, 4]], np.int32)
    a, b, c = run(mode, lambda t: (t.repeat(2), t.repeat(3, axis=1), ops.repeat_interleave(t, [1, 2], 0)), Tensor(x))
    np.testing.assert_array_equal(_np(a), np.repeat(x, 2))
    np.testing.assert_array_equal(_np(b), np.repeat(x, 3, axis=1))
    np.testing.assert_array_equal(_np(c), np.repeat(x, [1, 2], axis=0))


@pytest.mark.parametrize("mode", MODES)
def test_cell_list_and_sequential_cell_indexed_by_a_tensor(mode):
    cells = nn.CellList([nn.Dense(2, 2), nn.Dense(2, 2)])
    x = Tensor(np.ones((1, 2), np.float32))
    for i in (0, 1):
        got = run(mode, lambda t, k: cells[k](t), x, Tensor(i))
        np.testing.assert_allclose(_np(got), cells[i](x).asnumpy(), rtol=1e-6)
    assert nn.SequentialCell([nn.ReLU()])[Tensor(np.int64(0))] is not None


@pytest.mark.parametrize("mode", MODES)
def test_random_draws_are_seeded_and_drawn_anew_on_every_call(mode):
    def draw(x):
        return (x + ops.randn(2, 3), ops.rand((2, 3)), ops.randint(2, 5, (50,)), ops.standard_normal((2,)),
                ops.uniform((2, 3), Tensor(1.0), Tensor(3.0)), ops.normal((2, 3), Tensor(10.0), Tensor(0.5)),
                ops.StandardNormal()((4,)), ops.randn_like(x))

    def eager_draws(seed):
        ms.set_seed(seed)
        return [[_np(o) for o in draw(Tensor(np.zeros((2, 3), np.float32)))] for _ in range(2)]

    want = eager_draws(11)
    ms.set_seed(11)
    x = Tensor(np.zeros((2, 3), np.float32))
    got = [[_np(o) for o in run(mode, draw, x)] for _ in range(2)]
    for g_call, w_call in zip(got, want):
        for g, w in zip(g_call, w_call):
            np.testing.assert_array_equal(g, w)  # same stream, same order: same numbers as PyNative
    assert not np.array_equal(got[0][0], got[1][0])  # a new draw per call, not a baked constant
    ints = got[0][2]
    assert ints.dtype == np.int64 and ints.min() >= 2 and ints.max() < 5
    assert 1.0 <= got[0][4].min() and got[0][4].max() < 3.0
    if mode == "jit":
        report = capture.explain(draw)(x)
        assert report.graph_break_count == 0


def test_random_functions_reject_bad_arguments():
    with pytest.raises(TypeError, match="randn"):
        ops.randn(2, 1.5)
    with pytest.raises(ValueError, match="seed"):
        ops.rand(2, seed=-1)
    with pytest.raises(ValueError, match="minval"):
        ops.randint(3, 3, (2,))
    with pytest.raises(TypeError, match="floating-point"):
        ops.randn(2, dtype=ms.int32)


def _conv_ref(x, w, b, pad):
    x = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    out = np.zeros((n, o, h - kh + 1, wd - kw + 1))
    for i in range(out.shape[2]):
        for j in range(out.shape[3]):
            out[:, :, i, j] = np.einsum("nchw,ochw->no", x[:, :, i:i + kh, j:j + kw], w)
    return out + b[None, :, None, None]


@pytest.mark.parametrize("mode", MODES)
def test_nn_functions_2x_forms(mode):
    rng = np.random.default_rng(4)
    x = rng.standard_normal((2, 3, 6, 6)).astype(np.float32)
    w = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    b = rng.standard_normal(4).astype(np.float32)
    conv, mp, ap = run(mode, lambda t, w, b: (ops.conv2d(t, w, b, 1, "pad", 1), ops.max_pool2d(t, 3, 2, 1),
                                               ops.avg_pool2d(t, 2, 2, 1)), Tensor(x), Tensor(w), Tensor(b))
    np.testing.assert_allclose(_np(conv), _conv_ref(x.astype(np.float64), w, b, 1), rtol=1e-4, atol=1e-4)
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)), constant_values=-np.inf)
    want_mp = np.array([[[[xp[n, c, 2 * i:2 * i + 3, 2 * j:2 * j + 3].max() for j in range(3)] for i in range(3)]
                         for c in range(3)] for n in range(2)])
    np.testing.assert_array_equal(_np(mp), want_mp)
    xz = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    want_ap = xz.reshape(2, 3, 4, 2, 4, 2).mean((3, 5))
    np.testing.assert_allclose(_np(ap), want_ap, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("mode", MODES)
def test_activation_functions_against_numpy(mode):
    v = np.array([-30.0, -3.5, -1.0, -0.2, 0.0, 0.4, 2.0, 4.0, 25.0], np.float32)
    outs = run(mode, lambda t: (ops.silu(t), ops.relu6(t), ops.hardswish(t), ops.hardsigmoid(t), ops.elu(t, 0.5),
                                ops.selu(t), ops.mish(t), ops.softsign(t), ops.logsigmoid(t),
                                ops.softplus(t, 2, 10)), Tensor(v))
    x = v.astype(np.float64)
    sp = np.logaddexp(0, x)
    sel = 1.0507009873554805 * np.where(x > 0, x, 1.6732632423543772 * np.expm1(x))
    want = [x / (1 + np.exp(-x)), np.clip(x, 0, 6), x * np.clip(x + 3, 0, 6) / 6, np.clip(x + 3, 0, 6) / 6,
            np.where(x > 0, x, 0.5 * np.expm1(x)), sel, x * np.tanh(sp), x / (1 + np.abs(x)), -np.logaddexp(0, -x),
            np.where(2 * x > 10, x, np.logaddexp(0, 2 * x) / 2)]
    for k, (o, w) in enumerate(zip(outs, want)):
        np.testing.assert_allclose(_np(o), w, rtol=2e-5, atol=2e-6, err_msg=f"activation {k}")


def test_activation_gradients_match_finite_differences():
    from gradcheck import check_grad
    x = np.array([[-2.5, -0.7, 0.3], [1.2, 3.3, -4.1]])
    for fn in (ops.silu, ops.hardswish, ops.elu, ops.selu, ops.mish, ops.softsign, ops.logsigmoid,
               lambda t: ops.softplus(t, 2, 10), lambda t: ops.norm(t, dim=1), lambda t: ops.max(t, 1)[0]):
        check_grad(fn, x)


@pytest.mark.parametrize("mode", MODES)
def test_loss_functions_match_the_loss_cells_and_numpy(mode):
    rng = np.random.default_rng(5)
    logits = rng.standard_normal((4, 5)).astype(np.float32)
    labels = np.array([1, 0, 4, -100], np.int32)
    probs = 1 / (1 + np.exp(-logits))
    target = rng.uniform(0, 1, (4, 5)).astype(np.float32)
    outs = run(mode, lambda lg, lb, p, t: (ops.cross_entropy(lg, lb), ops.nll_loss(ops.log_softmax(lg, 1), lb),
                                           ops.l1_loss(lg, t), ops.smooth_l1_loss(lg, t, 0.5, "mean"),
                                           ops.binary_cross_entropy(p, t), ops.kl_div(ops.log_softmax(lg, 1),
                                                                                      ops.softmax(t, 1), "batchmean")),
               Tensor(logits), Tensor(labels), Tensor(probs), Tensor(target))
    x = logits.astype(np.float64)
    logp = x - np.log(np.exp(x).sum(1, keepdims=True))
    ce = -logp[np.arange(3), labels[:3]].mean()
    d = np.abs(x - target)
    sm = np.exp(target) / np.exp(target).sum(1, keepdims=True)
    want = [ce, ce, d.mean(), np.where(d < 0.5, 0.5 * d * d / 0.5, d - 0.25).mean(),
            -(target * np.log(probs) + (1 - target) * np.log(1 - probs)).mean(), (sm * (np.log(sm) - logp)).sum() / 4]
    for k, (o, w) in enumerate(zip(outs, want)):
        np.testing.assert_allclose(_np(o), w, rtol=1e-5, err_msg=f"loss {k}")


@pytest.mark.parametrize("mode", MODES)
def test_math_functions_against_numpy(mode):
    x = np.array([[1.5, -2.5, 0.5, 7.0], [2.5, -0.5, 3.49, -7.0]], np.float32)
    y = np.array([[2.0, 2.0, -2.0, 3.0], [-2.0, 1.5, 2.0, 4.0]], np.float32)
    outs = run(mode, lambda a, b: (*ops.max(a, 1), *ops.min(a, 0, True), ops.amax(a), ops.amin(a, (0, 1)),
                                   ops.norm(a), ops.norm(a, 1, 1), ops.norm(a, float("inf"), 0, True),
                                   ops.clip(a, -1.0, 1.0), ops.round(a), ops.div(a, b, rounding_mode="floor"),
                                   ops.div(a, b, rounding_mode="trunc"), ops.div(a, b), ops.mm(a, b.T),
                                   ops.gt(a, b), ops.ge(a, b), ops.lt(a, b), ops.le(a, b), ops.eq(a, a), ops.ne(a, b),
                                   a.sum(1, ms.float64), a.flatten()), Tensor(x), Tensor(y))
    x64, y64 = x.astype(np.float64), y.astype(np.float64)
    want = [x.max(1), x.argmax(1), x.min(0, keepdims=True), x.argmin(0)[None], x.max(), x.min(),
            np.sqrt((x64 ** 2).sum()), np.abs(x64).sum(1), np.abs(x64).max(0, keepdims=True), np.clip(x, -1, 1),
            np.round(x), np.floor(x64 / y64), np.trunc(x64 / y64), x64 / y64, x64 @ y64.T, x > y, x >= y, x < y,
            x <= y, x == x, x != y, x64.sum(1), x.ravel()]
    for k, (o, w) in enumerate(zip(outs, want)):
        np.testing.assert_allclose(_np(o).astype(np.float64), np.asarray(w, np.float64), rtol=1e-5, err_msg=f"out {k}")
    assert outs[1].dtype == ms.int64 and outs[-2].dtype == ms.float64
    assert ops.linspace(0, 1, 5).asnumpy().tolist() == [0.0, 0.25, 0.5, 0.75, 1.0]
    with pytest.raises(ValueError, match="rounding_mode"):
        ops.div(Tensor(x), Tensor(y), rounding_mode="ceil")


@pytest.mark.parametrize("mode", MODES)
def test_pooling_cells_with_explicit_padding_and_activation_cells(mode):
    rng = np.random.default_rng(6)
    x = rng.standard_normal((2, 3, 5, 5)).astype(np.float32)
    prelu = nn.PReLU(3, 0.1)
    cells = (nn.MaxPool2d(3, 2, "pad", 1), nn.AvgPool2d(2, 2, pad_mode="pad", padding=1), nn.ELU(0.5), nn.HSwish(),
             nn.HSigmoid(), nn.Mish(), nn.Softsign(), nn.LogSigmoid(), nn.SeLU(), nn.Hardtanh(-0.5, 0.5), prelu,
             nn.Softplus(2.0, 5.0))
    outs = run(mode, lambda t: tuple(c(t) for c in cells), Tensor(x))
    funcs = (lambda t: ops.max_pool2d(t, 3, 2, 1), lambda t: ops.avg_pool2d(t, 2, 2, 1), lambda t: ops.elu(t, 0.5),
             ops.hardswish, ops.hardsigmoid, ops.mish, ops.softsign, ops.logsigmoid, ops.selu,
             lambda t: ops.clamp(t, -0.5, 0.5), None, lambda t: ops.softplus(t, 2.0, 5.0))
    for k, (o, f) in enumerate(zip(outs, funcs)):
        want = np.where(x > 0, x, 0.1 * x) if f is None else f(Tensor(x)).asnumpy()
        np.testing.assert_allclose(_np(o), want, rtol=1e-6, atol=1e-7, err_msg=f"cell {k}")
    # MindSpore's PReLU holds Parameter(name='a') as self.w: the path is "w", the name "a"
    assert [(n, p.name) for n, p in prelu.parameters_and_names()] == [("w", "a")]
    assert nn.get_activation("prelu") is not None
    with pytest.raises(ValueError, match="pad_mode='pad'"):
        nn.MaxPool2d(2, 2, padding=1)


@pytest.mark.parametrize("mode", MODES)
def test_tensor_methods_of_mindspore_2x(mode):
    x = np.array([[1.5, -2.5, 0.5], [2.5, 0.0, 3.0]], np.float32)
    outs = run(mode, lambda t: (t.max(1, return_indices=True)[1], t.min(), t.all(), t.any(1), (t > 0).all(0, True),
                                t.cumsum(1), t.cumsum(), t.sort(1, True)[0], t.argsort(0), t.topk(2)[0], t.norm(),
                                t.round(), t.maximum(0.0), t.floor(), t.ceil(), t.neg(), t.sign(), t.int(), t.double()),
               Tensor(x))
    want = [x.argmax(1), x.min(), x.all(), x.any(1), (x > 0).all(0, keepdims=True), np.cumsum(x, 1), np.cumsum(x),
            -np.sort(-x, 1), np.argsort(x, 0, kind="stable"), -np.sort(-x, 1)[:, :2], np.linalg.norm(x), np.round(x),
            np.maximum(x, 0), np.floor(x), np.ceil(x), -x, np.sign(x), x.astype(np.int32), x.astype(np.float64)]
    for k, (o, w) in enumerate(zip(outs, want)):
        assert isinstance(o, Tensor), f"output {k} is {type(o).__name__}"
        np.testing.assert_allclose(_np(o).astype(np.float64), np.asarray(w, np.float64), rtol=1e-6, err_msg=f"out {k}")
    assert outs[2].dtype == ms.bool_ and outs[-2].dtype == ms.int32 and outs[-1].dtype == ms.float64
