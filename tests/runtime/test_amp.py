"""ms.amp loss scaling: all_finite against numpy, the static and dynamic scalers against a
plain-Python model of MindSpore's update rule, and a loss-scaled train step (the mixed-precision
tutorial's pattern) giving the same losses, scales and parameters under @jit as in PyNative, with
the graphs and breaks counted (the step without the tensor-valued ``if`` is one graph)."""
import numpy as np
import pytest

import capture
import runtime as ms
from capture.explain import recording
from runtime import Tensor, amp, nn, ops


@pytest.mark.parametrize("arrays", [
    [np.array([1.0, 2.0], np.float32)],
    [np.array([1.0, np.inf], np.float32), np.array([0.5], np.float16)],
    [np.array([[np.nan]], np.float64)],
    [np.ones((2, 3), np.float16), np.array([-np.inf], np.float32), np.array([3], np.int32)],
    [np.array([65504.0], np.float16), np.array([7], np.int32)],
])
def test_all_finite_matches_numpy(arrays):
    want = all(np.isfinite(a).all() for a in arrays)
    for inputs in (tuple(Tensor(a) for a in arrays), [Tensor(a) for a in arrays]):
        got = amp.all_finite(inputs)
        assert got.dtype == ms.bool_ and got.shape == () and bool(got.asnumpy()) == want
    got = ms.jit(lambda *xs: amp.all_finite(xs))(*(Tensor(a) for a in arrays))
    assert bool(got.asnumpy()) == want


def test_isfinite_isnan_isinf_compiled_equal_numpy():
    x = np.array([0.0, -1.5, np.inf, -np.inf, np.nan, 3e38], np.float32)
    f = ms.jit(lambda t: (ops.isfinite(t * 2), ops.isnan(t - 1), ops.isinf(t + 0)))
    with np.errstate(over="ignore"):
        want = (np.isfinite(x * 2), np.isnan(x - 1), np.isinf(x))
    for got, fn in zip(f(Tensor(x)), want):
        np.testing.assert_array_equal(got.asnumpy(), fn)


def test_static_scaler_scales_and_unscales_in_each_dtype():
    scaler = amp.StaticLossScaler(1024)
    assert scaler.scale(Tensor([1.0])).asnumpy().tolist() == [1024.0]
    grads = (Tensor(np.array([1.5, 1.0], np.float16)), Tensor(np.array([1.2], np.float32)))
    out = scaler.unscale(grads)
    assert isinstance(out, tuple) and [g.dtype for g in out] == [ms.float16, ms.float32]
    np.testing.assert_allclose(out[0].asnumpy(), np.array([1.5, 1.0], np.float16) / np.float16(1024))
    np.testing.assert_allclose(out[1].asnumpy(), np.float32(1.2) / 1024, rtol=1e-6)
    assert scaler.adjust(Tensor(True)) is False and float(scaler.scale_value.asnumpy()) == 1024.0


@pytest.mark.parametrize("bad, error", [(0.5, ValueError), ("8", TypeError), (True, TypeError)])
def test_scalers_refuse_bad_scales(bad, error):
    with pytest.raises(error, match="scale_value"):
        amp.StaticLossScaler(bad)
    with pytest.raises(error, match="scale_value"):
        amp.DynamicLossScaler(bad, 2, 10)
    with pytest.raises(ValueError, match="scale_window"):
        amp.DynamicLossScaler(8, 2, 0)


def _reference_rule(scale, counter, finite, factor, window):
    """MindSpore's DynamicLossScaler.adjust, in plain Python."""
    if finite:
        if counter == window - 1 and np.isfinite(np.float32(scale) * factor):
            scale = scale * factor
    else:
        scale = max(1.0, scale / factor)
    counter = ((counter + 1) % window) * int(finite)
    return scale, counter


