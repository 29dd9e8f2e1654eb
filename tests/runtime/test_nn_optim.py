"""Optimizers against plain numpy re-implementations of their update rules (5 steps), and
TrainOneStepCell against a manual value_and_grad + numpy update."""
import numpy as np
import pytest

import runtime as ms
from runtime import Parameter, ParameterTuple, Tensor, nn

STEPS = 5


def _params(rng):
    # 'gamma' is excluded from weight decay by MindSpore's default filter (ungrouped params)
    return [Parameter(Tensor(rng.standard_normal((3, 2)).astype(np.float32)), name="w"),
            Parameter(Tensor(rng.standard_normal((2,)).astype(np.float32)), name="gamma"),
            Parameter(Tensor(np.float32(rng.standard_normal())), name="s")]


def _run(opt_cls, rng, **kw):
    params = _params(rng)
    start = [p.asnumpy().astype(np.float64) for p in params]
    grads = [[rng.standard_normal(p.shape) for p in params] for _ in range(STEPS)]
    opt = opt_cls(params, **kw)
    for step in grads:
        assert opt(tuple(Tensor(g.astype(np.float32)) for g in step)) is True
    assert int(opt.global_step.asnumpy()[0]) == STEPS
    return [p.asnumpy() for p in params], start, grads, [p.name for p in params]


def _decay(names, wd):
    return [0.0 if ("beta" in n or "gamma" in n) else wd for n in names]


def _np_sgd(start, grads, names, lr, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False):
    ps = [p.copy() for p in start]
    acc = [np.zeros_like(p) for p in ps]
    wds = _decay(names, weight_decay)
    for t, step in enumerate(grads):
        for i, g in enumerate(step):
            g = g + wds[i] * ps[i]
            if momentum > 0:
                acc[i] = g if t == 0 else momentum * acc[i] + (1 - dampening) * g
                upd = g + momentum * acc[i] if nesterov else acc[i]
            else:
                upd = g
            ps[i] = ps[i] - lr * upd
    return ps


def _np_momentum(start, grads, names, lr, momentum, weight_decay=0.0, use_nesterov=False, loss_scale=1.0):
    ps = [p.copy() for p in start]
    acc = [np.zeros_like(p) for p in ps]
    wds = _decay(names, weight_decay)
    for step in grads:
        for i, g in enumerate(step):
            g = g / loss_scale + wds[i] * ps[i]
            acc[i] = momentum * acc[i] + g
            ps[i] = ps[i] - lr * (g + momentum * acc[i] if use_nesterov else acc[i])
    return ps


def _np_adam(start, grads, names, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8, weight_decay=0.0, use_nesterov=False):
    lr = learning_rate
    ps = [p.copy() for p in start]
    m = [np.zeros_like(p) for p in ps]
    v = [np.zeros_like(p) for p in ps]
    wds = _decay(names, weight_decay)
    for t, step in enumerate(grads, 1):
        lr_t = lr * np.sqrt(1 - beta2 ** t) / (1 - beta1 ** t)
        for i, g in enumerate(step):
            g = g + wds[i] * ps[i]
            m[i] = beta1 * m[i] + (1 - beta1) * g
            v[i] = beta2 * v[i] + (1 - beta2) * g * g
            num = beta1 * m[i] + (1 - beta1) * g if use_nesterov else m[i]
            ps[i] = ps[i] - lr_t * num / (np.sqrt(v[i]) + eps)
    return ps


def _np_adamw(start, grads, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8, weight_decay=1e-2):
    lr = learning_rate
    ps = [p.copy() for p in start]
    m = [np.zeros_like(p) for p in ps]
    v = [np.zeros_like(p) for p in ps]
    for t, step in enumerate(grads, 1):
        for i, g in enumerate(step):
            ps[i] = ps[i] * (1 - lr * weight_decay)
            m[i] = beta1 * m[i] + (1 - beta1) * g
            v[i] = beta2 * v[i] + (1 - beta2) * g * g
            mhat = m[i] / (1 - beta1 ** t)
            vhat = v[i] / (1 - beta2 ** t)
            ps[i] = ps[i] - lr * mhat / (np.sqrt(vhat) + eps)
    return ps


