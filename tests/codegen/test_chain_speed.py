"""The elementwise chain tanh(x*a+b)*c+exp(-x) at n=1e6: correctness, and the speed ratio against
numpy printed (never asserted: timings live in bench/test_bench_codegen.py)."""
import time

import numpy as np

from codegen_helpers import compile_and_run, graph_of, one_kernel
from graph.ops import F


def test_chain_1e6_prints_ratio_vs_numpy(rng):
    n = 1_000_000
    x = rng.standard_normal(n).astype(np.float32)
    g = graph_of(lambda u: F.add(F.mul(F.tanh(F.add(F.mul(u, 1.5), 0.3)), 0.7), F.exp(F.neg(u))),
                 ((n,), np.float32))
    cg, (out, _) = compile_and_run(one_kernel(g), [x])
    f = np.float32

    def np_chain():
        return np.tanh(x * f(1.5) + f(0.3)) * f(0.7) + np.exp(-x)
    np.testing.assert_allclose(out[0], np_chain(), rtol=2e-6, atol=1e-7)

    def best(fn, k=5):
        ts = []
        for _ in range(k):
            t = time.perf_counter()
            fn()
            ts.append(time.perf_counter() - t)
        return min(ts)
    t_ours, t_np = best(lambda: cg([x])), best(np_chain)
    print(f"\nchain n=1e6: ours {t_ours * 1e6:.0f} us, numpy {t_np * 1e6:.0f} us, "
          f"speed-up {t_np / t_ours:.2f}x")
