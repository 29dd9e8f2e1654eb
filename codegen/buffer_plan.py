"""Reused buffers for intermediate results, shared by every backend.

A value a step stores into memory it is given (a fused kernel's output, a native kernel's output,
a matrix product on the CPU) and a later step reads (not a graph output or parameter update,
which the caller keeps) lives in a buffer allocated once per compiled graph and reused by every
call. Values whose lifetimes do not overlap share one buffer (a linear scan over the kernels; an
op run through its array implementation may return a view of its input, so a buffer stays busy
while any value derived from it may still be read).

Example:
    >>> import numpy as np
    >>> from codegen.buffer_plan import plan_buffers
    >>> # buffers = plan_buffers(graph, schedule.kernels, {ki: [(value, dtype), ...]},
    >>> #                        lambda n: np.empty(n, np.uint8))
"""
from __future__ import annotations

import numpy as np

from graph.ir import Value


def alias_roots(kernels_, fresh=()) -> dict:
    """id(value) -> ids of the buffers it may alias. Outputs of fused kernels and of the kernels
    in ``fresh`` (indices of steps that write into memory of their own) alias nothing; any other
    op may return a view of its operands."""
    roots = {}
    for ki, k in enumerate(kernels_):
        if k.kind == "fused" or ki in fresh:
            continue
        for n in k.nodes:
            rs = set()
            for a in n.inputs:
                if isinstance(a, Value):
                    rs |= roots.get(id(a), {id(a)})
            for v in n.outputs:
                roots[id(v)] = rs | {id(v)}
    return roots


def plan_writes(plans: dict) -> dict:
    """kernel index -> [(value, storage dtype)] stored by each compiled plan (every operand that
    is not an input); ``plans`` maps kernel indices to plans (or to the reason there is none)."""
    writes = {}
    for ki, plan in plans.items():
        operands = getattr(plan, "operands", None)
        if operands is not None:
            writes[ki] = [(o.value, o.dtype) for o in operands if o.role != "in"]
    return writes


def plan_buffers(graph, kernels_, writes: dict, alloc) -> dict:
    """id(value) -> preallocated array for every value of ``writes`` (kernel index -> [(value,
    dtype)] the step stores into a buffer it is given) that the caller does not keep.
    ``alloc(nbytes)`` returns a 1-D uint8 array of the backend's array module."""
    keep = {id(v) for v in graph.outputs if isinstance(v, Value)} | {id(v) for v in graph.updates.values()}
    roots = alias_roots(kernels_, fresh=set(writes))
    fresh_roots = set(keep) | {r for v, rs in roots.items() if v in keep for r in rs}
    last_use = {}
    for ki, k in enumerate(kernels_):
        for n in k.nodes:
            for a in n.inputs:
                if isinstance(a, Value):
                    for r in roots.get(id(a), (id(a),)):
                        last_use[r] = ki
    buffers = {}
    free: dict[int, list] = {}
    releases: dict[int, list] = {}
    for ki, k in enumerate(kernels_):
        for value, dt in writes.get(ki, ()):
            if id(value) in fresh_roots or id(value) in buffers:
                continue
            nbytes = max(int(np.prod(value.shape, dtype=np.int64)) * dt.itemsize, 1)
            pool = free.get(nbytes)
            raw = pool.pop() if pool else alloc(nbytes)
            buffers[id(value)] = raw[:value.size * dt.itemsize].view(dt).reshape(value.shape)
            releases.setdefault(last_use.get(id(value), ki), []).append((nbytes, raw))
        for nbytes, raw in releases.pop(ki, ()):
            free.setdefault(nbytes, []).append(raw)
    return buffers
