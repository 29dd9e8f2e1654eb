"""A persistent pool of worker threads that runs a large kernel's index range in parallel.

Generated kernels take ``(args, lo, hi)``: the outer-dimension range to compute. The workers are
native loops (codegen/cpu/native_pool.py) that wait for jobs without the GIL; a kernel's range is
cut into a home region of parts per thread (the caller's first), and a thread that finishes its
region takes the parts no one has started from the end of the range. A compiled call that may
split kernels keeps the workers spinning while it runs (:meth:`Pool.hot`), so a split costs about
a microsecond (a worker asleep on a lock took ~60 us to wake on an idle VM); a kernel is split
into at most ``2 * work / SPLIT_THRESHOLD`` parts (:func:`parts_for`): small kernels stay on the
calling thread. Outside compiled calls the workers sleep, so they never compete with numpy's own
threads.

The pool size is the number of cores this process may use (its affinity capped by its CPU quota:
graph/cpus.py), or ``MSJIT_THREADS``, or ``set_context(num_threads=...)``
(:func:`set_num_threads`). The pool is fork-safe: a forked child gets fresh locks and starts its
own workers on first use.

Example:
    >>> from codegen.cpu import threads
    >>> seen = []
    >>> threads.pool().parallel_for(lambda args, lo, hi: seen.append((lo, hi)), None, 0, 80, parts=2)
    >>> len(seen), min(seen), max(seen)  # two threads, a home region of four parts each
    (8, (0, 10), (70, 80))
"""
from __future__ import annotations

import ctypes
import os
import threading
import time

from graph import config as settings
from graph import forksafe
from graph.cpus import usable_cores

from .native_pool import CALL_BLAS, CALL_HOT  # Pool.call_region's flags

#: minimum ``elements * per-element cost`` of a kernel before it is split at all (two parts);
#: beyond it, a kernel of work W runs in min(threads, W // (SPLIT_THRESHOLD / 2)) parts. With
#: workers spinning through a compiled call a split costs about a microsecond, so kernels of some
#: 20 us of work split (measured on 2 cores, interleaved fresh processes: 600k -> 60k took the
#: LeNet5 b32 step 1.82 -> 1.14 ms and the MLP b32 step 0.79 -> 0.57 ms; 15k-60k within noise)
SPLIT_THRESHOLD = settings.get("MSJIT_SPLIT_THRESHOLD")

_requested: list[int] = []  # set_num_threads() value, if any


def available_cores() -> int:
    """Cores this process may really use (affinity capped by its CPU quota, graph/cpus.py)."""
    return usable_cores()


_from_env: list[int] = []  # MSJIT_THREADS as last read (0: unset or not a number)
#: bumped by every ``set_num_threads``: a call restored in native code (codegen/cpu/_restored_call.c)
#: reads it to know that its kernels' numbers of parts were decided for the current thread count
EPOCH = (ctypes.c_int64 * 1)()


def n_threads() -> int:
    """Threads a kernel may use: ``set_num_threads``, else ``MSJIT_THREADS``, else every core
    this process may run on. The variable is read once (and again after ``set_num_threads``):
    every compiled call asks, and reading the environment costs ~1 us (5 a LeNet5 step)."""
    if _requested:
        return _requested[0]
    if not _from_env:
        _from_env.append(settings.get("MSJIT_THREADS"))
    n = _from_env[0]
    return n if n > 0 else available_cores()


def set_num_threads(n: int | None) -> None:
    """Use ``n`` threads per kernel from now on (None: back to the default). Kernels compiled
    before keep their split decisions but the pool grows or shrinks at once."""
    if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 1):
        raise ValueError(f"num_threads must be a positive int or None, got {n!r}")
    _requested[:] = [] if n is None else [n]
    _from_env.clear()
    EPOCH[0] += 1


