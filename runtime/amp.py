"""Loss scaling for mixed-precision training (``mindspore.amp``): ``all_finite``,
``StaticLossScaler`` and ``DynamicLossScaler`` with MindSpore 2.x's update rule.

The scale and the step counter are Parameters updated with ``ops.assign``, so a train step that
scales, unscales and adjusts runs as one graph under ``@jit`` with no recompile as the scale
changes.

Example:
    >>> import numpy as np
    >>> from runtime import Tensor, amp, float16
    >>> scaler = amp.DynamicLossScaler(scale_value=2**10, scale_factor=2, scale_window=1)
    >>> grads = (Tensor(np.array([np.nan, 1.0]), float16), Tensor(np.array([0.2]), float16))
    >>> scaler.adjust(amp.all_finite(scaler.unscale(grads)))
    True
    >>> print(scaler.scale_value.asnumpy())
    512.0
"""
from __future__ import annotations

import numbers

from graph.dtypes import float32, int32

from . import ops
from .parameter import Parameter
from .tensor import Tensor

__all__ = ["all_finite", "LossScaler", "StaticLossScaler", "DynamicLossScaler"]


def _tensors(inputs):
    return list(inputs) if isinstance(inputs, (tuple, list)) else [inputs]


def _map(fn, inputs):
    """``fn`` over a tensor or over each tensor of a tuple/list (the container type is kept)."""
    if isinstance(inputs, (tuple, list)):
        return type(inputs)(fn(x) for x in inputs)
    return fn(inputs)


def all_finite(inputs):
    """A 0-d bool tensor: True when no element of ``inputs`` (a tensor or a tuple/list of them)
    is inf or NaN."""
    flags = [ops.isfinite(x).all() for x in _tensors(inputs)]
    if not flags:
        return Tensor(True)
    out = flags[0]
    for flag in flags[1:]:
        out = ops.logical_and(out, flag)
    return out


def _check_scale(name, scale_value):
    if isinstance(scale_value, bool) or not isinstance(scale_value, numbers.Real):
        raise TypeError(f"{name}: scale_value must be a float or int, got {type(scale_value).__name__}")
    if scale_value < 1.0:
        raise ValueError(f"{name}: scale_value must be >= 1, got {scale_value}")


def _check_positive_int(name, what, v):
    if isinstance(v, bool) or not isinstance(v, int) or v < 1:
        raise ValueError(f"{name}: {what} must be a positive int, got {v!r}")
    return v


class LossScaler:
    """Base of the loss scalers: ``scale`` multiplies the loss (or gradients) by the scale,
    ``unscale`` divides gradients by it (in each gradient's dtype), ``adjust(grads_finite)``
    updates the scale."""

    scale_value: Parameter

    def scale(self, inputs):
        return _map(lambda x: x * self.scale_value.astype(x.dtype), inputs)

    def unscale(self, inputs):
        return _map(lambda x: x * ops.reciprocal(self.scale_value).astype(x.dtype), inputs)

    def adjust(self, grads_finite):
        raise NotImplementedError


class StaticLossScaler(LossScaler):
    """A fixed loss scale.

    Example:
        >>> from runtime import Tensor, amp
        >>> print(amp.StaticLossScaler(2**10).scale(Tensor([1.0])))
        [1024.]
    """

    def __init__(self, scale_value):
        _check_scale("StaticLossScaler", scale_value)
        self.scale_value = Parameter(Tensor(scale_value, dtype=float32), name="scale_value")

    def adjust(self, grads_finite):
        """The scale is fixed: returns False."""
        return False


class DynamicLossScaler(LossScaler):
    """The largest scale that keeps gradients finite: after ``scale_window`` finite steps in a row
    the scale grows by ``scale_factor`` (unless that overflows float32); a step with non-finite
    gradients divides it by ``scale_factor`` (never below 1) and restarts the count."""

    def __init__(self, scale_value, scale_factor, scale_window):
        name = "DynamicLossScaler"
        _check_scale(name, scale_value)
        self.scale_value = Parameter(Tensor(scale_value, dtype=float32), name="scale_value")
        self.scale_window = _check_positive_int(name, "scale_window", scale_window)
        self.scale_factor = _check_positive_int(name, "scale_factor", scale_factor)
        self.counter = Parameter(Tensor(0, dtype=int32), name="counter")

    def adjust(self, grads_finite):
        """Update the scale and the counter from ``grads_finite`` (a 0-d bool tensor); returns True."""
        scale = self.scale_value
        grown = scale * self.scale_factor
        at_window = self.counter == (self.scale_window - 1)
        kept_or_grown = ops.select(at_window, ops.select(ops.isfinite(grown), grown, scale), scale)
        shrunk = ops.maximum(ops.ones((), scale.dtype), scale / self.scale_factor)
        ops.assign(self.scale_value, ops.select(grads_finite, kept_or_grown, shrunk))
        counter = ((self.counter + 1) % self.scale_window) * grads_finite.astype(int32)
        ops.assign(self.counter, counter)
        return True
