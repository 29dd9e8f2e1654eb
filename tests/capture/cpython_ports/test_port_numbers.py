"""Python number semantics under capture, from CPython's ``Lib/test`` (3.11): ``test_builtin``
(``divmod``, ``pow`` with negative and modular exponents, ``round`` with banker's rounding and
``ndigits``, ``abs``) and ``test_float`` (floor division, modulo and ``pow`` of floats with the
signs of zeros, infinities and NaNs; ``RoundTestCase``), ported as capture-vs-eager differential
cases (see port_harness.py). CPython's bodies are unchanged; ``self`` is a ``Checks`` recorder
(unittest_shim.py), and the eager run must pass CPython's own assertions.

The last cases are not in CPython's files: they are why this port exists. The JIT folds Python
numbers into graph constants and keeps sizes read from tensors as symbolic expressions
(capture.symbolic_sizes), so the same semantics (floor division and modulo of negative numbers,
``divmod``, ``pow`` with negative/modular exponents, true division of ints, ``round``, big ints,
NaN comparisons) are checked on numbers read from the call's arguments, mixed into tensor
operations, and computed from tensor sizes across calls with other sizes (re-instantiated
graphs)."""
import decimal
import fractions
import math
import operator
import random
import sys
from functools import partial
from math import copysign, isinf, isnan  # noqa: F401

import numpy as np
import pytest

import capture
from capture.explain import recording
from port_harness import check, parametrize, run_case
from runtime import Tensor
from unittest_shim import Checks, assert_eager_passes

INF = float("inf")
NAN = float("nan")
RANDOM_FLOATS = [random.Random(20251129).random() for _ in range(500)]


class FloatChecks(Checks):
    """GeneralFloatCases' own helper (CPython's text), on the recorder."""

    def assertEqualAndEqualSign(self, a, b):
        # fail unless a == b and a and b have the same sign bit;
        # the only difference from assertEqual is that this test
        # distinguishes -0.0 and 0.0.
        self.assertEqual((a, copysign(1.0, a)), (b, copysign(1.0, b)))


def case_abs(tensor, state):
    """BuiltinTest.test_abs"""
    self = Checks(state)
    self.assertEqual(abs(0), 0)
    self.assertEqual(abs(1234), 1234)
    self.assertEqual(abs(-1234), 1234)
    self.assertTrue(abs(-sys.maxsize-1) > 0)
    # float
    self.assertEqual(abs(0.0), 0.0)
    self.assertEqual(abs(3.14), 3.14)
    self.assertEqual(abs(-3.14), 3.14)
    # str
    self.assertRaises(TypeError, abs, 'a')
    # bool
    self.assertEqual(abs(True), 1)
    self.assertEqual(abs(False), 0)
    # other
    self.assertRaises(TypeError, abs)
    self.assertRaises(TypeError, abs, None)
    class AbsClass(object):
        def __abs__(self):
            return -5
    self.assertEqual(abs(AbsClass()), -5)
    return tensor + 1


def case_divmod(tensor, state):
    """BuiltinTest.test_divmod"""
    self = Checks(state)
    self.assertEqual(divmod(12, 7), (1, 5))
    self.assertEqual(divmod(-12, 7), (-2, 2))
    self.assertEqual(divmod(12, -7), (-2, -2))
    self.assertEqual(divmod(-12, -7), (1, -5))

    self.assertEqual(divmod(-sys.maxsize-1, -1), (sys.maxsize+1, 0))

    for num, denom, exp_result in [ (3.25, 1.0, (3.0, 0.25)),
                                    (-3.25, 1.0, (-4.0, 0.75)),
                                    (3.25, -1.0, (-4.0, -0.75)),
                                    (-3.25, -1.0, (3.0, -0.25))]:
        result = divmod(num, denom)
        self.assertAlmostEqual(result[0], exp_result[0])
        self.assertAlmostEqual(result[1], exp_result[1])

    self.assertRaises(TypeError, divmod)
    return tensor + 1


