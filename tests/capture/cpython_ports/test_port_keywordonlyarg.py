"""CPython ``Lib/test/test_keywordonlyarg.py`` (3.11) ported as capture-vs-eager differential cases (see
port_harness.py): keyword-only parameters (PEP 3102): binding, defaults and their evaluation
order, the TypeError messages of missing/unexpected/too many arguments, methods, name mangling.

CPython's bodies are unchanged; ``self`` is a ``Checks`` recorder (unittest_shim.py) that records
every value the test compares, and the eager run must pass CPython's own assertions."""


import unittest  # (test_issue13343 uses the module as a default value)

import pytest

from port_harness import check, parametrize
from unittest_shim import Checks, assert_eager_passes


def posonly_sum(pos_arg1, *arg, **kwarg):
    return pos_arg1 + sum(arg) + sum(kwarg.values())
def keywordonly_sum(*, k1=0, k2):
    return k1 + k2
def keywordonly_nodefaults_sum(*, k1, k2):
    return k1 + k2
def keywordonly_and_kwarg_sum(*, k1, k2, **kwarg):
    return k1 + k2 + sum(kwarg.values())
def mixedargs_sum(a, b=0, *arg, k1, k2=0):
    return a + b + k1 + k2 + sum(arg)
def mixedargs_sum2(a, b=0, *arg, k1, k2=0, **kwargs):
    return a + b + k1 + k2 + sum(arg) + sum(kwargs.values())

def sortnum(*nums, reverse=False):
    return sorted(list(nums), reverse=reverse)

def sortwords(*words, reverse=False, **kwargs):
    return sorted(list(words), reverse=reverse)

class Foo:
    def __init__(self, *, k1, k2=0):
        self.k1 = k1
        self.k2 = k2
    def set(self, p1, *, k1, k2):
        self.k1 = k1
        self.k2 = k2
    def sum(self):
        return self.k1 + self.k2



def case_TooManyPositionalErrorMessage(tensor, state):
    """KeywordOnlyArgTestCase.testTooManyPositionalErrorMessage"""
    self = Checks(state)
    def f(a, b=None, *, c=None):
        pass
    with self.assertRaises(TypeError) as exc:
        f(1, 2, 3)
    expected = (f"{f.__qualname__}() takes from 1 to 2 "
                "positional arguments but 3 were given")
    self.assertEqual(str(exc.exception), expected)
    return tensor + 1


def case_RaiseErrorFuncallWithUnexpectedKeywordArgument(tensor, state):
    """KeywordOnlyArgTestCase.testRaiseErrorFuncallWithUnexpectedKeywordArgument"""
    self = Checks(state)
    self.assertRaises(TypeError, keywordonly_sum, ())
    self.assertRaises(TypeError, keywordonly_nodefaults_sum, ())
    self.assertRaises(TypeError, Foo, ())
    try:
        keywordonly_sum(k2=100, non_existing_arg=200)
        self.fail("should raise TypeError")
    except TypeError:
        pass
    try:
        keywordonly_nodefaults_sum(k2=2)
        self.fail("should raise TypeError")
    except TypeError:
        pass
    return tensor + 1


