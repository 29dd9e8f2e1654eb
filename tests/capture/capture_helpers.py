"""Shared helpers for the capture tests (imported by the test modules)."""
import numpy as np

import capture
import runtime as ms
from capture.explain import recording
from runtime import Tensor


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
    elif isinstance(want, (tuple, list)):
        assert type(got) is type(want), (type(got), type(want))
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert_same(g, w, rtol, atol)
    elif isinstance(want, dict):
        assert isinstance(got, dict) and list(got) == list(want), (got, want)
        for k in want:
            assert_same(got[k], want[k], rtol, atol)
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
