"""More of MindSpore 2.x's functional math API (``ops.tan``, ``ops.expm1``, ``ops.xlogy``, ``ops.logaddexp``,
``ops.fmod``, ``ops.nansum``, ``ops.median``, ``ops.cummax``, ``ops.addmm``, ``ops.kron`` ...), with
MindSpore's signatures and parameter names (``input``, ``other``, ``axis``/``dim``, ``keepdims``).

No new op semantics: each function is a composition of registry ops, mostly by reusing the
``mindspore.numpy`` function of the same math (``runtime.numpy``) or the Primitive of the same name
(``runtime.ops.compat_ops``), so gradients, vmap and graph mode come from the registry.

Example:
    >>> from runtime import ops, Tensor
    >>> [round(v, 4) for v in ops.xlogy(Tensor([0.0, 1.0, 2.0]), Tensor([0.0, 3.0, 4.0])).asnumpy().tolist()]
    [0.0, 1.0986, 2.7726]
    >>> ops.fmod(Tensor([-3.0, 3.0]), 2.0).asnumpy().tolist()
    [-1.0, 1.0]
"""
from __future__ import annotations

import math

import numpy as np

from graph.dtypes import as_dtype, float32, int32, int64
from graph.ops import REGISTRY, bind
from graph.ops.core import is_tensorlike

from ..tensor import Tensor

_R = REGISTRY

__all__ = [
    # element-wise
    "tan", "sinh", "cosh", "asinh", "arcsinh", "acosh", "arccosh", "atanh", "arctanh", "expm1", "exp2", "erfc",
    "log2", "log10", "trunc", "frac", "sinc", "deg2rad", "rad2deg", "hypot", "logaddexp", "logaddexp2", "copysign",
    "heaviside", "fmod", "remainder", "floor_mod", "floormod", "float_power", "true_divide", "divide",
    "floor_divide", "floordiv", "truncate_div", "truncate_mod", "multiply", "subtract", "negative", "positive",
    "absolute", "xlogy", "xdivy", "logit", "lerp", "inv", "addcdiv", "addcmul", "nan_to_num", "signbit", "sgn",
    "isneginf", "isposinf", "isreal", "is_complex", "is_floating_point", "tanhshrink", "ldexp",
    "tensor_add", "tensor_sub", "tensor_mul", "tensor_div", "tensor_floordiv", "tensor_pow", "tensor_mod",
    "tensor_exp", "tensor_expm1", "tensor_lt", "tensor_le", "tensor_gt", "tensor_ge", "approximate_equal",
    # reductions and scans
    "nansum", "nanmean", "median", "cummax", "cummin", "logcumsumexp", "std_mean", "var_mean", "aminmax",
    "count_nonzero", "diff", "trapz", "cov",
    # linear algebra
    "addmm", "addbmm", "baddbmm", "addmv", "addr", "adjoint", "inner", "kron", "mv", "dot", "vecdot",
    "matrix_power", "trace", "t", "cosine_similarity", "dist",
    # comparison, statistics, more linear algebra and real-dtype complex helpers
    "intopk", "msort", "fmax", "fmin", "vector_norm", "matrix_norm", "nanmedian", "quantile", "nanquantile", "histc",
    "batch_dot", "diag_embed", "accumulate_n", "real", "imag", "conj", "angle", "erfinv",
]


def _mnp():
    from .. import numpy as mnp
    return mnp


def _ops():
    from .. import ops
    return ops


def _check_tensor(x, fn, name="input"):
    if not is_tensorlike(x) or isinstance(x, (np.ndarray, np.generic)):
        raise TypeError(f"ops.{fn}: {name} must be a Tensor, got {type(x).__name__}")
    return x


# -- element-wise ------------------------------------------------------------------------------------------
def _unary(mnp_name, name, doc):
    def fn(input):  # noqa: A002 - MindSpore's name
        _check_tensor(input, name)
        return getattr(_mnp(), mnp_name)(input)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``ops.{name}(input)``: {doc}"
    return fn


tan = _unary("tan", "tan", "element-wise tangent, ``sin(x) / cos(x)``.")
sinh = _unary("sinh", "sinh", "element-wise hyperbolic sine.")
cosh = _unary("cosh", "cosh", "element-wise hyperbolic cosine.")
asinh = _unary("arcsinh", "asinh", "element-wise inverse hyperbolic sine.")
arcsinh = _unary("arcsinh", "arcsinh", "alias of ``ops.asinh``.")
acosh = _unary("arccosh", "acosh", "element-wise inverse hyperbolic cosine (NaN below 1).")
arccosh = _unary("arccosh", "arccosh", "alias of ``ops.acosh``.")
atanh = _unary("arctanh", "atanh", "element-wise inverse hyperbolic tangent.")
arctanh = _unary("arctanh", "arctanh", "alias of ``ops.atanh``.")
expm1 = _unary("expm1", "expm1", "``exp(x) - 1``, accurate near 0.")
exp2 = _unary("exp2", "exp2", "``2 ** x``.")
log2 = _unary("log2", "log2", "base-2 logarithm.")
log10 = _unary("log10", "log10", "base-10 logarithm.")
deg2rad = _unary("deg2rad", "deg2rad", "degrees to radians.")
rad2deg = _unary("rad2deg", "rad2deg", "radians to degrees.")
tensor_expm1 = _unary("expm1", "tensor_expm1", "alias of ``ops.expm1``.")


def erfc(input):  # noqa: A002
    """``ops.erfc(input)``: the complementary error function ``1 - erf(x)``."""
    _check_tensor(input, "erfc")
    return bind(_R["sub"], 1.0, bind(_R["erf"], input))


def trunc(input):  # noqa: A002
    """``ops.trunc(input)``: round towards zero (integers are returned as they are)."""
    _check_tensor(input, "trunc")
    return input if not input.dtype.is_float else _mnp().trunc(input)


def frac(x):
    """``ops.frac(x)``: the fractional part, ``x - trunc(x)`` (with the sign of ``x``)."""
    _check_tensor(x, "frac", "x")
    return bind(_R["sub"], x, trunc(x))


def sinc(input):  # noqa: A002
    """``ops.sinc(input)``: ``sin(pi x) / (pi x)``, 1 at 0. Integer input gives float32."""
    x = _mnp()._convert.as_float(_check_tensor(input, "sinc"))
    px = bind(_R["mul"], x, math.pi)
    zero = bind(_R["equal"], x, 0.0)
    safe = bind(_R["where"], zero, bind(_R["ones_like"], px), px)
    return bind(_R["where"], zero, bind(_R["ones_like"], px), bind(_R["div"], bind(_R["sin"], safe), safe))


def hypot(input, other):  # noqa: A002
    """``ops.hypot(input, other)``: ``sqrt(input**2 + other**2)`` (broadcast)."""
    return _mnp().hypot(input, other)


def logaddexp(input, other):  # noqa: A002
    """``ops.logaddexp(input, other)``: ``log(exp(input) + exp(other))`` without overflow."""
    return _mnp().logaddexp(input, other)


def logaddexp2(input, other):  # noqa: A002
    """``ops.logaddexp2(input, other)``: ``log2(2**input + 2**other)``."""
    return _mnp().logaddexp2(input, other)


def copysign(x, other):
    """``ops.copysign(x, other)``: ``|x|`` with the sign of ``other`` (-0.0 counts as negative)."""
    from ..numpy.math_ops import _float_copysign
    return _float_copysign(x, other)


def heaviside(input, values):  # noqa: A002
    """``ops.heaviside(input, values)``: 0 where ``input < 0``, ``values`` where ``input == 0``, 1 where > 0."""
    return _mnp().heaviside(input, values)


def fmod(input, other):  # noqa: A002
    """``ops.fmod(input, other)``: the remainder with the sign of the dividend (C's fmod)."""
    return _mnp().fmod(input, other)


