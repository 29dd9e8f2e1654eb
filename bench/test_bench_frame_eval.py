"""Per-call overhead of the PEP 523 frame hook (capture/frame_eval), measured against no hook.

Each benchmark times a loop of ``N`` calls (the harness's own per-round cost would hide tens of
nanoseconds) and records ``ns_per_call`` in ``extra_info``. Groups:

- "skipped frame": a plain Python function with no hook vs with the hook installed (its code
  object is marked "skip"): the tax every Python call pays while capture is enabled.
- "hook mechanism": a registered code object whose dispatcher returns a trivial replacement
  (pure C + two Python calls) vs calling the function directly.
- "registered cache hit": a small Cell's ``construct``: PyNative eager, GRAPH_MODE (Python entry
  point ``call_captured``, no hook) and PyNative with ``capture.enable()`` (through the hook).
"""
import numpy as np
import pytest

import capture
import runtime as ms
from capture import frame_eval
from runtime import nn, ops

N = 1000

needs_hook = pytest.mark.skipif(not frame_eval.AVAILABLE,
                                reason=f"frame hook unavailable: {frame_eval._UNAVAILABLE_REASON}")


def plain(a, b=1):
    return a


def _loop(fn, *args):
    def run():
        for _ in range(N):
            fn(*args)
    return run


def _record(benchmark):
    stats = getattr(benchmark, "stats", None)
    if stats is not None:  # absent with --benchmark-disable
        benchmark.extra_info["ns_per_call"] = round(stats.stats.mean / N * 1e9, 1)


@pytest.fixture
def hook_on():
    capture.reset()
    capture.enable()
    try:
        yield
    finally:
        capture.disable()
        capture.reset()


def test_skipped_frame_no_hook(benchmark):
    benchmark.group = "skipped frame"
    benchmark(_loop(plain, 1))
    _record(benchmark)


@needs_hook
def test_skipped_frame_hook_on(benchmark, hook_on):
    benchmark.group = "skipped frame"
    plain(1)
    assert frame_eval._C.decision(plain.__code__) == "skip"
    benchmark(_loop(plain, 1))
    _record(benchmark)


def registered(a, b=1):
    return a


def _trivial_replacement(a, b):
    return a


def _trivial_dispatcher(func, a, b):
    return _trivial_replacement


def test_mechanism_direct_call(benchmark):
    benchmark.group = "hook mechanism"
    benchmark(_loop(registered, 1))
    _record(benchmark)


@needs_hook
def test_mechanism_registered_trivial_replacement(benchmark):
    benchmark.group = "hook mechanism"
    C = frame_eval._C
    prev = C.set_callback(lambda code: _trivial_dispatcher if code is registered.__code__ else None)
    try:
        C.reset_code(registered.__code__)
        assert registered(1) == 1 and C.decision(registered.__code__) is _trivial_dispatcher
        benchmark(_loop(registered, 1))
    finally:
        C.set_callback(prev)
        C.reset_code(registered.__code__)
    _record(benchmark)


class Small(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 4)

    def construct(self, x):
        return ops.relu(self.fc(x))


X = ms.Tensor(np.ones((2, 4), np.float32))


@pytest.fixture
def small():
    capture.reset()
    ms.set_context(mode=ms.PYNATIVE_MODE)
    yield Small()
    ms.set_context(mode=ms.PYNATIVE_MODE)
    capture.reset()


def test_cell_pynative_eager(benchmark, small):
    benchmark.group = "registered cache hit"
    benchmark(_loop(small, X))
    _record(benchmark)


def test_cell_graph_mode_no_hook(benchmark, small):
    benchmark.group = "registered cache hit"
    ms.set_context(mode=ms.GRAPH_MODE)
    small(X)
    g = capture.events.totals["graphs"]
    benchmark(_loop(small, X))
    assert capture.events.totals["graphs"] == g  # cache hits only
    _record(benchmark)


@needs_hook
def test_cell_through_hook(benchmark, small, hook_on):
    benchmark.group = "registered cache hit"
    small(X)
    g, r = capture.events.totals["graphs"], frame_eval.stats()["replaced"]
    benchmark(_loop(small, X))
    assert capture.events.totals["graphs"] == g and frame_eval.stats()["replaced"] > r
    _record(benchmark)
