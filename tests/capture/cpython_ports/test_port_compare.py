"""CPython ``Lib/test/test_compare.py`` (3.11) ported as capture-vs-eager differential cases (see
port_harness.py): equality and order comparisons: chained comparisons, ``==``/``!=`` fallback to
identity, reflected operands and subclass priority, NotImplemented, rich comparison methods of
every combination (total orders, equality-only types), and comparisons of builtin types (numbers
across types, str, bytes/bytearray, list/tuple/range, sets, dicts) with the TypeError of
unorderable ones.

CPython's bodies are unchanged; ``self`` is a ``Checks`` recorder (unittest_shim.py) that records
every value the test compares, and the eager run must pass CPython's own assertions."""
from decimal import Decimal
from fractions import Fraction

import pytest

from port_harness import check, parametrize
from unittest_shim import Checks, assert_eager_passes


class _ALWAYS_EQ:
    """test.support.ALWAYS_EQ: equal to everything."""

    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False


ALWAYS_EQ = _ALWAYS_EQ()


class ComparisonSimpleChecks(Checks):
    """ComparisonSimpleTest's own helpers and class attributes (CPython's text), on the recorder."""

    class Empty:
        def __repr__(self):
            return '<Empty>'

    class Cmp:
        def __init__(self, arg):
            self.arg = arg

        def __repr__(self):
            return '<Cmp %s>' % self.arg

        def __eq__(self, other):
            return self.arg == other

    set1 = [2, 2.0, 2, 2+0j, Cmp(2.0)]

    set2 = [[1], (3,), None, Empty()]

    candidates = set1 + set2


