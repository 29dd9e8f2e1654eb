"""mindspore.numpy's math functions: arithmetic, exponents and logarithms, trigonometric and
hyperbolic functions, reductions (with the ``nan*`` forms), products and polynomials.

Each is a composition of registry ops (add, mul, exp, log, sin, reduce_sum, matmul ...), so
gradients and graph mode come from the registry; functions the registry has no op for are
written with the identities noted in their docstrings."""
from __future__ import annotations

import math

import numpy as onp

from graph.dtypes import as_dtype, promote
from graph.ops import bind

from .. import ops as _ops
from ..tensor import Tensor
from ._convert import R, as_float, cast, norm_axis, result_dtype, tensor, tensors

__all__ = ["absolute", "add", "subtract", "multiply", "divide", "true_divide", "floor_divide",
           "remainder", "fmod", "divmod", "power", "float_power", "negative", "positive", "reciprocal",
           "square", "sqrt", "cbrt", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p",
           "logaddexp", "logaddexp2", "sin", "cos", "tan", "sinh", "cosh", "tanh", "arcsinh",
           "arccosh", "arctanh", "deg2rad", "rad2deg", "radians", "hypot", "sign", "copysign",
           "heaviside", "floor", "ceil", "trunc", "fix", "rint", "around", "clip", "maximum", "minimum",
           "fmax", "fmin", "sum", "mean", "average", "amax", "amin", "ptp", "std", "var", "nansum",
           "nanmean", "nanmax", "nanmin", "nanvar", "nanstd", "nancumsum", "cumsum", "count_nonzero",
           "argmax", "argmin", "dot", "vdot", "inner", "outer", "matmul", "tensordot", "kron",
           "cross", "multi_dot", "matrix_power", "trapz", "diff", "ediff1d", "cov", "corrcoef",
           "norm", "searchsorted", "digitize", "polyval", "polyadd", "polysub", "polyder",
           "polyint", "polymul", "promote_types", "result_type", "interp", "convolve", "correlate", "gradient",
           "unwrap", "ravel_multi_index", "arcsin", "arccos", "arctan", "arctan2", "bitwise_and",
           "bitwise_or", "bitwise_xor", "invert", "gcd", "lcm", "cumprod"]


def _unary(op_name, doc):
    def fn(x, dtype=None):
        return cast(bind(R[op_name], tensor(x)), dtype)
    fn.__name__ = fn.__qualname__ = op_name
    fn.__doc__ = doc
    return fn


def _float_unary(op_name, doc):
    def fn(x, dtype=None):
        return cast(bind(R[op_name], as_float(x)), dtype)
    fn.__doc__ = doc
    return fn


def _binary(op_name, doc):
    def fn(x1, x2, dtype=None):
        a, b = tensors(x1, x2)
        return cast(bind(R[op_name], a, b), dtype)
    fn.__doc__ = doc
    return fn


absolute = _unary("abs", "Element-wise absolute value.")
negative = _unary("neg", "Element-wise ``-x``.")
sign = _unary("sign", "Element-wise sign (-1, 0, 1).")
floor = _float_unary("floor", "Element-wise floor.")
ceil = _float_unary("ceil", "Element-wise ceiling.")
sqrt = _float_unary("sqrt", "Element-wise square root.")
exp = _float_unary("exp", "Element-wise ``e ** x``.")
log = _float_unary("log", "Element-wise natural logarithm.")
log1p = _float_unary("log1p", "Element-wise ``log(1 + x)``.")
sin = _float_unary("sin", "Element-wise sine.")
cos = _float_unary("cos", "Element-wise cosine.")
tanh = _float_unary("tanh", "Element-wise hyperbolic tangent.")
reciprocal = _float_unary("reciprocal", "Element-wise ``1 / x``.")
add = _binary("add", "Element-wise ``x1 + x2`` (broadcast).")
subtract = _binary("sub", "Element-wise ``x1 - x2``.")
multiply = _binary("mul", "Element-wise ``x1 * x2``.")
maximum = _binary("maximum", "Element-wise maximum (NaN propagates).")
minimum = _binary("minimum", "Element-wise minimum (NaN propagates).")
floor_divide = _binary("floor_div", "Element-wise ``floor(x1 / x2)``.")
remainder = _binary("mod", "Element-wise remainder with the sign of the divisor (numpy's ``%``).")
for _f, _n in ((absolute, "absolute"), (negative, "negative"), (sign, "sign"), (floor, "floor"), (ceil, "ceil"),
               (sqrt, "sqrt"), (exp, "exp"), (log, "log"), (log1p, "log1p"), (sin, "sin"), (cos, "cos"),
               (tanh, "tanh"), (reciprocal, "reciprocal"), (add, "add"), (subtract, "subtract"),
               (multiply, "multiply"), (maximum, "maximum"), (minimum, "minimum"),
               (floor_divide, "floor_divide"), (remainder, "remainder")):
    _f.__name__ = _f.__qualname__ = _n


def positive(a, dtype=None):
    """A copy of ``a`` (``+a``)."""
    return cast(bind(R["identity"], tensor(a)), dtype)


def _fl(x1, x2):
    """Both operands, with a float result type (numpy's true division of integers)."""
    a, b = tensors(x1, x2)
    dt = result_dtype(a, b)
    if not dt.is_float:
        a, b = [cast(t, "float32") if hasattr(t, "dtype") else float(t) for t in (a, b)]
    return a, b


def divide(x1, x2, dtype=None):
    """Element-wise true division (integers give float32)."""
    a, b = _fl(x1, x2)
    return cast(bind(R["div"], a, b), dtype)


true_divide = divide


def fmod(x1, x2, dtype=None):
    """Element-wise remainder with the sign of the dividend (C's fmod): ``x1 - trunc(x1/x2) * x2``."""
    a, b = tensors(x1, x2)
    if result_dtype(a, b).is_float:
        q = trunc(bind(R["div"], a, b))
    else:
        q = cast(trunc(divide(a, b)), result_dtype(a, b))
    return cast(bind(R["sub"], a, bind(R["mul"], q, b)), dtype)


def divmod(x1, x2, dtype=None):  # noqa: A001 - numpy's name
    """``(floor_divide(x1, x2), remainder(x1, x2))``."""
    return floor_divide(x1, x2, dtype), remainder(x1, x2, dtype)


