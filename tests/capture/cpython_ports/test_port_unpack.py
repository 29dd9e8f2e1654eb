"""CPython ``Lib/test/test_unpack.py`` (3.11) ported as capture-vs-eager differential cases (see
port_harness.py): unpacking assignment of tuples, lists, strings, sequences, iterators, with the
ValueError/TypeError messages of a wrong count or a non-iterable.

CPython's file is a doctest; ``case_doctests`` is its examples in order, as one function: an
expression example's repr is appended to ``shown`` (the interactive shell would print it; kept in
the state instead, so that displaying a value does not break the graph), an example whose expected
output is a traceback prints the exception's type and message, and the displayed values and every
printed line are compared between eager and captured runs (the eager run is CPython running the
doctest's own examples)."""

import pytest

from port_harness import check, parametrize


def case_doctests(tensor, state):
    """test_unpack.py doctests"""
    shown = state.setdefault("shown", [])  # the displayed values of expression examples
    # Unpack tuple
    t = (1, 2, 3)
    a, b, c = t
    shown.append(repr((a == 1 and b == 2 and c == 3)))
    # Unpack list
    l = [4, 5, 6]
    a, b, c = l
    shown.append(repr((a == 4 and b == 5 and c == 6)))
    # Unpack implied tuple
    a, b, c = 7, 8, 9
    shown.append(repr((a == 7 and b == 8 and c == 9)))
    # Unpack string... fun!
    a, b, c = 'one'
    shown.append(repr((a == 'o' and b == 'n' and c == 'e')))
    # Unpack generic sequence
    class Seq:
        def __getitem__(self, i):
            if i >= 0 and i < 3: return i  # noqa: E701
            raise IndexError
    a, b, c = Seq()
    shown.append(repr((a == 0 and b == 1 and c == 2)))
    # Single element unpacking, with extra syntax
    st = (99,)
    sl = [100]
    a, = st
    shown.append(repr((a)))
    b, = sl
    shown.append(repr((b)))
    # Now for some failures
    # Unpacking non-sequence
    try:
        a, b, c = 7
    except Exception as e:
        print(f'{type(e).__name__}: {e}')
    # Unpacking tuple of wrong size
    try:
        a, b = t
    except Exception as e:
        print(f'{type(e).__name__}: {e}')
    # Unpacking tuple of wrong size
    try:
        a, b = l
    except Exception as e:
        print(f'{type(e).__name__}: {e}')
    # Unpacking sequence too short
    try:
        a, b, c, d = Seq()
    except Exception as e:
        print(f'{type(e).__name__}: {e}')
    # Unpacking sequence too long
    try:
        a, b = Seq()
    except Exception as e:
        print(f'{type(e).__name__}: {e}')
    # Unpacking a sequence where the test for too long raises a different kind of
    # error
    class BozoError(Exception):
        pass
    class BadSeq:
        def __getitem__(self, i):
            if i >= 0 and i < 3:
                return i
            elif i == 3:
                raise BozoError
            else:
                raise IndexError
    # Trigger code while not expecting an IndexError (unpack sequence too long, wrong
    # error)
    try:
        a, b, c, d, e = BadSeq()
    except Exception as e:
        print(f'{type(e).__name__}: {e}')
    # Trigger code while expecting an IndexError (unpack sequence too short, wrong
    # error)
    try:
        a, b, c = BadSeq()
    except Exception as e:
        print(f'{type(e).__name__}: {e}')
    # Allow unpacking empty iterables
    () = []
    [] = ()
    [] = []
    () = ()
    # Unpacking non-iterables should raise TypeError
    try:
        () = 42
    except Exception as e:
        print(f'{type(e).__name__}: {e}')
    # Unpacking to an empty iterable should raise ValueError
    try:
        () = [42]
    except Exception as e:
        print(f'{type(e).__name__}: {e}')
    return tensor + 1




@pytest.mark.parametrize("case", parametrize(globals()))
def test_unpack_port(case):
    check(case)
