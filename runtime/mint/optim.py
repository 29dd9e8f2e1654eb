"""``mindspore.mint.optim``: PyTorch-style optimizer constructors over ``runtime.nn`` optimizers.

``AdamW``/``Adam``/``SGD`` take torch's arguments (``lr``, ``betas``, ``eps``, ``weight_decay``,
``maximize``) and are the ``runtime.nn`` optimizer Cells (``nn.AdamW`` already implements torch's
AdamW formula, ``nn.SGD`` torch's momentum/dampening/nesterov); they are called with the gradients,
``optimizer(grads)``, as every MindSpore optimizer. Group dicts use ``"params"``, ``"lr"`` and
``"weight_decay"``.

Example:
    >>> from runtime import mint
    >>> net = mint.nn.Linear(2, 1)
    >>> opt = mint.optim.AdamW(net.trainable_params(), lr=0.01)
    >>> opt.beta1, opt.beta2
    (0.9, 0.999)
"""
from __future__ import annotations

from .. import nn as _nn
from .. import ops as _ops

__all__ = ["AdamW", "Adam", "SGD"]


def _check_flags(name, amsgrad, maximize):
    for key, value in (("amsgrad", amsgrad), ("maximize", maximize)):
        if not isinstance(value, bool):
            raise TypeError(f"mint.optim.{name}: {key} must be a bool, got {value!r}")
    if amsgrad:
        raise ValueError(f"mint.optim.{name}: amsgrad=True is not supported (runtime.nn.AdamW has no AMSGrad)")


def _betas(name, betas):
    if not isinstance(betas, (tuple, list)) or len(betas) != 2:
        raise TypeError(f"mint.optim.{name}: betas must be a pair of floats, got {betas!r}")
    return betas


def _ascent(gradients, maximize):
    """``maximize=True`` steps along +grad: the same update applied to the negated gradients."""
    return tuple(_ops.neg(g) for g in gradients) if maximize else gradients


class AdamW(_nn.AdamW):
    """torch's AdamW: ``param *= 1 - lr * weight_decay``; bias-corrected Adam step (``runtime.nn.AdamW``)."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False):
        _check_flags("AdamW", amsgrad, maximize)
        b1, b2 = _betas("AdamW", betas)
        super().__init__(params, learning_rate=lr, beta1=b1, beta2=b2, eps=eps, weight_decay=weight_decay)
        self.maximize = maximize

    def construct(self, gradients):
        return super().construct(_ascent(gradients, self.maximize))


class Adam(_nn.AdamW):
    """torch's Adam: ``weight_decay`` is an L2 term added to the gradient (``g + weight_decay * param``),
    then the same bias-corrected step as AdamW without the decoupled decay."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, amsgrad=False, *,
                 maximize=False):
        _check_flags("Adam", amsgrad, maximize)
        b1, b2 = _betas("Adam", betas)
        super().__init__(params, learning_rate=lr, beta1=b1, beta2=b2, eps=eps, weight_decay=weight_decay)
        # nn.AdamW parsed the (group) weight decays as decoupled ones: use them as the L2 term instead
        self._l2 = self._decoupled_wd
        self._decoupled_wd = (0.0,) * self.param_length
        self.maximize = maximize

    def construct(self, gradients):
        gradients = _ascent(gradients, self.maximize)
        gradients = tuple(g if wd == 0.0 else _ops.add(g, _ops.mul(p, wd))
                          for g, p, wd in zip(gradients, self.parameters, self._l2))
        return super().construct(gradients)


class SGD(_nn.SGD):
    """torch's SGD: ``buf = g`` on the first step, then ``momentum * buf + (1 - dampening) * g``;
    ``param -= lr * (g + momentum * buf if nesterov else buf)``; ``weight_decay`` is an L2 term."""

    def __init__(self, params, lr, momentum=0, dampening=0, weight_decay=0, nesterov=False, *, maximize=False):
        _check_flags("SGD", False, maximize)
        super().__init__(params, learning_rate=lr, momentum=float(momentum), dampening=float(dampening),
                         weight_decay=float(weight_decay), nesterov=nesterov)
        self.maximize = maximize

    def construct(self, gradients):
        return super().construct(_ascent(gradients, self.maximize))

    def _flat_step(self, gradients):
        # PyNative's one-buffer update (nn.SGD's) runs instead of construct: it gets the same gradients
        return _nn.SGD._flat_step(self, _ascent(gradients, self.maximize))
