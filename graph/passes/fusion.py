"""Fusion: split a graph into the ordered kernels of a :class:`~graph.passes.schedule.Schedule`.

A fused kernel is a DAG of ELEMENTWISE nodes whose outputs all have the same shape (operands may
broadcast into it), optionally ended by one REDUCTION of that shape. Every other node is a kernel
of its own (``extern``/``view``/``random``/``state``); a lone elementwise node or reduction is a
one-node ``fused`` kernel. A value read outside its kernel (or returned, or a parameter update)
is a kernel output.

Algorithm (one pass in graph order, greedy):
  * each node starts a group or joins the open fused groups of its producers that have its shape;
    a reduction joins the group of its operand and closes it;
  * joining must keep the kernel graph acyclic. Every group carries ``anc``, a bitmask of the
    groups it depends on (transitively, at group level: group A depends on B when any node of A
    reads any value of B). Group ``S`` may absorb node ``n`` only if no other producer of ``n``
    depends on ``S`` (the path S -> X -> n would become a cycle), and two groups are merged only
    if neither depends on the other. Masks are Python ints (one bit per group ever created), so a
    check costs O(n/64) word operations; when a merged group gains ancestors the new bits are
    pushed to its descendants, stopping where nothing changes.
  * side effects keep their order: each node with effects (random, state, collective) depends on
    the previous one, and a node that mutates a parameter depends on every earlier reader of the
    value it overwrites (so a backend may write the parameter in place once the state kernel runs).
  * kernels are emitted in a topological order of the group graph (Kahn's algorithm, ties broken
    by the group's first node in graph order), O(n log n). Ops marked ``issue_early`` (the start of
    a non-blocking all-reduce) pull their kernel and everything it needs ahead of the rest: the
    i-th such kernel and its not yet scheduled ancestors rank before all later ones and before
    every other kernel. A gradient bucket's all-reduce thus starts as soon as the backward has
    produced that bucket, and the rest of the backward runs while it is in flight.
  * a few cheap elementwise nodes at the end of a fused kernel (compare, cast, select: a ReLU's
    gradient mask) that need only values stored anyway move into the one fused kernel reading
    their result (:func:`_sink_recomputable`), so the mask is recomputed there instead of stored
    by the forward kernel and read back by the backward one (never across a state kernel).

Example:
    >>> from graph.passes.fusion import fuse
    >>> # print(fuse(graph).describe())
"""
from __future__ import annotations

import heapq

from ..ir import Graph, Value, NODE
from ..ops.core import ELEMENTWISE, EXTERN, RANDOM, REDUCTION, STATE, VIEW
from .schedule import Kernel, Schedule

#: the most nodes one fused kernel takes. LLVM's optimisation time grows faster than linearly with
#: a function's size (a chain of 1,200 fused elementwise ops with distinct constants: 4.1 s in
#: kernels of 128 nodes, 2.5 s of 64, 1.5 s of 32; one kernel of 5,001 ops did not finish in 45 s),
#: so a bigger group is cut into kernels of at most this many nodes: compile time stays linear in
#: the graph's size, at the price of storing and reloading the values live across each cut
MAX_KERNEL_NODES = 32

_SINGLE_KIND = {EXTERN: "extern", VIEW: "view", RANDOM: "random", STATE: "state"}


class _Group:
    __slots__ = ("nodes", "bits", "anc", "consumers", "fusible", "open", "shape", "reduce",
                 "first", "parent", "after_wait")

    def __init__(self, node, index, bit, fusible):
        self.nodes = [(index, node)]
        self.bits = bit  # one bit per original group merged into this one
        self.anc = 0  # bits of every group this one depends on
        self.consumers: set = set()  # groups reading this one (possibly merged away: use find)
        self.fusible = fusible
        self.open = fusible
        self.shape = node.outputs[0].shape if fusible else None
        self.reduce = None
        self.first = index
        self.parent = None
        self.after_wait = False  # runs after a collective's completion (see _join_elementwise)


def _find(g: _Group) -> _Group:
    root = g
    while root.parent is not None:
        root = root.parent
    while g.parent is not None and g.parent is not root:  # path compression
        g.parent, g = root, g.parent
    return root


def _waits(node) -> bool:
    """A collective that completes here (any but the start of a non-blocking one)."""
    return node.op.communicates and not node.op.issue_early


def _is_elementwise(node) -> bool:
    return node.op.kind == ELEMENTWISE and len(node.outputs) == 1


