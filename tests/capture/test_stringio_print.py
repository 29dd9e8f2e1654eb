"""``print`` into an ``io.StringIO`` the captured code made (and ``contextlib.redirect_stdout``
into it) is traced without a graph break (issue 33; TorchDynamo has none either): the text is
modelled (capture/variables/streams.py) and the StringIO rebuilt after the graph where it
outlives it. Each case is compared with eager, jitted (twice) and under the frame hook, on
results, printed output and ``log``; the break counts are pinned."""
import contextlib
import io
import sys

import numpy as np
import pytest

import capture
from capture.explain import recording
from runtime import Tensor, ops

from cpython_ports.exc_harness import normalize, normalize_exception, same


def case_redirect_stdout_into_a_local_stringio(x, log):
    """CPython's TestRedirectStdout.test_redirect_to_string_io"""
    f = io.StringIO()
    msg = "Consider an API like help(), which prints directly to stdout"
    orig_stdout = sys.stdout
    with contextlib.redirect_stdout(f):
        print(msg)
    log.append(orig_stdout is sys.stdout)
    log.append(f.getvalue().strip())
    return ops.sin(x)


def case_enter_result_is_target(x, log):
    """CPython's TestRedirectStdout.test_enter_result_is_target"""
    f = io.StringIO()
    with contextlib.redirect_stdout(f) as enter_result:
        log.append(enter_result is f)
    return x * 2


def case_print_file_keyword_and_separators(x, log):
    f = io.StringIO()
    print("a", 1, 2.5, None, True, (1, "b"), sep="-", end="!", file=f)
    print(file=f)
    n = f.write("written")
    log.append((n, f.getvalue(), isinstance(f, io.StringIO)))
    return ops.cos(x)


def case_print_a_tensor_into_the_returned_stringio(x, log):
    f = io.StringIO()
    y = x * 3 + 1  # (exact in every backend: the printed digits are compared)
    print("y =", y, file=f)
    y[0] = 100.0  # (an update after the print: the text keeps the printed value)
    return y, f


def case_stringio_stored_in_the_log(x, log):
    f = io.StringIO()
    with contextlib.redirect_stdout(f):
        print("inside", x * 2)
    log.append(f)
    return x + 1


_ZERO_BREAKS = [case_redirect_stdout_into_a_local_stringio, case_enter_result_is_target,
                case_print_file_keyword_and_separators, case_print_a_tensor_into_the_returned_stringio,
                case_stringio_stored_in_the_log]


def case_getvalue_of_tensor_text_breaks(x, log):
    f = io.StringIO()
    print(x * 2, file=f)
    text = f.getvalue()  # run-time text: a graph break, the StringIO rebuilt for the rest
    log.append(text)
    return x * 2


def case_break_inside_the_redirect_block(x, log):
    f = io.StringIO()
    with contextlib.redirect_stdout(f):
        print("before")
        log.append(float(x.asnumpy().sum()))  # a graph break: sys.stdout is f, rebuilt
        print("after", sys.stdout is f)
    log.append((f.getvalue(), sys.stdout is f))
    return x


def case_print_to_the_terminal_still_breaks(x, log):
    print("to the real stdout", 3)
    return ops.sin(x)


def case_unknown_text_breaks(x, log):
    f = io.StringIO()
    print(object, file=f)  # (a class: str() of a non-plain value is not modelled)
    log.append(f.getvalue())
    return x


#: cases that break, and how often (pinned). After a break the StringIO is a real one the resumed
#: code receives from outside: its methods are not traced there (hence the later breaks of
#: case_unknown_text_breaks)
_BREAKING = {case_getvalue_of_tensor_text_breaks: 1, case_break_inside_the_redirect_block: 1,
             case_print_to_the_terminal_still_breaks: 1, case_unknown_text_breaks: 3}


def _as_text(v):
    """StringIO results and log items compared by their text and position (the harness
    compares objects by their __dict__, which a StringIO has not)."""
    if isinstance(v, io.StringIO):
        return ("StringIO", v.getvalue(), v.tell())
    if isinstance(v, tuple):
        return tuple(_as_text(i) for i in v)
    if isinstance(v, list):
        return [_as_text(i) for i in v]
    return v


def _args():
    return Tensor(np.array([0.5, -1.0, 2.0], np.float32)), []


def _observe(fn):
    x, log = _args()
    text = io.StringIO()
    result = error = None
    stdout_before = sys.stdout
    with contextlib.redirect_stdout(text):
        try:
            result = fn(x, log)
        except Exception as e:  # compared with eager's
            error = e
        restored = sys.stdout is text
    return {"result": normalize(_as_text(result)), "exception": normalize_exception(error),
            "printed": text.getvalue(), "log": normalize(_as_text(log)),
            "stdout restored": (restored, sys.stdout is stdout_before)}


@pytest.mark.parametrize("case", _ZERO_BREAKS + list(_BREAKING), ids=lambda f: f.__name__)
def test_stringio_and_print_equal_eager(case):
    want = _observe(case)
    capture.reset()
    jitted = capture.jit(case)
    problems = []
    for call in (1, 2):
        with recording() as report:
            got = _observe(jitted)
        problems += [f"jit call {call}: {k}: eager {want[k]!r} vs {got[k]!r}" for k in want if not same(want[k], got[k])]
        problems += [f"internal: {b.reason}" for b in report.breaks if b.internal]
        problems += [f"resume fallback: {r}" for r in report.resume_fallbacks]
        if call == 1:
            breaks = [b.reason for b in report.breaks]
    capture.reset()
    with recording() as report:
        with capture.enabled():
            got = _observe(case)
    problems += [f"frame hook: {k}: eager {want[k]!r} vs {got[k]!r}" for k in want if not same(want[k], got[k])]
    assert not problems, "\n".join(problems)
    assert len(breaks) == _BREAKING.get(case, 0), breaks
