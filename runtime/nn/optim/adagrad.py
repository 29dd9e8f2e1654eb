"""RMSProp and Adagrad (MindSpore 2.x ``nn.RMSProp``, ``nn.Adagrad``).

Example:
    >>> from runtime import nn
    >>> opt = nn.RMSProp(nn.Dense(2, 1).trainable_params(), learning_rate=0.01, centered=True)
    >>> [p.name for p in opt.mean_grad]
    ['mean_grad.weight', 'mean_grad.bias']
"""
from __future__ import annotations

from ... import ops
from .optimizer import Optimizer, _check_number

__all__ = ["RMSProp", "Adagrad"]


class RMSProp(Optimizer):
    """MindSpore ApplyRMSProp / ApplyCenteredRMSProp. With g = grad / loss_scale + weight_decay * param:
    ``ms = decay * ms + (1 - decay) * g^2`` (ms starts at 1); centered also tracks
    ``mg = decay * mg + (1 - decay) * g`` and uses ``ms - mg^2``;
    ``mom = momentum * mom + lr * g / sqrt(ms(+centering) + epsilon)``; ``param -= mom``."""

    def __init__(self, params, learning_rate=0.1, decay=0.9, momentum=0.0, epsilon=1e-10, use_locking=False,
                 centered=False, loss_scale=1.0, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.decay = _check_number("RMSProp", "decay", decay, 0.0)
        self.momentum = _check_number("RMSProp", "momentum", momentum, 0.0)
        self.epsilon = _check_number("RMSProp", "epsilon", epsilon, 0.0, open_min=True)
        if not isinstance(centered, bool):
            raise TypeError(f"RMSProp: centered must be a bool, got {centered!r}")
        self.centered = centered
        self.mean_square = self._clone_state("mean_square", "ones")
        self.moment = self._clone_state("moment", "zeros")
        self.mean_grad = self._clone_state("mean_grad", "zeros") if centered else None

    def construct(self, gradients):
        gradients, lrs = self._prepare_step(gradients)
        d = self.decay
        grads_mg = self.mean_grad if self.centered else (None,) * self.param_length
        for p, ms_, mom, mg, g, lr_i in zip(self.parameters, self.mean_square, self.moment, grads_mg, gradients, lrs):
            m = ops.assign(ms_, ops.add(ops.mul(ms_, d), ops.mul(ops.square(g), 1.0 - d)))
            if mg is not None:
                a = ops.assign(mg, ops.add(ops.mul(mg, d), ops.mul(g, 1.0 - d)))
                m = ops.sub(m, ops.square(a))
            step = ops.div(ops.mul(g, lr_i), ops.sqrt(ops.add(m, self.epsilon)))
            v = ops.assign(mom, ops.add(ops.mul(mom, self.momentum), step))
            ops.assign(p, ops.sub(p, v))
        return True


class Adagrad(Optimizer):
    """MindSpore ApplyAdagrad. With g = grad / loss_scale + weight_decay * param:
    ``accum += g^2`` (when ``update_slots``; accum starts at ``accum``);
    ``param -= lr * g / sqrt(accum)``."""

    def __init__(self, params, accum=0.1, learning_rate=0.001, update_slots=True, loss_scale=1.0, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        initial = _check_number("Adagrad", "accum", accum, 0.0)
        if not isinstance(update_slots, bool):
            raise TypeError(f"Adagrad: update_slots must be a bool, got {update_slots!r}")
        self.update_slots = update_slots
        self.accum = self._clone_state("accum", "zeros")
        for a in self.accum:
            a._data = a._data + a._data.dtype.type(initial)

    def construct(self, gradients):
        gradients, lrs = self._prepare_step(gradients)
        for p, acc, g, lr_i in zip(self.parameters, self.accum, gradients, lrs):
            a = ops.assign(acc, ops.add(acc, ops.square(g))) if self.update_slots else acc
            ops.assign(p, ops.sub(p, ops.div(ops.mul(g, lr_i), ops.sqrt(a))))
        return True
