"""Reference interpreter: runs a Graph node by node with each op's array ``impl``.

It is the semantic baseline every compiled backend is checked against (``CAPTURE_VERIFY``), the
``backend="numpy"`` debugging backend, and what constant folding uses. It applies the same operand
promotion as PyNative execution before calling an op's ``impl`` (an int32 tensor times a Python
float computes in float32, not numpy's float64), so its results equal eager results bit for bit.

Example:
    >>> import numpy as np
    >>> from graph.interpret import run
    >>> # outputs, updates = run(graph, [np.ones((2, 3), np.float32)])
"""
from __future__ import annotations

import weakref

import numpy as np

from .ir import CONST, Graph, Value
from .ops.core import bind
from .ops.promotion import cast_operands, promotion_target

_PLANS: "weakref.WeakKeyDictionary[Graph, tuple]" = weakref.WeakKeyDictionary()


def _node_target(node):
    return promotion_target(node.op, node.inputs)


def _plan(graph):
    """Per-node promotion targets, cached per graph and rebuilt whenever its node list changed
    (checked by node identity, not just count: a pass may replace nodes in place)."""
    key = tuple(map(id, graph.nodes))
    cached = _PLANS.get(graph)
    if cached is None or cached[0] != key:
        cached = (key, tuple(_node_target(n) for n in graph.nodes))
        _PLANS[graph] = cached
    return cached[1]


_AUTO = object()


def run_node(node, env, xp=np, target=_AUTO):
    """Run one node on arrays in ``env`` (id -> array), storing its outputs there; ``target`` is
    the operand promotion dtype (computed from the node when not given)."""
    args = [env[v.id] if isinstance(v, Value) else v for v in node.inputs]
    if target is _AUTO:
        target = promotion_target(node.op, node.inputs)
    if target is not None:
        args = cast_operands(node.op, args, target)
    out = node.op.impl(xp, *args, **node.attrs)
    outs = tuple(out) if node.op.n_outputs != 1 else (out,)
    for v, o in zip(node.outputs, outs):
        env[v.id] = o if isinstance(o, xp.ndarray) else xp.asarray(o)


def run(graph: Graph, inputs, xp=np, trace=None, check=False):
    """Execute ``graph`` on arrays for ``graph.inputs`` (in order).

    Returns ``(outputs, updates)``: the output arrays, and {parameter input index: new array}.
    ``trace``, if given, is called as ``trace(node, output_arrays)`` after each node. ``check``
    verifies every node's result against its inferred shape and dtype (raises AssertionError).
    """
    if len(inputs) != len(graph.inputs):
        raise ValueError(f"graph {graph.name}: expected {len(graph.inputs)} inputs, got {len(inputs)}")
    env: dict[int, object] = {}
    for v, a in zip(graph.inputs, inputs):
        env[v.id] = a
    for c in graph.consts:
        env[c.id] = c.data if xp is np else xp.asarray(c.data)

    def get(v):
        return env[v.id] if isinstance(v, Value) else v

    plan = _plan(graph)
    for node, target in zip(graph.nodes, plan):
        run_node(node, env, xp, target)
        for v in node.outputs:
            if check:
                arr = env[v.id]
                if tuple(arr.shape) != tuple(v.aval.shape) or arr.dtype != v.aval.dtype.np:
                    raise AssertionError(f"{node.op.name}: impl gave {arr.dtype}{list(arr.shape)}, "
                                         f"inferred {v.aval}")
        if trace is not None:
            trace(node, [env[v.id] for v in node.outputs])
    outputs = [get(v) for v in graph.outputs]
    index = {id(v): i for i, v in enumerate(graph.inputs)}
    updates = {index[id(p)]: env[v.id] for p, v in graph.updates.items()}
    return outputs, updates


def replay(graph: Graph, operands, constant):
    """Apply ``graph``'s ops one by one through ``bind`` to ``operands`` (one per graph input;
    ``constant(array)`` makes an operand of a graph constant) and return the outputs. What that
    means is the operands' handler's business: eager tensors run op by op (recorded by an active
    gradient tape), symbolic values of another graph being built record the ops into it."""
    env = {v.id: t for v, t in zip(graph.inputs, operands)}
    for c in graph.consts:
        env[c.id] = constant(c.data)
    for node in graph.nodes:
        args = [env[v.id] if isinstance(v, Value) else v for v in node.inputs]
        out = bind(node.op, *args, **node.attrs)
        outs = out if isinstance(out, tuple) else (out,)
        for v, o in zip(node.outputs, outs):
            env[v.id] = o
    return [env[v.id] for v in graph.outputs]


CONST  # re-exported kind constant