class ComparisonFullChecks(Checks):
    """ComparisonFullTest's own helpers and class attributes (CPython's text), on the recorder."""

    class CompBase:
        """Base class for classes with rich comparison methods.

        The "x" attribute should be set to an underlying value to compare.

        Derived classes have a "meth" tuple attribute listing names of
        comparison methods implemented. See assert_total_order().
        """

    class CompNone(CompBase):
        meth = ()

    class CompEq(CompBase):
        meth = ("eq",)
        def __eq__(self, other):
            return self.x == other.x

    class CompNe(CompBase):
        meth = ("ne",)
        def __ne__(self, other):
            return self.x != other.x

    class CompEqNe(CompBase):
        meth = ("eq", "ne")
        def __eq__(self, other):
            return self.x == other.x
        def __ne__(self, other):
            return self.x != other.x

    class CompLt(CompBase):
        meth = ("lt",)
        def __lt__(self, other):
            return self.x < other.x

    class CompGt(CompBase):
        meth = ("gt",)
        def __gt__(self, other):
            return self.x > other.x

    class CompLtGt(CompBase):
        meth = ("lt", "gt")
        def __lt__(self, other):
            return self.x < other.x
        def __gt__(self, other):
            return self.x > other.x

    class CompLe(CompBase):
        meth = ("le",)
        def __le__(self, other):
            return self.x <= other.x

    class CompGe(CompBase):
        meth = ("ge",)
        def __ge__(self, other):
            return self.x >= other.x

    class CompLeGe(CompBase):
        meth = ("le", "ge")
        def __le__(self, other):
            return self.x <= other.x
        def __ge__(self, other):
            return self.x >= other.x

    all_comp_classes = (
            CompNone,
            CompEq, CompNe, CompEqNe,  # equal group
            CompLt, CompGt, CompLtGt,  # less/greater-than group
            CompLe, CompGe, CompLeGe)  # less/greater-or-equal group

    def create_sorted_instances(self, class_, values):
        """Create objects of type `class_` and return them in a list.

        `values` is a list of values that determines the value of data
        attribute `x` of each object.

        Objects in the returned list are sorted by their identity.  They
        assigned values in `values` list order.  By assign decreasing
        values to objects with increasing identities, testcases can assert
        that order comparison is performed by value and not by identity.
        """

        instances = [class_() for __ in range(len(values))]
        instances.sort(key=id)
        # Assign the provided values to the instances.
        for inst, value in zip(instances, values):
            inst.x = value
        return instances

    def assert_equality_only(self, a, b, equal):
        """Assert equality result and that ordering is not implemented.

        a, b: Instances to be tested (of same or different type).
        equal: Boolean indicating the expected equality comparison results.
        """
        self.assertEqual(a == b, equal)
        self.assertEqual(b == a, equal)
        self.assertEqual(a != b, not equal)
        self.assertEqual(b != a, not equal)
        with self.assertRaisesRegex(TypeError, "not supported"):
            a < b
        with self.assertRaisesRegex(TypeError, "not supported"):
            a <= b
        with self.assertRaisesRegex(TypeError, "not supported"):
            a > b
        with self.assertRaisesRegex(TypeError, "not supported"):
            a >= b
        with self.assertRaisesRegex(TypeError, "not supported"):
            b < a
        with self.assertRaisesRegex(TypeError, "not supported"):
            b <= a
        with self.assertRaisesRegex(TypeError, "not supported"):
            b > a
        with self.assertRaisesRegex(TypeError, "not supported"):
            b >= a

    def assert_total_order(self, a, b, comp, a_meth=None, b_meth=None):
        """Test total ordering comparison of two instances.

        a, b: Instances to be tested (of same or different type).

        comp: -1, 0, or 1 indicates that the expected order comparison
           result for operations that are supported by the classes is
           a <, ==, or > b.

        a_meth, b_meth: Either None, indicating that all rich comparison
           methods are available, aa for builtins, or the tuple (subset)
           of "eq", "ne", "lt", "le", "gt", and "ge" that are available
           for the corresponding instance (of a user-defined class).
        """
        self.assert_eq_subtest(a, b, comp, a_meth, b_meth)
        self.assert_ne_subtest(a, b, comp, a_meth, b_meth)
        self.assert_lt_subtest(a, b, comp, a_meth, b_meth)
        self.assert_le_subtest(a, b, comp, a_meth, b_meth)
        self.assert_gt_subtest(a, b, comp, a_meth, b_meth)
        self.assert_ge_subtest(a, b, comp, a_meth, b_meth)

    def assert_eq_subtest(self, a, b, comp, a_meth, b_meth):
        if a_meth is None or "eq" in a_meth or "eq" in b_meth:
            self.assertEqual(a == b, comp == 0)
            self.assertEqual(b == a, comp == 0)
        else:
            self.assertEqual(a == b, a is b)
            self.assertEqual(b == a, a is b)

    def assert_ne_subtest(self, a, b, comp, a_meth, b_meth):
        if a_meth is None or not {"ne", "eq"}.isdisjoint(a_meth + b_meth):
            self.assertEqual(a != b, comp != 0)
            self.assertEqual(b != a, comp != 0)
        else:
            self.assertEqual(a != b, a is not b)
            self.assertEqual(b != a, a is not b)

    def assert_lt_subtest(self, a, b, comp, a_meth, b_meth):
        if a_meth is None or "lt" in a_meth or "gt" in b_meth:
            self.assertEqual(a < b, comp < 0)
            self.assertEqual(b > a, comp < 0)
        else:
            with self.assertRaisesRegex(TypeError, "not supported"):
                a < b
            with self.assertRaisesRegex(TypeError, "not supported"):
                b > a

    def assert_le_subtest(self, a, b, comp, a_meth, b_meth):
        if a_meth is None or "le" in a_meth or "ge" in b_meth:
            self.assertEqual(a <= b, comp <= 0)
            self.assertEqual(b >= a, comp <= 0)
        else:
            with self.assertRaisesRegex(TypeError, "not supported"):
                a <= b
            with self.assertRaisesRegex(TypeError, "not supported"):
                b >= a

    def assert_gt_subtest(self, a, b, comp, a_meth, b_meth):
        if a_meth is None or "gt" in a_meth or "lt" in b_meth:
            self.assertEqual(a > b, comp > 0)
            self.assertEqual(b < a, comp > 0)
        else:
            with self.assertRaisesRegex(TypeError, "not supported"):
                a > b
            with self.assertRaisesRegex(TypeError, "not supported"):
                b < a

    def assert_ge_subtest(self, a, b, comp, a_meth, b_meth):
        if a_meth is None or "ge" in a_meth or "le" in b_meth:
            self.assertEqual(a >= b, comp >= 0)
            self.assertEqual(b <= a, comp >= 0)
        else:
            with self.assertRaisesRegex(TypeError, "not supported"):
                a >= b
            with self.assertRaisesRegex(TypeError, "not supported"):
                b <= a


