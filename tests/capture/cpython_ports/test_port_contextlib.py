"""CPython ``Lib/test/test_contextlib.py`` (3.11-3.13) ported as capture-vs-eager differential
tests. (PYTEST_DONT_REWRITE: the cases' own ``assert`` statements must stay plain Python.)

Each ``case_*`` is the body of the CPython test named in its docstring, as a function of a tensor
``x`` and a side-effect ``log`` (see ``exc_harness``). Not portable, and why:

======================================  ===============================================================
test_contextmanager_traceback           inspects traceback frames / line numbers of the generator
test_contextmanager_attribs, _doc_...   function metadata of the decorator, not behaviour of a frame
test_nokeepref, test_recursive          ``gc``/weakref lifetime of the generator, recursion via
                                        decorated methods (class machinery outside the frame)
testWithOpen/Lock/Condition/Semaphore   files and threading locks: C objects whose state capture
                                        cannot trace (a break; covered by the eager suites)
ExitStack / AsyncExitStack / aclosing   callbacks stacks with ``sys.exc_info`` juggling and
                                        ``async``: not ported (ExitStack runs eagerly: a break)
ContextDecorator tests                  decorating functions (a decorator applied at definition
                                        time, outside the frame)
chdir                                   changes the process's working directory
======================================  ===============================================================
"""
import contextlib
import io
import sys
from contextlib import contextmanager, nullcontext, suppress

import pytest

from runtime import ops

from exc_harness import check_case


def case_contextmanager_plain(x, log):
    """test_contextmanager_plain"""
    @contextmanager
    def woohoo():
        log.append(1)
        yield 42
        log.append(999)

    with woohoo() as v:
        log.append(v)
        y = ops.sin(x) + float(v)
    return y


@contextmanager
def _woohoo_finally(log):
    log.append(1)
    try:
        yield 42
    finally:
        log.append(999)


def case_contextmanager_finally(x, log):
    """test_contextmanager_finally"""
    try:
        with _woohoo_finally(log) as v:
            log.append(v)
            raise ZeroDivisionError()
    except ZeroDivisionError:
        log.append("caught")
    return x * 2.0


@contextmanager
def _whee():
    yield


def case_contextmanager_no_reraise(x, log):
    """test_contextmanager_no_reraise"""
    ctx = _whee()
    ctx.__enter__()
    log.append(ctx.__exit__(TypeError, TypeError("foo"), None))
    return x


@contextmanager
def _whoo():
    try:
        yield
    except Exception:  # noqa: B902
        yield


def case_contextmanager_trap_yield_after_throw(x, log):
    """test_contextmanager_trap_yield_after_throw"""
    ctx = _whoo()
    ctx.__enter__()
    try:
        ctx.__exit__(TypeError, TypeError("foo"), None)
    except RuntimeError as e:
        log.append(str(e))
    return x + 1.0


@contextmanager
def _no_yield():
    if False:
        yield


def case_contextmanager_trap_no_yield(x, log):
    """test_contextmanager_trap_no_yield"""
    ctx = _no_yield()
    try:
        ctx.__enter__()
    except RuntimeError as e:
        log.append(str(e))
    return x


@contextmanager
def _two_yields():
    yield
    yield


def case_contextmanager_trap_second_yield(x, log):
    """test_contextmanager_trap_second_yield"""
    ctx = _two_yields()
    ctx.__enter__()
    try:
        ctx.__exit__(None, None, None)
    except RuntimeError as e:
        log.append(str(e))
    return x


@contextmanager
def _except_manager(log):
    log.append(1)
    try:
        yield 42
    except ZeroDivisionError as e:
        log.append(e.args[0])


def case_contextmanager_except(x, log):
    """test_contextmanager_except"""
    with _except_manager(log) as v:
        log.append(v)
        raise ZeroDivisionError(999)
    return ops.cos(x)


@contextmanager
def _wrap_runtimeerror():
    try:
        yield
    except Exception as exc:
        raise RuntimeError(f"caught {exc}") from exc


def case_contextmanager_wrap_runtimeerror(x, log):
    """test_contextmanager_wrap_runtimeerror"""
    try:
        with _wrap_runtimeerror():
            raise NameError("foo")
    except RuntimeError as e:
        log.append((str(e), type(e.__cause__).__name__))
    return x


