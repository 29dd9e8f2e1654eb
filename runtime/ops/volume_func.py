"""Functions over grids and volumes composed of registry ops (no new op semantics here):
``ops.meshgrid`` (checked MindSpore's way, then ``mindspore.numpy``'s grids), ``ops.pixel_shuffle`` / ``ops.pixel_unshuffle``, ``ops.dropout2d`` /
``ops.dropout3d`` and ``ops.conv3d``.

``conv3d`` is a sum of 2-D convolutions, one per kernel depth tap: the input's depth slices that
tap reads (a gather along depth) are folded into the batch, convolved with that tap's 2-D kernel
by the registry's ``conv2d`` (its compiled kernels, its gradients), and the taps' results summed.
That is ``kd`` convolutions over ``N * D_out`` images, the same arithmetic as a direct 3-D
convolution.

Example:
    >>> import numpy as np
    >>> from runtime import ops, Tensor
    >>> xs, ys = ops.meshgrid(Tensor(np.arange(3, dtype=np.float32)), Tensor(np.arange(2, dtype=np.float32)))
    >>> xs.shape, ys.asnumpy().tolist()
    ((2, 3), [[0.0, 0.0, 0.0], [1.0, 1.0, 1.0]])
    >>> ops.pixel_shuffle(ops.ones((1, 8, 2, 3)), 2).shape
    (1, 2, 4, 6)
    >>> ops.conv3d(ops.ones((1, 2, 4, 5, 5)), ops.ones((3, 2, 2, 3, 3))).shape
    (1, 3, 3, 3, 3)
"""
from __future__ import annotations

import numpy as np

from graph.ops import REGISTRY, bind
from graph.ops.core import is_tensorlike

from ..tensor import Tensor
from .arrays import pad

_R = REGISTRY

__all__ = ["meshgrid", "pixel_shuffle", "pixel_unshuffle", "dropout2d", "dropout3d", "conv3d", "Conv3D"]


# -- meshgrid ---------------------------------------------------------------------------------------------
def meshgrid(*inputs, indexing="xy"):
    """``ops.meshgrid(*inputs, indexing='xy')``: coordinate grids from 1-D tensors. With N inputs of
    lengths n1..nN every output has shape (n1, ..., nN) for ``indexing='ij'``, and (n2, n1, n3, ...)
    for 'xy' (Cartesian: the first two axes swapped)."""
    if len(inputs) == 1 and isinstance(inputs[0], (tuple, list)):
        inputs = tuple(inputs[0])
    if indexing not in ("xy", "ij"):
        raise ValueError(f"Meshgrid (ops.meshgrid): indexing must be 'xy' or 'ij', got {indexing!r}")
    if len(inputs) < 2:
        raise ValueError(f"Meshgrid (ops.meshgrid): needs at least 2 inputs, got {len(inputs)}")
    for k, x in enumerate(inputs):
        if not is_tensorlike(x):
            raise TypeError(f"Meshgrid (ops.meshgrid): input {k} must be a Tensor, got {type(x).__name__}")
        if x.ndim != 1:
            raise ValueError(f"Meshgrid (ops.meshgrid): inputs must be 1-D, input {k} has shape {tuple(x.shape)}")
    if len({str(x.dtype) for x in inputs}) != 1:
        raise TypeError(f"Meshgrid (ops.meshgrid): inputs must have one dtype, got "
                        f"{[str(x.dtype) for x in inputs]}")
    from ..numpy.array_creations import meshgrid as grids  # (mindspore.numpy's: the same rule)
    return grids(*inputs, indexing=indexing)


# -- pixel shuffle ----------------------------------------------------------------------------------------
def _factor(v, what, fn):
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
        raise ValueError(f"{fn}: {what} must be a positive int, got {v!r}")
    return int(v)


