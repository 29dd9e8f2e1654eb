"""A minimal scheduler used until (or instead of) ``graph.passes.optimize``: contiguous runs of
elementwise nodes of one shape become one fused kernel (closed by a trailing reduction when the
reduction reads the run's shape); every other node is a kernel of its own kind."""
from __future__ import annotations

from graph.ir import Value
from graph.passes.schedule import Kernel, Schedule

_KIND = {"extern": "extern", "view": "view", "random": "random", "state": "state"}


def simple_schedule(graph, fuse: bool = True) -> Schedule:
    groups = []
    cur = None
    for n in graph.nodes:
        kind = n.op.kind
        if kind == "elementwise" and n.op.n_outputs == 1:
            shape = tuple(n.outputs[0].shape)
            if fuse and cur is not None and cur["shape"] == shape and cur["reduce"] is None:
                cur["nodes"].append(n)
            else:
                cur = {"nodes": [n], "shape": shape, "reduce": None}
                groups.append(cur)
            continue
        if kind == "reduction":
            src = n.inputs[0]
            if (fuse and cur is not None and cur["reduce"] is None and isinstance(src, Value)
                    and tuple(src.shape) == cur["shape"]
                    and any(src is m.outputs[0] for m in cur["nodes"])):
                cur["nodes"].append(n)
                cur["reduce"] = n
                cur = None
                continue
            groups.append({"nodes": [n], "shape": None, "reduce": n, "kind": "fused"})
            cur = None
            continue
        groups.append({"nodes": [n], "kind": _KIND.get(kind, "extern"), "reduce": None})
        cur = None
    # values used after each group
    users_after = {}
    order = {}
    for gi, g in enumerate(groups):
        for n in g["nodes"]:
            order[id(n)] = gi
    for gi, g in enumerate(groups):
        for n in g["nodes"]:
            for a in n.inputs:
                if isinstance(a, Value):
                    users_after.setdefault(id(a), set()).add(gi)
    final = {id(v) for v in graph.outputs if isinstance(v, Value)} | {id(v) for v in graph.updates.values()}
    kernels = []
    for gi, g in enumerate(groups):
        produced = {id(v) for n in g["nodes"] for v in n.outputs}
        inputs, seen = [], set()
        for n in g["nodes"]:
            for a in n.inputs:
                if isinstance(a, Value) and id(a) not in produced and id(a) not in seen:
                    seen.add(id(a))
                    inputs.append(a)
        outputs = [v for n in g["nodes"] for v in n.outputs
                   if id(v) in final or (users_after.get(id(v), set()) - {gi})]
        kind = g.get("kind", "fused")
        kernels.append(Kernel(kind, list(g["nodes"]), inputs, outputs, reduce=g["reduce"],
                              name=f"k{gi}"))
    return Schedule(graph, kernels)
