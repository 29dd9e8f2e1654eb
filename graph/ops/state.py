"""Ops with side effects on their first input: ``assign`` (in-place parameter update).

Eager execution writes the new value into the target tensor; graph building records an explicit
parameter update on the graph, so in-place updates are visible in the IR.
"""
from __future__ import annotations

from ..aval import AVal
from .core import STATE, Op, broadcast_shapes, describe, fail, is_tensorlike, register


def _infer_assign(variable, value):
    if is_tensorlike(value):
        if broadcast_shapes("assign", tuple(variable.shape), tuple(value.shape)) != tuple(variable.shape):
            fail("assign", f"value shape {tuple(value.shape)} does not fit variable shape {tuple(variable.shape)}")
        if value.dtype.is_float and not variable.dtype.is_float:
            fail("assign", f"cannot assign {describe(value)} to {describe(variable)}", TypeError)
    return AVal(variable.shape, variable.dtype)


def _assign_impl(xp, variable, value):
    out = xp.empty_like(variable)
    out[...] = value
    return out


register(Op("assign", prim="Assign", inputs=("variable", "value"), impl=_assign_impl,
            infer=_infer_assign, kind=STATE, mutates=0,
            nondiff="in-place update: the new value of the variable is not differentiated",
            doc="variable <- value (in place); returns the new value"))
