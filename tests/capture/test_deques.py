"""``collections.deque`` and ``defaultdict`` made inside a captured region: traced with no graph break (as TorchDynamo
traces it), every method doing what CPython's deque does, bounded deques included; one that
outlives the graph is a real deque."""
import collections

import numpy as np
import pytest

import capture
from capture.explain import recording
from capture_helpers import check_like_eager
from runtime import Tensor


def _t(rng, *shape):
    data = rng.standard_normal(shape).astype(np.float32)
    return lambda i: ((Tensor(data + i),), {})


def many_methods(a):
    b = a * 2
    d = collections.deque([a, b])
    d.append(a + 1)
    d.extend([a, b])
    d.insert(0, "foo")
    tmp = d.pop()
    another = collections.deque([tmp])
    d.extendleft(another)
    another.clear()
    d.extend(another)
    d[2] = "setitem"
    d = d.copy()
    d.append(d.popleft())
    d.rotate(2)
    d.rotate(-1)
    d.reverse()
    return list(d), len(d), bool(another), d[0], d[-1]


def bounded(a):
    d = collections.deque(maxlen=3)
    for k in range(5):
        d.append(a * k)
    d.appendleft(a - 1)
    e = collections.deque([1, 2, 3], 2)
    e.extendleft([7, 8])
    z = collections.deque([a], maxlen=0)
    z.append(a)
    return list(d), d.maxlen, list(e), len(z)


def constants(a):
    d = collections.deque([3, 1, 3, 2])
    d.remove(3)
    return a * d.count(3), d.index(2), list(d)


def returned(a):
    d = collections.deque([a, a + 1], maxlen=4)
    d.append(a + 2)
    return d


def errors(a):
    out = []
    for make in (lambda: collections.deque().pop(), lambda: collections.deque([1], 1).insert(0, 2),
                 lambda: collections.deque([1])[5], lambda: collections.deque([1, 2])["x"],
                 lambda: collections.deque([], -1)):
        try:
            make()
        except (IndexError, TypeError, ValueError) as e:
            out.append((type(e).__name__, str(e)))
    return a + len(out), out


@pytest.mark.parametrize("fn", [many_methods, bounded, constants, errors], ids=lambda f: f.__name__)
def test_deque_made_in_the_frame_matches_eager(rng, fn):
    check_like_eager(fn, _t(rng, 2), breaks=0)


def test_a_deque_that_outlives_the_graph_is_a_deque(rng):
    capture.reset()
    x = Tensor(np.ones(2, np.float32))
    with recording() as report:
        d = capture.jit(returned)(x)
    assert not report.breaks
    assert type(d) is collections.deque and d.maxlen == 4 and len(d) == 3 and d[0] is x
    np.testing.assert_array_equal(d[2].asnumpy(), [3.0, 3.0])


# -- collections.defaultdict made in the frame -----------------------------------------------------------
def defaultdicts(a):
    dd = collections.defaultdict(list)
    dd["a"].append(a + 1)
    dd["b"] += [a]
    counts = collections.defaultdict(int, {"z": 2})
    counts["q"] += 3
    lazy = collections.defaultdict(lambda: a * 5)
    v = lazy["k"]
    plain = collections.defaultdict(None, x=1)
    try:
        plain["missing"]
    except KeyError as e:
        missing = repr(e)
    return (dd["a"][0] + dd["b"][0], sorted(dict(dd)), dict(counts), v, "k" in lazy, dd.get("nope"),
            isinstance(dd, collections.defaultdict), dd.default_factory is list, missing)


def defaultdict_errors(a):
    try:
        collections.defaultdict(3)
    except TypeError as e:
        return a, str(e)


@pytest.mark.parametrize("fn", [defaultdicts, defaultdict_errors], ids=lambda f: f.__name__)
def test_defaultdict_made_in_the_frame_matches_eager(rng, fn):
    check_like_eager(fn, _t(rng, 2), breaks=0)


def test_a_defaultdict_that_outlives_the_graph_keeps_its_factory(rng):
    def f(x):
        dd = collections.defaultdict(list)
        dd["a"].append(x)
        return dd

    capture.reset()
    x = Tensor(np.ones(2, np.float32))
    with recording() as report:
        dd = capture.jit(f)(x)
    assert not report.breaks
    assert type(dd) is collections.defaultdict and dd.default_factory is list and dd["a"][0] is x
    assert dd["new"] == []
