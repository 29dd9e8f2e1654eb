"""mindspore.numpy's array generation functions (``arange``, ``full``, ``triu``, ``meshgrid`` ...).

Constant arrays are built on the host with numpy (their shape is static) and placed like the
framework's other constants; functions of tensors (``triu``, ``diagonal``, ``trace``...) use
registry ops so they differentiate and trace."""
from __future__ import annotations

import numpy as onp

from graph.dtypes import as_dtype
from graph.ops import bind
from graph.ops.core import is_tensorlike

from .. import ops as _ops
from ..tensor import Tensor
from ._convert import R, cast, host_array, norm_axis, tensor
from ._pad import pad

__all__ = ["array", "asarray", "asfarray", "copy", "arange", "linspace", "logspace", "geomspace",
           "eye", "identity", "full", "full_like", "zeros", "zeros_like", "ones", "ones_like",
           "empty", "empty_like", "tri", "tril", "triu", "diag", "diagflat", "diagonal", "trace",
           "meshgrid", "indices", "ix_", "mgrid", "ogrid", "tril_indices", "triu_indices",
           "tril_indices_from", "triu_indices_from", "diag_indices", "vander", "hamming", "hanning",
           "bartlett", "blackman", "pad", "rand", "randn", "randint"]


def _const(values, dtype=None):
    arr = host_array(values, dtype)
    return Tensor._placed(onp.ascontiguousarray(arr))


def _default_float(dtype):
    return as_dtype(dtype or "float32").np


def _shape(shape):
    if isinstance(shape, (int, onp.integer)):
        shape = (int(shape),)
    shape = tuple(int(s) for s in shape)
    if any(s < 0 for s in shape):
        raise ValueError(f"mindspore.numpy: negative dimensions are not allowed, got {shape}")
    return shape


def array(obj, dtype=None, copy=True, ndmin=0):  # numpy's names
    """A new Tensor of ``obj`` (a copy; ``ndmin`` leading axes of length 1 are added)."""
    t = tensor(obj, dtype)
    if is_tensorlike(obj) and copy and t is obj:
        t = bind(R["identity"], t)
    while t.ndim < ndmin:
        t = bind(R["expand_dims"], t, axis=0)
    return t


def asarray(a, dtype=None):
    """``a`` as a Tensor (itself when it already is one of ``dtype``)."""
    return tensor(a, dtype)


def asfarray(a, dtype="float32"):
    """``a`` as a float Tensor (float32 unless ``dtype`` is another float type)."""
    dt = as_dtype(dtype)
    if not dt.is_float:
        dt = as_dtype("float32")
    return tensor(a, dt)


def copy(a):  # numpy's name
    """A copy of ``a`` as a new Tensor."""
    return bind(R["identity"], tensor(a))


def arange(start, stop=None, step=None, dtype=None):
    """Evenly spaced values in ``[start, stop)`` (int32 for integer arguments, float32 otherwise)."""
    vals = [v.item() if isinstance(v, Tensor) else v for v in (start, stop, step)]
    if vals[1] is None:
        vals = [0, vals[0], vals[2]]
    return _const(onp.arange(vals[0], vals[1], 1 if vals[2] is None else vals[2]), dtype)


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    """``num`` evenly spaced values from ``start`` to ``stop`` (float32)."""
    out, step = onp.linspace(host_array(start), host_array(stop), int(num), endpoint=endpoint, retstep=True,
                             axis=axis)
    t = _const(out, dtype or "float32")
    return (t, step) if retstep else t


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    """``base ** linspace(start, stop, num)`` (float32)."""
    return _const(onp.logspace(host_array(start), host_array(stop), int(num), endpoint=endpoint, base=base,
                               axis=axis), dtype or "float32")


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """Values spaced evenly on a log scale from ``start`` to ``stop`` (float32)."""
    return _const(onp.geomspace(host_array(start), host_array(stop), int(num), endpoint=endpoint, axis=axis),
                  dtype or "float32")


def eye(N, M=None, k=0, dtype="float32"):  # numpy's names
    """Ones on diagonal ``k`` of an N x M matrix."""
    return _const(onp.eye(N, M, k, dtype=as_dtype(dtype).np))


def identity(n, dtype="float32"):
    """The n x n identity matrix."""
    return eye(n, dtype=dtype)


def full(shape, fill_value, dtype=None):
    """A Tensor of ``shape`` filled with ``fill_value`` (which may be an array broadcast to it)."""
    if is_tensorlike(fill_value):
        return cast(bind(R["broadcast_to"], fill_value, shape=_shape(shape)), dtype)
    fill = host_array(fill_value, dtype)
    return _const(onp.broadcast_to(fill, _shape(shape)).copy())


