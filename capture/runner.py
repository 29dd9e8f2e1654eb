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


def read_source(source, flat):
    """The object a container variable's ``source`` names, read for this call: an argument
    (a path into the flat arguments), an attribute of an object, or a global."""
    kind = source[0]
    if kind == "arg":
        obj = flat
        for k in source[1]:
            obj = obj[k]
        return obj
    if kind == "attr":
        return getattr(source[1], source[2])
    if kind == "global":
        return source[1][source[2]]
    raise ValueError(f"bad source {source!r}")


def build_output(template, outs, flat=()):
    """The Python result described by ``template`` (see ``capture.api._template``) from the graph
    outputs ``outs`` and the call's flat arguments ``flat``."""
    kind, payload = template[0], template[1]
    if kind == "cell_writes":  # (kind, result template, [(closure cell, value template)])
        result = build_output(payload, outs, flat)
        for cell, t in template[2]:  # nonlocal writes of the traced code, after it ran
            cell.cell_contents = build_output(t, outs, flat)
        return result
    if kind == "t":
        return outs[payload]
    if kind == "c":
        return payload
    if kind == "src":  # a container the frame received, returned as that same object
        return read_source(payload, flat)
    if kind == "copy":
        return payload.copy()
    if kind == "tuple":  # (kind, items, exact tuple type or None)
        return rebuild_tuple(template[2], [build_output(t, outs, flat) for t in payload])
    if kind == "list":
        return [build_output(t, outs, flat) for t in payload]
    if kind == "dict":
        return rebuild_dict(template[2], {k: build_output(t, outs, flat) for k, t in payload.items()})
    raise ValueError(f"bad output template {template!r}")
