"""``numpy.pad``'s modes, composed of registry ops.

Every axis is padded in turn on the result of the previous axes (numpy's own order, so the corners
come out as numpy's). All indices and widths are static (read from the shape and the arguments),
so the padding compiles under ``jit``: a side of an axis is a gather of existing elements (edge,
wrap, reflect, symmetric), a reduction broadcast to the pad width (maximum, minimum, mean), a ramp
(linear_ramp) or a constant.
"""
from __future__ import annotations

import numpy as onp

from graph.ops import bind

from .. import ops as _ops
from ..tensor import Tensor
from ._convert import R, cast, tensor

MODES = ("constant", "edge", "linear_ramp", "maximum", "mean", "minimum", "reflect", "symmetric", "wrap", "empty")
_STAT = {"maximum": "reduce_max", "minimum": "reduce_min", "mean": "reduce_mean"}


def _per_axis(value, ndim, name):
    """numpy's broadcasting of a (before, after) spec to one pair per axis: a scalar, ``(v,)``,
    ``(before, after)``, ``((before, after),)`` or one pair per axis."""
    try:
        return onp.broadcast_to(onp.asarray(value, dtype=onp.float64), (ndim, 2))
    except ValueError:
        raise ValueError(f"pad: {name} must broadcast to one (before, after) pair per axis "
                         f"({ndim} axes), got {value!r}") from None


def _widths(value, ndim, name):
    pairs = _per_axis(value, ndim, name)
    if not onp.all(pairs == onp.round(pairs)) or onp.any(pairs < 0):
        raise ValueError(f"pad: {name} must hold non-negative integers, got {value!r}")
    return pairs.astype(onp.int64).tolist()


def _slice(x, axis, start, stop):
    begin = [0] * x.ndim
    size = list(x.shape)
    begin[axis], size[axis] = start, stop - start
    return bind(R["slice"], x, begin=tuple(begin), size=tuple(size))


def _gather(x, axis, indices):
    return bind(R["gather"], x, Tensor(onp.asarray(indices, onp.int32)), axis=axis)


def _filled(x, axis, width, value):
    """A block of ``width`` elements along ``axis`` (the other axes as ``x``'s) equal to ``value``."""
    shape = list(x.shape)
    shape[axis] = width
    return bind(R["fill"], shape=tuple(shape), value=value, dtype=x.dtype)


def _broadcast_along(block, axis, width):
    """``block`` (size 1 along ``axis``) repeated ``width`` times along it."""
    shape = list(block.shape)
    shape[axis] = width
    return bind(R["broadcast_to"], block, shape=tuple(shape))


def _reflect_sides(x, axis, before, after, symmetric, odd):
    """numpy's reflect/symmetric: chunks of at most the current length (minus the edge for
    reflect) are mirrored on both sides until the widths are filled; the "odd" type subtracts each
    mirrored value from twice the edge value."""
    while before > 0 or after > 0:
        n = x.shape[axis]
        limit = n if symmetric else n - 1
        left, right = min(before, limit), min(after, limit)
        parts = []
        if left:
            idx = list(range(left - 1, -1, -1)) if symmetric else list(range(left, 0, -1))
            block = _gather(x, axis, idx)
            if odd:
                block = bind(R["sub"], bind(R["mul"], _slice(x, axis, 0, 1), 2), block)
            parts.append(block)
        parts.append(x)
        if right:
            idx = list(range(n - 1, n - 1 - right, -1)) if symmetric else list(range(n - 2, n - 2 - right, -1))
            block = _gather(x, axis, idx)
            if odd:
                block = bind(R["sub"], bind(R["mul"], _slice(x, axis, n - 1, n), 2), block)
            parts.append(block)
        x = bind(R["concat"], *parts, axis=axis) if len(parts) > 1 else x
        before, after = before - left, after - right
    return x


def _ramp(x, axis, width, edge, end, reverse):
    """numpy's linear_ramp side: ``width`` values from ``end`` towards the ``edge`` slice (the edge
    itself excluded), ``end + k * (edge - end) / width`` for k = 0..width-1 (reversed after the
    array). numpy evaluates it in float64 as linspace does and floors it for an integer dtype; here
    an integer ramp with an integer end value is the exact floor, in integer arithmetic, so that it
    cannot depend on how a compiled graph rounds (numpy's float64 value lies within an ulp of it)."""
    k = onp.arange(width, dtype=onp.float64)
    if reverse:
        k = k[::-1]
    shape = [1] * x.ndim
    shape[axis] = width
    if not x.dtype.is_float and float(end) == int(end):
        rise = bind(R["mul"], bind(R["sub"], cast(edge, "int64"), int(end)), Tensor(k.reshape(shape).astype(onp.int64)))
        return cast(bind(R["add"], bind(R["floor_div"], rise, width), int(end)), x.dtype)
    step = bind(R["div"], bind(R["sub"], cast(edge, "float64"), float(end)), float(width))
    ramp = bind(R["add"], bind(R["mul"], Tensor(k.reshape(shape).copy()), step), float(end))
    if not x.dtype.is_float:
        ramp = bind(R["floor"], ramp)
    return cast(ramp, x.dtype)