def full_like(a, fill_value, dtype=None, shape=None):
    """Like ``full`` with ``a``'s shape (and dtype unless given)."""
    a = tensor(a)
    return full(a.shape if shape is None else shape, fill_value, dtype or a.dtype)


def zeros(shape, dtype="float32"):
    """A Tensor of zeros (float32 by default)."""
    return _const(onp.zeros(_shape(shape), as_dtype(dtype).np))


def ones(shape, dtype="float32"):
    """A Tensor of ones (float32 by default)."""
    return _const(onp.ones(_shape(shape), as_dtype(dtype).np))


def zeros_like(a, dtype=None, shape=None):
    a = tensor(a)
    return zeros(a.shape if shape is None else shape, dtype or a.dtype)


def ones_like(a, dtype=None, shape=None):
    a = tensor(a)
    return ones(a.shape if shape is None else shape, dtype or a.dtype)


def empty(shape, dtype="float32"):
    """A Tensor of ``shape`` (zero-filled: there is no uninitialised memory to hand out)."""
    return zeros(shape, dtype)


def empty_like(prototype, dtype=None, shape=None):
    return zeros_like(prototype, dtype, shape)


def tri(N, M=None, k=0, dtype="float32"):
    """Ones at and below diagonal ``k``, zeros above."""
    return _const(onp.tri(N, M, k, dtype=as_dtype(dtype).np))


def _triangle(m, k, lower):
    m = tensor(m)
    if m.ndim == 1:  # numpy treats a vector as the rows of a square matrix
        m = bind(R["broadcast_to"], m, shape=(m.shape[0], m.shape[0]))
    return _ops.tril(m, k) if lower else _ops.triu(m, k)


def tril(m, k=0):
    """The lower triangle of ``m`` (elements above diagonal ``k`` zeroed)."""
    return _triangle(m, k, True)


def triu(m, k=0):
    """The upper triangle of ``m`` (elements below diagonal ``k`` zeroed)."""
    return _triangle(m, k, False)


def _diagonal_index(rows, cols, offset):
    """Flat indices of diagonal ``offset`` in a rows x cols matrix."""
    i = onp.arange(max(0, -offset), min(rows, cols - offset) if cols - offset > 0 else 0)
    return i * cols + i + offset


def diagonal(a, offset=0, axis1=0, axis2=1):
    """The diagonal ``offset`` of the matrices on ``axis1``/``axis2``, as the last axis."""
    a = tensor(a)
    ax1, ax2 = norm_axis((axis1, axis2), a.ndim)
    if ax1 == ax2:
        raise ValueError("diagonal: axis1 and axis2 cannot be the same")
    rest = [d for d in range(a.ndim) if d not in (ax1, ax2)]
    moved = bind(R["transpose"], a, perm=tuple(rest) + (ax1, ax2))
    rows, cols = a.shape[ax1], a.shape[ax2]
    flat = bind(R["reshape"], moved, shape=tuple(a.shape[d] for d in rest) + (rows * cols,))
    idx = _diagonal_index(rows, cols, offset)
    return bind(R["gather"], flat, Tensor._placed(idx.astype(onp.int32)), axis=len(rest))


def trace(a, offset=0, axis1=0, axis2=1, dtype=None):
    """The sum along a diagonal."""
    return cast(bind(R["reduce_sum"], diagonal(a, offset, axis1, axis2), axis=(-1,), keep_dims=False), dtype)


def diag(v, k=0):
    """A 1-D ``v``: the square matrix with ``v`` on diagonal ``k``; a 2-D ``v``: its diagonal."""
    v = tensor(v)
    if v.ndim == 2:
        return diagonal(v, k)
    if v.ndim != 1:
        raise ValueError(f"diag: input must be 1-d or 2-d, got shape {v.shape}")
    n = v.shape[0] + abs(k)
    # one-hot placement matrix: out = P @ v reshaped, P[(row * n + col), i] = 1 on the diagonal
    place = onp.zeros((n * n, v.shape[0]), onp.float32)
    for i in range(v.shape[0]):
        r, c = (i, i + k) if k >= 0 else (i - k, i)
        place[r * n + c, i] = 1.0
    vf = cast(v, "float32") if not v.dtype.is_float else v
    out = bind(R["matmul"], Tensor._placed(place.astype(vf.dtype.np)), bind(R["reshape"], vf, shape=(v.shape[0], 1)))
    return cast(bind(R["reshape"], out, shape=(n, n)), v.dtype)