def _is_reduction(node) -> bool:
    return (node.op.kind == REDUCTION and len(node.outputs) == 1 and node.inputs
            and isinstance(node.inputs[0], Value))


class _Fuser:
    def __init__(self, graph: Graph, fuse: bool):
        self.graph = graph
        self.fuse = fuse
        self.group_of: dict[int, _Group] = {}  # id(node) -> group (maybe merged away: use find)
        self.next_bit = 1
        self.groups: list[_Group] = []
        self.readers: dict[int, list] = {}  # id(value) -> nodes read it so far (for mutations)
        self.last_effect = None  # the previous node with side effects (random, state, collective)

    # -- dependencies ---------------------------------------------------------------------------
    def _producers(self, node) -> list[_Group]:
        """Groups ``node`` must run after: its operands' producers plus side-effect order."""
        deps = []
        for v in node.inputs:
            if isinstance(v, Value) and v.kind == NODE:
                deps.append(self.group_of[id(v.producer)])
        if node.op.has_effects:
            if self.last_effect is not None:
                deps.append(self.group_of[id(self.last_effect)])
            if node.op.mutates is not None:
                target = node.inputs[node.op.mutates]
                for r in self.readers.get(id(target), ()):
                    if r is not node:
                        deps.append(self.group_of[id(r)])
        out, seen = [], set()
        for g in deps:
            g = _find(g)
            if id(g) not in seen:
                seen.add(id(g))
                out.append(g)
        return out

    def _new_group(self, node, index, fusible) -> _Group:
        g = _Group(node, index, self.next_bit, fusible)
        self.next_bit <<= 1
        self.groups.append(g)
        return g

    # -- the pass ---------------------------------------------------------------------------------
    def run(self) -> list[_Group]:
        for index, node in enumerate(self.graph.nodes):
            producers = self._producers(node)
            group = None
            if self.fuse and _is_elementwise(node):
                group = self._join_elementwise(node, index, producers)
            elif self.fuse and _is_reduction(node):
                group = self._join_reduction(node, index, producers)
            if group is None:
                fusible = _is_elementwise(node)
                group = self._new_group(node, index, fusible)
                if node.op.kind == REDUCTION and len(node.outputs) == 1:
                    group.reduce, group.open = node, False
                group.after_wait = _waits(node) or any(p.after_wait for p in producers)
                self._link(group, producers)
            self.group_of[id(node)] = group
            for v in node.inputs:
                if isinstance(v, Value):
                    self.readers.setdefault(id(v), []).append(node)
            if node.op.has_effects:
                self.last_effect = node
        return [g for g in self.groups if g.parent is None]

    def _link(self, group: _Group, producers) -> None:
        """Record edges producers -> group and push new ancestors to group's descendants."""
        anc = group.anc
        for p in producers:
            if p is not group:
                anc |= p.anc | p.bits
                p.consumers.add(group)
        anc &= ~group.bits
        if anc != group.anc:
            group.anc = anc
            self._propagate(group)

    def _propagate(self, group: _Group) -> None:
        bits = group.anc | group.bits
        stack = [group]
        while stack:
            g = stack.pop()
            for c in list(g.consumers):
                c = _find(c)
                if c is group or c is g:
                    continue
                if bits & ~c.anc & ~c.bits:
                    c.anc |= bits & ~c.bits
                    stack.append(c)

    def _join_elementwise(self, node, index, producers):
        shape = node.outputs[0].shape
        # work that needs a collective's result never merges into work that does not: the merged
        # kernel would have to wait for the exchange, and could no longer overlap it
        after_wait = any(p.after_wait for p in producers)
        candidates = sorted((p for p in producers if p.open and p.shape == shape and p.after_wait == after_wait),
                            key=lambda g: g.first)
        chosen, mask, anc, size = [], 0, 0, 1
        for cand in candidates:
            if cand.anc & mask or anc & cand.bits:
                continue  # one chosen group depends on the other: merging would hide a path
            if size + len(cand.nodes) > MAX_KERNEL_NODES:
                continue  # the kernel is full: LLVM's time grows faster than linearly with its size
            new_mask = mask | cand.bits
            if any(p.anc & new_mask for p in producers if p is not cand and p not in chosen):
                continue  # some other producer of `node` reads the merged group: a cycle
            chosen.append(cand)
            mask, anc, size = new_mask, anc | cand.anc, size + len(cand.nodes)
        if not chosen:
            return None
        root = max(chosen, key=lambda g: len(g.nodes))
        for g in chosen:
            if g is not root:
                self._merge_into(root, g)
        root.nodes.append((index, node))
        self._link(root, [p for p in producers if p not in chosen])
        return root

    def _join_reduction(self, node, index, producers):
        src = node.inputs[0]
        if src.kind != NODE or len(producers) != 1:
            return None
        g = producers[0]
        if not g.open or src.shape != g.shape:
            return None
        g.nodes.append((index, node))
        g.reduce, g.open = node, False
        return g

    def _merge_into(self, root: _Group, g: _Group) -> None:
        root.nodes.extend(g.nodes)
        root.bits |= g.bits
        root.anc = (root.anc | g.anc) & ~root.bits
        root.consumers |= g.consumers
        root.first = min(root.first, g.first)
        g.parent = root
        g.consumers = set()
        # descendants of either half now depend on everything the union depends on
        self._propagate(root)


