"""Matrix products inside compiled code (codegen/cpu/native/gemm.py, codegen/cpu/blas.py): split
over the kernel thread pool (batch matrices, or row/column blocks of C) with BLAS running
single-threaded for the length of a compiled call, and numpy's own BLAS threads untouched outside
it. Oracles: numpy/einsum for the values, the one-thread run for independence of the thread
count (every element is summed in the same order whatever the number of parts), threadpoolctl for
the BLAS setting seen from inside and outside a call."""
import ctypes
import threading

import numpy as np
import pytest

from codegen import compile_schedule
from codegen.cpu import blas, threads
from codegen.cpu import native
from codegen.cpu.native import gemm
from graph.ops import F

from codegen_helpers import graph_of, per_node

pytestmark = pytest.mark.skipif(blas.interface() is None,
                                reason="numpy is not linked against an OpenBLAS this machine exposes "
                                       "(products run as np.matmul steps)")

SPLIT_CASES = [  # (a shape, b shape, transpose_a, transpose_b, summed over the batch, expected split)
    ((70, 33), (33, 21), False, False, False, "rows"),  # 5 row blocks of C
    ((33, 20), (33, 90), True, False, False, "cols"),  # C wider than tall: column blocks
    ((40, 9), (50, 9), False, True, False, "cols"),  # A @ B^T with m < n: computed as C^T, transposed
    ((32, 78), (256, 78), False, True, False, "cols"),  # an MLP layer at batch 32
    ((20, 9), (50, 20), True, True, False, "cols"),  # transposed A: not swapped
    ((5, 40, 9), (5, 9, 18), False, False, False, "batch"),  # a batch of results: whole matrices
    ((7, 6, 13), (7, 70, 13), False, True, True, "cols"),  # a filter gradient summed over 7: one batch block
    # summed over blocks of 8 matrices into partials (the filter gradient: computed as C^T when m < n)
    ((9, 6, 50), (9, 6, 8), True, False, True, "batch_blocks"),
    ((40, 6, 13), (40, 70, 13), False, True, True, "batch_blocks"),
    ((33, 13, 6), (33, 13, 70), True, False, True, "batch_blocks"),
    ((20, 5, 7), (20, 7, 9), False, False, True, "batch_blocks"),
    ((17, 9, 4), (17, 5, 9), True, True, True, "batch_blocks"),
    ((130, 400, 1), (130, 1, 400), False, False, True, "rows"),  # partials over MAX_PARTIAL_BYTES
]


def _product(ta, tb, summed):
    def build(x, y):
        c = F.matmul(x, y, transpose_a=ta, transpose_b=tb)
        return F.reduce_sum(c, axis=0) if summed else c
    return build


def _oracle(a, b, ta, tb, summed):
    c = np.matmul(np.swapaxes(a, -1, -2) if ta else a, np.swapaxes(b, -1, -2) if tb else b)
    return c.sum(axis=0) if summed else c


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", SPLIT_CASES)
def test_split_products_equal_numpy_and_do_not_depend_on_the_thread_count(case, dtype, monkeypatch):
    sa, sb, ta, tb, summed, split = case
    m = sa[-1] if ta else sa[-2]
    n = sb[-2] if tb else sb[-1]
    batch = sa[0] if len(sa) == 3 else 1
    assert gemm.split_of(m, n, batch, summed, np.dtype(dtype).itemsize, ta, tb)[0] == split
    monkeypatch.setattr(threads, "SPLIT_THRESHOLD", 1.0)  # split even these small products
    rng = np.random.default_rng(8)
    a, b = rng.standard_normal(sa).astype(dtype), rng.standard_normal(sb).astype(dtype)
    g = graph_of(_product(ta, tb, summed), (a.shape, a.dtype), (b.shape, b.dtype))
    compiled = compile_schedule(per_node(g))
    assert "native[llvm] matmul" in compiled.describe() and "split" in compiled.describe(), compiled.describe()
    want = _oracle(a, b, ta, tb, summed)
    results = {}
    try:
        for n_threads in (1, 2, 3, 8):
            threads.set_num_threads(n_threads)
            for _ in range(2):  # a summed product overwrites its reused output first, then adds
                results[n_threads] = compiled([a, b])[0][0]
    finally:
        threads.set_num_threads(None)
    np.testing.assert_allclose(results[1], want, rtol=1e-5 if dtype == np.float32 else 1e-12, atol=1e-5)
    for n_threads, got in results.items():
        np.testing.assert_array_equal(got, results[1], err_msg=f"{n_threads} threads")