def _pad_axis(x, axis, before, after, mode, opts):
    if before == 0 and after == 0:
        return x
    n = x.shape[axis]
    if mode in ("constant", "empty"):
        cb, ca = opts["constant_values"][axis] if mode == "constant" else (0, 0)
        parts = [_filled(x, axis, before, cb)] if before else []
        parts += [x] + ([_filled(x, axis, after, ca)] if after else [])
        return bind(R["concat"], *parts, axis=axis)
    if n == 0:
        raise ValueError(f"pad: cannot pad an empty axis {axis} in mode {mode!r}")
    if mode == "edge" or (mode == "reflect" and n == 1):  # numpy extends a singleton axis like 'edge'
        return _gather(x, axis, [0] * before + list(range(n)) + [n - 1] * after)
    if mode == "wrap":
        return _gather(x, axis, (onp.arange(-before, n + after) % n).tolist())
    if mode in ("reflect", "symmetric"):
        return _reflect_sides(x, axis, before, after, mode == "symmetric", opts["reflect_type"] == "odd")
    parts = []
    if mode == "linear_ramp":
        eb, ea = opts["end_values"][axis]
        if before:
            parts.append(_ramp(x, axis, before, _slice(x, axis, 0, 1), eb, reverse=False))
        parts.append(x)
        if after:
            parts.append(_ramp(x, axis, after, _slice(x, axis, n - 1, n), ea, reverse=True))
        return bind(R["concat"], *parts, axis=axis)
    # maximum / minimum / mean over the first (last) stat_length values, repeated over the width
    sb, sa = opts["stat_length"][axis] if opts["stat_length"] is not None else (None, None)
    for side, width, length in (("before", before, sb), ("after", after, sa)):
        if side == "after":
            parts.append(x)
        if not width:
            continue
        if length == 0:
            raise ValueError(f"pad: stat_length 0 leaves no value to take the {mode} of")
        k = n if length is None else min(n, length)
        window = _slice(x, axis, 0, k) if side == "before" else _slice(x, axis, n - k, n)
        if mode == "mean" and not x.dtype.is_float:
            mean = bind(R["reduce_mean"], cast(window, "float64"), axis=(axis,), keep_dims=True)
            value = cast(_ops.round(mean), x.dtype)  # numpy rounds an integer mean, halves to even
        else:
            value = bind(R[_STAT[mode]], window, axis=(axis,), keep_dims=True)
        parts.append(_broadcast_along(value, axis, width))
    return bind(R["concat"], *parts, axis=axis)


def pad(arr, pad_width, mode="constant", stat_length=None, constant_values=0, end_values=0,
        reflect_type="even", **kwargs):
    """Pad ``arr`` as numpy.pad does. ``pad_width``, ``stat_length``, ``constant_values`` and
    ``end_values`` take numpy's per-axis (before, after) forms. Modes: constant, edge, linear_ramp,
    maximum, mean, minimum, reflect, symmetric (``reflect_type`` "even" or "odd"), wrap, and empty
    (zero-filled: there is no uninitialised memory to hand out). MindSpore's "median" is not
    supported either; a padding function as ``mode`` is not supported."""
    if callable(mode):
        raise ValueError("pad: a padding function as mode is not supported; use one of " + ", ".join(MODES))
    if mode not in MODES:
        raise ValueError(f"pad: mode must be one of {list(MODES)}, got {mode!r}")
    if kwargs:
        raise TypeError(f"pad: unexpected keyword arguments {sorted(kwargs)} (they are only used by a padding "
                        f"function, which is not supported)")
    if reflect_type not in ("even", "odd"):
        raise ValueError(f"pad: reflect_type must be 'even' or 'odd', got {reflect_type!r}")
    x = tensor(arr)
    widths = _widths(pad_width, x.ndim, "pad_width")
    opts = {"reflect_type": reflect_type,
            "constant_values": _per_axis(constant_values, x.ndim, "constant_values").tolist(),
            "end_values": _per_axis(end_values, x.ndim, "end_values").tolist(),
            "stat_length": None if stat_length is None else _widths(stat_length, x.ndim, "stat_length")}
    for axis, (before, after) in enumerate(widths):
        x = _pad_axis(x, axis, before, after, mode, opts)
    return x


__all__ = ["pad"]
