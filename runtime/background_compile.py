"""One background thread that compiles PyNative's eager kernels off the calling thread.

runtime/eager_kernels.py switches a hot op signature to a compiled one-op graph; compiling it
(graph passes, LLVM) takes a few hundred milliseconds. On the calling thread that compile landed
inside the user's step: a Transformer repeats its LayerNorm signatures within one step, so its
very first PyNative step paid two compiles (about two thirds of that step). Here the call that
makes a signature warm hands the compile to this worker and goes on with numpy's implementation;
the calls after the compile has finished run the compiled graph. Each call is therefore one of
the two paths, both of which agree to float rounding (tests/runtime/test_eager_kernels.py).

- one daemon thread, started with the first job, runs the jobs one at a time in the order they
  came; a job must not raise (eager_kernels' jobs turn any error into "keep numpy's path");
- :func:`wait` blocks until every job submitted so far has finished (tests; benchmarks that
  measure the steady state after a warm-up);
- at interpreter exit the jobs not yet started are dropped and the thread is joined after the
  job in progress, so no thread is inside LLVM while the interpreter finalises;
- a forked child has no worker thread: its queue starts empty and a new thread starts with the
  child's first job (the parent's jobs are forgotten, callers drop their own marks of them in
  fork hooks of their own, graph/forksafe.py), so a child never waits on its parent's worker.

LLVM itself runs without the GIL (llvmlite's calls are ctypes calls), so on a machine with a
second core the compile overlaps the numpy work of the step; the Python parts of a compile (graph
passes, emitting IR) share the GIL with the caller.

Example:
    >>> done = []
    >>> submit(lambda: done.append(1))
    True
    >>> wait(timeout=60), done
    (True, [1])
"""
from __future__ import annotations

import atexit
import collections
import threading

from graph import forksafe

#: seconds the exit hook waits for the job in progress (one op's compile takes well under that)
EXIT_JOIN_SECONDS = 60.0

_cond = threading.Condition()
_jobs: "collections.deque" = collections.deque()
#: thread: the worker (None until the first job, and in a forked child); unfinished: jobs submitted
#: and not yet finished; closed: the interpreter is exiting (no new jobs); exit_hook: registered
_state = {"thread": None, "unfinished": 0, "closed": False, "exit_hook": False}


def submit(job) -> bool:
    """Run ``job()`` on the worker thread; False (and nothing runs) once the interpreter exits."""
    with _cond:
        if _state["closed"]:
            return False
        _jobs.append(job)
        _state["unfinished"] += 1
        worker = _state["thread"]
        if worker is None or not worker.is_alive():
            if not _state["exit_hook"]:
                # (registered with the first job, after the framework's own exit hooks: atexit
                # runs the last registered first, so the worker stops before those run)
                atexit.register(_close)
                _state["exit_hook"] = True
            worker = _state["thread"] = threading.Thread(target=_loop, name="msjit-eager-compile", daemon=True)
            worker.start()
        _cond.notify()
    return True


def _loop() -> None:
    while True:
        with _cond:
            while not _jobs and not _state["closed"]:
                _cond.wait()
            if _state["closed"]:
                return
            job = _jobs.popleft()
        try:
            job()
        finally:  # (a job that raised is a bug of ours: threading's excepthook reports it)
            with _cond:
                _state["unfinished"] -= 1
                _cond.notify_all()


def pending() -> int:
    """Jobs submitted and not finished."""
    return _state["unfinished"]


def wait(timeout: float | None = None) -> bool:
    """Block until every job submitted so far has finished; False if ``timeout`` seconds passed
    first. Must not be called from a job (the worker would wait for itself)."""
    with _cond:
        return _cond.wait_for(lambda: _state["unfinished"] == 0, timeout)


def _close() -> None:
    """At exit: drop the jobs not started, let the worker finish the one it runs, join it."""
    with _cond:
        _state["closed"] = True
        _state["unfinished"] -= len(_jobs)
        _jobs.clear()
        _cond.notify_all()
        worker = _state["thread"]
    if worker is not None and worker is not threading.current_thread():
        worker.join(EXIT_JOIN_SECONDS)


def _forget_after_fork() -> None:
    # the parent's worker thread does not exist here: whatever it ran or had queued never finishes
    _jobs.clear()
    _state.update(thread=None, unfinished=0)


forksafe.renew_in_child(globals(), "_cond", threading.Condition)
forksafe.on_fork_child(_forget_after_fork)
