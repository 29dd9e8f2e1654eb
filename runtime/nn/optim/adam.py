"""Adam-family optimizers: ``nn.Adam`` (MindSpore 2.x), ``nn.AdamW`` (decoupled weight decay,
PyTorch/``mindspore.mint.optim.AdamW`` formula), ``nn.AdamWeightDecay`` (MindSpore's, no bias
correction) and ``nn.Lamb`` (layer-wise trust ratio).

Example:
    >>> import runtime as ms
    >>> from runtime import nn
    >>> opt = nn.Adam(nn.Dense(2, 1).trainable_params())
    >>> [p.name for p in opt.moment1]
    ['moment1.weight', 'moment1.bias']
"""
from __future__ import annotations

from graph.dtypes import float32

import numpy as np

from ... import ops
from . import foreach
from .optimizer import Optimizer, _check_number

__all__ = ["Adam", "AdamW", "AdamWeightDecay", "Lamb"]


def _check_betas(name, beta1, beta2, eps):
    b1 = _check_number(name, "beta1", beta1, 0.0, True, 1.0, True)
    b2 = _check_number(name, "beta2", beta2, 0.0, True, 1.0, True)
    e = _check_number(name, "eps", eps, 0.0, True)
    return b1, b2, e


class _AdamBase(Optimizer):
    def _init_adam(self, name, beta1, beta2, eps):
        self.beta1, self.beta2, self.eps = _check_betas(name, beta1, beta2, eps)
        self.moment1 = self._clone_state("moment1", "zeros")
        self.moment2 = self._clone_state("moment2", "zeros")

    def _moments(self, m, v, g):
        """m <- b1 m + (1 - b1) g; v <- b2 v + (1 - b2) g^2 (in place); returns the new values."""
        b1, b2 = self.beta1, self.beta2
        m = ops.assign(m, ops.add(ops.mul(m, b1), ops.mul(g, 1.0 - b1)))
        v = ops.assign(v, ops.add(ops.mul(v, b2), ops.mul(ops.square(g), 1.0 - b2)))
        return m, v


class Adam(_AdamBase):
    """Adam (MindSpore ApplyAdam): with g = grad / loss_scale + weight_decay * param (L2),
    m, v as usual, ``lr_t = lr * sqrt(1 - beta2^t) / (1 - beta1^t)`` and
    ``param -= lr_t * m / (sqrt(v) + eps)``; ``use_nesterov`` uses ``beta1 * m + (1 - beta1) * g``
    in place of m; ``use_amsgrad`` divides by the square root of the running maximum of v instead."""

    def __init__(self, params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8, use_locking=False,
                 use_nesterov=False, weight_decay=0.0, loss_scale=1.0, use_amsgrad=False):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self._init_adam("Adam", beta1, beta2, eps)
        for k, v in (("use_locking", use_locking), ("use_nesterov", use_nesterov), ("use_amsgrad", use_amsgrad)):
            if not isinstance(v, bool):
                raise TypeError(f"Adam: {k} must be a bool, got {v!r}")
        if use_amsgrad and use_nesterov:
            raise ValueError("Adam: use_amsgrad and use_nesterov cannot both be True (as in MindSpore)")
        self.use_amsgrad = use_amsgrad
        # AMSGrad (MindSpore ApplyAdamWithAmsgrad): the denominator uses the running maximum of v
        self.vhat = self._clone_state("vhat", "zeros") if use_amsgrad else None
        self.use_locking = use_locking
        self.use_nesterov = use_nesterov
        self.beta1_power = self._scalar_state("beta1_power", 1.0)
        self.beta2_power = self._scalar_state("beta2_power", 1.0)

    def construct(self, gradients):
        gradients, lrs = self._prepare_step(gradients)
        b1p = ops.assign(self.beta1_power, ops.mul(self.beta1_power, self.beta1))
        b2p = ops.assign(self.beta2_power, ops.mul(self.beta2_power, self.beta2))
        # sqrt(1 - beta2^t) / (1 - beta1^t), shared by every parameter
        corr = ops.div(ops.sqrt(ops.sub(1.0, b2p)), ops.sub(1.0, b1p))
        eps, b1 = self.eps, self.beta1
        vhats = self.vhat if self.use_amsgrad else (None,) * len(self.parameters)
        for p, m, v, vh, g, lr_i in zip(self.parameters, self.moment1, self.moment2, vhats, gradients, lrs):
            m, v = self._moments(m, v, g)
            if vh is not None:
                v = ops.assign(vh, ops.maximum(vh, v))
            num = ops.add(ops.mul(m, b1), ops.mul(g, 1.0 - b1)) if self.use_nesterov else m
            upd = ops.div(num, ops.add(ops.sqrt(v), eps))
            ops.assign(p, ops.sub(p, ops.mul(upd, ops.mul(lr_i, corr))))
        return True