def case_pow(tensor, state):
    """BuiltinTest.test_pow"""
    self = Checks(state)
    self.assertEqual(pow(0,0), 1)
    self.assertEqual(pow(0,1), 0)
    self.assertEqual(pow(1,0), 1)
    self.assertEqual(pow(1,1), 1)

    self.assertEqual(pow(2,0), 1)
    self.assertEqual(pow(2,10), 1024)
    self.assertEqual(pow(2,20), 1024*1024)
    self.assertEqual(pow(2,30), 1024*1024*1024)

    self.assertEqual(pow(-2,0), 1)
    self.assertEqual(pow(-2,1), -2)
    self.assertEqual(pow(-2,2), 4)
    self.assertEqual(pow(-2,3), -8)

    self.assertAlmostEqual(pow(0.,0), 1.)
    self.assertAlmostEqual(pow(0.,1), 0.)
    self.assertAlmostEqual(pow(1.,0), 1.)
    self.assertAlmostEqual(pow(1.,1), 1.)

    self.assertAlmostEqual(pow(2.,0), 1.)
    self.assertAlmostEqual(pow(2.,10), 1024.)
    self.assertAlmostEqual(pow(2.,20), 1024.*1024.)
    self.assertAlmostEqual(pow(2.,30), 1024.*1024.*1024.)

    self.assertAlmostEqual(pow(-2.,0), 1.)
    self.assertAlmostEqual(pow(-2.,1), -2.)
    self.assertAlmostEqual(pow(-2.,2), 4.)
    self.assertAlmostEqual(pow(-2.,3), -8.)

    for x in 2, 2.0:
        for y in 10, 10.0:
            for z in 1000, 1000.0:
                if isinstance(x, float) or \
                   isinstance(y, float) or \
                   isinstance(z, float):
                    self.assertRaises(TypeError, pow, x, y, z)
                else:
                    self.assertAlmostEqual(pow(x, y, z), 24.0)

    self.assertAlmostEqual(pow(-1, 0.5), 1j)
    self.assertAlmostEqual(pow(-1, 1/3), 0.5 + 0.8660254037844386j)

    # See test_pow for additional tests for three-argument pow.
    self.assertEqual(pow(-1, -2, 3), 1)
    self.assertRaises(ValueError, pow, 1, 2, 0)

    self.assertRaises(TypeError, pow)

    # Test passing in arguments as keywords.
    self.assertEqual(pow(0, exp=0), 1)
    self.assertEqual(pow(base=2, exp=4), 16)
    self.assertEqual(pow(base=5, exp=2, mod=14), 11)
    twopow = partial(pow, base=2)
    self.assertEqual(twopow(exp=5), 32)
    fifth_power = partial(pow, exp=5)
    self.assertEqual(fifth_power(2), 32)
    mod10 = partial(pow, mod=10)
    self.assertEqual(mod10(2, 6), 4)
    self.assertEqual(mod10(exp=6, base=2), 4)
    return tensor + 1


def case_round(tensor, state):
    """BuiltinTest.test_round"""
    self = Checks(state)
    self.assertEqual(round(0.0), 0.0)
    self.assertEqual(type(round(0.0)), int)
    self.assertEqual(round(1.0), 1.0)
    self.assertEqual(round(10.0), 10.0)
    self.assertEqual(round(1000000000.0), 1000000000.0)
    self.assertEqual(round(1e20), 1e20)

    self.assertEqual(round(-1.0), -1.0)
    self.assertEqual(round(-10.0), -10.0)
    self.assertEqual(round(-1000000000.0), -1000000000.0)
    self.assertEqual(round(-1e20), -1e20)

    self.assertEqual(round(0.1), 0.0)
    self.assertEqual(round(1.1), 1.0)
    self.assertEqual(round(10.1), 10.0)
    self.assertEqual(round(1000000000.1), 1000000000.0)

    self.assertEqual(round(-1.1), -1.0)
    self.assertEqual(round(-10.1), -10.0)
    self.assertEqual(round(-1000000000.1), -1000000000.0)

    self.assertEqual(round(0.9), 1.0)
    self.assertEqual(round(9.9), 10.0)
    self.assertEqual(round(999999999.9), 1000000000.0)

    self.assertEqual(round(-0.9), -1.0)
    self.assertEqual(round(-9.9), -10.0)
    self.assertEqual(round(-999999999.9), -1000000000.0)

    self.assertEqual(round(-8.0, -1), -10.0)
    self.assertEqual(type(round(-8.0, -1)), float)

    self.assertEqual(type(round(-8.0, 0)), float)
    self.assertEqual(type(round(-8.0, 1)), float)

    # Check even / odd rounding behaviour
    self.assertEqual(round(5.5), 6)
    self.assertEqual(round(6.5), 6)
    self.assertEqual(round(-5.5), -6)
    self.assertEqual(round(-6.5), -6)

    # Check behavior on ints
    self.assertEqual(round(0), 0)
    self.assertEqual(round(8), 8)
    self.assertEqual(round(-8), -8)
    self.assertEqual(type(round(0)), int)
    self.assertEqual(type(round(-8, -1)), int)
    self.assertEqual(type(round(-8, 0)), int)
    self.assertEqual(type(round(-8, 1)), int)

    # test new kwargs
    self.assertEqual(round(number=-8.0, ndigits=-1), -10.0)

    self.assertRaises(TypeError, round)

    # test generic rounding delegation for reals
    class TestRound:
        def __round__(self):
            return 23

    class TestNoRound:
        pass

    self.assertEqual(round(TestRound()), 23)

    self.assertRaises(TypeError, round, 1, 2, 3)
    self.assertRaises(TypeError, round, TestNoRound())

    t = TestNoRound()
    t.__round__ = lambda *args: args
    self.assertRaises(TypeError, round, t)
    self.assertRaises(TypeError, round, t, 0)
    return tensor + 1


def case_round_large(tensor, state):
    """BuiltinTest.test_round_large"""
    self = Checks(state)
    self.assertEqual(round(5e15-1), 5e15-1)
    self.assertEqual(round(5e15), 5e15)
    self.assertEqual(round(5e15+1), 5e15+1)
    self.assertEqual(round(5e15+2), 5e15+2)
    self.assertEqual(round(5e15+3), 5e15+3)
    return tensor + 1


def case_bug_27936(tensor, state):
    """BuiltinTest.test_bug_27936"""
    self = Checks(state)
    for x in [1234,
              1234.56,
              decimal.Decimal('1234.56'),
              fractions.Fraction(123456, 100)]:
        self.assertEqual(round(x, None), round(x))
        self.assertEqual(type(round(x, None)), type(round(x)))
    return tensor + 1