def diagflat(v, k=0):
    """``diag`` of the flattened input."""
    v = tensor(v)
    return diag(bind(R["reshape"], v, shape=(v.size,)), k)


def meshgrid(*xi, sparse=False, indexing="xy"):
    """Coordinate matrices from coordinate vectors (``indexing`` "xy" or "ij")."""
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid: indexing must be 'xy' or 'ij', got {indexing!r}")
    xs = [tensor(x) for x in xi]
    xs = [bind(R["reshape"], x, shape=(x.size,)) for x in xs]
    nd = len(xs)
    shape = [x.shape[0] for x in xs]
    if indexing == "xy" and nd >= 2:
        shape[0], shape[1] = shape[1], shape[0]
    out = []
    for i, x in enumerate(xs):
        view = [1] * nd
        axis = i
        if indexing == "xy" and nd >= 2 and i < 2:
            axis = 1 - i
        view[axis] = x.shape[0]
        y = bind(R["reshape"], x, shape=tuple(view))
        out.append(y if sparse else bind(R["broadcast_to"], y, shape=tuple(shape)))
    return tuple(out)


def indices(dimensions, dtype="int32", sparse=False):
    """A grid of indices (``numpy.indices``)."""
    res = onp.indices(tuple(dimensions), dtype=as_dtype(dtype).np, sparse=sparse)
    return tuple(Tensor._placed(onp.ascontiguousarray(r)) for r in res) if sparse else Tensor._placed(res)


def ix_(*args):
    """Open mesh index arrays from 1-D sequences."""
    out = []
    nd = len(args)
    for i, a in enumerate(args):
        a = tensor(a)
        if a.ndim != 1:
            raise ValueError("ix_: cross index must be 1 dimensional")
        shape = [1] * nd
        shape[i] = a.shape[0]
        out.append(bind(R["reshape"], a, shape=tuple(shape)))
    return tuple(out)


class _Grid:
    """``mgrid[...]`` / ``ogrid[...]``: numpy's dense/open grids of slices, as Tensors."""

    def __init__(self, sparse):
        self._grid = onp.ogrid if sparse else onp.mgrid
        self._sparse = sparse

    def __getitem__(self, key):
        res = self._grid[key]
        if isinstance(res, (list, tuple)):
            return tuple(_const(r) for r in res)
        return _const(res)


mgrid = _Grid(False)
ogrid = _Grid(True)


def tril_indices(n, k=0, m=None):
    return tuple(_const(r) for r in onp.tril_indices(n, k, m))


def triu_indices(n, k=0, m=None):
    return tuple(_const(r) for r in onp.triu_indices(n, k, m))


def tril_indices_from(arr, k=0):
    return tril_indices(arr.shape[-2], k, arr.shape[-1])


def triu_indices_from(arr, k=0):
    return triu_indices(arr.shape[-2], k, arr.shape[-1])


def diag_indices(n, ndim=2):
    return tuple(_const(r) for r in onp.diag_indices(n, ndim))


def vander(x, N=None, increasing=False):
    """The Vandermonde matrix: columns are powers of ``x``."""
    x = tensor(x)
    n = x.shape[0] if N is None else N
    powers = onp.arange(n) if increasing else onp.arange(n - 1, -1, -1)
    col = bind(R["reshape"], x, shape=(x.shape[0], 1))
    return bind(R["pow"], col, Tensor._placed(powers.astype(x.dtype.np)))


def hamming(M):
    return _const(onp.hamming(M), "float32")


def hanning(M):
    return _const(onp.hanning(M), "float32")


def bartlett(M):
    return _const(onp.bartlett(M), "float32")


def blackman(M):
    return _const(onp.blackman(M), "float32")


def rand(*shape, dtype="float32"):
    """Uniform samples in [0, 1) (from the global stream ``ms.set_seed`` seeds)."""
    shape = shape[0] if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape
    return cast(_ops.rand(*_shape(shape)), dtype)


def randn(*shape, dtype="float32"):
    """Standard normal samples (from the global stream ``ms.set_seed`` seeds)."""
    shape = shape[0] if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape
    return cast(_ops.randn(*_shape(shape)), dtype)


def randint(minval, maxval=None, shape=None, dtype="int32"):
    """Integers in ``[minval, maxval)`` (``[0, minval)`` with one bound)."""
    if maxval is None:
        minval, maxval = 0, minval
    if maxval <= minval:
        raise ValueError(f"randint: maxval ({maxval}) must be greater than minval ({minval})")
    return cast(_ops.randint(minval, maxval, _shape(() if shape is None else shape)), dtype)

