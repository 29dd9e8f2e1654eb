"""The memory compiled graphs keep their intermediates in (codegen/cpu/arena.py): allocated when
a graph runs, shared by the graphs of one group (under capture: one code object's entries),
shrunk and released as graphs die, bounded in total; results equal the reference interpreter."""
import gc
import threading

import numpy as np
import pytest

import capture
import runtime as ms
from capture.cache import cache_for
from codegen import compile_schedule
from codegen.cpu import arena as arenas
from graph.ops import F
from runtime import Tensor, nn, ops

from codegen_helpers import graph_of, optimized, reference


def _chain(n, width):
    """A graph whose intermediates need planned buffers: a product, then elementwise work read
    twice (so it is stored), reduced."""
    def fn(x, w):
        h = F.matmul(x, w)
        a = F.tanh(F.mul(h, 0.5))
        return F.add(F.reduce_sum(F.mul(a, a)), F.reduce_sum(F.exp(a)))
    return graph_of(fn, ((n, width), np.float32), ((width, width), np.float32), name=f"chain{n}")


def _inputs(n, width, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.normal(size=(n, width)).astype(np.float32), rng.normal(size=(width, width)).astype(np.float32) * 0.1]


def _run(cg, g, arrays):
    outs, _ = cg(arrays)
    want = reference(g, arrays)[0]
    for o, w in zip(outs, want):
        np.testing.assert_allclose(o, w, rtol=1e-4, atol=1e-4)


def test_a_graph_allocates_its_arena_when_it_runs_not_when_it_is_compiled():
    g = _chain(64, 32)
    arena = arenas.Arena()
    cg = compile_schedule(optimized(g), arena=arena)
    assert cg.arena_bytes > 0 and arena.nbytes == 0
    _run(cg, g, _inputs(64, 32))
    assert arena.nbytes >= cg.arena_bytes


def test_graphs_of_one_arena_share_its_memory_and_results_stay_right():
    arena = arenas.Arena()
    graphs = [(_chain(n, 32), n) for n in (16, 64, 32, 128, 8)]
    compiled = [(compile_schedule(optimized(g), arena=arena), g, n) for g, n in graphs]
    for _ in range(2):  # interleaved: each runs in the memory the others used
        for cg, g, n in compiled:
            _run(cg, g, _inputs(n, 32, seed=n))
    assert arena.nbytes == max(cg.arena_bytes for cg, _, _ in compiled)


def test_graphs_of_one_arena_recycle_returned_arrays_through_shared_pools():
    """A returned value whose shape does not depend on the batch (a column sum: a gradient's
    shape) is recycled across the graphs of an arena: the second graph returns the array the
    first one returned and the caller dropped, instead of keeping a pool of its own."""
    def fn(x, w):
        return F.reduce_sum(F.tanh(F.matmul(x, w)), axis=0)
    arena = arenas.Arena()
    graphs = [graph_of(fn, ((n, 16), np.float32), ((16, 16), np.float32), name=f"colsum{n}") for n in (8, 24)]
    compiled = [compile_schedule(optimized(g), arena=arena) for g in graphs]
    addresses = []
    for cg, g, n in zip(compiled, graphs, (8, 24)):
        arrays = _inputs(n, 16, seed=n)
        out = cg(arrays)[0][0]
        np.testing.assert_allclose(out, reference(g, arrays)[0][0], rtol=1e-4, atol=1e-4)
        addresses.append(out.ctypes.data)
        del out
    assert addresses[0] == addresses[1]


def test_a_repeated_call_allocates_nothing():
    arena = arenas.Arena()
    g = _chain(32, 16)
    cg = compile_schedule(optimized(g), arena=arena)
    arrays = _inputs(32, 16)
    _run(cg, g, arrays)
    generation, block = arena.generation, arena.array
    for _ in range(20):
        cg(arrays)
    assert arena.generation == generation and arena.array is block


