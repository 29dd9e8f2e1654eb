"""Fused elementwise chains and trailing reductions compiled by codegen/cpu equal numpy: odd sizes,
broadcast (stride-0) operands, non-contiguous runtime inputs, several outputs, reductions over
trailing/leading/middle/all axes, the two-thread split, and buffer reuse across calls."""
import numpy as np
import pytest

from codegen_helpers import compile_and_run, graph_of, one_kernel, optimized, per_node, reference
from graph.ops import F
from codegen.cpu import threads


def chain(x, a=1.5, b=0.3, c=0.7):
    return F.add(F.mul(F.tanh(F.add(F.mul(x, a), b)), c), F.exp(F.neg(x)))


def _np_chain(x):
    f = np.float32
    return np.tanh(x * f(1.5) + f(0.3)) * f(0.7) + np.exp(-x)


@pytest.mark.parametrize("n", [1, 7, 15, 17, 1023, 4097, 100_003])
def test_chain_odd_sizes(n, rng):
    x = rng.standard_normal(n).astype(np.float32)
    g = graph_of(chain, ((n,), np.float32))
    _, (out, _) = compile_and_run(one_kernel(g), [x])
    np.testing.assert_allclose(out[0], _np_chain(x), rtol=2e-6, atol=1e-7)


@pytest.mark.parametrize("xs,bs", [((3, 5, 7), (7,)), ((3, 5, 7), (5, 1)), ((3, 5, 7), (3, 1, 7)),
                                   ((1, 9), (4, 1)), ((2, 3, 4, 5), (1, 3, 1, 5)), ((6, 1), ())])
def test_broadcast_operands(xs, bs, rng):
    x = rng.standard_normal(xs).astype(np.float32)
    b = rng.standard_normal(bs).astype(np.float32)
    g = graph_of(lambda u, v: F.relu(F.add(F.mul(u, v), F.sub(v, 1.0))), (xs, np.float32), (bs, np.float32))
    ref, _ = reference(g, [x, b])
    _, (out, _) = compile_and_run(one_kernel(g), [x, b])
    assert out[0].shape == ref[0].shape
    np.testing.assert_allclose(out[0], ref[0], rtol=1e-6, atol=1e-7)


def test_non_contiguous_inputs_at_run_time(rng):
    x = rng.standard_normal((9, 13)).astype(np.float32)
    g = graph_of(lambda u: F.mul(F.exp(u), 2.0), ((13, 9), np.float32))
    cg, (out, _) = compile_and_run(one_kernel(g), [x.T])
    np.testing.assert_allclose(out[0], np.exp(x.T) * 2, rtol=2e-6)
    out2, _ = cg([np.ascontiguousarray(x.T[::-1])])
    np.testing.assert_allclose(out2[0], np.exp(x.T[::-1]) * 2, rtol=2e-6)


def test_multiple_outputs_and_intermediates(rng):
    x = rng.standard_normal((31, 17)).astype(np.float32)

    def f(u):
        a = F.mul(u, 3.0)
        b = F.sigmoid(a)
        c = F.add(b, a)
        return a, c
    g = graph_of(f, (x.shape, np.float32))
    ref, _ = reference(g, [x])
    _, (out, _) = compile_and_run(one_kernel(g), [x])
    for a, b in zip(out, ref):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


RED_CASES = [((64, 33), 1), ((64, 33), 0), ((64, 33), None), ((5, 6, 7), (1, 2)), ((5, 6, 7), (0, 2)),
             ((5, 6, 7), 1), ((5, 6, 7), (0, 1)), ((4, 1, 3, 5), (0, 2, 3)), ((1023,), 0), ((7,), None),
             ((1, 1), None), ((3, 1000), -1)]


@pytest.mark.parametrize("shape,axis", RED_CASES)
@pytest.mark.parametrize("red", ["reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod"])
@pytest.mark.parametrize("keep", [False, True])
def test_fused_reductions(shape, axis, red, keep, rng):
    x = rng.standard_normal(shape).astype(np.float32)
    if red == "reduce_prod":
        x = (1 + 0.05 * x).astype(np.float32)
    g = graph_of(lambda u: getattr(F, red)(F.add(F.mul(u, u), 0.5) if red != "reduce_prod" else F.abs(u),
                                           axis=axis, keep_dims=keep), (shape, np.float32))
    ref, _ = reference(g, [x])
    _, (out, _) = compile_and_run(one_kernel(g), [x])
    assert out[0].shape == ref[0].shape and out[0].dtype == ref[0].dtype
    np.testing.assert_allclose(out[0], ref[0], rtol=2e-6, atol=1e-6)


