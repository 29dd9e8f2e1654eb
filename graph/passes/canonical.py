"""The canonical hash of a graph: what keys the pass pipeline's result in a disk cache.

Two graphs with the same hash are the same computation for every consumer of the pipeline: the
text hashed names, in order, every input (kind, shape, dtype), every constant (shape, dtype and a
sha256 of its *bytes*), every node (op, operands by position, Python scalar operands with their
types, attributes, output shapes and dtypes, which nodes share a source location), the outputs
and the in-place parameter updates. Values are numbered by position, never by ``id()``, so the
same graph built in two processes hashes the same.

What only labels a graph is left out: its name, its inputs' and constants' names (a renamed
function, argument or Cell attribute), and source locations, which are stated by their classes
(:func:`location_classes`: nodes with equal locations share a number), not by file, line and
text (a location only names the line a message points at: the same graph from a script whose
lines moved has the same text). A schedule read back takes the new process's labels
(capture/persist.py). Two graphs whose nodes share locations differently differ.

Anything the text cannot state exactly -- an attribute or operand of an unknown type, an
object-dtype constant, an op that is not the registry's own (a user-registered op, an op whose
``impl`` was replaced at run time) -- raises :class:`Uncacheable`: such a graph is compiled,
never looked up.

Example:
    >>> from graph.aval import AVal
    >>> from graph.dtypes import float32
    >>> from graph.ir import Graph
    >>> from graph.ops import F
    >>> def build(k):
    ...     g = Graph("f"); x = g.add_input(AVal((2, 3), float32), "x")
    ...     g.set_outputs([F.mul(x, k)]); return g
    >>> graph_hash(build(2.0)) == graph_hash(build(2.0)), graph_hash(build(2.0)) == graph_hash(build(2))
    (True, False)
"""
from __future__ import annotations

import hashlib
import os
import types

import numpy as np

from ..dtypes import DType
from ..errors import INTERNAL_DIRS
from ..ir import Graph, Value
from ..ops.core import REGISTRY, Op


class Uncacheable(Exception):
    """The graph holds something its canonical text cannot state exactly."""


_FRAMEWORK_OP: dict = {}  # id(op) -> (op, whether its callables are the framework's own)


def _framework_op(op: Op) -> bool:
    """``op`` is the registry's entry of its name and every rule it runs is defined in the
    framework's files (so the framework's content hash covers what it computes)."""
    hit = _FRAMEWORK_OP.get(id(op))
    if hit is not None and hit[0] is op:
        return hit[1]
    ok = REGISTRY.get(op.name) is op
    for fn in (op.impl, op.infer_rule, op.vjp, op.expr):
        code = getattr(fn, "__code__", None)
        if ok and code is not None and not os.path.abspath(code.co_filename).startswith(INTERNAL_DIRS):
            ok = False
    _FRAMEWORK_OP[id(op)] = (op, ok)
    return ok


def _array_text(a: np.ndarray) -> str:
    if a.dtype.hasobject:
        raise Uncacheable("a constant of object dtype")
    data = np.ascontiguousarray(a)
    return f"{a.dtype.str}{list(a.shape)}#{hashlib.sha256(data.view(np.uint8).reshape(-1)).hexdigest()}"


def _scalar(v, numbers) -> str:
    """One operand or attribute value, with its type (``2`` is not ``2.0`` is not ``True``)."""
    t = type(v)
    if t is Value:
        n = numbers.get(id(v))
        if n is None:
            raise Uncacheable("a value of another graph")
        return f"%{n}"
    if t is bool or t is int or v is None or t is str:
        return f"{t.__name__}:{v!r}"
    if t is float:
        return f"float:{v.hex()}"  # exact, and tells -0.0 and NaN apart
    if t is complex:
        return f"complex:{v.real.hex()},{v.imag.hex()}"
    if t is tuple or t is list:
        return f"{t.__name__}(" + ",".join(_scalar(x, numbers) for x in v) + ")"
    if t is dict:
        return "dict{" + ",".join(f"{_scalar(k, numbers)}={_scalar(x, numbers)}"
                                  for k, x in sorted(v.items(), key=lambda kv: repr(kv[0]))) + "}"
    if isinstance(v, DType):
        return f"dtype:{v.name}"
    if t is np.dtype or isinstance(v, np.dtype):
        return f"npdtype:{v.str}"
    if isinstance(v, np.generic):
        return f"npscalar:{_array_text(np.asarray(v))}"
    if t is np.ndarray:  # (a live array a node would hold: a schedule from disk would hold a copy)
        raise Uncacheable("an array operand or attribute")
    if t is slice:
        return f"slice({_scalar(v.start, numbers)},{_scalar(v.stop, numbers)},{_scalar(v.step, numbers)})"
    if t is type(Ellipsis):
        return "..."
    if isinstance(v, types.ModuleType):
        raise Uncacheable("a module as an operand")
    raise Uncacheable(f"an operand or attribute of type {t.__module__}.{t.__qualname__}")


def _aval_text(aval) -> str:
    if not all(type(d) is int for d in aval.shape):
        raise Uncacheable(f"a shape {aval.shape!r} of other than ints")
    return f"{aval.dtype.name}{list(aval.shape)}"


def location_classes(nodes) -> dict:
    """``loc -> number`` for the nodes' source locations (a node without one has none), numbered
    in the order of first appearance; raises :class:`Uncacheable` for a location that is not a
    tuple of strings and ints (equal numbers must mean equal locations)."""
    classes: dict = {}
    for node in nodes:
        loc = node.loc
        if not loc:
            continue
        if type(loc) is not tuple or not all(type(x) in (str, int) for x in loc):
            raise Uncacheable(f"a source location {loc!r} of other than strings and ints")
        if loc not in classes:
            classes[loc] = len(classes)
    return classes


def canonical_text(graph: Graph) -> str:
    """The graph as canonical text (see the module docstring); raises :class:`Uncacheable`."""
    numbers: dict[int, int] = {}
    locations = location_classes(graph.nodes)
    lines = ["graph"]
    for v in graph.inputs:
        numbers[id(v)] = len(numbers)
        lines.append(f"in %{numbers[id(v)]} {v.kind} {_aval_text(v.aval)}")
    for v in graph.consts:
        numbers[id(v)] = len(numbers)
        if v.data is None:
            raise Uncacheable("a constant without data")
        lines.append(f"const %{numbers[id(v)]} {_aval_text(v.aval)} "
                     f"{_array_text(np.asarray(v.data))}")
    for node in graph.nodes:
        if not _framework_op(node.op):
            raise Uncacheable(f"op {node.op.name} is not the framework's own")
        operands = ",".join(f"%{numbers[id(x)]}" if type(x) is Value and id(x) in numbers else _scalar(x, numbers)
                            for x in node.inputs)
        attrs = _scalar(node.attrs, numbers) if node.attrs else "{}"
        outs = []
        for v in node.outputs:
            numbers[id(v)] = len(numbers)
            outs.append(f"%{numbers[id(v)]}:{_aval_text(v.aval)}")
        lines.append(f"{' '.join(outs)} = {node.op.name}({operands}) {attrs} @{locations[node.loc] if node.loc else '-'}")
    lines.append("out " + ",".join(_scalar(v, numbers) for v in graph.outputs))
    lines.append("updates " + ",".join(f"{_scalar(p, numbers)}<-{_scalar(v, numbers)}"
                                       for p, v in graph.updates.items()))
    return "\n".join(lines)


def graph_hash(graph: Graph) -> str:
    """sha256 of :func:`canonical_text`."""
    return hashlib.sha256(canonical_text(graph).encode()).hexdigest()
