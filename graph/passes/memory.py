"""Memory planning: give intermediate kernel outputs reusable buffer slots in one arena.

The one buffer plan of the project: the pass pipeline runs it for the schedule it returns (the
reference executor and schedule dumps read ``Schedule.buffers``), and every backend runs it
again with what it knows (:func:`plan`: which values it stores into memory it is given, at what
size, and which of its kernels may return views of their operands), then allocates one arena of
``arena_bytes`` and cuts each value's buffer out of it at its slot's offset.

Over the schedule's kernel order, a value is *defined* by the kernel that stores it and *live*
until the last kernel that reads it (a value nobody reads dies where it is written). Planned
values are the stored values that do not escape the call: graph outputs, parameter updates, and
(transitively) the operands of an aliasing kernel whose output escapes are left out, so a
backend that implements views by aliasing never returns memory it will reuse. An aliasing
kernel's operands stay live as long as its outputs, for the same reason. Aliasing kernels are
view kernels by default; a backend whose other kernels may return views of their inputs (a
numpy ``impl``) says so.

Slots: before a kernel runs, each of its planned outputs takes
  1. *in place* the slot of one of the kernel's inputs (when asked for: a backend whose kernels
     declare their pointers ``noalias`` must not), when the kernel is ``fused``, the output is
     an elementwise value of the kernel's iteration shape, and the input has that shape and the
     output's dtype, is planned, dies at this kernel and is not the operand of any aliasing
     kernel (element i is then always read before element i is written). Recorded in
     ``inplace``;
  2. else the smallest free slot of at least its size (best fit, O(log n) lookup);
  3. else a new slot of exactly its size.
After the kernel, the slots of values that died at it return to the free pool. Slots are laid
out one after another in the arena, each at a multiple of :data:`ALIGN` bytes.

``plan_memory(schedule)`` (the pass) fills ``buffers``/``slot_sizes``/``inplace`` of the
schedule in place and returns it.

Example:
    >>> from graph.aval import AVal
    >>> from graph.dtypes import float32
    >>> from graph.ir import Graph
    >>> from graph.ops import F
    >>> from graph.passes import fuse
    >>> g = Graph("chain"); x = g.add_input(AVal((8, 8), float32), "x", kind="input")
    >>> g.set_outputs([F.matmul(F.matmul(F.matmul(x, x), x), x)])
    >>> p = plan(fuse(g))  # two intermediates live at once, the result escapes
    >>> len(p.slot_of), len(p.slot_sizes), p.arena_bytes
    (2, 2, 512)
"""
from __future__ import annotations

import bisect
from dataclasses import dataclass, field

from ..ir import NODE, Value
from .schedule import Schedule


#: byte alignment of every slot in the arena (a cache line; vector loads never straddle two)
ALIGN = 64


@dataclass
class MemoryPlan:
    #: ``Value.id`` -> slot
    slot_of: dict = field(default_factory=dict)
    #: slot -> bytes
    slot_sizes: dict = field(default_factory=dict)
    #: in-place output ``Value.id`` -> ``Value.id`` of the input whose slot it takes
    inplace: dict = field(default_factory=dict)
    #: slot -> byte offset in the arena
    offsets: dict = field(default_factory=dict)
    arena_bytes: int = 0


def nbytes(v: Value) -> int:
    return v.aval.size * v.aval.dtype.itemsize


def _is_view(k, kern) -> bool:
    return kern.kind == "view"


def _stored_outputs(schedule: Schedule) -> dict:
    """Every kernel output, at its dtype's size (what the pass plans)."""
    return {k: [(o, nbytes(o)) for o in kern.outputs] for k, kern in enumerate(schedule.kernels)}


def liveness(schedule: Schedule, stores: dict | None = None, may_alias=_is_view):
    """``(define, last_use)``: Value.id -> kernel index, for every kernel output (``define`` is
    the kernel that stores it: ``stores`` may name an earlier kernel than the value's node, one
    that computes it for a later one).

    ``last_use`` includes the extension through aliasing kernels (an operand of a view lives as
    long as the view)."""
    define: dict[int, int] = {}
    last: dict[int, int] = {}
    for k, kern in enumerate(schedule.kernels):
        for v in kern.inputs:
            if v.kind == NODE:
                last[v.id] = k
        for n in kern.nodes:
            for o in n.outputs:
                define[o.id] = k
    for k, stored in (stores or {}).items():
        for v, _ in stored:
            define[v.id] = min(define.get(v.id, k), k)
    for vid, k in define.items():
        last.setdefault(vid, k)
    for k in reversed(range(len(schedule.kernels))):  # alias chains: later aliases first
        kern = schedule.kernels[k]
        if may_alias(k, kern):
            end = max((last.get(o.id, k) for n in kern.nodes for o in n.outputs), default=k)
            for base in _operands(kern):
                if base.id in define:
                    last[base.id] = max(last[base.id], end)
    return define, last


