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


def _const(array):
    from ..tensor import Tensor
    return Tensor._wrap(array)

_R = REGISTRY

__all__ = ["conv2d", "conv_transpose2d", "max_pool2d", "avg_pool2d", "silu", "relu6", "hardswish", "hardsigmoid", "elu", "selu",
           "mish", "softsign", "logsigmoid", "softplus", "cross_entropy", "nll_loss", "l1_loss",
           "smooth_l1_loss", "binary_cross_entropy", "kl_div", "interpolate"]


def conv2d(input, weight, bias=None, stride=1, pad_mode="valid", padding=0, dilation=1, groups=1):  # noqa: A002
    """``ops.conv2d(input, weight, bias=None, stride=1, pad_mode='valid', padding=0, dilation=1,
    groups=1)``: 2-D convolution of NCHW ``input`` with OIHW ``weight``, plus ``bias`` (O,)."""
    out = bind(_R["conv2d"], input, weight, stride=stride, pad_mode=pad_mode, padding=padding,
               dilation=dilation, groups=groups)
    return out if bias is None else bind(_R["bias_add"], out, bias)


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


def _pool_padding(x, kernel_size, stride, padding, ceil_mode, fill, fn):
    """``x`` padded for a 'valid' pooling: ``padding`` on each side of H and W, plus the far
    cells ceil_mode's last windows reach. Returns (padded x, (extra_h, extra_w))."""
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
        eh, ew = _ceil_extra(h, kh, sh, ph), _ceil_extra(w, kw, sw, pw)
    if ph == pw == eh == ew == 0:
        return x, (0, 0)
    return pad(x, (pw, pw + ew, ph, ph + eh), value=fill), (eh, ew)


def _no(flag, what, fn):
    if flag:
        raise ValueError(f"ops.{fn}: {what} is not supported")


def max_pool2d(x, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
    """``ops.max_pool2d(x, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
    ceil_mode=False)``: max over windows of NCHW ``x``; ``padding`` pads with -inf; ``ceil_mode``
    rounds the output size up (a last, partial window per row/column)."""
    _no(_pair(dilation, "dilation", "max_pool2d") != (1, 1), "dilation other than 1", "max_pool2d")
    _no(return_indices, "return_indices=True", "max_pool2d")
    stride = kernel_size if stride is None else stride
    x, _ = _pool_padding(x, kernel_size, stride, padding, ceil_mode, -np.inf, "max_pool2d")
    return bind(_R["max_pool2d"], x, kernel_size=kernel_size, stride=stride)


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
    frac = bind(_R["avg_pool2d"], Tensor(mask.astype(input_x.dtype.np)), kernel_size=kernel_size, stride=stride)
    return bind(_R["div"], out, frac)


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
def _linear_matrix(n_in, n_out, align_corners):
    a = np.zeros((n_out, n_in), np.float32)
    for i in range(n_out):
        if align_corners:
            src = i * (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
        else:
            src = max((i + 0.5) * n_in / n_out - 0.5, 0.0)
        i0 = min(int(math.floor(src)), n_in - 1)
        i1 = min(i0 + 1, n_in - 1)
        f = src - i0
        a[i, i0] += 1.0 - f
        a[i, i1] += f
    return a


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,  # noqa: A002
                recompute_scale_factor=None):
    """Resize the last two axes of NCHW ``input`` to ``size`` (or by ``scale_factor``); mode
    'nearest' (source index floor(i * in / out)) or 'bilinear' (``align_corners`` as PyTorch/MindSpore)."""
    if (size is None) == (scale_factor is None):
        raise ValueError("interpolate: give exactly one of size and scale_factor")
    if input.ndim != 4:
        raise ValueError(f"interpolate: expects NCHW input, got shape {tuple(input.shape)}")
    h, w = input.shape[2], input.shape[3]
    if size is not None:
        oh, ow = (size, size) if isinstance(size, int) else (int(size[0]), int(size[1]))
    else:
        sh, sw = (scale_factor, scale_factor) if isinstance(scale_factor, (int, float)) else scale_factor
        oh, ow = int(math.floor(h * sh)), int(math.floor(w * sw))
    if mode == "nearest":
        if align_corners:
            raise ValueError("interpolate: align_corners applies to 'bilinear' only")
        iy = np.minimum(np.floor(np.arange(oh) * (h / oh)).astype(np.int32), h - 1)
        ix = np.minimum(np.floor(np.arange(ow) * (w / ow)).astype(np.int32), w - 1)
        out = bind(_R["gather"], input, _const(iy), axis=2)
        return bind(_R["gather"], out, _const(ix), axis=3)
    if mode == "bilinear":
        dt = input.dtype.np
        ah = _const(_linear_matrix(h, oh, bool(align_corners)).astype(dt))
        aw = _const(_linear_matrix(w, ow, bool(align_corners)).T.astype(dt))
        return bind(_R["matmul"], ah, bind(_R["matmul"], input, aw))
    raise ValueError(f"interpolate: mode must be 'nearest' or 'bilinear', got {mode!r}")
