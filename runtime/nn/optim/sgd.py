"""SGD and Momentum optimizers (MindSpore 2.x ``nn.SGD``, ``nn.Momentum``).

Example:
    >>> import runtime as ms
    >>> from runtime import nn
    >>> net = nn.Dense(2, 1)
    >>> opt = nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)
    >>> [p.name for p in opt.moments]
    ['moments.weight', 'moments.bias']
"""
from __future__ import annotations

import numpy as np

from ... import ops
from . import foreach
from .optimizer import Optimizer, _check_number

__all__ = ["SGD", "Momentum"]


class SGD(Optimizer):
    """Stochastic gradient descent with optional momentum, dampening and Nesterov momentum.

    With g = grad / loss_scale + weight_decay * param:
    ``accum = g`` on the first step, then ``accum = momentum * accum + (1 - dampening) * g``;
    ``update = g + momentum * accum`` (nesterov) or ``accum``; ``param -= lr * update``.
    Without momentum, ``param -= lr * g``.
    """

    def __init__(self, params, learning_rate=0.1, momentum=0.0, dampening=0.0, weight_decay=0.0,
                 nesterov=False, loss_scale=1.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.momentum = _check_number("SGD", "momentum", momentum, 0.0)
        self.dampening = _check_number("SGD", "dampening", dampening, 0.0)
        if not isinstance(nesterov, bool):
            raise TypeError(f"SGD: nesterov must be a bool, got {nesterov!r}")
        if nesterov and (self.momentum <= 0.0 or self.dampening != 0.0):
            raise ValueError(f"SGD: nesterov needs momentum > 0 and dampening = 0, got momentum="
                             f"{self.momentum}, dampening={self.dampening}")
        self.nesterov = nesterov
        self.accum = self._clone_state("accum", "zeros")
        # 1 until the first step (accum starts as the gradient itself), then 0
        self.stat = self._scalar_state("stat", 1.0)
        self._use_momentum = self.momentum > 0.0

    def construct(self, gradients):
        gradients, lrs = self._prepare_step(gradients)
        if not self._use_momentum:
            for p, g, lr_i in zip(self.parameters, gradients, lrs):
                ops.assign(p, ops.sub(p, ops.mul(g, lr_i)))
            return True
        mom = self.momentum
        if self.dampening != 0.0:
            # first step: coefficient 1 (accum = g); later: 1 - dampening
            coef = ops.add(ops.mul(self.stat, self.dampening), 1.0 - self.dampening)
        else:
            coef = None
        for p, acc, g, lr_i in zip(self.parameters, self.accum, gradients, lrs):
            gi = g if coef is None else ops.mul(g, coef)
            a = ops.assign(acc, ops.add(ops.mul(acc, mom), gi))
            upd = ops.add(g, ops.mul(a, mom)) if self.nesterov else a
            ops.assign(p, ops.sub(p, ops.mul(upd, lr_i)))
        if coef is not None:
            ops.assign(self.stat, ops.mul(self.stat, 0.0))
        return True


def _sgd_flat_step(self, gradients):
    """``SGD.construct`` on flat buffers (runtime/nn/optim/foreach.py): the same operations."""
    groups = self._flat_groups(self.accum) if self._use_momentum else self._flat_groups()
    if groups is None or (self._use_momentum and not foreach.rates_usable((self.stat,))):
        return None
    prepared = self._flat_prepare(gradients, groups)
    if prepared is None:
        return None
    g, lr = prepared
    params = groups[0]
    if not self._use_momentum:
        params.adopt(params.current() - g * lr)
        return True
    mom = self.momentum
    accum = groups[1]
    coef = None
    if self.dampening != 0.0:
        coef = ops.add(ops.mul(self.stat, self.dampening), 1.0 - self.dampening)._data
    gi = g if coef is None else g * coef
    a = accum.current() * mom + gi
    accum.adopt(a)
    upd = g + a * mom if self.nesterov else a
    params.adopt(params.current() - upd * lr)
    if coef is not None:
        ops.assign(self.stat, ops.mul(self.stat, 0.0))
    return True


def _momentum_flat_step(self, gradients):
    """``Momentum.construct`` on flat buffers (runtime/nn/optim/foreach.py): the same operations."""
    groups = self._flat_groups(self.moments)
    if groups is None:
        return None
    prepared = self._flat_prepare(gradients, groups)
    if prepared is None:
        return None
    g, lr = prepared
    params, moments = groups
    mom = self.momentum
    moments.current(), params.current()  # (brought up to date before their references are counted)
    in_place = moments.exclusive() and params.exclusive()
    m, p = moments.flat, params.flat
    if in_place:  # no one else sees them: the same operations, written into the flat arrays
        np.multiply(m, mom, out=m)
        np.add(m, g, out=m)  # a = m * mom + g
        if self.use_nesterov:
            upd = np.multiply(m, mom)
            np.add(g, upd, out=upd)  # g + a * mom
        else:
            upd = m
        np.multiply(upd, lr, out=g)  # (g, our concatenated copy, is no longer needed)
        np.subtract(p, g, out=p)
        return True
    a = m * mom + g
    moments.adopt(a)
    upd = g + a * mom if self.use_nesterov else a
    params.adopt(p - upd * lr)
    return True


class Momentum(Optimizer):
    """Momentum SGD (MindSpore ApplyMomentum): with g = grad / loss_scale + weight_decay * param,
    ``accum = momentum * accum + g``; ``param -= lr * accum``, or with ``use_nesterov``
    ``param -= lr * (g + momentum * accum)``."""

    def __init__(self, params, learning_rate, momentum, weight_decay=0.0, loss_scale=1.0, use_nesterov=False):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.momentum = _check_number("Momentum", "momentum", momentum, 0.0)
        if not isinstance(use_nesterov, bool):
            raise TypeError(f"Momentum: use_nesterov must be a bool, got {use_nesterov!r}")
        self.use_nesterov = use_nesterov
        self.params = self.parameters
        self.moments = self._clone_state("moments", "zeros")

    def construct(self, gradients):
        gradients, lrs = self._prepare_step(gradients)
        mom = self.momentum
        for p, acc, g, lr_i in zip(self.parameters, self.moments, gradients, lrs):
            a = ops.assign(acc, ops.add(ops.mul(acc, mom), g))
            upd = ops.add(g, ops.mul(a, mom)) if self.use_nesterov else a
            ops.assign(p, ops.sub(p, ops.mul(upd, lr_i)))
        return True


SGD._flat_step = _sgd_flat_step
Momentum._flat_step = _momentum_flat_step
