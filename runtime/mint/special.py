"""``mindspore.mint.special``: torch.special's spellings of existing ``runtime.ops`` functions.

Example:
    >>> import numpy as np
    >>> import runtime as ms
    >>> from runtime import mint
    >>> print(mint.special.exp2(ms.Tensor(np.array([1.0, 3.0], np.float32))))
    [2. 8.]
"""
from __future__ import annotations

from .. import ops as _ops
from .nn.functional import log_softmax

__all__ = ["erfc", "expm1", "exp2", "log1p", "log_softmax", "round", "sinc", "logit"]


def erfc(input):
    """``1 - erf(input)``."""
    return _ops.erfc(input)


def expm1(input):
    """``exp(input) - 1``, accurate near 0."""
    return _ops.expm1(input)


def exp2(input):
    return _ops.exp2(input)


def log1p(input):
    """``log(1 + input)``, accurate near 0."""
    return _ops.log1p(input)


def round(input):
    """Half to even."""
    return _ops.round(input)


def sinc(input):
    """``sin(pi x) / (pi x)`` (1 at 0)."""
    return _ops.sinc(input)


def logit(input, eps=None):
    """``log(p / (1 - p))`` of ``input`` clamped to ``[eps, 1 - eps]`` when ``eps`` is given."""
    return _ops.logit(input, eps)


log_softmax = log_softmax
