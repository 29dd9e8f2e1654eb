"""CPython ``Lib/test/test_bool.py`` (3.11) ported as capture-vs-eager differential cases (see
port_harness.py): bool: its int/float/complex arithmetic and results' types, conversions,
format/str/repr, ``__bool__``/``__len__`` protocols and their errors, operator module results.

CPython's bodies are unchanged; ``self`` is a ``Checks`` recorder (unittest_shim.py) that records
every value the test compares, and the eager run must pass CPython's own assertions."""

import pytest

from port_harness import check, parametrize
from unittest_shim import Checks, assert_eager_passes


def case_subclass(tensor, state):
    """BoolTest.test_subclass"""
    self = Checks(state)
    try:
        class C(bool):
            pass
    except TypeError:
        pass
    else:
        self.fail("bool should not be subclassable")

    self.assertRaises(TypeError, int.__new__, bool, 0)
    return tensor + 1


def case_repr(tensor, state):
    """BoolTest.test_repr"""
    self = Checks(state)
    self.assertEqual(repr(False), 'False')
    self.assertEqual(repr(True), 'True')
    self.assertIs(eval(repr(False)), False)
    self.assertIs(eval(repr(True)), True)
    return tensor + 1


def case_str(tensor, state):
    """BoolTest.test_str"""
    self = Checks(state)
    self.assertEqual(str(False), 'False')
    self.assertEqual(str(True), 'True')
    return tensor + 1


def case_int(tensor, state):
    """BoolTest.test_int"""
    self = Checks(state)
    self.assertEqual(int(False), 0)
    self.assertIsNot(int(False), False)
    self.assertEqual(int(True), 1)
    self.assertIsNot(int(True), True)
    return tensor + 1


def case_float(tensor, state):
    """BoolTest.test_float"""
    self = Checks(state)
    self.assertEqual(float(False), 0.0)
    self.assertIsNot(float(False), False)
    self.assertEqual(float(True), 1.0)
    self.assertIsNot(float(True), True)
    return tensor + 1


def case_complex(tensor, state):
    """BoolTest.test_complex"""
    self = Checks(state)
    self.assertEqual(complex(False), 0j)
    self.assertEqual(complex(False), False)
    self.assertEqual(complex(True), 1+0j)
    self.assertEqual(complex(True), True)
    return tensor + 1


