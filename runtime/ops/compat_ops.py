"""Smaller MindSpore 2.x ``ops`` names: conversions (``scalar_to_array``, ``tuple_to_array``,
``scalar_to_tensor``, ``dtype``), ``logsumexp`` with the ``dim=``/``keepdim=`` keywords, and the
Primitive-class spellings of functions that exist here (``ops.ReLU6()``, ``ops.Zeros()``,
``ops.Flatten()``, ``ops.FloatStatus()`` ...).

Every Primitive here is a thin class over functions already defined (registry ops and their
compositions): constructing one records its attributes, calling it applies the function, so
there are no new op semantics in this file.

Example:
    >>> from runtime import ops, Tensor
    >>> ops.ReLU6()(Tensor([-1.0, 3.0, 8.0]))
    Tensor(shape=[3], dtype=Float32, value=[0., 3., 6.])
    >>> ops.tuple_to_array((1, 2, 3)).dtype
    Int64
"""
from __future__ import annotations

import numpy as np

from graph.dtypes import as_dtype, float32
from graph.ops import REGISTRY, bind
from graph.ops.core import is_tensorlike

from ..tensor import Tensor

_R = REGISTRY

__all__ = ["scalar_to_array", "scalar_to_tensor", "tuple_to_array", "dtype", "logsumexp", "tensor_dot", "typeof"]


# -- functions --------------------------------------------------------------------------------------
def scalar_to_array(input_x):
    """``ops.scalar_to_array(input_x)``: a 0-d Tensor of an int or float (MindSpore's defaults:
    int64 for ints, float32 for floats)."""
    if isinstance(input_x, bool) or not isinstance(input_x, (int, float)):
        raise TypeError(f"ops.scalar_to_array: input_x must be an int or a float, got {type(input_x).__name__}")
    return Tensor(input_x)


def scalar_to_tensor(input_x, dtype=float32):  # MindSpore's name
    """``ops.scalar_to_tensor(input_x, dtype=mstype.float32)``: a 0-d Tensor of ``dtype``."""
    if not isinstance(input_x, (bool, int, float)):
        raise TypeError(f"ops.scalar_to_tensor: input_x must be a bool, int or float, got {type(input_x).__name__}")
    return Tensor(input_x, dtype=as_dtype(dtype))


def tuple_to_array(input_x):
    """``ops.tuple_to_array(input_x)``: a Tensor of a non-empty tuple of numbers: int64 when the
    first element is an int, float32 otherwise (MindSpore's rule)."""
    if not isinstance(input_x, tuple):
        raise TypeError(f"ops.tuple_to_array: input_x must be a tuple, got {type(input_x).__name__}")
    if not input_x:
        raise ValueError("ops.tuple_to_array: input_x must not be empty")
    first = input_x[0]
    while isinstance(first, tuple) and first:
        first = first[0]
    is_int = isinstance(first, int) and not isinstance(first, bool)
    return Tensor(np.asarray(input_x, np.int64 if is_int else np.float32))


def dtype(input_x):  # MindSpore's name (F.dtype / ops.dtype)
    """``F.dtype(x)``: the dtype of a Tensor."""
    if not is_tensorlike(input_x):
        raise TypeError(f"ops.dtype: expects a Tensor, got {type(input_x).__name__}")
    return input_x.dtype


def logsumexp(input=None, axis=None, keep_dims=False, *, dim=None, keepdim=None, x=None):  # noqa: A002
    """``ops.logsumexp(input, axis, keep_dims=False)``, also spelled ``dim=``/``keepdim=`` (the
    later 2.x names): ``log(sum(exp(input), axis))`` without overflow (all axes when neither
    ``axis`` nor ``dim`` is given)."""
    if input is None:
        input = x  # noqa: A001 - the registry's own spelling, ops.logsumexp(x=...)
    if axis is not None and dim is not None:
        raise TypeError("ops.logsumexp: give axis or dim, not both")
    keep = keep_dims if keepdim is None else keepdim
    return bind(_R["logsumexp"], input, axis=axis if dim is None else dim, keep_dims=keep)


class _TypeOf:
    """What ``ops.typeof`` returns: prints as MindSpore's type names (``Tensor[Float32]``,
    ``Int64``, ``Tuple[Int64, Float32]``) and compares equal to another of the same name."""

    def __init__(self, name):
        self.name = name

    def __str__(self):
        return self.name

    __repr__ = __str__

    def __eq__(self, other):
        return isinstance(other, _TypeOf) and other.name == self.name

    def __hash__(self):
        return hash(self.name)


