"""Learning-rate schedules computed from the step counter (``mindspore.nn.learning_rate_schedule``).

A schedule is a Cell: ``schedule(global_step)`` returns the rate for that step as a 0-d float32
Tensor. Passed as an optimizer's ``learning_rate``, it is evaluated with the optimizer's own step
counter (a Parameter) inside the update, so a whole-step ``@jit`` graph uses the right rate on every
step without recompiling. Formulas follow MindSpore 2.x's documentation, with ``p = step /
decay_steps`` (floored when ``is_stair``).

Example:
    >>> import numpy as np
    >>> from runtime import nn, Tensor
    >>> lr = nn.CosineDecayLR(0.01, 0.1, 4)
    >>> [round(float(lr(Tensor(np.array(s, np.int32))).asnumpy()), 4) for s in (0, 2, 4, 9)]
    [0.1, 0.055, 0.01, 0.01]
"""
from __future__ import annotations

import math

from graph.dtypes import float32

from .. import ops
from .cell import Cell
from .dynamic_lr import _float
from .layers.basic import _check_bool, _check_int

__all__ = ["LearningRateSchedule", "ExponentialDecayLR", "NaturalExpDecayLR", "InverseDecayLR", "CosineDecayLR",
           "PolynomialDecayLR", "WarmUpLR"]


def _step(global_step):
    """The step as a 0-d float32 tensor (optimizers keep it as an int32 (1,) Parameter)."""
    s = ops.cast(global_step, float32)
    return ops.reshape(s, ()) if s.ndim else s


class LearningRateSchedule(Cell):
    """Base class: subclasses implement ``construct(global_step)``."""

    def construct(self, global_step):
        raise NotImplementedError(f"{type(self).__name__} must implement construct(global_step)")


class _DecayLR(LearningRateSchedule):
    def __init__(self, learning_rate, decay_rate, decay_steps, is_stair=False):
        super().__init__()
        name = type(self).__name__
        self.learning_rate = _float(name, "learning_rate", learning_rate)
        self.decay_rate = _float(name, "decay_rate", decay_rate)
        self.decay_steps = _check_int(name, "decay_steps", decay_steps)
        self.is_stair = _check_bool(name, "is_stair", is_stair)

    def _p(self, global_step):
        p = ops.div(_step(global_step), float(self.decay_steps))
        return ops.floor(p) if self.is_stair else p


class ExponentialDecayLR(_DecayLR):
    """``learning_rate * decay_rate ** p``."""

    def construct(self, global_step):
        return ops.mul(ops.exp(ops.mul(self._p(global_step), math.log(self.decay_rate))), self.learning_rate)


class NaturalExpDecayLR(_DecayLR):
    """``learning_rate * exp(-decay_rate * p)``."""

    def construct(self, global_step):
        return ops.mul(ops.exp(ops.mul(self._p(global_step), -self.decay_rate)), self.learning_rate)


class InverseDecayLR(_DecayLR):
    """``learning_rate / (1 + decay_rate * p)``."""

    def construct(self, global_step):
        return ops.div(self.learning_rate, ops.add(ops.mul(self._p(global_step), self.decay_rate), 1.0))


class CosineDecayLR(LearningRateSchedule):
    """``min_lr + 0.5 * (max_lr - min_lr) * (1 + cos(pi * min(step, decay_steps) / decay_steps))``."""

    def __init__(self, min_lr, max_lr, decay_steps):
        super().__init__()
        name = "CosineDecayLR"
        self.min_lr = _float(name, "min_lr", min_lr, positive=False)
        self.max_lr = _float(name, "max_lr", max_lr)
        if min_lr >= max_lr:
            raise ValueError(f"{name}: max_lr must be greater than min_lr, got {max_lr} and {min_lr}")
        self.decay_steps = _check_int(name, "decay_steps", decay_steps)

    def construct(self, global_step):
        t = ops.minimum(_step(global_step), float(self.decay_steps))
        cos = ops.cos(ops.mul(t, math.pi / self.decay_steps))
        return ops.add(ops.mul(ops.add(cos, 1.0), 0.5 * (self.max_lr - self.min_lr)), self.min_lr)


class PolynomialDecayLR(LearningRateSchedule):
    """``(learning_rate - end) * (1 - t / T) ** power + end``; ``t = min(step, decay_steps)``,
    ``T = decay_steps`` -- or, with ``update_decay_steps``, ``t = step`` and ``T`` the next multiple
    of ``decay_steps`` (at least one)."""

    def __init__(self, learning_rate, end_learning_rate, decay_steps, power, update_decay_steps=False):
        super().__init__()
        name = "PolynomialDecayLR"
        self.learning_rate = _float(name, "learning_rate", learning_rate)
        self.end_learning_rate = _float(name, "end_learning_rate", end_learning_rate, positive=False)
        self.decay_steps = _check_int(name, "decay_steps", decay_steps)
        self.power = _float(name, "power", power)
        self.update_decay_steps = _check_bool(name, "update_decay_steps", update_decay_steps)

    def construct(self, global_step):
        step = _step(global_step)
        if self.update_decay_steps:
            t = step
            period = ops.mul(ops.maximum(ops.ceil(ops.div(step, float(self.decay_steps))), 1.0), float(self.decay_steps))
        else:
            t = ops.minimum(step, float(self.decay_steps))
            period = float(self.decay_steps)
        frac = ops.sub(1.0, ops.div(t, period))
        return ops.add(ops.mul(ops.pow(frac, self.power), self.learning_rate - self.end_learning_rate),
                       self.end_learning_rate)


class WarmUpLR(LearningRateSchedule):
    """``learning_rate * min(step, warmup_steps) / warmup_steps``."""

    def __init__(self, learning_rate, warmup_steps):
        super().__init__()
        self.learning_rate = _float("WarmUpLR", "learning_rate", learning_rate, positive=False)
        self.warmup_steps = _check_int("WarmUpLR", "warmup_steps", warmup_steps)

    def construct(self, global_step):
        t = ops.minimum(_step(global_step), float(self.warmup_steps))
        return ops.mul(t, self.learning_rate / self.warmup_steps)
