"""``is`` between tuples, lists and dicts under capture equals eager (found by the CPython
test_patma / test_compare ports):

* a container the frame builds has one identity: ``d = {}; z = d; z is d`` (was False: each
  comparison realized fresh copies);
* a tuple read from outside the frame keeps its identity: two reads of ``K.T`` are one object,
  also after a graph break (the resumed code got a rebuilt copy), and the answer is guarded
  (an entry traced with that tuple is not used for an equal, distinct one);
* CPython's empty tuple is one object.
"""
import numpy as np

import capture
from runtime import Tensor


class Holder:
    T = (3, "a")
    L = [(3,), (4,)]


def _t():
    return Tensor(np.ones(3, np.float32))


def _same_as_eager(fn, *args):
    want = fn(_t(), *args)[0]
    got = capture.jit(fn)(_t(), *args)[0]
    assert got == want, (fn.__name__, got, want)
    return got


def test_frame_built_containers_are_identical_to_themselves():
    def f(t):
        d, l, tup = {}, [1], (t, 1)
        z, m, u = d, l, tup
        match d:
            case dict(w):
                pass
        return (z is d, m is l, u is tup, w is d, d is not {}, l is [1], (t,) is (t,)), t + 1  # noqa: F632
    assert _same_as_eager(f) == (True, True, True, True, True, False, False)


def test_empty_tuples_are_one_object():
    def f(t):
        a, b = (), tuple()
        return (a is b, a is (), tuple([]) is ()), t + 1  # noqa: F632
    assert _same_as_eager(f) == (True, True, True)


def test_outside_tuple_identity_across_a_graph_break():
    def f(t):
        a = Holder.T
        print("a graph break")
        out = [a is Holder.T]
        for item in Holder.L:
            print("a graph break")
            out.append(item is Holder.L[0])
        return out, t + 1
    assert _same_as_eager(f) == [True, True, False]


def test_identity_with_an_argument_tuple_is_guarded():
    def f(t, a):
        return a is Holder.T, t + 1
    jitted = capture.jit(f)
    other = tuple([3, "a"])  # equal to Holder.T, another object
    for arg in (Holder.T, other, Holder.T, other):
        assert jitted(_t(), arg)[0] == f(_t(), arg)[0]
