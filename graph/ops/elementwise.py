"""Elementwise ops: arithmetic, math functions, activations, comparisons, logic, where, cast.

Broadcasting follows numpy. dtypes follow :func:`graph.dtypes.promote` (int with float gives the
float type; Python scalars adopt the tensor's type).
"""
from __future__ import annotations

import functools
import math

import numpy as np

from ..aval import AVal
from ..dtypes import bool_, float32, promote, weak_scalar_type, scalar_dtype
from .core import (ELEMENTWISE, Attr, F, Op, a_dtype, a_float, a_oneof, broadcast_shapes, describe,
                   fail, gets_gradient, is_tensorlike, register)
from .emit import erf_array, floor_div_array, floor_mod_array

SQRT_2 = math.sqrt(2.0)
SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


# -- shared inference ------------------------------------------------------------------------------
def result_dtype(op_name: str, *args):
    """Promoted dtype of tensor/scalar operands."""
    dt = None
    for a in args:
        if is_tensorlike(a):
            dt = a.dtype if dt is None else promote(dt, a.dtype)
    if dt is None:
        # all scalars: the widest scalar kind
        dt = scalar_dtype(args[0])
        for a in args[1:]:
            dt = promote(dt, scalar_dtype(a))
        return dt
    for a in args:
        if not is_tensorlike(a):
            if not isinstance(a, (int, float, bool)):
                fail(op_name, f"unsupported operand {describe(a)}", TypeError)
            dt = weak_scalar_type(dt, a)
    return dt


def result_shape(op_name: str, *args):
    shapes = [tuple(a.shape) for a in args if is_tensorlike(a)]
    if not shapes:
        return ()
    if len(shapes) == 1:
        return shapes[0]
    return broadcast_shapes(op_name, *shapes)


_NUMBER_TYPES = frozenset({bool, int, float})


def infer_same(name):
    def infer(*args, **attrs):
        # the common cases first, with what result_shape/result_dtype would give them: one
        # tensor, a tensor and a Python number, two tensors of one dtype
        a = args[0] if args else None
        if type(a) not in _NUMBER_TYPES and is_tensorlike(a):
            if len(args) == 1:
                return AVal(a.shape, a.dtype)
            if len(args) == 2:
                b = args[1]
                if type(b) in _NUMBER_TYPES:
                    dt = weak_scalar_type(a.dtype, b)
                    if type(b) is int and dt.is_int:
                        _check_int_scalar(name, dt, args)
                    return AVal(a.shape, dt)
                if type(b) is type(a) and a.dtype is b.dtype:
                    sa, sb = a.shape, b.shape
                    return AVal(sa if sa == sb else broadcast_shapes(name, tuple(sa), tuple(sb)), a.dtype)
        dt = result_dtype(name, *args)
        if dt.is_int:
            _check_int_scalar(name, dt, args)
        return AVal(result_shape(name, *args), dt)
    return infer


def _check_int_scalar(name, dtype, operands):
    """Arithmetic refuses a Python int that its integer result type cannot hold (``int8 + 200``,
    ``uint8 - 1`` is fine, ``uint8 + -1`` is not), as numpy 2 does (NEP 50: OverflowError) in
    eager execution, rather than wrap it as compiled code would."""
    lo, hi = _int_bounds(dtype.np)
    for v in operands:
        if type(v) is int and not lo <= v <= hi:
            fail(name, f"Python integer {v} is out of bounds for {dtype} (the other operands: "
                       f"{', '.join(describe(a) for a in operands if a is not v)}); cast an operand first")


@functools.lru_cache(maxsize=None)
def _int_bounds(np_dtype):
    """(min, max) of an integer numpy dtype (cached: inference of every integer op with a Python
    int asks, and ``np.iinfo`` is built anew at each call)."""
    info = np.iinfo(np_dtype)
    return int(info.min), int(info.max)


def _refuse_bool(name, operands, result_is_bool):
    """Arithmetic that has no bool meaning (sub, neg, sign, floor_div, mod, pow, square, relu): MindSpore accepts
    number types only; numpy would silently compute bool inputs in int8 while graph inference keeps
    bool. Refused when the (promoted) result would be bool; ``bool_tensor ** 2`` is an int."""
    if result_is_bool:
        from .core import describe, fail
        shown = ", ".join(describe(a) for a in operands)
        fail(name, f"bool operands are not supported, got {shown}; cast to a number type first", TypeError)


