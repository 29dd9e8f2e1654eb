"""PyNative optimizers update all parameters in one flat step (runtime/nn/optim/foreach.py), with
results bit-identical to the per-parameter ``construct`` (the oracle: the same optimizer with
the flat path switched off), and the per-parameter path keeps working where the flat one cannot
be taken."""
import weakref

import numpy as np
import pytest

import runtime as ms
from runtime import Tensor, nn, ops
from runtime.nn.optim import foreach

OPTIMIZERS = {
    "momentum": lambda ps: nn.Momentum(ps, 0.1, 0.9),
    "momentum nesterov, weight decay": lambda ps: nn.Momentum(ps, 0.1, 0.9, use_nesterov=True, weight_decay=0.01),
    "momentum loss scale": lambda ps: nn.Momentum(ps, 0.05, 0.8, loss_scale=8.0),
    "sgd": lambda ps: nn.SGD(ps, 0.1),
    "sgd momentum dampening": lambda ps: nn.SGD(ps, 0.1, momentum=0.9, dampening=0.1, loss_scale=2.0),
    "sgd nesterov": lambda ps: nn.SGD(ps, 0.1, momentum=0.9, nesterov=True),
    "adam": lambda ps: nn.Adam(ps, 0.01),
    "adam nesterov, weight decay": lambda ps: nn.Adam(ps, 0.01, use_nesterov=True, weight_decay=0.1, loss_scale=4.0),
    "adam groups": lambda ps: nn.Adam([{"params": ps[:2], "lr": 0.05}, {"params": ps[2:]}], 0.01),
    "momentum groups": lambda ps: nn.Momentum([{"params": ps[:1], "lr": 0.3, "weight_decay": 0.2},
                                               {"params": ps[1:]}], 0.1, 0.9),
}


def _net():
    ms.set_seed(0)
    return nn.SequentialCell([nn.Dense(5, 4), nn.ReLU(), nn.Dense(4, 3)])


def _train(make, flat, monkeypatch, steps=4):
    """Parameters and optimizer state after ``steps`` updates with fixed random gradients."""
    net = _net()
    opt = make(net.trainable_params())
    with monkeypatch.context() as m:
        if not flat:
            m.setattr(foreach, "eager_step_allowed", lambda: False)
        rng = np.random.default_rng(0)
        for _ in range(steps):
            opt(tuple(Tensor(rng.normal(size=p.shape).astype(np.float32)) for p in opt.parameters))
    took_flat = opt.__dict__.get("_flat_cache") is not None
    return [p.asnumpy().copy() for p in opt.get_parameters()], took_flat


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_flat_step_is_bit_identical_to_construct(name, monkeypatch):
    flat, took_flat = _train(OPTIMIZERS[name], True, monkeypatch)
    per_param, took_flat_off = _train(OPTIMIZERS[name], False, monkeypatch)
    assert took_flat and not took_flat_off
    assert len(flat) == len(per_param)
    for a, b in zip(flat, per_param):
        assert a.dtype == b.dtype and a.shape == b.shape
        assert np.array_equal(a, b), np.abs(a - b).max()


def test_flat_step_keeps_momentum_formula():
    """Independent oracle: the Momentum formula in float64 numpy (accum = m * accum + g;
    p -= lr * accum)."""
    net = _net()
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    p0 = [p.asnumpy().astype(np.float64) for p in opt.parameters]
    acc = [np.zeros_like(p) for p in p0]
    rng = np.random.default_rng(1)
    for _ in range(3):
        gs = [rng.normal(size=p.shape).astype(np.float32) for p in p0]
        opt(tuple(Tensor(g) for g in gs))
        for i, g in enumerate(gs):
            acc[i] = 0.9 * acc[i] + g
            p0[i] = p0[i] - 0.1 * acc[i]
    for p, ref in zip(opt.parameters, p0):
        np.testing.assert_allclose(p.asnumpy(), ref, rtol=1e-5, atol=1e-6)
    assert int(opt.global_step.asnumpy()[0]) == 3


def test_one_flat_buffer_and_rebinding_semantics():
    net = _net()
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    before = [p.asnumpy() for p in opt.parameters]
    kept = [b.copy() for b in before]
    opt(tuple(ops.ones_like(p) for p in opt.parameters))
    flat = opt.__dict__["_flat_cache"][0].flat
    # every parameter is a view into one flat array ...
    assert all(np.shares_memory(p.asnumpy(), flat) for p in opt.parameters)
    # ... and, as ops.assign rebinds, arrays taken before the step keep their values
    assert all(np.array_equal(b, k) for b, k in zip(before, kept))
    assert not any(np.array_equal(p.asnumpy(), k) for p, k in zip(opt.parameters, kept))


