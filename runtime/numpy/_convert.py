"""Argument conversion shared by ``runtime.numpy``: array-likes to Tensors with mindspore.numpy's
default dtypes (Python ints become int32 and floats float32, float64/int64 numpy input is narrowed
the same way, as ``mindspore.numpy.asarray`` does), axis normalisation and dtype promotion.

Symbolic tensors (capture tracing a graph) pass through untouched, so every function of the
package is traceable: it only calls registry ops, Tensor methods and numpy on static shapes."""
from __future__ import annotations

import numbers

import numpy as onp

from graph.dtypes import as_dtype, promote
from graph.ops import REGISTRY, bind
from graph.ops.core import is_tensorlike

from ..tensor import Tensor

R = REGISTRY

#: numpy dtypes mindspore.numpy narrows by default (its ``_convert_64_to_32``)
_NARROW = {onp.dtype(onp.float64): onp.float32, onp.dtype(onp.int64): onp.int32}


def host_array(obj, dtype=None):
    """A numpy array of a (nested) Python/numpy array-like with mindspore.numpy's defaults."""
    if isinstance(obj, (list, tuple)):
        obj = [o.asnumpy() if isinstance(o, Tensor) else o for o in obj]
    arr = onp.asarray(obj)
    if dtype is not None:
        return arr.astype(as_dtype(dtype).np)
    if arr.dtype.kind in "USO":
        raise TypeError(f"mindspore.numpy: cannot make a tensor of {arr.dtype} data {obj!r:.60}")
    narrow = _NARROW.get(arr.dtype)
    return arr.astype(narrow) if narrow is not None else arr


def _is_tensor(x) -> bool:
    """A framework tensor (eager or symbolic), not a numpy array or scalar."""
    return is_tensorlike(x) and not isinstance(x, (onp.ndarray, onp.generic))


def tensor(x, dtype=None):
    """``x`` as a Tensor (a Tensor or symbolic tensor as it is, cast when ``dtype`` differs)."""
    if _is_tensor(x):
        if dtype is not None and as_dtype(dtype) != x.dtype:
            return bind(R["cast"], x, dtype=as_dtype(dtype))
        return x
    return Tensor._of_owned_array(host_array(x, dtype))


def operand(x):
    """A binary-op operand: tensors and Python scalars stay (scalars adopt the tensor's dtype, as
    in numpy's weak typing); anything else becomes a Tensor."""
    if _is_tensor(x) or (isinstance(x, numbers.Number) and not isinstance(x, onp.generic)):
        return x
    return tensor(x)


def tensors(*xs):
    """Operands of an elementwise op: at least one must become a Tensor for the op to run."""
    xs = [operand(x) for x in xs]
    if not any(_is_tensor(x) for x in xs):
        xs[0] = tensor(xs[0])
    return xs


def is_float(x) -> bool:
    return x.dtype.is_float


def as_float(x):
    """``x`` (a Tensor) in a float type: float32 for integer and bool input, as numpy's true ops."""
    x = tensor(x)
    return x if x.dtype.is_float else bind(R["cast"], x, dtype=as_dtype("float32"))


def norm_axis(axis, ndim, name="axis"):
    """A tuple of non-negative axes (None means all)."""
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    out = []
    for a in axes:
        if not isinstance(a, (int, onp.integer)) or isinstance(a, bool):
            raise TypeError(f"mindspore.numpy: {name} must be an int or a tuple of ints, got {axis!r}")
        if not -ndim <= a < max(ndim, 1):
            raise ValueError(f"mindspore.numpy: {name} {a} is out of range for {ndim} dimension(s)")
        out.append(int(a) % max(ndim, 1))
    return tuple(out)


def result_dtype(*xs):
    """The promoted dtype of tensor operands."""
    dt = None
    for x in xs:
        if _is_tensor(x):
            dt = x.dtype if dt is None else promote(dt, x.dtype)
    return dt


def cast(x, dtype):
    return x if dtype is None or as_dtype(dtype) == x.dtype else bind(R["cast"], x, dtype=as_dtype(dtype))
