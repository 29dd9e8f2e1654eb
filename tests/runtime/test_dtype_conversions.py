"""mindspore.dtype_to_nptype / dtype_to_pytype / pytype_to_dtype, against numpy's own types."""
import numpy as np
import pytest

import runtime as ms

ALL = [ms.bool_, ms.int8, ms.int16, ms.int32, ms.int64, ms.uint8, ms.float16, ms.float32, ms.float64]


@pytest.mark.parametrize("dtype", ALL, ids=str)
def test_round_trip_through_numpy(dtype):
    nptype = ms.dtype_to_nptype(dtype)
    assert issubclass(nptype, np.generic) and np.dtype(nptype).itemsize == dtype.itemsize
    assert ms.pytype_to_dtype(nptype) is dtype
    assert ms.pytype_to_dtype(np.dtype(nptype)) is dtype
    # the Python type of a value of this dtype, as numpy's item() gives it
    assert ms.dtype_to_pytype(dtype) is type(np.zeros(1, nptype).item())
    assert ms.Tensor(np.zeros(2, nptype)).dtype is dtype


def test_python_types_and_errors():
    assert (ms.pytype_to_dtype(bool), ms.pytype_to_dtype(int), ms.pytype_to_dtype(float)) == \
        (ms.bool_, ms.int64, ms.float64)
    assert ms.pytype_to_dtype(ms.float32) is ms.float32
    with pytest.raises(NotImplementedError, match="Unsupported convert python type"):
        ms.pytype_to_dtype(str)
    with pytest.raises(TypeError, match="pytype_to_dtype"):
        ms.pytype_to_dtype(3)
    with pytest.raises(TypeError, match="dtype_to_nptype"):
        ms.dtype_to_nptype(np.float32)
