"""Generators, dict views, ``__dict__`` and the smaller differences of issue 33, under capture:
results equal eager (PyNative) and the graph-break counts of the generator constructs match
TorchDynamo's (``test/dynamo/test_generator.py``, faithful generator behaviour: ``next()``,
generator expressions, ``send``, ``yield from`` and a returned unstarted generator trace with
``fullgraph=True``, i.e. 0 breaks)."""
import functools
import types

import numpy as np
import pytest

import capture
import runtime as ms
from capture.explain import recording
from capture_helpers import assert_same
from runtime import Tensor, nn, ops


def _x():
    return Tensor(np.array([1.0, 2.0, 3.0], np.float32))


def _breaks(fn, *args):
    """(result, number of graph breaks) of one captured call."""
    capture.reset()
    with recording() as report:
        out = capture.jit(fn)(*args)
    assert not [b for b in report.breaks if b.internal], report.breaks
    return out, len(report.break_reasons)


def whoo():
    yield 1
    yield 2


def steps(t, n):
    for i in range(n):
        yield t * (i + 1)


def double():
    v = yield
    yield v * 2


def inner(t):
    yield t + 1
    return t * 3


def outer(t):
    r = yield from inner(t)
    yield r


def f_next(x):
    g = steps(x, 3)
    return next(g) + next(g)


def f_genexp(x):
    return sum((x * c for c in (0.5, 1.5)), x)


def f_for(x):
    total = x
    for v in steps(x, 3):
        total = total + v
    return total


def f_send(x):
    g = double()
    next(g)
    return g.send(x)


def f_yield_from(x):
    return list(outer(x))


def f_return_unstarted(x):
    return x + 1, whoo()


def f_isinstance(x):
    return x * 2, isinstance(whoo(), types.GeneratorType), type(v for v in range(2)).__name__


#: construct -> (function, TorchDynamo's break count with faithful generators, ours)
BREAKS = {
    "next() on a generator": (f_next, 0),
    "generator expression consumed by sum": (f_genexp, 0),
    "for over a generator": (f_for, 0),
    "send() into a generator": (f_send, 0),
    "yield from (and its return value)": (f_yield_from, 0),
    "returned unstarted generator": (f_return_unstarted, 0),
    "isinstance(g, GeneratorType) / type(genexp)": (f_isinstance, 0),
}


@pytest.mark.parametrize("construct", list(BREAKS))
def test_generator_constructs_break_like_dynamo(construct):
    fn, dynamo_breaks = BREAKS[construct]
    want = fn(_x())
    got, breaks = _breaks(fn, _x())
    if isinstance(want, tuple) and isinstance(want[-1], types.GeneratorType):
        assert isinstance(got[-1], types.GeneratorType)
        assert list(got[-1]) == list(want[-1])
        got, want = got[:-1], want[:-1]
    assert_same(got, want)
    assert breaks == dynamo_breaks, construct


def test_returned_generator_is_real_and_lazy():
    n = 0

    def counted():
        nonlocal n
        for i in range(5):
            n += 1
            yield i

    def f(x):
        g = counted()
        return x + 1, g, n

    capture.reset()
    out, g, seen = ms.jit(f)(_x())
    assert isinstance(g, types.GeneratorType) and seen == 0 and n == 0  # nothing ran yet
    assert next(g) == 0 and n == 1
    g.close()


def test_started_generator_escaping_runs_the_frame_eagerly_not_as_another_iterator():
    def f(x):
        g = whoo()
        next(g)
        return x, g

    capture.reset()
    _, g = ms.jit(f)(_x())
    assert isinstance(g, types.GeneratorType)
    assert list(g) == [2]
    assert g.send is not None and g.throw is not None


def test_close_and_throw_on_frame_generators():
    def f(x):
        g = whoo()
        first = next(g)
        g.close()
        return x * first, list(g)

    assert_same(ms.jit(f)(_x()), f(_x()))


def test_dict_views_are_views():
    def f(x):
        d = {"a": 1, "b": 2}
        k = d.keys()
        d["c"] = 3
        return x, k & {"a", "c"}, type(d.items()).__name__, k.mapping["c"], d.values()

    capture.reset()
    got, want = ms.jit(f)(_x()), f(_x())
    assert got[1:4] == want[1:4]
    assert type(got[4]) is type(want[4]) and list(got[4]) == list(want[4])


class Obj:
    def __init__(self):
        self.a = 1


def test_dict_of_object_sees_attribute_writes():
    def f(x, o):
        o.c = 3
        return dict(o.__dict__), x

    capture.reset()
    jf = ms.jit(f)
    for _ in range(2):
        o1, o2 = Obj(), Obj()
        assert jf(_x(), o1)[0] == f(_x(), o2)[0] == {"a": 1, "c": 3}
        assert vars(o1) == vars(o2)


def test_cell_dict_write_in_construct_keeps_next_call_working():
    class C(nn.Cell):
        def __init__(self):
            super().__init__()
            self.a = 1

        def construct(self, x):
            self.__dict__["a"] = 10
            return x * self.a

    c = C()
    capture.reset()
    jc = ms.jit(c)
    first, second = jc(_x()), jc(_x())
    assert_same(first, _x() * 10)
    assert_same(second, _x() * 10)
    assert c.a == 10


def test_partial_as_dict_key_and_update_arity():
    outside = functools.partial(min, 3)

    def f(x):
        p = functools.partial(max, 1)
        d = {p: "here", outside: "outside"}
        return x, d[p], d[outside]

    assert ms.jit(f)(_x())[1:] == ("here", "outside")

    def g(x):
        {}.update({}, {})
        return x

    with pytest.raises(TypeError, match="at most 1 argument"):
        ms.jit(g)(_x())


def test_set_seed_inside_jit_takes_effect_on_every_call():
    def f(x):
        ms.set_seed(123)
        return ops.randn(3) + x

    want = f(_x())
    capture.reset()
    jf = ms.jit(f)
    assert_same(jf(_x()), want)
    assert_same(jf(_x()), want)


# -- a started generator that escapes the frame: a graph up to its first start, then Python ---------
def _logging_steps(t, log):
    log.append("start")
    yield t + 1
    log.append("mid")
    yield t * 3


def _escaping_started(x):
    log = []
    y = ops.sin(x) * 2
    it = _logging_steps(y, log)
    first = next(it)
    return y + first, it, log


def _advance(it):
    return next(it)


def _escaping_started_in_a_callee(x):
    def g(t):
        yield t + 1
        yield t * 3
    y = ops.cos(x)
    it = g(y)
    z = _advance(it) * 2
    return z + y, it


@pytest.mark.parametrize("fn", [_escaping_started, _escaping_started_in_a_callee])
def test_a_started_generator_that_escapes_keeps_a_graph_before_its_start(fn):
    want = fn(_x())
    capture.reset()
    jitted = capture.jit(fn)
    with recording() as report:
        got = jitted(_x())
    assert not [b for b in report.breaks if b.internal], report.breaks
    assert report.graph_count >= 1, report.break_reasons  # (was: the whole frame ran eagerly)
    pairs = [(want, got)] + [(fn(_x()), jitted(_x())) for _ in range(3)]  # (calls made again: the resume)
    for want_, got_ in pairs:
        assert isinstance(got_[1], types.GeneratorType)
        assert_same(got_[0], want_[0])
        assert_same(next(got_[1]), next(want_[1]))
        assert list(got_[1]) == list(want_[1]) == []
        if len(want_) > 2:
            assert got_[2] == want_[2] == ["start", "mid"]
