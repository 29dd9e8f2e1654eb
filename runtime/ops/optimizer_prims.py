"""MindSpore's optimizer Primitives (``ops.ApplyMomentum``, ``ops.Adam``, ``ops.ApplyRMSProp`` ...):
one update step of a Parameter and its slot Parameters, written back in place with ``assign``.

Each class takes MindSpore's attributes at construction and its inputs at call time, in the
reference's order; the scalar inputs (learning rate, decay, ...) may be Python numbers or 0-d
Tensors. Every update is composed of registry ops (elementwise arithmetic and ``assign``), so it
differentiates and compiles like any other code; the formulas are the ones the reference gives
for each Primitive (quoted in the docstrings). Outputs: the updated Parameter, or the tuple of
updated Parameters the reference lists.

Example:
    >>> import numpy as np
    >>> from runtime import Parameter, Tensor, ops
    >>> w = Parameter(Tensor(np.array([1.0, 2.0], np.float32)), name="w")
    >>> _ = ops.ApplyGradientDescent()(w, 0.5, Tensor(np.array([1.0, -2.0], np.float32)))
    >>> w.asnumpy().tolist()
    [0.5, 3.0]
"""
from __future__ import annotations

from graph.ops import REGISTRY, bind
from graph.ops.core import is_tensorlike

_R = REGISTRY

__all__ = ["ApplyGradientDescent", "ApplyMomentum", "ApplyRMSProp", "ApplyCenteredRMSProp", "ApplyAdagrad",
           "ApplyAdagradV2", "ApplyAdaMax", "ApplyAdadelta", "ApplyAddSign", "ApplyPowerSign",
           "ApplyProximalGradientDescent", "Adam", "AdamWeightDecay"]


# arithmetic on Tensors or Python numbers (two numbers stay a number)
def _op(name, a, b):
    if not is_tensorlike(a) and not is_tensorlike(b):
        return {"add": a + b, "sub": a - b, "mul": a * b, "div": a / b}[name]
    return bind(_R[name], a, b)


def _add(a, b):
    return _op("add", a, b)


def _sub(a, b):
    return _op("sub", a, b)


def _mul(a, b):
    return _op("mul", a, b)


def _div(a, b):
    return _op("div", a, b)


def _sqrt(x):
    return bind(_R["sqrt"], x)


def _assign(param, value):
    return bind(_R["assign"], param, value)


def _moving(old, decay, new):
    """decay * old + (1 - decay) * new."""
    return _add(_mul(decay, old), _mul(_sub(1.0, decay), new))


class _OptimizerPrimitive:
    """Attributes at construction (``use_locking`` is accepted everywhere: one stream, every update
    is atomic); ``__call__`` applies the step."""

    def __init__(self, use_locking=False):
        self.use_locking = use_locking

    def __repr__(self):
        return f"Prim[{type(self).__name__}]"


class ApplyGradientDescent(_OptimizerPrimitive):
    """``ApplyGradientDescent()(var, alpha, delta)``: ``var = var - alpha * delta``."""

    def __call__(self, var, alpha, delta):
        return _assign(var, _sub(var, _mul(alpha, delta)))


class ApplyMomentum(_OptimizerPrimitive):
    """``ApplyMomentum(use_locking=False, use_nesterov=False, gradient_scale=1.0)(variable,
    accumulation, learning_rate, gradient, momentum)``: ``accum = accum * momentum + gradient``;
    ``var -= lr * accum``, or with Nesterov ``var -= lr * (gradient + accum * momentum)``
    (``gradient`` scaled by ``gradient_scale`` first)."""

    def __init__(self, use_nesterov=False, use_locking=False, gradient_scale=1.0):
        super().__init__(use_locking)
        self.use_nesterov = use_nesterov
        self.gradient_scale = gradient_scale

    def __call__(self, variable, accumulation, learning_rate, gradient, momentum):
        if self.gradient_scale != 1.0:
            gradient = _mul(gradient, float(self.gradient_scale))
        accum = _assign(accumulation, _add(_mul(accumulation, momentum), gradient))
        step = _add(gradient, _mul(accum, momentum)) if self.use_nesterov else accum
        return _assign(variable, _sub(variable, _mul(step, learning_rate)))