def _urgency(groups: list[_Group], succ) -> dict[int, float]:
    """Scheduling rank of each group: ``i`` for the i-th group holding an ``issue_early`` node (in
    graph order) and for its ancestors not claimed by an earlier one; infinity for the rest."""
    early = sorted((g for g in groups if any(n.op.issue_early for _, n in g.nodes)), key=lambda g: g.first)
    urgency = {id(g): float("inf") for g in groups}
    if not early:
        return urgency
    preds: dict[int, list[_Group]] = {}
    for g in groups:
        for c in succ[id(g)]:
            preds.setdefault(id(c), []).append(g)
    for rank, g in enumerate(early):
        stack = [g]
        while stack:
            h = stack.pop()
            if urgency[id(h)] <= rank:
                continue
            urgency[id(h)] = rank
            stack.extend(preds.get(id(h), ()))
    return urgency


def _order(groups: list[_Group]) -> list[_Group]:
    indeg = {id(g): 0 for g in groups}
    succ: dict[int, list[_Group]] = {}
    for g in groups:
        out, seen = [], set()
        for c in g.consumers:
            c = _find(c)
            if c is not g and id(c) not in seen:
                seen.add(id(c))
                out.append(c)
                indeg[id(c)] += 1
        succ[id(g)] = out
    urgency = _urgency(groups, succ)
    heap = [(urgency[id(g)], g.first, i, g) for i, g in enumerate(groups) if indeg[id(g)] == 0]
    heapq.heapify(heap)
    pos = {id(g): i for i, g in enumerate(groups)}
    order = []
    while heap:
        *_, g = heapq.heappop(heap)
        order.append(g)
        for c in succ[id(g)]:
            indeg[id(c)] -= 1
            if indeg[id(c)] == 0:
                heapq.heappush(heap, (urgency[id(c)], c.first, pos[id(c)], c))
    if len(order) != len(groups):
        raise AssertionError("fusion produced a cyclic kernel graph (internal error)")
    return order


def _values_read(nodes) -> list:
    """The values ``nodes`` read that none of them produces (a kernel's inputs), in order."""
    produced = {id(o) for n in nodes for o in n.outputs}
    out, seen = [], set()
    for n in nodes:
        for v in n.inputs:
            if isinstance(v, Value) and id(v) not in produced and id(v) not in seen:
                seen.add(id(v))
                out.append(v)
    return out


def _kernels(graph: Graph, groups: list[_Group]) -> list[Kernel]:
    kernel_of: dict[int, int] = {}
    for k, g in enumerate(groups):
        g.nodes.sort(key=lambda t: t[0])
        for _, n in g.nodes:
            kernel_of[id(n)] = k
    escapes = {id(v) for v in graph.outputs if isinstance(v, Value)}
    escapes.update(id(v) for v in graph.updates.values())
    for n in graph.nodes:
        k = kernel_of[id(n)]
        for v in n.inputs:
            if isinstance(v, Value) and v.kind == NODE and kernel_of[id(v.producer)] != k:
                escapes.add(id(v))
    kernels = []
    for k, g in enumerate(groups):
        nodes = [n for _, n in g.nodes]
        inputs = _values_read(nodes)
        outputs = [o for n in nodes for o in n.outputs if id(o) in escapes]
        if g.fusible or g.reduce is not None:
            kind = "fused"
        else:
            kind = _SINGLE_KIND.get(nodes[0].op.kind, "extern")
        name = f"k{k}_" + "_".join(n.op.name for n in nodes[:4]) + ("_etc" if len(nodes) > 4 else "")
        kernels.append(Kernel(kind, nodes, inputs, outputs, reduce=g.reduce, name=name))
    return kernels


