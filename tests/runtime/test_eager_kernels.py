"""PyNative's convolutions and pools run as compiled one-op graphs once a signature is warm
(runtime/eager_kernels.py). Oracles: each op's numpy implementation (the registry's reference) on
the same operands, over strides, paddings, pad modes, dilations, groups and dtypes; finite
differences for a trained net's gradients; and the eager path's own errors for bad input."""
import threading

import numpy as np
import pytest

import runtime as ms
from graph.ops import REGISTRY
from graph.ops.core import bind
from runtime import Tensor, eager_kernels, nn, ops


@pytest.fixture(autouse=True)
def fresh():
    eager_kernels.reset()
    yield
    eager_kernels.reset()


def _settled(fn):
    """``fn()``, then wait for the compiles it submitted (runtime/background_compile.py), so the
    next call runs what a finished compile gives: deterministic which path each call takes."""
    out = fn()
    assert eager_kernels.wait_pending(timeout=600)
    return out


def _repeat(fn, times=eager_kernels.WARM_CALLS + 2):
    return [_settled(fn).asnumpy() for _ in range(times)]


def _close(results, want, dtype):
    tol = dict(rtol=2e-5, atol=2e-5) if dtype == np.float32 else dict(rtol=1e-11, atol=1e-11)
    for got in results:
        np.testing.assert_allclose(got, want, **tol)


