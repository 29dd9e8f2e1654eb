"""mindspore.numpy's array operations: reshaping, joining, splitting, rearranging and indexing,
each composed from registry ops (reshape, transpose, concat, gather, where ...)."""
from __future__ import annotations

import numpy as onp

from graph.ops import bind
from graph.ops.core import is_tensorlike

from .. import ops as _ops
from ..tensor import Tensor
from ._convert import R, norm_axis, tensor, tensors

__all__ = ["transpose", "expand_dims", "squeeze", "rollaxis", "swapaxes", "reshape", "ravel",
           "concatenate", "where", "atleast_1d", "atleast_2d", "atleast_3d", "column_stack", "hstack",
           "dstack", "vstack", "stack", "moveaxis", "tile", "broadcast_to", "broadcast_arrays", "roll",
           "append", "split", "vsplit", "hsplit", "dsplit", "array_split", "flip", "fliplr", "flipud",
           "take_along_axis", "take", "repeat", "rot90", "select", "choose", "size", "array_str",
           "apply_along_axis", "apply_over_axes", "piecewise", "unravel_index", "unique"]


def transpose(a, axes=None):
    """Permute the axes (reversed by default)."""
    a = tensor(a)
    perm = tuple(reversed(range(a.ndim))) if axes is None else norm_axis(axes, a.ndim, "axes")
    return bind(R["transpose"], a, perm=perm)


def expand_dims(a, axis):
    """Insert axes of length 1 at ``axis`` (an int or a tuple)."""
    a = tensor(a)
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    nd = a.ndim + len(axes)
    for ax in sorted(norm_axis(axes, nd)):
        a = bind(R["expand_dims"], a, axis=ax)
    return a


def squeeze(a, axis=None):
    """Remove axes of length 1 (all of them, or those of ``axis``)."""
    a = tensor(a)
    if axis is None:
        return bind(R["squeeze"], a, axis=None)
    axes = norm_axis(axis, a.ndim)
    for ax in axes:
        if a.shape[ax] != 1:
            raise ValueError(f"squeeze: cannot select an axis to squeeze out which has size not equal to one "
                             f"(axis {ax} of shape {a.shape})")
    return bind(R["reshape"], a, shape=tuple(d for i, d in enumerate(a.shape) if i not in axes))


def reshape(x, new_shape):
    """``x`` with shape ``new_shape`` (one entry may be -1)."""
    x = tensor(x)
    shape = (new_shape,) if isinstance(new_shape, int) else tuple(new_shape)
    return bind(R["reshape"], x, shape=shape)


def ravel(x):
    """``x`` flattened to one axis."""
    x = tensor(x)
    return bind(R["reshape"], x, shape=(x.size,))