def _type_name(x):
    if is_tensorlike(x) and not isinstance(x, np.ndarray):
        return f"Tensor[{x.dtype}]"
    if isinstance(x, bool):
        return "Bool"
    if isinstance(x, int):
        return "Int64"
    if isinstance(x, float):
        return "Float32"
    if isinstance(x, str):
        return "String"
    if x is None:
        return "None"
    if isinstance(x, (tuple, list)):
        kind = "Tuple" if isinstance(x, tuple) else "List"
        return f"{kind}[{', '.join(_type_name(v) for v in x)}]"
    return type(x).__name__


def typeof(x):
    """``ops.typeof(x)``: the MindSpore type of a value, e.g. ``Tensor[Float32]``."""
    return _TypeOf(_type_name(x))


def tensor_dot(x1, x2, axes):
    """``ops.tensor_dot(x1, x2, axes)``: the sum of products over ``axes`` (an int: the last
    ``axes`` axes of ``x1`` with the first of ``x2``; or a pair of axis lists)."""
    return _mnp().tensordot(x1, x2, axes)


# -- Primitive classes ------------------------------------------------------------------------------
class _AliasPrimitive:
    """Base of the classes made by :func:`_primitive` (attributes at construction, inputs at call)."""

    _attr_names: tuple = ()
    _defaults: dict = {}

    def __init__(self, *args, **kwargs):
        if len(args) > len(self._attr_names):
            raise TypeError(f"{type(self).__name__}() takes at most {len(self._attr_names)} attribute(s) "
                            f"{list(self._attr_names)}, got {len(args)}")
        attrs = dict(self._defaults)
        attrs.update(zip(self._attr_names, args))
        for k, v in kwargs.items():
            if k not in self._defaults:
                raise TypeError(f"{type(self).__name__}(): unknown attribute {k!r}; valid: {list(self._attr_names)}")
            attrs[k] = v
        self.attrs = attrs
        for k, v in attrs.items():
            setattr(self, k, v)

    def __call__(self, *inputs):
        return type(self)._call(*inputs, **self.attrs)

    def __repr__(self):
        return f"Prim[{type(self).__name__}]"


def _primitive(name, call, doc, **defaults):
    cls = type(name, (_AliasPrimitive,), {"_call": staticmethod(call), "_attr_names": tuple(defaults),
                                          "_defaults": defaults, "__doc__": f"``ops.{name}``: {doc}",
                                          "__module__": "runtime.ops"})
    __all__.append(name)
    globals()[name] = cls
    return cls


def _ops():
    from .. import ops
    return ops


def _mnp():
    from .. import numpy as mnp
    return mnp


def _float_status(x):
    finite = _ops().all(bind(_R["isfinite"], x))
    return bind(_R["reshape"], bind(_R["cast"], bind(_R["logical_not"], finite), dtype=x.dtype), shape=(1,))


def _with_value(reduce_name, arg_name):
    def call(x, axis=0, keep_dims=False):
        index = bind(_R[arg_name], x, axis=axis, keep_dims=keep_dims)
        values = bind(_R[reduce_name], x, axis=axis, keep_dims=keep_dims)
        return index, values
    return call


def _reduce_std(x, axis=(), unbiased=True, keep_dims=False):
    axes = tuple(range(x.ndim)) if axis in ((), None, []) else axis
    mean = bind(_R["reduce_mean"], x, axis=axes, keep_dims=keep_dims)
    return _ops().std(x, axes, 1 if unbiased else 0, keep_dims), mean


def _div_no_nan(x, y):
    zero = bind(_R["equal"], y, 0)
    safe = bind(_R["where"], zero, bind(_R["ones_like"], y), y)
    return bind(_R["where"], zero, bind(_R["zeros_like"], bind(_R["div"], x, safe)), bind(_R["div"], x, safe))


def _mul_no_nan(x, y):
    prod = bind(_R["mul"], x, y)
    return bind(_R["where"], bind(_R["equal"], y, 0), bind(_R["zeros_like"], prod), prod)


def _xdivy(x, y):
    return bind(_R["where"], bind(_R["equal"], x, 0), bind(_R["zeros_like"], bind(_R["div"], x, y)), bind(_R["div"], x, y))


def _xlogy(x, y):
    prod = bind(_R["mul"], x, bind(_R["log"], y))
    return bind(_R["where"], bind(_R["equal"], x, 0), bind(_R["zeros_like"], prod), prod)


def _l2_normalize(x, axis=0, epsilon=1e-4):
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    sq = bind(_R["reduce_sum"], bind(_R["square"], x), axis=axes, keep_dims=True)
    return bind(_R["div"], x, bind(_R["sqrt"], bind(_R["maximum"], sq, float(epsilon))))


