"""Vector-friendly float32 math written as straight-line LLVM IR (no calls), so the loop
vectoriser turns it into zmm/ymm code: exp, log, log1p, tanh, erf, sin, cos.

Bare ``llvm.exp`` & co. in a vector loop are scalarised back into libm calls (9x slower than numpy,
see the codegen notes); float64 kernels do call libm (scalar intrinsics), float32 ones use these.
Coefficients: Cephes (expf, logf, sinf, cosf; tanh is expm1(2x) / (expm1(2x) + 2) on expf's
polynomial, one branch-free path of ~25 vector instructions); erf: least-squares polynomial fits
computed once in float64 (:func:`_erf_fit`) and evaluated in float32, with an exp-based tail. Accuracy (measured in tests/codegen): a few ulp against numpy float32.

sin/cos reduce the argument exactly enough for every float32 (two-part pi/2 in float64 below
|x| = 120, Payne-Hanek with a 2/pi table above), so they stay within the bound of
docs/numerics.md over the whole float32 range, as numpy does.

Every function takes ``(b, x)``: an ``llvmlite.ir.IRBuilder`` and a float (f32) value.
"""
from __future__ import annotations

import math
import struct

from llvmlite import ir

F32 = ir.FloatType()
F64 = ir.DoubleType()
I32 = ir.IntType(32)
I1 = ir.IntType(1)

FM = ("contract",)  # fast-math flags safe for elementwise math (FMA contraction only)


def _c(v, ty=F32):
    return ir.Constant(ty, v)


def intrinsic(b, name, *args, ty=None):
    ty = ty or args[0].type
    mod = b.module
    fname = f"llvm.{name}.{'f32' if ty == F32 else 'f64'}"
    fn = mod.globals.get(fname)
    if fn is None:
        fn = ir.Function(mod, ir.FunctionType(ty, [a.type for a in args]), fname)
    return b.call(fn, list(args))


def fadd(b, x, y):
    return b.fadd(x, y, flags=FM)


def fsub(b, x, y):
    return b.fsub(x, y, flags=FM)


def fmul(b, x, y):
    return b.fmul(x, y, flags=FM)


def poly(b, x, coeffs, ty=F32):
    """Horner: coeffs[0]*x^(n-1) + ... + coeffs[-1]."""
    acc = _c(coeffs[0], ty)
    for c in coeffs[1:]:
        acc = fadd(b, fmul(b, acc, x), _c(c, ty))
    return acc


def isnan(b, x):
    return b.fcmp_unordered("uno", x, x)


_ROUND_MAGIC = 12582912.0  # 1.5 * 2**23
_ROUND_MAGIC_BITS = 0x4B400000  # its float32 bit pattern


def _round_to_int(b, v):
    """``(n, n as i32)`` for ``v`` rounded to the nearest integer, for |v| < 2**22.

    Adding 1.5 * 2**23 leaves the integer in the low mantissa bits, so the int comes from a bitcast
    instead of ``fptosi``: a NaN lane gives harmless bits rather than LLVM poison, and NaN inputs
    need no select of their own (the float arithmetic carries the NaN to the result)."""
    shifted = fadd(b, v, _c(_ROUND_MAGIC))
    n_f = b.fsub(shifted, _c(_ROUND_MAGIC))
    n_i = b.sub(b.bitcast(shifted, I32), _c(_ROUND_MAGIC_BITS, I32))
    return n_f, n_i


def _pow2(b, n):
    """2**n as a float for an i32 ``n`` in [-126, 127]."""
    return b.bitcast(b.shl(b.add(n, _c(127, I32)), _c(23, I32)), F32)


def ldexp2(b, y, n):
    """y * 2**n for an i32 ``n`` in [-150, 128] (two multiplies: denormal results and 2**128
    overflowing to inf come out of the arithmetic)."""
    h = b.ashr(n, _c(1, I32))
    return fmul(b, fmul(b, y, _pow2(b, h)), _pow2(b, b.sub(n, h)))


def _clamp(b, x, lo, hi):
    """x limited to [lo, hi]; a NaN stays NaN (one min/max instruction each)."""
    x = b.select(b.fcmp_ordered(">", x, _c(hi)), _c(hi), x)
    return b.select(b.fcmp_ordered("<", x, _c(lo)), _c(lo), x)


def _reduce_ln2(b, x):
    """Cody-Waite: x = n*ln2 + r with |r| <= ln2/2; returns (r, n as i32)."""
    n_f, n_i = _round_to_int(b, fmul(b, x, _c(1.4426950408889634)))
    r = b.fsub(x, b.fmul(n_f, _c(0.693359375)))
    r = b.fsub(r, b.fmul(n_f, _c(-2.12194440e-4)))
    return r, n_i


