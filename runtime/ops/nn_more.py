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


# -- 3-D pooling (separable: a 2-D pool over the folded depth, then the depth windows) --------------------------
def _triple(v, what, fn, minimum=0):
    t = (int(v),) * 3 if isinstance(v, (int, np.integer)) else tuple(int(i) for i in v)
    if len(t) != 3 or any(i < minimum for i in t):
        raise ValueError(f"ops.{fn}: {what} must be an int or 3 ints >= {minimum}, got {v!r}")
    return t


def _fold_depth(x):
    """(N, C, D, H, W) -> (N * D, C, H, W)."""
    n, c, d, h, w = (int(s) for s in x.shape)
    return bind(_R["reshape"], bind(_R["transpose"], x, perm=(0, 2, 1, 3, 4)), shape=(n * d, c, h, w))


def _unfold_depth(y, n, d):
    """(N * D, C, H, W) -> (N, C, H, W, D): depth last, ready for a matmul over it."""
    _, c, h, w = (int(s) for s in y.shape)
    return bind(_R["transpose"], bind(_R["reshape"], y, shape=(n, d, c, h, w)), perm=(0, 2, 3, 4, 1))


def _depth_last_to_ncdhw(y):
    return bind(_R["transpose"], y, perm=(0, 1, 4, 2, 3))


def _check5(x, fn):
    _tensor(x, fn, "input")
    _rank(x, (5,), fn, "5-D (N, C, D, H, W)")


def avg_pool3d(input_x, kernel_size=1, stride=1, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=0):
    """``ops.avg_pool3d(input_x, kernel_size=1, stride=1, padding=0, ceil_mode=False, count_include_pad=True,
    divisor_override=0)``: means over (kd, kh, kw) windows of (N, C, D, H, W) ``input_x`` (zero padding
    counted). ``ceil_mode``, ``count_include_pad=False`` with padding and ``divisor_override`` raise ValueError."""
    fn = "avg_pool3d"
    _check5(input_x, fn)
    k = _triple(kernel_size, "kernel_size", fn, 1)
    s = _triple(stride, "stride", fn, 1)
    p = _triple(padding, "padding", fn, 0)
    if ceil_mode or divisor_override or (not count_include_pad and any(p)):
        raise ValueError(f"ops.{fn}: ceil_mode, divisor_override and count_include_pad=False with padding are not "
                         "supported here")
    n, d = int(input_x.shape[0]), int(input_x.shape[2])
    planes = _ops().avg_pool2d(_fold_depth(input_x), k[1:], s[1:], p[1:])
    y = _unfold_depth(planes, n, d)                                                   # (N, C, Ho, Wo, D)
    dp = d + 2 * p[0]
    do = (dp - k[0]) // s[0] + 1
    taps = np.zeros((d, do))
    for o in range(do):
        for t in range(k[0]):
            src = o * s[0] + t - p[0]
            if 0 <= src < d:
                taps[src, o] = 1.0 / k[0]
    return _depth_last_to_ncdhw(bind(_R["matmul"], y, Tensor(taps.astype(y.dtype.np))))