def infer_no_bool(name, base=None):
    """Shape inference that refuses an all-bool computation (see :func:`_refuse_bool`)."""
    if base is None:  # (its result's dtype is the promoted one: computed once)
        same = infer_same(name)

        def infer(*args, **attrs):
            out = same(*args, **attrs)
            _refuse_bool(name, args, out.dtype.is_bool)
            return out
        return infer

    def infer(*args, **attrs):
        _refuse_bool(name, args, result_dtype(name, *args).is_bool)
        return base(*args, **attrs)
    return infer


def impl_no_bool(name, impl):
    """An array impl refusing an all-bool computation (eager runs impls on the promoted operands,
    without shape inference)."""
    def checked(xp, *arrays, **attrs):
        # a result is bool only when every operand is: a first operand of another dtype settles
        # it without numpy's result_type (the common case, on every call)
        kind = getattr(getattr(arrays[0], "dtype", None), "kind", "b") if arrays else "b"
        if kind == "b":
            _refuse_bool(name, arrays, xp.result_type(*arrays) == bool)
        return impl(xp, *arrays, **attrs)
    return checked


def infer_float(name):
    """Result is floating point: ints/bools are computed in float32."""
    def infer(*args, **attrs):
        dt = result_dtype(name, *args)
        return AVal(result_shape(name, *args), dt if dt.is_float else float32)
    return infer


def infer_float_only(name):
    def infer(*args, **attrs):
        for a in args:
            if is_tensorlike(a) and not a.dtype.is_float:
                fail(name, f"expects floating-point input, got {describe(a)}", TypeError)
        return AVal(result_shape(name, *args), result_dtype(name, *args))
    return infer


def infer_bool(name):
    def infer(*args, **attrs):
        result_dtype(name, *args)  # validates operand kinds
        return AVal(result_shape(name, *args), bool_)
    return infer


def _float_np(xp, x):
    """Cast int/bool arrays (and scalars) to float32 for ops that always produce floats."""
    dt = getattr(x, "dtype", None)
    if dt is not None and dt.kind not in "fc":
        return x.astype(float32.np)
    return x


# -- gradient helpers --------------------------------------------------------------------------------
def unbroadcast(g, x):
    """Sum ``g`` over the axes along which ``x`` was broadcast, in ``x``'s dtype; None where ``x``
    gets no gradient (see :func:`gets_gradient`)."""
    if not gets_gradient(x):
        return None
    shape = tuple(x.shape)
    gshape = tuple(g.shape)
    if gshape != shape:
        lead = len(gshape) - len(shape)
        axes = tuple(range(lead)) + tuple(i + lead for i, s in enumerate(shape)
                                          if s == 1 and gshape[i + lead] != 1)
        if axes:
            g = F.reduce_sum(g, axis=axes, keep_dims=False)
        if tuple(g.shape) != shape:
            g = F.reshape(g, shape=shape)
    if g.dtype is not x.dtype:
        g = F.cast(g, dtype=x.dtype)
    return g


def _float_mask(cond, like):
    return F.cast(cond, dtype=like.dtype)


# -- registration helpers ---------------------------------------------------------------------------
def unary(name, prim, impl, expr, vjp, infer=None, attrs=None, doc="", nondiff=None, bool_ok=True):
    if not bool_ok:
        infer, impl = infer_no_bool(name, infer), impl_no_bool(name, impl)
    infer = infer or infer_same(name)
    return register(Op(name, prim=prim, inputs=("x",), impl=impl, expr=expr, vjp=vjp,
                       nondiff=nondiff, infer=infer, kind=ELEMENTWISE,
                       attrs=attrs, promote=True, doc=doc))


def binary(name, prim, impl, expr, vjp, infer=None, doc="", nondiff=None, attrs=None, bool_ok=True):
    if not bool_ok:
        infer, impl = infer_no_bool(name, infer), impl_no_bool(name, impl)
    infer = infer or infer_same(name)
    return register(Op(name, prim=prim, inputs=("x", "y"), impl=impl, expr=expr, vjp=vjp,
                       nondiff=nondiff, infer=infer, kind=ELEMENTWISE,
                       promote=True, doc=doc, attrs=attrs))


# -- arithmetic --------------------------------------------------------------------------------------
binary("add", "Add", lambda xp, x, y: xp.add(x, y), lambda E, x, y: E.add(x, y),
       lambda g, out, x, y: (unbroadcast(g, x), unbroadcast(g, y)), doc="x + y")