@pytest.mark.parametrize("nesterov", [False, True])
def test_momentum_updates_in_place_unless_someone_holds_the_arrays(nesterov):
    """Nothing else referencing the flat arrays: the step writes into them (the same flat array
    after every step). A held ``asnumpy()`` (or a view of it): the step rebinds, the held array
    keeps its values. Both give the same bits."""
    results = []
    for hold in (False, True):
        net = _net()
        opt = nn.Momentum(net.trainable_params(), 0.1, 0.9, use_nesterov=nesterov)
        rng = np.random.default_rng(1)
        grads = [tuple(Tensor(rng.normal(size=p.shape).astype(np.float32)) for p in opt.parameters)
                 for _ in range(3)]
        opt(grads[0])
        params, moments = opt.__dict__["_flat_cache"]
        flats = (weakref.ref(params.flat), weakref.ref(moments.flat))  # (a reference would be a holder)
        held = opt.parameters[1].asnumpy()[:2] if hold else None  # a view of the flat array
        kept = None if held is None else held.copy()
        for g in grads[1:]:
            opt(g)
        same = params.flat is flats[0]() and moments.flat is flats[1]()
        assert same != hold
        if hold:
            np.testing.assert_array_equal(held, kept)
        results.append([p.asnumpy().copy() for p in opt.parameters] + [m.asnumpy().copy() for m in opt.moments])
    for a, b in zip(*results):
        np.testing.assert_array_equal(a, b)


def test_writes_between_steps_are_seen(monkeypatch):
    """An in-place write to a parameter, and new data given with set_data, both reach the next
    flat step exactly as they reach construct."""
    results = []
    for flat in (True, False):
        with monkeypatch.context() as m:
            if not flat:
                m.setattr(foreach, "eager_step_allowed", lambda: False)
            net = _net()
            opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
            grads = tuple(ops.ones_like(p) for p in opt.parameters)
            opt(grads)
            opt.parameters[0][0, 0] = 7.0
            opt(grads)
            opt.parameters[1].set_data(Tensor(np.full(opt.parameters[1].shape, 3.0, np.float32)))
            opt(grads)
            results.append([p.asnumpy().copy() for p in opt.parameters])
    for a, b in zip(*results):
        assert np.array_equal(a, b)


def test_construct_runs_where_the_flat_step_cannot(monkeypatch):
    """float64 parameters, a learning-rate schedule, and graph mode keep the per-parameter path."""
    ms.set_seed(0)
    net = nn.Dense(3, 2, dtype=ms.float64)
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    opt(tuple(ops.ones_like(p) for p in opt.parameters))
    assert opt.__dict__.get("_flat_cache") is None or not all(g.usable() for g in opt.__dict__["_flat_cache"])
    assert net.weight.asnumpy().dtype == np.float64
    sched = nn.Momentum(_net().trainable_params(), nn.ExponentialDecayLR(0.1, 0.9, 1), 0.9)
    calls = []
    monkeypatch.setattr(type(sched), "construct", lambda self, g: calls.append(1) or True)
    sched(tuple(ops.ones_like(p) for p in sched.parameters))
    assert calls == [1]


def test_train_step_loss_matches_per_parameter_path(monkeypatch):
    """A whole TrainOneStepCell run: same losses to the bit with and without the flat step."""
    losses = []
    for flat in (True, False):
        with monkeypatch.context() as m:
            if not flat:
                m.setattr(foreach, "eager_step_allowed", lambda: False)
            net = _net()
            step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.Momentum(net.trainable_params(), 0.1, 0.9))
            rng = np.random.default_rng(0)
            x, y = Tensor(rng.normal(size=(6, 5)).astype(np.float32)), Tensor(rng.normal(size=(6, 3)).astype(np.float32))
            losses.append([float(step(x, y).asnumpy()) for _ in range(5)])
    assert losses[0] == losses[1]


def test_flat_step_after_graph_mode_and_not_under_the_capture_hook():
    """Having run GRAPH_MODE once does not switch the flat step off for PyNative; capture's frame
    hook (which captures the optimizer's construct) does."""
    import capture
    net = _net()
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    assert foreach.eager_step_allowed()
    capture.enable()
    try:
        assert not foreach.eager_step_allowed()
    finally:
        capture.disable()
    assert foreach.eager_step_allowed()
    opt(tuple(ops.ones_like(p) for p in opt.parameters))
    assert opt.__dict__.get("_flat_cache") is not None


def test_adam_amsgrad_keeps_the_running_maximum_in_pynative():
    """Adam(use_amsgrad=True) divides by sqrt(max over steps of v): after a large gradient then
    zeros, v shrinks but vhat does not (the flat PyNative step, which keeps no vhat, must not
    take this optimizer)."""
    w0 = np.array([0.5, -1.0], np.float32)
    p = ms.Parameter(Tensor(w0.copy()), name="w")
    opt = nn.Adam([p], learning_rate=0.1, use_amsgrad=True)
    m = v = vhat = np.zeros(2)
    w = w0.astype(np.float64)
    for t, g in enumerate([np.array([10.0, -3.0]), np.zeros(2), np.array([0.01, 0.0])], 1):
        opt((Tensor(g.astype(np.float32)),))
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        vhat = np.maximum(vhat, v)
        w = w - 0.1 * np.sqrt(1 - 0.999 ** t) / (1 - 0.9 ** t) * m / (np.sqrt(vhat) + 1e-8)
        np.testing.assert_allclose(p.asnumpy(), w, rtol=1e-5, atol=1e-6)