def remainder(input, other):  # noqa: A002
    """``ops.remainder(input, other)``: the remainder with the sign of the divisor (Python's ``%``)."""
    return _mnp().remainder(input, other)


def floor_mod(x, y):
    """``ops.floor_mod(x, y)``: as ``ops.remainder``."""
    return _mnp().remainder(x, y)


floormod = floor_mod
tensor_mod = floor_mod


def float_power(input, exponent):  # noqa: A002
    """``ops.float_power(input, exponent)``: ``input ** exponent`` in float64 (MindSpore computes in double)."""
    a, b = (bind(_R["cast"], v, dtype=as_dtype("float64")) if is_tensorlike(v) else float(v)
            for v in (input, exponent))
    if not is_tensorlike(a) and not is_tensorlike(b):
        raise TypeError("ops.float_power: at least one of input and exponent must be a Tensor")
    return bind(_R["pow"], a, b)


def true_divide(dividend, divisor):
    """``ops.true_divide(dividend, divisor)``: float division (integers give float32)."""
    return _mnp().divide(dividend, divisor)


def divide(input, other, *, rounding_mode=None):  # noqa: A002
    """``ops.divide(input, other, *, rounding_mode=None)``: alias of ``ops.div``."""
    return _ops().div(input, other, rounding_mode=rounding_mode)


def floor_divide(input, other):  # noqa: A002
    """``ops.floor_divide(input, other)``: ``floor(input / other)``."""
    return bind(_R["floor_div"], input, other)


floordiv = floor_divide
tensor_floordiv = floor_divide


def truncate_div(x, y):
    """``ops.truncate_div(x, y)``: ``x / y`` rounded towards zero."""
    return _ops().TruncateDiv()(x, y)


def truncate_mod(x, y):
    """``ops.truncate_mod(x, y)``: the remainder with the sign of ``x``."""
    return _mnp().fmod(x, y)


def multiply(input, other):  # noqa: A002
    """``ops.multiply(input, other)``: alias of ``ops.mul``."""
    return bind(_R["mul"], input, other)


def subtract(input, other, *, alpha=1):  # noqa: A002
    """``ops.subtract(input, other, *, alpha=1)``: ``input - alpha * other``."""
    return bind(_R["sub"], input, other if alpha == 1 else bind(_R["mul"], other, alpha))


def negative(input):  # noqa: A002
    """``ops.negative(input)``: alias of ``ops.neg``."""
    return bind(_R["neg"], input)


def positive(input):  # noqa: A002
    """``ops.positive(input)``: ``input`` itself (bool input raises TypeError, as MindSpore does)."""
    _check_tensor(input, "positive")
    if input.dtype == as_dtype("bool"):
        raise TypeError("ops.positive: the input must not be a bool Tensor")
    return input


def absolute(input):  # noqa: A002
    """``ops.absolute(input)``: alias of ``ops.abs``."""
    return bind(_R["abs"], input)


def xlogy(input, other):  # noqa: A002
    """``ops.xlogy(input, other)``: ``input * log(other)``, 0 where ``input == 0``."""
    return _ops().Xlogy()(input, other)


def xdivy(x, y):
    """``ops.xdivy(x, y)``: ``x / y``, 0 where ``x == 0``."""
    return _ops().Xdivy()(x, y)


def logit(input, eps=None):  # noqa: A002
    """``ops.logit(input, eps=None)``: ``log(x / (1 - x))``, ``x`` clamped to ``[eps, 1 - eps]`` when ``eps``
    is given."""
    return _ops().Logit(-1.0 if eps is None else float(eps))(input)


def lerp(input, end, weight):  # noqa: A002
    """``ops.lerp(input, end, weight)``: ``input + weight * (end - input)``."""
    return _ops().Lerp()(input, end, weight)


def inv(x):
    """``ops.inv(x)``: ``1 / x``."""
    return bind(_R["reciprocal"], x)


def addcdiv(input, tensor1, tensor2, value=1):  # noqa: A002
    """``ops.addcdiv(input, tensor1, tensor2, value=1)``: ``input + value * tensor1 / tensor2``."""
    return bind(_R["add"], input, bind(_R["mul"], bind(_R["div"], tensor1, tensor2), value))


def addcmul(input, tensor1, tensor2, value=1):  # noqa: A002
    """``ops.addcmul(input, tensor1, tensor2, value=1)``: ``input + value * tensor1 * tensor2``."""
    return bind(_R["add"], input, bind(_R["mul"], bind(_R["mul"], tensor1, tensor2), value))


def nan_to_num(input, nan=0.0, posinf=None, neginf=None):  # noqa: A002
    """``ops.nan_to_num(input, nan=0.0, posinf=None, neginf=None)``: NaN, +inf and -inf replaced (the
    infinities by the dtype's largest/lowest finite value when not given)."""
    _check_tensor(input, "nan_to_num")
    if not input.dtype.is_float:
        return input
    info = np.finfo(input.dtype.np)
    posinf = float(info.max) if posinf is None else float(posinf)
    neginf = float(info.min) if neginf is None else float(neginf)
    x = bind(_R["where"], bind(_R["isnan"], input), bind(_R["add"], bind(_R["zeros_like"], input), float(nan)), input)
    pos = bind(_R["logical_and"], bind(_R["isinf"], x), bind(_R["greater"], x, 0.0))
    neg = bind(_R["logical_and"], bind(_R["isinf"], x), bind(_R["less"], x, 0.0))
    x = bind(_R["where"], pos, bind(_R["add"], bind(_R["zeros_like"], x), posinf), x)
    return bind(_R["where"], neg, bind(_R["add"], bind(_R["zeros_like"], x), neginf), x)


def signbit(input):  # noqa: A002
    """``ops.signbit(input)``: True where the sign bit is set (negative numbers and -0.0)."""
    return _mnp().signbit(input)


def sgn(input):  # noqa: A002
    """``ops.sgn(input)``: the sign of real input (-1, 0, 1); complex input is not supported here."""
    return bind(_R["sign"], input)


def isneginf(input):  # noqa: A002
    """``ops.isneginf(input)``: True at -inf."""
    return _mnp().isneginf(input)


def isposinf(input):  # noqa: A002
    """``ops.isposinf(input)``: True at +inf."""
    return _mnp().isposinf(input)


def isreal(input):  # noqa: A002
    """``ops.isreal(input)``: all True (there are no complex dtypes here)."""
    _check_tensor(input, "isreal")
    return bind(_R["equal"], bind(_R["zeros_like"], input), bind(_R["zeros_like"], input))


def is_complex(input):  # noqa: A002
    """``ops.is_complex(input)``: False (there are no complex dtypes here)."""
    _check_tensor(input, "is_complex")
    return False


def is_floating_point(input):  # noqa: A002
    """``ops.is_floating_point(input)``: whether the dtype is a float type."""
    _check_tensor(input, "is_floating_point")
    return bool(input.dtype.is_float)


def tanhshrink(input):  # noqa: A002
    """``ops.tanhshrink(input)``: ``x - tanh(x)``."""
    return bind(_R["sub"], input, bind(_R["tanh"], input))


def ldexp(x, other):
    """``ops.ldexp(x, other)``: ``x * 2 ** other``."""
    return bind(_R["mul"], x, bind(_R["pow"], 2.0, other if not is_tensorlike(other) or other.dtype.is_float
                                   else bind(_R["cast"], other, dtype=x.dtype)))


def approximate_equal(x, y, tolerance=1e-5):
    """``ops.approximate_equal(x, y, tolerance=1e-5)``: ``|x - y| < tolerance``."""
    return bind(_R["less"], bind(_R["abs"], bind(_R["sub"], x, y)), float(tolerance))


def _alias(registry_name, name):
    def fn(input, other):  # noqa: A002
        return bind(_R[registry_name], input, other)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``ops.{name}(input, other)``: the 1.x name of ``ops.{registry_name}``."
    return fn