def parts_for(work: float, splittable: bool = True) -> int:
    """How many parts a kernel of ``work`` (elements x per-element cost) runs in."""
    n = n_threads()
    if not splittable or n < 2 or work < SPLIT_THRESHOLD:
        return 1
    per_part = SPLIT_THRESHOLD / 2
    return n if per_part <= 0 else max(2, min(n, int(work // per_part)))


#: how long a worker spins for the next job before it sleeps: while compiled code runs (the
#: gaps between its split kernels) and otherwise (between compiled calls: a training loop's
#: Python between two steps, its data loading). Waking a sleeping worker costs the next call
#: ~20-30 us (MLP b32 steps with a 200 us gap between them: 0.299 ms after 50 us of spinning,
#: 0.281 ms after 300; without a gap 0.276 and 0.278); libgomp spins about as long by default.
HOT_SPIN_NS = int(settings.get("MSJIT_HOT_SPIN_US") * 1e3)
IDLE_SPIN_NS = int(settings.get("MSJIT_IDLE_SPIN_US") * 1e3)

_KERNEL = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64)


class Pool:
    """Native workers (codegen/cpu/native_pool.py) started on demand, up to ``n_threads() - 1``
    (the caller runs one part itself). :meth:`parallel_for` splits a kernel's range over them;
    generated code calls the same native function (:attr:`parallel_for_address`); :meth:`hot`
    marks a compiled call that may split kernels, so the workers spin, not sleep, between them."""

    def __init__(self):
        from . import native_pool
        lib = native_pool.library()
        self._library = lib  # the workers run its code for the life of the process
        self.parallel_for_address = lib.address("msjit_parallel_for")
        i64 = ctypes.c_int64
        #: ``(kernel address, args, lo, hi, parts, align)``: the native parallel-for, for callers that
        #: hold compiled kernels (the runner)
        self.native_parallel_for = self._pfor = ctypes.CFUNCTYPE(
            None, ctypes.c_void_p, ctypes.c_void_p, i64, i64, i64, i64)(self.parallel_for_address)
        import llvmlite.binding as llvm
        llvm.add_symbol("msjit_parallel_for", self.parallel_for_address)  # generated segments call it
        self._cut = ctypes.CFUNCTYPE(i64, i64, i64, i64, i64, ctypes.c_void_p)(lib.address("msjit_pool_cut"))
        self._configure = ctypes.CFUNCTYPE(None, i64, i64, i64, i64)(lib.address("msjit_pool_configure"))
        self._ready = ctypes.CFUNCTYPE(i64)(lib.address("msjit_pool_ready"))
        self._reset = ctypes.CFUNCTYPE(i64, i64)(lib.address("msjit_pool_reset"))
        self._worker_loop = ctypes.CFUNCTYPE(None, i64, i64)(lib.address("msjit_pool_worker"))
        # a compiled call's region (native_pool._emit_call_region): called with the GIL held,
        # which serialises them
        self._call_enter = ctypes.PYFUNCTYPE(None, i64)(lib.address("msjit_call_enter"))
        self._call_leave = ctypes.PYFUNCTYPE(None, i64)(lib.address("msjit_call_leave"))
        self._region_configure = ctypes.PYFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p)(
            lib.address("msjit_region_configure"))
        self._region_after_fork = ctypes.PYFUNCTYPE(None)(lib.address("msjit_region_after_fork"))
        self.blas_switch = None  # the BLAS library's (get, set) thread-count functions, once configured
        self._epoch = 0
        self._pid = os.getpid()
        self._fresh_state()
        forksafe.track(self)  # runners hold this object: a forked child starts new workers

    def _fresh_state(self):
        self._workers: list[threading.Thread] = []
        self._grow = threading.Lock()

    def _reset_after_fork(self):
        # the child has a copy of the pool's memory but none of its threads (and maybe a job in
        # flight): forget them; workers start again on the next use (never inside a fork handler).
        # Workers of the old epoch that do exist (the hooks run without a fork) leave their loops
        self._epoch = self._reset(int(os.getpid() != self._pid))
        self._region_after_fork()  # (not here: setting BLAS's count starts its threads)
        self._pid = os.getpid()
        self._fresh_state()

    def ensure(self, workers: int) -> None:
        """At least ``workers`` workers running (they are never stopped: idle ones sleep)."""
        if len(self._workers) >= workers:
            return
        with self._grow:
            while len(self._workers) < workers:
                t = threading.Thread(target=self._worker_loop, args=(len(self._workers), self._epoch),
                                     name="msjit-worker", daemon=True)  # native code (no GIL held)
                t.start()
                self._workers.append(t)
            # a job may count on a worker only once it watches the job word (else it could miss
            # the job it was meant to take part in, and the caller would wait for it forever)
            deadline = time.monotonic() + 60
            while self._ready() < len(self._workers):
                if time.monotonic() > deadline:
                    raise RuntimeError(f"codegen.cpu.threads: {len(self._workers) - self._ready()} of "
                                       f"{len(self._workers)} kernel worker threads did not start within 60 s")
                time.sleep(0)
            self._configure(len(self._workers), available_cores() - 1, HOT_SPIN_NS, IDLE_SPIN_NS)

    def parallel_for(self, fn, args, lo, hi, parts=None, align=64):
        """``fn(args, a, b)`` over ``[lo, hi)`` on ``parts`` threads (this one and workers), cut
        into ``native_pool.SUBPARTS`` pieces per thread (:func:`_cut`). ``fn`` is a compiled
        kernel (a ctypes function pointer) or any Python callable."""
        parts = min(parts or n_threads(), n_threads(), max(1, hi - lo))
        if parts <= 1:
            fn(args, lo, hi)
            return
        self.ensure(parts - 1)
        if isinstance(fn, ctypes._CFuncPtr):
            self._pfor(ctypes.cast(fn, ctypes.c_void_p), args, lo, hi, parts, align)
            return
        errors = []

        def call(_, a, b):  # a Python callable: through a ctypes callback (takes the GIL)
            try:
                fn(args, a, b)
            except BaseException as e:
                errors.append(e)
        callback = _KERNEL(call)
        self._pfor(ctypes.cast(callback, ctypes.c_void_p), None, lo, hi, parts, align)
        if errors:
            raise errors[0]

    def hot(self):
        """A context for a compiled call that may split kernels: workers started, and spinning
        between its kernels instead of sleeping (reentrant, any thread)."""
        return self.call_region(CALL_HOT)

    def call_region(self, flags: int) -> "CallRegion":
        """The context a compiled call runs in (reentrant, any thread): with :data:`CALL_BLAS`,
        BLAS on one thread while any such call runs (where the library's thread count can be
        set: codegen/cpu/blas.py); with :data:`CALL_HOT`, the workers started and spinning."""
        if flags & CALL_BLAS and self.blas_switch is None:
            from . import blas
            self.configure_blas(blas.thread_switch())
        if self.blas_switch == ():
            flags &= ~CALL_BLAS
        return CallRegion(self, flags)

    def configure_blas(self, switch) -> None:
        """Use ``switch``, ctypes function pointers ``(get, set)`` of a BLAS library's thread
        count (``int get(void)``, ``void set(int)``), in call regions from now on (``()``: none)."""
        self.blas_switch = tuple(switch or ())
        if self.blas_switch:
            get, set_ = (ctypes.cast(f, ctypes.c_void_p) for f in self.blas_switch)
            self._region_configure(get, set_)

    def cut(self, lo, hi, parts, align):
        """The ``(start, end)`` pieces :meth:`parallel_for` runs (the native rule)."""
        out = (ctypes.c_int64 * (max(1, parts) + 1))()
        count = self._cut(lo, hi, max(1, parts), align, out)
        return [(out[i], out[i + 1]) for i in range(count)]


class CallRegion:
    """:meth:`Pool.call_region`: one native call in, one out."""

    __slots__ = ("pool", "flags", "_enter", "_leave")

    def __init__(self, pool, flags):
        self.pool, self.flags = pool, flags
        self._enter, self._leave = pool._call_enter, pool._call_leave

    def __enter__(self):
        flags = self.flags
        if flags & CALL_HOT:
            pool, wanted = self.pool, n_threads() - 1
            if len(pool._workers) < wanted:
                pool.ensure(wanted)
        self._enter(flags)

    def __exit__(self, *exc):
        self._leave(self.flags)
        return False

    def native_entry(self) -> tuple:
        """``(enter address, leave address, flags)``: the region for native callers
        (codegen/cpu/_restored_call.c), which call them with the GIL held as this context does.
        The pool's workers must have been started by an entry through this context first."""
        address = ctypes.c_void_p
        return ctypes.cast(self._enter, address).value, ctypes.cast(self._leave, address).value, self.flags


def _cut(lo, hi, parts, align):
    """``parts`` contiguous ranges covering ``[lo, hi)``; inner bounds rounded to ``align`` when
    each part is long enough, so vector loops keep whole blocks (computed by the native rule)."""
    return pool().cut(lo, hi, parts, align)


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

