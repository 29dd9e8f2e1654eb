"""Forward/backward partition of a differentiated graph.

``split_for_training(graph)`` returns a forward graph that also outputs the activations the
backward needs ("saved" values), and a backward graph that maps (saved values, input values it
reads, output cotangents) to input cotangents. A captured region called under ``grad`` runs the
forward once, and its backward is one more compiled graph: no recomputation, no op-by-op replay.

Example:
    >>> # fwd, bwd = split_for_training(graph)
    >>> # outs_and_saved = run(fwd, inputs); grads = run(bwd, saved + read_inputs + cotangents)
"""
from __future__ import annotations

from dataclasses import dataclass

from .autodiff import append_vjp
from .aval import AVal
from .ir import CONST, NODE, Graph, Value
from .ops.core import gets_gradient


@dataclass
class TrainingSplit:
    forward: Graph  # outputs: original outputs, then saved activations
    backward: Graph  # inputs: saved activations, then read forward inputs, then cotangents
    n_outputs: int  # number of original outputs
    diff_outputs: list[int]  # indices of outputs that take a cotangent (float and integer tensors)
    wrt: list[int]  # forward input indices whose cotangent the backward returns (in order)
    read_inputs: list[int]  # forward input indices the backward reads directly
    # indices in ``wrt`` with no path to a differentiable output: their cotangent is a structural
    # zero, which the tape must see as "no gradient" (None), not as a zero tensor to propagate
    # (a custom bprop upstream would otherwise run on it and add its output to the gradient)
    unconnected: frozenset = frozenset()


def _copy_graph(src: Graph, name: str):
    """A structural copy of ``src`` (same inputs/consts/nodes/outputs/updates) and the value map."""
    g = Graph(name)
    vmap: dict[int, Value] = {}
    for v in src.inputs:
        vmap[id(v)] = g.add_input(v.aval, v.name, v.kind, ref=v.ref)
    for c in src.consts:
        vmap[id(c)] = g.add_const(c.data, c.name)

    def m(x):
        return vmap[id(x)] if isinstance(x, Value) else x

    for n in src.nodes:
        outs = g.add_node(n.op, [m(x) for x in n.inputs], n.attrs, n.loc)
        outs = outs if isinstance(outs, tuple) else (outs,)
        for old, new in zip(n.outputs, outs):
            vmap[id(old)] = new
    g.set_outputs([m(v) for v in src.outputs])
    g.updates = {vmap[id(p)]: vmap[id(v)] for p, v in src.updates.items()}
    return g, vmap


def split_for_training(graph: Graph) -> TrainingSplit:
    joint, _ = _copy_graph(graph, graph.name + "_joint")
    n_forward = len(joint.nodes)
    # float *and integer* values take part, as on the eager tape (``gets_gradient``): MindSpore 2.x
    # differentiates an int32 input in its own dtype, so a region of a graph broken by a branch on
    # a tensor value must pass an integer input's gradient through too (it gave 0 here before);
    # bool values get none
    diff_outputs = [i for i, v in enumerate(joint.outputs) if isinstance(v, Value) and gets_gradient(v)]
    cotangents = [joint.add_input(joint.outputs[i].aval, f"d_out{i}") for i in diff_outputs]
    wrt = [i for i, v in enumerate(joint.inputs[:len(graph.inputs)]) if gets_gradient(v)]
    grads = append_vjp(joint, [joint.outputs[i] for i in diff_outputs], cotangents,
                       [joint.inputs[i] for i in wrt])
    backward_nodes = joint.nodes[n_forward:]
    produced_by_backward = {id(o) for n in backward_nodes for o in n.outputs}
    forward_inputs = {id(v): i for i, v in enumerate(joint.inputs[:len(graph.inputs)])}
    cot_index = {id(v): k for k, v in enumerate(cotangents)}

    # values of the forward part that the backward reads
    saved, read_inputs, seen = [], [], set()

    def note(v):
        if not isinstance(v, Value) or id(v) in produced_by_backward or id(v) in seen or id(v) in cot_index:
            return
        seen.add(id(v))
        if v.kind == NODE:
            saved.append(v)
        elif id(v) in forward_inputs:
            read_inputs.append(forward_inputs[id(v)])

    for n in backward_nodes:
        for x in n.inputs:
            note(x)
    for gv in grads:
        note(gv)

    # forward graph: the original computation, also returning the saved activations
    fwd, fmap = _copy_graph(graph, graph.name + "_fwd")
    joint_to_orig = {}
    for jv, ov in zip(joint.inputs, graph.inputs):
        joint_to_orig[id(jv)] = ov
    for jn, on in zip(joint.nodes[:n_forward], graph.nodes):
        for jo, oo in zip(jn.outputs, on.outputs):
            joint_to_orig[id(jo)] = oo
    fwd.set_outputs(list(fwd.outputs) + [fmap[id(joint_to_orig[id(v)])] for v in saved])

    # backward graph
    bwd = Graph(graph.name + "_bwd")
    bmap: dict[int, Value] = {}
    for k, v in enumerate(saved):
        bmap[id(v)] = bwd.add_input(v.aval, f"saved{k}")
    for i in read_inputs:
        v = joint.inputs[i]
        bmap[id(v)] = bwd.add_input(v.aval, v.name)
    for k, v in enumerate(cotangents):
        bmap[id(v)] = bwd.add_input(v.aval, v.name)

    def bm(x):
        if not isinstance(x, Value):
            return x
        hit = bmap.get(id(x))
        if hit is None and x.kind == CONST:
            hit = bmap[id(x)] = bwd.add_const(x.data, x.name)
        return hit

    for n in backward_nodes:
        outs = bwd.add_node(n.op, [bm(x) for x in n.inputs], n.attrs, n.loc)
        outs = outs if isinstance(outs, tuple) else (outs,)
        for old, new in zip(n.outputs, outs):
            bmap[id(old)] = new
    from .ops import F
    outs = []
    unconnected = frozenset(i for i, gv in zip(wrt, grads) if gv is None)
    for i, gv in zip(wrt, grads):
        if gv is None:
            # no path from this input to the outputs: an explicit zero cotangent
            like = bm(joint.inputs[i]) if id(joint.inputs[i]) in bmap else None
            if like is None:
                like = bwd.add_const(__import__("numpy").zeros(joint.inputs[i].shape, joint.inputs[i].dtype.np))
                outs.append(like)
                continue
            outs.append(F.zeros_like(like))
        else:
            outs.append(bm(gv))
    bwd.set_outputs(outs)
    fwd.verify()
    bwd.verify()
    return TrainingSplit(fwd, bwd, len(graph.outputs), diff_outputs, wrt, read_inputs, unconnected)


AVal  # re-exported type used in signatures of callers