tensor_add = _alias("add", "tensor_add")
tensor_sub = _alias("sub", "tensor_sub")
tensor_mul = _alias("mul", "tensor_mul")
tensor_div = _alias("div", "tensor_div")
tensor_pow = _alias("pow", "tensor_pow")
tensor_lt = _alias("less", "tensor_lt")
tensor_le = _alias("less_equal", "tensor_le")
tensor_gt = _alias("greater", "tensor_gt")
tensor_ge = _alias("greater_equal", "tensor_ge")


def tensor_exp(x):
    """``ops.tensor_exp(x)``: alias of ``ops.exp``."""
    return bind(_R["exp"], x)


# -- reductions and scans ----------------------------------------------------------------------------------
def _axes(axis, ndim):
    if axis is None or axis == ():
        return tuple(range(ndim))
    return tuple(int(a) % max(ndim, 1) for a in ((axis,) if isinstance(axis, (int, np.integer)) else axis))


def nansum(input, axis=None, keepdims=False, *, dtype=None):  # noqa: A002
    """``ops.nansum(input, axis=None, keepdims=False, *, dtype=None)``: the sum treating NaN as 0."""
    _check_tensor(input, "nansum")
    x = input if dtype is None else bind(_R["cast"], input, dtype=as_dtype(dtype))
    if x.dtype.is_float:
        x = bind(_R["where"], bind(_R["isnan"], x), bind(_R["zeros_like"], x), x)
    return bind(_R["reduce_sum"], x, axis=_axes(axis, x.ndim), keep_dims=keepdims)


def nanmean(input, axis=None, keepdims=False, *, dtype=None):  # noqa: A002
    """``ops.nanmean(input, axis=None, keepdims=False, *, dtype=None)``: the mean of the non-NaN values."""
    _check_tensor(input, "nanmean")
    x = input if dtype is None else bind(_R["cast"], input, dtype=as_dtype(dtype))
    total = nansum(x, axis, keepdims)
    count = bind(_R["reduce_sum"], bind(_R["cast"], bind(_R["logical_not"], bind(_R["isnan"], x)), dtype=total.dtype),
                 axis=_axes(axis, x.ndim), keep_dims=keepdims)
    return bind(_R["div"], total, count)


def median(input, axis=-1, keepdims=False):  # noqa: A002
    """``ops.median(input, axis=-1, keepdims=False)``: ``(values, indices)`` of the median along ``axis``;
    of an even count, the lower of the two middle values (as MindSpore's Median). The indices are int64."""
    _check_tensor(input, "median")
    nd = max(input.ndim, 1)
    ax = int(axis) % nd
    x = input if input.ndim else bind(_R["reshape"], input, shape=(1,))
    values, indices = bind(_R["sort"], x, axis=ax, descending=False)
    k = (x.shape[ax] - 1) // 2
    begin = [0] * x.ndim
    size = [-1] * x.ndim
    begin[ax], size[ax] = k, 1
    v = bind(_R["slice"], values, begin=tuple(begin), size=tuple(size))
    i = bind(_R["cast"], bind(_R["slice"], indices, begin=tuple(begin), size=tuple(size)), dtype=int64)
    if not keepdims or not input.ndim:
        shape = tuple(s for d, s in enumerate(x.shape) if d != ax) if input.ndim else ()
        v, i = bind(_R["reshape"], v, shape=shape), bind(_R["reshape"], i, shape=shape)
    return v, i


def _cumulative_extreme(input, axis, take_max, name):  # noqa: A002 - MindSpore's name
    """Running max/min and the index where it was reached (the last such index on ties, as MindSpore's
    Cummax/Cummin), by a log-step (Hillis-Steele) scan of (value, index) pairs."""
    _check_tensor(input, name)
    if not input.ndim:
        raise ValueError(f"ops.{name}: input must have rank >= 1")
    ax = int(axis) % input.ndim
    n = input.shape[ax]
    shape = [1] * input.ndim
    shape[ax] = n
    idx = bind(_R["add"], bind(_R["zeros_like"], bind(_R["cast"], input, dtype=int64)),
               Tensor(np.arange(n, dtype=np.int64).reshape(shape)))
    vals = input
    step = 1
    while step < n:
        pad = [0] * input.ndim
        pad[ax] = step
        size = list(input.shape)
        size[ax] = n - step
        prev_v = _shift(vals, ax, step, n)
        prev_i = _shift(idx, ax, step, n)
        valid = Tensor((np.arange(n) >= step).reshape(shape))
        better = bind(_R["greater"] if take_max else _R["less"], prev_v, vals)
        # ties keep the later index already in place; NaN: the comparison is False, the later value stays
        use_prev = bind(_R["logical_and"], valid, better)
        vals = bind(_R["where"], use_prev, prev_v, vals)
        idx = bind(_R["where"], use_prev, prev_i, idx)
        step *= 2
    return vals, idx


def _shift(x, ax, step, n):
    """``x`` moved ``step`` places forward along ``ax`` (the first ``step`` entries are copies of entry 0;
    callers mask them)."""
    order = np.concatenate([np.zeros(step, np.int32), np.arange(n - step, dtype=np.int32)])
    return bind(_R["gather"], x, Tensor(order), axis=ax)


def cummax(input, axis):  # noqa: A002
    """``ops.cummax(input, axis)``: ``(values, indices)``, the running maximum along ``axis`` and the int64
    index of the element it comes from."""
    return _cumulative_extreme(input, axis, True, "cummax")


def cummin(input, axis):  # noqa: A002
    """``ops.cummin(input, axis)``: ``(values, indices)``, the running minimum along ``axis``."""
    return _cumulative_extreme(input, axis, False, "cummin")


def logcumsumexp(input, axis):  # noqa: A002
    """``ops.logcumsumexp(input, axis)``: ``log(cumsum(exp(input), axis))`` without overflow."""
    return _ops().CumulativeLogsumexp()(input, axis)


def std_mean(input, axis=None, ddof=0, keepdims=False):  # noqa: A002
    """``ops.std_mean(input, axis=None, ddof=0, keepdims=False)``: ``(std, mean)``."""
    mean = bind(_R["reduce_mean"], input, axis=_axes(axis, input.ndim), keep_dims=keepdims)
    return _ops().std(input, axis, ddof, keepdims), mean


def var_mean(input, axis=None, ddof=0, keepdims=False):  # noqa: A002
    """``ops.var_mean(input, axis=None, ddof=0, keepdims=False)``: ``(var, mean)``."""
    mean = bind(_R["reduce_mean"], input, axis=_axes(axis, input.ndim), keep_dims=keepdims)
    return _ops().var(input, axis, ddof, keepdims), mean


def aminmax(input, *, axis=0, keepdims=False):  # noqa: A002
    """``ops.aminmax(input, *, axis=0, keepdims=False)``: ``(min, max)`` along ``axis`` (all elements when
    ``axis`` is None)."""
    axes = None if axis is None else (int(axis),)
    return (bind(_R["reduce_min"], input, axis=axes, keep_dims=keepdims),
            bind(_R["reduce_max"], input, axis=axes, keep_dims=keepdims))


def count_nonzero(x, axis=(), keep_dims=False, dtype=int32):
    """``ops.count_nonzero(x, axis=(), keep_dims=False, dtype=mstype.int32)``: the number of non-zero
    elements along ``axis`` (all axes for ``()``)."""
    nz = bind(_R["cast"], bind(_R["not_equal"], x, 0), dtype=as_dtype(dtype))
    return bind(_R["reduce_sum"], nz, axis=_axes(axis, x.ndim), keep_dims=keep_dims)


def diff(x, n=1, axis=-1, prepend=None, append=None):
    """``ops.diff(x, n=1, axis=-1, prepend=None, append=None)``: the n-th forward difference along ``axis``
    (``prepend``/``append`` joined first)."""
    _check_tensor(x, "diff", "x")
    return _mnp().diff(x, n, axis, prepend, append)


