"""Neural-network ops (NCHW): conv2d and its backprop ops, max/avg pooling and their gradients,
batch_norm, layer_norm, dropout, softmax cross entropy (dense and sparse), one_hot, gather and
unsorted_segment_sum.

Convolution is im2col (a strided window view, copied once) + one batched matmul over the groups;
its input gradient is col2im, a loop over the kh*kw kernel offsets adding strided slices. Geometry
follows MindSpore: ``pad_mode`` "valid" (no padding), "same" (output ``ceil(H / stride)``, the odd
padding row/column goes to the bottom/right) or "pad" (explicit ``padding``: an int, (h, w) or
(top, bottom, left, right)).

Example:
    >>> from runtime import ops, Tensor
    >>> x = Tensor(np.ones((1, 1, 4, 4), np.float32)); w = Tensor(np.ones((2, 1, 3, 3), np.float32))
    >>> ops.conv2d(x, w, pad_mode="same").shape
    (1, 2, 4, 4)
    >>> ops.max_pool2d(x, 2).shape
    (1, 1, 2, 2)
"""
from __future__ import annotations

import threading

import numpy as np

from ..aval import AVal
from ..dtypes import float32
from . import rng
from .core import (EXTERN, RANDOM, REQUIRED, Attr, F, Op, a_bool, a_float, a_int, a_nonneg_int,
                   a_oneof, a_pair, a_pos_int, a_shape, describe, fail, input_needed, normalize_axis, register)


# -- attribute normalisers ---------------------------------------------------------------------------
def a_pos_pair(v, op, name):
    """int or pair of positive ints -> (int, int)"""
    p = a_pair(v, op, name)
    if p[0] <= 0 or p[1] <= 0:
        raise ValueError(f"{op.prim} (ops.{op.name}): attribute {name} must be positive, got {v!r}")
    return p


def a_pad4(v, op, name):
    """int, (h, w) or (top, bottom, left, right) of non-negative ints -> 4-tuple."""
    if isinstance(v, (list, tuple)):
        if len(v) == 2:
            v = (v[0], v[0], v[1], v[1])
        elif len(v) != 4:
            raise ValueError(f"{op.prim} (ops.{op.name}): attribute {name} must be an int or a tuple of "
                             f"2 or 4 ints (top, bottom, left, right), got {v!r}")
        t = tuple(a_int(p, op, name) for p in v)
    else:
        t = (a_int(v, op, name),) * 4
    if any(p < 0 for p in t):
        raise ValueError(f"{op.prim} (ops.{op.name}): attribute {name} must be >= 0, got {v!r}")
    return t


def a_eps(v, op, name):
    v = a_float(v, op, name)
    if not v >= 0.0:
        raise ValueError(f"{op.prim} (ops.{op.name}): attribute {name} must be >= 0, got {v!r}")
    return v


def a_keep_prob(v, op, name):
    v = a_float(v, op, name)
    if not 0.0 < v <= 1.0:
        raise ValueError(f"{op.prim} (ops.{op.name}): attribute {name} must be in (0, 1], got {v!r}")
    return v


def a_shape4(v, op, name):
    t = a_shape(v, op, name)
    if len(t) != 4 or any(s < 0 for s in t):
        raise ValueError(f"{op.prim} (ops.{op.name}): attribute {name} must be a 4-D shape, got {v!r}")
    return t


# -- scratch memory ----------------------------------------------------------------------------------
# im2col columns and the other large temporaries of conv never escape an op. Allocating them fresh
# on every call costs more than the arithmetic with numpy (glibc maps big blocks with mmap, so each
# call page-faults them in again), so each thread keeps one reusable buffer per slot. cupy has its
# own memory pool and always allocates normally.
_SCRATCH = threading.local()
_SCRATCH_MAX_BYTES = 64 << 20


def _work(xp, slot, shape, dtype):
    """An uninitialised temporary array; the same memory is handed out again for ``slot``."""
    dtype = np.dtype(dtype)
    size = dtype.itemsize
    for d in shape:
        size *= d
    if xp is not np or size > _SCRATCH_MAX_BYTES:
        return xp.empty(shape, dtype=dtype)
    bufs = getattr(_SCRATCH, "bufs", None)
    if bufs is None:
        bufs = _SCRATCH.bufs = {}
    buf = bufs.get(slot)
    if buf is None or buf.nbytes < size:
        buf = bufs[slot] = np.empty(max(size, 1), dtype=np.uint8)
    return buf[:size].view(dtype).reshape(shape)


def _contiguous_work(xp, slot, a):
    """A C-contiguous copy of ``a`` in scratch memory."""
    out = _work(xp, slot, a.shape, a.dtype)
    out[...] = a
    return out


# -- shared checks and geometry ------------------------------------------------------------------------
def _shape(a):
    return tuple(a.shape)


def _require_float(op_name, *named):
    for what, a in named:
        if not a.dtype.is_float:
            fail(op_name, f"{what} must be a floating-point tensor, got {describe(a)}", TypeError)


def _require_int(op_name, what, a):
    if not a.dtype.is_int:
        fail(op_name, f"{what} must be an integer tensor, got {describe(a)}", TypeError)


def _same_dtype(op_name, a, b):
    if a[1].dtype is not b[1].dtype:
        fail(op_name, f"{a[0]} and {b[0]} dtypes differ: {describe(a[1])} and {describe(b[1])}", TypeError)


def _require_rank4(op_name, what, a):
    if a.ndim != 4:
        fail(op_name, f"{what} must be 4-D (N, C, H, W), got shape {_shape(a)}")