def _adam_flat_step(self, gradients):
    """``Adam.construct`` on flat buffers (runtime/nn/optim/foreach.py): the same operations."""
    if self.use_amsgrad:  # the running maximum of v is not kept flat: construct does it
        return None
    groups = self._flat_groups(self.moment1, self.moment2)
    if groups is None:
        return None
    lr_ok = not self.dynamic_lr and foreach.rates_usable(self.learning_rate if self.is_group_lr else (self.learning_rate,))
    if not lr_ok or not foreach.rates_usable((self.beta1_power, self.beta2_power)):
        return None
    prepared = self._flat_prepare(gradients, groups, keep_rates=True)
    if prepared is None:
        return None
    g, lrs = prepared
    params, m1, m2 = groups
    b1p = ops.assign(self.beta1_power, ops.mul(self.beta1_power, self.beta1))
    b2p = ops.assign(self.beta2_power, ops.mul(self.beta2_power, self.beta2))
    corr = ops.div(ops.sqrt(ops.sub(1.0, b2p)), ops.sub(1.0, b1p))._data
    # lr_i * corr per parameter, as construct computes it (one product per distinct rate)
    products = {}
    rates = [products.setdefault(id(lr), foreach.wrap(np.multiply(lr._data, corr))) for lr in lrs]
    step = foreach.per_element(rates, params.bounds)
    b1, b2, eps = self.beta1, self.beta2, self.eps
    m = m1.current() * b1 + g * (1.0 - b1)
    m1.adopt(m)
    v = m2.current() * b2 + np.square(g) * (1.0 - b2)
    m2.adopt(v)
    num = m * b1 + g * (1.0 - b1) if self.use_nesterov else m
    upd = num / (np.sqrt(v) + eps)
    params.adopt(params.current() - upd * step)
    return True


Adam._flat_step = _adam_flat_step


class AdamW(_AdamBase):
    """Adam with decoupled weight decay (PyTorch's AdamW formula), applied to every parameter:
    ``param *= 1 - lr * weight_decay``; m, v as in Adam;
    ``param -= lr / (1 - beta1^t) * m / (sqrt(v) / sqrt(1 - beta2^t) + eps)``."""

    def __init__(self, params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8, weight_decay=1e-2):
        super().__init__(learning_rate, params, 0.0, 1.0)
        self._init_adam("AdamW", beta1, beta2, eps)
        if self.is_group:
            self._decoupled_wd = tuple(_check_number("AdamW", "weight_decay", w, 0.0)
                                       for w in self._group_weight_decays(params, weight_decay))
        else:
            wd = _check_number("AdamW", "weight_decay", weight_decay, 0.0)
            self._decoupled_wd = (wd,) * self.param_length
        self.weight_decay = weight_decay
        # the base class folded nothing into the gradients (decay is decoupled here)
        self._wd = (0.0,) * self.param_length
        self.exec_weight_decay = False
        self.beta1_power = self._scalar_state("beta1_power", 1.0)
        self.beta2_power = self._scalar_state("beta2_power", 1.0)

    def _group_weight_decays(self, params, default):
        out = {}
        for g in params:
            if "params" in g:
                for p in g["params"]:
                    out[id(p)] = g.get("weight_decay", default)
        return [out[id(p)] for p in self.parameters]

    def construct(self, gradients):
        self._check_grads(gradients)
        lr = self.get_lr()
        lrs = self.param_lrs(lr)
        self._increase_step()
        b1p = ops.assign(self.beta1_power, ops.mul(self.beta1_power, self.beta1))
        b2p = ops.assign(self.beta2_power, ops.mul(self.beta2_power, self.beta2))
        inv_bc1 = ops.div(1.0, ops.sub(1.0, b1p))
        inv_sqrt_bc2 = ops.rsqrt(ops.sub(1.0, b2p))
        eps = self.eps
        for p, m, v, g, lr_i, wd in zip(self.parameters, self.moment1, self.moment2, gradients, lrs,
                                        self._decoupled_wd):
            pv = p
            if wd != 0.0:
                pv = ops.mul(p, ops.sub(1.0, ops.mul(lr_i, wd)))
            m, v = self._moments(m, v, g)
            denom = ops.add(ops.mul(ops.sqrt(v), inv_sqrt_bc2), eps)
            step = ops.mul(lr_i, inv_bc1)
            ops.assign(p, ops.sub(pv, ops.mul(ops.div(m, denom), step)))
        return True


