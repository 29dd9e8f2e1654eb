"""MindSpore 2.x random functions (``ops.randn``, ``ops.uniform``...) over the registry's draws.

Every draw is a registered random op (``standard_normal``, ``uniform_real``, ``uniform_int``), so a
function or ``construct`` that calls these draws new numbers on every call in PyNative, in graph
mode and under ``@jit`` alike, from the one stream ``ms.set_seed`` seeds. ``seed`` arguments are
accepted and validated (MindSpore's signatures); the numbers come from that global stream.

Example:
    >>> import runtime as ms
    >>> from runtime import ops
    >>> ms.set_seed(0)
    >>> x = ops.randn(2, 3)
    >>> x.shape, x.dtype
    ((2, 3), Float32)
    >>> r = ops.randint(0, 10, (1000,)); r.dtype, 0 <= int(r.min()) and int(r.max()) < 10
    (Int64, True)
"""
from __future__ import annotations

import numpy as np

from graph.dtypes import as_dtype, float32, int64
from graph.ops import REGISTRY, bind

_R = REGISTRY

__all__ = ["randn", "rand", "randint", "standard_normal", "uniform", "normal", "randn_like", "rand_like",
           "randint_like"]


def _size(size, fn):
    """``randn(2, 3)``, ``randn((2, 3))`` and ``randn([2, 3])`` all mean shape (2, 3)."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    for s in size:
        if isinstance(s, bool) or not isinstance(s, (int, np.integer)):
            raise TypeError(f"ops.{fn}: size must be ints or one tuple of ints, got {size!r}")
    return tuple(int(s) for s in size)


def _check_seed(seed, fn):
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0):
        raise ValueError(f"ops.{fn}: seed must be a non-negative int or None, got {seed!r}")


def _float_dtype(dtype, fn):
    dt = float32 if dtype is None else as_dtype(dtype)
    if not dt.is_float:
        raise TypeError(f"ops.{fn}: dtype must be a floating-point type, got {dt}")
    return dt


def randn(*size, dtype=None, seed=None):
    """Samples of the standard normal distribution N(0, 1) of shape ``size`` (float32)."""
    _check_seed(seed, "randn")
    return bind(_R["standard_normal"], shape=_size(size, "randn"), dtype=_float_dtype(dtype, "randn"))


def rand(*size, dtype=None, seed=None):
    """Samples of the uniform distribution U[0, 1) of shape ``size`` (float32)."""
    _check_seed(seed, "rand")
    return bind(_R["uniform_real"], shape=_size(size, "rand"), dtype=_float_dtype(dtype, "rand"))


def randint(low, high, size, seed=None, *, dtype=None):
    """Integers drawn uniformly from ``[low, high)`` of shape ``size`` (int64 by default)."""
    _check_seed(seed, "randint")
    if not isinstance(size, (tuple, list)):
        raise TypeError(f"ops.randint: size must be a tuple of ints, got {size!r}")
    return bind(_R["uniform_int"], shape=tuple(size), low=low, high=high, dtype=int64 if dtype is None else dtype)


def standard_normal(shape, seed=0, seed2=0):
    """``ops.standard_normal(shape, seed=0, seed2=0)``: N(0, 1) samples (float32)."""
    return bind(_R["standard_normal"], shape=shape, seed=seed, seed2=seed2)


def uniform(shape, minval, maxval, seed=None, dtype=float32):
    """``ops.uniform(shape, minval, maxval, seed=None, dtype=float32)``: samples of U[minval,
    maxval); an integer ``dtype`` draws integers (``minval``/``maxval`` then read as ints)."""
    _check_seed(seed, "uniform")
    dt = as_dtype(dtype)
    if dt.is_int:
        return bind(_R["uniform_int"], shape=shape, low=minval, high=maxval, dtype=dt)
    u = bind(_R["uniform_real"], shape=shape, dtype=dt)
    return bind(_R["add"], bind(_R["mul"], u, bind(_R["sub"], maxval, minval)), minval)


def normal(shape, mean, stddev, seed=None):
    """``ops.normal(shape, mean, stddev, seed=None)``: samples of N(mean, stddev**2), of the
    broadcast shape of ``shape``, ``mean`` and ``stddev``."""
    _check_seed(seed, "normal")
    z = bind(_R["standard_normal"], shape=shape)
    return bind(_R["add"], bind(_R["mul"], z, stddev), mean)


def randn_like(input, seed=None, *, dtype=None):  # noqa: A002 - MindSpore's names
    """N(0, 1) samples with ``input``'s shape (and dtype unless given)."""
    return randn(tuple(input.shape), dtype=dtype or _like_float(input), seed=seed)


def rand_like(input, seed=None, *, dtype=None):  # noqa: A002
    """U[0, 1) samples with ``input``'s shape (and dtype unless given)."""
    return rand(tuple(input.shape), dtype=dtype or _like_float(input), seed=seed)


def randint_like(input, low, high, seed=None, *, dtype=None):  # noqa: A002
    """Integers from ``[low, high)`` with ``input``'s shape (and its dtype unless given)."""
    dt = as_dtype(dtype) if dtype is not None else input.dtype
    if dt.is_int:
        return randint(low, high, tuple(input.shape), seed, dtype=dt)
    return bind(_R["cast"], randint(low, high, tuple(input.shape), seed), dtype=dt)


def _like_float(x):
    return x.dtype if x.dtype.is_float else float32
