"""Graph builders and schedule helpers for the codegen tests."""
from __future__ import annotations

import numpy as np

from graph.aval import AVal
from graph.dtypes import from_numpy
from graph.interpret import run as interpret
from graph.ir import Graph
from graph.passes.schedule import Kernel, Schedule


def graph_of(fn, *specs, name="g"):
    """Graph of ``fn(*inputs)`` for input specs ``(shape, numpy dtype)``."""
    g = Graph(name)
    xs = [g.add_input(AVal(tuple(s), from_numpy(np.dtype(d))), f"x{i}") for i, (s, d) in enumerate(specs)]
    out = fn(*xs)
    g.set_outputs(list(out) if isinstance(out, (tuple, list)) else [out])
    return g


def one_kernel(graph):
    """All nodes of an elementwise(+reduction) graph as one hand-built fused kernel."""
    nodes = list(graph.nodes)
    red = nodes[-1] if nodes[-1].op.kind == "reduction" else None
    consts = [c for c in graph.consts]
    return Schedule(graph, [Kernel("fused", nodes, list(graph.inputs) + consts, list(graph.outputs), reduce=red)])


def rendered(graph):
    """``graph`` as every pipeline level hands it to a backend's emitter, for the tests that build
    their schedules by hand: with the strength reductions (a power by a constant exponent as
    multiplications, sqrt or a reciprocal; graph/passes/simplify.py) applied."""
    from graph.passes import reduce_strength
    return reduce_strength(graph)


def per_node(graph):
    """One kernel per node of ``graph`` itself (elementwise ops and reductions as one-node fused
    kernels): the pipeline's unfused scheduler, without its graph passes."""
    from graph.passes import schedule_nodes
    return schedule_nodes(graph)


def optimized(graph, level="O1"):
    """The schedule of ``graph`` from the pass pipeline of ``level``."""
    from codegen import schedule_graph
    return schedule_graph(graph, level)


def compile_and_run(schedule, arrays):
    from codegen import compile_schedule
    cg = compile_schedule(schedule)
    return cg, cg(arrays)


def reference(graph, arrays):
    return interpret(graph, arrays)


def assert_ulp(got, want, ulps=4, atol=0.0, what=""):
    """|got - want| <= ulps * spacing(want) (+ atol), nan/inf positions equal."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    if got.dtype.kind not in "fc":
        np.testing.assert_array_equal(got, want, err_msg=what)
        return
    fin = np.isfinite(want)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want), err_msg=f"{what}: nan positions")
    inf = np.isinf(want)
    np.testing.assert_array_equal(got[inf], want[inf], err_msg=f"{what}: inf values")
    g, w = got[fin].astype(np.float64), want[fin].astype(np.float64)
    tol = ulps * np.spacing(np.abs(want[fin])).astype(np.float64) + atol
    bad = np.abs(g - w) > tol
    if bad.any():
        i = np.argmax(np.abs(g - w) - tol)
        raise AssertionError(f"{what}: {bad.sum()} of {bad.size} values off by more than {ulps} ulp "
                             f"(+{atol}); worst got {g[i]!r} want {w[i]!r}")


def small_train_step(seed=3, hidden=16):
    """(net, optimizer, train step) of a small classifier (6 features, 3 classes) with Momentum,
    its weights drawn from ``seed``: the model the snapshot and in-place update tests train."""
    import runtime as ms
    from runtime import nn
    ms.set_seed(seed)
    net = nn.SequentialCell([nn.Dense(6, hidden), nn.ReLU(), nn.Dense(hidden, 3)])
    opt = nn.Momentum(net.trainable_params(), 0.05, 0.9)
    return net, opt, tutorial_train_step(net, opt)


def tutorial_train_step(net, opt):
    """The tutorial's train step for ``net`` and its optimizer ``opt``: sparse softmax cross
    entropy, ``value_and_grad`` over the optimizer's parameters, then the update; returns the
    loss. (Plain Python: callers run it eagerly or under ``jit``.)"""
    import runtime as ms
    from runtime import nn
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    grad_fn = ms.value_and_grad(nn.WithLossCell(net, loss), None, opt.parameters)

    def step(x, y):
        loss_value, grads = grad_fn(x, y)
        opt(grads)
        return loss_value
    return step
