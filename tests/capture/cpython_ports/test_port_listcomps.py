"""CPython ``Lib/test/test_listcomps.py`` (3.11) ported as capture-vs-eager differential cases (see
port_harness.py): list comprehensions: nesting, scoping of the loop variable, closures over it,
generators and lambdas inside, unpacking targets.

CPython's file is a doctest; ``case_doctests`` is its examples in order, as one function: an
expression example's repr is appended to ``shown`` (the interactive shell would print it; kept in
the state instead, so that displaying a value does not break the graph), an example whose expected
output is a traceback prints the exception's type and message, and the displayed values and every
printed line are compared between eager and captured runs (the eager run is CPython running the
doctest's own examples).

3.12 inlines comprehensions into their function (PEP 709) and its test_listcomps.py gained
``ListComprehensionTest``, whose snippets ``_check_in_scopes`` runs at module, class and function
scope through exec: the function-scope variant of each is ported below as the body of a case (the
scope capture traces), its expected outputs asserted on the recorder. A snippet's fresh globals
(``ns``) are set first. They run on every version (the semantics are the same; 3.12+ compile them
inlined, which is what they check there)."""

import pytest

from port_harness import check, parametrize
from unittest_shim import Checks, assert_eager_passes


def case_doctests(tensor, state):
    """test_listcomps.py doctests"""
    shown = state.setdefault("shown", [])  # the displayed values of expression examples
    # ########### Tests borrowed from or inspired by test_genexps.py ############
    # Test simple loop with conditional
    shown.append(repr((sum([i*i for i in range(100) if i&1 == 1]))))
    # Test simple nesting
    shown.append(repr(([(i,j) for i in range(3) for j in range(4)])))
    # Test nesting with the inner expression dependent on the outer
    shown.append(repr(([(i,j) for i in range(4) for j in range(i)])))
    # Test the idiom for temporary variable assignment in comprehensions.
    shown.append(repr(([j*j for i in range(4) for j in [i+1]])))
    shown.append(repr(([j*k for i in range(4) for j in [i+1] for k in [j+1]])))
    shown.append(repr(([j*k for i in range(4) for j, k in [(i+1, i+2)]])))
    # Not assignment
    shown.append(repr(([i*i for i in [*range(4)]])))
    shown.append(repr(([i*i for i in (*range(4),)])))
    # Make sure the induction variable is not exposed
    i = 20
    shown.append(repr((sum([i*i for i in range(100)]))))
    shown.append(repr((i)))
    # Verify that syntax error's are raised for listcomps used as lvalues
    # not ported (a SyntaxError at compile time): [y for y in (1,2)] = 10          # doctest: +IGNORE_EXCEPTION_DETAIL
    # not ported (a SyntaxError at compile time): [y for y in (1,2)] += 10         # doctest: +IGNORE_EXCEPTION_DETAIL
    # ########### Tests borrowed from or inspired by test_generators.py ############
    # Make a nested list comprehension that acts like range()
    def frange(n):
        return [i for i in range(n)]
    shown.append(repr((frange(10))))
    # Same again, only as a lambda expression instead of a function definition
    lrange = lambda n:  [i for i in range(n)]
    shown.append(repr((lrange(10))))
    # Generators can call other generators:
    def grange(n):
        for x in [i for i in range(n)]:
            yield x
    shown.append(repr((list(grange(5)))))
    # Make sure that None is a valid return value
    shown.append(repr(([None for i in range(10)])))
    # ########### Tests for various scoping corner cases ############
    # Return lambdas that use the iteration variable as a default argument
    items = [(lambda i=i: i) for i in range(5)]
    shown.append(repr(([x() for x in items])))
    # Same again, only this time as a closure variable
    items = [(lambda: i) for i in range(5)]
    shown.append(repr(([x() for x in items])))
    # Another way to test that the iteration variable is local to the list comp
    items = [(lambda: i) for i in range(5)]
    i = 20
    shown.append(repr(([x() for x in items])))
    # And confirm that a closure can jump over the list comp scope
    items = [(lambda: y) for i in range(5)]
    y = 2
    shown.append(repr(([x() for x in items])))
    # We also repeat each of the above scoping tests inside a function
    def test_func():
        items = [(lambda i=i: i) for i in range(5)]
        return [x() for x in items]
    shown.append(repr((test_func())))
    def test_func():
        items = [(lambda: i) for i in range(5)]
        return [x() for x in items]
    shown.append(repr((test_func())))
    def test_func():
        items = [(lambda: i) for i in range(5)]
        i = 20
        return [x() for x in items]
    shown.append(repr((test_func())))
    def test_func():
        items = [(lambda: y) for i in range(5)]
        y = 2
        return [x() for x in items]
    shown.append(repr((test_func())))
    return tensor + 1




