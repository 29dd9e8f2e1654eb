"""Abstract values: what the compiler knows about a tensor without its data (shape and dtype).

Example:
    >>> from graph.aval import AVal
    >>> from graph.dtypes import float32
    >>> AVal((32, 120), float32)
    f32[32,120]
"""
from __future__ import annotations

from .dtypes import DType


class AVal:
    """Static shape + dtype. Anything with ``.shape`` and ``.dtype`` (an eager Tensor, an IR value)
    can stand in for an AVal in ``infer`` rules."""

    __slots__ = ("shape", "dtype")

    def __init__(self, shape, dtype: DType):
        self.shape = tuple(map(int, shape))
        self.dtype = dtype

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        n = 1
        for s in self.shape:
            n *= s
        return n

    def __eq__(self, other) -> bool:
        return isinstance(other, AVal) and self.shape == other.shape and self.dtype is other.dtype

    def __hash__(self) -> int:
        return hash((self.shape, self.dtype.name))

    def __repr__(self) -> str:
        return f"{self.dtype.short}[{','.join(map(str, self.shape))}]"


def aval_of(x) -> AVal:
    return x if isinstance(x, AVal) else AVal(x.shape, x.dtype)
