"""CPython ``Lib/test/test_with.py`` (3.11-3.13) ported as capture-vs-eager differential tests.
(PYTEST_DONT_REWRITE: the cases' own ``assert`` statements must stay plain Python.)

Each ``case_*`` is the body of the CPython test named in its docstring, rewritten as a function of
a tensor ``x`` and a side-effect ``log`` (see ``exc_harness``); the mock managers record their
calls in ``log`` instead of unittest assertions. Not portable, and why:

=================================  ==================================================================
testAssignmentToNoneError & co.    SyntaxError tests: compile-time, no bytecode to capture
testWithYield / testRaisedGenera-  the ``with`` is inside a generator body (generators: other suite)
torExit*
testErrorsInBool                   a ``__bool__`` raising inside ``__exit__``'s result test: ported
                                   as case_errors_in_bool
testExceptionNormalized            relies on C-level lazy normalisation (not observable in Python 3.11+)
=================================  ==================================================================
"""
from contextlib import contextmanager

import pytest

from runtime import ops

from exc_harness import check_case


class Mock:
    """A context manager recording its calls in ``log``."""

    def __init__(self, log, name="m", swallow=False, enter_error=None, exit_error=None):
        self.log, self.name, self.swallow = log, name, swallow
        self.enter_error, self.exit_error = enter_error, exit_error

    def __enter__(self):
        self.log.append(("enter", self.name))
        if self.enter_error is not None:
            raise self.enter_error
        return self.name

    def __exit__(self, t, v, tb):
        self.log.append(("exit", self.name, t.__name__ if t is not None else None, str(v) if v is not None else None))
        if self.exit_error is not None:
            raise self.exit_error
        return self.swallow


@contextmanager
def gen_cm(log, name="g"):
    log.append(("gen enter", name))
    try:
        yield name
    finally:
        log.append(("gen exit", name))


def case_no_exceptions(x, log):
    """testNoExceptions"""
    with Mock(log) as v:
        y = ops.sin(x)
        log.append(v)
    return y


def case_exception_in_body(x, log):
    """testSingleResource (the body raises RuntimeError)"""
    try:
        with Mock(log):
            y = x * 2.0
            raise RuntimeError("test exception")
    except RuntimeError as e:
        log.append(str(e))
    return y


def case_exception_in_enter(x, log):
    """testEnterThrows / testExceptionInEnter"""
    try:
        with Mock(log, enter_error=RuntimeError("enter")):
            log.append("body")
    except RuntimeError as e:
        log.append(str(e))
    return x + 1.0


def case_exception_in_exit(x, log):
    """testExitThrows / testExceptionInExit"""
    try:
        with Mock(log, exit_error=RuntimeError("exit")):
            y = ops.cos(x)
    except RuntimeError as e:
        log.append(str(e))
    return y


def case_exit_true_swallows(x, log):
    """testExitTrueSwallowsException"""
    with Mock(log, swallow=True):
        y = x * 3.0
        1 / 0
    return y


def case_exit_false_doesnt_swallow(x, log):
    """testExitFalseDoesntSwallowException"""
    try:
        with Mock(log, swallow=False):
            1 / 0
    except ZeroDivisionError as e:
        log.append(str(e))
    return x


def case_nested_single_statements(x, log):
    """testNestedSingleStatements"""
    try:
        with Mock(log, "a") as a:
            with Mock(log, "b") as b:
                y = ops.exp(x)
                log.append((a, b))
                raise RuntimeError("inner")
    except RuntimeError:
        log.append("caught")
    return y


def case_multiple_resources_single_statement(x, log):
    """testMultipleResourcesInSingleStatement"""
    try:
        with Mock(log, "a") as a, Mock(log, "b") as b:
            log.append((a, b))
            raise RuntimeError("both")
    except RuntimeError:
        log.append("caught")
    return x * x


def case_nested_exception_before_inner(x, log):
    """testNestedExceptionBeforeInnerStatement"""
    try:
        with Mock(log, "a"):
            raise RuntimeError("before")
            with Mock(log, "b"):  # unreachable, as in CPython's test
                pass
    except RuntimeError:
        log.append("caught")
    return x


def case_nested_exception_after_inner(x, log):
    """testNestedExceptionAfterInnerStatement"""
    try:
        with Mock(log, "a"):
            with Mock(log, "b"):
                y = x - 1.0
            raise RuntimeError("after")
    except RuntimeError:
        log.append("caught")
    return y


