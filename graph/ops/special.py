"""Vectorised special functions for numpy arrays (numpy has no ``erf``).

:func:`erf` is fdlibm's ``s_erf.c`` (the algorithm behind C libraries' ``erf`` and so behind
``math.erf``) evaluated on whole arrays in float64: the argument range is split into fdlibm's
intervals, each interval's elements are gathered by index (``take``), evaluated with its
rational approximation in in-place array arithmetic, and scattered back. Accuracy: within 1 ulp of
``math.erf`` in float64 (most results are bit-identical); float32 and float16 results are the
float64 value rounded once, so they equal ``float32(math.erf(x))`` -- what the framework computed
before, one Python call per element.

Arrays are processed in blocks of :data:`BLOCK` elements so the dozen temporaries of a block stay
in the CPU's cache instead of streaming through memory once per arithmetic step; the blocks of a
large array are spread over the intra-op threads (:mod:`graph.ops.intraop`), each writing only
its own slice, so the result does not depend on the thread count.

Example:
    >>> import math, numpy as np
    >>> x = np.array([-3.0, -0.5, 0.0, 1e-30, 1.0, 2.0, 7.0])
    >>> bool(np.all(np.abs(erf(x) - [math.erf(v) for v in x]) <= 1e-16))
    True
"""
from __future__ import annotations

import numpy as np

from . import intraop

#: elements per block: 128 KiB of float64 per temporary, so a block's working set stays in L2
BLOCK = 16384


def _from_high_word(high: int) -> float:
    """The double whose upper 32 bits are ``high`` and lower 32 bits zero (fdlibm's thresholds)."""
    return float(np.array(high << 32, np.int64).view(np.float64))


_TINY = 2.0 ** -28                    # below: erf(x) = x + efx * x
_SUBNORMAL_GUARD = _from_high_word(0x00800000)  # below: scaled to avoid underflow
_SMALL_END = 0.84375                  # [0, 0.84375): x + x * P(x^2) / Q(x^2)
_MID_END = 1.25                       # [0.84375, 1.25): erx + P(|x| - 1) / Q(|x| - 1)
_TAIL_SPLIT = _from_high_word(0x4006DB6E)  # about 1 / 0.35: where the erfc fits change
_SATURATED = 6.0                      # |x| >= 6: erf(x) = +-1 in double

_EFX = 1.28379167095512586316e-01
_EFX8 = 1.02703333676410069053e+00
_ERX = 8.45062911510467529297e-01
# coefficients, constant term first (fdlibm s_erf.c: pp, qq, pa, qa, ra, sa, rb, sb)
_PP = (1.28379167095512558561e-01, -3.25042107247001499370e-01, -2.84817495755985104766e-02,
       -5.77027029648944159157e-03, -2.37630166566501626084e-05)
_QQ = (1.0, 3.97917223959155352819e-01, 6.50222499887672944485e-02, 5.08130628187576562776e-03,
       1.32494738004321644526e-04, -3.96022827877536812320e-06)
_PA = (-2.36211856075265944077e-03, 4.14856118683748331666e-01, -3.72207876035701323847e-01,
       3.18346619901161753674e-01, -1.10894694282396677476e-01, 3.54783043256182359371e-02,
       -2.16637559486879084300e-03)
_QA = (1.0, 1.06420880400844228286e-01, 5.40397917702171048937e-01, 7.18286544141962662868e-02,
       1.26171219808761642112e-01, 1.36370839120290507362e-02, 1.19844998467991074170e-02)
_RA = (-9.86494403484714822705e-03, -6.93858572707181764372e-01, -1.05586262253232909814e+01,
       -6.23753324503260060396e+01, -1.62396669462573470355e+02, -1.84605092906711035994e+02,
       -8.12874355063065934246e+01, -9.81432934416914548592e+00)
_SA = (1.0, 1.96512716674392571292e+01, 1.37657754143519042600e+02, 4.34565877475229228821e+02,
       6.45387271733267880336e+02, 4.29008140027567833386e+02, 1.08635005541779435134e+02,
       6.57024977031928170135e+00, -6.04244152148580987438e-02)