def case_math(tensor, state):
    """BoolTest.test_math"""
    self = Checks(state)
    self.assertEqual(+False, 0)
    self.assertIsNot(+False, False)
    self.assertEqual(-False, 0)
    self.assertIsNot(-False, False)
    self.assertEqual(abs(False), 0)
    self.assertIsNot(abs(False), False)
    self.assertEqual(+True, 1)
    self.assertIsNot(+True, True)
    self.assertEqual(-True, -1)
    self.assertEqual(abs(True), 1)
    self.assertIsNot(abs(True), True)
    self.assertEqual(~False, -1)
    self.assertEqual(~True, -2)

    self.assertEqual(False+2, 2)
    self.assertEqual(True+2, 3)
    self.assertEqual(2+False, 2)
    self.assertEqual(2+True, 3)

    self.assertEqual(False+False, 0)
    self.assertIsNot(False+False, False)
    self.assertEqual(False+True, 1)
    self.assertIsNot(False+True, True)
    self.assertEqual(True+False, 1)
    self.assertIsNot(True+False, True)
    self.assertEqual(True+True, 2)

    self.assertEqual(True-True, 0)
    self.assertIsNot(True-True, False)
    self.assertEqual(False-False, 0)
    self.assertIsNot(False-False, False)
    self.assertEqual(True-False, 1)
    self.assertIsNot(True-False, True)
    self.assertEqual(False-True, -1)

    self.assertEqual(True*1, 1)
    self.assertEqual(False*1, 0)
    self.assertIsNot(False*1, False)

    self.assertEqual(True/1, 1)
    self.assertIsNot(True/1, True)
    self.assertEqual(False/1, 0)
    self.assertIsNot(False/1, False)

    self.assertEqual(True%1, 0)
    self.assertIsNot(True%1, False)
    self.assertEqual(True%2, 1)
    self.assertIsNot(True%2, True)
    self.assertEqual(False%1, 0)
    self.assertIsNot(False%1, False)

    for b in False, True:
        for i in 0, 1, 2:
            self.assertEqual(b**i, int(b)**i)
            self.assertIsNot(b**i, bool(int(b)**i))

    for a in False, True:
        for b in False, True:
            self.assertIs(a&b, bool(int(a)&int(b)))
            self.assertIs(a|b, bool(int(a)|int(b)))
            self.assertIs(a^b, bool(int(a)^int(b)))
            self.assertEqual(a&int(b), int(a)&int(b))
            self.assertIsNot(a&int(b), bool(int(a)&int(b)))
            self.assertEqual(a|int(b), int(a)|int(b))
            self.assertIsNot(a|int(b), bool(int(a)|int(b)))
            self.assertEqual(a^int(b), int(a)^int(b))
            self.assertIsNot(a^int(b), bool(int(a)^int(b)))
            self.assertEqual(int(a)&b, int(a)&int(b))
            self.assertIsNot(int(a)&b, bool(int(a)&int(b)))
            self.assertEqual(int(a)|b, int(a)|int(b))
            self.assertIsNot(int(a)|b, bool(int(a)|int(b)))
            self.assertEqual(int(a)^b, int(a)^int(b))
            self.assertIsNot(int(a)^b, bool(int(a)^int(b)))

    self.assertIs(1==1, True)
    self.assertIs(1==0, False)
    self.assertIs(0<1, True)
    self.assertIs(1<0, False)
    self.assertIs(0<=0, True)
    self.assertIs(1<=0, False)
    self.assertIs(1>0, True)
    self.assertIs(1>1, False)
    self.assertIs(1>=1, True)
    self.assertIs(0>=1, False)
    self.assertIs(0!=1, True)
    self.assertIs(0!=0, False)

    x = [1]
    self.assertIs(x is x, True)
    self.assertIs(x is not x, False)

    self.assertIs(1 in x, True)
    self.assertIs(0 in x, False)
    self.assertIs(1 not in x, False)
    self.assertIs(0 not in x, True)

    x = {1: 2}
    self.assertIs(x is x, True)
    self.assertIs(x is not x, False)

    self.assertIs(1 in x, True)
    self.assertIs(0 in x, False)
    self.assertIs(1 not in x, False)
    self.assertIs(0 not in x, True)

    self.assertIs(not True, False)
    self.assertIs(not False, True)
    return tensor + 1


def case_convert(tensor, state):
    """BoolTest.test_convert"""
    self = Checks(state)
    self.assertRaises(TypeError, bool, 42, 42)
    self.assertIs(bool(10), True)
    self.assertIs(bool(1), True)
    self.assertIs(bool(-1), True)
    self.assertIs(bool(0), False)
    self.assertIs(bool("hello"), True)
    self.assertIs(bool(""), False)
    self.assertIs(bool(), False)
    return tensor + 1


def case_keyword_args(tensor, state):
    """BoolTest.test_keyword_args"""
    self = Checks(state)
    with self.assertRaisesRegex(TypeError, 'keyword argument'):
        bool(x=10)
    return tensor + 1


def case_format(tensor, state):
    """BoolTest.test_format"""
    self = Checks(state)
    self.assertEqual("%d" % False, "0")
    self.assertEqual("%d" % True, "1")
    self.assertEqual("%x" % False, "0")
    self.assertEqual("%x" % True, "1")
    return tensor + 1


def case_hasattr(tensor, state):
    """BoolTest.test_hasattr"""
    self = Checks(state)
    self.assertIs(hasattr([], "append"), True)
    self.assertIs(hasattr([], "wobble"), False)
    return tensor + 1


def case_callable(tensor, state):
    """BoolTest.test_callable"""
    self = Checks(state)
    self.assertIs(callable(len), True)
    self.assertIs(callable(1), False)
    return tensor + 1


def case_isinstance(tensor, state):
    """BoolTest.test_isinstance"""
    self = Checks(state)
    self.assertIs(isinstance(True, bool), True)
    self.assertIs(isinstance(False, bool), True)
    self.assertIs(isinstance(True, int), True)
    self.assertIs(isinstance(False, int), True)
    self.assertIs(isinstance(1, bool), False)
    self.assertIs(isinstance(0, bool), False)
    return tensor + 1


def case_issubclass(tensor, state):
    """BoolTest.test_issubclass"""
    self = Checks(state)
    self.assertIs(issubclass(bool, int), True)
    self.assertIs(issubclass(int, bool), False)
    return tensor + 1