def case_raised_stop_iteration2(x, log):
    """testRaisedStopIteration2 (a class manager)"""
    try:
        with Mock(log):
            raise StopIteration("from with")
    except StopIteration as e:
        log.append(str(e))
    return x


def case_with_break(x, log):
    """testWithBreak"""
    counter = 0
    while True:
        counter += 1
        with Mock(log):
            counter += 10
            break
        counter += 100  # not reached
    log.append(counter)
    return x * float(counter)


def case_with_continue(x, log):
    """testWithContinue"""
    counter = 0
    while True:
        counter += 1
        if counter > 2:
            break
        with Mock(log):
            counter += 10
            continue
        counter += 100  # not reached
    log.append(counter)
    return x + float(counter)


def case_with_return(x, log):
    """testWithReturn"""
    with Mock(log):
        return ops.sin(x) * 2.0


def case_with_raise(x, log):
    """testWithRaise"""
    counter = 0
    try:
        counter += 1
        with Mock(log):
            counter += 10
            raise RuntimeError
        counter += 100  # not reached
    except RuntimeError:
        log.append(counter)
    return x


def case_single_complex_target(x, log):
    """testSingleComplexTarget"""
    targets = {1: [0, 1, 2]}
    with Mock(log) as targets[1][0]:
        log.append(list(targets.items()))
    return x


class _Triple:
    def __enter__(self):
        return 1, 2, 3

    def __exit__(self, t, v, tb):
        pass


def case_multiple_complex_targets(x, log):
    """testMultipleComplexTargets"""
    C = _Triple
    targets = {1: [0, 1, 2]}
    with C() as (targets[1][0], targets[1][1], targets[1][2]):
        log.append(targets[1])
    with C() as (a, *b):
        log.append((a, b))
    return x


class _Pair:
    def __enter__(self):
        return (1, 2)

    def __exit__(self, *a):
        pass


def case_enter_returns_tuple(x, log):
    """testEnterReturnsTuple"""
    A = _Pair
    with A() as (a, b):
        log.append(a + b)
    return x * float(a + b)


class _BadBool:
    def __bool__(self):
        raise AssertionError("bad bool")


class _ExitReturnsBadBool:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return _BadBool()


def case_errors_in_bool(x, log):
    """testErrorsInBool: __exit__ returns an object whose truth value raises"""
    cm = _ExitReturnsBadBool
    try:
        with cm():
            raise RuntimeError("body")
    except AssertionError as e:
        log.append(str(e))
    return x


class _LacksEnter:
    def __exit__(self, *a):
        pass


def case_not_a_context_manager(x, log):
    """testEnterAttributeError1 / testExitAttributeError"""
    LacksEnter = _LacksEnter
    try:
        with LacksEnter():
            pass
    except (AttributeError, TypeError) as e:
        log.append(type(e).__name__)
    return x


def case_generator_manager(x, log):
    """testInlineGeneratorBoundSyntax (a @contextmanager manager)"""
    with gen_cm(log) as name:
        y = ops.sin(x)
        log.append(name)
    return y


def case_generator_manager_exception(x, log):
    """testSingleResource with a @contextmanager manager"""
    try:
        with gen_cm(log):
            raise RuntimeError("boom")
    except RuntimeError as e:
        log.append(str(e))
    return x * 2.0


def case_exception_in_expr_list(x, log):
    """testExceptionInExprList"""
    try:
        with Mock(log) as a, Mock(log, enter_error=RuntimeError("second")) as b:
            log.append("body")
    except RuntimeError as e:
        log.append(str(e))
    return x


def case_with_in_loop_break_after_op(x, log):
    """a captured `with` inside a loop over a tensor computation"""
    for i in range(3):
        with Mock(log, str(i)):
            x = x * 1.5
    return x


CASES = {name: fn for name, fn in sorted(globals().items()) if name.startswith("case_")}
#: cases whose error Python raises from a special-method lookup or a __bool__ (a break is expected)
MAY_BREAK = {"case_not_a_context_manager", "case_errors_in_bool"}


@pytest.mark.parametrize("name", list(CASES))
def test_port_with(name):
    check_case(CASES[name], max_breaks=None if name in MAY_BREAK else 0)