def power(x1, x2, dtype=None):
    """Element-wise ``x1 ** x2``."""
    a, b = tensors(x1, x2)
    return cast(bind(R["pow"], a, b), dtype)


def float_power(x1, x2, dtype=None):
    """``x1 ** x2`` computed in float (float32 here: there is no float64 default)."""
    a, b = _fl(x1, x2)
    return cast(bind(R["pow"], a, b), dtype)


def square(x, dtype=None):
    return cast(bind(R["square"], tensor(x)), dtype)


def cbrt(x, dtype=None):
    """Cube root, real for negative input: ``sign(x) * |x| ** (1/3)``."""
    x = as_float(x)
    return cast(bind(R["mul"], bind(R["sign"], x), bind(R["pow"], bind(R["abs"], x), 1.0 / 3.0)), dtype)


def exp2(x, dtype=None):
    """``2 ** x`` as ``exp(x * ln 2)``."""
    return cast(bind(R["exp"], bind(R["mul"], as_float(x), math.log(2.0))), dtype)


def expm1(x, dtype=None):
    """``exp(x) - 1``; for |x| < 1e-5 its series ``x + x**2/2`` (no cancellation near 0)."""
    x = as_float(x)
    small = bind(R["less"], bind(R["abs"], x), 1e-5)
    series = bind(R["add"], x, bind(R["mul"], bind(R["square"], x), 0.5))
    return cast(bind(R["where"], small, series, bind(R["sub"], bind(R["exp"], x), 1.0)), dtype)


def log2(x, dtype=None):
    return cast(bind(R["div"], bind(R["log"], as_float(x)), math.log(2.0)), dtype)


def log10(x, dtype=None):
    return cast(bind(R["div"], bind(R["log"], as_float(x)), math.log(10.0)), dtype)


def logaddexp(x1, x2, dtype=None):
    """``log(exp(x1) + exp(x2))`` without overflow: ``max + log1p(exp(-|x1 - x2|))``."""
    a, b = (tensor(t) for t in _fl(x1, x2))
    m = bind(R["maximum"], a, b)
    d = bind(R["abs"], bind(R["sub"], a, b))
    return cast(bind(R["add"], m, bind(R["log1p"], bind(R["exp"], bind(R["neg"], d)))), dtype)


def logaddexp2(x1, x2, dtype=None):
    """``log2(2**x1 + 2**x2)``."""
    a, b = _fl(x1, x2)
    ln2 = math.log(2.0)
    return cast(bind(R["div"], logaddexp(bind(R["mul"], tensor(a), ln2), bind(R["mul"], b, ln2)), ln2), dtype)


def tan(x, dtype=None):
    """``sin(x) / cos(x)``."""
    x = as_float(x)
    return cast(bind(R["div"], bind(R["sin"], x), bind(R["cos"], x)), dtype)


def sinh(x, dtype=None):
    """``(exp(x) - exp(-x)) / 2``."""
    x = as_float(x)
    return cast(bind(R["mul"], bind(R["sub"], bind(R["exp"], x), bind(R["exp"], bind(R["neg"], x))), 0.5), dtype)


def cosh(x, dtype=None):
    """``(exp(x) + exp(-x)) / 2``."""
    x = as_float(x)
    return cast(bind(R["mul"], bind(R["add"], bind(R["exp"], x), bind(R["exp"], bind(R["neg"], x))), 0.5), dtype)


def arcsinh(x, dtype=None):
    """``sign(x) * log(|x| + sqrt(x**2 + 1))`` (odd, so accurate for negative x)."""
    x = as_float(x)
    ax = bind(R["abs"], x)
    val = bind(R["log"], bind(R["add"], ax, bind(R["sqrt"], bind(R["add"], bind(R["square"], x), 1.0))))
    return cast(bind(R["mul"], bind(R["sign"], x), val), dtype)


def arccosh(x, dtype=None):
    """``log(x + sqrt(x**2 - 1))`` (NaN below 1)."""
    x = as_float(x)
    return cast(bind(R["log"], bind(R["add"], x, bind(R["sqrt"], bind(R["sub"], bind(R["square"], x), 1.0)))), dtype)


def arctanh(x, dtype=None):
    """``(log1p(x) - log1p(-x)) / 2``."""
    x = as_float(x)
    return cast(bind(R["mul"], bind(R["sub"], bind(R["log1p"], x), bind(R["log1p"], bind(R["neg"], x))), 0.5), dtype)


arcsin = _float_unary("asin", "Inverse sine, in [-pi/2, pi/2] (NaN outside [-1, 1]).")
arccos = _float_unary("acos", "Inverse cosine, in [0, pi] (NaN outside [-1, 1]).")
arctan = _float_unary("atan", "Inverse tangent, in (-pi/2, pi/2).")


def arctan2(x1, x2, dtype=None):
    """The angle of the point ``(x2, x1)``: ``arctan(x1 / x2)`` in the right quadrant, in [-pi, pi]."""
    a, b = tensors(x1, x2)
    return cast(bind(R["atan2"], a, b), dtype)


bitwise_and = _binary("bitwise_and", "Bitwise AND of integer or bool operands.")
bitwise_or = _binary("bitwise_or", "Bitwise OR of integer or bool operands.")
bitwise_xor = _binary("bitwise_xor", "Bitwise XOR of integer or bool operands.")
invert = _unary("invert", "Bitwise NOT (two's complement; logical NOT for bool).")
gcd = _binary("gcd", "Greatest common divisor of ``|x1|`` and ``|x2|`` (integers).")
lcm = _binary("lcm", "Least common multiple of ``|x1|`` and ``|x2|`` (integers).")
for _fn, _name in ((arcsin, "arcsin"), (arccos, "arccos"), (arctan, "arctan"), (bitwise_and, "bitwise_and"),
                   (bitwise_or, "bitwise_or"), (bitwise_xor, "bitwise_xor"), (gcd, "gcd"), (lcm, "lcm")):
    _fn.__name__ = _fn.__qualname__ = _name


def deg2rad(x, dtype=None):
    return cast(bind(R["mul"], as_float(x), math.pi / 180.0), dtype)


radians = deg2rad