def _np_adam_weight_decay(start, grads, names, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-6, weight_decay=0.0):
    lr = learning_rate
    ps = [p.copy() for p in start]
    m = [np.zeros_like(p) for p in ps]
    v = [np.zeros_like(p) for p in ps]
    wds = _decay(names, weight_decay)
    for step in grads:
        for i, g in enumerate(step):
            m[i] = beta1 * m[i] + (1 - beta1) * g
            v[i] = beta2 * v[i] + (1 - beta2) * g * g
            ps[i] = ps[i] - lr * (m[i] / (np.sqrt(v[i]) + eps) + wds[i] * ps[i])
    return ps


def _close(got, want, rtol=1e-5, atol=1e-6):
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)


@pytest.mark.parametrize("kw", [
    dict(learning_rate=0.1),
    dict(learning_rate=0.05, momentum=0.9),
    dict(learning_rate=0.05, momentum=0.9, dampening=0.3),
    dict(learning_rate=0.05, momentum=0.8, nesterov=True, weight_decay=0.1),
])
def test_sgd_matches_numpy(kw, rng):
    got, start, grads, names = _run(nn.SGD, rng, **kw)
    args = dict(kw)
    _close(got, _np_sgd(start, grads, names, args.pop("learning_rate"), **args))


@pytest.mark.parametrize("kw", [
    dict(learning_rate=0.1, momentum=0.9),
    dict(learning_rate=0.1, momentum=0.9, use_nesterov=True),
    dict(learning_rate=0.05, momentum=0.5, weight_decay=0.2),
    dict(learning_rate=0.05, momentum=0.5, weight_decay=0.2, loss_scale=128.0),
])
def test_momentum_matches_numpy(kw, rng):
    got, start, grads, names = _run(nn.Momentum, rng, **kw)
    args = dict(kw)
    _close(got, _np_momentum(start, grads, names, args.pop("learning_rate"), args.pop("momentum"), **args))


@pytest.mark.parametrize("kw", [
    dict(),
    dict(learning_rate=0.01, beta1=0.8, beta2=0.99, eps=1e-6),
    dict(learning_rate=0.01, use_nesterov=True),
    dict(learning_rate=0.01, weight_decay=0.1),
])
def test_adam_matches_numpy(kw, rng):
    got, start, grads, names = _run(nn.Adam, rng, **kw)
    _close(got, _np_adam(start, grads, names, **kw))


@pytest.mark.parametrize("kw", [dict(), dict(learning_rate=0.01, weight_decay=0.3, beta1=0.5)])
def test_adamw_matches_numpy(kw, rng):
    got, start, grads, _ = _run(nn.AdamW, rng, **kw)
    _close(got, _np_adamw(start, grads, **kw))


def test_adam_weight_decay_matches_numpy(rng):
    kw = dict(learning_rate=0.01, weight_decay=0.1)
    got, start, grads, names = _run(nn.AdamWeightDecay, rng, **kw)
    _close(got, _np_adam_weight_decay(start, grads, names, **kw))


def test_optimizer_state_is_parameters(rng):
    params = _params(rng)
    opt = nn.Adam(params, learning_rate=Tensor(np.float32(0.01)))
    assert isinstance(opt.parameters, ParameterTuple) and list(opt.parameters) == params
    assert isinstance(opt.learning_rate, Parameter) and opt.learning_rate.shape == ()
    assert opt.get_lr().asnumpy() == pytest.approx(0.01)
    assert [p.name for p in opt.moment1] == ["moment1.w", "moment1.gamma", "moment1.s"]
    names = list(opt.parameters_dict())
    assert {"learning_rate", "global_step", "beta1_power", "moment2.s"} <= set(names)
    assert opt.trainable_params() == []  # optimizer state is not trainable
    mom = nn.Momentum(params, 0.1, 0.9)
    assert [p.name for p in mom.moments] == ["moments.w", "moments.gamma", "moments.s"]
    # changing the learning-rate Parameter changes the next update (no rebuild needed)
    sgd = nn.SGD(params[:1], learning_rate=0.0)
    before = params[0].asnumpy().copy()
    sgd((Tensor(np.ones((3, 2), np.float32)),))
    np.testing.assert_array_equal(params[0].asnumpy(), before)
    sgd.learning_rate.set_data(Tensor(np.float32(0.5)))
    sgd((Tensor(np.ones((3, 2), np.float32)),))
    np.testing.assert_allclose(params[0].asnumpy(), before - 0.5)


