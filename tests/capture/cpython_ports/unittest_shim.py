"""Stand-ins that let CPython's ``unittest`` test bodies and doctests run as port cases (see
port_harness.py) with their text unchanged.

``Checks(state)`` replaces the test's ``self``: each assertion records what it compared (the values
and the outcome) in ``state["checks"]`` instead of raising, so the harness compares every compared
value between the eager run and the captured runs (the eager run of a correct CPython test records
only passing outcomes: :func:`assert_eager_passes`, called by each port's test before the
comparison, checks that, so CPython's test is still the oracle for eager). ``assertRaises`` /
``assertRaisesRegex`` (context manager or call form) record the exception's type and message; no
exception at all raises AssertionError as unittest does.
"""
from __future__ import annotations

import re


class _Raises:
    """``with self.assertRaises(E):`` / ``assertRaisesRegex(E, pattern)``."""

    def __init__(self, log, expected, regex=None):
        self.log = log
        self.expected = expected
        self.regex = regex
        self.exception = None

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            raise AssertionError(f"{self.expected.__name__} not raised")
        if not issubclass(exc_type, self.expected):
            return False
        self.exception = exc
        matched = None if self.regex is None else bool(re.search(self.regex, str(exc)))
        self.log.append(("raised", exc_type.__name__, str(exc), matched))
        return True


class _SubTest:
    def __init__(self, log, params):
        self.log = log
        self.params = params

    def __enter__(self):
        self.log.append(("subTest", self.params))
        return self

    def __exit__(self, exc_type, exc, tb):
        return False


class Checks:
    """The recording ``self`` of a ported ``unittest.TestCase`` method."""

    def __init__(self, state):
        self.log = state.setdefault("checks", [])

    def _record(self, kind, ok, *values):
        self.log.append((kind, bool(ok)) + values)

    def assertEqual(self, first, second, msg=None):
        self._record("Equal", first == second, first, second)

    assertListEqual = assertSequenceEqual = assertEqual

    def assertNotEqual(self, first, second, msg=None):
        self._record("NotEqual", first != second, first, second)

    def assertAlmostEqual(self, first, second, places=None, msg=None, delta=None):
        diff = abs(first - second)
        ok = first == second or (diff <= delta if delta is not None else round(diff, places or 7) == 0)
        self._record("AlmostEqual", ok, first, second)

    def assertIs(self, first, second, msg=None):
        self._record("Is", first is second, first, second)

    def assertIsNot(self, first, second, msg=None):
        self._record("IsNot", first is not second, first)

    def assertTrue(self, value, msg=None):
        self._record("True", value)

    def assertFalse(self, value, msg=None):
        self._record("False", not value)

    def assertIn(self, member, container, msg=None):
        self._record("In", member in container, member)

    def assertNotIn(self, member, container, msg=None):
        self._record("NotIn", member not in container, member)

    def assertIsInstance(self, obj, cls, msg=None):
        self._record("IsInstance", isinstance(obj, cls), cls)

    def assertNotIsInstance(self, obj, cls, msg=None):
        self._record("NotIsInstance", not isinstance(obj, cls), cls)

    def assertGreaterEqual(self, first, second, msg=None):
        self._record("GreaterEqual", first >= second, first, second)

    def fail(self, msg=None):
        raise AssertionError(msg)

    def subTest(self, msg=None, **params):
        return _SubTest(self.log, (msg, sorted(params.items())))

    def assertRaises(self, expected, *args, **kwargs):
        ctx = _Raises(self.log, expected)
        if not args:
            return ctx
        with ctx:
            args[0](*args[1:], **kwargs)
        return None

    def assertRaisesRegex(self, expected, regex, *args, **kwargs):
        ctx = _Raises(self.log, expected, regex)
        if not args:
            return ctx
        with ctx:
            args[0](*args[1:], **kwargs)
        return None


def failed_checks(state):
    """The recorded assertions that did not hold (an eager run of a CPython test has none)."""
    return [c for c in state.get("checks", ()) if c[0] not in ("raised", "subTest") and not c[1]]


def assert_eager_passes(case):
    """The CPython test itself, run eagerly: every recorded assertion holds and every
    ``assertRaisesRegex`` pattern matched (the port still checks what CPython's test checks)."""
    import numpy as np

    from runtime import Tensor
    state = {}
    case(Tensor(np.array([1.0, 2.0, 3.0], np.float32)), state)
    assert not failed_checks(state), f"{case.__name__}: eager run fails CPython's own checks: {failed_checks(state)}"
    unmatched = [c for c in state.get("checks", ()) if c[0] == "raised" and c[3] is False]
    assert not unmatched, f"{case.__name__}: exception message does not match: {unmatched}"