def max_pool3d(x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """``ops.max_pool3d(x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
    return_indices=False)``: maxima over (kd, kh, kw) windows of (N, C, D, H, W) ``x`` (padding with -inf).
    ``return_indices`` and ``ceil_mode`` raise ValueError."""
    fn = "max_pool3d"
    _check5(x, fn)
    if return_indices or ceil_mode:
        raise ValueError(f"ops.{fn}: return_indices and ceil_mode are not supported here")
    k = _triple(kernel_size, "kernel_size", fn, 1)
    s = k if stride is None else _triple(stride, "stride", fn, 1)
    p = _triple(padding, "padding", fn, 0)
    dl = _triple(dilation, "dilation", fn, 1)
    n, d = int(x.shape[0]), int(x.shape[2])
    planes = _ops().max_pool2d(_fold_depth(x), k[1:], s[1:], p[1:], dl[1:])
    y = _unfold_depth(planes, n, d)                                                   # (N, C, Ho, Wo, D)
    dp = d + 2 * p[0]
    do = (dp - dl[0] * (k[0] - 1) - 1) // s[0] + 1
    outs = []
    for o in range(do):
        srcs = [o * s[0] + t * dl[0] - p[0] for t in range(k[0])]
        srcs = [v for v in srcs if 0 <= v < d]                                         # padding taps are -inf
        picked = bind(_R["gather"], y, Tensor(np.asarray(srcs, np.int32)), axis=4)
        outs.append(bind(_R["reduce_max"], picked, axis=(4,), keep_dims=False))
    return bind(_R["stack"], *outs, axis=2)


def _adaptive_depth_matrix(d, od, like):
    from .nn_func import _bins
    m = np.zeros((d, od))
    for o, (lo, hi) in enumerate(_bins(d, od)):
        m[lo:hi, o] = 1.0 / (hi - lo)
    return Tensor(m.astype(like.dtype.np))


def _out3(output_size, x, fn):
    if isinstance(output_size, (int, np.integer)):
        output_size = (int(output_size),) * 3
    out = tuple(int(x.shape[2 + i]) if v is None else int(v) for i, v in enumerate(output_size))
    if len(out) != 3 or any(v < 1 for v in out):
        raise ValueError(f"ops.{fn}: output_size must be an int or 3 positive ints (None keeps an axis), "
                         f"got {output_size!r}")
    return out


def adaptive_avg_pool3d(input, output_size):  # noqa: A002
    """``ops.adaptive_avg_pool3d(input, output_size)``: (N, C, D, H, W) -> (N, C, *output_size), the mean of each
    adaptive bin (the 2-D adaptive mean per depth slice, then the depth bins)."""
    fn = "adaptive_avg_pool3d"
    _check5(input, fn)
    od, oh, ow = _out3(output_size, input, fn)
    n, d = int(input.shape[0]), int(input.shape[2])
    y = _unfold_depth(_ops().adaptive_avg_pool2d(_fold_depth(input), (oh, ow)), n, d)
    return _depth_last_to_ncdhw(bind(_R["matmul"], y, _adaptive_depth_matrix(d, od, y)))


def adaptive_max_pool3d(input, output_size, return_indices=False):  # noqa: A002
    """``ops.adaptive_max_pool3d(input, output_size, return_indices=False)``: the maxima of the adaptive bins
    (``return_indices`` raises ValueError)."""
    from .nn_func import _bins
    fn = "adaptive_max_pool3d"
    _check5(input, fn)
    if return_indices:
        raise ValueError(f"ops.{fn}: return_indices is not supported here")
    od, oh, ow = _out3(output_size, input, fn)
    n, d = int(input.shape[0]), int(input.shape[2])
    y = _unfold_depth(_ops().adaptive_max_pool2d(_fold_depth(input), (oh, ow)), n, d)
    outs = [bind(_R["reduce_max"], bind(_R["gather"], y, Tensor(np.arange(lo, hi, dtype=np.int32)), axis=4),
                 axis=(4,), keep_dims=False) for lo, hi in _bins(d, od)]
    return bind(_R["stack"], *outs, axis=2)


# -- max unpooling ----------------------------------------------------------------------------------------------
def _max_unpool(x, indices, kernel_size, stride, padding, output_size, nd, fn):
    _tensor(x, fn, "x")
    if x.ndim not in (nd + 1, nd + 2):
        raise ValueError(f"ops.{fn}: x must be {nd + 2}-D (N, C, ...) or {nd + 1}-D, got shape {tuple(x.shape)}")
    def as_tuple(v):
        return (int(v),) * nd if isinstance(v, (int, np.integer)) else tuple(int(i) for i in v)
    k = as_tuple(kernel_size)
    s = k if stride is None else as_tuple(stride)
    p = as_tuple(padding)
    spatial_in = tuple(int(v) for v in x.shape[-nd:])
    if output_size is None:
        spatial = tuple((i - 1) * st - 2 * pd + kk for i, st, pd, kk in zip(spatial_in, s, p, k))
    else:
        spatial = tuple(int(v) for v in tuple(output_size)[-nd:])
    lead = tuple(int(v) for v in x.shape[:-nd])
    planes = int(np.prod(lead))
    per_plane = int(np.prod(spatial_in))
    flat_x = bind(_R["reshape"], x, shape=(planes * per_plane,))
    flat_i = bind(_R["reshape"], bind(_R["cast"], indices, dtype=_int32()), shape=(planes * per_plane,))
    # the flat position in the output: plane * prod(spatial) + index within the plane
    base = Tensor((np.repeat(np.arange(planes), per_plane) * int(np.prod(spatial))).astype(np.int32))
    where = bind(_R["reshape"], bind(_R["add"], flat_i, base), shape=(planes * per_plane, 1))
    zeros = Tensor(np.zeros(planes * int(np.prod(spatial)), x.dtype.np))
    out = bind(_R["tensor_scatter_update"], zeros, where, flat_x)
    return bind(_R["reshape"], out, shape=lead + spatial)


def _int32():
    from graph.dtypes import int32
    return int32


def max_unpool1d(x, indices, kernel_size, stride=None, padding=0, output_size=None):
    """``ops.max_unpool1d(x, indices, kernel_size, stride=None, padding=0, output_size=None)``: each value of
    (N, C, L) ``x`` put at its ``indices`` (positions in the unpooled length, as ``max_pool1d`` returns them),
    zeros elsewhere; the length is ``(L - 1) * stride - 2 * padding + kernel_size`` unless ``output_size``."""
    return _max_unpool(x, indices, kernel_size, stride, padding, output_size, 1, "max_unpool1d")


def max_unpool2d(x, indices, kernel_size, stride=None, padding=0, output_size=None):
    """``ops.max_unpool2d(x, indices, kernel_size, stride=None, padding=0, output_size=None)``: the inverse of
    ``max_pool2d(..., return_indices=True)``: values at their flat ``h * W + w`` indices, zeros elsewhere."""
    return _max_unpool(x, indices, kernel_size, stride, padding, output_size, 2, "max_unpool2d")


def max_unpool3d(x, indices, kernel_size, stride=None, padding=0, output_size=None):
    """``ops.max_unpool3d(x, indices, kernel_size, stride=None, padding=0, output_size=None)``: as
    :func:`max_unpool2d` for (N, C, D, H, W) with flat ``(d * H + h) * W + w`` indices."""
    return _max_unpool(x, indices, kernel_size, stride, padding, output_size, 3, "max_unpool3d")


# -- grid sampling ----------------------------------------------------------------------------------------------
def _unnormalize(coord, size, align_corners):
    if align_corners:
        return bind(_R["mul"], bind(_R["add"], coord, 1.0), (size - 1) / 2.0)
    return bind(_R["div"], bind(_R["sub"], bind(_R["mul"], bind(_R["add"], coord, 1.0), float(size)), 1.0), 2.0)


def _reflect(coord, twice_low, twice_high):
    """Coordinates reflected into [twice_low / 2, twice_high / 2] (PyTorch's reflect_coordinates)."""
    if twice_low == twice_high:
        return bind(_R["zeros_like"], coord)
    lo = twice_low / 2.0
    span = (twice_high - twice_low) / 2.0
    c = bind(_R["abs"], bind(_R["sub"], coord, lo))
    flips = bind(_R["floor"], bind(_R["div"], c, span))
    extra = bind(_R["sub"], c, bind(_R["mul"], flips, span))
    even = bind(_R["equal"], bind(_R["sub"], flips, bind(_R["mul"], bind(_R["floor"], bind(_R["div"], flips, 2.0)), 2.0)),
                0.0)
    return bind(_R["where"], even, bind(_R["add"], extra, lo), bind(_R["add"], bind(_R["sub"], span, extra), lo))


def _source(coord, size, padding_mode, align_corners):
    c = _unnormalize(coord, size, align_corners)
    if padding_mode == "reflection":
        c = _reflect(c, 0.0, 2.0 * (size - 1)) if align_corners else _reflect(c, -1.0, 2.0 * size - 1.0)
    if padding_mode in ("border", "reflection"):
        c = bind(_R["minimum"], bind(_R["maximum"], c, 0.0), float(size - 1))
    return c


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=False):  # noqa: A002
    """``ops.grid_sample(input, grid, mode='bilinear', padding_mode='zeros', align_corners=False)``: (N, C, H, W)
    ``input`` sampled at the (N, Ho, Wo, 2) ``grid`` of (x, y) in [-1, 1] -> (N, C, Ho, Wo); ``mode`` 'bilinear'
    or 'nearest' (halves to even), ``padding_mode`` 'zeros', 'border' or 'reflection' (PyTorch's rules). 5-D input
    raises ValueError."""
    fn = "grid_sample"
    _tensor(input, fn)
    _tensor(grid, fn, "grid")
    if input.ndim != 4 or grid.ndim != 4 or grid.shape[-1] != 2 or grid.shape[0] != input.shape[0]:
        raise ValueError(f"ops.{fn}: expects input (N, C, H, W) and grid (N, Ho, Wo, 2), got {tuple(input.shape)} "
                         f"and {tuple(grid.shape)}")
    if mode not in ("bilinear", "nearest"):
        raise ValueError(f"ops.{fn}: mode must be 'bilinear' or 'nearest', got {mode!r}")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(f"ops.{fn}: padding_mode must be 'zeros', 'border' or 'reflection', got {padding_mode!r}")
    n, c, h, w = (int(s) for s in input.shape)
    ho, wo = int(grid.shape[1]), int(grid.shape[2])
    g = grid if grid.dtype == input.dtype else bind(_R["cast"], grid, dtype=input.dtype)
    gx = bind(_R["reshape"], bind(_R["slice"], g, begin=(0, 0, 0, 0), size=(-1, -1, -1, 1)), shape=(n, ho * wo))
    gy = bind(_R["reshape"], bind(_R["slice"], g, begin=(0, 0, 0, 1), size=(-1, -1, -1, 1)), shape=(n, ho * wo))
    ix = _source(gx, w, padding_mode, align_corners)
    iy = _source(gy, h, padding_mode, align_corners)
    flat = bind(_R["reshape"], input, shape=(n, c, h * w))

    def tap(xi, yi, weight):
        """weight * input[yi, xi] (0 outside the image), for float coordinates holding integers."""
        inside = bind(_R["logical_and"],
                      bind(_R["logical_and"], bind(_R["greater_equal"], xi, 0.0), bind(_R["less_equal"], xi, w - 1.0)),
                      bind(_R["logical_and"], bind(_R["greater_equal"], yi, 0.0), bind(_R["less_equal"], yi, h - 1.0)))
        xc = bind(_R["minimum"], bind(_R["maximum"], xi, 0.0), w - 1.0)
        yc = bind(_R["minimum"], bind(_R["maximum"], yi, 0.0), h - 1.0)
        idx = bind(_R["cast"], bind(_R["add"], bind(_R["mul"], yc, float(w)), xc), dtype=_int32())   # (N, P)
        idx = bind(_R["broadcast_to"], bind(_R["expand_dims"], idx, axis=1), shape=(n, c, ho * wo))
        vals = bind(_R["gather_elements"], flat, idx, dim=2)
        wt = bind(_R["where"], inside, weight, bind(_R["zeros_like"], weight))
        return bind(_R["mul"], vals, bind(_R["expand_dims"], wt, axis=1))

    if mode == "nearest":
        out = tap(_ops().round(ix), _ops().round(iy), bind(_R["ones_like"], ix))
    else:
        x0, y0 = bind(_R["floor"], ix), bind(_R["floor"], iy)
        x1, y1 = bind(_R["add"], x0, 1.0), bind(_R["add"], y0, 1.0)
        wx1, wy1 = bind(_R["sub"], ix, x0), bind(_R["sub"], iy, y0)
        wx0, wy0 = bind(_R["sub"], 1.0, wx1), bind(_R["sub"], 1.0, wy1)
        out = tap(x0, y0, bind(_R["mul"], wx0, wy0))
        for xi, yi, wt in ((x1, y0, bind(_R["mul"], wx1, wy0)), (x0, y1, bind(_R["mul"], wx0, wy1)),
                           (x1, y1, bind(_R["mul"], wx1, wy1))):
            out = bind(_R["add"], out, tap(xi, yi, wt))
    return bind(_R["reshape"], out, shape=(n, c, ho, wo))


__all__ += ["avg_pool3d", "max_pool3d", "adaptive_avg_pool3d", "adaptive_max_pool3d", "max_unpool1d", "max_unpool2d",
            "max_unpool3d", "grid_sample"]
