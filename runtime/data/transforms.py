"""General transforms (``mindspore.dataset.transforms``): TypeCast, OneHot, Compose, Duplicate.

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

__all__ = ["TensorOperation", "TypeCast", "OneHot", "Compose", "Duplicate", "Concatenate"]


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
        if isinstance(num_classes, bool) or not isinstance(num_classes, numbers.Integral) or num_classes <= 0:
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
