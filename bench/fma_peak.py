"""The cores' float32 arithmetic peak, measured: the ceiling over the sgemm roofline.

The bench's roofline is the sgemm rate of numpy's BLAS measured in the same run, which is what a
step made of products can reach with the libraries at hand. This module measures what the
hardware itself does: a generated loop of independent fused multiply-adds on vectors as wide as
the host's widest (LLVM splits them where registers are narrower), run on every core this
process may use at once. A product can at best approach it; OpenBLAS and MKL reach ~86% of it
on one Zen4 core (99-101 of 116.7 GFLOP/s, 1024^3), so a step made of products cannot run faster
than its FLOPs at that rate.

Example:
    >>> measured_gflops(threads=1, seconds=0.02) > 0.1
    True
"""
from __future__ import annotations

import ctypes
import functools
import os
import threading
import time

#: vector lanes per multiply-add (float32) and independent accumulators: enough chains to cover
#: the FMA units' latency x throughput (4 cycles x 2 units on current x86 cores) many times over
LANES = 16
CHAINS = 12


def _ir() -> str:
    vec = f"<{LANES} x float>"
    splat = ", ".join(["float 1.0"] * LANES)
    tiny = ", ".join(["float 0x3E80000000000000"] * LANES)  # 2^-23: no overflow, no denormals
    lines = [f"declare {vec} @llvm.fma.v{LANES}f32({vec}, {vec}, {vec})",
             "define float @fma_loop(i64 %n) {", "entry:", "  br label %loop", "loop:",
             "  %i = phi i64 [0, %entry], [%next, %loop]"]
    lines += [f"  %acc{c} = phi {vec} [zeroinitializer, %entry], [%out{c}, %loop]" for c in range(CHAINS)]
    lines += [f"  %out{c} = call {vec} @llvm.fma.v{LANES}f32({vec} %acc{c}, {vec} <{splat}>, {vec} <{tiny}>)"
              for c in range(CHAINS)]
    lines += ["  %next = add i64 %i, 1", "  %more = icmp slt i64 %next, %n", "  br i1 %more, label %loop, label %done",
              "done:"]
    # every chain feeds the result, so none is dead code
    lines += [f"  %lane{c} = extractelement {vec} %out{c}, i32 0" for c in range(CHAINS)]
    total = "%lane0"
    for c in range(1, CHAINS):
        lines.append(f"  %sum{c} = fadd float {total}, %lane{c}")
        total = f"%sum{c}"
    return "\n".join(lines + [f"  ret float {total}", "}"])


@functools.lru_cache(maxsize=None)
def _loop():
    import llvmlite.binding as llvm
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    target = llvm.Target.from_default_triple()
    machine = target.create_target_machine(cpu=llvm.get_host_cpu_name(), features=llvm.get_host_cpu_features().flatten(),
                                           opt=3)
    module = llvm.parse_assembly(_ir())
    engine = llvm.create_mcjit_compiler(module, machine)
    engine.finalize_object()
    fn = ctypes.CFUNCTYPE(ctypes.c_float, ctypes.c_int64)(engine.get_function_address("fma_loop"))
    return engine, fn  # the engine owns the code: keep it alive with the function


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def measured_gflops(threads: int | None = None, seconds: float = 0.2, rounds: int = 5) -> float:
    """float32 GFLOP/s of ``threads`` (default: every core this process may use) running the
    multiply-add loop at once (ctypes releases the GIL): the best of ``rounds`` rounds sharing
    ``seconds`` (a peak: a round another process interrupted is not the hardware's rate)."""
    _, fn = _loop()
    threads = threads or _cores()
    flops_per_iteration = 2 * LANES * CHAINS
    fn(1000)
    t0 = time.perf_counter()
    fn(100_000)
    per_iteration = max((time.perf_counter() - t0) / 100_000, 1e-12)
    n = max(1000, int(seconds / rounds / per_iteration))
    best = 0.0
    for _ in range(rounds):
        workers = [threading.Thread(target=fn, args=(n,)) for _ in range(threads)]
        t0 = time.perf_counter()
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        best = max(best, threads * n * flops_per_iteration / (time.perf_counter() - t0) / 1e9)
    return best
