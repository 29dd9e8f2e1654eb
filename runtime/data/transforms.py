"""General transforms (``mindspore.dataset.transforms``): TypeCast, OneHot, PadEnd, Compose, Duplicate,
Concatenate.

Example:
    >>> import numpy as np
    >>> import runtime as ms
    >>> from runtime.data import transforms
    >>> transforms.TypeCast(ms.int32)(np.array(7, np.uint32)).dtype
    dtype('int32')
    >>> transforms.OneHot(3)(np.array(1))
    array([0, 1, 0])
"""
from __future__ import annotations

import numbers
import sys

import numpy as np

from .vision import ImageTensorOperation, _as_image

__all__ = ["TensorOperation", "TypeCast", "OneHot", "PadEnd", "Compose", "Duplicate", "Concatenate"]


class TensorOperation(ImageTensorOperation):
    """Base class of the non-vision transforms (work per row and on a stack of rows)."""


def _np_dtype(data_type, what):
    if isinstance(data_type, np.dtype) or (isinstance(data_type, type) and issubclass(data_type, np.generic)):
        return np.dtype(data_type)
    from graph.dtypes import as_dtype
    try:
        return as_dtype(data_type).np
    except TypeError:
        raise TypeError(f"{what}: unknown data type {data_type!r}; use e.g. ms.int32 or ms.float32") from None


class TypeCast(TensorOperation):
    """Cast to ``data_type`` (a runtime dtype such as ``ms.int32``, or a numpy dtype)."""

    def __init__(self, data_type):
        self.data_type = data_type
        self._np = _np_dtype(data_type, "TypeCast")

    def __call__(self, *imgs):
        if len(imgs) != 1:
            raise TypeError(f"TypeCast: expected one input, got {len(imgs)}")
        x = imgs[0]
        x = x.asnumpy() if hasattr(x, "asnumpy") else np.asarray(x)
        return x.astype(self._np)

    def _apply_batch(self, batch):
        return np.asarray(batch).astype(self._np, copy=False)


class OneHot(TensorOperation):
    """Integer label -> one-hot vector of length ``num_classes`` (optional label smoothing)."""

    def __init__(self, num_classes, smoothing_rate=0.0):
        # MindSpore: TypeError for a non-int num_classes, ValueError for a non-positive one
        if isinstance(num_classes, bool) or not isinstance(num_classes, numbers.Integral):
            raise TypeError(f"OneHot: num_classes must be an int, got {num_classes!r}")
        if num_classes <= 0:
            raise ValueError(f"OneHot: num_classes must be a positive int, got {num_classes!r}")
        if not 0.0 <= float(smoothing_rate) <= 1.0:
            raise ValueError(f"OneHot: smoothing_rate must be in [0, 1], got {smoothing_rate!r}")
        self.num_classes = int(num_classes)
        self.smoothing_rate = float(smoothing_rate)

    def __call__(self, *imgs):
        if len(imgs) != 1:
            raise TypeError(f"OneHot: expected one input, got {len(imgs)}")
        x = imgs[0]
        x = x.asnumpy() if hasattr(x, "asnumpy") else np.asarray(x)
        return self._apply_batch(x[None])[0]

    def _apply_batch(self, batch):
        x = np.asarray(batch)
        if x.dtype.kind not in "ui":
            raise TypeError(f"OneHot: labels must be integers, got dtype {x.dtype}")
        if x.size and (x.min() < 0 or x.max() >= self.num_classes):
            raise ValueError(f"OneHot: labels must be in [0, {self.num_classes}), got values in "
                             f"[{x.min()}, {x.max()}]")
        if self.smoothing_rate:
            eye = np.full((self.num_classes, self.num_classes), self.smoothing_rate / self.num_classes, np.float32)
            eye[np.arange(self.num_classes), np.arange(self.num_classes)] += 1.0 - self.smoothing_rate
        else:
            eye = np.eye(self.num_classes, dtype=x.dtype)
        return eye[x]


