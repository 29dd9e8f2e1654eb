"""CPython ``Lib/test/test_itertools.py`` ported as capture-vs-eager differential cases (see
port_harness.py): the itertools the frame calls (chain and islice are traced through their
polyfills, the others run as Python runs them), the builtins zip/enumerate/map/filter/reversed
over generators and iterators, partial consumption and what is left afterwards."""
import itertools
import operator

import pytest

from port_harness import check, parametrize


def gen3():
    yield 1
    yield 2
    yield 3


def case_chain(x, state):
    """TestBasicOps.test_chain / test_chain_from_iterable."""
    return (list(itertools.chain("abc", "def")), list(itertools.chain("abc")), list(itertools.chain("")),
            list(itertools.chain(gen3(), [4])), list(itertools.chain.from_iterable(["abc", "def"])), x)


def case_chain_returned(x, state):
    """A chain object made by the frame and consumed by the caller."""
    return itertools.chain([1, 2], (3,)), x


def case_chain_partly_consumed(x, state):
    """A chain half consumed in the frame keeps the rest."""
    c = itertools.chain([1, 2], [3, 4])
    first = next(c)
    return first, list(c), x


def case_islice(x, state):
    """TestBasicOps.test_islice."""
    return (list(itertools.islice(range(100), 10, 20, 3)), list(itertools.islice(range(10), 5)),
            list(itertools.islice(gen3(), 1, None)), list(itertools.islice("abcdefg", 2, 6, 2)), x)


def case_islice_consumption(x, state):
    """test_islice: islice takes exactly the items it needs from the iterator."""
    it = iter(range(10))
    taken = list(itertools.islice(it, 3))
    return taken, list(it), x


def case_islice_errors(x, state):
    """test_islice: bad arguments."""
    out = []
    for args in ((-5,), (1, -5), (1, 5, 0), (-1,), ("a",), (1, 2 ** 70), (-1, 5), (0, 5, 2 ** 70)):
        try:
            itertools.islice(range(10), *args)
        except ValueError as e:
            out.append(str(e))
    return out, x


def case_accumulate(x, state):
    """test_accumulate."""
    return (list(itertools.accumulate(range(5))), list(itertools.accumulate([2, 8, 9, 5], max)),
            list(itertools.accumulate([1, 2, 3], operator.mul, initial=10)), x)


def case_count_cycle_repeat(x, state):
    """test_count / test_cycle / test_repeat (with islice / zip to bound them)."""
    return (list(zip("abc", itertools.count())), list(itertools.islice(itertools.cycle("ab"), 5)),
            list(itertools.repeat("a", 3)), list(zip(range(3), itertools.repeat(0))), x)


def case_compress_dropwhile_takewhile(x, state):
    """test_compress / test_dropwhile / test_takewhile / test_filterfalse."""
    return (list(itertools.compress("ABCDEF", [1, 0, 1, 0, 1, 1])),
            list(itertools.dropwhile(lambda v: v < 5, [1, 4, 6, 4, 1])),
            list(itertools.takewhile(lambda v: v < 5, [1, 4, 6, 4, 1])),
            list(itertools.filterfalse(lambda v: v % 2, range(10))), x)


def case_groupby(x, state):
    """test_groupby."""
    return [(k, list(g)) for k, g in itertools.groupby("AAAABBBCCDAABBB")], x


def case_product_permutations_combinations(x, state):
    """test_product / test_permutations / test_combinations / test_combinations_with_replacement."""
    return (list(itertools.product("ab", range(2))), list(itertools.permutations(range(3), 2)),
            list(itertools.combinations("abcd", 2)), list(itertools.combinations_with_replacement("ab", 2)), x)


def case_starmap_tee_pairwise(x, state):
    """test_starmap / test_tee / test_pairwise (3.10+) / test_zip_longest."""
    a, b = itertools.tee([1, 2, 3])
    return (list(itertools.starmap(pow, [(2, 5), (3, 2)])), list(a), list(b),
            list(itertools.pairwise("abcd")), list(itertools.zip_longest("ab", "xyz", fillvalue="-")), x)


def case_zip_over_generators(x, state):
    """test_zip (builtin) over generators: zip stops at the shortest, taking one more from the
    first."""
    g = gen3()
    pairs = list(zip(g, "ab"))
    return pairs, list(g), x


def case_enumerate_partly_consumed(x, state):
    """zip over enumerate partly consumed before a break (issue 33)."""
    it = zip(enumerate([1, 2, 3, 4]), "abcd")
    for a in it:
        if a[1] == "b":
            break
    return list(it), x


def case_map_filter_over_generator(x, state):
    """map/filter over a generator with side effects: items pulled one at a time."""
    log = []

    def g():
        for i in range(4):
            log.append(i)
            yield i
    m = map(lambda v: v * 10, g())
    first = next(m)
    seen = list(log)
    rest = list(filter(lambda v: v > 10, m))
    return first, seen, rest, log, x


def case_reversed_sorted(x, state):
    """reversed / sorted over the frame's containers."""
    return list(reversed([1, 2, 3])), sorted(gen3(), reverse=True), list(reversed(range(4))), x


def case_tensor_iteration(x, state):
    """itertools.chain over tensors, islice over a generator of tensors."""
    def steps(t):
        for i in range(5):
            yield t * i
    total = x
    for v in itertools.chain([x, x * 2], (x * 3,)):
        total = total + v
    for v in itertools.islice(steps(x), 1, 3):
        total = total + v
    return total


NOT_PORTABLE = {
    "test_*_pickling / test_copy / test_deepcopy (all itertools)": "pickling and copying of iterator objects",
    "TestGC / test_*_gc": "garbage collection of iterator cycles",
    "TestExamples / TestPurePythonRoughEquivalents": "module docstring recipes (doctest harness)",
    "test_StopIteration / test_*_reentrancy / test_tee_concurrent": "iterators raising or re-entered from inside "
                                                                   "(C-level robustness), threads",
    "test_sizeof / test_bug_*": "sys.getsizeof and crash regressions of the C implementation",
    "test_count_with_stride (huge ints / floats)": "big-number arithmetic of count(), not frame semantics",
}


@pytest.mark.parametrize("case", parametrize(globals()))
def test_itertools_port(case):
    check(case)
