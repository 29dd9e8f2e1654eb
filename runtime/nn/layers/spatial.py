"""1-D convolution (and transposed convolution) and pooling, adaptive pooling, group and instance
normalisation, up-sampling and padding layers (``mindspore.nn``), each composed from registered
ops through the functional API (conv2d, its input gradient and the 2-D pools on a height-1 image,
reductions, matmul, gather), so all modes and both autodiffs agree.

Example:
    >>> import numpy as np
    >>> from runtime import nn, Tensor
    >>> nn.AdaptiveAvgPool2d(1)(Tensor(np.arange(8, dtype=np.float32).reshape(1, 2, 2, 2))).asnumpy().ravel()
    array([1.5, 5.5], dtype=float32)
    >>> nn.Upsample(scale_factor=2.0)(Tensor(np.ones((1, 1, 2, 3), np.float32))).shape
    (1, 1, 4, 6)
"""
from __future__ import annotations


from graph.dtypes import as_dtype, float32

from ... import ops
from ...ops._generated import PRIMITIVES as _REGISTRY_PRIMS  # registry attribute names (stride, padding...)
from ...ops.nn_func import interpolate
from ...common.initializer import initializer
from ...parameter import Parameter
from ..cell import Cell
from .basic import _check_bool, _check_int
from .conv import _check_common, _weight_and_bias, transposed_length
from .pooling import _check_max_pool_options

__all__ = ["Conv1d", "Conv1dTranspose", "MaxPool1d", "AvgPool1d", "AdaptiveAvgPool1d", "AdaptiveMaxPool1d",
           "AdaptiveAvgPool2d", "AdaptiveMaxPool2d", "GroupNorm", "InstanceNorm2d", "Upsample", "Pad", "ZeroPad2d",
           "ConstantPad2d", "ReflectionPad2d", "ReplicationPad2d", "PixelShuffle", "PixelUnshuffle"]


def _int1(cls_name, name, v, minimum=1):
    if isinstance(v, (tuple, list)) and len(v) == 1:
        v = v[0]
    return _check_int(cls_name, name, v, minimum)


def _conv1d_options(cell, name, in_channels, out_channels, kernel_size, stride, pad_mode, padding, dilation,
                    group):
    """Checked 1-D convolution options set on ``cell`` (pad_mode as ``Conv2d`` takes it; ``padding``
    on both ends, only with pad_mode 'pad')."""
    cell.pad_mode = _check_common(name, in_channels, out_channels, group, pad_mode)
    cell.in_channels, cell.out_channels, cell.group = in_channels, out_channels, group
    cell.kernel_size = _int1(name, "kernel_size", kernel_size)
    cell.stride = _int1(name, "stride", stride)
    cell.dilation = _int1(name, "dilation", dilation)
    cell.padding = _check_int(name, "padding", padding, 0)
    if cell.padding and cell.pad_mode != "pad":
        raise ValueError(f"{name}: padding must be 0 when pad_mode is {pad_mode!r}; use pad_mode='pad'")


