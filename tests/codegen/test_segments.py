"""Runs of compiled kernels executed as one native call (codegen/cpu/runner.py segments): results
equal the reference interpreter (the oracle) and the kernel-by-kernel run, with graph inputs that
are not contiguous, outputs that escape from the middle of a run, views of planned buffers between
kernels, and several calls in a row (reused buffers, fresh outputs)."""
import numpy as np

from codegen import compile_schedule
from codegen.cpu import blas
from graph.interpret import run as interpret
from graph.ops import F

from codegen_helpers import graph_of, optimized


def _mlp_like(x, w1, w2):
    h = F.tanh(F.add(F.mul(x, 0.5), 1.0))
    a = F.relu(F.matmul(h, w1))  # escapes (an output) from the middle of the run
    r = F.reshape(F.exp(F.neg(a)), shape=(2, 12))  # a view of a planned buffer
    y = F.matmul(r, w2)
    return F.reduce_sum(F.mul(y, y), axis=1), a


def _compiled():
    specs = [((6, 5), np.float32), ((5, 4), np.float32), ((12, 3), np.float32)]
    g = graph_of(_mlp_like, *specs)
    return g, compile_schedule(optimized(g))


def test_a_run_of_kernels_is_one_native_call_and_equals_the_interpreter():
    g, compiled = _compiled()
    text = compiled.describe()
    assert "view[numpy] reshape" in text, text
    if blas.interface() is not None:  # products run natively: the whole graph is one call
        assert "kernels in one native call" in text, text
        assert len(compiled.call_steps) == 1 < len(compiled.steps)  # the view is made once, too
    rng = np.random.default_rng(0)
    seen = []
    for _ in range(3):
        x = rng.standard_normal((5, 6)).astype(np.float32).T  # not contiguous: copied for the call
        w1 = rng.standard_normal((5, 4)).astype(np.float32)
        w2 = rng.standard_normal((12, 3)).astype(np.float32)
        want, _ = interpret(g, [x, w1, w2])
        got, _ = compiled([x, w1, w2])
        for a, b in zip(got, want):
            np.testing.assert_allclose(a, b, rtol=2e-5, atol=1e-6)
        record = {}
        stepwise, _ = compiled([x, w1, w2], record=record)  # the kernel-by-kernel run
        for a, b in zip(stepwise, got):
            np.testing.assert_array_equal(a, b)
        seen.append(got)
    # outputs handed out earlier are never overwritten by later calls
    assert not np.array_equal(seen[0][0], seen[1][0])
    np.testing.assert_allclose(seen[0][1], seen[0][1].copy())


def test_products_join_the_run_when_blas_is_callable():
    _, compiled = _compiled()
    natives = [line for line in compiled.describe().splitlines() if "native[llvm] matmul" in line]
    assert len(natives) == (2 if blas.interface() is not None else 0)


def test_kernels_split_over_the_pool_run_inside_a_segment(monkeypatch):
    """With every kernel big enough to split, the run is still one native call (the segment
    calls the pool's parallel-for), for any thread count, and equals the kernel-by-kernel run."""
    from codegen.cpu import threads
    monkeypatch.setattr(threads, "SPLIT_THRESHOLD", 1.0)
    g, compiled = _compiled()
    text = compiled.describe()
    assert "split  <- " in text and "kernels in one native call" in text, text
    rng = np.random.default_rng(1)
    x = rng.standard_normal((6, 5)).astype(np.float32)
    w1 = rng.standard_normal((5, 4)).astype(np.float32)
    w2 = rng.standard_normal((12, 3)).astype(np.float32)
    want, _ = interpret(g, [x, w1, w2])
    try:
        for n in (1, 3, 2):
            threads.set_num_threads(n)
            got, _ = compiled([x, w1, w2])
            stepwise, _ = compiled([x, w1, w2], record={})
            for a, b, c in zip(got, stepwise, want):
                np.testing.assert_array_equal(a, b)
                np.testing.assert_allclose(a, c, rtol=2e-5, atol=1e-6)
    finally:
        threads.set_num_threads(None)


def _recurrence(x, w):
    h = x
    for _ in range(4):  # an unrolled recurrence: the same cell kernels at every step
        h = F.tanh(F.add(F.matmul(h, w), x))
    return h


def test_identical_fused_kernels_are_compiled_once_and_each_call_gets_its_own_operands():
    g = graph_of(_recurrence, ((3, 5), np.float32), ((5, 5), np.float32))
    compiled = compile_schedule(optimized(g))
    fused = [line.split()[2] for line in compiled.describe().splitlines() if " fused[llvm] " in line]
    assert len(fused) == 4 and len(set(fused)) == 1, fused  # four steps, one compiled kernel
    rng = np.random.default_rng(1)
    for _ in range(2):
        x = rng.standard_normal((3, 5)).astype(np.float32)
        w = rng.standard_normal((5, 5)).astype(np.float32) * 0.5
        want, _ = interpret(g, [x, w])
        got, _ = compiled([x, w])
        np.testing.assert_allclose(got[0], want[0], rtol=2e-5, atol=1e-6)
