"""2-D pooling layers (``nn.MaxPool2d``, ``nn.AvgPool2d``), MindSpore 2.x signatures.

Example:
    >>> import runtime as ms
    >>> from runtime import nn
    >>> nn.MaxPool2d(kernel_size=2, stride=2)(ms.ops.ones((1, 1, 4, 4))).shape
    (1, 1, 2, 2)
"""
from __future__ import annotations

from ... import ops
from ..cell import Cell
from .conv import _pair

__all__ = ["MaxPool2d", "AvgPool2d"]


class _Pool2d(Cell):
    _name = "Pool2d"

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", data_format="NCHW"):
        super().__init__()
        self.kernel_size = _pair(self._name, "kernel_size", kernel_size)
        self.stride = _pair(self._name, "stride", stride)
        if not isinstance(pad_mode, str) or pad_mode.lower() not in ("same", "valid"):
            raise ValueError(f"{self._name}: pad_mode must be 'same' or 'valid', got {pad_mode!r}")
        self.pad_mode = pad_mode.lower()
        if not isinstance(data_format, str) or data_format.upper() != "NCHW":
            raise ValueError(f"{self._name}: data_format must be 'NCHW', got {data_format!r}")
        self.data_format = "NCHW"
        # MindSpore echoes the arguments as given (ints stay ints) in the repr
        self._repr_kernel = kernel_size
        self._repr_stride = stride
        self._op = self._prim(kernel_size=self.kernel_size, stride=self.stride, pad_mode=self.pad_mode)

    def extend_repr(self):
        return f"kernel_size={self._repr_kernel}, stride={self._repr_stride}, pad_mode={self.pad_mode.upper()}"


class MaxPool2d(_Pool2d):
    """Max over ``kernel_size`` windows moved by ``stride`` (pad_mode 'valid' or 'same')."""

    _name = "MaxPool2d"
    _prim = ops.MaxPool

    def construct(self, x):
        return self._op(x)


class AvgPool2d(_Pool2d):
    """Mean over ``kernel_size`` windows moved by ``stride`` (pad_mode 'valid' or 'same')."""

    _name = "AvgPool2d"
    _prim = ops.AvgPool

    def construct(self, x):
        return self._op(x)