def _shrink(x, lambd, soft):
    keep = bind(_R["greater"], bind(_R["abs"], x), float(lambd))
    val = bind(_R["sub"], x, bind(_R["mul"], bind(_R["sign"], x), float(lambd))) if soft else x
    return bind(_R["where"], keep, val, bind(_R["zeros_like"], x))


def _celu(x, alpha=1.0):
    neg = bind(_R["mul"], bind(_R["sub"], bind(_R["exp"], bind(_R["div"], x, float(alpha))), 1.0), float(alpha))
    return bind(_R["add"], bind(_R["maximum"], x, 0.0), bind(_R["minimum"], neg, 0.0))


def _range(start, limit, delta, maxlen=1000000):
    vals = [v.item() if isinstance(v, Tensor) else v for v in (start, limit, delta)]
    dt = getattr(start, "dtype", None)
    out = np.arange(*vals)
    if out.size > maxlen:
        raise ValueError(f"ops.Range: the output would have {out.size} elements, more than maxlen={maxlen}")
    return Tensor(out.astype(dt.np if dt is not None else out.dtype))


def _fill(type, shape, value):  # noqa: A002 - MindSpore's name
    return _ops().fill(type, shape, value)


def _zeros(size, type=None):  # noqa: A002
    return _ops().zeros(size, type)


def _ones(size, type=None):  # noqa: A002
    return _ops().ones(size, type)


def _squared_difference(x, y):
    return bind(_R["square"], bind(_R["sub"], x, y))


def _truncate_div(x, y):
    q = _mnp().trunc(bind(_R["div"], x, y))
    return q if getattr(x, "dtype", float32).is_float else bind(_R["cast"], q, dtype=x.dtype)


def _bce_with_logits(logits, label, weight=None, pos_weight=None, reduction="mean"):
    return _ops().binary_cross_entropy_with_logits(logits, label, weight, pos_weight, reduction)


def _sigmoid_ce(logits, label):
    return _ops().binary_cross_entropy_with_logits(logits, label, reduction="none")


def _logit(x, eps=-1.0):
    if eps >= 0:
        x = _ops().clamp(x, eps, 1.0 - eps)
    return bind(_R["log"], bind(_R["div"], x, bind(_R["sub"], 1.0, x)))


def _lerp(start, end, weight):
    return bind(_R["add"], start, bind(_R["mul"], weight, bind(_R["sub"], end, start)))


def _euclidean_norm(x, axes, keep_dims=False):
    axes = (axes,) if isinstance(axes, int) else tuple(axes)
    return bind(_R["sqrt"], bind(_R["reduce_sum"], bind(_R["square"], x), axis=axes, keep_dims=keep_dims))


def _tensor_shape(x):
    return Tensor(np.asarray(x.shape, np.int64))


def _scalar_cast(x, t):
    return as_dtype(t).np.type(x).item()


# activations and layers
_primitive("ReLU6", lambda x: _ops().relu6(x), "min(max(x, 0), 6)")
_primitive("Elu", lambda x, alpha=1.0: _ops().elu(x, alpha), "exponential linear unit", alpha=1.0)
_primitive("CeLU", _celu, "max(0, x) + min(0, alpha * (exp(x / alpha) - 1))", alpha=1.0)
_primitive("HSwish", lambda x: _ops().hardswish(x), "hard swish")
_primitive("HSigmoid", lambda x: _ops().hardsigmoid(x), "hard sigmoid")
_primitive("Mish", lambda x: _ops().mish(x), "x * tanh(softplus(x))")
_primitive("SeLU", lambda x: _ops().selu(x), "scaled exponential linear unit")
_primitive("Softsign", lambda x: _ops().softsign(x), "x / (1 + |x|)")
_primitive("PReLU", lambda x, weight: _ops().prelu(x, weight), "parametric ReLU (inputs x, weight)")
_primitive("FastGeLU", lambda x: bind(_R["mul"], x, bind(_R["sigmoid"], bind(_R["mul"], x, 1.702))),
           "x * sigmoid(1.702 x)")
_primitive("HShrink", lambda x, lambd=0.5: _shrink(x, lambd, False), "x where |x| > lambd, else 0", lambd=0.5)
_primitive("SoftShrink", lambda x, lambd=0.5: _shrink(x, lambd, True), "x - sign(x) lambd where |x| > lambd, else 0",
           lambd=0.5)
