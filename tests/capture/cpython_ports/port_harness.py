"""Differential harness for the CPython ``Lib/test`` ports (generators, dicts and views, sets,
scopes, classes, descriptors, partial, itertools): each case runs eagerly, jitted
(``ms.jit``) and under the frame hook (``capture.enabled()``), twice each (the second call
reuses the compiled entry), and every run must equal the eager run of the same call on

- the result: types and values, recursively; a generator, iterator or dict view that comes back
  is compared by its type and by what it still yields (consumed after the call, which runs the
  rest of a real generator's body: its side effects are observed too);
- the exception raised (type and message);
- the printed output;
- side effects on the call's arguments (a fresh ``state`` dict per call, compared after).

An internal capture error (the "failed internally; running eagerly" path) fails the case even
when the eager rerun gives the right answer: a hidden fallback is a bug, not a pass.

A case is ``def case_name(x, state): ...`` with ``x`` a Tensor (so capture has something to
trace). ``not_portable(reason)`` marks a CPython test that has no capture-vs-eager meaning
(it needs the interpreter's internals, threads, gc timing...); it is reported as skipped.
"""
from __future__ import annotations

import collections.abc
import contextlib
import io
import types

import numpy as np

import capture
import runtime as ms
from capture.explain import recording
from runtime import Tensor

CALLS = 2

_VIEW_TYPES = (collections.abc.KeysView, collections.abc.ValuesView, collections.abc.ItemsView)


def normalize(value, depth=0, budget=None):
    """A comparable description of ``value`` (types kept; addresses dropped). At most 20 levels
    and 5000 values are described (a module's globals coming back by mistake must not hang)."""
    budget = [5000] if budget is None else budget
    budget[0] -= 1
    if depth > 20 or budget[0] < 0:
        return ("too large",)
    n = lambda v: normalize(v, depth + 1, budget)
    if isinstance(value, Tensor):
        return ("Tensor", tuple(value.shape), str(value.dtype), value.asnumpy().tolist())
    if isinstance(value, (bool, int, float, complex, str, bytes, type(None))):
        if isinstance(value, float) and value != value:
            return ("float", "nan")
        return (type(value).__name__, value)
    if isinstance(value, np.ndarray):
        return ("ndarray", str(value.dtype), value.tolist())
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [n(v) for v in value])
    if isinstance(value, dict):
        return (type(value).__name__, [(n(k), n(v)) for k, v in value.items()])
    if isinstance(value, (set, frozenset)):
        return (type(value).__name__, sorted(repr(n(v)) for v in value))
    if isinstance(value, _VIEW_TYPES):
        return (type(value).__name__, [n(v) for v in value])
    if isinstance(value, types.MappingProxyType):
        return ("mappingproxy", n(dict(value)))
    if isinstance(value, (types.GeneratorType, collections.abc.Iterator)):
        kind = type(value).__name__
        try:
            rest = [n(v) for v in value]
            return (kind, rest)
        except Exception as e:  # the rest raised: part of the behaviour
            return (kind, "raised", type(e).__name__, str(e))
    if isinstance(value, BaseException):
        return ("exception", type(value).__name__, str(value))
    if isinstance(value, type):
        return ("class", value.__qualname__)
    if isinstance(value, (types.FunctionType, types.BuiltinFunctionType)):
        return ("function", getattr(value, "__qualname__", repr(value)))
    if isinstance(value, types.MethodType):
        return ("method", value.__func__.__qualname__, n(value.__self__))
    if hasattr(value, "__dict__") and not isinstance(value, types.ModuleType):
        return (type(value).__qualname__, [(k, n(v)) for k, v in vars(value).items()])
    r = repr(value)
    return (type(value).__qualname__, r if " at 0x" not in r else "")


class Observation:
    """What one call did: its result (normalized), exception, printed text and the state."""

    def __init__(self, fn, make_state, x):
        state = make_state()
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            try:
                out = fn(x, state)
                self.error = None
            except Exception as e:  # the same exception must come from every mode
                out, self.error = None, (type(e).__name__, str(e))
            # consuming a returned generator runs the rest of its body (prints, state changes)
            self.result = normalize(out)
        self.stdout = buf.getvalue()
        self.state = normalize(state)

    def describe(self):
        return {"result": self.result, "error": self.error, "stdout": self.stdout, "state": self.state}