def trapz(y, x=None, *, dx=1.0, dim=-1):
    """``ops.trapz(y, x=None, *, dx=1.0, dim=-1)``: the trapezoidal rule along ``dim``."""
    return _mnp().trapz(y, x, dx, dim)


def cov(input, *, correction=1, fweights=None, aweights=None):  # noqa: A002
    """``ops.cov(input, *, correction=1, fweights=None, aweights=None)``: the covariance of the rows
    (variables) of a 1-D or 2-D ``input``."""
    return _mnp().cov(input, rowvar=True, ddof=correction, fweights=fweights, aweights=aweights)


# -- linear algebra -----------------------------------------------------------------------------------------
def _scaled(x, k):
    return x if isinstance(k, (int, float)) and k == 1 else bind(_R["mul"], x, k)


def addmm(input, mat1, mat2, *, beta=1, alpha=1):  # noqa: A002
    """``ops.addmm(input, mat1, mat2, *, beta=1, alpha=1)``: ``beta * input + alpha * (mat1 @ mat2)``."""
    return bind(_R["add"], _scaled(input, beta), _scaled(bind(_R["matmul"], mat1, mat2), alpha))


def addbmm(input, batch1, batch2, *, beta=1, alpha=1):  # noqa: A002
    """``ops.addbmm(input, batch1, batch2, *, beta=1, alpha=1)``: ``beta * input + alpha * sum_b(batch1[b] @
    batch2[b])``."""
    prod = bind(_R["reduce_sum"], bind(_R["matmul"], batch1, batch2), axis=(0,), keep_dims=False)
    return bind(_R["add"], _scaled(input, beta), _scaled(prod, alpha))


def baddbmm(input, batch1, batch2, beta=1, alpha=1):  # noqa: A002
    """``ops.baddbmm(input, batch1, batch2, beta=1, alpha=1)``: ``beta * input + alpha * (batch1 @ batch2)``
    (batched)."""
    return bind(_R["add"], _scaled(input, beta), _scaled(bind(_R["matmul"], batch1, batch2), alpha))


def mv(mat, vec):
    """``ops.mv(mat, vec)``: the matrix-vector product (N, M) x (M,) -> (N,)."""
    if mat.ndim != 2 or vec.ndim != 1:
        raise ValueError(f"ops.mv: expects a 2-D mat and a 1-D vec, got {tuple(mat.shape)} and {tuple(vec.shape)}")
    col = bind(_R["reshape"], vec, shape=(vec.shape[0], 1))
    return bind(_R["reshape"], bind(_R["matmul"], mat, col), shape=(mat.shape[0],))


def addmv(input, mat, vec, *, beta=1, alpha=1):  # noqa: A002
    """``ops.addmv(input, mat, vec, *, beta=1, alpha=1)``: ``beta * input + alpha * (mat @ vec)``."""
    return bind(_R["add"], _scaled(input, beta), _scaled(mv(mat, vec), alpha))


def addr(x, vec1, vec2, *, beta=1, alpha=1):
    """``ops.addr(x, vec1, vec2, *, beta=1, alpha=1)``: ``beta * x + alpha * outer(vec1, vec2)``."""
    return bind(_R["add"], _scaled(x, beta), _scaled(_ops().outer(vec1, vec2), alpha))


def adjoint(x):
    """``ops.adjoint(x)``: the (conjugate) transpose of the last two axes (real dtypes: the transpose)."""
    return _mnp().swapaxes(x, -1, -2)


def t(input):  # noqa: A002
    """``ops.t(input)``: the transpose of a 1-D (unchanged) or 2-D tensor."""
    if input.ndim > 2:
        raise ValueError(f"ops.t: input must be 1-D or 2-D, got shape {tuple(input.shape)}")
    return input if input.ndim < 2 else bind(_R["transpose"], input, perm=(1, 0))


def inner(input, other):  # noqa: A002
    """``ops.inner(input, other)``: the sum of products over the last axes (a scalar operand multiplies)."""
    if not input.ndim or not getattr(other, "ndim", 0):
        return bind(_R["mul"], input, other)
    return _mnp().inner(input, other)


def kron(input, other):  # noqa: A002
    """``ops.kron(input, other)``: the Kronecker product."""
    return _mnp().kron(input, other)


def dot(input, other):  # noqa: A002
    """``ops.dot(input, other)``: the product over the last axis of ``input`` and the second to last of
    ``other`` (MindSpore's Dot: ``(..., N) x (..., N, M)``)."""
    return _mnp().dot(input, other)


def vecdot(x, y, *, axis=-1):
    """``ops.vecdot(x, y, *, axis=-1)``: the dot product of vectors along ``axis`` (broadcast)."""
    return bind(_R["reduce_sum"], bind(_R["mul"], x, y), axis=(axis,), keep_dims=False)


