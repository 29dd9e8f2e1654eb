"""mindspore.numpy's logic functions: comparisons, logical operators, tests of values, set
membership; results are bool Tensors built with registry ops."""
from __future__ import annotations

import numbers

import numpy as onp

from graph.ops import bind
from graph.ops.core import is_tensorlike

from .. import ops as _ops
from ._convert import R, tensor, tensors

__all__ = ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "logical_and",
           "logical_or", "logical_xor", "logical_not", "isfinite", "isnan", "isinf", "isposinf",
           "isneginf", "isscalar", "isclose", "array_equal", "array_equiv", "signbit", "sometrue",
           "in1d", "isin"]


def _binary(op_name):
    def fn(x1, x2, dtype=None):
        a, b = tensors(x1, x2)
        return bind(R[op_name], a, b)
    fn.__name__ = fn.__qualname__ = op_name
    fn.__doc__ = f"Element-wise ``{op_name}`` of ``x1`` and ``x2`` (broadcast; a bool Tensor)."
    return fn


equal = _binary("equal")
not_equal = _binary("not_equal")
less = _binary("less")
less_equal = _binary("less_equal")
greater = _binary("greater")
greater_equal = _binary("greater_equal")


def _bool(x):
    x = tensor(x)
    return x if x.dtype.is_bool else bind(R["not_equal"], x, 0)


def logical_and(x1, x2, dtype=None):
    """Element-wise truth of ``x1 and x2``."""
    return bind(R["logical_and"], _bool(x1), _bool(x2))


def logical_or(x1, x2, dtype=None):
    """Element-wise truth of ``x1 or x2``."""
    return bind(R["logical_or"], _bool(x1), _bool(x2))


def logical_xor(x1, x2, dtype=None):
    """Element-wise truth of ``x1 xor x2``."""
    return bind(R["not_equal"], _bool(x1), _bool(x2))


def logical_not(a, dtype=None):
    """Element-wise ``not a``."""
    return bind(R["logical_not"], _bool(a))


def isfinite(x, dtype=None):
    return bind(R["isfinite"], tensor(x))


def isnan(x, dtype=None):
    return bind(R["isnan"], tensor(x))


def isinf(x, dtype=None):
    return bind(R["isinf"], tensor(x))


def isposinf(x):
    x = tensor(x)
    return bind(R["logical_and"], bind(R["isinf"], x), bind(R["greater"], x, 0))


def isneginf(x):
    x = tensor(x)
    return bind(R["logical_and"], bind(R["isinf"], x), bind(R["less"], x, 0))


def isscalar(element):
    """Is ``element`` a Python/numpy scalar (a Tensor is not, as in numpy)?"""
    return isinstance(element, (numbers.Number, str, bytes, onp.generic)) and not is_tensorlike(element)


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """``|a - b| <= atol + rtol * |b|`` element-wise."""
    a, b = tensors(a, b)
    return _ops.isclose(tensor(a), tensor(b), rtol, atol, equal_nan)


def array_equal(a1, a2, equal_nan=False):
    """True (a 0-d bool Tensor) when both have the same shape and elements."""
    a1, a2 = tensor(a1), tensor(a2)
    if tuple(a1.shape) != tuple(a2.shape):
        return tensor(False)
    same = bind(R["equal"], a1, a2)
    if equal_nan:
        same = bind(R["logical_or"], same, bind(R["logical_and"], bind(R["isnan"], a1), bind(R["isnan"], a2)))
    return _ops.all(same)


def array_equiv(a1, a2):
    """True when the arrays are broadcastable to one shape and equal there."""
    a1, a2 = tensor(a1), tensor(a2)
    try:
        onp.broadcast_shapes(tuple(a1.shape), tuple(a2.shape))
    except ValueError:
        return tensor(False)
    return _ops.all(bind(R["equal"], a1, a2))


def signbit(x, dtype=None):
    """True where the sign bit is set (negative values and -0.0)."""
    x = tensor(x)
    if not x.dtype.is_float:
        return bind(R["less"], x, 0)
    # -0.0 < 0 is False, but 1 / -0.0 = -inf
    neg_zero = bind(R["logical_and"], bind(R["equal"], x, 0), bind(R["less"], bind(R["div"], 1.0, x), 0))
    return bind(R["logical_or"], bind(R["less"], x, 0), neg_zero)


def sometrue(a, axis=None, keepdims=False):
    """Does any element (along ``axis``) evaluate to True?"""
    return _ops.any(_bool(a), axis, keepdims)


def in1d(ar1, ar2, invert=False):
    """For each element of ``ar1`` (flattened), is it in ``ar2``?"""
    a, b = tensor(ar1), tensor(ar2)
    a = bind(R["reshape"], a, shape=(a.size, 1))
    b = bind(R["reshape"], b, shape=(1, b.size))
    hit = _ops.any(bind(R["equal"], a, b), 1)
    return bind(R["logical_not"], hit) if invert else hit


def isin(element, test_elements, invert=False):
    """``in1d`` keeping the shape of ``element``."""
    e = tensor(element)
    return bind(R["reshape"], in1d(e, test_elements, invert), shape=tuple(e.shape))