def case_float_floor(tensor, state):
    """GeneralFloatCases.test_float_floor"""
    self = FloatChecks(state)
    self.assertIsInstance(float(0.5).__floor__(), int)
    self.assertEqual(float(0.5).__floor__(), 0)
    self.assertEqual(float(1.0).__floor__(), 1)
    self.assertEqual(float(1.5).__floor__(), 1)
    self.assertEqual(float(-0.5).__floor__(), -1)
    self.assertEqual(float(-1.0).__floor__(), -1)
    self.assertEqual(float(-1.5).__floor__(), -2)
    self.assertEqual(float(1.23e167).__floor__(), 1.23e167)
    self.assertEqual(float(-1.23e167).__floor__(), -1.23e167)
    self.assertRaises(ValueError, float("nan").__floor__)
    self.assertRaises(OverflowError, float("inf").__floor__)
    self.assertRaises(OverflowError, float("-inf").__floor__)
    return tensor + 1


def case_float_mod(tensor, state):
    """GeneralFloatCases.test_float_mod"""
    self = FloatChecks(state)
    mod = operator.mod

    self.assertEqualAndEqualSign(mod(-1.0, 1.0), 0.0)
    self.assertEqualAndEqualSign(mod(-1e-100, 1.0), 1.0)
    self.assertEqualAndEqualSign(mod(-0.0, 1.0), 0.0)
    self.assertEqualAndEqualSign(mod(0.0, 1.0), 0.0)
    self.assertEqualAndEqualSign(mod(1e-100, 1.0), 1e-100)
    self.assertEqualAndEqualSign(mod(1.0, 1.0), 0.0)

    self.assertEqualAndEqualSign(mod(-1.0, -1.0), -0.0)
    self.assertEqualAndEqualSign(mod(-1e-100, -1.0), -1e-100)
    self.assertEqualAndEqualSign(mod(-0.0, -1.0), -0.0)
    self.assertEqualAndEqualSign(mod(0.0, -1.0), -0.0)
    self.assertEqualAndEqualSign(mod(1e-100, -1.0), -1.0)
    self.assertEqualAndEqualSign(mod(1.0, -1.0), -0.0)
    return tensor + 1