@contextmanager
def _woohoo_args(log, self, func, args, kwds):
    yield (self, func, args, kwds)


def case_keywords(x, log):
    """test_keywords"""
    with _woohoo_args(log, self=11, func=22, args=33, kwds=44) as target:
        log.append(target)
    return x


def case_param_errors(x, log):
    """test_param_errors (a bad call of the manager raises TypeError)"""
    try:
        with _woohoo_args(log):
            pass
    except TypeError as e:
        log.append("TypeError")
    return x


def case_nullcontext(x, log):
    """test_nullcontext"""
    c = object()
    with nullcontext(c) as c_in:
        log.append(c_in is c)
    with nullcontext() as none:
        log.append(none)
    return ops.exp(x)


def case_suppress_no_exception(x, log):
    """TestSuppress.test_no_exception"""
    with suppress(ValueError):
        log.append(pow(2, 5))
    return x


def case_suppress_exact_exception(x, log):
    """TestSuppress.test_exact_exception"""
    with suppress(TypeError):
        y = x * 2.0
        len(5)
    return y


def case_suppress_exception_hierarchy(x, log):
    """TestSuppress.test_exception_hierarchy"""
    with suppress(LookupError):
        "Hello"[50]
    with suppress(LookupError):
        {}["k"]
    return x - 2.0


def case_suppress_other_exception(x, log):
    """TestSuppress.test_other_exception"""
    try:
        with suppress(TypeError):
            1 / 0
    except ZeroDivisionError:
        log.append("ZeroDivisionError")
    return x


def case_suppress_no_args(x, log):
    """TestSuppress.test_no_args"""
    try:
        with suppress():
            1 / 0
    except ZeroDivisionError:
        log.append("ZeroDivisionError")
    return x


def case_suppress_multiple_exception_args(x, log):
    """TestSuppress.test_multiple_exception_args"""
    with suppress(ZeroDivisionError, TypeError):
        1 / 0
    with suppress(ZeroDivisionError, TypeError):
        len(5)
    return x * 4.0


def case_suppress_cm_is_reentrant(x, log):
    """TestSuppress.test_cm_is_reentrant"""
    ignore_exceptions = suppress(Exception)
    with ignore_exceptions:
        pass
    with ignore_exceptions:
        len(5)
    with ignore_exceptions:
        with ignore_exceptions:  # Check nested usage
            len(5)
        outer_continued = True
        1 / 0
    log.append(outer_continued)
    return x


class _Closeable:
    def __init__(self, log):
        self.log = log

    def close(self):
        self.log.append("closed")


def case_closing(x, log):
    """test_closing"""
    with contextlib.closing(_Closeable(log)) as y:
        log.append("body")
    return x


def case_closing_error(x, log):
    """test_closing_error"""
    try:
        with contextlib.closing(_Closeable(log)):
            1 / 0
    except ZeroDivisionError:
        log.append("ZeroDivisionError")
    return x


def case_redirect_stdout(x, log):
    """TestRedirectStdout.test_redirect_to_string_io"""
    f = io.StringIO()
    msg = "Consider an API like help(), which prints directly to stdout"
    orig_stdout = sys.stdout
    with contextlib.redirect_stdout(f):
        print(msg)
    log.append(orig_stdout is sys.stdout)
    log.append(f.getvalue().strip())
    return x


def case_enter_result_is_target(x, log):
    """TestRedirectStdout.test_enter_result_is_target"""
    f = io.StringIO()
    with contextlib.redirect_stdout(f) as enter_result:
        log.append(enter_result is f)
    return x


def case_generator_cm_in_loop(x, log):
    """a @contextmanager manager entered on every iteration of a loop around tensor ops"""
    for i in range(3):
        with _woohoo_finally(log) as v:
            x = x + float(v)
    return x


CASES = {name: fn for name, fn in sorted(globals().items()) if name.startswith("case_")}
#: expected breaks: decorating a function defined inside the frame (functools.wraps on a nested
#: function); object(); a manager called with missing arguments (the binding error is raised
#: eagerly). (redirect_stdout into a StringIO the frame made, and print into it, trace without one.)
MAY_BREAK = {"case_contextmanager_plain", "case_nullcontext", "case_param_errors"}


@pytest.mark.parametrize("name", list(CASES))
def test_port_contextlib(name):
    check_case(CASES[name], max_breaks=None if name in MAY_BREAK else 0)
