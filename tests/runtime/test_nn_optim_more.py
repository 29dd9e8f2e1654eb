"""nn.AdaMax, Adadelta, Rprop, ASGD, FTRL, ProximalAdagrad, LazyAdam and LARS against plain numpy
re-implementations of MindSpore's documented update rules (several steps, with weight decay,
loss scale and group learning rates where the optimizer takes them), their argument checks, and a
small training run (AdaFactor too) whose losses decrease and agree in PyNative, jit, GRAPH_MODE and under the frame hook."""
import numpy as np
import pytest

import runtime as ms
from runtime import Parameter, Tensor, nn
from tests.modes import HOOK_MODES, run_cell

STEPS = 6


def _params(rng):
    # 'gamma' is left out of weight decay by MindSpore's default filter (ungrouped params)
    return [Parameter(Tensor(rng.standard_normal((3, 2)).astype(np.float32)), name="w"),
            Parameter(Tensor(rng.standard_normal((2,)).astype(np.float32)), name="gamma"),
            Parameter(Tensor(np.float32(rng.standard_normal())), name="s")]


def _run(make, rng, steps=STEPS):
    """(final params, start params, gradients, names) after ``steps`` updates of ``make(params)``."""
    params = _params(rng)
    start = [p.asnumpy().astype(np.float64) for p in params]
    grads = [[rng.standard_normal(p.shape) for p in params] for _ in range(steps)]
    opt = make(params)
    for step in grads:
        assert opt(tuple(Tensor(np.asarray(g, np.float32)) for g in step)) is True
    return [p.asnumpy() for p in params], start, grads, [p.name for p in params]


def _close(got, want, rtol=1e-4, atol=1e-6):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)


def _decayed(g, p, wd, loss_scale=1.0):
    """MindSpore's gradient preparation: g / loss_scale + weight_decay * param."""
    return g / loss_scale + wd * p


def _wds(names, wd):
    return [0.0 if ("beta" in n or "gamma" in n) else wd for n in names]


def _groups(params):
    """Two groups: w with its own lr and weight decay; gamma and s with the defaults."""
    return [{"params": [params[0]], "lr": 0.05, "weight_decay": 0.1}, {"params": params[1:]}]


GROUP_LRS = [0.05, None, None]
GROUP_WDS = [0.1, 0.0, 0.0]


# -- numpy oracles ------------------------------------------------------------------------------------
def np_adamax(start, grads, lrs, wds, beta1=0.9, beta2=0.999, eps=1e-8, loss_scale=1.0):
    ps = [p.copy() for p in start]
    m = [np.zeros_like(p) for p in ps]
    v = [np.zeros_like(p) for p in ps]
    for t, step in enumerate(grads, 1):
        for i, g in enumerate(step):
            g = _decayed(g, ps[i], wds[i], loss_scale)
            m[i] = beta1 * m[i] + (1 - beta1) * g
            v[i] = np.maximum(beta2 * v[i], np.abs(g))
            ps[i] = ps[i] - lrs[i] / (1 - beta1 ** t) * m[i] / (v[i] + eps)
    return ps


def np_adadelta(start, grads, lrs, wds, rho=0.9, epsilon=1e-6, loss_scale=1.0):
    ps = [p.copy() for p in start]
    acc = [np.zeros_like(p) for p in ps]
    acc_up = [np.zeros_like(p) for p in ps]
    for step in grads:
        for i, g in enumerate(step):
            g = _decayed(g, ps[i], wds[i], loss_scale)
            acc[i] = rho * acc[i] + (1 - rho) * g * g
            update = np.sqrt(acc_up[i] + epsilon) * g / np.sqrt(acc[i] + epsilon)
            acc_up[i] = rho * acc_up[i] + (1 - rho) * update * update
            ps[i] = ps[i] - lrs[i] * update
    return ps


def np_rprop(start, grads, lrs, wds, etas=(0.5, 1.2), step_sizes=(1e-6, 50.0)):
    ps = [p.copy() for p in start]
    prev = [np.zeros_like(p) for p in ps]
    size = [np.zeros_like(p) for p in ps]
    for t, step in enumerate(grads, 1):
        for i, g in enumerate(step):
            g = _decayed(g, ps[i], wds[i])
            s = np.full_like(size[i], lrs[i]) if t == 1 else size[i]
            sign = np.sign(g * prev[i])
            factor = np.where(sign > 0, etas[1], np.where(sign < 0, etas[0], 1.0))
            s = np.clip(s * factor, step_sizes[0], step_sizes[1])
            g = np.where(sign < 0, 0.0, g)
            ps[i] = ps[i] - np.sign(g) * s
            prev[i], size[i] = g, s
    return ps