def test_group_params_and_dynamic_lr(rng):
    a = Parameter(Tensor(np.ones(2, np.float32)), name="a")
    b = Parameter(Tensor(np.ones(2, np.float32)), name="b")
    opt = nn.SGD([{"params": [a], "lr": 0.5, "weight_decay": 0.1}, {"params": [b]}], learning_rate=0.1)
    g = Tensor(np.ones(2, np.float32))
    opt((g, g))
    np.testing.assert_allclose(a.asnumpy(), 1 - 0.5 * (1 + 0.1 * 1), rtol=1e-6)
    np.testing.assert_allclose(b.asnumpy(), 1 - 0.1, rtol=1e-6)
    # a per-step learning-rate list: lr[step], the last one repeated
    c = Parameter(Tensor(np.zeros(1, np.float32)), name="c")
    opt = nn.SGD([c], learning_rate=[0.1, 0.2, 0.3])
    for _ in range(5):
        opt((Tensor(np.ones(1, np.float32)),))
    np.testing.assert_allclose(c.asnumpy(), [-(0.1 + 0.2 + 0.3 * 3)], rtol=1e-6)


def test_optimizer_bad_input(rng):
    with pytest.raises(TypeError, match="Parameter"):
        nn.SGD([Tensor(np.ones(2, np.float32))])
    with pytest.raises(TypeError, match="Parameter"):
        nn.Adam([np.ones(2)])
    with pytest.raises(ValueError, match="empty"):
        nn.Momentum([], 0.1, 0.9)
    params = _params(rng)
    with pytest.raises(ValueError, match="learning_rate"):
        nn.SGD(params, learning_rate=-1.0)
    with pytest.raises(ValueError, match="beta1"):
        nn.Adam(params, beta1=1.0)
    with pytest.raises(ValueError, match="nesterov"):
        nn.SGD(params, nesterov=True)
    with pytest.raises(ValueError, match="gradients"):
        nn.SGD(params)((Tensor(np.ones((3, 2), np.float32)),))


# -- TrainOneStepCell ------------------------------------------------------------------------------------
def _mlp():
    return nn.SequentialCell([nn.Dense(4, 8), nn.Tanh(), nn.Dense(8, 3)])


def test_train_one_step_matches_manual_update_and_decreases_loss(rng):
    x = Tensor(rng.standard_normal((16, 4)).astype(np.float32))
    y = Tensor(rng.integers(0, 3, 16).astype(np.int32))
    ms.set_seed(7)
    net = _mlp()
    ms.set_seed(7)
    ref = _mlp()
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    train = nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn), nn.Momentum(net.trainable_params(), 0.1, 0.9))
    train.set_train()
    ref_loss = nn.WithLossCell(ref, loss_fn)
    weights = ref.trainable_params()
    acc = [np.zeros(p.shape) for p in weights]
    losses = []
    for _ in range(4):
        loss = train(x, y)
        want_loss, grads = ms.value_and_grad(ref_loss, None, weights)(x, y)
        for i, (p, g) in enumerate(zip(weights, grads)):
            acc[i] = 0.9 * acc[i] + g.asnumpy()
            p.set_data(Tensor((p.asnumpy() - 0.1 * acc[i]).astype(np.float32)))
        np.testing.assert_allclose(loss.asnumpy(), want_loss.asnumpy(), rtol=1e-5)
        losses.append(float(loss.asnumpy()))
    for p, q in zip(net.trainable_params(), weights):
        np.testing.assert_allclose(p.asnumpy(), q.asnumpy(), rtol=1e-5, atol=1e-6)
    for _ in range(30):
        losses.append(float(train(x, y).asnumpy()))
    assert losses[-1] < 0.5 * losses[0]
    # parameter names are not prefixed by the wrappers (auto_prefix=False)
    assert [p.name for p in train.trainable_params()] == ["0.weight", "0.bias", "2.weight", "2.bias"]