@pytest.mark.parametrize("jitted", [False, True])
def test_dynamic_scaler_follows_the_update_rule(jitted):
    finite_steps = [True, True, True, False, True, True, True, True, False, False, True]
    scaler = amp.DynamicLossScaler(2.0 ** 3, 2, 3)
    adjust = ms.jit(scaler.adjust) if jitted else scaler.adjust
    scale, counter = 8.0, 0
    for finite in finite_steps:
        assert adjust(Tensor(finite)) is True
        scale, counter = _reference_rule(scale, counter, finite, 2, 3)
        assert float(scaler.scale_value.asnumpy()) == scale and int(scaler.counter.asnumpy()) == counter


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")  # 2**128 is inf in float32
def test_dynamic_scale_never_overflows_float32_nor_drops_below_one():
    scaler = amp.DynamicLossScaler(2.0 ** 127, 2, 1)
    scaler.adjust(Tensor(True))
    assert float(scaler.scale_value.asnumpy()) == 2.0 ** 127  # 2**128 would be inf: kept
    small = amp.DynamicLossScaler(1.5, 4, 1)
    small.adjust(Tensor(False))
    assert float(small.scale_value.asnumpy()) == 1.0


def _loss_scaled_training(jitted, steps=6):
    ms.set_seed(5)
    net = nn.SequentialCell([nn.Dense(6, 8), nn.ReLU(), nn.Dense(8, 3)])
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    optimizer = nn.SGD(net.trainable_params(), 0.1)
    scaler = amp.DynamicLossScaler(2.0 ** 16, 2, 2)

    def forward(x, y):
        return scaler.scale(loss_fn(net(x), y))

    grad_fn = ms.value_and_grad(forward, None, optimizer.parameters)

    def train_step(x, y):
        loss, grads = grad_fn(x, y)
        loss = scaler.unscale(loss)
        finite = amp.all_finite(grads)
        if finite:
            optimizer(scaler.unscale(grads))
        scaler.adjust(finite)
        return loss

    step = ms.jit(train_step) if jitted else train_step
    rng = np.random.default_rng(6)
    out = []
    for i in range(steps):
        x = rng.standard_normal((4, 6)).astype(np.float32)
        if i == 2:
            x[0, 0] = np.inf  # gradients overflow: the step is skipped and the scale halves
        y = rng.integers(0, 3, 4).astype(np.int32)
        loss = step(Tensor(x), Tensor(y))
        out.append((float(loss.asnumpy()), float(scaler.scale_value.asnumpy())))
    return out, [p.asnumpy() for p in net.trainable_params()]


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")  # the injected inf batch
def test_a_loss_scaled_train_step_is_the_same_under_jit():
    want, want_params = _loss_scaled_training(jitted=False)
    got, got_params = _loss_scaled_training(jitted=True)
    scales = [s for _, s in want]
    assert scales[:3] == [2.0 ** 16, 2.0 ** 17, 2.0 ** 16] and scales[-1] == 2.0 ** 17  # halved on overflow, regrown
    for (gl, gs), (wl, ws) in zip(got, want):
        assert gs == ws
        assert (np.isnan(gl) and np.isnan(wl)) or gl == pytest.approx(wl, rel=1e-5)
    for g, w in zip(got_params, want_params):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def _tutorial_training(jit_step, with_if, steps=5, overflow_at=2):
    """The mixed-precision tutorial's hand-written step, verbatim: ``DynamicLossScaler(1024, 2,
    1000)``, the loss scaled in the forward, unscaled in the step, the gradients unscaled and
    applied (only when finite with ``with_if``), the scaler adjusted. ``jit_step(fn)`` wraps the
    step (identity for PyNative). Returns (loss, scale) per step and the final parameters."""
    from runtime.amp import DynamicLossScaler, all_finite
    ms.set_seed(11)
    net = nn.SequentialCell([nn.Dense(6, 8), nn.ReLU(), nn.Dense(8, 3)])
    loss_fn = nn.CrossEntropyLoss()
    optimizer = nn.SGD(net.trainable_params(), 0.1)
    loss_scaler = DynamicLossScaler(1024, 2, 1000)

    def forward_fn(data, label):
        logits = net(data)
        loss = loss_fn(logits, label)
        loss = loss_scaler.scale(loss)
        return loss, logits

    grad_fn = ms.value_and_grad(forward_fn, None, net.trainable_params(), has_aux=True)

    def train_step_if(data, label):
        (loss, _), grads = grad_fn(data, label)
        loss = loss_scaler.unscale(loss)
        is_finite = all_finite(grads)
        if is_finite:
            grads = loss_scaler.unscale(grads)
            optimizer(grads)
        loss_scaler.adjust(is_finite)
        return loss

    def train_step(data, label):
        (loss, _), grads = grad_fn(data, label)
        loss = loss_scaler.unscale(loss)
        is_finite = all_finite(grads)
        grads = loss_scaler.unscale(grads)
        optimizer(grads)
        loss_scaler.adjust(is_finite)
        return loss

    step = jit_step(train_step_if if with_if else train_step)
    rng = np.random.default_rng(12)
    out = []
    for i in range(steps):
        x = rng.standard_normal((4, 6)).astype(np.float32)
        if with_if and i == overflow_at:
            x[1, 2] = np.inf  # non-finite gradients: the step is skipped, the scale halves
        y = rng.integers(0, 3, 4).astype(np.int32)
        loss = step(Tensor(x), Tensor(y))
        out.append((float(loss.asnumpy()), float(loss_scaler.scale_value.asnumpy())))
    return out, [p.asnumpy().copy() for p in net.trainable_params()]


