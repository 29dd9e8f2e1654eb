"""``runtime.numpy`` (``mindspore.numpy``): numpy-style functions on Tensors, composed from the
op registry, so they differentiate and run in every mode (PyNative, ``ms.jit``, GRAPH_MODE, under
the frame hook).

Defaults follow mindspore.numpy, not numpy: Python/numpy ints become int32 and floats float32
(``asarray`` narrows 64-bit input), float results of integer input are float32.
:data:`DOCUMENTED` is the function list of MindSpore 2.x's API reference (``mindspore.numpy.rst``:
array generation, array operation, logic and math); the names of it not here yet are
:func:`missing` and are listed in docs/mindspore-compat.md.

Example:
    >>> import runtime.numpy as mnp
    >>> mnp.arange(0, 5, 1)
    Tensor(shape=[5], dtype=Int32, value=[0, 1, 2, 3, 4])
    >>> mnp.tri(3, 3, 1)
    Tensor(shape=[3, 3], dtype=Float32, value=
    [[1., 1., 0.],
     [1., 1., 1.],
     [1., 1., 1.]])
"""
from __future__ import annotations

import math as _math

from .. import dtype as _dt
from .array_creations import *  # noqa: F403
from .array_creations import __all__ as _creations_all
from .array_ops import *  # noqa: F403
from .array_ops import __all__ as _array_ops_all
from .logic_ops import *  # noqa: F403
from .logic_ops import __all__ as _logic_all
from .math_ops import *  # noqa: F403
from .math_ops import __all__ as _math_all
from .histograms import *  # noqa: F403
from .histograms import __all__ as _histograms_all

# dtypes and constants mindspore.numpy re-exports
bool_ = _dt.bool_
int8, int16, int32, int64, uint8 = _dt.int8, _dt.int16, _dt.int32, _dt.int64, _dt.uint8
float16, float32, float64 = _dt.float16, _dt.float32, _dt.float64
int_, float_ = int32, float32
pi, e, inf, nan = _math.pi, _math.e, float("inf"), float("nan")
PINF, NINF = inf, -inf
newaxis = None

#: mindspore.numpy's documented functions (MindSpore 2.x API reference, mindspore.numpy.rst)
DOCUMENTED = (
    # array generation
    "arange", "array", "asarray", "asfarray", "bartlett", "blackman", "copy", "diag", "diag_indices",
    "diagflat", "diagonal", "empty", "empty_like", "eye", "full", "full_like", "geomspace", "hamming",
    "hanning", "histogram_bin_edges", "identity", "indices", "ix_", "linspace", "logspace", "meshgrid",
    "mgrid", "ogrid", "ones", "ones_like", "pad", "rand", "randint", "randn", "trace", "tri", "tril",
    "tril_indices", "tril_indices_from", "triu", "triu_indices", "triu_indices_from", "vander", "zeros",
    "zeros_like",
    # array operation
    "append", "apply_along_axis", "apply_over_axes", "array_split", "array_str", "atleast_1d",
    "atleast_2d", "atleast_3d", "broadcast_arrays", "broadcast_to", "choose", "column_stack",
    "concatenate", "dsplit", "dstack", "expand_dims", "flip", "fliplr", "flipud", "hsplit", "hstack",
    "moveaxis", "piecewise", "ravel", "repeat", "reshape", "roll", "rollaxis", "rot90", "select", "size",
    "split", "squeeze", "stack", "swapaxes", "take", "take_along_axis", "tile", "transpose", "unique",
    "unravel_index", "vsplit", "vstack", "where",
    # logic
    "array_equal", "array_equiv", "equal", "greater", "greater_equal", "in1d", "isclose", "isfinite",
    "isin", "isinf", "isnan", "isneginf", "isposinf", "isscalar", "less", "less_equal", "logical_and",
    "logical_not", "logical_or", "logical_xor", "not_equal", "signbit", "sometrue",
    # math
    "absolute", "add", "amax", "amin", "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctan2",
    "arctanh", "argmax", "argmin", "around", "average", "bincount", "bitwise_and", "bitwise_or",
    "bitwise_xor", "cbrt", "ceil", "clip", "convolve", "copysign", "corrcoef", "correlate", "cos", "cosh",
    "count_nonzero", "cov", "cross", "cumprod", "cumsum", "deg2rad", "diff", "digitize", "divide",
    "divmod", "dot", "ediff1d", "exp", "exp2", "expm1", "fix", "float_power", "floor", "floor_divide",
    "fmod", "gcd", "gradient", "heaviside", "histogram", "histogram2d", "histogramdd", "hypot", "inner",
    "interp", "invert", "kron", "lcm", "log", "log10", "log1p", "log2", "logaddexp", "logaddexp2",
    "matmul", "matrix_power", "maximum", "mean", "minimum", "multi_dot", "multiply", "nancumsum",
    "nanmax", "nanmean", "nanmin", "nanstd", "nansum", "nanvar", "negative", "norm", "outer", "polyadd",
    "polyder", "polyint", "polymul", "polysub", "polyval", "positive", "power", "promote_types", "ptp",
    "rad2deg", "radians", "ravel_multi_index", "reciprocal", "remainder", "result_type", "rint",
    "searchsorted", "sign", "sin", "sinh", "sqrt", "square", "std", "subtract", "sum", "tan", "tanh",
    "tensordot", "trapz", "true_divide", "trunc", "unwrap", "var",
)

#: why a documented name is absent (shown in docs/mindspore-compat.md)
WHY_MISSING = {
    "bincount": "data-dependent output length",
}

__all__ = sorted(set(_creations_all) | set(_array_ops_all) | set(_logic_all) | set(_math_all)
                 | set(_histograms_all))


def missing() -> list:
    """The documented mindspore.numpy functions this module does not have yet."""
    have = set(globals())
    return [n for n in DOCUMENTED if n not in have]