binary("sub", "Sub", lambda xp, x, y: xp.subtract(x, y), lambda E, x, y: E.sub(x, y),
       lambda g, out, x, y: (unbroadcast(g, x), unbroadcast(F.neg(g), y)), bool_ok=False, doc="x - y")
binary("mul", "Mul", lambda xp, x, y: xp.multiply(x, y), lambda E, x, y: E.mul(x, y),
       lambda g, out, x, y: (unbroadcast(F.mul(g, y), x), unbroadcast(F.mul(g, x), y)),
       doc="x * y")


def _is_float_operand(v):
    dt = getattr(v, "dtype", None)
    return dt.kind in "fc" if dt is not None else isinstance(v, float)


def _div_impl(xp, x, y):
    if not _is_float_operand(x) and not _is_float_operand(y):
        # int / int is float32 (not numpy's float64), also for Python int operands
        x = _float_np(xp, x) if hasattr(x, "dtype") else float32.np.type(x)
        y = _float_np(xp, y) if hasattr(y, "dtype") else float32.np.type(y)
    return xp.true_divide(x, y)


binary("div", "Div", _div_impl, lambda E, x, y: E.div(x, y),
       lambda g, out, x, y: (unbroadcast(F.div(g, y), x),
                             unbroadcast(F.neg(F.div(F.mul(g, out), y)), y)),
       infer=infer_float("div"), doc="true division x / y (int inputs give float32)")


def _floor_div_vjp(g, out, x, y):
    return (unbroadcast(F.zeros_like(g), x), unbroadcast(F.zeros_like(g), y))


binary("floor_div", "FloorDiv", floor_div_array,
       lambda E, x, y: E.floor_div(x, y), _floor_div_vjp, bool_ok=False,
       doc="floor(x / y) (Python's //: exact for ints, x // 0 is 0); gradient is zero almost everywhere")
binary("mod", "Mod", floor_mod_array,
       lambda E, x, y: E.floor_mod(x, y),
       lambda g, out, x, y: (unbroadcast(g, x),
                             unbroadcast(F.neg(F.mul(g, F.floor_div(x, y))), y)), bool_ok=False,
       doc="x mod y with the sign of y (numpy/Python semantics; an integer x % 0 is the dtype's "
           "maximum, as MindSpore's floor_mod documents)")


def _pow_vjp(g, out, x, y):
    if is_tensorlike(y):
        gx = F.mul(g, F.mul(y, F.pow(x, F.sub(y, 1.0))))
        safe_log = F.log(F.where(F.greater(x, 0.0), x, F.ones_like(x)))
        gy = F.mul(F.mul(g, out), safe_log)
        return unbroadcast(gx, x), unbroadcast(gy, y)
    return unbroadcast(F.mul(g, F.mul(F.pow(x, y - 1.0), float(y))), x), None


def _pow_impl(xp, x, y):
    """``x ** y``; an integer power with a negative exponent (numpy raises) is what ``1 / x**-y``
    truncates to, as both compiled back ends compute it: 1 for x == 1, +-1 for x == -1, else 0."""
    if not _negative_int_exponent(xp, x, y):
        return xp.power(x, y)
    negative = xp.less(y, 0)
    out = xp.power(x, xp.where(negative, 0, y) if hasattr(y, "dtype") else 0)  # (0: keeps the dtype)
    odd = xp.bitwise_and(y, 1) != 0
    inverse = xp.where(xp.equal(x, 1), 1, xp.where(xp.equal(x, -1), xp.where(odd, -1, 1), 0))
    return xp.where(negative, inverse, out).astype(out.dtype, copy=False)


def _negative_int_exponent(xp, x, y) -> bool:
    dtype = getattr(x, "dtype", None)
    if dtype is not None and dtype.kind in "fc":  # (a float base: no result_type call)
        return False
    return xp.result_type(x, y).kind == "i" and bool(xp.any(xp.less(y, 0)))


binary("pow", "Pow", _pow_impl, lambda E, x, y: E.pow(x, y), _pow_vjp,
       bool_ok=False, doc="x ** y")
binary("maximum", "Maximum", lambda xp, x, y: xp.maximum(x, y), lambda E, x, y: E.max(x, y),
       lambda g, out, x, y: (unbroadcast(F.mul(g, _float_mask(F.greater_equal(x, y), g)), x),
                             unbroadcast(F.mul(g, _float_mask(F.less(x, y), g)), y)),
       doc="elementwise max; ties send the gradient to x")
