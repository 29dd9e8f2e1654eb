"""A graph break inside an ``except``/``finally`` handler (issue 33): the code before the ``try``
statement runs as a graph, and the frame resumes at the entry of that ``try`` statement, which
runs eagerly in a resume function (the handler's state, i.e. the exception being handled,
``sys.exc_info()`` and the handler's stack, is made by CPython itself there, never rebuilt).

Each case is run eagerly, jitted (twice) and under the frame hook, and compared on results,
printed output, side effects (``log``: including ``sys.exc_info()`` read inside the handler),
exceptions with their ``__cause__``/``__context__`` chain, and the line numbers of the case's own
frames in the traceback of an exception that escapes. The jitted run must build a graph for the
code before the ``try`` (no resume fallback: before this, such a frame ran eagerly entirely).
Generated resume code that fails its check is an error in these tests (conftest), never a
silent fallback.
"""
import contextlib
import io
import sys
import traceback

import numpy as np
import pytest

import capture
import runtime as ms
from capture.explain import recording
from runtime import Tensor, ops

from cpython_ports.exc_harness import normalize, normalize_exception, same


def _args():
    return Tensor(np.array([0.5, -1.0, 2.0], np.float32)), []


def _exc_info():
    """sys.exc_info() as comparable text (a call capture cannot trace: the graph break)."""
    t, v, tb = sys.exc_info()
    return (t.__name__ if t else None, repr(v), tb is not None)


# -- the cases ------------------------------------------------------------------------------------------
def case_except_reads_exc_info(x, log):
    y = ops.cos(x) * 2
    try:
        raise KeyError("k")
    except KeyError as e:
        log.append(_exc_info())
        log.append(repr(e))
        y = y + 1
    log.append(_exc_info())  # nothing handled any more
    return ops.sin(y)


def case_print_in_handler(x, log):
    y = ops.exp(x)
    try:
        d = {}
        y = y * d["missing"]
    except KeyError:
        print("handled", _exc_info())
        y = y - 1
    return y * 3


def case_raise_from_after_break(x, log):
    y = ops.tanh(x)
    try:
        [][1]
    except IndexError as e:
        log.append(_exc_info())
        raise ValueError("wrapped") from e
    return y


def case_implicit_context_after_break(x, log):
    y = ops.tanh(x)
    try:
        raise TypeError("first")
    except TypeError:
        log.append(_exc_info())
        raise RuntimeError("second")
    return y


def case_bare_reraise_after_break(x, log):
    y = x * 2
    try:
        raise ZeroDivisionError("z")
    except ZeroDivisionError:
        log.append(_exc_info())
        raise
    return y


def case_finally_on_exception_path(x, log):
    y = ops.sin(x)
    try:
        log.append("body")
        raise LookupError("out")
    finally:
        log.append(_exc_info())
        y = y + 1
    return y


def case_finally_on_normal_path(x, log):
    y = ops.sin(x)
    try:
        y = y + 2
    finally:
        log.append(_exc_info())
    return y * y


def _raises_inside(v):
    if v.shape[0] == 3:
        raise ArithmeticError("from a callee")
    return v


def case_exception_from_inlined_callee(x, log):
    y = ops.cos(x)
    try:
        y = _raises_inside(y)
    except ArithmeticError as e:
        log.append((_exc_info(), str(e)))
        y = y * 10
    else:
        log.append("else")
    return y + 1


def case_nested_try_inner_handler_breaks(x, log):
    y = ops.sin(x)
    try:
        y = y + 1
        try:
            raise KeyError("inner")
        except KeyError:
            log.append(_exc_info())
            y = y * 2
        y = y - 3
    except Exception:
        log.append("outer")
    return y


def case_handler_inside_handler(x, log):
    y = ops.sin(x)
    try:
        raise KeyError("a")
    except KeyError:
        try:
            raise ValueError("b")
        except ValueError:
            log.append(_exc_info())
        log.append(_exc_info())  # KeyError again
    return y


def case_try_inside_loop(x, log):
    y = ops.sin(x)
    for i in range(3):
        try:
            if i == 1:
                raise KeyError(i)
            y = y + i
        except KeyError:
            log.append((i, _exc_info()))
            y = y * 2
    return y


def case_try_else_finally(x, log):
    y = ops.cos(x)
    try:
        y = y + 1
        raise OSError("io")
    except OSError as e:
        log.append(_exc_info())
        y = y + len(str(e))
    else:
        y = y - 100
    finally:
        log.append("finally")
    return y


def case_escaping_error_line(x, log):
    y = ops.cos(x)
    try:
        {}["k"]
    except KeyError:
        log.append(_exc_info())
        y.not_an_attribute  # AttributeError, with the KeyError as its context
    return y


class _Manager:
    def __init__(self, log):
        self.log = log

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.log.append(("exit", _exc_info()))
        return True  # suppresses


