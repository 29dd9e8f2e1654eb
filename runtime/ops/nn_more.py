"""More of MindSpore 2.x's functional layers: ``ops.adaptive_avg_pool1d``/``adaptive_max_pool1d``, ``ops.lp_pool1d``/
``lp_pool2d``, ``ops.lrn``, ``ops.pdist``, ``ops.col2im`` and ``ops.affine_grid``, with MindSpore's signatures.

No new op semantics: the 1-D pools are the 2-D ones on a height-1 image, Lp pooling is average pooling of
``x**p`` times the window size, ``col2im`` is ``ops.fold``, and the rest are compositions of registry ops.

Example:
    >>> import numpy as np
    >>> from runtime import ops, Tensor
    >>> ops.pdist(Tensor(np.array([[0.0, 0.0], [3.0, 4.0], [6.0, 8.0]], np.float32))).asnumpy().tolist()
    [5.0, 10.0, 5.0]
"""
from __future__ import annotations

import numpy as np

from graph.ops import REGISTRY, bind
from graph.ops.core import is_tensorlike

from ..tensor import Tensor

_R = REGISTRY

__all__ = ["adaptive_avg_pool1d", "adaptive_max_pool1d", "lp_pool1d", "lp_pool2d", "lrn", "pdist", "col2im",
           "affine_grid"]


def _ops():
    from .. import ops
    return ops


def _tensor(x, fn, name="input"):
    if not is_tensorlike(x) or isinstance(x, (np.ndarray, np.generic)):
        raise TypeError(f"ops.{fn}: {name} must be a Tensor, got {type(x).__name__}")
    return x


def _rank(x, ranks, fn, what):
    if x.ndim not in ranks:
        raise ValueError(f"ops.{fn}: input must be {what}, got shape {tuple(x.shape)}")


def adaptive_avg_pool1d(input, output_size):  # noqa: A002 - MindSpore's names
    """``ops.adaptive_avg_pool1d(input, output_size)``: (N, C, L) -> (N, C, output_size), each output the mean
    of its adaptive window ``[floor(i L / out), ceil((i + 1) L / out))``."""
    _tensor(input, "adaptive_avg_pool1d")
    _rank(input, (3,), "adaptive_avg_pool1d", "3-D (N, C, L)")
    out = _ops().adaptive_avg_pool2d(bind(_R["expand_dims"], input, axis=2), (1, int(output_size)))
    return bind(_R["squeeze"], out, axis=(2,))


def adaptive_max_pool1d(input, output_size):  # noqa: A002
    """``ops.adaptive_max_pool1d(input, output_size)``: (N, C, L) -> (N, C, output_size), the maxima of the
    adaptive windows."""
    _tensor(input, "adaptive_max_pool1d")
    _rank(input, (3,), "adaptive_max_pool1d", "3-D (N, C, L)")
    out = _ops().adaptive_max_pool2d(bind(_R["expand_dims"], input, axis=2), (1, int(output_size)))
    return bind(_R["squeeze"], out, axis=(2,))


def _lp_finish(pooled, window, norm_type):
    """``(window * mean(x**p)) ** (1/p)``, keeping the sign MindSpore keeps (``sign * relu(|s|) ** (1/p)``)."""
    total = bind(_R["mul"], pooled, float(window))
    mag = bind(_R["pow"], bind(_R["relu"], bind(_R["abs"], total)), 1.0 / float(norm_type))
    return bind(_R["mul"], bind(_R["sign"], total), mag)


def lp_pool1d(x, norm_type, kernel_size, stride=None, ceil_mode=False):
    """``ops.lp_pool1d(x, norm_type, kernel_size, stride=None, ceil_mode=False)``: ``(sum over the window of
    x**p) ** (1/p)`` over (N, C, L) windows (``stride`` defaults to ``kernel_size``)."""
    _tensor(x, "lp_pool1d", "x")
    _rank(x, (2, 3), "lp_pool1d", "2-D (C, L) or 3-D (N, C, L)")
    k = int(kernel_size)
    s = k if stride is None else int(stride)
    xin = x if x.ndim == 3 else bind(_R["expand_dims"], x, axis=0)
    pooled = _ops().avg_pool1d(bind(_R["pow"], xin, float(norm_type)), k, s, 0, ceil_mode)
    out = _lp_finish(pooled, k, norm_type)
    return out if x.ndim == 3 else bind(_R["squeeze"], out, axis=(0,))


def lp_pool2d(x, norm_type, kernel_size, stride=None, ceil_mode=False):
    """``ops.lp_pool2d(x, norm_type, kernel_size, stride=None, ceil_mode=False)``: ``(sum over the window of
    x**p) ** (1/p)`` over (N, C, H, W) windows."""
    _tensor(x, "lp_pool2d", "x")
    _rank(x, (3, 4), "lp_pool2d", "3-D (C, H, W) or 4-D (N, C, H, W)")
    k = (int(kernel_size),) * 2 if isinstance(kernel_size, (int, np.integer)) else tuple(int(v) for v in kernel_size)
    s = k if stride is None else ((int(stride),) * 2 if isinstance(stride, (int, np.integer))
                                  else tuple(int(v) for v in stride))
    xin = x if x.ndim == 4 else bind(_R["expand_dims"], x, axis=0)
    pooled = _ops().avg_pool2d(bind(_R["pow"], xin, float(norm_type)), k, s, 0, ceil_mode)
    out = _lp_finish(pooled, k[0] * k[1], norm_type)
    return out if x.ndim == 4 else bind(_R["squeeze"], out, axis=(0,))


