"""Functional ops composed from registered ops (no new semantics here), plus MindSpore aliases.

Example:
    >>> from runtime import ops, Tensor
    >>> ops.dense(Tensor([[1.0, 2.0]]), Tensor([[1.0, 1.0]]), Tensor([0.5]))
    Tensor(shape=[1, 1], dtype=Float32, value=
    [[3.5]])
"""
from __future__ import annotations

import builtins

import numpy as np

from graph.dtypes import as_dtype, float32
from graph.ops import REGISTRY, bind

from ..tensor import Tensor

_R = REGISTRY

__all__ = ["dense", "flatten", "zeros", "ones", "full", "fill", "zeros_like", "ones_like", "sum",
           "mean", "square", "clamp", "clip_by_value", "Print", "print_", "numel",
           "rank", "shape", "size", "mse_loss", "sub", "maximum", "minimum"]


def dense(x, weight, bias=None):
    """x @ weight.T + bias (weight has shape (out, in), as in MindSpore)."""
    y = bind(_R["matmul"], x, weight, transpose_b=True)
    if bias is not None:
        y = bind(_R["add"], y, bias) if y.ndim != 2 else bind(_R["bias_add"], y, bias)
    return y


def flatten(x, order="C", *, start_dim=1, end_dim=-1):
    """Collapse axes start_dim..end_dim into one (MindSpore default keeps the batch axis)."""
    shape = tuple(x.shape)
    nd = len(shape)
    if nd == 0:
        return bind(_R["reshape"], x, shape=(1,))
    s, e = start_dim % nd, end_dim % nd
    if s > e:
        raise ValueError(f"Flatten (ops.flatten): start_dim {start_dim} is after end_dim {end_dim} for shape {shape}")
    n = 1
    for d in shape[s:e + 1]:
        n *= d
    return bind(_R["reshape"], x, shape=shape[:s] + (n,) + shape[e + 1:])


def _shape_tuple(shape):
    if isinstance(shape, int):
        return (shape,)
    return tuple(int(s) for s in shape)


def zeros(size, dtype=None):
    """A new tensor of zeros (float32 by default)."""
    return Tensor._wrap(np.zeros(_shape_tuple(size), (as_dtype(dtype) if dtype else float32).np))


def ones(size, dtype=None):
    return Tensor._wrap(np.ones(_shape_tuple(size), (as_dtype(dtype) if dtype else float32).np))


def full(size, fill_value, dtype=None):
    if dtype is None:
        dtype = float32 if isinstance(fill_value, float) else as_dtype(type(fill_value))
    return Tensor._wrap(np.full(_shape_tuple(size), fill_value, as_dtype(dtype).np))


def fill(type, shape, value):  # noqa: A002 - MindSpore's argument name
    return full(shape, value, type)


def zeros_like(x, dtype=None):
    r = bind(_R["zeros_like"], x)
    return r if dtype is None else bind(_R["cast"], r, dtype=dtype)


def ones_like(x, dtype=None):
    r = bind(_R["ones_like"], x)
    return r if dtype is None else bind(_R["cast"], r, dtype=dtype)


def sum(input, dim=None, keepdim=False, *, dtype=None):  # noqa: A001,A002 - MindSpore names
    r = bind(_R["reduce_sum"], input, axis=dim, keep_dims=keepdim)
    return r if dtype is None else bind(_R["cast"], r, dtype=dtype)


def mean(input, axis=None, keep_dims=False):  # noqa: A002
    return bind(_R["reduce_mean"], input, axis=axis, keep_dims=keep_dims)


def square(x):
    return bind(_R["square"], x)


def sub(x, y):
    return bind(_R["sub"], x, y)


def maximum(x, y):
    return bind(_R["maximum"], x, y)


def minimum(x, y):
    return bind(_R["minimum"], x, y)


def clamp(x, min=None, max=None):  # noqa: A002
    if min is not None:
        x = bind(_R["maximum"], x, min)
    if max is not None:
        x = bind(_R["minimum"], x, max)
    return x


def clip_by_value(x, clip_value_min=None, clip_value_max=None):
    return clamp(x, clip_value_min, clip_value_max)




def numel(x):
    return int(np.prod(x.shape)) if x.shape else 1


size = numel


def rank(x):
    return len(x.shape)


def shape(x):
    return tuple(x.shape)


def mse_loss(input, target, reduction="mean"):  # noqa: A002
    d = bind(_R["square"], bind(_R["sub"], input, target))
    if reduction == "mean":
        return bind(_R["reduce_mean"], d)
    if reduction == "sum":
        return bind(_R["reduce_sum"], d)
    if reduction == "none":
        return d
    raise ValueError(f"mse_loss: reduction must be 'mean', 'sum' or 'none', got {reduction!r}")


def print_(*values):
    """Print tensors and Python values (ops.print_ / ops.Print()); prints on every call."""
    builtins.print(*values)


class Print:
    """``ops.Print()(*values)``: prints on every call (a graph break in graph mode)."""

    def __call__(self, *values):
        print_(*values)
