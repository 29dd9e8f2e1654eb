"""Reused buffers for the intermediate results of fused kernels, shared by every backend.

A value a fused kernel stores and a later kernel reads (not a graph output or parameter update,
which the caller keeps) lives in a buffer allocated once per compiled graph and reused by every
call. Values whose lifetimes do not overlap share one buffer (a linear scan over the kernels; a
non-fused op may return a view of its input, so a buffer stays busy while any value derived from
it may still be read).

Example:
    >>> import numpy as np
    >>> from codegen.buffer_plan import plan_buffers
    >>> # buffers = plan_buffers(graph, schedule.kernels, plans, lambda n: np.empty(n, np.uint8))
"""
from __future__ import annotations

import numpy as np

from graph.ir import Value

from .fused_plan import FusedPlan


def alias_roots(kernels_) -> dict:
    """id(value) -> ids of the buffers it may alias (non-fused ops may return views)."""
    roots = {}
    for k in kernels_:
        if k.kind == "fused":
            continue
        for n in k.nodes:
            rs = set()
            for a in n.inputs:
                if isinstance(a, Value):
                    rs |= roots.get(id(a), {id(a)})
            for v in n.outputs:
                roots[id(v)] = rs | {id(v)}
    return roots


def plan_buffers(graph, kernels_, plans: dict, alloc) -> dict:
    """id(value) -> preallocated array for every non-input operand of the fused plans (``plans``:
    kernel index -> FusedPlan, or anything else for kernels that are not compiled) that the caller
    does not keep. ``alloc(nbytes)`` returns a 1-D uint8 array of the backend's array module."""
    keep = {id(v) for v in graph.outputs if isinstance(v, Value)} | {id(v) for v in graph.updates.values()}
    roots = alias_roots(kernels_)
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
        plan = plans.get(ki)
        if isinstance(plan, FusedPlan):
            for o in plan.operands:
                if o.role == "in" or id(o.value) in fresh_roots:
                    continue
                nbytes = max(int(np.prod(o.value.shape, dtype=np.int64)) * o.dtype.itemsize, 1)
                pool = free.get(nbytes)
                raw = pool.pop() if pool else alloc(nbytes)
                buffers[id(o.value)] = raw[:o.value.size * o.dtype.itemsize].view(o.dtype).reshape(o.value.shape)
                releases.setdefault(last_use.get(id(o.value), ki), []).append((nbytes, raw))
        for nbytes, raw in releases.pop(ki, ()):
            free.setdefault(nbytes, []).append(raw)
    return buffers
