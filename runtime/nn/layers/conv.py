"""2-D convolution layer (``nn.Conv2d``), MindSpore 2.x signature and defaults.

Example:
    >>> import runtime as ms
    >>> from runtime import nn
    >>> conv = nn.Conv2d(1, 6, 5, pad_mode="valid")
    >>> conv(ms.ops.ones((2, 1, 32, 32))).shape
    (2, 6, 28, 28)
"""
from __future__ import annotations

import math

from graph.dtypes import as_dtype, float32

from ... import ops
from ...common.initializer import HeUniform, Uniform, initializer
from ...parameter import Parameter
from ..cell import Cell
from .basic import _check_bool, _check_int

__all__ = ["Conv2d"]

_PAD_MODES = ("same", "valid", "pad")


def _pair(cls_name, name, v, minimum=1):
    if isinstance(v, int) and not isinstance(v, bool):
        v = (v, v)
    if (not isinstance(v, (tuple, list)) or len(v) not in (2, 4)
            or any(isinstance(i, bool) or not isinstance(i, int) for i in v)):
        raise TypeError(f"{cls_name}: {name} must be an int or a tuple of 2 ints, got {v!r}")
    v = tuple(v[-2:])
    if any(i < minimum for i in v):
        raise ValueError(f"{cls_name}: {name} must be >= {minimum}, got {v}")
    return v


def _padding(cls_name, pad_mode, padding):
    if isinstance(padding, int) and not isinstance(padding, bool):
        pads = (padding,) * 4
    elif isinstance(padding, (tuple, list)) and len(padding) in (2, 4) and all(
            isinstance(p, int) and not isinstance(p, bool) for p in padding):
        pads = tuple(padding) if len(padding) == 4 else (padding[0], padding[0], padding[1], padding[1])
    else:
        raise TypeError(f"{cls_name}: padding must be an int or a tuple of 2 or 4 ints "
                        f"(top, bottom, left, right), got {padding!r}")
    if any(p < 0 for p in pads):
        raise ValueError(f"{cls_name}: padding must be >= 0, got {padding!r}")
    if pad_mode != "pad" and any(pads):
        raise ValueError(f"{cls_name}: padding must be 0 when pad_mode is {pad_mode!r}, got {padding!r}; "
                         "use pad_mode='pad' for explicit padding")
    return padding if isinstance(padding, int) else pads


class Conv2d(Cell):
    """2-D convolution over NCHW input; weight (out_channels, in_channels/group, kh, kw).

    ``pad_mode``: 'same' (output H = ceil(H/stride)), 'valid' (no padding) or 'pad' (explicit
    ``padding``: int or (top, bottom, left, right)). Default init (MindSpore 2.x): weight
    HeUniform(negative_slope=sqrt(5)), bias Uniform(1/sqrt(fan_in)).
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same", padding=0,
                 dilation=1, group=1, has_bias=False, weight_init=None, bias_init=None,
                 data_format="NCHW", dtype=float32):
        super().__init__()
        name = "Conv2d"
        self.in_channels = _check_int(name, "in_channels", in_channels)
        self.out_channels = _check_int(name, "out_channels", out_channels)
        self.kernel_size = _pair(name, "kernel_size", kernel_size)
        self.stride = _pair(name, "stride", stride)
        self.dilation = _pair(name, "dilation", dilation)
        self.group = _check_int(name, "group", group)
        if not isinstance(pad_mode, str) or pad_mode.lower() not in _PAD_MODES:
            raise ValueError(f"{name}: pad_mode must be one of {list(_PAD_MODES)}, got {pad_mode!r}")
        self.pad_mode = pad_mode.lower()
        self.padding = _padding(name, self.pad_mode, padding)
        if in_channels % group or out_channels % group:
            raise ValueError(f"{name}: in_channels ({in_channels}) and out_channels ({out_channels}) "
                             f"must both be divisible by group ({group})")
        if not isinstance(data_format, str) or data_format.upper() not in ("NCHW", "NHWC"):
            raise ValueError(f"{name}: data_format must be 'NCHW' or 'NHWC', got {data_format!r}")
        self.data_format = data_format.upper()
        if self.data_format != "NCHW":
            raise ValueError(f"{name}: data_format 'NHWC' is not supported; use 'NCHW'")
        self.has_bias = _check_bool(name, "has_bias", has_bias)
        dtype = as_dtype(dtype)
        shape = (out_channels, in_channels // group) + self.kernel_size
        self.weight_init = weight_init
        self.bias_init = bias_init
        if weight_init is None:
            weight_init = HeUniform(math.sqrt(5))
        self.weight = Parameter(initializer(weight_init, shape, dtype), name="weight")
        self.bias = None
        if has_bias:
            if bias_init is None:
                fan_in = shape[1] * shape[2] * shape[3]
                bias_init = Uniform(1.0 / math.sqrt(fan_in)) if fan_in else "zeros"
            self.bias = Parameter(initializer(bias_init, (out_channels,), dtype), name="bias")
        self._pads = self.padding if isinstance(self.padding, tuple) else (self.padding,) * 4
        self._bias_add = ops.BiasAdd()
        self._conv = ops.Conv2D(stride=self.stride, pad_mode=self.pad_mode, padding=self._pads,
                                dilation=self.dilation, groups=self.group)

    def construct(self, x):
        y = self._conv(x, self.weight)
        if self.has_bias:
            y = self._bias_add(y, self.bias)
        return y

    def extend_repr(self):
        return (f"input_channels={self.in_channels}, output_channels={self.out_channels}, "
                f"kernel_size={self.kernel_size}, stride={self.stride}, pad_mode={self.pad_mode}, "
                f"padding={self.padding}, dilation={self.dilation}, group={self.group}, "
                f"has_bias={self.has_bias}, weight_init={self.weight_init}, bias_init={self.bias_init}, "
                f"format={self.data_format}")
