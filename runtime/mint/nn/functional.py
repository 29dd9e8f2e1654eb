"""``mindspore.mint.nn.functional``: torch-style spellings of the ``runtime.ops`` neural-network functions.

Thin wrappers: each translates mint's argument names/defaults (``dim``, ``padding`` as an int or
``'same'``/``'valid'``, ``num_classes``...) to the existing ``ops`` function; no op math is written here.

Example:
    >>> import numpy as np
    >>> import runtime as ms
    >>> from runtime.mint.nn import functional as F
    >>> print(F.relu(ms.Tensor(np.array([-1.0, 2.0], np.float32))))
    [0. 2.]
"""
from __future__ import annotations

from ... import ops as _ops

__all__ = ["relu", "gelu", "silu", "sigmoid", "tanh", "softmax", "log_softmax", "dropout", "linear", "conv2d",
           "layer_norm", "embedding", "cross_entropy", "mse_loss", "l1_loss", "one_hot", "pad", "interpolate",
           "leaky_relu", "elu", "softplus", "binary_cross_entropy_with_logits", "max_pool2d", "avg_pool2d",
           "hardswish", "hardsigmoid", "mish", "selu", "prelu", "glu", "normalize", "group_norm",
           "adaptive_avg_pool2d", "nll_loss", "binary_cross_entropy", "smooth_l1_loss", "kl_div", "grid_sample",
           "unfold", "fold", "conv1d", "conv_transpose2d", "relu6", "hardtanh", "logsigmoid", "softshrink",
           "hardshrink", "threshold", "softmin", "batch_norm", "adaptive_avg_pool1d", "pixel_shuffle",
           "pixel_unshuffle", "dropout2d", "cosine_similarity", "softsign", "tanhshrink", "celu", "avg_pool1d",
           "max_pool1d", "conv3d", "adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_avg_pool3d",
           "huber_loss", "soft_margin_loss", "margin_ranking_loss", "cosine_embedding_loss", "triplet_margin_loss"]


def relu(input, inplace=False):
    """``inplace=True`` is refused: tensors here are values (there is no in-place ReLU)."""
    _no_inplace("relu", inplace)
    return _ops.relu(input)


def _no_inplace(name, inplace):
    if inplace:
        raise ValueError(f"mint.nn.functional.{name}: inplace=True is not supported (no in-place kernels)")


def gelu(input, approximate="none"):
    return _ops.gelu(input, approximate=approximate)


def silu(input, inplace=False):
    _no_inplace("silu", inplace)
    return _ops.silu(input)


def sigmoid(input):
    return _ops.sigmoid(input)


def tanh(input):
    return _ops.tanh(input)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    _no_inplace("leaky_relu", inplace)
    return _ops.leaky_relu(input, negative_slope)


def elu(input, alpha=1.0, inplace=False):
    _no_inplace("elu", inplace)
    return _ops.elu(input, alpha)


def softplus(input, beta=1, threshold=20):
    return _ops.softplus(input, beta, threshold)


def _axis(name, dim):
    if dim is None:  # torch's legacy implicit dim is deprecated; mint's default is the last axis
        return -1
    if isinstance(dim, bool) or not isinstance(dim, int):
        raise TypeError(f"mint.nn.functional.{name}: dim must be an int, got {dim!r}")
    return dim


def softmax(input, dim=None, *, dtype=None):
    """Softmax along ``dim`` (default: the last), computed in ``dtype`` when given."""
    return _ops.softmax(input, _axis("softmax", dim), dtype=dtype)


def log_softmax(input, dim=None, *, dtype=None):
    x = input if dtype is None else _ops.cast(input, dtype)
    return _ops.log_softmax(x, _axis("log_softmax", dim))


def dropout(input, p=0.5, training=True, inplace=False):
    _no_inplace("dropout", inplace)
    return _ops.dropout(input, p=p, training=training)


def linear(input, weight, bias=None):
    """``input @ weight.T + bias`` (``ops.dense``)."""
    return _ops.dense(input, weight, bias)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """``padding``: an int, a pair, or ``'same'``/``'valid'`` (torch's spelling of ops' pad_mode)."""
    if isinstance(padding, str):
        if padding not in ("same", "valid"):
            raise ValueError(f"mint.nn.functional.conv2d: padding must be 'same', 'valid' or numbers, "
                             f"got {padding!r}")
        return _ops.conv2d(input, weight, bias, stride, padding, 0, dilation, groups)
    return _ops.conv2d(input, weight, bias, stride, "pad", _torch_padding(padding), dilation, groups)