def case_float_pow(tensor, state):
    """GeneralFloatCases.test_float_pow"""
    self = FloatChecks(state)
    for pow_op in pow, operator.pow:
        # x**NAN is NAN for any x except 1
        self.assertTrue(isnan(pow_op(-INF, NAN)))
        self.assertTrue(isnan(pow_op(-2.0, NAN)))
        self.assertTrue(isnan(pow_op(-1.0, NAN)))
        self.assertTrue(isnan(pow_op(-0.5, NAN)))
        self.assertTrue(isnan(pow_op(-0.0, NAN)))
        self.assertTrue(isnan(pow_op(0.0, NAN)))
        self.assertTrue(isnan(pow_op(0.5, NAN)))
        self.assertTrue(isnan(pow_op(2.0, NAN)))
        self.assertTrue(isnan(pow_op(INF, NAN)))
        self.assertTrue(isnan(pow_op(NAN, NAN)))

        # NAN**y is NAN for any y except +-0
        self.assertTrue(isnan(pow_op(NAN, -INF)))
        self.assertTrue(isnan(pow_op(NAN, -2.0)))
        self.assertTrue(isnan(pow_op(NAN, -1.0)))
        self.assertTrue(isnan(pow_op(NAN, -0.5)))
        self.assertTrue(isnan(pow_op(NAN, 0.5)))
        self.assertTrue(isnan(pow_op(NAN, 1.0)))
        self.assertTrue(isnan(pow_op(NAN, 2.0)))
        self.assertTrue(isnan(pow_op(NAN, INF)))

        # (+-0)**y raises ZeroDivisionError for y a negative odd integer
        self.assertRaises(ZeroDivisionError, pow_op, -0.0, -1.0)
        self.assertRaises(ZeroDivisionError, pow_op, 0.0, -1.0)

        # (+-0)**y raises ZeroDivisionError for y finite and negative
        # but not an odd integer
        self.assertRaises(ZeroDivisionError, pow_op, -0.0, -2.0)
        self.assertRaises(ZeroDivisionError, pow_op, -0.0, -0.5)
        self.assertRaises(ZeroDivisionError, pow_op, 0.0, -2.0)
        self.assertRaises(ZeroDivisionError, pow_op, 0.0, -0.5)

        # (+-0)**y is +-0 for y a positive odd integer
        self.assertEqualAndEqualSign(pow_op(-0.0, 1.0), -0.0)
        self.assertEqualAndEqualSign(pow_op(0.0, 1.0), 0.0)

        # (+-0)**y is 0 for y finite and positive but not an odd integer
        self.assertEqualAndEqualSign(pow_op(-0.0, 0.5), 0.0)
        self.assertEqualAndEqualSign(pow_op(-0.0, 2.0), 0.0)
        self.assertEqualAndEqualSign(pow_op(0.0, 0.5), 0.0)
        self.assertEqualAndEqualSign(pow_op(0.0, 2.0), 0.0)

        # (-1)**+-inf is 1
        self.assertEqualAndEqualSign(pow_op(-1.0, -INF), 1.0)
        self.assertEqualAndEqualSign(pow_op(-1.0, INF), 1.0)

        # 1**y is 1 for any y, even if y is an infinity or nan
        self.assertEqualAndEqualSign(pow_op(1.0, -INF), 1.0)
        self.assertEqualAndEqualSign(pow_op(1.0, -2.0), 1.0)
        self.assertEqualAndEqualSign(pow_op(1.0, -1.0), 1.0)
        self.assertEqualAndEqualSign(pow_op(1.0, -0.5), 1.0)
        self.assertEqualAndEqualSign(pow_op(1.0, -0.0), 1.0)
        self.assertEqualAndEqualSign(pow_op(1.0, 0.0), 1.0)
        self.assertEqualAndEqualSign(pow_op(1.0, 0.5), 1.0)
        self.assertEqualAndEqualSign(pow_op(1.0, 1.0), 1.0)
        self.assertEqualAndEqualSign(pow_op(1.0, 2.0), 1.0)
        self.assertEqualAndEqualSign(pow_op(1.0, INF), 1.0)
        self.assertEqualAndEqualSign(pow_op(1.0, NAN), 1.0)

        # x**+-0 is 1 for any x, even if x is a zero, infinity, or nan
        self.assertEqualAndEqualSign(pow_op(-INF, 0.0), 1.0)
        self.assertEqualAndEqualSign(pow_op(-2.0, 0.0), 1.0)
        self.assertEqualAndEqualSign(pow_op(-1.0, 0.0), 1.0)
        self.assertEqualAndEqualSign(pow_op(-0.5, 0.0), 1.0)
        self.assertEqualAndEqualSign(pow_op(-0.0, 0.0), 1.0)
        self.assertEqualAndEqualSign(pow_op(0.0, 0.0), 1.0)
        self.assertEqualAndEqualSign(pow_op(0.5, 0.0), 1.0)
        self.assertEqualAndEqualSign(pow_op(1.0, 0.0), 1.0)
        self.assertEqualAndEqualSign(pow_op(2.0, 0.0), 1.0)
        self.assertEqualAndEqualSign(pow_op(INF, 0.0), 1.0)
        self.assertEqualAndEqualSign(pow_op(NAN, 0.0), 1.0)
        self.assertEqualAndEqualSign(pow_op(-INF, -0.0), 1.0)
        self.assertEqualAndEqualSign(pow_op(-2.0, -0.0), 1.0)
        self.assertEqualAndEqualSign(pow_op(-1.0, -0.0), 1.0)
        self.assertEqualAndEqualSign(pow_op(-0.5, -0.0), 1.0)
        self.assertEqualAndEqualSign(pow_op(-0.0, -0.0), 1.0)
        self.assertEqualAndEqualSign(pow_op(0.0, -0.0), 1.0)
        self.assertEqualAndEqualSign(pow_op(0.5, -0.0), 1.0)
        self.assertEqualAndEqualSign(pow_op(1.0, -0.0), 1.0)
        self.assertEqualAndEqualSign(pow_op(2.0, -0.0), 1.0)
        self.assertEqualAndEqualSign(pow_op(INF, -0.0), 1.0)
        self.assertEqualAndEqualSign(pow_op(NAN, -0.0), 1.0)

        # x**y defers to complex pow for finite negative x and
        # non-integral y.
        self.assertEqual(type(pow_op(-2.0, -0.5)), complex)
        self.assertEqual(type(pow_op(-2.0, 0.5)), complex)
        self.assertEqual(type(pow_op(-1.0, -0.5)), complex)
        self.assertEqual(type(pow_op(-1.0, 0.5)), complex)
        self.assertEqual(type(pow_op(-0.5, -0.5)), complex)
        self.assertEqual(type(pow_op(-0.5, 0.5)), complex)

        # x**-INF is INF for abs(x) < 1
        self.assertEqualAndEqualSign(pow_op(-0.5, -INF), INF)
        self.assertEqualAndEqualSign(pow_op(-0.0, -INF), INF)
        self.assertEqualAndEqualSign(pow_op(0.0, -INF), INF)
        self.assertEqualAndEqualSign(pow_op(0.5, -INF), INF)

        # x**-INF is 0 for abs(x) > 1
        self.assertEqualAndEqualSign(pow_op(-INF, -INF), 0.0)
        self.assertEqualAndEqualSign(pow_op(-2.0, -INF), 0.0)
        self.assertEqualAndEqualSign(pow_op(2.0, -INF), 0.0)
        self.assertEqualAndEqualSign(pow_op(INF, -INF), 0.0)

        # x**INF is 0 for abs(x) < 1
        self.assertEqualAndEqualSign(pow_op(-0.5, INF), 0.0)
        self.assertEqualAndEqualSign(pow_op(-0.0, INF), 0.0)
        self.assertEqualAndEqualSign(pow_op(0.0, INF), 0.0)
        self.assertEqualAndEqualSign(pow_op(0.5, INF), 0.0)

        # x**INF is INF for abs(x) > 1
        self.assertEqualAndEqualSign(pow_op(-INF, INF), INF)
        self.assertEqualAndEqualSign(pow_op(-2.0, INF), INF)
        self.assertEqualAndEqualSign(pow_op(2.0, INF), INF)
        self.assertEqualAndEqualSign(pow_op(INF, INF), INF)

        # (-INF)**y is -0.0 for y a negative odd integer
        self.assertEqualAndEqualSign(pow_op(-INF, -1.0), -0.0)

        # (-INF)**y is 0.0 for y negative but not an odd integer
        self.assertEqualAndEqualSign(pow_op(-INF, -0.5), 0.0)
        self.assertEqualAndEqualSign(pow_op(-INF, -2.0), 0.0)

        # (-INF)**y is -INF for y a positive odd integer
        self.assertEqualAndEqualSign(pow_op(-INF, 1.0), -INF)

        # (-INF)**y is INF for y positive but not an odd integer
        self.assertEqualAndEqualSign(pow_op(-INF, 0.5), INF)
        self.assertEqualAndEqualSign(pow_op(-INF, 2.0), INF)

        # INF**y is INF for y positive
        self.assertEqualAndEqualSign(pow_op(INF, 0.5), INF)
        self.assertEqualAndEqualSign(pow_op(INF, 1.0), INF)
        self.assertEqualAndEqualSign(pow_op(INF, 2.0), INF)

        # INF**y is 0.0 for y negative
        self.assertEqualAndEqualSign(pow_op(INF, -2.0), 0.0)
        self.assertEqualAndEqualSign(pow_op(INF, -1.0), 0.0)
        self.assertEqualAndEqualSign(pow_op(INF, -0.5), 0.0)

        # basic checks not covered by the special cases above
        self.assertEqualAndEqualSign(pow_op(-2.0, -2.0), 0.25)
        self.assertEqualAndEqualSign(pow_op(-2.0, -1.0), -0.5)
        self.assertEqualAndEqualSign(pow_op(-2.0, -0.0), 1.0)
        self.assertEqualAndEqualSign(pow_op(-2.0, 0.0), 1.0)
        self.assertEqualAndEqualSign(pow_op(-2.0, 1.0), -2.0)
        self.assertEqualAndEqualSign(pow_op(-2.0, 2.0), 4.0)
        self.assertEqualAndEqualSign(pow_op(-1.0, -2.0), 1.0)
        self.assertEqualAndEqualSign(pow_op(-1.0, -1.0), -1.0)
        self.assertEqualAndEqualSign(pow_op(-1.0, -0.0), 1.0)
        self.assertEqualAndEqualSign(pow_op(-1.0, 0.0), 1.0)
        self.assertEqualAndEqualSign(pow_op(-1.0, 1.0), -1.0)
        self.assertEqualAndEqualSign(pow_op(-1.0, 2.0), 1.0)
        self.assertEqualAndEqualSign(pow_op(2.0, -2.0), 0.25)
        self.assertEqualAndEqualSign(pow_op(2.0, -1.0), 0.5)
        self.assertEqualAndEqualSign(pow_op(2.0, -0.0), 1.0)
        self.assertEqualAndEqualSign(pow_op(2.0, 0.0), 1.0)
        self.assertEqualAndEqualSign(pow_op(2.0, 1.0), 2.0)
        self.assertEqualAndEqualSign(pow_op(2.0, 2.0), 4.0)

        # 1 ** large and -1 ** large; some libms apparently
        # have problems with these
        self.assertEqualAndEqualSign(pow_op(1.0, -1e100), 1.0)
        self.assertEqualAndEqualSign(pow_op(1.0, 1e100), 1.0)
        self.assertEqualAndEqualSign(pow_op(-1.0, -1e100), 1.0)
        self.assertEqualAndEqualSign(pow_op(-1.0, 1e100), 1.0)

        # check sign for results that underflow to 0
        self.assertEqualAndEqualSign(pow_op(-2.0, -2000.0), 0.0)
        self.assertEqual(type(pow_op(-2.0, -2000.5)), complex)
        self.assertEqualAndEqualSign(pow_op(-2.0, -2001.0), -0.0)
        self.assertEqualAndEqualSign(pow_op(2.0, -2000.0), 0.0)
        self.assertEqualAndEqualSign(pow_op(2.0, -2000.5), 0.0)
        self.assertEqualAndEqualSign(pow_op(2.0, -2001.0), 0.0)
        self.assertEqualAndEqualSign(pow_op(-0.5, 2000.0), 0.0)
        self.assertEqual(type(pow_op(-0.5, 2000.5)), complex)
        self.assertEqualAndEqualSign(pow_op(-0.5, 2001.0), -0.0)
        self.assertEqualAndEqualSign(pow_op(0.5, 2000.0), 0.0)
        self.assertEqualAndEqualSign(pow_op(0.5, 2000.5), 0.0)
        self.assertEqualAndEqualSign(pow_op(0.5, 2001.0), 0.0)
    return tensor + 1


