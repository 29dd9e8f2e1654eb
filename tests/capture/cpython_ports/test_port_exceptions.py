"""CPython ``Lib/test/test_exceptions.py`` (3.11-3.13), portable parts, as capture-vs-eager
differential tests. (PYTEST_DONT_REWRITE: the cases' own ``assert`` statements stay plain Python.)

Each ``case_*`` is the body of the CPython test named in its docstring, as a function of a tensor
``x`` and a side-effect ``log`` (see ``exc_harness``). Not portable, and why:

=====================================  ==================================================================
testSyntaxError*, test_error_offset*   compile-time errors: no bytecode to capture
testSettingException / test_capi*      the C API (``_testcapi``)
test_WindowsError, test_windows_*      Windows only
testWithTraceback, testInvalidTrace-   traceback objects: the interpreter's frame records
back, testNoneClearsTracebackAttr
testInfiniteRecursion, test_recur-     RecursionError depends on the C stack and the interpreter's
sion_*, test_trashcan_recursion        recursion limit, which inlining does not mirror frame by frame
test_generator_*                       generators (other suite)
test_MemoryError, test_memory_error_*  allocation failure
test_unraisable, test_badisinstance    ``sys.unraisablehook`` and metaclass ``__instancecheck__`` hooks
test_unicode_*                         UnicodeError constructors' C-level attribute checks; ported
                                       for the attribute reads only (case_unicode_error_attributes)
testExceptionCleanupState, test_3114   ``gc``/``weakref`` lifetime of exception objects
test_no_hang_on_context_chain_*        exceptions made in ``__init__``-overriding classes in a loop of
                                       up to a million raises (run time, not semantics)
=====================================  ==================================================================
"""
import pytest

from runtime import ops

from exc_harness import check_case


def _raise_catch(exc, name, log):
    try:
        raise exc("spam")
    except exc as err:
        log.append((name, str(err)))
    try:
        raise exc("spam")
    except exc as err:
        log.append(str(err) == "spam")


def case_raising(x, log):
    """testRaising (the exception kinds Python code can raise without I/O)"""
    for exc, name in ((AttributeError, "AttributeError"), (EOFError, "EOFError"), (OSError, "OSError"),
                      (IndexError, "IndexError"), (KeyError, "KeyError"), (NameError, "NameError"),
                      (OverflowError, "OverflowError"), (RuntimeError, "RuntimeError"),
                      (TypeError, "TypeError"), (ValueError, "ValueError"),
                      (ZeroDivisionError, "ZeroDivisionError"), (Exception, "Exception")):
        _raise_catch(exc, name, log)
    return ops.sin(x)


def case_raising_from_operations(x, log):
    """testRaising: the errors raised by operations (x[10], {}['key'], undefined names, 1/0)"""
    lst = []
    try:
        lst[10]
    except IndexError as e:
        log.append(str(e))
    d = {}
    try:
        d["key"]
    except KeyError as e:
        log.append(repr(e))
    try:
        undefined_variable
    except NameError as e:
        log.append(str(e))
    try:
        1 // 0
    except ZeroDivisionError as e:
        log.append(str(e))
    try:
        int("not a number")
    except ValueError as e:
        log.append(str(e))
    return x * 2.0


def case_attributes(x, log):
    """testAttributes (args of the builtin exceptions)"""
    for e in (BaseException(), BaseException(1), BaseException(1, 2), Exception("foo"),
              KeyError("k"), IndexError(1, 2, 3)):
        log.append((type(e).__name__, e.args, str(e)))
    return x


def case_chaining_attrs(x, log):
    """testChainingAttrs"""
    for e in (Exception(), TypeError()):
        log.append((e.__context__, e.__cause__))
    return x + 1.0


def case_chaining_descriptors(x, log):
    """testChainingDescriptors"""
    try:
        raise Exception()
    except Exception as exc:
        e = exc
    log.append((e.__context__, e.__cause__, e.__suppress_context__))
    e.__context__ = NameError()
    e.__cause__ = None
    log.append((type(e.__context__).__name__, e.__cause__, e.__suppress_context__))
    e.__suppress_context__ = False
    log.append(e.__suppress_context__)
    return x


def case_keyword_args(x, log):
    """testKeywordArgs (builtin exceptions take no keyword arguments)"""
    try:
        BaseException(a=1)
    except TypeError:
        log.append("TypeError")
    return x


class _DerivedException(BaseException):
    def __init__(self, fancy_arg):
        BaseException.__init__(self)
        self.fancy_arg = fancy_arg


class _CodedError(Exception):
    def __init__(self, msg, code=3):
        super().__init__(msg)
        self.code = code

    def describe(self):
        return f"{self.args[0]}:{self.code}"


def case_keyword_args_derived(x, log):
    """testKeywordArgs (a user-defined subclass takes keyword arguments in its __init__)"""
    e = _DerivedException(fancy_arg=42)
    log.append(e.fancy_arg)
    try:
        raise _CodedError("bad", code=7)
    except _CodedError as err:
        log.append((str(err), err.code, err.args, err.describe()))
    return x * 2.0