binary("minimum", "Minimum", lambda xp, x, y: xp.minimum(x, y), lambda E, x, y: E.min(x, y),
       lambda g, out, x, y: (unbroadcast(F.mul(g, _float_mask(F.less_equal(x, y), g)), x),
                             unbroadcast(F.mul(g, _float_mask(F.greater(x, y), g)), y)),
       doc="elementwise min; ties send the gradient to x")

unary("neg", "Neg", lambda xp, x: xp.negative(x), lambda E, x: E.neg(x),
      lambda g, out, x: (F.neg(g),), bool_ok=False, doc="-x")
unary("abs", "Abs", lambda xp, x: xp.abs(x), lambda E, x: E.abs(x),
      lambda g, out, x: (F.mul(g, F.sign(x)),), doc="|x|")
unary("sign", "Sign", lambda xp, x: xp.sign(x),
      lambda E, x: E.select(E.ne(x, x), x,  # NaN stays NaN, as in numpy
                            E.select(E.gt(x, E.const(0, x)), E.const(1, x),
                                     E.select(E.lt(x, E.const(0, x)), E.const(-1, x), E.const(0, x)))),
      lambda g, out, x: (F.zeros_like(g),), bool_ok=False, doc="-1, 0 or 1; gradient zero")
unary("square", "Square", lambda xp, x: xp.square(x), lambda E, x: E.mul(x, x),
      lambda g, out, x: (F.mul(g, F.mul(x, 2.0)),), bool_ok=False, doc="x * x")
unary("exp", "Exp", lambda xp, x: xp.exp(_float_np(xp, x)), lambda E, x: E.exp(x),
      lambda g, out, x: (F.mul(g, out),), infer=infer_float("exp"), doc="e ** x")
unary("log", "Log", lambda xp, x: xp.log(_float_np(xp, x)), lambda E, x: E.log(x),
      lambda g, out, x: (F.div(g, x),), infer=infer_float("log"), doc="natural log")
unary("log1p", "Log1p", lambda xp, x: xp.log1p(_float_np(xp, x)), lambda E, x: E.log1p(x),
      lambda g, out, x: (F.div(g, F.add(x, 1.0)),), infer=infer_float("log1p"), doc="log(1 + x)")
unary("sqrt", "Sqrt", lambda xp, x: xp.sqrt(_float_np(xp, x)), lambda E, x: E.sqrt(x),
      lambda g, out, x: (F.div(F.mul(g, 0.5), out),), infer=infer_float("sqrt"), doc="square root")
unary("rsqrt", "Rsqrt", lambda xp, x: xp.reciprocal(xp.sqrt(_float_np(xp, x))),
      lambda E, x: E.div(E.const(1.0, x), E.sqrt(x)),
      lambda g, out, x: (F.mul(F.mul(g, -0.5), F.div(out, x)),), infer=infer_float("rsqrt"),
      doc="1 / sqrt(x)")
unary("reciprocal", "Reciprocal", lambda xp, x: xp.reciprocal(_float_np(xp, x)),
      lambda E, x: E.div(E.const(1.0, x), x),
      lambda g, out, x: (F.neg(F.mul(g, F.mul(out, out))),), infer=infer_float("reciprocal"),
      doc="1 / x")
def _float_only(fn):
    """impl wrapper: eager skips infer for elementwise ops, so reject what infer rejects."""
    def impl(xp, x, *rest, **attrs):
        dt = getattr(x, "dtype", None)
        if dt is not None and dt.kind != "f":
            raise TypeError(f"floating-point input required, got {dt}")
        return fn(xp, x, *rest, **attrs)
    return impl


unary("floor", "Floor", _float_only(lambda xp, x: xp.floor(x)), lambda E, x: E.floor(x),
      lambda g, out, x: (F.zeros_like(g),), infer=infer_float_only("floor"), doc="round down; gradient zero")
unary("ceil", "Ceil", _float_only(lambda xp, x: xp.ceil(x)), lambda E, x: E.ceil(x),
      lambda g, out, x: (F.zeros_like(g),), infer=infer_float_only("ceil"), doc="round up; gradient zero")
unary("sin", "Sin", lambda xp, x: xp.sin(_float_np(xp, x)), lambda E, x: E.sin(x),
      lambda g, out, x: (F.mul(g, F.cos(x)),), infer=infer_float("sin"), doc="sine")
