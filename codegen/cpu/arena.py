"""Arenas: the memory compiled graphs keep their intermediate values in.

A compiled graph (codegen/cpu/runner.py) plans its intermediates into one block of bytes
(graph/passes/memory.py) and binds the block's addresses into its kernels' argument tables. The
block is an :class:`Arena`'s, and:

  * it is allocated when a graph bound to the arena first *runs*, not when it is compiled (a graph
    compiled and never run holds nothing; a shape too big for the machine raises its MemoryError
    when it runs, where the caller sees the user's error);
  * it is shared by the graphs of one group -- capture gives all entries of one code object one
    arena (the batch sizes of one ``construct``, a function's forward and backward): the group
    holds the memory of its biggest graph, not the sum of all of them. The graphs of a group run
    one at a time (they share the arena's lock), as each graph did alone before;
  * it shrinks when the graph that needed the most dies (its entry dropped by the recompile limit,
    ``capture.reset()``, the Cell collected), and is released with its last graph;
  * arenas in total are bounded by :data:`LIMIT` bytes: allocating past it first releases the
    memory of the arenas allocated longest ago that are not running (they allocate it again when
    they next run). The bound is best effort: one arena bigger than it still gets its memory.

A graph notices that its arena's memory moved by the arena's ``generation`` (an int compared on
each call that runs in Python); the call repeated in C (codegen/cpu/_restored_call.c) is disarmed
on every move, so its next call goes through Python and binds the new addresses. A graph that
runs the same shapes again allocates nothing: the hot path is unchanged.
"""
from __future__ import annotations

import collections
import os
import threading
import weakref

import numpy as np

from graph import config as settings
from graph.passes import memory


