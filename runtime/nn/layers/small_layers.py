"""Small MindSpore ``nn`` layers: 1-D and 3-D padding (ConstantPad1d/3d, ReflectionPad1d/3d,
ReplicationPad1d/3d), Dropout1d, and the ``nn`` wrappers of small ops Roll, Tril, Triu, OneHot,
Norm, Moments and Range -- each composed of existing ops (``ops.pad``, ``ops.dropout2d``, gather,
reductions...).

Example:
    >>> import numpy as np
    >>> from runtime import nn, Tensor
    >>> nn.ReflectionPad1d((2, 1))(Tensor(np.array([[[0., 1., 2.]]]))).asnumpy().tolist()
    [[[2.0, 1.0, 0.0, 1.0, 2.0, 1.0]]]
    >>> nn.Roll(1, 0)(Tensor(np.array([1, 2, 3]))).asnumpy().tolist()
    [3, 1, 2]
    >>> [t.asnumpy().tolist() for t in nn.Moments()(Tensor(np.array([1., 5.])))]
    [3.0, 4.0]
"""
from __future__ import annotations

import numpy as np

from graph.dtypes import as_dtype, float32, int32

from ... import ops
from ...tensor import Tensor
from ..cell import Cell
from .basic import _ChannelDropout

__all__ = ["ConstantPad1d", "ConstantPad3d", "ReflectionPad1d", "ReflectionPad3d", "ReplicationPad1d",
           "ReplicationPad3d", "Dropout1d", "Roll", "Tril", "Triu", "OneHot", "Norm", "Moments", "Range"]


def _int(v):
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool)


# -- padding ------------------------------------------------------------------------------------------
class _PadNd(Cell):
    """Pad the last ``_axes`` axes: ``padding`` an int (every side) or a tuple (left, right, [top,
    bottom, [front, back]]) -- the last axis first, as ``ops.pad`` takes it."""

    _axes = 1
    _mode = "constant"
    _ranks = None  # the input ranks the mode accepts (None: any rank with enough axes)

    def __init__(self, padding, value=None):
        super().__init__()
        name = type(self).__name__
        want = 2 * self._axes
        if _int(padding):
            padding = (int(padding),) * want
        if not isinstance(padding, (tuple, list)) or len(padding) != want or not all(_int(p) for p in padding):
            raise TypeError(f"{name}: padding must be an int or a tuple of {want} ints, got {padding!r}")
        if self._mode != "constant" and any(p < 0 for p in padding):
            raise ValueError(f"{name}: padding must be non-negative, got {padding!r}")
        self.padding = tuple(int(p) for p in padding)
        if self._mode == "constant":
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise TypeError(f"{name}: value must be an int or a float, got {value!r}")
        self.value = value

    def construct(self, x):
        ranks = self._ranks or tuple(range(self._axes, 9))
        if x.ndim not in ranks:
            raise ValueError(f"{type(self).__name__}: expects an input of rank {' or '.join(map(str, ranks))}, "
                             f"got shape {tuple(x.shape)}")
        return ops.pad(x, self.padding, self._mode, self.value)

    def extend_repr(self):
        return f"padding={self.padding}" + (f", value={self.value}" if self._mode == "constant" else "")


class ConstantPad1d(_PadNd):
    """``value`` on both ends of the last axis: padding an int or (left, right)."""

    def __init__(self, padding, value):
        super().__init__(padding, value)


class ConstantPad3d(_PadNd):
    """``value`` around the last three axes: padding an int or (left, right, top, bottom, front, back)."""

    _axes = 3

    def __init__(self, padding, value):
        super().__init__(padding, value)


class _EdgePad(_PadNd):
    """A pad whose values come from the input's edge (reflect, replicate): MindSpore's signature
    takes only ``padding``."""

    def __init__(self, padding):
        super().__init__(padding)


class ReflectionPad1d(_EdgePad):
    """Mirror (without the edge) on both ends of the last axis of (C, W) or (N, C, W) input."""

    _mode = "reflect"
    _ranks = (2, 3)