def np_asgd(start, grads, lrs, wds, lambd=1e-4, alpha=0.75, t0=1e6):
    ps = [p.copy() for p in start]
    ax = [np.zeros_like(p) for p in ps]
    eta = [0.0] * len(ps)
    mu = [1.0] * len(ps)
    for t, step in enumerate(grads, 1):
        for i, g in enumerate(step):
            g = _decayed(g, ps[i], wds[i])
            if t == 1:
                eta[i] = lrs[i]
            ps[i] = ps[i] * (1 - lambd * eta[i]) - eta[i] * g
            ax[i] = ps[i].copy() if mu[i] == 1 else ax[i] + (ps[i] - ax[i]) * mu[i]
            eta[i] = lrs[i] / (1 + lambd * lrs[i] * t) ** alpha
            mu[i] = 1 / max(1.0, t - t0)
    return ps, ax


def np_ftrl(start, grads, lr, wd, initial_accum=0.1, lr_power=-0.5, l1=0.0, l2=0.0, loss_scale=1.0):
    ps = [p.copy() for p in start]
    accum = [np.full_like(p, initial_accum) for p in ps]
    linear = [np.zeros_like(p) for p in ps]
    for step in grads:
        for i, g in enumerate(step):
            g = _decayed(g, ps[i], wd, loss_scale)  # every parameter is decayed (no name filter)
            new = accum[i] + g * g
            linear[i] = linear[i] + g - (new ** -lr_power - accum[i] ** -lr_power) / lr * ps[i]
            quadratic = new ** -lr_power / lr + 2 * l2
            ps[i] = np.where(np.abs(linear[i]) > l1, (np.sign(linear[i]) * l1 - linear[i]) / quadratic, 0.0)
            accum[i] = new
    return ps


def np_proximal_adagrad(start, grads, lrs, wds, accum=0.1, l1=0.0, l2=0.0, loss_scale=1.0):
    ps = [p.copy() for p in start]
    acc = [np.full_like(p, accum) for p in ps]
    for step in grads:
        for i, g in enumerate(step):
            g = _decayed(g, ps[i], wds[i], loss_scale)
            acc[i] = acc[i] + g * g
            prox = ps[i] - lrs[i] * g / np.sqrt(acc[i])
            ps[i] = np.sign(prox) / (1 + lrs[i] * l2) * np.maximum(np.abs(prox) - lrs[i] * l1, 0.0)
    return ps


def np_adam(start, grads, lrs, wds, beta1=0.9, beta2=0.999, eps=1e-8, use_nesterov=False, loss_scale=1.0):
    ps = [p.copy() for p in start]
    m = [np.zeros_like(p) for p in ps]
    v = [np.zeros_like(p) for p in ps]
    for t, step in enumerate(grads, 1):
        for i, g in enumerate(step):
            g = _decayed(g, ps[i], wds[i], loss_scale)
            m[i] = beta1 * m[i] + (1 - beta1) * g
            v[i] = beta2 * v[i] + (1 - beta2) * g * g
            lr_t = lrs[i] * np.sqrt(1 - beta2 ** t) / (1 - beta1 ** t)
            num = beta1 * m[i] + (1 - beta1) * g if use_nesterov else m[i]
            ps[i] = ps[i] - lr_t * num / (np.sqrt(v[i]) + eps)
    return ps


def np_lars_momentum(start, grads, names, lr, momentum, wd, loss_scale, epsilon, coefficient, use_clip, use):
    ps = [p.copy() for p in start]
    acc = [np.zeros_like(p) for p in ps]
    wds = _wds(names, wd)
    for step in grads:
        for i, g in enumerate(step):
            g = g / loss_scale
            if use[i]:
                w_norm, g_norm = np.linalg.norm(ps[i]), np.linalg.norm(g)
                ratio = 1.0
                if w_norm > 0 and g_norm > 0:
                    ratio = coefficient * w_norm / (g_norm + wds[i] * w_norm + epsilon)
                if use_clip:
                    ratio = min(ratio / lr, 1.0)
                g = ratio * (g + wds[i] * ps[i])
            acc[i] = momentum * acc[i] + g
            ps[i] = ps[i] - lr * acc[i]
    return ps


