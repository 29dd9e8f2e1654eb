"""The polyfills traced in place of C helpers behave exactly like the originals: same items, same
items pulled from the source iterator, same errors."""
import functools
import itertools
import operator

import pytest

from capture import polyfills


@pytest.mark.parametrize("args", [(3,), (1, 3), (0, None, 2), (2, None), (0, 0), (5, 2), (0, 5, 3), (1, 9, 4),
                                  (0, 20, 3), (None,), (None, 4)])
@pytest.mark.parametrize("n", [0, 3, 10])
def test_islice(args, n):
    mine, theirs = iter(range(n)), iter(range(n))
    assert list(polyfills.islice(mine, *args)) == list(itertools.islice(theirs, *args))
    assert list(mine) == list(theirs)  # the same items were consumed


@pytest.mark.parametrize("args", [(-1,), (1, 2, 0), ("a",), (1, -2)])
def test_islice_errors(args):
    with pytest.raises(ValueError) as want:
        list(itertools.islice(range(3), *args))
    with pytest.raises(ValueError) as got:
        list(polyfills.islice(range(3), *args))
    assert str(got.value) == str(want.value)


def test_chain_and_reduce():
    assert list(polyfills.chain([1], (2, 3), "ab")) == list(itertools.chain([1], (2, 3), "ab"))
    assert polyfills.reduce(operator.sub, [10, 1, 2]) == functools.reduce(operator.sub, [10, 1, 2])
    assert polyfills.reduce(operator.add, [], 7) == 7
    with pytest.raises(TypeError, match="empty iterable with no initial value"):
        polyfills.reduce(operator.add, [])


# -- itertools classes with call-time work (polyfills.CALL_PREPARES) ----------------------------------
def _made(original, *args, **kwargs):
    """The items of the polyfill made as capture makes it: the call-time part, then the generator."""
    prepare = polyfills.CALL_PREPARES[original]
    pargs, pkwargs = prepare(*args, **kwargs)
    mine = list(polyfills.POLYFILLS[original](*pargs, **pkwargs))
    pargs, pkwargs = prepare(*args, **kwargs)
    return mine, list(original(*pargs, **pkwargs))


ITERTOOLS_CASES = [
    (itertools.zip_longest, ([1, 2, 3], "ab", (True,)), {}),
    (itertools.zip_longest, ([1, 2], [3]), {"fillvalue": 0}),
    (itertools.zip_longest, (), {}),
    (itertools.zip_longest, ([], []), {}),
    (itertools.starmap, (pow, [(2, 3), (3, 2)]), {}),
    (itertools.accumulate, ([1, 2, 3, 4],), {}),
    (itertools.accumulate, ([1, 2, 3],), {"initial": 10}),
    (itertools.accumulate, ([3, 1, 4],), {"func": max}),
    (itertools.accumulate, ([],), {}),
    (itertools.accumulate, ([],), {"initial": 5}),
    (itertools.product, ("ab", range(3)), {}),
    (itertools.product, ([0, 1],), {"repeat": 3}),
    (itertools.product, ("ab", []), {}),
    (itertools.product, (), {}),
    (itertools.combinations, ("abcd", 2), {}),
    (itertools.combinations, (range(4), 0), {}),
    (itertools.combinations, (range(2), 3), {}),
    (itertools.permutations, ("abc",), {}),
    (itertools.permutations, (range(4), 2), {}),
    (itertools.permutations, (range(2), 3), {}),
    (itertools.permutations, ([],), {}),
    (itertools.compress, ("abcdef", [1, 0, 1, 0, 1, 1]), {}),
    (itertools.dropwhile, (lambda v: v < 3, [1, 2, 3, 1, 5]), {}),
    (itertools.takewhile, (lambda v: v < 3, [1, 2, 3, 1, 5]), {}),
    (itertools.filterfalse, (None, [0, 1, "", "a", None]), {}),
    (itertools.filterfalse, (lambda v: v % 2, range(7)), {}),
    (itertools.pairwise, ("abcd",), {}),
    (itertools.pairwise, ("a",), {}),
]


@pytest.mark.parametrize("case", ITERTOOLS_CASES, ids=lambda c: f"{c[0].__name__}{c[1]!r:.30}{c[2]}")
def test_itertools_polyfills_give_the_originals_items(case):
    original, args, kwargs = case
    want = list(original(*args, **kwargs))
    mine, remade = _made(original, *args, **kwargs)
    assert mine == want
    assert remade == want  # the prepared arguments are valid arguments of the original


@pytest.mark.parametrize("original, args, kwargs", [
    (itertools.zip_longest, ([1], 5), {}), (itertools.starmap, (pow, 5), {}), (itertools.accumulate, (5,), {}),
    (itertools.product, ([1], 5), {}), (itertools.product, ([1],), {"repeat": -1}),
    (itertools.combinations, ([1], -1), {}), (itertools.permutations, ([1], -2), {}),
    (itertools.combinations, ([1], 1.5), {}), (itertools.pairwise, (3,), {}), (itertools.compress, ([1], 2), {}),
])
def test_itertools_polyfills_raise_the_originals_errors_at_the_call(original, args, kwargs):
    with pytest.raises(Exception) as want:
        original(*args, **kwargs)
    with pytest.raises(Exception) as got:
        polyfills.CALL_PREPARES[original](*args, **kwargs)
    assert type(got.value) is type(want.value) and str(got.value) == str(want.value)


def test_product_and_zip_longest_take_their_iterables_at_the_call():
    """``product`` reads every pool when called; ``zip_longest`` takes iterators then (a later
    change to a list it iterates is seen, as CPython's list iterator sees it)."""
    def source():
        yield from (1, 2)

    gen = source()
    pools, _ = polyfills.product_call(gen)
    assert list(gen) == [] and pools == ((1, 2),)
    items = [1]
    (iterator,), _ = polyfills.zip_longest_call(items)
    items.append(2)
    assert list(polyfills.zip_longest(iterator)) == [(1,), (2,)]


@pytest.mark.parametrize("args", [("abca",), ([1, 2], 0), (range(3), [])])
def test_dict_fromkeys(args):
    got, want = polyfills.dict_fromkeys(*args), dict.fromkeys(*args)
    assert got == want and list(got) == list(want)
    for bad in ((5,), ([[1]],)):
        with pytest.raises(TypeError) as e_want:
            dict.fromkeys(*bad)
        with pytest.raises(TypeError) as e_got:
            polyfills.dict_fromkeys(*bad)
        assert str(e_got.value) == str(e_want.value)


def test_islice_takes_its_iterator_at_the_call():
    """CPython's islice calls iter() when made (a later append to the list is still seen, and a
    non-iterable fails at the call): the prepared arguments carry that iterator."""
    items = [1]
    (iterator, stop), _ = polyfills.islice_call(items, 3)
    items.append(2)
    assert list(polyfills.islice(iterator, stop)) == [1, 2]
    with pytest.raises(TypeError, match="not iterable"):
        polyfills.islice_call(5, 3)