def test_the_arena_shrinks_when_its_biggest_graph_dies_and_is_released_with_the_last():
    arena = arenas.Arena()
    small_g, big_g = _chain(8, 32), _chain(512, 32)
    small = compile_schedule(optimized(small_g), arena=arena)
    big = compile_schedule(optimized(big_g), arena=arena)
    _run(big, big_g, _inputs(512, 32))
    _run(small, small_g, _inputs(8, 32))
    assert arena.nbytes == big.arena_bytes
    del big
    gc.collect()
    _run(small, small_g, _inputs(8, 32, seed=1))  # (shrinks at the latest on the next call)
    assert arena.nbytes == small.arena_bytes
    del small
    gc.collect()
    assert arena.array is None


def test_arenas_are_bounded_in_total(monkeypatch):
    monkeypatch.setattr(arenas, "LIMIT", 1)  # every allocation gives back the other arenas' memory
    specs = [(_chain(n, 32), n) for n in (64, 128, 96)]
    compiled = [(compile_schedule(optimized(g)), g, n) for g, n in specs]  # (each its own arena)
    for _ in range(3):
        for cg, g, n in compiled:
            _run(cg, g, _inputs(n, 32, seed=n))
            assert arenas.held_bytes() == cg.arena_bytes  # only the graph that ran holds memory


def test_threads_running_graphs_of_one_arena_do_not_share_it_at_once():
    arena = arenas.Arena()
    specs = [(_chain(n, 64), n) for n in (256, 192)]
    compiled = [(compile_schedule(optimized(g), arena=arena), g, n) for g, n in specs]
    errors = []

    def worker(cg, g, n):
        try:
            arrays = _inputs(n, 64, seed=n)
            want = reference(g, arrays)[0][0]
            for _ in range(30):
                np.testing.assert_allclose(cg(arrays)[0][0], want, rtol=1e-4, atol=1e-4)
        except BaseException as e:  # reported below
            errors.append(e)
    threads = [threading.Thread(target=worker, args=c) for c in compiled]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert not any(t.is_alive() for t in threads) and not errors, errors


class _MLP(nn.Cell):
    def __init__(self):
        super().__init__()
        self.l1, self.l2 = nn.Dense(64, 256), nn.Dense(256, 10)

    def construct(self, x):
        return self.l2(ops.relu(self.l1(x)))


@pytest.mark.parametrize("dynamic", [False, True], ids=["an entry per size", "one shape-generic entry"])
def test_the_batch_sizes_of_one_construct_hold_the_memory_of_the_biggest_not_the_sum(dynamic, monkeypatch):
    from capture import dynamic as dynamic_shapes
    monkeypatch.setattr(dynamic_shapes, "ENABLED", dynamic)
    ms.set_seed(0)
    net = _MLP()
    rng = np.random.default_rng(0)
    batches = [rng.normal(size=(b, 64)).astype(np.float32) for b in (32, 64, 96, 128, 160, 192, 224, 256)]
    want = [net(Tensor(x)).asnumpy() for x in batches]  # PyNative
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        # (a shape-generic entry compiles a size once it has run TIER_UP_CALLS times)
        for _ in range(dynamic_shapes.TIER_UP_CALLS if dynamic else 2):
            for x, w in zip(batches, want):
                np.testing.assert_allclose(net(Tensor(x)).asnumpy(), w, rtol=1e-4, atol=1e-5)
        entries = cache_for(type(net).construct.__code__).entries
        if dynamic:  # the sizes' graphs of the one generic entry
            assert [e.dynamic is not None for e in entries] == [True]
            entries = list(entries[0].dynamic.instances.values())
        runners = [e.runner for e in entries if e.runner is not None]
        assert len(runners) >= 2
        sizes = [r.arena_bytes for r in runners]
        assert arenas.held_bytes() == max(sizes) < sum(sizes)
        del runners, entries
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    capture.reset()
    gc.collect()
    assert arenas.held_bytes() == 0, "capture.reset() left arena memory behind"


@pytest.fixture(autouse=True)
def _no_arena_left():
    capture.reset()
    gc.collect()
    yield
    capture.reset()
    gc.collect()
