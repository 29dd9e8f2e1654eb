"""Two capture bugs the cross-process warm-start suite found, tested in one process:

* tensor arguments that are one object: ``p is q`` and a write through one seen through the other
  behave as eagerly; which arguments alias is guarded both ways (an entry traced with distinct
  tensors is not used for aliased ones, nor the reverse);
* a Tensor method replaced by a user function (``Tensor.abs = ...``), or defined by a Tensor
  subclass, is traced as that function, and replacing it again is seen.
"""
import numpy as np

import capture
from capture.explain import recording
from runtime import Tensor, ops


def _pair():
    return Tensor(np.ones((2, 3), np.float32)), Tensor(np.full((2, 3), 5.0, np.float32))


def test_identity_of_aliased_tensor_arguments_is_kept_and_guarded():
    def f(p, q):
        return p * 2.0 if p is q else p - q

    a, b = _pair()
    jitted = capture.jit(f)
    for args in [(a, a), (a, b), (a, a), (b, a), (b, b), ([a, a][0], a)]:
        np.testing.assert_array_equal(jitted(*args).asnumpy(), f(*args).asnumpy())


def test_a_write_through_one_alias_is_seen_through_the_other():
    def f(p, q):
        q[0] = 7.0
        return p + 0.0

    for aliased in (False, True, False, True):
        eager_a, eager_b = _pair()
        want = f(eager_a, eager_a if aliased else eager_b).asnumpy()
        a, b = _pair()
        got = capture.jit(f)(a, a if aliased else b).asnumpy()
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(a.asnumpy(), eager_a.asnumpy())


def test_aliasing_inside_containers():
    def f(items):
        first, second = items
        return first + 1.0 if first is second else first - second

    a, b = _pair()
    jitted = capture.jit(f)
    for items in ([a, a], [a, b], (b, b)):
        np.testing.assert_array_equal(jitted(items).asnumpy(), f(items).asnumpy())


def test_a_monkeypatched_tensor_method_is_traced_and_repatching_is_seen():
    x = Tensor(np.array([-2.0, 3.0], np.float32))

    def f(v):
        return v.abs() + 1.0

    jitted = capture.jit(f)
    original = Tensor.abs
    try:
        Tensor.abs = lambda self: ops.square(self)
        np.testing.assert_array_equal(jitted(x).asnumpy(), [5.0, 10.0])
        Tensor.abs = lambda self: self * 10.0
        np.testing.assert_array_equal(jitted(x).asnumpy(), [-19.0, 31.0])
    finally:
        Tensor.abs = original
    np.testing.assert_array_equal(jitted(x).asnumpy(), [3.0, 4.0])


def test_a_tensor_subclass_method_is_traced():
    class Scaled(Tensor):
        def doubled(self):
            return self * 2.0

    x = Scaled(np.array([1.0, 2.0], np.float32))
    with recording() as report:
        out = capture.jit(lambda v: v.doubled() + 1.0)(x)
    assert not [b for b in report.breaks if b.internal]
    np.testing.assert_array_equal(out.asnumpy(), [3.0, 5.0])
