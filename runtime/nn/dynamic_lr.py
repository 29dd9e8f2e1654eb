"""Per-step learning-rate lists (``mindspore.nn.dynamic_lr``): pass the list as an optimizer's
``learning_rate`` and step ``i`` uses ``lr[i]`` (the last value after the end).

Every function follows MindSpore 2.x's documented formula, with
``current_epoch = floor(i / step_per_epoch)``.

Example:
    >>> from runtime import nn
    >>> nn.piecewise_constant_lr([2, 5], [0.1, 0.05])
    [0.1, 0.1, 0.05, 0.05, 0.05]
    >>> [round(v, 4) for v in nn.warmup_lr(0.1, 6, 2, 2)]
    [0.0, 0.0, 0.05, 0.05, 0.1, 0.1]
"""
from __future__ import annotations

import math
import numbers

from .layers.basic import _check_bool, _check_int

__all__ = ["piecewise_constant_lr", "exponential_decay_lr", "natural_exp_decay_lr", "inverse_decay_lr",
           "cosine_decay_lr", "polynomial_decay_lr", "warmup_lr"]


def _float(fn, name, v, positive=True):
    if isinstance(v, bool) or not isinstance(v, float):
        raise TypeError(f"{fn}: {name} must be a float, got {type(v).__name__} {v!r}")
    if (positive and v <= 0) or v < 0:
        raise ValueError(f"{fn}: {name} must be {'> 0' if positive else '>= 0'}, got {v}")
    return v


def _epochs(total_step, step_per_epoch):
    """current_epoch of every step."""
    return [i // step_per_epoch for i in range(total_step)]


def piecewise_constant_lr(milestone, learning_rates):
    """``learning_rates[t]`` for the steps in ``[milestone[t-1], milestone[t])``; the list has
    ``milestone[-1]`` entries."""
    fn = "piecewise_constant_lr"
    if not isinstance(milestone, (list, tuple)) or not isinstance(learning_rates, (list, tuple)):
        raise TypeError(f"{fn}: milestone and learning_rates must be lists or tuples")
    if len(milestone) != len(learning_rates):
        raise ValueError(f"{fn}: milestone has {len(milestone)} entries but learning_rates has {len(learning_rates)}")
    out, last = [], 0
    for i, (m, lr) in enumerate(zip(milestone, learning_rates)):
        _check_int(fn, f"milestone[{i}]", m)
        if isinstance(lr, bool) or not isinstance(lr, numbers.Real):
            raise TypeError(f"{fn}: learning_rates[{i}] must be a float, got {lr!r}")
        if m < last:
            raise ValueError(f"{fn}: milestone must increase, got milestone[{i}] = {m} after {last}")
        out += [lr] * (m - last)
        last = m
    return out


def _decay_args(fn, learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch, is_stair):
    _float(fn, "learning_rate", learning_rate)
    _float(fn, "decay_rate", decay_rate)
    _check_int(fn, "total_step", total_step)
    _check_int(fn, "step_per_epoch", step_per_epoch)
    _check_int(fn, "decay_epoch", decay_epoch)
    _check_bool(fn, "is_stair", is_stair)


def exponential_decay_lr(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch, is_stair=False):
    """``learning_rate * decay_rate ** (current_epoch / decay_epoch)`` (floored with ``is_stair``)."""
    _decay_args("exponential_decay_lr", learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch, is_stair)
    return [learning_rate * decay_rate ** ((e // decay_epoch) if is_stair else (e / decay_epoch))
            for e in _epochs(total_step, step_per_epoch)]


def natural_exp_decay_lr(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch, is_stair=False):
    """``learning_rate * exp(-decay_rate * current_epoch)``; with ``is_stair`` the epoch is rounded
    down to a multiple of ``decay_epoch``."""
    _decay_args("natural_exp_decay_lr", learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch, is_stair)
    return [learning_rate * math.exp(-decay_rate * ((e // decay_epoch) * decay_epoch if is_stair else e))
            for e in _epochs(total_step, step_per_epoch)]


def inverse_decay_lr(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch, is_stair=False):
    """``learning_rate / (1 + decay_rate * current_epoch / decay_epoch)`` (floored with ``is_stair``)."""
    _decay_args("inverse_decay_lr", learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch, is_stair)
    return [learning_rate / (1 + decay_rate * ((e // decay_epoch) if is_stair else (e / decay_epoch)))
            for e in _epochs(total_step, step_per_epoch)]


def cosine_decay_lr(min_lr, max_lr, total_step, step_per_epoch, decay_epoch):
    """``min_lr + 0.5 * (max_lr - min_lr) * (1 + cos(pi * min(current_epoch, decay_epoch) / decay_epoch))``."""
    fn = "cosine_decay_lr"
    _float(fn, "min_lr", min_lr, positive=False)
    _float(fn, "max_lr", max_lr)
    _check_int(fn, "total_step", total_step)
    _check_int(fn, "step_per_epoch", step_per_epoch)
    _check_int(fn, "decay_epoch", decay_epoch)
    if min_lr >= max_lr:
        raise ValueError(f"{fn}: max_lr must be greater than min_lr, got max_lr={max_lr}, min_lr={min_lr}")
    half = 0.5 * (max_lr - min_lr)
    return [min_lr + half * (1 + math.cos(math.pi * min(e, decay_epoch) / decay_epoch))
            for e in _epochs(total_step, step_per_epoch)]


def polynomial_decay_lr(learning_rate, end_learning_rate, total_step, step_per_epoch, decay_epoch, power,
                        update_decay_epoch=False):
    """``(learning_rate - end) * (1 - t / T) ** power + end`` with ``t = min(current_epoch,
    decay_epoch)`` and ``T = decay_epoch``; with ``update_decay_epoch``, ``t = current_epoch`` and ``T``
    grows to the next multiple of ``decay_epoch``."""
    fn = "polynomial_decay_lr"
    _float(fn, "learning_rate", learning_rate)
    _float(fn, "end_learning_rate", end_learning_rate, positive=False)
    _float(fn, "power", power)
    _check_int(fn, "total_step", total_step)
    _check_int(fn, "step_per_epoch", step_per_epoch)
    _check_int(fn, "decay_epoch", decay_epoch)
    _check_bool(fn, "update_decay_epoch", update_decay_epoch)
    out, delta = [], learning_rate - end_learning_rate
    for e in _epochs(total_step, step_per_epoch):
        if update_decay_epoch:
            t, period = e, decay_epoch * max(math.ceil(e / decay_epoch), 1)
        else:
            t, period = min(e, decay_epoch), decay_epoch
        out.append(delta * (1 - t / period) ** power + end_learning_rate)
    return out


def warmup_lr(learning_rate, total_step, step_per_epoch, warmup_epoch):
    """``learning_rate * min(current_epoch, warmup_epoch) / warmup_epoch``."""
    fn = "warmup_lr"
    _float(fn, "learning_rate", learning_rate, positive=False)
    _check_int(fn, "total_step", total_step)
    _check_int(fn, "step_per_epoch", step_per_epoch)
    _check_int(fn, "warmup_epoch", warmup_epoch)
    return [learning_rate * min(e, warmup_epoch) / warmup_epoch for e in _epochs(total_step, step_per_epoch)]
