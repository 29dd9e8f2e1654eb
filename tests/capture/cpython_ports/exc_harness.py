"""Capture-vs-eager differential harness for the CPython ``Lib/test`` ports about exceptions,
``raise``, ``with`` and ``contextlib`` (tests/capture/cpython_ports/test_port_*.py).

A case is a plain function ``case(x, log)``: ``x`` a float32 Tensor (so capture has a graph to
build), ``log`` a list the case appends to (its side effects). It is run three ways, each on
fresh arguments:

1. eagerly (PYNATIVE_MODE, no capture): the oracle;
2. under ``capture.jit`` twice (the first call compiles, the second hits the cache);
3. under the frame hook (``capture.enabled()``), the way ``python -m capture run`` runs a script.

Each run is observed as (result, exception, printed output, ``log``); the observations must be
equal: tensors by value (allclose with the design's tolerances), dtype and shape; everything else
by type and ``repr``; an exception by type, message and its ``__cause__``/``__context__`` chain.
An internal capture error (the "failed internally; running eagerly" path, or a resume fallback
caused by anything but an unrebuildable state) is a failure even when the eager rerun gives the
right answer: capture must not hide its own bugs behind the fallback.
"""
from __future__ import annotations

import contextlib
import io

import numpy as np

import capture
import runtime as ms
from capture.explain import recording
from runtime import Tensor


def fresh_args():
    return Tensor(np.array([0.5, -1.0, 2.0], np.float32)), []


# -- observing one run --------------------------------------------------------------------------------
def normalize(v, depth=0):
    """A comparable description of ``v`` (tensors kept as arrays for allclose)."""
    if depth > 8:
        return ("...",)
    if isinstance(v, Tensor):
        return ("Tensor", str(v.dtype), tuple(v.shape), np.asarray(v.asnumpy()))
    if isinstance(v, np.ndarray):
        return ("ndarray", str(v.dtype), v.shape, v)
    if isinstance(v, BaseException):
        return normalize_exception(v, depth)
    if isinstance(v, (list, tuple)):
        return (type(v).__name__, [normalize(i, depth + 1) for i in v])
    if isinstance(v, dict):
        return ("dict", [(normalize(k, depth + 1), normalize(i, depth + 1)) for k, i in v.items()])
    if isinstance(v, (set, frozenset)):
        return (type(v).__name__, sorted(repr(i) for i in v))
    if isinstance(v, (int, float, str, bool, bytes, type(None), complex)):
        return (type(v).__name__, repr(v))
    if isinstance(v, type):
        return ("class", v.__qualname__)
    d = getattr(v, "__dict__", None)
    if isinstance(d, dict):
        return ("object", type(v).__qualname__, normalize(dict(d), depth + 1))
    return ("other", type(v).__qualname__)


def normalize_exception(e, depth=0):
    if e is None:
        return None
    if depth > 6:
        return ("exc...",)
    ctx = None if e.__suppress_context__ else e.__context__
    return ("exception", type(e).__qualname__, str(e), normalize_exception(e.__cause__, depth + 1),
            normalize_exception(ctx, depth + 1), e.__suppress_context__, bool(e.__notes__) if hasattr(e, "__notes__") else False)


def same(a, b, rtol=1e-5, atol=1e-6):
    """Deep equality of two normalized descriptions (arrays: allclose, same dtype/shape)."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.shape == b.shape
                and a.dtype == b.dtype and np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True))
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(same(x, y, rtol, atol) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def observe(fn, args):
    """(normalized result, normalized exception, printed text, normalized log) of one call."""
    out = io.StringIO()
    result = error = None
    with contextlib.redirect_stdout(out):
        try:
            result = fn(*args)
        except Exception as e:  # compared with the other runs' exception
            error = e
    log = args[-1] if args and isinstance(args[-1], list) else None
    return {"result": normalize(result), "exception": normalize_exception(error), "printed": out.getvalue(),
            "log": normalize(log)}


def _internal_problems(report):
    """Internal capture errors hidden behind an eager rerun."""
    bad = [f"internal error: {b.reason}" for b in report.breaks if getattr(b, "internal", None)]
    for frame, why in report.resume_fallbacks:
        if not (why.startswith("NotResumable") or why.startswith("GraphBreak") or why.startswith("FullGraph")):
            bad.append(f"internal error while planning a resume in {frame}: {why}")
    return bad


class Outcome:
    """What one case did under each mode (``problems`` empty: capture matched eager)."""

    def __init__(self, name):
        self.name = name
        self.problems = []
        self.breaks = None  # graph breaks of the first jitted call
        self.break_reasons = []

    def __repr__(self):
        return f"Outcome({self.name}, breaks={self.breaks}, problems={self.problems})"


def _diff(mode, want, got):
    out = []
    for k in want:
        if not same(want[k], got[k]):
            out.append(f"{mode}: {k} differs: eager {want[k]!r} vs capture {got[k]!r}")
    return out


def run_case(fn, make_args=fresh_args, hook=True, jit_calls=2):
    """Run ``fn`` eagerly, jitted and under the frame hook; return an :class:`Outcome`."""
    outcome = Outcome(getattr(fn, "__qualname__", repr(fn)))
    ms.set_context(mode=ms.PYNATIVE_MODE)
    want = observe(fn, make_args())
    capture.reset()
    jitted = capture.jit(fn)
    for call in range(jit_calls):
        with recording() as report:
            got = observe(jitted, make_args())
        outcome.problems += _diff(f"jit call {call + 1}", want, got)
        outcome.problems += _internal_problems(report)
        if call == 0:
            outcome.breaks = len(report.breaks)
            outcome.break_reasons = [b.reason for b in report.breaks]
    if hook:
        capture.reset()
        with recording() as report:
            with capture.enabled():
                got = observe(fn, make_args())
        outcome.problems += _diff("frame hook", want, got)
        outcome.problems += _internal_problems(report)
    capture.reset()
    return outcome


def check_case(fn, make_args=fresh_args, max_breaks=None, hook=True):
    """Assert ``fn`` behaves under capture as it does eagerly (and breaks at most ``max_breaks``)."""
    o = run_case(fn, make_args, hook=hook)
    assert not o.problems, "\n".join(o.problems)
    if max_breaks is not None:
        assert o.breaks <= max_breaks, (o.breaks, o.break_reasons)
    return o
