"""Reverse-mode autodiff on the IR, using the registry's VJP rules (the same rules the eager tape
runs: on IR values, ``F.mul(g, y)`` appends a node instead of computing).

``append_vjp(graph, outputs, seeds, wrt)`` appends the backward computation of ``outputs`` to the
graph and returns the cotangent Value (or None) of each value in ``wrt``.

Example:
    >>> from graph.ir import Graph
    >>> from graph.aval import AVal
    >>> from graph.dtypes import float32
    >>> from graph.ops import F
    >>> g = Graph("sq")
    >>> x = g.add_input(AVal((3,), float32), "x")
    >>> y = F.reduce_sum(F.mul(x, x))
    >>> (dx,) = append_vjp(g, [y], [F.ones_like(y)], [x])
    >>> g.set_outputs([y, dx]); g.verify()
"""
from __future__ import annotations

from .ir import Graph, Value
from .ops import F
from .ops.core import VJP_INPUTS


def _relevant_nodes(graph: Graph, outputs, wrt):
    """Nodes on a path from any ``wrt`` value to any output (others need no backward)."""
    wrt_ids = {id(v) for v in wrt}
    depends = set(wrt_ids)
    forward = []
    for n in graph.nodes:
        if any(isinstance(v, Value) and id(v) in depends for v in n.inputs):
            forward.append(n)
            for o in n.outputs:
                depends.add(id(o))
    needed = {id(v) for v in outputs if isinstance(v, Value)}
    relevant = []
    for n in reversed(forward):
        if any(id(o) in needed for o in n.outputs):
            relevant.append(n)
            for v in n.inputs:
                if isinstance(v, Value):
                    needed.add(id(v))
    return relevant  # reverse topological order


def apply_vjp(op, attrs, inputs, outputs, gs, needed=None):
    """Input cotangents of one application of ``op``, given its output cotangents ``gs`` (None for
    outputs that received none). Shared by graph autodiff and the eager tape so both apply the
    registry's rules identically. ``needed`` (the eager tape): per input, whether its cotangent is
    read; a rule may return None for one that is not (``graph.ops.core.input_needed``)."""
    if needed is None:
        return _apply_rule(op, attrs, inputs, outputs, gs)
    outer = VJP_INPUTS.needed
    VJP_INPUTS.needed = needed
    try:
        return _apply_rule(op, attrs, inputs, outputs, gs)
    finally:
        VJP_INPUTS.needed = outer


def _apply_rule(op, attrs, inputs, outputs, gs):
    if len(gs) == 1:
        return op.vjp(gs[0], outputs[0], *inputs, **attrs)
    if getattr(op, "vjp_takes_none", False):  # (no zeros to make or read; a compiled region is no Op)
        return op.vjp(tuple(gs), tuple(outputs), *inputs, **attrs)
    g = tuple(F.zeros_like(o) if gi is None else gi for gi, o in zip(gs, outputs))
    return op.vjp(g, tuple(outputs), *inputs, **attrs)


def append_vjp(graph: Graph, outputs, seeds, wrt):
    grads: dict[int, Value] = {}
    for o, s in zip(outputs, seeds):
        if isinstance(o, Value) and s is not None:
            grads[id(o)] = s if id(o) not in grads else F.add(grads[id(o)], s)
    saved_loc = graph.current_loc
    try:
        for node in _relevant_nodes(graph, outputs, wrt):
            gs = [grads.get(id(o)) for o in node.outputs]
            if all(g is None for g in gs):
                continue
            if node.op.vjp is None:
                continue  # non-differentiable op (comparison, argmax...): no gradient flows
            graph.current_loc = node.loc  # backward nodes point at the forward line
            in_grads = apply_vjp(node.op, node.attrs, node.inputs, node.outputs, gs)
            for v, gi in zip(node.inputs, in_grads):
                if gi is not None and isinstance(v, Value):
                    prev = grads.get(id(v))
                    grads[id(v)] = gi if prev is None else F.add(prev, gi)
    finally:
        graph.current_loc = saved_loc
    return [in_dtype_of(grads.get(id(v)), v) for v in wrt]


def in_dtype_of(g, x):
    """The gradient ``g`` for ``x`` in ``x``'s dtype: an integer input gets an integer gradient, as
    MindSpore's implicit casts give (its bprop of Cast casts the cotangent back)."""
    if g is None or g.dtype is x.dtype:
        return g
    return F.cast(g, dtype=x.dtype)
