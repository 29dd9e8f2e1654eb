"""3-D pooling layers (``nn.MaxPool3d``, ``nn.AvgPool3d``, ``nn.AdaptiveAvgPool3d``,
``nn.AdaptiveMaxPool3d``), MindSpore 2.x signatures, over (N, C, D, H, W) or unbatched
(C, D, H, W) input.

Composed of existing ops, no new op semantics: the (padded) input's N * C volumes are folded into
a batch of D-channel images, the registry's 2-D pool does the H x W windows (its kernels, its
gradients), and the depth taps of each window are gathered and combined (a max, or a sum) -- the
same decomposition ``ops.conv3d`` uses with conv2d. Padding (pad mode 'pad', the asymmetric 'same'
padding and the extra end cells of ``ceil_mode``) is applied up front with ``ops.pad``: -inf for
max, zeros for the average, whose divisor is a constant computed per output position (the
window's cells inside the input, plus its padding cells when ``count_include_pad``; 'same'
counts only the input's cells, as TensorFlow-style 'same' pooling does).

Adaptive pools split each axis into bins ``[floor(i * n / o), ceil((i + 1) * n / o))``: the
average is separable (one constant averaging matrix per axis, applied with matmul), and so is the
max (a max per bin along W, then H, then D).

Example:
    >>> import runtime as ms
    >>> from runtime import nn
    >>> nn.MaxPool3d(kernel_size=2, stride=2)(ms.ops.ones((1, 2, 4, 4, 4))).shape
    (1, 2, 2, 2, 2)
    >>> nn.AdaptiveAvgPool3d((1, 2, None))(ms.ops.ones((2, 3, 5, 4))).shape
    (2, 1, 2, 4)
"""
from __future__ import annotations

import math

import numpy as np

from graph.dtypes import int64

from ... import ops
from ...tensor import Tensor
from ..cell import Cell
from .basic import _check_int

__all__ = ["MaxPool3d", "AvgPool3d", "AdaptiveAvgPool3d", "AdaptiveMaxPool3d"]


def _triple(cls_name, name, v, minimum=1):
    """An int or a 1- or 3-tuple of ints, as a 3-tuple."""
    if isinstance(v, (tuple, list)):
        if len(v) == 1:
            v = tuple(v) * 3
        if len(v) != 3:
            raise ValueError(f"{cls_name}: {name} must be an int or a tuple of 1 or 3 ints, got {v!r}")
        return tuple(_check_int(cls_name, name, int(e) if isinstance(e, np.integer) else e, minimum) for e in v)
    return (_check_int(cls_name, name, v, minimum),) * 3