class Conv1d(Cell):
    """1-D convolution over (N, C, L) input; weight (out_channels, in_channels/group, kernel_size);
    pad_mode 'same', 'valid' or 'pad' (``padding`` on both ends)."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same", padding=0, dilation=1,
                 group=1, has_bias=False, weight_init=None, bias_init=None, dtype=float32):
        super().__init__()
        _conv1d_options(self, "Conv1d", in_channels, out_channels, kernel_size, stride, pad_mode, padding,
                        dilation, group)
        self.has_bias = _check_bool("Conv1d", "has_bias", has_bias)
        dtype = as_dtype(dtype)
        shape = (out_channels, in_channels // group, self.kernel_size)
        self.weight, self.bias = _weight_and_bias(shape, out_channels, has_bias, weight_init, bias_init, dtype)

    def construct(self, x):
        return ops.conv1d(x, self.weight, self.bias, self.stride, self.pad_mode, self.padding, self.dilation,
                          self.group)

    def extend_repr(self):
        return (f"input_channels={self.in_channels}, output_channels={self.out_channels}, "
                f"kernel_size={self.kernel_size}, stride={self.stride}, pad_mode={self.pad_mode}, "
                f"padding={self.padding}, dilation={self.dilation}, group={self.group}, has_bias={self.has_bias}")


class Conv1dTranspose(Cell):
    """1-D transposed convolution (the gradient of ``Conv1d`` with respect to its input) over
    (N, C_in, L) input; weight (in_channels, out_channels/group, kernel_size), as MindSpore stores
    it. Output length as ``Conv2dTranspose`` (``dk = dilation*(k-1)+1``): 'same' ``L*stride``;
    'valid' ``L*stride + max(dk - stride, 0)``; 'pad' ``(L-1)*stride - 2*padding + dk``. It is
    ``Conv2dTranspose``'s computation on a height-1 image. Default init as ``Conv1d``.

    Example:
        >>> import runtime as ms
        >>> from runtime import nn
        >>> nn.Conv1dTranspose(4, 2, 3, stride=2, pad_mode="pad", padding=1)(ms.ops.ones((1, 4, 5))).shape
        (1, 2, 9)
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same", padding=0, dilation=1,
                 group=1, has_bias=False, weight_init=None, bias_init=None, dtype=float32):
        super().__init__()
        _conv1d_options(self, "Conv1dTranspose", in_channels, out_channels, kernel_size, stride, pad_mode, padding,
                        dilation, group)
        self.has_bias = _check_bool("Conv1dTranspose", "has_bias", has_bias)
        self.weight_init, self.bias_init = weight_init, bias_init
        dtype = as_dtype(dtype)
        shape = (in_channels, out_channels // group, self.kernel_size)
        self.weight, self.bias = _weight_and_bias(shape, out_channels, has_bias, weight_init, bias_init, dtype)

    def construct(self, x):
        if x.ndim != 3:
            raise ValueError(f"Conv1dTranspose: x must be 3-D (N, C_in, L), got shape {tuple(x.shape)}")
        n, _, length = x.shape
        out_len = transposed_length(length, self.kernel_size, self.stride, self.dilation, self.pad_mode,
                                    2 * self.padding)
        y = ops.conv2d_backprop_input(ops.expand_dims(x, 2), ops.expand_dims(self.weight, 2),
                                      input_size=(n, self.out_channels, 1, out_len), stride=(1, self.stride),
                                      pad_mode=self.pad_mode, padding=(0, 0, self.padding, self.padding),
                                      dilation=(1, self.dilation), groups=self.group)
        y = ops.squeeze(y, 2)
        return ops.bias_add(y, self.bias) if self.has_bias else y

    def extend_repr(self):
        return (f"input_channels={self.in_channels}, output_channels={self.out_channels}, "
                f"kernel_size={self.kernel_size}, stride={self.stride}, pad_mode={self.pad_mode}, "
                f"padding={self.padding}, dilation={self.dilation}, group={self.group}, has_bias={self.has_bias}, "
                f"weight_init={self.weight_init}, bias_init={self.bias_init}")


class _Pool1d(Cell):
    """Shared by MaxPool1d and AvgPool1d: MindSpore's int (or one-int tuple) arguments, pad_mode
    'valid', 'same' or 'pad', and (N, C, L) or unbatched (C, L) input pooled as a height-1 image."""

    _name = "Pool1d"

    def __init__(self, kernel_size, stride, pad_mode, padding):
        super().__init__()
        name = self._name
        self.kernel_size = _int1(name, "kernel_size", kernel_size)
        self.stride = _int1(name, "stride", stride)
        if not isinstance(pad_mode, str) or pad_mode.lower() not in ("valid", "same", "pad"):
            raise ValueError(f"{name}: pad_mode must be 'valid', 'same' or 'pad', got {pad_mode!r}")
        self.pad_mode = pad_mode.lower()
        self.padding = _int1(name, "padding", padding, 0)
        if self.padding and self.pad_mode != "pad":
            raise ValueError(f"{name}: padding={padding} needs pad_mode='pad'")

    def construct(self, x):
        if x.ndim == 2:  # unbatched (C, L)
            out = self._pool(ops.expand_dims(x, 0))
            return tuple(ops.squeeze(o, 0) for o in out) if isinstance(out, tuple) else ops.squeeze(out, 0)
        if x.ndim != 3:
            raise ValueError(f"{self._name}: x must be 2-D (C, L) or 3-D (N, C, L), got shape {tuple(x.shape)}")
        return self._pool(x)

    def _primitive_pool(self, x, primitive):
        """'same'/'valid' through the 2-D Primitive on (N, C, 1, L)."""
        out = primitive(kernel_size=(1, self.kernel_size), stride=(1, self.stride), pad_mode=self.pad_mode)(
            ops.expand_dims(x, 2))
        return ops.squeeze(out, 2)


class MaxPool1d(_Pool1d):
    """Max over windows of (N, C, L) or (C, L) input (MindSpore 2.x ``nn.MaxPool1d``): pad_mode
    'valid', 'same' or 'pad' (``padding`` -inf cells at both ends); ``dilation`` spaces a window's
    taps; ``ceil_mode`` rounds the output length up; ``return_indices=True`` returns ``(output,
    argmax)`` with argmax (int64) the position of each maximum along L. It is
    :func:`runtime.ops.max_pool2d` on a height-1 image.

    Example:
        >>> import numpy as np
        >>> from runtime import nn, Tensor
        >>> x = Tensor(np.array([[1.0, 3.0, 2.0, 5.0, 4.0]], np.float32))
        >>> out, idx = nn.MaxPool1d(2, 2, "pad", 1, return_indices=True, ceil_mode=True)(x)
        >>> out.asnumpy().tolist(), idx.asnumpy().tolist()
        ([[1.0, 3.0, 5.0]], [[0, 1, 3]])
    """

    _name = "MaxPool1d"

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        super().__init__(kernel_size, stride, pad_mode, padding)
        self.dilation = _int1("MaxPool1d", "dilation", dilation)
        self.ceil_mode = _check_max_pool_options("MaxPool1d", self.pad_mode, (self.dilation,), return_indices,
                                                 ceil_mode)
        self.return_indices = return_indices

    def _pool(self, x):
        if self.pad_mode == "pad" or self.ceil_mode or self.return_indices or self.dilation != 1:
            out = ops.max_pool2d(ops.expand_dims(x, 2), (1, self.kernel_size), (1, self.stride), (0, self.padding),
                                 (1, self.dilation), self.return_indices, self.ceil_mode)
            if self.return_indices:  # index h * L + l with h = 0: the position along L
                return ops.squeeze(out[0], 2), ops.squeeze(out[1], 2)
            return ops.squeeze(out, 2)
        return self._primitive_pool(x, _REGISTRY_PRIMS["MaxPool"])


class AvgPool1d(_Pool1d):
    """Mean over windows of (N, C, L) or (C, L) input (MindSpore 2.x ``nn.AvgPool1d``): pad_mode
    'valid', 'same' or 'pad' (``padding`` zeros at both ends); ``ceil_mode`` rounds the output
    length up; ``count_include_pad=False`` leaves the padding out of each window's divisor. It
    is :func:`runtime.ops.avg_pool1d`.

    Example:
        >>> import numpy as np
        >>> from runtime import nn, Tensor
        >>> x = Tensor(np.arange(5, dtype=np.float32).reshape(1, 5))
        >>> nn.AvgPool1d(2, 2, "pad", 1, ceil_mode=True, count_include_pad=False)(x).asnumpy().tolist()
        [[0.0, 1.5, 3.5]]
    """

    _name = "AvgPool1d"

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, ceil_mode=False, count_include_pad=True):
        super().__init__(kernel_size, stride, pad_mode, padding)
        self.ceil_mode = _check_bool("AvgPool1d", "ceil_mode", ceil_mode)
        self.count_include_pad = _check_bool("AvgPool1d", "count_include_pad", count_include_pad)
        if self.pad_mode == "same" and (ceil_mode or not count_include_pad):
            raise ValueError("AvgPool1d: ceil_mode=True and count_include_pad=False need pad_mode 'pad' or 'valid' "
                             "('same' fixes the windows and their padding)")

    def _pool(self, x):
        if self.pad_mode == "pad" or self.ceil_mode or not self.count_include_pad:
            return ops.avg_pool1d(x, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                                  self.count_include_pad)
        return self._primitive_pool(x, _REGISTRY_PRIMS["AvgPool"])