def _same_training(got, want):
    (got_hist, got_params), (want_hist, want_params) = got, want
    assert [s for _, s in got_hist] == [s for _, s in want_hist]
    for (gl, _), (wl, _) in zip(got_hist, want_hist):
        assert (np.isnan(gl) and np.isnan(wl)) or gl == pytest.approx(wl, rel=1e-5)
    for g, w in zip(got_params, want_params):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def test_the_tutorial_step_without_if_is_one_graph_and_equals_pynative():
    want = _tutorial_training(lambda f: f, with_if=False)
    backend = capture.CountingBackend()
    with recording() as report:
        got = _tutorial_training(lambda f: capture.jit(f, backend=backend), with_if=False)
    assert report.breaks == [], [str(b) for b in report.breaks]
    assert backend.graph_count == 1, f"{backend.graph_count} graphs compiled"
    _same_training(got, want)
    # the tutorial's own decorator, ms.jit, compiled: the same numbers again, one graph, no break
    with recording() as report:
        again = _tutorial_training(ms.jit, with_if=False)
    assert report.graph_count == 1 and report.graph_break_count == 0, str(report)
    _same_training(again, want)


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")  # the injected inf batch
def test_the_tutorial_step_with_if_captures_graphs_around_the_branch_and_equals_pynative():
    want = _tutorial_training(lambda f: f, with_if=True)
    scales = [s for _, s in want[0]]
    assert scales == [1024.0, 1024.0, 512.0, 512.0, 512.0]  # halved at the overflowing step only
    with recording() as report:
        got = _tutorial_training(ms.jit, with_if=True)
    _same_training(got, want)
    # the branch on a tensor value is the only break; the step before it and the code after it
    # (each way the branch went) are captured, nothing falls back to a whole-frame eager run
    reasons = [b.reason for b in report.break_reasons]
    assert len(reasons) == 1 and "branch on a tensor value" in reasons[0], reasons
    assert report.resume_fallbacks == [], report.resume_fallbacks
    assert report.graph_count >= 2, str(report)
    assert not any("nested" in r or "framework code" in r for r in reasons)


def test_scale_and_unscale_compile_without_breaks():
    scaler = amp.DynamicLossScaler(2.0 ** 4, 2, 10)
    grads = (Tensor(np.array([1.5, -2.0], np.float16)), Tensor(np.array([3.0], np.float32)))

    def f(loss, g1, g2):
        return scaler.scale(loss), scaler.unscale((g1, g2)), scaler.unscale([g2])

    want = f(Tensor(np.float32(0.25)), *grads)
    backend = capture.CountingBackend()
    with recording() as report:
        got = capture.jit(f, backend=backend, fullgraph=True)(Tensor(np.float32(0.25)), *grads)
    assert report.breaks == [] and backend.graph_count == 1
    assert float(got[0].asnumpy()) == 4.0 == float(want[0].asnumpy())
    assert isinstance(got[1], tuple) and isinstance(got[2], list)
    assert [g.dtype for g in got[1]] == [ms.float16, ms.float32]
    np.testing.assert_array_equal(got[1][0].asnumpy(), np.array([1.5, -2.0], np.float16) / np.float16(16))
    np.testing.assert_array_equal(got[2][0].asnumpy(), np.array([3.0], np.float32) / 16)