class AdamWeightDecay(_AdamBase):
    """MindSpore's AdamWeightDecay (no bias correction): ``update = m / (sqrt(v) + eps)
    + weight_decay * param`` (for parameters passing the decay filter); ``param -= lr * update``."""

    def __init__(self, params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-6, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, 1.0)
        self._init_adam("AdamWeightDecay", beta1, beta2, eps)
        self._decoupled_wd = self._wd
        self._wd = (0.0,) * self.param_length
        self.exec_weight_decay = False

    def construct(self, gradients):
        self._check_grads(gradients)
        lr = self.get_lr()
        lrs = self.param_lrs(lr)
        self._increase_step()
        eps = self.eps
        for p, m, v, g, lr_i, wd in zip(self.parameters, self.moment1, self.moment2, gradients, lrs,
                                        self._decoupled_wd):
            m, v = self._moments(m, v, g)
            upd = ops.div(m, ops.add(ops.sqrt(v), eps))
            if wd != 0.0:
                upd = ops.add(upd, ops.mul(p, wd))
            ops.assign(p, ops.sub(p, ops.mul(upd, lr_i)))
        return True


class Lamb(_AdamBase):
    """LAMB (MindSpore 2.x ``nn.Lamb``): Adam moments with bias correction at step t,
    ``r = m_hat / (sqrt(v_hat) + eps) + weight_decay * param`` (decay for parameters passing the
    decay filter, or per group), and a per-parameter trust ratio
    ``||param|| / ||r||`` (1 when either norm is 0): ``param -= lr * ratio * r``.

    Example:
        >>> import runtime as ms
        >>> from runtime import nn
        >>> opt = nn.Lamb(nn.Dense(2, 1).trainable_params(), learning_rate=0.1)
        >>> [p.name for p in opt.moments1]
        ['lamb_m.weight', 'lamb_m.bias']
    """

    def __init__(self, params, learning_rate, beta1=0.9, beta2=0.999, eps=1e-6, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, 1.0)
        self.beta1, self.beta2, self.eps = _check_betas("Lamb", beta1, beta2, eps)
        self.params = self.parameters
        self.moments1 = self._clone_state("lamb_m", "zeros")
        self.moments2 = self._clone_state("lamb_v", "zeros")
        # weight decay joins the update r (after bias correction), not the gradient
        self._decoupled_wd = self._wd
        self._wd = (0.0,) * self.param_length
        self.exec_weight_decay = False

    def construct(self, gradients):
        self._check_grads(gradients)
        lrs = self.param_lrs(self.get_lr())
        self._increase_step()
        t = ops.cast(self.global_step, float32)
        inv_bc1 = ops.div(1.0, ops.sub(1.0, ops.pow(self.beta1, t)))
        inv_bc2 = ops.div(1.0, ops.sub(1.0, ops.pow(self.beta2, t)))
        b1, b2, eps = self.beta1, self.beta2, self.eps
        for p, m, v, g, lr_i, wd in zip(self.parameters, self.moments1, self.moments2, gradients, lrs,
                                        self._decoupled_wd):
            m = ops.assign(m, ops.add(ops.mul(m, b1), ops.mul(g, 1.0 - b1)))
            v = ops.assign(v, ops.add(ops.mul(v, b2), ops.mul(ops.square(g), 1.0 - b2)))
            r = ops.div(ops.mul(m, inv_bc1), ops.add(ops.sqrt(ops.mul(v, inv_bc2)), eps))
            if wd != 0.0:
                r = ops.add(r, ops.mul(p, wd))
            w_norm = ops.sqrt(ops.reduce_sum(ops.square(p)))
            r_norm = ops.sqrt(ops.reduce_sum(ops.square(r)))
            both = ops.logical_and(ops.greater(w_norm, 0.0), ops.greater(r_norm, 0.0))
            ratio = ops.select(both, ops.div(w_norm, ops.select(both, r_norm, ops.ones_like(r_norm))),
                               ops.ones_like(w_norm))
            ops.assign(p, ops.sub(p, ops.mul(r, ops.mul(lr_i, ratio))))
        return True
