"""Issue 33's exception reports, kept as regressions (each failed, or crashed, before the fix):
caught exceptions corrupting the frame's value stack, resume functions that jump into a ``try``
region (whose handler depth the code generator used to leave bogus), exceptions formatted after a
``raise ... from`` inside captured code, keyword-call and ``with`` cleanup, and the generated-code
check that turns invalid resume code into a reported fallback."""
import contextlib
import traceback

import numpy as np
import pytest

import capture
from capture import resume
from capture.explain import recording
from runtime import Tensor, ops

from capture_helpers import assert_same


def _x():
    return Tensor(np.array([0.5, -1.0, 2.0], np.float32))


def _same_three_calls(fn, breaks=None, *args_fns):
    jitted = capture.jit(fn)
    with recording() as report:
        for _ in range(3):
            assert_same(jitted(_x()), fn(_x()))
    assert not [b for b in report.breaks if b.internal], [b.internal for b in report.breaks]
    if breaks is not None:
        assert len(report.breaks) == breaks, [str(b) for b in report.breaks]
    return report


def test_caught_key_error_then_an_op():
    def k(x):
        try:
            {}["k"]
        except KeyError:
            pass
        return ops.sin(x)

    _same_three_calls(k, breaks=0)


def test_caught_key_error_in_a_loop():
    d = {0: 2.0}

    def k(x):
        for n in range(3):
            try:
                x = x * d[n]
            except KeyError:
                x = x * ops.sin(x)
        return x

    _same_three_calls(k, breaks=0)


def test_graph_break_inside_a_try_then_a_caught_exception():
    """The resume function starts inside the try region and its handler must see the right stack."""
    d = {}

    def k(x):
        for n in range(2):
            try:
                y = x * 2.0
                print("inside try", n)  # a graph break inside the try body
                y = y * d[n]  # raises KeyError after the break: the resume code's handler runs
            except KeyError:
                y = ops.sin(x) + float(n)
        return y

    _same_three_calls(k)


def test_graph_break_inside_try_at_stack_depth():
    """A break with values on the stack (inside a call's argument list) inside a try region."""
    def helper(a, b, c=0.0):
        return a + b + c

    def k(x):
        try:
            z = helper(x, float(x.asnumpy().sum()), c={"a": 1.0}["b"])
        except KeyError:
            z = x * 3.0
        return ops.cos(z)

    _same_three_calls(k)


def test_break_inside_with_block_resumes_in_its_try_region():
    log = []

    class M:
        def __enter__(self):
            log.append("enter")
            return self

        def __exit__(self, *a):
            log.append(("exit", a[0].__name__ if a[0] else None))
            return True

    def k(x):
        with M():
            y = x + 1.0
            print("in with", float(y.asnumpy().sum()))  # break inside the with block
            {}["k"]
        return y * 2.0

    _same_three_calls(k)
    assert log.count("enter") == 6 and log.count(("exit", "KeyError")) == 6


def test_formatting_a_chained_exception_after_capture():
    """3.11 used to segfault formatting this exception (the frame's stack was corrupt)."""
    def k(x):
        y = ops.sin(x)
        try:
            {}["missing"]
        except KeyError as e:
            raise ValueError("bad") from e
        return y

    jitted = capture.jit(k)
    for _ in range(3):
        with pytest.raises(ValueError) as info:
            jitted(_x())
        text = "".join(traceback.format_exception(info.value))
        assert "KeyError" in text and "ValueError: bad" in text
        assert isinstance(info.value.__cause__, KeyError)


def test_kw_names_cleanup_when_an_argument_raises():
    def k(x):
        try:
            r = dict(a=1.0, b={}["k"])
        except KeyError:
            r = dict(a=2.0, b=3.0)
        return x * r["a"] + r["b"]

    _same_three_calls(k, breaks=0)


def test_suppress_and_generator_manager_that_never_yields():
    @contextlib.contextmanager
    def never_yields():
        if False:
            yield

    def k(x):
        with contextlib.suppress(KeyError):
            x = x * 2.0
            {}["k"]
        try:
            with never_yields():
                x = x * 100.0
        except RuntimeError as e:
            x = x + float(len(str(e)))
        return x

    _same_three_calls(k, breaks=0)


def test_block_stack_cleanup_in_nested_handlers():
    def k(x):
        out = 0.0
        for i in range(3):
            try:
                try:
                    if i == 1:
                        raise ValueError(i)
                    out += 1.0
                finally:
                    out += 10.0
            except ValueError:
                out += 100.0
                continue
            finally:
                out += 1000.0
        return x * out

    _same_three_calls(k, breaks=0)


def test_invalid_generated_code_is_a_reported_fallback(monkeypatch):
    """A resume code that fails the check is never run: the frame runs eagerly and says why."""
    calls = []

    def refuse(code, orig=None, index=None):
        calls.append(code)
        raise resume.NotResumable("generated code check failed (test)")

    monkeypatch.setattr(resume, "check_generated_code", refuse)

    def k(x):
        y = x * 2.0
        print("break")
        return y + 1.0

    jitted = capture.jit(k)
    with recording() as report:
        assert_same(jitted(_x()), k(_x()))
    assert calls and any("generated code check failed" in why for _, why in report.resume_fallbacks)


def test_resume_code_handler_depths_are_checked():
    """Every generated code object's exception table names handlers within its stack size."""
    def k(x):
        for n in range(2):
            try:
                print("b", n)
                x = x * {0: 2.0}[n]
            except KeyError:
                x = x + 1.0
        return x

    _same_three_calls(k)
    for code in resume.RESUME_INFO:
        resume.check_generated_code(code)
        for start, end, target, depth, lasti in resume._exception_table(code):
            assert depth < 1000 and depth + 1 + lasti <= code.co_stacksize
