"""Inverse trigonometric functions (atan, asin, acos, atan2) and integer bit/number-theory ops
(bitwise and/or/xor, invert, left/right shift, gcd, lcm), elementwise with numpy broadcasting.

They are *extern* ops: compiled graphs call the array module's own function (numpy's on the CPU,
CuPy's on a GPU) instead of fusing a scalar expression. The generated-code expression language
(graph/ops/emit.py) has no arctangent or bitwise primitive; calling numpy keeps every backend
exactly equal to eager mode -- bit-exact integer results, and numpy's inverse trigonometry with
its IEEE special cases (``atan2(-0.0, -1.0) == -pi``, ``asin(1.5)`` is NaN) -- at the cost of
no fusion with neighbouring elementwise ops.

dtypes: the inverse trigonometric functions give float results (int/bool inputs compute in
float32, as ``exp``/``sin`` do); the bit ops take integer operands (and/or/xor/invert also bool) and
keep the promoted integer dtype. A float operand is a TypeError naming the op (MindSpore's
BitwiseAnd/Gcd accept integer types only).

Gradients: d atan = 1/(1+x^2), d asin = 1/sqrt(1-x^2), d acos = -1/sqrt(1-x^2),
d atan2(y, x) = (x, -y)/(x^2+y^2); the integer ops have none (their outputs are integers).

Example:
    >>> import numpy as np
    >>> from graph.ops import REGISTRY
    >>> REGISTRY["gcd"].impl(np, np.array([12, -18], np.int32), np.array([8, 12], np.int32))
    array([4, 6], dtype=int32)
"""
from __future__ import annotations

from ..aval import AVal
from ..dtypes import float32
from .core import EXTERN, F, Op, describe, fail, is_tensorlike, register
from .elementwise import result_dtype, result_shape, unbroadcast


def _float_of(xp, x):
    """int/bool arrays (and Python numbers) as float32; float arrays unchanged."""
    dt = getattr(x, "dtype", None)
    if dt is None:
        return float32.np.type(x)
    return x if dt.kind in "fc" else x.astype(float32.np)


def _infer_float_result(name):
    def infer(*args):
        dt = result_dtype(name, *args)
        return AVal(result_shape(name, *args), dt if dt.is_float else float32)
    return infer


def _elementwise_extern(name, prim, inputs, impl, infer, doc, vjp=None, nondiff=None):
    return register(Op(name, prim=prim, inputs=inputs, impl=impl, infer=infer, vjp=vjp, nondiff=nondiff,
                       kind=EXTERN, promote=True, doc=doc))


# -- inverse trigonometry -----------------------------------------------------------------------------
def _one_minus_square_root(x):
    """sqrt(1 - x^2) as sqrt((1 - x)(1 + x)): no cancellation near |x| = 1."""
    return F.sqrt(F.mul(F.sub(1.0, x), F.add(x, 1.0)))


_elementwise_extern(
    "atan", "Atan", ("x",), lambda xp, x: xp.arctan(_float_of(xp, x)), _infer_float_result("atan"),
    "arctangent, in (-pi/2, pi/2)",
    vjp=lambda g, out, x: (unbroadcast(F.div(g, F.add(F.square(x), 1.0)), x),))
_elementwise_extern(
    "asin", "Asin", ("x",), lambda xp, x: xp.arcsin(_float_of(xp, x)), _infer_float_result("asin"),
    "arcsine, in [-pi/2, pi/2] (NaN outside [-1, 1])",
    vjp=lambda g, out, x: (unbroadcast(F.div(g, _one_minus_square_root(x)), x),))
_elementwise_extern(
    "acos", "ACos", ("x",), lambda xp, x: xp.arccos(_float_of(xp, x)), _infer_float_result("acos"),
    "arccosine, in [0, pi] (NaN outside [-1, 1])",
    vjp=lambda g, out, x: (unbroadcast(F.neg(F.div(g, _one_minus_square_root(x))), x),))


