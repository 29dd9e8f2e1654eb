"""Capture for export: a Cell's ``construct`` (or a function) as ONE graph with a self-contained
description of its result, for ``ms.export`` (``runtime/train/mindir.py``).

Tracing is the same as graph mode's (``compile_policy.translate``), with ``fullgraph`` semantics:
a graph break is an error naming the break. The captured graph is then made independent of the
Python objects it was traced from:

- graph inputs read from the call's arguments come first, one per argument in call order (an
  argument the graph does not read still gets one, so the caller passes what the net took);
- Parameters stay graph inputs (``param``), named by their Parameter names; their values are
  written with the graph;
- other tensors the code read from objects (a Tensor attribute of a Cell) are frozen as
  constants, with their values at export time;
- the result's Python structure (tuples, lists, arguments and Parameters returned as they are,
  Python constants) becomes a structure tree (``graph.serialize.encode``); results that cannot
  be described (objects, functions) and Python side effects of the frame (mutated lists,
  attributes) are refused with a ValueError.

Example:
    >>> import runtime as ms
    >>> from runtime import nn
    >>> traced = capture_for_export(nn.Dense(3, 2), (ms.Tensor([[1.0, 2.0, 3.0]]),))
    >>> [n.op.name for n in traced.graph.nodes], traced.structure
    (['matmul', 'bias_add'], {'output': 0})
"""
from __future__ import annotations

import types

from graph.aval import AVal
from graph.ir import CONST, PARAM
from graph.serialize import encode_literal
from runtime.nn.cell import Cell
from runtime.parameter import Parameter
from runtime.tensor import Tensor

from .cache import COMPILE_LOCK
from .compile_policy import TRACING, translate
from .dispatch import flatten_call
from .errors import CaptureUserError, FullGraphError, GraphBreak
from .sources import Object
from .translator import Tracer


class ExportTrace:
    """What export writes: the graph, its parameters' values (name -> array) and the structure."""

    __slots__ = ("graph", "param_values", "structure", "requires_grad")

    def __init__(self, graph, param_values, structure, requires_grad):
        self.graph = graph
        self.param_values = param_values
        self.structure = structure
        self.requires_grad = requires_grad


def _target(net):
    """(function to trace, arguments before the user's inputs, display name)."""
    if isinstance(net, Cell):
        construct = type(net).construct
        return getattr(construct, "__wrapped_jit__", construct), (net,), f"{type(net).__name__}.construct"
    fn = getattr(net, "__wrapped_jit__", net)
    if isinstance(fn, types.MethodType):
        return fn.__func__, (fn.__self__,), fn.__qualname__
    if isinstance(fn, types.FunctionType):
        return fn, (), fn.__qualname__
    raise TypeError(f"export: net must be a Cell or a function, got {type(net).__name__}")


