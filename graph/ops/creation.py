"""Tensors made from sizes and numbers alone: ``fill`` (``ops.zeros``/``ones``/``full``) and
``range`` (``ops.arange``).

They have no tensor operand. Eagerly they run their impl at once. While a frame is captured, a
call whose sizes are symbolic (``ops.ones((n, n))`` with ``n = x.shape[1]``, graph.symint) is a
node of the graph (``graph.ops.core.operandless_draws_to``), whose ``shape`` / ``limit``
attribute keeps the size's expression, so the graph holds for every size; a call with plain
sizes gives a constant, as before.

Example:
    >>> import numpy as np
    >>> from graph.ops import REGISTRY
    >>> from graph.dtypes import float32, int64
    >>> REGISTRY["fill"].impl(np, shape=(2, 3), value=1, dtype=float32)
    array([[1., 1., 1.],
           [1., 1., 1.]], dtype=float32)
    >>> REGISTRY["range"].impl(np, start=1, limit=7, delta=2, dtype=int64)
    array([1, 3, 5])
"""
from __future__ import annotations

import math

import numpy as np

from ..aval import AVal
from ..dtypes import float32, int64
from .core import EXTERN, REQUIRED, Attr, Op, a_dtype, a_size, fail, register


def _a_number(v, op, name):
    """A Python number (a numpy scalar becomes one); the float of a size keeps its expression."""
    if isinstance(v, np.generic):
        v = v.item()
    if not isinstance(v, (bool, int, float, complex)):
        raise TypeError(f"{op.prim} (ops.{op.name}): attribute {name} must be a number, got {v!r}")
    return v


def _fill_impl(xp, shape, value, dtype=float32):
    return xp.full(shape, value, dtype.np)


register(Op("fill", prim="Fill", inputs=(), impl=_fill_impl,
            infer=lambda shape, value, dtype=float32: AVal(shape, dtype),
            kind=EXTERN, nondiff="a constant has no gradient",
            attrs={"shape": Attr(REQUIRED, a_size), "value": Attr(REQUIRED, _a_number),
                   "dtype": Attr(float32, a_dtype)},
            doc="a tensor of the given shape and dtype filled with one number"))


def _range_length(start, limit, delta):
    """numpy's ``arange`` length: ceil((limit - start) / delta), at least 0."""
    if delta == 0:
        fail("range", "delta must not be zero")
    if all(isinstance(x, int) for x in (start, limit, delta)):
        return max(0, -((start - limit) // delta))
    return max(0, math.ceil((limit - start) / delta))


def _infer_range(start, limit, delta=1, dtype=int64):
    return AVal((_range_length(start, limit, delta),), dtype)


def _range_impl(xp, start, limit, delta=1, dtype=int64):
    return xp.arange(start, limit, delta).astype(dtype.np, copy=False)


register(Op("range", prim="Range", inputs=(), impl=_range_impl, infer=_infer_range,
            kind=EXTERN, nondiff="a constant has no gradient",
            attrs={"start": Attr(REQUIRED, _a_number), "limit": Attr(REQUIRED, _a_number),
                   "delta": Attr(1, _a_number), "dtype": Attr(int64, a_dtype)},
            doc="the numbers [start, limit) by delta (numpy's arange), as a 1-D tensor of dtype"))