def _lrs(lr, group=False):
    return [GROUP_LRS[0], lr, lr] if group else [lr] * 3


# -- update rules ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("kw", [dict(), dict(learning_rate=0.01, beta1=0.8, beta2=0.99, eps=1e-6, weight_decay=0.2),
                                dict(learning_rate=0.02, loss_scale=128.0)])
def test_adamax_matches_numpy(kw, rng):
    got, start, grads, names = _run(lambda ps: nn.AdaMax(ps, **kw), rng)
    lr = kw.get("learning_rate", 0.001)
    rest = {k: v for k, v in kw.items() if k not in ("learning_rate", "weight_decay")}
    _close(got, np_adamax(start, grads, _lrs(lr), _wds(names, kw.get("weight_decay", 0.0)), **rest))


def test_adamax_group_learning_rates_and_decay(rng):
    got, start, grads, _ = _run(lambda ps: nn.AdaMax(_groups(ps), learning_rate=0.01), rng)
    _close(got, np_adamax(start, grads, _lrs(0.01, True), GROUP_WDS))


@pytest.mark.parametrize("kw", [dict(), dict(learning_rate=0.5, rho=0.8, epsilon=1e-4, weight_decay=0.3),
                                dict(rho=0.95, loss_scale=32.0)])
def test_adadelta_matches_numpy(kw, rng):
    got, start, grads, names = _run(lambda ps: nn.Adadelta(ps, **kw), rng)
    lr = kw.get("learning_rate", 1.0)
    rest = {k: v for k, v in kw.items() if k not in ("learning_rate", "weight_decay")}
    _close(got, np_adadelta(start, grads, _lrs(lr), _wds(names, kw.get("weight_decay", 0.0)), **rest))


def test_adadelta_group_learning_rates(rng):
    got, start, grads, _ = _run(lambda ps: nn.Adadelta(_groups(ps), learning_rate=0.3), rng)
    _close(got, np_adadelta(start, grads, _lrs(0.3, True), GROUP_WDS))


@pytest.mark.parametrize("kw", [dict(), dict(learning_rate=0.05, etas=(0.3, 1.5), step_sizes=(1e-3, 0.2)),
                                dict(learning_rate=0.02, weight_decay=0.5)])
def test_rprop_matches_numpy(kw, rng):
    got, start, grads, names = _run(lambda ps: nn.Rprop(ps, **kw), rng, steps=8)
    lr = kw.get("learning_rate", 0.1)
    rest = {k: v for k, v in kw.items() if k not in ("learning_rate", "weight_decay")}
    _close(got, np_rprop(start, grads, _lrs(lr), _wds(names, kw.get("weight_decay", 0.0)), **rest))


def test_rprop_group_learning_rates(rng):
    got, start, grads, _ = _run(lambda ps: nn.Rprop(_groups(ps), learning_rate=0.03), rng)
    _close(got, np_rprop(start, grads, _lrs(0.03, True), GROUP_WDS))


@pytest.mark.parametrize("kw", [dict(), dict(learning_rate=0.05, lambd=0.01, alpha=0.5, t0=2.0, weight_decay=0.1)])
def test_asgd_matches_numpy_including_the_average(kw, rng):
    holder = {}

    def make(ps):
        holder["opt"] = nn.ASGD(ps, **kw)
        return holder["opt"]
    got, start, grads, names = _run(make, rng)
    lr = kw.get("learning_rate", 0.1)
    rest = {k: v for k, v in kw.items() if k not in ("learning_rate", "weight_decay")}
    want, want_ax = np_asgd(start, grads, _lrs(lr), _wds(names, kw.get("weight_decay", 0.0)), **rest)
    _close(got, want)
    _close([a.asnumpy() for a in holder["opt"].ax], want_ax)


def test_asgd_group_learning_rates(rng):
    got, start, grads, _ = _run(lambda ps: nn.ASGD(_groups(ps), learning_rate=0.2, t0=3.0), rng)
    _close(got, np_asgd(start, grads, _lrs(0.2, True), GROUP_WDS, t0=3.0)[0])


@pytest.mark.parametrize("kw", [dict(), dict(learning_rate=0.1, l1=0.01, l2=0.05, lr_power=-0.3, initial_accum=0.5),
                                dict(learning_rate=0.05, weight_decay=0.2, loss_scale=16.0),
                                dict(learning_rate=0.1, lr_power=0.0, l1=0.001)])
