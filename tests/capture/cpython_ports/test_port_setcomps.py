"""CPython ``Lib/test/test_setcomps.py`` (3.11) ported as capture-vs-eager differential cases (see
port_harness.py): set comprehensions: nesting, scoping of the loop variable, closures over it,
generators and lambdas inside.

CPython's file is a doctest; ``case_doctests`` is its examples in order, as one function: an
expression example's repr is appended to ``shown`` (the interactive shell would print it; kept in
the state instead, so that displaying a value does not break the graph), an example whose expected
output is a traceback prints the exception's type and message, and the displayed values and every
printed line are compared between eager and captured runs (the eager run is CPython running the
doctest's own examples)."""

import pytest

from port_harness import check, parametrize


def case_doctests(tensor, state):
    """test_setcomps.py doctests"""
    shown = state.setdefault("shown", [])  # the displayed values of expression examples
    # ########### Tests mostly copied from test_listcomps.py ############
    # Test simple loop with conditional
    shown.append(repr((sum({i*i for i in range(100) if i&1 == 1}))))
    # Test simple case
    shown.append(repr(({2*y + x + 1 for x in (0,) for y in (1,)})))
    # Test simple nesting
    shown.append(repr((list(sorted({(i,j) for i in range(3) for j in range(4)})))))
    # Test nesting with the inner expression dependent on the outer
    shown.append(repr((list(sorted({(i,j) for i in range(4) for j in range(i)})))))
    # Test the idiom for temporary variable assignment in comprehensions.
    shown.append(repr((sorted({j*j for i in range(4) for j in [i+1]}))))
    shown.append(repr((sorted({j*k for i in range(4) for j in [i+1] for k in [j+1]}))))
    shown.append(repr((sorted({j*k for i in range(4) for j, k in [(i+1, i+2)]}))))
    # Not assignment
    shown.append(repr((sorted({i*i for i in [*range(4)]}))))
    shown.append(repr((sorted({i*i for i in (*range(4),)}))))
    # Make sure the induction variable is not exposed
    i = 20
    shown.append(repr((sum({i*i for i in range(100)}))))
    shown.append(repr((i)))
    # Verify that syntax error's are raised for setcomps used as lvalues
    # not ported (a SyntaxError at compile time): {y for y in (1,2)} = 10          # doctest: +IGNORE_EXCEPTION_DETAIL
    # not ported (a SyntaxError at compile time): {y for y in (1,2)} += 10         # doctest: +IGNORE_EXCEPTION_DETAIL
    # Make a nested set comprehension that acts like set(range())
    def srange(n):
        return {i for i in range(n)}
    shown.append(repr((list(sorted(srange(10))))))
    # Same again, only as a lambda expression instead of a function definition
    lrange = lambda n:  {i for i in range(n)}
    shown.append(repr((list(sorted(lrange(10))))))
    # Generators can call other generators:
    def grange(n):
        for x in {i for i in range(n)}:
            yield x
    shown.append(repr((list(sorted(grange(5))))))
    # Make sure that None is a valid return value
    shown.append(repr(({None for i in range(10)})))
    # ########### Tests for various scoping corner cases ############
    # Return lambdas that use the iteration variable as a default argument
    items = {(lambda i=i: i) for i in range(5)}
    shown.append(repr(({x() for x in items} == set(range(5)))))
    # Same again, only this time as a closure variable
    items = {(lambda: i) for i in range(5)}
    shown.append(repr(({x() for x in items})))
    # Another way to test that the iteration variable is local to the list comp
    items = {(lambda: i) for i in range(5)}
    i = 20
    shown.append(repr(({x() for x in items})))
    # And confirm that a closure can jump over the list comp scope
    items = {(lambda: y) for i in range(5)}
    y = 2
    shown.append(repr(({x() for x in items})))
    # We also repeat each of the above scoping tests inside a function
    def test_func():
        items = {(lambda i=i: i) for i in range(5)}
        return {x() for x in items}
    shown.append(repr((test_func() == set(range(5)))))
    def test_func():
        items = {(lambda: i) for i in range(5)}
        return {x() for x in items}
    shown.append(repr((test_func())))
    def test_func():
        items = {(lambda: i) for i in range(5)}
        i = 20
        return {x() for x in items}
    shown.append(repr((test_func())))
    def test_func():
        items = {(lambda: y) for i in range(5)}
        y = 2
        return {x() for x in items}
    shown.append(repr((test_func())))
    return tensor + 1




@pytest.mark.parametrize("case", parametrize(globals()))
def test_setcomps_port(case):
    check(case)