def rad2deg(x, dtype=None):
    return cast(bind(R["mul"], as_float(x), 180.0 / math.pi), dtype)


def hypot(x1, x2, dtype=None):
    """``sqrt(x1**2 + x2**2)``."""
    a, b = _fl(x1, x2)
    return cast(bind(R["sqrt"], bind(R["add"], bind(R["square"], tensor(a)), bind(R["square"], tensor(b)))), dtype)


def _float_copysign(x1, x2):
    """``|x1|`` with the sign of ``x2`` (-0.0 counts as negative), as a float Tensor."""
    from .logic_ops import signbit
    a, b = _fl(x1, x2)
    mag = bind(R["abs"], tensor(a))
    return bind(R["where"], signbit(b), bind(R["neg"], mag), mag)


def copysign(x1, x2, dtype=None):
    """``|x1|`` with the sign of ``x2``, in ``x1``'s dtype: MindSpore's numpy.copysign keeps an
    integer ``x1`` integer (its r2.4 example prints ``[-1 1 -1]`` for int inputs), unlike
    ``ops.copysign``, whose result is float."""
    a = tensor(x1)
    if a.dtype.is_bool or tensor(x2).dtype.is_bool:
        raise TypeError("copysign: bool inputs are not supported")
    out = _float_copysign(a, x2)
    if not a.dtype.is_float:
        out = cast(out, a.dtype)
    return cast(out, dtype)


def heaviside(x1, x2, dtype=None):
    """0 where ``x1 < 0``, ``x2`` where ``x1 == 0``, 1 where ``x1 > 0``."""
    a, b = tensors(x1, x2)
    a = tensor(a)
    step = cast(bind(R["greater"], a, 0), a.dtype)
    return cast(bind(R["where"], bind(R["equal"], a, 0), bind(R["add"], bind(R["zeros_like"], step), b), step), dtype)


def trunc(x, dtype=None):
    """Round towards zero."""
    x = as_float(x)
    return cast(bind(R["where"], bind(R["less"], x, 0), bind(R["ceil"], x), bind(R["floor"], x)), dtype)


fix = trunc


def rint(x, dtype=None):
    """Round to the nearest integer, halves to even (as numpy)."""
    return cast(_ops.round(as_float(x)), dtype)


def around(a, decimals=0):
    """Round to ``decimals`` digits (halves to even)."""
    a = tensor(a)
    if decimals == 0:
        return rint(a) if a.dtype.is_float else a
    scale = 10.0 ** decimals
    return bind(R["div"], _ops.round(bind(R["mul"], as_float(a), scale)), scale)


def clip(a, a_min, a_max, dtype=None):
    """Limit values to ``[a_min, a_max]`` (either bound may be None)."""
    if a_min is None and a_max is None:
        raise ValueError("clip: a_min and a_max cannot both be None")
    return cast(_ops.clamp(tensor(a), a_min, a_max), dtype)


def fmax(x1, x2, dtype=None):
    """Element-wise maximum ignoring NaN (the other value wins)."""
    a, b = (tensor(t) for t in tensors(x1, x2))
    m = bind(R["maximum"], a, b)
    return cast(bind(R["where"], bind(R["isnan"], a), b, bind(R["where"], bind(R["isnan"], b), a, m)), dtype)


def fmin(x1, x2, dtype=None):
    """Element-wise minimum ignoring NaN."""
    a, b = (tensor(t) for t in tensors(x1, x2))
    m = bind(R["minimum"], a, b)
    return cast(bind(R["where"], bind(R["isnan"], a), b, bind(R["where"], bind(R["isnan"], b), a, m)), dtype)


# -- reductions -------------------------------------------------------------------------------------
def _axes(a, axis):
    return norm_axis(axis, a.ndim)


def sum(a, axis=None, dtype=None, keepdims=False, initial=None):  # noqa: A001 - numpy's name
    """Sum over ``axis`` (bool input counts as int32; ``initial`` is added)."""
    a = tensor(a)
    if a.dtype.is_bool:
        a = cast(a, "int32")
    out = bind(R["reduce_sum"], cast(a, dtype), axis=_axes(a, axis), keep_dims=keepdims)
    return out if initial is None else bind(R["add"], out, initial)


def mean(a, axis=None, dtype=None, keepdims=False):
    """Arithmetic mean over ``axis`` (float32 for integer input)."""
    a = as_float(tensor(a))
    return cast(bind(R["reduce_mean"], a, axis=_axes(a, axis), keep_dims=keepdims), dtype)


def average(x, axis=None, weights=None, returned=False):
    """Weighted mean over ``axis``; ``returned=True`` also gives the sum of weights."""
    x = as_float(x)
    if weights is None:
        avg = mean(x, axis)
        count = x.size if axis is None else onp.prod([x.shape[i] for i in _axes(x, axis)])
        wsum = bind(R["add"], bind(R["zeros_like"], avg), float(count))
    else:
        w = as_float(weights)
        if tuple(w.shape) != tuple(x.shape):
            if axis is None or w.ndim != 1:
                raise ValueError("average: weights must have the shape of x, or be 1-D along one given axis")
            ax = _axes(x, axis)[0]
            shape = [1] * x.ndim
            shape[ax] = w.shape[0]
            w = bind(R["reshape"], w, shape=tuple(shape))
        wsum = sum(bind(R["broadcast_to"], w, shape=tuple(x.shape)), axis)
        avg = bind(R["div"], sum(bind(R["mul"], x, w), axis), wsum)
    return (avg, wsum) if returned else avg


def _masked_for_reduction(name, a, initial, where):
    """``a`` with the elements ``where`` excludes replaced by ``initial`` (numpy's ``where=`` for
    max/min reductions: the excluded elements take no part, and ``initial`` is a lower (upper) bound
    that fills a slice with nothing selected)."""
    if isinstance(where, bool) and where:
        return a
    if initial is None:
        raise ValueError(f"{name}: a non-default 'where' needs 'initial' (the value of a slice where "
                         f"nothing is selected)")
    mask = tensor(where)
    if not mask.dtype.is_bool:
        raise TypeError(f"{name}: 'where' must be a boolean Tensor, got {mask.dtype}")
    fill = bind(R["zeros_like"], a)
    fill = bind(R["add"], fill, cast(tensor(initial), a.dtype)) if not a.dtype.is_bool else fill
    return bind(R["where"], mask, a, fill)