def test_train_one_step_sens_scales_gradients(rng):
    x = Tensor(rng.standard_normal((4, 2)).astype(np.float32))
    y = Tensor(rng.standard_normal((4, 1)).astype(np.float32))
    nets = []
    for sens in (1.0, 4.0):
        ms.set_seed(1)
        net = nn.Dense(2, 1)
        nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), 0.01), sens=sens)(x, y)
        nets.append(net)
    ms.set_seed(1)
    w0 = nn.Dense(2, 1).weight.asnumpy()
    np.testing.assert_allclose(nets[1].weight.asnumpy() - w0, 4 * (nets[0].weight.asnumpy() - w0), rtol=1e-4)
    with pytest.raises(TypeError, match="optimizer"):
        nn.TrainOneStepCell(nn.WithLossCell(nets[0], nn.MSELoss()), object())


def _np_rmsprop(start, grads, names, learning_rate=0.1, decay=0.9, momentum=0.0, epsilon=1e-10, centered=False,
                weight_decay=0.0, loss_scale=1.0):
    ps = [p.copy() for p in start]
    ms_ = [np.ones_like(p) for p in ps]
    mg = [np.zeros_like(p) for p in ps]
    mom = [np.zeros_like(p) for p in ps]
    wds = _decay(names, weight_decay)
    for step in grads:
        for i, g in enumerate(step):
            g = g / loss_scale + wds[i] * ps[i]
            ms_[i] = decay * ms_[i] + (1 - decay) * g * g
            denom = ms_[i]
            if centered:
                mg[i] = decay * mg[i] + (1 - decay) * g
                denom = ms_[i] - mg[i] ** 2
            mom[i] = momentum * mom[i] + learning_rate * g / np.sqrt(denom + epsilon)
            ps[i] = ps[i] - mom[i]
    return ps


def _np_adagrad(start, grads, names, accum=0.1, learning_rate=0.001, update_slots=True, weight_decay=0.0):
    ps = [p.copy() for p in start]
    acc = [np.full_like(p, accum) for p in ps]
    wds = _decay(names, weight_decay)
    for step in grads:
        for i, g in enumerate(step):
            g = g + wds[i] * ps[i]
            if update_slots:
                acc[i] = acc[i] + g * g
            ps[i] = ps[i] - learning_rate * g / np.sqrt(acc[i])
    return ps


@pytest.mark.parametrize("kw", [
    dict(),
    dict(learning_rate=0.01, decay=0.8, momentum=0.9, epsilon=1e-6),
    dict(learning_rate=0.01, momentum=0.5, centered=True, weight_decay=0.1),
    dict(learning_rate=0.02, loss_scale=64.0),
])
def test_rmsprop_matches_numpy(kw, rng):
    got, start, grads, names = _run(nn.RMSProp, rng, **kw)
    _close(got, _np_rmsprop(start, grads, names, **kw), rtol=2e-5)


@pytest.mark.parametrize("kw", [dict(), dict(accum=0.5, learning_rate=0.1, weight_decay=0.2),
                                dict(learning_rate=0.1, update_slots=False)])
def test_adagrad_matches_numpy(kw, rng):
    got, start, grads, names = _run(nn.Adagrad, rng, **kw)
    _close(got, _np_adagrad(start, grads, names, **kw))


def test_rmsprop_and_adagrad_in_a_jitted_train_step_equal_pynative():
    for make in (lambda ps: nn.RMSProp(ps, 0.01, momentum=0.9, centered=True), lambda ps: nn.Adagrad(ps, 0.1, 0.05)):
        results = []
        for jit in (False, True):
            ms.set_seed(3)
            net = nn.Dense(4, 3)
            opt = make(net.trainable_params())
            grad_fn = ms.value_and_grad(lambda x: (net(x) ** 2).sum(), None, opt.parameters)

            def step(x):
                loss, grads = grad_fn(x)
                opt(grads)
                return loss
            run = ms.jit(step) if jit else step
            x = Tensor(np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4))
            losses = [float(run(x).asnumpy()) for _ in range(5)]
            results.append((losses, net.weight.asnumpy().copy()))
        np.testing.assert_allclose(results[1][0], results[0][0], rtol=1e-5)
        np.testing.assert_allclose(results[1][1], results[0][1], rtol=1e-5, atol=1e-7)
