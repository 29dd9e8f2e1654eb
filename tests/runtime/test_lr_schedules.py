"""Learning-rate lists (nn.dynamic_lr) and schedules (nn.learning_rate_schedule) against their
documented formulas, and a schedule inside a whole-step @jit: the right rate on every step, no
recompile, the same parameters as PyNative."""
import math

import numpy as np
import pytest

import capture
import runtime as ms
from runtime import Tensor, nn, ops


def test_lists_follow_the_documented_formulas():
    e = [i // 2 for i in range(7)]  # step_per_epoch = 2
    np.testing.assert_allclose(nn.exponential_decay_lr(0.1, 0.9, 7, 2, 3), [0.1 * 0.9 ** (k / 3) for k in e])
    np.testing.assert_allclose(nn.exponential_decay_lr(0.1, 0.9, 7, 2, 2, True), [0.1 * 0.9 ** (k // 2) for k in e])
    np.testing.assert_allclose(nn.natural_exp_decay_lr(0.1, 0.9, 7, 2, 2, True),
                               [0.1 * math.exp(-0.9 * (k // 2 * 2)) for k in e])
    np.testing.assert_allclose(nn.inverse_decay_lr(0.1, 0.5, 7, 2, 2), [0.1 / (1 + 0.5 * k / 2) for k in e])
    np.testing.assert_allclose(nn.cosine_decay_lr(0.01, 0.1, 7, 2, 2),
                               [0.01 + 0.045 * (1 + math.cos(math.pi * min(k, 2) / 2)) for k in e])
    np.testing.assert_allclose(nn.polynomial_decay_lr(0.1, 0.01, 7, 2, 2, 0.5),
                               [0.09 * (1 - min(k, 2) / 2) ** 0.5 + 0.01 for k in e])
    np.testing.assert_allclose(nn.polynomial_decay_lr(0.1, 0.01, 7, 2, 2, 0.5, True),
                               [0.09 * (1 - k / (2 * max(math.ceil(k / 2), 1))) ** 0.5 + 0.01 for k in e])
    np.testing.assert_allclose(nn.warmup_lr(0.1, 7, 2, 2), [0.1 * min(k, 2) / 2 for k in e])
    assert nn.piecewise_constant_lr([2, 5, 10], [0.1, 0.05, 0.01]) == [0.1] * 2 + [0.05] * 3 + [0.01] * 5


def test_lists_reject_bad_arguments():
    with pytest.raises(TypeError, match="learning_rate"):
        nn.exponential_decay_lr(1, 0.9, 6, 2, 1)
    with pytest.raises(ValueError, match="max_lr"):
        nn.cosine_decay_lr(0.2, 0.1, 6, 2, 1)
    with pytest.raises(ValueError, match="milestone"):
        nn.piecewise_constant_lr([5, 2], [0.1, 0.2])


@pytest.mark.parametrize("schedule,as_list", [
    (lambda: nn.ExponentialDecayLR(0.1, 0.9, 3), lambda n: nn.exponential_decay_lr(0.1, 0.9, n, 1, 3)),
    (lambda: nn.ExponentialDecayLR(0.1, 0.9, 3, True), lambda n: nn.exponential_decay_lr(0.1, 0.9, n, 1, 3, True)),
    (lambda: nn.InverseDecayLR(0.1, 0.5, 2), lambda n: nn.inverse_decay_lr(0.1, 0.5, n, 1, 2)),
    (lambda: nn.CosineDecayLR(0.01, 0.1, 5), lambda n: nn.cosine_decay_lr(0.01, 0.1, n, 1, 5)),
    (lambda: nn.PolynomialDecayLR(0.1, 0.01, 4, 2.0), lambda n: nn.polynomial_decay_lr(0.1, 0.01, n, 1, 4, 2.0)),
    (lambda: nn.PolynomialDecayLR(0.1, 0.01, 4, 2.0, True),
     lambda n: nn.polynomial_decay_lr(0.1, 0.01, n, 1, 4, 2.0, True)),
    (lambda: nn.WarmUpLR(0.1, 3), lambda n: nn.warmup_lr(0.1, n, 1, 3)),
])
def test_schedules_equal_the_lists_step_by_step(schedule, as_list):
    s = schedule()
    got = [float(s(Tensor(np.array([i], np.int32))).asnumpy()) for i in range(9)]
    np.testing.assert_allclose(got, as_list(9), rtol=1e-6, atol=1e-8)
    nat = nn.NaturalExpDecayLR(0.1, 0.9, 2)
    np.testing.assert_allclose(float(nat(Tensor(np.array(3, np.int32))).asnumpy()), 0.1 * math.exp(-0.9 * 1.5), rtol=1e-6)


@pytest.mark.parametrize("lr_kind", ["schedule", "list"])
def test_a_schedule_inside_a_jitted_train_step_uses_each_steps_rate(lr_kind):
    def make():
        ms.set_seed(1)
        net = nn.Dense(3, 2)
        lr = nn.CosineDecayLR(0.0, 0.5, 4) if lr_kind == "schedule" else nn.cosine_decay_lr(0.0, 0.5, 6, 1, 4)
        opt = nn.SGD(net.trainable_params(), learning_rate=lr)
        grad_fn = ms.value_and_grad(lambda x: ops.square(net(x)).sum(), None, opt.parameters)

        def step(x):
            loss, grads = grad_fn(x)
            opt(grads)
            return loss, grads
        return net, step

    x = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3) / 6)
    eager_net, eager_step = make()
    jit_net, jit_step = make()
    jitted = ms.jit(jit_step)
    rates = nn.cosine_decay_lr(0.0, 0.5, 6, 1, 4)
    for i in range(6):
        w_before = jit_net.weight.asnumpy().copy()
        _, grads = jitted(x)
        np.testing.assert_allclose(jit_net.weight.asnumpy(), w_before - rates[i] * grads[0].asnumpy(), rtol=1e-5,
                                   atol=1e-7)
        eager_step(x)
        np.testing.assert_allclose(jit_net.weight.asnumpy(), eager_net.weight.asnumpy(), rtol=1e-5, atol=1e-7)
    report = capture.explain(jitted)(x)
    assert report.graph_break_count == 0 and not report.recompiles