def case_str(x, log):
    """test_str"""
    log.append((bool(str(Exception)), str(Exception("a")), str(Exception("a", "b"))))
    return x


def case_exception_cleanup_names(x, log):
    """test_exception_cleanup_names"""
    try:
        raise Exception()
    except Exception as e:
        log.append(isinstance(e, Exception))
    try:
        e  # noqa: F821
    except UnboundLocalError:
        log.append("UnboundLocalError")
    return ops.cos(x)


def case_exception_cleanup_names2(x, log):
    """test_exception_cleanup_names2"""
    try:
        raise Exception()
    except Exception as e:
        log.append(isinstance(e, Exception))
        del e
    try:
        e  # noqa: F821
    except UnboundLocalError:
        log.append("UnboundLocalError")
    return x


def case_context_of_exception_in_try_and_finally(x, log):
    """test_context_of_exception_in_try_and_finally"""
    try:
        try:
            te = TypeError(1)
            raise te
        finally:
            ve = ValueError(2)
            raise ve
    except Exception as e:
        exc = e
    log.append((exc is ve, exc.__context__ is te))
    return x


def case_context_of_exception_in_except_and_finally(x, log):
    """test_context_of_exception_in_except_and_finally"""
    try:
        try:
            te = TypeError(1)
            raise te
        except:  # noqa: E722
            ve = ValueError(2)
            raise ve
        finally:
            oe = OSError(3)
            raise oe
    except Exception as e:
        exc = e
    log.append((exc is oe, exc.__context__ is ve, exc.__context__.__context__ is te))
    return x * 3.0


def case_context_of_exception_in_else_and_finally(x, log):
    """test_context_of_exception_in_else_and_finally"""
    try:
        try:
            pass
        except:  # noqa: E722
            pass
        else:
            ve = ValueError(1)
            raise ve
        finally:
            oe = OSError(2)
            raise oe
    except Exception as e:
        exc = e
    log.append((exc is oe, exc.__context__ is ve))
    return x


def case_raise_does_not_create_context_chain_cycle(x, log):
    """test_raise_does_not_create_context_chain_cycle"""
    A, B, C = AssertionError("A"), AssertionError("B"), AssertionError("C")
    try:
        try:
            raise A
        except AssertionError as a_:
            a = a_
            try:
                raise B
            except AssertionError as b_:
                b = b_
                try:
                    raise C
                except AssertionError as c_:
                    c = c_
                    raise a
    except AssertionError as e:
        log.append(e is a)
    log.append((a.__context__ is c, b.__context__, c.__context__ is b))
    return x


def case_try_except_else_finally_order(x, log):
    """the order of try/except/else/finally clauses (test_exceptions' flow checks)"""
    for fail in (False, True):
        try:
            log.append("try")
            if fail:
                raise ValueError("v")
        except ValueError:
            log.append("except")
        else:
            log.append("else")
        finally:
            log.append("finally")
    return x - 1.0


def case_finally_overrides_return(x, log):
    """a return inside finally replaces the pending exception"""
    def f():
        try:
            raise KeyError("k")
        finally:
            return 5
    log.append(f())
    return x * float(log[-1])


def case_exception_in_called_function(x, log):
    """an exception raised in a called (inlined) function, caught by the caller"""
    def inner(d):
        return d["missing"]

    try:
        y = inner({"present": 1})
    except KeyError as e:
        log.append(repr(e))
        y = 0
    return x + float(y)


def case_exception_through_two_frames(x, log):
    """propagation through a frame without a handler, then a finally in the middle"""
    def g():
        raise ValueError("deep")

    def f():
        try:
            g()
        finally:
            log.append("f finally")

    try:
        f()
    except ValueError as e:
        log.append(str(e))
    return ops.exp(x)


def case_kw_names_cleanup(x, log):
    """issue 33: an exception inside a keyword call's arguments (KW_NAMES pending)"""
    d = {}
    try:
        r = dict(a=1, b=d["missing"])
    except KeyError:
        r = dict(a=2, b=3)
    log.append(r)
    return x * float(r["a"])


def case_exception_in_loop_with_continue(x, log):
    """a caught exception that continues a loop"""
    total = 0.0
    for i in range(5):
        try:
            if i % 2:
                raise ValueError(i)
        except ValueError:
            continue
        total += i
    log.append(total)
    return x + total


def case_isinstance_and_args(x, log):
    """isinstance/args of a caught exception"""
    try:
        raise KeyError("a", 1)
    except LookupError as e:
        log.append((isinstance(e, KeyError), e.args, type(e) is KeyError))
    return x


def case_add_note(x, log):
    """test_notes (add_note and __notes__)"""
    try:
        raise ValueError("v")
    except ValueError as e:
        e.add_note("first")
        e.add_note("second")
        log.append(e.__notes__)
    return x


CASES = {name: fn for name, fn in sorted(globals().items()) if name.startswith("case_")}
MAY_BREAK = set()


@pytest.mark.parametrize("name", list(CASES))
def test_port_exceptions(name):
    check_case(CASES[name], max_breaks=None if name in MAY_BREAK else 0)