def _set_global(name, value):
    """A module global of this file, as the snippet's fresh ``ns`` has it."""
    globals()[name] = value


# -- 3.12's ListComprehensionTest (function scope) ----------------------------------------------------
def case_lambdas_with_iteration_var_as_default(tensor, state):
    """ListComprehensionTest.test_lambdas_with_iteration_var_as_default (3.12), its function scope."""
    self = Checks(state)
    items = [(lambda i=i: i) for i in range(5)]
    y = [x() for x in items]
    self.assertEqual(y, [0, 1, 2, 3, 4])
    return tensor + 1


def case_lambdas_with_free_var(tensor, state):
    """ListComprehensionTest.test_lambdas_with_free_var (3.12), its function scope."""
    self = Checks(state)
    items = [(lambda: i) for i in range(5)]
    y = [x() for x in items]
    self.assertEqual(y, [4, 4, 4, 4, 4])
    return tensor + 1


def case_inner_cell_shadows_outer(tensor, state):
    """ListComprehensionTest.test_inner_cell_shadows_outer (3.12), its function scope."""
    self = Checks(state)
    items = [(lambda: i) for i in range(5)]
    i = 20
    y = [x() for x in items]
    self.assertEqual(y, [4, 4, 4, 4, 4])
    self.assertEqual(i, 20)
    return tensor + 1


def case_inner_cell_shadows_outer_no_store(tensor, state):
    """ListComprehensionTest.test_inner_cell_shadows_outer_no_store (3.12), its function scope."""
    self = Checks(state)
    def f(x):
        return [lambda: x for x in range(x)], x
    fns, x = f(2)
    y = [fn() for fn in fns]
    self.assertEqual(y, [1, 1])
    self.assertEqual(x, 2)
    return tensor + 1


def case_closure_can_jump_over_comp_scope(tensor, state):
    """ListComprehensionTest.test_closure_can_jump_over_comp_scope (3.12), its function scope."""
    self = Checks(state)
    items = [(lambda: y) for i in range(5)]
    y = 2
    z = [x() for x in items]
    self.assertEqual(z, [2, 2, 2, 2, 2])
    return tensor + 1


def case_cell_inner_free_outer(tensor, state):
    """ListComprehensionTest.test_cell_inner_free_outer (3.12), its function scope."""
    self = Checks(state)
    def f():
        return [lambda: x for x in (x, [1])[1]]
    x = ...
    y = [fn() for fn in f()]
    self.assertEqual(y, [1])
    return tensor + 1


def case_free_inner_cell_outer_0(tensor, state):
    """ListComprehensionTest.test_free_inner_cell_outer (3.12), its function scope."""
    self = Checks(state)
    g = 2
    def f():
        return g
    y = [g for x in [1]]
    self.assertEqual(y, [2])
    return tensor + 1


def case_inner_cell_shadows_outer_redefined(tensor, state):
    """ListComprehensionTest.test_inner_cell_shadows_outer_redefined (3.12), its function scope."""
    self = Checks(state)
    y = 10
    items = [(lambda: y) for y in range(5)]
    x = y
    y = 20
    out = [z() for z in items]
    self.assertEqual(x, 10)
    self.assertEqual(out, [4, 4, 4, 4, 4])
    return tensor + 1


