"""Shared helpers for the capture tests (imported by the test modules)."""
import contextlib
import copy
import io
import types

import numpy as np

import capture
import runtime as ms
from capture.explain import recording
from runtime import Tensor


@contextlib.contextmanager
def pynative():
    """PYNATIVE_MODE inside the block (the eager oracle of a GRAPH_MODE call), the mode before it
    after."""
    mode = ms.get_context("mode")
    ms.set_context(mode=ms.PYNATIVE_MODE)
    try:
        yield
    finally:
        ms.set_context(mode=mode)


def to_np(x):
    """Nested outputs -> nested numpy/Python values (for comparisons)."""
    if isinstance(x, Tensor):
        return x.asnumpy()
    if isinstance(x, (tuple, list)):
        return type(x)(to_np(v) for v in x)
    if isinstance(x, dict):
        return {k: to_np(v) for k, v in x.items()}
    return x


def assert_same(got, want, rtol=1e-5, atol=1e-6):
    """Structure, types and values equal (tensors: allclose with the design's tolerances)."""
    if isinstance(want, Tensor):
        assert isinstance(got, Tensor), f"expected a Tensor, got {type(got).__name__}"
        assert got.shape == want.shape, (got.shape, want.shape)
        assert got.dtype == want.dtype, (got.dtype, want.dtype)
        np.testing.assert_allclose(got.asnumpy(), want.asnumpy(), rtol=rtol, atol=atol)
    elif isinstance(want, np.ndarray):
        assert isinstance(got, np.ndarray) and got.dtype == want.dtype, (got, want)
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)
    elif isinstance(want, (tuple, list)):
        assert type(got) is type(want), (type(got), type(want))
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert_same(g, w, rtol, atol)
    elif isinstance(want, dict):
        assert isinstance(got, dict) and list(got) == list(want), (got, want)
        for k in want:
            assert_same(got[k], want[k], rtol, atol)
    elif hasattr(want, "__dict__") and not isinstance(want, (type, types.FunctionType, types.MethodType)) \
            and type(want).__eq__ is object.__eq__:
        assert type(got) is type(want), (type(got), type(want))  # a plain object: by its attributes
        assert_same(vars(got), vars(want), rtol, atol)
    else:
        assert type(got) is type(want) and got == want, (got, want)


class Checker:
    """``check(fn, make_args)``: capture ``fn`` with a counting backend, call it on 3 different
    inputs, compare each result with PyNative, and assert one graph, no breaks, cache hits."""

    def __call__(self, fn, make_args, calls=3, eager=None, rtol=1e-5, atol=1e-6):
        backend = capture.CountingBackend()
        if isinstance(fn, ms.nn.Cell):
            eager = eager or fn.construct
        else:
            eager = eager or fn
        jitted = capture.jit(fn, backend=backend, fullgraph=True)
        with recording() as report:
            for i in range(calls):
                args, kwargs = make_args(i)
                want = eager(*args, **kwargs)
                got = jitted(*args, **kwargs)
                assert_same(got, want, rtol, atol)
        assert report.breaks == [], [str(b) for b in report.breaks]
        assert backend.graph_count == 1, f"{backend.graph_count} graphs compiled (expected 1)"
        self.backend, self.report = backend, report
        return backend


def _paths(obj, path=(), out=None):
    """id -> path of every container/tensor reachable in ``obj`` (the call's arguments)."""
    out = {} if out is None else out
    if isinstance(obj, (Tensor, list, dict, tuple)) or hasattr(obj, "__dict__"):
        out.setdefault(id(obj), path)
    if isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            _paths(v, path + (i,), out)
    elif isinstance(obj, dict):
        for k, v in obj.items():
            _paths(v, path + (k,), out)
    return out


def _at(obj, path):
    for k in path:
        obj = obj[k]
    return obj


def _same_identities(got, want, got_args, want_paths, where="result"):
    """Wherever eager returned one of its own arguments (or a part of one), the captured call
    returned the corresponding object of its own arguments."""
    path = want_paths.get(id(want))
    if path is not None:
        assert got is _at(got_args, path), f"{where}: eager returned argument {path} itself, capture a copy"
    if isinstance(want, (list, tuple)) and isinstance(got, (list, tuple)):
        for i, (g, w) in enumerate(zip(got, want)):
            _same_identities(g, w, got_args, want_paths, f"{where}[{i}]")
    elif isinstance(want, dict) and isinstance(got, dict):
        for k in want:
            _same_identities(got[k], want[k], got_args, want_paths, f"{where}[{k!r}]")


def _observe(fn, args, kwargs, state):
    """(result or None, exception or None, printed text, state snapshot) of one call."""
    out = io.StringIO()
    result = error = None
    with contextlib.redirect_stdout(out):
        try:
            result = fn(*args, **kwargs)
        except Exception as e:  # compared with the captured run's exception
            error = e
    return result, error, out.getvalue(), to_np(copy.copy(state())) if state else None


def check_like_eager(fn, make_call, state=None, reset=None, calls=3, breaks=0):
    """Run ``fn`` eagerly and under ``capture.jit`` (its first call compiles, later ones hit the
    cache) and compare everything eager shows: the result (values, dtypes, exact container
    types), printed output, the outside state after the call (``state()``: mutated arguments,
    globals, closure variables, attributes), which returned objects are the caller's own
    arguments, and the exception (type and message) when eager raises. ``make_call(i)`` gives
    fresh (args, kwargs), equal on each of its two calls per round; ``reset()`` puts the outside
    state back before each run. ``breaks``: the graph breaks expected (None: not checked)."""
    jitted = capture.jit(fn)
    with recording() as report:
        for i in range(calls):
            if reset:
                reset()
            args, kwargs = make_call(i)
            want, want_err, want_out, want_state = _observe(fn, args, kwargs, state)
            want_paths = _paths((args, kwargs))
            if reset:
                reset()
            jargs, jkwargs = make_call(i)
            got, got_err, got_out, got_state = _observe(jitted, jargs, jkwargs, state)
            if want_err is not None or got_err is not None:
                assert type(got_err) is type(want_err) and str(got_err) == str(want_err), (got_err, want_err)
            else:
                assert_same(got, want)
                _same_identities(got, want, (jargs, jkwargs), want_paths)
            assert got_out == want_out, (got_out, want_out)
            if state:
                assert_same(got_state, want_state)
    if breaks is not None:
        assert len(report.breaks) == breaks, [str(b) for b in report.breaks]
    return report


def randn(rng, *shape):
    return Tensor(rng.standard_normal(shape).astype(np.float32))


def line_of(marker, fn_or_file):
    """Line number of the source line containing ``marker`` (a comment) in a function's file."""
    import inspect
    path = fn_or_file if isinstance(fn_or_file, str) else inspect.getsourcefile(fn_or_file)
    with open(path) as f:
        for i, line in enumerate(f, 1):
            if marker in line:
                return i, line.strip()
    raise AssertionError(f"marker {marker!r} not found in {path}")
