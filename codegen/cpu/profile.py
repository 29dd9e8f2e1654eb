"""Where a compiled graph's call spends its time, kernel by kernel.

A plain call runs runs of kernels as one native call each (segments), which no Python profiler can
see into. :func:`profile_call` runs the graph's per-kernel steps instead (the ones the recording run
uses: the same kernels, the same thread pool splits, one Python-level call per kernel) and times
each, so the sum is close to a plain call's time plus a few microseconds per kernel.
:func:`by_category` groups the kernels into the kinds a reader asks about (im2col, products,
col2im, fused elementwise work, reductions, copies...) and gives the products' achieved GFLOP/s.

Example:
    >>> import numpy as np
    >>> from graph.aval import AVal
    >>> from graph.dtypes import float32
    >>> from graph.ir import Graph
    >>> from graph.ops import F
    >>> import codegen
    >>> g = Graph("p")
    >>> a = g.add_input(AVal((64, 64), float32), "a")
    >>> g.set_outputs([F.relu(F.matmul(a, a))])
    >>> cg = codegen.compile_schedule(codegen.schedule_graph(g), g.name)
    >>> rows = profile_call(cg, [np.ones((64, 64), np.float32)])
    >>> sorted({categorize(r.ops, r.describe) for r in rows}) == sorted({c for c, *_ in by_category(rows)})
    True
    >>> all(r.seconds > 0 for r in rows) and sum(r.flops for r in rows) == 2 * 64 ** 3
    True
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np


@dataclass
class KernelTime:
    """One kernel of the schedule: its index, description, ops, seconds per call (the mean over
    the profiled rounds) and, for matrix products and convolutions, floating-point operations per
    call."""
    index: int
    describe: str
    ops: tuple
    seconds: float
    flops: float = 0.0

    @property
    def category(self) -> str:
        return categorize(self.ops, self.describe)


def _product_flops(node) -> float:
    """2*m*n*k (times the batch) of a ``matmul`` node, from its output and first operand."""
    out = node.outputs[0].shape
    a = node.inputs[0].shape
    ta = node.attrs.get("transpose_a", False)
    k = a[-2] if ta else a[-1]
    return 2.0 * float(np.prod(out, dtype=np.float64)) * k


def _conv_flops(node) -> float:
    """2 * output elements * C*kh*kw of a direct ``conv2d`` (or its filter gradient)."""
    if node.op.name == "conv2d":
        w = node.inputs[1].shape
        return 2.0 * float(np.prod(node.outputs[0].shape, dtype=np.float64)) * w[1] * w[2] * w[3]
    if node.op.name == "conv2d_backprop_filter":
        dout = node.inputs[0].shape
        f = node.attrs["filter_size"]
        return 2.0 * float(np.prod(dout, dtype=np.float64)) * f[1] * f[2] * f[3]
    return 0.0


def categorize(ops, describe="") -> str:
    """A kernel's kind for a profile table, from its ops."""
    ops = set(ops)
    if "matmul" in ops:
        return "product (sgemm)"
    for name in ("conv_im2col", "conv_col2im", "conv2d", "conv2d_backprop_filter", "conv2d_backprop_input"):
        if name in ops:
            return name
    if ops & {"max_pool2d", "avg_pool2d", "max_pool2d_grad", "avg_pool2d_grad"}:
        return "pooling"
    if "batch_norm" in ops:
        return "batch_norm (native)" if "native" in describe else "batch_norm (numpy)"
    if ops & {"transpose"}:
        return "transpose/copy"
    if describe.startswith("k") and " view" in describe.split("]")[0]:
        return "view"
    reduce = ops & {"reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "argmax", "reduce_prod"}
    if "fused" in describe and reduce:
        return "fused with reduction"
    if "fused" in describe:
        return "fused elementwise"
    return "other: " + "+".join(sorted(ops))[:40]


def profile_call(cg, arrays, rounds=3) -> list[KernelTime]:
    """Per kernel of the compiled graph ``cg``, its least seconds over ``rounds`` calls on
    ``arrays`` (the least: on a loaded machine other processes only ever add time; the first call,
    which binds the arena, is not timed). The calls give back fresh outputs and updates, not
    in-place ones: parameters are not touched."""
    kernels_ = cg.schedule.kernels
    best = [float("inf")] * len(kernels_)
    for r in range(rounds + 1):
        totals = [0.0] * len(kernels_)
        with cg._lock, cg._region:
            if cg._arena_generation != cg._arena_gen():
                cg._bind_arena()
            env = cg._env.copy()
            env[:cg.n_inputs] = arrays
            clock = time.perf_counter
            for step, ki in zip(cg.steps, cg.step_kernels):
                t0 = clock()
                step(env)
                totals[ki] += clock() - t0
        if r:
            best = [min(a, b) for a, b in zip(best, totals)]
    rows = []
    for ki, k in enumerate(kernels_):
        flops = sum(_product_flops(n) if n.op.name == "matmul" else _conv_flops(n) for n in k.nodes)
        rows.append(KernelTime(ki, cg.descr[ki], tuple(n.op.name for n in k.nodes), best[ki], flops))
    return rows


def by_category(rows) -> list[tuple[str, int, float, float]]:
    """(category, kernels, seconds, GFLOP/s or 0) per category, the slowest first."""
    groups = {}
    for row in rows:
        n, s, f = groups.get(row.category, (0, 0.0, 0.0))
        groups[row.category] = (n + 1, s + row.seconds, f + row.flops)
    out = [(c, n, s, (f / s / 1e9 if f and s else 0.0)) for c, (n, s, f) in groups.items()]
    return sorted(out, key=lambda r: -r[2])


def table(rows, top=0) -> str:
    """The category table (and the ``top`` slowest kernels) as text."""
    total = sum(r.seconds for r in rows)
    lines = [f"{'category':<28} {'kernels':>7} {'ms':>9} {'share':>6} {'GFLOP/s':>8}"]
    for c, n, s, gf in by_category(rows):
        lines.append(f"{c:<28} {n:>7} {s * 1e3:>9.2f} {s / total:>6.1%} {gf:>8.1f}" if gf else
                     f"{c:<28} {n:>7} {s * 1e3:>9.2f} {s / total:>6.1%} {'':>8}")
    lines.append(f"{'total':<28} {len(rows):>7} {total * 1e3:>9.2f}")
    if top:
        lines.append("")
        for r in sorted(rows, key=lambda r: -r.seconds)[:top]:
            gf = f" {r.flops / r.seconds / 1e9:6.1f} GFLOP/s" if r.flops and r.seconds else ""
            lines.append(f"{r.seconds * 1e3:8.3f} ms{gf}  {r.describe[:150]}")
    return "\n".join(lines)
