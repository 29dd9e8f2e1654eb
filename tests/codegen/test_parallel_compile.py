"""A graph with many kernels compiles as several modules (parts) on the compile threads
(codegen/cpu/parallel_compile.py): results equal the reference interpreter whether the parts
compile in parallel or one after another, parts call each other's kernels (the segments), each
part is cached and read back on its own key, a damaged part is recompiled, and the garbage
collector is back as it was once a compile is over."""
import gc

import numpy as np
import pytest

from codegen import compile_schedule
from codegen.cpu import compiler, diskcache, kernels, parallel_compile
from graph.interpret import run as interpret
from graph.ops import F

from codegen_helpers import graph_of, optimized


def _many_kernels(x, w):
    # products between elementwise chains: every chain is a fused kernel of its own, and the
    # products and chains run as segments (native runs calling kernels of other parts)
    for i in range(12):
        x = F.matmul(F.tanh(F.add(F.mul(x, 0.5 + 0.01 * i), 0.1)), w)
    return F.reduce_sum(F.exp(F.neg(F.abs(x))), axis=1), x


def _check(compiled, g, rng):
    x = rng.standard_normal((6, 8)).astype(np.float32)
    w = (rng.standard_normal((8, 8)) / 4).astype(np.float32)
    want, _ = interpret(g, [x, w])
    got, _ = compiled([x, w])
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=3e-5, atol=1e-6)


@pytest.fixture
def in_parts(monkeypatch, tmp_path):
    """Parts of 2 kernels; a cache directory of the test's own; parts recorded as they compile."""
    monkeypatch.setattr(kernels, "KERNELS_PER_PART", 2)
    monkeypatch.setenv("MSJIT_CACHE_DIR", str(tmp_path))
    calls = []
    real = compiler.build_parts

    def spy(description, make_parts, n_parts, speed_level=3):
        calls.append(n_parts)
        return real(description, make_parts, n_parts, speed_level)
    monkeypatch.setattr(compiler, "build_parts", spy)
    return calls


def _graph(name):
    return graph_of(_many_kernels, ((6, 8), np.float32), ((8, 8), np.float32), name=name)


@pytest.mark.parametrize("threads", [1, 2, 4])
def test_a_graph_compiled_in_parts_equals_the_interpreter(in_parts, monkeypatch, threads):
    monkeypatch.setattr(parallel_compile, "workers", lambda: threads)
    g = _graph(f"parts_{threads}")
    compiled = compile_schedule(optimized(g))
    assert in_parts and in_parts[-1] > 2, in_parts
    _check(compiled, g, np.random.default_rng(threads))
    assert gc.isenabled()


def test_parts_compile_one_after_another_where_llvmlites_lock_is_unknown(in_parts, monkeypatch):
    monkeypatch.setattr(parallel_compile, "_install", lambda: False)
    monkeypatch.setattr(parallel_compile, "workers", lambda: 4)
    g = _graph("parts_serial")
    _check(compile_schedule(optimized(g)), g, np.random.default_rng(1))


def test_each_part_is_cached_and_a_damaged_part_is_recompiled(in_parts, tmp_path):
    g = _graph("parts_cached")
    _check(compile_schedule(optimized(g)), g, np.random.default_rng(2))
    files = sorted(tmp_path.rglob("*.o"))
    assert len(files) >= in_parts[-1] > 2
    hits = compiler.STATS["cache_hits"]
    _check(compile_schedule(optimized(g)), g, np.random.default_rng(3))
    assert compiler.STATS["cache_hits"] == hits + 1  # every part read back: no IR built
    victim = max(files, key=lambda p: p.stat().st_size)
    data = bytearray(victim.read_bytes())
    data[len(data) // 2] ^= 0xFF
    victim.write_bytes(bytes(data))
    compiled = compiler.STATS["compiled"]
    _check(compile_schedule(optimized(g)), g, np.random.default_rng(4))
    assert compiler.STATS["compiled"] == compiled + 1
    assert diskcache.unwrap(victim.stem, victim.read_bytes()) is not None  # rewritten whole


def test_a_failing_part_raises_and_leaves_the_collector_enabled(monkeypatch):
    monkeypatch.setattr(parallel_compile, "workers", lambda: 2)
    with pytest.raises(RuntimeError):
        with parallel_compile.PartCompiler(parts=2) as parts:
            parts.submit("this is not LLVM IR")
            good = parts.submit(str(compiler.new_module("ok")))
        parts.futures[0].result()
    assert good.result()
    assert gc.isenabled()


def test_parts_keep_kernels_that_share_a_name_together():
    class Plan:
        def __init__(self, name):
            self.name = name
    plans = [Plan(f"k{i % 7}") for i in range(300)]
    groups = kernels.part_groups(plans)
    assert sum(map(len, groups)) == 300
    homes = {}
    for i, group in enumerate(groups):
        for p in group:
            assert homes.setdefault(p.name, i) == i