def pixel_shuffle(input, upscale_factor):  # noqa: A002 - MindSpore's name
    """``ops.pixel_shuffle(input, upscale_factor)``: (*, C*r*r, H, W) -> (*, C, H*r, W*r); channel
    ``c*r*r + i*r + j`` becomes pixel (i, j) of each r x r block of channel c (as PyTorch)."""
    fn = "PixelShuffle (ops.pixel_shuffle)"
    r = _factor(upscale_factor, "upscale_factor", fn)
    shape = tuple(input.shape)
    if len(shape) < 3:
        raise ValueError(f"{fn}: input must have rank >= 3 (*, C, H, W), got shape {shape}")
    *lead, c, h, w = shape
    if c % (r * r):
        raise ValueError(f"{fn}: the channels ({c}) must be divisible by upscale_factor**2 ({r * r}), "
                         f"input shape {shape}")
    oc, n = c // (r * r), len(lead)
    x = bind(_R["reshape"], input, shape=tuple(lead) + (oc, r, r, h, w))
    perm = tuple(range(n)) + tuple(n + p for p in (0, 3, 1, 4, 2))  # (oc, h, r, w, r)
    x = bind(_R["transpose"], x, perm=perm)
    return bind(_R["reshape"], x, shape=tuple(lead) + (oc, h * r, w * r))


