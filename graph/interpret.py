"""Reference interpreter: runs a Graph node by node with each op's array ``impl``.

It is the semantic baseline every compiled backend is checked against (``CAPTURE_VERIFY``), the
``backend="numpy"`` debugging backend, and what constant folding uses.

Example:
    >>> import numpy as np
    >>> from graph.interpret import run
    >>> # outputs, updates = run(graph, [np.ones((2, 3), np.float32)])
"""
from __future__ import annotations

import numpy as np

from .ir import CONST, Graph, Value


def run(graph: Graph, inputs, xp=np, trace=None):
    """Execute ``graph`` on arrays for ``graph.inputs`` (in order).

    Returns ``(outputs, updates)``: the output arrays, and {parameter input index: new array}.
    ``trace``, if given, is called as ``trace(node, output_arrays)`` after each node.
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

    for node in graph.nodes:
        args = [get(v) for v in node.inputs]
        out = node.op.impl(xp, *args, **node.attrs)
        outs = tuple(out) if node.op.n_outputs != 1 else (out,)
        for v, o in zip(node.outputs, outs):
            env[v.id] = o if isinstance(o, xp.ndarray) else xp.asarray(o)
        if trace is not None:
            trace(node, [env[v.id] for v in node.outputs])
    outputs = [get(v) for v in graph.outputs]
    index = {id(v): i for i, v in enumerate(graph.inputs)}
    updates = {index[id(p)]: env[v.id] for p, v in graph.updates.items()}
    return outputs, updates


CONST  # re-exported kind constant
