"""User-facing dtypes: ``ms.float32`` etc. (re-exported from ``graph.dtypes``).

Example:
    >>> import runtime as ms
    >>> ms.float32, ms.dtype.int32
    (Float32, Int32)
    >>> ms.dtype_to_nptype(ms.float16), ms.dtype_to_pytype(ms.int8), ms.pytype_to_dtype(float)
    (<class 'numpy.float16'>, <class 'int'>, Float64)
    >>> ms.half, ms.single, ms.double, ms.intc, ms.dtype.ubyte
    (Float16, Float32, Float64, Int32, UInt8)
"""
import numpy as np

from graph.dtypes import (DType, as_dtype, bool_, float16, float32, float64, int8, int16, int32,
                          int64, uint8)

Float32, Float16, Float64 = float32, float16, float64
Int8, Int16, Int32, Int64, UInt8, Bool = int8, int16, int32, int64, uint8, bool_
float_ = float32
int_ = int64
# MindSpore 2.x's other names of the same dtypes (the mindspore.dtype table: ``mindspore.half``
# is float16, ``mindspore.intc`` int32...)
byte, short, intc, intp, ubyte = int8, int16, int32, int64, uint8
half, single, double = float16, float32, float64
number_type = (int8, int16, int32, int64, uint8, float16, float32, float64)


def _check_dtype(name: str, type_) -> None:
    if not isinstance(type_, DType):
        raise TypeError(f"{name}: type_ must be a MindSpore dtype (ms.float32...), got {type_!r}")


def dtype_to_nptype(type_: DType) -> type:
    """The numpy scalar type of a MindSpore dtype (``ms.float32`` -> ``numpy.float32``)."""
    _check_dtype("dtype_to_nptype", type_)
    return type_.np.type


def dtype_to_pytype(type_: DType) -> type:
    """The Python type of a MindSpore dtype's values: ``bool`` for bool_, ``int`` for the integer
    dtypes, ``float`` for the float dtypes."""
    _check_dtype("dtype_to_pytype", type_)
    return {"b": bool, "i": int, "u": int, "f": float}[type_.np.kind]


def pytype_to_dtype(obj: type | np.dtype | DType) -> DType:
    """The MindSpore dtype of a Python or numpy type: ``bool`` -> bool_, ``int`` -> int64, ``float``
    -> float64, numpy scalar types and ``numpy.dtype`` objects -> the dtype of the same name; a
    MindSpore dtype is returned as is. Anything else raises NotImplementedError (MindSpore's)."""
    if isinstance(obj, DType):
        return obj
    if isinstance(obj, np.dtype):
        obj = obj.type
    if not isinstance(obj, type):
        raise TypeError(f"pytype_to_dtype: the argument 'obj' must be a python type object, got {obj!r}")
    python = {bool: bool_, int: int64, float: float64}
    if obj in python:
        return python[obj]
    if issubclass(obj, np.generic):
        try:
            return as_dtype(obj)
        except (TypeError, ValueError):
            pass
    raise NotImplementedError(f"Unsupported convert python type {obj} to MindSpore type.")