def _expm1_reduced(b, r):
    """exp(r) - 1 for |r| <= ln2/2 (Cephes expf polynomial: r + r^2 * P(r))."""
    p = poly(b, r, [1.9875691500E-4, 1.3981999507E-3, 8.3334519073E-3, 4.1665795894E-2,
                    1.6666665459E-1, 5.0000001201E-1])
    return fadd(b, fmul(b, p, fmul(b, r, r)), r)


def exp(b, x):
    # Beyond [-104, 89] the result is 0 or inf; clamping there lets ldexp2's arithmetic produce
    # them (n = -150 underflows, n = 128 overflows) instead of selects after the fact.
    r, n = _reduce_ln2(b, _clamp(b, x, -104.0, 89.0))
    return ldexp2(b, fadd(b, _expm1_reduced(b, r), _c(1.0)), n)


def tanh(b, x):
    # tanh(x) = e / (e + 2) with e = expm1(2x): one path for every |x| (no cancellation near 0,
    # since expm1 is accurate there), no division by a huge number (|x| <= 9 already rounds to
    # +-1), and a NaN flows through the arithmetic.
    r, n = _reduce_ln2(b, fmul(b, _clamp(b, x, -9.0, 9.0), _c(2.0)))
    scale = _pow2(b, n)  # |n| <= 26
    e = fadd(b, fmul(b, scale, _expm1_reduced(b, r)), b.fsub(scale, _c(1.0)))
    t = b.fdiv(e, b.fadd(e, _c(2.0)))
    return b.select(b.fcmp_ordered("==", x, _c(0.0)), x, t)  # tanh(-0.0) is -0.0


def log(b, x):
    # normalise denormals, split mantissa in [sqrt(1/2), sqrt(2)) and exponent
    small = b.fcmp_ordered("<", x, _c(1.1754943508222875e-38))
    xs = b.select(small, b.fmul(x, _c(8388608.0)), x)
    eadj = b.select(small, _c(-23.0), _c(0.0))
    bits = b.bitcast(xs, I32)
    e = b.sub(b.lshr(bits, _c(23, I32)), _c(126, I32))  # mantissa in [0.5, 1)
    m = b.bitcast(b.or_(b.and_(bits, _c(0x007FFFFF, I32)), _c(0x3F000000, I32)), F32)
    ef = b.fadd(b.sitofp(e, F32), eadj)
    lt = b.fcmp_ordered("<", m, _c(0.707106781186547524))
    ef = b.select(lt, b.fsub(ef, _c(1.0)), ef)
    m = b.select(lt, b.fsub(b.fadd(m, m), _c(1.0)), b.fsub(m, _c(1.0)))
    z = fmul(b, m, m)
    y = poly(b, m, [7.0376836292E-2, -1.1514610310E-1, 1.1676998740E-1, -1.2420140846E-1,
                    1.4249322787E-1, -1.6668057665E-1, 2.0000714765E-1, -2.4999993993E-1,
                    3.3333331174E-1])
    y = fmul(b, fmul(b, y, m), z)
    y = fadd(b, y, fmul(b, ef, _c(-2.12194440e-4)))
    y = fadd(b, y, fmul(b, z, _c(-0.5)))
    r = fadd(b, fadd(b, m, y), fmul(b, ef, _c(0.693359375)))
    r = b.select(b.fcmp_ordered("==", x, _c(math.inf)), x, r)
    r = b.select(b.fcmp_ordered("==", x, _c(0.0)), _c(-math.inf), r)
    r = b.select(b.fcmp_unordered("uge", x, _c(0.0)), r, _c(math.nan))  # negative -> nan
    return b.select(isnan(b, x), x, r)


def log1p(b, x):
    u = b.fadd(x, _c(1.0))
    d = b.fsub(u, _c(1.0))
    lu = log(b, u)
    r = b.fmul(lu, b.fdiv(x, b.select(b.fcmp_ordered("==", d, _c(0.0)), _c(1.0), d)))
    r = b.select(b.fcmp_ordered("==", d, _c(0.0)), x, r)
    return b.select(b.fcmp_ordered("==", x, _c(math.inf)), x, r)