def test_ftrl_matches_numpy(kw, rng):
    got, start, grads, _ = _run(lambda ps: nn.FTRL(ps, **kw), rng)
    lr = kw.get("learning_rate", 0.001)
    rest = {k: v for k, v in kw.items() if k not in ("learning_rate", "weight_decay")}
    _close(got, np_ftrl(start, grads, lr, kw.get("weight_decay", 0.0), **rest), rtol=2e-4, atol=1e-5)


@pytest.mark.parametrize("kw", [dict(), dict(learning_rate=0.1, accum=0.5, l1=0.02, l2=0.1, weight_decay=0.1),
                                dict(learning_rate=0.05, loss_scale=8.0)])
def test_proximal_adagrad_matches_numpy(kw, rng):
    got, start, grads, names = _run(lambda ps: nn.ProximalAdagrad(ps, **kw), rng)
    lr = kw.get("learning_rate", 0.001)
    rest = {k: v for k, v in kw.items() if k not in ("learning_rate", "weight_decay")}
    _close(got, np_proximal_adagrad(start, grads, _lrs(lr), _wds(names, kw.get("weight_decay", 0.0)), **rest))


def test_proximal_adagrad_group_learning_rates(rng):
    got, start, grads, _ = _run(lambda ps: nn.ProximalAdagrad(_groups(ps), learning_rate=0.2, l1=0.01), rng)
    _close(got, np_proximal_adagrad(start, grads, _lrs(0.2, True), GROUP_WDS, l1=0.01))


@pytest.mark.parametrize("kw", [dict(), dict(learning_rate=0.01, use_nesterov=True, weight_decay=0.1),
                                dict(learning_rate=0.02, loss_scale=64.0)])
def test_lazy_adam_is_adam_on_dense_gradients(kw, rng):
    got, start, grads, names = _run(lambda ps: nn.LazyAdam(ps, **kw), rng)
    lr = kw.get("learning_rate", 1e-3)
    rest = {k: v for k, v in kw.items() if k not in ("learning_rate", "weight_decay")}
    _close(got, np_adam(start, grads, _lrs(lr), _wds(names, kw.get("weight_decay", 0.0)), **rest))


@pytest.mark.parametrize("use_clip", [False, True])
def test_lars_over_momentum_matches_numpy(use_clip, rng):
    def make(ps):
        inner = nn.Momentum(ps, 0.1, 0.9, weight_decay=0.05, loss_scale=4.0)
        return nn.LARS(inner, epsilon=1e-6, coefficient=0.02, use_clip=use_clip,
                       lars_filter=lambda p: p.name != "s")
    got, start, grads, names = _run(make, rng)
    _close(got, np_lars_momentum(start, grads, names, 0.1, 0.9, 0.05, 4.0, 1e-6, 0.02, use_clip,
                                 [True, True, False]))


def test_lars_default_filter_and_state():
    net = nn.Dense(3, 2)
    inner = nn.Momentum(net.trainable_params(), 0.1, 0.9, weight_decay=0.01)
    lars = nn.LARS(inner)
    assert lars.lars_flag == (True, False)  # 'bias' is left out by default
    assert lars.parameters is inner.parameters and lars.global_step is inner.global_step
    assert inner.exec_weight_decay is False and inner.weight_decay == 0.0
    assert isinstance(lars, nn.Optimizer)


# -- state and argument checks ------------------------------------------------------------------------
def test_state_names_and_initial_values(rng):
    ps = _params(rng)
    assert [p.name for p in nn.AdaMax(ps).moment2] == ["moment2.w", "moment2.gamma", "moment2.s"]
    assert float(nn.AdaMax(ps).beta1_power.asnumpy()) == 1.0
    assert [p.name for p in nn.Adadelta(ps).accum_update] == ["accum_update.w", "accum_update.gamma",
                                                              "accum_update.s"]
    ftrl = nn.FTRL(ps, initial_accum=0.25)
    assert all(np.all(m.asnumpy() == 0.25) for m in ftrl.moments)
    assert all(np.all(a.asnumpy() == 0.3) for a in nn.ProximalAdagrad(ps, accum=0.3).accum)
    asgd = nn.ASGD(ps)
    assert [p.name for p in asgd.mu] == ["mu_w", "mu_gamma", "mu_s"]
    assert [float(e.asnumpy()) for e in asgd.eta] == [0.0, 0.0, 0.0]
    assert [p.name for p in nn.Rprop(ps).step_size] == ["step_size.w", "step_size.gamma", "step_size.s"]
    assert nn.AdaMax(ps, learning_rate=0.5).init_args["learning_rate"] == 0.5


