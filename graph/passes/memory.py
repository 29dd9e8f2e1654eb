"""Memory planning: give intermediate kernel outputs reusable buffer slots.

Over the schedule's kernel order, a value is *defined* by the kernel that outputs it and *live*
until the last kernel that reads it (a value nobody reads dies where it is written). Planned
values are the kernel outputs that do not escape the call: graph outputs, parameter updates, and
(transitively) the operands of a view kernel whose output escapes are left out, so a backend
that implements views by aliasing never returns memory it will reuse. A view kernel's operand
stays live as long as the view does, for the same reason.

Slots: before a kernel runs, each of its planned outputs takes
  1. *in place* the slot of one of the kernel's inputs, when the kernel is ``fused``, the output
     is an elementwise value of the kernel's iteration shape, and the input has that shape and the
     output's dtype, is planned, dies at this kernel and is not the operand of any view (element i
     is then always read before element i is written). Recorded in ``Schedule.inplace``;
  2. else the smallest free slot of at least its size (best fit, O(log n) lookup);
  3. else a new slot of exactly its size.
After the kernel, the slots of values that died at it return to the free pool.

``plan_memory(schedule)`` fills ``buffers``/``slot_sizes``/``inplace`` of the schedule in place
and returns it.
"""
from __future__ import annotations

import bisect

from ..ir import NODE, Value
from .schedule import Schedule


def nbytes(v: Value) -> int:
    return v.aval.size * v.aval.dtype.itemsize


def liveness(schedule: Schedule):
    """``(define, last_use)``: Value.id -> kernel index, for every kernel output.

    ``last_use`` includes the extension through view kernels (an operand of a view lives as long
    as the view)."""
    define: dict[int, int] = {}
    last: dict[int, int] = {}
    for k, kern in enumerate(schedule.kernels):
        for v in kern.inputs:
            if v.kind == NODE:
                last[v.id] = k
        for n in kern.nodes:
            for o in n.outputs:
                define[o.id] = k
    for vid, k in define.items():
        last.setdefault(vid, k)
    for kern in reversed(schedule.kernels):  # view chains: later views first
        if kern.kind == "view":
            end = max((last[o.id] for o in kern.nodes[0].outputs), default=0)
            for base in _operands(kern):
                if base.id in define:
                    last[base.id] = max(last[base.id], end)
    return define, last


def _operands(kern):
    """Value operands of a kernel's (single) node: what a view may alias (all of them, to be safe
    for concat-like views and index tensors alike)."""
    return [v for v in kern.nodes[0].inputs if isinstance(v, Value)]


def _escaping(schedule: Schedule) -> set[int]:
    g = schedule.graph
    esc = {v.id for v in g.outputs if isinstance(v, Value)}
    esc.update(v.id for v in g.updates.values())
    for kern in reversed(schedule.kernels):
        if kern.kind == "view" and any(o.id in esc for o in kern.nodes[0].outputs):
            esc.update(v.id for v in _operands(kern))
    return esc


def plan_memory(schedule: Schedule) -> Schedule:
    """Fill ``schedule.buffers``, ``slot_sizes`` and ``inplace`` (see the module docstring)."""
    define, last = liveness(schedule)
    escapes = _escaping(schedule)
    viewed = set()
    for kern in schedule.kernels:
        if kern.kind == "view":
            viewed.update(v.id for v in _operands(kern))
    dies_at: dict[int, list[int]] = {}
    buffers: dict[int, int] = {}
    sizes: dict[int, int] = {}
    inplace: dict[int, int] = {}
    free: list[tuple[int, int]] = []  # sorted (nbytes, slot)
    for k, kern in enumerate(schedule.kernels):
        taken = set()  # inputs already overwritten in place by an output of this kernel
        body_shape = kern.shape if kern.kind == "fused" else None
        body_ids = ({o.id for n in kern.nodes if n is not kern.reduce for o in n.outputs}
                    if kern.kind == "fused" else set())
        for o in kern.outputs:
            if o.id in escapes:
                continue
            slot = None
            if o.id in body_ids and o.shape == body_shape:
                for u in kern.inputs:
                    if (u.id in buffers and u.id not in taken and last.get(u.id) == k
                            and u.aval == o.aval and u.id not in viewed):
                        slot = buffers[u.id]
                        taken.add(u.id)
                        inplace[o.id] = u.id
                        break
            if slot is None:
                size = nbytes(o)
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
    schedule.buffers, schedule.slot_sizes, schedule.inplace = buffers, sizes, inplace
    return schedule