def case_contains(tensor, state):
    """BoolTest.test_contains"""
    self = Checks(state)
    self.assertIs(1 in {}, False)
    self.assertIs(1 in {1:1}, True)
    return tensor + 1


def case_string(tensor, state):
    """BoolTest.test_string"""
    self = Checks(state)
    self.assertIs("xyz".endswith("z"), True)
    self.assertIs("xyz".endswith("x"), False)
    self.assertIs("xyz0123".isalnum(), True)
    self.assertIs("@#$%".isalnum(), False)
    self.assertIs("xyz".isalpha(), True)
    self.assertIs("@#$%".isalpha(), False)
    self.assertIs("0123".isdigit(), True)
    self.assertIs("xyz".isdigit(), False)
    self.assertIs("xyz".islower(), True)
    self.assertIs("XYZ".islower(), False)
    self.assertIs("0123".isdecimal(), True)
    self.assertIs("xyz".isdecimal(), False)
    self.assertIs("0123".isnumeric(), True)
    self.assertIs("xyz".isnumeric(), False)
    self.assertIs(" ".isspace(), True)
    self.assertIs("\xa0".isspace(), True)
    self.assertIs("\u3000".isspace(), True)
    self.assertIs("XYZ".isspace(), False)
    self.assertIs("X".istitle(), True)
    self.assertIs("x".istitle(), False)
    self.assertIs("XYZ".isupper(), True)
    self.assertIs("xyz".isupper(), False)
    self.assertIs("xyz".startswith("x"), True)
    self.assertIs("xyz".startswith("z"), False)
    return tensor + 1


def case_boolean(tensor, state):
    """BoolTest.test_boolean"""
    self = Checks(state)
    self.assertEqual(True & 1, 1)
    self.assertNotIsInstance(True & 1, bool)
    self.assertIs(True & True, True)

    self.assertEqual(True | 1, 1)
    self.assertNotIsInstance(True | 1, bool)
    self.assertIs(True | True, True)

    self.assertEqual(True ^ 1, 0)
    self.assertNotIsInstance(True ^ 1, bool)
    self.assertIs(True ^ True, False)
    return tensor + 1


def case_types(tensor, state):
    """BoolTest.test_types"""
    self = Checks(state)
    for t in [bool, complex, dict, float, int, list, object,
              set, str, tuple, type]:
        self.assertIs(bool(t), True)
    return tensor + 1


def case_operator(tensor, state):
    """BoolTest.test_operator"""
    self = Checks(state)
    import operator
    self.assertIs(operator.truth(0), False)
    self.assertIs(operator.truth(1), True)
    self.assertIs(operator.not_(1), False)
    self.assertIs(operator.not_(0), True)
    self.assertIs(operator.contains([], 1), False)
    self.assertIs(operator.contains([1], 1), True)
    self.assertIs(operator.lt(0, 0), False)
    self.assertIs(operator.lt(0, 1), True)
    self.assertIs(operator.is_(True, True), True)
    self.assertIs(operator.is_(True, False), False)
    self.assertIs(operator.is_not(True, True), False)
    self.assertIs(operator.is_not(True, False), True)
    return tensor + 1


def case_marshal(tensor, state):
    """BoolTest.test_marshal"""
    self = Checks(state)
    import marshal
    self.assertIs(marshal.loads(marshal.dumps(True)), True)
    self.assertIs(marshal.loads(marshal.dumps(False)), False)
    return tensor + 1


def case_pickle(tensor, state):
    """BoolTest.test_pickle"""
    self = Checks(state)
    import pickle
    for proto in range(pickle.HIGHEST_PROTOCOL + 1):
        self.assertIs(pickle.loads(pickle.dumps(True, proto)), True)
        self.assertIs(pickle.loads(pickle.dumps(False, proto)), False)
    return tensor + 1


def case_picklevalues(tensor, state):
    """BoolTest.test_picklevalues"""
    self = Checks(state)
    import pickle
    self.assertEqual(pickle.dumps(True, protocol=0), b"I01\n.")
    self.assertEqual(pickle.dumps(False, protocol=0), b"I00\n.")
    self.assertEqual(pickle.dumps(True, protocol=1), b"I01\n.")
    self.assertEqual(pickle.dumps(False, protocol=1), b"I00\n.")
    self.assertEqual(pickle.dumps(True, protocol=2), b'\x80\x02\x88.')
    self.assertEqual(pickle.dumps(False, protocol=2), b'\x80\x02\x89.')
    return tensor + 1


