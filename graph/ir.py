"""The IR: a Graph of Nodes over SSA Values with static shapes and dtypes.

* ``Value``: one tensor in a graph: a graph input (user argument or Parameter), a constant, or a
  node output. It carries an abstract value (shape, dtype) and exposes ``shape``/``dtype``/``ndim``,
  so VJP rules and infer rules run on it unchanged.
* ``Node``: one registered op applied to Values (and Python scalars), with normalised attributes
  and the user's source location.
* ``Graph``: inputs, constants, nodes in topological order, outputs, and explicit in-place
  parameter updates (``updates``: parameter input -> new value).

Graph building goes through ``bind``: a call whose arguments include a Value appends a Node to that
Value's graph (the handler is registered at the bottom of this module).

Example:
    >>> from graph.ir import Graph
    >>> from graph.aval import AVal
    >>> from graph.dtypes import float32
    >>> from graph.ops import F
    >>> g = Graph("f")
    >>> x = g.add_input(AVal((2, 3), float32), "x")
    >>> g.set_outputs([F.relu(F.mul(x, 2.0))])
    >>> print(g.format(show_loc=False))  # doctest: +NORMALIZE_WHITESPACE
    graph f(%0:f32[2,3] x) {
      %1:f32[2,3] = mul %0 2.0
      %2:f32[2,3] = relu %1
      return %2
    }
"""
from __future__ import annotations

import itertools
import os
import weakref

import numpy as np

from . import symint as _symint
from .aval import AVal
from .dtypes import from_numpy
from .errors import user_location
from .ops.core import Op, register_handler

INPUT, PARAM, CONST, NODE = "input", "param", "const", "node"


class Value:
    """A tensor-valued SSA value of one graph."""

    __slots__ = ("graph", "aval", "kind", "producer", "index", "id", "name", "data", "_ref", "_tagged")

    def __init__(self, graph, aval: AVal, kind: str, producer=None, index=0, name=None, data=None, ref=None):
        self.graph = graph
        self.aval = aval
        self.kind = kind
        self.producer = producer
        self.index = index
        self.id = next(graph._ids)
        self.name = name
        self.data = data  # constant payload (numpy array) for CONST values
        self.ref = ref  # for PARAM inputs: the Parameter object (identity guarded by capture)
        self._tagged = None  # (aval, its shape as SymInts): what ``shape`` gives while tagging

    @property
    def ref(self):
        """For PARAM inputs: the Parameter (or held tensor) the input reads, while it lives
        (None once it died). Held weakly where it can be: a compiled graph kept by a stale cache
        entry must not keep its Parameters alive (the caller reads the inputs at run time)."""
        r = self._ref
        return r() if type(r) is weakref.ref else r

    @ref.setter
    def ref(self, obj):
        try:
            self._ref = weakref.ref(obj) if obj is not None else None
        except TypeError:  # (no weak references to it)
            self._ref = obj

    def __getstate__(self):
        """Pickling: the slots, the referred object itself in place of its weak reference."""
        state = {name: getattr(self, name) for name in Value.__slots__ if hasattr(self, name) and name != "_tagged"}
        state["_ref"] = self.ref
        return None, state

    def __setstate__(self, state):
        self._tagged = None
        for name, value in state[1].items():
            if name == "_ref":
                self.ref = value
            else:
                setattr(self, name, value)

    @property
    def shape(self):
        if _symint.is_tagging():  # (while a frame is captured: sizes keep their origin, graph.symint)
            aval, tagged = self.aval, self._tagged
            if tagged is None or tagged[0] is not aval:  # (made once per aval: capture reads shapes often)
                tagged = self._tagged = (aval, _symint.tagged_shape(self, aval.shape))
            return tagged[1]
        return self.aval.shape

    @property
    def dtype(self):
        return self.aval.dtype

    @property
    def ndim(self):
        return len(self.aval.shape)

    @property
    def size(self):
        return self.aval.size

    def __repr__(self):
        return f"%{self.id}"


class Node:
    __slots__ = ("op", "inputs", "attrs", "outputs", "loc")

    def __init__(self, op: Op, inputs: tuple, attrs: dict, loc=None):
        self.op = op
        self.inputs = inputs
        self.attrs = attrs
        self.outputs: tuple[Value, ...] = ()
        self.loc = loc

    def __repr__(self):
        return f"<node {self.op.name} -> {', '.join(map(repr, self.outputs))}>"


def _fmt_attr(v):
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, tuple):
        return "(" + ",".join(_fmt_attr(x) for x in v) + ("," if len(v) == 1 else "") + ")"
    return str(v)


def format_operand(v, names=None) -> str:
    if isinstance(v, Value):
        if names is not None and id(v) in names:
            return f"%{names[id(v)]}"
        return repr(v)
    return _fmt_attr(v)


def parameter_version_of(v):
    """The parameter input ``v`` is a version of: itself, or what an in-place update of it returned
    (the latest or an earlier one: in eager they are all the Parameter object); else None."""
    while isinstance(v, Value):
        if v.kind == PARAM:
            return v
        node = v.producer
        if node is None or node.op.mutates is None:
            return None
        v = node.inputs[node.op.mutates]
    return None


