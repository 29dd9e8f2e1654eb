"""CPython ``Lib/test/test_unpack_ex.py`` (3.11) ported as capture-vs-eager differential cases (see
port_harness.py): extended (starred) unpacking in assignments, displays and calls, with its errors.

CPython's file is a doctest; ``case_doctests`` is its examples in order, as one function: an
expression example's repr is appended to ``shown`` (the interactive shell would print it; kept in
the state instead, so that displaying a value does not break the graph), an example whose expected
output is a traceback prints the exception's type and message, and the displayed values and every
printed line are compared between eager and captured runs (the eager run is CPython running the
doctest's own examples)."""
from collections.abc import MutableMapping  # (the doctest imports it)
import pytest

from port_harness import check, parametrize


def case_doctests(tensor, state):
    """test_unpack_ex.py doctests"""
    shown = state.setdefault("shown", [])  # the displayed values of expression examples
    # Unpack tuple
    t = (1, 2, 3)
    a, *b, c = t
    shown.append(repr((a == 1 and b == [2] and c == 3)))
    # Unpack list
    l = [4, 5, 6]
    a, *b = l
    shown.append(repr((a == 4 and b == [5, 6])))
    # Unpack implied tuple
    *a, = 7, 8, 9
    shown.append(repr((a == [7, 8, 9])))
    # Unpack string... fun!
    a, *b = 'one'
    shown.append(repr((a == 'o' and b == ['n', 'e'])))
    # Unpack long sequence
    a, b, c, *d, e, f, g = range(10)
    shown.append(repr(((a, b, c, d, e, f, g) == (0, 1, 2, [3, 4, 5, 6], 7, 8, 9))))
    # Unpack short sequence
    a, *b, c = (1, 2)
    shown.append(repr((a == 1 and c == 2 and b == [])))
    # Unpack generic sequence
    class Seq:
        def __getitem__(self, i):
            if i >= 0 and i < 3: return i  # noqa: E701
            raise IndexError
    a, *b = Seq()
    shown.append(repr((a == 0 and b == [1, 2])))
    # Unpack in for statement
    for a, *b, c in [(1,2,3), (4,5,6,7)]:
        print(a, b, c)
    # Unpack in list
    [a, *b, c] = range(5)
    shown.append(repr((a == 0 and b == [1, 2, 3] and c == 4)))
    # Multiple targets
    a, *b, c = *d, e = range(5)
    shown.append(repr((a == 0 and b == [1, 2, 3] and c == 4 and d == [0, 1, 2, 3] and e == 4)))
    # Assignment unpacking
    a, b, *c = range(5)
    shown.append(repr((a, b, c)))
    *a, b, c = a, b, *c
    shown.append(repr((a, b, c)))
    # Set display element unpacking
    a = [1, 2, 3]
    shown.append(repr((sorted({1, *a, 0, 4}))))
    try:
        shown.append(repr(({1, *1, 0, 4})))
    except Exception as e:
        print(f'{type(e).__name__}: {e}')
    # Dict display element unpacking
    kwds = {'z': 0, 'w': 12}
    shown.append(repr((sorted({'x': 1, 'y': 2, **kwds}.items()))))
    shown.append(repr((sorted({**{'x': 1}, 'y': 2, **{'z': 3}}.items()))))
    shown.append(repr((sorted({**{'x': 1}, 'y': 2, **{'x': 3}}.items()))))
    shown.append(repr((sorted({**{'x': 1}, **{'x': 3}, 'x': 4}.items()))))
    shown.append(repr(({**{}})))
    a = {}
    {**a}[0] = 1
    shown.append(repr((a)))
    try:
        shown.append(repr(({**1})))
    except Exception as e:
        print(f'{type(e).__name__}: {e}')
    try:
        shown.append(repr(({**[]})))
    except Exception as e:
        print(f'{type(e).__name__}: {e}')
    # not ported (a SyntaxError at compile time, or eval/compile of source text): len(eval("{" + ", ".join("**{{{}: {}}}".format(i, i)
    shown.append(repr(({0:1, **{0:2}, 0:3, 0:4})))  # noqa: F601
    # List comprehension element unpacking
    a, b, c = [0, 1, 2], 3, 4
    shown.append(repr(([*a, b, c])))
    l = [a, (3, 4), {5}, {6: None}, (i for i in range(7, 10))]
    # not ported (a SyntaxError at compile time, or eval/compile of source text): [*item for item in l]
    # not ported (a SyntaxError at compile time, or eval/compile of source text): [*[0, 1] for i in range(10)]
    # not ported (a SyntaxError at compile time, or eval/compile of source text): [*'a' for i in range(10)]
    # not ported (a SyntaxError at compile time, or eval/compile of source text): [*[] for i in range(10)]
    # not ported (a SyntaxError at compile time, or eval/compile of source text): {**{} for a in [1]}
    # # Pegen is better here.
    # # Generator expression in function arguments
    # #     >>> list(*x for x in (range(5) for i in range(3)))
    # #     Traceback (most recent call last):
    # #     ...
    # #         list(*x for x in (range(5) for i in range(3)))
    # #                   ^
    # #     SyntaxError: invalid syntax
    # not ported (a SyntaxError at compile time, or eval/compile of source text): dict(**x for x in [{1:2}])
    # Iterable argument unpacking
    shown.append(repr((print(*[1], *[2], 3))))
    # Make sure that they don't corrupt the passed-in dicts.
    def f(x, y):
        print(x, y)
    original_dict = {'x': 1}
    shown.append(repr((f(**original_dict, y=2))))
    shown.append(repr((original_dict)))
    # Now for some failures
    # Make sure the raised errors are right for keyword argument unpackings
    # not ported (a SyntaxError at compile time, or eval/compile of source text): from collections.abc import MutableMapping
    class CrazyDict(MutableMapping):
        def __init__(self):
            self.d = {}

        def __iter__(self):
            for x in self.d.__iter__():
                if x == 'c':
                    self.d['z'] = 10
                yield x

        def __getitem__(self, k):
            return self.d[k]

        def __len__(self):
            return len(self.d)

        def __setitem__(self, k, v):
            self.d[k] = v

        def __delitem__(self, k):
            del self.d[k]
    d = CrazyDict()
    d.d = {chr(ord('a') + x): x for x in range(5)}
    try:
        e = {**d}
    except Exception as e:
        print(f'{type(e).__name__}: {e}')
    d.d = {chr(ord('a') + x): x for x in range(5)}
    def f(**kwargs): print(kwargs)
    try:
        shown.append(repr((f(**d))))
    except Exception as e:
        print(f'{type(e).__name__}: {e}')
    # Overridden parameters
    try:
        shown.append(repr((f(x=5, **{'x': 3}, y=2))))
    except Exception as e:
        print(f'{type(e).__name__}: {e}')
    try:
        shown.append(repr((f(**{'x': 3}, x=5, y=2))))
    except Exception as e:
        print(f'{type(e).__name__}: {e}')
    try:
        shown.append(repr((f(**{'x': 3}, **{'x': 5}, y=2))))
    except Exception as e:
        print(f'{type(e).__name__}: {e}')
    try:
        shown.append(repr((f(x=5, **{'x': 3}, **{'x': 2}))))
    except Exception as e:
        print(f'{type(e).__name__}: {e}')
    try:
        shown.append(repr((f(**{1: 3}, **{1: 5}))))
    except Exception as e:
        print(f'{type(e).__name__}: {e}')
    # Unpacking non-sequence
    try:
        a, *b = 7
    except Exception as e:
        print(f'{type(e).__name__}: {e}')
    # Unpacking sequence too short
    try:
        a, *b, c, d, e = Seq()
    except Exception as e:
        print(f'{type(e).__name__}: {e}')
    # Unpacking sequence too short and target appears last
    try:
        a, b, c, d, *e = Seq()
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
        a, *b, c, d, e = BadSeq()
    except Exception as e:
        print(f'{type(e).__name__}: {e}')
    # Now some general starred expressions (all fail).
    # not ported (a SyntaxError at compile time, or eval/compile of source text): a, *b, c, *d, e = range(10) # doctest:+ELLIPSIS
    # not ported (a SyntaxError at compile time, or eval/compile of source text): [*b, *c] = range(10) # doctest:+ELLIPSIS
    # not ported (a SyntaxError at compile time, or eval/compile of source text): a,*b,*c,*d = range(4) # doctest:+ELLIPSIS
    # not ported (a SyntaxError at compile time, or eval/compile of source text): *a = range(10) # doctest:+ELLIPSIS
    # not ported (a SyntaxError at compile time, or eval/compile of source text): *a # doctest:+ELLIPSIS
    # not ported (a SyntaxError at compile time, or eval/compile of source text): *1 # doctest:+ELLIPSIS
    # not ported (a SyntaxError at compile time, or eval/compile of source text): x = *a # doctest:+ELLIPSIS
    # not ported (a SyntaxError at compile time, or eval/compile of source text): (*x),y = 1, 2 # doctest:+ELLIPSIS
    # not ported (a SyntaxError at compile time, or eval/compile of source text): (((*x))),y = 1, 2 # doctest:+ELLIPSIS
    # not ported (a SyntaxError at compile time, or eval/compile of source text): z,(*x),y = 1, 2, 4 # doctest:+ELLIPSIS
    # not ported (a SyntaxError at compile time, or eval/compile of source text): z,(*x) = 1, 2 # doctest:+ELLIPSIS
    # not ported (a SyntaxError at compile time, or eval/compile of source text): ((*x),y) = 1, 2 # doctest:+ELLIPSIS
    # Some size constraints (all fail.)
    s = ", ".join("a%d" % i for i in range(1<<8)) + ", *rest = range(1<<8 + 1)"
    # not ported (a SyntaxError at compile time, or eval/compile of source text): compile(s, 'test', 'exec') # doctest:+ELLIPSIS
    s = ", ".join("a%d" % i for i in range(1<<8 + 1)) + ", *rest = range(1<<8 + 2)"
    # not ported (a SyntaxError at compile time, or eval/compile of source text): compile(s, 'test', 'exec') # doctest:+ELLIPSIS
    # (there is an additional limit, on the number of expressions after the
    # '*rest', but it's 1<<24 and testing it takes too much memory.)
    return tensor + 1




# -- over Tensors (not in CPython's file) ----------------------------------------------------------
def case_tensor_unpacking(tensor, state):
    """Starred unpacking of Tensors and of containers of Tensors, starred calls and displays."""
    a, *rest = tensor
    *init, last = [tensor, tensor * 2, tensor * 3]
    (p, q), *_ = [(tensor, 1), (2, 3)]
    merged = [*init, *tensor, last]
    kw = {**{"a": tensor}, "b": last}

    def f(*args, **kwargs):
        return len(args), sorted(kwargs), args[-1]
    try:
        x, y = tensor
        err = None
    except ValueError as e:
        err = str(e)
    return a, rest, init, last, p, q, merged, kw, f(*rest, *init, **kw), err


@pytest.mark.parametrize("case", parametrize(globals()))
def test_unpack_ex_port(case):
    check(case)
