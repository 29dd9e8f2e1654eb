"""Mixed precision: ``Cell.to_float``, ``amp.auto_mixed_precision`` (O1/O2/O3),
``custom_mixed_precision``, the loss-scale update Cells, ``TrainOneStepWithLossScaleCell``,
``amp.build_train_network``, ``Model(amp_level=, loss_scale_manager=)`` and ``nn.Lamb``.

Oracles: numpy formulas computed in float16 / float32 by hand, a plain-Python model of MindSpore's
loss-scale update rule, an fp32 ``TrainOneStepCell`` for steps that do not overflow (scaling by a
power of two and unscaling is exact), and PyNative for GRAPH_MODE / ``@jit`` (same losses, scales
and parameters step by step; the whole loss-scaled step is one graph with no break).
"""
import numpy as np
import pytest

import capture
import runtime as ms
from runtime import Tensor, amp, nn, ops
from modes import MODES, run_cell as _run_cell

F16, F32 = np.float16, np.float32


def run_cell(mode, cell, *args):
    """``cell(*args)`` in ``mode``; under jit through the Cell's own call (a jitted bare
    ``construct`` bypasses ``Cell.__call__`` and so a root Cell's ``to_float``, as in MindSpore)."""
    if mode == "jit":
        return ms.jit(lambda *a: cell(*a))(*args)
    return _run_cell(mode, cell, *args)


def _dense_fp16(x, w, b):
    """Dense computed in float16 the way a float16 Cell does: operands cast, arithmetic in f16."""
    return (x.astype(F16) @ w.astype(F16).T + b.astype(F16)).astype(F16)


# -- to_float ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", MODES)
def test_to_float_computes_in_float16_with_float32_master_weights(mode, rng):
    ms.set_seed(0)
    net = nn.Dense(5, 3).to_float(ms.float16)
    x = rng.standard_normal((4, 5)).astype(F32)
    out = run_cell(mode, net, Tensor(x))
    assert out.dtype == ms.float16 and net.weight.dtype == ms.float32 and net.bias.dtype == ms.float32
    want = _dense_fp16(x, net.weight.asnumpy(), net.bias.asnumpy())
    np.testing.assert_allclose(out.asnumpy().astype(F32), want.astype(F32), rtol=2e-3, atol=2e-3)


def test_to_float_gradients_reach_the_float32_weights(rng):
    ms.set_seed(1)
    net = nn.Dense(4, 2).to_float(ms.float16)
    x = Tensor(rng.standard_normal((3, 4)).astype(F32))

    def loss(x):
        return net(x).astype(ms.float32).sum()

    gw, gb = ms.grad(loss, None, net.trainable_params())(x)
    assert gw.dtype == ms.float32 and gb.dtype == ms.float32
    # d sum(x W^T + b) / dW = column sums of x (in float16), db = batch size
    np.testing.assert_allclose(gw.asnumpy(), np.tile(x.asnumpy().astype(F16).sum(0), (2, 1)), rtol=2e-3)
    np.testing.assert_array_equal(gb.asnumpy(), [3.0, 3.0])
    gj = ms.jit(ms.grad(loss, None, net.trainable_params()))(x)
    for a, b in zip(gj, (gw, gb)):
        assert a.dtype == ms.float32
        np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=2e-3, atol=1e-3)


def test_a_sub_cell_in_float32_inside_a_float16_cell(rng):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(3, 3)
            self.norm = nn.LayerNorm((3,))

        def construct(self, x):
            return self.norm(self.fc(x))

    net = Net().to_float(ms.float16)
    net.norm.to_float(ms.float32)
    x = rng.standard_normal((2, 3)).astype(F32)
    for mode in MODES:
        out = run_cell(mode, net, Tensor(x))
        assert out.dtype == ms.float32, mode  # the LayerNorm casts its float16 input up and runs in f32
        h = _dense_fp16(x, net.fc.weight.asnumpy(), net.fc.bias.asnumpy()).astype(F32)
        want = (h - h.mean(-1, keepdims=True)) / np.sqrt(h.var(-1, keepdims=True) + 1e-7)
        np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-3, atol=1e-3)


def test_to_float_after_compiling_recompiles():
    net = nn.Dense(2, 2)
    f = ms.jit(lambda x: net(x))
    x = Tensor(np.ones((1, 2), F32))
    assert f(x).dtype == ms.float32
    net.to_float(ms.float16)
    assert f(x).dtype == ms.float16
    net.to_float(ms.float32)
    assert f(x).dtype == ms.float32