@pytest.mark.parametrize("make, exc", [
    (lambda ps: nn.AdaMax(ps, beta1=1), TypeError),
    (lambda ps: nn.AdaMax(ps, beta2=1.0), ValueError),
    (lambda ps: nn.AdaMax(ps, eps=0.0), ValueError),
    (lambda ps: nn.Adadelta(ps, rho=1.5), ValueError),
    (lambda ps: nn.Adadelta(ps, epsilon=-1.0), ValueError),
    (lambda ps: nn.Rprop(ps, etas=[0.5, 1.2]), TypeError),
    (lambda ps: nn.Rprop(ps, etas=(0.5, 1.2, 2.0)), ValueError),
    (lambda ps: nn.Rprop(ps, etas=(0.5, 1.0)), ValueError),
    (lambda ps: nn.Rprop(ps, etas=(1.5, 1.2)), ValueError),
    (lambda ps: nn.Rprop(ps, step_sizes=(1.0, 0.1)), ValueError),
    (lambda ps: nn.ASGD(ps, t0=10), TypeError),
    (lambda ps: nn.FTRL(ps, learning_rate=1), TypeError),
    (lambda ps: nn.FTRL(ps, lr_power=0.5), ValueError),
    (lambda ps: nn.FTRL(ps, l1=-0.1), ValueError),
    (lambda ps: nn.FTRL(ps, learning_rate=[0.1, 0.01]), ValueError),
    (lambda ps: nn.FTRL([{"params": ps[:1], "lr": 0.1}, {"params": ps[1:]}]), ValueError),
    (lambda ps: nn.ProximalAdagrad(ps, accum=-0.1), ValueError),
    (lambda ps: nn.ProximalAdagrad(ps, use_locking=1), TypeError),
    (lambda ps: nn.LazyAdam(ps, weight_decay=0), TypeError),
    (lambda ps: nn.LARS(ps), TypeError),
    (lambda ps: nn.LARS(nn.Momentum(ps, 0.1, 0.9), coefficient=1), TypeError),
])
def test_bad_arguments_raise(make, exc, rng):
    with pytest.raises(exc):
        make(_params(rng))


def test_wrong_number_of_gradients_raises(rng):
    ps = _params(rng)
    opt = nn.AdaMax(ps)
    with pytest.raises(ValueError):
        opt((Tensor(np.zeros((3, 2), np.float32)),))


# -- training in every mode ------------------------------------------------------------------------------
OPTIMIZERS = {
    "AdaMax": lambda ps: nn.AdaMax(ps, learning_rate=0.05),
    "Adadelta": lambda ps: nn.Adadelta(ps, learning_rate=1.0, rho=0.5),
    "Rprop": lambda ps: nn.Rprop(ps, learning_rate=0.01),
    "ASGD": lambda ps: nn.ASGD(ps, learning_rate=0.05),
    "FTRL": lambda ps: nn.FTRL(ps, learning_rate=0.05),
    "ProximalAdagrad": lambda ps: nn.ProximalAdagrad(ps, learning_rate=0.05),
    "LazyAdam": lambda ps: nn.LazyAdam(ps, learning_rate=0.05),
    "LARS": lambda ps: nn.LARS(nn.Momentum(ps, 0.05, 0.9, weight_decay=1e-3), coefficient=0.5),
    "AdaFactor": lambda ps: nn.AdaFactor(ps, learning_rate=0.05, relative_step=False, scale_parameter=False),
}


def _train(mode, make, steps=6):
    ms.set_seed(5)
    net = nn.Dense(4, 1)
    train = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), make(net.trainable_params()))
    rng = np.random.default_rng(0)
    x = Tensor(rng.standard_normal((16, 4)).astype(np.float32))
    y = Tensor((rng.standard_normal((16, 1)) * 0.1 + 1.0).astype(np.float32))
    return [float(run_cell(mode, train, x, y).asnumpy()) for _ in range(steps)], net.weight.asnumpy().copy()


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_training_loss_decreases_and_modes_agree(name):
    runs = {mode: _train(mode, OPTIMIZERS[name]) for mode in HOOK_MODES}
    losses, weight = runs["pynative"]
    assert all(b < a for a, b in zip(losses, losses[1:])), (name, losses)
    for mode in HOOK_MODES[1:]:
        np.testing.assert_allclose(runs[mode][0], losses, rtol=1e-5, err_msg=f"{name} {mode}")
        np.testing.assert_allclose(runs[mode][1], weight, rtol=1e-5, atol=1e-7, err_msg=f"{name} {mode}")