unary("cos", "Cos", lambda xp, x: xp.cos(_float_np(xp, x)), lambda E, x: E.cos(x),
      lambda g, out, x: (F.neg(F.mul(g, F.sin(x))),), infer=infer_float("cos"), doc="cosine")
unary("erf", "Erf", lambda xp, x: erf_array(xp, _float_np(xp, x)), lambda E, x: E.erf(x),
      lambda g, out, x: (F.mul(g, F.mul(F.exp(F.neg(F.square(x))), TWO_OVER_SQRT_PI)),),
      infer=infer_float("erf"), doc="error function")


# -- activations ---------------------------------------------------------------------------------------
def _relu_impl(xp, x):
    zero = _ZEROS.get(x.dtype) if type(x) is _ndarray else None
    if zero is None:
        return xp.maximum(x, 0)  # a Python 0 is a weak scalar: the dtype of x is kept
    return _np_maximum(x, zero)  # (a 0-d zero of x's dtype: numpy skips converting the scalar)


def _zeros_by_dtype() -> dict:
    out = {}
    for name in ("float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8"):
        zero = np.zeros((), name)
        zero.flags.writeable = False
        out[zero.dtype] = zero
    return out


_ZEROS = _zeros_by_dtype()
_ndarray, _np_maximum = np.ndarray, np.maximum


unary("relu", "ReLU", _relu_impl, lambda E, x: E.max(x, E.const(0.0, x)),
      # the gradient reads the result, not the input (out > 0 exactly where x > 0): backward keeps
      # what the next layer keeps anyway, and the forward pass stores no mask
      lambda g, out, x: (F.mul(g, _float_mask(F.greater(out, 0.0), g)),), bool_ok=False, doc="max(x, 0)")


def _sigmoid_impl(xp, x):
    x = _float_np(xp, x)
    # exp(-|x|) never overflows; both branches are exact where they are used.
    e = xp.exp(-xp.abs(x))
    return xp.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e)).astype(x.dtype, copy=False)


def _sigmoid_expr(E, x):
    e = E.exp(E.neg(E.abs(x)))
    one = E.const(1.0, x)
    return E.select(E.ge(x, E.const(0.0, x)), E.div(one, E.add(one, e)), E.div(e, E.add(one, e)))


unary("sigmoid", "Sigmoid", _sigmoid_impl, _sigmoid_expr,
      lambda g, out, x: (F.mul(g, F.mul(out, F.sub(1.0, out))),), infer=infer_float("sigmoid"),
      doc="1 / (1 + exp(-x)), computed without overflow")
unary("tanh", "Tanh", lambda xp, x: xp.tanh(_float_np(xp, x)), lambda E, x: E.tanh(x),
      lambda g, out, x: (F.mul(g, F.sub(1.0, F.square(out))),), infer=infer_float("tanh"),
      doc="hyperbolic tangent")


def _softplus_impl(xp, x):
    x = _float_np(xp, x)
    return (xp.maximum(x, 0) + xp.log1p(xp.exp(-xp.abs(x)))).astype(x.dtype, copy=False)


unary("softplus", "Softplus", _softplus_impl,
      lambda E, x: E.add(E.max(x, E.const(0.0, x)), E.log1p(E.exp(E.neg(E.abs(x))))),
      lambda g, out, x: (F.mul(g, F.sigmoid(x)),), infer=infer_float("softplus"),
      doc="log(1 + exp(x)), computed without overflow")


def _gelu_impl(xp, x, approximate="none"):
    x = _float_np(xp, x)
    if approximate == "tanh":
        # 0.5 (1 + tanh(u)) = sigmoid(2u), written with e = exp(-2|u|): 1 + tanh(u) cancels where
        # tanh(u) is near -1 (x < -4 in float32: gelu(-5) lost 30%, gelu(-8) came out -0)
        u = SQRT_2_OVER_PI * (x + 0.044715 * x * x * x)
        e = xp.exp(-2.0 * xp.abs(u))
        return (x * (xp.where(u >= 0, 1.0, e) / (1.0 + e))).astype(x.dtype, copy=False)
    return (0.5 * x * (1.0 + erf_array(xp, x / SQRT_2))).astype(x.dtype, copy=False)


