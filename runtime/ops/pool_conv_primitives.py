"""``ops.MaxPool``, ``ops.AvgPool`` and ``ops.Conv2D`` with MindSpore 2.x's constructor signatures.

The registry ops (``max_pool2d``, ``avg_pool2d``, ``conv2d`` in ``graph/ops/nn.py``) name their
attributes in the functional style (``stride``, ``padding``, ``groups``; a pooling ``stride`` of None
meaning ``kernel_size``). MindSpore's Primitive classes are constructed differently:

* ``MaxPool(kernel_size=1, strides=1, pad_mode="valid", data_format="NCHW")`` (and ``AvgPool``):
  ``strides``, defaulting to 1, not to ``kernel_size``;
* ``Conv2D(out_channel, kernel_size, mode=1, pad_mode="valid", pad=0, stride=1, dilation=1,
  group=1, data_format="NCHW")``: the weight's shape is checked against ``out_channel`` and
  ``kernel_size``.

These classes take those arguments and bind the registry op (no new op semantics here), so they
differentiate and compile as the registry op does. Only NCHW is supported (MindSpore runs NHWC
on GPU only); any other ``data_format`` is a ValueError.

Example:
    >>> import numpy as np
    >>> from runtime import ops, Tensor
    >>> x = Tensor(np.arange(12, dtype=np.float32).reshape(1, 1, 3, 4))
    >>> ops.MaxPool(kernel_size=2, strides=1)(x).shape
    (1, 1, 2, 3)
"""
from __future__ import annotations

from graph.ops import REGISTRY, bind

_R = REGISTRY

__all__ = ["MaxPool", "AvgPool", "Conv2D"]


def _pair(v, prim, name):
    """int, (h, w) or MindSpore's (1, 1, h, w) -> (h, w) of positive ints."""
    if isinstance(v, bool):
        raise TypeError(f"ops.{prim}: {name} must be an int or a tuple of ints, got {v!r}")
    if isinstance(v, int):
        v = (v, v)
    if not isinstance(v, (tuple, list)) or not all(isinstance(s, int) and not isinstance(s, bool) for s in v):
        raise TypeError(f"ops.{prim}: {name} must be an int or a tuple of ints, got {v!r}")
    if len(v) == 4 and tuple(v[:2]) == (1, 1):
        v = v[2:]
    if len(v) != 2 or min(v) < 1:
        raise ValueError(f"ops.{prim}: {name} must be a positive int or a pair of positive ints, got {v!r}")
    return tuple(v)


def _pad_mode(v, prim, choices):
    if not isinstance(v, str):
        raise TypeError(f"ops.{prim}: pad_mode must be a str, got {v!r}")
    if v.lower() not in choices:
        raise ValueError(f"ops.{prim}: pad_mode must be one of {list(choices)} (any case), got {v!r}")
    return v.lower()


def _nchw(v, prim):
    if v != "NCHW":
        raise ValueError(f"ops.{prim}: only data_format='NCHW' is supported, got {v!r}")
    return v


class _Pool:
    """Shared constructor of MaxPool/AvgPool: MindSpore's ``(kernel_size, strides, pad_mode, data_format)``."""

    _op_name = ""

    def __init__(self, kernel_size=1, strides=1, pad_mode="valid", data_format="NCHW"):
        prim = type(self).__name__
        self.kernel_size = _pair(kernel_size, prim, "kernel_size")
        self.strides = _pair(strides, prim, "strides")
        self.pad_mode = _pad_mode(pad_mode, prim, ("valid", "same"))
        self.data_format = _nchw(data_format, prim)

    def __call__(self, x):
        return bind(_R[self._op_name], x, kernel_size=self.kernel_size, stride=self.strides, pad_mode=self.pad_mode)

    def __repr__(self):
        return f"Prim[{type(self).__name__}]"


class MaxPool(_Pool):
    """``ops.MaxPool(kernel_size=1, strides=1, pad_mode="valid", data_format="NCHW")(x)``: the largest
    value of each window of an NCHW ``x`` (registry op ``max_pool2d``)."""

    _op_name = "max_pool2d"


class AvgPool(_Pool):
    """``ops.AvgPool(kernel_size=1, strides=1, pad_mode="valid", data_format="NCHW")(x)``: the mean of
    each window of an NCHW ``x``, padding excluded (registry op ``avg_pool2d``)."""

    _op_name = "avg_pool2d"


class Conv2D:
    """``ops.Conv2D(out_channel, kernel_size, mode=1, pad_mode="valid", pad=0, stride=1, dilation=1,
    group=1, data_format="NCHW")(x, weight)``: 2-D cross-correlation of NCHW ``x`` with ``weight`` of
    shape (out_channel, C / group, kh, kw) (registry op ``conv2d``). ``pad`` is an int or
    (top, bottom, left, right) and is used with ``pad_mode="pad"`` only."""

    def __init__(self, out_channel, kernel_size, mode=1, pad_mode="valid", pad=0, stride=1, dilation=1, group=1,
                 data_format="NCHW"):
        if isinstance(out_channel, bool) or not isinstance(out_channel, int):
            raise TypeError(f"ops.Conv2D: out_channel must be an int, got {out_channel!r}")
        if out_channel < 1:
            raise ValueError(f"ops.Conv2D: out_channel must be positive, got {out_channel}")
        if mode != 1:
            raise ValueError(f"ops.Conv2D: mode must be 1, got {mode!r}")
        if isinstance(group, bool) or not isinstance(group, int) or group < 1:
            raise ValueError(f"ops.Conv2D: group must be a positive int, got {group!r}")
        self.out_channel, self.group = out_channel, group
        self.kernel_size = _pair(kernel_size, "Conv2D", "kernel_size")
        self.pad_mode = _pad_mode(pad_mode, "Conv2D", ("valid", "same", "pad"))
        if self.pad_mode != "pad" and pad not in (0, (0, 0, 0, 0)):
            raise ValueError(f"ops.Conv2D: pad must be 0 unless pad_mode is 'pad', got pad={pad!r} with "
                             f"pad_mode={pad_mode!r}")
        self.pad = pad
        self.stride = _pair(stride, "Conv2D", "stride")
        self.dilation = _pair(dilation, "Conv2D", "dilation")
        self.data_format = _nchw(data_format, "Conv2D")

    def __call__(self, x, weight):
        w_shape = tuple(weight.shape)
        if len(w_shape) != 4 or w_shape[0] != self.out_channel or w_shape[2:] != self.kernel_size:
            raise ValueError(f"ops.Conv2D: weight must have shape (out_channel={self.out_channel}, C/group, "
                             f"{self.kernel_size[0]}, {self.kernel_size[1]}), got {w_shape}")
        return bind(_R["conv2d"], x, weight, stride=self.stride, pad_mode=self.pad_mode, padding=self.pad,
                    dilation=self.dilation, groups=self.group)

    def __repr__(self):
        return "Prim[Conv2D]"