def case_inf_nan(tensor, state):
    """RoundTestCase.test_inf_nan"""
    self = Checks(state)
    self.assertRaises(OverflowError, round, INF)
    self.assertRaises(OverflowError, round, -INF)
    self.assertRaises(ValueError, round, NAN)
    self.assertRaises(TypeError, round, INF, 0.0)
    self.assertRaises(TypeError, round, -INF, 1.0)
    self.assertRaises(TypeError, round, NAN, "ceci n'est pas un integer")
    self.assertRaises(TypeError, round, -0.0, 1j)
    return tensor + 1


def case_inf_nan_ndigits(tensor, state):
    """RoundTestCase.test_inf_nan_ndigits"""
    self = Checks(state)
    self.assertEqual(round(INF, 0), INF)
    self.assertEqual(round(-INF, 0), -INF)
    self.assertTrue(math.isnan(round(NAN, 0)))
    return tensor + 1


def case_large_n(tensor, state):
    """RoundTestCase.test_large_n"""
    self = Checks(state)
    for n in [324, 325, 400, 2**31-1, 2**31, 2**32, 2**100]:
        self.assertEqual(round(123.456, n), 123.456)
        self.assertEqual(round(-123.456, n), -123.456)
        self.assertEqual(round(1e300, n), 1e300)
        self.assertEqual(round(1e-320, n), 1e-320)
    self.assertEqual(round(1e150, 300), 1e150)
    self.assertEqual(round(1e300, 307), 1e300)
    self.assertEqual(round(-3.1415, 308), -3.1415)
    self.assertEqual(round(1e150, 309), 1e150)
    self.assertEqual(round(1.4e-315, 315), 1e-315)
    return tensor + 1