def case_shadows_outer_cell(tensor, state):
    """ListComprehensionTest.test_shadows_outer_cell (3.12), its function scope."""
    self = Checks(state)
    _set_global('g', -1)  # (CPython's fresh namespace: g = -1)
    def inner():
        return g
    [g for g in range(5)]
    x = inner()
    self.assertEqual(x, -1)
    return tensor + 1


def case_explicit_global(tensor, state):
    """ListComprehensionTest.test_explicit_global (3.12), its function scope."""
    self = Checks(state)
    global g
    g = 1  # (CPython's fresh namespace: g = 1)
    x = g
    g = 2
    items = [g for g in [1]]
    y = g
    self.assertEqual(x, 1)
    self.assertEqual(y, 2)
    self.assertEqual(items, [1])
    return tensor + 1


def case_explicit_global_2(tensor, state):
    """ListComprehensionTest.test_explicit_global_2 (3.12), its function scope."""
    self = Checks(state)
    global g
    g = 1  # (CPython's fresh namespace: g = 1)
    x = g
    g = 2
    items = [g for x in [1]]
    y = g
    self.assertEqual(x, 1)
    self.assertEqual(y, 2)
    self.assertEqual(items, [2])
    return tensor + 1


def case_explicit_global_3(tensor, state):
    """ListComprehensionTest.test_explicit_global_3 (3.12), its function scope."""
    self = Checks(state)
    global g
    g = 1  # (CPython's fresh namespace: g = 1)
    fns = [lambda: g for g in [2]]
    items = [fn() for fn in fns]
    self.assertEqual(items, [2])
    return tensor + 1


def case_assignment_expression(tensor, state):
    """ListComprehensionTest.test_assignment_expression (3.12), its function scope."""
    self = Checks(state)
    x = -1
    items = [(x:=y) for y in range(3)]
    self.assertEqual(x, 2)
    return tensor + 1


def case_free_var_in_comp_child(tensor, state):
    """ListComprehensionTest.test_free_var_in_comp_child (3.12), its function scope."""
    self = Checks(state)
    lst = range(3)
    funcs = [lambda: x for x in lst]
    inc = [x + 1 for x in lst]
    [x for x in inc]
    x = funcs[0]()
    self.assertEqual(x, 2)
    return tensor + 1


def case_shadow_with_free_and_local(tensor, state):
    """ListComprehensionTest.test_shadow_with_free_and_local (3.12), its function scope."""
    self = Checks(state)
    lst = range(3)
    x = -1
    funcs = [lambda: x for x in lst]
    items = [x + 1 for x in lst]
    self.assertEqual(x, -1)
    return tensor + 1


def case_shadow_comp_iterable_name(tensor, state):
    """ListComprehensionTest.test_shadow_comp_iterable_name (3.12), its function scope."""
    self = Checks(state)
    x = [1]
    y = [x for x in x]
    self.assertEqual(x, [1])
    return tensor + 1


def case_nested_free(tensor, state):
    """ListComprehensionTest.test_nested_free (3.12), its function scope."""
    self = Checks(state)
    x = 1
    def g():
        [x for x in range(3)]
        return x
    g()
    self.assertEqual(x, 1)
    return tensor + 1


def case_introspecting_frame_locals(tensor, state):
    """ListComprehensionTest.test_introspecting_frame_locals (3.12), its function scope."""
    self = Checks(state)
    import sys
    [i for i in range(2)]
    i = 20
    sys._getframe().f_locals
    self.assertEqual(i, 20)
    return tensor + 1


def case_nested(tensor, state):
    """ListComprehensionTest.test_nested (3.12), its function scope."""
    self = Checks(state)
    l = [2, 3]
    y = [[x ** 2 for x in range(x)] for x in l]
    self.assertEqual(y, [[0, 1], [0, 1, 4]])
    return tensor + 1


