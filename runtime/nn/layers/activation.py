"""More activation Cells (``nn.ELU``, ``nn.HSwish``, ``nn.PReLU``...), each over the functional
op of the same name in ``runtime.ops``; ``get_activation`` knows them by name too.

Example:
    >>> from runtime import nn, Tensor
    >>> nn.HSigmoid()(Tensor([-4.0, 0.0, 4.0]))
    Tensor(shape=[3], dtype=Float32, value=[0. , 0.5, 1. ])
"""
from __future__ import annotations

import numpy as np

from ... import ops
from ...parameter import Parameter
from ...tensor import Tensor
from ..cell import Cell
from .basic import _ACTIVATIONS

__all__ = ["ELU", "SeLU", "HSwish", "HSigmoid", "Mish", "Softsign", "LogSigmoid", "Hardtanh", "PReLU"]


class ELU(Cell):
    """x where x > 0, alpha * (exp(x) - 1) elsewhere."""

    def __init__(self, alpha=1.0):
        super().__init__()
        if isinstance(alpha, bool) or not isinstance(alpha, (int, float)):
            raise TypeError(f"ELU: alpha must be a number, got {alpha!r}")
        self.alpha = float(alpha)

    def construct(self, x):
        return ops.elu(x, self.alpha)


class SeLU(Cell):
    def construct(self, input_x):
        return ops.selu(input_x)


class HSwish(Cell):
    def construct(self, x):
        return ops.hardswish(x)


class HSigmoid(Cell):
    def construct(self, input_x):
        return ops.hardsigmoid(input_x)


class Mish(Cell):
    def construct(self, x):
        return ops.mish(x)


class Softsign(Cell):
    def construct(self, x):
        return ops.softsign(x)


class LogSigmoid(Cell):
    def construct(self, input_x):
        return ops.logsigmoid(input_x)


class Hardtanh(Cell):
    """x clipped to [min_val, max_val]."""

    def __init__(self, min_val=-1.0, max_val=1.0):
        super().__init__()
        if not min_val < max_val:
            raise ValueError(f"Hardtanh: min_val {min_val} must be less than max_val {max_val}")
        self.min_val, self.max_val = float(min_val), float(max_val)

    def construct(self, x):
        return ops.clamp(x, self.min_val, self.max_val)


class PReLU(Cell):
    """x where x > 0, w * x elsewhere, with a learnt slope per channel (axis 1) or one shared
    slope (``channel=1``)."""

    def __init__(self, channel=1, w=0.25):
        super().__init__()
        if isinstance(channel, bool) or not isinstance(channel, int) or channel < 1:
            raise ValueError(f"PReLU: channel must be a positive int, got {channel!r}")
        init = w.asnumpy() if isinstance(w, Tensor) else np.full((channel,), w, np.float32)
        if init.shape != (channel,):
            raise ValueError(f"PReLU: w must be a float or a ({channel},) tensor, got shape {init.shape}")
        self.channel = channel
        self.w = Parameter(Tensor(init.astype(np.float32)), name="a")

    def construct(self, x):
        return ops.prelu(x, self.w)


_ACTIVATIONS.update({"elu": ELU, "selu": SeLU, "hswish": HSwish, "hsigmoid": HSigmoid, "mish": Mish,
                     "softsign": Softsign, "logsigmoid": LogSigmoid, "hardtanh": Hardtanh, "prelu": PReLU})