@pytest.mark.parametrize("dtype", [np.int32, np.bool_, np.float64])
def test_reduction_dtypes(dtype, rng):
    x = (rng.standard_normal((6, 50)) * 10).astype(dtype)
    for red in ["reduce_sum", "reduce_max", "reduce_mean"]:
        if dtype == np.bool_ and red != "reduce_sum":
            continue
        g = graph_of(lambda u: getattr(F, red)(u, axis=1), (x.shape, dtype))
        ref, _ = reference(g, [x])
        _, (out, _) = compile_and_run(one_kernel(g), [x])
        assert out[0].dtype == ref[0].dtype
        np.testing.assert_allclose(out[0], ref[0], rtol=1e-6)


def test_large_float32_sum_is_accurate(rng):
    x = rng.random(1_000_003).astype(np.float32)
    g = graph_of(lambda u: F.reduce_sum(u), (x.shape, np.float32))
    _, (out, _) = compile_and_run(one_kernel(g), [x])
    np.testing.assert_allclose(out[0], x.astype(np.float64).sum(), rtol=1e-6)


def test_two_thread_split_matches(monkeypatch, rng):
    monkeypatch.setattr(threads, "SPLIT_THRESHOLD", 0)
    for shape in [(10_001,), (33, 129), (5, 1)]:
        x = rng.standard_normal(shape).astype(np.float32)
        g = graph_of(lambda u: (chain(u), F.reduce_sum(F.mul(u, u), axis=-1)), (shape, np.float32))
        from graph.passes.schedule import Kernel, Schedule
        n = g.nodes
        sched = Schedule(g, [Kernel("fused", n[:-2], [g.inputs[0]], [g.outputs[0]]),
                             Kernel("fused", n[-2:], [g.inputs[0]], [g.outputs[1]], reduce=n[-1])])
        cg, (out, _) = compile_and_run(sched, [x])
        assert "split" in cg.describe() or shape[0] < 2
        np.testing.assert_allclose(out[0], _np_chain(x), rtol=2e-6, atol=1e-7)
        np.testing.assert_allclose(out[1], (x * x).sum(-1), rtol=2e-6)


def test_buffers_are_reused_and_outputs_are_not_clobbered(rng):
    x = rng.standard_normal((50, 40)).astype(np.float32)
    w = rng.standard_normal((40, 30)).astype(np.float32)

    def f(u, v):
        h = F.relu(F.mul(u, 2.0))
        m = F.matmul(h, v)
        t = F.tanh(m)
        r = F.reshape(t, shape=(30, 50))
        return F.add(F.reduce_sum(F.mul(r, r), axis=1), 1.0), F.exp(h)
    g = graph_of(f, (x.shape, np.float32), (w.shape, np.float32))
    for sched in (per_node(g), optimized(g)):
        ref, _ = reference(g, [x, w])
        from codegen import compile_schedule
        cg = compile_schedule(sched)
        first, _ = cg([x, w])
        kept = [a.copy() for a in first]
        second, _ = cg([x * 2, w])
        for a, b, k in zip(first, ref, kept):
            np.testing.assert_allclose(k, b, rtol=2e-5, atol=1e-6)
            np.testing.assert_array_equal(a, k)  # the caller's arrays from call 1 are untouched
        ref2, _ = reference(g, [x * 2, w])
        for a, b in zip(second, ref2):
            np.testing.assert_allclose(a, b, rtol=2e-5, atol=1e-6)


def test_unfusable_kernel_falls_back_to_numpy(rng):
    """A 'fused' kernel that breaks the contract (an extern node inside) still runs correctly."""
    x = rng.standard_normal((4, 4)).astype(np.float32)
    g = graph_of(lambda u: F.relu(F.matmul(u, u)), (x.shape, np.float32))
    from graph.passes.schedule import Kernel, Schedule
    sched = Schedule(g, [Kernel("fused", list(g.nodes), [g.inputs[0]], [g.outputs[0]])])
    cg, (out, _) = compile_and_run(sched, [x])
    assert "numpy fallback" in cg.describe()
    np.testing.assert_allclose(out[0], np.maximum(x @ x, 0), rtol=1e-6)