def _axis_plan(n, k, s, d, pad_mode, p, ceil_mode):
    """(out, lo, hi, lo_given): the output length of one axis and the padding put before / after
    it (``lo_given`` of ``lo`` is padding the caller asked for, the rest comes from 'same')."""
    eff = (k - 1) * d + 1
    if pad_mode == "same":
        out = -(-n // s)
        total = max((out - 1) * s + eff - n, 0)
        return out, total // 2, total - total // 2, 0
    span = n + 2 * p
    if span < eff:
        raise ValueError(f"the pooling window ({eff} with dilation) is larger than the padded input ({span})")
    if ceil_mode:
        out = -(-(span - eff) // s) + 1
        if (out - 1) * s >= n + p:  # the last window must start inside the input or its left padding
            out -= 1
    else:
        out = (span - eff) // s + 1
    extra = max((out - 1) * s + eff - span, 0)
    return out, p, p + extra, p


class _Pool3d(Cell):
    _name = "Pool3d"

    def _setup(self, kernel_size, stride, pad_mode, padding, ceil_mode):
        n = self._name
        self.kernel_size = _triple(n, "kernel_size", kernel_size)
        self.stride = self.kernel_size if stride is None else _triple(n, "stride", stride)
        if not isinstance(pad_mode, str) or pad_mode.lower() not in ("same", "valid", "pad"):
            raise ValueError(f"{n}: pad_mode must be 'same', 'valid' or 'pad', got {pad_mode!r}")
        self.pad_mode = pad_mode.lower()
        self.padding = _triple(n, "padding", padding, minimum=0)
        if any(self.padding) and self.pad_mode != "pad":
            raise ValueError(f"{n}: padding={padding!r} needs pad_mode='pad', got pad_mode={pad_mode!r}")
        if not isinstance(ceil_mode, bool):
            raise TypeError(f"{n}: ceil_mode must be a bool, got {ceil_mode!r}")
        if ceil_mode and self.pad_mode == "same":
            raise ValueError(f"{n}: ceil_mode=True needs pad_mode 'valid' or 'pad' ('same' fixes the output size)")
        self.ceil_mode = ceil_mode

    def _plans(self, spatial, dilation=(1, 1, 1)):
        try:
            return [_axis_plan(n, k, s, d, self.pad_mode, p, self.ceil_mode)
                    for n, k, s, d, p in zip(spatial, self.kernel_size, self.stride, dilation, self.padding)]
        except ValueError as e:
            raise ValueError(f"{self._name}: {e} (input spatial shape {tuple(spatial)})") from None

    def construct(self, x):
        if x.ndim == 4:  # unbatched (C, D, H, W)
            out = self._pool(ops.expand_dims(x, 0))
            return tuple(ops.squeeze(o, 0) for o in out) if isinstance(out, tuple) else ops.squeeze(out, 0)
        if x.ndim != 5:
            raise ValueError(f"{self._name}: x must be 4-D (C, D, H, W) or 5-D (N, C, D, H, W), "
                             f"got shape {tuple(x.shape)}")
        return self._pool(x)

    def _depth_taps(self, planes, plan_d, dilation_d):
        """The per-tap (N*C, D_out, H_out, W_out) slices of ``planes`` (N*C, D_padded, H_out, W_out)."""
        out_d = plan_d[0]
        k, s = self.kernel_size[0], self.stride[0]
        for tap in range(k):
            idx = np.arange(out_d, dtype=np.int32) * s + tap * dilation_d
            yield tap, idx, ops.gather(planes, Tensor(idx), 1)


class MaxPool3d(_Pool3d):
    """Max over ``kernel_size`` (d, h, w) windows moved by ``stride``; pad_mode 'valid', 'same' or
    'pad' (``padding`` -inf cells on each side of each axis). ``dilation`` spaces the taps,
    ``ceil_mode`` rounds the output size up, ``return_indices=True`` returns ``(output, argmax)``
    with argmax (int64) the flat index ``d * H * W + h * W + w`` of each maximum in its input
    volume (the first one on ties)."""

    _name = "MaxPool3d"

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        super().__init__()
        self._setup(kernel_size, stride, pad_mode, padding, ceil_mode)
        self.dilation = _triple(self._name, "dilation", dilation)
        if not isinstance(return_indices, bool):
            raise TypeError(f"MaxPool3d: return_indices must be a bool, got {return_indices!r}")
        self.return_indices = return_indices

    def extend_repr(self):
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, pad_mode={self.pad_mode.upper()}, "
                f"padding={self.padding}, dilation={self.dilation}, ceil_mode={self.ceil_mode}, "
                f"return_indices={self.return_indices}")

    def _pool(self, x):
        n, c, d, h, w = x.shape
        plans = self._plans((d, h, w), self.dilation)
        pads = []
        for _, lo, hi, _ in reversed(plans):
            pads += [lo, hi]
        if any(pads):
            x = ops.pad(x, tuple(pads), "constant", float("-inf"))
        dp, hp, wp = d + sum(plans[0][1:3]), h + sum(plans[1][1:3]), w + sum(plans[2][1:3])
        folded = ops.reshape(x, (n * c, dp, hp, wp))
        kh, kw = self.kernel_size[1:]
        pooled = ops.max_pool2d(folded, (kh, kw), self.stride[1:], 0, self.dilation[1:], self.return_indices)
        planes, where = pooled if self.return_indices else (pooled, None)
        best = best_at = None
        for tap, idx, values in self._depth_taps(planes, plans[0], self.dilation[0]):
            if best is None:
                best = values
                if where is not None:
                    best_at = self._volume_index(ops.gather(where, Tensor(idx), 1), idx, plans, (h, w), wp)
                continue
            if where is None:
                best = ops.maximum(best, values)
                continue
            better = ops.greater(values, best)
            at = self._volume_index(ops.gather(where, Tensor(idx), 1), idx, plans, (h, w), wp)
            best = ops.select(better, values, best)
            best_at = ops.select(better, at, best_at)
        out_shape = (n, c) + tuple(p[0] for p in plans)
        out = ops.reshape(best, out_shape)
        if where is None:
            return out
        return out, ops.reshape(best_at, out_shape)

    @staticmethod
    def _volume_index(plane_index, depth_index, plans, hw, wp):
        """The 2-D pool's argmax (a flat index into the padded H x W plane) and the padded depth
        of each tap, as a flat index into the unpadded (D, H, W) input volume."""
        h, w = hw
        plane_index = ops.cast(plane_index, int64)
        row = ops.floor_div(plane_index, wp) - plans[1][1]
        col = plane_index - ops.floor_div(plane_index, wp) * wp - plans[2][1]
        depth = Tensor((depth_index - plans[0][1]).astype(np.int64)).reshape((1, -1, 1, 1))
        return depth * (h * w) + row * w + col


class AvgPool3d(_Pool3d):
    """Mean over ``kernel_size`` (d, h, w) windows moved by ``stride``; pad_mode 'valid', 'same' or
    'pad' (``padding`` zeros on each side, counted in the divisor when ``count_include_pad``);
    ``ceil_mode`` rounds the output size up (the extra end cells are never counted);
    ``divisor_override`` replaces the divisor."""

    _name = "AvgPool3d"

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None):
        super().__init__()
        self._setup(kernel_size, stride, pad_mode, padding, ceil_mode)
        if not isinstance(count_include_pad, bool):
            raise TypeError(f"AvgPool3d: count_include_pad must be a bool, got {count_include_pad!r}")
        if divisor_override is not None:
            _check_int("AvgPool3d", "divisor_override", divisor_override)
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def extend_repr(self):
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, pad_mode={self.pad_mode.upper()}, "
                f"padding={self.padding}, ceil_mode={self.ceil_mode}, count_include_pad={self.count_include_pad}, "
                f"divisor_override={self.divisor_override}")

    def _divisor(self, spatial, plans):
        """(D_out, H_out, W_out) counts of the cells each window averages: a product per axis."""
        per_axis = []
        for n, k, s, (out, lo, _, lo_given) in zip(spatial, self.kernel_size, self.stride, plans):
            start = np.arange(out) * s - lo          # window start in input coordinates
            end = start + k
            lo_edge, hi_edge = (-lo_given, n + lo_given) if self.count_include_pad else (0, n)
            per_axis.append(np.minimum(end, hi_edge) - np.maximum(start, lo_edge))
        d, h, w = per_axis
        return (d[:, None, None] * h[None, :, None] * w[None, None, :]).astype(np.float32)

    def _pool(self, x):
        n, c, d, h, w = x.shape
        plans = self._plans((d, h, w))
        pads = []
        for _, lo, hi, _ in reversed(plans):
            pads += [lo, hi]
        if any(pads):
            x = ops.pad(x, tuple(pads))
        dp, hp, wp = d + sum(plans[0][1:3]), h + sum(plans[1][1:3]), w + sum(plans[2][1:3])
        folded = ops.reshape(x, (n * c, dp, hp, wp))
        # window sums over H x W (divisor 1), then over the depth taps
        planes = ops.avg_pool2d(folded, self.kernel_size[1:], self.stride[1:], 0, False, True, 1)
        total = None
        for _, _, values in self._depth_taps(planes, plans[0], 1):
            total = values if total is None else ops.add(total, values)
        if self.divisor_override:
            out = ops.div(total, float(self.divisor_override))
        else:
            out = ops.div(total, Tensor(self._divisor((d, h, w), plans)).astype(total.dtype))
        return ops.reshape(out, (n, c) + tuple(p[0] for p in plans))