def case_convert_to_bool(tensor, state):
    """BoolTest.test_convert_to_bool"""
    self = Checks(state)
    check = lambda o: self.assertRaises(TypeError, bool, o)
    class Foo(object):
        def __bool__(self):
            return self
    check(Foo())

    class Bar(object):
        def __bool__(self):
            return "Yes"
    check(Bar())

    class Baz(int):
        def __bool__(self):
            return self
    check(Baz())

    # __bool__() must return a bool not an int
    class Spam(int):
        def __bool__(self):
            return 1
    check(Spam())

    class Eggs:
        def __len__(self):
            return -1
    self.assertRaises(ValueError, bool, Eggs())
    return tensor + 1


def case_from_bytes(tensor, state):
    """BoolTest.test_from_bytes"""
    self = Checks(state)
    self.assertIs(bool.from_bytes(b'\x00'*8, 'big'), False)
    self.assertIs(bool.from_bytes(b'abcd', 'little'), True)
    return tensor + 1


def case_sane_len(tensor, state):
    """BoolTest.test_sane_len"""
    self = Checks(state)
    for badval in ['illegal', -1, 1 << 32]:
        class A:
            def __len__(self):
                return badval
        try:
            bool(A())
        except (Exception) as e_bool:
            try:
                len(A())
            except (Exception) as e_len:
                self.assertEqual(str(e_bool), str(e_len))
    return tensor + 1


def case_blocked(tensor, state):
    """BoolTest.test_blocked"""
    self = Checks(state)
    class A:
        __bool__ = None
    self.assertRaises(TypeError, bool, A())

    class B:
        def __len__(self):
            return 10
        __bool__ = None
    self.assertRaises(TypeError, bool, B())
    return tensor + 1


def case_real_and_imag(tensor, state):
    """BoolTest.test_real_and_imag"""
    self = Checks(state)
    self.assertEqual(True.real, 1)
    self.assertEqual(True.imag, 0)
    self.assertIs(type(True.real), int)
    self.assertIs(type(True.imag), int)
    self.assertEqual(False.real, 0)
    self.assertEqual(False.imag, 0)
    self.assertIs(type(False.real), int)
    self.assertIs(type(False.imag), int)
    return tensor + 1


def case_bool_called_at_least_once(tensor, state):
    """BoolTest.test_bool_called_at_least_once"""
    self = Checks(state)
    class X:
        def __init__(self):
            self.count = 0
        def __bool__(self):
            self.count += 1
            return True

    def f(x):
        if x or True:
            pass

    x = X()
    f(x)
    self.assertGreaterEqual(x.count, 1)
    return tensor + 1


def case_bool_new(tensor, state):
    """BoolTest.test_bool_new"""
    self = Checks(state)
    self.assertIs(bool.__new__(bool), False)
    self.assertIs(bool.__new__(bool, 1), True)
    self.assertIs(bool.__new__(bool, 0), False)
    self.assertIs(bool.__new__(bool, False), False)
    self.assertIs(bool.__new__(bool, True), True)
    return tensor + 1


# -- over Tensors (not in CPython's file) ----------------------------------------------------------
def case_tensor_truth(tensor, state):
    """``bool`` of Tensors: one element converts, an empty or multi-element one raises; ``and``,
    ``or``, ``not`` and ``if`` on them as eagerly."""
    out = [bool(tensor[0]), bool(tensor[0] - tensor[0]), not tensor[1], tensor[0] and tensor[1],
           tensor[0] or 5, (tensor[0] * 0) or "zero"]
    for value in (tensor, tensor[0:0]):
        try:
            out.append(bool(value))
        except (ValueError, RuntimeError, TypeError) as e:
            out.append(type(e).__name__)
    if tensor[2] > 2:
        out.append(tensor[2] * 2)
    return out


NOT_PORTABLE = {
    'test_fileclosed': 'opens a file on disk (test.support.os_helper)',
}


@pytest.mark.parametrize("case", parametrize(globals()))
def test_bool_port(case):
    if not hasattr(case, "reason"):
        assert_eager_passes(case)
    check(case)
