"""Small MindSpore 2.x top-level names: ``ms.tensor``, ``ms.from_numpy``, ``ms.mutable``, ``ms.jit_class``
(``ms.ParallelMode`` lives with the auto-parallel context in :mod:`runtime.parallel`).

Example:
    >>> import runtime as ms
    >>> ms.tensor([1, 2]).dtype, ms.tensor([1.0], ms.float16).dtype
    (Int64, Float16)
    >>> ms.mutable((1, 2))
    (1, 2)
"""
from __future__ import annotations

from .tensor import Tensor


def tensor(input_data=None, dtype=None):
    """``ms.tensor(input_data, dtype=None)``: a new Tensor (the function form of ``ms.Tensor``)."""
    return Tensor(input_data, dtype=dtype)


def from_numpy(array):
    """``ms.from_numpy(array)``: a Tensor sharing ``array``'s memory, no copy (unlike
    ``Tensor(array)``, which copies); see :meth:`Tensor.from_numpy`."""
    return Tensor.from_numpy(array)


def mutable(input_data, dynamic_len=False):
    """``ms.mutable(x)``: in MindSpore, marks a Python scalar/tuple argument as a graph variable
    instead of a constant. Capture guards such values and recompiles when they change, so the
    value is returned as it is (the program means the same either way)."""
    return input_data


def jit_class(cls):
    """``@ms.jit_class``: lets graph mode read a user class's attributes and call its methods.
    Capture already traces any Python class, so the class is returned unchanged."""
    if not isinstance(cls, type):
        raise TypeError(f"jit_class: expects a class, got {type(cls).__name__}")
    return cls