def amax(a, axis=None, keepdims=False, initial=None, where=True):
    """Maximum over ``axis``; ``initial`` is a lower bound, ``where`` selects the elements."""
    a = tensor(a)
    a = _masked_for_reduction("amax", a, initial, where)
    out = bind(R["reduce_max"], a, axis=_axes(a, axis), keep_dims=keepdims)
    return out if initial is None else bind(R["maximum"], out, initial)


def amin(a, axis=None, keepdims=False, initial=None, where=True):
    """Minimum over ``axis``; ``initial`` is an upper bound, ``where`` selects the elements."""
    a = tensor(a)
    a = _masked_for_reduction("amin", a, initial, where)
    out = bind(R["reduce_min"], a, axis=_axes(a, axis), keep_dims=keepdims)
    return out if initial is None else bind(R["minimum"], out, initial)


def ptp(x, axis=None, keepdims=False):
    """Range (max - min) over ``axis``."""
    return bind(R["sub"], amax(x, axis, keepdims), amin(x, axis, keepdims))


def var(x, axis=None, ddof=0, keepdims=False):
    """Variance over ``axis`` with ``ddof`` delta degrees of freedom."""
    x = as_float(x)
    return _ops.var(x, _axes(x, axis), ddof, keepdims)


def std(x, axis=None, ddof=0, keepdims=False):
    """Standard deviation over ``axis``."""
    return bind(R["sqrt"], var(x, axis, ddof, keepdims))


def _nan_to(a, value):
    a = tensor(a)
    return bind(R["where"], bind(R["isnan"], a), bind(R["add"], bind(R["zeros_like"], a), value), a)


def nansum(a, axis=None, dtype=None, keepdims=False):
    """Sum treating NaN as 0."""
    return sum(_nan_to(a, 0.0), axis, dtype, keepdims)


def _count_not_nan(a, axis, keepdims):
    return sum(cast(bind(R["logical_not"], bind(R["isnan"], a)), "float32"), axis, None, keepdims)


def nanmean(a, axis=None, dtype=None, keepdims=False):
    """Mean ignoring NaN."""
    a = as_float(a)
    return cast(bind(R["div"], nansum(a, axis, None, keepdims), _count_not_nan(a, axis, keepdims)), dtype)


def nanmax(a, axis=None, keepdims=False):
    """Maximum ignoring NaN."""
    return amax(_nan_to(as_float(a), -onp.inf), axis, keepdims)


def nanmin(a, axis=None, keepdims=False):
    """Minimum ignoring NaN."""
    return amin(_nan_to(as_float(a), onp.inf), axis, keepdims)


def nanvar(a, axis=None, dtype=None, ddof=0, keepdims=False):
    """Variance ignoring NaN."""
    a = as_float(a)
    m = nanmean(a, axis, keepdims=True)
    d = _nan_to(bind(R["sub"], a, m), 0.0)
    n = _count_not_nan(a, axis, keepdims)
    return cast(bind(R["div"], sum(bind(R["square"], d), axis, None, keepdims), bind(R["sub"], n, float(ddof))), dtype)


def nanstd(a, axis=None, dtype=None, ddof=0, keepdims=False):
    """Standard deviation ignoring NaN."""
    return cast(bind(R["sqrt"], nanvar(a, axis, None, ddof, keepdims)), dtype)


def cumsum(a, axis=None, dtype=None):
    """Cumulative sum along ``axis`` (of the flattened array when None)."""
    a = tensor(a)
    if axis is None:
        a, axis = bind(R["reshape"], a, shape=(a.size,)), 0
    if a.dtype.is_bool:
        a = cast(a, "int32")
    return bind(R["cumsum"], cast(a, dtype), axis=_axes(a, axis)[0])


def cumprod(a, axis=None, dtype=None):
    """Cumulative product along ``axis`` (of the flattened array when None)."""
    a = tensor(a)
    if axis is None:
        a, axis = bind(R["reshape"], a, shape=(a.size,)), 0
    if a.dtype.is_bool:
        a = cast(a, "int32")
    return bind(R["cumprod"], cast(a, dtype), axis=_axes(a, axis)[0])


def nancumsum(a, axis=None, dtype=None):
    """Cumulative sum treating NaN as 0."""
    return cumsum(_nan_to(a, 0.0), axis, dtype)


def count_nonzero(x, axis=None, keepdims=False):
    """The number of non-zero values along ``axis`` (int32)."""
    x = tensor(x)
    return sum(cast(bind(R["not_equal"], x, 0), "int32"), axis, None, keepdims)


def argmax(a, axis=None):
    """Indices of the maximum (of the flattened array when ``axis`` is None)."""
    a = tensor(a)
    if axis is None:
        a, axis = bind(R["reshape"], a, shape=(a.size,)), 0
    return bind(R["argmax"], a, axis=_axes(a, axis)[0])


def argmin(a, axis=None):
    """Indices of the minimum (of the flattened array when ``axis`` is None)."""
    a = tensor(a)
    if axis is None:
        a, axis = bind(R["reshape"], a, shape=(a.size,)), 0
    return bind(R["argmin"], a, axis=_axes(a, axis)[0])


# -- products ---------------------------------------------------------------------------------------
def _mm_operands(a, b):
    a, b = tensor(a), tensor(b)
    dt = result_dtype(a, b)
    return cast(a, dt), cast(b, dt)


def matmul(x1, x2, dtype=None):
    """Matrix product with numpy's rules for 1-D operands and batch broadcasting."""
    a, b = _mm_operands(x1, x2)
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError("matmul: input operands must not be scalars")
    va, vb = a.ndim == 1, b.ndim == 1
    if va:
        a = bind(R["reshape"], a, shape=(1, a.shape[0]))
    if vb:
        b = bind(R["reshape"], b, shape=(b.shape[0], 1))
    if a.shape[-1] != b.shape[-2]:
        raise ValueError(f"matmul: shapes {tuple(x1.shape) if hasattr(x1, 'shape') else ''} and "
                         f"{tuple(x2.shape) if hasattr(x2, 'shape') else ''} are not aligned")
    batch = onp.broadcast_shapes(tuple(a.shape[:-2]), tuple(b.shape[:-2]))
    if a.ndim > 2 or b.ndim > 2:
        a = bind(R["broadcast_to"], a, shape=batch + tuple(a.shape[-2:]))
        b = bind(R["broadcast_to"], b, shape=batch + tuple(b.shape[-2:]))
    out = bind(R["matmul"], a, b)
    if va:
        out = bind(R["squeeze"], out, axis=(out.ndim - 2,))
    if vb:
        out = bind(R["squeeze"], out, axis=(out.ndim - 1,))
    return cast(out, dtype)