class Graph:
    """A captured computation. See the module docstring."""

    def __init__(self, name: str = "graph"):
        self.name = name
        self._ids = itertools.count()
        self.inputs: list[Value] = []
        self.consts: list[Value] = []
        self.nodes: list[Node] = []
        self.outputs: list[Value] = []
        self.updates: dict[Value, Value] = {}  # parameter input -> its new value
        self.current_loc = None  # set by graph builders (the translator) while recording
        self._const_cache: dict[int, Value] = {}

    def __getstate__(self):
        """Pickling (capture's warm-start cache): the id counter as its next value, no constant
        cache (it is keyed by ids of this process's arrays)."""
        state = dict(self.__dict__)
        state["_ids"] = n = next(self._ids)
        self._ids = itertools.count(n)  # (reading the counter must not use up an id of this graph)
        state["_const_cache"] = {}
        return state

    def __setstate__(self, state):
        state = dict(state)
        state["_ids"] = itertools.count(state["_ids"])
        self.__dict__.update(state)

    # -- building ---------------------------------------------------------------------------------
    def add_input(self, aval: AVal, name: str, kind: str = INPUT, ref=None) -> Value:
        v = Value(self, aval, kind, name=name, ref=ref)
        self.inputs.append(v)
        return v

    def add_const(self, array, name=None) -> Value:
        """A constant tensor (deduplicated by identity of the source array)."""
        arr = np.asarray(array)  # an eager Tensor converts through __array__ without copying
        key = id(array)
        hit = self._const_cache.get(key)
        if hit is not None and hit.data is arr:
            return hit
        v = Value(self, AVal(arr.shape, from_numpy(arr.dtype)), CONST, name=name, data=arr)
        self.consts.append(v)
        self._const_cache[key] = v
        return v

    def add_node(self, op: Op, inputs, attrs, loc=None):
        """Append ``op`` applied to ``inputs`` (Values / Python scalars); returns its output(s)."""
        loc = loc if loc is not None else (self.current_loc or user_location(2))
        node = Node(op, tuple(inputs), dict(attrs), loc)
        out = op.infer_rule(*node.inputs, **node.attrs)
        avals = out if isinstance(out, tuple) else (out,)
        node.outputs = tuple(Value(self, a, NODE, producer=node, index=i) for i, a in enumerate(avals))
        self.nodes.append(node)
        if op.mutates is not None:
            target = node.inputs[op.mutates]
            base = self.param_of(target)
            if base is None:
                raise ValueError(f"{op.prim} (ops.{op.name}): only Parameters (graph inputs) can be "
                                 "updated in place inside a graph")
            self.updates[base] = node.outputs[0]
        return node.outputs if isinstance(out, tuple) else node.outputs[0]

    def param_of(self, v):
        """The parameter input a value stands for: a version of it (:func:`parameter_version_of`),
        or the new value a pass handed over to it as its update (graph/passes/updates.py)."""
        base = parameter_version_of(v)
        if base is not None:
            return base
        for p, nv in self.updates.items():
            if nv is v:
                return p
        return None

    def set_outputs(self, outputs) -> None:
        self.outputs = list(outputs)

    # -- queries ------------------------------------------------------------------------------------
    @property
    def params(self):
        return [v for v in self.inputs if v.kind == PARAM]

    def op_count(self) -> int:
        return len(self.nodes)

    def verify(self) -> None:
        """Check SSA order, ownership, and that every node's outputs match its op's inference."""
        defined = {id(v) for v in self.inputs} | {id(v) for v in self.consts}
        for n in self.nodes:
            for i, v in enumerate(n.inputs):
                if isinstance(v, Value):
                    if v.graph is not self:
                        raise ValueError(f"verify: {n.op.name} input {i} belongs to another graph")
                    if id(v) not in defined:
                        raise ValueError(f"verify: {n.op.name} uses {v!r} before it is defined")
                elif not isinstance(v, (int, float, bool)) and v is not None:
                    raise ValueError(f"verify: {n.op.name} input {i} is a {type(v).__name__}")
            out = n.op.infer_rule(*n.inputs, **n.attrs)
            avals = out if isinstance(out, tuple) else (out,)
            if tuple(a for a in avals) != tuple(v.aval for v in n.outputs):
                raise ValueError(f"verify: {n.op.name} outputs {[v.aval for v in n.outputs]} != inferred {list(avals)}")
            for v in n.outputs:
                defined.add(id(v))
        for v in self.outputs:
            if isinstance(v, Value) and id(v) not in defined:
                raise ValueError(f"verify: output {v!r} is not defined")
        for p, v in self.updates.items():
            if p.kind != PARAM or id(v) not in defined:
                raise ValueError(f"verify: bad parameter update {p!r} <- {v!r}")

    # -- printing -----------------------------------------------------------------------------------
    def __str__(self) -> str:
        return self.format()

    def printed_ids(self) -> dict[int, int]:
        """id(Value) -> the number the printer shows: inputs, then constants, then node outputs in
        order (so the text does not depend on the order Parameters were met while capturing)."""
        names: dict[int, int] = {}
        for v in self.inputs:
            names[id(v)] = len(names)
        for v in self.consts:
            names[id(v)] = len(names)
        for n in self.nodes:
            for v in n.outputs:
                names[id(v)] = len(names)
        return names

    def format(self, upto: Node | None = None, show_loc: bool = True) -> str:
        """The IR text: one line per input list, constant, node (``%3:f32[2,8] = relu %2  # file:line``),
        then ``return`` and the in-place parameter ``update`` lines. ``upto`` stops after that node."""
        names = self.printed_ids()
        ins = ", ".join(f"%{names[id(v)]}:{v.aval} {('param ' if v.kind == PARAM else '')}{v.name}"
                        for v in self.inputs)
        lines = [f"graph {self.name}({ins}) {{"]
        for c in self.consts:
            lines.append(f"  %{names[id(c)]}:{c.aval} = const{' ' + c.name if c.name else ''}")
        for n in self.nodes:
            lines.append("  " + format_node(n, show_loc, names))
            if n is upto:
                lines.append("  # ^ failing node")
                break
        if upto is None:
            if self.outputs:
                lines.append("  return " + ", ".join(format_operand(v, names) for v in self.outputs))
            for p, v in self.updates.items():
                lines.append(f"  update {p.name} <- {format_operand(v, names)}")
        lines.append("}")
        return "\n".join(lines)

    def to_dot(self) -> str:
        """Graphviz text: inputs/consts as boxes, nodes as ellipses, outputs as double circles,
        one edge per data dependency (per operand occurrence)."""
        names = self.printed_ids()
        out = [f'digraph "{_dot_escape(self.name)}" {{', "  rankdir=TB;"]
        for v in self.inputs + self.consts:
            label = _dot_escape(f"%{names[id(v)]} {v.name or v.kind}")
            out.append(f'  v{v.id} [shape=box,label="{label}\\n{v.aval}"];')
        node_index = {id(n): k for k, n in enumerate(self.nodes)}

        def src(v):
            if v.kind == NODE and id(v.producer) in node_index:
                return f"n{node_index[id(v.producer)]}"
            return f"v{v.id}"

        for k, n in enumerate(self.nodes):
            label = f"{_dot_escape(n.op.name)}\\n" + ",".join(str(v.aval) for v in n.outputs)
            out.append(f'  n{k} [label="{label}"];')
            for v in n.inputs:
                if isinstance(v, Value):
                    out.append(f"  {src(v)} -> n{k};")
        for i, v in enumerate(self.outputs):
            if isinstance(v, Value):
                out.append(f'  out{i} [shape=doublecircle,label="out{i}"];')
                out.append(f"  {src(v)} -> out{i};")
        out.append("}")
        return "\n".join(out)

    def dump(self, directory: str, stem: str | None = None) -> tuple[str, str]:
        """Write ``<stem>.ir`` and ``<stem>.dot`` into ``directory`` atomically; return both paths."""
        os.makedirs(directory, exist_ok=True)
        stem = stem or self.name
        paths = []
        for ext, text in (("ir", self.format()), ("dot", self.to_dot())):
            path = os.path.join(directory, f"{stem}.{ext}")
            _atomic_write(path, text)
            paths.append(path)
        return tuple(paths)


