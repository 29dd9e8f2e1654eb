"""Compiled graphs keep working in processes started by fork, forkserver and spawn: a forked child
inherits the helper-thread object and the runtime's locks but not the threads (issue 11 item 1)."""
import multiprocessing
import threading

import numpy as np
import pytest

import runtime as ms
from codegen.cpu import threads
from graph import forksafe
from runtime import Tensor, ops

N = 1 << 21  # large enough for the kernel to be split over the helper thread


@ms.jit
def big_step(x):
    return ops.tanh(x * 1.5 + 0.25) * ops.sigmoid(x)


def _expected(x):
    return np.tanh(x * 1.5 + 0.25) * (1 / (1 + np.exp(-x)))


def _child(queue):
    x = np.linspace(-3, 3, N, dtype=np.float32)
    out = big_step(Tensor(x)).asnumpy()
    queue.put(float(np.abs(out - _expected(x)).max()))


def _run_in(method, timeout=120):
    ctx = multiprocessing.get_context(method)
    queue = ctx.Queue()
    proc = ctx.Process(target=_child, args=(queue,))
    proc.start()
    proc.join(timeout)
    hung = proc.is_alive()
    if hung:
        proc.kill()
        proc.join()
    assert not hung, f"a {method} child running a compiled graph hung"
    assert proc.exitcode == 0, f"{method} child exited with {proc.exitcode}"
    return queue.get(timeout=10)


@pytest.mark.parametrize("method", ["fork", "forkserver", "spawn"])
def test_compiled_graph_runs_in_a_child_process(method):
    if method not in multiprocessing.get_all_start_methods():
        pytest.skip(f"start method {method} is not available here")
    x = np.linspace(-3, 3, N, dtype=np.float32)
    np.testing.assert_allclose(big_step(Tensor(x)).asnumpy(), _expected(x), rtol=1e-5, atol=1e-6)
    if threads.n_threads() > 1:
        assert threads._POOL is not None and threads._POOL._workers, "the kernel was expected to run on the pool"
    assert _run_in(method) < 1e-5
    np.testing.assert_allclose(big_step(Tensor(x)).asnumpy(), _expected(x), rtol=1e-5, atol=1e-6)


def test_a_lock_held_by_another_thread_at_fork_time_is_free_in_the_child():
    import os
    from codegen.cpu import compiler
    held, release = threading.Event(), threading.Event()

    def hold():
        with compiler._LOCK:
            held.set()
            release.wait(30)

    t = threading.Thread(target=hold)
    t.start()
    held.wait(10)
    try:
        pid = os.fork()
        if pid == 0:  # child: the lock must be usable (it would block forever without the reset)
            ok = compiler._LOCK.acquire(timeout=5)
            os._exit(0 if ok else 3)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
    finally:
        release.set()
        t.join()


def test_forksafe_renews_aliases_as_one_object():
    ns = {"a": threading.RLock()}
    ns["b"] = ns["a"]
    forksafe.renew_in_child(ns, ("a", "b"), threading.RLock)
    try:
        forksafe.after_fork_in_child()
        assert ns["a"] is ns["b"]
    finally:
        forksafe._NAMED.pop()