def _default_limit() -> int:
    """A quarter of the machine's memory, at least 1 GiB (``MSJIT_ARENA_LIMIT``: bytes)."""
    env = settings.get("MSJIT_ARENA_LIMIT")
    if env is not None:
        return env
    try:
        physical = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        physical = 0
    return max(1 << 30, physical // 4)


#: bytes all arenas may hold together before the oldest idle ones give theirs back
LIMIT = _default_limit()

#: id -> arena, of the arenas holding memory, oldest allocation first. Changed and read by single
#: dict operations under the GIL, without a lock of its own: a graph's finalizer (run by the
#: garbage collector at any allocation, on any thread) may release an arena while another
#: arena's allocation is in progress on the same thread
_HELD: "collections.OrderedDict[int, weakref.ref]" = collections.OrderedDict()


def _held_arenas() -> list:
    return [a for a in (r() for r in list(_HELD.values())) if a is not None]


def held_bytes() -> int:
    """Bytes all arenas hold now."""
    return sum(a.nbytes for a in _held_arenas())


class Arena:
    """The memory of a group of compiled graphs (see the module docstring). ``lock`` serialises
    the group's calls; :meth:`memory` (called with it held) gives a block of at least ``nbytes``."""

    def __init__(self):
        self.lock = threading.Lock()
        self._lock_pid = os.getpid()
        self.array = None  # uint8, aligned to memory.ALIGN; None: not allocated (or given back)
        self.generation = 0  # changes whenever ``array`` does
        # id -> weak reference of the graphs bound to it. Not a WeakSet: PyNative's eager kernels are
        # compiled (and attached) on a background thread (runtime/background_compile.py) while
        # another thread may be listing the graphs, and a WeakSet's listing runs Python code that
        # an add on another thread interrupts ("set changed size during iteration"); a dict's
        # values are listed in one step under the GIL
        self._graphs: dict = {}
        self._resize = False  # a graph died: the block may be bigger than the living ones need
        # (shape, dtype, k) -> the pool the k-th fresh output of that shape and dtype of each graph
        # recycles its arrays through (codegen/cpu/runner.py: _output_pool); it lives while a graph
        # using it does
        self._pools: "weakref.WeakValueDictionary" = weakref.WeakValueDictionary()

    @property
    def nbytes(self) -> int:
        return 0 if self.array is None else self.array.nbytes

    def renew_lock_after_fork(self) -> None:
        """In a forked child, a fresh lock (once, whichever of the group's graphs asks first)."""
        if self._lock_pid != os.getpid():
            self._lock_pid = os.getpid()
            self.lock = threading.Lock()

    def attach(self, graph) -> None:
        """``graph`` runs in this arena from now on (it needs ``graph.arena_bytes``)."""
        self._graphs[id(graph)] = weakref.ref(graph)
        weakref.finalize(graph, _graph_died, weakref.ref(self), id(graph))

    def graphs(self) -> list:
        """The living graphs bound to this arena."""
        return [g for g in (r() for r in list(self._graphs.values())) if g is not None]

    def output_pool(self, key) -> list:
        """The output pool shared under ``key`` (made now if none is)."""
        pool = self._pools.get(key)
        if pool is None:
            pool = self._pools[key] = _Pool()
        return pool

    def memory(self, nbytes: int):
        """The block, at least ``nbytes`` long (``lock`` held): allocated or grown now if needed,
        shrunk to what the living graphs need if one died since."""
        need = nbytes
        if self._resize:
            self._resize = False
            need = max([nbytes, *(g.arena_bytes for g in self.graphs())])
            if self.array is not None and self.nbytes > need:
                self._set(None)
        if self.array is None or self.nbytes < need:
            self._set(_allocate(max(need, self.nbytes), self))
        return self.array

    def release(self) -> None:
        """Give the block back (``lock`` held, or no graph of the group able to run)."""
        if self.array is not None:
            self._set(None)

    def _set(self, array) -> None:
        old = self.array
        self.array = array
        self.generation += 1
        _HELD.pop(id(self), None)
        if array is not None:
            _HELD[id(self)] = weakref.ref(self)
        del old
        for g in self.graphs():  # their calls in C hold the old addresses: back to Python
            g.arena_moved()


class _Pool(list):
    """An output pool: a list of (array, address) entries (weakly referable, so an arena keeps
    its pools only while a graph uses them)."""

    __slots__ = ("__weakref__",)


def _graph_died(ref, graph_id) -> None:
    """A graph of the arena was collected: the arena shrinks to what the living graphs need (now
    if none of them is running, else at the group's next call) and is released with the last."""
    arena = ref()
    if arena is None:
        return
    dead = arena._graphs.get(graph_id)
    if dead is not None and dead() is None:  # (the id may already name a newer graph)
        arena._graphs.pop(graph_id, None)
    living = arena.graphs()
    if not living:
        arena.release()  # (nobody can be running in it)
    elif arena.lock.acquire(blocking=False):  # (fails while a graph of the group runs, on any thread)
        try:
            if arena.nbytes > max(g.arena_bytes for g in living):
                arena.release()
        finally:
            arena.lock.release()
    else:
        arena._resize = True
        arena.generation += 1  # (the next call of the group binds again, and so resizes)
        for g in living:
            g.disarm()


def _allocate(nbytes: int, arena: Arena):
    """An aligned block of ``nbytes``, after releasing idle arenas (oldest first) so that all of
    them hold at most :data:`LIMIT` where that is possible. MemoryError when the machine has not
    the memory."""
    others = [a for a in _held_arenas() if a is not arena]
    total = sum(a.nbytes for a in others) + nbytes
    for other in others:
        if total <= LIMIT:
            break
        if other.array is None or not other.lock.acquire(blocking=False):
            continue  # (running now: it keeps its memory)
        try:
            total -= other.nbytes
            other.release()
        finally:
            other.lock.release()
    raw = np.empty(nbytes + memory.ALIGN, np.uint8)
    skip = -raw.ctypes.data % memory.ALIGN
    return raw[skip:skip + nbytes]