def dot(a, b):
    """numpy's dot: scalars multiply, 1-D with 1-D is the inner product, N-D with M-D sums over
    the last axis of ``a`` and the second-to-last of ``b``."""
    a, b = _mm_operands(a, b)
    if a.ndim == 0 or b.ndim == 0:
        return bind(R["mul"], a, b)
    if b.ndim == 1 or a.ndim == 1 or b.ndim == 2:
        if a.ndim == 1 and b.ndim == 1:
            return bind(R["reduce_sum"], bind(R["mul"], a, b), axis=(0,), keep_dims=False)
        return tensordot(a, b, ((a.ndim - 1,), (max(b.ndim - 2, 0),)))
    return tensordot(a, b, ((a.ndim - 1,), (b.ndim - 2,)))


def vdot(a, b):
    """The dot product of the flattened arrays."""
    a, b = _mm_operands(a, b)
    return dot(bind(R["reshape"], a, shape=(a.size,)), bind(R["reshape"], b, shape=(b.size,)))


def inner(a, b):
    """Sum product over the last axes."""
    a, b = _mm_operands(a, b)
    if a.ndim == 0 or b.ndim == 0:
        return bind(R["mul"], a, b)
    return tensordot(a, b, ((a.ndim - 1,), (b.ndim - 1,)))


def outer(a, b):
    """The outer product of the flattened arrays."""
    a, b = _mm_operands(a, b)
    return bind(R["mul"], bind(R["reshape"], a, shape=(a.size, 1)), bind(R["reshape"], b, shape=(1, b.size)))


def tensordot(a, b, axes=2):
    """Sum products over ``axes`` (an int: the last N of ``a`` and first N of ``b``; or two lists),
    as one matmul of the transposed, reshaped operands."""
    a, b = _mm_operands(a, b)
    if isinstance(axes, int):
        ax_a, ax_b = tuple(range(a.ndim - axes, a.ndim)), tuple(range(axes))
    else:
        ax_a, ax_b = axes
        ax_a = norm_axis(ax_a, a.ndim, "axes")
        ax_b = norm_axis(ax_b, b.ndim, "axes")
    if len(ax_a) != len(ax_b) or any(a.shape[i] != b.shape[j] for i, j in zip(ax_a, ax_b)):
        raise ValueError(f"tensordot: shape mismatch for sum over axes {ax_a} of {tuple(a.shape)} and "
                         f"{ax_b} of {tuple(b.shape)}")
    free_a = [i for i in range(a.ndim) if i not in ax_a]
    free_b = [i for i in range(b.ndim) if i not in ax_b]
    k = int(onp.prod([a.shape[i] for i in ax_a])) if ax_a else 1
    m = int(onp.prod([a.shape[i] for i in free_a])) if free_a else 1
    n = int(onp.prod([b.shape[i] for i in free_b])) if free_b else 1
    at = bind(R["reshape"], bind(R["transpose"], a, perm=tuple(free_a) + tuple(ax_a)), shape=(m, k))
    bt = bind(R["reshape"], bind(R["transpose"], b, perm=tuple(ax_b) + tuple(free_b)), shape=(k, n))
    out = bind(R["matmul"], at, bt)
    return bind(R["reshape"], out, shape=tuple(a.shape[i] for i in free_a) + tuple(b.shape[i] for i in free_b))


def kron(a, b):
    """The Kronecker product."""
    a, b = _mm_operands(a, b)
    nd = max(a.ndim, b.ndim)
    a = bind(R["reshape"], a, shape=(1,) * (nd - a.ndim) + tuple(a.shape))
    b = bind(R["reshape"], b, shape=(1,) * (nd - b.ndim) + tuple(b.shape))
    # a[i, None] * b[None, j] interleaved: shape (a0, b0, a1, b1, ...)
    a_view = bind(R["reshape"], a, shape=tuple(x for d in a.shape for x in (d, 1)))
    b_view = bind(R["reshape"], b, shape=tuple(x for d in b.shape for x in (1, d)))
    prod = bind(R["mul"], a_view, b_view)
    return bind(R["reshape"], prod, shape=tuple(x * y for x, y in zip(a.shape, b.shape)))


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """The cross product of 3-vectors (2-vectors are taken with z = 0)."""
    from .array_ops import moveaxis, stack
    a, b = _mm_operands(a, b)
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = moveaxis(a, axisa, -1), moveaxis(b, axisb, -1)

    def comp(v, i):
        if i < v.shape[-1]:
            return bind(R["squeeze"], bind(R["slice"], v, begin=(0,) * (v.ndim - 1) + (i,),
                                           size=tuple(v.shape[:-1]) + (1,)), axis=(v.ndim - 1,))
        return None
    if a.shape[-1] not in (2, 3) or b.shape[-1] not in (2, 3):
        raise ValueError("cross: incompatible dimensions for cross product (dimension must be 2 or 3)")
    a0, a1, a2 = (comp(a, i) for i in range(3))
    b0, b1, b2 = (comp(b, i) for i in range(3))

    def mul(x, y):
        return None if x is None or y is None else bind(R["mul"], x, y)

    def sub(x, y):
        if x is None and y is None:
            return None
        if y is None:
            return x
        return bind(R["neg"], y) if x is None else bind(R["sub"], x, y)
    c0, c1, c2 = sub(mul(a1, b2), mul(a2, b1)), sub(mul(a2, b0), mul(a0, b2)), sub(mul(a0, b1), mul(a1, b0))
    if a.shape[-1] == 2 and b.shape[-1] == 2:
        return c2
    c0, c1 = [c if c is not None else bind(R["zeros_like"], c2) for c in (c0, c1)]
    return moveaxis(stack([c0, c1, c2], -1), -1, axisc)