# -- AdaFactor --------------------------------------------------------------------------------------------
def np_adafactor(start, grads, lr=None, eps=(1e-30, 1e-3), clip_threshold=1.0, decay_rate=0.8, beta1=0.9,
                 weight_decay=0.0, scale_parameter=True, relative_step=True, warmup_init=False):
    ps = [p.copy() for p in start]
    m = [np.zeros_like(p) for p in ps]
    row = [np.zeros(p.shape[:-1]) if p.ndim > 1 else None for p in ps]
    col = [np.zeros(p.shape[:-2] + p.shape[-1:]) if p.ndim > 1 else None for p in ps]
    v = [np.zeros_like(p) for p in ps]
    rms = lambda a: np.sqrt(np.mean(np.square(a)))
    for t, step in enumerate(grads, 1):
        rate = min(1e-6 * t if warmup_init else 1e-2, 1 / np.sqrt(t)) if relative_step else lr
        beta2t = 1 - t ** -decay_rate
        for i, g in enumerate(step):
            lr_p = rate * max(eps[1], rms(ps[i])) if scale_parameter else rate
            sq = g * g + eps[0]
            if ps[i].ndim > 1:
                row[i] = beta2t * row[i] + (1 - beta2t) * sq.mean(-1)
                col[i] = beta2t * col[i] + (1 - beta2t) * sq.mean(-2)
                v_hat = row[i][..., None] * col[i][..., None, :] / row[i].mean(-1, keepdims=True)[..., None]
                u = g / np.sqrt(v_hat)
            else:
                v[i] = beta2t * v[i] + (1 - beta2t) * sq
                u = g / np.sqrt(v[i])
            u = u / max(1.0, rms(u) / clip_threshold) * lr_p
            if beta1:
                m[i] = beta1 * m[i] + (1 - beta1) * u
                u = m[i]
            ps[i] = ps[i] - weight_decay * lr_p * ps[i] - u
    return ps


@pytest.mark.parametrize("kw", [
    dict(),
    dict(warmup_init=True, beta1=None),
    dict(learning_rate=0.05, relative_step=False, scale_parameter=False, weight_decay=0.1, clip_threshold=0.5),
    dict(learning_rate=0.02, relative_step=False, decay_rate=0.6, eps=(1e-20, 1e-2), beta1=0.5),
])
def test_adafactor_matches_numpy(kw, rng):
    got, start, grads, _ = _run(lambda ps: nn.AdaFactor(ps, **kw), rng)
    want_kw = dict(kw)
    want_kw["lr"] = want_kw.pop("learning_rate", None)
    if want_kw.get("beta1", 0.9) is None:
        want_kw["beta1"] = 0.0
    _close(got, np_adafactor(start, grads, **want_kw), rtol=2e-4, atol=1e-6)


def test_adafactor_state_and_checks(rng):
    ps = _params(rng)
    opt = nn.AdaFactor(ps)
    assert [p.shape for p in opt.exp_avg_sq_row] == [(3,), (1,), (1,)]
    assert [p.shape for p in opt.exp_avg_sq_col] == [(2,), (1,), (1,)]
    assert [p.name for p in opt.exp_avg_sq] == ["exp_avg_sq_w", "exp_avg_sq_gamma", "exp_avg_sq_s"]
    for kw in (dict(learning_rate=0.1), dict(relative_step=False), dict(warmup_init=True, relative_step=False,
                                                                        learning_rate=0.1),
               dict(decay_rate=1.0), dict(weight_decay=1.0), dict(eps=(1e-30,))):
        with pytest.raises(ValueError):
            nn.AdaFactor(_params(rng), **kw)
    with pytest.raises(TypeError):
        nn.AdaFactor(_params(rng), clip_threshold=1)


def test_adafactor_scales_zero_parameters_by_eps2(rng):
    p = Parameter(Tensor(np.zeros((3, 4), np.float32)), name="zero")
    grads = [[rng.standard_normal((3, 4))] for _ in range(3)]
    opt = nn.AdaFactor([p], eps=(1e-30, 0.05))
    for step in grads:
        opt((Tensor(step[0].astype(np.float32)),))
    _close([p.asnumpy()], np_adafactor([np.zeros((3, 4))], grads, eps=(1e-30, 0.05)), rtol=2e-4, atol=1e-7)
