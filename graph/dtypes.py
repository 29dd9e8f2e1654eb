"""Element types shared by every layer.

A :class:`DType` names an element type the way MindSpore prints it (``Float32``) and carries the
numpy dtype used by array implementations. ``graph`` owns the types so the op registry and the IR
can reason about them without importing ``runtime``; ``runtime.dtype`` re-exports them under the
user-facing names (``ms.float32``).

Example:
    >>> from graph.dtypes import float32, from_numpy
    >>> float32, float32.short
    (Float32, 'f32')
    >>> from_numpy(np.dtype("int64")) is int64
    True
"""
from __future__ import annotations

import numpy as np


class DType:
    """One element type. Instances are singletons: compare with ``is`` or ``==``."""

    __slots__ = ("name", "short", "np", "kind", "itemsize", "rank")

    def __init__(self, name: str, short: str, np_dtype, kind: str, rank: int):
        self.name = name
        self.short = short
        self.np = np.dtype(np_dtype)
        self.kind = kind  # "b" bool, "u" unsigned, "i" signed, "f" float
        self.itemsize = self.np.itemsize
        self.rank = rank  # promotion order within the lattice below

    @property
    def is_float(self) -> bool:
        return self.kind == "f"

    @property
    def is_int(self) -> bool:
        return self.kind in "ui"

    @property
    def is_bool(self) -> bool:
        return self.kind == "b"

    def __repr__(self) -> str:
        return self.name

    __str__ = __repr__

    def __reduce__(self):
        return (from_name, (self.name,))


bool_ = DType("Bool", "bool", np.bool_, "b", 0)
uint8 = DType("UInt8", "u8", np.uint8, "u", 1)
int8 = DType("Int8", "i8", np.int8, "i", 2)
int16 = DType("Int16", "i16", np.int16, "i", 3)
int32 = DType("Int32", "i32", np.int32, "i", 4)
int64 = DType("Int64", "i64", np.int64, "i", 5)
float16 = DType("Float16", "f16", np.float16, "f", 6)
float32 = DType("Float32", "f32", np.float32, "f", 7)
float64 = DType("Float64", "f64", np.float64, "f", 8)

ALL = (bool_, uint8, int8, int16, int32, int64, float16, float32, float64)
FLOATS = (float16, float32, float64)
_BY_NP = {d.np: d for d in ALL}
_BY_NAME = {}
for _d in ALL:
    _BY_NAME[_d.name] = _BY_NAME[_d.name.lower()] = _BY_NAME[_d.short] = _d
_BY_NAME["bool_"] = bool_
# numpy types that have no DType of their own map to the nearest supported one.
_NP_FALLBACK = {
    np.dtype(np.uint16): int32, np.dtype(np.uint32): int64, np.dtype(np.uint64): int64,
}

#: dtype used for Python floats and float lists (MindSpore's default)
default_float = float32
#: dtype used for Python ints and int lists
default_int = int64


def from_numpy(np_dtype) -> DType:
    """Map a numpy dtype to a DType; raise TypeError for unsupported ones (complex, object...)."""
    found = _BY_NP.get(np_dtype)  # a numpy dtype already (the hot path: Tensor.dtype)
    if found is not None:
        return found
    d = np.dtype(np_dtype)
    found = _BY_NP.get(d) or _NP_FALLBACK.get(d)
    if found is None:
        raise TypeError(f"unsupported element type {d}; supported: {', '.join(x.name for x in ALL)}")
    return found


def from_name(name: str) -> DType:
    try:
        return _BY_NAME[name]
    except KeyError:
        raise TypeError(f"unknown dtype {name!r}; supported: {', '.join(x.name for x in ALL)}") from None


def as_dtype(x) -> DType:
    """Accept a DType, a numpy dtype/type, or a name like 'float32'."""
    if isinstance(x, DType):
        return x
    if isinstance(x, str):
        return from_name(x)
    if x is float:
        return default_float
    if x is int:
        return default_int
    if x is bool:
        return bool_
    try:
        return from_numpy(x)
    except TypeError:
        raise
    except Exception:
        raise TypeError(f"cannot interpret {x!r} as a dtype") from None


def promote(a: DType, b: DType) -> DType:
    """Result type of a binary op on two tensors (MindSpore rules).

    Same type -> itself; int with float -> the float type (not float64 as numpy would);
    otherwise the wider type, with signed/unsigned mixes going to the next signed type.
    """
    if a is b:
        return a
    if a.is_float or b.is_float:
        if a.is_float and b.is_float:
            return a if a.rank >= b.rank else b
        return a if a.is_float else b
    if a.is_bool:
        return b
    if b.is_bool:
        return a
    return from_numpy(np.promote_types(a.np, b.np))


def weak_scalar_type(tensor_dtype: DType, scalar) -> DType:
    """Result type of ``tensor op python_scalar``: the scalar adopts the tensor's type unless it
    needs a wider kind (a float scalar with an int/bool tensor gives float32; an int scalar with a
    bool tensor gives int64)."""
    if isinstance(scalar, bool):
        return tensor_dtype
    if isinstance(scalar, int):
        return default_int if tensor_dtype.is_bool else tensor_dtype
    if isinstance(scalar, float):
        return tensor_dtype if tensor_dtype.is_float else default_float
    raise TypeError(f"unsupported scalar {scalar!r} of type {type(scalar).__name__}")


def scalar_dtype(scalar) -> DType:
    """dtype a lone Python scalar gets when it becomes a tensor."""
    if isinstance(scalar, bool):
        return bool_
    if isinstance(scalar, int):
        return default_int
    if isinstance(scalar, float):
        return default_float
    if isinstance(scalar, np.generic):
        return from_numpy(scalar.dtype)
    raise TypeError(f"unsupported scalar {scalar!r} of type {type(scalar).__name__}")