class _AdaptivePool1d(Cell):
    """MindSpore's adaptive 1-D pools: ``output_size`` an int >= 1; (N, C, L) float input whose L
    is a multiple of it (then every bin has L / output_size positions)."""

    _name = "AdaptivePool1d"

    def __init__(self, output_size):
        super().__init__()
        if isinstance(output_size, bool) or not isinstance(output_size, int):
            raise TypeError(f"{self._name}: output_size must be an int, got {output_size!r}")
        if output_size < 1:
            raise ValueError(f"{self._name}: output_size must be >= 1, got {output_size}")
        self.output_size = output_size

    def _check(self, x):
        if x.ndim != 3:
            raise ValueError(f"{self._name}: x must be 3-D (N, C, L), got shape {tuple(x.shape)}")
        if x.dtype.np.kind != "f":
            raise TypeError(f"{self._name}: x must be float16 or float32, got {x.dtype}")
        length = x.shape[-1]
        if length < self.output_size or length % self.output_size:
            raise ValueError(f"{self._name}: the last dimension of x ({length}) must be a multiple of output_size "
                             f"({self.output_size}) and not smaller")
        return ops.expand_dims(x, 2)

    def extend_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_AdaptivePool1d):
    """The mean over ``output_size`` equal bins of the last axis of (N, C, L) input
    (:func:`runtime.ops.adaptive_avg_pool2d` on a height-1 image).

    Example:
        >>> import numpy as np
        >>> from runtime import nn, Tensor
        >>> nn.AdaptiveAvgPool1d(2)(Tensor(np.arange(6, dtype=np.float32).reshape(1, 1, 6))).asnumpy().tolist()
        [[[1.0, 4.0]]]
    """

    _name = "AdaptiveAvgPool1d"

    def construct(self, x):
        return ops.squeeze(ops.adaptive_avg_pool2d(self._check(x), (1, self.output_size)), 2)


