"""CPython ``Lib/test/test_augassign.py`` (3.11) ported as capture-vs-eager differential cases (see
port_harness.py): augmented assignment (``+=`` and the other operators) on names, list items,
dict items, slices, and on classes defining ``__iadd__``/``__radd__``... (which method runs, in
which order).

CPython's bodies are unchanged; ``self`` is a ``Checks`` recorder (unittest_shim.py) that records
every value the test compares, and the eager run must pass CPython's own assertions."""


import pytest

from port_harness import check, parametrize
from unittest_shim import Checks, assert_eager_passes


def case_Basic(tensor, state):
    """AugAssignTest.testBasic"""
    self = Checks(state)
    x = 2
    x += 1
    x *= 2
    x **= 2
    x -= 8
    x //= 5
    x %= 3
    x &= 2
    x |= 5
    x ^= 1
    x /= 2
    self.assertEqual(x, 3.0)
    return tensor + 1


def case_InList(tensor, state):
    """AugAssignTest.testInList"""
    self = Checks(state)
    x = [2]
    x[0] += 1
    x[0] *= 2
    x[0] **= 2
    x[0] -= 8
    x[0] //= 5
    x[0] %= 3
    x[0] &= 2
    x[0] |= 5
    x[0] ^= 1
    x[0] /= 2
    self.assertEqual(x[0], 3.0)
    return tensor + 1


def case_InDict(tensor, state):
    """AugAssignTest.testInDict"""
    self = Checks(state)
    x = {0: 2}
    x[0] += 1
    x[0] *= 2
    x[0] **= 2
    x[0] -= 8
    x[0] //= 5
    x[0] %= 3
    x[0] &= 2
    x[0] |= 5
    x[0] ^= 1
    x[0] /= 2
    self.assertEqual(x[0], 3.0)
    return tensor + 1


def case_Sequences(tensor, state):
    """AugAssignTest.testSequences"""
    self = Checks(state)
    x = [1,2]
    x += [3,4]
    x *= 2

    self.assertEqual(x, [1, 2, 3, 4, 1, 2, 3, 4])

    x = [1, 2, 3]
    y = x
    x[1:2] *= 2
    y[1:2] += [1]

    self.assertEqual(x, [1, 2, 1, 2, 3])
    self.assertTrue(x is y)
    return tensor + 1


def case_CustomMethods1(tensor, state):
    """AugAssignTest.testCustomMethods1"""
    self = Checks(state)
    class aug_test:
        def __init__(self, value):
            self.val = value
        def __radd__(self, val):
            return self.val + val
        def __add__(self, val):
            return aug_test(self.val + val)

    class aug_test2(aug_test):
        def __iadd__(self, val):
            self.val = self.val + val
            return self

    class aug_test3(aug_test):
        def __iadd__(self, val):
            return aug_test3(self.val + val)

    class aug_test4(aug_test3):
        """Blocks inheritance, and fallback to __add__"""
        __iadd__ = None

    x = aug_test(1)
    y = x
    x += 10

    self.assertIsInstance(x, aug_test)
    self.assertTrue(y is not x)
    self.assertEqual(x.val, 11)

    x = aug_test2(2)
    y = x
    x += 10

    self.assertTrue(y is x)
    self.assertEqual(x.val, 12)

    x = aug_test3(3)
    y = x
    x += 10

    self.assertIsInstance(x, aug_test3)
    self.assertTrue(y is not x)
    self.assertEqual(x.val, 13)

    x = aug_test4(4)
    with self.assertRaises(TypeError):
        x += 10
    return tensor + 1