def case_FunctionCall(tensor, state):
    """KeywordOnlyArgTestCase.testFunctionCall"""
    self = Checks(state)
    self.assertEqual(1, posonly_sum(1))
    self.assertEqual(1+2, posonly_sum(1,**{"2":2}))
    self.assertEqual(1+2+3, posonly_sum(1,*(2,3)))
    self.assertEqual(1+2+3+4, posonly_sum(1,*(2,3),**{"4":4}))

    self.assertEqual(1, keywordonly_sum(k2=1))
    self.assertEqual(1+2, keywordonly_sum(k1=1, k2=2))

    self.assertEqual(1+2, keywordonly_and_kwarg_sum(k1=1, k2=2))
    self.assertEqual(1+2+3, keywordonly_and_kwarg_sum(k1=1, k2=2, k3=3))
    self.assertEqual(1+2+3+4,
                     keywordonly_and_kwarg_sum(k1=1, k2=2,
                                                **{"a":3,"b":4}))

    self.assertEqual(1+2, mixedargs_sum(1, k1=2))
    self.assertEqual(1+2+3, mixedargs_sum(1, 2, k1=3))
    self.assertEqual(1+2+3+4, mixedargs_sum(1, 2, k1=3, k2=4))
    self.assertEqual(1+2+3+4+5, mixedargs_sum(1, 2, 3, k1=4, k2=5))

    self.assertEqual(1+2, mixedargs_sum2(1, k1=2))
    self.assertEqual(1+2+3, mixedargs_sum2(1, 2, k1=3))
    self.assertEqual(1+2+3+4, mixedargs_sum2(1, 2, k1=3, k2=4))
    self.assertEqual(1+2+3+4+5, mixedargs_sum2(1, 2, 3, k1=4, k2=5))
    self.assertEqual(1+2+3+4+5+6,
                     mixedargs_sum2(1, 2, 3, k1=4, k2=5, k3=6))
    self.assertEqual(1+2+3+4+5+6,
                     mixedargs_sum2(1, 2, 3, k1=4, **{'k2':5, 'k3':6}))

    self.assertEqual(1, Foo(k1=1).sum())
    self.assertEqual(1+2, Foo(k1=1,k2=2).sum())

    self.assertEqual([1,2,3], sortnum(3,2,1))
    self.assertEqual([3,2,1], sortnum(1,2,3, reverse=True))

    self.assertEqual(['a','b','c'], sortwords('a','c','b'))
    self.assertEqual(['c','b','a'], sortwords('a','c','b', reverse=True))
    self.assertEqual(['c','b','a'],
                     sortwords('a','c','b', reverse=True, ignore='ignore'))
    return tensor + 1


def case_KwDefaults(tensor, state):
    """KeywordOnlyArgTestCase.testKwDefaults"""
    self = Checks(state)
    def foo(p1,p2=0, *, k1, k2=0):
        return p1 + p2 + k1 + k2

    self.assertEqual(2, foo.__code__.co_kwonlyargcount)
    self.assertEqual({"k2":0}, foo.__kwdefaults__)
    foo.__kwdefaults__ = {"k1":0}
    try:
        foo(1,k1=10)
        self.fail("__kwdefaults__ is not properly changed")
    except TypeError:
        pass
    return tensor + 1


def case_kwonly_methods(tensor, state):
    """KeywordOnlyArgTestCase.test_kwonly_methods"""
    self = Checks(state)
    class Example:
        def f(self, *, k1=1, k2=2):
            return k1, k2

    self.assertEqual(Example().f(k1=1, k2=2), (1, 2))
    self.assertEqual(Example.f(Example(), k1=1, k2=2), (1, 2))
    self.assertRaises(TypeError, Example.f, k1=1, k2=2)
    return tensor + 1


def case_issue13343(tensor, state):
    """KeywordOnlyArgTestCase.test_issue13343"""
    self = Checks(state)
    lambda *, k1=unittest: None
    return tensor + 1


def case_mangling(tensor, state):
    """KeywordOnlyArgTestCase.test_mangling"""
    self = Checks(state)
    class X:
        def f(self, *, __a=42):
            return __a
    self.assertEqual(X().f(), 42)
    return tensor + 1


def case_default_evaluation_order(tensor, state):
    """KeywordOnlyArgTestCase.test_default_evaluation_order"""
    self = Checks(state)
    a = 42
    with self.assertRaises(NameError) as err:
        def f(v=a, x=b, *, y=c, z=d):  # noqa: F821
            pass
    self.assertEqual(str(err.exception), "name 'b' is not defined")
    with self.assertRaises(NameError) as err:
        g = lambda v=a, x=b, *, y=c, z=d: None  # noqa: F821
    self.assertEqual(str(err.exception), "name 'b' is not defined")
    return tensor + 1


NOT_PORTABLE = {
    'testSyntaxErrorForFunctionDefinition / testSyntaxErrorForFunctionCall': 'compile-time SyntaxErrors',
    'testSyntaxForManyArguments': 'compile() of generated source',
}


@pytest.mark.parametrize("case", parametrize(globals()))
def test_keywordonlyarg_port(case):
    if not hasattr(case, "reason"):
        assert_eager_passes(case)
    check(case)