def _gelu_expr(E, x, approximate="none"):
    half, one = E.const(0.5, x), E.const(1.0, x)
    if approximate == "tanh":  # (the impl's cancellation-free form: x sigmoid(2u))
        x3 = E.mul(E.mul(x, x), x)
        u = E.mul(E.const(SQRT_2_OVER_PI, x), E.add(x, E.mul(E.const(0.044715, x), x3)))
        e = E.exp(E.mul(E.const(-2.0, x), E.abs(u)))
        sig = E.div(E.select(E.ge(u, E.const(0.0, x)), one, e), E.add(one, e))
        return E.mul(x, sig)
    return E.mul(E.mul(half, x), E.add(one, E.erf(E.mul(x, E.const(1.0 / SQRT_2, x)))))


def _gelu_vjp(g, out, x, approximate="none"):
    # one elementwise op (gelu_grad) rather than the ten of the formula: PyNative makes one pass
    # over the activations instead of ten, and runs it as a compiled kernel (runtime/eager_kernels)
    if not x.dtype.is_float:  # gelu computed an integer input in its float result's dtype
        x = F.cast(x, dtype=out.dtype)
    return (F.gelu_grad(g, x, approximate=approximate),)


GELU_ATTRS = {"approximate": Attr("none", a_oneof("none", "tanh"))}
_GELU_TANH_A = 0.044715
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)

unary("gelu", "GeLU", _gelu_impl, _gelu_expr, _gelu_vjp, infer=infer_float("gelu"), attrs=GELU_ATTRS,
      doc="Gaussian error linear unit; approximate='tanh' uses the tanh formula")


def _gelu_grad_impl(xp, dout, x, approximate="none"):
    """dout * gelu'(x) in the (float) operands' dtype: (Phi(x) + x phi(x)) exactly, or the derivative of
    the tanh formula, 0.5 (1 + t) + 0.5 x (1 - t^2) u' with u = sqrt(2/pi) (x + a x^3), t = tanh(u)."""
    result = xp.result_type(dout, x)  # (before asarray: a Python number promotes weakly, as numpy's)
    dout, x = xp.asarray(dout), xp.asarray(x)
    # float16 is computed in float32 and rounded once, as compiled kernels compute it
    compute = xp.promote_types(result, xp.float32)
    dout, x = dout.astype(compute, copy=False), x.astype(compute, copy=False)
    if approximate == "tanh":
        # 0.5 (1 + t) = sigmoid(2u) and 0.5 (1 - t^2) = 2 e / (1 + e)^2 with e = exp(-2|u|): no
        # cancellation where t is near +-1 (1 - t*t in float32 loses every digit there)
        x2 = x * x
        u = SQRT_2_OVER_PI * (x + _GELU_TANH_A * x2 * x)
        du = SQRT_2_OVER_PI * (1.0 + 3.0 * _GELU_TANH_A * x2)
        e = xp.exp(-2.0 * xp.abs(u))
        inv = 1.0 / (1.0 + e)
        d = xp.where(u >= 0, inv, e * inv) + 2.0 * x * du * (e * inv * inv)
    else:
        cdf = 0.5 * (1.0 + erf_array(xp, x * (1.0 / SQRT_2)))
        d = cdf + x * (xp.exp(-0.5 * (x * x)) * _INV_SQRT_2PI)
    return (dout * d).astype(result, copy=False)


def _gelu_grad_expr(E, dout, x, approximate="none"):
    if isinstance(x, (int, float)):
        # a Python-number activation computes in the tensor operand's dtype, as the impl does
        # (the constants below are built like x)
        x = E.const(x, dout)
    half, one = E.const(0.5, x), E.const(1.0, x)
    if approximate == "tanh":  # (the impl's cancellation-free form)
        x2 = E.mul(x, x)
        c = E.const(SQRT_2_OVER_PI, x)
        u = E.mul(c, E.add(x, E.mul(E.const(_GELU_TANH_A, x), E.mul(x2, x))))
        du = E.mul(c, E.add(one, E.mul(E.const(3.0 * _GELU_TANH_A, x), x2)))
        e = E.exp(E.mul(E.const(-2.0, x), E.abs(u)))
        inv = E.div(one, E.add(one, e))
        sig = E.select(E.ge(u, E.const(0.0, x)), inv, E.mul(e, inv))
        d = E.add(sig, E.mul(E.mul(E.mul(E.const(2.0, x), x), du), E.mul(e, E.mul(inv, inv))))
    else:
        cdf = E.mul(half, E.add(one, E.erf(E.mul(x, E.const(1.0 / SQRT_2, x)))))
        pdf = E.mul(E.exp(E.mul(E.const(-0.5, x), E.mul(x, x))), E.const(_INV_SQRT_2PI, x))
        d = E.add(cdf, E.mul(x, pdf))
    return E.mul(dout, d)