def erf(b, x):
    # |x| < 1: x * P(x^2), as x * c0 + x * (c0_lo + x^2 * P1(x^2)) with c0 = 2/sqrt(pi) split into
    # a float32 head and its remainder, so the leading term is rounded once; above:
    # 1 - exp(-x^2) * Q((|x| - 2.5) / 1.5), whose rounding (and exp's) the factor erfc(x) <= 0.16
    # scales down. All in float32; coefficients from _erf_fit. Measured against the exact erf
    # (every float32 of [0.125, 4.5]): at most 1.43 ulp, the worst just below |x| = 1.
    c1, c2 = _erf_fit()
    xc = _clamp(b, x, -4.0, 4.0)
    a = intrinsic(b, "fabs", xc)
    s = fmul(b, a, a)
    c0 = 2 / math.sqrt(math.pi)
    c0_head = struct.unpack("f", struct.pack("f", c0))[0]
    corr = fadd(b, _c(c0 - c0_head), fmul(b, s, poly(b, s, c1[:-1])))
    small = fadd(b, fmul(b, xc, _c(c0_head)), fmul(b, xc, corr))
    t = fmul(b, fsub(b, a, _c(2.5)), _c(1 / 1.5))
    tail = fsub(b, _c(1.0), fmul(b, poly(b, t, c2), exp(b, b.fneg(s))))
    tail = intrinsic(b, "copysign", tail, xc)
    r = b.select(b.fcmp_ordered("<", a, _c(1.0)), small, tail)
    return b.select(isnan(b, x), x, r)


_ERF_PIECES = None


def _erf_fit():
    """Least-squares fits (float64, computed once): erf(x)/x as a degree-8 polynomial in x^2 on
    [0, 1], and erfc(x) * exp(x^2) as a degree-12 polynomial in t = (x - 2.5) / 1.5 on [1, 4].
    (Both are evaluated in float32; higher degrees gain nothing there: the rounding dominates.)"""
    global _ERF_PIECES
    if _ERF_PIECES is None:
        import numpy as np
        from numpy.polynomial import chebyshev as C, polynomial as P
        erf_v = np.vectorize(math.erf)
        erfc_v = np.vectorize(math.erfc)
        k = np.cos(np.linspace(0, np.pi, 400)) * 0.5 + 0.5  # Chebyshev nodes in [0, 1]
        s = k  # s = x^2
        xs = np.sqrt(s)
        f = np.where(xs > 0, erf_v(xs) / np.where(xs > 0, xs, 1), 2 / math.sqrt(math.pi))
        c1 = P.polyfit(s, f, 8)
        xs2 = 2.5 + 1.5 * np.cos(np.linspace(0, np.pi, 600))
        g = erfc_v(xs2) * np.exp(xs2 * xs2)
        t = (xs2 - 2.5) / 1.5
        c2 = C.cheb2poly(C.chebfit(t, g, 12))
        _ERF_PIECES = ([float(c) for c in c1[::-1]], [float(c) for c in c2[::-1]])
    return _ERF_PIECES