def _torch_padding(padding):
    """torch's (pad_h, pad_w) is symmetric per side; ops' 4-tuple is (top, bottom, left, right)."""
    if isinstance(padding, int):
        return padding
    ph, pw = padding
    return (ph, ph, pw, pw)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    return _ops.layer_norm(input, normalized_shape, weight, bias, eps)


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False):
    """Rows of ``weight`` at ``input``; the ``padding_idx`` row gets no gradient (as torch).
    ``max_norm`` (renormalising the table in place) and ``scale_grad_by_freq`` are not supported."""
    if max_norm is not None:
        raise ValueError("mint.nn.functional.embedding: max_norm is not supported")
    if scale_grad_by_freq:
        raise ValueError("mint.nn.functional.embedding: scale_grad_by_freq is not supported")
    out = _ops.gather(weight, input, 0)
    if padding_idx is None:
        return out
    if padding_idx < 0:
        padding_idx += weight.shape[0]
    padded = _ops.unsqueeze(_ops.equal(input, padding_idx), -1)
    return _ops.where(padded, _ops.stop_gradient(out), out)


def cross_entropy(input, target, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
    return _ops.cross_entropy(input, target, weight, ignore_index, reduction, label_smoothing)


def binary_cross_entropy_with_logits(input, target, weight=None, reduction="mean", pos_weight=None):
    return _ops.binary_cross_entropy_with_logits(input, target, weight, pos_weight, reduction)


def mse_loss(input, target, reduction="mean"):
    return _ops.mse_loss(input, target, reduction)


def l1_loss(input, target, reduction="mean"):
    return _ops.l1_loss(input, target, reduction)


def one_hot(tensor, num_classes=-1):
    """int64 one-hot rows; ``num_classes=-1`` means ``max(tensor) + 1`` (read from the values: a graph
    break under ``jit``)."""
    from ...dtype import int64
    if num_classes == -1:
        num_classes = int(_ops.amax(tensor)) + 1
    return _ops.one_hot(tensor, num_classes, 1, 0).astype(int64)


def pad(input, pad, mode="constant", value=None):
    return _ops.pad(input, pad, mode, value)


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None):
    return _ops.interpolate(input, size, scale_factor, mode, align_corners, recompute_scale_factor)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    return _ops.max_pool2d(input, kernel_size, stride, padding, dilation, return_indices, ceil_mode)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    stride = kernel_size if stride is None else stride  # torch's default stride is the window
    return _ops.avg_pool2d(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)


def hardswish(input, inplace=False):
    _no_inplace("hardswish", inplace)
    return _ops.hardswish(input)


def hardsigmoid(input, inplace=False):
    _no_inplace("hardsigmoid", inplace)
    return _ops.hardsigmoid(input)


def mish(input, inplace=False):
    _no_inplace("mish", inplace)
    return _ops.mish(input)


def selu(input, inplace=False):
    _no_inplace("selu", inplace)
    return _ops.selu(input)


def prelu(input, weight):
    return _ops.prelu(input, weight)


def glu(input, dim=-1):
    return _ops.glu(input, dim)


def normalize(input, p=2.0, dim=1, eps=1e-12):
    """``input / max(||input||_p over dim, eps)`` (torch's normalize), from ``ops.norm`` and ``ops.clamp``."""
    norm = _ops.norm(input, p, dim, keepdim=True)
    return _ops.div(input, _ops.clamp(norm, eps, None))


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    return _ops.group_norm(input, num_groups, weight, bias, eps)


def adaptive_avg_pool2d(input, output_size):
    return _ops.adaptive_avg_pool2d(input, output_size)


def nll_loss(input, target, weight=None, ignore_index=-100, reduction="mean"):
    return _ops.nll_loss(input, target, weight, ignore_index, reduction)


def binary_cross_entropy(input, target, weight=None, reduction="mean"):
    return _ops.binary_cross_entropy(input, target, weight, reduction)


def smooth_l1_loss(input, target, reduction="mean", beta=1.0):
    """Note torch's default ``reduction='mean'`` (``ops.smooth_l1_loss`` defaults to 'none')."""
    return _ops.smooth_l1_loss(input, target, beta, reduction)