CONV_CASES = [
    dict(stride=1, pad_mode="valid"),
    dict(stride=2, pad_mode="same"),
    dict(stride=1, pad_mode="pad", padding=1),
    dict(stride=(2, 1), pad_mode="pad", padding=(1, 0, 2, 1), dilation=2),
    dict(stride=1, pad_mode="same", group=2),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", range(len(CONV_CASES)))
def test_convolutions_and_their_gradients_equal_numpy_once_compiled(dtype, case):
    kw = dict(CONV_CASES[case])
    rng = np.random.default_rng(case)
    groups = kw.get("group", 1)
    x = Tensor(rng.standard_normal((3, 4, 9, 8)).astype(dtype))
    w = Tensor(rng.standard_normal((6, 4 // groups, 3, 3)).astype(dtype))
    conv = nn.Conv2d(4, 6, 3, has_bias=False, weight_init=w, dtype=ms.float64 if dtype == np.float64 else ms.float32,
                     **kw)
    out = conv(x)
    attrs = {k: v for k, v in REGISTRY["conv2d"].normalize(_conv_attrs(conv)).items()}
    want = REGISTRY["conv2d"].impl(np, x.asnumpy(), w.asnumpy(), **attrs)
    _close(_repeat(lambda: conv(x)), want, dtype)
    dout = rng.standard_normal(out.shape).astype(dtype)
    dx_want = REGISTRY["conv2d_backprop_input"].impl(np, dout, w.asnumpy(), input_size=x.shape, **attrs)
    dw_want = REGISTRY["conv2d_backprop_filter"].impl(np, dout, x.asnumpy(), filter_size=w.shape, **attrs)
    grad = ms.grad(lambda a, b: (ops.conv2d(a, b, **attrs) * Tensor(dout)).sum(), grad_position=(0, 1))
    for dx, dw in [_settled(lambda: grad(x, w)) for _ in range(eager_kernels.WARM_CALLS + 2)]:
        _close([dx.asnumpy()], dx_want, dtype)
        _close([dw.asnumpy()], dw_want, dtype)
    compiled = [k[0] for k, v in eager_kernels._compiled.items() if v is not eager_kernels._FAILED]
    assert {"conv2d", "conv2d_backprop_input", "conv2d_backprop_filter"} <= set(compiled), compiled


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_batch_norm_equals_numpy_once_compiled_and_returns_every_output(dtype, training):
    rng = np.random.default_rng(3)
    x = (rng.standard_normal((4, 3, 6, 5)) * 2 + 1).astype(dtype)
    gamma, beta, mmean = (rng.standard_normal(3).astype(dtype) for _ in range(3))
    mvar = (np.abs(rng.standard_normal(3)) + 0.5).astype(dtype)
    args = [Tensor(a) for a in (x, gamma, beta, mmean, mvar)]
    want = REGISTRY["batch_norm"].impl(np, x, gamma, beta, mmean, mvar, training=training, eps=1e-5)
    for _ in range(eager_kernels.WARM_CALLS + 2):
        got = _settled(lambda: bind(REGISTRY["batch_norm"], *args, training=training, eps=1e-5))  # (three outputs)
        assert isinstance(got, tuple) and len(got) == 3
        for g, w in zip(got, want):
            assert g.shape == w.shape
            _close([g.asnumpy()], w, dtype)
    compiled = [k[0] for k, v in eager_kernels._compiled.items() if v is not eager_kernels._FAILED]
    assert compiled == ["batch_norm"]


def _bn_loss(x, gamma, beta, mmean, mvar, weights):
    y, mean, var = bind(REGISTRY["batch_norm"], x, gamma, beta, mmean, mvar, training=True, eps=1e-5)
    return (y * weights).sum() + (mean * mean).sum() * 0.5  # a cotangent for y and one for mean


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_batch_norm_backward_runs_its_rule_as_one_compiled_graph_once_warm(dtype):
    """The gradients of a batch norm (x, gamma, beta), from the rule run op by op (the first
    calls), from its compiled graph (the later ones) and by central finite differences in float64."""
    rng = np.random.default_rng(4)
    arrays = [(rng.standard_normal((3, 2, 4, 5)) * 2 + 1).astype(dtype)]
    arrays += [rng.standard_normal(2).astype(dtype) for _ in range(3)] + [np.ones(2, dtype)]
    weights = Tensor(rng.standard_normal((3, 2, 4, 5)).astype(dtype))
    args = [Tensor(a) for a in arrays]
    grad = ms.grad(lambda *a: _bn_loss(*a, weights), grad_position=(0, 1, 2))
    runs = [[g.asnumpy() for g in _settled(lambda: grad(*args))] for _ in range(eager_kernels.WARM_CALLS + 2)]
    compiled = [k for k, v in eager_kernels._compiled.items() if v is not eager_kernels._FAILED]
    assert any("vjp" in k for k in compiled), compiled
    tol = dict(rtol=2e-5, atol=2e-5) if dtype == np.float32 else dict(rtol=1e-10, atol=1e-10)
    for run in runs[1:]:
        for got, want in zip(run, runs[0]):
            np.testing.assert_allclose(got, want, **tol)

    def loss64(k, delta):
        a = [x.astype(np.float64) for x in arrays]
        a[k] = a[k] + delta
        return float(_bn_loss(*[Tensor(v) for v in a], Tensor(weights.asnumpy().astype(np.float64))).asnumpy())
    eps = 1e-6
    for k in range(3):
        fd = np.zeros(arrays[k].shape)
        for i in np.ndindex(fd.shape):
            d = np.zeros(fd.shape)
            d[i] = eps
            fd[i] = (loss64(k, d) - loss64(k, -d)) / (2 * eps)
        np.testing.assert_allclose(runs[-1][k], fd, rtol=1e-3 if dtype == np.float32 else 1e-6, atol=1e-3)


def test_second_order_gradients_through_batch_norm_still_record_the_rule():
    """Under an outer tape the rule runs op by op (recorded), so a gradient of a gradient works."""
    rng = np.random.default_rng(5)
    x = Tensor(rng.standard_normal((4, 2, 3)).astype(np.float64))
    gamma, beta, mm, mv = (Tensor(a) for a in (np.array([1.5, 0.5]), np.zeros(2), np.zeros(2), np.ones(2)))
    w = Tensor(rng.standard_normal((4, 2, 3)))

    def inner(g_):
        y = bind(REGISTRY["batch_norm"], x, g_, beta, mm, mv, training=True, eps=1e-5)[0]
        return ((y * w) ** 2).sum()
    second = ms.grad(lambda g_: ms.grad(inner)(g_).sum())
    results = [_settled(lambda: second(gamma)).asnumpy() for _ in range(eager_kernels.WARM_CALLS + 2)]
    fd = np.zeros(2)
    for i in range(2):
        d = np.zeros(2)
        d[i] = 1e-6
        fd[i] = (ms.grad(inner)(Tensor(gamma.asnumpy() + d)).asnumpy().sum()
                 - ms.grad(inner)(Tensor(gamma.asnumpy() - d)).asnumpy().sum()) / 2e-6
    for r in results:
        np.testing.assert_allclose(r, fd, rtol=1e-5, atol=1e-6)


def _conv_attrs(conv):
    pad = conv.padding if isinstance(conv.padding, tuple) else (conv.padding,) * 4
    to2 = lambda v: v if isinstance(v, tuple) else (v, v)
    return dict(stride=to2(conv.stride), pad_mode=conv.pad_mode, padding=pad, dilation=to2(conv.dilation),
                groups=conv.group)


@pytest.mark.parametrize("pool", ["max", "avg"])
@pytest.mark.parametrize("kernel,stride,pad_mode", [(2, 2, "valid"), (3, 2, "same"), (3, 1, "valid")])
def test_pools_and_their_gradients_equal_numpy_once_compiled(pool, kernel, stride, pad_mode):
    rng = np.random.default_rng(kernel * 10 + stride)
    x = Tensor(rng.standard_normal((2, 3, 11, 10)).astype(np.float32))
    layer = (nn.MaxPool2d if pool == "max" else nn.AvgPool2d)(kernel_size=kernel, stride=stride, pad_mode=pad_mode)
    name = f"{pool}_pool2d"
    attrs = REGISTRY[name].normalize(dict(kernel_size=(kernel, kernel), stride=(stride, stride), pad_mode=pad_mode))
    want = REGISTRY[name].impl(np, x.asnumpy(), **attrs)
    _close(_repeat(lambda: layer(x)), want, np.float32)
    dout = rng.standard_normal(want.shape).astype(np.float32)
    if pool == "max":
        dx_want = REGISTRY["max_pool2d_grad"].impl(np, x.asnumpy(), want, dout, **attrs)
    else:
        dx_want = REGISTRY["avg_pool2d_grad"].impl(np, dout, input_size=x.shape, **attrs)
    grad = ms.grad(lambda a: (layer(a) * Tensor(dout)).sum())
    _close([_settled(lambda: grad(x)).asnumpy() for _ in range(eager_kernels.WARM_CALLS + 2)], dx_want, np.float32)
    assert {name, f"{name}_grad"} <= {k[0] for k in eager_kernels._compiled}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_and_its_gradient_equal_numpy_once_compiled(dtype, approximate):
    """The GELU of a Transformer's feed-forward and its gradient (one gelu_grad op) run compiled once
    warm; oracle: the registry's numpy implementations of both, which are the float64 formulas."""
    rng = np.random.default_rng(7)
    x = Tensor((rng.standard_normal((3, 5, 40)) * 3).astype(dtype))
    dout = rng.standard_normal((3, 5, 40)).astype(dtype)
    want = REGISTRY["gelu"].impl(np, x.asnumpy(), approximate=approximate)
    _close(_repeat(lambda: ops.gelu(x, approximate=approximate)), want, dtype)
    dx_want = REGISTRY["gelu_grad"].impl(np, dout, x.asnumpy(), approximate=approximate)
    grad = ms.grad(lambda a: (ops.gelu(a, approximate=approximate) * Tensor(dout)).sum())
    _close([_settled(lambda: grad(x)).asnumpy() for _ in range(eager_kernels.WARM_CALLS + 2)], dx_want, dtype)
    compiled = {k[0] for k, v in eager_kernels._compiled.items() if v is not eager_kernels._FAILED}
    assert {"gelu", "gelu_grad"} <= compiled, compiled


def test_a_trained_lenet_like_net_has_the_finite_difference_gradient():
    ms.set_seed(3)
    net = nn.SequentialCell([nn.Conv2d(1, 3, 3, pad_mode="valid", dtype=ms.float64), nn.ReLU(),
                             nn.MaxPool2d(2, 2), nn.Flatten(), nn.Dense(3 * 3 * 3, 2, dtype=ms.float64)])
    x = Tensor(np.random.default_rng(0).standard_normal((2, 1, 8, 8)))
    loss = lambda: (net(x) ** 2).sum()
    grad = ms.grad(lambda: loss(), None, net.trainable_params())
    for _ in range(eager_kernels.WARM_CALLS + 2):
        grads = _settled(grad)
    w = net.trainable_params()[0]
    base = w.asnumpy().copy()
    eps = 1e-6
    for idx in [(0, 0, 0, 0), (2, 0, 1, 2), (1, 0, 2, 1)]:
        plus = base.copy()
        plus[idx] += eps
        w.set_data(Tensor(plus))
        lp = float(loss().asnumpy())
        minus = base.copy()
        minus[idx] -= eps
        w.set_data(Tensor(minus))
        lm = float(loss().asnumpy())
        w.set_data(Tensor(base))
        np.testing.assert_allclose(grads[0].asnumpy()[idx], (lp - lm) / (2 * eps), rtol=1e-6, atol=1e-8)
    assert any(k[0] == "conv2d_backprop_filter" for k in eager_kernels._compiled)


def test_other_dtypes_off_switch_and_compile_failures_keep_numpys_path(monkeypatch):
    x16 = Tensor(np.ones((1, 2, 5, 5), np.float16))
    w16 = Tensor(np.ones((2, 2, 3, 3), np.float16))
    _repeat(lambda: ops.conv2d(x16, w16))
    assert not eager_kernels._compiled  # float16: never compiled
    x = Tensor(np.random.default_rng(1).standard_normal((1, 2, 5, 5)).astype(np.float32))
    w = Tensor(np.random.default_rng(2).standard_normal((2, 2, 3, 3)).astype(np.float32))
    want = REGISTRY["conv2d"].impl(np, x.asnumpy(), w.asnumpy(), **REGISTRY["conv2d"].normalize({}))
    monkeypatch.setenv("MSJIT_EAGER_KERNELS", "0")
    _close(_repeat(lambda: ops.conv2d(x, w)), want, np.float32)
    assert not eager_kernels._compiled
    monkeypatch.delenv("MSJIT_EAGER_KERNELS")
    import codegen

    def broken(*a, **k):
        raise RuntimeError("a compiler bug")
    monkeypatch.setattr(codegen, "compile_schedule", broken)
    _close(_repeat(lambda: ops.conv2d(x, w)), want, np.float32)
    assert list(eager_kernels._compiled.values()) == [eager_kernels._FAILED]


def test_bad_input_raises_the_eager_error_after_warm_up():
    x = Tensor(np.ones((1, 2, 5, 5), np.float32))
    w = Tensor(np.ones((2, 2, 3, 3), np.float32))
    _repeat(lambda: ops.conv2d(x, w))
    with pytest.raises(ValueError, match="Conv2D"):
        ops.conv2d(x, Tensor(np.ones((2, 3, 3, 3), np.float32)))


def test_threads_running_one_compiled_signature_get_their_own_results():
    rng = np.random.default_rng(5)
    w = Tensor(rng.standard_normal((4, 3, 3, 3)).astype(np.float32))
    xs = [Tensor(rng.standard_normal((2, 3, 8, 8)).astype(np.float32)) for _ in range(4)]
    attrs = REGISTRY["conv2d"].normalize({})
    wants = [REGISTRY["conv2d"].impl(np, x.asnumpy(), w.asnumpy(), **attrs) for x in xs]
    _repeat(lambda: ops.conv2d(xs[0], w))
    errors = []

    def work(i):
        try:
            for _ in range(20):
                np.testing.assert_allclose(ops.conv2d(xs[i], w).asnumpy(), wants[i], rtol=2e-5, atol=2e-5)
        except BaseException as e:  # (reported by the main thread)
            errors.append(e)
    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[0]


def test_compiled_signatures_are_bounded(monkeypatch):
    monkeypatch.setattr(eager_kernels, "MAX_SIGNATURES", 3)
    w = Tensor(np.ones((1, 1, 2, 2), np.float32))
    for size in range(3, 9):
        x = Tensor(np.ones((1, 1, size, size), np.float32))
        _repeat(lambda: ops.conv2d(x, w))
    assert len(eager_kernels._compiled) == 3


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_layer_norm_and_softmax_backward_run_as_compiled_rules_once_warm(dtype, monkeypatch):
    """PyNative's backward of layer_norm and softmax runs each op's registry VJP rule as one compiled
    graph once warm (runtime/eager_kernels.run_vjp). Oracles: the rule run op by op (eager kernels
    off), and finite differences of the loss in float64."""
    ms.set_seed(11)
    rng = np.random.default_rng(11)
    ln = nn.LayerNorm((6,), epsilon=1e-5, dtype=ms.float64 if dtype == np.float64 else ms.float32)
    ln.gamma.set_data(Tensor(rng.uniform(0.5, 1.5, 6).astype(dtype)))
    ln.beta.set_data(Tensor(rng.standard_normal(6).astype(dtype)))
    x = Tensor(rng.standard_normal((2, 3, 6)).astype(dtype))
    weights = Tensor(rng.standard_normal((2, 3, 6)).astype(dtype))
    loss = lambda a: (ops.softmax(ln(a) * 1.5, -1) * weights).sum()
    grad = ms.grad(loss, 0, ln.trainable_params())
    runs = [_settled(lambda: grad(x)) for _ in range(eager_kernels.WARM_CALLS + 2)]
    compiled = {k[1] for k, v in eager_kernels._compiled.items() if k[0] == "vjp" and v is not eager_kernels._FAILED}
    assert compiled == {"layer_norm", "softmax"}, compiled
    monkeypatch.setenv("MSJIT_EAGER_KERNELS", "0")
    dx_want, (dg_want, db_want) = grad(x)
    for dx, (dg, db) in runs:
        _close([dx.asnumpy()], dx_want.asnumpy(), dtype)
        _close([dg.asnumpy()], dg_want.asnumpy(), dtype)
        _close([db.asnumpy()], db_want.asnumpy(), dtype)
    if dtype == np.float64:
        base, eps = x.asnumpy(), 1e-6
        for idx in [(0, 0, 0), (1, 2, 5), (0, 1, 3)]:
            plus, minus = base.copy(), base.copy()
            plus[idx] += eps
            minus[idx] -= eps
            fd = (float(loss(Tensor(plus)).asnumpy()) - float(loss(Tensor(minus)).asnumpy())) / (2 * eps)
            np.testing.assert_allclose(runs[-1][0].asnumpy()[idx], fd, rtol=1e-6, atol=1e-8)


def test_gradients_of_gradients_keep_the_op_by_op_rules():
    """A backward that an outer tape records (grad of grad) must run the rule op by op, so the
    outer tape sees it: the second derivative of softmax against finite differences."""
    rng = np.random.default_rng(12)
    x = Tensor(rng.standard_normal((2, 5)))
    w = Tensor(rng.standard_normal((2, 5)))
    inner = lambda a: (ops.softmax(a, -1) * w).sum()
    outer = ms.grad(lambda a: (ms.grad(inner)(a) ** 2).sum())
    got = [_settled(lambda: outer(x)) for _ in range(eager_kernels.WARM_CALLS + 2)][-1].asnumpy()
    base, eps = x.asnumpy(), 1e-6
    f = lambda v: float((ms.grad(inner)(Tensor(v)) ** 2).sum().asnumpy())
    for idx in [(0, 0), (1, 3)]:
        plus, minus = base.copy(), base.copy()
        plus[idx] += eps
        minus[idx] -= eps
        np.testing.assert_allclose(got[idx], (f(plus) - f(minus)) / (2 * eps), rtol=1e-5, atol=1e-8)


def test_layer_norm_forward_runs_compiled_once_warm_with_all_three_outputs():
    rng = np.random.default_rng(13)
    x = rng.standard_normal((4, 3, 10)).astype(np.float32) * 2 + 1
    gamma, beta = rng.uniform(0.5, 1.5, 10).astype(np.float32), rng.standard_normal(10).astype(np.float32)
    attrs = REGISTRY["layer_norm"].normalize({"epsilon": 1e-5})
    want = REGISTRY["layer_norm"].impl(np, x, gamma, beta, **attrs)
    for _ in range(eager_kernels.WARM_CALLS + 2):
        got = _settled(lambda: ops.LayerNorm(epsilon=1e-5)(Tensor(x), Tensor(gamma), Tensor(beta)))
        assert len(got) == 3
        for g, w in zip(got, want):
            _close([g.asnumpy()], w, np.float32)
    assert any(k[0] == "layer_norm" and v is not eager_kernels._FAILED for k, v in eager_kernels._compiled.items())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape,axis", [((4, 3, 32, 48), -1), ((64, 80), 0), ((8, 16, 40), 1)])
def test_softmax_equals_numpy_once_compiled(dtype, shape, axis):
    """The attention probabilities' softmax runs compiled once warm (from MIN_ELEMENTS elements on);
    oracle: the registry's numpy implementation, over large-magnitude logits too (exp overflows
    without the max subtraction)."""
    rng = np.random.default_rng(17)
    x = (rng.standard_normal(shape) * 30).astype(dtype)
    x.flat[::97] = 80.0  # (exp(80) overflows float32)
    want = REGISTRY["softmax"].impl(np, x, axis=axis)
    _close(_repeat(lambda: ops.softmax(Tensor(x), axis)), want, dtype)
    compiled = {k[0] for k, v in eager_kernels._compiled.items() if v is not eager_kernels._FAILED}
    assert "softmax" in compiled, compiled


def test_a_small_softmax_keeps_numpys_path():
    """A classifier's (32, 10) softmax costs less in numpy than a compiled call's fixed cost."""
    x = Tensor(np.random.default_rng(3).standard_normal((32, 10)).astype(np.float32))
    assert x.size < eager_kernels.MIN_ELEMENTS["softmax"]
    want = REGISTRY["softmax"].impl(np, x.asnumpy(), axis=-1)
    for got in _repeat(lambda: ops.softmax(x, -1)):
        np.testing.assert_array_equal(got, want)
    assert not any(k[0] == "softmax" for k in eager_kernels._compiled)