def capture_for_export(net, inputs) -> ExportTrace:
    """Trace ``net(*inputs)`` into one graph (see the module docstring)."""
    fn, lead, qual = _target(net)
    for k, t in enumerate(inputs):
        if not isinstance(t, Tensor):
            raise TypeError(f"export: input {k} must be a Tensor, got {type(t).__name__}")
    # fresh tensor objects: two inputs that are one object (or a Parameter passed as an input) must
    # still become separate graph inputs
    inputs = tuple(Tensor._wrap(t._data) for t in inputs)
    flat, names = flatten_call(fn, lead + inputs, {})
    tracer = Tracer(qual.replace(".", "_").replace("<", "").replace(">", ""))
    TRACING.depth += 1
    try:
        with COMPILE_LOCK:  # the translator shares state with graph mode's compiles
            graph, sources, plan = translate(tracer, fn, flat, names)
    except GraphBreak as e:
        loc = e.loc or (fn.__code__.co_filename, fn.__code__.co_firstlineno, "")
        raise FullGraphError(f"export: {qual} cannot be captured as one graph: {e.reason}\n  at {loc[0]}:{loc[1]}"
                             + (f"\n    {loc[2]}" if loc[2] else "") + (f"\n  hint: {e.hint}" if e.hint else "")
                             + "\n  (capture.explain shows every graph break)") from None
    except CaptureUserError as e:
        raise e.error from None
    finally:
        TRACING.depth -= 1
    if plan.effects:
        raise ValueError(f"export: {qual} has Python side effects (it changes lists, attributes or globals "
                         f"outside itself: {len(plan.effects)} recorded); an exported graph cannot replay them")
    input_at = _input_paths(flat, inputs)
    arguments, params, param_values, requires_grad = {}, [], {}, {}
    for v, src in zip(list(graph.inputs), sources):
        if src.path is not None and src.path in input_at:
            arguments[input_at[src.path]] = v
        elif isinstance(src, Object) and v.kind == PARAM:
            if v.name in param_values:
                raise ValueError(f"export: two different Parameters are both named {v.name!r}; give them "
                                 "unique names (the file refers to parameters by name)")
            params.append(v)
            param_values[v.name] = src.obj.asnumpy()
            requires_grad[v.name] = bool(src.obj.requires_grad)
        elif isinstance(src, Object):
            _freeze(graph, v, src.obj.asnumpy())  # a tensor held by an object: its value now
        else:  # pragma: no cover - the builder makes only these two kinds of tensor inputs
            raise ValueError(f"export: graph input {v.name!r} comes from {src}, which a file cannot describe")
    for k, t in enumerate(inputs):
        if k not in arguments:  # an input the graph never reads: still part of the call
            arguments[k] = graph.add_input(AVal(t.shape, t.dtype), f"input_{k}")
    graph.inputs[:] = [arguments[k] for k in range(len(inputs))] + params
    structure = _Structure(graph, input_at, params).of(plan.result)
    graph.verify()
    return ExportTrace(graph, param_values, structure, requires_grad)


def _input_paths(flat, inputs):
    """{argument path (a source's ``path``): input index}; ``*args`` inputs sit one level down."""
    where = {id(t): k for k, t in enumerate(inputs)}
    paths = {}
    for i, item in enumerate(flat):
        if id(item) in where:
            paths[(i,)] = where[id(item)]
        elif type(item) is tuple:
            paths.update({(i, j): where[id(x)] for j, x in enumerate(item) if id(x) in where})
    return paths


def _freeze(graph, v, data):
    """Turn graph input ``v`` into a constant holding ``data`` (nodes keep referring to ``v``)."""
    graph.inputs.remove(v)
    v.kind, v.data, v.ref = CONST, data, None
    graph.consts.append(v)


class _Structure:
    """Output recipes (``capture.reconstruct``) -> the file's structure tree."""

    def __init__(self, graph, input_at, params):
        self.graph = graph
        self.input_at = input_at
        self.params = {id(p.ref): p.name for p in params}

    def of(self, r):
        kind = r[0]
        if kind == "out":
            return {"output": r[1]}
        if kind in ("tuple", "list"):
            return {kind: [self.of(x) for x in r[1]]}
        if kind == "obj" and isinstance(r[1], Parameter) and id(r[1]) in self.params:
            return {"parameter": self.params[id(r[1])]}
        if kind == "obj" or kind == "tconst":  # a tensor held by an object, or a constant: its value
            return {"output": self._const_output(r[1])}
        if kind == "src" and r[1].path in self.input_at:
            return {"argument": self.input_at[r[1].path]}
        if kind == "val" and (r[1] is None or isinstance(r[1], (bool, int, float, str))):
            return {"value": encode_literal(r[1], "the result")}
        raise ValueError(f"export: the result contains {_describe(r)}, which an exported graph cannot "
                         "return; return tensors, or tuples/lists of tensors and numbers")

    def _const_output(self, value):
        data = value.asnumpy() if isinstance(value, Tensor) else value
        self.graph.outputs.append(self.graph.add_const(data))
        return len(self.graph.outputs) - 1


def _describe(r):
    if r[0] == "val":
        return f"a {type(r[1]).__name__}"
    return {"dict": "a dict", "src": "an object from the arguments", "newobj": "an object",
            "func": "a function", "method": "a method", "partial": "a functools.partial",
            "iter": "an iterator", "slice": "a slice", "copy": "a set/list/dict copy"}.get(r[0], f"a {r[0]}")