def _x():
    return Tensor(np.array([1.0, 2.0, 3.0], np.float32))


def _internal_errors(report):
    return [b for b in report.breaks if getattr(b, "internal", None)]


def run_case(fn, make_state=dict, calls=CALLS):
    """Run ``fn`` eagerly, jitted and under the frame hook; raise AssertionError on the first
    difference (or internal capture error). Returns {mode: [Observation...]}."""
    capture.reset()
    eager = [Observation(fn, make_state, _x()) for _ in range(calls)]
    seen = {"eager": eager}
    for mode in ("jit", "hook"):
        capture.reset()
        with recording() as report:
            if mode == "jit":
                jitted = ms.jit(fn)
                got = [Observation(jitted, make_state, _x()) for _ in range(calls)]
            else:
                got = []
                for _ in range(calls):
                    with capture.enabled():
                        got.append(Observation(fn, make_state, _x()))
        internal = _internal_errors(report)
        assert not internal, f"{fn.__name__} [{mode}]: internal capture error (hidden eager fallback):\n" \
                             f"{internal[0].internal}"
        for i, (want, obs) in enumerate(zip(eager, got)):
            w, g = want.describe(), obs.describe()
            for key in w:
                assert g[key] == w[key], (f"{fn.__name__} [{mode}, call {i}]: {key} differs\n"
                                          f"  eager:    {w[key]!r}\n  captured: {g[key]!r}")
        seen[mode] = got
    capture.reset()
    return seen


def known_failure(reason, versions=None):
    """Mark a case that fails for a reason outside this port's scope (recorded in the report), on
    the Python ``versions`` given ((major, minor) tuples; None: all): it runs in a forked child
    (a crash fails that case alone) as a strict xfail, so the mark must go once it passes."""
    import sys

    def mark(fn):
        if versions is None or sys.version_info[:2] in versions:
            fn.known_failure = reason
        return fn
    return mark


def run_case_isolated(fn, timeout=120):
    """``run_case(fn)`` in a forked child: a crash (signal) or hang is an AssertionError here."""
    import os
    import signal
    import time
    pid = os.fork()
    if pid == 0:  # the child: exit status says how the case went
        code = 1
        try:
            run_case(fn)
            code = 0
        except BaseException:  # reported through the exit status
            import traceback
            traceback.print_exc()
        finally:
            os._exit(code)
    deadline = time.monotonic() + timeout
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            raise AssertionError(f"{fn.__name__}: hung for {timeout} s")
        time.sleep(0.05)
    if os.WIFSIGNALED(status):
        raise AssertionError(f"{fn.__name__}: crashed with signal {os.WTERMSIG(status)}")
    assert os.WEXITSTATUS(status) == 0, f"{fn.__name__}: differs (see the child's output)"


def check(case):
    """The body of every port test: a case (known failures isolated in a child process)."""
    if getattr(case, "known_failure", None):
        run_case_isolated(case)
    else:
        run_case(case)


class NotPortable:
    """A CPython test with no capture-vs-eager meaning, and why."""

    def __init__(self, name, reason):
        self.__name__ = name
        self.reason = reason


def collect(namespace):
    """(cases, not_portable) of a port module: its ``case_*`` functions, and its NOT_PORTABLE
    table ({CPython test name: reason})."""
    cases = [v for k, v in namespace.items() if k.startswith("case_") and callable(v)]
    skipped = [NotPortable(k, r) for k, r in namespace.get("NOT_PORTABLE", {}).items()]
    return cases, skipped


def parametrize(namespace):
    """pytest parameters for a port module: every case, and every not-portable test as a skip
    carrying its reason (so the counts come out of pytest's summary)."""
    import pytest
    cases, skipped = collect(namespace)
    params = [pytest.param(c, id=c.__name__[5:], marks=pytest.mark.xfail(strict=True, reason=c.known_failure))
              if getattr(c, "known_failure", None) else pytest.param(c, id=c.__name__[5:]) for c in cases]
    params += [pytest.param(s, id=f"notportable-{s.__name__}",
                            marks=pytest.mark.skip(reason=f"not portable: {s.reason}")) for s in skipped]
    return params
