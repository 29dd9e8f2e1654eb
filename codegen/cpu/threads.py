"""A persistent helper thread that runs one half of a large kernel while the caller runs the other.

ctypes releases the GIL for the duration of a foreign call, so two halves of a kernel run in
parallel. Splitting only pays above a few hundred microseconds of single-thread work (a hand-off
costs tens of microseconds), see :data:`SPLIT_THRESHOLD`. ``MSJIT_THREADS=1`` disables splitting.
"""
from __future__ import annotations

import os
import threading

from graph import forksafe

#: minimum ``elements * per-element cost`` of a kernel before it is split over two threads
SPLIT_THRESHOLD = float(os.environ.get("MSJIT_SPLIT_THRESHOLD", 600_000))


def n_threads() -> int:
    try:
        n = int(os.environ.get("MSJIT_THREADS", "0"))
    except ValueError:
        n = 0
    if n <= 0:
        n = min(2, os.cpu_count() or 1)
    return max(1, min(n, 2))


class _Helper:
    def __init__(self):
        self._fresh_state()
        forksafe.track(self)  # runners hold this object: a forked child restarts its thread

    def _fresh_state(self):
        self._go = threading.Lock()
        self._done = threading.Lock()
        self._go.acquire()
        self._done.acquire()
        self._job = None
        self._err = None
        self._busy = threading.Lock()  # one split at a time (other callers run single-threaded)
        self._thread = None

    def _reset_after_fork(self):
        # the child has a copy of this object but not its thread (and maybe a held lock): new
        # locks now, a new thread on the next split (starting threads inside a fork handler is unsafe)
        self._fresh_state()

    def _ensure_thread(self):
        if self._thread is None:
            self._thread = threading.Thread(target=self._loop, name="msjit-worker", daemon=True)
            self._thread.start()

    def _loop(self):
        while True:
            self._go.acquire()
            fn, args, lo, hi = self._job
            try:
                fn(args, lo, hi)
            except BaseException as e:  # pragma: no cover - kernels do not raise
                self._err = e
            self._done.release()

    def split(self, fn, args, lo, hi, align=64):
        """fn(args, lo, mid) here and fn(args, mid, hi) on the helper thread."""
        if not self._busy.acquire(blocking=False):
            fn(args, lo, hi)
            return
        try:
            self._ensure_thread()
            mid = lo + (hi - lo) // 2
            if hi - lo > 4 * align:
                mid -= mid % align
            self._job = (fn, args, mid, hi)
            self._go.release()
            fn(args, lo, mid)
            self._done.acquire()
            if self._err is not None:
                e, self._err = self._err, None
                raise e
        finally:
            self._busy.release()


_HELPER = None
_HELPER_LOCK = threading.Lock()


forksafe.renew_in_child(globals(), "_HELPER_LOCK", threading.Lock)


def helper():
    global _HELPER
    if _HELPER is None:
        with _HELPER_LOCK:
            if _HELPER is None:
                _HELPER = _Helper()
    return _HELPER
