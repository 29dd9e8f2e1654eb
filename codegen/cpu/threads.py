"""A persistent pool of worker threads that runs a large kernel's index range in parallel.

Generated kernels take ``(args, lo, hi)``: the outer-dimension range to compute. ctypes releases
the GIL for the duration of a foreign call, so the parts of one kernel run on as many cores as
the pool has. A hand-off costs a few microseconds per worker, so a kernel is split into at most
``2 * work / SPLIT_THRESHOLD`` parts (:func:`parts_for`): small kernels stay on the calling thread.

The pool size is the number of cores this process may run on (``os.sched_getaffinity``), or
``MSJIT_THREADS``, or ``set_context(num_threads=...)`` (:func:`set_num_threads`). The pool is
fork-safe: a forked child gets fresh locks and starts its own workers on first use.

Example:
    >>> import ctypes
    >>> from codegen.cpu import threads
    >>> seen = []
    >>> threads.pool().parallel_for(lambda args, lo, hi: seen.append((lo, hi)), None, 0, 10, parts=2)
    >>> sorted(seen)
    [(0, 5), (5, 10)]
"""
from __future__ import annotations

import os
import threading

from graph import forksafe

#: minimum ``elements * per-element cost`` of a kernel before it is split at all (two parts);
#: beyond it, a kernel of work W runs in min(threads, W // (SPLIT_THRESHOLD / 2)) parts
SPLIT_THRESHOLD = float(os.environ.get("MSJIT_SPLIT_THRESHOLD", 600_000))

_requested: list[int] = []  # set_num_threads() value, if any


def available_cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def n_threads() -> int:
    """Threads a kernel may use: ``set_num_threads``, else ``MSJIT_THREADS``, else every core
    this process may run on."""
    if _requested:
        return _requested[0]
    try:
        n = int(os.environ.get("MSJIT_THREADS", "0"))
    except ValueError:
        n = 0
    return n if n > 0 else available_cores()


def set_num_threads(n: int | None) -> None:
    """Use ``n`` threads per kernel from now on (None: back to the default). Kernels compiled
    before keep their split decisions but the pool grows or shrinks at once."""
    if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 1):
        raise ValueError(f"num_threads must be a positive int or None, got {n!r}")
    _requested[:] = [] if n is None else [n]


def parts_for(work: float, splittable: bool = True) -> int:
    """How many parts a kernel of ``work`` (elements x per-element cost) runs in."""
    n = n_threads()
    if not splittable or n < 2 or work < SPLIT_THRESHOLD:
        return 1
    per_part = SPLIT_THRESHOLD / 2
    return n if per_part <= 0 else max(2, min(n, int(work // per_part)))


class _Worker:
    """One thread that runs ``fn(args, lo, hi)`` each time its ``go`` lock is released."""

    __slots__ = ("go", "done", "job", "error", "thread")

    def __init__(self):
        self.go = threading.Lock()
        self.done = threading.Lock()
        self.go.acquire()
        self.done.acquire()
        self.job = None
        self.error = None
        self.thread = threading.Thread(target=self._loop, name="msjit-worker", daemon=True)
        self.thread.start()

    def _loop(self):
        go, done = self.go, self.done
        while True:
            go.acquire()
            fn, args, lo, hi = self.job
            try:
                fn(args, lo, hi)
            except BaseException as e:  # pragma: no cover - kernels do not raise
                self.error = e
            done.release()


class Pool:
    """Workers started on demand (up to ``n_threads() - 1``; the caller runs one part itself)."""

    def __init__(self):
        self._fresh_state()
        forksafe.track(self)  # runners hold this object: a forked child starts new workers

    def _fresh_state(self):
        self._workers: list[_Worker] = []
        self._busy = threading.Lock()  # one parallel kernel at a time (others run single-threaded)

    def _reset_after_fork(self):
        # the child has a copy of this object but none of its threads (and maybe a held lock):
        # forget them; workers are started again on the next parallel kernel (never inside a
        # fork handler)
        self._fresh_state()

    def parallel_for(self, fn, args, lo, hi, parts=None, align=64):
        """``fn(args, a, b)`` over ``[lo, hi)`` cut into ``parts`` pieces (aligned to ``align``
        when the range is long), the first on this thread, the rest on workers."""
        parts = min(parts or n_threads(), n_threads(), max(1, hi - lo))
        if parts <= 1 or not self._busy.acquire(blocking=False):
            fn(args, lo, hi)
            return
        try:
            bounds = _cut(lo, hi, parts, align)
            while len(self._workers) < len(bounds) - 1:
                self._workers.append(_Worker())
            used = self._workers[:len(bounds) - 1]
            for w, (a, b) in zip(used, bounds[1:]):
                w.job = (fn, args, a, b)
                w.go.release()
            fn(args, *bounds[0])
            error = None
            for w in used:
                w.done.acquire()
                if w.error is not None:
                    error, w.error = w.error, None
            if error is not None:
                raise error
        finally:
            self._busy.release()


def _cut(lo, hi, parts, align):
    """``parts`` contiguous ranges covering ``[lo, hi)``; inner bounds rounded to ``align`` when
    each part is long enough, so vector loops keep whole blocks."""
    n = hi - lo
    bounds, start = [], lo
    for i in range(1, parts):
        end = lo + n * i // parts
        if n > 4 * align * parts:
            end -= (end - lo) % align
        if end > start:
            bounds.append((start, end))
            start = end
    bounds.append((start, hi))
    return bounds


_POOL = None
_POOL_LOCK = threading.Lock()
forksafe.renew_in_child(globals(), "_POOL_LOCK", threading.Lock)


def pool() -> Pool:
    global _POOL
    if _POOL is None:
        with _POOL_LOCK:
            if _POOL is None:
                _POOL = Pool()
    return _POOL