class AdaptiveMaxPool1d(_AdaptivePool1d):
    """The max over ``output_size`` equal bins of the last axis of (N, C, L) input
    (:func:`runtime.ops.adaptive_max_pool2d` on a height-1 image).

    Example:
        >>> import numpy as np
        >>> from runtime import nn, Tensor
        >>> x = Tensor(np.array([[[3.0, 1.0, 0.0, 7.0]]], np.float32))
        >>> nn.AdaptiveMaxPool1d(2)(x).asnumpy().tolist()
        [[[3.0, 7.0]]]
    """

    _name = "AdaptiveMaxPool1d"

    def construct(self, x):
        return ops.squeeze(ops.adaptive_max_pool2d(self._check(x), (1, self.output_size)), 2)


class AdaptiveAvgPool2d(Cell):
    """The mean over adaptive bins of (N, C, H, W) or (C, H, W) input so that the output is
    ``output_size`` (an int, (h, w) with None keeping an axis, or None):
    :func:`runtime.ops.adaptive_avg_pool2d`."""

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def construct(self, x):
        return ops.adaptive_avg_pool2d(x, self.output_size)


class AdaptiveMaxPool2d(Cell):
    """The max over adaptive bins so that the output is ``output_size``; ``return_indices=True``
    returns ``(output, argmax)`` with argmax (int64) the flat index ``h * W + w`` of each maximum
    in its input plane: :func:`runtime.ops.adaptive_max_pool2d`.

    Example:
        >>> import numpy as np
        >>> from runtime import nn, Tensor
        >>> x = Tensor(np.array([[[1, 2, 3], [4, 5, 6], [7, 8, 9]]], np.float32))
        >>> out, idx = nn.AdaptiveMaxPool2d((None, 2), return_indices=True)(x)
        >>> out.asnumpy().tolist(), idx.asnumpy().tolist()
        ([[[2.0, 3.0], [5.0, 6.0], [8.0, 9.0]]], [[[1, 2], [4, 5], [7, 8]]])
    """

    def __init__(self, output_size, return_indices=False):
        super().__init__()
        if not isinstance(return_indices, bool):
            raise TypeError(f"AdaptiveMaxPool2d: return_indices must be a bool, got {return_indices!r}")
        self.output_size = output_size
        self.return_indices = return_indices

    def construct(self, x):
        return ops.adaptive_max_pool2d(x, self.output_size, self.return_indices)


def _affine_params(name, affine, channels, gamma_init, beta_init, dtype=float32):
    if not affine:
        return None, None
    return (Parameter(initializer(gamma_init, (channels,), as_dtype(dtype)), name="gamma"),
            Parameter(initializer(beta_init, (channels,), as_dtype(dtype)), name="beta"))


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
        return ops.group_norm(x, self.num_groups, self.gamma, self.beta, self.eps)


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
        return ops.group_norm(x, self.num_features, self.gamma, self.beta, self.eps)  # a group per channel


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


class PixelShuffle(Cell):
    """``nn.PixelShuffle(upscale_factor)``: (*, C*r*r, H, W) -> (*, C, H*r, W*r) (:func:`ops.pixel_shuffle`).

    Example:
        >>> import runtime as ms
        >>> from runtime import nn
        >>> nn.PixelShuffle(3)(ms.ops.ones((1, 9, 4, 4))).shape
        (1, 1, 12, 12)
    """

    def __init__(self, upscale_factor):
        super().__init__()
        if isinstance(upscale_factor, bool) or not isinstance(upscale_factor, int) or upscale_factor < 1:
            raise ValueError(f"PixelShuffle: upscale_factor must be a positive int, got {upscale_factor!r}")
        self.upscale_factor = upscale_factor

    def construct(self, x):
        return ops.pixel_shuffle(x, self.upscale_factor)


class PixelUnshuffle(Cell):
    """``nn.PixelUnshuffle(downscale_factor)``: the inverse of :class:`PixelShuffle` (:func:`ops.pixel_unshuffle`)."""

    def __init__(self, downscale_factor):
        super().__init__()
        if isinstance(downscale_factor, bool) or not isinstance(downscale_factor, int) or downscale_factor < 1:
            raise ValueError(f"PixelUnshuffle: downscale_factor must be a positive int, got {downscale_factor!r}")
        self.downscale_factor = downscale_factor

    def construct(self, x):
        return ops.pixel_unshuffle(x, self.downscale_factor)