def kl_div(input, target, reduction="mean", log_target=False):
    """``target * (log(target) - input)`` with ``input`` log-probabilities; ``log_target=True`` takes
    ``target`` as log-probabilities too."""
    return _ops.kl_div(input, _ops.exp(target) if log_target else target, reduction)


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    return _ops.grid_sample(input, grid, mode, padding_mode, bool(align_corners))


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    return _ops.unfold(input, kernel_size, dilation, padding, stride)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    return _ops.fold(input, output_size, kernel_size, dilation, padding, stride)


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """``padding``: an int or ``'same'``/``'valid'``."""
    if isinstance(padding, str):
        if padding not in ("same", "valid"):
            raise ValueError(f"mint.nn.functional.conv1d: padding must be 'same', 'valid' or a number, "
                             f"got {padding!r}")
        return _ops.conv1d(input, weight, bias, stride, padding, 0, dilation, groups)
    return _ops.conv1d(input, weight, bias, stride, "pad", padding, dilation, groups)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _ops.conv_transpose2d(input, weight, bias, stride, padding, output_padding, groups, dilation)


def _int_pair(name, what, value):
    """``(a, b)`` from an int or a pair of ints (torch's 2-D sizes), checked."""
    pair = (value, value) if isinstance(value, int) and not isinstance(value, bool) else value
    if (not isinstance(pair, (tuple, list)) or len(pair) != 2
            or any(isinstance(v, bool) or not isinstance(v, int) or v < 0 for v in pair)):
        raise ValueError(f"mint.nn.{name}: {what} must be a non-negative int or a pair of them, got {value!r}")
    return tuple(pair)


def relu6(input, inplace=False):
    _no_inplace("relu6", inplace)
    return _ops.relu6(input)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """``clamp(input, min_val, max_val)``."""
    _no_inplace("hardtanh", inplace)
    if min_val > max_val:
        raise ValueError(f"mint.nn.functional.hardtanh: min_val {min_val} must not exceed max_val {max_val}")
    return _ops.hardtanh(input, min_val, max_val)


def logsigmoid(input):
    return _ops.logsigmoid(input)


def softshrink(input, lambd=0.5):
    if lambd < 0:
        raise ValueError(f"mint.nn.functional.softshrink: lambd must be >= 0, got {lambd}")
    return _ops.softshrink(input, lambd)


def hardshrink(input, lambd=0.5):
    return _ops.hardshrink(input, lambd)


def threshold(input, threshold, value, inplace=False):
    """``input`` where ``input > threshold``, else ``value``."""
    _no_inplace("threshold", inplace)
    return _ops.threshold(input, threshold, value)


def softmin(input, dim=None, *, dtype=None):
    """``softmax(-input)`` along ``dim`` (default: the last)."""
    return _ops.softmin(input, _axis("softmin", dim), dtype=dtype)


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5):
    """Batch normalisation over every dimension but the channels (dim 1). Training: the batch
    statistics normalise and, when given, the running ones are updated in place with torch's
    ``momentum`` (``running = (1 - momentum) * running + momentum * batch``, the variance unbiased);
    otherwise the running statistics normalise. ``weight``/``bias`` None: 1 and 0."""
    if input.ndim < 2:
        raise ValueError(f"mint.nn.functional.batch_norm: input must have a channel dimension (N, C, ...), got "
                         f"shape {tuple(input.shape)}")
    if not training and (running_mean is None or running_var is None):
        raise ValueError("mint.nn.functional.batch_norm: running_mean and running_var are required when not "
                         "training")
    channels = (input.shape[1],)
    if weight is None:
        weight = _ops.ones(channels, input.dtype)
    if bias is None:
        bias = _ops.zeros(channels, input.dtype)
    # without running statistics nothing is tracked: throwaway buffers take the update
    mean = _ops.zeros(channels, input.dtype) if running_mean is None else running_mean
    var = _ops.ones(channels, input.dtype) if running_var is None else running_var
    return _ops.batch_norm(input, mean, var, weight, bias, training, momentum, eps)


def adaptive_avg_pool1d(input, output_size):
    return _ops.adaptive_avg_pool1d(input, output_size)


def pixel_shuffle(input, upscale_factor):
    """``(*, C*r*r, H, W)`` to ``(*, C, H*r, W*r)``."""
    return _ops.pixel_shuffle(input, upscale_factor)


def pixel_unshuffle(input, downscale_factor):
    """The inverse of :func:`pixel_shuffle`."""
    return _ops.pixel_unshuffle(input, downscale_factor)


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels with probability ``p`` (scaling the rest by ``1/(1-p)``) when training."""
    _no_inplace("dropout2d", inplace)
    return _ops.dropout2d(input, p=p, training=training)


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """``x1 . x2 / max(||x1|| * ||x2||, eps)`` along ``dim`` (broadcasting ``x1`` and ``x2``)."""
    return _ops.cosine_similarity(x1, x2, dim, eps)


def softsign(input):
    """``input / (1 + |input|)``."""
    return _ops.softsign(input)


def tanhshrink(input):
    """``input - tanh(input)``."""
    return _ops.tanhshrink(input)


def celu(input, alpha=1.0, inplace=False):
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``."""
    _no_inplace("celu", inplace)
    return _ops.celu(input, alpha)


