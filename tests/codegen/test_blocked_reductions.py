"""Reductions over the outer axis (a bias gradient: a column sum over the batch) big enough to
split are computed in fixed blocks of rows, each into its own partial row, combined in block
order by the part that finishes last (codegen/cpu/kernels.py: block_outer_reduction)."""
import numpy as np
import pytest

from codegen import compile_schedule
from codegen.cpu import kernels, threads
from graph.ops import F

from codegen_helpers import graph_of, optimized


def _relu_backward(g, out):
    masked = F.mul(g, F.cast(F.greater(out, 0.0), dtype=out.dtype))
    return masked, F.reduce_sum(masked, axis=(0,))


CASES = {
    "sum": (lambda x: F.reduce_sum(F.mul(x, 2.0), axis=(0,)), 1),
    "mean": (lambda x: F.reduce_mean(F.add(x, 1.0), axis=(0,)), 1),
    "max": (lambda x: F.reduce_max(F.abs(x), axis=(0,)), 1),
    "sum_keep_3d": (lambda x: F.reduce_sum(F.square(x), axis=(0,), keep_dims=True), 1),
}


def _compiled(fn, *shapes):
    g = graph_of(fn, *[(s, np.float32) for s in shapes])
    compiled = compile_schedule(optimized(g))
    return g, compiled


def _numpy(name, x):
    if name == "sum":
        return (x * 2).sum(axis=0)
    if name == "mean":
        return (x + 1).mean(axis=0)
    if name == "max":
        return np.abs(x).max(axis=0)
    return np.square(x).sum(axis=0, keepdims=True)


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("rows", [64, 1000, 1024, 4097])
def test_blocked_outer_reductions_equal_numpy_for_every_thread_count(name, rows, monkeypatch):
    monkeypatch.setattr(threads, "SPLIT_THRESHOLD", 1.0)
    monkeypatch.setattr(kernels, "BLOCKED_REDUCTION_WORK", 1.0)
    fn, _ = CASES[name]
    shape = (rows, 7, 5) if name == "sum_keep_3d" else (rows, 37)
    _, compiled = _compiled(fn, shape)
    assert "split" in compiled.describe(), compiled.describe()
    x = np.random.default_rng(rows).standard_normal(shape).astype(np.float32)
    want = _numpy(name, x.astype(np.float64))
    results = []
    try:
        for n in (1, 2, 3, 5):
            threads.set_num_threads(n)
            for _ in range(2):  # the counter is back at zero after every call
                results.append(compiled([x])[0][0])
    finally:
        threads.set_num_threads(None)
    for r in results:
        np.testing.assert_array_equal(r, results[0])  # the same sums for any number of parts
    np.testing.assert_allclose(results[0], want, rtol=2e-5, atol=2e-5 * np.abs(want).max())


def test_relu_backward_with_its_bias_gradient_splits_and_keeps_the_elementwise_output(monkeypatch):
    monkeypatch.setattr(threads, "SPLIT_THRESHOLD", 1.0)
    monkeypatch.setattr(kernels, "BLOCKED_REDUCTION_WORK", 1.0)
    g, compiled = _compiled(_relu_backward, (300, 40), (300, 40))
    rng = np.random.default_rng(0)
    grad, out = rng.standard_normal((2, 300, 40)).astype(np.float32)
    masked, bias_grad = compiled([grad, out])[0]
    want = grad * (out > 0)
    np.testing.assert_array_equal(masked, want)
    np.testing.assert_allclose(bias_grad, want.astype(np.float64).sum(axis=0), rtol=1e-5, atol=1e-5)


def test_small_or_fully_reduced_kernels_are_not_blocked():
    from codegen.fused_plan import plan_schedule
    for fn, shape in ((lambda x: F.reduce_sum(x, axis=(0,)), (40, 8)),  # under two blocks
                      (lambda x: F.reduce_sum(x), (4096, 8)),  # every axis reduced
                      (lambda x: F.reduce_sum(x, axis=(1,)), (4096, 8))):  # the outer axis kept
        g = graph_of(fn, (shape, np.float32))
        for plan in plan_schedule(optimized(g), "g").values():
            kernels.block_outer_reduction(plan)
            assert plan.row_block == 0 and plan.extra_args == ()


def test_a_forked_child_starts_its_blocked_kernels_with_no_block_counted(monkeypatch):
    """A fork while another thread is inside a blocked kernel copies a counter in mid-count; the
    child's compiled graphs reset it (graph/forksafe.py), so its first sum is whole."""
    from graph import forksafe
    monkeypatch.setattr(threads, "SPLIT_THRESHOLD", 1.0)
    monkeypatch.setattr(kernels, "BLOCKED_REDUCTION_WORK", 1.0)
    _, compiled = _compiled(CASES["sum"][0], (256, 37))
    x = np.random.default_rng(5).standard_normal((256, 37)).astype(np.float32)
    want = compiled([x])[0][0]
    assert compiled._block_counters
    for counter in compiled._block_counters:
        counter[0] = 3  # as if three blocks of a call in flight had finished
    forksafe.after_fork_in_child()  # what os.fork() runs in the child
    np.testing.assert_array_equal(compiled([x])[0][0], want)