class ReflectionPad3d(_EdgePad):
    """Mirror (without the edge) around the last three axes of (C, D, H, W) or (N, C, D, H, W) input."""

    _axes = 3
    _mode = "reflect"
    _ranks = (4, 5)


class ReplicationPad1d(_EdgePad):
    """Repeat the edge on both ends of the last axis of (C, W) or (N, C, W) input."""

    _mode = "replicate"
    _ranks = (2, 3)


class ReplicationPad3d(_EdgePad):
    """Repeat the edge around the last three axes of (C, D, H, W) or (N, C, D, H, W) input."""

    _axes = 3
    _mode = "replicate"
    _ranks = (4, 5)


# -- dropout ------------------------------------------------------------------------------------------
def _dropout1d(x, p, training):
    """Whole channels of (N, C, L) or (C, L) input zeroed with probability ``p`` (the rest scaled
    by 1 / (1 - p)) while training: ``ops.dropout2d`` on the input seen as (N, C, L, 1)."""
    if x.ndim not in (2, 3):
        raise ValueError(f"Dropout1d: expects a 2-D (C, L) or 3-D (N, C, L) input, got shape {tuple(x.shape)}")
    if not training or p == 0.0:
        return x
    shape = x.shape
    batched = x if x.ndim == 3 else ops.expand_dims(x, 0)
    out = ops.dropout2d(ops.expand_dims(batched, 3), p, True)
    return ops.reshape(out, shape)


class Dropout1d(_ChannelDropout):
    """``nn.Dropout1d(p=0.5)``: zero whole channels of (N, C, L) or (C, L) input with probability
    ``p`` while training (scaling the others by 1 / (1 - p)); the identity when not training."""

    function = staticmethod(_dropout1d)


# -- small ops as Cells -------------------------------------------------------------------------------
class Roll(Cell):
    """Roll the input by ``shift`` positions along ``axis`` (ints, or tuples of the same length):
    element i moves to (i + shift) mod n."""

    def __init__(self, shift, axis):
        super().__init__()
        shifts = (shift,) if _int(shift) else shift
        axes = (axis,) if _int(axis) else axis
        if not isinstance(shifts, (tuple, list)) or not all(_int(s) for s in shifts):
            raise TypeError(f"Roll: shift must be an int or a tuple of ints, got {shift!r}")
        if not isinstance(axes, (tuple, list)) or not all(_int(a) for a in axes):
            raise TypeError(f"Roll: axis must be an int or a tuple of ints, got {axis!r}")
        if len(shifts) != len(axes):
            raise ValueError(f"Roll: shift and axis must have the same length, got {shift!r} and {axis!r}")
        self.shift, self.axis = tuple(int(s) for s in shifts), tuple(int(a) for a in axes)

    def construct(self, input_x):
        y = input_x
        for s, a in zip(self.shift, self.axis):
            if not -y.ndim <= a < y.ndim:
                raise ValueError(f"Roll: axis {a} is out of range for an input of shape {tuple(y.shape)}")
            n = y.shape[a]
            source = (np.arange(n) - s) % n  # output position i reads input position i - shift
            y = ops.gather(y, Tensor(source.astype(np.int32)), a % y.ndim)
        return y


class _Triangle(Cell):
    function = None

    def construct(self, x, k=0):
        if not _int(k):
            raise TypeError(f"{type(self).__name__}: k must be an int, got {type(k).__name__} {k!r}")
        if x.ndim < 2:
            raise ValueError(f"{type(self).__name__}: x must have at least 2 dimensions, got shape {tuple(x.shape)}")
        return type(self).function(x, int(k))


class Tril(_Triangle):
    """``construct(x, k=0)``: x with the elements above the k-th diagonal set to 0."""

    function = staticmethod(ops.tril)


class Triu(_Triangle):
    """``construct(x, k=0)``: x with the elements below the k-th diagonal set to 0."""

    function = staticmethod(ops.triu)


