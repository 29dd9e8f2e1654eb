"""One framework's train step in a process of its own, timed in blocks on request (the columns of
``python -m bench``'s training rows; see ``interleaved_ms`` there).

``python bench/step_worker.py COLUMN MODEL BATCH [BACKEND]`` builds the step of ``COLUMN``
(``ours_pynative_ms``, ``ours_graph_ms``, ``ours_jit_step_ms``, ``jax_jit_ms``,
``torch_eager_ms``, ``torch_compile_ms``), warms it up and prints ``ready <ms per call>``; then
each line ``run CALLS UNTIMED`` on stdin runs ``UNTIMED`` calls, times ``CALLS`` calls and prints
the milliseconds per call; ``quit`` (or end of input) ends it. A step that cannot be built prints
``error <why>`` and exits.

Each framework is imported only in its own worker, so no framework's threads (XLA's keep waking
for seconds after JAX's last call, OpenMP's spin) share a process with another's, and the
coordinator stops every worker but the one it is timing.
"""
from __future__ import annotations

import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

WARMUP = {"jax_jit_ms": 5, "torch_compile_ms": 5}


def build(column, model, batch, backend):
    """(step, args) of ``column``."""
    import models
    if column.startswith("ours"):
        import runtime as ms
        if os.environ.get("BENCH_THREADS"):
            ms.set_context(num_threads=int(os.environ["BENCH_THREADS"]))
        if backend:
            os.environ["CAPTURE_BACKEND"] = backend
        if column == "ours_graph_ms":
            ms.set_context(mode=ms.GRAPH_MODE)
        if column == "ours_jit_step_ms":
            return models.ours_jit_train_step(model, batch, backend)
        return models.ours_train_step(model, batch)
    if column == "jax_jit_ms":
        return models.jax_train_step(model, batch)
    return models.torch_train_step(model, batch, compiled=column == "torch_compile_ms")


def block(step, args, calls, untimed):
    for _ in range(untimed):
        step(*args)
    t0 = time.perf_counter()
    for _ in range(calls):
        step(*args)
    return (time.perf_counter() - t0) / calls * 1e3


def pin_cores(n: int) -> None:
    """Run on ``n`` of the CPUs this process may use. Thread-count settings alone do not hold
    every framework to ``n`` cores: XLA's CPU runtime ignores ``--xla_cpu_multi_thread_eigen``
    and its old ``intra_op_parallelism_threads`` (JAX's "1-thread" MLP b1024 step ran at 173
    GFLOP/s, more than one core's peak), so the table of one thread is one core, for everyone."""
    if hasattr(os, "sched_setaffinity"):
        allowed = sorted(os.sched_getaffinity(0))
        os.sched_setaffinity(0, allowed[:max(1, n)])


def main(argv):
    column, model, batch = argv[0], argv[1], int(argv[2])
    backend = argv[3] if len(argv) > 3 and argv[3] else None
    if os.environ.get("BENCH_THREADS"):
        pin_cores(int(os.environ["BENCH_THREADS"]))
    try:
        step, args = build(column, model, batch, backend)
        block(step, args, 1, WARMUP.get(column, 3))
        if column.startswith("ours"):  # the steady state: PyNative's kernels compiled (off-thread)
            from runtime import eager_kernels
            eager_kernels.wait_pending()
        per_call = block(step, args, 5, 0)
    except Exception as e:  # reported to the coordinator, which leaves the cell empty
        print(f"error {type(e).__name__}: {e}".replace("\n", " ")[:300], flush=True)
        return 1
    print(f"ready {per_call}", flush=True)
    for line in sys.stdin:
        parts = line.split()
        if not parts or parts[0] == "quit":
            break
        print(block(step, args, int(parts[1]), int(parts[2])), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
