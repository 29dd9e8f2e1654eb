"""The kernel thread pool (codegen/cpu/threads.py, its native side codegen/cpu/native_pool.py):
sized to the machine (not capped at 2), set by set_context(num_threads=...) / MSJIT_THREADS,
parts cover the range exactly, one job at a time (a second caller, or a part that splits again,
runs its range alone), results equal the single-threaded ones for any thread count."""
import threading

import numpy as np
import pytest

import capture  # noqa: F401  (set_context(num_threads=) reaches the pool once the compiler is loaded)
import runtime as ms
from codegen.cpu import native_pool, threads
from runtime import Tensor, ops

from codegen_helpers import tutorial_train_step


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


def test_parallel_for_runs_every_part_once_on_several_threads():
    import time
    ms.set_context(num_threads=6)
    seen, lock = [], threading.Lock()

    def work(args, lo, hi):
        with lock:
            seen.append((lo, hi, threading.get_ident()))
        time.sleep(0.02)  # (without the GIL) long enough for the workers to claim the other parts

    threads.pool().parallel_for(work, None, 0, 60_000, parts=6, align=64)
    # six threads, each with a home region of SUBPARTS pieces
    assert sorted((a, b) for a, b, _ in seen) == threads._cut(0, 60_000, 6 * native_pool.SUBPARTS, 64)
    assert len({t for _, _, t in seen}) >= 2


def test_thread_count_follows_the_machine_and_the_settings(monkeypatch):
    monkeypatch.setattr(threads, "_from_env", [])  # what this test reads of the variable is undone with it
    monkeypatch.delenv("MSJIT_THREADS", raising=False)
    assert threads.n_threads() == threads.available_cores()
    monkeypatch.setenv("MSJIT_THREADS", "5")
    assert threads.n_threads() == threads.available_cores()  # read once (every compiled call asks) ...
    threads.set_num_threads(None)
    assert threads.n_threads() == 5  # ... and again after set_num_threads
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


def test_a_part_that_splits_again_runs_its_range_alone():
    ms.set_context(num_threads=3)
    pool = threads.pool()
    seen, lock = [], threading.Lock()

    def inner(args, lo, hi):
        with lock:
            seen.append((lo, hi))

    def outer(args, lo, hi):
        pool.parallel_for(inner, None, lo, hi, parts=3, align=1)  # the pool is busy: no deadlock

    pool.parallel_for(outer, None, 0, 3000, parts=3, align=1)
    assert sorted(seen) == threads._cut(0, 3000, 3 * native_pool.SUBPARTS, 1)  # each piece run whole


def test_concurrent_callers_each_cover_their_range():
    ms.set_context(num_threads=3)
    pool = threads.pool()
    covered = [np.zeros(20_000, np.int64) for _ in range(4)]

    def caller(k):
        def mark(args, lo, hi):
            covered[k][lo:hi] += 1
        for _ in range(20):
            pool.parallel_for(mark, None, 0, 20_000, parts=3, align=64)

    callers = [threading.Thread(target=caller, args=(k,)) for k in range(4)]
    for t in callers:
        t.start()
    for t in callers:
        t.join(60)
    assert not any(t.is_alive() for t in callers)
    for c in covered:
        np.testing.assert_array_equal(c, 20)


def test_an_error_in_a_python_part_is_raised_by_the_caller():
    ms.set_context(num_threads=2)

    def fail(args, lo, hi):
        if lo > 0:
            raise KeyError("part two")

    with pytest.raises(KeyError, match="part two"):
        threads.pool().parallel_for(fail, None, 0, 1000, parts=2, align=1)


def test_hot_calls_start_the_workers_and_nest():
    ms.set_context(num_threads=3)
    pool = threads.pool()
    with pool.hot():
        assert len(pool._workers) >= 2
        with pool.hot():
            out = np.zeros(9000)

            def fill(args, lo, hi):
                out[lo:hi] = np.arange(lo, hi)
            pool.parallel_for(fill, None, 0, 9000, parts=3, align=1)
    np.testing.assert_array_equal(out, np.arange(9000))


def test_sleeping_workers_wake_for_the_next_job():
    import time
    ms.set_context(num_threads=2)
    pool = threads.pool()
    for _ in range(5):
        time.sleep(0.002)  # longer than a worker spins outside compiled calls: it sleeps
        hits = np.zeros(1000, np.int64)

        def mark(args, lo, hi):
            hits[lo:hi] += 1
        pool.parallel_for(mark, None, 0, 1000, parts=2, align=1)
        np.testing.assert_array_equal(hits, 1)


def test_the_pool_keeps_working_when_the_fork_hooks_run_without_a_fork():
    """The hooks reset the pool for a child; run in the parent, its old workers must leave (two
    workers answering to one part would run it twice and miscount the parts left)."""
    import time
    from graph import forksafe
    ms.set_context(num_threads=3)
    pool = threads.pool()
    pool.parallel_for(lambda args, lo, hi: None, None, 0, 100, parts=3, align=1)
    old = list(pool._workers)
    forksafe.after_fork_in_child()
    deadline = time.monotonic() + 10
    while any(t.is_alive() for t in old) and time.monotonic() < deadline:
        time.sleep(0.001)
    assert not any(t.is_alive() for t in old)
    for _ in range(3):
        hits = np.zeros(3000, np.int64)

        def mark(args, lo, hi):
            hits[lo:hi] += 1
        pool.parallel_for(mark, None, 0, 3000, parts=3, align=1)
        np.testing.assert_array_equal(hits, 1)


def test_threads_training_side_by_side_get_their_single_threaded_numbers():
    """Two Python threads each running compiled train steps (one holds the pool, the other runs
    its split kernels alone, BLAS's one-thread region is shared): no hang, and each thread's
    losses equal the same steps run on their own."""
    import runtime.nn as nn

    def make(seed):
        ms.set_seed(seed)
        net = nn.SequentialCell([nn.Dense(64, 256), nn.ReLU(), nn.Dense(256, 10)])
        return ms.jit(tutorial_train_step(net, nn.Momentum(net.trainable_params(), 0.05, 0.9)))

    rng = np.random.default_rng(0)
    data = [(Tensor(rng.standard_normal((512, 64)).astype(np.float32)),
             Tensor(rng.integers(0, 10, 512).astype(np.int32))) for _ in range(4)]
    ms.set_context(num_threads=2)
    want = {}
    for seed in (1, 2):
        step = make(seed)
        want[seed] = [float(step(*data[i % 4]).asnumpy()) for i in range(30)]
    got, errors = {}, []
    steps = {seed: make(seed) for seed in (1, 2)}  # (parameters drawn here: the seed is global)

    def run(seed):
        try:
            got[seed] = [float(steps[seed](*data[i % 4]).asnumpy()) for i in range(30)]
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    workers = [threading.Thread(target=run, args=(seed,)) for seed in (1, 2)]
    for t in workers:
        t.start()
    for t in workers:
        t.join(120)
    assert not any(t.is_alive() for t in workers) and not errors, errors
    for seed in (1, 2):
        np.testing.assert_allclose(got[seed], want[seed], rtol=1e-5)