def _adaptive_sizes(name, output_size, spatial):
    if isinstance(output_size, (tuple, list)):
        if len(output_size) != 3:
            raise ValueError(f"{name}: output_size must be an int or a tuple of 3 ints (or None), got {output_size!r}")
        sizes = tuple(n if o is None else o for o, n in zip(output_size, spatial))
    elif output_size is None:
        sizes = tuple(spatial)
    else:
        sizes = (output_size,) * 3
    for o in sizes:
        _check_int(name, "output_size", o)
    return sizes


def _bins(n, o):
    return [(math.floor(i * n / o), math.ceil((i + 1) * n / o)) for i in range(o)]


def _check_volume(name, x):
    if x.ndim not in (4, 5):
        raise ValueError(f"{name}: x must be 4-D (C, D, H, W) or 5-D (N, C, D, H, W), got shape {tuple(x.shape)}")


class AdaptiveAvgPool3d(Cell):
    """The mean over adaptive bins of each of D, H, W so that the output is ``output_size`` (an
    int, or (d, h, w) with None keeping an axis)."""

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def construct(self, x):
        _check_volume("AdaptiveAvgPool3d", x)
        spatial = tuple(x.shape[-3:])
        sizes = _adaptive_sizes("AdaptiveAvgPool3d", self.output_size, spatial)
        lead = tuple(x.shape[:-3])
        d, h, w = spatial
        od, oh, ow = sizes
        mats = []
        for n, o in zip(spatial, sizes):
            m = np.zeros((o, n), np.float32)
            for i, (a, b) in enumerate(_bins(n, o)):
                m[i, a:b] = 1.0 / (b - a)
            mats.append(Tensor(m).astype(x.dtype))
        y = ops.matmul(x, ops.transpose(mats[2], (1, 0)))                 # (..., D, H, ow)
        y = ops.matmul(mats[1], y)                                          # (..., D, oh, ow)
        y = ops.reshape(y, lead + (d, oh * ow))
        y = ops.matmul(mats[0], y)                                          # (..., od, oh * ow)
        return ops.reshape(y, lead + (od, oh, ow))


