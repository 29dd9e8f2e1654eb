"""MindSpore 2.x neural-network functions (``mindspore.ops.function.nn_func``): conv2d with bias,
max_pool2d/avg_pool2d with explicit padding, activations, losses and interpolate, composed from registered ops
(the losses are the ``nn`` loss Cells' own computations, so ``ops.cross_entropy`` and
``nn.CrossEntropyLoss`` cannot disagree).

Example:
    >>> import numpy as np
    >>> from runtime import ops, Tensor
    >>> ops.relu6(Tensor([-1.0, 3.0, 8.0]))
    Tensor(shape=[3], dtype=Float32, value=[0., 3., 6.])
    >>> ops.max_pool2d(Tensor(np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)), 2).shape
    (1, 1, 2, 2)
"""
from __future__ import annotations

import math

import numpy as np

from graph.ops import REGISTRY, bind

from .arrays import pad
from .composite import CompositePrimitive


def _const(array):
    from ..tensor import Tensor
    return Tensor._wrap(array)

_R = REGISTRY

__all__ = ["conv1d", "conv2d", "conv_transpose2d", "max_pool2d", "avg_pool1d", "avg_pool2d", "adaptive_avg_pool2d",
           "adaptive_max_pool2d", "prelu", "group_norm", "upsample", "ResizeNearestNeighbor", "ResizeBilinearV2",
           "silu", "relu6", "hardswish", "hardsigmoid", "elu", "selu",
           "mish", "softsign", "logsigmoid", "softplus", "cross_entropy", "nll_loss", "l1_loss",
           "smooth_l1_loss", "binary_cross_entropy", "kl_div", "interpolate"]


def conv2d(input, weight, bias=None, stride=1, pad_mode="valid", padding=0, dilation=1, groups=1):  # noqa: A002
    """``ops.conv2d(input, weight, bias=None, stride=1, pad_mode='valid', padding=0, dilation=1,
    groups=1)``: 2-D convolution of NCHW ``input`` with OIHW ``weight``, plus ``bias`` (O,)."""
    out = bind(_R["conv2d"], input, weight, stride=stride, pad_mode=pad_mode, padding=padding,
               dilation=dilation, groups=groups)
    return out if bias is None else bind(_R["bias_add"], out, bias)


def _int1(v, what, fn, minimum=1):
    """An int, or a tuple/list of one int (MindSpore's 1-D arguments)."""
    if isinstance(v, (tuple, list)) and len(v) == 1:
        v = v[0]
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"ops.{fn}: {what} must be an int or a tuple of one int, got {v!r}")
    if v < minimum:
        raise ValueError(f"ops.{fn}: {what} must be >= {minimum}, got {v!r}")
    return int(v)


def conv1d(input, weight, bias=None, stride=1, pad_mode="valid", padding=0, dilation=1, groups=1):  # noqa: A002
    """``ops.conv1d(input, weight, bias=None, stride=1, pad_mode='valid', padding=0, dilation=1,
    groups=1)``: 1-D convolution of (N, C_in, L) ``input`` with ``weight`` (C_out, C_in/groups, k),
    plus ``bias`` (C_out,) -- :func:`conv2d` on a height-1 image.

    Example:
        >>> from runtime import ops
        >>> ops.conv1d(ops.ones((2, 4, 10)), ops.ones((6, 4, 3)), pad_mode="pad", padding=1).shape
        (2, 6, 10)
    """
    if input.ndim != 3 or weight.ndim != 3:
        raise ValueError(f"ops.conv1d: input and weight must be 3-D ((N, C_in, L) and (C_out, C_in/groups, k)), "
                         f"got shapes {tuple(input.shape)} and {tuple(weight.shape)}")
    if pad_mode not in ("same", "valid", "pad"):
        raise ValueError(f"ops.conv1d: pad_mode must be 'same', 'valid' or 'pad', got {pad_mode!r}")
    stride, dilation = _int1(stride, "stride", "conv1d"), _int1(dilation, "dilation", "conv1d")
    padding = _int1(padding, "padding", "conv1d", minimum=0)
    if padding and pad_mode != "pad":
        raise ValueError(f"ops.conv1d: padding must be 0 when pad_mode is {pad_mode!r}, got {padding}")
    y = bind(_R["conv2d"], bind(_R["expand_dims"], input, axis=2), bind(_R["expand_dims"], weight, axis=2),
             stride=(1, stride), pad_mode=pad_mode, padding=(0, 0, padding, padding), dilation=(1, dilation),
             groups=groups)
    y = bind(_R["squeeze"], y, axis=2)
    return y if bias is None else bind(_R["bias_add"], y, bias)  # as conv2d adds its bias


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,  # noqa: A002
                     dilation=1):
    """``ops.conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
    groups=1, dilation=1)`` (``mint.nn.functional.conv_transpose2d``): the transposed convolution
    of NCHW ``input`` (N, C_in, H, W) with ``weight`` (C_in, C_out/groups, kh, kw), i.e. the
    gradient of ``conv2d`` with respect to its input. Output H is
    ``(H-1)*stride - 2*padding + dilation*(kh-1) + output_padding + 1`` (W likewise); the
    ``output_padding`` rows are computed, not zero-filled, and must be below ``stride``.

    Example:
        >>> from runtime import ops
        >>> ops.conv_transpose2d(ops.ones((1, 2, 3, 3)), ops.ones((2, 1, 3, 3)), stride=2, padding=1,
        ...                      output_padding=1).shape
        (1, 1, 6, 6)
    """
    fn = "conv_transpose2d"
    if input.ndim != 4 or weight.ndim != 4:
        raise ValueError(f"ops.{fn}: input and weight must be 4-D (NCHW and (C_in, C_out/groups, kh, kw)), "
                         f"got shapes {tuple(input.shape)} and {tuple(weight.shape)}")
    stride, padding = _pair(stride, "stride", fn), _pair(padding, "padding", fn)
    dilation, extra = _pair(dilation, "dilation", fn), _pair(output_padding, "output_padding", fn)
    for axis in range(2):
        if not 0 <= extra[axis] < stride[axis]:
            raise ValueError(f"ops.{fn}: output_padding must be in [0, stride) = [0, {stride[axis]}) on each "
                             f"axis, got {extra}")
    n, _, h, w = input.shape
    size = (n, weight.shape[1] * groups) + tuple(
        (length - 1) * s - 2 * p + d * (k - 1) + e + 1
        for length, s, p, d, k, e in zip((h, w), stride, padding, dilation, weight.shape[2:], extra))
    out = bind(_R["conv2d_backprop_input"], input, weight, input_size=size, stride=stride, pad_mode="pad",
               padding=(padding[0], padding[0], padding[1], padding[1]), dilation=dilation, groups=groups)
    return out if bias is None else bind(_R["bias_add"], out, bias)