def _atan2_impl(xp, y, x):
    if hasattr(y, "dtype") or hasattr(x, "dtype"):
        # a Python number next to an array stays one: it adopts the array's float type (numpy's
        # weak scalars), as inference says (float16 y with 2.0 is float16), not float32's
        return xp.arctan2(*(_float_of(xp, a) if hasattr(a, "dtype") else a for a in (y, x)))
    return xp.arctan2(_float_of(xp, y), _float_of(xp, x))


def _atan2_vjp(g, out, y, x):
    # (a bool or int operand enters as the result's float type, as the impl converts it: square
    # refuses bools, and x**2 + y**2 of ints would be computed in ints)
    yf, xf = (F.cast(v, dtype=out.dtype) if is_tensorlike(v) and not v.dtype.is_float else v for v in (y, x))
    r2 = F.add(F.square(xf), F.square(yf))
    return unbroadcast(F.div(F.mul(g, xf), r2), y), unbroadcast(F.neg(F.div(F.mul(g, yf), r2)), x)


_elementwise_extern("atan2", "Atan2", ("y", "x"), _atan2_impl, _infer_float_result("atan2"),
                    "arctangent of y / x in the quadrant of (x, y), in [-pi, pi]", vjp=_atan2_vjp)


# -- integer bit and number-theory ops ------------------------------------------------------------------
def _integer_operands(name, args, bool_ok):
    for a in args:
        if is_tensorlike(a):
            dt = a.dtype
            ok = dt.is_int or (bool_ok and dt.is_bool)
        else:
            ok = isinstance(a, int) and (bool_ok or not isinstance(a, bool))
        if not ok:
            kinds = "integer or bool" if bool_ok else "integer"
            fail(name, f"expects {kinds} operands, got {describe(a)}", TypeError)


def _infer_integer(name, bool_ok):
    def infer(*args):
        _integer_operands(name, args, bool_ok)
        return AVal(result_shape(name, *args), result_dtype(name, *args))
    return infer


def _checked_integer_impl(name, fn, bool_ok):
    """impl refusing what infer refuses (eager runs both, compiled code only the impl), keeping
    the promoted operand dtype (numpy's gcd of a bool would give int8)."""
    def impl(xp, *arrays):
        for a in arrays:
            kind = getattr(getattr(a, "dtype", None), "kind", None)
            if kind is not None and not (kind in "iu" or (bool_ok and kind == "b")):
                raise TypeError(f"{name}: expects integer operands, got {a.dtype}")
        return fn(xp, *arrays)
    return impl


_NO_GRADIENT = "integer result: no gradient"


def _integer_op(name, prim, inputs, fn, doc, bool_ok=True):
    _elementwise_extern(name, prim, inputs, _checked_integer_impl(name, fn, bool_ok),
                        _infer_integer(name, bool_ok), doc, nondiff=_NO_GRADIENT)


_integer_op("bitwise_and", "BitwiseAnd", ("x", "y"), lambda xp, x, y: xp.bitwise_and(x, y), "x & y")
_integer_op("bitwise_or", "BitwiseOr", ("x", "y"), lambda xp, x, y: xp.bitwise_or(x, y), "x | y")
_integer_op("bitwise_xor", "BitwiseXor", ("x", "y"), lambda xp, x, y: xp.bitwise_xor(x, y), "x ^ y")
_integer_op("invert", "Invert", ("x",), lambda xp, x: xp.invert(x),
            "~x (two's complement; logical not for bool)")
_integer_op("left_shift", "LeftShift", ("x", "y"), lambda xp, x, y: xp.left_shift(x, y),
            "x << y (bits shifted out are lost)", bool_ok=False)
_integer_op("right_shift", "RightShift", ("x", "y"), lambda xp, x, y: xp.right_shift(x, y),
            "x >> y (arithmetic: the sign is kept for signed integers)", bool_ok=False)
_integer_op("gcd", "Gcd", ("x", "y"), lambda xp, x, y: xp.gcd(x, y),
            "greatest common divisor of |x| and |y| (gcd(0, 0) = 0)", bool_ok=False)
_integer_op("lcm", "Lcm", ("x", "y"), lambda xp, x, y: xp.lcm(x, y),
            "least common multiple of |x| and |y| (0 when either is 0)", bool_ok=False)