def _atomic_write(path: str, text: str) -> None:
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w") as f:
        f.write(text + "\n")
    os.replace(tmp, path)


def _dot_escape(text: str) -> str:
    return str(text).replace("\\", "\\\\").replace('"', '\\"')


def format_node(n: Node, show_loc: bool = True, names=None) -> str:
    outs = ", ".join(f"{format_operand(v, names)}:{v.aval}" for v in n.outputs)
    args = " ".join(format_operand(v, names) for v in n.inputs)
    attrs = " ".join(f"{k}={_fmt_attr(v)}" for k, v in n.attrs.items())
    line = f"{outs} = {n.op.name}" + (f" {args}" if args else "") + (f" {attrs}" if attrs else "")
    if show_loc and n.loc:
        line += f"  # {os.path.basename(n.loc[0])}:{n.loc[1]}"
    return line


# -- graph building through bind -----------------------------------------------------------------------
class GraphBuildError(Exception):
    """Raised by graph building with the partial graph attached (for analyze_fail-style dumps)."""


def _graph_handler(op: Op, args, attrs):
    graph = None
    for a in args:
        if isinstance(a, Value):
            graph = a.graph
            break
    inputs = []
    for a in args:
        if isinstance(a, Value) or a is None or isinstance(a, (bool, int, float)):
            if isinstance(a, Value) and a.graph is not graph:
                raise ValueError(f"{op.prim} (ops.{op.name}): operands come from different graphs")
            inputs.append(a)
        elif hasattr(a, "shape") and hasattr(a, "dtype"):  # arrays, numpy scalars (typed), eager Tensors
            inputs.append(graph.add_const(a))
        else:
            raise TypeError(f"{op.prim} (ops.{op.name}): unsupported operand of type {type(a).__name__} in a graph")
    return graph.add_node(op, inputs, attrs)


register_handler(Value, _graph_handler, priority=10)