def _gelu_second_derivative(x, approximate):
    """gelu''(x), written with registered ops (the second-order gradients' rule)."""
    x2 = F.square(x)
    if approximate == "tanh":
        t = F.tanh(F.mul(F.add(x, F.mul(F.mul(x2, x), _GELU_TANH_A)), SQRT_2_OVER_PI))
        du = F.mul(F.add(F.mul(x2, 3.0 * _GELU_TANH_A), 1.0), SQRT_2_OVER_PI)
        ddu = F.mul(x, 6.0 * _GELU_TANH_A * SQRT_2_OVER_PI)
        # d/dx [0.5 (1 + t) + 0.5 x (1 - t^2) u'] = (1 - t^2) (u' + 0.5 x (u'' - 2 t u'^2))
        inner = F.add(du, F.mul(F.mul(x, 0.5), F.sub(ddu, F.mul(F.mul(t, F.square(du)), 2.0))))
        return F.mul(F.sub(1.0, F.square(t)), inner)
    # d/dx [Phi(x) + x phi(x)] = phi(x) (2 - x^2)
    pdf = F.mul(F.exp(F.mul(x2, -0.5)), _INV_SQRT_2PI)
    return F.mul(pdf, F.sub(2.0, x2))


def _gelu_grad_vjp(g, out, dout, x, approximate="none"):
    gdout = unbroadcast(F.gelu_grad(g, x, approximate=approximate), dout) if gets_gradient(dout) else None
    gx = unbroadcast(F.mul(F.mul(g, dout), _gelu_second_derivative(x, approximate)), x) if gets_gradient(x) else None
    return gdout, gx


binary("gelu_grad", "GeLUGrad", _gelu_grad_impl, _gelu_grad_expr, _gelu_grad_vjp, infer=infer_float_only("gelu_grad"),
       attrs=GELU_ATTRS, doc="dout * gelu'(x): the gradient of gelu (approximate as gelu's)")


def _leaky_relu_impl(xp, x, alpha=0.2):
    return xp.where(x > 0, x, x * x.dtype.type(alpha))


unary("leaky_relu", "LeakyReLU", _float_only(_leaky_relu_impl),
      lambda E, x, alpha=0.2: E.select(E.gt(x, E.const(0.0, x)), x, E.mul(x, E.const(alpha, x))),
      lambda g, out, x, alpha=0.2: (F.where(F.greater(x, 0.0), g, F.mul(g, alpha)),),
      infer=infer_float_only("leaky_relu"),
      attrs={"alpha": Attr(0.2, a_float)}, doc="x if x > 0 else alpha * x")


# -- comparisons and logic --------------------------------------------------------------------------
def _cmp(name, prim, fn, emit):
    binary(name, prim, lambda xp, x, y: fn(xp)(x, y), emit, None, infer=infer_bool(name),
           nondiff="comparison: boolean output has no gradient")


def _by_value(emit, outside):
    """A comparison's expression that compares a Python int with an integer operand by value, as
    numpy does (NEP 50): an int the operand's dtype cannot hold (``uint8 < 300``, ``int8 == -1000``)
    decides the comparison alone, where converting it to the dtype would wrap it.
    ``outside(scalar_is_above, tensor_is_left)`` is that decision."""
    def expr(E, x, y):
        for tensor, scalar, left in ((x, y, True), (y, x, False)):
            dtype = getattr(tensor, "dtype", None)
            if type(scalar) is int and dtype is not None and dtype.kind in "iu":
                lo, hi = _int_bounds(dtype)
                if not lo <= scalar <= hi:  # (the operand equals itself everywhere: an integer)
                    return E.eq(tensor, tensor) if outside(scalar > hi, left) else E.ne(tensor, tensor)
        return emit(E, x, y)
    return expr