_primitive("Flatten", lambda x: _ops().flatten(x), "(N, ...) -> (N, prod(...))")
_primitive("AdaptiveAvgPool2D", lambda x, output_size: _ops().adaptive_avg_pool2d(x, output_size),
           "adaptive average pooling", output_size=None)
_primitive("AdaptiveMaxPool2D", lambda x, output_size: _ops().adaptive_max_pool2d(x, output_size),
           "adaptive max pooling", output_size=None)
_primitive("L2Normalize", _l2_normalize, "x / sqrt(max(sum(x^2, axis), epsilon))", axis=0, epsilon=1e-4)
# losses
_primitive("KLDivLoss", lambda logits, labels, reduction="mean": _ops().kl_div(logits, labels, reduction),
           "Kullback-Leibler divergence", reduction="mean")
_primitive("BinaryCrossEntropy", lambda logits, labels, weight=None, reduction="mean":
           _ops().binary_cross_entropy(logits, labels, weight, reduction), "binary cross entropy", reduction="mean")
_primitive("BCEWithLogitsLoss", lambda logits, label, weight=None, pos_weight=None, reduction="mean":
           _bce_with_logits(logits, label, weight, pos_weight, reduction),
           "binary cross entropy on logits", reduction="mean")
_primitive("SigmoidCrossEntropyWithLogits", _sigmoid_ce, "element-wise sigmoid cross entropy")
_primitive("SmoothL1Loss", lambda x, y, beta=1.0, reduction="none": _ops().smooth_l1_loss(x, y, beta, reduction),
           "smooth L1 loss", beta=1.0, reduction="none")
_primitive("L2Loss", lambda x: bind(_R["mul"], bind(_R["reduce_sum"], bind(_R["square"], x), axis=None), 0.5),
           "sum(x^2) / 2")
# element-wise math
_primitive("Tan", lambda x: _mnp().tan(x), "sin(x) / cos(x)")
_primitive("Sinh", lambda x: _mnp().sinh(x), "hyperbolic sine")
_primitive("Cosh", lambda x: _mnp().cosh(x), "hyperbolic cosine")
_primitive("Asinh", lambda x: _mnp().arcsinh(x), "inverse hyperbolic sine")
_primitive("Acosh", lambda x: _mnp().arccosh(x), "inverse hyperbolic cosine")
_primitive("Atanh", lambda x: _mnp().arctanh(x), "inverse hyperbolic tangent")
_primitive("Expm1", lambda x: _mnp().expm1(x), "exp(x) - 1")
_primitive("Erfc", lambda x: bind(_R["sub"], 1.0, bind(_R["erf"], x)), "1 - erf(x)")
_primitive("Inv", lambda x: bind(_R["reciprocal"], x), "1 / x")
_primitive("RealDiv", lambda x, y: bind(_R["div"], x, y), "x / y")
_primitive("DivNoNan", _div_no_nan, "x / y, 0 where y == 0")
_primitive("MulNoNan", _mul_no_nan, "x * y, 0 where y == 0")
_primitive("Xdivy", _xdivy, "x / y, 0 where x == 0")
_primitive("Xlogy", _xlogy, "x * log(y), 0 where x == 0")
_primitive("TruncateDiv", _truncate_div, "x / y rounded towards zero")
_primitive("TruncateMod", lambda x, y: _mnp().fmod(x, y), "remainder with the sign of x")
_primitive("FloorMod", lambda x, y: bind(_R["mod"], x, y), "remainder with the sign of y")
_primitive("SquaredDifference", _squared_difference, "(x - y)^2")
_primitive("Lerp", _lerp, "start + weight (end - start)")
_primitive("Addcdiv", lambda x, t1, t2, value: bind(_R["add"], x, bind(_R["mul"], value, bind(_R["div"], t1, t2))),
           "x + value * t1 / t2")
_primitive("Addcmul", lambda x, t1, t2, value: bind(_R["add"], x, bind(_R["mul"], value, bind(_R["mul"], t1, t2))),
           "x + value * t1 * t2")
_primitive("Logit", _logit, "log(x / (1 - x)), x clamped to [eps, 1 - eps] when eps >= 0", eps=-1.0)
_primitive("Round", lambda x: _ops().round(x), "round half to even")
_primitive("Rint", lambda x: _mnp().rint(x), "round half to even")
_primitive("Trunc", lambda x: _mnp().trunc(x), "round towards zero")
_primitive("Hypot", lambda x, y: _mnp().hypot(x, y), "sqrt(x^2 + y^2)")
_primitive("Heaviside", lambda x, values: _mnp().heaviside(x, values), "step function")
_primitive("IsClose", lambda x, y, rtol=1e-5, atol=1e-8, equal_nan=True: _ops().isclose(x, y, rtol, atol, equal_nan),
           "|x - y| <= atol + rtol |y|", rtol=1e-5, atol=1e-8, equal_nan=True)