class OneHot(Cell):
    """One-hot encoding of integer ``indices``: ``on_value`` at each index, ``off_value``
    elsewhere, along a new axis ``axis`` of size ``depth``, as ``dtype``."""

    def __init__(self, axis=-1, depth=1, on_value=1.0, off_value=0.0, dtype=float32):
        super().__init__()
        if not _int(axis) or axis < -1:
            raise ValueError(f"OneHot: axis must be an int >= -1, got {axis!r}")
        if not _int(depth) or depth < 0:
            raise ValueError(f"OneHot: depth must be an int >= 0, got {depth!r}")
        self.axis, self.depth = int(axis), int(depth)
        self.on_value, self.off_value = float(on_value), float(off_value)
        self.dtype = as_dtype(dtype)

    def construct(self, indices):
        out = ops.one_hot(indices, self.depth, self.on_value, self.off_value, self.axis)
        return ops.cast(out, self.dtype)


def _axes(name, axis, ndim):
    if axis is None or axis == ():
        return tuple(range(ndim))
    axes = (axis,) if _int(axis) else axis
    if not isinstance(axes, (tuple, list)) or not all(_int(a) for a in axes):
        raise TypeError(f"{name}: axis must be an int, a tuple of ints or None, got {axis!r}")
    return tuple(int(a) % ndim for a in axes)


class Norm(Cell):
    """The Euclidean (L2) norm ``sqrt(sum(x^2))`` over ``axis`` (all axes when ``()``)."""

    def __init__(self, axis=(), keep_dims=False):
        super().__init__()
        if not (_int(axis) or isinstance(axis, tuple)):
            raise TypeError(f"Norm: axis must be an int or a tuple, got {type(axis).__name__} {axis!r}")
        if not isinstance(keep_dims, bool):
            raise TypeError(f"Norm: keep_dims must be a bool, got {keep_dims!r}")
        self.axis, self.keep_dims = axis, keep_dims

    def construct(self, x):
        axes = _axes("Norm", self.axis, x.ndim)
        return ops.sqrt(ops.reduce_sum(ops.square(x), axes, self.keep_dims))


class Moments(Cell):
    """``(mean, variance)`` of x over ``axis`` (all axes when None); the variance is the biased
    one, ``mean((x - mean)^2)``. ``keep_dims`` None means False."""

    def __init__(self, axis=None, keep_dims=None):
        super().__init__()
        if axis is not None and not (_int(axis) or isinstance(axis, tuple)):
            raise TypeError(f"Moments: axis must be an int, a tuple or None, got {type(axis).__name__} {axis!r}")
        if keep_dims is not None and not isinstance(keep_dims, bool):
            raise TypeError(f"Moments: keep_dims must be a bool or None, got {keep_dims!r}")
        self.axis, self.keep_dims = axis, bool(keep_dims)

    def construct(self, x):
        axes = _axes("Moments", self.axis, x.ndim)
        mean = ops.reduce_mean(x, axes, True)
        variance = ops.reduce_mean(ops.square(ops.sub(x, mean)), axes, self.keep_dims)
        if not self.keep_dims:
            mean = ops.reshape(mean, variance.shape)
        return mean, variance


class Range(Cell):
    """``construct()`` gives ``[start, start + delta, ...)`` up to ``limit`` (``Range(n)`` counts
    from 0 to n); int32 when every argument is an int, float32 otherwise."""

    def __init__(self, start, limit=None, delta=1):
        super().__init__()
        for name, v in (("start", start), ("limit", limit), ("delta", delta)):
            if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float))):
                raise TypeError(f"Range: {name} must be an int or a float, got {type(v).__name__} {v!r}")
        if delta == 0:
            raise ValueError("Range: delta must not be 0")
        if limit is None:
            start, limit = 0, start
        if (delta > 0 and start > limit) or (delta < 0 and start < limit):
            raise ValueError(f"Range: start {start} and limit {limit} do not fit the sign of delta {delta}")
        self.start, self.limit, self.delta = start, limit, delta
        self.dtype = int32 if all(_int(v) for v in (start, limit, delta)) else float32

    def construct(self):
        return ops.arange(self.start, self.limit, self.delta, dtype=self.dtype)