def _pair(v, what, fn):
    if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
        return (int(v), int(v))
    if isinstance(v, (tuple, list)) and len(v) == 2:
        return (int(v[0]), int(v[1]))
    raise ValueError(f"ops.{fn}: {what} must be an int or a pair of ints, got {v!r}")


def _ceil_extra(size, k, s, p):
    """Extra cells past the far edge that ceil_mode's last window reaches: the output size is
    ceil((size + 2p - k) / s) + 1, less one when that window would start in the far padding
    (PyTorch's and MindSpore's rule)."""
    out = -(-(size + 2 * p - k) // s) + 1
    if (out - 1) * s >= size + p:
        out -= 1
    return max(0, (out - 1) * s + k - (size + 2 * p))


def _pool_padding(x, kernel_size, stride, padding, ceil_mode, fill, fn, dilation=(1, 1)):
    """``x`` padded for a 'valid' pooling: ``padding`` on each side of H and W, plus the far
    cells ceil_mode's last windows reach (windows ``dilation*(k-1)+1`` wide). Returns (padded
    x, (extra_h, extra_w))."""
    ph, pw = _pair(padding, "padding", fn)
    if ph < 0 or pw < 0:
        raise ValueError(f"ops.{fn}: padding must be >= 0, got {padding!r}")
    kh, kw = _pair(kernel_size, "kernel_size", fn)
    if ph * 2 > kh or pw * 2 > kw:
        raise ValueError(f"ops.{fn}: padding {padding!r} must be at most half of kernel_size {kernel_size!r}")
    eh = ew = 0
    if ceil_mode:
        sh, sw = _pair(stride, "stride", fn)
        h, w = x.shape[-2], x.shape[-1]
        eh = _ceil_extra(h, dilation[0] * (kh - 1) + 1, sh, ph)
        ew = _ceil_extra(w, dilation[1] * (kw - 1) + 1, sw, pw)
    if ph == pw == eh == ew == 0:
        return x, (0, 0)
    return pad(x, (pw, pw + ew, ph, ph + eh), value=fill), (eh, ew)


def _no(flag, what, fn):
    if flag:
        raise ValueError(f"ops.{fn}: {what} is not supported")


def max_pool2d(x, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
    """``ops.max_pool2d(x, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
    ceil_mode=False)``: max over windows of NCHW ``x``; ``padding`` pads with -inf; ``dilation``
    spaces a window's taps; ``ceil_mode`` rounds the output size up (a last, partial window per
    row/column). With ``return_indices`` it returns ``(output, argmax)``: argmax (int64) is the
    flat index ``h * W + w`` of each maximum in the unpadded input plane (the first one in the
    window's row-major order on ties), as MindSpore and PyTorch give it.

    Example:
        >>> import numpy as np
        >>> from runtime import ops, Tensor
        >>> x = Tensor(np.array([[[[1, 5, 2, 0], [3, 4, 8, 1]]]], np.float32))
        >>> out, idx = ops.max_pool2d(x, 2, return_indices=True)
        >>> out.asnumpy().ravel().tolist(), idx.asnumpy().ravel().tolist()
        ([5.0, 8.0], [1, 6])
    """
    stride = kernel_size if stride is None else stride
    dil = _pair(dilation, "dilation", "max_pool2d")
    if dil[0] < 1 or dil[1] < 1:
        raise ValueError(f"ops.max_pool2d: dilation must be >= 1, got {dilation!r}")
    if not isinstance(return_indices, bool):
        raise TypeError(f"ops.max_pool2d: return_indices must be a bool, got {return_indices!r}")
    if dil == (1, 1) and not return_indices:
        x, _ = _pool_padding(x, kernel_size, stride, padding, ceil_mode, -np.inf, "max_pool2d")
        return bind(_R["max_pool2d"], x, kernel_size=kernel_size, stride=stride)
    return _max_pool_taps(x, kernel_size, stride, padding, dil, return_indices, ceil_mode)


def _max_pool_taps(x, kernel_size, stride, padding, dilation, return_indices, ceil_mode):
    """max_pool2d with dilation and/or indices, composed of registered ops: the padded input's
    kh*kw strided views (one per window tap, each (..., Ho, Wo)) stacked on a last axis, their
    max, and for the indices their argmax looked up in a constant table of input positions."""
    fn = "max_pool2d"
    kh, kw = _pair(kernel_size, "kernel_size", fn)
    sh, sw = _pair(stride, "stride", fn)
    ph, pw = _pair(padding, "padding", fn)
    dh, dw = dilation
    h, w = x.shape[-2], x.shape[-1]
    ekh, ekw = dh * (kh - 1) + 1, dw * (kw - 1) + 1  # the dilated window's extent
    x, (eh, ew) = _pool_padding(x, kernel_size, stride, padding, ceil_mode, -np.inf, fn, dilation)
    ho, wo = (h + 2 * ph + eh - ekh) // sh + 1, (w + 2 * pw + ew - ekw) // sw + 1
    if ho < 1 or wo < 1:
        raise ValueError(f"ops.{fn}: the window (kernel_size {kernel_size!r}, dilation {dilation!r}) is larger "
                         f"than the padded input {tuple(x.shape[-2:])}")
    taps = [x[..., a * dh:a * dh + (ho - 1) * sh + 1:sh, b * dw:b * dw + (wo - 1) * sw + 1:sw]
            for a in range(kh) for b in range(kw)]
    stacked = bind(_R["stack"], *taps, axis=-1)
    out = bind(_R["reduce_max"], stacked, axis=-1)
    if not return_indices:
        return out
    from graph.dtypes import int64
    k = kh * kw
    rows = np.arange(ho)[:, None, None] * sh + (np.arange(k) // kw)[None, None, :] * dh - ph
    cols = np.arange(wo)[None, :, None] * sw + (np.arange(k) % kw)[None, None, :] * dw - pw
    table = (rows * w + cols).astype(np.int64).ravel()  # input position of tap c of window (i, j)
    base = (np.arange(ho * wo, dtype=np.int64) * k).reshape(ho, wo)
    tap = bind(_R["argmax"], stacked, axis=-1, output_type=int64)
    where = bind(_R["add"], tap, _const(base))
    return out, bind(_R["gather"], _const(table), where, axis=0)


def avg_pool2d(input_x, kernel_size=1, stride=1, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """``ops.avg_pool2d(input_x, kernel_size=1, stride=1, padding=0, ceil_mode=False,
    count_include_pad=True, divisor_override=None)``: mean over windows of NCHW ``input_x``.
    The divisor is ``divisor_override`` if given, else the window's cells inside the padded input
    (``count_include_pad=True``: zero padding counts, ceil_mode's overhang does not) or inside
    the input itself (``count_include_pad=False``)."""
    kh, kw = _pair(kernel_size, "kernel_size", "avg_pool2d")
    ph, pw = _pair(padding, "padding", "avg_pool2d")
    x, (eh, ew) = _pool_padding(input_x, kernel_size, stride, padding, ceil_mode, 0.0, "avg_pool2d")
    out = bind(_R["avg_pool2d"], x, kernel_size=kernel_size, stride=stride)
    if divisor_override:
        if isinstance(divisor_override, bool) or not isinstance(divisor_override, (int, np.integer)) \
                or divisor_override <= 0:
            raise ValueError(f"ops.avg_pool2d: divisor_override must be a positive int, got {divisor_override!r}")
        return bind(_R["mul"], out, float(kh * kw) / float(divisor_override))
    if eh == ew == 0 and (count_include_pad or ph == pw == 0):
        return out  # every window lies inside the region that counts: the divisor is kh * kw
    # divisor per window: the pooled mean of a mask that is 1 where cells count
    h, w = input_x.shape[-2], input_x.shape[-1]
    mask = np.zeros((1, 1, h + 2 * ph + eh, w + 2 * pw + ew), np.float32)
    if count_include_pad:
        mask[..., :h + 2 * ph, :w + 2 * pw] = 1.0
    else:
        mask[..., ph:ph + h, pw:pw + w] = 1.0
    from ..tensor import Tensor
    frac = bind(_R["avg_pool2d"], Tensor._of_owned_array(mask.astype(input_x.dtype.np)), kernel_size=kernel_size, stride=stride)
    return bind(_R["div"], out, frac)


def avg_pool1d(input_x, kernel_size=1, stride=1, padding=0, ceil_mode=False, count_include_pad=True):
    """``ops.avg_pool1d(input_x, kernel_size=1, stride=1, padding=0, ceil_mode=False,
    count_include_pad=True)``: mean over windows of (N, C, L) ``input_x`` -- :func:`avg_pool2d`
    on a height-1 image (``padding`` zeros at both ends; the divisor rules are avg_pool2d's).

    Example:
        >>> import numpy as np
        >>> from runtime import ops, Tensor
        >>> x = Tensor(np.arange(6, dtype=np.float32).reshape(1, 1, 6))
        >>> ops.avg_pool1d(x, 2, 2).asnumpy().tolist()
        [[[0.5, 2.5, 4.5]]]
        >>> ops.avg_pool1d(x, 2, 2, padding=1, count_include_pad=False).asnumpy().tolist()
        [[[0.0, 1.5, 3.5, 5.0]]]
    """
    if input_x.ndim != 3:
        raise ValueError(f"ops.avg_pool1d: input_x must be 3-D (N, C, L), got shape {tuple(input_x.shape)}")
    k, s = _int1(kernel_size, "kernel_size", "avg_pool1d"), _int1(stride, "stride", "avg_pool1d")
    p = _int1(padding, "padding", "avg_pool1d", minimum=0)
    for what, flag in (("ceil_mode", ceil_mode), ("count_include_pad", count_include_pad)):
        if not isinstance(flag, bool):
            raise TypeError(f"ops.avg_pool1d: {what} must be a bool, got {flag!r}")
    out = avg_pool2d(bind(_R["expand_dims"], input_x, axis=2), (1, k), (1, s), (0, p), ceil_mode, count_include_pad)
    return bind(_R["squeeze"], out, axis=2)


# -- adaptive pooling -----------------------------------------------------------------------------------------
def _adaptive_size(fn, output_size, h, w):
    """(out_h, out_w) from MindSpore's ``output_size``: an int, an (h, w) pair whose entries may
    be None (that axis kept), or None (both kept)."""
    if output_size is None:
        output_size = (None, None)
    if isinstance(output_size, (int, np.integer)) and not isinstance(output_size, bool):
        output_size = (output_size, output_size)
    if not (isinstance(output_size, (tuple, list)) and len(output_size) == 2):
        raise ValueError(f"ops.{fn}: output_size must be an int or a pair (height, width), got {output_size!r}")
    for v in output_size:
        if v is not None and (isinstance(v, bool) or not isinstance(v, (int, np.integer))):
            raise TypeError(f"ops.{fn}: output_size entries must be ints or None, got {output_size!r}")
    oh = h if output_size[0] is None else int(output_size[0])
    ow = w if output_size[1] is None else int(output_size[1])
    if oh <= 0 or ow <= 0:
        raise ValueError(f"ops.{fn}: output_size must be positive, got {output_size!r}")
    return oh, ow


def _check_adaptive_input(fn, x):
    if x.ndim not in (3, 4):
        raise ValueError(f"ops.{fn}: input must be 3-D (C, H, W) or 4-D (N, C, H, W), got shape {tuple(x.shape)}")
    if x.dtype.np.kind != "f":
        raise TypeError(f"ops.{fn}: input must be float16, float32 or float64, got {x.dtype}")


def _bins(n_in, n_out):
    """MindSpore's (and PyTorch's) adaptive bins: [floor(i*n/o), ceil((i+1)*n/o))."""
    return [(i * n_in // n_out, -(-(i + 1) * n_in // n_out)) for i in range(n_out)]


def _averaging_matrix(n_in, n_out, like, transpose=False):
    """(n_out, n_in) bin-averaging matrix as a Tensor of ``like``'s dtype on its device (one
    framework call, so under capture it is a graph constant)."""
    from ..tensor import Tensor
    a = np.zeros((n_out, n_in), np.float64)  # (float64 weights, so float64 input keeps its precision)
    for i, (s, e) in enumerate(_bins(n_in, n_out)):
        a[i, s:e] = 1.0 / (e - s)
    return Tensor._placed((a.T if transpose else a).astype(like.dtype.np), like=like)


def adaptive_avg_pool2d(input_x, output_size):
    """``ops.adaptive_avg_pool2d(input_x, output_size)``: the mean over adaptive bins
    ``[floor(i*H/oh), ceil((i+1)*H/oh))`` (W likewise) of (N, C, H, W) or (C, H, W) ``input_x``,
    so that the output is ``output_size`` (an int, (h, w) with None keeping an axis, or None).

    Example:
        >>> import numpy as np
        >>> from runtime import ops, Tensor
        >>> x = Tensor(np.arange(9, dtype=np.float32).reshape(1, 3, 3))
        >>> ops.adaptive_avg_pool2d(x, 2).asnumpy().tolist()
        [[[2.0, 3.0], [5.0, 6.0]]]
    """
    _check_adaptive_input("adaptive_avg_pool2d", input_x)
    h, w = input_x.shape[-2], input_x.shape[-1]
    oh, ow = _adaptive_size("adaptive_avg_pool2d", output_size, h, w)
    if (oh, ow) == (1, 1):
        return bind(_R["reduce_mean"], input_x, axis=(-2, -1), keep_dims=True)
    ah = _averaging_matrix(h, oh, input_x)
    aw = _averaging_matrix(w, ow, input_x, transpose=True)
    return bind(_R["matmul"], ah, bind(_R["matmul"], input_x, aw))  # (oh, h) @ (..., h, w) @ (w, ow)


def adaptive_max_pool2d(input, output_size, return_indices=False):  # noqa: A002
    """``ops.adaptive_max_pool2d(input, output_size, return_indices=False)``: the max over the
    adaptive bins of :func:`adaptive_avg_pool2d`. With ``return_indices`` it returns ``(output,
    argmax)``: argmax (int64) is the flat index ``h * W + w`` of each maximum in its input plane
    (the first one in row-major order on ties).

    Example:
        >>> import numpy as np
        >>> from runtime import ops, Tensor
        >>> x = Tensor(np.array([[[1, 9, 2], [7, 3, 8]]], np.float32))
        >>> out, idx = ops.adaptive_max_pool2d(x, (1, 2), return_indices=True)
        >>> out.asnumpy().tolist(), idx.asnumpy().tolist()
        ([[[9.0, 9.0]]], [[[1, 1]]])
    """
    _check_adaptive_input("adaptive_max_pool2d", input)
    if not isinstance(return_indices, bool):
        raise TypeError(f"ops.adaptive_max_pool2d: return_indices must be a bool, got {return_indices!r}")
    h, w = input.shape[-2], input.shape[-1]
    oh, ow = _adaptive_size("adaptive_max_pool2d", output_size, h, w)
    if h % oh == 0 and w % ow == 0:  # equal bins that tile the plane: a plain max pooling
        batched = input if input.ndim == 4 else bind(_R["expand_dims"], input, axis=0)
        kernel = (h // oh, w // ow)
        out = max_pool2d(batched, kernel, kernel, return_indices=return_indices)
        if input.ndim == 4:
            return out
        unbatch = lambda t: bind(_R["squeeze"], t, axis=0)  # noqa: E731
        return (unbatch(out[0]), unbatch(out[1])) if return_indices else unbatch(out)
    from graph.dtypes import int64
    lead = tuple(input.shape[:-2])
    rows, idx_rows = [], []
    for hs, he in _bins(h, oh):
        cols, idx_cols = [], []
        for ws, we in _bins(w, ow):
            window = input[..., hs:he, ws:we]
            cols.append(bind(_R["reduce_max"], window, axis=(-2, -1)))
            if return_indices:
                flat = bind(_R["reshape"], window, shape=lead + ((he - hs) * (we - ws),))
                where = bind(_R["argmax"], flat, axis=-1, output_type=int64)
                table = (np.arange(hs, he)[:, None] * w + np.arange(ws, we)[None, :]).astype(np.int64).ravel()
                idx_cols.append(bind(_R["gather"], _const(table), where, axis=0))
        rows.append(bind(_R["stack"], *cols, axis=-1))
        if return_indices:
            idx_rows.append(bind(_R["stack"], *idx_cols, axis=-1))
    out = bind(_R["stack"], *rows, axis=-2)
    if not return_indices:
        return out
    return out, bind(_R["stack"], *idx_rows, axis=-2)


# -- activations ------------------------------------------------------------------------------------------
def silu(input):  # noqa: A002
    """x * sigmoid(x)."""
    return bind(_R["mul"], input, bind(_R["sigmoid"], input))


def relu6(x):
    """min(max(x, 0), 6)."""
    return bind(_R["minimum"], bind(_R["relu"], x), 6.0)


def hardsigmoid(input):  # noqa: A002
    """relu6(x + 3) / 6."""
    return bind(_R["div"], relu6(bind(_R["add"], input, 3.0)), 6.0)


def hardswish(x):
    """x * relu6(x + 3) / 6."""
    return bind(_R["mul"], x, hardsigmoid(x))


def elu(input_x, alpha=1.0):
    """x where x > 0, alpha * (exp(x) - 1) elsewhere."""
    neg = bind(_R["mul"], bind(_R["sub"], bind(_R["exp"], bind(_R["minimum"], input_x, 0.0)), 1.0), float(alpha))
    return bind(_R["where"], bind(_R["greater"], input_x, 0.0), input_x, neg)


_SELU_ALPHA, _SELU_SCALE = 1.6732632423543772, 1.0507009873554805


def selu(input_x):
    """scale * elu(x, alpha) with the self-normalising constants."""
    return bind(_R["mul"], elu(input_x, _SELU_ALPHA), _SELU_SCALE)


def softplus(input, beta=1, threshold=20):  # noqa: A002
    """log(1 + exp(beta * x)) / beta; the identity where beta * x > threshold."""
    bx = bind(_R["mul"], input, float(beta)) if beta != 1 else input
    soft = bind(_R["softplus"], bx)
    if beta != 1:
        soft = bind(_R["div"], soft, float(beta))
    return bind(_R["where"], bind(_R["greater"], bx, float(threshold)), input, soft)


def mish(x):
    """x * tanh(softplus(x))."""
    return bind(_R["mul"], x, bind(_R["tanh"], bind(_R["softplus"], x)))


def softsign(x):
    """x / (1 + |x|)."""
    return bind(_R["div"], x, bind(_R["add"], bind(_R["abs"], x), 1.0))


def logsigmoid(x):
    """log(sigmoid(x)) = -softplus(-x), stable for large |x|."""
    return bind(_R["neg"], bind(_R["softplus"], bind(_R["neg"], x)))


def prelu(x, weight):
    """``ops.prelu(x, weight)``: x where x > 0, ``weight * x`` elsewhere, with ``weight`` a 1-D
    tensor of one slope per channel (axis 1 of ``x``) or a single shared slope (shape (1,)).

    Example:
        >>> import numpy as np
        >>> from runtime import ops, Tensor
        >>> x = Tensor(np.array([[-2.0, 3.0], [-1.0, -4.0]], np.float32))
        >>> ops.prelu(x, Tensor(np.array([0.5, 0.1], np.float32))).asnumpy().tolist()
        [[-1.0, 3.0], [-0.5, -0.4000000059604645]]
    """
    if weight.ndim != 1:
        raise ValueError(f"ops.prelu: weight must be 1-D, got shape {tuple(weight.shape)}")
    channels = weight.shape[0]
    w = weight
    if channels != 1:
        if x.ndim < 2 or x.shape[1] != channels:
            raise ValueError(f"ops.prelu: weight has {channels} slopes but x of shape {tuple(x.shape)} has "
                             f"{x.shape[1] if x.ndim >= 2 else 'no'} channels on axis 1")
        if x.ndim > 2:
            w = bind(_R["reshape"], weight, shape=(channels,) + (1,) * (x.ndim - 2))
    return bind(_R["where"], bind(_R["greater"], x, 0.0), x, bind(_R["mul"], x, w))


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):  # noqa: A002
    """``ops.group_norm(input, num_groups, weight=None, bias=None, eps=1e-5)``: normalise each
    group of C / num_groups channels of each sample of (N, C, *) ``input`` over its channels and
    positions (biased variance), then scale by ``weight`` and shift by ``bias`` (both (C,)).

    Example:
        >>> import numpy as np
        >>> from runtime import ops, Tensor
        >>> x = Tensor(np.array([[[1.0], [3.0], [10.0], [10.0]]], np.float32))
        >>> np.round(ops.group_norm(x, 2).asnumpy().ravel(), 4).tolist()
        [-1.0, 1.0, 0.0, 0.0]
    """
    if isinstance(num_groups, bool) or not isinstance(num_groups, (int, np.integer)):
        raise TypeError(f"ops.group_norm: num_groups must be an int, got {num_groups!r}")
    if num_groups < 1:
        raise ValueError(f"ops.group_norm: num_groups must be >= 1, got {num_groups}")
    if isinstance(eps, bool) or not isinstance(eps, (float, int)):
        raise TypeError(f"ops.group_norm: eps must be a float, got {eps!r}")
    shape = tuple(input.shape)
    if len(shape) < 2 or shape[1] % num_groups:
        raise ValueError(f"ops.group_norm: the channels (axis 1) of input shape {shape} must be divisible by "
                         f"num_groups ({num_groups})")
    g = bind(_R["reshape"], input, shape=(shape[0], num_groups, -1))
    mean = bind(_R["reduce_mean"], g, axis=2, keep_dims=True)
    d = bind(_R["sub"], g, mean)
    var = bind(_R["reduce_mean"], bind(_R["square"], d), axis=2, keep_dims=True)
    y = bind(_R["reshape"], bind(_R["mul"], d, bind(_R["rsqrt"], bind(_R["add"], var, float(eps)))), shape=shape)
    view = (1, -1) + (1,) * (len(shape) - 2)
    if weight is not None:
        y = bind(_R["mul"], y, bind(_R["reshape"], weight, shape=view))
    if bias is not None:
        y = bind(_R["add"], y, bind(_R["reshape"], bias, shape=view))
    return y


# -- losses: the nn loss Cells' computations ------------------------------------------------------------------
def _loss(cls_name, *args, **kwargs):
    from .. import nn
    return getattr(nn, cls_name)(*args, **kwargs).construct


def cross_entropy(input, target, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):  # noqa: A002
    """``ops.cross_entropy``: as ``nn.CrossEntropyLoss`` (index or probability targets)."""
    return _loss("CrossEntropyLoss", weight, ignore_index, reduction, label_smoothing)(input, target)


def nll_loss(inputs, target, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
    """``ops.nll_loss``: negative log-likelihood of log-probabilities ``inputs`` (as ``nn.NLLLoss``)."""
    from ..nn.loss import _nll_from_logp
    from ..nn.loss import _check_reduction, _check_weight
    _check_reduction("nll_loss", reduction)
    return _nll_from_logp("nll_loss", inputs, target, _check_weight("nll_loss", weight), ignore_index, reduction,
                          float(label_smoothing))


def l1_loss(input, target, reduction="mean"):  # noqa: A002
    """``ops.l1_loss``: |input - target|, reduced (as ``nn.L1Loss``)."""
    return _loss("L1Loss", reduction)(input, target)


def smooth_l1_loss(input, target, beta=1.0, reduction="none"):  # noqa: A002
    """``ops.smooth_l1_loss`` (default reduction 'none', as MindSpore's function)."""
    return _loss("SmoothL1Loss", beta, reduction)(input, target)


def binary_cross_entropy(logits, labels, weight=None, reduction="mean"):
    """``ops.binary_cross_entropy``: of probabilities ``logits`` against ``labels`` (as ``nn.BCELoss``)."""
    return _loss("BCELoss", weight, reduction)(logits, labels)


def kl_div(logits, labels, reduction="mean"):
    """``ops.kl_div``: sum of labels * (log(labels) - logits) with ``logits`` log-probabilities;
    reductions 'none', 'sum', 'mean' (over elements) and 'batchmean' (over the first axis)."""
    if reduction not in ("none", "sum", "mean", "batchmean"):
        raise ValueError(f"ops.kl_div: reduction must be 'none', 'sum', 'mean' or 'batchmean', got {reduction!r}")
    safe = bind(_R["where"], bind(_R["greater"], labels, 0.0), labels, bind(_R["ones_like"], labels))
    pointwise = bind(_R["mul"], labels, bind(_R["sub"], bind(_R["log"], safe), logits))
    if reduction == "none":
        return pointwise
    total = bind(_R["reduce_sum"], pointwise)
    if reduction == "sum":
        return total
    n = int(np.prod(logits.shape)) if reduction == "mean" else int(logits.shape[0])
    return bind(_R["div"], total, float(n))


# -- resizing -------------------------------------------------------------------------------------------
def _linear_matrix(n_in, n_out, align_corners, half_pixel=True):
    """(n_out, n_in) linear-interpolation weights. Source coordinate of output i: ``i*(in-1)/(out-1)``
    with ``align_corners``; else ``(i+0.5)*in/out - 0.5`` (half-pixel centres, clamped at 0) or,
    with ``half_pixel=False``, ``i*in/out`` (ResizeBilinearV2's default)."""
    a = np.zeros((n_out, n_in), np.float32)
    for i in range(n_out):
        if align_corners:
            src = i * (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
        elif half_pixel:
            src = max((i + 0.5) * n_in / n_out - 0.5, 0.0)
        else:
            src = i * n_in / n_out
        i0 = min(int(math.floor(src)), n_in - 1)
        i1 = min(i0 + 1, n_in - 1)
        f = src - i0
        a[i, i0] += 1.0 - f
        a[i, i1] += f
    return a


def _resize_bilinear(x, oh, ow, align_corners, half_pixel=True):
    h, w = x.shape[-2], x.shape[-1]
    dt = x.dtype.np
    ah = _const(_linear_matrix(h, oh, align_corners, half_pixel).astype(dt))
    aw = _const(_linear_matrix(w, ow, align_corners, half_pixel).T.astype(dt))
    return bind(_R["matmul"], ah, bind(_R["matmul"], x, aw))


def _nearest_index(n_in, n_out, align_corners):
    """Source index of each output index: ``floor(i*in/out)``, or with ``align_corners``
    ``round(i*(in-1)/(out-1))`` (half away from zero), clipped to the input."""
    i = np.arange(n_out)
    if align_corners:
        src = np.floor(i * ((n_in - 1) / (n_out - 1) if n_out > 1 else 0.0) + 0.5)
    else:
        src = np.floor(i * (n_in / n_out))
    return np.minimum(src.astype(np.int32), n_in - 1)


def _resize_nearest(x, oh, ow, align_corners=False):
    h, w = x.shape[-2], x.shape[-1]
    out = bind(_R["gather"], x, _const(_nearest_index(h, oh, align_corners)), axis=x.ndim - 2)
    return bind(_R["gather"], out, _const(_nearest_index(w, ow, align_corners)), axis=x.ndim - 1)


def _resize_axis(x, axis, n_out, mode, align_corners):
    """``x`` resized along ``axis`` to ``n_out``: a gather of the nearest source indices, or the
    product with the (n_out, n_in) linear-interpolation matrix (applied on the last axis, so the
    axis is swapped there and back)."""
    n_in = x.shape[axis]
    if mode == "nearest":
        return bind(_R["gather"], x, _const(_nearest_index(n_in, n_out, False)), axis=axis)
    weights = _const(_linear_matrix(n_in, n_out, align_corners).T.astype(x.dtype.np))
    last = x.ndim - 1
    if axis == last:
        return bind(_R["matmul"], x, weights)
    swap = list(range(x.ndim))
    swap[axis], swap[last] = last, axis
    moved = bind(_R["transpose"], x, perm=tuple(swap))
    return bind(_R["transpose"], bind(_R["matmul"], moved, weights), perm=tuple(swap))


#: the rank of input each interpolating mode takes (MindSpore 2.x: 'linear' 3-D, 'bilinear' 4-D,
#: 'trilinear' 5-D; 'nearest' any of them)
_INTERPOLATE_RANKS = {"nearest": (3, 4, 5), "linear": (3,), "bilinear": (4,), "trilinear": (5,)}


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,  # noqa: A002
                recompute_scale_factor=None):
    """Resize the spatial axes (all after N and C) of 3-D (N, C, L), 4-D (N, C, H, W) or 5-D
    (N, C, D, H, W) ``input`` to ``size`` (or by ``scale_factor``); mode 'nearest' (source index
    floor(i * in / out)) or 'linear' / 'bilinear' / 'trilinear' for 3-D / 4-D / 5-D input
    (``align_corners`` as PyTorch/MindSpore, else half-pixel centres), one axis at a time."""
    if (size is None) == (scale_factor is None):
        raise ValueError("interpolate: give exactly one of size and scale_factor")
    if mode not in _INTERPOLATE_RANKS:
        raise ValueError(f"interpolate: mode must be one of {sorted(_INTERPOLATE_RANKS)}, got {mode!r}")
    if input.ndim not in _INTERPOLATE_RANKS[mode]:
        raise ValueError(f"interpolate: mode {mode!r} expects a {' or '.join(map(str, _INTERPOLATE_RANKS[mode]))}-D "
                         f"input (N, C, spatial...), got shape {tuple(input.shape)}")
    if mode == "nearest" and align_corners:
        raise ValueError("interpolate: align_corners applies to the linear modes only")
    spatial = tuple(input.shape[2:])
    n = len(spatial)
    if size is not None:
        out = (size,) * n if isinstance(size, (int, np.integer)) else tuple(int(v) for v in size)
        what, given = "size", size
    else:
        scales = (scale_factor,) * n if isinstance(scale_factor, (int, float)) else tuple(scale_factor)
        out = tuple(int(math.floor(d * f)) for d, f in zip(spatial, scales)) if len(scales) == n else ()
        what, given = "scale_factor", scale_factor
    if len(out) != n:
        raise ValueError(f"interpolate: {what} must give {n} spatial sizes for input of shape "
                         f"{tuple(input.shape)}, got {given!r}")
    x = input
    for axis, n_out in enumerate(out, start=2):
        x = _resize_axis(x, axis, n_out, "nearest" if mode == "nearest" else "linear", bool(align_corners))
    return x


#: ``ops.upsample``: MindSpore 2.x's alias of :func:`interpolate`
upsample = interpolate


def _size_pair(size, what):
    if hasattr(size, "asnumpy"):
        size = size.asnumpy().tolist()
    if not isinstance(size, (tuple, list)) or len(size) != 2 or any(
            isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1 for v in size):
        raise ValueError(f"{what}: size must be 2 positive ints (new_height, new_width), got {size!r}")
    return int(size[0]), int(size[1])


def _check_4d(x, what):
    if x.ndim != 4:
        raise ValueError(f"{what}: input must be 4-D (N, C, H, W), got shape {tuple(x.shape)}")


class ResizeNearestNeighbor(CompositePrimitive):
    """``ops.ResizeNearestNeighbor(size, align_corners=False)(input_x)``: nearest-neighbour resize
    of (N, C, H, W) ``input_x`` to ``size`` (new_h, new_w). Source index ``floor(i * H / new_h)``,
    or with ``align_corners`` ``round(i * (H - 1) / (new_h - 1))``.

    Example:
        >>> import numpy as np
        >>> from runtime import ops, Tensor
        >>> x = Tensor(np.arange(4, dtype=np.float32).reshape(1, 1, 2, 2))
        >>> ops.ResizeNearestNeighbor((3, 3), align_corners=True)(x).asnumpy()[0, 0].tolist()
        [[0.0, 1.0, 1.0], [2.0, 3.0, 3.0], [2.0, 3.0, 3.0]]
    """

    def __init__(self, size, align_corners=False):
        if not isinstance(size, (tuple, list)):
            raise TypeError(f"ResizeNearestNeighbor: size must be a tuple or list, got {type(size).__name__}")
        self.size = _size_pair(size, "ResizeNearestNeighbor")
        if not isinstance(align_corners, bool):
            raise TypeError(f"ResizeNearestNeighbor: align_corners must be a bool, got {align_corners!r}")
        self.align_corners = align_corners

    def __call__(self, input_x):
        _check_4d(input_x, "ResizeNearestNeighbor")
        return _resize_nearest(input_x, self.size[0], self.size[1], self.align_corners)


class ResizeBilinearV2(CompositePrimitive):
    """``ops.ResizeBilinearV2(align_corners=False, half_pixel_centers=False)(x, size)``: bilinear
    resize of (N, C, H, W) ``x`` to ``size`` (new_h, new_w). Source coordinate of output row i:
    ``i * H / new_h`` by default, ``i * (H - 1) / (new_h - 1)`` with ``align_corners``,
    ``(i + 0.5) * H / new_h - 0.5`` with ``half_pixel_centers`` (then as ``ops.interpolate``).

    Example:
        >>> import numpy as np
        >>> from runtime import ops, Tensor
        >>> x = Tensor(np.array([[[[0.0, 4.0]]]], np.float32))
        >>> ops.ResizeBilinearV2()(x, (1, 4)).asnumpy().ravel().tolist()
        [0.0, 2.0, 4.0, 4.0]
    """

    def __init__(self, align_corners=False, half_pixel_centers=False):
        for what, flag in (("align_corners", align_corners), ("half_pixel_centers", half_pixel_centers)):
            if not isinstance(flag, bool):
                raise TypeError(f"ResizeBilinearV2: {what} must be a bool, got {flag!r}")
        if align_corners and half_pixel_centers:
            raise TypeError("ResizeBilinearV2: align_corners and half_pixel_centers cannot both be True")
        self.align_corners, self.half_pixel_centers = align_corners, half_pixel_centers

    def __call__(self, x, size):
        _check_4d(x, "ResizeBilinearV2")
        oh, ow = _size_pair(size, "ResizeBilinearV2")
        return _resize_bilinear(x, oh, ow, self.align_corners, self.half_pixel_centers)