K_SPLIT_CASES = [  # (a shape, b shape, transpose_a, transpose_b): a long inner dimension, cut into chunks
    ((6, 4096), (13, 4096), False, True),  # a filter gradient over the batch's columns (m < n: C^T partials)
    ((13, 4096), (6, 4096), False, True),  # m > n: partials as C
    ((4096, 7), (4096, 9), True, False),
    ((5, 3072), (3072, 11), False, False),  # 3 chunks of 1024
    ((3072, 5), (11, 3072), True, True),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", K_SPLIT_CASES)
def test_products_cut_along_the_inner_dimension_equal_numpy_for_any_thread_count(case, dtype, monkeypatch):
    sa, sb, ta, tb = case
    m, k = (sa[1], sa[0]) if ta else sa
    n = sb[0] if tb else sb[1]
    chunks = gemm.k_chunks_of(m, n, k, 1, np.dtype(dtype).itemsize)
    assert chunks >= 2 and k % chunks == 0
    monkeypatch.setattr(threads, "SPLIT_THRESHOLD", 1.0)
    rng = np.random.default_rng(9)
    a, b = rng.standard_normal(sa).astype(dtype), rng.standard_normal(sb).astype(dtype)
    g = graph_of(_product(ta, tb, False), (a.shape, a.dtype), (b.shape, b.dtype))
    compiled = compile_schedule(per_node(g))
    assert "native[llvm] matmul" in compiled.describe() and "split" in compiled.describe(), compiled.describe()
    want = _oracle(a, b, ta, tb, False)
    results = {}
    try:
        for n_threads in (1, 2, 3, 8):
            threads.set_num_threads(n_threads)
            for _ in range(2):  # the partials and the block counter are reused by the next call
                results[n_threads] = compiled([a, b])[0][0]
    finally:
        threads.set_num_threads(None)
    np.testing.assert_allclose(results[1], want, rtol=1e-4 if dtype == np.float32 else 1e-12, atol=1e-4)
    for n_threads, got in results.items():
        np.testing.assert_array_equal(got, results[1], err_msg=f"{n_threads} threads")


def test_only_long_inner_dimensions_are_cut():
    assert gemm.k_chunks_of(64, 576, 32768, 1, 4) == gemm.K_CHUNKS  # ResNet's first filter gradient
    assert gemm.k_chunks_of(256, 2304, 2048, 1, 4) == 0  # k shorter than K_SPLIT_RATIO x C's side
    assert gemm.k_chunks_of(128, 1152, 8192, 1, 4) == 0
    assert gemm.k_chunks_of(64, 576, 32768, 2, 4) == 0  # a batch of products: split over it instead
    assert gemm.k_chunks_of(4, 4, 1000, 1, 4) == 0  # under two chunks of K_CHUNK_MIN
    assert gemm.k_chunks_of(4, 4, 2049, 1, 4) == 0  # no chunk count divides it


def _blas_threads():
    """Thread counts of the BLAS generated code calls (numpy's; scipy or torch may bring others)."""
    from threadpoolctl import threadpool_info
    return [i["num_threads"] for i in threadpool_info() if i["filepath"] == blas.interface().library]


def test_blas_is_single_threaded_inside_a_compiled_call_and_keeps_its_threads_outside(monkeypatch):
    """A product with a native kernel and a partially broadcast one (an np.matmul step, whose
    call reports the BLAS setting while the compiled call runs)."""
    from threadpoolctl import threadpool_limits
    seen = []
    real_matmul = np.matmul

    def spy(*args, **kwargs):
        seen.append(_blas_threads())
        return real_matmul(*args, **kwargs)

    a, b = np.ones((2, 1, 3, 4), np.float32), np.ones((2, 5, 4, 2), np.float32)
    w = np.ones((3, 2), np.float32)
    g = graph_of(lambda x, y, v: (F.matmul(x, y), F.matmul(v, F.reshape(x, shape=(2, 12)))),
                 (a.shape, a.dtype), (b.shape, b.dtype), (w.shape, w.dtype))
    compiled = compile_schedule(per_node(g))
    assert "native[llvm] matmul" in compiled.describe(), compiled.describe()
    with threadpool_limits(limits=3, user_api="blas"):
        monkeypatch.setattr(np, "matmul", spy)
        outs, _ = compiled([a, b, w])
        monkeypatch.setattr(np, "matmul", real_matmul)
        assert seen and all(n == [1] for n in seen), seen
        assert _blas_threads() == [3]  # numpy's products outside compiled code keep their threads
    np.testing.assert_array_equal(outs[0], np.matmul(a, b))
    np.testing.assert_array_equal(outs[1], w @ a.reshape(2, 12))


def test_the_single_thread_region_is_reentrant_and_shared_by_threads():
    from threadpoolctl import threadpool_limits
    region = threads.pool().call_region(threads.CALL_BLAS)
    inside, release = threading.Event(), threading.Event()

    def other_call():
        with region:
            inside.set()
            release.wait(10)

    with threadpool_limits(limits=2, user_api="blas"):
        t = threading.Thread(target=other_call)
        t.start()
        assert inside.wait(10)
        with region:  # a second call starts while the first runs, and ends first
            with region:
                assert _blas_threads() == [1]
            assert _blas_threads() == [1]
        assert _blas_threads() == [1]  # the other call still runs
        release.set()
        t.join(10)
        assert _blas_threads() == [2]


def test_a_forked_child_gets_the_blas_threads_back_that_a_running_call_had_set_aside():
    calls = []
    state = {"n": 4}

    def get():
        return state["n"]

    def set_(n):
        calls.append(n)
        state["n"] = n

    pool = threads.pool()
    real = pool.blas_switch
    switch = (ctypes.CFUNCTYPE(ctypes.c_int)(get), ctypes.CFUNCTYPE(None, ctypes.c_int)(set_))
    pool.configure_blas(switch)
    try:
        region = pool.call_region(threads.CALL_BLAS)
        region.__enter__()  # a call running in another thread of the parent at fork time
        assert state["n"] == 1
        pool._region_after_fork()  # what the child runs after the fork
        with region:
            assert state["n"] == 1
        assert state["n"] == 4 and calls == [1, 1, 4]
        region.__exit__(None, None, None)  # (the parent's call, ending after the hooks ran: no change)
        assert state["n"] == 4 and calls == [1, 1, 4]
    finally:
        pool.configure_blas(real if real is not None else blas.thread_switch())


FOLD_CASES = [  # (a shape, b shape, transpose_a, transpose_b, folded into one product of the stacked rows)
    ((5, 40, 9), (9, 18), False, False, True),
    ((35, 32, 64), (512, 64), False, True, True),  # an RNN's input projection of every time step
    ((3, 2, 7, 5), (5, 6), False, False, True),  # two batch axes
    ((6, 9, 40), (9, 18), True, False, False),  # transposed A: its rows are not contiguous
    ((5, 40, 9), (5, 9, 18), False, False, False),  # a batch of B matrices
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", FOLD_CASES)
def test_a_batch_sharing_one_b_matrix_is_one_product_of_the_stacked_rows(case, dtype, monkeypatch):
    sa, sb, ta, tb, folded = case
    monkeypatch.setattr(threads, "SPLIT_THRESHOLD", 1.0)
    rng = np.random.default_rng(9)
    a, b = rng.standard_normal(sa).astype(dtype), rng.standard_normal(sb).astype(dtype)
    g = graph_of(_product(ta, tb, False), (a.shape, a.dtype), (b.shape, b.dtype))
    compiled = compile_schedule(per_node(g))
    plan = native.plan_native(g.nodes[0], "probe")
    assert plan.geometry.get("folded", False) == folded
    if folded:
        m = int(np.prod(sa[:-1]))
        assert plan.geometry["batch"] == 1 and plan.geometry["m"] == m
    want = np.matmul(np.swapaxes(a, -1, -2) if ta else a, np.swapaxes(b, -1, -2) if tb else b)
    results = {}
    try:
        for n_threads in (1, 3):
            threads.set_num_threads(n_threads)
            results[n_threads] = compiled([a, b])[0][0]
    finally:
        threads.set_num_threads(None)
    assert results[1].shape == want.shape
    np.testing.assert_allclose(results[1], want, rtol=1e-5 if dtype == np.float32 else 1e-12, atol=1e-5)
    np.testing.assert_array_equal(results[3], results[1])
