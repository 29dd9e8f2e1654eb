"""LLVM implementation of graph/ops/emit.py's scalar-expression interface.

Values are :class:`LV` (an llvmlite value plus its numpy compute dtype). float16 is computed in
float32; bools are ``i1`` in registers (``i8`` in memory). float32 transcendental functions use
the inline polynomials of :mod:`codegen.cpu.vmath`; float64 ones call the ``llvm.*`` intrinsics
(libm), and ``erf``/``pow`` call libm. Integer ``floor_div``/``floor_mod`` are exact integer
arithmetic (never through a float); ``div`` of integers is float32 true division, as eager.
"""
from __future__ import annotations

import numpy as np
from llvmlite import ir

from ..emit_rules import EmitterRules
from ..fused_plan import compute_dtype, np_dtype  # re-exported
from . import vmath

F16, F32, F64 = ir.HalfType(), ir.FloatType(), ir.DoubleType()
I1, I8, I16, I32, I64 = (ir.IntType(n) for n in (1, 8, 16, 32, 64))

BOOL = np.dtype(np.bool_)
FLOAT32 = np.dtype(np.float32)


def reg_type(dt):
    """LLVM register type of a compute dtype."""
    dt = np.dtype(dt)
    if dt == np.bool_:
        return I1
    if dt.kind == "f":
        return {2: F16, 4: F32, 8: F64}[dt.itemsize]
    return ir.IntType(dt.itemsize * 8)


def mem_type(dt):
    """LLVM memory type of a storage dtype."""
    dt = np.dtype(dt)
    if dt == np.bool_:
        return I8
    return reg_type(dt)


class LV:
    __slots__ = ("v", "dt")

    def __init__(self, v, dt):
        self.v = v
        self.dt = np.dtype(dt)

    @property
    def dtype(self):
        return self.dt

    def __repr__(self):
        return f"LV({self.dt})"


def convert(b, v, src, dst):
    """Convert llvm value ``v`` of compute dtype src to compute dtype dst (numpy casting rules)."""
    src, dst = np.dtype(src), np.dtype(dst)
    if src == dst:
        return v
    ts, td = reg_type(src), reg_type(dst)
    if dst == np.bool_:
        if src.kind == "f":
            return b.fcmp_unordered("!=", v, ir.Constant(ts, 0.0))
        return b.icmp_unsigned("!=", v, ir.Constant(ts, 0))
    if src.kind == "f" and dst.kind == "f":
        return b.fpext(v, td) if dst.itemsize > src.itemsize else b.fptrunc(v, td)
    if src.kind == "f":
        return _float_to_int(b, v, ts, td)
    if dst.kind == "f":
        return b.uitofp(v, td) if src.kind in "ub" else b.sitofp(v, td)
    # int -> int
    if td.width == ts.width:
        return v
    if td.width < ts.width:
        return b.trunc(v, td)
    return b.zext(v, td) if src.kind in "ub" else b.sext(v, td)


def _float_to_int(b, v, ts, td):
    """float -> integer as numpy computes it on x86-64, for every value: truncation toward zero
    into a 32-bit integer (a 64-bit one for int64), NaN and out-of-range values giving that
    integer's minimum (the processor's "integer indefinite"), then the low bits for int8, int16
    and uint8 (300.0 -> 44, -1.0 -> 255 as uint8). A bare fptosi of such values is poison in
    LLVM, so they never reach it."""
    width = 64 if td.width == 64 else 32
    wide = ir.IntType(width)
    limit = float(2 ** (width - 1))
    ok = b.and_(b.fcmp_ordered(">=", v, ir.Constant(ts, -limit)), b.fcmp_ordered("<", v, ir.Constant(ts, limit)))
    r = b.fptosi(b.select(ok, v, ir.Constant(ts, 0.0)), wide)
    r = b.select(ok, r, ir.Constant(wide, -(1 << (width - 1))))
    return b.trunc(r, td) if td.width < width else r


def _f64_to_f32_round_odd(b, d):
    """float64 -> float32 rounded to odd: truncated toward zero, the last bit set when inexact.
    A second rounding of the result to a format at least two bits narrower (float16) is then the
    correctly rounded one (no double-rounding error)."""
    r = b.fptrunc(d, F32)
    back = b.fpext(r, F64)
    inexact = b.fcmp_ordered("!=", back, d)
    bits = b.bitcast(r, I32)
    too_far = b.fcmp_ordered(">", vmath.intrinsic(b, "fabs", back), vmath.intrinsic(b, "fabs", d))
    bits = b.select(b.and_(inexact, too_far), b.sub(bits, ir.Constant(I32, 1)), bits)
    bits = b.select(inexact, b.or_(bits, ir.Constant(I32, 1)), bits)
    return b.bitcast(bits, F32)


