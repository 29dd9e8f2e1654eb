"""A builtin that raises on its trace-time arguments (``abs('a')``, ``abs()``, ``divmod(1, 0)``)
inside a ``with``/``try`` of an inlined function: Python's exception, with its message, reaches
the user's handler as in eager (found by the CPython test_builtin port: it escaped the
translator as an internal error and the whole frame ran eagerly)."""
import numpy as np

import capture
from capture.explain import recording
from runtime import Tensor


class Suppress:
    def __init__(self, log):
        self.log = log

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        self.log.append((exc_type.__name__, str(exc)) if exc_type else None)
        return exc_type is not None


def call_suppressed(log, fn, *args):
    with Suppress(log):
        fn(*args)
    return len(log)


def f(t):
    log = []
    call_suppressed(log, abs, "a")
    call_suppressed(log, abs)
    call_suppressed(log, divmod, 1, 0)
    call_suppressed(log, round, float("inf"))
    try:
        abs(None)
    except TypeError as e:
        log.append(str(e))
    return log, t + 1


def test_builtin_errors_reach_the_users_handlers():
    t = Tensor(np.ones(3, np.float32))
    want = f(t)[0]
    capture.reset()
    with recording() as report:
        got = capture.jit(f)(t)[0]
    assert got == want
    assert not [b for b in report.breaks if getattr(b, "internal", None)]