def multi_dot(arrays):
    """``dot`` of a sequence of arrays, left to right."""
    arrays = list(arrays)
    out = arrays[0]
    for x in arrays[1:]:
        out = dot(out, x)
    return out


def matrix_power(a, n):
    """``a`` (a square matrix or a stack of them) to the integer power ``n >= 0`` by squaring."""
    a = tensor(a)
    if not isinstance(n, int) or n < 0:
        raise ValueError(f"matrix_power: n must be a non-negative int (inverses are not supported), got {n!r}")
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"matrix_power: input must be square matrices, got shape {tuple(a.shape)}")
    result = None
    base = a
    while n:
        if n & 1:
            result = base if result is None else matmul(result, base)
        n >>= 1
        if n:
            base = matmul(base, base)
    if result is None:
        eye = onp.broadcast_to(onp.eye(a.shape[-1], dtype=a.dtype.np), tuple(a.shape)).copy()
        return Tensor._placed(eye)
    return result


def trapz(y, x=None, dx=1.0, axis=-1):
    """The trapezoidal rule along ``axis``."""
    y = as_float(y)
    ax = _axes(y, axis)[0]
    n = y.shape[ax]
    lo = [0] * y.ndim
    size = list(y.shape)
    size[ax] = n - 1
    y0 = bind(R["slice"], y, begin=tuple(lo), size=tuple(size))
    lo[ax] = 1
    y1 = bind(R["slice"], y, begin=tuple(lo), size=tuple(size))
    mid = bind(R["mul"], bind(R["add"], y0, y1), 0.5)
    if x is None:
        return bind(R["mul"], sum(mid, ax), dx)
    dxs = diff(as_float(x), axis=-1 if tensor(x).ndim == 1 else ax)
    if dxs.ndim == 1 and y.ndim > 1:
        shape = [1] * y.ndim
        shape[ax] = dxs.shape[0]
        dxs = bind(R["reshape"], dxs, shape=tuple(shape))
    return sum(bind(R["mul"], mid, dxs), ax)


def diff(a, n=1, axis=-1, prepend=None, append=None):
    """The ``n``-th discrete difference along ``axis``."""
    from .array_ops import concatenate, broadcast_to
    a = tensor(a)
    ax = _axes(a, axis)[0]
    parts = []
    for extra in (prepend, None, append):
        if extra is None:
            continue
        e = tensor(extra)
        if e.ndim == 0:
            shape = list(a.shape)
            shape[ax] = 1
            e = broadcast_to(e, shape)
        parts.append(e)
    if prepend is not None or append is not None:
        pieces = ([tensor(parts[0])] if prepend is not None else []) + [a] + \
            ([parts[-1]] if append is not None else [])
        a = concatenate(pieces, ax)
    for _ in range(n):
        m = a.shape[ax]
        size = list(a.shape)
        size[ax] = m - 1
        lo = [0] * a.ndim
        first = bind(R["slice"], a, begin=tuple(lo), size=tuple(size))
        lo[ax] = 1
        second = bind(R["slice"], a, begin=tuple(lo), size=tuple(size))
        a = bind(R["sub"], second, first)
    return a


def ediff1d(ary, to_end=None, to_begin=None):
    """Differences between consecutive elements of the flattened array."""
    from .array_ops import concatenate, ravel
    d = diff(ravel(ary))
    parts = ([ravel(to_begin)] if to_begin is not None else []) + [d] + ([ravel(to_end)] if to_end is not None else [])
    return concatenate(parts, 0) if len(parts) > 1 else d


def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, dtype=None):
    """The covariance matrix of the variables (rows of ``m`` when ``rowvar``); weights unsupported."""
    from .array_ops import concatenate
    if fweights is not None or aweights is not None:
        raise ValueError("cov: fweights/aweights are not supported")
    x = as_float(m)
    if x.ndim == 1:
        x = bind(R["reshape"], x, shape=(1, x.shape[0]))
    if not rowvar and x.shape[0] != 1:
        x = bind(R["transpose"], x, perm=(1, 0))
    if y is not None:
        yy = as_float(y)
        if yy.ndim == 1:
            yy = bind(R["reshape"], yy, shape=(1, yy.shape[0]))
        if not rowvar and yy.shape[0] != 1:
            yy = bind(R["transpose"], yy, perm=(1, 0))
        x = concatenate((x, yy), 0)
    ddof = (0 if bias else 1) if ddof is None else ddof
    n = x.shape[1]
    xc = bind(R["sub"], x, bind(R["reduce_mean"], x, axis=(1,), keep_dims=True))
    c = bind(R["div"], bind(R["matmul"], xc, xc, transpose_b=True), float(n - ddof))
    c = bind(R["squeeze"], c, axis=None) if c.shape == (1, 1) else c
    return cast(c, dtype)


def corrcoef(x, y=None, rowvar=True, dtype=None):
    """Pearson correlation coefficients."""
    c = cov(x, y, rowvar)
    if c.ndim == 0:
        return bind(R["div"], c, c)
    d = bind(R["sqrt"], _diagonal_of(c))
    out = bind(R["div"], bind(R["div"], c, bind(R["reshape"], d, shape=(d.shape[0], 1))),
               bind(R["reshape"], d, shape=(1, d.shape[0])))
    return cast(_ops.clamp(out, -1.0, 1.0), dtype)


def _diagonal_of(c):
    from .array_creations import diagonal
    return diagonal(c)


def norm(x, ord=None, axis=None, keepdims=False):  # noqa: A002 - numpy's name
    """Vector or matrix norm (``ops.norm``)."""
    x = as_float(x)
    return _ops.norm(x, ord, axis, keepdims)


def searchsorted(a, v, side="left", sorter=None):
    """Insertion indices of ``v`` into the sorted 1-D ``a``: the count of elements less than
    (``side="left"``) or at most (``"right"``) each value, an int32 Tensor."""
    if side not in ("left", "right"):
        raise ValueError(f"searchsorted: side must be 'left' or 'right', got {side!r}")
    a, v = tensor(a), tensor(v)
    if sorter is not None:
        a = bind(R["gather"], a, tensor(sorter), axis=0)
    if a.ndim != 1:
        raise ValueError("searchsorted: a must be 1-D")
    vv = bind(R["reshape"], v, shape=tuple(v.shape) + (1,))
    cmp = bind(R["less"] if side == "left" else R["less_equal"], a, vv)
    return bind(R["reduce_sum"], cast(cmp, "int32"), axis=(v.ndim,), keep_dims=False)


