"""Array functions composed from registered ops: topk, argsort, pad.

Example:
    >>> from runtime import ops, Tensor
    >>> values, indices = ops.topk(Tensor([1.0, 4.0, 2.0, 4.0]), 2)
    >>> values.asnumpy().tolist(), indices.asnumpy().tolist()
    ([4.0, 4.0], [1, 3])
    >>> ops.pad(Tensor([[1.0, 2.0]]), (1, 2)).asnumpy().tolist()
    [[0.0, 1.0, 2.0, 0.0, 0.0]]
"""
from __future__ import annotations

import numpy as np

from graph.ops import REGISTRY, bind
from graph.ops.shape import split_index

from ..tensor import Tensor
from .composite import CompositePrimitive

_R = REGISTRY

__all__ = ["topk", "TopK", "argsort", "pad", "Pad"]


def _leading(x, axis, k):
    """The first ``k`` entries of ``x`` along ``axis``."""
    size = [-1] * x.ndim
    size[axis] = k
    return bind(_R["slice"], x, begin=(0,) * x.ndim, size=tuple(size))


def topk(input, k, dim=None, largest=True, sorted=True):  # noqa: A002 - MindSpore's names
    """``ops.topk(input, k, dim=None, largest=True, sorted=True)``: the ``k`` largest (smallest
    when ``largest=False``) entries along ``dim`` (the last axis when None) and their int32
    indices; equal values come in index order. Results are always sorted."""
    axis = -1 if dim is None else dim
    shape = tuple(input.shape)
    if not shape:
        raise ValueError("TopK (ops.topk): input must have rank >= 1, got a scalar")
    ax = axis % len(shape)
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 0 <= k <= shape[ax]:
        raise ValueError(f"TopK (ops.topk): k must be an int in [0, {shape[ax]}] for axis {axis} of shape "
                         f"{shape}, got {k!r}")
    values, indices = bind(_R["sort"], input, axis=ax, descending=bool(largest))
    return _leading(values, ax, int(k)), _leading(indices, ax, int(k))


class TopK(CompositePrimitive):
    """``ops.TopK(sorted=True)(input_x, k)``: the k largest entries of the last axis."""

    def __init__(self, sorted=True):  # noqa: A002
        self.sorted = sorted

    def __call__(self, input_x, k):
        return topk(input_x, k, None, True, self.sorted)


def argsort(input, axis=-1, descending=False):  # noqa: A002
    """``ops.argsort(input, axis=-1, descending=False)``: int32 indices that sort ``input``."""
    return bind(_R["sort"], input, axis=axis, descending=descending)[1]


_INDEX_MODES = {"reflect": "reflect", "replicate": "edge", "circular": "wrap", "symmetric": "symmetric"}


def _pairs(padding, shape):
    """MindSpore/torch padding ``(left_last, right_last, left_2nd_last, ...)`` -> one pair per axis."""
    if not isinstance(padding, (tuple, list)) or len(padding) % 2 or len(padding) // 2 > len(shape) or not all(
            isinstance(p, (int, np.integer)) and not isinstance(p, bool) for p in padding):
        raise ValueError(f"Pad (ops.pad): padding must be an even-length tuple of ints covering at most the "
                         f"{len(shape)} axes of shape {shape}, got {padding!r}")
    pairs = [(0, 0)] * len(shape)
    for i in range(len(padding) // 2):
        pairs[len(shape) - 1 - i] = (int(padding[2 * i]), int(padding[2 * i + 1]))
    return pairs


def _crop(x, pairs):
    """Apply the negative parts of ``pairs`` (cropping) with a slice; the rest stays to pad."""
    begin = tuple(-min(lo, 0) for lo, _ in pairs)
    size = tuple(s + min(lo, 0) + min(hi, 0) for s, (lo, hi) in zip(x.shape, pairs))
    if any(s < 0 for s in size):
        raise ValueError(f"Pad (ops.pad): padding {pairs} crops more than shape {tuple(x.shape)} holds")
    if begin != (0,) * x.ndim or size != tuple(x.shape):
        x = bind(_R["slice"], x, begin=begin, size=size)
    return x, [(max(lo, 0), max(hi, 0)) for lo, hi in pairs]


def pad(input_x, padding, mode="constant", value=None):
    """``ops.pad(input_x, padding, mode='constant', value=None)``: pad the last ``len(padding)//2``
    axes, ``padding = (left, right)`` for the last axis, then the one before, ...; negative
    amounts crop. Modes: ``constant`` (``value``, default 0), ``reflect`` (mirror without the edge),
    ``symmetric`` (mirror with the edge), ``replicate`` (repeat the edge), ``circular`` (wrap
    around). Differentiable in ``input_x``."""
    shape = tuple(input_x.shape)
    x, pairs = _crop(input_x, _pairs(padding, shape))
    shape = tuple(x.shape)
    out_shape = tuple(s + lo + hi for s, (lo, hi) in zip(shape, pairs))
    if mode == "constant":
        fill = 0 if value is None else value
        base = Tensor._placed(np.full(out_shape, fill, x.dtype.np), like=x)
        spec, tensors = split_index(tuple(slice(lo, lo + s) for s, (lo, _) in zip(shape, pairs)))
        return bind(_R["setitem"], base, x, *tensors, index=spec)
    if mode not in _INDEX_MODES:
        raise ValueError(f"Pad (ops.pad): mode must be 'constant', 'reflect', 'symmetric', 'replicate' or "
                         f"'circular', got {mode!r}")
    if mode == "reflect" and any(lo >= s or hi >= s for s, (lo, hi) in zip(shape, pairs) if lo or hi):
        raise ValueError(f"Pad (ops.pad): reflect padding {pairs} must be smaller than each padded axis of "
                         f"shape {shape}")
    if mode == "symmetric" and any(lo > s or hi > s for s, (lo, hi) in zip(shape, pairs)):
        raise ValueError(f"Pad (ops.pad): symmetric padding {pairs} must be at most each padded axis of "
                         f"shape {shape}")
    # where each output element reads from, as flat positions of x: a gather (its gradient adds back)
    source = np.pad(np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape), pairs,
                    mode=_INDEX_MODES[mode])
    flat = bind(_R["reshape"], x, shape=(-1,))
    return bind(_R["reshape"], bind(_R["gather"], flat, Tensor._placed(source.reshape(-1), like=x), axis=0), shape=out_shape)


class Pad(CompositePrimitive):
    """``ops.Pad(paddings)(input_x)``: constant zero padding, ``paddings`` one (before, after)
    pair per axis (MindSpore's Primitive)."""

    def __init__(self, paddings):
        if not isinstance(paddings, (tuple, list)) or not all(
                isinstance(p, (tuple, list)) and len(p) == 2 for p in paddings):
            raise ValueError(f"Pad: paddings must be a tuple of (before, after) pairs, got {paddings!r}")
        self.paddings = tuple(tuple(p) for p in paddings)

    def __call__(self, input_x):
        if len(self.paddings) != input_x.ndim:
            raise ValueError(f"Pad: {len(self.paddings)} (before, after) pairs for input shape "
                             f"{tuple(input_x.shape)}")
        flat = tuple(v for pair in reversed(self.paddings) for v in pair)
        return pad(input_x, flat)
