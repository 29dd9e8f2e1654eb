"""codegen/cpu benchmarks: the fused chain tanh(x*a+b)*c+exp(-x) (ours vs numpy vs a plain copy,
n = 1e3..1e7), a fused row reduction, and first-call compile time with a cold and a warm disk cache.

Run: ``python -m pytest bench/test_bench_codegen.py -q --benchmark-columns=median,ops``; compare
the groups' medians (ratios come from the same run).
"""
import os
import subprocess
import sys
import tempfile
import textwrap

import numpy as np
import pytest

from graph.aval import AVal
from graph.dtypes import float32
from graph.ir import Graph
from graph.ops import F
from graph.passes.schedule import Kernel, Schedule

SIZES = [10**3, 10**4, 10**5, 10**6, 10**7]
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _chain_graph(n):
    g = Graph(f"chain{n}")
    x = g.add_input(AVal((n,), float32), "x")
    g.set_outputs([F.add(F.mul(F.tanh(F.add(F.mul(x, 1.5), 0.3)), 0.7), F.exp(F.neg(x)))])
    return g


def _compiled(g):
    from codegen import compile_schedule
    red = g.nodes[-1] if g.nodes[-1].op.kind == "reduction" else None
    return compile_schedule(Schedule(g, [Kernel("fused", list(g.nodes), list(g.inputs), list(g.outputs), reduce=red)]))


@pytest.mark.parametrize("n", SIZES)
def test_chain_ours(benchmark, n):
    benchmark.group = f"chain n={n:.0e}"
    x = np.random.default_rng(0).standard_normal(n).astype(np.float32)
    run = _compiled(_chain_graph(n))
    run([x])
    benchmark(run, [x])


@pytest.mark.parametrize("n", SIZES)
def test_chain_numpy(benchmark, n):
    benchmark.group = f"chain n={n:.0e}"
    x = np.random.default_rng(0).standard_normal(n).astype(np.float32)
    f = np.float32
    benchmark(lambda: np.tanh(x * f(1.5) + f(0.3)) * f(0.7) + np.exp(-x))


@pytest.mark.parametrize("n", SIZES)
def test_copy_bandwidth(benchmark, n):
    benchmark.group = f"chain n={n:.0e}"
    x = np.random.default_rng(0).standard_normal(n).astype(np.float32)
    y = np.empty_like(x)
    benchmark(np.copyto, y, x)


def _rowsum_graph():
    g = Graph("rowsum")
    x = g.add_input(AVal((256, 4096), float32), "x")
    b = g.add_input(AVal((4096,), float32), "b")
    g.set_outputs([F.reduce_sum(F.relu(F.add(x, b)), axis=1)])
    return g


def test_rowsum_ours(benchmark):
    benchmark.group = "row sum of relu(x+b) (256,4096)"
    rng = np.random.default_rng(0)
    x, b = rng.standard_normal((256, 4096)).astype(np.float32), rng.standard_normal(4096).astype(np.float32)
    run = _compiled(_rowsum_graph())
    benchmark(run, [x, b])


def test_rowsum_numpy(benchmark):
    benchmark.group = "row sum of relu(x+b) (256,4096)"
    rng = np.random.default_rng(0)
    x, b = rng.standard_normal((256, 4096)).astype(np.float32), rng.standard_normal(4096).astype(np.float32)
    benchmark(lambda: np.maximum(x + b, 0).sum(axis=1))


_COMPILE = textwrap.dedent("""
    import sys, time
    sys.path.insert(0, {root!r})
    import numpy as np
    import llvmlite.binding  # import cost is not compile cost
    from bench.test_bench_codegen import _chain_graph, _rowsum_graph, _compiled
    g1, g2 = _chain_graph(1000), _rowsum_graph()
    t = time.perf_counter()
    _compiled(g1); _compiled(g2)
    print(time.perf_counter() - t)
""")


@pytest.mark.parametrize("cache", ["cold", "warm"])
def test_first_call_compile_time(benchmark, cache):
    """Compile two kernels in a fresh process: empty cache dir (cold) vs populated (warm)."""
    benchmark.group = "first-call compile (2 kernels, fresh process)"
    d = tempfile.mkdtemp(prefix="msjit-bench-")
    env = dict(os.environ, MSJIT_CACHE_DIR=d)
    code = _COMPILE.format(root=ROOT)

    def once():
        if cache == "cold":
            for dp, _, fs in os.walk(d):
                for f in fs:
                    os.unlink(os.path.join(dp, f))
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
        return float(out.stdout.strip().splitlines()[-1])
    once()
    secs = []
    benchmark.pedantic(lambda: secs.append(once()), rounds=5, iterations=1)
    benchmark.extra_info["in_process_compile_ms"] = 1e3 * float(np.median(secs))
    print(f"\n{cache}: in-process compile {1e3 * np.median(secs):.1f} ms")
