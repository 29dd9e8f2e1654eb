"""itertools objects made inside a captured region (zip_longest, starmap, accumulate, product,
combinations, permutations, compress, dropwhile, takewhile, filterfalse, pairwise) are traced
through capture.polyfills with no graph break, as TorchDynamo traces them: the call-time work of
the original (its iterators, product's pools, argument errors) happens at the call, the items
lazily; an unstarted object that outlives the graph is the original's class, made by it."""
import itertools
import operator

import numpy as np
import pytest

import capture
from capture.explain import recording
from capture_helpers import check_like_eager
from runtime import Tensor, ops


def _t(rng, *shape):
    data = rng.standard_normal(shape).astype(np.float32)
    return lambda i: ((Tensor(data + i),), {})


def zip_longest_(x):
    return [a * b if b is not None else a for a, b in itertools.zip_longest([x, x + 1, x + 2], [2.0, 3.0])]


def zip_longest_fill(x):
    return list(itertools.zip_longest([x], (1, 2, 3), fillvalue=x * 0))


def starmap_(x):
    return list(itertools.starmap(operator.mul, [(x, 2.0), (x, x)]))


def accumulate_(x):
    return list(itertools.accumulate([x, x * 2, x * 3])), list(itertools.accumulate([1, 5, 2], max, initial=3))


def accumulate_tensor_func(x):
    return list(itertools.accumulate([x, ops.sin(x), ops.cos(x)], ops.maximum))


def product_(x):
    return [a * b for a, b in itertools.product([1.0, 2.0], [x, x + 1])], len(list(itertools.product("ab", repeat=2)))


def combinations_(x):
    return [a + b for a, b in itertools.combinations([x, x * 2, x * 3], 2)]


def permutations_(x):
    return [a - b for a, b in itertools.permutations([x, x * 2, 1.0], 2)]


def compress_filters_(x):
    items = [x, x + 1, x + 2, x + 3]
    return (list(itertools.compress(items, [1, 0, 1, 0])), list(itertools.dropwhile(lambda v: v < 2, [1, 2, 0])),
            list(itertools.takewhile(lambda v: v < 2, [1, 2, 0])), list(itertools.filterfalse(None, [0, 1, 2])))


def pairwise_(x):
    return [b - a for a, b in itertools.pairwise([x, x * 2, x * 4])]


def product_reads_its_generator_at_the_call(x):
    log = []

    def source():
        log.append("read")
        yield x
        yield x + 1

    p = itertools.product(source())
    log.append("made")
    return [v for (v,) in p], log


def generator_fed_lazily(x):
    log = []

    def source():
        for k in range(3):
            log.append(k)
            yield x * k

    out = []
    for a, b in itertools.zip_longest(source(), [1, 2]):
        out.append((a, b))
        log.append("body")
    return out, log


CASES = [zip_longest_, zip_longest_fill, starmap_, accumulate_, accumulate_tensor_func, product_, combinations_,
         permutations_, compress_filters_, pairwise_, product_reads_its_generator_at_the_call, generator_fed_lazily]


@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
def test_itertools_object_made_in_the_frame_traces_without_a_break(rng, fn):
    check_like_eager(fn, _t(rng, 3), breaks=0)


def test_errors_are_raised_at_the_call_as_python_raises_them(rng):
    def f(x):
        try:
            itertools.product([x], repeat=-1)
        except ValueError as e:
            return x + 1, str(e)

    check_like_eager(f, _t(rng, 2), breaks=0)


def test_an_unstarted_object_that_outlives_the_graph_is_the_originals(rng):
    def f(x):
        return x * 2, itertools.product([1, 2], "ab"), itertools.zip_longest([x], [1, 2])

    capture.reset()
    x = Tensor(np.ones(2, np.float32))
    with recording() as report:
        out = capture.jit(f)(x)
    assert not report.breaks
    assert type(out[1]) is itertools.product and list(out[1]) == list(itertools.product([1, 2], "ab"))
    assert type(out[2]) is itertools.zip_longest
    assert [(a is x, b) for a, b in out[2]] == [(True, 1), (False, 2)]


def test_a_started_object_that_outlives_the_graph_runs_eagerly(rng):
    def f(x):
        p = itertools.permutations([x, x + 1])
        first = next(p)
        return first, p

    capture.reset()
    x = Tensor(np.ones(2, np.float32))
    first, rest = capture.jit(f)(x)
    assert type(rest) is itertools.permutations
    assert len(list(rest)) == 1 and first[0] is x
