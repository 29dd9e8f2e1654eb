"""Hand freshly computed parameter values over as the updates themselves, with no copy.

In a compiled graph ``assign(param, value)`` is functional: the parameter's input array is never
written, the graph returns the new value and the caller makes it the parameter's data. The
assign's own implementation copies ``value`` into a new array, which costs a copy of every
parameter (and of every optimizer moment) on every training step. :func:`hand_over_updates`
removes that copy: when the value is computed by the graph itself into memory nobody else sees,
the update *is* the value, and the assign node disappears (so the kernel computing the new
moment and the one computing the new weight can fuse, too).

A value is handed over when
  * it has the variable's shape and dtype (otherwise the assign broadcasts or casts: a copy),
  * it is computed by an elementwise op or a reduction (every backend computes those into new
    memory: a fused kernel's escaping output, a fresh array of the reference implementation;
    layout ops and extern library calls may return views of their operands) other than a cast
    to the dtype it already has (its implementation returns the operand itself; simplification
    removes such casts anyway), and
  * nothing else escapes with it: it is not a graph output, and no other assign hands it to a
    second parameter (two parameters must never share memory).

Example:
    >>> from graph.aval import AVal
    >>> from graph.dtypes import float32
    >>> from graph.ir import Graph, PARAM
    >>> from graph.ops import F
    >>> g = Graph("sgd")
    >>> w = g.add_input(AVal((3,), float32), "w", kind=PARAM)
    >>> dw = g.add_input(AVal((3,), float32), "dw")
    >>> _ = F.assign(w, F.sub(w, F.mul(dw, 0.1)))
    >>> g.set_outputs([])
    >>> print(hand_over_updates(g).format(show_loc=False))
    graph sgd(%0:f32[3] param w, %1:f32[3] dw) {
      %2:f32[3] = mul %1 0.1
      %3:f32[3] = sub %0 %2
      update w <- %3
    }
"""
from __future__ import annotations

from ..ir import NODE, Graph, Value
from ..ops import REGISTRY
from ..ops.core import ELEMENTWISE, REDUCTION
from .rewrite import Rewriter

#: producers whose result is new memory on every backend
_FRESH_KINDS = (ELEMENTWISE, REDUCTION)


def _fresh(value: Value) -> bool:
    """Whether every backend computes ``value`` into memory of its own."""
    if value.kind != NODE:
        return False
    producer = value.producer
    if producer.op.kind not in _FRESH_KINDS:
        return False
    operand = producer.inputs[0] if producer.inputs else None
    return not (producer.op is REGISTRY["cast"] and isinstance(operand, Value) and operand.aval == value.aval)


def _handed_over(graph: Graph) -> set[int]:
    """ids of the assign nodes whose value can become the update itself."""
    assign = REGISTRY["assign"]
    outputs = {id(v) for v in graph.outputs if isinstance(v, Value)}
    assigned: dict[int, int] = {}  # id(value) -> how many assigns store it
    for n in graph.nodes:
        if n.op is assign and isinstance(n.inputs[1], Value):
            assigned[id(n.inputs[1])] = assigned.get(id(n.inputs[1]), 0) + 1
    handed = set()
    for n in graph.nodes:
        if n.op is not assign:
            continue
        variable, value = n.inputs
        if (isinstance(value, Value) and value.aval == variable.aval and _fresh(value)
                and assigned[id(value)] == 1
                and id(value) not in outputs and id(n.outputs[0]) not in outputs):
            handed.add(id(n))
    return handed


def hand_over_updates(graph: Graph) -> Graph:
    """Replace each assign whose value can be handed over by the value itself (new Graph; see
    the module docstring)."""
    handed = _handed_over(graph)
    rw = Rewriter(graph)
    for node in graph.nodes:
        if id(node) in handed:
            rw.alias(node.outputs[0], rw.get(node.inputs[1]))
        else:
            rw.emit(node)
    return rw.finish()