def moveaxis(a, source, destination):
    """Move axes ``source`` to positions ``destination``."""
    a = tensor(a)
    src = norm_axis(source, a.ndim, "source")
    dst = norm_axis(destination, a.ndim, "destination")
    if len(src) != len(dst):
        raise ValueError("moveaxis: `source` and `destination` arguments must have the same number of elements")
    order = [n for n in range(a.ndim) if n not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return bind(R["transpose"], a, perm=tuple(order))


def rollaxis(x, axis, start=0):
    """Roll ``axis`` backwards until it lies before ``start``."""
    x = tensor(x)
    axis = norm_axis(axis, x.ndim)[0]
    if not -x.ndim <= start <= x.ndim:
        raise ValueError(f"rollaxis: start {start} is out of range for {x.ndim} dimension(s)")
    start %= x.ndim + 1
    if axis < start:
        start -= 1
    if axis == start:
        return x
    order = [n for n in range(x.ndim) if n != axis]
    order.insert(start, axis)
    return bind(R["transpose"], x, perm=tuple(order))


def swapaxes(x, axis1, axis2):
    """Interchange two axes."""
    x = tensor(x)
    a1, a2 = norm_axis((axis1, axis2), x.ndim)
    perm = list(range(x.ndim))
    perm[a1], perm[a2] = perm[a2], perm[a1]
    return bind(R["transpose"], x, perm=tuple(perm))


def _seq(arrays):
    if is_tensorlike(arrays):
        return [arrays[i] for i in range(arrays.shape[0])]
    return [tensor(a) for a in arrays]


def _common(ts):
    """Cast a list of tensors to their promoted dtype (concat needs one dtype)."""
    from ._convert import result_dtype, cast
    dt = result_dtype(*ts)
    return [cast(t, dt) for t in ts]


def concatenate(arrays, axis=0):
    """Join arrays along an existing axis (``axis=None`` flattens them first)."""
    ts = _common(_seq(arrays))
    if axis is None:
        ts = [ravel(t) for t in ts]
        axis = 0
    return bind(R["concat"], *ts, axis=axis)


def stack(arrays, axis=0):
    """Join arrays along a new axis."""
    return bind(R["stack"], *_common(_seq(arrays)), axis=axis)


def atleast_1d(*arys):
    res = [tensor(a) for a in arys]
    res = [reshape(a, (1,)) if a.ndim == 0 else a for a in res]
    return res[0] if len(res) == 1 else res


def atleast_2d(*arys):
    res = [tensor(a) for a in arys]
    res = [reshape(a, (1,) * (2 - a.ndim) + tuple(a.shape)) if a.ndim < 2 else a for a in res]
    return res[0] if len(res) == 1 else res


def atleast_3d(*arys):
    out = []
    for a in arys:
        a = tensor(a)
        if a.ndim == 0:
            a = reshape(a, (1, 1, 1))
        elif a.ndim == 1:
            a = reshape(a, (1, a.shape[0], 1))
        elif a.ndim == 2:
            a = reshape(a, tuple(a.shape) + (1,))
        out.append(a)
    return out[0] if len(out) == 1 else out


def vstack(tup):
    """Stack arrays row-wise (1-D arrays become rows)."""
    ts = [atleast_2d(t) for t in _seq(tup)]
    return concatenate(ts, axis=0)


def hstack(tup):
    """Stack arrays column-wise (1-D arrays are joined end to end)."""
    ts = [atleast_1d(t) for t in _seq(tup)]
    return concatenate(ts, axis=0 if ts[0].ndim == 1 else 1)


def dstack(tup):
    """Stack arrays along the third axis."""
    return concatenate([atleast_3d(t) for t in _seq(tup)], axis=2)


def column_stack(tup):
    """Stack 1-D arrays as columns of a 2-D array."""
    ts = []
    for t in _seq(tup):
        if t.ndim < 2:
            t = reshape(t, (-1, 1)) if t.ndim == 1 else reshape(t, (1, 1))
        ts.append(t)
    return concatenate(ts, axis=1)


def where(condition, x=None, y=None):
    """Elements of ``x`` where ``condition`` holds, else of ``y`` (both must be given; the
    one-argument form has a data-dependent shape)."""
    if x is None or y is None:
        raise ValueError("where: x and y must both be given (the one-argument form, nonzero, has a "
                         "data-dependent shape and is not supported)")
    c = tensor(condition)
    if not c.dtype.is_bool:
        c = bind(R["not_equal"], c, 0)
    x, y = tensors(x, y)
    return bind(R["where"], c, x, y)


def tile(a, reps):
    """Repeat ``a`` ``reps`` times along each axis."""
    a = tensor(a)
    reps = (reps,) if isinstance(reps, int) else tuple(reps)
    if len(reps) > a.ndim:
        a = reshape(a, (1,) * (len(reps) - a.ndim) + tuple(a.shape))
    reps = (1,) * (a.ndim - len(reps)) + reps
    return bind(R["tile"], a, multiples=reps)


def broadcast_to(array, shape):
    """``array`` broadcast to ``shape``."""
    return bind(R["broadcast_to"], tensor(array), shape=tuple(shape) if not isinstance(shape, int) else (shape,))


def broadcast_arrays(*args):
    """Broadcast the arguments against each other."""
    ts = [tensor(a) for a in args]
    shape = onp.broadcast_shapes(*[tuple(t.shape) for t in ts])
    return [broadcast_to(t, shape) for t in ts]


def roll(a, shift, axis=None):
    """Roll elements along ``axis`` (the flattened array when None)."""
    a = tensor(a)
    if axis is None:
        return reshape(roll(ravel(a), shift, 0), a.shape)
    shifts = (shift,) if isinstance(shift, int) else tuple(shift)
    axes = norm_axis(axis, a.ndim)
    if len(shifts) == 1 and len(axes) > 1:
        shifts = shifts * len(axes)
    if len(shifts) != len(axes):
        raise ValueError("roll: shift and axis must have the same length")
    for s, ax in zip(shifts, axes):
        n = a.shape[ax]
        if n == 0:
            continue
        idx = (onp.arange(n) - s) % n
        a = bind(R["gather"], a, Tensor._placed(idx.astype(onp.int32)), axis=ax)
    return a


def append(arr, values, axis=None):
    """``values`` appended to ``arr`` (both flattened when ``axis`` is None)."""
    arr, values = tensor(arr), tensor(values)
    if axis is None:
        return concatenate((ravel(arr), ravel(values)), 0)
    return concatenate((arr, values), axis)


def _split_points(n, indices_or_sections, strict):
    if isinstance(indices_or_sections, int):
        k = indices_or_sections
        if k <= 0:
            raise ValueError("split: number sections must be larger than 0")
        if strict and n % k:
            raise ValueError(f"split: array split does not result in an equal division ({n} into {k})")
        sizes = [n // k + (1 if i < n % k else 0) for i in range(k)]
        return list(onp.cumsum([0] + sizes))
    pts = [0] + [min(max(int(i) % (n + 1) if i < 0 else int(i), 0), n) for i in indices_or_sections] + [n]
    return pts


def _split(x, indices_or_sections, axis, strict):
    x = tensor(x)
    axis = norm_axis(axis, x.ndim)[0]
    pts = _split_points(x.shape[axis], indices_or_sections, strict)
    out = []
    for lo, hi in zip(pts[:-1], pts[1:]):
        hi = max(hi, lo)
        begin = [0] * x.ndim
        size = list(x.shape)
        begin[axis], size[axis] = int(lo), int(hi - lo)
        out.append(bind(R["slice"], x, begin=tuple(begin), size=tuple(size)))
    return tuple(out)


def split(x, indices_or_sections, axis=0):
    """Split into equal sections (an int) or at the given indices."""
    return _split(x, indices_or_sections, axis, True)


def array_split(x, indices_or_sections, axis=0):
    """Like ``split`` but sections may differ in size by one."""
    return _split(x, indices_or_sections, axis, False)


def vsplit(x, indices_or_sections):
    return split(x, indices_or_sections, 0)


def hsplit(x, indices_or_sections):
    x = tensor(x)
    return split(x, indices_or_sections, 0 if x.ndim == 1 else 1)


def dsplit(x, indices_or_sections):
    return split(x, indices_or_sections, 2)


def flip(m, axis=None):
    """Reverse the order of elements along ``axis`` (all axes when None)."""
    m = tensor(m)
    return _ops.flip(m, norm_axis(axis, m.ndim))


def fliplr(m):
    return flip(m, 1)


def flipud(m):
    return flip(m, 0)


def take_along_axis(arr, indices, axis):
    """Pick values of ``arr`` at ``indices`` along ``axis`` (``gather_elements``)."""
    arr, indices = tensor(arr), tensor(indices)
    if axis is None:
        arr, axis = ravel(arr), 0
    axis = norm_axis(axis, arr.ndim)[0]
    shape = list(onp.broadcast_shapes(tuple(arr.shape[:axis]) + (1,) + tuple(arr.shape[axis + 1:]),
                                      tuple(indices.shape[:axis]) + (1,) + tuple(indices.shape[axis + 1:])))
    a_shape, i_shape = list(shape), list(shape)
    a_shape[axis], i_shape[axis] = arr.shape[axis], indices.shape[axis]
    return bind(R["gather_elements"], broadcast_to(arr, a_shape), broadcast_to(indices, i_shape), dim=axis)


def take(a, indices, axis=None, mode="clip"):
    """Elements of ``a`` at ``indices`` along ``axis`` (of the flattened array when None);
    ``mode`` "clip" or "wrap" for out-of-range indices ("raise" cannot be checked in a graph)."""
    a, idx = tensor(a), tensor(indices)
    if axis is None:
        a, axis = ravel(a), 0
    axis = norm_axis(axis, a.ndim)[0]
    n = a.shape[axis]
    if mode == "wrap":
        idx = bind(R["mod"], idx, n)
    elif mode in ("clip", "raise"):
        idx = _ops.clamp(idx, 0, n - 1)
    else:
        raise ValueError(f"take: mode must be 'raise', 'wrap' or 'clip', got {mode!r}")
    return bind(R["gather"], a, idx, axis=axis)


def repeat(a, repeats, axis=None):
    """Repeat each element ``repeats`` times (of the flattened array when ``axis`` is None)."""
    a = tensor(a)
    if axis is None:
        a, axis = ravel(a), 0
    return _ops.repeat_interleave(a, repeats, axis)


def rot90(a, k=1, axes=(0, 1)):
    """Rotate by 90 degrees ``k`` times in the plane of ``axes``."""
    a = tensor(a)
    ax = norm_axis(axes, a.ndim, "axes")
    if len(ax) != 2 or ax[0] == ax[1]:
        raise ValueError("rot90: axes must be two different axes")
    k %= 4
    if k == 0:
        return a
    if k == 2:
        return flip(a, ax)
    if k == 1:
        return swapaxes(flip(a, ax[1]), ax[0], ax[1])
    return flip(swapaxes(a, ax[0], ax[1]), ax[1])


def select(condlist, choicelist, default=0):
    """The first choice whose condition holds, element by element (``default`` elsewhere)."""
    if len(condlist) != len(choicelist):
        raise ValueError("select: list of cases must be same length as list of conditions")
    conds = [tensor(c) for c in condlist]
    choices = [tensor(c) for c in choicelist]
    out = default
    for c, v in reversed(list(zip(conds, choices))):
        out = where(c, v, out)
    return out


def choose(a, choices, mode="clip"):
    """Pick from ``choices`` by index array ``a`` ("clip" or "wrap" out-of-range indices)."""
    a = tensor(a)
    ch = [tensor(c) for c in _seq(choices)]
    n = len(ch)
    if mode == "wrap":
        a = bind(R["mod"], a, n)
    elif mode in ("clip", "raise"):
        a = _ops.clamp(a, 0, n - 1)
    else:
        raise ValueError(f"choose: mode must be 'raise', 'wrap' or 'clip', got {mode!r}")
    out = ch[0]
    for i in range(1, n):
        out = where(bind(R["equal"], a, i), ch[i], out)
    shape = onp.broadcast_shapes(tuple(a.shape), *[tuple(c.shape) for c in ch])
    return broadcast_to(out, shape)


def size(a, axis=None):
    """The number of elements (along ``axis`` when given)."""
    a = tensor(a)
    return a.size if axis is None else a.shape[norm_axis(axis, a.ndim)[0]]


def array_str(a):
    """The string of ``a``'s values as numpy prints them."""
    return onp.array_str(tensor(a).asnumpy())


def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    """``func1d`` applied to the 1-D slices of ``arr`` along ``axis`` (a Python loop over them)."""
    arr = tensor(arr)
    axis = norm_axis(axis, arr.ndim)[0]
    moved = moveaxis(arr, axis, -1)
    lead = tuple(moved.shape[:-1])
    flat = reshape(moved, (-1, moved.shape[-1]))
    results = [tensor(func1d(flat[i], *args, **kwargs)) for i in range(flat.shape[0])]
    out = stack(results, 0)
    out = reshape(out, lead + tuple(out.shape[1:]))
    if out.ndim > len(lead):
        out = moveaxis(out, tuple(range(len(lead), out.ndim)), tuple(range(axis, axis + out.ndim - len(lead))))
    return out


def apply_over_axes(func, a, axes):
    """``func(a, axis)`` applied over each axis in turn (keeping the dimension)."""
    a = tensor(a)
    for ax in (axes,) if isinstance(axes, int) else axes:
        res = func(a, ax)
        a = res if res.ndim == a.ndim else expand_dims(res, ax)
    return a


def piecewise(x, condlist, funclist, *args, **kw):
    """A piecewise function: ``funclist[i](x)`` (or a constant) where ``condlist[i]`` holds; an
    extra function is the default."""
    x = tensor(x)
    conds = [condlist] if is_tensorlike(condlist) or isinstance(condlist, bool) else list(condlist)
    if len(funclist) == len(conds) + 1:
        others = bind(R["logical_not"], _ops.any(stack([tensor(c) for c in conds], 0), 0))
        conds = conds + [others]
    elif len(funclist) != len(conds):
        raise ValueError("piecewise: with N conditions, give N or N + 1 functions")
    out = bind(R["zeros_like"], x)
    for c, f in zip(conds, funclist):
        val = f(x, *args, **kw) if callable(f) else f
        out = where(tensor(c), val, out)
    return out


def unravel_index(indices, shape, order="C"):
    """Coordinate arrays of flat ``indices`` in an array of ``shape``."""
    if order not in ("C", "F"):
        raise ValueError(f"unravel_index: order must be 'C' or 'F', got {order!r}")
    idx = tensor(indices)
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    dims = list(reversed(shape)) if order == "C" else list(shape)
    out = []
    for d in dims:
        out.append(bind(R["mod"], idx, d))
        idx = bind(R["floor_div"], idx, d)
    return tuple(reversed(out)) if order == "C" else tuple(out)


def unique(x, return_inverse=False):
    """The sorted distinct elements of ``x`` (flattened); with ``return_inverse`` also the
    position in them of each element of the flattened ``x``. A data-dependent output shape: in
    graph mode the graph breaks here (``ops.unique``)."""
    y, idx = bind(R["unique"], tensor(x))
    if return_inverse:
        return y, bind(R["reshape"], idx, shape=(-1,))
    return y