def case_nested_2_0(tensor, state):
    """ListComprehensionTest.test_nested_2 (3.12), its function scope."""
    self = Checks(state)
    l = [1, 2, 3]
    x = 3
    y = [x for [x ** x for x in range(x)][x - 1] in l]
    self.assertEqual(y, [3, 3, 3])
    return tensor + 1


def case_nested_3(tensor, state):
    """ListComprehensionTest.test_nested_3 (3.12), its function scope."""
    self = Checks(state)
    l = [(1, 2), (3, 4), (5, 6)]
    y = [x for (x, [x ** x for x in range(x)][x - 1]) in l]
    self.assertEqual(y, [1, 3, 5])
    return tensor + 1


def case_nested_4(tensor, state):
    """ListComprehensionTest.test_nested_4 (3.12), its function scope."""
    self = Checks(state)
    items = [([lambda: x for x in range(2)], lambda: x) for x in range(3)]
    out = [([fn() for fn in fns], fn()) for fns, fn in items]
    self.assertEqual(out, [([1, 1], 2), ([1, 1], 2), ([1, 1], 2)])
    return tensor + 1


def case_nameerror(tensor, state):
    """ListComprehensionTest.test_nameerror (3.12), its function scope."""
    self = Checks(state)
    try:
        [x for x in [1]]
        x
    except NameError as e:
        self.assertIs(type(e), NameError)
    return tensor + 1


def case_dunder_name(tensor, state):
    """ListComprehensionTest.test_dunder_name (3.12), its function scope."""
    self = Checks(state)
    y = [__x for __x in [1]]
    self.assertEqual(y, [1])
    return tensor + 1


def case_global_outside_cellvar_inside_plus_freevar_0(tensor, state):
    """ListComprehensionTest.test_global_outside_cellvar_inside_plus_freevar (3.12), its function scope."""
    self = Checks(state)
    _set_global('b', 2)  # (CPython's fresh namespace: b = 2)
    a = 1
    def f():
        func, = [(lambda: b) for b in [a]]
        return b, func()  # noqa: F821
    x = f()
    self.assertEqual(x, (2, 1))
    return tensor + 1


def case_cell_in_nested_comprehension_0(tensor, state):
    """ListComprehensionTest.test_cell_in_nested_comprehension (3.12), its function scope."""
    self = Checks(state)
    _set_global('b', 2)  # (CPython's fresh namespace: b = 2)
    a = 1
    def f():
        (func, inner_b), = [[lambda: b for b in c] + [b] for c in [[a]]]  # noqa: F821
        return b, inner_b, func()  # noqa: F821
    x = f()
    self.assertEqual(x, (2, 2, 1))
    return tensor + 1


def case_in_class_scope_inside_function_1(tensor, state):
    """ListComprehensionTest.test_in_class_scope_inside_function_1 (3.12), its function scope."""
    self = Checks(state)
    _set_global('y', 1)  # (CPython's fresh namespace: y = 1)
    class C:
        y = 2
        vals = [(x, y) for x in range(2)]  # noqa: F821
    vals = C.vals
    self.assertEqual(vals, [(0, 1), (1, 1)])
    return tensor + 1


def case_in_class_scope_inside_function_2(tensor, state):
    """ListComprehensionTest.test_in_class_scope_inside_function_2 (3.12), its function scope."""
    self = Checks(state)
    y = 1
    class C:
        y = 2
        vals = [(x, y) for x in range(2)]
    vals = C.vals
    self.assertEqual(vals, [(0, 1), (1, 1)])
    return tensor + 1


def case_in_class_scope_with_global_1(tensor, state):
    """ListComprehensionTest.test_in_class_scope_with_global (3.12), its function scope."""
    self = Checks(state)
    y = 1
    class C:
        global y
        y = 2
        # Ensure the listcomp uses the global, not the value in the
        # class namespace
        locals()['y'] = 3
        vals = [(x, y) for x in range(2)]
    vals = C.vals
    self.assertEqual(vals, [(0, 1), (1, 1)])
    return tensor + 1


