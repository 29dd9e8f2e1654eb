"""CPython ``Lib/test/test_extcall.py`` (3.11) ported as capture-vs-eager differential cases (see
port_harness.py): calls with *args and **kwargs: argument binding, duplicate and unexpected
keywords, non-iterable/non-mapping star arguments, and the TypeError messages.

CPython's file is a doctest; ``case_doctests`` is its examples in order, as one function: an
expression example's repr is appended to ``shown`` (the interactive shell would print it; kept in
the state instead, so that displaying a value does not break the graph), an example whose expected
output is a traceback prints the exception's type and message, and the displayed values and every
printed line are compared between eager and captured runs (the eager run is CPython running the
doctest's own examples)."""
from collections import UserDict, UserList  # (the doctest imports them)
from collections.abc import Mapping

import pytest

from port_harness import check, parametrize


class support:
    """The one helper of test.support the doctest uses."""

    @staticmethod
    def sortdict(dict):  # noqa: A002 -- CPython's text
        "Like repr(dict), but in sorted order."
        items = sorted(dict.items())
        reprpairs = ["%r: %r" % pair for pair in items]
        withcommas = ", ".join(reprpairs)
        return "{%s}" % withcommas


def case_doctests(tensor, state):
    """test_extcall.py doctests"""
    shown = state.setdefault("shown", [])  # the displayed values of expression examples
    # Doctest for method/function calls.
    # We're going the use these types for extra testing
    # not ported (an import: done at module level here): from collections import UserList
    # not ported (an import: done at module level here): from collections import UserDict
    # We're defining four helper functions
    def e(a,b):
        print(a, b)
    def f(*a, **k):
        print(a, support.sortdict(k))
    def g(x, *y, **z):
        print(x, y, support.sortdict(z))
    def h(j=1, a=2, h=3):
        print(j, a, h)
    # Argument list examples
    shown.append(repr((f())))
    shown.append(repr((f(1))))
    shown.append(repr((f(1, 2))))
    shown.append(repr((f(1, 2, 3))))
    shown.append(repr((f(1, 2, 3, *(4, 5)))))
    shown.append(repr((f(1, 2, 3, *[4, 5]))))
    shown.append(repr((f(*[1, 2, 3], 4, 5))))
    shown.append(repr((f(1, 2, 3, *UserList([4, 5])))))
    shown.append(repr((f(1, 2, 3, *[4, 5], *[6, 7]))))
    shown.append(repr((f(1, *[2, 3], 4, *[5, 6], 7))))
    shown.append(repr((f(*UserList([1, 2]), *UserList([3, 4]), 5, *UserList([6, 7])))))
    # Here we add keyword arguments
    shown.append(repr((f(1, 2, 3, **{'a':4, 'b':5}))))
    try:
        shown.append(repr((f(1, 2, **{'a': -1, 'b': 5}, **{'a': 4, 'c': 6}))))
    except Exception as e:
        print(f'{type(e).__name__}: {e}')
    try:
        shown.append(repr((f(1, 2, **{'a': -1, 'b': 5}, a=4, c=6))))
    except Exception as e:
        print(f'{type(e).__name__}: {e}')
    try:
        shown.append(repr((f(1, 2, a=3, **{'a': 4}, **{'a': 5}))))
    except Exception as e:
        print(f'{type(e).__name__}: {e}')
    shown.append(repr((f(1, 2, 3, *[4, 5], **{'a':6, 'b':7}))))
    shown.append(repr((f(1, 2, 3, x=4, y=5, *(6, 7), **{'a':8, 'b': 9}))))
    shown.append(repr((f(1, 2, 3, *[4, 5], **{'c': 8}, **{'a':6, 'b':7}))))
    shown.append(repr((f(1, 2, 3, *(4, 5), x=6, y=7, **{'a':8, 'b': 9}))))
    shown.append(repr((f(1, 2, 3, **UserDict(a=4, b=5)))))
    shown.append(repr((f(1, 2, 3, *(4, 5), **UserDict(a=6, b=7)))))
    shown.append(repr((f(1, 2, 3, x=4, y=5, *(6, 7), **UserDict(a=8, b=9)))))
    shown.append(repr((f(1, 2, 3, *(4, 5), x=6, y=7, **UserDict(a=8, b=9)))))
    # Mix keyword arguments and dict unpacking
    d1 = {'a':1}
    d2 = {'c':3}
    shown.append(repr((f(b=2, **d1, **d2))))
    shown.append(repr((f(**d1, b=2, **d2))))
    shown.append(repr((f(**d1, **d2, b=2))))
    shown.append(repr((f(**d1, b=2, **d2, d=4))))
    # Examples with invalid arguments (TypeErrors). We're also testing the function
    # names in the exception messages.
    # Verify clearing of SF bug #733667
    try:
        shown.append(repr((e(c=4))))
    except Exception as e:
        print(f'{type(e).__name__}: {e}')
    try:
        shown.append(repr((g())))
    except Exception as e:
        print(f'{type(e).__name__}: {e}')
    try:
        shown.append(repr((g(*()))))
    except Exception as e:
        print(f'{type(e).__name__}: {e}')
    try:
        shown.append(repr((g(*(), **{}))))
    except Exception as e:
        print(f'{type(e).__name__}: {e}')
    shown.append(repr((g(1))))
    shown.append(repr((g(1, 2))))
    shown.append(repr((g(1, 2, 3))))
    shown.append(repr((g(1, 2, 3, *(4, 5)))))
    class Nothing: pass  # noqa: E701
    try:
        shown.append(repr((g(*Nothing()))))
    except Exception as e:
        print(f'{type(e).__name__}: {e}')
    class Nothing:
        def __len__(self): return 5
    try:
        shown.append(repr((g(*Nothing()))))
    except Exception as e:
        print(f'{type(e).__name__}: {e}')
    class Nothing():
        def __len__(self): return 5
        def __getitem__(self, i):
            if i<3: return i  # noqa: E701
            else: raise IndexError(i)  # noqa: E701
    shown.append(repr((g(*Nothing()))))
    class Nothing:
        def __init__(self): self.c = 0
        def __iter__(self): return self
        def __next__(self):
            if self.c == 4:
                raise StopIteration
            c = self.c
            self.c += 1
            return c
    shown.append(repr((g(*Nothing()))))
    # Check for issue #4806: Does a TypeError in a generator get propagated with the
    # right error message? (Also check with other iterables.)
    def broken(): raise TypeError("myerror")
    try:
        shown.append(repr((g(*(broken() for i in range(1))))))
    except Exception as e:
        print(f'{type(e).__name__}: {e}')
    try:
        shown.append(repr((g(*range(1), *(broken() for i in range(1))))))
    except Exception as e:
        print(f'{type(e).__name__}: {e}')
    class BrokenIterable1:
        def __iter__(self):
            raise TypeError('myerror')
    try:
        shown.append(repr((g(*BrokenIterable1()))))
    except Exception as e:
        print(f'{type(e).__name__}: {e}')
    try:
        shown.append(repr((g(*range(1), *BrokenIterable1()))))
    except Exception as e:
        print(f'{type(e).__name__}: {e}')
    class BrokenIterable2:
        def __iter__(self):
            yield 0
            raise TypeError('myerror')
    try:
        shown.append(repr((g(*BrokenIterable2()))))
    except Exception as e:
        print(f'{type(e).__name__}: {e}')
    try:
        shown.append(repr((g(*range(1), *BrokenIterable2()))))
    except Exception as e:
        print(f'{type(e).__name__}: {e}')
    class BrokenSequence:
        def __getitem__(self, idx):
            raise TypeError('myerror')
    try:
        shown.append(repr((g(*BrokenSequence()))))
    except Exception as e:
        print(f'{type(e).__name__}: {e}')
    try:
        shown.append(repr((g(*range(1), *BrokenSequence()))))
    except Exception as e:
        print(f'{type(e).__name__}: {e}')
    # Make sure that the function doesn't stomp the dictionary
    d = {'a': 1, 'b': 2, 'c': 3}
    d2 = d.copy()
    shown.append(repr((g(1, d=4, **d))))
    shown.append(repr((d == d2)))
    # What about willful misconduct?
    def saboteur(**kw):
        kw['x'] = 'm'
        return kw
    d = {}
    kw = saboteur(a=1, **d)
    shown.append(repr((d)))
    try:
        shown.append(repr((g(1, 2, 3, **{'x': 4, 'y': 5}))))
    except Exception as e:
        print(f'{type(e).__name__}: {e}')
    try:
        shown.append(repr((f(**{1:2}))))
    except Exception as e:
        print(f'{type(e).__name__}: {e}')
    try:
        shown.append(repr((h(**{'e': 2}))))
    except Exception as e:
        print(f'{type(e).__name__}: {e}')
    try:
        shown.append(repr((h(*h))))
    except Exception as e:
        print(f'{type(e).__name__}: {e}')
    try:
        shown.append(repr((h(1, *h))))
    except Exception as e:
        print(f'{type(e).__name__}: {e}')
    try:
        shown.append(repr((h(*[1], *h))))
    except Exception as e:
        print(f'{type(e).__name__}: {e}')
    try:
        shown.append(repr((dir(*h))))
    except Exception as e:
        print(f'{type(e).__name__}: {e}')
    nothing = None
    try:
        shown.append(repr((nothing(*h))))
    except Exception as e:
        print(f'{type(e).__name__}: {e}')
    try:
        shown.append(repr((h(**h))))
    except Exception as e:
        print(f'{type(e).__name__}: {e}')
    try:
        shown.append(repr((h(**[]))))
    except Exception as e:
        print(f'{type(e).__name__}: {e}')
    try:
        shown.append(repr((h(a=1, **h))))
    except Exception as e:
        print(f'{type(e).__name__}: {e}')
    try:
        shown.append(repr((h(a=1, **[]))))
    except Exception as e:
        print(f'{type(e).__name__}: {e}')
    try:
        shown.append(repr((h(**{'a': 1}, **h))))
    except Exception as e:
        print(f'{type(e).__name__}: {e}')
    try:
        shown.append(repr((h(**{'a': 1}, **[]))))
    except Exception as e:
        print(f'{type(e).__name__}: {e}')
    try:
        shown.append(repr((dir(**h))))
    except Exception as e:
        print(f'{type(e).__name__}: {e}')
    try:
        shown.append(repr((nothing(**h))))
    except Exception as e:
        print(f'{type(e).__name__}: {e}')
    try:
        shown.append(repr((dir(b=1, **{'b': 1}))))
    except Exception as e:
        print(f'{type(e).__name__}: {e}')
    # Test a kwargs mapping with duplicated keys.
    # not ported (an import: done at module level here): from collections.abc import Mapping
    class MultiDict(Mapping):
        def __init__(self, items):
            self._items = items

        def __iter__(self):
            return (k for k, v in self._items)

        def __getitem__(self, key):
            for k, v in self._items:
                if k == key:
                    return v
            raise KeyError(key)

        def __len__(self):
            return len(self._items)

        def keys(self):
            return [k for k, v in self._items]

        def values(self):
            return [v for k, v in self._items]

        def items(self):
            return [(k, v) for k, v in self._items]
    shown.append(repr((g(**MultiDict([('x', 1), ('y', 2)])))))
    try:
        shown.append(repr((g(**MultiDict([('x', 1), ('x', 2)])))))
    except Exception as e:
        print(f'{type(e).__name__}: {e}')
    try:
        shown.append(repr((g(a=3, **MultiDict([('x', 1), ('x', 2)])))))
    except Exception as e:
        print(f'{type(e).__name__}: {e}')
    try:
        shown.append(repr((g(**MultiDict([('a', 3)]), **MultiDict([('x', 1), ('x', 2)])))))
    except Exception as e:
        print(f'{type(e).__name__}: {e}')
    # Another helper function
    def f2(*a, **b):
        return a, b
    d = {}
    for i in range(512):
        key = 'k%d' % i
        d[key] = i
    a, b = f2(1, *(2,3), **d)
    shown.append(repr((len(a), len(b), b == d)))
    class Foo:
        def method(self, arg1, arg2):
            return arg1+arg2
    x = Foo()
    shown.append(repr((Foo.method(*(x, 1, 2)))))
    shown.append(repr((Foo.method(x, *(1, 2)))))
    shown.append(repr((Foo.method(*(1, 2, 3)))))
    shown.append(repr((Foo.method(1, *[2, 3]))))
    # A PyCFunction that takes only positional parameters should allow an
    # empty keyword dictionary to pass without a complaint, but raise a
    # TypeError if te dictionary is not empty
    try:
        silence = id(1, *{})
        True
    except:  # noqa: E722
        False
    try:
        shown.append(repr((id(1, **{'foo': 1}))))
    except Exception as e:
        print(f'{type(e).__name__}: {e}')
    # A corner case of keyword dictionary items being deleted during
    # the function call setup. See <http://bugs.python.org/issue2016>.
    class Name(str):
        def __eq__(self, other):
            try:
                 del x[self]
            except KeyError:
                 pass
            return str.__eq__(self, other)
        def __hash__(self):
            return str.__hash__(self)
    x = {Name("a"):1, Name("b"):2}
    def f(a, b):
        print(a,b)
    shown.append(repr((f(**x))))
    # Too many arguments:
    def f(): pass
    try:
        shown.append(repr((f(1))))
    except Exception as e:
        print(f'{type(e).__name__}: {e}')
    def f(a): pass
    try:
        shown.append(repr((f(1, 2))))
    except Exception as e:
        print(f'{type(e).__name__}: {e}')
    def f(a, b=1): pass
    try:
        shown.append(repr((f(1, 2, 3))))
    except Exception as e:
        print(f'{type(e).__name__}: {e}')
    def f(*, kw): pass
    try:
        shown.append(repr((f(1, kw=3))))
    except Exception as e:
        print(f'{type(e).__name__}: {e}')
    def f(*, kw, b): pass
    try:
        shown.append(repr((f(1, 2, 3, b=3, kw=3))))
    except Exception as e:
        print(f'{type(e).__name__}: {e}')
    def f(a, b=2, *, kw): pass
    try:
        shown.append(repr((f(2, 3, 4, kw=4))))
    except Exception as e:
        print(f'{type(e).__name__}: {e}')
    # Too few and missing arguments:
    def f(a): pass
    try:
        shown.append(repr((f())))
    except Exception as e:
        print(f'{type(e).__name__}: {e}')
    def f(a, b): pass
    try:
        shown.append(repr((f())))
    except Exception as e:
        print(f'{type(e).__name__}: {e}')
    def f(a, b, c): pass
    try:
        shown.append(repr((f())))
    except Exception as e:
        print(f'{type(e).__name__}: {e}')
    def f(a, b, c, d, e): pass
    try:
        shown.append(repr((f())))
    except Exception as e:
        print(f'{type(e).__name__}: {e}')
    def f(a, b=4, c=5, d=5): pass
    try:
        shown.append(repr((f(c=12, b=9))))
    except Exception as e:
        print(f'{type(e).__name__}: {e}')
    # Same with keyword only args:
    def f(*, w): pass
    try:
        shown.append(repr((f())))
    except Exception as e:
        print(f'{type(e).__name__}: {e}')
    def f(*, a, b, c, d, e): pass
    try:
        shown.append(repr((f())))
    except Exception as e:
        print(f'{type(e).__name__}: {e}')
    return tensor + 1


# -- over Tensors (not in CPython's file) ----------------------------------------------------------
def case_tensor_star_calls(tensor, state):
    """Tensors passed through ``*args``/``**kwargs``, keyword-only parameters and defaults,
    and the TypeErrors of bad calls with Tensor arguments."""
    def g(a, b=2, *args, k, m=None, **kw):
        return a * b + sum(args, tensor * 0) + k, m, sorted(kw)
    out = [g(tensor, k=tensor), g(tensor, 3, tensor, tensor, k=1, z=tensor), g(*[tensor, tensor], **{"k": 0, "m": 1})]
    if state.get("good calls only"):
        return out
    for bad in (lambda: g(tensor), lambda: g(tensor, k=1, a=tensor), lambda: g(**{"k": 1}),
                lambda: g(tensor, *tensor, k=1, **{"k": 2})):
        try:
            out.append(bad())
        except TypeError as e:
            out.append(str(e))
    return out


def case_tensor_star_calls_bound(tensor, state):
    """The calls of ``case_tensor_star_calls`` that bind (one graph, no error path)."""
    state["good calls only"] = True
    return case_tensor_star_calls(tensor, state)


@pytest.mark.parametrize("case", parametrize(globals()))
def test_extcall_port(case):
    check(case)