def _as_2d_rows(name, input):
    """``(N, C, L)`` (or ``(C, L)``) as ``(N, C, 1, L)``: the 1-D pools run as 2-D pools over one row."""
    if input.ndim not in (2, 3):
        raise ValueError(f"mint.nn.functional.{name}: expects a (N, C, L) or (C, L) input, got shape "
                         f"{tuple(input.shape)}")
    return _ops.unsqueeze(input, -2)


def _one(name, what, value):
    """The int of a 1-D pool's size argument (an int or a 1-tuple, as torch accepts)."""
    if isinstance(value, (tuple, list)) and len(value) == 1:
        value = value[0]
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"mint.nn.functional.{name}: {what} must be an int, got {value!r}")
    return value


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    """Means over windows along the last dimension (``stride`` defaults to ``kernel_size``)."""
    k = _one("avg_pool1d", "kernel_size", kernel_size)
    s = k if stride is None else _one("avg_pool1d", "stride", stride)
    p = _one("avg_pool1d", "padding", padding)
    rows = _as_2d_rows("avg_pool1d", input)
    return _ops.squeeze(_ops.avg_pool2d(rows, (1, k), (1, s), (0, p), ceil_mode, count_include_pad), -2)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """Maxima over windows along the last dimension (``stride`` defaults to ``kernel_size``;
    ``padding`` pads with -inf); with ``return_indices`` also where each maximum is along it."""
    k = _one("max_pool1d", "kernel_size", kernel_size)
    s = k if stride is None else _one("max_pool1d", "stride", stride)
    p, d = _one("max_pool1d", "padding", padding), _one("max_pool1d", "dilation", dilation)
    out = _ops.max_pool2d(_as_2d_rows("max_pool1d", input), (1, k), (1, s), (0, p), (1, d), return_indices,
                          ceil_mode)
    if return_indices:
        return _ops.squeeze(out[0], -2), _ops.squeeze(out[1], -2)  # a 1-row image's flat index is the column
    return _ops.squeeze(out, -2)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """``padding``: an int, a triple (each side of depth, height, width), or ``'same'``/``'valid'``."""
    if isinstance(padding, str):
        if padding not in ("same", "valid"):
            raise ValueError(f"mint.nn.functional.conv3d: padding must be 'same', 'valid' or numbers, "
                             f"got {padding!r}")
        return _ops.conv3d(input, weight, bias, stride, padding, 0, dilation, groups)
    return _ops.conv3d(input, weight, bias, stride, "pad", padding, dilation, groups)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """Maxima of ``output_size`` adaptive windows along the last dimension (and their positions)."""
    size = _one("adaptive_max_pool1d", "output_size", output_size)
    out = _ops.adaptive_max_pool2d(_as_2d_rows("adaptive_max_pool1d", input), (1, size), return_indices)
    if return_indices:
        return _ops.squeeze(out[0], -2), _ops.squeeze(out[1], -2)
    return _ops.squeeze(out, -2)


def adaptive_max_pool2d(input, output_size, return_indices=False):
    return _ops.adaptive_max_pool2d(input, output_size, return_indices)


def adaptive_avg_pool3d(input, output_size):
    return _ops.adaptive_avg_pool3d(input, output_size)


def huber_loss(input, target, reduction="mean", delta=1.0):
    """``0.5 d**2`` where ``|d| < delta``, else ``delta * (|d| - 0.5 delta)``, with ``d = input - target``."""
    return _ops.huber_loss(input, target, reduction, delta)


def soft_margin_loss(input, target, reduction="mean"):
    """``log(1 + exp(-target * input))`` (targets +-1)."""
    return _ops.soft_margin_loss(input, target, reduction)


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction="mean"):
    """``max(0, -target * (input1 - input2) + margin)``."""
    return _ops.margin_ranking_loss(input1, input2, target, margin, reduction)


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction="mean"):
    """``1 - cos`` for target 1, ``max(0, cos - margin)`` for target -1 (cosine along dim 1)."""
    return _ops.cosine_embedding_loss(input1, input2, target, margin, reduction)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, reduction="mean"):
    """``max(d(a, p) - d(a, n) + margin, 0)`` with the ``p``-norm distance ``d`` (``swap``: the
    smaller of ``d(a, n)`` and ``d(p, n)``)."""
    return _ops.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap, reduction)