class PadEnd(TensorOperation):
    """Pad (or truncate) a row to ``pad_shape`` at the end of each axis (MindSpore's ``PadEnd``):
    ``pad_shape`` has one entry per axis of the row, None keeps that axis; a longer entry pads with
    ``pad_value`` (default 0, or '' for strings), a shorter one truncates. The dtype is kept.

    Example:
        >>> import numpy as np
        >>> from runtime.data import transforms
        >>> transforms.PadEnd([4], pad_value=10)(np.array([1, 2, 3]))
        array([ 1,  2,  3, 10])
        >>> transforms.PadEnd([1, None])(np.array([[1, 2], [3, 4]]))
        array([[1, 2]])
    """

    def __init__(self, pad_shape, pad_value=None):
        if not isinstance(pad_shape, list):
            raise TypeError(f"PadEnd: pad_shape must be a list, got {type(pad_shape).__name__}")
        for v in pad_shape:
            if v is not None and (isinstance(v, bool) or not isinstance(v, numbers.Integral)):
                raise TypeError(f"PadEnd: pad_shape entries must be ints or None, got {pad_shape!r}")
            if v is not None and v <= 0:
                raise ValueError(f"PadEnd: pad_shape entries must be positive, got {pad_shape!r}")
        if pad_value is not None and not isinstance(pad_value, (str, bytes, int, float, bool)):
            raise TypeError(f"PadEnd: pad_value must be a str, bytes, int, float or bool, got {type(pad_value).__name__}")
        self.pad_shape, self.pad_value = list(pad_shape), pad_value

    def __call__(self, *imgs):
        if len(imgs) != 1:
            raise TypeError(f"PadEnd: expected one input, got {len(imgs)}")
        x = imgs[0]
        x = x.asnumpy() if hasattr(x, "asnumpy") else np.asarray(x)
        return self._apply_batch(x[None])[0]

    def _apply_batch(self, batch):
        x = np.asarray(batch)
        if x.ndim - 1 != len(self.pad_shape):
            raise ValueError(f"PadEnd: pad_shape {self.pad_shape} has {len(self.pad_shape)} entries but the rows "
                             f"have {x.ndim - 1} axes (shape {x.shape[1:]})")
        target = tuple(n if p is None else int(p) for n, p in zip(x.shape[1:], self.pad_shape))
        fill = self.pad_value
        if fill is None:
            fill = "" if x.dtype.kind in "SU" else 0
        out = np.full((x.shape[0],) + target, fill, dtype=x.dtype)
        keep = tuple(slice(0, min(n, t)) for n, t in zip(x.shape[1:], target))
        out[(slice(None),) + keep] = x[(slice(None),) + keep]
        return out


class Compose:
    """Apply ``transforms`` in order (one transform as far as ``map`` is concerned)."""

    def __init__(self, transforms):
        if not isinstance(transforms, (list, tuple)) or not transforms:
            raise ValueError("Compose: transforms must be a non-empty list of transforms")
        for t in transforms:
            if not callable(t):
                raise TypeError(f"Compose: {t!r} is not callable")
        self.transforms = list(transforms)
        if all(hasattr(t, "_apply_batch") for t in self.transforms):
            self._apply_batch = self._chain  # the pipeline may apply it to a stack of rows

    def _chain(self, batch):
        for t in self.transforms:
            batch = t._apply_batch(batch)
        return batch

    def __call__(self, *args):
        vals = args
        for t in self.transforms:
            res = t(*vals)
            vals = tuple(res) if isinstance(res, tuple) else (res,)
        return vals[0] if len(vals) == 1 else vals


class Duplicate:
    """One column -> two identical columns (use with ``output_columns=[a, b]``)."""

    def __call__(self, x):
        x = x.asnumpy() if hasattr(x, "asnumpy") else np.asarray(x)
        return x, x.copy()


class Concatenate:
    """Concatenate 1-D arrays (with optional prepend/append arrays)."""

    def __init__(self, axis=0, prepend=None, append=None):
        self.axis = axis
        self.prepend = None if prepend is None else np.asarray(prepend)
        self.append = None if append is None else np.asarray(append)

    def __call__(self, *xs):
        parts = ([self.prepend] if self.prepend is not None else []) + [np.asarray(_as_image(x, "Concatenate")) for x in xs]
        if self.append is not None:
            parts.append(self.append)
        return np.concatenate(parts, axis=self.axis)


c_transforms = sys.modules[__name__]
py_transforms = sys.modules[__name__]
sys.modules[__name__ + ".c_transforms"] = c_transforms
sys.modules[__name__ + ".py_transforms"] = py_transforms
