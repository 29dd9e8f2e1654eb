"""The contract between the optimisation passes and the code generators.

``fuse(graph) -> Schedule`` (graph/passes/fusion.py) splits an optimised graph into an ordered list
of :class:`Kernel` s; a backend (codegen/cpu, codegen/cuda) compiles each kernel and runs them in
order. Memory planning (graph/passes/memory.py) fills ``Schedule.buffers``.

Kernel kinds:
  * ``"fused"``: a chain of elementwise nodes with an optional trailing reduction (``reduce`` is
    that reduction node, or None). All elementwise nodes produce values of the kernel's
    ``shape`` (inputs may broadcast into it); a trailing reduction reduces that shape. Codegen
    emits one loop nest per kernel from the ops' ``expr`` scalar expressions. A lone elementwise
    node or a lone reduction is a one-node fused kernel too (for the latter ``shape`` is the shape
    of the reduction's operand, read from another kernel).
  * ``"extern"``: one node run by a library call (matmul, conv2d, pooling, softmax...) — the op's
    ``impl`` or a backend-specific kernel.
  * ``"view"``: one layout-only node (reshape, transpose, broadcast_to, squeeze...).
  * ``"random"`` / ``"state"``: one node with side effects (dropout, assign); never reordered,
    fused or removed.

Order: kernels are topologically ordered; RANDOM/STATE kernels keep their graph order, and a
kernel that mutates a parameter runs after every kernel that reads the value it overwrites.
``Kernel.inputs``/``outputs`` list Values only (Python scalar operands stay inline in the nodes);
an output nobody reads (an unused dropout mask) is not listed.

Example:
    >>> from graph.passes import optimize
    >>> # sched = optimize(graph, level="O1"); [k.kind for k in sched.kernels]
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..ir import Graph, Node, Value


@dataclass
class Kernel:
    kind: str  # "fused" | "extern" | "view" | "random" | "state"
    nodes: list[Node]  # topological order; one node unless kind == "fused"
    inputs: list[Value]  # values read from outside the kernel (graph inputs/consts/other kernels)
    outputs: list[Value]  # values used after the kernel (by other kernels, outputs or updates)
    reduce: Node | None = None  # trailing reduction of a fused kernel
    name: str = ""

    @property
    def shape(self):
        """Iteration shape of a fused kernel: the shape of its elementwise values."""
        body = [n for n in self.nodes if n is not self.reduce]
        return body[-1].outputs[0].shape if body else self.nodes[0].inputs[0].shape


@dataclass
class Schedule:
    graph: Graph
    kernels: list[Kernel]
    #: memory planning: ``Value.id`` -> buffer slot id (values sharing a slot never live at
    #: once, except an in-place output and the input it overwrites). Values absent here (graph
    #: outputs, parameter updates, values viewed by them, values inside a fused kernel) are not
    #: planned: the backend allocates them per call (or keeps them in registers).
    buffers: dict[int, int] = field(default_factory=dict)
    #: slot id -> (nbytes) for preallocation
    slot_sizes: dict[int, int] = field(default_factory=dict)
    #: in-place writes chosen by memory planning: output ``Value.id`` -> ``Value.id`` of the input
    #: of the same (fused) kernel whose slot it reuses. The input has the kernel's iteration shape
    #: and the output's dtype, and dies at this kernel, so element i is read before it is written.
    inplace: dict[int, int] = field(default_factory=dict)

    def describe(self) -> str:
        lines = [f"schedule {self.graph.name}: {len(self.kernels)} kernels"]
        for i, k in enumerate(self.kernels):
            ops = "+".join(n.op.name for n in k.nodes)
            outs = []
            for v in k.outputs:
                slot = self.buffers.get(v.id)
                tag = "" if slot is None else f"@s{slot}" + ("!" if v.id in self.inplace else "")
                outs.append(f"{v!r}{tag}")
            ins = ", ".join(repr(v) for v in k.inputs)
            lines.append(f"  k{i} {k.kind:6s} {ops} ({ins}) -> {', '.join(outs)}")
        if self.slot_sizes:
            lines.append("  slots: " + ", ".join(f"s{s}={n}B" for s, n in sorted(self.slot_sizes.items())))
        return "\n".join(lines)