class AdaptiveMaxPool3d(Cell):
    """The max over adaptive bins of each of D, H, W so that the output is ``output_size`` (an
    int, or (d, h, w) with None keeping an axis); ``return_indices=True`` returns ``(output,
    argmax)`` with argmax (int64) the flat index ``d * H * W + h * W + w`` of each maximum in its
    input volume. The max is taken one axis at a time (W, then H, then D), carrying the position
    of each partial maximum along, so ties resolve to the first maximum in (d, h, w) order."""

    def __init__(self, output_size, return_indices=False):
        super().__init__()
        if not isinstance(return_indices, bool):
            raise TypeError(f"AdaptiveMaxPool3d: return_indices must be a bool, got {return_indices!r}")
        self.output_size = output_size
        self.return_indices = return_indices

    def construct(self, input):  # noqa: A002 (MindSpore's argument name)
        _check_volume("AdaptiveMaxPool3d", input)
        spatial = tuple(input.shape[-3:])
        sizes = _adaptive_sizes("AdaptiveMaxPool3d", self.output_size, spatial)
        values, positions = input, []  # positions: the W, H, D index of each partial maximum so far
        for back, n, o in ((1, spatial[2], sizes[2]), (2, spatial[1], sizes[1]), (3, spatial[0], sizes[0])):
            axis = values.ndim - back
            maxima, found = [], [[] for _ in range(len(positions) + 1)]
            for a, b in _bins(n, o):
                window = Tensor(np.arange(a, b, dtype=np.int32))
                part = ops.gather(values, window, axis)
                maxima.append(ops.reduce_max(part, axis, True))
                if not self.return_indices:
                    continue
                best = ops.argmax(part, axis, True)
                for k, pos in enumerate(positions):
                    found[k].append(ops.gather_elements(ops.gather(pos, window, axis), axis, best))
                found[-1].append(ops.add(ops.cast(best, int64), a))
            values = ops.concat(maxima, axis)
            if self.return_indices:
                positions = [ops.concat(parts, axis) for parts in found]
        if not self.return_indices:
            return values
        col, row, depth = positions
        h, w = spatial[1], spatial[2]
        return values, ops.add(ops.add(ops.mul(depth, h * w), ops.mul(row, w)), col)