def matrix_power(input, n):  # noqa: A002
    """``ops.matrix_power(input, n)``: a (batch of) square matrix to the integer power ``n >= 0``
    (negative powers need a matrix inverse, which the registry does not have: ValueError)."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"ops.matrix_power: n must be an int, got {n!r}")
    if n < 0:
        raise ValueError("ops.matrix_power: negative n needs a matrix inverse, which is not supported here")
    return _mnp().matrix_power(input, int(n))


def trace(input):  # noqa: A002
    """``ops.trace(input)``: the sum of the diagonal of a 2-D tensor."""
    _check_tensor(input, "trace")
    if input.ndim != 2:
        raise ValueError(f"ops.trace: input must be 2-D, got shape {tuple(input.shape)}")
    return _mnp().trace(input)


def cosine_similarity(x1, x2, dim=1, eps=1e-08):
    """``ops.cosine_similarity(x1, x2, dim=1, eps=1e-08)``: ``x1 . x2 / max(|x1| |x2|, eps)`` along ``dim``
    (broadcast)."""
    dot_ = bind(_R["reduce_sum"], bind(_R["mul"], x1, x2), axis=(dim,), keep_dims=False)
    n1 = bind(_R["reduce_sum"], bind(_R["square"], x1), axis=(dim,), keep_dims=False)
    n2 = bind(_R["reduce_sum"], bind(_R["square"], x2), axis=(dim,), keep_dims=False)
    denom = bind(_R["sqrt"], bind(_R["maximum"], bind(_R["mul"], n1, n2), float(eps) ** 2))
    return bind(_R["div"], dot_, denom)


def dist(input, other, p=2):  # noqa: A002
    """``ops.dist(input, other, p=2)``: the p-norm of ``input - other`` over all elements."""
    return _ops().norm(bind(_R["reshape"], bind(_R["sub"], input, other), shape=(-1,)), p, 0)


# -- comparison, statistics and more linear algebra ---------------------------------------------------------
def intopk(x1, x2, k):
    """``ops.intopk(x1, x2, k)``: whether each target ``x2[i]`` is among the ``k`` largest of row ``x1[i]``."""
    return _ops().InTopK(k)(x1, x2)


def msort(input):  # noqa: A002
    """``ops.msort(input)``: sorted along the first axis (ascending)."""
    return bind(_R["sort"], _check_tensor(input, "msort"), axis=0, descending=False)[0]


def fmax(input, other):  # noqa: A002
    """``ops.fmax(input, other)``: the element-wise maximum ignoring NaN (NaN only where both are)."""
    return _mnp().fmax(input, other)


def fmin(input, other):  # noqa: A002
    """``ops.fmin(input, other)``: the element-wise minimum ignoring NaN."""
    return _mnp().fmin(input, other)


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):  # noqa: A002 - MindSpore's names
    """``ops.vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None)``: the vector p-norm over ``dim``
    (all elements when None)."""
    _check_tensor(x, "vector_norm", "x")
    if isinstance(ord, str):
        raise ValueError(f"ops.vector_norm: ord must be a number, got {ord!r}")
    if dim is None:
        x = bind(_R["reshape"], x, shape=(-1,))
        out = _ops().norm(x, ord, 0, False, dtype=dtype)
        return bind(_R["reshape"], out, shape=(1,) * len(x.shape)) if keepdim else out
    if isinstance(dim, (tuple, list)) and len(dim) != 1:
        # several axes: move them to the end and flatten them into one
        axes = _axes(tuple(dim), x.ndim)
        rest = [d for d in range(x.ndim) if d not in axes]
        moved = bind(_R["transpose"], x, perm=tuple(rest) + axes)
        flat = bind(_R["reshape"], moved, shape=tuple(x.shape[d] for d in rest) + (-1,))
        out = _ops().norm(flat, ord, -1, False, dtype=dtype)
        if keepdim:
            out = bind(_R["reshape"], out, shape=tuple(1 if d in axes else x.shape[d] for d in range(x.ndim)))
        return out
    return _ops().norm(x, ord, dim if not isinstance(dim, (tuple, list)) else dim[0], keepdim, dtype=dtype)


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):  # noqa: A002
    """``ops.matrix_norm(A, ord='fro', dim=(-2, -1), keepdim=False, *, dtype=None)``: the matrix norm over the
    two axes ``dim`` ('fro', 1, -1, inf, -inf; the singular-value norms are refused as by ``ops.norm``)."""
    return _ops().norm(A, ord, tuple(dim), keepdim, dtype=dtype)


def nanmedian(input, axis=-1, keepdims=False):  # noqa: A002
    """``ops.nanmedian(input, axis=-1, keepdims=False)``: ``(values, indices)`` of the lower median of the
    non-NaN values along ``axis`` (NaN where a slice is all NaN)."""
    _check_tensor(input, "nanmedian")
    ax = int(axis) % max(input.ndim, 1)
    values, indices = bind(_R["sort"], input, axis=ax, descending=False)  # NaN sorts last
    count = bind(_R["reduce_sum"], bind(_R["cast"], bind(_R["logical_not"], bind(_R["isnan"], input)), dtype=int32),
                 axis=(ax,), keep_dims=True)
    pos = bind(_R["floor_div"], bind(_R["maximum"], bind(_R["sub"], count, 1), 0), 2)
    v = bind(_R["gather_elements"], values, pos, dim=ax)
    i = bind(_R["cast"], bind(_R["gather_elements"], indices, pos, dim=ax), dtype=int64)
    if not keepdims:
        shape = tuple(s for d, s in enumerate(input.shape) if d != ax)
        v, i = bind(_R["reshape"], v, shape=shape), bind(_R["reshape"], i, shape=shape)
    return v, i


def _quantile(input, q, axis, keepdims, ignore_nan, fn):  # noqa: A002 - MindSpore's name
    _check_tensor(input, fn)
    if not input.dtype.is_float:
        raise TypeError(f"ops.{fn}: input must be a float Tensor, got {input.dtype}")
    scalar_q = not is_tensorlike(q)
    qs = np.atleast_1d(np.asarray(q if scalar_q else q.asnumpy(), np.float64))
    if qs.ndim > 1 or ((qs < 0) | (qs > 1)).any():
        raise ValueError(f"ops.{fn}: q must be a float or a 1-D Tensor of values in [0, 1], got {q!r}")
    x = input
    if axis is None:
        x = bind(_R["reshape"], x, shape=(-1,))
        ax = 0
    else:
        ax = int(axis) % x.ndim
    srt = bind(_R["sort"], x, axis=ax, descending=False)[0]  # NaN last
    n = x.shape[ax]
    count = bind(_R["reduce_sum"], bind(_R["cast"], bind(_R["logical_not"], bind(_R["isnan"], x)), dtype=x.dtype),
                 axis=(ax,), keep_dims=True)
    if not ignore_nan:
        count = bind(_R["add"], bind(_R["mul"], count, 0.0), float(n))  # every slot (NaN-free, slice-shaped)
    outs = []
    for qv in qs:
        # the position q * (count - 1) between two sorted neighbours, linearly interpolated
        pos = bind(_R["mul"], bind(_R["maximum"], bind(_R["sub"], count, 1.0), 0.0), float(qv))
        lo = bind(_R["floor"], pos)
        frac_ = bind(_R["sub"], pos, lo)
        lo_i = bind(_R["cast"], lo, dtype=int32)
        hi_i = bind(_R["minimum"], bind(_R["add"], lo_i, 1), n - 1)
        a = bind(_R["gather_elements"], srt, lo_i, dim=ax)
        b = bind(_R["gather_elements"], srt, hi_i, dim=ax)
        val = bind(_R["add"], a, bind(_R["mul"], bind(_R["sub"], b, a), frac_))
        # a NaN in the slice (quantile) or an all-NaN slice (nanquantile) gives NaN
        bad = bind(_R["equal"], count, 0.0) if ignore_nan else bind(_R["isnan"], bind(
            _R["reduce_sum"], x, axis=(ax,), keep_dims=True))
        val = bind(_R["where"], bad, bind(_R["add"], bind(_R["zeros_like"], val), float("nan")), val)
        if not keepdims:
            val = bind(_R["reshape"], val, shape=tuple(s for d, s in enumerate(x.shape) if d != ax))
        elif axis is None:
            val = bind(_R["reshape"], val, shape=(1,) * input.ndim)
        outs.append(val)
    return outs[0] if scalar_q else bind(_R["stack"], *outs, axis=0)


def quantile(input, q, axis=None, keepdims=False):  # noqa: A002
    """``ops.quantile(input, q, axis=None, keepdims=False)``: the q-th quantiles along ``axis`` (the flattened
    input when None), linearly interpolated; a 1-D Tensor ``q`` puts its axis first."""
    return _quantile(input, q, axis, keepdims, False, "quantile")


def nanquantile(input, q, axis=None, keepdims=False):  # noqa: A002
    """``ops.nanquantile(input, q, axis=None, keepdims=False)``: :func:`quantile` ignoring NaN."""
    return _quantile(input, q, axis, keepdims, True, "nanquantile")


def histc(input, bins=100, min=0.0, max=0.0):  # noqa: A002 - MindSpore's names
    """``ops.histc(input, bins=100, min=0., max=0.)``: counts of ``bins`` equal bins over [min, max] (the data's
    range when both are 0); values outside are ignored. Same dtype as ``input`` for float input."""
    counts = _ops().Histogram(bins, min, max)(_check_tensor(input, "histc"))
    return bind(_R["cast"], counts, dtype=input.dtype) if input.dtype.is_float else counts


def batch_dot(x1, x2, axes=None):
    """``ops.batch_dot(x1, x2, axes=None)``: per batch entry (axis 0), the sum of products over ``axes`` (one
    axis of each; default: the last of ``x1`` with the last of a 2-D ``x2`` or its second to last). The result
    is (batch, x1's other axes, x2's other axes); two 2-D inputs give (batch, 1)."""
    _check_tensor(x1, "batch_dot", "x1")
    _check_tensor(x2, "batch_dot", "x2")
    if x1.ndim < 2 or x2.ndim < 2 or x1.shape[0] != x2.shape[0]:
        raise ValueError(f"ops.batch_dot: expects x1 and x2 of rank >= 2 with the same batch size, got "
                         f"{tuple(x1.shape)} and {tuple(x2.shape)}")
    if axes is None:
        axes = (x1.ndim - 1, x2.ndim - 1 if x2.ndim == 2 else x2.ndim - 2)
    elif isinstance(axes, (int, np.integer)):
        axes = (int(axes), int(axes))
    a1, a2 = int(axes[0]) % x1.ndim, int(axes[1]) % x2.ndim
    if 0 in (a1, a2) or x1.shape[a1] != x2.shape[a2]:
        raise ValueError(f"ops.batch_dot: axes {tuple(axes)} must name non-batch axes of equal size in "
                         f"{tuple(x1.shape)} and {tuple(x2.shape)}")
    letters = "abcdefghijklmnopqrstuvw"
    s1 = ["y"] + [letters[i] for i in range(x1.ndim - 1)]
    s2 = ["y"] + [letters[x1.ndim - 1 + i] for i in range(x2.ndim - 1)]
    s2[a2] = s1[a1] = "z"
    out = "y" + "".join(c for c in s1[1:] if c != "z") + "".join(c for c in s2[1:] if c != "z")
    res = _ops().einsum(f"{''.join(s1)},{''.join(s2)}->{out}", x1, x2)
    return bind(_R["reshape"], res, shape=(x1.shape[0], 1)) if x1.ndim == 2 and x2.ndim == 2 else res


def diag_embed(input, offset=0, dim1=-2, dim2=-1):  # noqa: A002
    """``ops.diag_embed(input, offset=0, dim1=-2, dim2=-1)``: the last axis of ``input`` placed on diagonal
    ``offset`` of new square matrices on axes ``dim1``/``dim2`` of the result (rank + 1)."""
    _check_tensor(input, "diag_embed")
    n_in = input.shape[-1] if input.ndim else 1
    n = n_in + abs(int(offset))
    place = np.zeros((n_in, n * n), np.float64)
    for i in range(n_in):
        r, c = (i, i + offset) if offset >= 0 else (i - offset, i)
        place[i, r * n + c] = 1.0
    x = input if input.dtype.is_float else bind(_R["cast"], input, dtype=float32)
    flat = bind(_R["matmul"], x, Tensor(place.astype(x.dtype.np)))            # (..., n*n)
    out = bind(_R["reshape"], flat, shape=tuple(input.shape[:-1]) + (n, n))
    nd = out.ndim
    d1, d2 = int(dim1) % nd, int(dim2) % nd
    if d1 == d2:
        raise ValueError("ops.diag_embed: dim1 and dim2 must differ")
    rest = iter(range(nd - 2))
    perm = [0] * nd
    src = {d1: nd - 2, d2: nd - 1}
    for d in range(nd):
        perm[d] = src[d] if d in src else next(rest)
    out = bind(_R["transpose"], out, perm=tuple(perm))
    return out if input.dtype.is_float else bind(_R["cast"], out, dtype=input.dtype)


def accumulate_n(x):
    """``ops.accumulate_n(x)``: the sum of a tuple/list of Tensors of one shape."""
    return _ops().addn(x)


def real(input):  # noqa: A002
    """``ops.real(input)``: the real part (real dtypes: the input itself)."""
    return _check_tensor(input, "real")


def imag(input):  # noqa: A002
    """``ops.imag(input)``: the imaginary part (real dtypes: zeros)."""
    return bind(_R["zeros_like"], _check_tensor(input, "imag"))


def conj(input):  # noqa: A002
    """``ops.conj(input)``: the complex conjugate (real dtypes: the input itself)."""
    return _check_tensor(input, "conj")


def angle(input):  # noqa: A002
    """``ops.angle(input)``: the argument (real input: pi for negative values, 0 otherwise)."""
    x = _check_tensor(input, "angle")
    x = x if x.dtype.is_float else bind(_R["cast"], x, dtype=float32)
    return bind(_R["where"], bind(_R["less"], x, 0.0), bind(_R["add"], bind(_R["zeros_like"], x), math.pi),
                bind(_R["zeros_like"], x))


def erfinv(input):  # noqa: A002
    """``ops.erfinv(input)``: the inverse error function on (-1, 1) (+-inf at +-1, NaN outside): Giles' single
    precision approximation refined by two Newton steps on ``erf(y) = x``, so the gradient (through the last
    Newton step) is ``sqrt(pi)/2 * exp(y**2)``."""
    x = _check_tensor(input, "erfinv")
    x = x if x.dtype.is_float else bind(_R["cast"], x, dtype=float32)
    # Giles (2010): w = -log((1 - x)(1 + x)); a polynomial in w for the central and the tail regions
    w = bind(_R["neg"], bind(_R["log"], bind(_R["mul"], bind(_R["sub"], 1.0, x), bind(_R["add"], 1.0, x))))
    central = (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503,
               -0.00417768164, 0.246640727, 1.50140941)
    tail = (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613,
            0.00943887047, 1.00167406, 2.83297682)

    def horner(coeffs, t):
        p = bind(_R["add"], bind(_R["mul"], t, 0.0), coeffs[0])
        for c in coeffs[1:]:
            p = bind(_R["add"], bind(_R["mul"], p, t), c)
        return p
    small = bind(_R["less"], w, 5.0)
    safe_w = bind(_R["where"], bind(_R["isfinite"], w), w, bind(_R["zeros_like"], w))
    p_central = horner(central, bind(_R["sub"], safe_w, 2.5))
    p_tail = horner(tail, bind(_R["sub"], bind(_R["sqrt"], bind(_R["maximum"], safe_w, 5.0)), 3.0))
    y = bind(_R["mul"], bind(_R["where"], small, p_central, p_tail), x)
    half_sqrt_pi = math.sqrt(math.pi) / 2.0
    for _ in range(2):
        # Newton: y -= (erf(y) - x) / (2/sqrt(pi) exp(-y^2)); stays finite inside (-1, 1)
        step = bind(_R["mul"], bind(_R["mul"], bind(_R["sub"], bind(_R["erf"], y), x), half_sqrt_pi),
                    bind(_R["exp"], bind(_R["square"], y)))
        y = bind(_R["sub"], y, bind(_R["where"], bind(_R["isfinite"], step), step, bind(_R["zeros_like"], step)))
    edge = bind(_R["equal"], bind(_R["abs"], x), 1.0)
    # +-inf at +-1, built without a product with x (whose gradient would be 0 * inf = NaN)
    inf = bind(_R["add"], bind(_R["zeros_like"], x), float("inf"))
    y = bind(_R["where"], edge, bind(_R["where"], bind(_R["greater"], x, 0.0), inf, bind(_R["neg"], inf)), y)
    outside = bind(_R["greater"], bind(_R["abs"], x), 1.0)
    return bind(_R["where"], outside, bind(_R["add"], bind(_R["zeros_like"], x), float("nan")), y)


# -- log-gamma and digamma ------------------------------------------------------------------------------------
#: Lanczos' approximation, g = 7, 9 terms (relative error about 1e-15 in float64)
_LANCZOS_G = 7.0
_LANCZOS = (0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
            12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7)


def _as_float(x, fn):
    _check_tensor(x, fn)
    return x if x.dtype.is_float else bind(_R["cast"], x, dtype=float32)


def _safe(cond, x, fill):
    """``x`` where ``cond``, else ``fill``: the argument a branch ``where`` discards is evaluated on, so that
    branch stays finite and passes no NaN gradient (0 * inf) into the kept one."""
    return bind(_R["where"], cond, x, bind(_R["add"], bind(_R["zeros_like"], x), float(fill)))


def _lanczos_lgamma(x):
    """log Gamma(x) for x >= 0.5."""
    z = bind(_R["sub"], x, 1.0)
    a = bind(_R["add"], bind(_R["zeros_like"], z), _LANCZOS[0])
    for i, c in enumerate(_LANCZOS[1:], start=1):
        a = bind(_R["add"], a, bind(_R["div"], c, bind(_R["add"], z, float(i))))
    t = bind(_R["add"], z, _LANCZOS_G + 0.5)
    out = bind(_R["add"], bind(_R["mul"], bind(_R["add"], z, 0.5), bind(_R["log"], t)), bind(_R["neg"], t))
    return bind(_R["add"], bind(_R["add"], out, 0.5 * math.log(2.0 * math.pi)), bind(_R["log"], a))


def lgamma(input):  # noqa: A002
    """``ops.lgamma(input)``: ``log|Gamma(x)|`` (Lanczos' approximation; the reflection
    ``log(pi / |sin(pi x)|) - lgamma(1 - x)`` below 1/2; +inf at 0 and the negative integers)."""
    x = _as_float(input, "lgamma")
    low = bind(_R["less"], x, 0.5)
    right = _lanczos_lgamma(bind(_R["where"], low, bind(_R["sub"], 1.0, x), x))
    xl = _safe(low, x, 0.25)
    reflected = bind(_R["sub"], bind(_R["log"], bind(_R["div"], math.pi, bind(_R["abs"], bind(
        _R["sin"], bind(_R["mul"], xl, math.pi))))), right)
    out = bind(_R["where"], low, reflected, right)
    # the poles: sin(pi x) is not exactly 0 at a negative integer in floating point
    return bind(_R["where"], _pole(x), bind(_R["add"], bind(_R["zeros_like"], x), float("inf")), out)


def _pole(x):
    """True at 0 and the negative integers."""
    return bind(_R["logical_and"], bind(_R["less_equal"], x, 0.0), bind(_R["equal"], x, bind(_R["floor"], x)))


_DIGAMMA_SHIFT = 10
#: the asymptotic series psi(y) ~ log y - 1/(2y) - sum B_2k / (2k y^2k), k = 1..6
_DIGAMMA_SERIES = (1.0 / 12, -1.0 / 120, 1.0 / 252, -1.0 / 240, 1.0 / 132, -691.0 / 32760)


def _digamma_right(x):
    """psi(x) for x >= 0.5: shifted up by 10 with psi(x) = psi(x + 1) - 1/x, then the asymptotic series."""
    y = bind(_R["add"], x, float(_DIGAMMA_SHIFT))
    inv2 = bind(_R["reciprocal"], bind(_R["square"], y))
    series = bind(_R["add"], bind(_R["zeros_like"], y), 0.0)
    power = inv2
    for c in _DIGAMMA_SERIES:
        series = bind(_R["add"], series, bind(_R["mul"], power, c))
        power = bind(_R["mul"], power, inv2)
    out = bind(_R["sub"], bind(_R["sub"], bind(_R["log"], y), bind(_R["div"], 0.5, y)), series)
    for k in range(_DIGAMMA_SHIFT):
        out = bind(_R["sub"], out, bind(_R["reciprocal"], bind(_R["add"], x, float(k))))
    return out


def digamma(input):  # noqa: A002
    """``ops.digamma(input)``: ``psi(x) = d/dx log Gamma(x)`` (a shifted asymptotic series; the reflection
    ``psi(1 - x) - pi / tan(pi x)`` below 1/2; -inf at 0, NaN at the negative integers)."""
    x = _as_float(input, "digamma")
    low = bind(_R["less"], x, 0.5)
    right = _digamma_right(bind(_R["where"], low, bind(_R["sub"], 1.0, x), x))
    xl = bind(_R["mul"], _safe(low, x, 0.25), math.pi)
    reflected = bind(_R["sub"], right, bind(_R["div"], math.pi, bind(_R["div"], bind(_R["sin"], xl), bind(_R["cos"], xl))))
    out = bind(_R["where"], low, reflected, right)
    # -inf at 0 and NaN at the negative integers (as torch.digamma; MindSpore's kernel gives the same)
    pole_value = bind(_R["where"], bind(_R["equal"], x, 0.0), bind(_R["add"], bind(_R["zeros_like"], x), float("-inf")),
                      bind(_R["add"], bind(_R["zeros_like"], x), float("nan")))
    return bind(_R["where"], _pole(x), pole_value, out)


def mvlgamma(input, p):  # noqa: A002
    """``ops.mvlgamma(input, p)``: the multivariate log-gamma ``p (p - 1) / 4 log(pi) + sum_j lgamma(x - j / 2)``
    for ``j = 0 .. p - 1`` (every element must exceed ``(p - 1) / 2``)."""
    if isinstance(p, bool) or not isinstance(p, (int, np.integer)) or p < 1:
        raise ValueError(f"ops.mvlgamma: p must be a positive int, got {p!r}")
    x = _as_float(input, "mvlgamma")
    total = bind(_R["add"], bind(_R["zeros_like"], x), p * (p - 1) / 4.0 * math.log(math.pi))
    for j in range(int(p)):
        total = bind(_R["add"], total, lgamma(bind(_R["sub"], x, j / 2.0)))
    return total


class _SpecialPrimitive:
    def __repr__(self):
        return f"Prim[{type(self).__name__}]"


class Lgamma(_SpecialPrimitive):
    """``ops.Lgamma()(x)``: ``log|Gamma(x)|``."""

    def __call__(self, x):
        return lgamma(x)


class Digamma(_SpecialPrimitive):
    """``ops.Digamma()(x)``: ``psi(x)``."""

    def __call__(self, x):
        return digamma(x)


class Mvlgamma(_SpecialPrimitive):
    """``ops.Mvlgamma(p)(x)``: the multivariate log-gamma of dimension ``p``."""

    def __init__(self, p):
        self.p = p

    def __call__(self, x):
        return mvlgamma(x, self.p)


for _cls in (Lgamma, Digamma, Mvlgamma):
    _cls.__module__ = "runtime.ops"
__all__ += ["lgamma", "digamma", "mvlgamma", "Lgamma", "Digamma", "Mvlgamma"]


def pows(x, y):
    """``ops.pows(x, y)``: the functional module's spelling of ``ops.pow``."""
    return bind(_R["pow"], x, y)