#: elementwise ops cheaper to recompute where their result is read than to store and load again
#: (a compare, a cast, a select, sign arithmetic: a few instructions per element)
RECOMPUTED_OPS = frozenset({"greater", "greater_equal", "less", "less_equal", "equal", "not_equal", "cast",
                            "logical_not", "logical_and", "logical_or", "neg", "abs", "sign", "where",
                            "zeros_like", "ones_like"})
#: at most this many nodes move into the reader
MAX_RECOMPUTED = 4


def _recomputable_slice(kernel: Kernel, value: Value, keep: set):
    """The nodes of ``kernel`` that compute ``value`` from values stored anyway (``keep``: the
    kernel's inputs and its other outputs), if they are few cheap elementwise nodes that nothing
    else in the kernel reads; else None."""
    inside = {id(o): n for n in kernel.nodes for o in n.outputs}
    chosen, stack = {}, [value]
    while stack:
        v = stack.pop()
        if id(v) in keep or id(v) not in inside:
            continue  # stored anyway (or a graph input / constant)
        n = inside[id(v)]
        if id(n) in chosen:
            continue
        if n.op.name not in RECOMPUTED_OPS or n is kernel.reduce or len(chosen) == MAX_RECOMPUTED:
            return None
        chosen[id(n)] = n
        stack.extend(x for x in n.inputs if isinstance(x, Value))
    made = {id(o) for n in chosen.values() for o in n.outputs}
    for n in kernel.nodes:
        if id(n) not in chosen and any(isinstance(x, Value) and id(x) in made for x in n.inputs):
            return None  # the rest of the kernel needs it too
    return [n for n in kernel.nodes if id(n) in chosen]


def _sink_recomputable(graph: Graph, kernels: list[Kernel]) -> list[Kernel]:
    """Move cheap elementwise tails of a fused kernel (a ReLU's mask ``cast(out > 0)``) into the
    one fused kernel that reads their result, when they need only values that are stored anyway.
    The mask is then neither written by the forward kernel nor read back, cold, by the backward
    one, which reads the activation the next layer's gradient has just read instead (an MLP of
    width 256 at batch 1024: 2 MB less memory traffic per layer and step)."""
    kept = {id(v) for v in graph.outputs if isinstance(v, Value)} | {id(v) for v in graph.updates.values()}
    readers: dict[int, list[int]] = {}
    for ki, k in enumerate(kernels):
        for v in k.inputs:
            readers.setdefault(id(v), []).append(ki)
    changed = False
    for ki, k in enumerate(kernels):
        if k.kind != "fused":
            continue
        for v in list(k.outputs):
            where = readers.get(id(v), [])
            if id(v) in kept or len(where) != 1:
                continue
            reader = kernels[where[0]]
            if reader.kind != "fused" or tuple(reader.shape) != tuple(v.shape):
                continue
            if any(kernels[j].kind == "state" for j in range(ki + 1, where[0])):
                continue  # a mutation in between could change what the moved nodes read
            keep = {id(x) for x in k.inputs} | {id(o) for o in k.outputs if o is not v}
            moved = _recomputable_slice(k, v, keep)
            if moved is None:
                continue
            gone = {id(n) for n in moved}
            k.nodes = [n for n in k.nodes if id(n) not in gone]
            k.outputs = [o for o in k.outputs if o is not v]
            k.inputs = _values_read(k.nodes)
            reader.nodes = moved + reader.nodes
            reader.inputs = _values_read(reader.nodes)
            for x in reader.inputs:
                if reader not in (kernels[i] for i in readers.setdefault(id(x), [])):
                    readers[id(x)].append(where[0])
            changed = True
    return [k for k in kernels if k.nodes] if changed else kernels


def fuse(graph: Graph) -> Schedule:
    """Group elementwise chains (+ one trailing reduction) into fused kernels; see the module doc."""
    groups = _order(_Fuser(graph, fuse=True).run())
    return Schedule(graph, _sink_recomputable(graph, _kernels(graph, groups)))


def schedule_nodes(graph: Graph) -> Schedule:
    """One kernel per node, in graph order (the O0 schedule: no fusion)."""
    groups = _order(_Fuser(graph, fuse=False).run())
    return Schedule(graph, _kernels(graph, groups))