def _geometry(op_name, in_hw, ksize, stride, dilation, pad_mode, padding, attrs_desc):
    """-> ((top, bottom, left, right), (Ho, Wo)) for a window op over spatial size ``in_hw``."""
    if pad_mode != "pad" and padding is not None and any(padding):
        fail(op_name, f"padding {padding} needs pad_mode='pad', got pad_mode={pad_mode!r}")
    pads, outs = [], []
    for i in range(2):
        n, k, s, d = in_hw[i], ksize[i], stride[i], dilation[i]
        ek = (k - 1) * d + 1
        if pad_mode == "same":
            o = -(-n // s)
            total = max((o - 1) * s + ek - n, 0)
            lo, hi = total // 2, total - total // 2
        elif pad_mode == "pad":
            lo, hi = padding[2 * i], padding[2 * i + 1]
            o = (n + lo + hi - ek) // s + 1 if n + lo + hi >= ek else 0
        else:
            lo = hi = 0
            o = (n - ek) // s + 1 if n >= ek else 0
        if n <= 0 or o <= 0:
            fail(op_name, f"the (dilated) window {ksize[0]}x{ksize[1]} does not fit the spatial size "
                          f"{tuple(in_hw)} padded by {pad_mode!r} ({attrs_desc})")
        pads += [lo, hi]
        outs.append(o)
    return tuple(pads), tuple(outs)


def _pad(xp, x, pads, value=0, h_ax=2):
    """Pad the spatial axes (h_ax, h_ax + 1) by (top, bottom, left, right) with ``value``."""
    t, b, l, r = pads
    if not (t or b or l or r):
        return x
    shape = list(x.shape)
    h, w = shape[h_ax], shape[h_ax + 1]
    shape[h_ax] += t + b
    shape[h_ax + 1] += l + r
    out = xp.full(tuple(shape), value, dtype=x.dtype)
    out[(slice(None),) * h_ax + (slice(t, t + h), slice(l, l + w))] = x
    return out


def _crop(xp, x, pads, hw, h_ax=2, copy=True):
    """Undo ``_pad``: the (hw) spatial window at offset (top, left); a contiguous copy unless
    ``copy`` is False (the caller copies anyway)."""
    t, _, l, _ = pads
    if x.shape[h_ax] == hw[0] and x.shape[h_ax + 1] == hw[1]:
        return x
    x = x[(slice(None),) * h_ax + (slice(t, t + hw[0]), slice(l, l + hw[1]))]
    return xp.ascontiguousarray(x) if copy else x


def _offset_slice(i, j, stride, dilation, out_hw, h_ax=2):
    """Index of the (Ho, Wo) input positions that kernel offset (i, j) reads."""
    h0, w0 = i * dilation[0], j * dilation[1]
    return (slice(None),) * h_ax + (slice(h0, h0 + (out_hw[0] - 1) * stride[0] + 1, stride[0]),
                                    slice(w0, w0 + (out_hw[1] - 1) * stride[1] + 1, stride[1]))


# ====================================================================================================
# conv2d
# ====================================================================================================
CONV_ATTRS = {
    "stride": Attr(1, a_pos_pair, "int or (h, w)"),
    "pad_mode": Attr("valid", a_oneof("valid", "same", "pad")),
    "padding": Attr(0, a_pad4, "int, (h, w) or (top, bottom, left, right); only with pad_mode='pad'"),
    "dilation": Attr(1, a_pos_pair, "int or (h, w)"),
    "groups": Attr(1, a_pos_int),
}


def _conv_desc(stride, pad_mode, padding, dilation, groups):
    return (f"stride={stride}, pad_mode={pad_mode!r}, padding={padding}, dilation={dilation}, "
            f"groups={groups}")


def _conv_check(op_name, x_shape, w_shape, stride, pad_mode, padding, dilation, groups):
    """Validate conv shapes (x and weight as shape tuples); return (pads, (Ho, Wo))."""
    n, c, h, w = x_shape
    o, cg, kh, kw = w_shape
    if c % groups or o % groups or cg * groups != c:
        fail(op_name, f"input shape {tuple(x_shape)} has {c} channels but weight shape {tuple(w_shape)} "
                      f"with groups={groups} expects {cg * groups} (weight is (out_channels, "
                      f"in_channels / groups, kh, kw); out_channels must be divisible by groups)")
    if kh <= 0 or kw <= 0:
        fail(op_name, f"weight shape {tuple(w_shape)} has an empty kernel")
    return _geometry(op_name, (h, w), (kh, kw), stride, dilation, pad_mode, padding,
                     _conv_desc(stride, pad_mode, padding, dilation, groups)
                     + f"; input shape {tuple(x_shape)}, weight shape {tuple(w_shape)}")


def _infer_conv2d(x, weight, stride=(1, 1), pad_mode="valid", padding=(0, 0, 0, 0),
                  dilation=(1, 1), groups=1):
    _require_rank4("conv2d", "input", x)
    _require_rank4("conv2d", "weight", weight)
    _require_float("conv2d", ("input", x), ("weight", weight))
    _same_dtype("conv2d", ("input", x), ("weight", weight))
    _, (ho, wo) = _conv_check("conv2d", _shape(x), _shape(weight), stride, pad_mode, padding,
                              dilation, groups)
    return AVal((x.shape[0], weight.shape[0], ho, wo), x.dtype)


# Two layouts for the columns. Batch-first, (N, groups, K, Ho*Wo) with K = C/groups*kh*kw, is
# the natural one; batch-last, (groups, K, Ho*Wo*N) computed on a (C, H, W, N) copy of the input,
# makes every strided copy and col2im slice-add run over rows of Wo*N contiguous elements instead
# of Wo, which is up to 2-3x faster when the feature maps are narrow (measured with numpy: a win
# for Wo <= 16, a loss for Wo >= 28).
NLAST_MAX_WIDTH = 16


def _batch_last(out_hw):
    return out_hw[1] <= NLAST_MAX_WIDTH


def _im2col(xp, x, w_shape, stride, pads, dilation, out_hw, groups, nlast):
    """Contiguous columns: (N, g, K, P) batch-first or (g, K, P*N) batch-last."""
    n = x.shape[0]
    _, cg, kh, kw = w_shape
    k, p = cg * kh * kw, out_hw[0] * out_hw[1]
    if nlast:
        xp_ = _pad(xp, _contiguous_work(xp, "xt", xp.transpose(x, (1, 2, 3, 0))), pads, 0, h_ax=1)
        s0, s1, s2, s3 = xp_.strides
        win = xp.lib.stride_tricks.as_strided(  # (C, kh, kw, Ho, Wo, N)
            xp_, shape=(xp_.shape[0], kh, kw, out_hw[0], out_hw[1], n),
            strides=(s0, s1 * dilation[0], s2 * dilation[1], s1 * stride[0], s2 * stride[1], s3))
        return _contiguous_work(xp, "cols", win).reshape(groups, k, p * n)
    win = _windows(xp, _pad(xp, x, pads), (kh, kw), stride, dilation, out_hw)
    return _contiguous_work(xp, "cols", win).reshape(n, groups, k, p)


def _windows(xp, xpad, ksize, stride, dilation, out_hw):
    """The (N, C, kh, kw, Ho, Wo) strided view of a padded NCHW input that im2col copies."""
    s0, s1, s2, s3 = xpad.strides
    return xp.lib.stride_tricks.as_strided(
        xpad, shape=(xpad.shape[0], xpad.shape[1], ksize[0], ksize[1], out_hw[0], out_hw[1]),
        strides=(s0, s1, s2 * dilation[0], s3 * dilation[1], s2 * stride[0], s3 * stride[1]))


def _col2im(xp, dcols, pads, hw, stride, dilation, out_hw):
    """(N, C, kh, kw, Ho, Wo) column gradients -> (N, C, H, W): every window position adds its
    value to the input position it was read from."""
    n, c, kh, kw = dcols.shape[:4]
    t, b, l, r = pads
    dx = xp.zeros((n, c, hw[0] + t + b, hw[1] + l + r), dtype=dcols.dtype)
    for i in range(kh):
        for j in range(kw):
            dx[_offset_slice(i, j, stride, dilation, out_hw)] += dcols[:, :, i, j]
    return _crop(xp, dx, pads, hw)


def _batch_last_dout(xp, dout, groups):
    """(N, O, Ho, Wo) -> (g, O/g, Ho*Wo*N) contiguous."""
    o = dout.shape[1]
    return _contiguous_work(xp, "dout", xp.transpose(dout, (1, 2, 3, 0))).reshape(groups, o // groups, -1)


def _conv2d_impl(xp, x, weight, stride=(1, 1), pad_mode="valid", padding=(0, 0, 0, 0),
                 dilation=(1, 1), groups=1):
    pads, out_hw = _conv_check("conv2d", x.shape, weight.shape, stride, pad_mode, padding,
                               dilation, groups)
    n = x.shape[0]
    o = weight.shape[0]
    nlast = _batch_last(out_hw)
    cols = _im2col(xp, x, weight.shape, stride, pads, dilation, out_hw, groups, nlast)
    w2 = weight.reshape(groups, o // groups, -1)
    if nlast:
        out = _work(xp, "mm", (groups, o // groups, cols.shape[2]), cols.dtype)  # (g, O/g, P*N)
        xp.matmul(w2, cols, out=out)
        # .copy(), not ascontiguousarray: with N == 1 the transpose is already contiguous and
        # the scratch buffer must not escape
        return xp.transpose(out.reshape(o, out_hw[0], out_hw[1], n), (3, 0, 1, 2)).copy()
    out = xp.matmul(w2[0], cols[:, 0]) if groups == 1 else xp.matmul(w2, cols)  # (N, [g,] O/g, P)
    return out.reshape(n, o, out_hw[0], out_hw[1])


def _conv2d_vjp(g, out, x, weight, **attrs):
    # (PyNative: the input gradient of a first layer, whose input is the data, is not computed)
    dx = F.conv2d_backprop_input(g, weight, input_size=_shape(x), **attrs) if input_needed(0) else None
    dw = F.conv2d_backprop_filter(g, x, filter_size=_shape(weight), **attrs) if input_needed(1) else None
    return dx, dw


register(Op("conv2d", prim="Conv2D", inputs=("x", "weight"), impl=_conv2d_impl, infer=_infer_conv2d,
            vjp=_conv2d_vjp, kind=EXTERN, attrs=CONV_ATTRS,
            doc="2-D convolution (cross-correlation) of NCHW input with (O, C/groups, kh, kw) weight"))


# -- conv2d input gradient -------------------------------------------------------------------------------
def _dout_check(op_name, dout, expect):
    if _shape(dout) != tuple(expect):
        fail(op_name, f"dout shape {_shape(dout)} does not match the convolution output shape "
                      f"{tuple(expect)}")


def _infer_conv2d_backprop_input(dout, weight, input_size, stride=(1, 1), pad_mode="valid",
                                 padding=(0, 0, 0, 0), dilation=(1, 1), groups=1):
    name = "conv2d_backprop_input"
    _require_rank4(name, "dout", dout)
    _require_rank4(name, "weight", weight)
    _require_float(name, ("dout", dout), ("weight", weight))
    _same_dtype(name, ("dout", dout), ("weight", weight))
    _, (ho, wo) = _conv_check(name, input_size, _shape(weight), stride, pad_mode, padding,
                              dilation, groups)
    if len(input_size) == 4 and _shape(dout)[1] != weight.shape[0]:
        # dout is the input of a transposed convolution (nn.Conv2dTranspose, ops.conv_transpose2d):
        # name its channels against the weight, as conv2d does, not the output shape it implies
        fail(name, f"dout shape {_shape(dout)} has {_shape(dout)[1]} channels but weight shape "
                   f"{_shape(weight)} expects {weight.shape[0]} (as a transposed convolution's input: its "
                   f"weight is (in_channels, out_channels / groups, kh, kw))")
    if len(input_size) == 4 and _shape(dout)[1] != weight.shape[0]:
        # dout is the input of a transposed convolution (nn.Conv2dTranspose, ops.conv_transpose2d):
        # name its channels against the weight, as conv2d does, not the output shape it implies
        fail(name, f"dout shape {_shape(dout)} has {_shape(dout)[1]} channels but weight shape "
                   f"{_shape(weight)} expects {weight.shape[0]} (as a transposed convolution's input: its "
                   f"weight is (in_channels, out_channels / groups, kh, kw))")
    _dout_check(name, dout, (input_size[0], weight.shape[0], ho, wo))
    return AVal(input_size, dout.dtype)


def _conv2d_backprop_input_impl(xp, dout, weight, input_size, stride=(1, 1), pad_mode="valid",
                                padding=(0, 0, 0, 0), dilation=(1, 1), groups=1):
    pads, out_hw = _conv_check("conv2d_backprop_input", input_size, weight.shape, stride, pad_mode,
                               padding, dilation, groups)
    n, c, h, w = input_size
    o, cg, kh, kw = weight.shape
    p = out_hw[0] * out_hw[1]
    w2t = xp.swapaxes(weight.reshape(groups, o // groups, cg * kh * kw), 1, 2)  # (g, K, O/g)
    t, b, l, r = pads
    hp, wp = h + t + b, w + l + r
    if _batch_last(out_hw):
        dcols = _work(xp, "mm", (groups, cg * kh * kw, p * n), dout.dtype)  # (g, K, P*N)
        xp.matmul(w2t, _batch_last_dout(xp, dout, groups), out=dcols)
        dcols = dcols.reshape(c, kh, kw, out_hw[0], out_hw[1], n)
        dx = _work(xp, "dx", (c, hp, wp, n), dout.dtype)
        dx.fill(0)
        for i in range(kh):
            for j in range(kw):
                dx[_offset_slice(i, j, stride, dilation, out_hw, h_ax=1)] += dcols[:, i, j]
        dx = _crop(xp, dx, pads, (h, w), h_ax=1, copy=False)
        return xp.transpose(dx, (3, 0, 1, 2)).copy()  # a fresh array: dx is scratch
    g2 = dout.reshape(n, groups, o // groups, p)
    dcols = _work(xp, "mm", (n, groups, cg * kh * kw, p), dout.dtype)
    if groups == 1:
        xp.matmul(w2t[0], g2[:, 0], out=dcols[:, 0])  # (N, K, P)
    else:
        xp.matmul(w2t, g2, out=dcols)  # (N, g, K, P)
    return _col2im(xp, dcols.reshape(n, c, kh, kw, out_hw[0], out_hw[1]), pads, (h, w), stride,
                   dilation, out_hw)


def _conv2d_backprop_input_vjp(g, out, dout, weight, input_size, **attrs):
    # dx = B(dout, w) is bilinear: <h, B(dout, w)> = <conv(h, w), dout>
    d_dout = F.conv2d(g, weight, **attrs)
    d_w = F.conv2d_backprop_filter(dout, g, filter_size=_shape(weight), **attrs)
    return d_dout, d_w


register(Op("conv2d_backprop_input", prim="Conv2DBackpropInput", inputs=("dout", "weight"),
            impl=_conv2d_backprop_input_impl, infer=_infer_conv2d_backprop_input,
            vjp=_conv2d_backprop_input_vjp, kind=EXTERN,
            attrs={"input_size": Attr(REQUIRED, a_shape4), **CONV_ATTRS},
            doc="gradient of conv2d with respect to its input (transposed convolution, col2im)"))


# -- conv2d filter gradient --------------------------------------------------------------------------------
def _infer_conv2d_backprop_filter(dout, x, filter_size, stride=(1, 1), pad_mode="valid",
                                  padding=(0, 0, 0, 0), dilation=(1, 1), groups=1):
    name = "conv2d_backprop_filter"
    _require_rank4(name, "dout", dout)
    _require_rank4(name, "input", x)
    _require_float(name, ("dout", dout), ("input", x))
    _same_dtype(name, ("dout", dout), ("input", x))
    _, (ho, wo) = _conv_check(name, _shape(x), filter_size, stride, pad_mode, padding, dilation, groups)
    _dout_check(name, dout, (x.shape[0], filter_size[0], ho, wo))
    return AVal(filter_size, dout.dtype)


def _conv2d_backprop_filter_impl(xp, dout, x, filter_size, stride=(1, 1), pad_mode="valid",
                                 padding=(0, 0, 0, 0), dilation=(1, 1), groups=1):
    pads, out_hw = _conv_check("conv2d_backprop_filter", x.shape, filter_size, stride, pad_mode,
                               padding, dilation, groups)
    n = x.shape[0]
    o, cg, kh, kw = filter_size
    og, p = o // groups, out_hw[0] * out_hw[1]
    nlast = _batch_last(out_hw)
    cols = _im2col(xp, x, filter_size, stride, pads, dilation, out_hw, groups, nlast)
    if nlast:  # (g, O/g, P*N) @ (g, P*N, K): one GEMM per group
        dw = xp.matmul(_batch_last_dout(xp, dout, groups), xp.swapaxes(cols, 1, 2))
    else:  # (N, g, O/g, P) @ (N, g, P, K), summed over the batch (the transposed operand is a view)
        dw = _work(xp, "mm", (n, groups, og, cols.shape[2]), cols.dtype)
        xp.matmul(dout.reshape(n, groups, og, p), xp.swapaxes(cols, 2, 3), out=dw)
        dw = dw.sum(axis=0)
    return dw.reshape(filter_size).astype(dout.dtype, copy=False)


def _conv2d_backprop_filter_vjp(g, out, dout, x, filter_size, **attrs):
    # dw = B(dout, x) is bilinear: <k, B(dout, x)> = <dout, conv(x, k)>
    d_dout = F.conv2d(x, g, **attrs)
    d_x = F.conv2d_backprop_input(dout, g, input_size=_shape(x), **attrs)
    return d_dout, d_x


register(Op("conv2d_backprop_filter", prim="Conv2DBackpropFilter", inputs=("dout", "x"),
            impl=_conv2d_backprop_filter_impl, infer=_infer_conv2d_backprop_filter,
            vjp=_conv2d_backprop_filter_vjp, kind=EXTERN,
            attrs={"filter_size": Attr(REQUIRED, a_shape4), **CONV_ATTRS},
            doc="gradient of conv2d with respect to its weight (im2col + GEMM)"))


# -- im2col / col2im: the layout halves of a convolution ------------------------------------------------
# Graph lowering (graph/passes/lower.py) writes conv2d and its two backprop ops as these plus
# matmuls, so that one graph computes the forward's columns once for the filter gradient too
# (CSE) and a backend can generate the layout loops natively. They are each other's adjoints.
WINDOW_ATTRS = {
    "kernel_size": Attr(REQUIRED, a_pos_pair, "int or (h, w)"),
    "stride": CONV_ATTRS["stride"],
    "pad_mode": CONV_ATTRS["pad_mode"],
    "padding": CONV_ATTRS["padding"],
    "dilation": CONV_ATTRS["dilation"],
}


def _window_check(op_name, x_shape, kernel_size, stride, pad_mode, padding, dilation):
    """-> (pads, (Ho, Wo)) of a kernel_size window sliding over the NCHW shape ``x_shape``."""
    return _geometry(op_name, x_shape[2:], kernel_size, stride, dilation, pad_mode, padding,
                     f"kernel_size={kernel_size}, stride={stride}, pad_mode={pad_mode!r}, "
                     f"padding={padding}, dilation={dilation}; input shape {tuple(x_shape)}")


#: the two orders of the columns: "nkp" (N, C*kh*kw, Ho*Wo), a matrix per image; "knp"
#: (C*kh*kw, N, Ho*Wo), one matrix for the whole batch (its product with the weight is one GEMM
#: over N*Ho*Wo columns, which BLAS runs far faster than a small one per image when the feature
#: maps are small: graph/passes/lower.py)
COLUMN_LAYOUTS = ("nkp", "knp")
COLUMNS_ATTRS = {**WINDOW_ATTRS, "layout": Attr("nkp", a_oneof(*COLUMN_LAYOUTS), "'nkp' or 'knp'")}


def _columns_shape(n, k, p, layout):
    return (n, k, p) if layout == "nkp" else (k, n, p)


def _infer_im2col(x, kernel_size, stride=(1, 1), pad_mode="valid", padding=(0, 0, 0, 0), dilation=(1, 1),
                  layout="nkp"):
    _require_rank4("conv_im2col", "input", x)
    _require_float("conv_im2col", ("input", x))
    _, (ho, wo) = _window_check("conv_im2col", _shape(x), kernel_size, stride, pad_mode, padding, dilation)
    return AVal(_columns_shape(x.shape[0], x.shape[1] * kernel_size[0] * kernel_size[1], ho * wo, layout), x.dtype)


def _im2col_impl(xp, x, kernel_size, stride=(1, 1), pad_mode="valid", padding=(0, 0, 0, 0), dilation=(1, 1),
                 layout="nkp"):
    pads, out_hw = _window_check("conv_im2col", x.shape, kernel_size, stride, pad_mode, padding, dilation)
    n, c = x.shape[:2]
    k = c * kernel_size[0] * kernel_size[1]
    cols = xp.empty(_columns_shape(n, k, out_hw[0] * out_hw[1], layout), dtype=x.dtype)
    windows = _windows(xp, _pad(xp, x, pads), kernel_size, stride, dilation, out_hw)  # (N, C, kh, kw, Ho, Wo)
    if layout == "nkp":
        cols.reshape((n, c) + tuple(kernel_size) + out_hw)[...] = windows
    else:
        cols.reshape((c,) + tuple(kernel_size) + (n,) + out_hw)[...] = xp.moveaxis(windows, 0, 3)
    return cols


register(Op("conv_im2col", prim="ConvIm2Col", inputs=("x",), impl=_im2col_impl, infer=_infer_im2col,
            kind=EXTERN, attrs=COLUMNS_ATTRS,
            vjp=lambda g, out, x, **attrs: (F.conv_col2im(g, input_size=_shape(x), **attrs),),
            doc="the columns of a convolution: (N, C, H, W) -> (N, C*kh*kw, Ho*Wo) (layout 'nkp') or "
                "(C*kh*kw, N, Ho*Wo) (layout 'knp'), row (c, i, j) holding input channel c at window "
                "offset (i, j) for every output position (zero where the window reads padding); "
                "conv2d is weight (O, C*kh*kw) @ columns"))


def _infer_col2im(cols, input_size, kernel_size, stride=(1, 1), pad_mode="valid", padding=(0, 0, 0, 0),
                  dilation=(1, 1), layout="nkp"):
    name = "conv_col2im"
    _require_float(name, ("columns", cols))
    _, (ho, wo) = _window_check(name, input_size, kernel_size, stride, pad_mode, padding, dilation)
    want = _columns_shape(input_size[0], input_size[1] * kernel_size[0] * kernel_size[1], ho * wo, layout)
    if _shape(cols) != want:
        fail(name, f"columns shape {_shape(cols)} does not match input_size {tuple(input_size)} with "
                   f"kernel_size={kernel_size} and layout {layout!r}: expected {want}")
    return AVal(tuple(input_size), cols.dtype)


def _col2im_impl(xp, cols, input_size, kernel_size, stride=(1, 1), pad_mode="valid", padding=(0, 0, 0, 0),
                 dilation=(1, 1), layout="nkp"):
    pads, out_hw = _window_check("conv_col2im", input_size, kernel_size, stride, pad_mode, padding, dilation)
    n, c, h, w = input_size
    if layout == "nkp":
        dcols = cols.reshape((n, c) + tuple(kernel_size) + out_hw)
    else:  # (C, kh, kw, N, Ho, Wo) seen as (N, C, kh, kw, Ho, Wo)
        dcols = xp.moveaxis(cols.reshape((c,) + tuple(kernel_size) + (n,) + out_hw), 3, 0)
    return _col2im(xp, dcols, pads, (h, w), stride, dilation, out_hw)


register(Op("conv_col2im", prim="ConvCol2Im", inputs=("columns",), impl=_col2im_impl, infer=_infer_col2im,
            kind=EXTERN, attrs={"input_size": Attr(REQUIRED, a_shape4), **COLUMNS_ATTRS},
            vjp=lambda g, out, cols, input_size, **attrs: (F.conv_im2col(g, **attrs),),
            doc="the adjoint of conv_im2col: columns in either layout -> (N, C, H, W), each input "
                "position the sum of the column entries read from it (conv2d's input gradient is "
                "conv_col2im(weight^T @ dout))"))


# ====================================================================================================
# pooling
# ====================================================================================================
POOL_ATTRS = {
    "kernel_size": Attr(1, a_pos_pair, "int or (h, w)"),
    "stride": Attr(None, a_pos_pair, "int or (h, w); None means kernel_size"),
    "pad_mode": Attr("valid", a_oneof("valid", "same")),
}


def _pool_geometry(op_name, x_shape, kernel_size, stride, pad_mode):
    stride = kernel_size if stride is None else stride
    pads, out_hw = _geometry(op_name, x_shape[2:], kernel_size, stride, (1, 1), pad_mode, None,
                             f"kernel_size={kernel_size}, stride={stride}, pad_mode={pad_mode!r}; "
                             f"input shape {tuple(x_shape)}")
    return stride, pads, out_hw


def _infer_pool(name):
    def infer(x, kernel_size=(1, 1), stride=None, pad_mode="valid"):
        _require_rank4(name, "input", x)
        _require_float(name, ("input", x))
        _, _, (ho, wo) = _pool_geometry(name, _shape(x), kernel_size, stride, pad_mode)
        return AVal(x.shape[:2] + (ho, wo), x.dtype)
    return infer


def _tiles(hw, kernel_size, stride, pads, out_hw):
    """Whether the windows tile the input exactly (each position in exactly one window)."""
    return (stride == kernel_size and not any(pads)
            and tuple(hw) == (out_hw[0] * kernel_size[0], out_hw[1] * kernel_size[1]))


def _max_pool2d_impl(xp, x, kernel_size=(1, 1), stride=None, pad_mode="valid"):
    stride, pads, out_hw = _pool_geometry("max_pool2d", x.shape, kernel_size, stride, pad_mode)
    xpad = _pad(xp, x, pads, -np.inf)
    out = None
    for i in range(kernel_size[0]):
        for j in range(kernel_size[1]):
            v = xpad[_offset_slice(i, j, stride, (1, 1), out_hw)]
            out = v.copy() if out is None else xp.maximum(out, v, out=out)
    return out


register(Op("max_pool2d", prim="MaxPool", inputs=("x",), impl=_max_pool2d_impl,
            infer=_infer_pool("max_pool2d"), kind=EXTERN, attrs=POOL_ATTRS,
            vjp=lambda g, out, x, **attrs: (F.max_pool2d_grad(x, out, g, **attrs),),
            doc="2-D max pooling over NCHW windows (padding never wins the max)"))


def _infer_max_pool2d_grad(x, out, dout, kernel_size=(1, 1), stride=None, pad_mode="valid"):
    pooled = _infer_pool("max_pool2d_grad")(x, kernel_size, stride, pad_mode)
    for what, a in (("out", out), ("dout", dout)):
        if _shape(a) != pooled.shape:
            fail("max_pool2d_grad", f"{what} shape {_shape(a)} does not match the pooled shape "
                                    f"{pooled.shape} of input shape {_shape(x)}")
    return AVal(x.shape, x.dtype)


def _max_pool2d_grad_impl(xp, x, out, dout, kernel_size=(1, 1), stride=None, pad_mode="valid"):
    stride, pads, out_hw = _pool_geometry("max_pool2d_grad", x.shape, kernel_size, stride, pad_mode)
    h, w = x.shape[2:]
    kh, kw = kernel_size
    dout = dout.astype(x.dtype, copy=False)
    xpad = _pad(xp, x, pads, -np.inf)
    idx = [_offset_slice(i, j, stride, (1, 1), out_hw) for i in range(kh) for j in range(kw)]
    # windows that tile the input exactly write every position once: no zero fill, no +=
    tiles = _tiles((h, w), kernel_size, stride, pads, out_hw)
    dx = xp.empty(xpad.shape, dtype=x.dtype) if tiles else xp.zeros(xpad.shape, dtype=x.dtype)
    # each window sends dout to its first position equal to the max (row-major order)
    taken = None
    for s in idx:
        hit = xpad[s] == out
        if taken is None:
            taken = hit
        else:
            hit &= ~taken
            taken |= hit
        if tiles:
            xp.multiply(dout, hit, out=dx[s])
        else:
            dx[s] += dout * hit
    return _crop(xp, dx, pads, (h, w))


register(Op("max_pool2d_grad", prim="MaxPoolGrad", inputs=("x", "out", "dout"),
            impl=_max_pool2d_grad_impl, infer=_infer_max_pool2d_grad, kind=EXTERN, attrs=POOL_ATTRS,
            nondiff="second-order gradient of max pooling is not supported",
            doc="gradient of max_pool2d given its input, output and output cotangent: dout goes "
                "to the first position of each window that equals the max"))


def _window_counts(size, k, s, lo, o):
    """How many real (unpadded) positions each of the ``o`` windows along one axis covers."""
    starts = np.arange(o) * s - lo
    return np.minimum(starts + k, size) - np.maximum(starts, 0)


def _avg_divisor(xp, x_shape, kernel_size, stride, pads, out_hw, dtype):
    """Window sizes excluding padding: a scalar without padding, else an (Ho, Wo) array."""
    if not any(pads):
        return kernel_size[0] * kernel_size[1]
    ch = _window_counts(x_shape[2], kernel_size[0], stride[0], pads[0], out_hw[0])
    cw = _window_counts(x_shape[3], kernel_size[1], stride[1], pads[2], out_hw[1])
    return xp.asarray(np.outer(ch, cw).astype(dtype))


def _avg_pool2d_impl(xp, x, kernel_size=(1, 1), stride=None, pad_mode="valid"):
    stride, pads, out_hw = _pool_geometry("avg_pool2d", x.shape, kernel_size, stride, pad_mode)
    xpad = _pad(xp, x, pads, 0)
    out = None
    for i in range(kernel_size[0]):
        for j in range(kernel_size[1]):
            v = xpad[_offset_slice(i, j, stride, (1, 1), out_hw)]
            out = v.copy() if out is None else xp.add(out, v, out=out)
    out /= _avg_divisor(xp, x.shape, kernel_size, stride, pads, out_hw, x.dtype)
    return out


register(Op("avg_pool2d", prim="AvgPool", inputs=("x",), impl=_avg_pool2d_impl,
            infer=_infer_pool("avg_pool2d"), kind=EXTERN, attrs=POOL_ATTRS,
            vjp=lambda g, out, x, **attrs: (F.avg_pool2d_grad(g, input_size=_shape(x), **attrs),),
            doc="2-D average pooling over NCHW windows (padding is excluded from the average)"))


def _infer_avg_pool2d_grad(dout, input_size, kernel_size=(1, 1), stride=None, pad_mode="valid"):
    name = "avg_pool2d_grad"
    _require_rank4(name, "dout", dout)
    _require_float(name, ("dout", dout))
    _, _, out_hw = _pool_geometry(name, input_size, kernel_size, stride, pad_mode)
    if _shape(dout) != tuple(input_size[:2]) + out_hw:
        fail(name, f"dout shape {_shape(dout)} does not match the pooled shape "
                   f"{tuple(input_size[:2]) + out_hw} of input shape {tuple(input_size)}")
    return AVal(input_size, dout.dtype)


def _avg_pool2d_grad_impl(xp, dout, input_size, kernel_size=(1, 1), stride=None, pad_mode="valid"):
    stride, pads, out_hw = _pool_geometry("avg_pool2d_grad", input_size, kernel_size, stride, pad_mode)
    n, c, h, w = input_size
    kh, kw = kernel_size
    g = dout / _avg_divisor(xp, input_size, kernel_size, stride, pads, out_hw, dout.dtype)
    idx = [_offset_slice(i, j, stride, (1, 1), out_hw) for i in range(kh) for j in range(kw)]
    if _tiles((h, w), kernel_size, stride, pads, out_hw):
        dx = xp.empty(input_size, dtype=dout.dtype)
        for s in idx:
            dx[s] = g
        return dx
    dx = xp.zeros((n, c, h + pads[0] + pads[1], w + pads[2] + pads[3]), dtype=dout.dtype)
    for s in idx:
        dx[s] += g
    return _crop(xp, dx, pads, (h, w))


register(Op("avg_pool2d_grad", prim="AvgPoolGrad", inputs=("dout",), impl=_avg_pool2d_grad_impl,
            infer=_infer_avg_pool2d_grad, kind=EXTERN,
            attrs={"input_size": Attr(REQUIRED, a_shape4), **POOL_ATTRS},
            # linear in dout: its adjoint is average pooling itself
            vjp=lambda g, out, dout, input_size, **attrs: (F.avg_pool2d(g, **attrs),),
            doc="gradient of avg_pool2d: each window's cotangent spread evenly over the window"))


# ====================================================================================================
# normalisation
# ====================================================================================================
def _bn_axes(x):
    return (0,) + tuple(range(2, x.ndim))


def _bn_count(x):
    n = 1
    for a in _bn_axes(x):
        n *= x.shape[a]
    return n


def _bn_view(x):
    """Shape that broadcasts a per-channel (C,) vector against x."""
    return (1, x.shape[1]) + (1,) * (x.ndim - 2)


def _infer_batch_norm(x, gamma, beta, moving_mean, moving_var, training=True, eps=1e-5):
    name = "batch_norm"
    if x.ndim < 2:
        fail(name, f"input must have rank >= 2 (N, C, ...), got shape {_shape(x)}")
    named = (("gamma", gamma), ("beta", beta), ("moving_mean", moving_mean), ("moving_var", moving_var))
    _require_float(name, ("input", x), *named)
    c = x.shape[1]
    for what, p in named:
        if _shape(p) != (c,):
            fail(name, f"{what} shape {_shape(p)} does not match the {c} channels (axis 1) of input "
                       f"shape {_shape(x)}; expected ({c},)")
        if p.dtype is not gamma.dtype:
            fail(name, f"parameter dtypes differ: gamma {describe(gamma)} and {what} {describe(p)}",
                 TypeError)
    if training and _bn_count(x) < 2:
        fail(name, f"training needs more than one value per channel, got input shape {_shape(x)}")
    stat = AVal((c,), gamma.dtype)
    return AVal(x.shape, x.dtype), stat, stat


def _batch_norm_impl(xp, x, gamma, beta, moving_mean, moving_var, training=True, eps=1e-5):
    view = _bn_view(x)
    ct = xp.promote_types(x.dtype, gamma.dtype)
    xc = x.astype(ct, copy=False)
    if training:
        axes = _bn_axes(x)
        n = _bn_count(x)
        mean = xc.mean(axis=axes)
        d = xc - mean.reshape(view)
        var = xp.mean(d * d, axis=axes)
        scale = gamma / xp.sqrt(var + ct.type(eps))
        y = d * scale.reshape(view) + beta.reshape(view)
        var_out = var * ct.type(n / (n - 1))
    else:
        mean, var_out = moving_mean.copy(), moving_var.copy()
        scale = gamma / xp.sqrt(moving_var + ct.type(eps))
        y = (xc - moving_mean.reshape(view)) * scale.reshape(view) + beta.reshape(view)
    st = gamma.dtype
    return y.astype(x.dtype, copy=False), mean.astype(st, copy=False), var_out.astype(st, copy=False)


def _cast_to(t, like):
    return t if t is None or t.dtype is like.dtype else F.cast(t, dtype=like.dtype)


def _batch_norm_vjp(g, out, x, gamma, beta, moving_mean, moving_var, training=True, eps=1e-5):
    gy, gm, gv = g
    view = _bn_view(x)
    axes = _bn_axes(x)
    if training:
        n = _bn_count(x)
        _, mean, var_unbiased = out
        rstd = F.rsqrt(F.add(F.mul(var_unbiased, (n - 1) / n), eps))
    else:
        mean = moving_mean
        rstd = F.rsqrt(F.add(moving_var, eps))
    xc = F.sub(x, F.reshape(mean, shape=view))
    xhat = F.mul(xc, F.reshape(rstd, shape=view))
    dbeta = F.reduce_sum(gy, axis=axes)
    dgamma = F.reduce_sum(F.mul(gy, xhat), axis=axes)
    scale = F.reshape(F.mul(gamma, rstd), shape=view)
    if training:
        inner = F.sub(F.sub(gy, F.reshape(F.div(dbeta, float(n)), shape=view)),
                      F.mul(xhat, F.reshape(F.div(dgamma, float(n)), shape=view)))
        dx = F.mul(inner, scale)
        if gm is not None:  # batch_mean = mean(x)
            dx = F.add(dx, F.reshape(F.div(gm, float(n)), shape=view))
        if gv is not None:  # batch_var = sum((x - mean)^2) / (n - 1)
            dx = F.add(dx, F.mul(xc, F.reshape(F.mul(gv, 2.0 / (n - 1)), shape=view)))
    else:
        dx = F.mul(gy, scale)
    return _cast_to(dx, x), _cast_to(dgamma, gamma), _cast_to(dbeta, beta), None, None


register(Op("batch_norm", prim="BatchNorm", inputs=("x", "gamma", "beta", "moving_mean", "moving_var"),
            impl=_batch_norm_impl, infer=_infer_batch_norm, vjp=_batch_norm_vjp, kind=EXTERN,
            n_outputs=3, attrs={"training": Attr(True, a_bool), "eps": Attr(1e-5, a_eps)},
            doc="batch normalisation over N (and H, W): returns (y, batch_mean, unbiased batch_var) "
                "when training, (y, moving_mean, moving_var) otherwise; the moving-average update "
                "is left to the caller"))


def _ln_axes(op_name, x, begin_norm_axis, begin_params_axis):
    if x.ndim == 0:
        fail(op_name, "input must have rank >= 1, got a scalar")
    return (normalize_axis(op_name, begin_norm_axis, x.ndim),
            normalize_axis(op_name, begin_params_axis, x.ndim))


def _infer_layer_norm(x, gamma, beta, begin_norm_axis=-1, begin_params_axis=-1, epsilon=1e-7):
    name = "layer_norm"
    _require_float(name, ("input", x), ("gamma", gamma), ("beta", beta))
    na, pa = _ln_axes(name, x, begin_norm_axis, begin_params_axis)
    want = tuple(x.shape[pa:])
    for what, p in (("gamma", gamma), ("beta", beta)):
        if _shape(p) != want:
            fail(name, f"{what} shape {_shape(p)} must equal input shape {_shape(x)}[{pa}:] = {want} "
                       f"(begin_params_axis={begin_params_axis})")
    stat = AVal(x.shape[:na] + (1,) * (x.ndim - na), x.dtype)
    return AVal(x.shape, x.dtype), stat, stat


def _layer_norm_impl(xp, x, gamma, beta, begin_norm_axis=-1, begin_params_axis=-1, epsilon=1e-7):
    na = begin_norm_axis % x.ndim
    axes = tuple(range(na, x.ndim))
    mean = x.mean(axis=axes, keepdims=True)
    d = x - mean
    var = xp.mean(d * d, axis=axes, keepdims=True)
    rstd = 1.0 / xp.sqrt(var + x.dtype.type(epsilon))
    y = (d * rstd) * gamma.astype(x.dtype, copy=False) + beta.astype(x.dtype, copy=False)
    return y, mean, rstd.astype(x.dtype, copy=False)


def _layer_norm_vjp(g, out, x, gamma, beta, begin_norm_axis=-1, begin_params_axis=-1, epsilon=1e-7):
    gy, gmean, grstd = g
    _, mean, rstd = out
    na, pa = begin_norm_axis % x.ndim, begin_params_axis % x.ndim
    axes = tuple(range(na, x.ndim))
    m = 1
    for a in axes:
        m *= x.shape[a]
    xhat = F.mul(F.sub(x, mean), rstd)
    lead = tuple(range(pa))
    dgamma = F.mul(gy, xhat)
    dbeta = gy
    if lead:
        dgamma = F.reduce_sum(dgamma, axis=lead)
        dbeta = F.reduce_sum(dbeta, axis=lead)
    dxhat = F.mul(gy, gamma)
    inner = F.sub(F.sub(dxhat, F.reduce_mean(dxhat, axis=axes, keep_dims=True)),
                  F.mul(xhat, F.reduce_mean(F.mul(dxhat, xhat), axis=axes, keep_dims=True)))
    dx = F.mul(inner, rstd)
    if gmean is not None:  # mean = sum(x) / m
        dx = F.add(dx, F.mul(gmean, 1.0 / m))
    if grstd is not None:  # d rstd / dx = -rstd^2 * xhat / m
        dx = F.sub(dx, F.mul(F.mul(grstd, F.square(rstd)), F.mul(xhat, 1.0 / m)))
    return dx, _cast_to(dgamma, gamma), _cast_to(dbeta, beta)


register(Op("layer_norm", prim="LayerNorm", inputs=("x", "gamma", "beta"), impl=_layer_norm_impl,
            infer=_infer_layer_norm, vjp=_layer_norm_vjp, kind=EXTERN, n_outputs=3,
            attrs={"begin_norm_axis": Attr(-1, a_int), "begin_params_axis": Attr(-1, a_int),
                   "epsilon": Attr(1e-7, a_eps)},
            doc="layer normalisation over axes begin_norm_axis..; returns (y, mean, rstd) with the "
                "statistics keeping the normalised axes as size 1"))


# ====================================================================================================
# dropout
# ====================================================================================================
def _infer_dropout(x, keep_prob=0.5):
    _require_float("dropout", ("input", x))
    a = AVal(x.shape, x.dtype)
    return a, a


def _dropout_impl(xp, x, keep_prob=0.5):
    if keep_prob >= 1.0:
        return x.copy(), xp.ones(x.shape, dtype=x.dtype)
    # drawn on the host from the one op stream, so numpy and cupy runs draw the same mask
    u = rng.generator().random(x.shape, dtype=np.float32)
    mask = xp.asarray(u < np.float32(keep_prob)).astype(x.dtype)
    return x * (mask * x.dtype.type(1.0 / keep_prob)), mask


register(Op("dropout", prim="Dropout", inputs=("x",), impl=_dropout_impl, infer=_infer_dropout,
            kind=RANDOM, n_outputs=2, attrs={"keep_prob": Attr(0.5, a_keep_prob)},
            vjp=lambda g, out, x, keep_prob=0.5: (F.mul(F.mul(g[0], out[1]), 1.0 / keep_prob),),
            doc="zero each element with probability 1 - keep_prob and scale the rest by 1/keep_prob; "
                "returns (y, mask) with mask the 0/1 keep mask in x's dtype"))


# ====================================================================================================
# losses
# ====================================================================================================
def _log_softmax_rows(xp, logits):
    s = logits - logits.max(axis=1, keepdims=True)
    return s - xp.log(xp.exp(s).sum(axis=1, keepdims=True))


def _infer_softmax_ce(logits, labels):
    name = "softmax_cross_entropy"
    _require_float(name, ("logits", logits), ("labels", labels))
    if logits.ndim != 2:
        fail(name, f"logits must be 2-D (N, C), got shape {_shape(logits)}")
    if _shape(labels) != _shape(logits):
        fail(name, f"labels shape {_shape(labels)} must equal logits shape {_shape(logits)} "
                   "(dense labels; use sparse_softmax_cross_entropy for class indices)")
    if labels.dtype is not logits.dtype:
        fail(name, f"logits and labels dtypes differ: {describe(logits)} and {describe(labels)}", TypeError)
    return AVal(logits.shape[:1], logits.dtype), AVal(logits.shape, logits.dtype)


def _softmax_ce_impl(xp, logits, labels):
    logp = _log_softmax_rows(xp, logits)
    loss = -(labels * logp).sum(axis=1)
    return loss, xp.exp(logp) - labels


def _softmax_ce_vjp(g, out, logits, labels):
    gl, gb = g
    _, back = out
    sm = F.add(back, labels)  # the softmax saved by the forward pass
    gl2 = F.reshape(gl, shape=(logits.shape[0], 1))
    # d loss_i / d logits_ij = softmax_ij * sum_k labels_ik - labels_ij
    dlogits = F.mul(gl2, F.sub(F.mul(sm, F.reduce_sum(labels, axis=1, keep_dims=True)), labels))
    dlabels = F.mul(F.neg(gl2), F.log_softmax(logits, axis=1))
    if gb is not None:  # backprop = softmax(logits) - labels
        dlogits = F.add(dlogits, F.mul(sm, F.sub(gb, F.reduce_sum(F.mul(gb, sm), axis=1, keep_dims=True))))
        dlabels = F.sub(dlabels, gb)
    return dlogits, dlabels


register(Op("softmax_cross_entropy", prim="SoftmaxCrossEntropyWithLogits", inputs=("logits", "labels"),
            impl=_softmax_ce_impl, infer=_infer_softmax_ce, vjp=_softmax_ce_vjp, kind=EXTERN,
            n_outputs=2,
            doc="cross entropy of softmax(logits) against dense label distributions: returns "
                "(per-sample loss (N,), backprop = softmax - labels (N, C))"))


def _infer_sparse_ce(logits, labels):
    name = "sparse_softmax_cross_entropy"
    _require_float(name, ("logits", logits))
    _require_int(name, "labels", labels)
    if logits.ndim != 2:
        fail(name, f"logits must be 2-D (N, C), got shape {_shape(logits)}")
    if _shape(labels) != logits.shape[:1]:
        fail(name, f"labels shape {_shape(labels)} must be (N,) = {logits.shape[:1]} for logits shape "
                   f"{_shape(logits)}")
    return AVal(logits.shape[:1], logits.dtype)


def _check_index_range(xp, op_name, what, idx, n):
    if idx.size and bool(((idx < 0) | (idx >= n)).any()):
        lo, hi = int(idx.min()), int(idx.max())
        fail(op_name, f"{what} must be in [0, {n}), got values in [{lo}, {hi}]")


def _sparse_ce_impl(xp, logits, labels):
    _check_index_range(xp, "sparse_softmax_cross_entropy", "labels", labels, logits.shape[1])
    logp = _log_softmax_rows(xp, logits)
    return -xp.take_along_axis(logp, labels.astype(np.int64)[:, None], axis=1)[:, 0]


def _sparse_ce_vjp(g, out, logits, labels):
    onehot = _cast_to(F.one_hot(labels, depth=logits.shape[1]), logits)
    d = F.sub(F.softmax(logits, axis=1), onehot)
    return F.mul(d, F.reshape(g, shape=(logits.shape[0], 1))), None


register(Op("sparse_softmax_cross_entropy", prim="SparseSoftmaxCrossEntropyWithLogits",
            inputs=("logits", "labels"), impl=_sparse_ce_impl, infer=_infer_sparse_ce,
            vjp=_sparse_ce_vjp, kind=EXTERN,
            doc="per-sample cross entropy of softmax(logits) (N, C) against class indices (N,)"))


# ====================================================================================================
# indexing: one_hot, gather, unsorted_segment_sum
# ====================================================================================================
def _infer_one_hot(indices, depth, on_value=1.0, off_value=0.0, axis=-1, strict=False):
    _require_int("one_hot", "indices", indices)
    if not -1 <= axis <= indices.ndim:
        fail("one_hot", f"axis {axis} is out of range [-1, {indices.ndim}] for indices shape "
                        f"{_shape(indices)}")
    ax = indices.ndim if axis == -1 else axis
    return AVal(indices.shape[:ax] + (depth,) + indices.shape[ax:], float32)


def _one_hot_impl(xp, indices, depth, on_value=1.0, off_value=0.0, axis=-1, strict=False):
    if strict and indices.size and (int(indices.min()) < 0 or int(indices.max()) >= depth):
        bad = int(indices.max()) if int(indices.max()) >= depth else int(indices.min())
        raise ValueError(f"OneHot (ops.one_hot): index {bad} is out of range [0, {depth}) "
                         f"(indices shape {tuple(indices.shape)})")
    hot = indices[..., None] == xp.arange(depth, dtype=indices.dtype)
    out = xp.where(hot, np.float32(on_value), np.float32(off_value))
    if axis != -1 and axis != indices.ndim:
        out = xp.moveaxis(out, -1, axis)
    return xp.ascontiguousarray(out)


register(Op("one_hot", prim="OneHot", inputs=("indices",), impl=_one_hot_impl, infer=_infer_one_hot,
            kind=EXTERN, nondiff="integer indices have no gradient",
            attrs={"depth": Attr(REQUIRED, a_nonneg_int), "on_value": Attr(1.0, a_float),
                   "off_value": Attr(0.0, a_float), "axis": Attr(-1, a_int),
                   "strict": Attr(False, a_bool)},
            doc="float32 one-hot encoding of integer indices along a new axis (indices outside "
                "[0, depth) give all off_value, or raise ValueError with strict=True)"))


def _infer_gather(params, indices, axis=0):
    _require_int("gather", "indices", indices)
    if params.ndim == 0:
        fail("gather", "params must have rank >= 1, got a scalar")
    ax = normalize_axis("gather", axis, params.ndim)
    return AVal(params.shape[:ax] + tuple(indices.shape) + params.shape[ax + 1:], params.dtype)


def _gather_impl(xp, params, indices, axis=0):
    ax = axis % params.ndim
    n = params.shape[ax]
    idx = indices
    if idx.size and bool(((idx < -n) | (idx >= n)).any()):
        fail("gather", f"indices must be in [-{n}, {n}) for axis {axis} of params shape "
                       f"{tuple(params.shape)}, got values in [{int(idx.min())}, {int(idx.max())}]")
    return xp.take(params, indices, axis=ax)


def _gather_vjp(g, out, params, indices, axis=0):
    ax = axis % params.ndim
    n = params.shape[ax]
    ni = indices.ndim
    ids = F.where(F.less(indices, 0), F.add(indices, n), indices)  # numpy-style negative indices
    perm = None
    if ax:
        # move the index axes of g to the front: (I..., P[:ax]..., P[ax+1:]...)
        perm = tuple(range(ax, ax + ni)) + tuple(range(ax)) + tuple(range(ax + ni, g.ndim))
        g = F.transpose(g, perm=perm)
    d = F.unsorted_segment_sum(g, ids, num_segments=n)  # (n, P[:ax]..., P[ax+1:]...)
    if ax:
        back = tuple(range(1, ax + 1)) + (0,) + tuple(range(ax + 1, params.ndim))
        d = F.transpose(d, perm=back)
    return d, None


register(Op("gather", prim="Gather", inputs=("params", "indices"), impl=_gather_impl,
            infer=_infer_gather, vjp=_gather_vjp, kind=EXTERN, attrs={"axis": Attr(0, a_int)},
            doc="take slices of params along axis at integer indices (like numpy.take; "
                "embedding lookup is gather on axis 0)"))


def _infer_segment_sum(x, segment_ids, num_segments):
    name = "unsorted_segment_sum"
    _require_int(name, "segment_ids", segment_ids)
    k = segment_ids.ndim
    if _shape(x)[:k] != _shape(segment_ids):
        fail(name, f"segment_ids shape {_shape(segment_ids)} must be a prefix of x shape {_shape(x)}")
    if x.dtype.is_bool:
        fail(name, f"x must be numeric, got {describe(x)}", TypeError)
    return AVal((num_segments,) + x.shape[k:], x.dtype)


def _segment_sum_impl(xp, x, segment_ids, num_segments):
    k = segment_ids.ndim
    rest = x.shape[k:]
    ids = segment_ids.reshape(-1)
    vals = x.reshape((ids.shape[0],) + rest)
    keep = (ids >= 0) & (ids < num_segments)
    if not bool(keep.all()):  # MindSpore drops ids outside [0, num_segments)
        ids, vals = ids[keep], vals[keep]
    out = xp.zeros((num_segments,) + rest, dtype=x.dtype)
    xp.add.at(out, ids, vals)  # repeated ids accumulate (CuPy: a scatter-add)
    return out


def _segment_sum_vjp(g, out, x, segment_ids, num_segments):
    valid = F.logical_and(F.greater_equal(segment_ids, 0), F.less(segment_ids, num_segments))
    safe = F.where(valid, segment_ids, F.zeros_like(segment_ids))
    d = F.gather(g, safe, axis=0)  # (ids..., rest...)
    extra = x.ndim - segment_ids.ndim
    mask = F.cast(valid, dtype=x.dtype)
    if extra:
        mask = F.reshape(mask, shape=tuple(segment_ids.shape) + (1,) * extra)
    return F.mul(d, mask), None


register(Op("unsorted_segment_sum", prim="UnsortedSegmentSum", inputs=("x", "segment_ids"),
            impl=_segment_sum_impl, infer=_infer_segment_sum, vjp=_segment_sum_vjp, kind=EXTERN,
            attrs={"num_segments": Attr(REQUIRED, a_nonneg_int)},
            doc="out[s] = sum of x[i] over the i with segment_ids[i] == s (segment_ids covers the "
                "leading axes of x; ids outside [0, num_segments) are dropped); gather's gradient"))
