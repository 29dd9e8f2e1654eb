"""Convolution layers (``nn.Conv2d``, ``nn.Conv2dTranspose``, ``nn.Conv3d``), MindSpore 2.x signatures and
defaults.

Example:
    >>> import runtime as ms
    >>> from runtime import nn
    >>> conv = nn.Conv2d(1, 6, 5, pad_mode="valid")
    >>> conv(ms.ops.ones((2, 1, 32, 32))).shape
    (2, 6, 28, 28)
    >>> nn.Conv2dTranspose(6, 1, 5, pad_mode="valid")(conv(ms.ops.ones((2, 1, 32, 32)))).shape
    (2, 1, 32, 32)
"""
from __future__ import annotations

import math

from graph.dtypes import as_dtype, float32

from ... import ops
from ...ops._generated import PRIMITIVES as _REGISTRY_PRIMS  # registry attribute names (stride, padding...)
from ...common.initializer import HeUniform, Uniform, initializer
from ...ops.volume_func import conv3d_pads
from ...parameter import Parameter
from ..cell import Cell
from .basic import _check_bool, _check_int

__all__ = ["Conv2d", "Conv2dTranspose", "Conv3d"]

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


def _weight_and_bias(shape, bias_size, has_bias, weight_init, bias_init, dtype):
    """MindSpore 2.x defaults: weight HeUniform(negative_slope=sqrt(5)), bias Uniform(1/sqrt(fan_in))
    with fan_in = shape[1] * the kernel's size, of the weight as stored (1-D and 2-D kernels)."""
    if weight_init is None:
        weight_init = HeUniform(math.sqrt(5))
    weight = Parameter(initializer(weight_init, shape, dtype), name="weight")
    if not has_bias:
        return weight, None
    if bias_init is None:
        fan_in = math.prod(shape[1:])
        bias_init = Uniform(1.0 / math.sqrt(fan_in)) if fan_in else "zeros"
    return weight, Parameter(initializer(bias_init, (bias_size,), dtype), name="bias")


def transposed_length(length, k, s, d, pad_mode, pad_total):
    """A transposed convolution's output length along one axis (MindSpore's rule, ``dk =
    d*(k-1)+1``): 'same' ``length*s``; 'valid' ``length*s + max(dk - s, 0)``; 'pad'
    ``length*s - pad_total + dk - s``."""
    dk = d * (k - 1) + 1
    if pad_mode == "same":
        return length * s
    if pad_mode == "valid":
        return length * s + max(dk - s, 0)
    return length * s - pad_total + dk - s


