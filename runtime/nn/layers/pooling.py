"""2-D pooling layers (``nn.MaxPool2d``, ``nn.AvgPool2d``), MindSpore 2.x signatures. Both take
(N, C, H, W) or unbatched (C, H, W) input.

Example:
    >>> import runtime as ms
    >>> from runtime import nn
    >>> nn.MaxPool2d(kernel_size=2, stride=2)(ms.ops.ones((1, 1, 4, 4))).shape
    (1, 1, 2, 2)
    >>> out, argmax = nn.MaxPool2d(2, 1, "pad", 1, return_indices=True)(ms.ops.ones((3, 4, 5)))
    >>> out.shape, argmax.shape, argmax.dtype
    ((3, 5, 6), (3, 5, 6), Int64)
"""
from __future__ import annotations

from ... import ops
from ...ops._generated import PRIMITIVES as _REGISTRY_PRIMS  # registry attribute names (stride, padding...)
from ..cell import Cell
from .conv import _pair

__all__ = ["MaxPool2d", "AvgPool2d"]


class _Pool2d(Cell):
    _name = "Pool2d"

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, data_format="NCHW"):
        super().__init__()
        self.kernel_size = _pair(self._name, "kernel_size", kernel_size)
        self.stride = _pair(self._name, "stride", stride)
        if not isinstance(pad_mode, str) or pad_mode.lower() not in ("same", "valid", "pad"):
            raise ValueError(f"{self._name}: pad_mode must be 'same', 'valid' or 'pad', got {pad_mode!r}")
        self.pad_mode = pad_mode.lower()
        if padding and self.pad_mode != "pad":
            raise ValueError(f"{self._name}: padding={padding!r} needs pad_mode='pad', got pad_mode={pad_mode!r}")
        self.padding = _pair(self._name, "padding", padding, minimum=0)
        if not isinstance(data_format, str) or data_format.upper() != "NCHW":
            raise ValueError(f"{self._name}: data_format must be 'NCHW', got {data_format!r}")
        self.data_format = "NCHW"
        # MindSpore echoes the arguments as given (ints stay ints) in the repr
        self._repr_kernel = kernel_size
        self._repr_stride = stride
        mode = "valid" if self.pad_mode == "pad" else self.pad_mode
        self._op = self._prim(kernel_size=self.kernel_size, stride=self.stride, pad_mode=mode)

    def extend_repr(self):
        return f"kernel_size={self._repr_kernel}, stride={self._repr_stride}, pad_mode={self.pad_mode.upper()}"

    def construct(self, x):
        if x.ndim == 3:  # unbatched (C, H, W)
            out = self._pool(ops.expand_dims(x, 0))
            return tuple(ops.squeeze(o, 0) for o in out) if isinstance(out, tuple) else ops.squeeze(out, 0)
        if x.ndim != 4:
            raise ValueError(f"{self._name}: x must be 3-D (C, H, W) or 4-D (N, C, H, W), got shape {tuple(x.shape)}")
        return self._pool(x)


def _check_ceil_mode(name, ceil_mode, pad_mode):
    if not isinstance(ceil_mode, bool):
        raise TypeError(f"{name}: ceil_mode must be a bool, got {ceil_mode!r}")
    if ceil_mode and pad_mode == "same":
        raise ValueError(f"{name}: ceil_mode=True needs pad_mode 'valid' or 'pad' ('same' fixes the output size)")
    return ceil_mode


def _check_max_pool_options(name, pad_mode, dilation, return_indices, ceil_mode):
    """MindSpore's MaxPool1d/2d options: ``dilation``, ``return_indices`` and ``ceil_mode`` go with
    pad_mode 'pad' (here 'valid' too, as padding 0); 'same' fixes the windows, so they are refused."""
    ceil_mode = _check_ceil_mode(name, ceil_mode, pad_mode)
    if not isinstance(return_indices, bool):
        raise TypeError(f"{name}: return_indices must be a bool, got {return_indices!r}")
    if pad_mode == "same" and (return_indices or any(d != 1 for d in dilation)):
        raise ValueError(f"{name}: dilation and return_indices need pad_mode 'pad' (or 'valid'), "
                         f"got pad_mode='same'")
    return ceil_mode


class MaxPool2d(_Pool2d):
    """Max over ``kernel_size`` windows moved by ``stride``; pad_mode 'valid', 'same' or 'pad'
    (``padding`` on each side, filled with -inf). ``dilation`` spaces each window's taps,
    ``ceil_mode`` rounds the output size up, and ``return_indices=True`` returns ``(output,
    argmax)`` with argmax (int64) the flat index ``h * W + w`` of each maximum in its input plane
    (see :func:`runtime.ops.max_pool2d`)."""

    _name = "MaxPool2d"
    _prim = _REGISTRY_PRIMS["MaxPool"]

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, dilation=1, return_indices=False,
                 ceil_mode=False, data_format="NCHW"):
        super().__init__(kernel_size, stride, pad_mode, padding, data_format)
        self.dilation = _pair("MaxPool2d", "dilation", dilation)
        self.ceil_mode = _check_max_pool_options("MaxPool2d", self.pad_mode, self.dilation, return_indices, ceil_mode)
        self.return_indices = return_indices

    def _pool(self, x):
        if self.pad_mode == "pad" or self.ceil_mode or self.return_indices or self.dilation != (1, 1):
            return ops.max_pool2d(x, self.kernel_size, self.stride, self.padding, self.dilation,
                                  self.return_indices, self.ceil_mode)
        return self._op(x)


class AvgPool2d(_Pool2d):
    """Mean over ``kernel_size`` windows moved by ``stride``; pad_mode 'valid', 'same' or 'pad'
    (``padding`` zeros on each side, counted in the mean)."""

    _name = "AvgPool2d"
    _prim = _REGISTRY_PRIMS["AvgPool"]

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None, data_format="NCHW"):
        super().__init__(kernel_size, stride, pad_mode, padding, data_format)
        self.ceil_mode = _check_ceil_mode("AvgPool2d", ceil_mode, self.pad_mode)
        if not isinstance(count_include_pad, bool):
            raise TypeError(f"AvgPool2d: count_include_pad must be a bool, got {count_include_pad!r}")
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def _pool(self, x):
        if self.pad_mode == "pad" or self.ceil_mode:
            return ops.avg_pool2d(x, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                                  self.count_include_pad, self.divisor_override)
        out = self._op(x)
        if self.divisor_override:
            out = ops.mul(out, float(self.kernel_size[0] * self.kernel_size[1]) / float(self.divisor_override))
        return out
