"""ms.amp loss scaling: all_finite against numpy, the static and dynamic scalers against a
plain-Python model of MindSpore's update rule, and a loss-scaled train step (the mixed-precision
tutorial's pattern) giving the same losses, scales and parameters under @jit as in PyNative."""
import numpy as np
import pytest

import runtime as ms
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
