"""User-facing dtypes: ``ms.float32`` etc. (re-exported from ``graph.dtypes``).

Example:
    >>> import runtime as ms
    >>> ms.float32, ms.dtype.int32
    (Float32, Int32)
"""
from graph.dtypes import (DType, as_dtype, bool_, float16, float32, float64, int8, int16, int32,  # noqa: F401
                          int64, uint8)

Float32, Float16, Float64 = float32, float16, float64
Int8, Int16, Int32, Int64, UInt8, Bool = int8, int16, int32, int64, uint8, bool_
float_ = float32
int_ = int64
number_type = (int8, int16, int32, int64, uint8, float16, float32, float64)
