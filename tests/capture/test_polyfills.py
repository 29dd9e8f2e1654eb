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
