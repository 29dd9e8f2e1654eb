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
           "rank", "shape", "size", "mse_loss", "sub", "maximum", "minimum", "dropout", "split",
           "assign_add", "assign_sub", "AssignAdd", "AssignSub"]


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


def assign_add(variable, value):
    """``variable <- variable + value`` in place (a Parameter update); returns ``variable``.

    >>> from runtime import Parameter
    >>> p = Parameter(Tensor([1.0, 2.0]), name="p")
    >>> _ = assign_add(p, Tensor([0.5, 0.5])); p.asnumpy().tolist()
    [1.5, 2.5]
    """
    return bind(_R["assign"], variable, bind(_R["add"], variable, value))


def assign_sub(variable, value):
    """``variable <- variable - value`` in place; returns ``variable``."""
    return bind(_R["assign"], variable, bind(_R["sub"], variable, value))


class CompositePrimitive:
    """A Primitive-style class over a composite function: constructing one has no side effects
    (graph capture builds them at trace time, as it does generated Primitives)."""

    function = None

    def __call__(self, *args):
        return type(self).function(*args)


class AssignAdd(CompositePrimitive):
    """``ops.AssignAdd()(variable, value)``: :func:`assign_add` as a Primitive."""

    function = staticmethod(assign_add)


class AssignSub(CompositePrimitive):
    """``ops.AssignSub()(variable, value)``: :func:`assign_sub` as a Primitive."""

    function = staticmethod(assign_sub)


def print_(*values):
    """Print tensors and Python values (ops.print_ / ops.Print()); prints on every call."""
    builtins.print(*values)


class Print:
    """``ops.Print()(*values)``: prints on every call (a graph break in graph mode)."""

    def __call__(self, *values):
        print_(*values)


def dropout(input, p=0.5, training=True, seed=None, *, keep_prob=None):  # noqa: A002 - MindSpore names
    """MindSpore 2.x ``ops.dropout``: zero each element with probability ``p`` (the *drop*
    probability) and scale the kept ones by ``1 / (1 - p)``; the input itself when not training or
    when ``p == 0``. Returns the output only (the ``ops.Dropout`` Primitive returns ``(y, mask)``).

    ``keep_prob=`` (the 1.x spelling) is accepted instead of ``p``. ``seed`` is accepted for
    MindSpore's signature; masks are drawn from the one random stream ``ms.set_seed`` seeds.

    Example:
        >>> import numpy as np, runtime as ms
        >>> ms.set_seed(0)
        >>> y = ms.ops.dropout(ms.Tensor(np.ones((100, 100), np.float32)), p=0.1)
        >>> kept = float((y.asnumpy() != 0).mean()); 0.88 < kept < 0.92, round(float(y.asnumpy().max()), 4)
        (True, 1.1111)
    """
    if keep_prob is not None:
        if p != 0.5:
            raise ValueError("ops.dropout: give either p (the drop probability) or keep_prob, not both")
        if isinstance(keep_prob, bool) or not isinstance(keep_prob, (int, float)) or not 0.0 < keep_prob <= 1.0:
            raise ValueError(f"ops.dropout: keep_prob must be a float in (0, 1], got {keep_prob!r}")
        p = 1.0 - float(keep_prob)
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0.0 <= p < 1.0:
        raise ValueError(f"ops.dropout: p (the probability to drop an element) must be a float in [0, 1), "
                         f"got {p!r}")
    if not isinstance(training, (bool, np.bool_)):
        raise TypeError(f"ops.dropout: training must be a bool, got {type(training).__name__}")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise TypeError(f"ops.dropout: seed must be an int or None, got {type(seed).__name__}")
    if not training or p == 0.0:
        return input
    return bind(_R["dropout"], input, keep_prob=1.0 - float(p))[0]


def split(tensor, split_size_or_sections, axis=0):
    """MindSpore 2.x ``ops.split``: a tuple of parts along ``axis``. An int gives parts of that
    size (the last one smaller when the axis does not divide evenly); a list/tuple gives each
    part's size. (The 1.x ``(axis, output_num)`` form is the Primitive ``ops.Split(axis, output_num)``.)

    Example:
        >>> import numpy as np, runtime as ms
        >>> [p.shape for p in ms.ops.split(ms.Tensor(np.zeros((5, 2), np.float32)), 2)]
        [(2, 2), (2, 2), (1, 2)]
        >>> [p.shape for p in ms.ops.split(ms.Tensor(np.zeros((5, 2), np.float32)), [1, 4])]
        [(1, 2), (4, 2)]
    """
    shape = tuple(tensor.shape)
    if not shape:
        raise ValueError("Split (ops.split): cannot split a 0-d tensor")
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)) or not -len(shape) <= axis < len(shape):
        raise ValueError(f"Split (ops.split): axis {axis!r} is out of range for shape {shape}")
    dim = shape[axis]
    size = split_size_or_sections
    if isinstance(size, (int, np.integer)) and not isinstance(size, bool):
        if size <= 0:
            raise ValueError(f"Split (ops.split): split_size_or_sections must be positive, got {size}")
        sizes = (int(size),) * (dim // size) + ((dim % size,) if dim % size else ())
    elif isinstance(size, (list, tuple)) and all(isinstance(s, (int, np.integer)) and not isinstance(s, bool)
                                                 for s in size):
        sizes = tuple(int(s) for s in size)
    else:
        raise TypeError(f"Split (ops.split): split_size_or_sections must be an int or a list/tuple of ints, "
                        f"got {size!r}")
    return bind(_R["split"], tensor, axis=int(axis), sizes=sizes)