def digitize(x, bins, right=False):
    """Indices of the bins each value falls in (``bins`` increasing or decreasing)."""
    b = tensor(bins)
    bn = b.asnumpy() if isinstance(b, Tensor) else None
    if bn is not None and bn.size > 1 and bn[0] > bn[-1]:
        n = bn.size
        flipped = Tensor._placed(onp.ascontiguousarray(bn[::-1]))
        return bind(R["sub"], n, searchsorted(flipped, x, "left" if right else "right"))
    return searchsorted(b, x, "left" if right else "right")


def polyval(p, x):
    """Evaluate the polynomial with coefficients ``p`` (highest power first) at ``x`` (Horner)."""
    p, x = tensor(p), tensor(x)
    out = bind(R["zeros_like"], bind(R["mul"], x, p[0]))
    for i in range(p.shape[0]):
        out = bind(R["add"], bind(R["mul"], out, x), p[i])
    return out


def _poly_pad(a, n):
    from .array_ops import concatenate
    a = tensor(a)
    if a.shape[0] < n:
        a = concatenate((Tensor._placed(onp.zeros(n - a.shape[0], a.dtype.np)), a), 0)
    return a


def polyadd(a1, a2):
    """Sum of two polynomials."""
    n = max(tensor(a1).shape[0], tensor(a2).shape[0])
    return add(_poly_pad(a1, n), _poly_pad(a2, n))


def polysub(a1, a2):
    """Difference of two polynomials."""
    n = max(tensor(a1).shape[0], tensor(a2).shape[0])
    return subtract(_poly_pad(a1, n), _poly_pad(a2, n))


def polyder(p, m=1):
    """The ``m``-th derivative of a polynomial, in ``p``'s dtype (integer coefficients stay integer,
    as MindSpore r2.4's example ``polyder([1, 1, 1, 1])`` -> ``[3 2 1]`` shows)."""
    p = tensor(p)
    if p.ndim != 1:
        raise ValueError(f"polyder: p must be 1-D, got shape {tuple(p.shape)}")
    if m < 0:
        raise ValueError(f"polyder: order of derivative must be non-negative, got {m}")
    if p.dtype.is_bool:
        p = cast(p, "int32")
    for _ in range(m):
        n = p.shape[0] - 1
        if n <= 0:
            return Tensor._placed(onp.zeros(1, p.dtype.np))
        powers = Tensor._placed(onp.arange(n, 0, -1).astype(p.dtype.np))
        p = bind(R["mul"], bind(R["slice"], p, begin=(0,), size=(n,)), powers)
    return p


def polyint(p, m=1, k=None):
    """The ``m``-th antiderivative of a polynomial (integration constants ``k``, 0 by default)."""
    from .array_ops import concatenate
    p = as_float(p)
    ks = [0.0] * m if k is None else (list(k) if isinstance(k, (list, tuple)) else [k] * m)
    for i in range(m):
        n = p.shape[0]
        divisors = Tensor._placed(onp.arange(n, 0, -1).astype(p.dtype.np))
        p = concatenate((bind(R["div"], p, divisors), Tensor._placed(onp.asarray([ks[i]], p.dtype.np))), 0)
    return p


def polymul(a1, a2):
    """The product of two polynomials (a convolution of the coefficients)."""
    a, b = _mm_operands(a1, a2)
    n, m = a.shape[0], b.shape[0]
    # out[k] = sum_i a[i] * b[k - i]: outer product summed along anti-diagonals with a 0/1 matrix
    place = onp.zeros((n * m, n + m - 1), a.dtype.np if a.dtype.is_float else onp.float32)
    for i in range(n):
        for j in range(m):
            place[i * m + j, i + j] = 1
    prod = bind(R["reshape"], outer(a, b), shape=(1, n * m))
    out = bind(R["matmul"], cast(prod, "float32") if not a.dtype.is_float else prod, Tensor._placed(place))
    return cast(bind(R["reshape"], out, shape=(n + m - 1,)), a.dtype)


def promote_types(type1, type2):
    """The smallest dtype both can be safely cast to."""
    return promote(as_dtype(type1), as_dtype(type2))


def _dtype_of_spec(spec):
    """A dtype given as a DType, numpy type, name ('float32'), or numpy type code ('i2', '<f4', '?'),
    which MindSpore's numpy.result_type accepts as numpy does."""
    if isinstance(spec, str):
        try:
            return as_dtype(spec)
        except TypeError:
            try:
                code = onp.dtype(spec)
            except TypeError:
                raise TypeError(f"result_type: cannot interpret {spec!r} as a dtype") from None
            try:
                return as_dtype(code)
            except Exception:
                raise TypeError(f"result_type: unsupported dtype {spec!r} ({code})") from None
    return as_dtype(spec)


def result_type(*arrays_and_dtypes):
    """The dtype that results from combining the arguments (Python scalars are weak; a str may be
    a dtype name or a numpy type code such as 'i2')."""
    dt = None
    for a in arrays_and_dtypes:
        if hasattr(a, "dtype"):
            d = a.dtype
        elif isinstance(a, (bool, int, float)):
            continue
        else:
            d = _dtype_of_spec(a)
        dt = d if dt is None else promote(dt, d)
    if dt is None:
        dt = tensor(arrays_and_dtypes[0]).dtype
    return dt


def interp(x, xp, fp, left=None, right=None):
    """Piecewise-linear interpolation of (``xp``, ``fp``) at ``x`` (``xp`` increasing)."""
    x, xp, fp = as_float(x), as_float(xp), as_float(fp)
    n = xp.shape[0]
    idx = _ops.clamp(bind(R["sub"], searchsorted(xp, x, "right"), 1), 0, n - 2)
    x0, x1 = bind(R["gather"], xp, idx, axis=0), bind(R["gather"], xp, bind(R["add"], idx, 1), axis=0)
    y0, y1 = bind(R["gather"], fp, idx, axis=0), bind(R["gather"], fp, bind(R["add"], idx, 1), axis=0)
    t = bind(R["div"], bind(R["sub"], x, x0), bind(R["sub"], x1, x0))
    out = bind(R["add"], y0, bind(R["mul"], t, bind(R["sub"], y1, y0)))
    lo = fp[0] if left is None else left
    hi = fp[n - 1] if right is None else right
    out = bind(R["where"], bind(R["less"], x, xp[0]), bind(R["add"], bind(R["zeros_like"], out), lo), out)
    return bind(R["where"], bind(R["greater"], x, xp[n - 1]), bind(R["add"], bind(R["zeros_like"], out), hi), out)