_RB = (-9.86494292470009928597e-03, -7.99283237680523006574e-01, -1.77579549177547519889e+01,
       -1.60636384855821916062e+02, -6.37566443368389627722e+02, -1.02509513161107724954e+03,
       -4.83519191608651397019e+02)
_SB = (1.0, 3.03380607434824582924e+01, 3.25792512996573918826e+02, 1.53672958608443695994e+03,
       3.19985821950859553908e+03, 2.55305040643316442583e+03, 4.74528541206955367215e+02,
       -2.24409524465858183362e+01)
_HIGH_WORD_MASK = np.int64(-(1 << 32))  # clears a double's low 32 bits (fdlibm's SET_LOW_WORD(z, 0))


def _poly(coeffs, s):
    """Horner evaluation of sum(coeffs[k] * s**k), in place on one new array."""
    r = np.full_like(s, coeffs[-1])
    for c in coeffs[-2::-1]:
        r *= s
        r += c
    return r


def _small(x):
    """|x| < 0.84375."""
    z = x * x
    y = _poly(_PP, z)
    y /= _poly(_QQ, z)
    y *= x
    y += x
    tiny = np.flatnonzero(np.abs(x) < _TINY)
    if tiny.size:
        t = x[tiny]
        y[tiny] = np.where(np.abs(t) < _SUBNORMAL_GUARD, 0.125 * (8.0 * t + _EFX8 * t), t + _EFX * t)
    return y


def _middle(x, ax):
    """0.84375 <= |x| < 1.25."""
    s = ax - 1.0
    v = _poly(_PA, s)
    v /= _poly(_QA, s)
    v += _ERX
    return np.copysign(v, x, out=v)


def _tail(x, ax):
    """1.25 <= |x| < 6: 1 - erfc(|x|) with erfc from fdlibm's two rational fits in 1/x^2."""
    s = 1.0 / (ax * ax)
    near = ax < _TAIL_SPLIT
    if near.all():
        ratio = _poly(_RA, s)
        ratio /= _poly(_SA, s)
    elif not near.any():
        ratio = _poly(_RB, s)
        ratio /= _poly(_SB, s)
    else:
        ratio = np.where(near, _poly(_RA, s) / _poly(_SA, s), _poly(_RB, s) / _poly(_SB, s))
    # exp(-x^2 - 0.5625) split as exp(-z^2 - 0.5625) * exp((z - x)(z + x)) with z = x truncated
    # to 21 mantissa bits, so z^2 is exact and the rounding of x^2 does not reach the result
    z = (ax.view(np.int64) & _HIGH_WORD_MASK).view(np.float64)
    r = np.exp(-z * z - 0.5625)
    ratio += (z - ax) * (z + ax)
    r *= np.exp(ratio, out=ratio)
    r /= ax
    r = np.subtract(1.0, r, out=r)
    return np.copysign(r, x, out=r)


def _erf_block(x, out):
    ax = np.abs(x)
    small = np.flatnonzero(ax < _SMALL_END)
    if small.size == x.size:
        out[:] = _small(x)
        return
    if small.size:
        out[small] = _small(x.take(small))
    middle = np.flatnonzero((ax >= _SMALL_END) & (ax < _MID_END))
    if middle.size:
        out[middle] = _middle(x.take(middle), ax.take(middle))
    tail = np.flatnonzero((ax >= _MID_END) & (ax < _SATURATED))
    if tail.size:
        out[tail] = _tail(x.take(tail), ax.take(tail))
    rest = np.flatnonzero(~(ax < _SATURATED))  # |x| >= 6, +-inf and nan
    if rest.size:
        r = x.take(rest)
        out[rest] = np.where(np.isnan(r), r, np.copysign(1.0, r))


def erf(x):
    """erf of a numpy array (any float dtype; integers are taken as float64), in float64
    arithmetic; returns float64 of the input's shape (callers round to their dtype once)."""
    flat = np.asarray(x, dtype=np.float64).ravel()
    out = np.empty(flat.shape, np.float64)

    def block(start, stop):
        _erf_block(flat[start:stop], out[start:stop])

    intraop.run_blocks(block, flat.size, BLOCK)  # blocks are independent: threaded (intraop.py)
    return out.reshape(np.shape(x))