def _check_common(name, in_channels, out_channels, group, pad_mode):
    _check_int(name, "in_channels", in_channels)
    _check_int(name, "out_channels", out_channels)
    _check_int(name, "group", group)
    if not isinstance(pad_mode, str) or pad_mode.lower() not in _PAD_MODES:
        raise ValueError(f"{name}: pad_mode must be one of {list(_PAD_MODES)}, got {pad_mode!r}")
    if in_channels % group or out_channels % group:
        raise ValueError(f"{name}: in_channels ({in_channels}) and out_channels ({out_channels}) "
                         f"must both be divisible by group ({group})")
    return pad_mode.lower()


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
        self.pad_mode = _check_common(name, in_channels, out_channels, group, pad_mode)
        self.in_channels, self.out_channels, self.group = in_channels, out_channels, group
        self.kernel_size = _pair(name, "kernel_size", kernel_size)
        self.stride = _pair(name, "stride", stride)
        self.dilation = _pair(name, "dilation", dilation)
        self.padding = _padding(name, self.pad_mode, padding)
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
        self.weight, self.bias = _weight_and_bias(shape, out_channels, has_bias, weight_init, bias_init, dtype)
        self._pads = self.padding if isinstance(self.padding, tuple) else (self.padding,) * 4
        self._bias_add = ops.BiasAdd()
        self._conv = _REGISTRY_PRIMS["Conv2D"](stride=self.stride, pad_mode=self.pad_mode, padding=self._pads,
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


class Conv2dTranspose(Cell):
    """2-D transposed convolution (the gradient of ``Conv2d`` with respect to its input) over NCHW
    input; weight (in_channels, out_channels/group, kh, kw), as MindSpore stores it.

    Output size per spatial axis (MindSpore's rule, ``dk = dilation*(k-1)+1``): 'same'
    ``H*stride``; 'valid' ``H*stride + max(dk - stride, 0)``; 'pad' ``H*stride - (top+bottom) +
    dk - stride``. A non-zero ``output_padding`` (only with pad_mode='pad', each value below
    ``max(stride, dilation)``) appends that many rows/columns of zeros at the bottom/right after
    the bias, as MindSpore does. Default init as ``Conv2d``.

    Example:
        >>> import runtime as ms
        >>> from runtime import nn
        >>> up = nn.Conv2dTranspose(3, 8, 4, stride=2, pad_mode="pad", padding=1, has_bias=True)
        >>> up(ms.ops.ones((1, 3, 16, 16))).shape
        (1, 8, 32, 32)
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same", padding=0,
                 output_padding=0, dilation=1, group=1, has_bias=False, weight_init=None, bias_init=None,
                 dtype=float32):
        super().__init__()
        name = "Conv2dTranspose"
        self.pad_mode = _check_common(name, in_channels, out_channels, group, pad_mode)
        self.in_channels, self.out_channels, self.group = in_channels, out_channels, group
        self.kernel_size = _pair(name, "kernel_size", kernel_size)
        self.stride = _pair(name, "stride", stride)
        self.dilation = _pair(name, "dilation", dilation)
        self.padding = _padding(name, self.pad_mode, padding)
        self.output_padding = _pair(name, "output_padding", output_padding, minimum=0)
        for axis, (extra, s, d) in enumerate(zip(self.output_padding, self.stride, self.dilation)):
            if extra >= max(s, d):
                raise ValueError(f"{name}: output_padding[{axis}] must be in range of [0, max(stride, dilation)) "
                                 f"= [0, {max(s, d)}), got {extra}")
        if any(self.output_padding) and self.pad_mode != "pad":
            raise ValueError(f"{name}: when output_padding is not zero, pad_mode must be 'pad', got {self.pad_mode!r}")
        self.has_bias = _check_bool(name, "has_bias", has_bias)
        self.weight_init, self.bias_init = weight_init, bias_init
        shape = (in_channels, out_channels // group) + self.kernel_size
        self.weight, self.bias = _weight_and_bias(shape, out_channels, has_bias, weight_init, bias_init,
                                                  as_dtype(dtype))
        self._pads = self.padding if isinstance(self.padding, tuple) else (self.padding,) * 4
        self._bias_add = ops.BiasAdd()

    def _output_length(self, length, axis):
        return transposed_length(length, self.kernel_size[axis], self.stride[axis], self.dilation[axis],
                                 self.pad_mode, self._pads[2 * axis] + self._pads[2 * axis + 1])

    def construct(self, x):
        n, _, h, w = x.shape
        size = (n, self.out_channels, self._output_length(h, 0), self._output_length(w, 1))
        y = ops.conv2d_backprop_input(x, self.weight, input_size=size, stride=self.stride, pad_mode=self.pad_mode,
                                      padding=self._pads, dilation=self.dilation, groups=self.group)
        if self.has_bias:
            y = self._bias_add(y, self.bias)
        if any(self.output_padding):
            y = ops.pad(y, (0, self.output_padding[1], 0, self.output_padding[0]))
        return y

    def extend_repr(self):
        return (f"input_channels={self.in_channels}, output_channels={self.out_channels}, "
                f"kernel_size={self.kernel_size}, stride={self.stride}, pad_mode={self.pad_mode}, "
                f"padding={self.padding}, output_padding={self.output_padding}, dilation={self.dilation}, "
                f"group={self.group}, has_bias={self.has_bias}, weight_init={self.weight_init}, "
                f"bias_init={self.bias_init}")


def _triple(cls_name, name, v, minimum=1):
    if isinstance(v, int) and not isinstance(v, bool):
        v = (v,) * 3
    if (not isinstance(v, (tuple, list)) or len(v) != 3
            or any(isinstance(i, bool) or not isinstance(i, int) for i in v)):
        raise TypeError(f"{cls_name}: {name} must be an int or a tuple of 3 ints, got {v!r}")
    if any(i < minimum for i in v):
        raise ValueError(f"{cls_name}: {name} must be >= {minimum}, got {tuple(v)}")
    return tuple(v)


class Conv3d(Cell):
    """3-D convolution over NCDHW input; weight (out_channels, in_channels/group, kd, kh, kw)
    (MindSpore 2.x's signature and initialisers). ``padding``: an int, or six ints (head, tail,
    top, bottom, left, right) with ``pad_mode='pad'``. Computed by :func:`ops.conv3d`.

    Example:
        >>> import runtime as ms
        >>> from runtime import nn
        >>> nn.Conv3d(3, 8, 3)(ms.ops.ones((2, 3, 4, 8, 8))).shape
        (2, 8, 4, 8, 8)
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same", padding=0,
                 dilation=1, group=1, has_bias=False, weight_init=None, bias_init=None,
                 data_format="NCDHW", dtype=float32):
        super().__init__()
        name = "Conv3d"
        self.pad_mode = _check_common(name, in_channels, out_channels, group, pad_mode)
        self.in_channels, self.out_channels, self.group = in_channels, out_channels, group
        self.kernel_size = _triple(name, "kernel_size", kernel_size)
        self.stride = _triple(name, "stride", stride)
        self.dilation = _triple(name, "dilation", dilation)
        if data_format != "NCDHW":
            raise ValueError(f"{name}: data_format must be 'NCDHW', got {data_format!r}")
        self.data_format = data_format
        # (checked here, so a bad padding fails at construction as in MindSpore)
        conv3d_pads((1, 1, 1), self.kernel_size, self.stride, self.dilation, self.pad_mode, padding)
        self.padding = padding
        self.has_bias = _check_bool(name, "has_bias", has_bias)
        shape = (out_channels, in_channels // group) + self.kernel_size
        self.weight_init, self.bias_init = weight_init, bias_init
        self.weight, self.bias = _weight_and_bias(shape, out_channels, has_bias, weight_init, bias_init,
                                                  as_dtype(dtype))

    def construct(self, x):
        return ops.conv3d(x, self.weight, self.bias if self.has_bias else None, stride=self.stride,
                          pad_mode=self.pad_mode, padding=self.padding, dilation=self.dilation, groups=self.group)

    def extend_repr(self):
        return (f"input_channels={self.in_channels}, output_channels={self.out_channels}, "
                f"kernel_size={self.kernel_size}, stride={self.stride}, pad_mode={self.pad_mode}, "
                f"padding={self.padding}, dilation={self.dilation}, group={self.group}, "
                f"has_bias={self.has_bias}, weight_init={self.weight_init}, bias_init={self.bias_init}")