def lrn(x, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5, norm_region="ACROSS_CHANNELS"):
    """``ops.lrn(x, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5, norm_region="ACROSS_CHANNELS")``: local
    response normalisation of (N, C, H, W) ``x``: ``x / (bias + alpha * s) ** beta`` with ``s`` the sum of
    squares over channels ``c - depth_radius .. c + depth_radius``."""
    _tensor(x, "lrn", "x")
    _rank(x, (4,), "lrn", "4-D (N, C, H, W)")
    if norm_region != "ACROSS_CHANNELS":
        raise ValueError(f"ops.lrn: norm_region must be 'ACROSS_CHANNELS', got {norm_region!r}")
    r = int(depth_radius)
    if r < 0:
        raise ValueError(f"ops.lrn: depth_radius must be >= 0, got {depth_radius}")
    c = x.shape[1]
    # window membership of channel c' for output channel c: |c - c'| <= r, as a (C, C) matrix
    band = (np.abs(np.arange(c)[:, None] - np.arange(c)[None, :]) <= r).astype(x.dtype.np)
    sq = bind(_R["transpose"], bind(_R["square"], x), perm=(0, 2, 3, 1))           # (N, H, W, C)
    s = bind(_R["transpose"], bind(_R["matmul"], sq, Tensor(band)), perm=(0, 3, 1, 2))
    return bind(_R["div"], x, bind(_R["pow"], bind(_R["add"], bind(_R["mul"], s, float(alpha)), float(bias)),
                                   float(beta)))


def pdist(input, p=2.0):  # noqa: A002
    """``ops.pdist(input, p=2.0)``: the p-norm distances between the rows of (..., N, M) ``input``, pairs
    ``i < j`` in row order: (..., N (N - 1) / 2)."""
    _tensor(input, "pdist")
    if input.ndim < 2:
        raise ValueError(f"ops.pdist: input must have rank >= 2, got shape {tuple(input.shape)}")
    if float(p) < 0:
        raise ValueError(f"ops.pdist: p must be >= 0, got {p}")
    n = input.shape[-2]
    rows, cols = np.triu_indices(n, 1)
    a = bind(_R["gather"], input, Tensor(rows.astype(np.int32)), axis=input.ndim - 2)
    b = bind(_R["gather"], input, Tensor(cols.astype(np.int32)), axis=input.ndim - 2)
    return _ops().vector_norm(bind(_R["sub"], a, b), float(p), -1)


def col2im(input_x, output_size, kernel_size, dilation, padding_value, stride):
    """``ops.col2im(input_x, output_size, kernel_size, dilation, padding_value, stride)``: (N, C, kh * kw, L)
    columns summed back into an (N, C, H, W) image (``ops.fold``)."""
    _tensor(input_x, "col2im", "input_x")
    if input_x.ndim != 4:
        raise ValueError(f"ops.col2im: input_x must be 4-D (N, C, kh * kw, L), got shape {tuple(input_x.shape)}")
    n, c, kk, length = (int(s) for s in input_x.shape)
    cols = bind(_R["reshape"], input_x, shape=(n, c * kk, length))
    return _ops().fold(cols, output_size, kernel_size, dilation, padding_value, stride)


def _base_coords(n, align_corners):
    if align_corners:
        return np.linspace(-1.0, 1.0, n) if n > 1 else np.zeros(1)
    return (np.arange(n) * 2.0 + 1.0) / n - 1.0


def affine_grid(theta, size, align_corners=False):
    """``ops.affine_grid(theta, size, align_corners=False)``: the sampling grid of the affine maps ``theta``
    ((N, 2, 3) for ``size`` (N, C, H, W) -> (N, H, W, 2); (N, 3, 4) for (N, C, D, H, W) -> (N, D, H, W, 3)),
    in [-1, 1] coordinates (pixel centres unless ``align_corners``)."""
    _tensor(theta, "affine_grid", "theta")
    size = tuple(int(v) for v in size)
    if len(size) == 4 and tuple(theta.shape[1:]) == (2, 3):
        n, _, h, w = size
        ys, xs = np.meshgrid(_base_coords(h, align_corners), _base_coords(w, align_corners), indexing="ij")
        base = np.stack([xs, ys, np.ones_like(xs)], -1).reshape(-1, 3)                # (H*W, 3): x, y, 1
        out_shape = (n, h, w, 2)
    elif len(size) == 5 and tuple(theta.shape[1:]) == (3, 4):
        n, _, d, h, w = size
        zs, ys, xs = np.meshgrid(_base_coords(d, align_corners), _base_coords(h, align_corners),
                                 _base_coords(w, align_corners), indexing="ij")
        base = np.stack([xs, ys, zs, np.ones_like(xs)], -1).reshape(-1, 4)
        out_shape = (n, d, h, w, 3)
    else:
        raise ValueError(f"ops.affine_grid: theta (N, 2, 3) goes with size (N, C, H, W) and (N, 3, 4) with "
                         f"(N, C, D, H, W); got theta {tuple(theta.shape)} and size {size}")
    if theta.shape[0] != n:
        raise ValueError(f"ops.affine_grid: theta has {theta.shape[0]} maps for a batch of {n}")
    grid = bind(_R["matmul"], Tensor(base.astype(theta.dtype.np)), theta, transpose_b=True)  # (N, P, 2|3)
    return bind(_R["reshape"], grid, shape=out_shape)