def convolve(a, v, mode="full"):
    """Discrete linear convolution of two 1-D arrays ("full", "same" or "valid"): the
    coefficients of the product of the polynomials, sliced as numpy slices them."""
    a, v = tensor(a), tensor(v)
    if a.ndim != 1 or v.ndim != 1:
        raise ValueError("convolve: a and v must be 1-D")
    if a.shape[0] == 0 or v.shape[0] == 0:
        raise ValueError("convolve: a and v cannot be empty")
    full = polymul(a, v)
    n, m = a.shape[0], v.shape[0]
    if mode == "full":
        return full
    if mode == "same":
        length = max(n, m)
        start = (n + m - 1 - length) // 2
    elif mode == "valid":
        length = max(n, m) - min(n, m) + 1
        start = min(n, m) - 1
    else:
        raise ValueError(f"convolve: mode must be 'full', 'same' or 'valid', got {mode!r}")
    return bind(R["slice"], full, begin=(start,), size=(length,))


def correlate(a, v, mode="valid"):
    """Cross-correlation of two 1-D arrays: ``convolve(a, v[::-1], mode)`` (real input)."""
    from .array_ops import flip
    return convolve(a, flip(tensor(v)), mode)


def gradient(f, *varargs, axis=None, edge_order=1):
    """Central differences inside, one-sided differences at the ends (``edge_order=1``), with a
    scalar spacing per axis (1 by default); a list of arrays for several axes."""
    f = as_float(f)
    axes = _axes(f, axis)
    if edge_order != 1:
        raise ValueError("gradient: only edge_order=1 is supported")
    if len(varargs) == 0:
        spacing = [1.0] * len(axes)
    elif len(varargs) == 1:
        spacing = [varargs[0]] * len(axes)
    elif len(varargs) == len(axes):
        spacing = list(varargs)
    else:
        raise TypeError("gradient: give one spacing, or one per axis")
    if any(hasattr(h, "shape") and getattr(h, "ndim", 0) > 0 for h in spacing):
        raise ValueError("gradient: only scalar spacings are supported")
    out = []
    for ax, h in zip(axes, spacing):
        h = float(h.asnumpy()) if hasattr(h, "asnumpy") else float(h)
        n = f.shape[ax]
        if n < 2:
            raise ValueError("gradient: each axis needs at least edge_order + 1 = 2 elements")

        def part(start, length):
            begin = [0] * f.ndim
            size = list(f.shape)
            begin[ax], size[ax] = start, length
            return bind(R["slice"], f, begin=tuple(begin), size=tuple(size))
        first = bind(R["div"], bind(R["sub"], part(1, 1), part(0, 1)), h)
        last = bind(R["div"], bind(R["sub"], part(n - 1, 1), part(n - 2, 1)), h)
        pieces = [first]
        if n > 2:
            pieces.append(bind(R["div"], bind(R["sub"], part(2, n - 2), part(0, n - 2)), 2.0 * h))
        pieces.append(last)
        out.append(bind(R["concat"], *pieces, axis=ax))
    return out[0] if len(out) == 1 else out


def unwrap(p, discont=None, axis=-1, period=2 * math.pi):
    """Unwrap phase jumps larger than ``discont`` (``period / 2`` by default) along ``axis``."""
    from .array_ops import concatenate
    p = as_float(p)
    ax = _axes(p, axis)[0]
    if discont is None:
        discont = period / 2
    half = period / 2.0
    dd = diff(p, axis=ax)
    ddmod = bind(R["sub"], bind(R["mod"], bind(R["add"], dd, half), float(period)), half)
    boundary = bind(R["logical_and"], bind(R["equal"], ddmod, -half), bind(R["greater"], dd, 0.0))
    ddmod = bind(R["where"], boundary, bind(R["add"], bind(R["zeros_like"], ddmod), half), ddmod)
    correct = bind(R["sub"], ddmod, dd)
    correct = bind(R["where"], bind(R["less"], bind(R["abs"], dd), float(discont)),
                   bind(R["zeros_like"], correct), correct)
    begin = [0] * p.ndim
    size = list(p.shape)
    size[ax] = 1
    head = bind(R["slice"], p, begin=tuple(begin), size=tuple(size))
    begin[ax], size[ax] = 1, p.shape[ax] - 1
    rest = bind(R["add"], bind(R["slice"], p, begin=tuple(begin), size=tuple(size)),
                bind(R["cumsum"], correct, axis=ax))
    return concatenate((head, rest), ax)


def ravel_multi_index(multi_index, dims, mode="clip", order="C"):
    """Flat indices of coordinate arrays in an array of shape ``dims`` (``mode`` "clip" or
    "wrap" for out-of-range coordinates; "raise" cannot be checked in a graph and clips)."""
    if order not in ("C", "F"):
        raise ValueError(f"ravel_multi_index: order must be 'C' or 'F', got {order!r}")
    dims = tuple(int(d) for d in dims)
    idx = [tensor(i) for i in multi_index]
    if len(idx) != len(dims):
        raise ValueError(f"ravel_multi_index: {len(idx)} index arrays for {len(dims)} dimensions")
    modes = (mode,) * len(dims) if isinstance(mode, str) else tuple(mode)
    order_dims = range(len(dims)) if order == "C" else reversed(range(len(dims)))
    out = None
    for k in order_dims:
        i, d, m = idx[k], dims[k], modes[k]
        if m == "wrap":
            i = bind(R["mod"], i, d)
        elif m in ("clip", "raise"):
            i = _ops.clamp(i, 0, d - 1)
        else:
            raise ValueError(f"ravel_multi_index: mode must be 'raise', 'wrap' or 'clip', got {m!r}")
        out = i if out is None else bind(R["add"], bind(R["mul"], out, d), i)
    return out
