"""The kernel thread pool (codegen/cpu/threads.py): sized to the machine (not capped at 2), set by
set_context(num_threads=...) / MSJIT_THREADS, parts cover the range exactly, results equal the
single-threaded ones for any thread count."""
import threading

import numpy as np
import pytest

import runtime as ms
from codegen.cpu import threads
from runtime import Tensor, ops


@pytest.fixture(autouse=True)
def _default_threads():
    yield
    ms.set_context(num_threads=None)


@pytest.mark.parametrize("lo,hi,parts,align", [(0, 10, 3, 1), (0, 100_003, 7, 64), (5, 6, 4, 64),
                                                (0, 4096, 16, 64), (3, 1000, 2, 1)])
def test_parts_cover_the_range_exactly(lo, hi, parts, align):
    bounds = threads._cut(lo, hi, parts, align)
    assert bounds[0][0] == lo and bounds[-1][1] == hi and len(bounds) <= parts
    assert all(a < b for a, b in bounds) and all(b == c for (_, b), (c, _) in zip(bounds, bounds[1:]))
    if hi - lo > 4 * align * parts:
        assert all((b - lo) % align == 0 for _, b in bounds[:-1])


def test_parallel_for_runs_every_part_on_distinct_threads():
    ms.set_context(num_threads=6)
    seen, lock = [], threading.Lock()

    def work(args, lo, hi):
        with lock:
            seen.append((lo, hi, threading.get_ident()))

    threads.pool().parallel_for(work, None, 0, 60_000, parts=6, align=64)
    assert sorted((a, b) for a, b, _ in seen) == threads._cut(0, 60_000, 6, 64)
    assert len({t for _, _, t in seen}) == len(seen)


def test_thread_count_follows_the_machine_and_the_settings(monkeypatch):
    monkeypatch.delenv("MSJIT_THREADS", raising=False)
    assert threads.n_threads() == threads.available_cores()
    monkeypatch.setenv("MSJIT_THREADS", "5")
    assert threads.n_threads() == 5
    ms.set_context(num_threads=3)
    assert threads.n_threads() == 3 and ms.get_context("num_threads") == 3
    ms.set_context(runtime_num_threads=None)
    assert threads.n_threads() == 5
    assert threads.parts_for(1e3) == 1 and threads.parts_for(1e9) == 5
    with pytest.raises(ValueError, match="num_threads"):
        ms.set_context(num_threads=0)


@pytest.mark.parametrize("n", [1, 2, 3, 8])
def test_compiled_results_do_not_depend_on_the_thread_count(n):
    ms.set_context(num_threads=n)
    f = ms.jit(lambda x: ops.tanh(x * 1.5 + 0.25) * ops.sigmoid(x) + ops.exp(-x * x))
    x = np.linspace(-3, 3, 1 << 21, dtype=np.float32)
    want = np.tanh(x * 1.5 + 0.25) / (1 + np.exp(-x)) + np.exp(-x * x)
    np.testing.assert_allclose(f(Tensor(x)).asnumpy(), want, rtol=2e-6, atol=2e-6)