def case_CustomMethods2(tensor, state):
    """AugAssignTest.testCustomMethods2"""
    test_self = Checks(state)
    output = []

    class testall:
        def __add__(self, val):
            output.append("__add__ called")
        def __radd__(self, val):
            output.append("__radd__ called")
        def __iadd__(self, val):
            output.append("__iadd__ called")
            return self

        def __sub__(self, val):
            output.append("__sub__ called")
        def __rsub__(self, val):
            output.append("__rsub__ called")
        def __isub__(self, val):
            output.append("__isub__ called")
            return self

        def __mul__(self, val):
            output.append("__mul__ called")
        def __rmul__(self, val):
            output.append("__rmul__ called")
        def __imul__(self, val):
            output.append("__imul__ called")
            return self

        def __matmul__(self, val):
            output.append("__matmul__ called")
        def __rmatmul__(self, val):
            output.append("__rmatmul__ called")
        def __imatmul__(self, val):
            output.append("__imatmul__ called")
            return self

        def __floordiv__(self, val):
            output.append("__floordiv__ called")
            return self
        def __ifloordiv__(self, val):
            output.append("__ifloordiv__ called")
            return self
        def __rfloordiv__(self, val):
            output.append("__rfloordiv__ called")
            return self

        def __truediv__(self, val):
            output.append("__truediv__ called")
            return self
        def __rtruediv__(self, val):
            output.append("__rtruediv__ called")
            return self
        def __itruediv__(self, val):
            output.append("__itruediv__ called")
            return self

        def __mod__(self, val):
            output.append("__mod__ called")
        def __rmod__(self, val):
            output.append("__rmod__ called")
        def __imod__(self, val):
            output.append("__imod__ called")
            return self

        def __pow__(self, val):
            output.append("__pow__ called")
        def __rpow__(self, val):
            output.append("__rpow__ called")
        def __ipow__(self, val):
            output.append("__ipow__ called")
            return self

        def __or__(self, val):
            output.append("__or__ called")
        def __ror__(self, val):
            output.append("__ror__ called")
        def __ior__(self, val):
            output.append("__ior__ called")
            return self

        def __and__(self, val):
            output.append("__and__ called")
        def __rand__(self, val):
            output.append("__rand__ called")
        def __iand__(self, val):
            output.append("__iand__ called")
            return self

        def __xor__(self, val):
            output.append("__xor__ called")
        def __rxor__(self, val):
            output.append("__rxor__ called")
        def __ixor__(self, val):
            output.append("__ixor__ called")
            return self

        def __rshift__(self, val):
            output.append("__rshift__ called")
        def __rrshift__(self, val):
            output.append("__rrshift__ called")
        def __irshift__(self, val):
            output.append("__irshift__ called")
            return self

        def __lshift__(self, val):
            output.append("__lshift__ called")
        def __rlshift__(self, val):
            output.append("__rlshift__ called")
        def __ilshift__(self, val):
            output.append("__ilshift__ called")
            return self

    x = testall()
    x + 1
    1 + x
    x += 1

    x - 1
    1 - x
    x -= 1

    x * 1
    1 * x
    x *= 1

    x @ 1
    1 @ x
    x @= 1

    x / 1
    1 / x
    x /= 1

    x // 1
    1 // x
    x //= 1

    x % 1
    1 % x
    x %= 1

    x ** 1
    1 ** x
    x **= 1

    x | 1
    1 | x
    x |= 1

    x & 1
    1 & x
    x &= 1

    x ^ 1
    1 ^ x
    x ^= 1

    x >> 1
    1 >> x
    x >>= 1

    x << 1
    1 << x
    x <<= 1

    test_self.assertEqual(output, '''\
__add__ called
__radd__ called
__iadd__ called
__sub__ called
__rsub__ called
__isub__ called
__mul__ called
__rmul__ called
__imul__ called
__matmul__ called
__rmatmul__ called
__imatmul__ called
__truediv__ called
__rtruediv__ called
__itruediv__ called
__floordiv__ called
__rfloordiv__ called
__ifloordiv__ called
__mod__ called
__rmod__ called
__imod__ called
__pow__ called
__rpow__ called
__ipow__ called
__or__ called
__ror__ called
__ior__ called
__and__ called
__rand__ called
__iand__ called
__xor__ called
__rxor__ called
__ixor__ called
__rshift__ called
__rrshift__ called
__irshift__ called
__lshift__ called
__rlshift__ called
__ilshift__ called
'''.splitlines())
    return tensor + 1


# -- over Tensors (not in CPython's file) ----------------------------------------------------------
class Box:
    """An attribute holder made outside the case (a class statement breaks the graph)."""


def case_tensor_augassign(tensor, state):
    """Augmented assignment on Tensors, in names, list items, dict items and attributes: the
    values, and whether the name still refers to the same object (``y is tensor`` after
    ``y += 1``) as eagerly."""
    y = tensor
    y += 1
    z = tensor * 1
    z *= 3
    z -= tensor
    z /= 2
    z **= 2
    items = [tensor, tensor * 2]
    items[1] += 10
    d = {"k": tensor}
    d["k"] -= 0.5
    b = Box()
    b.v = tensor
    b.v *= -1
    n = 3
    n //= -2
    n **= 2
    return y, y is tensor, z, items, items[0] is tensor, d, b.v, n


class LoggingAttrs:
    """``__getattr__`` logs each read of a missing attribute."""

    def __init__(self, log):
        self.log = log

    def __getattr__(self, name):
        self.log.append(("getattr", name))
        return 0


class LoggingItems:
    """``__getitem__``/``__setitem__`` log each access."""

    def __init__(self, log):
        self.log = log
        self.d = {}

    def __getitem__(self, k):
        self.log.append(("get", k))
        return self.d.get(k, 0)

    def __setitem__(self, k, v):
        self.log.append(("set", k, v))
        self.d[k] = v


def case_evaluation_order_and_aliasing(tensor, state):
    """Not in CPython's file: chained comparisons evaluate each operand once, left to right, and
    stop early; ``a[f()] += g()`` reads, computes and writes in CPython's order, each call once;
    ``+=`` on an immutable rebinds (its alias keeps the old value), on a list extends in place."""
    log = state.setdefault("log", [])

    def val(n):
        log.append(n)
        return n
    r1 = val(1) < val(2) < val(3)
    r2 = val(3) < val(2) < val(5)
    r3 = val(1) == val(1.0) != val(2) is not None
    o = LoggingAttrs(log)
    o.w += 5
    ix = LoggingItems(log)
    ix[val("k")] += val(10)
    ix[val("k")] *= 2
    lst = [1, 2, 3]
    lst[val(0):val(2)] += [val(9)]
    s = "a"
    s += "b"
    tup = (1,)
    alias = tup
    tup += (2,)
    l2 = [1]
    a2 = l2
    l2 += [tensor]
    return r1, r2, r3, o.w, ix.d, lst, s, tup, alias, a2 is l2, a2


NOT_PORTABLE = {
    'test_with_unpacking': 'compile-time SyntaxError',
}


@pytest.mark.parametrize("case", parametrize(globals()))
def test_augassign_port(case):
    if not hasattr(case, "reason"):
        assert_eager_passes(case)
    check(case)