def test_to_float_refuses_other_types():
    with pytest.raises(ValueError, match="to_float"):
        nn.Dense(2, 2).to_float(ms.int32)


# -- auto_mixed_precision ---------------------------------------------------------------------------
class _Mlp(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(4, 6)
        self.bn = nn.BatchNorm1d(6)
        self.relu = ops.ReLU()  # a white-list Primitive in a user Cell
        self.fc2 = nn.Dense(6, 3)

    def construct(self, x):
        return self.fc2(self.relu(self.bn(self.fc1(x))))


def _mlp_oracle(net, x, level):
    """The O1/O2/O3 forward in numpy (BatchNorm in eval mode)."""
    fc1, bn, fc2 = net_layers(net)
    w1, b1, w2, b2 = (p.asnumpy() for p in (fc1.weight, fc1.bias, fc2.weight, fc2.bias))
    mean, var = bn.moving_mean.asnumpy(), bn.moving_variance.asnumpy()
    g, beta = bn.gamma.asnumpy(), bn.beta.asnumpy()

    def bn_f(h, dt):
        h = h.astype(dt)
        return ((h - mean.astype(dt)) / np.sqrt(var.astype(dt) + dt(1e-5)) * g.astype(dt) + beta.astype(dt)).astype(dt)

    if level == "O1":  # Dense and ReLU in float16 with float32 outputs, BatchNorm in float32
        h = _dense_fp16(x, w1, b1).astype(F32)
        h = np.maximum(bn_f(h, F32).astype(F16), 0).astype(F32)
        return _dense_fp16(h, w2, b2).astype(F32)
    h = _dense_fp16(x, w1, b1)
    h = bn_f(h, F32).astype(F16) if level == "O2" else bn_f(h, F16)
    return _dense_fp16(np.maximum(h, 0), w2, b2).astype(F32)


def net_layers(net):
    base = net
    while not hasattr(base, "fc1"):
        base = base._backbone
    bn = base.bn._backbone if hasattr(base.bn, "_backbone") else base.bn
    return base.fc1._backbone if hasattr(base.fc1, "_backbone") else base.fc1, bn, \
        base.fc2._backbone if hasattr(base.fc2, "_backbone") else base.fc2


@pytest.mark.parametrize("level", ["O1", "O2", "O3"])
@pytest.mark.parametrize("mode", MODES)
def test_auto_mixed_precision_levels_against_numpy(level, mode, rng):
    ms.set_seed(2)
    net = amp.auto_mixed_precision(_Mlp(), level)
    net.set_train(False)
    names = [p.name for p in net.get_parameters()]
    assert names == [p.name for p in _Mlp().get_parameters()]  # wrappers keep parameter names
    assert all(p.dtype == ms.float32 for p in net.get_parameters())
    x = rng.standard_normal((5, 4)).astype(F32)
    out = run_cell(mode, net, Tensor(x))
    assert out.dtype == ms.float32
    np.testing.assert_allclose(out.asnumpy(), _mlp_oracle(net, x, level), rtol=3e-3, atol=3e-3)


def test_auto_mixed_precision_checks_its_arguments():
    with pytest.raises(ValueError, match="amp_level"):
        amp.auto_mixed_precision(nn.Dense(2, 2), "O4")
    with pytest.raises(TypeError, match="Cell"):
        amp.auto_mixed_precision(lambda x: x, "O1")
    with pytest.raises(ValueError, match="dtype"):
        amp.auto_mixed_precision(nn.Dense(2, 2), "O3", ms.float64)
    assert amp.auto_mixed_precision(d := nn.Dense(2, 2), "O0") is d
    assert nn.Dense in amp.get_white_list() and nn.BatchNorm2d in amp.get_black_list()


def test_custom_mixed_precision_white_and_black_lists(rng):
    x = rng.standard_normal((2, 3)).astype(F32)
    seq = nn.SequentialCell([nn.Dense(3, 3), nn.Dense(3, 2)])
    w = [p.asnumpy() for p in seq.get_parameters()]
    white = amp.custom_mixed_precision(seq, white_list=[nn.Dense])
    out = white(Tensor(x))
    want = _dense_fp16(_dense_fp16(x, w[0], w[1]).astype(F32), w[2], w[3]).astype(F32)
    assert out.dtype == ms.float32
    np.testing.assert_allclose(out.asnumpy(), want, rtol=2e-3, atol=2e-3)
    black = amp.custom_mixed_precision(nn.SequentialCell([nn.Dense(3, 2)]), black_list=[nn.Dense])
    assert black(Tensor(x)).dtype == ms.float32
    with pytest.raises(ValueError, match="exactly one"):
        amp.custom_mixed_precision(nn.Dense(2, 2))
    with pytest.raises(TypeError, match="classes"):
        amp.custom_mixed_precision(nn.Dense(2, 2), white_list=["Dense"])


# -- loss-scale update cells ----------------------------------------------------------------------------
def _mindspore_dynamic_rule(scale, cur, last, overflow, factor, window):
    """DynamicLossScaleUpdateCell.construct in plain Python."""
    on_overflow = max(scale / factor, 1.0) if overflow else scale
    should_inc = window <= cur - last
    if overflow or should_inc:
        last = cur
    if should_inc and not overflow:
        on_overflow *= factor
    return on_overflow, cur + 1, last


@pytest.mark.parametrize("jitted", [False, True])
def test_dynamic_loss_scale_update_cell_follows_mindspore(jitted):
    cell = nn.DynamicLossScaleUpdateCell(loss_scale_value=2.0 ** 10, scale_factor=2, scale_window=3)
    scale = ms.Parameter(Tensor(np.float32(2.0 ** 10)), name="scale")
    step = ms.jit(cell.construct) if jitted else cell
    ref = (2.0 ** 10, 1, 0)
    for overflow in [False, False, True, False, False, False, False, True, True, False, False, False]:
        out = step(scale, Tensor(overflow))
        assert bool(out.asnumpy()) is overflow
        ref = _mindspore_dynamic_rule(*ref, overflow, 2, 3)
        assert float(scale.asnumpy()) == ref[0]
        assert int(cell.cur_iter.asnumpy()) == ref[1] and int(cell.last_overflow_iter.asnumpy()) == ref[2]


def test_fixed_loss_scale_update_cell_changes_nothing():
    cell = nn.FixedLossScaleUpdateCell(128.0)
    scale = ms.Parameter(Tensor(np.float32(128.0)), name="scale")
    assert bool(cell(scale, Tensor(True)).asnumpy()) and float(scale.asnumpy()) == 128.0
    assert cell.get_loss_scale() == 128.0
    with pytest.raises(ValueError):
        nn.FixedLossScaleUpdateCell(0.0)


# -- TrainOneStepWithLossScaleCell ----------------------------------------------------------------------
def _data(steps, rng, bad_steps=()):
    out = []
    for i in range(steps):
        x = rng.standard_normal((8, 6)).astype(F32)
        if i in bad_steps:
            x[0, 0] = np.inf  # the gradients overflow: the step is skipped
        out.append((x, rng.integers(0, 3, 8).astype(np.int32)))
    return out


def _train(mode, make_step, batches, seed=3, compute=None):
    ms.set_seed(seed)
    net = nn.SequentialCell([nn.Dense(6, 16), nn.ReLU(), nn.Dense(16, 3)])
    if compute is not None:
        net.to_float(compute)
    loss_net = nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"))
    opt = nn.Momentum(net.trainable_params(), 0.05, 0.9)
    step = make_step(loss_net, opt)
    step.set_train()
    history = []
    for x, y in batches:
        out = run_cell(mode, step, Tensor(x), Tensor(y))
        if isinstance(out, tuple):
            loss, overflow, scale = out
            history.append((float(loss.asnumpy()), bool(overflow.asnumpy()), float(scale.asnumpy())))
        else:
            history.append((float(out.asnumpy()), False, None))
    return history, [p.asnumpy().copy() for p in net.trainable_params()] + [opt.moments[0].asnumpy().copy()]


def _dynamic(loss_net, opt):
    return nn.TrainOneStepWithLossScaleCell(loss_net, opt, nn.DynamicLossScaleUpdateCell(2.0 ** 12, 2, 2))


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")  # the inf batches
@pytest.mark.parametrize("mode", MODES)
def test_loss_scaled_steps_skip_overflow_and_otherwise_equal_plain_training(mode, rng):
    batches = _data(7, rng, bad_steps=(2, 3))
    hist, params = _train(mode, _dynamic, batches)
    assert [o for _, o, _ in hist] == [False, False, True, True, False, False, False]
    # 2**12, grows after 2 good steps, halves twice, grows again after 2 good steps
    assert [s for _, _, s in hist] == [4096.0, 4096.0, 8192.0, 4096.0, 2048.0, 2048.0, 4096.0]
    # oracle: fp32 training on the good batches only (power-of-two scaling is exact)
    good = [b for i, b in enumerate(batches) if i not in (2, 3)]
    want_hist, want_params = _train("pynative", nn.TrainOneStepCell, good)
    got_losses = [loss for loss, o, _ in hist if not o]
    np.testing.assert_allclose(got_losses, [loss for loss, _, _ in want_hist], rtol=1e-5)
    for g, w in zip(params, want_params):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
def test_a_loss_scaled_float16_step_is_one_graph_and_equals_pynative(rng):
    batches = _data(6, rng, bad_steps=(1,))
    want, want_params = _train("pynative", _dynamic, batches, compute=ms.float16)
    for mode in ("jit", "graph"):
        got, got_params = _train(mode, _dynamic, batches, compute=ms.float16)
        assert [o for _, o, _ in got] == [o for _, o, _ in want] and [s for *_, s in got] == [s for *_, s in want]
        np.testing.assert_allclose([g[0] for g in got], [w[0] for w in want], rtol=2e-3)
        for g, w in zip(got_params, want_params):
            np.testing.assert_allclose(g, w, rtol=2e-3, atol=2e-4)
    ms.set_seed(0)
    net = nn.WithLossCell(nn.Dense(6, 3).to_float(ms.float16),
                          nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"))
    step = _dynamic(net, nn.Momentum(net.trainable_params(), 0.05, 0.9))
    x, y = batches[0]
    report = capture.explain(step)(Tensor(x), Tensor(y))
    assert report.graph_count == 1 and report.graph_break_count == 0, str(report)


def test_tensor_scale_sense_and_set_sense_scale(rng):
    ms.set_seed(4)
    net = nn.WithLossCell(nn.Dense(3, 2), nn.MSELoss())
    step = nn.TrainOneStepWithLossScaleCell(net, nn.SGD(net.trainable_params(), 0.1), Tensor([1024.0]))
    x, y = Tensor(rng.standard_normal((4, 3)).astype(F32)), Tensor(np.zeros((4, 2), F32))
    _, overflow, scale = step(x, y)
    assert not bool(overflow.asnumpy()) and scale.asnumpy().tolist() == [1024.0]
    step.set_sense_scale(Tensor([8.0]))
    assert step(x, y)[2].asnumpy().tolist() == [8.0]
    with pytest.raises(ValueError, match="shape"):
        nn.TrainOneStepWithLossScaleCell(net, nn.SGD(net.trainable_params(), 0.1), Tensor([1.0, 2.0]))
    with pytest.raises(TypeError, match="Cell or a Tensor"):
        nn.TrainOneStepWithLossScaleCell(net, nn.SGD(net.trainable_params(), 0.1), 1024.0)


# -- managers, build_train_network and Model -------------------------------------------------------------
def test_dynamic_loss_scale_manager_host_rule():
    m = amp.DynamicLossScaleManager(init_loss_scale=16.0, scale_factor=2, scale_window=2)
    seen = []
    for overflow in [False, False, True, False, False, True, True, True, True, True]:
        m.update_loss_scale(overflow)
        seen.append(m.get_loss_scale())
    assert seen == [16.0, 32.0, 16.0, 16.0, 32.0, 16.0, 8.0, 4.0, 2.0, 1.0]
    cell = m.get_update_cell()
    assert isinstance(cell, nn.DynamicLossScaleUpdateCell) and cell.get_loss_scale() == 1.0


def test_fixed_manager_without_drop_scales_every_step(rng):
    ms.set_seed(6)
    net = nn.Dense(3, 2)
    opt = nn.SGD(net.trainable_params(), 0.1, loss_scale=64.0)
    train = amp.build_train_network(net, opt, nn.MSELoss(), "O0",
                                    loss_scale_manager=amp.FixedLossScaleManager(64.0, drop_overflow_update=False))
    assert type(train) is nn.TrainOneStepCell
    x, y = rng.standard_normal((4, 3)).astype(F32), rng.standard_normal((4, 2)).astype(F32)
    w0, b0 = net.weight.asnumpy().copy(), net.bias.asnumpy().copy()
    train(Tensor(x), Tensor(y))
    err = x @ w0.T + b0 - y
    gw, gb = 2 * err.T @ x / err.size, 2 * err.sum(0) / err.size
    np.testing.assert_allclose(net.weight.asnumpy(), w0 - 0.1 * gw, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(net.bias.asnumpy(), b0 - 0.1 * gb, rtol=1e-5, atol=1e-6)


def test_build_train_network_levels_and_arguments():
    net = nn.SequentialCell([nn.Dense(3, 4), nn.BatchNorm1d(4)])
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    train = amp.build_train_network(net, opt, nn.MSELoss(), "O2")
    assert isinstance(train, nn.TrainOneStepWithLossScaleCell)
    assert net[0]._mixed_precision_type == ms.float16          # cast in place
    assert net[1]._backbone._mixed_precision_type == ms.float32  # BatchNorm kept in float32
    with pytest.raises(ValueError, match="level"):
        amp.build_train_network(net, opt, level="O9")
    with pytest.raises(ValueError, match="unsupported argument"):
        amp.build_train_network(net, opt, level="O2", loss_scale=3)
    with pytest.raises(TypeError, match="optimizer"):
        amp.build_train_network(net, None)


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_model_with_amp_level_and_loss_scale_manager_trains(mode, rng):
    from runtime.data import NumpySlicesDataset
    x = rng.standard_normal((96, 6)).astype(F32)
    y = (x[:, 0] + x[:, 1] > 0).astype(np.int32)

    def fit():
        ms.set_seed(7)
        net = nn.SequentialCell([nn.Dense(6, 16), nn.ReLU(), nn.Dense(16, 2)])
        model = ms.Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                         nn.Momentum(net.trainable_params(), 0.1, 0.9), metrics={"acc": nn.Accuracy()},
                         amp_level="O2", loss_scale_manager=amp.DynamicLossScaleManager(2.0 ** 20, 2, 5))
        ds = NumpySlicesDataset((x, y), column_names=["x", "y"], shuffle=False).batch(16)
        losses = []

        class Record(ms.Callback):
            def on_train_step_end(self, run_context):
                losses.append(run_context.original_args().net_outputs)

        model.train(6, ds, callbacks=[Record()])
        return model, ds, losses

    if mode == "graph":
        ms.set_context(mode=ms.GRAPH_MODE)
    try:
        model, ds, losses = fit()
        acc = model.eval(ds)["acc"]
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    loss, overflow, scale = losses[0]
    assert bool(overflow.asnumpy()) and float(scale.asnumpy()) == 2.0 ** 20  # float16 overflows at 2**20
    final = [float(o[0].asnumpy()) for o in losses[-6:] if not bool(o[1].asnumpy())]
    assert final and max(final) < 0.5 and acc > 0.85
    with pytest.raises(ValueError, match="unsupported"):
        ms.Model(nn.Dense(2, 2), nn.MSELoss(), nn.SGD(nn.Dense(2, 2).trainable_params()), loss_scale=2)


# -- Lamb ------------------------------------------------------------------------------------------------
def _lamb_numpy(params, grads_seq, lr, b1, b2, eps, wd):
    params = [p.copy() for p in params]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    for t, grads in enumerate(grads_seq, start=1):
        for i, (p, g) in enumerate(zip(params, grads)):
            m[i] = b1 * m[i] + (1 - b1) * g
            v[i] = b2 * v[i] + (1 - b2) * g * g
            r = (m[i] / (1 - b1 ** t)) / (np.sqrt(v[i] / (1 - b2 ** t)) + eps) + wd[i] * p
            wn, rn = np.linalg.norm(p), np.linalg.norm(r)
            ratio = wn / rn if wn > 0 and rn > 0 else 1.0
            params[i] = p - lr * ratio * r
    return params


@pytest.mark.parametrize("mode", ["pynative", "jit"])
def test_lamb_matches_the_formula(mode, rng):
    ms.set_seed(8)
    net = nn.Dense(4, 3)
    net.bias.set_data(Tensor(np.zeros(3, F32)))  # a zero-norm parameter: trust ratio 1
    p0 = [p.asnumpy().copy() for p in net.trainable_params()]
    opt = nn.Lamb(net.trainable_params(), learning_rate=0.01, weight_decay=0.1)
    grads_seq = [[rng.standard_normal(p.shape).astype(F32) for p in p0] for _ in range(4)]
    step = ms.jit(opt) if mode == "jit" else opt
    for grads in grads_seq:
        step(tuple(Tensor(g) for g in grads))
    # the bias passes no decay filter exemption ('bias' has neither beta nor gamma): decayed too
    want = _lamb_numpy(p0, grads_seq, 0.01, 0.9, 0.999, 1e-6, [0.1, 0.1])
    for got, w in zip(net.trainable_params(), want):
        np.testing.assert_allclose(got.asnumpy(), w, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="beta1"):
        nn.Lamb(net.trainable_params(), 0.1, beta1=1.0)