__all__ += ["pows"]


# -- modified Bessel functions of the first kind ------------------------------------------------------------------
_BESSEL_SPLIT = 15.0   # below: the power series (40 terms); above: the asymptotic expansion (30 terms)
_BESSEL_SERIES_TERMS = 40
_BESSEL_ASYMPTOTIC_TERMS = 30


def _bessel_i_scaled(x, order):
    """``exp(-|x|) I_order(|x|)`` for order 0 or 1, from the power series ``sum (|x|/2)^(2k+order) / (k! (k+order)!)``
    for |x| <= 15 and the asymptotic expansion ``sum (-1)^k a_k / |x|^k / sqrt(2 pi |x|)`` above (each branch is
    evaluated on arguments inside its own range, so the discarded one stays finite)."""
    ax = bind(_R["abs"], x)
    small = bind(_R["less_equal"], ax, _BESSEL_SPLIT)
    xs = _safe(small, ax, 1.0)
    xl = _safe(bind(_R["logical_not"], small), ax, 2.0 * _BESSEL_SPLIT)
    # power series in q = x^2 / 4, by the term recurrence t_k = t_{k-1} q / (k (k + order))
    q = bind(_R["mul"], bind(_R["square"], xs), 0.25)
    term = bind(_R["mul"], xs, 0.5) if order else bind(_R["ones_like"], xs)
    total = term
    for k in range(1, _BESSEL_SERIES_TERMS):
        term = bind(_R["mul"], term, bind(_R["div"], q, float(k * (k + order))))
        total = bind(_R["add"], total, term)
    series = bind(_R["mul"], total, bind(_R["exp"], bind(_R["neg"], xs)))
    # asymptotic: a_k = prod_{j<=k} (4 order^2 - (2j - 1)^2) / (k! 8^k), terms (-1)^k a_k / x^k
    inv = bind(_R["reciprocal"], xl)
    coef, power = 1.0, bind(_R["ones_like"], xl)
    expansion = bind(_R["ones_like"], xl)
    for k in range(1, _BESSEL_ASYMPTOTIC_TERMS):
        coef *= -(4.0 * order * order - (2 * k - 1) ** 2) / (k * 8.0)
        power = bind(_R["mul"], power, inv)
        expansion = bind(_R["add"], expansion, bind(_R["mul"], power, coef))
    asymptotic = bind(_R["div"], expansion, bind(_R["sqrt"], bind(_R["mul"], xl, 2.0 * math.pi)))
    out = bind(_R["where"], small, series, asymptotic)
    return bind(_R["mul"], out, bind(_R["sign"], x)) if order else out


