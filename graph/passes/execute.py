"""Reference executor for schedules: runs the kernels in order with each op's numpy ``impl``.

It is to a :class:`~graph.passes.schedule.Schedule` what :func:`graph.interpret.run` is to a
Graph (same operand promotion, same impls, so results agree bit for bit), and it checks the
contract a backend relies on: a kernel may only read graph inputs, constants and outputs of
earlier kernels (values private to another kernel raise). With ``use_slots`` (the default when
the schedule is memory-planned) every planned value really lives in its slot: it is written into
a shared byte buffer per slot and later kernels read it back from there, so a plan that lets two
live values share a slot gives wrong numbers instead of passing silently.

Example:
    >>> from graph.passes import optimize, run_schedule
    >>> # outputs, updates = run_schedule(optimize(g), [x, w])
"""
from __future__ import annotations

import numpy as np

from ..ir import Value
from ..interpret import run_node
from .schedule import Schedule


def _run_node(node, env):
    run_node(node, env)


def run_schedule(schedule: Schedule, inputs, use_slots: bool | None = None):
    """Execute ``schedule`` on arrays for ``schedule.graph.inputs``; returns ``(outputs, updates)``
    like :func:`graph.interpret.run` (updates keyed by parameter input index)."""
    graph = schedule.graph
    if len(inputs) != len(graph.inputs):
        raise ValueError(f"graph {graph.name}: expected {len(graph.inputs)} inputs, got {len(inputs)}")
    if use_slots is None:
        use_slots = bool(schedule.buffers)
    visible: dict[int, object] = {}  # what later kernels may read
    for v, a in zip(graph.inputs, inputs):
        visible[v.id] = np.asarray(a)
    for c in graph.consts:
        visible[c.id] = c.data
    slots = {s: np.zeros(max(n, 1), np.uint8) for s, n in schedule.slot_sizes.items()} if use_slots else {}
    for k, kern in enumerate(schedule.kernels):
        env = {}
        for v in kern.inputs:
            if v.id not in visible:
                raise AssertionError(f"schedule: kernel {k} ({kern.name}) reads {v!r}, which no earlier "
                                     "kernel outputs")
            env[v.id] = visible[v.id]
        for node in kern.nodes:
            _run_node(node, env)
        results = [(o, env[o.id]) for o in kern.outputs]
        for o, arr in results:  # every input was read above: in-place outputs may now overwrite them
            slot = schedule.buffers.get(o.id) if use_slots else None
            if slot is None:
                # a numpy view of a slot-backed operand must not change when the slot is reused
                visible[o.id] = np.array(arr) if use_slots else arr
                continue
            view = slots[slot][:arr.nbytes].view(arr.dtype).reshape(arr.shape)
            view[...] = arr
            visible[o.id] = view
    outputs = [visible[v.id] if isinstance(v, Value) else v for v in graph.outputs]
    index = {v.id: i for i, v in enumerate(graph.inputs)}
    updates = {index[p.id]: visible[v.id] for p, v in graph.updates.items()}
    return outputs, updates
