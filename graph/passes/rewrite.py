"""Graph rebuilding shared by the graph-to-graph passes.

Every pass in this package is functional: it reads a Graph and returns a *new* Graph, leaving its
argument untouched (so a caller can keep the unoptimised graph for dumps, ``CAPTURE_VERIFY`` or a
fallback, and caches keyed by graph identity, such as the interpreter's promotion plans, never
see a graph change under them). :class:`Rewriter` does the bookkeeping: it copies the inputs
(same names, kinds and Parameter refs), maps old Values to new ones, re-emits nodes with their
source locations, adds constants lazily (a constant nobody uses any more disappears), and maps
outputs and parameter updates at the end.

Example (an identity pass):
    >>> from graph.aval import AVal
    >>> from graph.dtypes import float32
    >>> from graph.ops import F
    >>> g = Graph("g")
    >>> x = g.add_input(AVal((2,), float32), "x")
    >>> g.set_outputs([F.tanh(x)])
    >>> rw = Rewriter(g)
    >>> for node in g.nodes:
    ...     _ = rw.emit(node)                      # or rw.alias(node.outputs[0], replacement)
    >>> print(rw.finish().format(show_loc=False))
    graph g(%0:f32[2] x) {
      %1:f32[2] = tanh %0
      return %1
    }
"""
from __future__ import annotations

import numpy as np

from ..aval import AVal
from ..dtypes import from_numpy
from ..ir import CONST, Graph, Node, Value, NODE


class Rewriter:
    """Builds a new Graph from ``old`` node by node. See the module docstring."""

    def __init__(self, old: Graph):
        self.old = old
        self.new = Graph(old.name)
        self.env: dict[int, object] = {}  # id(old Value) -> new Value (or a Python scalar)
        for v in old.inputs:
            self.env[id(v)] = self.new.add_input(v.aval, v.name, kind=v.kind, ref=v.ref)

    # -- operands ---------------------------------------------------------------------------------
    def get(self, v):
        """The new-graph operand standing for old operand ``v`` (scalars map to themselves)."""
        if not isinstance(v, Value):
            return v
        nv = self.env.get(id(v))
        if nv is None:
            if v.kind != CONST:
                raise ValueError(f"pass bookkeeping: {v!r} of graph {self.old.name} used before it "
                                 "was mapped")
            nv = self.const(v.data, v.name, aval=v.aval)
            self.env[id(v)] = nv
        return nv

    def const(self, data, name=None, aval: AVal | None = None) -> Value:
        """A new constant of the new graph (no deduplication here: that is CSE's job)."""
        arr = np.asarray(data)
        aval = aval or AVal(arr.shape, from_numpy(arr.dtype))
        v = Value(self.new, aval, CONST, name=name, data=arr)
        self.new.consts.append(v)
        return v

    def alias(self, old_value: Value, replacement) -> None:
        """Make every later use of ``old_value`` read ``replacement`` (a new-graph Value)."""
        self.env[id(old_value)] = replacement

    # -- nodes ------------------------------------------------------------------------------------
    def emit(self, node: Node, inputs=None, attrs=None, op=None) -> Node:
        """Re-emit ``node`` (mapped inputs unless ``inputs`` is given, same loc) and map its outputs.

        The output avals are copied, not re-inferred: passes only substitute operands of identical
        shape and dtype (``verify()`` in the tests re-infers every node).
        """
        ins = tuple(self.get(v) for v in node.inputs) if inputs is None else tuple(inputs)
        new = Node(op or node.op, ins, dict(node.attrs if attrs is None else attrs), node.loc)
        new.outputs = tuple(Value(self.new, v.aval, NODE, producer=new, index=v.index) for v in node.outputs)
        self.new.nodes.append(new)
        for old_v, new_v in zip(node.outputs, new.outputs):
            self.env[id(old_v)] = new_v
        return new

    def emit_new(self, op, inputs, attrs, avals, loc) -> Node:
        """Append a node that has no counterpart in the old graph."""
        new = Node(op, tuple(inputs), dict(attrs), loc)
        new.outputs = tuple(Value(self.new, a, NODE, producer=new, index=i) for i, a in enumerate(avals))
        self.new.nodes.append(new)
        return new

    def finish(self) -> Graph:
        self.new.outputs = [self.get(v) for v in self.old.outputs]
        self.new.updates = {self.env[id(p)]: self.get(v) for p, v in self.old.updates.items()}
        return self.new


def value_uses(graph: Graph) -> dict[int, int]:
    """id(Value) -> number of uses by nodes, outputs and updates."""
    uses: dict[int, int] = {}
    for n in graph.nodes:
        for v in n.inputs:
            if isinstance(v, Value):
                uses[id(v)] = uses.get(id(v), 0) + 1
    for v in graph.outputs:
        if isinstance(v, Value):
            uses[id(v)] = uses.get(id(v), 0) + 1
    for v in graph.updates.values():
        uses[id(v)] = uses.get(id(v), 0) + 1
    return uses


def structure_key(graph: Graph) -> str:
    """Text that changes when a pass changed anything but locations (fixpoint detection)."""
    return graph.format(show_loc=False)