def case_small_n(tensor, state):
    """RoundTestCase.test_small_n"""
    self = Checks(state)
    for n in [-308, -309, -400, 1-2**31, -2**31, -2**31-1, -2**100]:
        self.assertEqual(round(123.456, n), 0.0)
        self.assertEqual(round(-123.456, n), -0.0)
        self.assertEqual(round(1e300, n), 0.0)
        self.assertEqual(round(1e-320, n), 0.0)
    return tensor + 1


def case_overflow(tensor, state):
    """RoundTestCase.test_overflow"""
    self = Checks(state)
    self.assertRaises(OverflowError, round, 1.6e308, -308)
    self.assertRaises(OverflowError, round, -1.7e308, -308)
    return tensor + 1


def case_previous_round_bugs(tensor, state):
    """RoundTestCase.test_previous_round_bugs"""
    self = Checks(state)
    self.assertEqual(round(562949953421312.5, 1),
                      562949953421312.5)
    self.assertEqual(round(56294995342131.5, 3),
                     56294995342131.5)
    # round-half-even
    self.assertEqual(round(25.0, -1), 20.0)
    self.assertEqual(round(35.0, -1), 40.0)
    self.assertEqual(round(45.0, -1), 40.0)
    self.assertEqual(round(55.0, -1), 60.0)
    self.assertEqual(round(65.0, -1), 60.0)
    self.assertEqual(round(75.0, -1), 80.0)
    self.assertEqual(round(85.0, -1), 80.0)
    self.assertEqual(round(95.0, -1), 100.0)
    return tensor + 1


def case_matches_float_format(tensor, state):
    """RoundTestCase.test_matches_float_format"""
    self = Checks(state)
    for i in range(500):
        x = i/1000.
        self.assertEqual(float(format(x, '.0f')), round(x, 0))
        self.assertEqual(float(format(x, '.1f')), round(x, 1))
        self.assertEqual(float(format(x, '.2f')), round(x, 2))
        self.assertEqual(float(format(x, '.3f')), round(x, 3))

    for i in range(5, 5000, 10):
        x = i/1000.
        self.assertEqual(float(format(x, '.0f')), round(x, 0))
        self.assertEqual(float(format(x, '.1f')), round(x, 1))
        self.assertEqual(float(format(x, '.2f')), round(x, 2))
        self.assertEqual(float(format(x, '.3f')), round(x, 3))

    for i in range(500):
        x = RANDOM_FLOATS[i]  # (CPython draws random.random(): fixed draws here, the same in every run)
        self.assertEqual(float(format(x, '.0f')), round(x, 0))
        self.assertEqual(float(format(x, '.1f')), round(x, 1))
        self.assertEqual(float(format(x, '.2f')), round(x, 2))
        self.assertEqual(float(format(x, '.3f')), round(x, 3))
    return tensor + 1


def case_format_specials(tensor, state):
    """RoundTestCase.test_format_specials"""
    self = Checks(state)
    def test(fmt, value, expected):
        # Test with both % and format().
        self.assertEqual(fmt % value, expected, fmt)
        fmt = fmt[1:] # strip off the %
        self.assertEqual(format(value, fmt), expected, fmt)

    for fmt in ['%e', '%f', '%g', '%.0e', '%.6f', '%.20g',
                '%#e', '%#f', '%#g', '%#.20e', '%#.15f', '%#.3g']:
        pfmt = '%+' + fmt[1:]
        sfmt = '% ' + fmt[1:]
        test(fmt, INF, 'inf')
        test(fmt, -INF, '-inf')
        test(fmt, NAN, 'nan')
        test(fmt, -NAN, 'nan')
        # When asking for a sign, it's always provided. nans are
        #  always positive.
        test(pfmt, INF, '+inf')
        test(pfmt, -INF, '-inf')
        test(pfmt, NAN, '+nan')
        test(pfmt, -NAN, '+nan')
        # When using ' ' for a sign code, only infs can be negative.
        #  Others have a space.
        test(sfmt, INF, ' inf')
        test(sfmt, -INF, '-inf')
        test(sfmt, NAN, ' nan')
        test(sfmt, -NAN, ' nan')
    return tensor + 1


