"""1-D convolution and pooling, adaptive pooling, group and instance normalisation, up-sampling
and padding layers (``mindspore.nn``), each composed from registered ops (conv2d and the 2-D
pools on a height-1 image, reductions, matmul, gather), so all modes and both autodiffs agree.

Example:
    >>> import numpy as np
    >>> from runtime import nn, Tensor
    >>> nn.AdaptiveAvgPool2d(1)(Tensor(np.arange(8, dtype=np.float32).reshape(1, 2, 2, 2))).asnumpy().ravel()
    array([1.5, 5.5], dtype=float32)
    >>> nn.Upsample(scale_factor=2.0)(Tensor(np.ones((1, 1, 2, 3), np.float32))).shape
    (1, 1, 4, 6)
"""
from __future__ import annotations

import math

import numpy as np

from graph.dtypes import as_dtype, float32

from ... import ops
from ...ops.nn_func import interpolate
from ...common.initializer import HeUniform, Uniform, initializer
from ...parameter import Parameter
from ...tensor import Tensor
from ..cell import Cell
from .basic import _check_bool, _check_int

__all__ = ["Conv1d", "MaxPool1d", "AvgPool1d", "AdaptiveAvgPool2d", "AdaptiveMaxPool2d", "GroupNorm",
           "InstanceNorm2d", "Upsample", "Pad", "ZeroPad2d", "ConstantPad2d", "ReflectionPad2d", "ReplicationPad2d"]


def _int1(cls_name, name, v, minimum=1):
    if isinstance(v, (tuple, list)) and len(v) == 1:
        v = v[0]
    return _check_int(cls_name, name, v, minimum)


