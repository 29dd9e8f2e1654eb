"""Parameter initializers (``runtime.common.initializer``, as ``mindspore.common.initializer``).

``initializer(init, shape, dtype)`` returns a Tensor filled by ``init``: an Initializer instance,
a name ('normal', 'zeros', 'ones', 'xavier_uniform', 'he_uniform', 'he_normal', 'uniform',
'truncated_normal'), a number, or a Tensor/array of the right shape. Random initializers draw
from the generator seeded by ``ms.set_seed``.

Example:
    >>> from runtime.common.initializer import initializer, Normal
    >>> initializer(Normal(0.02), (2, 3)).shape
    (2, 3)
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from graph.dtypes import as_dtype, float32

from ..random import init_generator
from ..tensor import Tensor


def _fans(shape):
    if len(shape) < 2:
        n = shape[0] if shape else 1
        return n, n
    receptive = int(np.prod(shape[2:])) if len(shape) > 2 else 1
    return shape[1] * receptive, shape[0] * receptive


def _gain(nonlinearity, param=None):
    if nonlinearity in ("linear", "sigmoid", "conv2d"):
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else param
        return math.sqrt(2.0 / (1 + slope ** 2))
    raise ValueError(f"initializer: unsupported nonlinearity {nonlinearity!r}")


class Initializer:
    """Base class: ``init(shape) -> np.ndarray`` (float64; cast by :func:`initializer`)."""

    def __call__(self, shape):
        return self.init(tuple(shape))

    def init(self, shape):  # pragma: no cover - abstract
        raise NotImplementedError

    def __repr__(self):
        fields = ", ".join(f"{k}={v}" for k, v in vars(self).items())
        return f"{type(self).__name__}({fields})"


class Zero(Initializer):
    def init(self, shape):
        return np.zeros(shape)


class One(Initializer):
    def init(self, shape):
        return np.ones(shape)


class Constant(Initializer):
    def __init__(self, value):
        self.value = value

    def init(self, shape):
        return np.full(shape, self.value, dtype=np.float64)


class Normal(Initializer):
    """N(mean, sigma**2)."""

    def __init__(self, sigma=0.01, mean=0.0):
        if sigma < 0:
            raise ValueError(f"Normal: sigma must be >= 0, got {sigma}")
        self.sigma, self.mean = sigma, mean

    def init(self, shape):
        return init_generator().normal(self.mean, self.sigma, shape)


class TruncatedNormal(Initializer):
    """N(0, sigma**2) truncated to [-2 sigma, 2 sigma] (redrawn)."""

    def __init__(self, sigma=0.01):
        self.sigma = sigma

    def init(self, shape):
        g = init_generator()
        out = g.normal(0.0, self.sigma, shape)
        bad = np.abs(out) > 2 * self.sigma
        while bad.any():
            out[bad] = g.normal(0.0, self.sigma, int(bad.sum()))
            bad = np.abs(out) > 2 * self.sigma
        return out


class Uniform(Initializer):
    """U(-scale, scale)."""

    def __init__(self, scale=0.07):
        self.scale = scale

    def init(self, shape):
        return init_generator().uniform(-self.scale, self.scale, shape)


class XavierUniform(Initializer):
    def __init__(self, gain=1):
        self.gain = gain

    def init(self, shape):
        fan_in, fan_out = _fans(shape)
        bound = self.gain * math.sqrt(6.0 / (fan_in + fan_out))
        return init_generator().uniform(-bound, bound, shape)


class XavierNormal(Initializer):
    def __init__(self, gain=1):
        self.gain = gain

    def init(self, shape):
        fan_in, fan_out = _fans(shape)
        return init_generator().normal(0.0, self.gain * math.sqrt(2.0 / (fan_in + fan_out)), shape)


class HeUniform(Initializer):
    """Kaiming uniform (MindSpore's default for Dense/Conv weights with negative_slope=sqrt(5))."""

    def __init__(self, negative_slope=0, mode="fan_in", nonlinearity="leaky_relu"):
        self.negative_slope, self.mode, self.nonlinearity = negative_slope, mode, nonlinearity

    def init(self, shape):
        fan_in, fan_out = _fans(shape)
        fan = fan_in if self.mode == "fan_in" else fan_out
        bound = _gain(self.nonlinearity, self.negative_slope) * math.sqrt(3.0 / max(fan, 1))
        return init_generator().uniform(-bound, bound, shape)


class HeNormal(Initializer):
    def __init__(self, negative_slope=0, mode="fan_in", nonlinearity="leaky_relu"):
        self.negative_slope, self.mode, self.nonlinearity = negative_slope, mode, nonlinearity

    def init(self, shape):
        fan_in, fan_out = _fans(shape)
        fan = fan_in if self.mode == "fan_in" else fan_out
        std = _gain(self.nonlinearity, self.negative_slope) / math.sqrt(max(fan, 1))
        return init_generator().normal(0.0, std, shape)


_NAMED = {
    "zeros": Zero, "zero": Zero, "ones": One, "one": One, "normal": Normal, "uniform": Uniform,
    "truncatednormal": TruncatedNormal, "truncated_normal": TruncatedNormal,
    "xavier_uniform": XavierUniform, "xavieruniform": XavierUniform, "xavier_normal": XavierNormal,
    "he_uniform": HeUniform, "heuniform": HeUniform, "he_normal": HeNormal, "henormal": HeNormal,
}


def initializer(init, shape: int | tuple | list | None = None, dtype=float32) -> Tensor:
    """A Tensor of ``shape`` and ``dtype`` filled by ``init`` (see module docstring)."""
    dt = as_dtype(dtype)
    if isinstance(shape, int):
        shape = (shape,)
    if isinstance(init, Tensor):
        arr = init.asnumpy()
        if shape is not None and tuple(arr.shape) != tuple(shape):
            raise ValueError(f"initializer: tensor of shape {arr.shape} does not match shape {tuple(shape)}")
        return Tensor._placed(arr.astype(dt.np))
    if isinstance(init, np.ndarray):
        return initializer(Tensor._wrap(init), shape, dtype)
    if shape is None:
        raise ValueError("initializer: shape is required")
    shape = tuple(int(s) for s in shape)
    if any(s < 0 for s in shape):
        raise ValueError(f"initializer: shape {shape} has a negative dimension")
    if isinstance(init, str):
        cls = _NAMED.get(init.lower())
        if cls is None:
            raise ValueError(f"initializer: unknown initializer {init!r}; valid: {sorted(set(_NAMED))}")
        init = cls()
    elif isinstance(init, numbers.Number) and not isinstance(init, bool):
        init = Constant(init)
    elif isinstance(init, type) and issubclass(init, Initializer):
        init = init()
    if not isinstance(init, Initializer):
        raise TypeError(f"initializer: unsupported init {init!r}")
    return Tensor._placed(np.asarray(init(shape)).astype(dt.np))