def pixel_unshuffle(input, downscale_factor):  # noqa: A002 - MindSpore's name
    """``ops.pixel_unshuffle(input, downscale_factor)``: the inverse of :func:`pixel_shuffle`,
    (*, C, H*r, W*r) -> (*, C*r*r, H, W)."""
    fn = "PixelUnshuffle (ops.pixel_unshuffle)"
    r = _factor(downscale_factor, "downscale_factor", fn)
    shape = tuple(input.shape)
    if len(shape) < 3:
        raise ValueError(f"{fn}: input must have rank >= 3 (*, C, H, W), got shape {shape}")
    *lead, c, h, w = shape
    if h % r or w % r:
        raise ValueError(f"{fn}: height ({h}) and width ({w}) must be divisible by downscale_factor ({r}), "
                         f"input shape {shape}")
    n = len(lead)
    x = bind(_R["reshape"], input, shape=tuple(lead) + (c, h // r, r, w // r, r))
    perm = tuple(range(n)) + tuple(n + p for p in (0, 2, 4, 1, 3))  # (c, r, r, h, w)
    x = bind(_R["transpose"], x, perm=perm)
    return bind(_R["reshape"], x, shape=tuple(lead) + (c * r * r, h // r, w // r))


# -- channel dropout --------------------------------------------------------------------------------------
def _channel_dropout(x, p, training, rank, fn):
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0.0 <= p <= 1.0:
        raise ValueError(f"{fn}: p (the probability to zero a channel) must be a float in [0, 1], got {p!r}")
    if not isinstance(training, (bool, np.bool_)):
        raise TypeError(f"{fn}: training must be a bool, got {type(training).__name__}")
    if x.ndim != rank:
        raise ValueError(f"{fn}: input must be {rank}-D, got shape {tuple(x.shape)}")
    if not training or p == 0.0:
        return x
    if p == 1.0:
        return bind(_R["mul"], x, 0.0)
    # one draw per (sample, channel) from the registry's random stream, scaled by 1/(1-p), broadcast
    # over the spatial axes
    ones = Tensor(np.ones(tuple(x.shape[:2]) + (1,) * (rank - 2), x.dtype.np))
    mask = bind(_R["dropout"], ones, keep_prob=1.0 - float(p))[0]
    return bind(_R["mul"], x, mask)


def dropout2d(input, p=0.5, training=True):  # noqa: A002 - MindSpore's name
    """``ops.dropout2d(input, p=0.5, training=True)``: zero whole channels of an (N, C, H, W) input
    with probability ``p`` and scale the kept ones by ``1/(1-p)``; the input itself when not
    training."""
    return _channel_dropout(input, p, training, 4, "Dropout2D (ops.dropout2d)")


def dropout3d(input, p=0.5, training=True):  # noqa: A002 - MindSpore's name
    """``ops.dropout3d(input, p=0.5, training=True)``: :func:`dropout2d` for (N, C, D, H, W)."""
    return _channel_dropout(input, p, training, 5, "Dropout3D (ops.dropout3d)")


# -- conv3d -----------------------------------------------------------------------------------------------
def _triple(v, what, minimum=1):
    fn = "Conv3D (ops.conv3d)"
    if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
        v = (int(v),) * 3
    if (not isinstance(v, (tuple, list)) or len(v) not in (3, 5)
            or any(isinstance(i, bool) or not isinstance(i, (int, np.integer)) for i in v)):
        raise TypeError(f"{fn}: {what} must be an int or a tuple of 3 ints, got {v!r}")
    v = tuple(int(i) for i in v[-3:])
    if any(i < minimum for i in v):
        raise ValueError(f"{fn}: {what} must be >= {minimum}, got {v}")
    return v


def conv3d_pads(shape_dhw, kernel, stride, dilation, pad_mode, padding):
    """(front, back) pads of depth, height and width: MindSpore's 'same' (output = ceil(in /
    stride), the odd pad at the back), 'valid' (none) or 'pad' (an int, or six ints: head, tail,
    top, bottom, left, right)."""
    fn = "Conv3D (ops.conv3d)"
    if pad_mode == "pad":
        if isinstance(padding, (int, np.integer)) and not isinstance(padding, bool):
            pads = (int(padding),) * 6
        elif (isinstance(padding, (tuple, list)) and len(padding) in (3, 6)
              and all(isinstance(p, (int, np.integer)) and not isinstance(p, bool) for p in padding)):
            pads = tuple(int(p) for p in padding)
            if len(pads) == 3:
                pads = (pads[0], pads[0], pads[1], pads[1], pads[2], pads[2])
        else:
            raise TypeError(f"{fn}: padding must be an int or a tuple of 3 or 6 ints, got {padding!r}")
        if any(p < 0 for p in pads):
            raise ValueError(f"{fn}: padding must be >= 0, got {padding!r}")
        return tuple(pads[2 * i:2 * i + 2] for i in range(3))
    if padding not in (0, (0,) * 3, (0,) * 6, [0] * 3, [0] * 6):
        raise ValueError(f"{fn}: padding must be 0 when pad_mode is {pad_mode!r}, got {padding!r}")
    if pad_mode == "valid":
        return ((0, 0),) * 3
    out = []
    for n, k, s, d in zip(shape_dhw, kernel, stride, dilation):
        total = max((-(-n // s) - 1) * s + d * (k - 1) + 1 - n, 0)
        out.append((total // 2, total - total // 2))
    return tuple(out)


def conv3d(input, weight, bias=None, stride=1, pad_mode="valid", padding=0, dilation=1, groups=1):  # noqa: A002
    """``ops.conv3d(input, weight, bias=None, stride=1, pad_mode='valid', padding=0, dilation=1,
    groups=1)``: 3-D convolution of (N, C_in, D, H, W) ``input`` with (C_out, C_in/groups, kd, kh,
    kw) ``weight``, plus ``bias`` (C_out,) (see the module docstring for how it is computed)."""
    fn = "Conv3D (ops.conv3d)"
    if not is_tensorlike(input) or not is_tensorlike(weight):
        raise TypeError(f"{fn}: input and weight must be Tensors")
    if input.ndim != 5 or weight.ndim != 5:
        raise ValueError(f"{fn}: input and weight must be 5-D ((N, C_in, D, H, W) and (C_out, C_in/groups, "
                         f"kd, kh, kw)), got shapes {tuple(input.shape)} and {tuple(weight.shape)}")
    if pad_mode not in ("same", "valid", "pad"):
        raise ValueError(f"{fn}: pad_mode must be 'same', 'valid' or 'pad', got {pad_mode!r}")
    if isinstance(groups, bool) or not isinstance(groups, (int, np.integer)) or groups < 1:
        raise ValueError(f"{fn}: groups must be a positive int, got {groups!r}")
    stride, dilation = _triple(stride, "stride"), _triple(dilation, "dilation")
    n, c, d, h, w = input.shape
    o, ci, kd, kh, kw = weight.shape
    if c != ci * groups:
        raise ValueError(f"{fn}: input channels ({c}) must equal weight.shape[1] * groups ({ci} * {groups}); "
                         f"shapes {tuple(input.shape)} and {tuple(weight.shape)}")
    (pd0, pd1), hw_top_bottom, hw_left_right = conv3d_pads((d, h, w), (kd, kh, kw), stride, dilation, pad_mode, padding)
    dp = d + pd0 + pd1
    span = dilation[0] * (kd - 1) + 1
    if dp < span:
        raise ValueError(f"{fn}: the padded depth ({dp}) is smaller than the dilated kernel depth ({span}); "
                         f"shapes {tuple(input.shape)} and {tuple(weight.shape)}")
    d_out = (dp - span) // stride[0] + 1
    x = input
    if pd0 or pd1:
        x = pad(x, (0, 0, 0, 0, pd0, pd1))  # depth only: conv2d pads height and width itself
    total = None
    for t in range(kd):
        rows = Tensor(np.arange(d_out, dtype=np.int64) * stride[0] + t * dilation[0])
        xt = bind(_R["gather"], x, rows, axis=2)                                  # (N, C, D_out, H, W)
        xt = bind(_R["reshape"], bind(_R["transpose"], xt, perm=(0, 2, 1, 3, 4)), shape=(n * d_out, c, h, w))
        wt = bind(_R["reshape"], bind(_R["slice"], weight, begin=(0, 0, t, 0, 0), size=(o, ci, 1, kh, kw)),
                  shape=(o, ci, kh, kw))
        yt = bind(_R["conv2d"], xt, wt, stride=stride[1:], pad_mode="pad",
                  padding=tuple(hw_top_bottom) + tuple(hw_left_right), dilation=dilation[1:], groups=groups)
        total = yt if total is None else bind(_R["add"], total, yt)
    ho, wo = total.shape[2], total.shape[3]
    y = bind(_R["transpose"], bind(_R["reshape"], total, shape=(n, d_out, o, ho, wo)), perm=(0, 2, 1, 3, 4))
    if bias is not None:
        y = bind(_R["add"], y, bind(_R["reshape"], bias, shape=(1, o, 1, 1, 1)))
    return y


class Conv3D:
    """``ops.Conv3D(out_channel, kernel_size, mode=1, pad_mode='valid', pad=0, stride=1, dilation=1,
    group=1, data_format='NCDHW')(x, weight, bias=None)``: :func:`conv3d` as a Primitive; the
    weight's shape must agree with ``out_channel`` and ``kernel_size``."""

    def __init__(self, out_channel, kernel_size, mode=1, pad_mode="valid", pad=0, stride=1, dilation=1, group=1,
                 data_format="NCDHW"):
        if isinstance(out_channel, bool) or not isinstance(out_channel, int) or out_channel < 1:
            raise ValueError(f"Conv3D: out_channel must be a positive int, got {out_channel!r}")
        if data_format != "NCDHW":
            raise ValueError(f"Conv3D: data_format must be 'NCDHW', got {data_format!r}")
        self.out_channel, self.kernel_size = out_channel, _triple(kernel_size, "kernel_size")
        self.mode, self.pad_mode, self.pad = mode, pad_mode, pad
        self.stride, self.dilation, self.group = stride, dilation, group

    def __call__(self, x, weight, bias=None):
        if tuple(weight.shape[:1]) + tuple(weight.shape[2:]) != (self.out_channel,) + self.kernel_size:
            raise ValueError(f"Conv3D: weight shape {tuple(weight.shape)} does not match out_channel "
                             f"{self.out_channel} and kernel_size {self.kernel_size}")
        return conv3d(x, weight, bias, stride=self.stride, pad_mode=self.pad_mode, padding=self.pad,
                      dilation=self.dilation, groups=self.group)