def case_with_exit_breaks_while_handling(x, log):
    y = ops.sin(x)
    with _Manager(log):
        y = y + 1
        raise KeyError("swallowed")
    return y


def case_break_before_and_inside_the_handler(x, log):
    """Two breaks: the second, inside the handler, is in the resume function of the first."""
    y = ops.sin(x)
    log.append(float(y.asnumpy().sum()) > -10)  # the first break
    y = ops.cos(y)
    try:
        raise KeyError("second")
    except KeyError:
        log.append(_exc_info())  # the second break, in the resumed code's handler
        y = y * 5
    return y + 1


CASES = [v for k, v in sorted(globals().items()) if k.startswith("case_")]


# -- the harness -----------------------------------------------------------------------------------------
def _tb_lines(error, name):
    """Line numbers of the frames named ``name`` in ``error``'s traceback (and its chain's)."""
    out = []
    e = error
    while e is not None and len(out) < 8:
        out.append([f.lineno for f in traceback.extract_tb(e.__traceback__) if f.name == name])
        e = e.__cause__ or e.__context__
    return out


def _observe(fn, args):
    text = io.StringIO()
    result = error = None
    with contextlib.redirect_stdout(text):
        try:
            result = fn(*args)
        except Exception as e:  # compared with the other runs'
            error = e
    return {"result": normalize(result), "exception": normalize_exception(error),
            "printed": text.getvalue(), "log": normalize(args[-1]),
            "tb_lines": _tb_lines(error, fn.__name__) if error is not None else None}


def _diff(mode, want, got):
    return [f"{mode}: {k} differs: eager {want[k]!r} vs capture {got[k]!r}"
            for k in want if not same(want[k], got[k])]


@pytest.mark.parametrize("case", CASES, ids=lambda f: f.__name__)
def test_break_inside_handler_equals_eager_and_keeps_the_prefix_compiled(case):
    ms.set_context(mode=ms.PYNATIVE_MODE)
    want = _observe(case, _args())
    capture.reset()
    jitted = capture.jit(case)
    problems = []
    for call in (1, 2):
        with recording() as report:
            got = _observe(jitted, _args())
        problems += _diff(f"jit call {call}", want, got)
        problems += [f"internal error: {b.reason}" for b in report.breaks if b.internal]
        if call == 1:
            first = report
    assert first.graph_break_count >= 1, "the case must break inside its handler"
    assert not first.resume_fallbacks, first.resume_fallbacks
    assert first.graph_count >= 1, "the code before the try statement must run as a graph"
    capture.reset()
    with recording() as report:
        with capture.enabled():
            got = _observe(case, _args())
    problems += _diff("frame hook", want, got)
    problems += [f"internal error: {b.reason}" for b in report.breaks if b.internal]
    assert not problems, "\n".join(problems)


def test_the_resume_point_is_the_try_statement_not_the_handler():
    """The resume function of a handler break starts at the try statement: the break's report
    names the handler's line, and the resumed code object covers the try body."""
    x, log = _args()
    capture.reset()
    jitted = capture.jit(case_except_reads_exc_info)
    with recording() as report:
        jitted(x, log)
    assert report.graph_break_count == 1 and not report.resume_fallbacks
    (brk,) = report.breaks
    assert "_exc_info" in brk.source or "sys.exc_info" in brk.reason or "exc_info" in brk.reason, brk
    from capture import resume
    resumed = [c for c in resume.DERIVED.get(case_except_reads_exc_info.__code__, ())]
    assert resumed, "a resume function was made"
    assert all(resume.RESUME_INFO[c].line == case_except_reads_exc_info.__code__.co_firstlineno + 3
               for c in resumed), [resume.RESUME_INFO[c].line for c in resumed]


def case_break_in_try_body_inside_loop_inside_try(x, log):
    """(Fuzz-exc program 38's shape.) Resuming in the inner try body, the outer try's handler
    is reached only from inside the loop: its resume code once got the loop's depth for it (or
    a bogus 32768) and fell back to eager silently."""
    y = ops.sin(x)
    try:
        y = y + 1
        for i in range(3):
            try:
                log.append(float(x.asnumpy().sum()) > 0)  # the break, inside the inner try body
            except KeyError:
                log.append("never")
            finally:
                log.append(("finally", i))
            if i == 1:
                raise IndexError("out of the loop")
    except IndexError as e:
        log.append(str(e))
        y = y * 2
    return y


def test_resume_code_keeps_the_original_handler_depths():
    o_want = _observe(case_break_in_try_body_inside_loop_inside_try, _args())
    capture.reset()
    jitted = capture.jit(case_break_in_try_body_inside_loop_inside_try)
    with recording() as report:
        got = _observe(jitted, _args())
    assert not _diff("jit", o_want, got), _diff("jit", o_want, got)
    assert report.graph_break_count >= 1
    assert not report.resume_fallbacks, report.resume_fallbacks
    assert report.graph_count >= 1
