"""More activation Cells of MindSpore 2.x ``nn``: Softmin, GLU, CELU, Threshold, Tanhshrink,
SoftShrink, HShrink, RReLU and Softmax2d, each composed of existing ops (softmax, sigmoid, exp,
select...), so every mode and the autodiff agree.

Example:
    >>> from runtime import nn, Tensor
    >>> nn.SoftShrink(0.5)(Tensor([-1.0, 0.2, 2.0]))
    Tensor(shape=[3], dtype=Float32, value=[-0.5,  0. ,  1.5])
    >>> nn.GLU()(Tensor([[1.0, 2.0, 0.0, 0.0]])).asnumpy().tolist()
    [[0.5, 1.0]]
"""
from __future__ import annotations

from ... import ops
from ..cell import Cell
from .basic import _ACTIVATIONS

__all__ = ["Softmin", "GLU", "CELU", "Threshold", "Tanhshrink", "SoftShrink", "HShrink", "RReLU", "Softmax2d",
           "FastGelu", "LRN"]


def _number(cls_name, name, v):
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise TypeError(f"{cls_name}: {name} must be a float, got {type(v).__name__} {v!r}")
    return float(v)


def _axis(cls_name, axis):
    if isinstance(axis, bool) or not isinstance(axis, int):
        raise TypeError(f"{cls_name}: axis must be an int, got {type(axis).__name__} {axis!r}")
    return axis


class FastGelu(Cell):
    """``nn.FastGelu``: ``x / (1 + exp(-1.702 |x|)) * exp(0.851 (x - |x|))`` (= ``x * sigmoid(1.702 x)``),
    the Cell form of ``ops.fast_gelu``."""

    def construct(self, x):
        return ops.fast_gelu(x)


class LRN(Cell):
    """``nn.LRN``: Local Response Normalization over channels, the Cell form of ``ops.lrn`` (same
    arguments and defaults)."""

    def __init__(self, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5, norm_region="ACROSS_CHANNELS"):
        super().__init__()
        self.depth_radius, self.bias, self.alpha, self.beta = depth_radius, bias, alpha, beta
        self.norm_region = norm_region

    def construct(self, input_x):
        return ops.lrn(input_x, self.depth_radius, self.bias, self.alpha, self.beta, self.norm_region)


class Softmin(Cell):
    """``softmax(-x)`` along ``axis``: exp(-x_i) / sum_j exp(-x_j)."""

    def __init__(self, axis=-1):
        super().__init__()
        self.axis = _axis("Softmin", axis)

    def construct(self, x):
        return ops.softmax(ops.neg(x), self.axis)


class GLU(Cell):
    """Gated linear unit: the input split in two halves a, b along ``axis`` (its size must be
    even), ``a * sigmoid(b)``."""

    def __init__(self, axis=-1):
        super().__init__()
        self.dim = _axis("GLU", axis)

    def construct(self, x):
        size = x.shape[self.dim]
        if size % 2:
            raise ValueError(f"GLU: the size of axis {self.dim} must be even, got shape {tuple(x.shape)}")
        a, b = ops.split(x, size // 2, self.dim)
        return ops.mul(a, ops.sigmoid(b))


class CELU(Cell):
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``; ``alpha`` must not be 0."""

    def __init__(self, alpha=1.0):
        super().__init__()
        self.alpha = _number("CELU", "alpha", alpha)
        if self.alpha == 0.0:
            raise ValueError("CELU: alpha must not be 0")

    def construct(self, x):
        negative = ops.mul(ops.sub(ops.exp(ops.div(x, self.alpha)), 1.0), self.alpha)
        return ops.add(ops.maximum(x, 0.0), ops.minimum(negative, 0.0))


class Threshold(Cell):
    """``x`` where ``x > threshold``, ``value`` elsewhere."""

    def __init__(self, threshold, value):
        super().__init__()
        self.threshold = _number("Threshold", "threshold", threshold)
        self.value = _number("Threshold", "value", value)

    def construct(self, input_x):
        return ops.select(ops.greater(input_x, self.threshold), input_x, ops.full_like(input_x, self.value))


class Tanhshrink(Cell):
    """``x - tanh(x)``."""

    def construct(self, x):
        return ops.sub(x, ops.tanh(x))


class SoftShrink(Cell):
    """``x - lambd`` where ``x > lambd``, ``x + lambd`` where ``x < -lambd``, 0 elsewhere
    (``lambd >= 0``)."""

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = _number("SoftShrink", "lambd", lambd)
        if self.lambd < 0:
            raise ValueError(f"SoftShrink: lambd must be >= 0, got {self.lambd}")

    def construct(self, input_x):
        zeros = ops.zeros_like(input_x)
        lower = ops.select(ops.less(input_x, -self.lambd), ops.add(input_x, self.lambd), zeros)
        return ops.select(ops.greater(input_x, self.lambd), ops.sub(input_x, self.lambd), lower)


class HShrink(Cell):
    """``x`` where ``|x| > lambd``, 0 elsewhere."""

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = _number("HShrink", "lambd", lambd)

    def construct(self, input_x):
        return ops.select(ops.greater(ops.abs(input_x), self.lambd), input_x, ops.zeros_like(input_x))


class RReLU(Cell):
    """Randomized leaky ReLU: ``x`` where ``x >= 0``, ``alpha * x`` elsewhere, with ``alpha`` drawn
    uniformly from [lower, upper] per element while training and ``(lower + upper) / 2`` when not."""

    def __init__(self, lower=1 / 8, upper=1 / 3):
        super().__init__()
        self.lower = _number("RReLU", "lower", lower)
        self.upper = _number("RReLU", "upper", upper)
        if self.lower > self.upper:
            raise ValueError(f"RReLU: lower ({self.lower}) must be <= upper ({self.upper})")

    def construct(self, x):
        if self.training:
            alpha = ops.add(ops.mul(ops.rand_like(x), self.upper - self.lower), self.lower)
        else:
            alpha = (self.lower + self.upper) / 2
        return ops.select(ops.greater_equal(x, 0.0), x, ops.mul(x, alpha))


class Softmax2d(Cell):
    """Softmax over the channels (axis -3) of each spatial position of (C, H, W) or (N, C, H, W)
    input."""

    def construct(self, x):
        if x.ndim not in (3, 4):
            raise ValueError(f"Softmax2d: expects a 3-D (C, H, W) or 4-D (N, C, H, W) input, got shape "
                             f"{tuple(x.shape)}")
        return ops.softmax(x, -3)


# the rest of MindSpore 2.x's ``nn.get_activation`` names (Threshold needs its two arguments there too)
_ACTIVATIONS.update({"softmin": Softmin, "rrelu": RReLU, "tanhshrink": Tanhshrink, "fast_gelu": FastGelu,
                     "softshrink": SoftShrink, "hshrink": HShrink, "threshold": Threshold})