def case_in_class_scope_with_nonlocal(tensor, state):
    """ListComprehensionTest.test_in_class_scope_with_nonlocal (3.12), its function scope."""
    self = Checks(state)
    y = 1
    class C:
        nonlocal y
        y = 2
        # Ensure the listcomp uses the global, not the value in the
        # class namespace
        locals()['y'] = 3
        vals = [(x, y) for x in range(2)]
    vals = C.vals
    self.assertEqual(vals, [(0, 2), (1, 2)])
    return tensor + 1


def case_nested_free_var_not_bound_in_outer_comp_0(tensor, state):
    """ListComprehensionTest.test_nested_free_var_not_bound_in_outer_comp (3.12), its function scope."""
    self = Checks(state)
    z = 1
    items = [a for a in [1] if [x for x in [1] if z]]
    self.assertEqual(items, [1])
    return tensor + 1


def case_nested_free_var_in_iter(tensor, state):
    """ListComprehensionTest.test_nested_free_var_in_iter (3.12), its function scope."""
    self = Checks(state)
    items = [_C for _C in [1] for [0, 1][[x for x in [1] if _C][0]] in [2]]
    self.assertEqual(items, [1])
    return tensor + 1


def case_nested_free_var_in_expr(tensor, state):
    """ListComprehensionTest.test_nested_free_var_in_expr (3.12), its function scope."""
    self = Checks(state)
    items = [(_C, [x for x in [1] if _C]) for _C in [0, 1]]
    self.assertEqual(items, [(0, []), (1, [1])])
    return tensor + 1


def case_nested_listcomp_in_lambda(tensor, state):
    """ListComprehensionTest.test_nested_listcomp_in_lambda (3.12), its function scope."""
    self = Checks(state)
    f = [(z, lambda y: [(x, y, z) for x in [3]]) for z in [1]]
    (z, func), = f
    out = func(2)
    self.assertEqual(z, 1)
    self.assertEqual(out, [(3, 2, 1)])
    return tensor + 1


def case_lambda_in_iter(tensor, state):
    """ListComprehensionTest.test_lambda_in_iter (3.12), its function scope."""
    self = Checks(state)
    (func, c), = [(a, b) for b in [1] for a in [lambda : a]]
    d = func()
    assert d is func
    # must use "a" in this scope
    e = a if False else None  # noqa: F821
    self.assertEqual(c, 1)
    self.assertEqual(e, None)
    return tensor + 1


def case_assign_to_comp_iter_var_in_outer_function(tensor, state):
    """ListComprehensionTest.test_assign_to_comp_iter_var_in_outer_function (3.12), its function scope."""
    self = Checks(state)
    a = [1 for a in [0]]
    self.assertEqual(a, [1])
    return tensor + 1


def case_no_leakage_to_locals_1(tensor, state):
    """ListComprehensionTest.test_no_leakage_to_locals (3.12), its function scope."""
    self = Checks(state)
    def b():
        [a for b in [1] for _ in []]  # noqa: F821
        return b, locals()
    r, s = b()
    x = r is b
    y = list(s.keys())
    self.assertEqual(x, True)
    self.assertEqual(y, ['b'])
    return tensor + 1


def case_iter_var_available_in_locals(tensor, state):
    """ListComprehensionTest.test_iter_var_available_in_locals (3.12), its function scope."""
    self = Checks(state)
    l = [1, 2]
    y = 0
    items = [locals()["x"] for x in l]
    items2 = [vars()["x"] for x in l]
    items3 = [("x" in dir()) for x in l]
    items4 = [eval("x") for x in l]
    # x is available, and does not overwrite y
    [exec("y = x") for x in l]
    self.assertEqual(items, [1, 2])
    self.assertEqual(items2, [1, 2])
    self.assertEqual(items3, [True, True])
    self.assertEqual(items4, [1, 2])
    self.assertEqual(y, 0)
    return tensor + 1