_cmp("equal", "Equal", lambda xp: xp.equal, _by_value(lambda E, x, y: E.eq(x, y), lambda above, left: False))
_cmp("not_equal", "NotEqual", lambda xp: xp.not_equal, _by_value(lambda E, x, y: E.ne(x, y), lambda above, left: True))
_cmp("less", "Less", lambda xp: xp.less, _by_value(lambda E, x, y: E.lt(x, y), lambda above, left: above == left))
_cmp("less_equal", "LessEqual", lambda xp: xp.less_equal,
     _by_value(lambda E, x, y: E.le(x, y), lambda above, left: above == left))
_cmp("greater", "Greater", lambda xp: xp.greater, _by_value(lambda E, x, y: E.gt(x, y), lambda above, left: above != left))
_cmp("greater_equal", "GreaterEqual", lambda xp: xp.greater_equal,
     _by_value(lambda E, x, y: E.ge(x, y), lambda above, left: above != left))
_cmp("logical_and", "LogicalAnd", lambda xp: xp.logical_and, lambda E, x, y: E.and_(x, y))
_cmp("logical_or", "LogicalOr", lambda xp: xp.logical_or, lambda E, x, y: E.or_(x, y))
unary("logical_not", "LogicalNot", lambda xp, x: xp.logical_not(x), lambda E, x: E.not_(x), None,
      infer=infer_bool("logical_not"), nondiff="boolean output has no gradient")


# finiteness tests (x - x is 0 exactly for finite x, NaN for inf and NaN; only FMA contraction is
# allowed in generated code, so these are not folded away)
def _finite_expr(E, x):
    return E.eq(E.sub(x, x), E.const(0, x))


unary("isfinite", "IsFinite", lambda xp, x: xp.isfinite(x), _finite_expr, None,
      infer=infer_bool("isfinite"), nondiff="boolean output has no gradient", doc="x is neither inf nor NaN")
unary("isnan", "IsNan", lambda xp, x: xp.isnan(x), lambda E, x: E.ne(x, x), None,
      infer=infer_bool("isnan"), nondiff="boolean output has no gradient", doc="x is NaN")
unary("isinf", "IsInf", lambda xp, x: xp.isinf(x), lambda E, x: E.and_(E.not_(_finite_expr(E, x)), E.eq(x, x)),
      None, infer=infer_bool("isinf"), nondiff="boolean output has no gradient", doc="x is +inf or -inf")


def _infer_where(cond, x, y):
    if is_tensorlike(cond) and not cond.dtype.is_bool:
        fail("where", f"condition must be a bool tensor, got {describe(cond)}", TypeError)
    shape = result_shape("where", cond, x, y)
    return AVal(shape, result_dtype("where", x, y))


def _where_impl(xp, c, x, y):
    dt = getattr(c, "dtype", None)
    if dt is not None and dt.kind != "b":  # eager skips infer: reject what infer rejects
        raise TypeError(f"condition must be bool, got {dt}")
    return xp.where(c, x, y)


register(Op("where", prim="Select", inputs=("condition", "x", "y"),
            impl=_where_impl, expr=lambda E, c, x, y: E.select(c, x, y),
            infer=_infer_where, kind=ELEMENTWISE, promote=True,
            vjp=lambda g, out, c, x, y: (None, unbroadcast(F.where(c, g, F.zeros_like(g)), x),
                                         unbroadcast(F.where(c, F.zeros_like(g), g), y)),
            doc="x where condition else y"))


# -- dtype conversion ---------------------------------------------------------------------------------
def _cast_impl(xp, x, dtype):
    if hasattr(x, "astype"):
        if dtype.is_float and x.dtype.kind == "f" and x.dtype.itemsize > dtype.np.itemsize:
            # narrowing (float32 -> float16 in mixed precision): values out of range become inf
            # silently, as on every accelerator; loss scaling detects them
            with xp.errstate(over="ignore"):
                return x.astype(dtype.np, copy=False)
        return x.astype(dtype.np, copy=False)
    return xp.asarray(x, dtype=dtype.np)


def _cast_vjp(g, out, x, dtype):
    if not gets_gradient(x):
        return (None,)
    return (F.cast(g, dtype=x.dtype),)


register(Op("cast", prim="Cast", inputs=("x",), impl=_cast_impl,
            expr=lambda E, x, dtype: E.cast(x, dtype),
            infer=lambda x, dtype: AVal(x.shape if is_tensorlike(x) else (), dtype),
            vjp=_cast_vjp, kind=ELEMENTWISE, attrs={"dtype": Attr(check=a_dtype)},
            call_attrs=("dtype",), mixed_precision=False,
            doc="convert to another dtype"))
