"""Running a compiled entry: fetching graph inputs from the call, rebuilding outputs, and the
tape-aware path (a captured region called under ``grad`` replays its ops eagerly so the tape
records each one with the registry's VJP rules)."""
from __future__ import annotations

from graph.ir import Value
from graph.ops import bind
from runtime.tensor import Tensor

from .variables.containers import rebuild_dict, rebuild_tuple


def fetch_inputs(sources, flat):
    """(arrays, tensor objects) for the graph inputs, read from the call's arguments and from the
    objects (Parameters...) the graph captured."""
    arrays, tensors = [], []
    for kind, where in sources:
        if kind == "arg":
            obj = flat
            for k in where:
                obj = obj[k]
        else:
            obj = where
        tensors.append(obj)
        arrays.append(obj._data)
    return arrays, tensors


def replay_eager(graph, tensors):
    """Execute ``graph`` op by op on eager Tensors (recorded by any active tape)."""
    env = {v.id: t for v, t in zip(graph.inputs, tensors)}
    for c in graph.consts:
        env[c.id] = Tensor._wrap(c.data)
    for node in graph.nodes:
        args = [env[v.id] if isinstance(v, Value) else v for v in node.inputs]
        out = bind(node.op, *args, **node.attrs)
        outs = out if isinstance(out, tuple) else (out,)
        for v, o in zip(node.outputs, outs):
            env[v.id] = o
    return [env[v.id] for v in graph.outputs]


def build_output(template, outs):
    kind, payload = template[0], template[1]
    if kind == "cell_writes":  # (kind, result template, [(closure cell, value template)])
        result = build_output(payload, outs)
        for cell, t in template[2]:  # nonlocal writes of the traced code, after it ran
            cell.cell_contents = build_output(t, outs)
        return result
    if kind == "t":
        return outs[payload]
    if kind == "c":
        return payload
    if kind == "copy":
        return payload.copy()
    if kind == "tuple":  # (kind, items, exact tuple type or None)
        return rebuild_tuple(template[2], [build_output(t, outs) for t in payload])
    if kind == "list":
        return [build_output(t, outs) for t in payload]
    if kind == "dict":
        return rebuild_dict(template[2], {k: build_output(t, outs) for k, t in payload.items()})
    raise ValueError(f"bad output template {template!r}")