class LLVMEmitter(EmitterRules):
    """Emitter over an IRBuilder; ``dtype`` is the default for ``const`` without ``like``."""

    def __init__(self, builder: ir.IRBuilder, dtype=np.float32):
        self.b = builder
        self.dtype = compute_dtype(dtype)
        self.transcendentals = 0  # cost estimate for the threading heuristic

    # -- helpers --------------------------------------------------------------------------------
    def wrap(self, x, like_dt=None) -> LV:
        if isinstance(x, LV):
            return x
        if isinstance(x, (bool, np.bool_)):
            return self.const(bool(x), dtype=BOOL)
        dt = like_dt if like_dt is not None else (
            self.dtype if isinstance(x, float) else np.dtype(np.int64))
        return self.const(x, dtype=dt)

    def to(self, x: LV, dt) -> LV:
        """``x`` as a value of dtype ``dt``, held in its compute dtype. A float16 value is
        computed in float32 but rounded to float16 here (every fused node's result and every
        operand promoted to float16 passes through), so a fused chain rounds where eager does;
        rounding a value that is already a float16 is exact."""
        want = np_dtype(dt)
        dt = compute_dtype(want)
        if want == np.float16 and x.dt == np.float64:
            # float64 -> float16 in one rounding, as numpy: round to odd into float32 first
            # (exact enough that the second rounding to nearest is the correct one)
            return LV(self.b.fpext(self.b.fptrunc(_f64_to_f32_round_odd(self.b, x.v), F16), F32), dt)
        v = convert(self.b, x.v, x.dt, dt)
        if want == np.float16 and x.dt != BOOL:
            v = self.b.fpext(self.b.fptrunc(v, F16), F32)
        return LV(v, dt)

    def _unify(self, *xs):
        lvs = [x for x in xs if isinstance(x, LV)]
        if not lvs:
            dt = self.dtype
        else:
            dt = lvs[0].dt
            for x in lvs[1:]:
                if x.dt != dt:
                    dt = np.result_type(dt, x.dt)
        dt = compute_dtype(dt)
        return [self.to(self.wrap(x, dt), dt) for x in xs], dt

    def _floatify(self, x):
        x = self.wrap(x)
        if x.dt.kind != "f":
            x = self.to(x, FLOAT32)
        return x

    def _intr(self, name, x: LV, *more):
        return LV(vmath.intrinsic(self.b, name, x.v, *[m.v for m in more]), x.dt)

    # -- primitives -----------------------------------------------------------------------------
    def const(self, v, like=None, dtype=None):
        if dtype is None:
            dtype = like.dt if isinstance(like, LV) else (
                compute_dtype(like.dtype) if hasattr(like, "dtype") else self.dtype)
        if np_dtype(dtype) == np.float16 and not isinstance(v, (bool, np.bool_)):
            with np.errstate(over="ignore"):
                v = float(np.float16(v))  # a float16 constant holds a float16 value
        dt = compute_dtype(dtype)
        t = reg_type(dt)
        if dt == np.bool_:
            return LV(ir.Constant(I1, int(bool(v))), dt)
        if dt.kind == "f":
            return LV(ir.Constant(t, float(v)), dt)
        return LV(ir.Constant(t, int(v)), dt)

    def _arith(self, fop, iop, x, y):
        (x, y), dt = self._unify(x, y)
        b = self.b
        if dt.kind == "f":
            return LV(getattr(b, fop)(x.v, y.v, flags=vmath.FM), dt)
        if dt == np.bool_:
            return LV({"add": b.or_, "mul": b.and_, "sub": b.xor}[iop](x.v, y.v), dt)
        return LV(getattr(b, iop)(x.v, y.v), dt)

    def add(self, x, y):
        return self._arith("fadd", "add", x, y)

    def sub(self, x, y):
        return self._arith("fsub", "sub", x, y)

    def mul(self, x, y):
        return self._arith("fmul", "mul", x, y)

    def div(self, x, y):
        (x, y), dt = self._unify(x, y)
        if dt.kind != "f":
            x, y = self.to(x, FLOAT32), self.to(y, FLOAT32)
        return LV(self.b.fdiv(x.v, y.v, flags=vmath.FM), x.dt)

    # -- floor division and modulo (dispatched by codegen/emit_rules.py) ----------------------------
    def _int_divmod(self, x, y, dt):
        """Exact integer floor division: LLVM's sdiv/srem truncate toward zero, so a nonzero
        remainder whose sign differs from the divisor's moves the quotient down by one. Divisors
        that trap (0, and -1 under the most negative dividend) are replaced by 1 first: the
        latter then gives numpy's wrapped quotient (MIN) and remainder 0 as they stand."""
        b = self.b
        t = reg_type(dt)
        zero, one = ir.Constant(t, 0), ir.Constant(t, 1)
        by_zero = b.icmp_unsigned("==", y.v, zero)
        if dt.kind == "u":
            ys = b.select(by_zero, one, y.v)
            q, r = b.udiv(x.v, ys), b.urem(x.v, ys)
        else:
            info = np.iinfo(dt)
            overflow = b.and_(b.icmp_signed("==", x.v, ir.Constant(t, int(info.min))),
                              b.icmp_signed("==", y.v, ir.Constant(t, -1)))
            ys = b.select(b.or_(by_zero, overflow), one, y.v)
            q, r = b.sdiv(x.v, ys), b.srem(x.v, ys)
            adjust = b.and_(b.icmp_signed("!=", r, zero),
                            b.icmp_signed("<", b.xor(r, ys), zero))  # signs of r and y differ
            q = b.select(adjust, b.sub(q, one), q)
            r = b.select(adjust, b.add(r, ys), r)
        q = b.select(by_zero, zero, q)
        r = b.select(by_zero, ir.Constant(t, int(np.iinfo(dt).max)), r)
        return LV(q, dt), LV(r, dt)

    def _float_divmod(self, x, y, dt):
        """numpy's npy_divmod: the remainder from fmod (exact), the quotient (x - mod) / y snapped
        to the nearest integer, both moved to Python's sign convention; y == 0 gives x / y and
        fmod's NaN."""
        b = self.b
        t = reg_type(dt)
        fz = ir.Constant(t, 0.0)
        a, d = x.v, y.v
        mod = b.frem(a, d)
        div = b.fdiv(b.fsub(a, mod), d)
        mod_nonzero = b.fcmp_unordered("!=", mod, fz)  # NaN counts as nonzero, as in C's if (mod)
        signs_differ = b.xor(b.fcmp_ordered("<", d, fz), b.fcmp_ordered("<", mod, fz))
        adjust = b.and_(mod_nonzero, signs_differ)
        mod = b.select(adjust, b.fadd(mod, d), mod)
        div = b.select(adjust, b.fsub(div, ir.Constant(t, 1.0)), div)
        mod = b.select(mod_nonzero, mod, vmath.intrinsic(b, "copysign", fz, d))
        fl = vmath.intrinsic(b, "floor", div)
        fl = b.select(b.fcmp_ordered(">", b.fsub(div, fl), ir.Constant(t, 0.5)),
                      b.fadd(fl, ir.Constant(t, 1.0)), fl)
        quotient = b.fdiv(a, d)
        fl = b.select(b.fcmp_unordered("!=", div, fz), fl, vmath.intrinsic(b, "copysign", fz, quotient))
        by_zero = b.fcmp_ordered("==", d, fz)
        return LV(b.select(by_zero, quotient, fl), dt), LV(mod, dt)

    def neg(self, x):
        x = self.wrap(x)
        if x.dt.kind == "f":
            return LV(self.b.fneg(x.v), x.dt)
        return LV(self.b.neg(x.v), x.dt)

    def abs(self, x):
        x = self.wrap(x)
        if x.dt.kind == "f":
            return self._intr("fabs", x)
        if x.dt.kind in "ub":
            return x
        neg = self.b.icmp_signed("<", x.v, ir.Constant(x.v.type, 0))
        return LV(self.b.select(neg, self.b.neg(x.v), x.v), x.dt)

    def _unary_math(self, name, x):
        x = self._floatify(x)
        self.transcendentals += 1
        if x.dt == np.float32:
            return LV(getattr(vmath, name)(self.b, x.v), x.dt)
        return None

    def exp(self, x):
        r = self._unary_math("exp", x)
        return r if r is not None else self._intr("exp", self._floatify(x))

    def log(self, x):
        r = self._unary_math("log", x)
        return r if r is not None else self._intr("log", self._floatify(x))

    def log1p(self, x):
        r = self._unary_math("log1p", x)
        return r if r is not None else self._libm("log1p", self._floatify(x))

    def tanh(self, x):
        r = self._unary_math("tanh", x)
        return r if r is not None else self._libm("tanh", self._floatify(x))

    def erf(self, x):
        r = self._unary_math("erf", x)
        return r if r is not None else self._libm("erf", self._floatify(x))

    def sin(self, x):
        r = self._unary_math("sin", x)
        return r if r is not None else self._intr("sin", self._floatify(x))

    def cos(self, x):
        r = self._unary_math("cos", x)
        return r if r is not None else self._intr("cos", self._floatify(x))

    def _libm(self, name, x: LV):
        mod = self.b.module
        fn = mod.globals.get(name)
        if fn is None:
            fn = ir.Function(mod, ir.FunctionType(F64, [F64]), name)
        return LV(self.b.call(fn, [x.v]), x.dt)

    def sqrt(self, x):
        return self._intr("sqrt", self._floatify(x))

    def floor(self, x):
        x = self.wrap(x)
        return self._intr("floor", x) if x.dt.kind == "f" else x

    def ceil(self, x):
        x = self.wrap(x)
        return self._intr("ceil", x) if x.dt.kind == "f" else x

    def _minmax(self, x, y, pred):
        (x, y), dt = self._unify(x, y)
        b = self.b
        if dt.kind == "f":
            c = b.or_(b.fcmp_ordered(pred, x.v, y.v), b.fcmp_unordered("uno", x.v, x.v))
        elif dt.kind in "ub":
            c = b.icmp_unsigned(pred, x.v, y.v)
        else:
            c = b.icmp_signed(pred, x.v, y.v)
        return LV(b.select(c, x.v, y.v), dt)

    def max(self, x, y):
        return self._minmax(x, y, ">")

    def min(self, x, y):
        return self._minmax(x, y, "<")

    def pow(self, x, y):
        """``x ** y`` in the unified dtype (powers by a constant exponent that have a cheaper form
        were rewritten before any backend: graph/passes/simplify.py's ``reduce_strength``)."""
        (x, y), dt = self._unify(x, y)
        if dt.kind in "iu":
            return self._int_pow(x, y, dt)
        if dt.kind != "f":
            xf, yf = self.to(x, np.float64), self.to(y, np.float64)
            return self.to(LV(vmath.intrinsic(self.b, "pow", xf.v, yf.v), np.float64), dt)
        self.transcendentals += 4
        return LV(vmath.intrinsic(self.b, "pow", x.v, y.v), dt)

    def _int_pow(self, x, y, dt):
        """Integer power as numpy computes it: square-and-multiply over the exponent's bits in
        the integer type, wrapping on overflow (unrolled: straight-line code that vectorises).
        A negative exponent (numpy raises; compiled code cannot) gives what 1 / x**-y truncates
        to: 1 for x == 1, +-1 for x == -1, else 0."""
        b = self.b
        t = reg_type(dt)
        one, zero = ir.Constant(t, 1), ir.Constant(t, 0)
        acc, base = one, x.v
        for i in range(t.width):
            bit = b.icmp_unsigned("!=", b.and_(b.lshr(y.v, ir.Constant(t, i)), one), zero)
            acc = b.select(bit, b.mul(acc, base), acc)
            base = b.mul(base, base)
        if dt.kind == "i":
            odd = b.icmp_unsigned("!=", b.and_(y.v, one), zero)
            minus_one = ir.Constant(t, -1)
            inverse = b.select(b.icmp_signed("==", x.v, one), one,
                               b.select(b.icmp_signed("==", x.v, minus_one), b.select(odd, minus_one, one), zero))
            acc = b.select(b.icmp_signed("<", y.v, zero), inverse, acc)
        return LV(acc, dt)

    def _cmp(self, x, y, fpred, ipred, ordered=True):
        (x, y), dt = self._unify(x, y)
        b = self.b
        if dt.kind == "f":
            c = (b.fcmp_ordered if ordered else b.fcmp_unordered)(fpred, x.v, y.v)
        elif dt.kind in "ub":
            c = b.icmp_unsigned(ipred, x.v, y.v)
        else:
            c = b.icmp_signed(ipred, x.v, y.v)
        return LV(c, BOOL)

    def lt(self, x, y):
        return self._cmp(x, y, "<", "<")

    def le(self, x, y):
        return self._cmp(x, y, "<=", "<=")

    def gt(self, x, y):
        return self._cmp(x, y, ">", ">")

    def ge(self, x, y):
        return self._cmp(x, y, ">=", ">=")

    def eq(self, x, y):
        return self._cmp(x, y, "==", "==")

    def ne(self, x, y):
        return self._cmp(x, y, "!=", "!=", ordered=False)

    def _bool(self, x):
        if not isinstance(x, LV):  # a Python scalar's truth, exactly (1e-308 is not a float32 0)
            return self.const(bool(x), dtype=BOOL)
        return self.to(x, BOOL)

    def and_(self, x, y):
        return LV(self.b.and_(self._bool(x).v, self._bool(y).v), BOOL)

    def or_(self, x, y):
        return LV(self.b.or_(self._bool(x).v, self._bool(y).v), BOOL)

    def not_(self, x):
        return LV(self.b.xor(self._bool(x).v, ir.Constant(I1, 1)), BOOL)

    def select(self, c, x, y):
        c = self._bool(c)
        (x, y), dt = self._unify(x, y)
        return LV(self.b.select(c.v, x.v, y.v), dt)

    def cast(self, x, dtype):
        return self.to(self.wrap(x), np_dtype(dtype))


from graph.ops.emit import PRIMITIVES  # noqa: E402

_missing = [p for p in PRIMITIVES if not hasattr(LLVMEmitter, p)]
assert not _missing, f"LLVMEmitter lacks primitives {_missing}"