def case_comparisons(tensor, state):
    """ComparisonSimpleTest.test_comparisons"""
    self = ComparisonSimpleChecks(state)
    for a in self.candidates:
        for b in self.candidates:
            if ((a in self.set1) and (b in self.set1)) or a is b:
                self.assertEqual(a, b)
            else:
                self.assertNotEqual(a, b)
    return tensor + 1


def case_id_comparisons(tensor, state):
    """ComparisonSimpleTest.test_id_comparisons"""
    self = ComparisonSimpleChecks(state)
    L = []
    for i in range(10):
        L.insert(len(L)//2, self.Empty())
    for a in L:
        for b in L:
            self.assertEqual(a == b, a is b, 'a=%r, b=%r' % (a, b))
    return tensor + 1


def case_ne_defaults_to_not_eq(tensor, state):
    """ComparisonSimpleTest.test_ne_defaults_to_not_eq"""
    self = ComparisonSimpleChecks(state)
    a = self.Cmp(1)
    b = self.Cmp(1)
    c = self.Cmp(2)
    self.assertIs(a == b, True)
    self.assertIs(a != b, False)
    self.assertIs(a != c, True)
    return tensor + 1


def case_ne_high_priority(tensor, state):
    """ComparisonSimpleTest.test_ne_high_priority: object.__ne__() should allow reflected __ne__() to be tried"""
    self = ComparisonSimpleChecks(state)
    calls = []
    class Left:
        # Inherits object.__ne__()
        def __eq__(*args):
            calls.append('Left.__eq__')
            return NotImplemented
    class Right:
        def __eq__(*args):
            calls.append('Right.__eq__')
            return NotImplemented
        def __ne__(*args):
            calls.append('Right.__ne__')
            return NotImplemented
    Left() != Right()
    self.assertSequenceEqual(calls, ['Left.__eq__', 'Right.__ne__'])
    return tensor + 1


def case_ne_low_priority(tensor, state):
    """ComparisonSimpleTest.test_ne_low_priority: object.__ne__() should not invoke reflected __eq__()"""
    self = ComparisonSimpleChecks(state)
    calls = []
    class Base:
        # Inherits object.__ne__()
        def __eq__(*args):
            calls.append('Base.__eq__')
            return NotImplemented
    class Derived(Base):  # Subclassing forces higher priority
        def __eq__(*args):
            calls.append('Derived.__eq__')
            return NotImplemented
        def __ne__(*args):
            calls.append('Derived.__ne__')
            return NotImplemented
    Base() != Derived()
    self.assertSequenceEqual(calls, ['Derived.__ne__', 'Base.__eq__'])
    return tensor + 1


def case_other_delegation(tensor, state):
    """ComparisonSimpleTest.test_other_delegation: No default delegation between operations except __ne__()"""
    self = ComparisonSimpleChecks(state)
    ops = (
        ('__eq__', lambda a, b: a == b),
        ('__lt__', lambda a, b: a < b),
        ('__le__', lambda a, b: a <= b),
        ('__gt__', lambda a, b: a > b),
        ('__ge__', lambda a, b: a >= b),
    )
    for name, func in ops:
        with self.subTest(name):
            def unexpected(*args):
                self.fail('Unexpected operator method called')
            class C:
                __ne__ = unexpected
            for other, _ in ops:
                if other != name:
                    setattr(C, other, unexpected)
            if name == '__eq__':
                self.assertIs(func(C(), object()), False)
            else:
                self.assertRaises(TypeError, func, C(), object())
    return tensor + 1


def case_issue_1393(tensor, state):
    """ComparisonSimpleTest.test_issue_1393"""
    self = ComparisonSimpleChecks(state)
    x = lambda: None
    self.assertEqual(x, ALWAYS_EQ)
    self.assertEqual(ALWAYS_EQ, x)
    y = object()
    self.assertEqual(y, ALWAYS_EQ)
    self.assertEqual(ALWAYS_EQ, y)
    return tensor + 1


def case_objects(tensor, state):
    """ComparisonFullTest.test_objects: Compare instances of type 'object'."""
    self = ComparisonFullChecks(state)
    a = object()
    b = object()
    self.assert_equality_only(a, a, True)
    self.assert_equality_only(a, b, False)
    return tensor + 1


def case_comp_classes_same(tensor, state):
    """ComparisonFullTest.test_comp_classes_same: Compare same-class instances with comparison methods."""
    self = ComparisonFullChecks(state)
    for cls in self.all_comp_classes:
        with self.subTest(cls):
            instances = self.create_sorted_instances(cls, (1, 2, 1))

            # Same object.
            self.assert_total_order(instances[0], instances[0], 0,
                                    cls.meth, cls.meth)

            # Different objects, same value.
            self.assert_total_order(instances[0], instances[2], 0,
                                    cls.meth, cls.meth)

            # Different objects, value ascending for ascending identities.
            self.assert_total_order(instances[0], instances[1], -1,
                                    cls.meth, cls.meth)

            # different objects, value descending for ascending identities.
            # This is the interesting case to assert that order comparison
            # is performed based on the value and not based on the identity.
            self.assert_total_order(instances[1], instances[2], +1,
                                    cls.meth, cls.meth)
    return tensor + 1


def case_comp_classes_different(tensor, state):
    """ComparisonFullTest.test_comp_classes_different: Compare different-class instances with comparison methods."""
    self = ComparisonFullChecks(state)
    for cls_a in self.all_comp_classes:
        for cls_b in self.all_comp_classes:
            with self.subTest(a=cls_a, b=cls_b):
                a1 = cls_a()
                a1.x = 1
                b1 = cls_b()
                b1.x = 1
                b2 = cls_b()
                b2.x = 2

                self.assert_total_order(
                    a1, b1, 0, cls_a.meth, cls_b.meth)
                self.assert_total_order(
                    a1, b2, -1, cls_a.meth, cls_b.meth)
    return tensor + 1


def case_str_subclass(tensor, state):
    """ComparisonFullTest.test_str_subclass: Compare instances of str and a subclass."""
    self = ComparisonFullChecks(state)
    class StrSubclass(str):
        pass

    s1 = str("a")
    s2 = str("b")
    c1 = StrSubclass("a")
    c2 = StrSubclass("b")
    c3 = StrSubclass("b")

    self.assert_total_order(s1, s1,   0)
    self.assert_total_order(s1, s2, -1)
    self.assert_total_order(c1, c1,   0)
    self.assert_total_order(c1, c2, -1)
    self.assert_total_order(c2, c3,   0)

    self.assert_total_order(s1, c2, -1)
    self.assert_total_order(s2, c3,   0)
    self.assert_total_order(c1, s2, -1)
    self.assert_total_order(c2, s2,   0)
    return tensor + 1


def case_numbers(tensor, state):
    """ComparisonFullTest.test_numbers: Compare number types."""
    self = ComparisonFullChecks(state)
    i1 = 1001
    i2 = 1002
    self.assert_total_order(i1, i1, 0)
    self.assert_total_order(i1, i2, -1)

    f1 = 1001.0
    f2 = 1001.1
    self.assert_total_order(f1, f1, 0)
    self.assert_total_order(f1, f2, -1)

    q1 = Fraction(2002, 2)
    q2 = Fraction(2003, 2)
    self.assert_total_order(q1, q1, 0)
    self.assert_total_order(q1, q2, -1)

    d1 = Decimal('1001.0')
    d2 = Decimal('1001.1')
    self.assert_total_order(d1, d1, 0)
    self.assert_total_order(d1, d2, -1)

    c1 = 1001+0j
    c2 = 1001+1j
    self.assert_equality_only(c1, c1, True)
    self.assert_equality_only(c1, c2, False)


    # Mixing types.
    for n1, n2 in ((i1,f1), (i1,q1), (i1,d1), (f1,q1), (f1,d1), (q1,d1)):
        self.assert_total_order(n1, n2, 0)
    for n1 in (i1, f1, q1, d1):
        self.assert_equality_only(n1, c1, True)
    return tensor + 1


def case_sequences(tensor, state):
    """ComparisonFullTest.test_sequences: Compare list, tuple, and range."""
    self = ComparisonFullChecks(state)
    l1 = [1, 2]
    l2 = [2, 3]
    self.assert_total_order(l1, l1, 0)
    self.assert_total_order(l1, l2, -1)

    t1 = (1, 2)
    t2 = (2, 3)
    self.assert_total_order(t1, t1, 0)
    self.assert_total_order(t1, t2, -1)

    r1 = range(1, 2)
    r2 = range(2, 2)
    self.assert_equality_only(r1, r1, True)
    self.assert_equality_only(r1, r2, False)

    self.assert_equality_only(t1, l1, False)
    self.assert_equality_only(l1, r1, False)
    self.assert_equality_only(r1, t1, False)
    return tensor + 1


def case_bytes(tensor, state):
    """ComparisonFullTest.test_bytes: Compare bytes and bytearray."""
    self = ComparisonFullChecks(state)
    bs1 = b'a1'
    bs2 = b'b2'
    self.assert_total_order(bs1, bs1, 0)
    self.assert_total_order(bs1, bs2, -1)

    ba1 = bytearray(b'a1')
    ba2 = bytearray(b'b2')
    self.assert_total_order(ba1, ba1,  0)
    self.assert_total_order(ba1, ba2, -1)

    self.assert_total_order(bs1, ba1, 0)
    self.assert_total_order(bs1, ba2, -1)
    self.assert_total_order(ba1, bs1, 0)
    self.assert_total_order(ba1, bs2, -1)
    return tensor + 1


def case_sets(tensor, state):
    """ComparisonFullTest.test_sets: Compare set and frozenset."""
    self = ComparisonFullChecks(state)
    s1 = {1, 2}
    s2 = {1, 2, 3}
    self.assert_total_order(s1, s1, 0)
    self.assert_total_order(s1, s2, -1)

    f1 = frozenset(s1)
    f2 = frozenset(s2)
    self.assert_total_order(f1, f1,  0)
    self.assert_total_order(f1, f2, -1)

    self.assert_total_order(s1, f1, 0)
    self.assert_total_order(s1, f2, -1)
    self.assert_total_order(f1, s1, 0)
    self.assert_total_order(f1, s2, -1)
    return tensor + 1


def case_mappings(tensor, state):
    """ComparisonFullTest.test_mappings: Compare dict."""
    self = ComparisonFullChecks(state)
    d1 = {1: "a", 2: "b"}
    d2 = {2: "b", 3: "c"}
    d3 = {3: "c", 2: "b"}
    self.assert_equality_only(d1, d1, True)
    self.assert_equality_only(d1, d2, False)
    self.assert_equality_only(d2, d3, True)
    return tensor + 1


# -- over Tensors (not in CPython's file) ----------------------------------------------------------
def case_tensor_chained_comparisons(tensor, state):
    """Chained comparisons whose operands are Tensors: elementwise results, and the truth value
    of a multi-element comparison (an error) stopping a chain as eagerly."""
    self = Checks(state)
    first = tensor[0]
    out = [first < 2.0, 0.0 < tensor, tensor >= tensor, tensor == tensor, tensor != 1.0]
    if 0.5 < first < 1.5:
        out.append("first in (0.5, 1.5)")
    with self.assertRaises((ValueError, RuntimeError, TypeError)):
        out.append(0 < tensor < 10)
    out.append(1 < 2 < first + 5)
    return out


NOT_PORTABLE = {

}


@pytest.mark.parametrize("case", parametrize(globals()))
def test_compare_port(case):
    if not hasattr(case, "reason"):
        assert_eager_passes(case)
    check(case)