def bessel_i0e(x):
    """``ops.bessel_i0e(x)``: the exponentially scaled modified Bessel function ``exp(-|x|) I0(x)``."""
    return _bessel_i_scaled(_as_float(x, "bessel_i0e"), 0)


def bessel_i1e(x):
    """``ops.bessel_i1e(x)``: ``exp(-|x|) I1(x)``."""
    return _bessel_i_scaled(_as_float(x, "bessel_i1e"), 1)


def bessel_i0(x):
    """``ops.bessel_i0(x)``: the modified Bessel function of the first kind of order 0 (``exp(|x|) * i0e(x)``)."""
    x = _as_float(x, "bessel_i0")
    return bind(_R["mul"], _bessel_i_scaled(x, 0), bind(_R["exp"], bind(_R["abs"], x)))


def bessel_i1(x):
    """``ops.bessel_i1(x)``: the modified Bessel function of the first kind of order 1."""
    x = _as_float(x, "bessel_i1")
    return bind(_R["mul"], _bessel_i_scaled(x, 1), bind(_R["exp"], bind(_R["abs"], x)))


def i0(input):  # noqa: A002
    """``ops.i0(input)``: alias of ``ops.bessel_i0``."""
    return bessel_i0(input)


class BesselI0e(_SpecialPrimitive):
    """``ops.BesselI0e()(x)``: ``exp(-|x|) I0(x)``."""

    def __call__(self, x):
        return bessel_i0e(x)