class ApplyRMSProp(_OptimizerPrimitive):
    """``ApplyRMSProp(use_locking=False)(var, mean_square, moment, learning_rate, grad, decay,
    momentum, epsilon)``: ``s = decay s + (1 - decay) g^2``; ``m = momentum m + lr g / sqrt(s +
    epsilon)``; ``var -= m``."""

    def __call__(self, var, mean_square, moment, learning_rate, grad, decay, momentum, epsilon):
        s = _assign(mean_square, _moving(mean_square, decay, bind(_R["square"], grad)))
        m = _assign(moment, _add(_mul(momentum, moment), _div(_mul(learning_rate, grad), _sqrt(_add(s, epsilon)))))
        return _assign(var, _sub(var, m))


class ApplyCenteredRMSProp(_OptimizerPrimitive):
    """``ApplyCenteredRMSProp(use_locking=False)(var, mean_gradient, mean_square, moment, grad,
    learning_rate, decay, momentum, epsilon)``: ``g_mean = decay g_mean + (1 - decay) g``; ``s =
    decay s + (1 - decay) g^2``; ``m = momentum m + lr g / sqrt(s - g_mean^2 + epsilon)``;
    ``var -= m``."""

    def __call__(self, var, mean_gradient, mean_square, moment, grad, learning_rate, decay, momentum, epsilon):
        gm = _assign(mean_gradient, _moving(mean_gradient, decay, grad))
        s = _assign(mean_square, _moving(mean_square, decay, bind(_R["square"], grad)))
        denom = _sqrt(_add(_sub(s, bind(_R["square"], gm)), epsilon))
        m = _assign(moment, _add(_mul(momentum, moment), _div(_mul(learning_rate, grad), denom)))
        return _assign(var, _sub(var, m))


class ApplyAdagrad(_OptimizerPrimitive):
    """``ApplyAdagrad(update_slots=True)(var, accum, lr, grad)``: ``accum += g^2`` (when
    ``update_slots``); ``var -= lr g / sqrt(accum)``. Returns ``(var, accum)``."""

    def __init__(self, update_slots=True):
        super().__init__()
        self.update_slots = update_slots

    def __call__(self, var, accum, lr, grad):
        if self.update_slots:
            _assign(accum, _add(accum, bind(_R["square"], grad)))
        return _assign(var, _sub(var, _div(_mul(lr, grad), _sqrt(accum)))), accum


class ApplyAdagradV2(_OptimizerPrimitive):
    """``ApplyAdagradV2(epsilon, update_slots=True)(var, accum, lr, grad)``: ``accum += g^2`` (when
    ``update_slots``); ``var -= lr g / (sqrt(accum) + epsilon)``. Returns ``(var, accum)``."""

    def __init__(self, epsilon, update_slots=True):
        super().__init__()
        self.epsilon = float(epsilon)
        self.update_slots = update_slots

    def __call__(self, var, accum, lr, grad):
        if self.update_slots:
            _assign(accum, _add(accum, bind(_R["square"], grad)))
        return _assign(var, _sub(var, _div(_mul(lr, grad), _add(_sqrt(accum), self.epsilon)))), accum


class ApplyAdaMax(_OptimizerPrimitive):
    """``ApplyAdaMax()(var, m, v, beta1_power, lr, beta1, beta2, epsilon, grad)``: ``m = beta1 m +
    (1 - beta1) g``; ``v = max(beta2 v + epsilon, |g|)``; ``var -= lr / (1 - beta1_power) * m / v``.
    Returns ``(var, m, v)``."""

    def __call__(self, var, m, v, beta1_power, lr, beta1, beta2, epsilon, grad):
        m_new = _assign(m, _moving(m, beta1, grad))
        v_new = _assign(v, bind(_R["maximum"], _add(_mul(beta2, v), epsilon), bind(_R["abs"], grad)))
        step = _mul(_div(lr, _sub(1.0, beta1_power)), _div(m_new, v_new))
        return _assign(var, _sub(var, step)), m, v


class ApplyAdadelta(_OptimizerPrimitive):
    """``ApplyAdadelta()(var, accum, accum_update, lr, rho, epsilon, grad)``: ``accum = rho accum +
    (1 - rho) g^2``; ``update = sqrt(accum_update + epsilon) g / sqrt(accum + epsilon)``;
    ``accum_update = rho accum_update + (1 - rho) update^2``; ``var -= lr update``. Returns
    ``(var, accum, accum_update)``."""

    def __call__(self, var, accum, accum_update, lr, rho, epsilon, grad):
        a = _assign(accum, _moving(accum, rho, bind(_R["square"], grad)))
        update = _div(_mul(_sqrt(_add(accum_update, epsilon)), grad), _sqrt(_add(a, epsilon)))
        _assign(accum_update, _moving(accum_update, rho, bind(_R["square"], update)))
        return _assign(var, _sub(var, _mul(lr, update))), accum, accum_update