def case_None_ndigits(tensor, state):
    """RoundTestCase.test_None_ndigits"""
    self = Checks(state)
    for x in round(1.23), round(1.23, None), round(1.23, ndigits=None):
        self.assertEqual(x, 1)
        self.assertIsInstance(x, int)
    for x in round(1.78), round(1.78, None), round(1.78, ndigits=None):
        self.assertEqual(x, 2)
        self.assertIsInstance(x, int)
    return tensor + 1


# -- numbers the call receives (guarded inputs, not literals of the code) ---------------------------
NUMBERS = {"a": -7, "b": 2, "c": 7, "m": 13, "big": 2 ** 100 + 1, "f": -3.25, "g": 1.0, "half": 2.5,
           "nhalf": -0.5, "zero": 0.0, "nzero": -0.0, "nan": NAN, "inf": INF}


def numbers_state():
    return {"n": dict(NUMBERS), "log": []}


def int_float_semantics(tensor, state):
    """Integer and float arithmetic on the call's numbers: the results' types and values (and
    the signs of zeros) must be Python's."""
    n = state["n"]
    a, b, c, m, big = n["a"], n["b"], n["c"], n["m"], n["big"]
    f, g, half, nhalf = n["f"], n["g"], n["half"], n["nhalf"]
    out = [a // b, a % b, -a // b, a // -b, a % -b, c % -b, divmod(a, b), divmod(c, -b), divmod(a, -b),
           a / b, c / b, type(c // 1), a ** -1, b ** -2, (-b) ** 3, pow(3, -1, m), pow(a, -1, m),
           pow(a, 2, m), pow(b, 100, m), pow(-b, 3, -m), big // 3, -big // 3, big % 7, -big % 7,
           divmod(-big, 10 ** 9), big * big, big >> 90, -big >> 90, (-big) & 0xFFFF, big / 3, int(-2.5), int(2.5),
           f // g, f % g, divmod(f, g), divmod(f, -g), f % -g, -f % g, 7.5 // -2, -7.5 % 2,
           round(half), round(-half), round(3.5), round(nhalf), round(0.5), round(f, 1), round(-f, 1),
           round(2.675, 2), round(a, -1), round(-15, -1), round(25, -1), type(round(half)), type(round(half, 0)),
           math.floor(f), math.ceil(f), math.trunc(f), abs(a), abs(f), -(n["zero"]), n["nzero"] * -1,
           math.copysign(1.0, n["nzero"] % 1.0), math.copysign(1.0, -0.0 // 1.0), 1e308 * 10, -1e308 * 10,
           True + True, True / 2, -True, ~True, 10 ** -2, 0 ** 0, 0.0 ** 0]
    return out, tensor * 2


def nan_comparisons(tensor, state):
    """NaN and infinities compared and ordered: every comparison with NaN is False but ``!=``;
    ``min``/``max``/``sorted`` keep Python's order-dependent answers."""
    n = state["n"]
    nan, inf, c = n["nan"], n["inf"], n["c"]
    out = [nan == nan, nan != nan, nan < c, nan > c, nan <= nan, nan >= c, c < nan, nan is nan,
           [nan] == [nan], (nan,) == (nan,), nan in [nan], float("nan") in [nan], inf > 10 ** 400, -inf < -10 ** 400,
           inf == inf, inf - inf != inf - inf, min(nan, c), min(c, nan), max(nan, c), max(c, nan),
           sorted([3, nan, 1]), math.isnan(inf * 0), c < inf, 10 ** 400 > 1e308, 2 ** 53 + 1 == float(2 ** 53 + 1),
           2 ** 53 + 1 > float(2 ** 53), 1 < 2 < 3, 3 > 2 > 2, 1 == 1.0 == True, nan != 1 == 1]
    for x in (nan, inf, -inf):
        try:
            out.append(int(x))
        except (ValueError, OverflowError) as e:
            out.append((type(e).__name__, str(e)))
    return out, tensor + 1


def numbers_in_tensor_ops(tensor, state):
    """The same numbers as operands of tensor operations (folded into graph constants)."""
    n = state["n"]
    a, b, c, m, big = n["a"], n["b"], n["c"], n["m"], n["big"]
    f, half = n["f"], n["half"]
    return [tensor * (a // b), tensor * (a % b), tensor + divmod(a, -b)[1], tensor * b ** -2, tensor * pow(a, -1, m),
            tensor / (c / b), tensor * round(half), tensor * round(-half), tensor * (big % 7), tensor + f // 1.0,
            tensor * (f % 1.0), tensor - (-f % -1.0), tensor * (c // -b), tensor * abs(a), tensor * (True + True),
            tensor ** b, tensor ** (b ** -1), (tensor * c) // b, (tensor * a) % b, (tensor * a) // b,
            (tensor * -c) % 3.0, tensor * 2 ** 20, tensor / (10 ** 6)]


def case_python_operators_on_tensors(tensor, state):
    """Python's operators on Tensors with negative elements and Python number operands (floor
    division and modulo take the divisor's sign, integer dtypes, big and bool operands,
    division by zeros): the compiled graph computes what eager computes."""
    import runtime as ms
    xi = (tensor * -3).astype(ms.int32)
    xn = tensor - 2.5
    return [(-tensor) // 2, (-tensor) % 2, tensor % -2.0, xn % 1.5, xn // 1.5, (-tensor) ** 2, tensor ** -1,
            abs(-tensor), xi // 2, xi % 2, xi // -4, xi % -4, xi * 2 ** 20, xi + True, xi / 2, xi // 2.0, -xi % 5,
            xn // 0.0, tensor * 2 ** 70, tensor // -0.0, xi ** 2, 2 ** (-xi), xn.floor(), xn.ceil()]


def errors_of_numbers(tensor, state):
    """The exceptions (type and message) of bad arithmetic on the call's numbers."""
    n = state["n"]
    out = []
    for op in (lambda: n["c"] // 0, lambda: n["c"] % 0, lambda: divmod(n["c"], 0), lambda: n["f"] / n["zero"],
               lambda: n["f"] // 0.0, lambda: pow(n["b"], -1, 4), lambda: pow(n["b"], 2, 0),
               lambda: pow(2.0, 3, 5), lambda: 0 ** -1, lambda: 0.0 ** -1, lambda: round(n["inf"]),
               lambda: round(n["nan"]), lambda: 10.0 ** 400, lambda: math.sqrt(-1.0), lambda: int("x")):
        try:
            out.append(op())
        except Exception as e:
            out.append((type(e).__name__, str(e)))
    return out, tensor + 1


@pytest.mark.parametrize("case", [int_float_semantics, nan_comparisons, numbers_in_tensor_ops, errors_of_numbers],
                         ids=lambda c: c.__name__)
def test_numbers_from_arguments(case):
    run_case(case, make_state=numbers_state)


# -- numbers computed from tensor sizes (symbolic, re-instantiated at other sizes) ------------------
def size_arithmetic(x):
    n = x.shape[0]
    q, r = divmod(-n, 3)
    scalars = (-n // 2, -n % 3, n % -2, n // -4, q, r, n / 2, -n / 4, n ** 2, 2 ** -n, round(n / 2), round(-n / 2),
               (n * 10 ** 20) // 7, -(n * 10 ** 20) % 7, pow(n, -1, 11) if n % 11 else None)
    y = x * (-n // 2) + x * (-n % 3) - x * (n % -2)
    z = x / (n / 2) + x * (n // -4) + x * (2 ** -n) + x * round(n / 2) * round(-n / 2)
    return y, z, x.reshape(n, 1) * ((-n) % 4), scalars


def test_numbers_from_tensor_sizes_across_sizes():
    """``size_arithmetic`` compiled once and called with sizes 1..9 and back: each call's
    tensors and numbers equal eager (sizes odd and even, so floor division and modulo of
    negative sizes round both ways)."""
    capture.reset()
    jitted = capture.jit(size_arithmetic)
    with recording() as report:
        for size in (3, 4, 5, 6, 7, 1, 2, 8, 9, 4, 3):
            x = Tensor(np.arange(1, size + 1, dtype=np.float32))
            want = size_arithmetic(x)
            got = jitted(x)
            for w, g in zip(want[:3], got[:3]):
                np.testing.assert_allclose(g.asnumpy(), w.asnumpy(), rtol=1e-6, err_msg=f"size {size}")
                assert g.shape == w.shape and g.dtype == w.dtype
            assert got[3] == want[3] and [type(v) for v in got[3]] == [type(v) for v in want[3]], \
                (size, got[3], want[3])
    assert not [b for b in report.breaks if getattr(b, "internal", None)]
    capture.reset()


def size_graph(x):
    """Only arithmetic that stays symbolic (capture.symbolic_sizes): the graph is made generic
    in the size and re-instantiated for each new one, its numbers computed from expressions."""
    n = x.shape[0]
    return (x * (-n // 2) + x * (-n % 3) - x * ((n * 7) // 4) + x * ((3 - n) // 4) + x * ((3 - n) % 5),
            x / (n / 2) + x * (-n / 4) + x * (n ** 2) - x * ((-n) ** 3), x * (2 ** -n) + x * (n ** -1),
            x.reshape(n, 1) * ((-n) % 4) + (n - 5) // 2)


def test_numbers_from_tensor_sizes_in_a_generic_graph():
    """``size_graph`` at sizes 2..11: one generic graph re-instantiated (checked), every result
    equal to eager (floor division, modulo and powers of negative sizes evaluated as Python)."""
    capture.reset()
    jitted = capture.jit(size_graph)
    with recording() as report:
        for size in (3, 4, 5, 6, 7, 2, 8, 9, 10, 11, 4, 3):
            x = Tensor(np.arange(1, size + 1, dtype=np.float32))
            for w, g in zip(size_graph(x), jitted(x)):
                np.testing.assert_allclose(g.asnumpy(), w.asnumpy(), rtol=1e-6, err_msg=f"size {size}")
                assert g.shape == w.shape and g.dtype == w.dtype
    assert report.reinstantiations, "the graph was not made generic: the symbolic path is not tested"
    assert not [b for b in report.breaks if getattr(b, "internal", None)]
    capture.reset()


NOT_PORTABLE = {
    "test_builtin (the rest)": "not arithmetic (input(), exec, files...)",
    "test_float (the rest)": "float parsing, formatting and hashing: no capture-specific path",
}


@pytest.mark.parametrize("case", parametrize(globals()))
def test_numbers_port(case):
    if not hasattr(case, "reason"):
        assert_eager_passes(case)
    check(case)
