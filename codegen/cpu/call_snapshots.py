"""The steady state of a compiled training step: its argument pointers, restored in one call.

Before each kernel runs, the runner points its argument table at this call's arrays
(``_Binding.preparer`` in codegen/cpu/runner.py: about a microsecond an operand in Python; a
LeNet5 train step has 45 tables). In a training loop nearly all of those pointers repeat two
calls apart. The parameters and optimizer state the graph updates come back as the next call's
inputs, and their new values go into arrays that the output pools recycle: the array of two
calls ago, which only its pool holds once the Parameter has moved on to the newer one. So the
pointers of a call follow from *which* pool arrays the updated inputs are. A snapshot, keyed by
their identities, restores every such pointer with one numpy assignment. The other inputs (the
batch, a learning rate) are pointed at where they changed since the last restored call, and
only what a snapshot cannot know (arrays made by numpy steps, the graph's returned outputs) is
bound by each kernel's smaller ``fast_prepare``. Updates written in place (the parameters a
caller donates, codegen/cpu/runner.py: ``_take_donations``) keep their arrays, so a step doing
only those has one snapshot, whose pointers stay in the block from one call to the next.

A snapshot is used only while what it assumed still holds:

- its key names arrays this graph holds for its lifetime (the output pools' arrays, the donated
  arrays it wrote into), so an ``id`` in the key always means the same array (and so the same
  address, dtype and layout);
- every array it writes an update into is free at the start of the call: only its pool holds
  it (the refcount test the pools use), or it was donated for this call, so nobody can see it
  change.

Example (the runner keeps one per graph as ``snapshots``):
    >>> import numpy as np, capture
    >>> from capture.cache import cache_for
    >>> from runtime import Parameter, Tensor, ops
    >>> w = Parameter(Tensor(np.ones(4, np.float32)), name="w")
    >>> def halve():
    ...     ops.assign(w, w * 0.5)
    ...     return w.sum()
    >>> step = capture.jit(halve, backend="llvm")
    >>> [float(step().asnumpy()) for _ in range(5)]
    [2.0, 1.0, 0.5, 0.25, 0.125]
    >>> runner = cache_for(halve.__code__).entries[0].runner
    >>> runner.inplace_inputs  # w's array is updated in place: one snapshot, restored by calls 2 to 5
    [0]
    >>> runner.snapshots.hits
    4
"""
from __future__ import annotations

import sys
from weakref import ref as _weakref

import numpy as np

#: snapshots kept per graph: a training loop needs two (the pools alternate between two arrays
#: per updated input); more mean the pattern is not settling, and recording stops
LIMIT = 4


class CallSnapshots:
    """Snapshots of one compiled graph's argument pointers, keyed by its updated inputs.

    ``fixed_positions``: indices into the graph's one argument block whose pointers follow from
    the key (the updated inputs, views of them, the pooled arrays the updates go into and the
    kernels' reads of those); ``fixed_reads``: (slot, dtype) of the values read at those
    positions, which must need no conversion; ``managed``: (slot, binding, k) of each update the
    snapshot places, ``binding.chosen[k]`` being the pool entry a full call took for it;
    ``input_reads``: input index -> [(position, dtype)] of the other inputs, read at one dtype."""

    def __init__(self, block, update_inputs, fixed_positions, fixed_reads, managed, known, free_rc,
                 input_reads=None):
        self._view = np.frombuffer(block, np.uintp)
        self._positions = np.asarray(fixed_positions, np.intp)
        self._update_inputs = list(update_inputs)
        self._fixed_reads = list(fixed_reads)
        self._managed = list(managed)
        self._managed_slots = [slot for slot, _, _ in managed]
        self._known = known
        self._free_rc = free_rc
        self._snaps = {}
        self._current = None  # the snapshot whose pointers the block holds now
        self._hits = 0
        self.native = None  # the call restored in C (runner: ``_native_restored_call``), if any
        # the inputs outside the key (the batch, a learning rate): input index -> the positions
        # reading it and their dtypes, and (a weak reference to) the array they were last pointed
        # at by a restored call. Weak: a graph that no longer runs (capture keeps one per input
        # shape) must not keep the old arrays alive, parameters' included; while the array lives,
        # its data is where the positions point, and once it died no other array can pass for it
        self._input_reads = [(i, np.asarray([p for p, _ in reads], np.intp), reads[0][1])
                             for i, reads in sorted((input_reads or {}).items())]
        self._bound = [None] * len(self._input_reads)

    def _key(self, arrays):
        return tuple([id(arrays[i]) for i in self._update_inputs])

    def lookup(self, arrays):
        """The snapshot for this call's inputs, if one is known, its update arrays are free and
        the other inputs need no conversion."""
        snap = self._snaps.get(self._key(arrays))
        if snap is None:
            return None
        getrc, free = sys.getrefcount, self._free_rc
        for entry in snap[1]:
            if getrc(entry[0]) != free:
                return None
        for (i, _, dt), bound in zip(self._input_reads, self._bound):
            a = arrays[i]
            if (bound is None or bound() is not a) and (a.dtype != dt or not a.flags.c_contiguous):
                return None
        return snap

    def restore(self, snap, env) -> None:
        """Point the fixed positions at the snapshot's arrays and the other inputs' positions at
        this call's arrays (where they changed); put the snapshot's update arrays in ``env``."""
        values, entries = snap
        if snap is not self._current:  # (graphs updating in place restore one snapshot: once)
            self._view[self._positions] = values
            self._current = snap
        view = self._view
        bound = self._bound
        for k, (i, positions, _) in enumerate(self._input_reads):
            a = env[i]
            ref = bound[k]
            if ref is None or ref() is not a:
                view[positions] = a.ctypes.data
                bound[k] = _weakref(a)
        for slot, entry in zip(self._managed_slots, entries):
            env[slot] = entry[0]
        self._hits += 1

    @property
    def hits(self) -> int:
        """Calls restored from a snapshot (in Python or in C)."""
        return self._hits + (self.native.hits if self.native is not None else 0)

    def forget_inputs(self) -> None:
        """A full call binds every pointer itself (the inputs maybe to converted copies): rebind
        them next time."""
        self._bound[:] = [None] * len(self._input_reads)  # (in place: the native call shares the list)
        self._current = None

    def clear(self) -> None:
        """Drop every snapshot (an array whose id keys one may be gone)."""
        self._snaps.clear()
        self._current = None

    def record(self, arrays, env) -> None:
        """After a full call: keep its pointers if every assumption above holds for it."""
        if len(self._snaps) >= LIMIT:
            return
        known = self._known
        for i in self._update_inputs:
            a = arrays[i]
            if (id(a), a.dtype) not in known:  # not a pooled array: its id may be reused later
                return
        for slot, dt in self._fixed_reads:
            a = env[slot]
            if a.dtype != dt or not a.flags.c_contiguous:  # the call used a converted copy
                return
        entries = [binding.chosen[k] for _, binding, k in self._managed]
        if any(e is None for e in entries):  # an update went into an unpooled array
            return
        snap = self._snaps[self._key(arrays)] = (self._view[self._positions].copy(), entries)
        self._current = snap
