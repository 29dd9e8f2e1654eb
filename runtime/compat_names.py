"""Small MindSpore 2.x top-level names: ``ms.tensor``, ``ms.from_numpy``, ``ms.mutable``, the
deprecated ``ms.ms_function``/``ms.ms_class``, ``ms.jit_class``
(``ms.ParallelMode`` lives with the auto-parallel context in :mod:`runtime.parallel`).

Example:
    >>> import runtime as ms
    >>> ms.tensor([1, 2]).dtype, ms.tensor([1.0], ms.float16).dtype
    (Int64, Float16)
    >>> ms.mutable((1, 2))
    (1, 2)
"""
from __future__ import annotations

from collections.abc import Callable

import warnings

import numpy as np

from .tensor import Tensor


def tensor(input_data=None, dtype=None) -> Tensor:
    """``ms.tensor(input_data, dtype=None)``: a new Tensor (the function form of ``ms.Tensor``)."""
    return Tensor(input_data, dtype=dtype)


def from_numpy(array: np.ndarray) -> Tensor:
    """``ms.from_numpy(array)``: a Tensor sharing ``array``'s memory, no copy (unlike
    ``Tensor(array)``, which copies); see :meth:`Tensor.from_numpy`."""
    return Tensor.from_numpy(array)


def mutable(input_data, dynamic_len: bool = False):
    """``ms.mutable(x)``: in MindSpore, marks a Python scalar/tuple argument as a graph variable
    instead of a constant. Capture guards such values and recompiles when they change, so the
    value is returned as it is (the program means the same either way)."""
    return input_data


def jit_class(cls: type) -> type:
    """``@ms.jit_class``: lets graph mode read a user class's attributes and call its methods.
    Capture already traces any Python class, so the class is returned unchanged."""
    if not isinstance(cls, type):
        raise TypeError(f"jit_class: expects a class, got {type(cls).__name__}")
    return cls


def _deprecated(old, new):
    # MindSpore logs this warning on every use of the 1.x names; a FutureWarning is shown to
    # users by default as well (once per call site)
    warnings.warn(f"'mindspore.{old}' will be deprecated and removed in a future version. "
                  f"Please use 'mindspore.{new}' instead.", FutureWarning, stacklevel=3)


def ms_function(fn: Callable | None = None, input_signature=None, hash_args=None, jit_config=None):
    """``ms.ms_function``: the deprecated 1.x name of :func:`ms.jit` (warns, then compiles the same
    way). ``input_signature`` and ``hash_args`` are accepted: capture guards the input shapes and
    the values a function reads itself."""
    from .jit_api import jit
    _deprecated("ms_function", "jit")
    return jit(fn, jit_config=jit_config) if fn is not None else jit(jit_config=jit_config)


def ms_class(cls: type) -> type:
    """``ms.ms_class``: the deprecated 1.x name of :func:`ms.jit_class` (warns)."""
    _deprecated("ms_class", "jit_class")
    return jit_class(cls)