class BesselI1e(_SpecialPrimitive):
    """``ops.BesselI1e()(x)``: ``exp(-|x|) I1(x)``."""

    def __call__(self, x):
        return bessel_i1e(x)


for _cls in (BesselI0e, BesselI1e):
    _cls.__module__ = "runtime.ops"
__all__ += ["bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e", "i0", "BesselI0e", "BesselI1e"]


# -- regularized incomplete gamma -----------------------------------------------------------------------------------
_IGAMMA_SERIES_TERMS = 300      # x < a + 1: the power series (terms shrink at least like x / (a + k))
_IGAMMA_FRACTION_TERMS = 200    # x >= a + 1: Legendre's continued fraction (modified Lentz)
_TINY = 1e-300


def _igamma_parts(a, x):
    """``(P(a, x), Q(a, x))`` for a > 0, x >= 0: the series where x < a + 1, the continued fraction elsewhere,
    each evaluated on arguments inside its own region (the other is discarded by ``where``)."""
    use_series = bind(_R["less"], x, bind(_R["add"], a, 1.0))
    xs = bind(_R["where"], use_series, x, bind(_R["mul"], a, 0.5))
    xc = bind(_R["where"], use_series, bind(_R["add"], a, 2.0), x)
    # x^a e^-x / Gamma(a), in logs
    def prefactor(xv):
        return bind(_R["exp"], bind(_R["sub"], bind(_R["sub"], bind(_R["mul"], a, bind(_R["log"], xv)), xv), lgamma(a)))
    term = bind(_R["reciprocal"], a)
    total = term
    ap = a
    for _ in range(_IGAMMA_SERIES_TERMS):
        ap = bind(_R["add"], ap, 1.0)
        term = bind(_R["mul"], term, bind(_R["div"], xs, ap))
        total = bind(_R["add"], total, term)
    p_series = bind(_R["mul"], total, prefactor(xs))
    tiny = float(np.finfo(x.dtype.np).tiny) * 1e3
    b = bind(_R["sub"], bind(_R["add"], xc, 1.0), a)
    c = bind(_R["add"], bind(_R["zeros_like"], b), 1.0 / tiny)
    d = bind(_R["reciprocal"], b)
    h = d
    for i in range(1, _IGAMMA_FRACTION_TERMS + 1):
        an = bind(_R["mul"], bind(_R["sub"], a, float(i)), float(i))        # -i (i - a)
        b = bind(_R["add"], b, 2.0)
        d = bind(_R["add"], bind(_R["mul"], an, d), b)
        d = bind(_R["where"], bind(_R["less"], bind(_R["abs"], d), tiny), bind(_R["add"], bind(_R["zeros_like"], d), tiny), d)
        c = bind(_R["add"], b, bind(_R["div"], an, c))
        c = bind(_R["where"], bind(_R["less"], bind(_R["abs"], c), tiny), bind(_R["add"], bind(_R["zeros_like"], c), tiny), c)
        d = bind(_R["reciprocal"], d)
        h = bind(_R["mul"], h, bind(_R["mul"], d, c))
    q_fraction = bind(_R["mul"], h, prefactor(xc))
    p = bind(_R["where"], use_series, p_series, bind(_R["sub"], 1.0, q_fraction))
    q = bind(_R["where"], use_series, bind(_R["sub"], 1.0, p_series), q_fraction)
    return p, q


def _igamma(a, x, upper, fn):
    _check_tensor(a, fn)
    _check_tensor(x, fn, "other")
    dt = a.dtype if a.dtype.is_float else float32
    a = bind(_R["cast"], a, dtype=dt) if a.dtype != dt else a
    x = bind(_R["cast"], x, dtype=dt) if x.dtype != dt else x
    a, x = (bind(_R["broadcast_to"], v, shape=tuple(np.broadcast_shapes(tuple(a.shape), tuple(x.shape))))
            for v in (a, x))
    valid = bind(_R["logical_and"], bind(_R["greater"], a, 0.0), bind(_R["greater_equal"], x, 0.0))
    a_safe = bind(_R["where"], valid, a, bind(_R["ones_like"], a))
    x_pos = bind(_R["greater"], x, 0.0)
    x_safe = bind(_R["where"], bind(_R["logical_and"], valid, x_pos), x, bind(_R["ones_like"], x))
    x_safe = bind(_R["where"], bind(_R["isinf"], x_safe), bind(_R["add"], bind(_R["mul"], a_safe, 0.0), 1e300 if dt.np
                                                                    == np.float64 else 1e30), x_safe)
    p, q = _igamma_parts(a_safe, x_safe)
    out = q if upper else p
    at_zero = bind(_R["add"], bind(_R["zeros_like"], out), 1.0 if upper else 0.0)
    at_inf = bind(_R["add"], bind(_R["zeros_like"], out), 0.0 if upper else 1.0)
    out = bind(_R["where"], bind(_R["isinf"], x), at_inf, bind(_R["where"], x_pos, out, at_zero))
    return bind(_R["where"], valid, out, bind(_R["add"], bind(_R["zeros_like"], out), float("nan")))


def igamma(input, other):  # noqa: A002
    """``ops.igamma(input, other)``: the regularized lower incomplete gamma function ``P(a, x)`` with ``a = input``,
    ``x = other`` (NaN for a <= 0 or x < 0)."""
    return _igamma(input, other, False, "igamma")


def igammac(input, other):  # noqa: A002
    """``ops.igammac(input, other)``: the regularized upper incomplete gamma function ``Q(a, x) = 1 - P(a, x)``."""
    return _igamma(input, other, True, "igammac")


__all__ += ["igamma", "igammac"]


def eps(x):
    """``ops.eps(x)``: a tensor of ``x``'s shape and float dtype filled with that dtype's machine epsilon
    (1.1920929e-07 for float32)."""
    _check_tensor(x, "eps", "x")
    if not x.dtype.is_float:
        raise TypeError(f"ops.eps: x must be a float16, float32 or float64 Tensor, got {x.dtype}")
    return bind(_R["add"], bind(_R["zeros_like"], x), float(np.finfo(x.dtype.np).eps))


class Eps(_SpecialPrimitive):
    """``ops.Eps()(x)``: :func:`eps`."""

    def __call__(self, x):
        return eps(x)


Eps.__module__ = "runtime.ops"
__all__ += ["eps", "Eps"]
