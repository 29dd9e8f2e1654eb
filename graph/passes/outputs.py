"""Outputs in memory of their own where the passes made them share it (``own_outputs``).

Eager execution gives every op's result fresh memory (view ops aside: ``reshape`` of a tensor
may share the tensor's memory, in a graph as eagerly). The passes can make a graph output share
memory it did not share before they ran: ``x * 1`` simplified to ``x`` returns the input's own
array (writing into the result would write into ``x``, or into a Parameter), a folded result is
one constant array handed to every call (writing into one call's result changes the next), and
CSE can merge two equal results into one array returned twice. :func:`own_outputs` compares what
each output's memory comes from before and after the passes -- its *root*: the value under its
chain of view ops, an input, a constant or a computed value -- and copies (op ``identity``) the
outputs whose root the passes changed into an input, a constant, or the root of an earlier
output. An output the user made a view of an input stays one, as eagerly.

Example:
    >>> from graph.aval import AVal
    >>> from graph.dtypes import float32
    >>> from graph.ir import Graph
    >>> from graph.ops import F
    >>> from graph.passes import simplify
    >>> g = Graph("g")
    >>> x = g.add_input(AVal((2,), float32), "x")
    >>> g.set_outputs([F.mul(x, 1.0)])
    >>> roots = output_roots(g)
    >>> print(own_outputs(simplify(g), roots).format(show_loc=False))
    graph g(%0:f32[2] x) {
      %1:f32[2] = identity %0
      return %1
    }
"""
from __future__ import annotations

from ..ir import CONST, NODE, Graph, Value
from ..ops import REGISTRY
from ..ops.core import VIEW
from .rewrite import Rewriter


def _root(v):
    """The value whose memory ``v`` may be: itself, or what its chain of view ops starts from."""
    while isinstance(v, Value) and v.kind == NODE and v.producer.op.kind == VIEW and v.producer.inputs:
        v = v.producer.inputs[0]
    return v


def output_roots(graph: Graph) -> list:
    """Per output: ("input", its index), ("const",), ("value", the first output with that root),
    or None (not a tensor)."""
    inputs = {id(v): i for i, v in enumerate(graph.inputs)}
    first: dict[int, int] = {}
    roots = []
    for k, out in enumerate(graph.outputs):
        root = _root(out)
        if not isinstance(root, Value):
            roots.append(None)
        elif id(root) in inputs:
            roots.append(("input", inputs[id(root)]))
        elif root.kind == CONST:
            roots.append(("const",))
        else:
            roots.append(("value", first.setdefault(id(root), k)))
    return roots


def own_outputs(graph: Graph, before: list) -> Graph:
    """``graph`` (the passes' result) with an ``identity`` copy on every output whose root differs
    from ``before`` (:func:`output_roots` of the graph the passes started from) in a way that
    shares memory; ``graph`` itself when there is none."""
    after = output_roots(graph)
    copy = [k for k, (was, now) in enumerate(zip(before, after))
            if now is not None and now != was and (now[0] != "value" or now[1] != k)]
    if not copy:
        return graph
    rw = Rewriter(graph)
    for node in graph.nodes:
        rw.emit(node)
    new = rw.finish()
    for k in copy:
        v = new.outputs[k]
        new.outputs[k] = rw.emit_new(REGISTRY["identity"], (v,), {}, (v.aval,), _loc(v)).outputs[0]
    return new


def _loc(v):
    return v.producer.loc if v.kind == NODE else None