class Conv1d(Cell):
    """1-D convolution over (N, C, L) input; weight (out_channels, in_channels/group, kernel_size);
    pad_mode 'same', 'valid' or 'pad' (``padding`` on both ends)."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same", padding=0, dilation=1,
                 group=1, has_bias=False, weight_init=None, bias_init=None, dtype=float32):
        super().__init__()
        name = "Conv1d"
        self.in_channels = _check_int(name, "in_channels", in_channels)
        self.out_channels = _check_int(name, "out_channels", out_channels)
        self.kernel_size = _int1(name, "kernel_size", kernel_size)
        self.stride = _int1(name, "stride", stride)
        self.dilation = _int1(name, "dilation", dilation)
        self.group = _check_int(name, "group", group)
        if pad_mode not in ("same", "valid", "pad"):
            raise ValueError(f"{name}: pad_mode must be 'same', 'valid' or 'pad', got {pad_mode!r}")
        self.pad_mode = pad_mode
        self.padding = _check_int(name, "padding", padding, 0)
        if self.padding and pad_mode != "pad":
            raise ValueError(f"{name}: padding must be 0 when pad_mode is {pad_mode!r}; use pad_mode='pad'")
        if in_channels % group or out_channels % group:
            raise ValueError(f"{name}: in_channels and out_channels must be divisible by group ({group})")
        self.has_bias = _check_bool(name, "has_bias", has_bias)
        dtype = as_dtype(dtype)
        shape = (out_channels, in_channels // group, self.kernel_size)
        self.weight = Parameter(initializer(HeUniform(math.sqrt(5)) if weight_init is None else weight_init, shape,
                                            dtype), name="weight")
        self.bias = None
        if has_bias:
            fan_in = shape[1] * shape[2]
            init = bias_init if bias_init is not None else (Uniform(1.0 / math.sqrt(fan_in)) if fan_in else "zeros")
            self.bias = Parameter(initializer(init, (out_channels,), dtype), name="bias")

    def construct(self, x):
        w = ops.expand_dims(self.weight, 2)  # (O, C/g, 1, K)
        y = ops.conv2d(ops.expand_dims(x, 2), w, None, (1, self.stride), self.pad_mode,
                       (0, 0, self.padding, self.padding), (1, self.dilation), self.group)
        y = ops.squeeze(y, 2)
        if self.has_bias:
            y = ops.add(y, ops.reshape(self.bias, (1, -1, 1)))
        return y

    def extend_repr(self):
        return (f"input_channels={self.in_channels}, output_channels={self.out_channels}, "
                f"kernel_size={self.kernel_size}, stride={self.stride}, pad_mode={self.pad_mode}, "
                f"padding={self.padding}, dilation={self.dilation}, group={self.group}, has_bias={self.has_bias}")


class _Pool1d(Cell):
    def __init__(self, name, kernel_size, stride, pad_mode, padding):
        super().__init__()
        self.kernel_size = _int1(name, "kernel_size", kernel_size)
        self.stride = _int1(name, "stride", stride)
        if pad_mode not in ("valid", "same", "pad"):
            raise ValueError(f"{name}: pad_mode must be 'valid', 'same' or 'pad', got {pad_mode!r}")
        self.pad_mode = pad_mode
        self.padding = _check_int(name, "padding", padding, 0)
        if self.padding and pad_mode != "pad":
            raise ValueError(f"{name}: padding={padding} needs pad_mode='pad'")

    def _pool(self, x, functional, primitive):
        """The 2-D pool on (N, C, 1, L): the functional form pads, the Primitive does 'same'/'valid'."""
        h = ops.expand_dims(x, 2)
        k, s = (1, self.kernel_size), (1, self.stride)
        if self.pad_mode == "pad":
            out = functional(h, k, s, (0, self.padding))
        else:
            out = primitive(kernel_size=k, stride=s, pad_mode=self.pad_mode)(h)
        return ops.squeeze(out, 2)


class MaxPool1d(_Pool1d):
    """Max over windows of (N, C, L) input."""

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        super().__init__("MaxPool1d", kernel_size, stride, pad_mode, padding)
        if dilation != 1 or return_indices or ceil_mode:
            raise ValueError("MaxPool1d: dilation, return_indices and ceil_mode are not supported")

    def construct(self, x):
        return self._pool(x, ops.max_pool2d, ops.MaxPool)


class AvgPool1d(_Pool1d):
    """Mean over windows of (N, C, L) input (padding zeros count in the mean)."""

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, ceil_mode=False, count_include_pad=True):
        super().__init__("AvgPool1d", kernel_size, stride, pad_mode, padding)
        if ceil_mode or (not count_include_pad and padding):
            raise ValueError("AvgPool1d: ceil_mode and count_include_pad=False with padding are not supported")

    def construct(self, x):
        return self._pool(x, ops.avg_pool2d, ops.AvgPool)


def _out_hw(cls_name, output_size, h, w):
    if isinstance(output_size, int) and not isinstance(output_size, bool):
        output_size = (output_size, output_size)
    if not (isinstance(output_size, (tuple, list)) and len(output_size) == 2):
        raise ValueError(f"{cls_name}: output_size must be an int or (height, width), got {output_size!r}")
    oh = h if output_size[0] is None else int(output_size[0])
    ow = w if output_size[1] is None else int(output_size[1])
    if oh <= 0 or ow <= 0:
        raise ValueError(f"{cls_name}: output_size must be positive, got {output_size!r}")
    return oh, ow


def _bins(n_in, n_out):
    """PyTorch/MindSpore adaptive bins: [floor(i*n/o), ceil((i+1)*n/o))."""
    return [(i * n_in // n_out, -(-(i + 1) * n_in // n_out)) for i in range(n_out)]


def _averaging_matrix(n_in, n_out, like, transpose=False):
    """(n_out, n_in) bin-averaging matrix as a Tensor of ``like``'s dtype on its device (one
    framework call, so under capture it is a graph constant)."""
    a = np.zeros((n_out, n_in), np.float32)
    for i, (s, e) in enumerate(_bins(n_in, n_out)):
        a[i, s:e] = 1.0 / (e - s)
    return Tensor._placed((a.T if transpose else a).astype(like.dtype.np), like=like)


class AdaptiveAvgPool2d(Cell):
    """Mean over adaptive bins so that the output is ``output_size`` (ints; None keeps that axis)."""

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def construct(self, x):
        h, w = x.shape[-2], x.shape[-1]
        oh, ow = _out_hw("AdaptiveAvgPool2d", self.output_size, h, w)
        if (oh, ow) == (1, 1):
            return ops.mean(x, (-2, -1), True)
        ah = _averaging_matrix(h, oh, x)
        aw = _averaging_matrix(w, ow, x, transpose=True)
        return ops.matmul(ah, ops.matmul(x, aw))  # (oh, h) @ (..., h, w) @ (w, ow)


class AdaptiveMaxPool2d(Cell):
    """Max over adaptive bins so that the output is ``output_size``."""

    def __init__(self, output_size, return_indices=False):
        super().__init__()
        if return_indices:
            raise ValueError("AdaptiveMaxPool2d: return_indices=True is not supported")
        self.output_size = output_size

    def construct(self, x):
        h, w = x.shape[-2], x.shape[-1]
        oh, ow = _out_hw("AdaptiveMaxPool2d", self.output_size, h, w)
        rows = []
        for hs, he in _bins(h, oh):
            cols = [ops.amax(x[..., hs:he, ws:we], (-2, -1)) for ws, we in _bins(w, ow)]
            rows.append(ops.stack(cols, -1))
        return ops.stack(rows, -2)


def _affine_params(name, affine, channels, gamma_init, beta_init, dtype=float32):
    if not affine:
        return None, None
    return (Parameter(initializer(gamma_init, (channels,), as_dtype(dtype)), name="gamma"),
            Parameter(initializer(beta_init, (channels,), as_dtype(dtype)), name="beta"))


def _normalise(x, axes, eps):
    mean = ops.mean(x, axes, True)
    d = ops.sub(x, mean)
    var = ops.mean(ops.square(d), axes, True)
    return ops.mul(d, ops.rsqrt(ops.add(var, eps)))


class GroupNorm(Cell):
    """Normalise each group of ``num_channels // num_groups`` channels over its channels and
    spatial positions, per sample; then scale by gamma and shift by beta (per channel)."""

    def __init__(self, num_groups, num_channels, eps=1e-05, affine=True, gamma_init="ones", beta_init="zeros",
                 dtype=float32):
        super().__init__()
        self.num_groups = _check_int("GroupNorm", "num_groups", num_groups)
        self.num_channels = _check_int("GroupNorm", "num_channels", num_channels)
        if num_channels % num_groups:
            raise ValueError(f"GroupNorm: num_channels ({num_channels}) must be divisible by num_groups ({num_groups})")
        self.eps = float(eps)
        self.affine = _check_bool("GroupNorm", "affine", affine)
        self.gamma, self.beta = _affine_params("GroupNorm", affine, num_channels, gamma_init, beta_init, dtype)

    def construct(self, x):
        shape = x.shape
        if len(shape) < 2 or shape[1] != self.num_channels:
            raise ValueError(f"GroupNorm: expected input (N, {self.num_channels}, ...), got shape {tuple(shape)}")
        g = ops.reshape(x, (shape[0], self.num_groups, -1))
        y = ops.reshape(_normalise(g, 2, self.eps), shape)
        if self.affine:
            view = (1, -1) + (1,) * (len(shape) - 2)
            y = ops.add(ops.mul(y, ops.reshape(self.gamma, view)), ops.reshape(self.beta, view))
        return y


class InstanceNorm2d(Cell):
    """Normalise each channel of each sample over its H x W positions (batch statistics), then
    scale by gamma and shift by beta."""

    def __init__(self, num_features, eps=1e-05, momentum=0.1, affine=True, gamma_init="ones", beta_init="zeros"):
        super().__init__()
        self.num_features = _check_int("InstanceNorm2d", "num_features", num_features)
        self.eps, self.momentum = float(eps), float(momentum)
        self.affine = _check_bool("InstanceNorm2d", "affine", affine)
        self.gamma, self.beta = _affine_params("InstanceNorm2d", affine, num_features, gamma_init, beta_init)

    def construct(self, x):
        if x.ndim != 4 or x.shape[1] != self.num_features:
            raise ValueError(f"InstanceNorm2d: expected input (N, {self.num_features}, H, W), got shape {tuple(x.shape)}")
        y = _normalise(x, (2, 3), self.eps)
        if self.affine:
            y = ops.add(ops.mul(y, ops.reshape(self.gamma, (1, -1, 1, 1))), ops.reshape(self.beta, (1, -1, 1, 1)))
        return y


class Upsample(Cell):
    """:func:`interpolate` as a Cell."""

    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=None, recompute_scale_factor=None):
        super().__init__()
        self.size, self.scale_factor, self.mode, self.align_corners = size, scale_factor, mode, align_corners

    def construct(self, x):
        return interpolate(x, self.size, self.scale_factor, self.mode, self.align_corners)


class Pad(Cell):
    """MindSpore's ``nn.Pad(paddings, mode="CONSTANT")``: ``paddings`` holds one (before, after)
    pair per input axis; modes ``"CONSTANT"`` (zeros), ``"REFLECT"`` (mirror without the edge,
    pads smaller than the axis) and ``"SYMMETRIC"`` (mirror with the edge, pads at most the axis).

    Example:
        >>> import numpy as np, runtime as ms
        >>> from runtime import nn
        >>> nn.Pad(((0, 0), (1, 2)), mode="SYMMETRIC")(ms.Tensor(np.array([[1., 2., 3.]]))).asnumpy().tolist()
        [[1.0, 1.0, 2.0, 3.0, 3.0, 2.0]]
    """

    _MODES = {"CONSTANT": "constant", "REFLECT": "reflect", "SYMMETRIC": "symmetric"}

    def __init__(self, paddings, mode="CONSTANT"):
        super().__init__()
        if not isinstance(paddings, (tuple, list)) or not paddings or not all(
                isinstance(p, (tuple, list)) and len(p) == 2 and all(isinstance(v, int) and not isinstance(v, bool)
                                                                     and v >= 0 for v in p) for p in paddings):
            raise ValueError(f"Pad: paddings must be a tuple of (before, after) pairs of non-negative ints, "
                             f"got {paddings!r}")
        if not isinstance(mode, str) or mode.upper() not in self._MODES:
            raise ValueError(f"Pad: mode must be one of {list(self._MODES)}, got {mode!r}")
        self.paddings = tuple(tuple(p) for p in paddings)
        self.mode = mode.upper()

    def construct(self, x):
        if len(self.paddings) != x.ndim:
            raise ValueError(f"Pad: {len(self.paddings)} (before, after) pairs for an input of shape "
                             f"{tuple(x.shape)}; give one pair per axis")
        flat = tuple(v for pair in reversed(self.paddings) for v in pair)
        return ops.pad(x, flat, self._MODES[self.mode])


def _pad4(name, padding):
    if isinstance(padding, int) and not isinstance(padding, bool):
        return (padding,) * 4
    if isinstance(padding, (tuple, list)) and len(padding) == 4:
        return tuple(int(p) for p in padding)
    raise ValueError(f"{name}: padding must be an int or (left, right, top, bottom), got {padding!r}")


class _Pad2d(Cell):
    _mode = "constant"

    def __init__(self, padding, value=0.0):
        super().__init__()
        self.padding = _pad4(type(self).__name__, padding)
        self.value = value

    def construct(self, x):
        return ops.pad(x, self.padding, self._mode, self.value if self._mode == "constant" else None)


class ZeroPad2d(_Pad2d):
    """Zeros around the last two axes: padding int or (left, right, top, bottom)."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)


class ConstantPad2d(_Pad2d):
    """``value`` around the last two axes."""


class ReflectionPad2d(_Pad2d):
    """Mirror (without the edge) around the last two axes."""
    _mode = "reflect"

    def __init__(self, padding):
        super().__init__(padding)


class ReplicationPad2d(_Pad2d):
    """Repeat the edge around the last two axes."""
    _mode = "replicate"

    def __init__(self, padding):
        super().__init__(padding)