def _two_over_pi_words():
    """The 24 32-bit windows of 2/pi that :func:`_reduce_large` reads: word i holds the bits of
    2/pi * 2**(8i + 8) below the binary point's 2**32 (so words overlap by 24 bits). Computed from
    pi in exact integer arithmetic (Machin's formula), so no table is copied by hand."""
    extra = 40
    prec = 400 + extra
    one = 1 << prec

    def arctan_inv(n):  # arctan(1/n) * 2**prec
        total = term = one // n
        k, sign = 1, -1
        while term:
            term //= n * n
            total += sign * (term // (2 * k + 1))
            sign, k = -sign, k + 1
        return total
    pi_fixed = (4 * (4 * arctan_inv(5) - arctan_inv(239))) >> extra  # pi * 2**400
    two_over_pi = (2 << 800) // pi_fixed  # 2/pi * 2**400
    return [(two_over_pi >> (400 - (8 * i + 8))) & 0xFFFFFFFF for i in range(24)]


TWO_OVER_PI_WORDS = _two_over_pi_words()
#: from this |x| on, sin/cos reduce with :func:`_reduce_large` (below it the two-part float64
#: reduction is exact to far more than float32 needs: n < 77)
LARGE_ARGUMENT = 120.0
_I64 = ir.IntType(64)


def _two_over_pi_table(b):
    mod = b.module
    g = mod.globals.get("msjit_two_over_pi")
    if g is None:
        ty = ir.ArrayType(I32, len(TWO_OVER_PI_WORDS))
        g = ir.GlobalVariable(mod, ty, "msjit_two_over_pi")
        g.global_constant = True
        g.linkage = "internal"
        g.initializer = ir.Constant(ty, [ir.Constant(I32, w) for w in TWO_OVER_PI_WORDS])
    return g


def _reduce_large(b, x):
    """Payne-Hanek reduction of a float32 ``|x|`` (for |x| >= 120; any bits are safe to feed):
    ``(r, n)`` with |x| = n * pi/2 + r, |r| <= pi/4, r in float64 with a relative error near
    2**-60. The 24-bit mantissa times the 96 bits of 2/pi around its exponent (three table words,
    integer multiplies) gives the product mod 4 in 64-bit fixed point with 62 fraction bits: the
    top two bits are the quadrant, the rest the reduced argument (the method of ARM's
    optimized-routines sinf; the table index is masked, so NaN/inf lanes load in bounds too)."""
    xi = b.bitcast(x, I32)
    index = b.and_(b.lshr(xi, _c(26, I32)), _c(15, I32))
    shift = b.and_(b.lshr(xi, _c(23, I32)), _c(7, I32))
    mant = b.shl(b.or_(b.and_(xi, _c(0xFFFFFF, I32)), _c(0x800000, I32)), shift)  # < 2**31
    table = _two_over_pi_table(b)
    zero = _c(0, I32)

    def word(offset):
        return b.load(b.gep(table, [zero, b.add(index, _c(offset, I32))], inbounds=True))
    m64 = b.zext(mant, _I64)
    hi = b.zext(b.mul(mant, word(0)), _I64)  # only its low 32 bits matter (the rest is 0 mod 4)
    mid = b.mul(m64, b.zext(word(4), _I64))
    lo = b.mul(m64, b.zext(word(8), _I64))
    acc = b.add(b.or_(b.lshr(lo, _c(32, _I64)), b.shl(hi, _c(32, _I64))), mid)
    n = b.lshr(b.add(acc, _c(1 << 61, _I64)), _c(62, _I64))
    frac = b.sub(acc, b.shl(n, _c(62, _I64)))  # signed: the distance to the nearest quadrant
    r = b.fmul(b.sitofp(frac, F64), _c(math.pi / 2 * 2.0 ** -62, F64))
    return r, b.trunc(n, I32)


def _sincos_reduce(b, x):
    """x = q * pi/2 + r (mod 2 pi), |r| <= pi/4, for every float32 x: ``(r as float32, q in 0..3)``.
    Small |x|: two-part pi/2 in float64 with fma; |x| >= 120: :func:`_reduce_large`. Both run in
    every lane (the vectoriser needs straight-line code); a select keeps the right one."""
    d = b.fpext(x, F64)
    n = intrinsic(b, "rint", fmul(b, d, _c(2 / math.pi, F64)))
    r = intrinsic(b, "fma", b.fneg(n), _c(1.5707963267948966, F64), d, ty=F64)
    r = intrinsic(b, "fma", b.fneg(n), _c(6.123233995736766e-17, F64), r, ty=F64)
    # quadrant = n mod 4 computed in float64 (exact), so a huge n never overflows the conversion
    q = b.fptosi(fsub(b, n, fmul(b, intrinsic(b, "floor", fmul(b, n, _c(0.25, F64))), _c(4.0, F64))), I32)
    q = b.and_(q, _c(3, I32))
    r_big, n_big = _reduce_large(b, x)
    negative = b.fcmp_ordered("<", x, _c(0.0))  # sin(-x) = -sin(x): -x = (-n) pi/2 + (-r)
    r_big = b.select(negative, b.fneg(r_big), r_big)
    q_big = b.and_(b.select(negative, b.sub(_c(0, I32), n_big), n_big), _c(3, I32))
    large = b.fcmp_ordered(">=", intrinsic(b, "fabs", x), _c(LARGE_ARGUMENT))
    r = b.select(large, r_big, r)
    q = b.select(large, q_big, q)
    return b.fptrunc(r, F32), q


def _sin_poly(b, r, z):
    return fadd(b, fmul(b, fmul(b, poly(b, z, [-1.9515295891E-4, 8.3321608736E-3,
                                               -1.6666654611E-1]), z), r), r)


def _cos_poly(b, z):
    p = poly(b, z, [2.443315711809948E-005, -1.388731625493765E-003, 4.166664568298827E-002])
    return fadd(b, fsub(b, fmul(b, fmul(b, p, z), z), fmul(b, z, _c(0.5))), _c(1.0))


def _sincos(b, x, shift):
    r, q = _sincos_reduce(b, x)
    q = b.and_(b.add(q, _c(shift, I32)), _c(3, I32))
    z = fmul(b, r, r)
    s = _sin_poly(b, r, z)
    c = _cos_poly(b, z)
    odd = b.icmp_signed("!=", b.and_(q, _c(1, I32)), _c(0, I32))
    v = b.select(odd, c, s)
    neg = b.icmp_signed("!=", b.and_(q, _c(2, I32)), _c(0, I32))
    v = b.select(neg, b.fneg(v), v)
    bad = b.fcmp_unordered("uno", x, x)
    inf = b.fcmp_ordered("==", intrinsic(b, "fabs", x), _c(math.inf))
    return b.select(b.or_(bad, inf), _c(math.nan), v)


def sin(b, x):
    return _sincos(b, x, 0)


def cos(b, x):
    return _sincos(b, x, 1)