def _sign_agreement(grad, m):
    return bind(_R["mul"], bind(_R["sign"], grad), bind(_R["sign"], m))


class ApplyAddSign(_OptimizerPrimitive):
    """``ApplyAddSign()(var, m, lr, alpha, sign_decay, beta, grad)``: ``m = beta m + (1 - beta) g``;
    ``update = (alpha + sign_decay sign(g) sign(m)) g``; ``var -= lr update``. Returns
    ``(var, m)``."""

    def __call__(self, var, m, lr, alpha, sign_decay, beta, grad):
        m_new = _assign(m, _moving(m, beta, grad))
        update = _mul(_add(alpha, _mul(sign_decay, _sign_agreement(grad, m_new))), grad)
        return _assign(var, _sub(var, _mul(lr, update))), m


class ApplyPowerSign(_OptimizerPrimitive):
    """``ApplyPowerSign()(var, m, lr, logbase, sign_decay, beta, grad)``: ``m = beta m + (1 - beta)
    g``; ``update = exp(logbase sign_decay sign(g) sign(m)) g``; ``var -= lr update``. Returns
    ``(var, m)``."""

    def __call__(self, var, m, lr, logbase, sign_decay, beta, grad):
        m_new = _assign(m, _moving(m, beta, grad))
        scale = bind(_R["exp"], _mul(_mul(logbase, sign_decay), _sign_agreement(grad, m_new)))
        return _assign(var, _sub(var, _mul(lr, _mul(scale, grad)))), m


class ApplyProximalGradientDescent(_OptimizerPrimitive):
    """``ApplyProximalGradientDescent()(var, alpha, l1, l2, delta)``: ``prox = var - alpha delta``;
    ``var = sign(prox) / (1 + alpha l2) * max(|prox| - alpha l1, 0)``."""

    def __call__(self, var, alpha, l1, l2, delta):
        prox = _sub(var, _mul(alpha, delta))
        shrunk = bind(_R["maximum"], _sub(bind(_R["abs"], prox), _mul(alpha, l1)), 0.0)
        return _assign(var, _mul(_div(bind(_R["sign"], prox), _add(1.0, _mul(alpha, l2))), shrunk))


class Adam(_OptimizerPrimitive):
    """``Adam(use_locking=False, use_nesterov=False)(var, m, v, beta1_power, beta2_power, lr, beta1,
    beta2, epsilon, gradient)``: ``m = beta1 m + (1 - beta1) g``; ``v = beta2 v + (1 - beta2)
    g^2``; ``l = lr sqrt(1 - beta2_power) / (1 - beta1_power)``; ``var -= l m / (sqrt(v) +
    epsilon)``, with Nesterov ``var -= l (beta1 m + (1 - beta1) g) / (sqrt(v) + epsilon)``.
    Returns ``(var, m, v)``."""

    def __init__(self, use_locking=False, use_nesterov=False):
        super().__init__(use_locking)
        self.use_nesterov = use_nesterov

    def __call__(self, var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, gradient):
        m_new = _assign(m, _moving(m, beta1, gradient))
        v_new = _assign(v, _moving(v, beta2, bind(_R["square"], gradient)))
        rate = _div(_mul(lr, _sqrt_number(_sub(1.0, beta2_power))), _sub(1.0, beta1_power))
        numer = _moving(m_new, beta1, gradient) if self.use_nesterov else m_new
        return _assign(var, _sub(var, _mul(rate, _div(numer, _add(_sqrt(v_new), epsilon))))), m, v


class AdamWeightDecay(_OptimizerPrimitive):
    """``AdamWeightDecay(use_locking=False)(var, m, v, lr, beta1, beta2, epsilon, decay,
    gradient)``: ``m = beta1 m + (1 - beta1) g``; ``v = beta2 v + (1 - beta2) g^2``; ``update =
    m / (sqrt(v) + epsilon) + decay var``; ``var -= lr update``. Returns ``(var, m, v)``."""

    def __call__(self, var, m, v, lr, beta1, beta2, epsilon, decay, gradient):
        m_new = _assign(m, _moving(m, beta1, gradient))
        v_new = _assign(v, _moving(v, beta2, bind(_R["square"], gradient)))
        update = _add(_div(m_new, _add(_sqrt(v_new), epsilon)), _mul(decay, var))
        return _assign(var, _sub(var, _mul(lr, update))), m, v


def _sqrt_number(x):
    return x ** 0.5 if not is_tensorlike(x) else _sqrt(x)