def _operands(kern):
    """Value operands of a kernel's nodes: what an aliasing kernel may alias (all of them, to be
    safe for concat-like views and index tensors alike)."""
    return [v for n in kern.nodes for v in n.inputs if isinstance(v, Value)]


def _escaping(schedule: Schedule, may_alias=_is_view) -> set[int]:
    g = schedule.graph
    esc = {v.id for v in g.outputs if isinstance(v, Value)}
    esc.update(v.id for v in g.updates.values())
    for k in reversed(range(len(schedule.kernels))):
        kern = schedule.kernels[k]
        if may_alias(k, kern) and any(o.id in esc for n in kern.nodes for o in n.outputs):
            esc.update(v.id for v in _operands(kern))
    return esc


def plan(schedule: Schedule, stores: dict | None = None, may_alias=_is_view, inplace: bool = True) -> MemoryPlan:
    """The memory plan of ``schedule`` (see the module docstring). ``stores``: kernel index ->
    ``[(Value, nbytes)]`` the backend stores into memory it is given at that kernel (default:
    every kernel output at its dtype's size); ``may_alias(k, kernel)``: whether that kernel's
    outputs may be views of its operands (default: view kernels); ``inplace``: whether a fused
    kernel's output may take the slot of an input that dies there."""
    stores = _stored_outputs(schedule) if stores is None else stores
    define, last = liveness(schedule, stores, may_alias)
    escapes = _escaping(schedule, may_alias)
    viewed = set()
    for k, kern in enumerate(schedule.kernels):
        if may_alias(k, kern):
            viewed.update(v.id for v in _operands(kern))
    p = MemoryPlan()
    buffers, sizes = p.slot_of, p.slot_sizes
    dies_at: dict[int, list[int]] = {}
    free: list[tuple[int, int]] = []  # sorted (nbytes, slot)
    for k, kern in enumerate(schedule.kernels):
        taken = set()  # inputs already overwritten in place by an output of this kernel
        in_place_ok = inplace and kern.kind == "fused"
        body_shape = kern.shape if in_place_ok else None
        body_ids = {o.id for n in kern.nodes if n is not kern.reduce for o in n.outputs} if in_place_ok else set()
        for o, size in stores.get(k, ()):
            if o.id in escapes or o.id in buffers:
                continue
            slot = None
            if o.id in body_ids and o.shape == body_shape:
                for u in kern.inputs:
                    if (u.id in buffers and u.id not in taken and last.get(u.id) == k
                            and u.aval == o.aval and u.id not in viewed and sizes[buffers[u.id]] >= size):
                        slot = buffers[u.id]
                        taken.add(u.id)
                        p.inplace[o.id] = u.id
                        break
            if slot is None:
                size = max(int(size), 1)
                i = bisect.bisect_left(free, (size, -1))
                if i < len(free):
                    slot = free.pop(i)[1]
                else:
                    slot = len(sizes)
                    sizes[slot] = size
            buffers[o.id] = slot
            dies_at.setdefault(last[o.id], []).append(o.id)
        for vid in dies_at.pop(k, ()):
            if vid in taken:
                continue  # its slot now belongs to the in-place output
            slot = buffers[vid]
            bisect.insort(free, (sizes[slot], slot))
    offset = 0
    for slot in sorted(sizes):
        p.offsets[slot] = offset
        offset += -(-sizes[slot] // ALIGN) * ALIGN
    p.arena_bytes = offset
    return p


def plan_memory(schedule: Schedule) -> Schedule:
    """Fill ``schedule.buffers``, ``slot_sizes`` and ``inplace`` (see the module docstring)."""
    p = plan(schedule)
    schedule.buffers, schedule.slot_sizes, schedule.inplace = p.slot_of, p.slot_sizes, p.inplace
    return schedule