# reductions
_primitive("ReduceAll", lambda x, axis=(), keep_dims=False: _ops().all(x, axis if axis != () else None, keep_dims),
           "logical and over axis", keep_dims=False)
_primitive("ReduceAny", lambda x, axis=(), keep_dims=False: _ops().any(x, axis if axis != () else None, keep_dims),
           "logical or over axis", keep_dims=False)
_primitive("ReduceStd", _reduce_std, "(std, mean) over axis", axis=(), unbiased=True, keep_dims=False)
_primitive("ArgMaxWithValue", _with_value("reduce_max", "argmax"), "(index, value) of the maximum", axis=0,
           keep_dims=False)
_primitive("ArgMinWithValue", _with_value("reduce_min", "argmin"), "(index, value) of the minimum", axis=0,
           keep_dims=False)
_primitive("EuclideanNorm", _euclidean_norm, "sqrt(sum(x^2, axes))", keep_dims=False)
_primitive("SquareSumAll", lambda x, y: (bind(_R["reduce_sum"], bind(_R["square"], x), axis=None),
                                         bind(_R["reduce_sum"], bind(_R["square"], y), axis=None)),
           "(sum(x^2), sum(y^2))")
# creation, shapes and conversions
_primitive("Zeros", _zeros, "a Tensor of zeros (inputs: shape, dtype)")
_primitive("Ones", _ones, "a Tensor of ones (inputs: shape, dtype)")
_primitive("Eye", lambda n, m, t: _ops().eye(n, m, t), "identity matrix (inputs: n, m, dtype)")
_primitive("Fill", _fill, "a Tensor filled with value (inputs: dtype, shape, value)")
_primitive("LinSpace", lambda start, stop, num: _ops().linspace(start, stop, num), "evenly spaced values")
_primitive("Range", _range, "values from start to limit by delta", maxlen=1000000)
_primitive("Rank", lambda x: len(x.shape), "the number of dimensions")
_primitive("Size", lambda x: int(np.prod(x.shape)) if x.shape else 1, "the number of elements")
_primitive("TensorShape", _tensor_shape, "the shape as an int64 Tensor")
_primitive("DType", dtype, "the dtype of a Tensor")
_primitive("ScalarToTensor", scalar_to_tensor, "a 0-d Tensor of a scalar (inputs: x, dtype)")
_primitive("ScalarToArray", scalar_to_array, "a 0-d Tensor of a scalar")
_primitive("TupleToArray", tuple_to_array, "a Tensor of a tuple of numbers")
_primitive("ScalarCast", _scalar_cast, "a Python scalar cast to a number type (inputs: x, type)")
_primitive("FloatStatus", _float_status, "[0.] when every element is finite, [1.] when one is NaN or infinite")
_primitive("Meshgrid", lambda inputs, indexing="xy": _mnp().meshgrid(*inputs, indexing=indexing),
           "coordinate matrices", indexing="xy")
_primitive("Roll", lambda x, shift, axis: _mnp().roll(x, shift, axis), "roll along axis", shift=0, axis=0)
_primitive("Trace", lambda x: _mnp().trace(x), "the sum of the diagonal")
_primitive("Diag", lambda x: _mnp().diag(x) if x.ndim == 1 else _diag_nd(x), "a diagonal tensor of x")
_primitive("Tril", lambda x, diagonal=0: _ops().tril(x, diagonal), "lower triangle", diagonal=0)
_primitive("Triu", lambda x, diagonal=0: _ops().triu(x, diagonal), "upper triangle", diagonal=0)
_primitive("MaskedFill", lambda x, mask, value: _ops().masked_fill(x, mask, value), "value where mask")
_primitive("MatrixPower", lambda x, n: _mnp().matrix_power(x, n), "x to the integer power n", n=1)
_primitive("ReverseV2", lambda x, axis: _ops().flip(x, tuple(axis)), "reverse along axes", axis=())


def _diag_nd(x):
    """MindSpore's Diag of a rank-k tensor: rank 2k, x on the 'diagonal' (out[i..., i...] = x[i...])."""
    n = x.size
    flat = bind(_R["reshape"], x, shape=(n,))
    eye = Tensor(np.eye(n, dtype=x.dtype.np))
    return bind(_R["reshape"], bind(_R["mul"], eye, flat), shape=tuple(x.shape) * 2)