def case_comp_in_try_except_0(tensor, state):
    """ListComprehensionTest.test_comp_in_try_except (3.12), its function scope."""
    self = Checks(state)
    value = ["ab"]
    result = snapshot = None
    try:
        result = [len(value) for value in value]
    except:
        snapshot = value
        raise
    self.assertEqual(value, ['ab'])
    self.assertEqual(result, [2])
    self.assertEqual(snapshot, None)
    return tensor + 1


def case_comp_in_try_except_1(tensor, state):
    """ListComprehensionTest.test_comp_in_try_except (3.12), its function scope."""
    self = Checks(state)
    try:
        value = ["ab"]
        result = snapshot = None
        try:
            result = [int(value) for value in value]
        except:
            snapshot = value
            raise
    except ValueError as e:
        self.assertIs(type(e), ValueError)
    else:
        self.assertEqual(value, ['ab'])
        self.assertEqual(result, None)
        self.assertEqual(snapshot, ['ab'])
    return tensor + 1


def case_comp_in_try_finally_0(tensor, state):
    """ListComprehensionTest.test_comp_in_try_finally (3.12), its function scope."""
    self = Checks(state)
    value = ["ab"]
    result = snapshot = None
    try:
        result = [len(value) for value in value]
    finally:
        snapshot = value
    self.assertEqual(value, ['ab'])
    self.assertEqual(result, [2])
    self.assertEqual(snapshot, ['ab'])
    return tensor + 1


def case_comp_in_try_finally_1(tensor, state):
    """ListComprehensionTest.test_comp_in_try_finally (3.12), its function scope."""
    self = Checks(state)
    try:
        value = ["ab"]
        result = snapshot = None
        try:
            result = [int(value) for value in value]
        finally:
            snapshot = value
    except ValueError as e:
        self.assertIs(type(e), ValueError)
    else:
        self.assertEqual(value, ['ab'])
        self.assertEqual(result, None)
        self.assertEqual(snapshot, ['ab'])
    return tensor + 1


def case_exception_in_post_comp_call(tensor, state):
    """ListComprehensionTest.test_exception_in_post_comp_call (3.12), its function scope."""
    self = Checks(state)
    value = [1, None]
    try:
        [v for v in value].sort()
    except:  # noqa: E722
        pass
    self.assertEqual(value, [1, None])
    return tensor + 1


def case_class_scope_free_var_with_class_cell(tensor, state):
    """ListComprehensionTest.test_class_scope_free_var_with_class_cell (3.12)"""
    self = Checks(state)
    class C:
        def method(self):
            super()
            return __class__
        items = [(lambda: i) for i in range(5)]
        y = [x() for x in items]

    self.assertEqual(C.y, [4, 4, 4, 4, 4])
    self.assertIs(C().method(), C)
    return tensor + 1


def case_unbound_local_after_comprehension(tensor, state):
    """ListComprehensionTest.test_unbound_local_after_comprehension (3.12)"""
    self = Checks(state)
    def f():
        if False:
            x = 0
        [x for x in [1]]
        return x

    with self.assertRaises(UnboundLocalError):
        f()
    return tensor + 1


def case_unbound_local_inside_comprehension(tensor, state):
    """ListComprehensionTest.test_unbound_local_inside_comprehension (3.12)"""
    self = Checks(state)
    def f():
        l = [None]
        return [1 for (l[0], l) in [[1, 2]]]

    with self.assertRaises(UnboundLocalError):
        f()
    return tensor + 1


NOT_PORTABLE = {
    "ListComprehensionTest (module and class scopes)": "exec of module/class source (class bodies are not captured)",
    "test_frame_locals": "sys._getframe().f_locals",
    "test_code_replace / test_code_replace_extended_arg": "code object surgery",
}


@pytest.mark.parametrize("case", parametrize(globals()))
def test_listcomps_port(case):
    if not hasattr(case, "reason") and case.__name__ != "case_doctests":
        assert_eager_passes(case)
    check(case)
